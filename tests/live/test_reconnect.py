"""Dropped connections: catch-up with no gap, commands re-sent without being applied twice, and
racing clients that still agree on one ordered log."""

from __future__ import annotations

import json

import anyio
import pytest
from websockets.asyncio.client import connect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.conftest import at_version, until
from tests.live.test_table import pushed_seqs

pytestmark = pytest.mark.anyio


async def test_a_killed_client_catches_up_with_no_gap(live: Running, tokens: dict[str, str]) -> None:
    """Sam's connection dies mid-challenge; Juan plays on; Sam comes back and sees every event once."""
    async with Client(live.url, tokens["sam"], keep=True) as sam, Client(live.url, tokens["juan"]) as juan:
        await sam.subscribe()
        await juan.subscribe()
        await sam.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
            }
        )
        sam.drop()
        await juan.send({"type": "bid", "challenge": "c", "bid": ["Quick"]})
        last = await juan.send({"type": "throw", "challenge": "c", "sign": "paper"})
        await until(sam, lambda c: c.connects == 2)
        view = await at_version(sam, last["version"])
        assert view["challenges"]["c"]["status"] == "bidding" or view["challenges"]["c"]["thrown"] == ["juan"]
        assert pushed_seqs(sam) == list(range(1, last["version"] + 1))
        assert view["challenges"]["c"]["thrown"] == ["juan"] and "sealed" not in view["challenges"]["c"]


async def test_a_command_resent_after_a_drop_is_applied_once(
    live: Running, tokens: dict[str, str], backend: Backend
) -> None:
    """The same command id sent again on a new connection gets the first result, not a second event."""
    body = json.dumps(
        {
            "type": "declare",
            "id": "once",
            "challenge": "c",
            "kind": "contested",
            "targets": ["juan"],
            "category": "physical",
            "bid": ["Brawny"],
        }
    )
    async with connect(live.url) as first:
        await first.send(json.dumps({"type": "hello", "token": tokens["sam"]}))
        await first.recv()
        await first.send(body)
        first.transport.abort()  # gone before reading the result
    async with connect(live.url) as second:
        await second.send(json.dumps({"type": "hello", "token": tokens["sam"]}))
        await second.recv()
        await second.send(body)
        result = json.loads(await second.recv())
    assert result["type"] == "result" and result["ok"] and result["version"] == 5
    assert [r.type for r in backend.store.read("s1")].count("challenge_declared") == 1


async def test_the_client_resends_what_was_waiting(live: Running, tokens: dict[str, str], backend: Backend) -> None:
    """A command sent while the connection is down goes out after the reconnect, once."""
    async with Client(live.url, tokens["st"]) as st:
        await st.subscribe()
        st.drop()
        result = await st.send({"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": "r"})
        assert result["ok"] and st.connects == 2
    assert [r.type for r in backend.store.read("s1")].count("character_adjusted") == 1


async def test_racing_clients_share_one_ordered_log(live: Running, tokens: dict[str, str], backend: Backend) -> None:
    """Two Storyteller clients send 40 commands each at once: every one is applied once, each result
    matches the log, and the log has no gap."""
    results: list[dict] = []
    async with Client(live.url, tokens["st"]) as a, Client(live.url, tokens["st"]) as b:

        async def burst(client: Client, who: str) -> None:
            for n in range(40):
                results.append(
                    await client.send(
                        {"type": "adjust", "character": who, "changes": {"willpower": 1}, "reason": f"{who} {n}"}
                    )
                )

        async with anyio.create_task_group() as tg:
            tg.start_soon(burst, a, "sam")
            tg.start_soon(burst, b, "juan")
    assert all(r["ok"] for r in results)
    versions = sorted(r["version"] for r in results)
    assert versions == list(range(5, 85))
    log = {r.seq: r for r in backend.store.read("s1")}
    assert sorted(log) == list(range(1, 85))
    for result in results:
        (event,) = result["events"]
        assert log[event["seq"]].hash == event["hash"]
    from domain.evolve import fold

    state = fold(backend.store.read("s1"))
    assert state.characters["sam"].willpower == 2 + 40 and state.characters["juan"].willpower == 40


async def test_subscribing_while_commands_keep_arriving(live: Running, tokens: dict[str, str]) -> None:
    """A subscriber that joins mid-stream gets the catch-up and then the live stream: every event
    once, in order, however the join falls among the commands."""
    async with Client(live.url, tokens["st"]) as st:
        done = anyio.Event()
        last: list[int] = [0]

        async def pump() -> None:
            for n in range(60):
                result = await st.send(
                    {"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": str(n)}
                )
                last[0] = result["version"]
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            await until(st, lambda _: last[0] >= 20)
            async with Client(live.url, tokens["spectator"], keep=True) as watcher:
                await watcher.subscribe(since=0)
                await done.wait()
                await at_version(watcher, last[0])
                assert pushed_seqs(watcher) == list(range(1, last[0] + 1))
