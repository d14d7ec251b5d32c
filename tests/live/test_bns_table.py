"""A bns table on a real server: Vincent's and Brute's players and the Storyteller (who plays the
hunter), with a spectator, each on its own connection. The hunter's shot and Vincent's Dread Gaze
are played as the document tells them; what each client was sent is checked frame by frame: no
pool reaches another side before the test shows it (bns:willpower-pools), and the grades reach
everyone (bns:exceptional-success)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.domain.test_bns import BRUTE, COVER, HUNTER, SHOTGUN, VINCENT
from tests.live.conftest import at_version, until

pytestmark = pytest.mark.anyio


def pool_leaks(messages: list[dict[str, Any]], viewer: str) -> list[str]:
    """Each pool this viewer was sent before the test that shows it: in an event, or in a view."""
    shown: set[str] = set()  # challenges whose first test has been revealed
    found = []
    for message in messages:
        for event in message.get("events") or []:
            data = event["data"]
            if event["type"] == "test_revealed":
                shown.add(data["challenge"])
            owner = data.get("challenger") if event["type"] == "challenge_declared" else data.get("character")
            if event["type"] in ("challenge_declared", "bid_placed") and data.get("pool") and owner != viewer:
                found.append(f"event {event['seq']} ({event['type']}): {owner}'s pool")
        for cid, ch in ((message.get("view") or {}).get("challenges") or {}).items():
            others = set(ch.get("pools", {})) - {viewer}
            if others and not ch.get("tests") and ch.get("status") not in ("resolved", "withdrawn"):
                found.append(f"view of {cid}: {sorted(others)}'s pool")
    return found


async def test_a_bns_table() -> None:
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "bns", "title": "The church"}] + [
        {"type": "add_character", "character": sheet} for sheet in (HUNTER, VINCENT, BRUTE)
    ]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"setup-{n}", "scene": "c", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("c", "player", who)[0] for who in ("vincent", "brute")}
    tokens["st"] = backend.tokens.issue("c", "st")[0]
    tokens["*"] = backend.tokens.issue("c", "spectator")[0]

    async with running(backend) as live, AsyncExitStack() as stack:
        c = {who: await stack.enter_async_context(Client(live.url, token, keep=True)) for who, token in tokens.items()}
        for client in c.values():
            await client.subscribe()

        async def do(who: str, verb: str, **fields: Any) -> dict[str, Any]:
            result = await c[who].send({"type": verb, **fields})
            assert result["ok"], (who, verb, fields, result.get("error"))
            return result

        # The pages' descriptor: a pool ruleset, no rounds yet.
        assert c["vincent"].view["rules"] == {
            "family": "pools",
            "rounds": True,
            "mobs": False,
            "blood": False,
            "flags": ["unseen", "range", "maneuver", "surprise"],
        }
        assert c["vincent"].view["characters"]["vincent"]["attributes"] == VINCENT["attributes"]
        assert "attributes" not in c["brute"].view["characters"]["vincent"]

        # The hunter shoots; Vincent's page offers its defences with their totals.
        declared = await do(
            "st",
            "declare",
            character="hunter",
            challenge="shot",
            kind="contested",
            targets=["vincent"],
            category="physical",
            victory="I shoot Vincent",
            effect={"kind": "damage", "amount": 2, "type": "lethal"},
            pool=SHOTGUN,
        )
        view = await at_version(c["vincent"], declared["version"])
        moves = view["challenges"]["shot"]["moves"]["vincent"]
        assert {kind: pool["total"] for kind, pool in moves["defenses"].items()} == {"dodge": 5, "soak": 3}
        assert "pools" not in view["challenges"]["shot"]  # not the hunter's, nor any yet
        refused = await c["vincent"].send({"type": "bid", "challenge": "shot", "bid": ["Quick"]})
        assert refused["error"]["code"] == "no_traits" and refused["error"]["rule"] == "bns:attack-pool"
        await do("vincent", "bid", challenge="shot", pool=COVER)
        await do("vincent", "throw", challenge="shot", sign="rock")
        revealed = await do("st", "throw", character="hunter", challenge="shot", sign="rock")
        for who in ("vincent", "brute", "*"):
            shot = (await at_version(c[who], revealed["version"]))["challenges"]["shot"]
            assert {w: p["total"] for w, p in shot["pools"].items()} == {"hunter": 12, "vincent": 6}, who
        stood = await do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        assert [e["type"] for e in stood["events"]] == ["retest_invoked", "willpower_spent", "retest_stood"]
        await do("st", "record_test", challenge="shot", signs={"hunter": "rock", "vincent": "paper"})
        await do("st", "retest", character="hunter", challenge="shot", source={"category": "overbid"})
        done = await do("st", "record_test", challenge="shot", signs={"hunter": "scissors", "vincent": "paper"})
        resolved = next(e for e in done["events"] if e["type"] == "challenge_resolved")["data"]
        assert resolved["winner"] == "challenger" and not resolved["exceptional"]

        # Vincent stares the hunter down; Brute, who is not in it, sees no pool before the test.
        gazed = await do(
            "vincent",
            "declare",
            challenge="gaze",
            kind="contested",
            targets=["hunter"],
            category="social",
            power="Dread Gaze",
            victory="He flees",
            pool={"attack": "social", "skill": "intimidation"},
        )
        await at_version(c["brute"], gazed["version"])
        answered = await do("st", "bid", character="hunter", challenge="gaze", pool={"defense": "social"})
        st_view = await at_version(c["st"], answered["version"])
        assert {w: p["total"] for w, p in st_view["challenges"]["gaze"]["pools"].items()} == {
            "vincent": 15,
            "hunter": 9,
        }
        await do("st", "record_test", challenge="gaze", signs={"vincent": "rock", "hunter": "paper"})
        await do("vincent", "retest", challenge="gaze", source={"category": "willpower"})
        end = await do("st", "record_test", challenge="gaze", signs={"vincent": "scissors", "hunter": "paper"})
        for who in c:
            final = await at_version(c[who], end["version"])
            assert final["challenges"]["gaze"]["outcome"]["winner"] == "challenger"
        assert c["vincent"].view["characters"]["vincent"]["willpower"] == 2

        # What each client was sent, frame by frame, and what a late spectator catches up on.
        for who in ("vincent", "brute", "*"):
            assert pool_leaks(c[who].received or [], who) == [], who
        assert pool_leaks(c["st"].received or [], "st") != []  # the ST is sent every pool as it is set
        late = await stack.enter_async_context(Client(live.url, tokens["brute"], keep=True))
        await late.subscribe(since=0)
        await until(late, lambda cl: cl.last_seq >= end["version"])
        assert pool_leaks(late.received or [], "brute") == []
        await do("st", "close_scene")  # players replay a closed scene
        replayed = await late.request({"type": "replay", "from": 1}, "replay")
        assert "steps" in replayed, replayed
        steps = [s for s in replayed["steps"] if s["type"] in ("challenge_declared", "bid_placed")]
        assert steps and all("kept secret" in s["summary"] for s in steps)
