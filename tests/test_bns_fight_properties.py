"""Properties over random bns fights in rounds (bns:round, bns:fair-escape-hold, bns:maneuvers):
whatever is played, no action budget is exceeded or goes below zero; within a round an escape never
goes back from escaped or failed; the escaped are never targeted; damage is max(0, base + the
exceptional point - the maneuver's reduction); and the properties of single challenges still hold
with rounds (the live state equals the fold, a refusal appends nothing, no pool or sealed sign
reaches another side early)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.events import ChallengeDeclared, ChallengeResolved, DamageTaken, RoundStarted
from domain.log import Recorded
from domain.rules.bns.combat import MANEUVERS
from domain.state import Scene
from tests.test_bns_properties import (
    AT0,
    PEOPLE,
    Move,
    _apply,
    _check_grades,
    _check_pools_frozen,
    _check_secrets,
    _play,
    _service,
    next_move,
)

ACTIONS = ["fair_escape", "move", "prone", "stand", "draw", "trade", "clear", "other"]
FIGHT_MANEUVERS = ["knock_down", "grapple", "hamstring", "blinding_attack", "targeted_attack", "disarm"]


@st.composite
def fight_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    r = state.round
    roll = draw(st.integers(0, 9))
    if r is None or r.phase == "over":
        if roll < 6:
            return {"type": "start_round", "actor": "st"}
        return draw(next_move(state))
    acting = list(r.turn) or PEOPLE
    who = draw(st.sampled_from(acting * 3 + PEOPLE))
    actor = "st" if who == "b" else who
    mine: dict[str, Any] = {"character": who} if who == "b" else {}
    if roll == 0:
        return {"type": "end_round", "actor": "st"}
    if roll == 1:
        return {"type": "end_turn", "actor": "st", "character": who}
    if roll in (2, 3):
        kind = draw(st.sampled_from(ACTIONS))
        action: dict[str, Any] = {"kind": kind}
        if kind == "move":
            action["steps"] = draw(st.integers(0, 4))
        if kind == "clear":
            action["clears"] = draw(st.sampled_from(["blinded", "hamstrung"]))
        return {"type": "declare_action", "actor": actor, **mine, "action": action}
    if roll == 4:
        if r.escape_window is not None:
            return {"type": "intend_attack", "actor": actor, **mine, "target": r.escape_window}
        to = draw(st.sampled_from([p for p in PEOPLE if p != who]))
        return {"type": "assist", "actor": actor, **mine, "kind": "attacker", "to": to, "benefit": "plus_one"}
    if roll == 5:
        offers = [(c.id, a.offer) for c in state.roster() for a in c.aids if a.status == "offered"]
        if offers:
            target, offer = draw(st.sampled_from(offers))
            body = {"type": "answer_assist", "actor": "st" if target == "b" else target, "offer": offer}
            return {**body, **({"character": "b"} if target == "b" else {}), "accept": draw(st.booleans())}
    if roll in (6, 7):  # the one acting attacks, often with a maneuver
        target = draw(st.sampled_from([p for p in PEOPLE if p != who]))
        body = {
            "type": "declare",
            "actor": actor,
            **mine,
            "challenge": draw(st.sampled_from(["x", "y", "z", "w"])),
            "kind": "contested",
            "targets": [target],
            "category": "physical",
            "pool": {"attack": "unarmed"},
            "effect": {"kind": "damage", "amount": draw(st.integers(0, 4))},
            "range": draw(st.integers(0, 3)),
        }
        if draw(st.booleans()):
            body["maneuver"] = draw(st.sampled_from(FIGHT_MANEUVERS))
        return body
    return draw(next_move(state))


@st.composite
def bns_fight(draw: st.DrawFn) -> list[Move]:
    service = _service()
    moves: list[Move] = []
    for _ in range(draw(st.integers(0, 80))):
        body = draw(fight_move(service.state("s")))
        entropy = draw(st.integers(0, 2**256 - 1))
        moves.append((body, 1, entropy))
        _apply(service, len(moves), body, entropy, AT0 + timedelta(seconds=len(moves)))
    return moves


def _check_budgets(states: list[Scene]) -> None:
    for state in states:
        for c in state.roster():
            assert all(n >= 0 for n in c.budget.values()), "an action budget below zero"
            assert c.budget.get("standard", 0) <= 1, "more than one standard action"
            assert c.budget.get("standard", 0) + c.budget.get("simple", 0) <= 2, "more than two actions"


def _check_escapes(records: list[Recorded], states: list[Scene]) -> None:
    seen: dict[str, str] = {}
    for state in states:
        number = state.round.number if state.round else 0
        for c in state.roster():
            key = f"{number}:{c.id}"
            was, now = seen.get(key), c.conditions.fair_escape
            if was in ("escaped", "failed"):
                assert now == was, f"an escape went back from {was} to {now}"
            if now is not None:
                seen[key] = now
    escaped: set[str] = set()
    for record in records:
        event = record.event
        if isinstance(event, RoundStarted) and event.first:
            escaped.clear()
        if isinstance(event, ChallengeDeclared):
            assert not set(event.targets) & escaped, "an escaped character was targeted"
        if record.type == "fair_escape_succeeded":
            escaped.add(event.character)  # type: ignore[union-attr]


def _check_damage(records: list[Recorded], state: Scene) -> None:
    resolved = {r.event.challenge: r.event for r in records if isinstance(r.event, ChallengeResolved)}
    for record in records:
        event = record.event
        if not isinstance(event, DamageTaken) or event.challenge not in resolved:
            continue
        ch = state.challenges[event.challenge]
        base = ch.effect.amount if ch.effect is not None and hasattr(ch.effect, "amount") else 0
        reduction = sum(MANEUVERS[name].reduction for name in ch.maneuvers)
        exceptional = 1 if resolved[event.challenge].exceptional else 0
        if ch.rulings:
            continue
        assert event.amount == max(0, base + exceptional - reduction), "damage is base + exceptional - reduction"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bns_fight())
def test_random_bns_fights_keep_the_rules(moves: list[Move]) -> None:
    records, states = _play(moves, frames=True)
    if not states:
        return
    _check_budgets(states)
    _check_escapes(records, states)
    _check_damage(records, states[-1])
    _check_grades(records, states[-1])
    _check_pools_frozen(states)
    _check_secrets(records, states)


def test_the_generator_reaches_rounds_and_escapes() -> None:
    """The fight generator plays rounds: a round starts, an escape is declared and held."""
    zero = 0
    moves: list[Move] = [
        ({"type": "start_round", "actor": "st"}, 1, zero),
    ]
    _, states = _play(moves)
    r = states[-1].round
    assert r is not None and r.phase == "acting" and r.turn
    first = r.turn[0]
    body: dict[str, Any] = {"type": "declare_action", "actor": "st" if first == "b" else first}
    if first == "b":
        body["character"] = "b"
    moves.append(({**body, "action": {"kind": "fair_escape"}}, 1, zero))
    _, states = _play(moves)
    assert states[-1].characters[first].conditions.fair_escape in ("declared", "escaped")
