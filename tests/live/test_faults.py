"""Faults stay where they happen: a corrupt scene, a room that crashes, a full or read-only disk and
a killed server each cost at most their own scene (or their own moment), never another scene's
connections and never an acknowledged command."""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from websockets.exceptions import ConnectionClosed

from clients.client import Client, ClientError
from server.app import Running, running
from server.backend import Backend, open_backend
from server.room import Room
from server.wire import Limits
from tests.live.conftest import seed
from tests.live.faults import (
    Gone,
    Peer,
    Served,
    adjust,
    cli,
    events,
    fill,
    free_port,
    immutable,
    kept_alive,
    logged,
    on_mount,
    peer,
    script,
    serve_argv,
    served,
    tamper,
)

pytestmark = pytest.mark.anyio

UNLIMITED = Limits(rate=10_000, burst=10_000)


# -- two scenes in one SQLite file, served in this process -------------------------------------------


@dataclass
class TwoScenes:
    """A server on a SQLite file holding scenes s1 and s2, and a token per person in each."""

    db: Path
    backend: Backend
    live: Running
    tokens: dict[str, str]

    def connect(self, who: str, *, subscribe: bool = True) -> contextlib.AbstractAsyncContextManager[Peer]:
        """A connection of ``who`` (subscribed, unless told not to)."""
        return peer(self.live.url, self.tokens[who], subscribe=subscribe)


def two_scenes(tmp_path: Path) -> tuple[Path, Backend, dict[str, str]]:
    """Scenes s1 and s2 seeded in one SQLite file, and tokens for some of their people."""
    db = tmp_path / "j.db"
    backend = open_backend(str(db))
    seed(backend, "s1")
    seed(backend, "s2")
    issue = backend.tokens.issue
    tokens = {
        "st1": issue("s1", "st")[0],
        "sam1": issue("s1", "player", "sam")[0],
        "juan1": issue("s1", "player", "juan")[0],
        "st2": issue("s2", "st")[0],
        "sam2": issue("s2", "player", "sam")[0],
    }
    return db, backend, tokens


@pytest.fixture
async def scenes(tmp_path: Path) -> AsyncIterator[TwoScenes]:
    db, backend, tokens = two_scenes(tmp_path)
    async with running(backend, idle_after=0.2, limits=UNLIMITED) as live:
        yield TwoScenes(db, backend, live, tokens)


async def unloaded(live: Running, scene: str) -> None:
    """Wait until the scene's room has unloaded (idle)."""
    with anyio.fail_after(5):
        while scene in live.hub.rooms:
            await anyio.sleep(0.02)


async def carries_on(st: Peer, player: Peer, command_id: str) -> None:
    """A command in the scene is accepted and pushed to the other subscriber; neither connection
    ever got an error or was closed."""
    result = await st.command(adjust(command_id))
    assert result["ok"], result
    await player.wait(
        lambda m: m["type"] == "commit" and m["events"][-1]["seq"] == result["version"], "the commit pushed"
    )
    for connection in (st, player):
        assert connection.errors() == [] and not connection.closed.is_set()


# -- 1. a corrupt scene ------------------------------------------------------------------------------


CORRUPTIONS = {
    "unreadable": (
        "UPDATE events SET data = 'x' || substr(data, 2) WHERE scene = 's1' AND seq = 3",
        ["event 3", "not valid JSON"],
    ),
    "edited": (
        "UPDATE events SET data = replace(data, 'Brutal', 'Gentle') WHERE scene = 's1' AND seq = 3",
        ["event 3", "hash does not match"],
    ),
    "deleted": ("DELETE FROM events WHERE scene = 's1' AND seq = 3", ["expected event 3 here, found 4"]),
    "end lost": (
        "DELETE FROM events WHERE scene = 's1' AND seq = 5",
        ["event 5", "the log ends at event 4, but commands were acknowledged up to event 5"],
    ),
}


