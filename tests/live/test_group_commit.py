"""Group commit: commands that arrive together, for one scene or several, are decided in turn and
written in one transaction, each acknowledged once it is on disk; an id sent twice in one group is
one command."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from websockets.asyncio.client import connect

from domain.log import Recorded
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from server.store import Append, ConcurrencyConflict, SqliteStore
from tests.live.conftest import seed

pytestmark = pytest.mark.anyio


class Counting(SqliteStore):
    """A SQLite store that notes the size of each transaction it commits."""

    batches: list[int]

    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]:
        done = super().append_batch(items)
        self.batches.append(len(items))
        return done


def adjust(n: int, scene: str = "s1") -> str:
    body = {"type": "adjust", "id": f"a{n}", "character": "sam", "changes": {"willpower": 1}, "reason": str(n)}
    return json.dumps({**body, "scene": scene})


async def test_commands_arriving_together_are_decided_in_turn_and_committed_together(tmp_path: Path) -> None:
    """Eight tables' phones (four per scene) each sending five commands: every command is
    acknowledged with a version of its own, each decided on the state the one before it left, in
    fewer transactions than commands."""
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend, "s1")
    seed(backend, "s2")
    store = Counting(tmp_path / "j.db")
    store.batches = []
    backend.store = store
    versions: dict[str, list[int]] = {"s1": [], "s2": []}
    async with running(backend) as live:

        async def phone(scene: str, k: int) -> None:
            token, _ = backend.tokens.issue(scene, "st")
            async with connect(live.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await ws.recv()
                for n in range(5):
                    await ws.send(adjust(k * 10 + n, scene))
                    while (message := json.loads(await ws.recv()))["type"] != "result":
                        pass
                    assert message["ok"], message
                    versions[scene].append(message["version"])

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for scene in versions:
                    for k in range(4):
                        tg.start_soon(phone, scene, k)
    for scene, seen in versions.items():
        assert sorted(seen) == list(range(5, 25)) and backend.store.head(scene)[0] == 24
        willpower = SceneService(backend.store).state(scene).characters["sam"].willpower
        assert willpower == 2 + 20  # each adjust decided on the state the one before left
    assert sum(store.batches) == 40 and len(store.batches) < 40, store.batches


async def test_an_id_twice_in_one_group_is_one_command(tmp_path: Path) -> None:
    """A command re-sent while the first copy still waits (a reconnect) is applied once; both copies
    get its result."""
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend)
    token, _ = backend.tokens.issue("s1", "st")
    async with running(backend) as live, connect(live.url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.recv()
        for frame in (adjust(1), adjust(1), adjust(2)):
            await ws.send(frame)
        results = []
        with anyio.fail_after(5):
            while len(results) < 3:
                message = json.loads(await ws.recv())
                if message["type"] == "result":
                    results.append(message)
    assert [(r["id"], r["ok"], r["version"]) for r in results] == [("a1", True, 5), ("a1", True, 5), ("a2", True, 6)]
    assert backend.store.head("s1")[0] == 6
