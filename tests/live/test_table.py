"""An ST, two players and a spectator play a whole contested challenge on a real server: sealed
throws, a tie, a retest cancelled and a retest let stand. Each view is checked at each step,
including what it must not show."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import pytest

from clients.client import Client
from server.app import Running
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio


def sealed_signs(client: Client, author: str) -> list[Any]:
    """Every sign of ``author``'s sealed throws this client received, in events or views."""
    assert client.received is not None
    signs: list[Any] = []
    for message in client.received:
        for event in message.get("events") or []:  # commits and results
            if event["type"] == "throw_sealed" and event["data"]["character"] == author:
                signs.append(event["data"]["sign"])
        if message.get("view"):  # views, and the patches commits carry
            for ch in message["view"]["challenges"].values():
                if author in ch.get("sealed", {}):
                    signs.append(ch["sealed"][author])
    return signs


def pushed_seqs(client: Client) -> list[int]:
    """The seq of every event pushed to a client (results aside), in order."""
    assert client.received is not None
    return [event["seq"] for m in client.received if m["type"] == "commit" for event in m["events"]]


async def test_a_whole_challenge_at_a_live_table(live: Running, tokens: dict[str, str]) -> None:
    async with AsyncExitStack() as stack:
        st, sam, juan, watcher = [
            await stack.enter_async_context(Client(live.url, tokens[who], keep=True))
            for who in ("st", "sam", "juan", "spectator")
        ]
        for client in (st, sam, juan, watcher):
            await client.subscribe()
        assert sam.welcome["character"] == "sam" and watcher.welcome["role"] == "spectator"

        # Each sees its own sheet, and only the names of the others.
        assert sam.view["characters"]["sam"]["traits"] == {"physical": 6, "social": 0, "mental": 0}
        assert "traits" not in sam.view["characters"]["juan"] and "sheet" not in sam.view["characters"]["guard"]
        assert sam.view["characters"]["sam"]["sheet"]["notes"] == ""  # the ST's notes stay the ST's
        assert st.view["characters"]["guard"]["sheet"]["notes"] == "bribable"
        assert "traits" not in watcher.view["characters"]["sam"]

        declared = await sam.send(
            {
                "type": "declare",
                "challenge": "alley",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": "I knock you down",
                "effect": {"kind": "damage", "amount": 1},
            }
        )
        assert declared["ok"], declared
        await juan.send({"type": "bid", "challenge": "alley", "bid": ["Quick"]})

        # Sam throws first: sealed. Only Sam and the ST know it.
        thrown = await sam.send({"type": "throw", "challenge": "alley", "sign": "rock"})
        version = thrown["version"]
        for client in (st, sam, juan, watcher):
            await at_version(client, version)
        assert sam.view["challenges"]["alley"]["sealed"] == {"sam": "rock"}
        assert st.view["challenges"]["alley"]["sealed"] == {"sam": "rock"}
        for outsider in (juan, watcher):
            assert outsider.view["challenges"]["alley"]["thrown"] == ["sam"]
            assert "sealed" not in outsider.view["challenges"]["alley"]
            assert set(sealed_signs(outsider, "sam")) == {None}  # told that Sam threw, never what
        assert set(sealed_signs(st, "sam")) == {"rock"}

        # Juan throws rock: both are shown, a tie; Sam declares first.
        tie = await juan.send({"type": "throw", "challenge": "alley", "sign": "rock"})
        assert [e["type"] for e in tie["events"]] == ["throw_sealed", "test_revealed", "declarations_opened"]
        for client in (st, sam, juan, watcher):
            view = await at_version(client, tie["version"])
            assert view["challenges"]["alley"]["tests"][0]["signs"] == {"sam": "rock", "juan": "rock"}
            assert view["challenges"]["alley"]["status"] == "tie_declaring"
        early = await juan.send({"type": "declare_traits", "challenge": "alley", "count": 5})
        assert early["error"]["code"] == "not_your_turn" and early["error"]["rule"] == "lotn:challenger-declares-first"
        await sam.send({"type": "declare_traits", "challenge": "alley", "count": 6})
        counted = await juan.send({"type": "declare_traits", "challenge": "alley", "count": 5})
        view = await at_version(juan, counted["version"])
        assert view["challenges"]["alley"]["tests"][0]["leader"] == "challenger"
        assert view["challenges"]["alley"]["tests"][0]["compared"] == {"sam": 6, "juan": 5}

        # Juan retests with Dodge; Sam cancels with Brawl: both levels spent, no new test.
        await juan.send({"type": "retest", "challenge": "alley", "source": {"category": "ability", "name": "Dodge"}})
        cancelled = await sam.send(
            {"type": "cancel_retest", "challenge": "alley", "source": {"category": "ability", "name": "Brawl"}}
        )
        assert cancelled["ok"], cancelled
        await at_version(sam, cancelled["version"])
        assert sam.view["characters"]["sam"]["abilities"] == {"Brawl": 1}
        assert "abilities" not in sam.view["characters"]["juan"]
        assert (await at_version(st, cancelled["version"]))["characters"]["juan"]["abilities"] == {"Dodge": 0}

        # Juan retests with Lucky; Sam lets it stand; a new sealed test; Juan wins it.
        await juan.send({"type": "retest", "challenge": "alley", "source": {"category": "merit", "name": "Lucky"}})
        await sam.send({"type": "pass", "challenge": "alley"})
        await juan.send({"type": "throw", "challenge": "alley", "sign": "paper"})
        view = await at_version(sam, sam.last_seq)
        assert "juan" not in view["challenges"]["alley"].get("sealed", {})
        assert set(sealed_signs(sam, "juan")) == {None}
        await sam.send({"type": "throw", "challenge": "alley", "sign": "rock"})
        done = await sam.send({"type": "pass", "challenge": "alley"})
        assert done["ok"], done
        for client in (st, sam, juan, watcher):
            view = await at_version(client, done["version"])
            outcome = view["challenges"]["alley"]["outcome"]
            assert outcome["winner"] == "defender" and outcome["rule"] == "lotn:rps"
        assert sam.view["characters"]["sam"]["traits_lost"] == ["Brawny"]
        assert sam.view["characters"]["sam"]["health"] == 7  # the challenger lost: no damage to anyone
        assert "traits_lost" not in juan.view["characters"]["sam"]
        assert st.view["characters"]["sam"]["traits"]["physical"] == 5

        # Every client got every event once, in order, with no gap.
        for client in (st, sam, juan, watcher):
            assert pushed_seqs(client) == list(range(1, done["version"] + 1))