class TestCorruptScene:
    """A scene whose log fails its check is refused, alone: the server and the other scenes go on."""

    @pytest.mark.parametrize("corruption", list(CORRUPTIONS))
    async def test_refused_naming_the_event_while_the_other_scene_goes_on(
        self, scenes: TwoScenes, corruption: str
    ) -> None:
        """A subscription and a command to a corrupt scene get scene_unavailable naming the bad event;
        nothing is appended; the other scene's pings, commands and pushes never falter."""
        sql, said = CORRUPTIONS[corruption]
        async with scenes.connect("st2") as st2, scenes.connect("sam2") as sam2, kept_alive(st2, sam2) as pings:
            async with scenes.connect("st1") as st1:  # s1 loaded, used (event 5), then left idle
                assert (await st1.command(adjust("before")))["version"] == 5
            await unloaded(scenes.live, "s1")
            tamper(scenes.db, sql)
            logged_before = events(scenes.db, "s1")

            async with scenes.connect("st1", subscribe=False) as st1:
                refused = await st1.subscribe()
                assert refused["type"] == "error" and refused["code"] == "scene_unavailable", refused
                assert "'s1'" in refused["message"] and all(words in refused["message"] for words in said), refused
                result = await st1.command(adjust("after"))
                assert result["ok"] is False and result["id"] == "after", result
                assert result["error"]["code"] == "scene_unavailable" and said[0] in result["error"]["message"]
                await st1.ping()  # the connection goes on
            assert events(scenes.db, "s1") == logged_before

            await carries_on(st2, sam2, "in-s2")
        assert pings.answered >= 4 and pings.slowest < 1.0

    async def test_the_client_library_says_why_it_cannot_follow_a_corrupt_scene(self, scenes: TwoScenes) -> None:
        """``Client.subscribe`` to a scene that cannot be served raises, in the server's words (it
        used to wait for a catch-up that never came); the client's connection and the other scene
        go on."""
        sql, said = CORRUPTIONS["edited"]
        async with scenes.connect("st1") as st1:
            assert (await st1.command(adjust("before")))["version"] == 5
        await unloaded(scenes.live, "s1")
        tamper(scenes.db, sql)
        async with Client(scenes.live.url, scenes.tokens["st1"], reconnect=False) as client:
            with anyio.fail_after(10), pytest.raises(ClientError) as refused:
                await client.subscribe()
            assert "'s1'" in str(refused.value) and said[1] in str(refused.value)
            async with scenes.connect("st2") as st2:
                assert (await st2.command(adjust("in-s2")))["ok"]

    @pytest.mark.parametrize("corruption", ["unreadable", "edited", "deleted"])
    async def test_a_fork_of_a_corrupt_scene_is_refused(self, scenes: TwoScenes, corruption: str) -> None:
        """A what-if forked from a corrupt scene is refused with an error naming the bad event and
        creates no scene (it would carry the damage into a new chain that verifies), and the
        Storyteller's connection goes on."""
        sql, said = CORRUPTIONS[corruption]
        tamper(scenes.db, sql)
        async with scenes.connect("st1", subscribe=False) as st1:
            await st1.send({"type": "fork", "at": 4, "scene": "what-if"})
            answer = await st1.wait(lambda m: m["type"] in ("forked", "error"), "the fork's answer")
            assert answer["type"] == "error" and answer["code"] in ("scene_unavailable", "bad_fork"), answer
            assert said[0] in answer["message"], answer
            await st1.ping()
        assert events(scenes.db, "what-if") == []


class TestSlowTokenStore:
    """The token store answers slowly (a stalled disk, a far or busy PostgreSQL server): only the
    connection that waits on it waits; every other scene and connection carries on meanwhile."""

    async def test_a_slow_hello_holds_no_one_else(self, scenes: TwoScenes, monkeypatch: pytest.MonkeyPatch) -> None:
        tokens = scenes.backend.tokens
        check = tokens.check
        slow, started, began = scenes.tokens["sam1"], threading.Event(), [0.0]

        def stalled(token: str) -> Any:
            if token == slow:
                began[0] = time.monotonic()
                started.set()
                time.sleep(1.5)  # blocks whichever thread asks (were it the event loop, everyone)
            return check(token)

        monkeypatch.setattr(tokens, "check", stalled)
        async with scenes.connect("st2") as st, scenes.connect("sam2") as sam, anyio.create_task_group() as tg:
            tg.start_soon(partial(carries_on_after_hello, scenes, "sam1"))
            with anyio.fail_after(5):
                while not started.is_set():
                    await anyio.sleep(0.01)
            await carries_on(st, sam, "while-the-store-stalls")
            assert time.monotonic() - began[0] < 0.75, "the other scene waited for the token store"


