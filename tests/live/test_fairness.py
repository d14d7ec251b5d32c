"""Heavy requests (history, older challenges, replays, catch-ups, documents) shared fairly: one in
progress per connection (a second is refused ``busy``), paid for in work from the connection's and
its link's budgets (``work_limited`` when in debt), the worker taken in turn by link, and what a
closed connection asked dropped, never done for nobody.

The worker is held busy by a job of the test's own (``gate``) so that requests queue behind it in a
known order; each event of a history page put into words is recorded (``made``: the scene it
belongs to), slowed down so that a page is work a bystander would wait for."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from anyio.abc import TaskGroup
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.scenes import PEOPLE, brawl
from projections.narrate import narrate_records
from server import catchup, connection
from server import worker as working
from server.app import Running, running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.conftest import seed
from tests.live.faults import adjust, peer
from tests.live.test_guards import hello, recv

pytestmark = pytest.mark.anyio

SLOW = 0.05
"""Seconds each event of a history page takes to put into words, here."""


def page_of(before: int = 5, limit: int = 3) -> str:
    """A page of history: events 2-4 of a seeded scene (an open and three characters added)."""
    return json.dumps({"type": "history", "before": before, "limit": limit})


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scene of each event a history page put into words, in the order they were."""
    scenes: list[str] = []

    def slowly(befores: Any, records: Any, viewer: str, **hidden: Any) -> list[str]:
        for before in befores:
            scenes.append(before.id)
            time.sleep(SLOW)
        return narrate_records(befores, records, viewer, **hidden)

    monkeypatch.setattr(connection, "narrate_records", slowly)
    return scenes


@pytest.fixture
def elsewhere(backend: Backend) -> str:
    """A spectator's token for another scene, s2 (another link)."""
    seed(backend, "s2")
    return backend.tokens.issue("s2", "spectator")[0]


@pytest.fixture
async def tasks() -> AsyncIterator[TaskGroup]:
    async with anyio.create_task_group() as tg:
        yield tg
        tg.cancel_scope.cancel()


@pytest.fixture
async def gate(live: Running, tasks: TaskGroup) -> AsyncIterator[threading.Event]:
    """The worker held by a job of the server's own until the event is set (the scene s1 loaded
    first)."""
    await live.hub.state("s1")
    held = threading.Event()
    tasks.start_soon(live.hub.worker.run, held.wait)
    await anyio.sleep(0.05)  # the job has the worker
    yield held
    held.set()


class TestOneAtATime:
    async def test_a_second_heavy_request_is_refused_at_once(self, live: Running, tokens: dict[str, str]) -> None:
        """History asked, then older challenges before it is answered: the challenges are refused
        (``busy``, saying why), the history answered; asked again, the challenges are answered."""
        ws = await hello(live.url, tokens["spectator"])
        await ws.send(page_of())
        await ws.send(json.dumps({"type": "challenges"}))
        first, second = await recv(ws), await recv(ws)
        refused, page = (first, second) if first["type"] == "error" else (second, first)
        assert refused["code"] == "busy" and "One request at a time" in refused["message"]
        assert page["type"] == "history" and (page["from"], page["to"]) == (2, 4)
        await ws.send(json.dumps({"type": "challenges"}))
        assert (await recv(ws))["type"] == "challenges"

    async def test_pings_are_answered_while_a_request_waits(
        self, live: Running, tokens: dict[str, str], gate: threading.Event
    ) -> None:
        """With its history waiting for the worker, the connection still answers pings; the
        history follows once the worker is free."""
        ws = await hello(live.url, tokens["spectator"])
        await ws.send(page_of())
        await ws.send(json.dumps({"type": "ping", "id": "meanwhile"}))
        assert await recv(ws) == {"type": "pong", "id": "meanwhile"}
        gate.set()
        assert (await recv(ws, "history"))["to"] == 4


