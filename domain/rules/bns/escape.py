"""The bns fair escape, a hold across the round (bns:fair-escape-declare …
bns:fair-escape-automatic): declared first thing on one's turn, failed at once or open to intents
to attack until the turn ends, held, failed by an attack, or escaped when the round (or the Rage
round) is over."""

from __future__ import annotations

from collections.abc import Callable

from domain.errors import Rejected
from domain.events import (
    AttackIntended,
    FairEscapeDeclared,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    SceneEvent,
)
from domain.rules.bns.catalog import options
from domain.rules.bns.state import kept, round_kept
from domain.rules.bns.turn import awake, holders, still_to_act, turn_of
from domain.state import Character, Scene


def fails_escape(state: Scene, who: str, target: Character) -> bool:
    """Whether an attack by ``who`` fails ``target``'s fair escape (option ``escape_failed_by``)."""
    if target.conditions.fair_escape not in ("declared", "held"):
        return False
    return options(state).escape_failed_by == "any" or who in target.conditions.escape_held_by


def escape(state: Scene, who: str) -> list[SceneEvent]:
    """Declared first thing on one's turn; failed at once if there is no way out or one was
    attacked before; succeeded at once if nobody could attack; else open to intents until the
    turn ends."""
    me = state.characters[who]
    r = turn_of(state)
    awake(me, state.last_at)
    if me.conditions.fair_escape in ("declared", "held", "escaped"):
        raise Rejected("escaping", f"{me.name} is already escaping.", "bns:fair-escape-declare")
    if me.conditions.fair_escape == "failed":
        raise Rejected(
            "escape_failed",
            f"{me.name}'s fair escape has failed this round; try again next round.",
            "bns:fair-escape-hold",
        )
    if me.id not in r.turn or me.turn_done:
        raise Rejected(
            "not_your_turn",
            f"{me.name} declares a fair escape at the start of their own initiative.",
            "bns:fair-escape-declare",
        )
    if me.acted or not any(kept(me).budget.values()):
        raise Rejected(
            "escape_first",
            f"{me.name} has acted this turn: a fair escape is declared first thing, with an action still to spend.",
            "bns:fair-escape-declare",
        )
    declared = FairEscapeDeclared(
        character=who, why=f"{me.name} raises a hand: a fair escape.", rule="bns:fair-escape-declare"
    )
    if me.conditions.grappled_by or holders(state, who) or me.conditions.marked("no_exit"):
        why = "grappled" if not me.conditions.marked("no_exit") else "there is no way out"
        return [
            declared,
            FairEscapeFailed(character=who, why=f"{me.name} cannot leave: {why}.", rule="bns:fair-escape-no-exit"),
        ]
    attacked = next(
        (
            ch
            for ch in state.in_order()
            if ch.seq >= round_kept(r).phase_seq and who in ch.targets and ch.category == "physical"
        ),
        None,
    )
    if attacked is not None:
        by = state.name_of(attacked.challenger.who)
        why = f"{me.name} was attacked before this initiative (by {by}): the escape fails."
        return [
            declared,
            FairEscapeFailed(character=who, challenge=attacked.id, why=why, rule="bns:fair-escape-blocked"),
        ]
    if not could_intend(state, who):
        why = f"Nobody can attack {me.name} this round: {me.name} escapes."
        return [declared, FairEscapeSucceeded(character=who, why=why, rule="bns:fair-escape-automatic")]
    return [declared]


def could_intend(state: Scene, target: str) -> list[str]:
    """Who has not acted yet this round (or this Rage round), and so may declare intent to attack
    ``target``: still to act, awake, free, still in the fight."""
    return [
        c.id
        for c in state.roster()
        if c.id != target
        and c.present
        and still_to_act(state, c.id)
        and c.conditions.fair_escape not in ("escaped", "declared", "held")
        and not c.conditions.grappled_by
        and not _out(c, state)
    ]


def _out(c: Character, state: Scene) -> bool:
    try:
        awake(c, state.last_at)
    except Rejected:
        return True
    return False


def intend(state: Scene, who: str, target: str) -> AttackIntended:
    r = turn_of(state)
    me, them = state.characters[who], state.characters[target]
    if round_kept(r).escape_window != target:
        raise Rejected(
            "no_escape_window",
            f"{them.name} is not declaring a fair escape now: intent is announced while the escape is declared.",
            "bns:fair-escape-intent",
        )
    if who not in could_intend(state, target):
        raise Rejected(
            "already_acted",
            f"{me.name} cannot announce an attack: only those who have not acted yet this round may.",
            "bns:fair-escape-intent",
        )
    if who in them.conditions.escape_held_by:
        raise Rejected("already_intended", f"{me.name} has already announced an attack.", "bns:fair-escape-intent")
    return AttackIntended(character=who, target=target, rule="bns:fair-escape-intent")


def turn_ended(state: Scene, who: str) -> list[SceneEvent]:
    """The escaper's turn is over: the intent window closes; held, or escaped at once."""
    me = state.characters[who]
    if me.conditions.fair_escape != "declared":
        return []
    intenders = list(me.conditions.escape_held_by)
    if not intenders:
        why = f"Nobody declared intent to attack {me.name}: {me.name} escapes."
        return [FairEscapeSucceeded(character=who, why=why, rule="bns:fair-escape-intent")]
    names = ", ".join(state.name_of(w) for w in intenders)
    why = f"{me.name}'s escape is held by {names}: an attack later in the round fails it."
    return [FairEscapeHeld(character=who, by=intenders, why=why, rule="bns:fair-escape-hold")]


def phase_ended(state: Scene) -> list[SceneEvent]:
    """The universal round or a Rage round is over: escapes held through it succeed (option
    ``escape_resolves``: ``round``)."""
    r = state.round
    if r is None or options(state).escape_resolves != "round":
        return []
    phase = r.extra if r.turn_phase == "extra" else 0
    return _escaped(state, lambda c: c.conditions.escape_phase == phase, "this round")


def round_ending(state: Scene) -> list[SceneEvent]:
    return _escaped(state, lambda c: True, "the turn")


def _escaped(state: Scene, which: Callable[[Character], bool], span: str) -> list[SceneEvent]:
    return [
        FairEscapeSucceeded(
            character=c.id,
            why=f"Nobody attacked {c.name} through {span}: after everyone acted, {c.name} escapes.",
            rule="bns:fair-escape-hold",
        )
        for c in state.roster()
        if c.conditions.fair_escape in ("held", "declared") and which(c)
    ]