async def carries_on_after_hello(scenes: TwoScenes, who: str) -> None:
    """``who`` says hello (however long the store takes), subscribes, and is served."""
    async with scenes.connect(who) as late:
        assert late.errors() == [] and not late.closed.is_set()


# -- 2. a room that crashes ------------------------------------------------------------------------


def crash(monkeypatch: pytest.MonkeyPatch, method: str, scene: str) -> None:
    """Make ``Room.<method>`` raise in ``scene``'s room only."""
    original = getattr(Room, method)

    def failing(self: Room, *args: Any, **kwargs: Any) -> Any:
        if self.scene == scene:
            raise RuntimeError(f"injected into {method}")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Room, method, failing)


class TestRoomCrash:
    """A room that fails mid-run stops alone, tells its subscribers, and starts afresh on next use."""

    @pytest.mark.parametrize("method", ["join", "push"])
    async def test_subscribers_told_and_closed_others_unaffected_then_restarts(
        self, scenes: TwoScenes, monkeypatch: pytest.MonkeyPatch, method: str
    ) -> None:
        """The failing scene's subscribers get an error scene_unavailable naming it and a 1011
        close; the other scene never notices; once the fault is gone the scene serves again, with
        everything it committed."""
        async with (
            scenes.connect("st2") as st2,
            scenes.connect("sam2") as sam2,
            kept_alive(st2, sam2) as pings,
            scenes.connect("st1") as st1,
            scenes.connect("sam1") as sam1,
        ):
            pushed: dict[str, Any] = {}
            with monkeypatch.context() as patched:
                crash(patched, method, "s1")
                if method == "join":
                    async with scenes.connect("juan1", subscribe=False) as juan1:
                        refused = await juan1.subscribe()
                        assert refused["code"] == "scene_unavailable" and "'s1'" in refused["message"], refused
                else:  # committed, then the push fails: its sender is still told
                    pushed = await st1.command(adjust("pushed"))
                    assert pushed["ok"] and pushed["version"] == 5, pushed
                for connection in (st1, sam1):
                    error = await connection.wait(lambda m: m["type"] == "error", "the room's error")
                    assert error["code"] == "scene_unavailable" and "Scene 's1'" in error["message"], error
                    assert "RuntimeError" in error["message"]
                    with anyio.fail_after(5):
                        await connection.closed.wait()
                    assert connection.close_code == 1011
                await carries_on(st2, sam2, "during")

            async with scenes.connect("st1") as again, scenes.connect("sam1") as sam_again:
                await carries_on(again, sam_again, "after")
                if method == "push":  # committed before the crash: its first result, again
                    assert await again.command(adjust("pushed")) == pushed
            await carries_on(st2, sam2, "later")
        assert [seq for seq, _ in events(scenes.db, "s1")] == list(range(1, 7 if method == "push" else 6))
        assert pings.answered >= 4 and pings.slowest < 1.0


# -- 3 and 4. a disk that will not take writes -------------------------------------------------------


@dataclass
class Disk:
    """Where the database lives: a directory that is a mount point of its own."""

    dir: Path
    mount: str
    userns: bool = True

    @property
    def db(self) -> Path:
        return self.dir / "j.db"


def tmpfs(tmp_path: Path) -> Disk:
    """A 4 MiB tmpfs."""
    directory = tmp_path / "disk"
    return Disk(directory, f"mount -t tmpfs -o size=4m tmpfs {directory}")


def ext4(tmp_path: Path) -> Disk:
    """A 16 MiB ext4 file system on a loop device (root only: no user namespace mounts ext4)."""
    image, directory = tmp_path / "disk.img", tmp_path / "disk"
    with image.open("wb") as blank:
        blank.truncate(16 * 1024 * 1024)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    return Disk(directory, f"mount -o loop {image} {directory}", userns=False)


