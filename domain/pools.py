"""Test pools (the ``bns`` ruleset): what a side asks for, and what was recorded.

A side asks with a ``PoolSpec``: an attack (its kind, which names the attribute and the skill, or
the attribute and skill themselves) or a defence (its kind), with a wild card and why. The ruleset
computes the ``Pool`` from the sheet: every part and the total, recorded in the event that set it
and never recomputed, so spending Willpower later does not change the pools of a challenge under
way (``bns:willpower-pools``).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from domain.sheets import Name

AttackKind = Literal["unarmed", "melee", "thrown", "archery", "firearms", "bite", "claw", "mental", "social"]
DefenseKind = Literal["dodge", "parry", "soak", "mental", "social"]
WildCard = Annotated[int, Meta(ge=-20, le=20)]


class PoolSpec(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A test pool as a side asks for it."""

    attack: AttackKind | None = None
    """The kind of attack: it names the attribute and the skill (``bns:unarmed`` …)."""
    attribute: Name | None = None
    """The attribute, when no kind names it (a Mental or Social attack names its own)."""
    skill: Name | None = None
    defense: DefenseKind | None = None
    weapon: Name | None = None
    """A weapon of the sheet's, whose bonus joins the wild card."""
    wildcard: WildCard = 0
    why: Annotated[str, Meta(max_length=200)] = ""
    """Why the wild card (a shotgun, cover): needed when it is not 0."""


class Modifier(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A change to a pool that the rules make (a maneuver's -2, prone +2, an assist's +1)."""

    value: int
    why: str
    rule: str


class Pool(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A test pool as recorded: each part, and the total (never below 0)."""

    total: int
    attack: str | None = None
    defense: str | None = None
    attribute: str | None = None
    attribute_rating: int = 0
    skill: str | None = None
    skill_rating: int = 0
    willpower: int = 0
    """Current Willpower, for a Mental or Social defence."""
    weapon: str | None = None
    weapon_bonus: int = 0
    wildcard: int = 0
    why: str = ""
    modifiers: tuple[Modifier, ...] = ()
    """What the rules add or take away, each with its rule (bns)."""

    @property
    def unskilled(self) -> bool:
        """A pool that calls for a skill the character lacks."""
        return self.skill is not None and self.skill_rating == 0

    def describe(self) -> str:
        """``Physical 7 + Firearms 3 + 2 (shotgun) = 12``."""
        parts: list[tuple[str, int]] = []
        if self.attribute:
            parts.append((self.attribute.capitalize(), self.attribute_rating))
        if self.skill:
            parts.append((self.skill.capitalize(), self.skill_rating))
        if self.willpower:
            parts.append(("Willpower", self.willpower))
        if self.weapon:
            parts.append((self.weapon, self.weapon_bonus))
        if self.wildcard:
            parts.append((f"({self.why})" if self.why else "", self.wildcard))
        parts.extend((f"({m.why})", m.value) for m in self.modifiers)
        text = ""
        for i, (what, n) in enumerate(parts):
            sign = ("- " if n < 0 else "") if i == 0 else (" - " if n < 0 else " + ")
            number = f"{abs(n)} {what}" if what.startswith("(") or not what else f"{what} {abs(n)}"
            text += sign + number.strip()
        return f"{text or '0'} = {self.total}"
