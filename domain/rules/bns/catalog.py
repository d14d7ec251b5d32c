"""Data the bns rules consult (docs/rules/bns-*.txt): the attributes and their categories, which
attribute and skill each kind of attack and defence uses, and the rule that says so. The code
only reads these tables; a chronicle extends them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from domain.pools import DefenseKind
from domain.rules.bns.options import BnsOptions
from domain.sheets import Category, Sheet
from domain.state import Scene

ATTRIBUTES: dict[str, Category] = {
    "strength": "physical",
    "dexterity": "physical",
    "stamina": "physical",
    "charisma": "social",
    "manipulation": "social",
    "composure": "social",
    "intelligence": "mental",
    "wits": "mental",
    "resolve": "mental",
}
"""The nine attributes; a sheet may give the three category ratings instead (``physical`` …)."""
RATINGS: frozenset[str] = frozenset({"physical", "social", "mental"})


class Attack(NamedTuple):
    category: Category
    attribute: str | None
    """None: the attacker names it (a Mental or Social attack: the appropriate one)."""
    skill: str | None
    rule: str
    weapon: str | None = None
    """The kind of weapon it needs (a thrown attack: a throwable one)."""


ATTACKS: dict[str, Attack] = {
    "unarmed": Attack("physical", "strength", "brawl", "bns:unarmed"),
    "bite": Attack("physical", "strength", "brawl", "bns:tooth-and-claw"),
    "claw": Attack("physical", "strength", "brawl", "bns:tooth-and-claw"),
    "melee": Attack("physical", "strength", "melee", "bns:melee"),
    "thrown": Attack("physical", "dexterity", "athletics", "bns:thrown", weapon="thrown"),
    "archery": Attack("physical", "dexterity", "archery", "bns:archery"),
    "firearms": Attack("physical", "dexterity", "firearms", "bns:attack-pool"),
    "mental": Attack("mental", None, None, "bns:mental-attack"),
    "social": Attack("social", None, None, "bns:social-attack"),
}
CLOSE: frozenset[str] = frozenset({"unarmed", "bite", "claw", "melee"})
"""Close range attacks: Strength, or Dexterity with Fighting Finesse (bns:fighting-finesse)."""
UNPARRIED: frozenset[str] = frozenset({"thrown", "archery"})
"""Attacks that may not be parried (bns:parry)."""
FORMS: dict[str, frozenset[str]] = {
    "bite": frozenset({"crinos", "hispo", "lupus"}),
    "claw": frozenset({"crinos", "hispo"}),
}
"""The forms in which a werewolf bites or claws (bns:tooth-and-claw)."""
SHAPESHIFTERS: frozenset[str] = frozenset({"werewolf", "garou"})
LETHAL: frozenset[str] = frozenset({"bite", "claw"})
"""Attacks whose damage is lethal (bns:tooth-and-claw)."""


class Defense(NamedTuple):
    category: Category
    attribute: str
    skill: str | None
    willpower: bool
    """Current Willpower joins the pool (bns:mental-social-defense)."""
    rule: str


DEFENSES: dict[DefenseKind, Defense] = {
    "dodge": Defense("physical", "dexterity", "dodge", False, "bns:dodge"),
    "parry": Defense("physical", "dexterity", "melee", False, "bns:parry"),
    "soak": Defense("physical", "stamina", None, False, "bns:soak"),
    "mental": Defense("mental", "resolve", None, True, "bns:mental-social-defense"),
    "social": Defense("social", "composure", None, True, "bns:mental-social-defense"),
}

FIGHTING_FINESSE = "fighting finesse"
IMMUNITY_MINUTES = 10


# -- reading a scene's options and a sheet ---------------------------------------------------


def options(state: Scene) -> BnsOptions:
    return state.options  # type: ignore[return-value]  # a bns scene's are its own (Bns.options)


def lowered(levels: Mapping[str, int]) -> dict[str, int]:
    return {name.lower(): level for name, level in levels.items()}


def rating(sheet: Sheet, attribute: str) -> tuple[str, int] | None:
    """An attribute's rating and the name it has on the sheet: its own, or its category's on a
    three-rating sheet (``dexterity`` is ``physical``)."""
    attributes = lowered(sheet.attributes)
    if attribute in attributes:
        return attribute, attributes[attribute]
    category = ATTRIBUTES.get(attribute)
    return (category, attributes[category]) if category in attributes else None


def skill_rating(sheet: Sheet, skill: str) -> int:
    """A skill's rating; missing is 0 (unskilled)."""
    return next((level for name, level in sheet.skills.items() if name.lower() == skill), 0)
