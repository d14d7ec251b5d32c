"""The check behind the stakes properties: for every challenge a log resolves, what
``domain.stakes.stakes`` said on the state just before the command that decided it (the last
throw, roll, pass, declaration or relent) is, for the verdict reached, exactly what the resolution
then did to the characters (and, for a mob that chose later, what its choice did)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from domain.commands import OverbidSource
from domain.events import (
    ArmorDamaged,
    ChallengeResolved,
    ConditionSet,
    DamageTaken,
    GrappleStarted,
    Relented,
    VictoryChosen,
)
from domain.evolve import fold
from domain.log import Recorded
from domain.stakes import Stake, is_consequence, stakes
from domain.state import NARRATOR, Consequence, Scene, undecided
from server.service import SceneService
from server.store import MemoryStore
from server.wire import by_command
from tests import test_bns_fight_properties as bns_fight
from tests import test_bns_properties as bns_props
from tests import test_properties as lotn

Record = Recorded


@dataclass
class Checked:
    """One resolution checked: the stake it matched, and what happened."""

    challenge: str
    stake: Stake
    applied: tuple[Consequence, ...]


@dataclass
class _Waiting:
    """A mob that won and has yet to choose whose victory condition applies."""

    shown: tuple[Stake, ...]
    before: Scene
    at: datetime
    applied: list[Consequence]
    exceptional: bool


def check_stakes(records: list[Recorded]) -> list[Checked]:
    """Every resolution in ``records`` against the stakes shown before it; raises AssertionError
    naming the first that differs. Returns what was checked."""
    checked: list[Checked] = []
    waiting: dict[str, _Waiting] = {}
    state = Scene()
    for batch in by_command(records):
        before = state
        for n, record in enumerate(batch):
            event = record.event
            if isinstance(event, VictoryChosen) and event.challenge in waiting:
                w = waiting.pop(event.challenge)
                w.applied += _applied(batch[n + 1 :], event.challenge)
                stake = _matching(w.shown, "challenger", w.exceptional, relent=False, chosen=event.of)
                checked.append(_compare(event.challenge, stake, w.applied, w.before, w.at))
            if not isinstance(event, ChallengeResolved):
                continue
            cid = event.challenge
            if cid not in before.challenges:
                continue  # declared and decided by one command: nothing was shown before
            shown = stakes(before, cid)
            _one_relent_unless_the_pool_decides(cid, shown)
            relent = any(isinstance(r.event, Relented) and r.event.challenge == cid for r in batch[:n])
            applied = _applied(batch[n + 1 :], cid)
            after = fold(batch, before)
            ch = after.challenges[cid]
            if event.winner == "challenger" and ch.challenger.helpers and ch.chosen is None:
                waiting[cid] = _Waiting(shown, before, record.at, list(applied), event.exceptional)
                continue
            stake = _matching(shown, event.winner, event.exceptional, relent=relent, chosen=ch.chosen)
            checked.append(_compare(cid, stake, applied, before, record.at))
        state = fold(batch, before)
    return checked


def _one_relent_unless_the_pool_decides(cid: str, shown: tuple[Stake, ...]) -> None:
    """A relent has no test, so no chance of an exceptional success: it is shown once (for each
    victory condition a mob may choose), graded as the rules will grade it, unless the grade hangs
    on a defence still to be named (bns:relent), where both ways say so (``by_pool``)."""
    relents = [s for s in shown if s.relent]
    if any(s.by_pool for s in relents):
        assert all(s.by_pool for s in relents), f"{cid}: {relents}"
        return
    assert len({s.chosen for s in relents}) == len(relents), f"{cid}: a relent shown as a chance: {relents}"


def _applied(records: list[Recorded], cid: str) -> list[Consequence]:
    """The consequences of ``cid`` among ``records``, up to the next resolution."""
    out: list[Consequence] = []
    for record in records:
        event = record.event
        if isinstance(event, ChallengeResolved):
            break
        if is_consequence(event) and getattr(event, "challenge", None) == cid:
            out.append(event)
    return out


def _matching(shown: tuple[Stake, ...], winner: str, exceptional: bool, *, relent: bool, chosen: str | None) -> Stake:
    def fits(s: Stake, graded: bool) -> bool:
        return s.winner == winner and s.exceptional == graded and s.relent == relent and s.chosen == chosen

    found = [s for s in shown if fits(s, exceptional)]
    if not found and exceptional:  # listed apart only where the grade changes what happens
        found = [s for s in shown if fits(s, False)]
    assert len(found) == 1, f"no single stake for {winner} (exceptional {exceptional}, relent {relent}): {shown}"
    return found[0]


def _compare(cid: str, stake: Stake, applied: list[Consequence], before: Scene, at: datetime) -> Checked:
    """The stake's events are the applied ones; a condition that lasts a while counts from when it
    was shown, and from when it was set."""
    said = [_from(e, before.last_at) for e in stake.events]
    done = [_from(e, at) for e in applied]
    assert said == done, f"{cid}: the stakes said {_plain(said)}; the resolution did {_plain(done)}"
    return Checked(cid, stake, tuple(applied))


def _from(event: Consequence, start: datetime | None) -> object:
    if isinstance(event, ConditionSet) and event.until is not None and start is not None:
        return (msgspec.structs.replace(event, until=None), event.until - start)
    return event


def _plain(events: list[object]) -> str:
    return "; ".join(repr(e) for e in events) or "nothing"


# -- the generated fights ------------------------------------------------------------------------

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIGHTERS: list[dict[str, Any]] = [
    {
        "id": "a",
        "name": "A",
        "blood": 2,
        "willpower": 2,
        "armor": 1,
        "abilities": {"Brawl": 2, "Dodge": 1},
        "merits": ["Lucky"],
        "powers": ["Feral Claws", "Puissance", "Potence"],
        "traits": {"physical": {"Brawny": 3, "Quick": 2, "Tough": 1}, "mental": {"Clever": 1}},
        "negative_traits": {"physical": ["Clumsy"]},
    },
    {
        "id": "b",
        "name": "B",
        "armor": 2,
        "abilities": {"Brawl": 1, "Dodge": 2},
        "powers": ["Feral Claws", "Potence"],
        "traits": {"physical": {"Quick": 2, "Tough": 2, "Brawny": 1}, "mental": {"Clever": 2}},
    },
    {
        "id": "c",
        "name": "C",
        "abilities": {"Brawl": 1},
        "powers": ["Puissance"],
        "merits": ["Lucky"],
        "traits": {"physical": {"Brawny": 2, "Wiry": 1}},
        "negative_traits": {"physical": ["Lazy"]},
    },
]
PEOPLE = [f["id"] for f in FIGHTERS]
EFFECTS: list[dict[str, Any] | None] = [
    {"kind": "damage", "amount": 1},
    {"kind": "damage", "amount": 2, "type": "lethal"},
    {"kind": "damage", "amount": 1, "type": "lethal"},
    {"kind": "grapple"},
    {"kind": "knock_down"},
    {"kind": "escape_grapple"},
    None,
]
SIGNS = ["rock", "paper", "scissors"]
DICE_SOURCES: list[dict[str, Any]] = [
    {"category": "ability", "name": "Brawl"},
    {"category": "power", "name": "Potence"},
    {"category": "merit", "name": "Lucky"},
]
RETESTS: list[dict[str, Any]] = [
    {"category": "ability", "name": "Brawl"},
    {"category": "ability", "name": "Dodge"},
    {"category": "merit", "name": "Lucky"},
]


def _physical(state: Scene, who: str) -> list[str]:
    """The Traits ``who`` has left to bid (any, when none are)."""
    c = state.characters[who]
    have = [t for t, n in (c.sheet.traits.of("physical") if c.sheet.traits else {}).items() if c.left(t, "physical")]
    return have or ["Brawny"]


def _mine(body: dict[str, Any], who: str) -> dict[str, Any]:
    return {"actor": who, **body}


@st.composite
def duel_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    """A sensible move of a one-on-one fight in a Traits ruleset (lotn, camarilla, kony), sometimes
    a mob: declare (an effect, a power), join, answer (the defender's own effect in kony), relent,
    throw or roll, declare counts, retest (an overbid risking a new Trait), cancel, pass, choose."""
    dice = state.ruleset == "kony"
    for ch in sorted(state.challenges.values(), key=lambda c: c.seq):
        if undecided(ch) and not ch.open:  # a mob won: its champion chooses
            return {"type": "choose_victory", "actor": ch.challenger.who, "challenge": ch.id,
                    "of": draw(st.sampled_from(ch.challenger.members))}  # fmt: skip
    open_ids = [c.id for c in sorted(state.challenges.values(), key=lambda c: c.seq) if c.open]
    if not open_ids:
        who = draw(st.sampled_from(PEOPLE))
        kind = draw(st.sampled_from(["contested"] * 6 + ["static"]))
        body: dict[str, Any] = {
            "type": "declare",
            "actor": who,
            "challenge": f"x{len(state.challenges)}",
            "kind": kind,
            "category": "physical",
            "bid": [draw(st.sampled_from(_physical(state, who)))],
        }
        if kind == "contested":
            body["targets"] = [draw(st.sampled_from([p for p in PEOPLE if p != who]))]
            body["effect"] = draw(st.sampled_from(EFFECTS))
            if state.ruleset == "camarilla" and draw(st.integers(0, 2)):
                body["power"] = draw(st.sampled_from(sorted(state.characters[who].sheet.powers)))
        else:
            body["difficulty"] = draw(st.integers(0, 5))
            body["effect"] = draw(st.sampled_from(EFFECTS[:3]))
        return body
    ch = state.challenges[open_ids[0]]
    c, d = ch.challenger.who, ch.defender.who
    roll = draw(st.integers(0, 9))
    if ch.status == "awaiting_response":
        outsiders = [p for p in PEOPLE if p not in ch.challenger.members and p not in ch.targets]
        if state.ruleset == "camarilla" and outsiders and roll < 3:
            who = draw(st.sampled_from(outsiders))
            join: dict[str, Any] = {"type": "join", "actor": who, "challenge": ch.id,
                                    "bid": [draw(st.sampled_from(_physical(state, who)))],
                                    "effect": draw(st.sampled_from(EFFECTS[:5]))}  # fmt: skip
            if draw(st.booleans()):
                join["power"] = draw(st.sampled_from(sorted(state.characters[who].sheet.powers)))
            return join
        if roll == 3:
            return {"type": "relent", "actor": d, "challenge": ch.id}
        risked = draw(st.lists(st.sampled_from(_physical(state, d)), min_size=len(ch.challenger.members),
                               max_size=len(ch.challenger.members)))  # fmt: skip
        answer: dict[str, Any] = {"type": "bid", "actor": d, "challenge": ch.id, "bid": risked}
        if dice and draw(st.booleans()):
            answer["effect"] = draw(st.sampled_from(EFFECTS[:5]))
        return answer
    if ch.status in ("bidding", "throwing"):
        if roll == 0 and ch.status == "bidding" and not ch.tests:
            return {"type": "relent", "actor": d, "challenge": ch.id}
        if dice:
            waiting = [w for w in (c, d) if w != NARRATOR and ch.side(ch.role_of(w) or "challenger").rolled is None]
            who = draw(st.sampled_from(waiting or [c]))
            named = set(ch.side(ch.role_of(who) or "challenger").named)
            free = [s for s in DICE_SOURCES if f"{s['category']}:{s['name']}" not in named]
            picked = draw(st.lists(st.sampled_from(free), unique_by=lambda s: s["name"], max_size=2)) if free else []
            return {"type": "roll", "actor": who, "challenge": ch.id, "retests": picked}
        waiting = [w for w in (c, d) if w != NARRATOR and ch.side(ch.role_of(w) or "challenger").throw is None]
        return {"type": "throw", "actor": draw(st.sampled_from(waiting or [c])), "challenge": ch.id,
                "sign": draw(st.sampled_from(SIGNS))}  # fmt: skip
    if ch.status == "tie_declaring":
        first = ch.side(ch.declaring_first or "challenger")
        who = first.who if first.declared is None and first.who != NARRATOR else (d if first.who == c else c)
        return {"type": "declare_traits", "actor": who, "challenge": ch.id, "count": draw(st.integers(0, 6))}
    pending = ch.pending_retest
    if pending is not None:
        other = ch.side(ch.other(pending.role)).who
        verb = draw(st.sampled_from(["pass", "pass", "cancel_retest"]))
        move = {"type": verb, "actor": other, "challenge": ch.id}
        return move | ({"source": draw(st.sampled_from(RETESTS))} if verb == "cancel_retest" else {})
    behind = [ch.side(r).who for r in ch.losing_roles() if ch.side(r).who != NARRATOR and not ch.side(r).passed]
    who = draw(st.sampled_from(behind or [c]))
    if roll < 4:
        return {"type": "retest", "actor": who, "challenge": ch.id,
                "source": {"category": "overbid", "bid": [draw(st.sampled_from(_physical(state, who)))]}}  # fmt: skip
    if roll < 6 and not dice:
        return {"type": "retest", "actor": who, "challenge": ch.id, "source": draw(st.sampled_from(RETESTS))}
    return {"type": "pass", "actor": who, "challenge": ch.id}


def _duel_service(ruleset: str) -> SceneService:
    draws: list[int] = [0]
    service = SceneService(MemoryStore(), honour_at=True, entropy=lambda: draws[0])
    service.draws = draws  # type: ignore[attr-defined]
    setup = [{"type": "open_scene", "actor": "st", "ruleset": ruleset}] + [
        {"type": "add_character", "actor": "st", "character": sheet} for sheet in FIGHTERS
    ]
    for n, body in enumerate(setup):
        lotn._apply(service, -n - 1, body, 0, lotn.AT0 - timedelta(seconds=10 - n))
    return service


@st.composite
def duels(draw: st.DrawFn, ruleset: str) -> list[Record]:
    """A fight played move by move against the server's own service; its log."""
    service = _duel_service(ruleset)
    for n in range(draw(st.integers(1, 60))):
        body = draw(duel_move(service.state("s")))
        lotn._apply(service, n, body, draw(st.integers(0, 2**256 - 1)), lotn.AT0 + timedelta(seconds=n))
    return list(service.store.read("s"))


@st.composite
def bns_duels(draw: st.DrawFn) -> list[Record]:
    """bns challenges one at a time (``test_bns_properties``), the attacks physical and often with
    a maneuver (a grapple among them); its log."""
    service = bns_props._service()
    for n in range(draw(st.integers(1, 40))):
        state = service.state("s")
        if any(ch.open for ch in state.challenges.values()):
            body = draw(bns_props.next_move(state))
        else:
            who = draw(st.sampled_from(bns_props.PEOPLE))
            body = {"type": "declare", "actor": "st" if who == "b" else who, "challenge": f"x{len(state.challenges)}",
                    "kind": "contested", "category": "physical", "pool": {"attack": "unarmed"},
                    "targets": [draw(st.sampled_from([p for p in bns_props.PEOPLE if p != who]))],
                    "effect": {"kind": "damage", "amount": draw(st.integers(0, 3))}}  # fmt: skip
            body |= {"character": "b"} if who == "b" else {}
            maneuver = draw(st.sampled_from([None, "grapple", "grapple", "knock_down", "targeted_attack"]))
            body |= {"maneuver": maneuver} if maneuver else {}
        bns_props._apply(service, n, body, draw(st.integers(0, 2**256 - 1)), bns_props.AT0 + timedelta(seconds=n))
    return list(service.store.read("s"))


@SETTINGS
@given(duels("lotn"))
def test_lotn_stakes_are_what_the_resolution_does(records: list[Record]) -> None:
    check_stakes(records)


@SETTINGS
@given(duels("camarilla"))
def test_camarilla_stakes_are_what_the_resolution_does(records: list[Record]) -> None:
    check_stakes(records)


@SETTINGS
@given(duels("kony"))
def test_kony_stakes_are_what_the_resolution_does(records: list[Record]) -> None:
    check_stakes(records)


@SETTINGS
@given(bns_duels())
def test_bns_stakes_are_what_the_resolution_does(records: list[Record]) -> None:
    check_stakes(records)


@SETTINGS
@given(bns_fight.bns_fight())
def test_bns_fights_in_rounds_keep_the_stakes(moves: list[lotn.Move]) -> None:
    """The bns fights of ``test_bns_fight_properties`` (rounds, escapes, assists, maneuvers) too."""
    records, _ = bns_fight._play(moves)
    check_stakes(records)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lotn.game("camarilla"))
