"""Data the Camarilla rules read: which kind each Physical Trait is, and what the powers the combat
guide names do. A chronicle extends these tables; a sheet may override a Trait's kind
(``trait_kinds``)."""

from __future__ import annotations

from typing import Literal

import msgspec

Kind = Literal["strength", "dexterity", "stamina", "social", "mental"]

PHYSICAL_KINDS: dict[str, Kind] = {
    **dict.fromkeys(["Brawny", "Brutal", "Ferocious", "Mighty", "Potent", "Stalwart", "Rugged"], "strength"),
    **dict.fromkeys(
        ["Quick", "Nimble", "Dexterous", "Graceful", "Lithe", "Wiry", "Agile", "Athletic", "Energetic"], "dexterity"
    ),
    **dict.fromkeys(
        ["Tough", "Robust", "Resilient", "Enduring", "Tenacious", "Tireless", "Vigorous", "Steady"], "stamina"
    ),
}
"""The standard Physical adjectives by kind; one not listed counts as strength unless the sheet says."""


class Power(msgspec.Struct, frozen=True, kw_only=True):
    retest: bool = False
    """It grants a retest (category ``power``)."""
    final: bool = False
    """No retest may follow it in the challenge (Might)."""
    lead: Kind | None = None
    """It works only when the character led with a Trait of this kind."""
    wins_ties: bool = False
    initiative: int = 0
    """Added to initiative (only Alacrity: no other power, weapon or merit counts)."""
    extra_actions: int = 0
    celerity: bool = False
    """Celerity's extra actions: a character counts only its best Celerity power."""
    restricted: bool = False
    """Its extra action cannot move, and must use the power's own means (Black Metamorphosis)."""
    extra_damage: int = 0
    """Additional damage stacks without restriction."""
    damage_type: Literal["bashing", "lethal", "aggravated"] | None = None
    """An attack modification: the same modification twice has no more effect."""
    full_round: bool = False
    """Using it takes the whole turn (Thaumaturgy)."""


POWERS: dict[str, Power] = {
    "Alacrity": Power(initiative=1),
    "Swiftness": Power(extra_actions=1, celerity=True),
    "Legerity": Power(extra_actions=2, celerity=True),
    "Fleetness": Power(wins_ties=True, lead="dexterity"),
    "Might": Power(retest=True, final=True, lead="strength"),
    "Puissance": Power(extra_damage=1, lead="strength"),
    "Force": Power(extra_damage=1, lead="strength"),
    "Feral Claws": Power(damage_type="aggravated"),
    "Black Metamorphosis": Power(extra_actions=1, restricted=True),
    "Thaumaturgy": Power(full_round=True),
    "Potence": Power(),
}


def power(name: str) -> Power:
    """What a power does here (a power the catalog does not know does nothing the engine applies)."""
    return POWERS.get(name, Power())
