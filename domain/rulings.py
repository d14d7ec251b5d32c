"""Disputes and rulings: history is never rewritten; a ruling adds the events that set it right.

- ``dispute``: any participant (a character of the scene, or the ST) names an event and a reason.
- ``rule`` (ST): ``uphold`` the event; ``overturn`` a resolved challenge's outcome (the other side
  wins); or ``amend`` with a ``correction``: a challenge's winner, or a character's changes.

Correcting an outcome undoes what the resolution did (Traits lost are restored, damage healed,
a grapple released or restored, a prone character stood up), records the corrected outcome, and
applies the new one (the new loser's Traits at risk, the challenger's effect if it now wins).
Challenges resolved since, that involve the same characters, stand as played: the ruling lists
them, and each can be ruled on in its turn. Losses on the way (an overbid's) are not the
outcome's and are not undone. What undoes each consequence is declared beside it
(``FACTS.undone_by``, ``domain.events``); ``UNDO`` holds one policy for each, checked against
those declarations when this module loads.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from domain.challenge import effects
from domain.commands import Dispute, Rule
from domain.context import Draft
from domain.errors import Rejected
from domain.events import (
    ArmorDamaged,
    ArmorRestored,
    CharacterAdjusted,
    ConditionCleared,
    ConditionSet,
    DamageHealed,
    DamageTaken,
    DisputeOpened,
    Event,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    Leader,
    OutcomeCorrected,
    ProneCleared,
    RulingIssued,
    SceneEvent,
    TraitLost,
    TraitRestored,
)
from domain.log import Recorded
from domain.rules import ruleset_for
from domain.scene import check_changes
from domain.state import NARRATOR, Challenge, Outcome, Scene
from domain.state import challenge_words as challenge_words  # where the pages import it from


def _cite(state: Scene, step: str = "ruling") -> str:
    """The rule the scene's ruleset cites for a ruling's ``step`` (its adjudication by default)."""
    cites = ruleset_for(state.ruleset).cites
    return cites.get(step, cites["adjudication"])


def dispute(d: Draft, cmd: Dispute) -> None:
    if d.actor != NARRATOR and d.actor not in d.state.characters:
        raise Rejected("forbidden", "Only the Storyteller and the scene's characters can dispute.", _cite(d.state))
    subject = _subject(d, cmd.event)
    open_already = [x.id for x in d.state.disputes if x.event == subject.seq and x.by == d.actor and x.status == "open"]
    if open_already:
        raise Rejected("already_disputed", f"You already dispute {step_words(d.state, subject.seq)}.")
    d.add(DisputeOpened(event=subject.seq, by=d.actor, reason=cmd.reason))


def rule(d: Draft, cmd: Rule) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", "Only the Storyteller rules on a dispute.", _cite(d.state))
    subject = _subject(d, cmd.event)
    disputes = [x.id for x in d.state.disputes if x.event == subject.seq and x.status == "open"]
    ruling = d.state.version + 1

    def issued(
        why: str, ch: Challenge | None = None, winner: Leader | None = None, later: list[str] | None = None
    ) -> RulingIssued:
        return RulingIssued(
            event=subject.seq,
            decision=cmd.decision,
            reason=cmd.reason,
            disputes=disputes,
            challenge=ch.id if ch else None,
            winner=winner,
            later=later or [],
            why=why,
            rule=_cite(d.state),
        )

    correction = cmd.correction
    if cmd.decision == "uphold":
        if correction is not None:
            raise Rejected("bad_correction", "An upheld event needs no correction; amend instead.", _cite(d.state))
        d.add(issued(f"Upheld: {step_words(d.state, subject.seq)} stands as played."))
        return
    if cmd.decision == "overturn":
        if correction is not None:
            raise Rejected(
                "bad_correction", "Overturn corrects the winner by itself; amend to say more.", _cite(d.state)
            )
        ch = _resolved_challenge(d.state, subject)
        if ch.outcome is None or ch.outcome.winner == "none":
            raise Rejected("needs_winner", "A draw has no other side to win; amend it with a winner.", _cite(d.state))
        winner: Leader = "defender" if ch.outcome.winner == "challenger" else "challenger"
        _correct(d, ch, winner, issued, ruling)
        return
    if correction is None or (
        correction.winner is None and correction.exceptional is None and correction.changes is None
    ):
        raise Rejected(
            "bad_correction",
            'Amend with a "correction": a "winner" (and its grade, "exceptional"), or a "character" and "changes".',
            _cite(d.state),
        )
    if correction.winner is not None or correction.exceptional is not None:
        ch = _resolved_challenge(d.state, subject)
        was = ch.outcome or Outcome(winner="none")
        winner = correction.winner or was.winner
        exceptional = correction.exceptional if correction.exceptional is not None else False
        if exceptional and winner != "challenger":
            raise Rejected(
                "bad_correction", "Only the attacker's success can be exceptional.", _cite(d.state, "attacker_only")
            )
        if (winner, exceptional) == (was.winner, was.exceptional):
            raise Rejected("bad_correction", "That is already the outcome; uphold instead.", _cite(d.state))
        _correct(d, ch, winner, issued, ruling, exceptional)
    if correction.changes is not None:
        who = correction.character
        if who is None or who not in d.state.characters:
            raise Rejected("bad_correction", 'Name the "character" whose sheet the ruling changes.', _cite(d.state))
        check_changes(d.state.characters[who], correction.changes)
        if correction.winner is None:
            why = f"Amended: {d.state.name_of(who)} is corrected."
            d.add(issued(why))
        reason = f"the ruling at step {ruling} on {step_words(d.state, subject.seq)}: {cmd.reason}"
        d.add(CharacterAdjusted(character=who, changes=correction.changes, reason=reason, ruling=ruling))


def _subject(d: Draft, seq: int) -> Recorded:
    subject = d.ctx.subject
    if seq > d.state.version or subject is None or subject.seq != seq:
        raise Rejected("unknown_event", f"There is no step {seq} in this scene (it has {d.state.version} steps).")
    return subject


def _resolved_challenge(state: Scene, subject: Recorded) -> Challenge:
    cid = getattr(subject.event, "challenge", None)
    ch = state.challenges.get(cid) if isinstance(cid, str) else None
    if ch is None or ch.status != "resolved":
        raise Rejected(
            "not_overturnable",
            f"Step {subject.seq} is not part of a resolved challenge; only an outcome can be overturned "
            "(amend a character instead).",
            _cite(state),
        )
    return ch


def _correct(
    d: Draft,
    ch: Challenge,
    winner: Leader,
    issued: Callable[..., RulingIssued],
    ruling: int,
    exceptional: bool = False,
) -> None:
    state = d.state
    people = {ch.challenger.who, ch.defender.who} - {NARRATOR}
    later = [
        other.id
        for other in state.in_order()
        if other.id != ch.id
        and other.status == "resolved"  # withdrawn or still open: nothing was played to stand
        and (other.resolved_seq or 0) > (ch.resolved_seq or 0)
        and people & ({other.challenger.who, other.defender.who})
    ]
    why = f"{challenge_words(state, ch)}: {_instead(state, ch, winner, exceptional)}"
    if later:
        since = sorted((state.challenges[cid] for cid in later), key=lambda other: other.seq)
        listed = "; ".join(f"{challenge_words(state, other)} (step {other.seq})" for other in since)
        why += f" Challenges since, involving them, stand as played: {listed}."
    d.add(issued(why, ch, winner, sorted(later)))
    d.add(*_undo(d.state, ch))
    d.add(
        OutcomeCorrected(
            challenge=ch.id, winner=winner, ruling=ruling, why=why, rule=_cite(d.state), exceptional=exceptional
        )
    )
    corrected = d.state.challenges[ch.id]
    rules = ruleset_for(d.state.ruleset)
    d.add(*rules.losses(d.state, corrected, winner))
    d.add(*rules.settled(d.state, corrected, winner))
    d.add(*effects(d.state, corrected, winner))


def step_words(state: Scene, seq: int) -> str:
    """A step of the log in words where the scene knows what it was (a challenge's declaration or
    its result), else by its number: a dispute or a ruling names what it is about."""
    for ch in state.challenges.values():
        if ch.resolved_seq == seq:
            return f"the result of {challenge_words(state, ch)} (step {seq})"
        if ch.seq == seq:
            return f"{challenge_words(state, ch)} (step {seq})"
    return f"step {seq}"


def _instead(state: Scene, ch: Challenge, winner: Leader, exceptional: bool) -> str:
    """The corrected outcome against the one first given, in words ("Bob wins instead of a draw.")."""
    names = {"challenger": state.name_of(ch.challenger.who), "defender": state.name_of(ch.defender.who)}
    was = ch.outcome.winner if ch.outcome else "none"
    if was == winner:
        graded = "an exceptional success" if exceptional else "a normal success"
        return f"{names[winner]} wins with {graded}, not the grade first given."
    if winner == "none":
        return f"a draw instead of a win for {names[was]}."
    return f"{names[winner]} wins instead of {'a draw' if was == 'none' else names[was]}."


def _undo(state: Scene, ch: Challenge) -> list[SceneEvent]:
    """The events that take back what the challenge's resolution did, as far as it still holds."""
    undone: list[SceneEvent] = []
    for event in reversed(ch.consequences):
        back = UNDO[type(event)](state, ch, event)
        if back is not None:
            undone.append(back)
    return undone