@dataclass
class Table:
    """Scene a's Storyteller, and scene b's Storyteller and Sam subscribed."""

    st_a: Peer
    st_b: Peer
    sam_b: Peer


async def acknowledged(st: Peer, *ids: str) -> list[dict[str, Any]]:
    """Commands sent and accepted, with their results."""
    results = [await st.command(adjust(command_id)) for command_id in ids]
    assert all(result["ok"] for result in results), results
    return results


def refused_for_storage(result: dict[str, Any], command_id: str) -> None:
    assert result["id"] == command_id and result["ok"] is False, result
    assert result["error"]["code"] == "storage_unavailable", result


def verified_copy(server_db: Path, into: Path) -> Path:
    """The database (and its WAL) copied out of the server's mount, checked by `justicar verify`."""
    into.mkdir()
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{server_db}{suffix}", into / f"j.db{suffix}")
    done = cli("verify", "--db", str(into / "j.db"))
    assert done.returncode == 0 and done.stdout.count(": ok,") == 2, done.stdout + done.stderr
    return into / "j.db"


@contextlib.asynccontextmanager
async def serving_on(disk: Disk, tmp_path: Path) -> AsyncIterator[tuple[Served, Table]]:
    """`justicar serve` with its database on ``disk``, scenes a and b loaded, and the table seated."""
    port = free_port()
    argv = serve_argv(disk.db, port, "--load", str(script(tmp_path / "scenes.jsonl", "a", "b")))
    with on_mount(disk.mount, disk.dir, argv, userns=disk.userns) as command:
        async with served(command, port, tmp_path / "server.log") as server:
            cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes().split(b"\0")
            assert b"clients.cli" in cmdline and b"serve" in cmdline  # sh exec'd the server: its pid is ours
            a, b = server.tokens["a"], server.tokens["b"]
            async with (
                peer(server.url, a["Storyteller"]) as st_a,
                peer(server.url, b["Storyteller"], subscribe=True) as st_b,
                peer(server.url, b["Sam"], subscribe=True) as sam_b,
            ):
                yield server, Table(st_a, st_b, sam_b)


class TestFullDisk:
    """A full disk refuses commands as storage_unavailable, loses nothing, and passes by itself."""

    async def test_refused_while_full_then_recovers(self, tmp_path: Path) -> None:
        """With the database's tmpfs full, each command in scene a gets a storage_unavailable result
        carrying its id while scene b's pings are answered; once space is freed the next command is
        accepted, and the file verifies with every acknowledged command in it."""
        disk = tmpfs(tmp_path)
        async with serving_on(disk, tmp_path) as (server, table):
            kept = await acknowledged(table.st_a, "kept-1", "kept-2", "kept-3")
            async with kept_alive(table.st_b, table.sam_b) as pings:
                filler = server.outside(disk.dir / "filler")
                assert await anyio.to_thread.run_sync(fill, filler) > 0
                for n in range(3):
                    refused_for_storage(await table.st_a.command(adjust(f"full-{n}")), f"full-{n}")
                assert server.alive()
                filler.unlink()
                recovered = await table.st_a.command(adjust("recovered"))
                assert recovered["ok"] and recovered["version"] == kept[-1]["version"] + 1, recovered
            await carries_on(table.st_b, table.sam_b, "b-after")
            assert pings.answered >= 4 and pings.slowest < 1.0
            copy = verified_copy(server.outside(disk.db), tmp_path / "copy")
        commands = [event["command"] for event in logged(copy, "a")]
        assert commands[-4:] == ["kept-1", "kept-2", "kept-3", "recovered"]
        assert not any(command.startswith("full-") for command in commands)


