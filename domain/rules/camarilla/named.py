"""The names the camarilla document(s) use, by what a sheet holds them as: a sheet is checked against
them for a near miss (``domain.rules.named``); tests/test_catalogs.py finds each in the document."""

from __future__ import annotations

from collections.abc import Mapping

NAMED: Mapping[str, frozenset[str]] = {
    "traits.physical": frozenset(
        {"Brawny", "Quick", "Ferocious", "Dexterous", "Potent", "Robust", "Tough", "Resilient"}
    ),
    "abilities": frozenset({"Brawl", "Dodge", "Blindfighting"}),
    "powers": frozenset(
        {
            "Acidic Touch",
            "Alacrity",
            "Atrophy",
            "Black Metamorphosis",
            "Celerity",
            "Dread Gaze",
            "Feral Claws",
            "Flame Bolt",
            "Fleetness",
            "Force",
            "Gentle Rebuke",
            "Imprint",
            "Legerity",
            "Majesty",
            "Might",
            "Potence",
            "Pounce",
            "Puissance",
            "Quell the Beast",
            "Relentless Pursuit",
            "Shadow Step",
            "Swiftness",
            "Thaumaturgy",
        }
    ),
}
