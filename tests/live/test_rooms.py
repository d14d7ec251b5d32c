"""Rooms: a stalled subscriber is dropped without delaying the others; scenes unload when idle and
load again from a snapshot plus the tail of the log."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from benchmarks.scenes import brawl
from clients.client import Client
from domain.evolve import fold
from server import room
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from server.wire import Limits
from tests.live.conftest import at_version, seed

pytestmark = pytest.mark.anyio


async def test_a_stalled_subscriber_is_dropped_and_the_others_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A subscriber that stops reading is dropped (4008) once its backlog passes the limit, and
    never delays the others; one that stops reading in a long catch-up holds up only itself (it
    streams at its own pace and never joins the room)."""
    monkeypatch.setattr(room, "WRITE_LIMIT", 64 * 1024)
    backend = open_backend(None)
    brawl(20_000, scene="s1", service=SceneService(backend.store, honour_at=True))  # a long scene
    st_token, _ = backend.tokens.issue("s1", "st")
    head = backend.store.head("s1")[0]
    async with running(backend, limits=Limits(rate=10_000, burst=10_000)) as live:
        catching = await connect(live.url, max_queue=1, max_size=None)  # reads nothing once its queue is full
        await catching.send(json.dumps({"type": "hello", "token": st_token}))
        await catching.send(json.dumps({"type": "subscribe", "since": 0}))  # a 20,000-event catch-up
        stalled = await connect(live.url, max_queue=1, max_size=None)
        await stalled.send(json.dumps({"type": "hello", "token": st_token}))
        await stalled.send(json.dumps({"type": "subscribe", "since": head}))  # joins at once
        for _ in range(400):
            await stalled.send(json.dumps({"type": "get_view"}))  # tens of kilobytes each, never read
        await anyio.sleep(0.5)
        async with Client(live.url, st_token) as lively:
            await lively.subscribe()
            for n in range(5):
                started = time.perf_counter()
                result = await lively.send(
                    {"type": "adjust", "character": "ana", "changes": {"willpower": 1}, "reason": str(n)}
                )
                await at_version(lively, result["version"])
                assert time.perf_counter() - started < 1.0
            subscribers = live.hub.rooms["s1"].subscribers
            assert len(subscribers) == 1  # only the lively one is left; the catching one never joined
        with anyio.fail_after(10), pytest.raises(ConnectionClosed) as closed:
            while True:
                await stalled.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == room.TOO_SLOW


async def test_idle_scenes_unload_and_load_again(tmp_path: Path) -> None:
    """A scene nobody uses unloads; the next command loads it again from its log."""
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend)
    token, _ = backend.tokens.issue("s1", "st")
    async with running(backend, idle_after=0.1) as live:
        async with Client(live.url, token) as st:
            await st.subscribe()
            await st.send({"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": "a"})
        with anyio.fail_after(5):
            while "s1" in live.hub.rooms:
                await anyio.sleep(0.05)
        async with Client(live.url, token) as st:
            result = await st.send({"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": "b"})
            assert result["ok"] and result["version"] == 6
        assert "s1" in live.hub.rooms
    state = SceneService(backend.store).state("s1")
    assert state.characters["sam"].willpower == 4


def test_snapshots_load_to_the_same_state(tmp_path: Path) -> None:
    """A long scene saves snapshots; loading from the latest plus the tail equals folding the log."""
    backend = open_backend(str(tmp_path / "j.db"), snapshot_every=1000)
    assert backend.snapshots is not None
    service = SceneService(backend.store, snapshots=backend.snapshots, honour_at=True)
    brawl(2_600, scene="s1", service=service)
    snapshot = backend.snapshots.load("s1")
    assert snapshot is not None and 2000 <= snapshot.state.version < 2600
    fresh = SceneService(backend.store, snapshots=backend.snapshots).state("s1")
    assert fresh == fold(backend.store.read("s1")) == service.state("s1")
    assert fresh.version > snapshot.state.version
    backend.store.db.conn.execute("UPDATE snapshots SET state = x'00'")  # a broken shortcut is no harm
    assert backend.snapshots.load("s1") is None
    assert SceneService(backend.store, snapshots=backend.snapshots).state("s1") == fresh