class TestDropped:
    async def test_what_a_closed_connection_asked_is_never_done(
        self, live: Running, tokens: dict[str, str], elsewhere: str, made: list[str], gate: threading.Event
    ) -> None:
        """Four connections of one link each ask ten pages of history while the worker is busy, and
        go. Not one of their pages is made once the worker is free, and another scene's reader is
        answered at once."""
        flooders = [await hello(live.url, tokens["spectator"]) for _ in range(4)]
        for ws in flooders:
            for _ in range(10):
                await ws.send(page_of())
        await anyio.sleep(0.3)  # read by the server
        for ws in flooders:
            ws.transport.abort()
        await anyio.sleep(0.3)  # their closes seen
        gate.set()
        async with peer(live.url, elsewhere) as bystander:
            started = time.monotonic()
            await bystander.send(json.loads(page_of()))
            page = await bystander.wait(lambda m: m["type"] == "history", "its history", seconds=30)
            took = time.monotonic() - started
        assert (page["from"], page["to"]) == (2, 4) and len(page["summaries"]) == 3
        assert made == ["s2", "s2", "s2"], f"pages made for connections gone: {made.count('s1') // 3}"
        assert took < 2.0


class TestInTurn:
    async def test_another_link_waits_one_turn_not_the_whole_queue(
        self, live: Running, tokens: dict[str, str], elsewhere: str, made: list[str], gate: threading.Event
    ) -> None:
        """Four connections of one link ask a page of history each, then another link's reader does
        (another scene): the worker takes them in turn by link, so the reader's page is made before
        the link's four, not after them."""
        crowd = [await hello(live.url, tokens["spectator"]) for _ in range(4)]
        for ws in crowd:
            await ws.send(page_of())
        await anyio.sleep(0.2)
        reader = await hello(live.url, elsewhere)
        await reader.send(page_of())
        await anyio.sleep(0.2)
        gate.set()
        assert (await recv(reader, "history"))["to"] == 4
        for ws in crowd:
            with anyio.fail_after(10):
                assert json.loads(await ws.recv())["type"] == "history"
        pages = [scene for n, scene in enumerate(made) if n % 3 == 0]
        assert sorted(pages) == ["s1", "s1", "s1", "s1", "s2"]
        assert pages.index("s2") <= 1, f"the other link's page was made after {pages.index('s2')} of the crowd's"


