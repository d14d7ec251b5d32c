"""Two `justicar serve` processes on one SQLite file (``--shared``): clients on each, commands on
one scene from both at once. Every subscriber, whichever process it is connected to, receives the
same events in the same order (the log's); nothing acknowledged is lost; no command is decided on
a state another process had already moved on from (a race on a rule ends in its refusal, never in
a fork); `justicar verify` passes; a token revoked through one process is refused by the other.

The helpers here serve the PostgreSQL test too (tests/live/test_processes_pg.py)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from domain.commands import Arrive, parse_command
from server.app import running
from server.backend import Backend, open_backend
from server.service import SceneService
from server.wire import Limits
from tests.live.faults import Gone, Peer, cli, free_port, peer, serve_argv, served
from tests.night.table import JUAN, SAM

pytestmark = pytest.mark.anyio

SCENE = "a"
WHO = ("Storyteller", "Sam", "Juan", "spectators")
CONNECTIONS = 3
"""Storyteller connections per process, each sending its commands one after another."""
EACH = 15
"""Commands each of those connections sends in a burst."""


def table_script(path: Path) -> Path:
    """A `--load` script: scene ``a`` with Sam and Juan, Juan without Willpower."""
    base = {"scene": SCENE, "actor": "st"}
    lines: list[dict[str, Any]] = [{**base, "id": "open", "type": "open_scene", "ruleset": "lotn", "title": "Alley"}]
    for who in ("sam", "juan"):
        sheet = {"id": who, "name": who.title(), "willpower": 0, "traits": {"physical": {"Quick": 3}}}
        lines.append({**base, "id": f"add-{who}", "type": "add_character", "character": sheet})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def willpower(command_id: str, delta: int) -> dict[str, Any]:
    """The Storyteller gives Juan Willpower (``delta`` 1), or takes it (-1: refused at 0)."""
    return {
        "type": "adjust",
        "id": command_id,
        "character": "juan",
        "changes": {"willpower": delta},
        "reason": command_id,
    }


def pushed(connection: Peer) -> list[tuple[int, str, str]]:
    """Every event a subscriber was sent, in order: (seq, command, hash)."""
    return [
        (event["seq"], event["command"], event["hash"])
        for message in connection.messages
        if message["type"] == "commit"
        for event in message["events"]
    ]


def logged(db_args: Sequence[str]) -> list[tuple[int, str, str]]:
    """The scene's log as `justicar log` prints it: (seq, command, hash)."""
    done = cli("log", *db_args, SCENE)
    assert done.returncode == 0, done.stderr
    return [(e["seq"], e["command"], e["hash"]) for e in map(json.loads, done.stdout.splitlines())]


@dataclass
class Tally:
    """The results the bursts got, by command id."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    unanswered: list[dict[str, Any]] = field(default_factory=list)

    def accepted(self, prefix: str) -> dict[str, dict[str, Any]]:
        return {cid: r for cid, r in self.results.items() if cid.startswith(prefix) and r["ok"]}

    def refused(self, prefix: str) -> dict[str, dict[str, Any]]:
        return {cid: r for cid, r in self.results.items() if cid.startswith(prefix) and not r["ok"]}


async def burst(connection: Peer, ids: Sequence[str], delta: int, tally: Tally) -> None:
    """Send commands one after another, keeping each result (and the one a lost connection left
    without an answer)."""
    for command_id in ids:
        body = willpower(command_id, delta)
        try:
            tally.results[command_id] = await connection.command(body, seconds=20)
        except (Gone, ConnectionClosed):
            tally.unanswered.append(body)
            return


async def bursts(connections: Sequence[Peer], prefix: str, delta: int, tally: Tally, each: int = EACH) -> None:
    """Every connection's burst at once."""
    async with anyio.create_task_group() as tg:
        for n, connection in enumerate(connections):
            tg.start_soon(burst, connection, [f"{prefix}{n}-{i}" for i in range(each)], delta, tally)


async def caught_up(subscribers: Sequence[Peer], head: int) -> None:
    """Wait (bounded) until every subscriber was sent the log up to ``head``."""
    for subscriber in subscribers:
        await subscriber.wait(
            lambda m: m["type"] == "commit" and any(e["seq"] >= head for e in m["events"]),
            f"event {head}",
            seconds=20,
        )


def same_order(subscribers: Sequence[Peer], log: list[tuple[int, str, str]]) -> None:
    """Each subscriber was sent the whole log, once, in its order, and nothing else."""
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    for subscriber in subscribers:
        assert pushed(subscriber) == log


