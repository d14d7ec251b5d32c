"""Response deadlines on a real server (``server.alarms``): the server's own clock, short deadlines
(a second or three), real clients on loopback.

- ``act``: a side that does not throw in time gets a random throw, appended once, never before its
  time; a throw made in time leaves nothing to lapse.
- ``tell``: the Storyteller is told (``deadline_passed`` with lapse ``tell``), nothing else moves.
- A scene whose room unloaded (no one connected) still fires, from the alarm's heap, and a scene
  no room ever loaded fires from the index read at start.
- ``kill -9`` and a restart of ``justicar serve`` on its SQLite file: the deadline set before the
  kill runs out while no server runs, and the restarted one appends its lapse once, from the
  index.
- Two ``justicar serve`` processes on one PostgreSQL database: both holding the scene, the lapse is
  appended once; the one holding a scene killed, the other takes it over after a grace.
- The database away when a deadline runs out: the lapse is appended once it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from domain.deadlines import next_due
from domain.events import DeadlinePassed, ThrowSealed
from domain.evolve import fold
from domain.log import Recorded
from projections.views import view
from server import alarms
from server.app import running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.faults import cli, free_port, logged, peer, serve_argv, served
from tests.postgres import Cluster

pytestmark = pytest.mark.anyio

WAIT = 10.0
"""Seconds any wait for a lapse may take at most (well past every deadline here)."""


def opening(scene: str, lapse: str, seconds: int, *, answer: bool = False) -> list[dict[str, Any]]:
    """A scene whose throws (with ``answer``: answers) have ``seconds`` and lapse as ``lapse``
    says, with Sam's challenge to Juan answered: both now owe a throw."""
    deadlines = {"answer" if answer else "throw": {"seconds": seconds, "lapse": lapse}}
    lines: list[dict[str, Any]] = [
        {"id": f"{scene}-open", "type": "open_scene", "ruleset": "lotn", "options": {"deadlines": deadlines}}
    ]
    for who in ("sam", "juan"):
        sheet = {"id": who, "name": who.title(), "traits": {"physical": {"Quick": 3, "Brawny": 2}}}
        lines.append({"id": f"{scene}-add-{who}", "type": "add_character", "character": sheet})
    lines.append(
        {
            "id": f"{scene}-declare",
            "actor": "sam",
            "type": "declare",
            "challenge": "c",
            "kind": "contested",
            "category": "physical",
            "targets": ["juan"],
            "bid": ["Quick"],
            "effect": {"kind": "damage", "amount": 1, "type": "bashing"},
        }
    )
    lines.append({"id": f"{scene}-bid", "actor": "juan", "type": "bid", "challenge": "c", "bid": ["Quick"]})
    return [{"scene": scene, "actor": "st", **line} for line in lines]


def seed(backend: Backend, scene: str, lapse: str, seconds: int) -> None:
    service = SceneService(backend.store)
    for line in opening(scene, lapse, seconds):
        done = service.handle(parse_command(msgspec.json.encode(line)))
        assert done.error is None, done.error


def passed(records: list[Recorded]) -> list[Recorded]:
    return [r for r in records if isinstance(r.event, DeadlinePassed)]


def told(record: Recorded) -> DeadlinePassed:
    """A lapse's event."""
    assert isinstance(record.event, DeadlinePassed)
    return record.event


def of(records: list[Recorded], key: str) -> list[Recorded]:
    """The lapses of one deadline (its key names its step: a tie's declarations, the next test's
    throws are other deadlines, which a random throw may bring)."""
    return [r for r in passed(records) if told(r).key == key]


def sound(backend: Backend, scene: str) -> list[Recorded]:
    """The scene's log, checked: no deadline lapsed twice (the same key from the same start: more
    time given is another clock), none before its time; and the index holds the time the folded
    log says (none when nothing runs)."""
    records = list(backend.store.read(scene))
    clocks = [(told(r).key, told(r).since) for r in passed(records)]
    assert len(clocks) == len(set(clocks)), clocks
    assert all(r.at >= due_of(r) for r in passed(records))
    due = next_due(fold(records))
    assert backend.store.alarms() == ([(scene, due)] if due else [])
    return records


