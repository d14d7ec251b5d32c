"""A 100,000-event scene at a live table: a player and a spectator join it and stay, their view
holds what is undecided and a page of recent history (older history comes in pages), a phone of
another scene keeps getting its pongs while they join, and a catch-up from the first event
arrives whole."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.scenes import brawl
from clients.client import Client
from domain.state import RECENT
from server.app import Running, running
from server.backend import open_backend
from server.service import SceneService
from server.store import MemoryStore, SqliteStore
from tests.live.conftest import seed, until

pytestmark = pytest.mark.anyio
EVENTS = 100_000


@pytest.fixture(scope="session")
def long_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with a 100,000-event brawl (built once per test session) and a short scene."""
    path = tmp_path_factory.mktemp("long") / "long.db"
    memory = MemoryStore()
    brawl(EVENTS, scene="brawl", service=SceneService(memory, honour_at=True))
    store = SqliteStore(path)
    store.import_wires("brawl", list(memory.read_wire("brawl")))
    store.close()
    backend = open_backend(str(path))
    seed(backend, "short")
    backend.close()
    return path


@pytest.fixture
def served(long_db: Path, tmp_path: Path) -> Iterator[Path]:
    copy = tmp_path / "long.db"
    shutil.copy(long_db, copy)
    yield copy


async def pinging(live: Running, token: str, answered: list[float], stop: anyio.Event) -> None:
    """A phone of the short scene, pinging every 25 ms and noting each round-trip."""
    async with connect(live.url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.recv()
        n = 0
        while not stop.is_set():
            n += 1
            sent = anyio.current_time()
            await ws.send(json.dumps({"type": "ping", "id": str(n)}))
            while json.loads(await ws.recv()).get("id") != str(n):
                pass
            answered.append(anyio.current_time() - sent)
            await anyio.sleep(0.025)  # within the rate limit (50 a second)


async def joined(live: Running, token: str, **subscribe: object) -> tuple[ClientConnection, dict[str, object], int]:
    """Subscribe; the whole view and the bytes received until ``subscribed``."""
    ws = await connect(live.url, max_size=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    await ws.recv()
    await ws.send(json.dumps({"type": "subscribe", "summaries": True, **subscribe}))
    view: dict[str, object] = {}
    size = 0
    while True:
        frame = await ws.recv()
        size += len(frame)
        message = json.loads(frame)
        if message["type"] == "view":
            view = message["view"]
        if message["type"] == "subscribed":
            return ws, view, size


async def test_a_long_scene_is_joined_and_nobody_is_dropped(served: Path) -> None:
    """A player (at the head) and a spectator (without ``since``) join; neither is dropped, both
    get the next commit, their views are bounded, and another scene's phone is answered meanwhile."""
    backend = open_backend(str(served), snapshot_every=1000)
    tokens = {
        "ana": backend.tokens.issue("brawl", "player", "ana")[0],
        "spectator": backend.tokens.issue("brawl", "spectator")[0],
        "st": backend.tokens.issue("brawl", "st")[0],
        "short": backend.tokens.issue("short", "spectator")[0],
    }
    head = backend.store.head("brawl")[0]
    answered: list[float] = []
    stop = anyio.Event()
    async with running(backend) as live, anyio.create_task_group() as tg:
        tg.start_soon(pinging, live, tokens["short"], answered, stop)
        await anyio.sleep(0.2)
        with anyio.fail_after(60):
            player, player_view, _ = await joined(live, tokens["ana"], since=head)
            watcher, watcher_view, _ = await joined(live, tokens["spectator"])
        before = len(answered)
        await anyio.sleep(0.2)
        assert len(answered) > before  # the other scene's phone is still answered
        for view in (player_view, watcher_view):
            state = live.hub.service.state("brawl")
            assert len(view["challenges"]) <= RECENT + len(state.undecided)  # type: ignore[arg-type]
            assert view["older"] == state.decided - RECENT
        async with Client(live.url, tokens["st"]) as st:
            result = await st.send({"type": "adjust", "character": "ana", "changes": {"willpower": 1}, "reason": "x"})
        for ws in (player, watcher):
            with anyio.fail_after(10):
                while (message := json.loads(await ws.recv()))["type"] != "commit":
                    pass
            assert message["version"] == result["version"]
        assert len(live.hub.rooms["brawl"].subscribers) == 2
        stop.set()
    assert answered and max(answered) < 5.0  # answered throughout (the figures are the join benchmark's)


async def test_older_history_in_pages(served: Path) -> None:
    """The decided challenges a view leaves out come in pages, newest first, and the events before
    the latest come in pages with their words."""
    backend = open_backend(str(served))
    token, _ = backend.tokens.issue("brawl", "player", "bo")
    async with running(backend) as live, Client(live.url, token) as bo:
        await bo.subscribe(since=backend.store.head("brawl")[0])
        shown = set(bo.view["challenges"])
        page = await bo.request({"type": "challenges", "limit": 30}, "challenges")
        assert len(page["challenges"]) == 30 and not shown & set(page["challenges"])
        declared = [ch["id"] for ch in page["challenges"].values()]
        assert page["next"] is not None
        more = await bo.request({"type": "challenges", "before": page["next"], "limit": 30}, "challenges")
        assert not set(more["challenges"]) & set(declared)
        history = await bo.request({"type": "history", "before": 50_001, "limit": 100}, "history")
        assert (history["from"], history["to"]) == (49_901, 50_000)
        assert [e["seq"] for e in history["events"]] == list(range(49_901, 50_001))
        assert len(history["summaries"]) == 100 and all(history["summaries"])
        sealed = [e for e in history["events"] if e["type"] == "throw_sealed" and e["data"]["character"] != "bo"]
        assert all(e["data"]["sign"] is None for e in sealed)  # another side's sealed sign stays hidden


async def test_a_catch_up_from_the_first_event_arrives_whole(served: Path) -> None:
    """``since: 0`` streams all 100,000 events, each once and in order, then the live stream."""
    backend = open_backend(str(served))
    token, _ = backend.tokens.issue("brawl", "spectator")
    head = backend.store.head("brawl")[0]
    async with running(backend) as live, Client(live.url, token, keep=True) as watcher:
        with anyio.fail_after(120):
            await watcher.subscribe(since=0)
        assert head >= EVENTS and watcher.last_seq == head
        seqs = [e["seq"] for m in watcher.received or [] if m["type"] == "commit" for e in m["events"]]
        assert seqs == list(range(1, head + 1))
        await until(watcher, lambda c: c.view.get("version") == head)
