"""A bns turn (docs/rules/bns-complex-scenarios-combat.txt): whose it is, the standard and simple
action it spends, and the holds that limit what a character may do in it."""

from __future__ import annotations

from datetime import datetime

from domain.errors import Rejected
from domain.events import (
    GrappleBroken,
    SceneEvent,
)
from domain.rules.bns.catalog import rating
from domain.rules.bns.state import kept, round_kept
from domain.state import Character, RoundState, Scene

BUDGET = {"standard": 1, "simple": 1}


def rated(c: Character, attribute: str) -> int:
    found = rating(c.sheet, attribute)
    return found[1] if found else 0


def turn_of(state: Scene) -> RoundState:
    r = state.round
    if r is None or r.phase != "acting":
        raise Rejected("no_round", "No round is under way: the Storyteller starts one.", "bns:round")
    return r


def check_turn(state: Scene, me: Character, *, early: bool = False) -> RoundState:
    """Whether ``me`` may act now: on its turn, right after its fair escape failed, or (``early``)
    before its initiative with Burst of Speed."""
    r = turn_of(state)
    escape = me.conditions.fair_escape
    if escape == "escaped":
        raise Rejected("escaped", f"{me.name} has fair escaped: out of the fight.", "bns:fair-escape-hold")
    if escape in ("declared", "held"):
        raise Rejected(
            "escaping",
            f"{me.name} is trying to fair escape: no other action until the attempt fails.",
            "bns:fair-escape-hold",
        )
    if (me.id in r.turn and not me.turn_done) or round_kept(r).interrupt == me.id or early:
        return r
    now = ", ".join(state.name_of(w) for w in r.turn) or "nobody"
    order = [w for g in r.order for w in g]
    later = me.id in order and r.turn and r.turn[0] in order and order.index(me.id) > order.index(r.turn[0])
    when = f"{me.name} acts on initiative {r.values.get(me.id, '-')}" if later else f"{me.name} has had this turn"
    raise Rejected("not_your_turn", f"It is not {me.name}'s turn: now acting {now}; {when}.", "bns:round")


def spend(me: Character, spends: str, rule: str) -> None:
    if spends == "both":
        if kept(me).budget.get("standard", 0) < 1 or kept(me).budget.get("simple", 0) < 1:
            raise Rejected("no_action_left", f"{me.name} needs both a standard and a simple action for that.", rule)
        return
    if kept(me).budget.get(spends, 0) < 1:
        hint = " (a simple action cannot be traded for a standard one)" if spends == "standard" else ""
        raise Rejected("no_action_left", f"{me.name} has no {spends} action left this round{hint}.", rule)


def still_to_act(state: Scene, who: str) -> bool:
    """Whether ``who`` has its turn still to come in the universal round or Rage round under way."""
    r = state.round
    if r is None or r.phase != "acting" or who in r.turn:
        return False
    order = [w for g in r.order for w in g]
    now = [order.index(w) for w in r.turn if w in order]
    if who not in order or not now or order.index(who) <= max(now):
        return False
    return r.turn_phase != "extra" or kept(state.characters[who]).rage >= r.extra


def awake(me: Character, now: datetime | None) -> None:
    out = me.conditions.marked("unconscious")
    if out is not None and (out.until is None or now is None or now < out.until):
        raise Rejected("unconscious", f"{me.name} is unconscious.", "bns:knock-out")


def holders(state: Scene, who: str) -> list[str]:
    return [c.id for c in state.roster() if who in c.conditions.grappling]


def released(state: Scene, me: Character, why: str) -> list[SceneEvent]:
    """The grapples ``me`` relinquishes by acting against another or moving more than a step
    (bns:grapple-release). Nothing else breaks one: changing forms does not (bns:grapple-forms)."""
    return [
        GrappleBroken(grappler=me.id, victim=v, why=f"{me.name} {why}: the grapple is relinquished.")
        for v in me.conditions.grappling
    ]