def due_of(record: Recorded) -> datetime:
    event = told(record)
    return event.since + timedelta(seconds=event.seconds)


async def lapsed(backend: Backend, scene: str, n: int = 1) -> list[Recorded]:
    """The scene's log once it holds ``n`` lapses."""
    with anyio.fail_after(WAIT):
        while len(passed(records := list(backend.store.read(scene)))) < n:
            await anyio.sleep(0.02)
    return records


@contextlib.asynccontextmanager
async def table(backend: Backend, scene: str = "s1", **options: Any) -> AsyncIterator[tuple[Any, Client, Client]]:
    """The server, and Sam and Juan connected and following the scene."""
    sam_token, _ = backend.tokens.issue(scene, "player", "sam")
    juan_token, _ = backend.tokens.issue(scene, "player", "juan")
    async with (
        running(backend, **options) as live,
        Client(live.url, sam_token) as sam,
        Client(live.url, juan_token) as juan,
    ):
        await sam.subscribe()
        await juan.subscribe()
        yield live, sam, juan


class TestOneServer:
    async def test_a_silent_side_throws_at_random_once_and_not_before_its_time(self) -> None:
        """Sam throws; Juan stays silent. Once his second has run, the server throws for him at
        random: one ``deadline_passed`` (``act``, naming the option and the time given) followed by
        his throw, stamped after his time ran out; it never lapses again."""
        backend = open_backend(None)
        seed(backend, "s1", "act", 1)
        async with table(backend) as (_, sam, _juan):
            assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
            records = await lapsed(backend, "s1")
            (lapse,) = passed(records)
            event = told(lapse)
            assert (event.kind, event.character, event.lapse, event.seconds) == ("throw", "juan", "act", 1)
            assert event.option == "deadlines.throw" and event.did == "throw"
            assert lapse.at >= due_of(lapse)  # never before its time
            after = records[records.index(lapse) + 1].event
            assert isinstance(after, ThrowSealed) and after.character == "juan" and after.random
            assert lapse.actor == "st" and lapse.command.startswith("~lapse-")
            await anyio.sleep(1.5)  # another second and more: it never lapses twice
        assert of(sound(backend, "s1"), event.key) == [lapse]

    async def test_a_throw_in_time_leaves_nothing_to_lapse(self) -> None:
        """Both throw within their time: when it would have run out (and a second after), the log
        holds no lapse."""
        backend = open_backend(None)
        seed(backend, "s1", "act", 2)
        async with table(backend) as (live, sam, juan):
            assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
            assert (await juan.send({"type": "throw", "challenge": "c", "sign": "paper"}))["ok"]
            await anyio.sleep(3.0)
            assert passed(sound(backend, "s1")) == []
            assert "s1" not in live.hub.alarm.due  # Juan won: no retest is timed, nothing runs

    async def test_tell_only_tells_the_storyteller(self) -> None:
        """With ``tell``, Juan's lapse is a ``deadline_passed`` (lapse ``tell``) and nothing else:
        the challenge still waits for his throw, and nothing lapses again."""
        backend = open_backend(None)
        seed(backend, "s1", "tell", 1)
        async with table(backend) as (live, sam, juan):
            assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
            records = await lapsed(backend, "s1")
            (lapse,) = passed(records)
            event = told(lapse)
            assert (event.character, event.lapse, event.did) == ("juan", "tell", "")
            assert lapse.at >= due_of(lapse)
            assert records[-1] == lapse  # nothing moved after it
            await anyio.sleep(1.5)
            assert sound(backend, "s1") == records
            challenge = juan.view["challenges"]["c"]
            assert challenge["status"] == "throwing"
            assert "s1" not in live.hub.alarm.due  # a told lapse waits on the Storyteller, not the clock

    async def test_more_time_given_runs_out_again(self) -> None:
        """Told that Juan is late, the Storyteller gives him two seconds more: his clock runs
        again, and when it runs out the Storyteller is told again, once; Juan's throw in the
        meantime would have stopped it (the first test's case)."""
        backend = open_backend(None)
        seed(backend, "s1", "tell", 1)
        st_token, _ = backend.tokens.issue("s1", "st")
        async with table(backend) as (live, sam, _juan), Client(live.url, st_token) as st:
            assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
            (first,) = passed(await lapsed(backend, "s1"))
            key = told(first).key
            given = await st.send({"type": "extend_deadline", "key": key, "seconds": 2})
            assert given["ok"], given
            assert "s1" in live.hub.alarm.due  # running again
            _, again = passed(await lapsed(backend, "s1", 2))
            assert (told(again).key, told(again).seconds, told(again).lapse) == (key, 2, "tell")
            assert told(again).since == datetime.fromisoformat(given["events"][0]["at"])
            await anyio.sleep(0.5)
        assert of(sound(backend, "s1"), key) == [first, again]

    async def test_a_scene_whose_room_unloaded_still_fires(self) -> None:
        """Sam throws and everyone leaves; the room unloads when idle. Juan's time still runs out:
        the alarm loads the scene through the hub and appends the lapse once."""
        backend = open_backend(None)
        seed(backend, "s1", "act", 3)
        sam_token, _ = backend.tokens.issue("s1", "player", "sam")
        async with running(backend, idle_after=0.2) as live:
            async with Client(live.url, sam_token) as sam:
                assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
            with anyio.fail_after(WAIT):
                while "s1" in live.hub.rooms:
                    await anyio.sleep(0.02)
            assert passed(list(backend.store.read("s1"))) == []  # unloaded before its time
            assert "s1" in live.hub.alarm.due  # one heap entry, no room, no task
            (lapse,) = passed(await lapsed(backend, "s1"))
            assert lapse.at >= due_of(lapse)
            await anyio.sleep(0.5)
        assert of(sound(backend, "s1"), told(lapse).key) == [lapse]

    async def test_a_scene_never_loaded_fires_from_the_index(self, tmp_path: Path) -> None:
        """The scene was written before the server started and nobody connects: the alarm's first
        read of the index brings its time, and it fires. Neither side threw: both clocks started with
        the test and run out together; Sam's random throw is made first and does not start Juan's
        again (one side's throw never restarts the other's), so Juan lapses at the same time; then
        nothing runs."""
        backend = open_backend(str(tmp_path / "j.db"), lock=True)  # as `serve` opens it: alone on it
        try:
            seed(backend, "s1", "act", 2)
            assert [scene for scene, _ in backend.store.alarms()] == ["s1"]
            async with running(backend) as live:
                assert "s1" not in live.hub.rooms
                sam, juan = passed(await lapsed(backend, "s1", 2))
            assert [told(r).character for r in (sam, juan)] == ["sam", "juan"]
            assert sam.at >= due_of(sam) and juan.at >= due_of(juan) == due_of(sam)
            sound(backend, "s1")  # the index says what the log says, kept by each lapse's commit
        finally:
            backend.close()

    async def test_a_thousand_idle_scenes_are_a_heap_not_tasks(self) -> None:
        """A thousand scenes, each with a defender's answer due in an hour: the alarm reads them
        from the index at start and holds one entry each, loads no room, and the server runs no
        more tasks than it does with no scene at all."""
        empty = open_backend(None)
        async with running(empty) as live:
            await anyio.sleep(0.1)
            idle = len(asyncio.all_tasks())
        backend = open_backend(None)
        service = SceneService(backend.store)
        for n in range(1000):
            for line in opening(f"s{n}", "tell", 3600, answer=True)[:4]:  # declared, not answered
                assert service.handle(parse_command(msgspec.json.encode(line))).error is None
        async with running(backend) as live:
            with anyio.fail_after(WAIT):
                while len(live.hub.alarm.due) < 1000:
                    await anyio.sleep(0.01)
            await anyio.sleep(0.1)
            assert live.hub.alarm.entries == 1000 and live.hub.rooms == {}
            assert len(asyncio.all_tasks()) == idle

    async def test_a_patch_carries_a_pages_deadlines_only_when_they_changed(self) -> None:
        """Sam and Juan owe throws (ten minutes each). The Storyteller's adjust of Sam moves no
        clock: its patch leaves the deadlines out, and every page keeps its list, the one the whole
        view has. Juan opens a second page meanwhile. Sam's throw ends his deadline: that patch
        carries the list whole to every page, the new one too; the next adjust leaves it out again,
        and each page still holds exactly what the whole view says."""
        backend = open_backend(None)
        seed(backend, "s1", "tell", 600)
        tokens = {who: backend.tokens.issue("s1", "player", who)[0] for who in ("sam", "juan")}
        st_token, _ = backend.tokens.issue("s1", "st")
        async with (
            running(backend) as live,
            Client(live.url, tokens["sam"], keep=True) as sam,
            Client(live.url, tokens["juan"], keep=True) as juan,
            Client(live.url, st_token, keep=True) as st,
        ):
            pages = {"sam": sam, "juan": juan, "st": st}
            for page in pages.values():
                await page.subscribe()
            assert [d["character"] for d in juan.view["deadlines"]] == ["sam", "juan"]

            async def pushed(body: dict[str, Any]) -> list[dict[str, Any]]:
                """Send ``body`` as the Storyteller or a player; each page's commit frame of it,
                once every page has it (and has merged it)."""
                done = await (pages[body.pop("by")]).send(body)
                assert done["ok"], done
                version = live.hub.service.state("s1").version
                with anyio.fail_after(WAIT):
                    while any(page.last_seq < version for page in pages.values()):
                        await anyio.sleep(0.01)
                frames = []
                for page in pages.values():
                    assert page.received is not None
                    frames.append(next(m for m in page.received if m["type"] == "commit" and m["version"] == version))
                return frames

            def whole(viewer: str) -> Any:
                return msgspec.to_builtins(view(live.hub.service.state("s1"), viewer).deadlines)

            adjust = {"by": "st", "type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": "a test"}
            for frame in await pushed(dict(adjust)):
                assert "deadlines" not in frame["view"] and "characters" in frame["view"]
            for viewer, page in pages.items():
                assert page.view["deadlines"] == whole(viewer), viewer
            async with Client(live.url, tokens["juan"], keep=True) as again:
                await again.subscribe()
                pages["juan again"] = again
                frames = await pushed({"by": "sam", "type": "throw", "challenge": "c", "sign": "rock"})
                assert all("deadlines" in frame["view"] for frame in frames)
                assert [d["character"] for d in again.view["deadlines"]] == ["juan"]
                assert again.view["deadlines"][0]["mine"] and not sam.view["deadlines"][0]["mine"]
                for frame in await pushed(dict(adjust)):
                    assert "deadlines" not in frame["view"]
                for viewer, page in pages.items():
                    assert page.view["deadlines"] == whole(viewer.split()[0]), viewer


