"""A whole Camarilla fight on a real server: six characters, three rounds, a mob, a grapple, a
ranged surprise shot, a Dominate resisted with Willpower, blood, an extra action; then replayed
and audited."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from domain.evolve import fold
from projections.audit import audit
from projections.audit_render import html
from projections.replay import replay, states
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio

SHEETS: list[dict[str, Any]] = [
    {
        "id": "andrew",
        "name": "Andrew",
        "willpower": 3,
        "powers": ["Swiftness"],
        "abilities": {"Brawl": 2, "Dodge": 1},
        "traits": {"physical": {"Ferocious": 3, "Robust": 2, "Quick": 2}},
    },
    {
        "id": "bob",
        "name": "Bob",
        "willpower": 4,
        "powers": ["Potence", "Might"],
        "abilities": {"Melee": 1},
        "traits": {"physical": {"Brawny": 4, "Tough": 2}, "mental": {"Alert": 2}, "social": {"Calm": 2}},
    },
    {
        "id": "charlie",
        "name": "Charlie",
        "abilities": {"Dodge": 2},
        "merits": ["Lucky"],
        "traits": {"physical": {"Quick": 3, "Wiry": 2}, "social": {"Charming": 4}},
    },
    {
        "id": "xavier",
        "name": "Xavier",
        "npc": True,
        "powers": ["Alacrity"],
        "abilities": {"Firearms": 2},
        "traits": {"physical": {"Dexterous": 3, "Quick": 2}},
    },
    {
        "id": "yolanda",
        "name": "Yolanda",
        "npc": True,
        "powers": ["Dominate"],
        "traits": {"physical": {"Lithe": 2}, "mental": {"Clever": 5}},
    },
    {
        "id": "zach",
        "name": "Zach",
        "npc": True,
        "powers": ["Potence", "Puissance"],
        "blood": 5,
        "trait_max": 10,
        "traits": {"physical": {"Brawny": 4, "Tough": 4}},
    },
]


async def test_three_rounds_six_characters(tmp_path: Path) -> None:
    backend = open_backend(None)
    service = SceneService(backend.store)
    for n, body in enumerate(
        [{"type": "open_scene", "ruleset": "camarilla", "title": "The warehouse"}]
        + [{"type": "add_character", "character": sheet} for sheet in SHEETS]
    ):
        command = parse_command(msgspec.json.encode({"id": f"setup-{n}", "scene": "w", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("w", "player", who)[0] for who in ("andrew", "bob", "charlie")}
    tokens["st"] = backend.tokens.issue("w", "st")[0]

    async with running(backend) as live, AsyncExitStack() as stack:
        c = {who: await stack.enter_async_context(Client(live.url, token, keep=True)) for who, token in tokens.items()}
        for client in c.values():
            await client.subscribe()

        async def do(who: str, verb: str, **fields: Any) -> dict[str, Any]:
            result = await c[who].send({"type": verb, **fields})
            assert result["ok"], (who, verb, fields, result.get("error"))
            return result

        async def st(verb: str, character: str | None = None, **fields: Any) -> dict[str, Any]:
            return await do("st", verb, **({"character": character} if character else {}), **fields)

        def action(kind: str, **fields: Any) -> dict[str, Any]:
            return {"kind": kind, **fields}

        # -- round 1 ------------------------------------------------------------------------------
        await st("start_round")
        await st("declare_action", "zach", action=action("challenge", category="physical", target="charlie"))
        await st("declare_action", "xavier", action=action("challenge", category="physical", target="andrew"))
        await st("declare_action", "yolanda", action=action("challenge", category="mental", target="bob"))
        await do("andrew", "declare_action", action=action("challenge", category="physical", target="zach"))
        await do("bob", "declare_action", action=action("challenge", category="physical", target="zach"))
        ordered = await do("charlie", "declare_action", action=action("move", steps=2))
        initiative = next(e for e in ordered["events"] if e["type"] == "initiative_set")["data"]
        assert initiative["values"] == {"andrew": 7, "bob": 6, "charlie": 5, "xavier": 6, "yolanda": 5, "zach": 8}
        assert initiative["order"] == [["zach"], ["andrew"], ["bob", "xavier"], ["charlie", "yolanda"]]
        await st("order", characters=["bob", "xavier"])

        await st(
            "declare",
            "zach",
            challenge="z1",
            kind="contested",
            targets=["charlie"],
            category="physical",
            bid=["Brawny"],
            effect={"kind": "damage", "amount": 1, "type": "lethal"},
        )
        await do("charlie", "bid", challenge="z1", bid=["Quick"])
        await st("throw", "zach", challenge="z1", sign="rock")
        await do("charlie", "throw", challenge="z1", sign="paper")
        await st("pass", "zach", challenge="z1")
        await st("end_turn", "zach")

        await do(
            "andrew",
            "declare",
            challenge="mob",
            kind="contested",
            targets=["zach"],
            category="physical",
            bid=["Ferocious"],
            effect={"kind": "damage", "amount": 2},
            victory="claws",
        )
        await do("bob", "join", challenge="mob", bid=["Brawny"], effect={"kind": "grapple"}, victory="hold him")
        await st("bid", "zach", challenge="mob", bid=["Tough", "Tough"])
        await do("andrew", "champion", challenge="mob", character="bob")
        await do("bob", "throw", challenge="mob", sign="rock")
        await st("throw", "zach", challenge="mob", sign="rock")
        await do("bob", "declare_traits", challenge="mob", count=5)
        tied = await st("declare_traits", "zach", challenge="mob", count=7)
        assert tied["events"][-1]["data"]["compared"] == {"bob": 6, "zach": 7}
        await do("bob", "retest", challenge="mob", source={"category": "power", "name": "Might"})
        await st("pass", "zach", challenge="mob")
        await do("bob", "throw", challenge="mob", sign="paper")
        await st("throw", "zach", challenge="mob", sign="rock")
        await st("pass", "zach", challenge="mob")
        chosen = await do("bob", "choose_victory", challenge="mob", of="andrew")
        assert [e["type"] for e in chosen["events"]] == ["victory_chosen", "damage_taken"]
        await do("andrew", "end_turn")

        await do("bob", "end_turn")  # Bob's action went into the mob
        await st(
            "declare",
            "xavier",
            challenge="shot",
            kind="contested",
            targets=["andrew"],
            category="physical",
            bid=["Dexterous"],
            ranged=True,
            surprise=True,
            effect={"kind": "damage", "amount": 1, "type": "lethal"},
        )
        await do("andrew", "bid", challenge="shot", bid=["Robust"])
        await st("throw", "xavier", challenge="shot", sign="scissors")
        await do("andrew", "throw", challenge="shot", sign="rock")
        await st("retest", "xavier", challenge="shot", source={"category": "surprise"})
        await do("andrew", "pass", challenge="shot")
        await st("throw", "xavier", challenge="shot", sign="paper")
        await do("andrew", "throw", challenge="shot", sign="rock")
        await do("andrew", "retest", challenge="shot", source={"category": "ability", "name": "Dodge"})
        await st("pass", "xavier", challenge="shot")
        await st("throw", "xavier", challenge="shot", sign="paper")
        await do("andrew", "throw", challenge="shot", sign="scissors")
        await st("pass", "xavier", challenge="shot")
        await st("end_turn", "xavier")

        await st(
            "declare",
            "yolanda",
            challenge="dom",
            kind="contested",
            targets=["bob"],
            category="mental",
            bid=["Clever"],
            power="Dominate",
            victory="kneel",
        )
        await do("bob", "bid", challenge="dom", bid=["Alert"])
        await st("throw", "yolanda", challenge="dom", sign="paper")
        await do("bob", "throw", challenge="dom", sign="rock")
        await do("bob", "retest", challenge="dom", source={"category": "willpower"})
        await st("pass", "yolanda", challenge="dom")
        await st("throw", "yolanda", challenge="dom", sign="paper")
        await do("bob", "throw", challenge="dom", sign="scissors")
        await st("pass", "yolanda", challenge="dom")
        await st("end_turn", "yolanda")
        extra = await do("charlie", "end_turn")
        turn = next(e for e in extra["events"] if e["type"] == "turn_started")["data"]
        assert turn["phase"] == "extra" and turn["characters"] == ["andrew"]
        await do(
            "andrew",
            "declare",
            challenge="e1",
            kind="contested",
            targets=["xavier"],
            category="physical",
            bid=["Quick"],
            effect={"kind": "knock_down"},
        )
        await st("relent", "xavier", challenge="e1")
        await do("andrew", "end_turn")
        await st("end_round")

        # -- round 2 ------------------------------------------------------------------------------
        await st("start_round")
        await st("declare_action", "zach", action=action("challenge", category="physical", target="bob"))
        await st("declare_action", "xavier", action=action("move", steps=1, stand=True))
        await st("declare_action", "yolanda", action=action("none"))
        await do("andrew", "declare_action", action=action("challenge", category="physical", target="zach"))
        await do("bob", "declare_action", action=action("none"))
        await do("charlie", "declare_action", action=action("challenge", category="social", target="xavier"))
        await do(
            "andrew",
            "declare",
            challenge="a2",
            kind="contested",
            targets=["zach"],
            category="physical",
            bid=["Ferocious"],
            effect={"kind": "damage", "amount": 1},
        )
        blood = await st("spend_blood", "zach", kind="stamina")
        assert blood["events"][0]["data"]["lasts"] == "scene"
        await st("bid", "zach", challenge="a2", bid=["BloodStamina"])
        await do("andrew", "throw", challenge="a2", sign="rock")
        await st("throw", "zach", challenge="a2", sign="scissors")
        await st("pass", "zach", challenge="a2")
        await do("andrew", "end_turn")
        await do("bob", "end_turn")
        await st(
            "declare",
            "zach",
            challenge="g1",
            kind="contested",
            targets=["bob"],
            category="physical",
            bid=["Brawny"],
            effect={"kind": "grapple"},
        )
        await do("bob", "bid", challenge="g1", bid=["Tough"])
        await st("throw", "zach", challenge="g1", sign="paper")
        await do("bob", "throw", challenge="g1", sign="rock")
        await do("bob", "pass", challenge="g1")
        await st("end_turn", "zach")
        await st("end_turn", "xavier")
        await do(
            "charlie",
            "declare",
            challenge="intim",
            kind="contested",
            targets=["xavier"],
            category="social",
            bid=["Charming"],
            victory="back off",
        )
        await st("relent", "xavier", challenge="intim")
        await do("charlie", "end_turn")
        await st("end_turn", "yolanda")
        await do("andrew", "end_turn")  # his extra action, unused
        await st("end_round")
        view = await at_version(c["bob"], c["st"].last_seq)
        assert view["characters"]["bob"]["conditions"]["grappled_by"] == "zach"

        # -- round 3 ------------------------------------------------------------------------------
        await st("start_round")
        refused = await c["bob"].send({"type": "declare_action", "action": action("move", steps=1)})
        assert refused["error"]["code"] == "grappled" and refused["error"]["rule"] == "camarilla:grapple"
        await do("bob", "declare_action", action=action("challenge", category="physical", target="zach"))
        for who in ("zach", "xavier", "yolanda"):
            await st("declare_action", who, action=action("none"))
        await do("andrew", "declare_action", action=action("none"))
        await do("charlie", "declare_action", action=action("none"))
        r = c["st"].view["round"]
        assert r["number"] == 3 and r["initiative"]["bob"] == 5 and r["initiative"]["zach"] == 5
        wrong = await c["bob"].send(
            {
                "type": "declare",
                "challenge": "x",
                "kind": "contested",
                "targets": ["andrew"],
                "category": "physical",
                "bid": ["Brawny"],
            }
        )
        assert wrong["error"]["code"] == "grappled"  # only Zach, whose grapple holds him
        await do("andrew", "end_turn")
        await do(
            "bob",
            "declare",
            challenge="free",
            kind="contested",
            targets=["zach"],
            category="physical",
            bid=["Brawny"],
            effect={"kind": "damage", "amount": 1},
        )
        await st("bid", "zach", challenge="free", bid=["Tough"])
        await do("bob", "throw", challenge="free", sign="paper")
        await st("throw", "zach", challenge="free", sign="rock")
        freed = await st("pass", "zach", challenge="free")
        assert "grapple_broken" in [e["type"] for e in freed["events"]]
        await st("end_round")
        await st("close_scene")
        final = await at_version(c["st"], c["st"].last_seq)

    # -- replayed and audited --------------------------------------------------------------------
    records = list(backend.store.read("w"))
    state = fold(records)
    zach, bob, andrew = state.characters["zach"], state.characters["bob"], state.characters["andrew"]
    assert zach.wounds.bashing == 4 and zach.lost_names == ["Brawny", "Tough", "Tough", "BloodStamina", "Tough"]
    assert bob.conditions.grappled_by is None and bob.willpower == 3 and bob.lost_names == ["Tough"]
    assert andrew.wounds.total == 0 and andrew.abilities["Dodge"] == 0
    assert state.characters["xavier"].lost_names == ["Dexterous"] and not state.characters["xavier"].conditions.prone
    assert state.characters["yolanda"].lost_names == ["Clever"]
    assert final["status"] == "closed" and final["version"] == state.version
    assert list(states(records))[-1] == state
    steps = list(replay(records))
    assert len(steps) == len(records) and steps[-1].type == "scene_closed"
    report = audit(list(backend.store.read_wire("w")))
    assert report.chain.ok and [s.title for s in report.timeline][1:] == [
        "Round 1 begins: everyone declares an action.",
        "Round 2 begins: everyone declares an action.",
        "Round 3 begins: everyone declares an action.",
    ]
    assert {ch.id for ch in report.challenges} == {"z1", "mob", "shot", "dom", "e1", "a2", "g1", "intim", "free"}
    page = html(report)
    assert "round 2" in page and "Round 2" in page and "https:" not in page
    (tmp_path / "warehouse-audit.html").write_text(page)  # kept with the test run, to look at