def events_sent(connection: Peer) -> list[dict[str, Any]]:
    """Every event a subscriber was sent, whole, in order."""
    return [event for message in connection.messages if message["type"] == "commit" for event in message["events"]]


def redacted_for(db_args: Sequence[str], viewer: str) -> list[dict[str, Any]]:
    """The scene's log as `justicar log --as VIEWER` prints it: what that viewer may be sent."""
    done = cli("log", *db_args, "--as", viewer, SCENE)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def acknowledged_in_log(tally: Tally, log: list[tuple[int, str, str]]) -> None:
    """Each accepted command is in the log at the version its result gave."""
    last = {}
    for seq, command, _ in log:
        last[command] = seq
    for command_id, result in tally.results.items():
        if result["ok"]:
            assert last.get(command_id) == result["version"], (command_id, result)


async def refused_hello(url: str, token: str) -> bool:
    """Whether a server refuses ``hello`` with this token."""
    async with connect(url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        answer = json.loads(await ws.recv())
    return bool(answer["type"] == "error")


@contextlib.asynccontextmanager
async def connected(url: str, token: str, n: int) -> AsyncIterator[list[Peer]]:
    """``n`` subscribed connections of one token."""
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(peer(url, token, subscribe=True)) for _ in range(n)]


class TestTwoProcessesOneFile:
    async def test_same_events_same_order_nothing_lost_no_fork(self, tmp_path: Path) -> None:
        """Three Storyteller connections on each process give Juan Willpower at once (all
        accepted), then take it back at once, more times than he has it: exactly as many takes as
        gives are accepted, the rest refused by the rule, never overdrawn (a take decided on a
        state the other process had moved on from would be). The Storyteller, Sam, Juan and the
        spectators, spread over both processes, are each sent the whole log in its order."""
        db = tmp_path / "j.db"
        first, second = free_port(), free_port()
        load = table_script(tmp_path / "table.jsonl")
        argv = serve_argv(db, first, "--shared", "--load", str(load))
        async with (
            served(argv, first, tmp_path / "a.log") as a,
            served(serve_argv(db, second, "--shared"), second, tmp_path / "b.log") as b,
        ):
            tokens = a.tokens[SCENE]
            async with (
                connected(a.url, tokens["Storyteller"], CONNECTIONS) as sts_a,
                connected(b.url, tokens["Storyteller"], CONNECTIONS) as sts_b,
                peer(a.url, tokens["Sam"], subscribe=True) as sam,
                peer(b.url, tokens["Juan"], subscribe=True) as juan,
                peer(a.url, tokens["spectators"], subscribe=True) as spectator_a,
                peer(b.url, tokens["spectators"], subscribe=True) as spectator_b,
            ):
                tally = Tally()
                writers = [x for pair in zip(sts_a, sts_b, strict=True) for x in pair]
                await bursts(writers, "give", 1, tally)
                given = tally.accepted("give")
                assert len(given) == 2 * CONNECTIONS * EACH, tally.refused("give")

                await bursts(writers, "take", -1, tally, each=EACH + 5)  # more takes than gives
                taken, refused = tally.accepted("take"), tally.refused("take")
                assert len(taken) == len(given)
                assert {r["error"]["code"] for r in refused.values()} == {"bad_adjustment"}
                assert all("willpower would fall below 0 (it is 0)" in r["error"]["message"] for r in refused.values())

                last = await sts_a[0].command(willpower("one-more", 1))  # nothing to race: only the feed
                await caught_up([juan, spectator_b], last["version"])

                log = logged(["--db", str(db)])
                subscribers = [*sts_a, *sts_b, sam, juan, spectator_a, spectator_b]
                await caught_up(subscribers, len(log))
                same_order(subscribers, log)
                viewers = [("sam", sam), ("juan", juan), ("spectator", spectator_a), ("spectator", spectator_b)]
                for viewer, connection in viewers:  # Juan's Willpower blanked for all but him and the ST
                    assert events_sent(connection) == redacted_for(["--db", str(db)], viewer)
                acknowledged_in_log(tally, log)
                assert not tally.unanswered

            done = cli("verify", "--db", str(db))
            assert done.returncode == 0 and f"{SCENE}: ok" in done.stdout, done.stdout + done.stderr

    async def test_a_token_revoked_through_one_is_refused_by_the_other(self, tmp_path: Path) -> None:
        """Sam, connected to the second process, is cut off (4003) when the Storyteller revokes
        his token through the first, and cannot say hello to either again."""
        db = tmp_path / "j.db"
        first, second = free_port(), free_port()
        argv = serve_argv(db, first, "--shared", "--load", str(table_script(tmp_path / "table.jsonl")))
        async with (
            served(argv, first, tmp_path / "a.log") as a,
            served(serve_argv(db, second, "--shared"), second, tmp_path / "b.log") as b,
        ):
            tokens = a.tokens[SCENE]
            async with peer(b.url, tokens["Sam"], subscribe=True) as sam, peer(a.url, tokens["Storyteller"]) as st:
                welcome = next(m for m in sam.messages if m["type"] == "welcome")
                await st.send({"type": "revoke", "token_id": welcome["token_id"]})
                await st.wait(lambda m: m["type"] == "revoked", "revoked")
                with anyio.fail_after(10):
                    await sam.closed.wait()
                assert sam.close_code == 4003
            for url in (a.url, b.url):
                assert await refused_hello(url, tokens["Sam"])


