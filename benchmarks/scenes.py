"""Long scenes for the benchmarks: a brawl of six characters, played through the real command
path (decide, append, fold) into an in-memory store, with every kind of step a table meets:
ties and declarations, retests and cancels, overbids, relents, Negative Trait calls, damage. The
same brawl under ``bns`` (``ruleset="bns"``) puts in test pools: attacks of every kind, defences,
Willpower retests and overbids that stand, relents graded by the pools.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import ROOT
from domain.commands import parse_command
from domain.sheets import Category
from domain.state import Character, Scene
from server.backend import open_backend
from server.service import SceneService
from server.snapshots import Snapshots
from server.store import EventStore, MemoryStore, SqliteStore

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


def _bns_sheet(who: str) -> dict[str, Any]:
    return {
        "id": who,
        "name": who.capitalize(),
        "willpower": 99,
        "health": 99,
        "attributes": {"physical": 6, "social": 5, "mental": 4},
        "skills": {"brawl": 3, "melee": 2, "firearms": 2, "dodge": 2, "intimidation": 3, "occult": 1},
        "weapons": [{"name": "Knife", "kind": "melee", "bonus": 1}],
    }


BNS_ATTACKS = [
    ("physical", {"attack": "unarmed"}, {"defense": "dodge"}),
    ("physical", {"attack": "melee", "weapon": "Knife"}, {"defense": "parry", "weapon": "Knife"}),
    ("physical", {"attack": "firearms", "wildcard": 2, "why": "a shotgun"}, {"defense": "soak"}),
    ("physical", {"attack": "firearms"}, {"defense": "dodge", "wildcard": -5, "why": "off balance"}),
    ("social", {"attack": "social", "skill": "intimidation"}, {"defense": "social"}),
    ("mental", {"attack": "mental", "attribute": "wits", "skill": "occult"}, {"defense": "mental"}),
]


def _bns_script(rng: random.Random) -> Iterator[dict[str, Any]]:
    """bns challenges one after another, forever: a pool each, one to three tests."""
    n = 0
    while True:
        n += 1
        cid = f"c{n}"
        a, d = rng.sample(PEOPLE, 2)
        category, attack, defense = rng.choice(BNS_ATTACKS)
        yield {
            "type": "declare",
            "actor": a,
            "challenge": cid,
            "kind": "contested",
            "targets": [d],
            "category": category,
            "pool": attack,
            "power": f"Power {n}" if category != "physical" else None,  # no two alike: no immunity met
            "victory": "hurt you",
            "effect": {"kind": "damage", "amount": 1} if category == "physical" else None,
        }
        if rng.random() < 0.1:
            yield {"type": "relent", "actor": d, "challenge": cid, "pool": defense}
            continue
        yield {"type": "bid", "actor": d, "challenge": cid, "pool": defense}
        for test in range(3):  # whoever is behind retests (Willpower, or an overbid when it may)
            signs = rng.choice([("rock", "rock"), ("rock", "paper"), ("paper", "rock"), ("scissors", "paper")])
            yield {"type": "throw", "actor": a, "challenge": cid, "sign": signs[0]}
            yield {"type": "throw", "actor": d, "challenge": cid, "sign": signs[1]}
            if test == 2 or rng.random() < 0.4:
                break
            source = {"category": "willpower"} if test == 0 else {"category": "overbid"}
            for who in (a, d):  # only the side behind is let through
                yield {"type": "retest", "actor": who, "challenge": cid, "source": source}
        for who in (a, d):
            yield {"type": "pass", "actor": who, "challenge": cid}
        if n % 40 == 0:
            for who in PEOPLE:
                yield {"type": "adjust", "actor": "st", "character": who, "reason": "a new night"}


FIGHT_MANEUVERS = [None, None, None, "knock_down", "grapple", "hamstring", "targeted_attack", "blinding_attack"]


def _bns_fight_script(rng: random.Random, now: Callable[[], Scene]) -> Iterator[dict[str, Any]]:
    """A bns fight in rounds, forever: each turn, the one acting attacks (a maneuver one time in
    two), moves, draws, clears or stands, or tries a fair escape that others hold; every five rounds
    a new fight, the wounds and Willpower restored."""
    n = rounds = 0
    while True:
        rounds += 1
        new = rounds % 5 == 1
        rage = {rng.choice(PEOPLE): 1} if rng.random() < 0.3 else {}
        yield {"type": "start_round", "actor": "st", "new_fight": new, "rage": rage}
        for _ in range(40):  # turns of the round
            r = now().round
            if r is None or r.phase != "acting" or not r.turn:
                break
            who = r.turn[0]
            me = {"actor": "st", "character": who}
            roll = rng.random()
            if roll < 0.08:
                yield {"type": "declare_action", **me, "action": {"kind": "fair_escape"}}
                other = rng.choice([p for p in PEOPLE if p != who])
                yield {"type": "intend_attack", "actor": "st", "character": other, "target": who}
            elif roll < 0.75:
                n += 1
                cid = f"f{n}"
                holder = now().characters[who].conditions.grappled_by
                target = holder or rng.choice([p for p in PEOPLE if p != who])
                yield {
                    "type": "declare",
                    **me,
                    "challenge": cid,
                    "kind": "contested",
                    "targets": [target],
                    "category": "physical",
                    "pool": {"attack": "unarmed"},
                    "range": 1,
                    "maneuver": None if holder else rng.choice(FIGHT_MANEUVERS),
                    "victory": "break free" if holder else "hurt you",
                    "effect": {"kind": "escape_grapple"}
                    if holder
                    else {"kind": "damage", "amount": rng.choice([1, 2, 3])},
                }
                yield {
                    "type": "bid",
                    "actor": "st",
                    "character": target,
                    "challenge": cid,
                    "pool": {"defense": "dodge"},
                }
                signs = rng.choice([("rock", "scissors"), ("rock", "paper"), ("paper", "paper")])
                yield {"type": "throw", **me, "challenge": cid, "sign": signs[0]}
                yield {"type": "throw", "actor": "st", "character": target, "challenge": cid, "sign": signs[1]}
                for side in (who, target):
                    yield {"type": "pass", "actor": "st", "character": side, "challenge": cid}
            c = now().characters[who]
            action: dict[str, Any] = {"kind": rng.choice(["draw", "move", "other"]), "item": "Knife"}
            if c.conditions.prone:
                action = {"kind": "stand", "steps": 1}
            elif mark := next((m for m in c.conditions.marks if m.clears_after), None):
                action = {"kind": "clear", "clears": mark.name}
            elif action["kind"] == "move":
                action = {"kind": "move", "steps": rng.choice([1, 3])}
            yield {"type": "declare_action", **me, "action": action}
            if now().round is not None and who in now().round.turn:  # type: ignore[union-attr]
                yield {"type": "end_turn", **me}
        yield {"type": "end_round", "actor": "st"}
        if new:
            for who in PEOPLE:
                yield {"type": "adjust", "actor": "st", "character": who, "reason": "a new night"}


KONY_SOURCES: list[dict[str, Any]] = [
    {"category": "ability", "name": "Brawl"},
    {"category": "ability", "name": "Dodge"},
    {"category": "merit", "name": "Lucky"},
]


def _kony_sheet(who: str) -> dict[str, Any]:
    """Half the fighters at the pool cap, half at a third of it: the strong may overbid the weak."""
    sheet = _sheet(who)
    if PEOPLE.index(who) % 2:
        sheet["traits"] = {category: dict.fromkeys(names, 4) for category, names in TRAITS.items()}
    return sheet


def _kony_bid(c: Character, rng: random.Random) -> str | None:
    """A Physical Trait the character still has tonight."""
    traits = c.sheet.traits.of("physical") if c.sheet.traits else {}
    left = [name for name, n in traits.items() if n > sum(1 for lost in c.lost if lost.trait == name)]
    return rng.choice(left) if left else None


def _kony_fight_script(rng: random.Random, now: Callable[[], Scene]) -> Iterator[dict[str, Any]]:
    """A kony fight in rounds, forever: everyone declares, says its expenditures are done (a blood
    now and then), initiative (ties on d10s); each turn, the one acting attacks someone (range,
    surprise, darkness at random), both sides roll d3s the server draws, naming retests, and the
    loser overbids when its pool allows; every five rounds a new fight, Traits and wounds restored."""
    n = rounds = 0
    while True:
        rounds += 1
        new = rounds % 5 == 1
        yield {"type": "start_round", "actor": "st", "new_fight": new}
        for who in PEOPLE:
            action = {"kind": "challenge", "category": "physical"} if rng.random() < 0.8 else {"kind": "none"}
            yield {"type": "declare_action", "actor": "st", "character": who, "action": action}
        for who in PEOPLE:
            yield {"type": "expenditures_done", "actor": "st", "character": who}
        for _ in range(40):  # turns of the round
            r = now().round
            if r is None or r.phase != "acting" or not r.turn:
                break
            who = r.turn[0]
            me = {"actor": "st", "character": who}
            declared = now().characters[who].action
            if declared is not None and declared.kind == "challenge":
                n += 1
                cid = f"k{n}"
                target = rng.choice([p for p in PEOPLE if p != who])
                people = now().characters
                trait, answer = _kony_bid(people[who], rng), _kony_bid(people[target], rng)
                if trait is None or answer is None:
                    yield {"type": "end_turn", **me}
                    continue
                yield {
                    "type": "declare",
                    **me,
                    "challenge": cid,
                    "kind": "contested",
                    "targets": [target],
                    "category": "physical",
                    "bid": [trait],
                    "ranged": rng.random() < 0.2,
                    "surprise": rng.random() < 0.2,
                    "darkness": rng.choice([None, None, None, "challenger", "both"]),
                    "victory": "hurt you",
                    "effect": {"kind": "damage", "amount": rng.choice([1, 2])},
                }
                yield {"type": "bid", "actor": "st", "character": target, "challenge": cid, "bid": [answer]}
                for _test in range(2):
                    for side in (who, target):
                        named = rng.sample(KONY_SOURCES, rng.randint(0, 1))
                        yield {"type": "roll", "actor": "st", "character": side, "challenge": cid, "retests": named}
                    ch = now().challenges.get(cid)
                    if ch is None or ch.status == "resolved" or ch.test is None:
                        break
                    loser = ch.defender.who if ch.test.leader == "challenger" else ch.challenger.who
                    source = {"category": "overbid", "bid": [_kony_bid(now().characters[loser], rng)]}
                    yield {"type": "retest", "actor": "st", "character": loser, "challenge": cid, "source": source}
                    ch = now().challenges.get(cid)
                    if ch is not None and ch.status != "resolved" and len(ch.retests) == 0:
                        for side in (who, target):
                            yield {"type": "pass", "actor": "st", "character": side, "challenge": cid}
            yield {"type": "end_turn", **me}
        yield {"type": "end_round", "actor": "st"}
        if new:
            for who in PEOPLE:
                yield {"type": "adjust", "actor": "st", "character": who, "reason": "a new night"}


def playing(
    events: int,
    *,
    seed: int = 7,
    scene: str = "brawl",
    service: SceneService,
    rng: random.Random | None = None,
    ruleset: str = "lotn",
) -> Iterator[int]:
    """Play a brawl of at least ``events`` events into ``service``, one command at a time
    (refusals skipped), yielding the scene's version after each: several scenes can be played
    in turn, their commands interleaved on disk as a live server writes them. ``ruleset``:
    ``lotn``, ``bns``, ``bns-fight`` (bns in rounds: actions, maneuvers, escapes) or ``kony`` (kony in
    rounds: expenditures, d10 ties, d3s drawn by the server, overbids)."""
    rng = rng or random.Random(seed)
    store = service.store
    now = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
    pools = ruleset.startswith("bns")
    title = "The long fight" if ruleset in ("bns-fight", "kony") else "The long brawl"
    setup: list[dict[str, Any]] = [
        {"type": "open_scene", "actor": "st", "ruleset": "bns" if pools else ruleset, "title": title}
    ]
    sheet = _bns_sheet if pools else _kony_sheet if ruleset == "kony" else _sheet
    setup += [{"type": "add_character", "actor": "st", "character": sheet(who)} for who in PEOPLE]
    commands = iter(setup)
    if ruleset == "bns-fight":
        script = _bns_fight_script(rng, lambda: service.state(scene))
    elif ruleset == "kony":
        script = _kony_fight_script(rng, lambda: service.state(scene))
    else:
        script = _bns_script(rng) if pools else _script(rng)
    n = 0
    version = store.head(scene)[0]
    while version < events:
        body = next(commands, None) or next(script)
        if body["type"] == "adjust":
            character = service.state(scene).characters[body["character"]]
            wounds = character.wounds
            changes: dict[str, Any] = {"damage": {"bashing": -wounds.bashing, "lethal": -wounds.lethal}}
            if pools:
                changes["willpower"] = 99 - character.willpower
            else:
                changes["restore_traits"] = character.lost_names
            body = {**body, "changes": changes}
        n += 1
        now += timedelta(seconds=2)
        fields = {k: v for k, v in body.items() if v is not None}
        command = parse_command(msgspec.json.encode({"id": f"b{n}", "scene": scene, "at": now, **fields}))
        handled = service.handle(command)
        if handled.records:
            version = handled.records[-1].seq
        yield version


def brawl(
    events: int, *, seed: int = 7, scene: str = "brawl", service: SceneService | None = None
) -> tuple[EventStore, SceneService]:
    """A scene of at least ``events`` events, played command by command (refusals skipped), into
    ``service`` (default: a new one on an in-memory store)."""
    rng = random.Random(seed)  # the script's choices and, in memory, the dice: one stream, as always
    if service is None:
        entropy = lambda: rng.getrandbits(256)  # noqa: E731
        service = SceneService(MemoryStore(), honour_at=True, entropy=entropy)
    for _ in playing(events, scene=scene, service=service, rng=rng):
        pass
    return service.store, service


# -- tables: scenes as a live table has them, with tokens -------------------------------------


DEMO = ROOT / "examples" / "demo.jsonl"


def demo(service: SceneService, scene: str) -> None:
    """The demo scene (examples/demo.jsonl: 61 events; one over-declaration in it is refused)
    under another id."""
    for line in DEMO.read_text().splitlines():
        if line.startswith("{"):
            service.handle(parse_command(json.dumps({**json.loads(line), "scene": scene})))


def open_challenges(service: SceneService, scene: str, prefix: str = "open") -> tuple[list[str], int]:
    """Withdraw (as the Storyteller) the challenges a brawl left undecided (its script goes on after
    a refused step, so a long one leaves some stuck: 26 in 100,000 events), then declare contested
    challenges between the characters, each left awaiting its answer (as at a table, where players
    are in the middle of something). Returns every character in an undecided challenge, in the
    order they were added, and how many were withdrawn."""
    stuck = sorted(service.state(scene).undecided)
    for n, cid in enumerate(stuck):
        withdraw = {"id": f"{prefix}-w{n}", "scene": scene, "actor": "st", "type": "withdraw", "challenge": cid}
        handled = service.handle(parse_command(json.dumps(withdraw)))
        assert handled.error is None, handled.error
    state = service.state(scene)

    def involved() -> set[str]:
        s = service.state(scene)
        challenges = [s.challenges[cid] for cid in s.undecided]
        return {who for ch in challenges for who in (*ch.challenger.members, *ch.targets)}

    people = [c.id for c in state.roster()]
    n = 0
    for a in people:
        busy = involved()
        if a in busy:
            continue
        character = service.state(scene).characters[a]
        lost, traits = character.lost_names, character.sheet.traits
        categories: tuple[Category, ...] = ("physical", "social", "mental")
        bids = [
            (category, name)
            for category in categories
            for name in (traits.of(category) if traits else {})
            if name not in lost
        ]
        for d in [d for d in people if d != a and d not in busy]:
            placed = False
            for category, name in bids:
                n += 1
                body = {
                    "id": f"{prefix}-{n}",
                    "scene": scene,
                    "actor": "st",
                    "character": a,
                    "type": "declare",
                    "challenge": f"{prefix}-{a}-{d}",
                    "kind": "contested",
                    "targets": [d],
                    "category": category,
                    "bid": [name],
                    "victory": "the upper hand",
                }
                if service.handle(parse_command(json.dumps(body))).error is None:
                    placed = True
                    break
            if placed:
                break
    busy = involved()
    return [who for who in people if who in busy], len(stuck)


@dataclass
class Table:
    """A scene ready for a live table: its length, its tokens (the Storyteller's, a spectator's,
    and one per player in an undecided challenge)."""

    scene: str
    version: int
    st: str
    spectator: str
    players: dict[str, str] = field(default_factory=dict)


def build(
    db: Path,
    scenes: dict[str, int | None],
    *,
    challenges: bool = True,
    quiet: bool = False,
    deadlines: dict[str, Any] | None = None,
) -> dict[str, Table]:
    """Scenes into a SQLite file, through the real command path with snapshots saved as the server
    saves them: ``{scene: events}``, ``None`` for the demo (61 events), a number for a brawl of at
    least that many events; then the response ``deadlines`` set, if given (``set_deadlines``); then
    (``challenges``) open challenges for every character, and tokens."""
    store = SqliteStore(db)
    store.db.execute("PRAGMA synchronous=OFF")  # only to build fast; the runs copy the file
    dice = random.Random(11)
    entropy = lambda: dice.getrandbits(256)  # noqa: E731
    service = SceneService(store, honour_at=True, entropy=entropy, snapshots=Snapshots(store))
    players: dict[str, list[str]] = {}
    for scene, events in scenes.items():
        started = time.perf_counter()
        if events is None:
            demo(service, scene)
        else:
            brawl(events, scene=scene, service=service)
        if deadlines is not None:
            body = {"id": "set-deadlines", "scene": scene, "actor": "st", "type": "set_deadlines"}
            handled = service.handle(parse_command(json.dumps({**body, "deadlines": deadlines})))
            assert handled.error is None, handled.error
        players[scene], withdrawn = open_challenges(service, scene) if challenges else ([], 0)
        if not quiet or (events or 0) >= 10_000:
            print(
                f"# built {scene}: {store.head(scene)[0]:,} events ({withdrawn} stuck challenges withdrawn),"
                f" {len(players[scene])} players in open challenges, in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
        service.forget(scene)
    versions = {scene: store.head(scene)[0] for scene in scenes}
    store.close()
    backend = open_backend(str(db))
    issue = backend.tokens.issue
    tables = {
        scene: Table(
            scene,
            versions[scene],
            st=issue(scene, "st")[0],
            spectator=issue(scene, "spectator")[0],
            players={who: issue(scene, "player", who)[0] for who in players[scene]},
        )
        for scene in scenes
    }
    backend.close()
    return tables
