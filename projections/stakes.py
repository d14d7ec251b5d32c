"""What winning a challenge will do, in words (``domain.stakes``): each way it can end, and each
consequence that way, said once here for every surface (the declare form's preview, the cards,
the account), in the third person, by names: "Juan takes 2 aggravated damage: 1 lethal declared;
Feral Claws makes it aggravated; Puissance adds 1.", "Sam loses Brawny", "Sam grapples Juan"."""

from __future__ import annotations

from domain.events import (
    ArmorDamaged,
    ConditionSet,
    DamageTaken,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    TraitLost,
)
from domain.stakes import Stake
from domain.state import Challenge, Consequence, Scene

AS_DECLARED = ", as declared."
"""How ``Dealt.why`` ends when nothing changed the declared damage."""


def stake_words(state: Scene, stake: Stake) -> list[str]:
    """Each consequence of ``stake`` in words, in the order the resolution would apply them; none
    when that way of ending does nothing to anyone."""
    return [consequence_words(state, event) for event in stake.events]


def consequence_words(state: Scene, event: Consequence) -> str:
    """One thing a challenge does to a character, by names."""
    name = state.name_of
    match event:
        case TraitLost():
            return f"{name(event.character)} loses {event.trait}"
        case DamageTaken():
            taken = f"{name(event.character)} takes {event.amount} {event.damage} damage"
            declared = f"{event.amount} {event.damage}{AS_DECLARED}"
            if not event.why or event.why == declared:
                return taken
            return f"{taken}: {event.why}"
        case ArmorDamaged():
            return f"{name(event.character)}'s armour takes {event.amount}"
        case GrappleStarted():
            return f"{name(event.grappler)} grapples {name(event.victim)}"
        case GrappleBroken():
            return f"{name(event.victim)} breaks free of {name(event.grappler)}"
        case KnockedDown():
            return f"{name(event.character)} is knocked down"
        case ConditionSet():
            return f"{name(event.character)} is {event.name.replace('_', ' ')}"
    raise AssertionError(f"no words for {event!r}")  # pragma: no cover: Consequence is closed


def stake_title(state: Scene, ch: Challenge, stake: Stake) -> str:
    """Which way of ending ``stake`` is, as a heading: "If Sam wins", "If Sam wins with an
    exceptional success", "If Juan relents", "If the mob wins and Carl's victory condition is
    chosen", "If it is a draw"; a static or simple test succeeds or fails."""
    name = state.name_of
    challenger, defender = name(ch.challenger.who), name(ch.defender.who)
    if stake.relent:
        title = f"If {defender} relents"
    elif stake.winner == "none":
        return "If it is a draw"
    elif ch.kind != "contested":
        title = f"If {challenger} {'succeeds' if stake.winner == 'challenger' else 'fails'}"
    elif stake.winner == "challenger" and ch.challenger.helpers:
        title = f"If the mob of {challenger} wins"
    else:
        title = f"If {challenger if stake.winner == 'challenger' else defender} wins"
    if stake.exceptional:
        title += " with an exceptional success"
    if stake.chosen is not None:
        title += f" and {name(stake.chosen)}'s victory condition is chosen"
    return title