# -- what undoes each consequence (the event its type declares, ``FACTS.undone_by``) ----------


def _trait_back(state: Scene, ch: Challenge, e: TraitLost) -> TraitRestored | None:
    if not any(lost.trait == e.trait for lost in state.characters[e.character].lost):
        return None
    why = f"{state.name_of(e.character)} gets {e.trait} back: the ruling takes back the loss."
    return TraitRestored(character=e.character, trait=e.trait, category=e.category, challenge=ch.id, why=why)


def _armor_back(state: Scene, ch: Challenge, e: ArmorDamaged) -> ArmorRestored | None:
    lost = state.characters[e.character].armor_lost
    if not lost:
        return None
    return ArmorRestored(character=e.character, amount=min(e.amount, lost), challenge=ch.id)


def _healed(state: Scene, ch: Challenge, e: DamageTaken) -> DamageHealed | None:
    taken = getattr(state.characters[e.character].wounds, e.damage)
    if not taken:
        return None
    return DamageHealed(character=e.character, amount=min(e.amount, taken), damage=e.damage, challenge=ch.id)


def _released(state: Scene, ch: Challenge, e: GrappleStarted) -> GrappleBroken | None:
    if state.characters[e.victim].conditions.grappled_by != e.grappler:
        return None
    return GrappleBroken(grappler=e.grappler, victim=e.victim, challenge=ch.id)