class TestReadOnlyDisk:
    """Database files that turn read-only mid-run refuse commands as storage_unavailable, and the
    server takes commands again as soon as they are writable."""

    async def test_refused_while_read_only_then_recovers(self, tmp_path: Path) -> None:
        """With the database and its WAL made immutable under the running server (every write fails,
        even through descriptors it already holds), commands in scene a get storage_unavailable
        while scene b's pings are answered; made writable again, the next command is accepted."""
        disk = ext4(tmp_path)
        async with serving_on(disk, tmp_path) as (server, table):
            kept = await acknowledged(table.st_a, "kept-1", "kept-2")
            files = [server.outside(disk.dir / name) for name in ("j.db", "j.db-wal")]
            async with kept_alive(table.st_b, table.sam_b) as pings:
                for path in files:
                    immutable(path, True)
                try:
                    for n in range(3):
                        refused_for_storage(await table.st_a.command(adjust(f"ro-{n}")), f"ro-{n}")
                    assert server.alive()
                finally:
                    for path in files:
                        immutable(path, False)
                recovered = await table.st_a.command(adjust("recovered"))
                assert recovered["ok"] and recovered["version"] == kept[-1]["version"] + 1, recovered
            await carries_on(table.st_b, table.sam_b, "b-after")
            assert pings.answered >= 4 and pings.slowest < 1.0
            copy = verified_copy(server.outside(disk.db), tmp_path / "copy")
        commands = [event["command"] for event in logged(copy, "a")]
        assert commands[-3:] == ["kept-1", "kept-2", "recovered"]


# -- 5. a killed server ----------------------------------------------------------------------------


@dataclass
class Acknowledged:
    """A command and the result it got."""

    body: dict[str, Any]
    result: dict[str, Any]


async def burst(
    url: str, token: str, client: int, acked: dict[str, Acknowledged], unanswered: list[dict[str, Any]]
) -> None:
    """Send commands one after another until the connection is lost, keeping those acknowledged
    (and the one left without an answer)."""
    async with peer(url, token) as connection:
        for n in itertools.count():
            body = adjust(f"c{client}-{n}", character=("sam", "juan")[client % 2])
            try:
                result = await connection.command(body)
            except (Gone, ConnectionClosed):
                unanswered.append(body)
                return
            assert result["ok"], result
            acked[body["id"]] = Acknowledged(body, result)


class TestKilled:
    """A server killed with SIGKILL mid-burst loses no acknowledged command and starts again."""

    async def test_kill_9_during_a_burst(self, tmp_path: Path) -> None:
        """After kill -9 during four clients' bursts the server restarts on the same file; every
        acknowledged command is in the log at the version it was acknowledged with, the file
        verifies, re-sending an acknowledged id returns its first result and appends nothing, and a
        command left unanswered either was committed (its re-sending answered from the log) or never
        happened (its re-sending applies it once)."""
        db, log = tmp_path / "j.db", tmp_path / "server.log"
        port = free_port()
        acked: dict[str, Acknowledged] = {}
        unanswered: list[dict[str, Any]] = []
        argv = serve_argv(db, port, "--load", str(script(tmp_path / "scene.jsonl", "a")))
        async with served(argv, port, log) as server:
            st = server.tokens["a"]["Storyteller"]
            async with anyio.create_task_group() as tg:
                for client in range(4):
                    tg.start_soon(burst, server.url, st, client, acked, unanswered)
                with anyio.fail_after(10):
                    while len(acked) < 60:
                        await anyio.sleep(0.005)
                os.kill(server.pid, signal.SIGKILL)
            assert server.proc.wait(5) == -signal.SIGKILL

        port = free_port()
        async with served(serve_argv(db, port), port, log) as again:  # the dead server's lock is released
            logged_seqs = {event["command"]: event["seq"] for event in logged(db, "a")}
            for command_id, ack in acked.items():
                assert logged_seqs.get(command_id) == ack.result["version"], command_id
            done = cli("verify", "--db", str(db))
            assert done.returncode == 0 and "a: ok" in done.stdout, done.stdout + done.stderr

            head = events(db, "a")[-1][0]
            lasts = {ack.body["id"].split("-")[0]: ack for ack in acked.values()}  # each client's last
            async with peer(again.url, st) as connection:
                for ack in lasts.values():
                    assert await connection.command(ack.body) == ack.result
                assert events(db, "a")[-1][0] == head
                for body in unanswered:
                    result = await connection.command(body)
                    assert result["ok"], result
                    if body["id"] in logged_seqs:
                        assert result["version"] == logged_seqs[body["id"]], result
                    else:
                        head += 1
                        assert result["version"] == head, result
            assert events(db, "a")[-1][0] == head
