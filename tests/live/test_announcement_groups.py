"""Two servers on one PostgreSQL database, each hearing only the commits of the groups of scenes
it holds (``server.store.channels``, ``server.notify.Listener``): a commit to a scene of another
group is never announced to it; a scene of a new group is listened to once its room loads, and its
next commit is heard; a commit whose announcement was lost (or said on the channel of the versions
before the groups) still reaches the subscribers, brought by the sweep; a game night whose
Storyteller is on one server and whose players are on the other goes on by announcements alone
(its commits and follow-ups cross streams of different groups).

What a server's feed received is counted by the feed itself (``Listener.heard``, ``.foreign``):
the tests wait for an announcement they know comes after the one that must not, never for time."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

import anyio
import msgspec
import psycopg
import pytest

from clients.client import Client
from domain.commands import parse_command
from domain.log import Wire
from server.app import Running, running
from server.backend import open_backend
from server.notify import Listener
from server.service import SceneService
from server.store.base import first_problem
from server.store.channels import LEGACY, group
from server.store.postgres import PostgresStore
from tests.live.conftest import at_version, seed
from tests.live.conftest import until as until_client
from tests.live.test_night_live import PLAYERS, Follower, fight, st_do, where

pytestmark = pytest.mark.anyio

A = "alley"
B = next(s for s in (f"bar{n}" for n in itertools.count()) if group(s) != group(A))
"""A scene of another group than ``A``'s."""
C = next(s for s in (f"crypt{n}" for n in itertools.count()) if group(s) not in (group(A), group(B)))
"""A scene of a third group."""
A2 = next(s for s in (f"attic{n}" for n in itertools.count()) if group(s) == group(A))
"""Another scene of ``A``'s group."""


def adjust(reason: str) -> dict[str, Any]:
    return {"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": reason}


def feed(server: Running) -> Listener:
    listener = server.hub.feed
    assert isinstance(listener, Listener)
    return listener


async def until(check: Any, seconds: float = 10.0) -> None:
    """Wait (bounded) until ``check()`` holds: for something that is sure to happen."""
    with anyio.fail_after(seconds):
        while not check():
            await anyio.sleep(0.005)


@contextlib.asynccontextmanager
async def two(url: str, **options: Any) -> AsyncIterator[tuple[Running, Running, dict[str, str]]]:
    """Two servers on ``url`` (each with a backend, a store and a feed of its own), the scenes
    seeded, and a Storyteller's token for each scene."""
    first = open_backend(url)
    for scene in (A, B, C, A2):
        seed(first, scene)
    tokens = {scene: first.tokens.issue(scene, "st")[0] for scene in (A, B, C, A2)}
    second = open_backend(url)
    try:
        async with running(first, **options) as x, running(second, **options) as y:
            await until(lambda: feed(x).listening.is_set() and feed(y).listening.is_set())
            yield x, y, tokens
    finally:
        first.store.close()
        second.store.close()


def commit_unannounced(url: str, scene: str, reason: str, *, legacy: bool = False) -> int:
    """Commit an adjust to ``scene`` with no announcement on its group's channel (a NOTIFY lost);
    ``legacy``: said instead on the one channel of the versions before the groups, as a process
    not yet upgraded does. The scene's version after it."""
    store = PostgresStore(url, notify=False)
    try:
        body = {"scene": scene, "actor": "st", "id": f"quiet-{reason}", **adjust(reason)}
        done = SceneService(store).handle(parse_command(msgspec.json.encode(body)))
        assert done.error is None, done.error
        version = done.records[-1].seq
        if legacy:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("SELECT pg_notify(%s, %s)", [LEGACY, f"{version} {scene}"])
        return version
    finally:
        store.close()


async def test_a_server_hears_only_the_groups_of_the_scenes_it_holds(postgres_db: str) -> None:
    """X holds A, Y holds B (another group). A commit to B, then one to A: X hears A's and never
    B's (announced before it, so it would have come first); Y hears B's and never A's. Another
    scene of A's group is heard by X though it does not hold it (counted as foreign): the group is
    what a server listens to."""
    async with (
        two(postgres_db) as (x, y, tokens),
        Client(x.url, tokens[A]) as on_x,
        Client(y.url, tokens[B]) as on_y,
    ):
        await on_x.subscribe()
        await on_y.subscribe()
        await until(lambda: group(A) in feed(x).on and group(B) in feed(y).on)
        assert group(B) not in feed(x).on and group(A) not in feed(y).on
        x_heard, y_heard = feed(x).heard, feed(y).heard

        await on_y.send(adjust("b first"))
        done = await on_x.send(adjust("then a"))
        await at_version(on_x, done["version"])
        await until(lambda: feed(x).heard > x_heard)
        assert (feed(x).heard - x_heard, feed(x).foreign) == (1, 0)  # A's, not B's

        done = await on_y.send(adjust("b last"))
        await until(lambda: feed(y).heard >= y_heard + 2)
        assert (feed(y).heard - y_heard, feed(y).foreign) == (2, 0)  # B's two, not A's

        async with Client(y.url, tokens[A2]) as elsewhere:  # Y holds A2 now; X does not
            await elsewhere.send(adjust("same group as a"))
        await until(lambda: feed(x).foreign == 1)
        assert A2 not in x.hub.rooms


