"""Replay over the socket: the Storyteller at any time, players once the scene is closed, each
seeing only what they could see."""

from __future__ import annotations

import pytest

from clients.client import Client
from server.app import Running

pytestmark = pytest.mark.anyio


async def test_replay_over_the_socket(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st, Client(live.url, tokens["sam"]) as sam:
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
        await st.send({"type": "bid", "challenge": "c", "character": "juan", "bid": ["Quick"]})
        await st.send({"type": "throw", "challenge": "c", "character": "juan", "sign": "scissors"})

        early = await sam.request({"type": "replay"}, "error")
        assert early["code"] == "forbidden"  # players wait for the scene to close

        steps = await st.request({"type": "replay", "from": 6, "to": 7}, "replay")
        assert [s["seq"] for s in steps["steps"]] == [6, 7] and steps["viewer"] == "st"
        assert steps["steps"][1]["summary"] == "Juan throws scissors (sealed until both are in)."

        await sam.send({"type": "throw", "challenge": "c", "sign": "rock"})
        await st.send({"type": "pass", "challenge": "c", "character": "juan"})
        await st.send({"type": "close_scene"})
        mine = await sam.request({"type": "replay"}, "replay")
        assert mine["viewer"] == "sam" and mine["from"] == 1 and mine["to"] == mine["version"]
        by_seq = {s["seq"]: s for s in mine["steps"]}
        assert by_seq[7]["summary"] == "Juan throws (sealed until both are in)."
        assert "scissors" not in str(by_seq[7]) and by_seq[3]["summary"] == "Juan joins the scene."
        assert by_seq[2]["summary"].startswith("Sam joins the scene with 6 Physical")
        revealed = next(s for s in mine["steps"] if s["type"] == "test_revealed")
        assert "Sam threw rock, Juan threw scissors" in revealed["summary"]  # shown once both are in, by name


async def test_spectators_do_not_replay(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["spectator"]) as watcher:
        refused = await watcher.request({"type": "replay", "from": 1}, "error")
        assert refused["code"] == "forbidden"