# -- processes ----------------------------------------------------------------------------------


def script(path: Path, *scenes: tuple[str, str, int]) -> Path:
    lines = [line for scene, lapse, seconds in scenes for line in opening(scene, lapse, seconds)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def lapses_logged(db: str, scene: str) -> list[dict[str, Any]]:
    """The scene's lapses as `justicar log` prints them, checked: no deadline lapsed twice, none
    before its time."""
    found = [e for e in logged(db, scene) if e["type"] == "deadline_passed"]  # type: ignore[arg-type]
    clocks = [(e["data"]["key"], e["data"]["since"]) for e in found]
    assert len(clocks) == len(set(clocks)), clocks
    for e in found:
        due = datetime.fromisoformat(e["data"]["since"]) + timedelta(seconds=e["data"]["seconds"])
        assert datetime.fromisoformat(e["at"]) >= due, e
    return found


async def logged_lapses(db: str, scene: str, n: int = 1, seconds: float = WAIT) -> list[dict[str, Any]]:
    with anyio.fail_after(seconds):
        while len(found := await anyio.to_thread.run_sync(lapses_logged, db, scene)) < n:
            await anyio.sleep(0.2)
    return found


def killed(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


SLACK = 600
"""Seconds the opening gives each throw in the process tests: Sam's throw is never raced by its own
lapse however slow the machine; the Storyteller then gives the short time (``thrown``)."""


async def thrown(sam: Any, st: Any, lapse: str, seconds: int) -> None:
    """Sam throws; then the Storyteller sets the throws' deadline to ``seconds`` (every running
    clock starts again at that command): Juan's short time starts once Sam's throw is in."""
    answer = await sam.command({"type": "throw", "id": "t", "challenge": "c", "sign": "rock"})
    assert answer["ok"], answer
    timing = {"type": "set_deadlines", "id": "short", "deadlines": {"throw": {"seconds": seconds, "lapse": lapse}}}
    answer = await st.command(timing)
    assert answer["ok"], answer


class TestProcesses:
    async def test_kill_9_and_a_restart_lose_no_deadline(self, tmp_path: Path) -> None:
        """Sam throws and the server is killed (SIGKILL) before Juan's time runs out; it runs out
        while no server runs; started again on the same file, with nobody connected, the server
        appends the lapse once, from the index."""
        db = tmp_path / "j.db"
        load = script(tmp_path / "table.jsonl", ("s1", "act", SLACK))
        port = free_port()
        async with served(serve_argv(db, port, "--load", str(load)), port, tmp_path / "first.log") as first:
            async with (
                peer(first.url, first.tokens["s1"]["Sam"]) as sam,
                peer(first.url, first.tokens["s1"]["Storyteller"]) as st,
            ):
                await thrown(sam, st, "act", 3)
            killed(first.pid)
            assert first.proc.wait(5) == -signal.SIGKILL
        events = logged(db, "s1")
        start = datetime.fromisoformat(events[-1]["at"])  # the bid began the throws: Juan has 3 s from it
        assert not any(e["type"] == "deadline_passed" for e in events)
        await anyio.sleep(max(0.0, (start + timedelta(seconds=4) - datetime.now(start.tzinfo)).total_seconds()))
        port = free_port()
        async with served(serve_argv(db, port), port, tmp_path / "second.log"):
            (lapse, *_) = await logged_lapses(str(db), "s1")
            await anyio.sleep(1.0)
        assert lapse["data"]["character"] == "juan" and lapse["data"]["lapse"] == "act"
        assert [e for e in lapses_logged(str(db), "s1") if e["data"]["key"] == lapse["data"]["key"]] == [lapse]
        done = cli("verify", "--db", str(db))
        assert done.returncode == 0, done.stdout + done.stderr

    async def test_two_processes_on_postgres_lapse_once(self, postgres_db: str, tmp_path: Path) -> None:
        """Two `justicar serve` on one PostgreSQL database. In p1 Sam follows on the first and Juan
        on the second, so both hold the scene and both fire when Juan's time runs out: one lapse
        is appended. In p2 only the first holds the scene, and is killed before Juan's time runs
        out: the second takes the scene over (from the index, a grace after its time) and appends
        the lapse once."""
        load = script(tmp_path / "table.jsonl", ("p1", "act", SLACK), ("p2", "act", SLACK))
        ports = [free_port(), free_port()]
        argvs = [serve_argv(postgres_db, ports[0], "--load", str(load)), serve_argv(postgres_db, ports[1])]  # type: ignore[arg-type]
        async with contextlib.AsyncExitStack() as stack:
            a = await stack.enter_async_context(served(argvs[0], ports[0], tmp_path / "a.log"))
            b = await stack.enter_async_context(served(argvs[1], ports[1], tmp_path / "b.log"))
            sam1 = await stack.enter_async_context(peer(a.url, a.tokens["p1"]["Sam"], subscribe=True))
            await stack.enter_async_context(peer(b.url, a.tokens["p1"]["Juan"], subscribe=True))
            sam2 = await stack.enter_async_context(peer(a.url, a.tokens["p2"]["Sam"], subscribe=True))
            for sam, scene, seconds in ((sam1, "p1", 4), (sam2, "p2", 10)):
                st = await stack.enter_async_context(peer(a.url, a.tokens[scene]["Storyteller"]))
                await thrown(sam, st, "act", seconds)
            (first, *_) = await logged_lapses(postgres_db, "p1")
            assert first["data"]["character"] == "juan"
            assert lapses_logged(postgres_db, "p2") == []
            killed(a.pid)
            assert a.proc.wait(5) == -signal.SIGKILL
            (taken, *_) = await logged_lapses(postgres_db, "p2", seconds=10 + alarms.GRACE + alarms.LOOK)
            assert taken["data"]["character"] == "juan"
            due = datetime.fromisoformat(taken["data"]["since"]) + timedelta(seconds=10)
            assert datetime.fromisoformat(taken["at"]) >= due + timedelta(seconds=alarms.GRACE)  # its holder went first
            await anyio.sleep(1.0)
            assert b.alive()
        for scene, lapse in (("p1", first), ("p2", taken)):  # each once, and no other lapsed twice
            assert [e for e in lapses_logged(postgres_db, scene) if e["data"]["key"] == lapse["data"]["key"]] == [lapse]
        done = cli("verify", "--db", postgres_db)
        assert done.returncode == 0, done.stdout + done.stderr

    async def test_a_deadline_that_runs_out_while_the_database_is_away(self, tmp_path: Path) -> None:
        """PostgreSQL is stopped (as a crash stops it) before Juan's time runs out and started again
        after: the lapse could not be recorded meanwhile, and is, once, when the database is back;
        Sam, still connected, is sent it."""
        cluster = Cluster()
        try:
            backend = open_backend(cluster.url)
            seed(backend, "s1", "act", SLACK)
            sam_token = backend.tokens.issue("s1", "player", "sam")[0]
            st_token = backend.tokens.issue("s1", "st")[0]
            backend.close()
            port = free_port()
            async with (
                served(serve_argv(cluster.url, port), port, tmp_path / "serve.log") as server,  # type: ignore[arg-type]
                peer(server.url, sam_token, subscribe=True) as sam,
                peer(server.url, st_token) as st,
            ):
                await thrown(sam, st, "act", 2)
                cluster.stop()
                await anyio.sleep(4.0)  # Juan's time runs out while the database is away
                cluster.start()
                pushed = await sam.wait(
                    lambda m: m["type"] == "commit" and m["events"][0]["type"] == "deadline_passed",
                    "the lapse",
                    seconds=30,
                )
                lapse = pushed["events"][0]
                await anyio.sleep(1.0)
                assert server.alive() and sam.errors() == []
            same = [e for e in lapses_logged(cluster.url, "s1") if e["data"]["key"] == lapse["data"]["key"]]
            assert [e["seq"] for e in same] == [lapse["seq"]] and lapse["data"]["character"] == "juan"
            given = datetime.fromisoformat(lapse["data"]["since"]) + timedelta(seconds=lapse["data"]["seconds"])
            assert datetime.fromisoformat(lapse["at"]) >= given  # never before its time
            said = (tmp_path / "serve.log").read_text()
            assert "lapse not recorded" in said or "deadline not fired" in said  # it was tried meanwhile
            done = cli("verify", "--db", cluster.url, "s1")
            assert done.returncode == 0, done.stdout + done.stderr
        finally:
            cluster.close()