async def test_a_scene_of_a_new_group_is_listened_to_and_its_next_commit_heard(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """X holds A; a subscriber of C (a group X does not listen to) joins on X: X listens to C's
    group, and hears Y's next commit to C by its announcement (the sweep is an hour away). When C's
    room unloads, X stops listening to its group."""
    monkeypatch.setattr(Listener, "sweep", 3600.0)  # nothing but announcements can bring a commit here
    async with two(postgres_db, idle_after=0.2) as (x, y, tokens), Client(x.url, tokens[A]) as on_x:
        await on_x.subscribe()
        await until(lambda: group(A) in feed(x).on)
        assert group(C) not in feed(x).on
        async with Client(x.url, tokens[C]) as watching, Client(y.url, tokens[C]) as st:
            await watching.subscribe()
            await until(lambda: group(C) in feed(x).on)
            heard = feed(x).heard
            done = await st.send(adjust("on y"))
            await at_version(watching, done["version"])
            await until(lambda: feed(x).heard == heard + 1)
        await until(lambda: C not in x.hub.rooms)  # idle, nobody subscribed: unloaded
        await until(lambda: group(C) not in feed(x).on)
        assert group(A) in feed(x).on


@pytest.mark.parametrize("legacy", [False, True], ids=["lost", "said-by-an-old-version"])
async def test_a_commit_whose_announcement_never_came_is_brought_by_the_sweep(postgres_db: str, legacy: bool) -> None:
    """A commit to A with no announcement on A's group (lost, or said on the one channel of the
    versions before the groups, which nobody listens to now) reaches X's subscriber all the same:
    the sweep reads the end of every scene X holds. Nothing was heard for it."""
    async with two(postgres_db) as (x, _, tokens), Client(x.url, tokens[A]) as on_x:
        feed(x).sweep = 0.2
        await on_x.subscribe()
        await until(lambda: group(A) in feed(x).on)
        heard = feed(x).heard
        version = await anyio.to_thread.run_sync(lambda: commit_unannounced(postgres_db, A, "quiet", legacy=legacy))
        await at_version(on_x, version)
        assert feed(x).heard == heard
        done = await on_x.send(adjust("after it"))  # and the scene goes on from there
        assert done["version"] == version + 1


async def test_the_sweep_reads_the_log_of_none_but_a_scene_that_moved(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep asks the ends of every scene X holds in one query; a room reads its log only where
    the end moved past what it holds: held scenes that do not move cost no read, sweep after sweep
    (with a thousand held, a read each every sweep was a quarter of a busy process's queries)."""
    monkeypatch.setattr(Listener, "sweep", 0.05)
    reads: list[str] = []
    read = SceneService.read

    def counted(self: SceneService, scene: str, after: int, upto: int | None) -> Any:
        reads.append(scene)
        return read(self, scene, after, upto)

    monkeypatch.setattr(SceneService, "read", counted)
    async with two(postgres_db) as (x, _, tokens), Client(x.url, tokens[A]) as on_a, Client(x.url, tokens[B]) as on_b:
        await on_a.subscribe()
        await on_b.subscribe()
        await until(lambda: {group(A), group(B)} <= feed(x).on)
        swept = feed(x).swept
        await until(lambda: feed(x).swept >= swept + 2)
        reads.clear()
        await until(lambda: feed(x).swept >= swept + 8)
        assert reads == []
        version = await anyio.to_thread.run_sync(lambda: commit_unannounced(postgres_db, A, "quiet"))
        await at_version(on_a, version)
        assert set(reads) == {A}


async def test_the_sweep_connects_again_after_its_connection_is_killed(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every connection the servers have to the database killed at once (the sweep's among them):
    the sweep connects again, and a commit whose announcement was lost still reaches X's subscriber."""
    monkeypatch.setattr(Listener, "sweep", 0.1)
    monkeypatch.setattr("server.notify.RETRY", 0.1)
    async with two(postgres_db) as (x, _, tokens), Client(x.url, tokens[A]) as on_a:
        await on_a.subscribe()
        swept = feed(x).swept
        await until(lambda: feed(x).swept > swept)
        name = psycopg.conninfo.conninfo_to_dict(postgres_db)["dbname"]
        with psycopg.connect(postgres_db, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            ).fetchone()
        assert killed is not None and killed[0] >= 2
        swept = feed(x).swept
        await until(lambda: feed(x).swept > swept + 1)  # the sweep goes on, on a new connection
        await until(lambda: group(A) in feed(x).on)  # listening again: the next commit is the sweep's alone
        version = await anyio.to_thread.run_sync(lambda: commit_unannounced(postgres_db, A, "after the kill"))
        await at_version(on_a, version)


def test_a_scene_loaded_while_another_process_commits_to_it_is_sound(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load reads the scene's log and the end its commands were acknowledged up to. Another
    process that commits to the scene between the two reads (its events and its command's row in
    one transaction) must not make the log look as if it had lost its end: the scene loads, as far
    as the log it read. (Issue 30: a server loading a scene of a night another server was sending
    characters into failed the room, and a page joining it then waited forever.)"""
    first = open_backend(postgres_db)
    seed(first, A)
    read = PostgresStore.read_wire
    committed: list[int] = []

    def read_then_another_commits(self: PostgresStore, scene: str, **kw: Any) -> Iterator[Wire]:
        wires = list(read(self, scene, **kw))
        if not committed:  # once: the other process's own load reads the log too
            committed.append(0)
            committed.append(commit_unannounced(postgres_db, scene, "meanwhile"))
        return iter(wires)

    monkeypatch.setattr(PostgresStore, "read_wire", read_then_another_commits)
    try:
        state = SceneService(first.store).load(A)
        assert state.version == committed[-1] - 1  # the log as read, the commit after it left for the next read
    finally:
        first.store.close()


def test_a_scene_verified_while_another_process_commits_to_it_is_sound(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``justicar verify`` of a live database (``first_problem``): a commit made by another process
    right after the log's head was read is not taken for a lost end or an edited index."""
    first = open_backend(postgres_db)
    seed(first, A)
    head = PostgresStore.head
    committed: list[int] = []

    def head_then_another_commits(self: PostgresStore, scene: str) -> Any:
        found = head(self, scene)
        if not committed:  # once: the other process's own commit reads the head too
            committed.append(0)
            committed.append(commit_unannounced(postgres_db, scene, "meanwhile"))
        return found

    monkeypatch.setattr(PostgresStore, "head", head_then_another_commits)
    try:
        assert first_problem(first.store, A) is None
        assert head(first.store, A)[0] == committed[-1]  # the commit went in meanwhile
    finally:
        first.store.close()


async def test_a_game_night_split_over_two_servers_goes_on(postgres_db: str) -> None:
    """The Storyteller runs night g1 on X; the players follow it on Y (the night's socket and their
    scene's), the night and the scene in groups of their own: the moves made on X open the scene on
    Y, the fight fought on Y is in the scene, and the close made on X brings each character back to
    the night on Y with what it lost; both processes heard announcements of the other's commits.
    Here the sweep runs as it does in production."""
    await split_night(postgres_db)


async def test_a_game_night_split_over_two_servers_goes_on_by_announcements_alone(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same night with the sweep off from the servers' start: every push that crosses from
    one process to the other comes by an announcement (or the read that follows a LISTEN), never
    by the sweep. (Issue 30: this hung about one run in four under load, and so did the test above
    with the sweep on: Y loading the scene as X committed to it took it for corrupt, failed the
    room, and a player's join queued there waited forever; see the test of a load above.)"""
    monkeypatch.setattr(Listener, "sweep", 3600.0)  # nothing but announcements can bring a commit here
    with anyio.fail_after(30):  # a wait that never ends fails here, naming the step that waits
        await split_night(postgres_db)


async def split_night(postgres_db: str) -> None:
    """Night g1 run by its Storyteller on X, followed by its players on Y (see the tests above)."""
    first, second = open_backend(postgres_db), open_backend(postgres_db)
    night, scene = "g1", "elysium"
    assert group(night) != group(scene)
    try:
        async with running(first) as x, running(second) as y, AsyncExitStack() as stack:
            st = await stack.enter_async_context(Client(x.url, first.tokens.issue(night, "st")[0], keep=True))
            await st_do(st, night, "open_game", ruleset="lotn", title="Friday at Elysium")
            for sheet in PLAYERS.values():
                await st_do(st, night, "register_character", character=sheet)
            await st.subscribe()
            links = {
                who: (await st.request({"type": "invite", "role": "player", "character": who}, "invited"))["token"]
                for who in PLAYERS
            }
            players = {who: await stack.enter_async_context(Follower(y.url, links[who], who)) for who in PLAYERS}
            await until(lambda: group(night) in feed(y).on)

            await st_do(st, scene, "open_scene", ruleset="lotn", title="Elysium", game=night)
            for who in PLAYERS:
                await st_do(st, night, "move_character", character=who, to=scene)
            for player in players.values():
                assert (await player.follow())["traits_lost"] == []
            assert group(scene) in feed(y).on

            sam, juan = players["sam"], players["juan"]
            await fight(juan, sam, "c-1", ("Wiry", "Brawny"), ("rock", "scissors"))
            await st_do(st, scene, "close_scene")
            for player in players.values():
                await until_client(player.night, lambda c, me=player.me: where(c, me) is None)
            await until_client(sam.night, lambda c: c.view["characters"]["sam"]["traits_lost"] == ["Brawny"])
            assert feed(y).heard > 0 and feed(x).heard > 0
    finally:
        first.store.close()
        second.store.close()
