"""What a character carries from one scene of a game night to the next.

Laws of the Night: a Trait lost in a test is lost "for the duration of the session (usually the
rest of the evening)"; spent ability levels, Willpower, damage, blood, lasting conditions and the
waits after a failed challenge outlive a scene too. ``Carried`` is that state, as a scene hands it
back to its night (``character_left``) and a night hands it to the next scene
(``character_entered``), so that each stream still folds on its own.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import msgspec

from domain.sheets import Category


class Lost(msgspec.Struct, frozen=True, gc=False):
    trait: str
    category: Category


class Wounds(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    bashing: int = 0
    lethal: int = 0
    aggravated: int = 0

    @property
    def total(self) -> int:
        return self.bashing + self.lethal + self.aggravated


class Mark(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A condition on a character (bns): blinded, hamstrung, unconscious, no way out …"""

    name: str
    by: str = ""
    until: datetime | None = None
    clears_after: int = 0
    """Simple actions still to spend clearing it (0: it does not clear that way)."""
    rule: str = ""


class Carried(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A character's state that outlives a scene: everything a sheet starts the night with, as it
    stands now."""

    lost: tuple[Lost, ...] = ()
    """Traits lost tonight, in the order they were lost."""
    abilities: dict[str, int] = {}
    """Ability levels left (spent on retests)."""
    willpower: int = 0
    """Willpower left."""
    wounds: Wounds = Wounds()
    blood_spent: int = 0
    marks: tuple[Mark, ...] = ()
    """Conditions that outlast the scene (blinded, hamstrung, staked …); where a character stands
    (prone, grappled, escaping) stays behind."""
    waits: dict[str, datetime] = {}
    """Waits still running on challenges this character failed or was the target of, by repeat key,
    until when (lotn:five-minute-wait, bns:retry-immunity)."""


def changed(before: Carried, after: Carried) -> dict[str, object]:
    """What a correction did to a carried state, as the fields of an ``Adjust``'s ``Changes``
    (empty when nothing a correction can touch changed)."""
    fields: dict[str, object] = {}
    if after.willpower != before.willpower:
        fields["willpower"] = after.willpower - before.willpower
    abilities = {
        name: after.abilities.get(name, 0) - before.abilities.get(name, 0)
        for name in sorted({*before.abilities, *after.abilities})
        if after.abilities.get(name, 0) != before.abilities.get(name, 0)
    }
    if abilities:
        fields["abilities"] = abilities
    damage = {
        kind: getattr(after.wounds, kind) - getattr(before.wounds, kind)
        for kind in ("bashing", "lethal", "aggravated")
        if getattr(after.wounds, kind) != getattr(before.wounds, kind)
    }
    if damage:
        fields["damage"] = damage
    was, now = Counter(lost.trait for lost in before.lost), Counter(lost.trait for lost in after.lost)
    if restored := sorted((was - now).elements()):
        fields["restore_traits"] = restored
    if newly := sorted((now - was).elements()):
        fields["lose_traits"] = newly
    held, holds = {mark.name for mark in before.marks}, {mark.name for mark in after.marks}
    if holds - held:
        fields["set_conditions"] = sorted(holds - held)
    if held - holds:
        fields["clear_conditions"] = sorted(held - holds)
    return fields