def _held_again(state: Scene, ch: Challenge, e: GrappleBroken) -> GrappleStarted | None:
    if state.characters[e.victim].conditions.grappled_by is not None:
        return None
    return GrappleStarted(grappler=e.grappler, victim=e.victim, challenge=ch.id)


def _stood_up(state: Scene, ch: Challenge, e: KnockedDown) -> ProneCleared | None:
    if not state.characters[e.character].conditions.prone:
        return None
    return ProneCleared(character=e.character, challenge=ch.id)


def _cleared(state: Scene, ch: Challenge, e: ConditionSet) -> ConditionCleared | None:
    held = state.characters[e.character].conditions
    if not (held.prone if e.name == "prone" else held.marked(e.name) is not None):
        return None
    why = "The ruling undoes the outcome that set it."
    return ConditionCleared(character=e.character, name=e.name, challenge=ch.id, why=why, rule=e.rule)


UNDO: dict[type[Event], Callable[[Scene, Challenge, Any], SceneEvent | None]] = {
    TraitLost: _trait_back,
    ArmorDamaged: _armor_back,
    DamageTaken: _healed,
    GrappleStarted: _released,
    GrappleBroken: _held_again,
    KnockedDown: _stood_up,
    ConditionSet: _cleared,
}
"""How a ruling undoes each consequence a resolution keeps (``Challenge.consequences``), as far as
it still holds: one policy for each event type that declares ``FACTS.undone_by``, giving that event."""

_UNDECLARED = set(UNDO) ^ {kind for kind in typing.get_args(SceneEvent) if kind.FACTS.undone_by}
assert not _UNDECLARED, f"consequences without an undoing, or undoings of no consequence: {_UNDECLARED}"
