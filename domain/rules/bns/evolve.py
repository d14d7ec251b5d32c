"""The reducers of the events only bns records: actions taken from the budget, maneuvers, fair
escapes declared and held, assistance offered and answered. They write what bns keeps
(``domain.rules.bns.state``) beside the character's shared fields; registered with ``on`` like
every reducer (importing this package registers them)."""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from domain.carried import Mark
from domain.change import Change, on
from domain.events import (
    ActionTaken,
    AssistAnswered,
    AssistOffered,
    FairEscapeDeclared,
    FairEscapeHeld,
    ManeuverUsed,
)
from domain.log import Place
from domain.rules.bns.state import BnsCharacter, kept, round_kept
from domain.state import Aid, Challenge, Character, Side


def _keep(s: Change, who: str, change: Callable[[BnsCharacter], BnsCharacter]) -> None:
    """Change what bns keeps on ``who``."""
    s.character(who, lambda c: replace(c, slot=change(kept(c))))


@on(ActionTaken)
def _action_taken(s: Change, e: ActionTaken, r: Place) -> None:
    action = e.action

    def taken(c: Character) -> Character:
        mine = kept(c)
        budget = dict(mine.budget)
        if e.spent is not None:
            budget[e.spent] = max(0, budget.get(e.spent, 0) - 1)
        if action is not None and action.kind == "trade":  # a standard action traded for a simple one
            budget["simple"] = budget.get("simple", 0) + 1
        conditions = c.conditions
        if action is not None:
            conditions = replace(conditions, moved_steps=conditions.moved_steps + action.steps)
            if action.kind == "clear" and action.clears:
                conditions = replace(conditions, marks=tuple(_worked(m, action.clears) for m in conditions.marks))
        return replace(c, slot=replace(mine, budget=budget), acted=True, conditions=conditions)

    s.character(e.character, taken)


def _worked(mark: Mark, name: str) -> Mark:
    """A simple action spent clearing ``name``."""
    return replace(mark, clears_after=max(0, mark.clears_after - 1)) if mark.name == name else mark


@on(ManeuverUsed)
def _maneuver_used(s: Change, e: ManeuverUsed, r: Place) -> None:
    number = s.round.key if s.round is not None else 0

    def used(mine: BnsCharacter) -> BnsCharacter:
        aids = mine.aids
        if e.paid == "assist":  # the accepted maneuver assistance is used up
            spent = next((a for a in aids if (a.benefit, a.status) == ("maneuver", "accepted")), None)
            aids = tuple(a for a in aids if a is not spent)
        free_used = (*mine.free_used, e.free_list) if e.free_list else mine.free_used
        return replace(mine, maneuver_round=number, free_used=free_used, aids=aids)

    _keep(s, e.character, used)


@on(FairEscapeDeclared)
def _escape_declared(s: Change, e: FairEscapeDeclared, r: Place) -> None:
    s.conditions(e.character, fair_escape="declared", escape_held_by=())
    if s.round is not None:  # the window's clock starts now (``domain.deadlines``)
        s.round = replace(s.round, slot=replace(round_kept(s.round), escape_window=e.character), step_at=s.stamp())


@on(FairEscapeHeld)
def _escape_held(s: Change, e: FairEscapeHeld, r: Place) -> None:
    phase = s.round.extra if s.round is not None and s.round.turn_phase == "extra" else 0
    s.conditions(e.character, fair_escape="held", escape_held_by=tuple(e.by), escape_phase=phase)
    if s.round is not None:
        mine = round_kept(s.round)
        closed = mine.closed(e.character)
        if closed is not mine:
            s.round = replace(s.round, slot=closed)


@on(AssistOffered)
def _assist_offered(s: Change, e: AssistOffered, r: Place) -> None:
    if e.kind == "defender":  # the shield becomes the attack's target
        s.challenge(e.challenge, lambda ch: _shielded(ch, e.character))
        number = s.round.number if s.round is not None else 0
        _keep(s, e.character, lambda mine: replace(mine, shielded=number))
        return
    assert e.benefit is not None
    aid = Aid(offer=r.seq, by=e.character, benefit=e.benefit, at=s.stamp())
    _keep(s, e.to, lambda mine: replace(mine, aids=(*mine.aids, aid)))


@on(AssistAnswered)
def _assist_answered(s: Change, e: AssistAnswered, r: Place) -> None:
    status = "accepted" if e.accept else "refused"
    _keep(
        s,
        e.character,
        lambda mine: replace(
            mine, aids=tuple(replace(a, status=status) if a.offer == e.offer else a for a in mine.aids)
        ),
    )


def _shielded(ch: Challenge, who: str) -> Challenge:
    defender = Side(who=who, category=ch.defender.category)
    return replace(ch, targets=(who,), defender=defender, status="awaiting_response")