class TestBudget:
    async def test_a_link_in_debt_is_refused_until_it_is_repaid(
        self, live: Running, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With a link's budget of 100 units a second, 300 at once: a page of up to 450 events costs
        550 (100 for the request), 250 into debt; the next one asked on another connection of the
        same link is refused (``work_limited``, saying when to ask again), and answered once the
        debt is repaid."""
        monkeypatch.setattr(working, "LINK_WORK", (100.0, 300.0))
        one = await hello(live.url, tokens["spectator"])
        two = await hello(live.url, tokens["spectator"])
        await one.send(page_of(limit=450))
        assert (await recv(one))["type"] == "history"
        await two.send(page_of())
        refused = await recv(two)
        assert refused["type"] == "error" and refused["code"] == "work_limited", refused
        assert "ask again in 3 s" in refused["message"]
        await anyio.sleep(2.6)
        await two.send(page_of())
        assert (await recv(two))["type"] == "history"

    async def test_a_connection_in_debt_is_refused(
        self, live: Running, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """One connection's own budget (here 100 a second, 300 at once) counts too: its second
        page of up to 450 is refused while another connection of the same link is answered."""
        monkeypatch.setattr(connection, "CONNECTION_WORK", (100.0, 300.0), raising=False)
        one = await hello(live.url, tokens["spectator"])
        two = await hello(live.url, tokens["spectator"])
        await one.send(page_of(limit=450))
        assert (await recv(one))["type"] == "history"
        await one.send(page_of(limit=450))
        assert (await recv(one))["code"] == "work_limited"
        await two.send(page_of(limit=450))
        assert (await recv(two))["type"] == "history"


class TestCommitsFirst:
    async def test_a_scene_loading_for_a_command_goes_before_the_readers(
        self, live: Running, backend: Backend, tokens: dict[str, str], made: list[str], gate: threading.Event
    ) -> None:
        """Four readers' pages of history wait for the worker; a command comes for a scene not yet
        loaded (its load is worker's work too): the load goes first, and the command is answered
        before the readers' pages are made, not after all of them."""
        seed(backend, "s2")
        storyteller = await hello(live.url, backend.tokens.issue("s2", "st")[0])
        readers = [await hello(live.url, tokens["spectator"]) for _ in range(4)]
        for ws in readers:
            await ws.send(page_of())
        await anyio.sleep(0.2)
        await storyteller.send(json.dumps(adjust("more")))
        await anyio.sleep(0.2)
        gate.set()
        result = await recv(storyteller, "result")
        assert result["ok"] and result["id"] == "more"
        assert len(made) <= 3, f"{len(made) // 3} pages of history were made before the command was answered"
        for ws in readers:
            assert (await recv(ws, "history"))["to"] == 4


FLOODS = {
    "history": ("spectator", 32, {"type": "history", "before": 3001, "limit": 500}),
    "challenges": ("spectator", 32, {"type": "challenges", "limit": 200}),
    "replay": ("st", 8, {"type": "replay", "from": 2000}),
    "audit": ("st", 8, {"type": "audit", "format": "html"}),
    "export": ("st", 8, {"type": "export"}),
}
"""Each heavy request, asked by a link's worth of connections (a spectators' link opens 64, a
Storyteller's 8) of a 3,000-event scene."""


@pytest.fixture
def long_scene(backend: Backend) -> dict[str, str]:
    """A 3,000-event brawl (scene ``long``, no snapshot: every page folds from its first event),
    and its links."""
    brawl(3000, scene="long", service=SceneService(backend.store, honour_at=True))
    return {role: backend.tokens.issue("long", role)[0] for role in ("st", "spectator")}


class TestFloods:
    @pytest.mark.parametrize("asked", sorted(FLOODS))
    async def test_a_links_flood_leaves_another_scene_its_answers(
        self,
        live: Running,
        tokens: dict[str, str],
        long_scene: dict[str, str],
        asked: str,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """For two seconds a link's worth of connections ask for one heavy request each 20 ms (as
        fast as the rate limit lets them), then go at once. A reader of another scene, asking for
        its history every 200 ms meanwhile, has each page within two seconds; once the flooders
        are gone nothing more is asked of the worker for them, and the reader's next page comes
        within a second."""
        role, connections, request = FLOODS[asked]
        jobs: list[float] = []  # when each job was asked of the worker
        run = working.Worker.run

        async def timed(worker: working.Worker, job: Any, *args: Any) -> Any:
            jobs.append(time.monotonic())
            return await run(worker, job, *args)

        monkeypatch.setattr(working.Worker, "run", timed)
        await live.hub.state("long")
        flooders = [await flooder(live.url, long_scene[role]) for _ in range(connections)]
        answers: list[float] = []

        async def flood(ws: ClientConnection) -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(unread, ws)
                for _ in range(100):
                    await ws.send(json.dumps(request))
                    await anyio.sleep(0.02)
                ws.transport.abort()  # gone, with whatever it asked
                tg.cancel_scope.cancel()

        async with peer(live.url, tokens["spectator"]) as reader:

            async def read_history() -> None:
                seen = len(reader.messages)
                started = time.monotonic()
                await reader.send(json.loads(page_of()))
                await reader.wait(lambda m: m["type"] == "history", "a page", seconds=30, after=seen)
                answers.append(time.monotonic() - started)

            async with anyio.create_task_group() as tg:
                for ws in flooders:
                    tg.start_soon(flood, ws)
                while any(not ws.transport.is_closing() for ws in flooders):
                    await read_history()
                    await anyio.sleep(0.2)
            during = max(answers)
            gone = time.monotonic()
            await anyio.sleep(1.5)
            late = [at - gone for at in jobs if at > gone + 0.5]
            await read_history()
            after = answers[-1]
        assert not late, f"{len(late)} jobs asked of the worker up to {max(late):.1f} s after the flooders left"
        assert during < 2.0 and after < 1.0, (during, after)


async def flooder(url: str, token: str) -> ClientConnection:
    """A connection that has said hello, taking documents of any size."""
    ws = await connect(url, max_size=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    assert (await recv(ws))["type"] == "welcome"
    return ws


async def unread(ws: ClientConnection) -> None:
    """Read (and drop) whatever the server sends ``ws`` until it closes."""
    with contextlib.suppress(ConnectionClosed):
        async for _ in ws:
            pass


class TestDocumentsElsewhere:
    async def test_a_postgresql_scenes_audit_and_export_are_made_beside_the_worker(
        self, postgres_db: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """On PostgreSQL the Storyteller's audit and export are made in a process of their own
        (which opens the same database, read-only), not on the worker every reader shares: the
        worker does none of it, and both documents hold the scene."""
        backend = open_backend(postgres_db)
        try:
            seed(backend)
            token = backend.tokens.issue("s1", "st")[0]
            jobs: list[str] = []
            run = working.Worker.run

            async def named(worker: working.Worker, job: Any, *args: Any) -> Any:
                jobs.append(getattr(job, "__name__", repr(job)))
                return await run(worker, job, *args)

            monkeypatch.setattr(working.Worker, "run", named)
            async with running(backend) as live:
                await live.hub.state("s1")
                ws = await flooder(live.url, token)
                jobs.clear()
                await ws.send(json.dumps({"type": "audit", "format": "json"}))
                audit = await recv(ws, "document")
                await ws.send(json.dumps({"type": "export"}))
                export = await recv(ws, "document")
                await ws.close()
        finally:
            backend.close()
        assert audit["name"] == "s1-audit.json" and '"Sam"' in audit["text"]
        lines = export["text"].splitlines()
        assert len(lines) == 5 and json.loads(lines[-1])["end"]["events"] == 4
        assert jobs == []


class TestCatchUps:
    async def test_a_links_crowd_catching_up_takes_turns_with_another_reader(
        self, live: Running, backend: Backend, long_scene: dict[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Twelve spectators of one link catch up on the 3,000-event scene from its start, in words;
        then a player (another link) does the same. The worker takes their chunks in turn by link:
        from the player's first chunk (of 12, 256 events each) to its last, the crowd has had about
        as many, not twelve times as many; and once the crowd goes, none of its chunks is made."""
        chunks: list[str] = []  # the viewer of each chunk made
        chunk = catchup._chunk

        def counted(store: Any, scene: str, viewer: str, *args: Any) -> Any:
            chunks.append(viewer)
            return chunk(store, scene, viewer, *args)

        monkeypatch.setattr(catchup, "_chunk", counted)
        await live.hub.state("long")
        player = backend.tokens.issue("long", "player", PEOPLE[0])[0]
        subscribe = json.dumps({"type": "subscribe", "since": 0, "summaries": True})
        crowd = [await flooder(live.url, long_scene["spectator"]) for _ in range(12)]
        async with anyio.create_task_group() as tg:
            for ws in crowd:
                tg.start_soon(unread, ws)
                await ws.send(subscribe)
            await anyio.sleep(0.2)
            reader = await flooder(live.url, player)
            await reader.send(subscribe)
            with anyio.fail_after(60):
                while json.loads(await reader.recv())["type"] != "subscribed":
                    pass
            for ws in crowd:
                ws.transport.abort()
            await anyio.sleep(0.5)  # their closes seen
            gone = len(chunks)
            await anyio.sleep(1.0)
            tg.cancel_scope.cancel()
        mine = [n for n, viewer in enumerate(chunks) if viewer == PEOPLE[0]]
        theirs = mine[-1] - mine[0] + 1 - len(mine)
        assert len(mine) == 12
        assert theirs <= 2 * 11, f"the crowd had {theirs} chunks made between the player's first and last"
        assert len(chunks) == gone, f"{len(chunks) - gone} chunks made for connections gone"
