"""Character sheets (PROTOCOL section 3), as the ST submits them in ``add_character``.

One ``Sheet`` carries both families: trait rulesets read ``traits`` and ``negative_traits``,
pool rulesets read ``attributes`` and ``skills``. The ruleset checks that its family is there.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

Category = Literal["physical", "social", "mental"]
CATEGORIES: tuple[Category, ...] = ("physical", "social", "mental")

Name = Annotated[str, Meta(min_length=1, max_length=64)]
Ident = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
Count = Annotated[int, Meta(ge=1, le=99)]
Level = Annotated[int, Meta(ge=0, le=99)]


class Traits(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """Trait name to how many times the character has it, per category."""

    physical: dict[Name, Count] = {}
    social: dict[Name, Count] = {}
    mental: dict[Name, Count] = {}

    def of(self, category: Category) -> dict[str, int]:
        return getattr(self, category)  # type: ignore[no-any-return]


class NegativeTraits(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    physical: list[Name] = []
    social: list[Name] = []
    mental: list[Name] = []

    def of(self, category: Category) -> list[str]:
        return getattr(self, category)  # type: ignore[no-any-return]


class Sheet(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A character as the ST enters it. ``id`` is how commands name the character."""

    id: Ident
    name: Name
    npc: bool = False
    willpower: Level = 0
    health: Level = 7
    # trait rulesets (lotn, camarilla)
    traits: Traits | None = None
    negative_traits: NegativeTraits = NegativeTraits()
    abilities: dict[Name, Count] = {}
    powers: list[Name] | dict[Name, Count] = []
    merits: list[Name] | dict[Name, Count] = []
    gestures: list[Name] = []
    immediate_powers: list[Name] = []
    """Powers usable "immediately" or "at any time", before the character's initiative (camarilla)."""
    trait_kinds: dict[Name, Literal["strength", "dexterity", "stamina"]] = {}
    """Overrides the catalog's kind of a Physical Trait (camarilla)."""
    blood: Level = 0
    trait_max: Level | None = None
    """The generational maximum of Physical Traits: blood beyond it lasts one challenge (camarilla)."""
    # pool rulesets (bns, kony)
    attributes: dict[Name, Level] = {}
    skills: dict[Name, Level] = {}
    # what only the ST may read
    notes: str = ""

    def has_power(self, name: str) -> bool:
        return name in self.powers

    def has_merit(self, name: str) -> bool:
        return name in self.merits
