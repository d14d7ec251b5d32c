"""Long scenes for the benchmarks: a brawl of six characters, played through the real command
path (decide, append, fold) into an in-memory store, with every kind of step a table meets:
ties and declarations, retests and cancels, overbids, relents, Negative Trait calls, damage.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from domain.commands import parse_command
from server.service import SceneService
from server.store import EventStore, MemoryStore

PEOPLE = ["ana", "bo", "cy", "dee", "eli", "fay"]
TRAITS = {
    "physical": ["Brawny", "Quick", "Tough"],
    "social": ["Charming", "Proud"],
    "mental": ["Clever", "Alert"],
}


def _sheet(who: str) -> dict[str, Any]:
    return {
        "id": who,
        "name": who.capitalize(),
        "willpower": 5,
        "health": 99,
        "traits": {category: dict.fromkeys(names, 30) for category, names in TRAITS.items()},
        "negative_traits": {"physical": ["Clumsy"]},
        "abilities": {"Brawl": 99, "Dodge": 99, "Intimidation": 99, "Occult": 99},
        "merits": ["Lucky"],
    }


def _script(rng: random.Random) -> Iterator[dict[str, Any]]:
    """Commands for one challenge after another, forever."""
    n = 0
    while True:
        n += 1
        cid = f"c{n}"
        a, d = rng.sample(PEOPLE, 2)
        category = rng.choice(["physical", "physical", "social", "mental"])
        trait_a, trait_d = rng.choice(TRAITS[category]), rng.choice(TRAITS[category])
        ability = {"physical": "Brawl", "social": "Intimidation", "mental": "Occult"}[category]
        yield {
            "type": "declare",
            "actor": a,
            "challenge": cid,
            "kind": "contested",
            "targets": [d],
            "category": category,
            "bid": [trait_a],
            "victory": "hurt you",
            "effect": {"kind": "damage", "amount": 1} if category == "physical" else None,
        }
        if rng.random() < 0.1:
            yield {"type": "relent", "actor": d, "challenge": cid}
            continue
        yield {"type": "bid", "actor": d, "challenge": cid, "bid": [trait_d]}
        if rng.random() < 0.1:
            yield {"type": "call_negative", "actor": a, "challenge": cid, "trait": "Clumsy"}  # right: d owes
            yield {"type": "bid", "actor": d, "challenge": cid, "bid": [trait_d]}
        signs = rng.choice([("rock", "rock"), ("rock", "paper"), ("paper", "rock"), ("scissors", "paper")])
        yield {"type": "throw", "actor": a, "challenge": cid, "sign": signs[0]}
        yield {"type": "throw", "actor": d, "challenge": cid, "sign": signs[1]}
        if signs[0] == signs[1]:
            yield {"type": "declare_traits", "actor": a, "challenge": cid, "count": rng.randint(30, 40)}
            yield {"type": "declare_traits", "actor": d, "challenge": cid, "count": rng.randint(30, 40)}
        # whoever is behind may retest; the other may cancel; then both pass until it resolves
        for who, other in ((a, d), (d, a)):
            if rng.random() < 0.3:
                yield {
                    "type": "retest",
                    "actor": who,
                    "challenge": cid,
                    "source": {"category": "ability", "name": ability},
                }
                if rng.random() < 0.5:
                    yield {
                        "type": "cancel_retest",
                        "actor": other,
                        "challenge": cid,
                        "source": {"category": "ability", "name": ability},
                    }
                else:
                    yield {"type": "pass", "actor": other, "challenge": cid}
                    yield {"type": "throw", "actor": a, "challenge": cid, "sign": "paper"}
                    yield {"type": "throw", "actor": d, "challenge": cid, "sign": "rock"}
        if rng.random() < 0.05:
            yield {
                "type": "retest",
                "actor": d,
                "challenge": cid,
                "source": {"category": "overbid", "bid": [trait_d]},
            }
            yield {"type": "declare_traits", "actor": d, "challenge": cid, "count": 40}
            yield {"type": "declare_traits", "actor": a, "challenge": cid, "count": 20}
            yield {"type": "throw", "actor": a, "challenge": cid, "sign": "rock"}
            yield {"type": "throw", "actor": d, "challenge": cid, "sign": "paper"}
        for who in (a, d, a, d):
            yield {"type": "pass", "actor": who, "challenge": cid}
        if n % 40 == 0:
            for who in PEOPLE:  # brawl() fills in what each has lost
                yield {"type": "adjust", "actor": "st", "character": who, "reason": "a new night"}


def brawl(
    events: int, *, seed: int = 7, scene: str = "brawl", service: SceneService | None = None
) -> tuple[EventStore, SceneService]:
    """A scene of at least ``events`` events, played command by command (refusals skipped), into
    ``service`` (default: a new one on an in-memory store)."""
    rng = random.Random(seed)
    if service is None:
        entropy = lambda: tuple(rng.getrandbits(32) for _ in range(16))  # noqa: E731
        service = SceneService(MemoryStore(), honour_at=True, entropy=entropy)
    store = service.store
    now = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
    setup: list[dict[str, Any]] = [{"type": "open_scene", "actor": "st", "ruleset": "lotn", "title": "The long brawl"}]
    setup += [{"type": "add_character", "actor": "st", "character": _sheet(who)} for who in PEOPLE]
    commands = iter(setup)
    script = _script(rng)
    n = 0
    while store.head(scene)[0] < events:
        body = next(commands, None) or next(script)
        if body["type"] == "adjust":
            character = service.state(scene).characters[body["character"]]
            wounds = character.wounds
            body = {
                **body,
                "changes": {
                    "restore_traits": character.lost_names,
                    "damage": {"bashing": -wounds.bashing, "lethal": -wounds.lethal},
                },
            }
        n += 1
        now += timedelta(seconds=2)
        fields = {k: v for k, v in body.items() if v is not None}
        command = parse_command(msgspec.json.encode({"id": f"b{n}", "scene": scene, "at": now, **fields}))
        service.handle(command)
    return store, service
