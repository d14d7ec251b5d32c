"""Data the rules consult: the signs and what beats what, and which Abilities fit which
category of challenge. A chronicle extends these tables; the code only reads them."""

from __future__ import annotations

from domain.sheets import Category

SIGNS: tuple[str, ...] = ("rock", "paper", "scissors")
"""What anyone may throw, and what a ``random`` throw picks from."""

BEATS: dict[str, frozenset[str]] = {
    "rock": frozenset({"scissors"}),
    "paper": frozenset({"rock"}),
    "scissors": frozenset({"paper", "bomb"}),  # scissors cut the bomb's fuse
    "bomb": frozenset({"rock", "paper"}),
}
"""Each sign and the signs it beats (lotn:rps); a pair neither beats is a tie."""

GESTURES: frozenset[str] = frozenset(BEATS) - frozenset(SIGNS)
"""Special gestures a sheet may grant (lotn:gestures)."""

_PHYSICAL = {
    "Athletics",
    "Brawl",
    "Dodge",
    "Drive",
    "Firearms",
    "Melee",
    "Archery",
    "Security",
    "Stealth",
    "Survival",
    "Blindfighting",
}
_SOCIAL = {
    "Animal Ken",
    "Empathy",
    "Etiquette",
    "Expression",
    "Intimidation",
    "Leadership",
    "Performance",
    "Streetwise",
    "Subterfuge",
}
_MENTAL = {
    "Academics",
    "Awareness",
    "Computer",
    "Finance",
    "Investigation",
    "Law",
    "Linguistics",
    "Medicine",
    "Occult",
    "Politics",
    "Science",
}

ABILITY_CATEGORIES: dict[str, frozenset[Category]] = {
    **{name: frozenset({"physical"}) for name in _PHYSICAL},
    **{name: frozenset({"social"}) for name in _SOCIAL},
    **{name: frozenset({"mental"}) for name in _MENTAL},
    "Intimidation": frozenset({"social", "physical"}),
}
"""Which challenges an Ability can retest; an Ability not listed is left to the table."""


def ability_fits(ability: str, category: Category) -> bool:
    fits = ABILITY_CATEGORIES.get(ability)
    return fits is None or category in fits
