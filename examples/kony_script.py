"""Writes examples/kony.jsonl: a Kings of New York fight (ruleset kony), one protocol command per line.

    .venv/bin/python -m examples.kony_script        # rewrites examples/kony.jsonl

The lines are kept here, with the times and ids added in order, so the example stays easy to edit;
the CLI tests (tests/test_cli.py) and the live test (tests/live/test_kony_live.py) play the file.
Every d3 is entered by the Storyteller (``values``), so the fights come out the same every time;
the d10s that split a tie on initiative are the server's (the document says the players roll them
and nobody contests the order), so each tie is between characters at the bottom of the order who
have nothing to do that round, and the Storyteller ends the round when the others are done.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SCENE = "docks"
PATH = Path(__file__).resolve().parent / "kony.jsonl"
START = datetime(2026, 12, 4, 23, 0, tzinfo=UTC)

SHEETS: list[dict[str, Any]] = [
    {
        "id": "vito",
        "name": "Vito",
        "traits": {"physical": {"Brawny": 3, "Tough": 2, "Quick": 2}, "social": {"Intimidating": 2}},
        "negative_traits": {"physical": ["Clumsy"]},
        "abilities": {"Brawl": 2, "Dodge": 1},
        "powers": {"Celerity": 2},
        "blood": 5,
    },
    {
        "id": "rosa",
        "name": "Rosa",
        "traits": {"physical": {"Quick": 3, "Nimble": 3, "Steady": 2}, "mental": {"Alert": 3}},
        "abilities": {"Firearms": 3, "Dodge": 1},
        "weapons": [{"name": "Pistol", "kind": "firearms", "range": 20}],
    },
    {
        "id": "sal",
        "name": "Sal",
        "traits": {"physical": {"Tough": 2, "Brawny": 2}, "social": {"Charming": 3}},
        "abilities": {"Dodge": 2},
        "armor": 2,
    },
    {
        "id": "enzo",
        "name": "Enzo",
        "npc": True,
        "traits": {"physical": {"Brutal": 3, "Tough": 2, "Wiry": 2}},
        "negative_traits": {"physical": ["Clumsy"]},
        "abilities": {"Brawl": 1, "Dodge": 1},
        "blood": 6,
    },
    {
        "id": "tony",
        "name": "Tony",
        "npc": True,
        "traits": {"physical": {"Wiry": 2, "Quick": 2}},
        "abilities": {"Dodge": 1},
    },
]

DON = {
    "id": "don",
    "name": "Don Carmine",
    "npc": True,
    "combat_sheet": True,
    "health": 12,
    "retests": 2,
    "rerolls": 1,
    "traits": {"physical": {"Brutal": 6, "Tough": 6}},
}


def st(verb: str, /, **fields: Any) -> dict[str, Any]:
    return {"actor": "st", "type": verb, **fields}


def by(actor: str, verb: str, /, **fields: Any) -> dict[str, Any]:
    return {"actor": actor, "type": verb, **fields}


def npc(who: str, verb: str, /, **fields: Any) -> dict[str, Any]:
    return {"actor": "st", "type": verb, "character": who, **fields}


def roll(challenge: str, who: str, values: list[int], retests: list[dict[str, Any]] | None = None, **more: Any):
    """A side's dice rolled at the table and entered by the Storyteller."""
    return {
        "actor": "st",
        "type": "roll",
        "challenge": challenge,
        "character": who,
        "retests": retests or [],
        "values": values,
        **more,
    }


BRAWL = {"category": "ability", "name": "Brawl"}
FIREARMS = {"category": "ability", "name": "Firearms"}
DODGE = {"category": "ability", "name": "Dodge"}
PHYSICAL = {"kind": "challenge", "category": "physical"}
NONE = {"kind": "none"}

