"""The frames of a group of commands go out together (one write per subscriber, framed once for
all), and the writer's thread hands each job back in order: every subscriber still gets every
commit, once, in order, redacted for its viewer."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import ClientConnection, connect

from server import connection
from server.app import running
from server.backend import open_backend
from server.room import Reply
from server.writer import Lane
from tests.live.conftest import seed

pytestmark = pytest.mark.anyio


def adjust(n: int, who: str = "sam") -> str:
    body = {"type": "adjust", "id": f"a{n}", "character": who, "changes": {"willpower": 1}, "reason": f"r{n}"}
    return json.dumps(body)


async def subscribed(url: str, token: str, views: list[dict[str, Any]] | None = None) -> ClientConnection:
    """A subscriber from event 4; the whole view it is sent goes to ``views``."""
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    await ws.recv()
    await ws.send(json.dumps({"type": "subscribe", "since": 4, "summaries": True}))
    while (message := json.loads(await ws.recv()))["type"] != "subscribed":
        if message["type"] == "view" and views is not None:
            views.append(message["view"])
    return ws


def merged(view: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """A patch merged into a view, as the pages merge it (``clients/web/js/live.js``)."""
    out = dict(view)
    for key, value in patch.items():
        out[key] = {**view.get(key, {}), **value} if key in ("characters", "challenges") else value
    return out


async def test_commands_sent_together_reach_every_subscriber_once_in_order_redacted(tmp_path: Path) -> None:
    """Four senders, five commands each, while the Storyteller, Sam's player and a spectator
    follow: each gets the twenty commits, each once, in the log's order, with the events in words;
    the reason of an adjustment of Sam is the Storyteller's and Sam's, not the spectator's (two
    phones adjust Sam, one Juan, one the guard). A
    group's commits carry one view patch, on the last (the others none): merged as a page merges
    them, each follower's view ends as the whole view a new subscriber gets."""
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend)
    st, _ = backend.tokens.issue("s1", "st")
    sam, _ = backend.tokens.issue("s1", "player", "sam")
    watcher, _ = backend.tokens.issue("s1", "spectator")
    async with running(backend) as live:
        tokens = {"st": st, "sam": sam, "*": watcher}
        views: dict[str, list[dict[str, Any]]] = {name: [] for name in tokens}
        followers = {name: await subscribed(live.url, token, views[name]) for name, token in tokens.items()}
        seen: dict[str, list[dict[str, Any]]] = {name: [] for name in followers}

        async def follow(name: str, ws: ClientConnection) -> None:
            while len(seen[name]) < 20:
                message = json.loads(await ws.recv())
                if message["type"] == "commit":
                    seen[name].append(message)
                    if message.get("view"):
                        views[name][-1] = merged(views[name][-1], message["view"])

        async def phone(k: int) -> None:
            async with connect(live.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": st}))
                await ws.recv()
                for n in range(5):
                    await ws.send(adjust(k * 10 + n, ("sam", "sam", "juan", "guard")[k]))
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
        for name, token in tokens.items():
            await (await subscribed(live.url, token, views[name])).close()
    for name, commits in seen.items():
        assert [c["version"] for c in commits] == list(range(5, 25)), name
        assert commits[-1].get("view"), name
        followed, whole = views[name]
        assert followed["version"] == whole["version"] == 24, name
        for key in ("characters", "challenges"):
            assert followed[key] == whole[key], (name, key)
        assert all(len(c["summaries"]) == len(c["events"]) == 1 for c in commits), name
        data = [json.loads(json.dumps(c["events"][0]["data"])) for c in commits]
        reasons = sorted(d["reason"] for d in data if d.get("reason"))
        if name == "*":
            assert reasons == [] and all(c["events"][0]["redacted"] == ["changes", "reason"] for c in commits)
        else:
            ks = range(4) if name == "st" else range(2)
            assert reasons == sorted(f"r{k * 10 + n}" for k in ks for n in range(5)), name


async def test_the_writer_lane_runs_jobs_in_order_and_hands_back_their_errors() -> None:
    """Jobs run one at a time on one thread, in the order given; an error reaches its caller; a
    job whose caller is cancelled still finishes."""
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

    def slow(n: int) -> None:
        time.sleep(0.05)
        done.append(n)

    with anyio.move_on_after(0.01):
        await lane.run(slow, 99)
    assert done[-1] == 99, "a cancelled caller's job was abandoned half-way"


async def test_an_answer_to_a_connection_gone_is_dropped_and_a_second_refused() -> None:
    """A connection that stops waiting for its job's answer (closed mid-join) leaves the room
    nothing to trip on: the answer is dropped. A job answered twice is a mistake, and said so."""
    gone: Reply[int] = Reply()
    with anyio.move_on_after(0.01):
        await gone.receive()
    gone.send_nowait(1)  # dropped, not raised into the room (which would stop it)
    answered: Reply[int] = Reply()
    answered.send_nowait(2)
    assert await answered.receive() == 2
    with pytest.raises(anyio.WouldBlock):
        answered.send_nowait(3)


async def test_commits_pushed_while_a_document_is_sent_follow_it_none_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Storyteller's page downloads the export (one message, sent in fragments) while another
    phone adjusts Sam five times: the five commits are kept back until the document ends, then
    follow it, in order. A websockets broadcast would have skipped them: the view would miss them."""

    async def slowly(parts: Any) -> Any:
        for part in parts:
            yield part
            await anyio.sleep(0.02)

    monkeypatch.setattr(connection, "PART", 128)
    monkeypatch.setattr(connection, "_paced", slowly)
    backend = open_backend(str(tmp_path / "j.db"))
    seed(backend)
    st, _ = backend.tokens.issue("s1", "st")
    async with running(backend) as live:
        page = await subscribed(live.url, st)
        await page.send(json.dumps({"type": "export"}))
        with anyio.fail_after(20):
            while True:  # the presence the subscribe brought comes first
                fragments = page.recv_streaming()
                document = [await anext(fragments)]
                if document[0].startswith('{"type":"document"'):
                    break  # the download has begun
                document += [fragment async for fragment in fragments]
            async with connect(live.url) as phone:
                await phone.send(json.dumps({"type": "hello", "token": st}))
                await phone.recv()
                for n in range(5):
                    await phone.send(adjust(n))
                    while (message := json.loads(await phone.recv()))["type"] != "result":
                        pass
                    assert message["ok"], message
            document += [fragment async for fragment in fragments]
            assert len(document) > 5, "the document was not sent in fragments while the commits were made"
            assert json.loads("".join(document))["type"] == "document"
            commits: list[dict[str, Any]] = []
            while len(commits) < 5:
                message = json.loads(await page.recv())
                if message["type"] == "commit":
                    commits.append(message)
        await page.close()
    assert [m["version"] for m in commits] == list(range(5, 10))