def test_camarilla_rounds_keep_the_stakes(moves: list[lotn.Move]) -> None:
    """The camarilla games of ``test_properties`` (rounds, mobs, blood, grapples) too."""
    service, _ = lotn._play(moves, "camarilla")
    check_stakes(list(service.store.read("s")))


def _cases(ruleset: str, records: list[Record]) -> set[str]:
    """The cases the brief asks the generated fights to reach, found in one log."""
    found: set[str] = set()
    state = fold(records)
    for checked in check_stakes(records):
        ch = state.challenges[checked.challenge]
        for event in checked.applied:
            if isinstance(event, DamageTaken) and "Feral Claws" in event.why and "Puissance adds 1" in event.why:
                found.add("feral claws and puissance")
            if isinstance(event, ArmorDamaged):
                found.add("armour")
            if isinstance(event, DamageTaken) and event.character == ch.challenger.who:
                found.add("the defender's own victory")
            if isinstance(event, GrappleStarted) and "grapple" in ch.maneuvers:
                found.add("grapple maneuver")
        if checked.stake.chosen is not None:
            found.add("mob chooses")
        if checked.stake.exceptional:
            found.add("exceptional")
        if any(isinstance(r.source, OverbidSource) and r.status == "stood" for r in ch.retests):
            found.add("overbid retest")
    return found


WANTED = {
    "lotn": {"overbid retest"},
    "camarilla": {"feral claws and puissance", "mob chooses", "overbid retest"},
    "kony": {"armour", "the defender's own victory", "overbid retest"},
    "bns": {"grapple maneuver", "exceptional"},
}


@pytest.mark.parametrize(("ruleset", "case"), [(r, c) for r, cases in sorted(WANTED.items()) for c in sorted(cases)])
def test_the_generated_fights_reach_every_case(ruleset: str, case: str) -> None:
    """The generators above do play the cases that matter: a LotN overbid retest, camarilla
    Feral Claws with Puissance and a mob's choice, a bns grapple maneuver and an exceptional
    success, a kony fight with armour and a defender's own victory condition (``find``: a fight
    that reaches it, searched for rather than hoped for among a sample)."""
    fights = bns_duels() if ruleset == "bns" else duels(ruleset)
    found = find(
        fights,
        lambda records: case in _cases(ruleset, records),
        settings=settings(
            max_examples=2000,
            phases=[Phase.generate],  # the first fight that reaches it: no need to shrink it
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert case in _cases(ruleset, found)