# -- a game night across processes -------------------------------------------------------------------


def stream_command(stream: str, body: dict[str, Any]) -> Any:
    return parse_command(msgspec.json.encode({"scene": stream, "actor": "st", **body}))


@contextlib.asynccontextmanager
async def following(url: str, token: str, scene: str) -> AsyncIterator[Peer]:
    """A connection of a night's token subscribed to one of its scenes, from its first event."""
    async with peer(url, token) as connection:
        mark = len(connection.messages)
        await connection.send({"type": "subscribe", "scene": scene, "since": 0})
        answer = await connection.wait(lambda m: m["type"] in ("subscribed", "error"), "the subscription", after=mark)
        assert answer["type"] == "subscribed", answer
        yield connection


def stream_log(backend: Backend, stream: str) -> list[tuple[int, str, str]]:
    return [(r.seq, r.command, r.hash) for r in backend.store.read(stream)]


class TestNightAcrossProcesses:
    async def test_a_move_through_one_arrives_once_in_a_scene_both_hold(self, tmp_path: Path) -> None:
        """Two servers on one file (two hubs, as two processes are) both hold night g1 and its
        scene Elysium. The Storyteller moves Sam into Elysium through the first: the night's
        commit asks Elysium for an arrival, and each server, having seen the move, sends it; Sam
        enters once, and every subscriber of the night and of the scene, on either server, is sent
        that stream's log in its order."""
        db = str(tmp_path / "night.db")
        backend = open_backend(db)
        service = SceneService(backend.store)
        for stream, body in [
            ("g1", {"id": "o", "type": "open_game", "ruleset": "lotn", "title": "Friday"}),
            ("g1", {"id": "r1", "type": "register_character", "character": SAM}),
            ("g1", {"id": "r2", "type": "register_character", "character": JUAN}),
            ("elysium", {"id": "s", "type": "open_scene", "ruleset": "lotn", "title": "Elysium", "game": "g1"}),
            ("g1", {"id": "m1", "type": "move_character", "character": "juan", "to": "elysium"}),
        ]:
            assert service.handle(stream_command(stream, body)).error is None  # with what it asks of the other
        st = backend.tokens.issue("g1", "st")[0]
        limits = Limits(rate=10_000, burst=10_000)
        one, two = open_backend(db), open_backend(db)
        try:
            async with running(one, limits=limits) as a, running(two, limits=limits) as b:
                sent = anyio.Event()  # the second server sent the arrival too (it appended nothing)
                deliver = b.hub._deliver

                async def delivering(commands: Sequence[Any]) -> None:
                    await deliver(commands)
                    if any(isinstance(c, Arrive) and c.scene == "elysium" for c in commands):
                        sent.set()

                b.hub._deliver = delivering  # type: ignore[method-assign]
                async with (
                    peer(a.url, st, subscribe=True) as night_a,
                    peer(b.url, st, subscribe=True) as night_b,
                    following(a.url, st, "elysium") as scene_a,
                    following(b.url, st, "elysium") as scene_b,
                ):
                    body = {"type": "move_character", "id": "m2", "character": "sam", "to": "elysium"}
                    assert (await night_a.command(body))["ok"]
                    with anyio.fail_after(10):
                        await sent.wait()
                    records = backend.store.read("elysium")
                    entered = [r.event.character.id for r in records if r.type == "character_entered"]  # type: ignore[attr-defined]
                    assert entered == ["juan", "sam"]
                    for stream, subscribers in (("g1", [night_a, night_b]), ("elysium", [scene_a, scene_b])):
                        log = stream_log(backend, stream)
                        await caught_up(subscribers, len(log))
                        same_order(subscribers, log)
        finally:
            one.close()
            two.close()
            backend.close()
