"""The frames of a group of commands go out together (one write per subscriber, framed once for
all), and the writer's thread hands each job back in order: every subscriber still gets every
commit, once, in order, redacted for its viewer."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.frames import Frame, Opcode

from server import writer
from server.app import running
from server.backend import open_backend
from server.room import _framed, _payload
from server.writer import Lane
from tests.live.conftest import seed

pytestmark = pytest.mark.anyio


def adjust(n: int) -> str:
    body = {"type": "adjust", "id": f"a{n}", "character": "sam", "changes": {"willpower": 1}, "reason": f"r{n}"}
    return json.dumps(body)


async def subscribed(url: str, token: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    await ws.recv()
    await ws.send(json.dumps({"type": "subscribe", "since": 4, "summaries": True}))
    while json.loads(await ws.recv())["type"] != "subscribed":
        pass
    return ws


async def test_commands_sent_together_reach_every_subscriber_once_in_order_redacted(tmp_path: Path) -> None:
    """Four senders, five commands each, while the Storyteller, Sam's player and a spectator
    follow: each gets the twenty commits, each once, in the log's order, with the events in words;
    the reason of an adjustment of Sam is the Storyteller's and Sam's, not the spectator's."""
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend)
    st, _ = backend.tokens.issue("s1", "st")
    sam, _ = backend.tokens.issue("s1", "player", "sam")
    watcher, _ = backend.tokens.issue("s1", "spectator")
    async with running(backend) as live:
        followers = {
            name: await subscribed(live.url, token) for name, token in (("st", st), ("sam", sam), ("*", watcher))
        }
        seen: dict[str, list[dict[str, Any]]] = {name: [] for name in followers}

        async def follow(name: str, ws: ClientConnection) -> None:
            while len(seen[name]) < 20:
                message = json.loads(await ws.recv())
                if message["type"] == "commit":
                    seen[name].append(message)

        async def phone(k: int) -> None:
            async with connect(live.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": st}))
                await ws.recv()
                for n in range(5):
                    await ws.send(adjust(k * 10 + n))
                    while (message := json.loads(await ws.recv()))["type"] != "result":
                        pass
                    assert message["ok"], message

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for name, ws in followers.items():
                    tg.start_soon(follow, name, ws)
                for k in range(4):
                    tg.start_soon(phone, k)
        for ws in followers.values():
            await ws.close()
    for name, commits in seen.items():
        assert [c["version"] for c in commits] == list(range(5, 25)), name
        assert all(len(c["summaries"]) == len(c["events"]) == 1 for c in commits), name
        data = [json.loads(json.dumps(c["events"][0]["data"])) for c in commits]
        reasons = sorted(d["reason"] for d in data if d.get("reason"))
        if name == "*":
            assert reasons == [] and all(c["events"][0]["redacted"] == ["changes", "reason"] for c in commits)
        else:
            assert reasons == sorted(f"r{k * 10 + n}" for k in range(4) for n in range(5)), name


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_is_framed_as_websockets_frames_it(size: int) -> None:
    message = ("é" * size).encode()[:size]
    assert _framed(message) == Frame(Opcode.TEXT, message).serialize(mask=False)
    assert _payload(_framed(message)) == message


async def test_the_writer_lane_runs_jobs_in_order_and_hands_back_their_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs run one at a time on one thread, in the order given; an error reaches its caller; a
    thread idle too long ends and the next job starts another."""
    monkeypatch.setattr(writer, "IDLE", 0.05)
    lane = Lane()
    done: list[int] = []
    threads: set[int] = set()

    def job(n: int) -> int:
        threads.add(threading.get_ident())
        done.append(n)
        return n * 2

    async with anyio.create_task_group() as tg:
        for n in range(20):
            tg.start_soon(lane.run, job, n)
    assert done == list(range(20)) and len(threads) == 1
    assert await lane.run(job, 21) == 42

    def fails() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        await lane.run(fails)
    await anyio.sleep(0.3)  # the thread ends
    assert not lane._alive
    assert await lane.run(job, 5) == 10