LINES: list[str | dict[str, Any]] = [
    "# Justicar example: a Kings of New York fight (ruleset kony), one protocol command per line.",
    "# Play it: justicar play examples/kony.jsonl --db docks.db; then justicar replay --db docks.db docks",
    "# (written by examples/kony_script.py)",
    "",
    "# Red Hook, a pier at night. Vito (Celerity 2), Rosa (a pistol) and Sal (armour 2) against Enzo",
    "# and Tony; then Don Carmine, an NPC combat sheet, in a narrative round. Every d3 is rolled at the",
    "# table and entered by the Storyteller (values); the d10s of initiative ties are the server's.",
    st("open_scene", ruleset="kony", title="Red Hook, pier 9", options={"kony": {}}),
    *(st("add_character", character=sheet) for sheet in SHEETS),
    "",
    "# Round 1. Declarations first (kony:declaration), then the expenditures: Vito spends a blood for",
    "# Strength (kony:expenditures). Initiative is named Traits + Celerity: Vito 7 + 2, Rosa 8, Enzo 7,",
    "# and Sal and Tony tie on 4: they roll a d10 each (kony:initiative-ties).",
    st("start_round"),
    by("vito", "declare_action", action={**PHYSICAL, "target": "enzo"}),
    by("rosa", "declare_action", action={**PHYSICAL, "target": "enzo"}),
    by("sal", "declare_action", action=NONE),
    npc("enzo", "declare_action", action={**PHYSICAL, "target": "sal"}),
    npc("tony", "declare_action", action=NONE),
    by("vito", "spend_blood", kind="strength"),
    by("vito", "expenditures_done"),
    by("rosa", "expenditures_done"),
    by("sal", "expenditures_done"),
    npc("enzo", "expenditures_done"),
    npc("tony", "expenditures_done"),
    "",
    "# Vito grabs Enzo, his roll retested with Brawl: two d3s against one; his 1 beats nothing.",
    by(
        "vito",
        "declare",
        challenge="grab",
        kind="contested",
        category="physical",
        targets=["enzo"],
        bid=["Brawny"],
        victory="I pin him to the crates",
        effect={"kind": "grapple"},
    ),
    npc("enzo", "bid", challenge="grab", bid=["Tough"]),
    roll("grab", "vito", [1, 2], [BRAWL]),
    roll("grab", "enzo", [3]),
    by("vito", "end_turn"),
    "",
    "# Rosa shoots Enzo from the dark: Firearms, range (Enzo has no gun) and surprise make four d3s.",
    by(
        "rosa",
        "declare",
        challenge="shot",
        kind="contested",
        category="physical",
        targets=["enzo"],
        bid=["Quick"],
        ranged=True,
        surprise=True,
        victory="a bullet in the shoulder",
        effect={"kind": "damage", "amount": 1, "type": "lethal"},
    ),
    npc("enzo", "bid", challenge="shot", bid=["Brutal", "Wiry"]),
    roll("shot", "rosa", [1, 3, 1, 2], [FIREARMS]),
    roll("shot", "enzo", [1, 3], [DODGE]),
    by("rosa", "end_turn"),
    "",
    "# Enzo, held but struggling, swings at Sal in the dark (both blind): he bids two Traits",
    "# (kony:grapple). Sal calls Enzo Clumsy, rightly: Enzo bids one more (kony:negative-traits).",
    "# Darkness takes a die from each (kony:blind-fighting); Enzo's 1 wins, and Sal's armour takes",
    "# the first two of the three lethal (kony:damage-order).",
    npc(
        "enzo",
        "declare",
        challenge="swing",
        kind="contested",
        category="physical",
        targets=["sal"],
        bid=["Brutal", "Wiry"],
        darkness="both",
        victory="a hook through the ribs",
        effect={"kind": "damage", "amount": 3, "type": "lethal"},
    ),
    by("sal", "bid", challenge="swing", bid=["Tough"]),
    by("sal", "call_negative", challenge="swing", trait="Clumsy"),
    npc("enzo", "bid", challenge="swing", bid=["Tough"]),
    roll("swing", "enzo", [1]),
    roll("swing", "sal", [2], [DODGE]),
    npc("enzo", "end_turn"),
    "# Sal and Tony have nothing to do; the Storyteller ends the round.",
    st("end_round"),
    "",
    "# Round 2. Sal leaves before anyone declares (kony:fair-escape). Enzo, three Traits down, ties",
    "# with Tony on 4 at the bottom: d10s again.",
    st("start_round"),
    by("sal", "declare_action", action={"kind": "fair_escape"}),
    by("vito", "declare_action", action=NONE),
    by("rosa", "declare_action", action={**PHYSICAL, "target": "tony"}),
    npc("enzo", "declare_action", action=NONE),
    npc("tony", "declare_action", action=NONE),
    by("vito", "expenditures_done"),
    by("rosa", "expenditures_done"),
    npc("enzo", "expenditures_done"),
    npc("tony", "expenditures_done"),
    "",
    "# Vito's next action: he feeds on the Enzo he holds, three blood Traits, the most in a round",
    "# (kony:feeding).",
    by("vito", "feed", target="enzo", blood=3),
    by("vito", "end_turn"),
    "",
    "# Rosa clubs Tony with the pistol; Tony's 1 beats her 3, but her 8 Traits are double his 4: she",
    "# overbids a new Trait (kony:overbid), losing the first, and both roll again; she wins.",
    by(
        "rosa",
        "declare",
        challenge="club",
        kind="contested",
        category="physical",
        targets=["tony"],
        bid=["Nimble"],
        victory="Tony goes down",
        effect={"kind": "damage", "amount": 1, "type": "bashing"},
    ),
    npc(
        "tony",
        "bid",
        challenge="club",
        bid=["Wiry"],
        victory="I kick her into the river",
        effect={"kind": "damage", "amount": 1, "type": "bashing"},
    ),
    roll("club", "rosa", [3]),
    roll("club", "tony", [1]),
    by("rosa", "retest", challenge="club", source={"category": "overbid", "bid": ["Steady"]}),
    roll("club", "rosa", [1, 2], [FIREARMS]),
    roll("club", "tony", [2]),
    by("rosa", "end_turn"),
    "# Enzo and Tony have nothing left to do.",
    st("end_round"),
    "# Vito lets Enzo go; Sal, gone, is taken off the scene.",
    by("vito", "let_go"),
    st("remove_character", character="sal"),
    "",
    "# Round 3, a narrative round against Don Carmine's combat sheet (kony:narrative): the players",
    "# roll against the Storyteller's difficulty; each success the Don rerolls one die (rerolls 1).",
    st("add_character", character=DON),
    st("start_round", narrative=True),
    by("vito", "declare_action", action={**PHYSICAL, "target": "don"}),
    by("rosa", "declare_action", action={**PHYSICAL, "target": "don"}),
    npc("enzo", "declare_action", action=NONE),
    npc("tony", "declare_action", action=NONE),
    npc("don", "declare_action", action=NONE),
    by("vito", "expenditures_done"),
    by("rosa", "expenditures_done"),
    npc("enzo", "expenditures_done"),
    npc("tony", "expenditures_done"),
    npc("don", "expenditures_done"),
    "",
    "# The Don's 12 Traits put him first; his sheet acts outside the order, so his turn ends at once.",
    npc("don", "end_turn"),
    "# Vito hits the Don, difficulty 7: two 1s, the Don rerolls one into a 3; the other 1 still wins.",
    by(
        "vito",
        "declare",
        challenge="uppercut",
        kind="static",
        category="physical",
        targets=["don"],
        difficulty=7,
        bid=["Tough"],
        victory="the Don staggers",
        effect={"kind": "damage", "amount": 2, "type": "lethal"},
    ),
    roll("uppercut", "vito", [1, 1], [BRAWL], rerolls=[3]),
    by("vito", "end_turn"),
    "",
    "# Rosa shoots, difficulty 7: her 1 rerolled into a 2, a tie, and her Traits decide: 7 left,",
    "# equal to the difficulty, a loss (option narrative_equal); she loses Quick.",
    by(
        "rosa",
        "declare",
        challenge="bullet",
        kind="static",
        category="physical",
        targets=["don"],
        difficulty=7,
        bid=["Quick"],
        victory="the Don drops",
        effect={"kind": "damage", "amount": 2, "type": "lethal"},
    ),
    roll("bullet", "rosa", [1, 3], [FIREARMS], rerolls=[2]),
    by("rosa", "end_turn"),
    st("end_round"),
]


def lines() -> list[str]:
    out: list[str] = []
    n = 0
    for line in LINES:
        if isinstance(line, str):
            out.append(line)
            continue
        n += 1
        at = (START + timedelta(seconds=10 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = {"id": f"k-{n:02d}", "scene": SCENE, "actor": line["actor"], "at": at}
        body.update({k: v for k, v in line.items() if k != "actor"})
        out.append(json.dumps(body, ensure_ascii=False))
    return out


if __name__ == "__main__":
    PATH.write_text("\n".join(lines()) + "\n", encoding="utf-8")
    print(f"wrote {PATH}")
