"""The names the lotn document(s) use, by what a sheet holds them as: a sheet is checked against
them for a near miss (``domain.rules.named``); tests/test_catalogs.py finds each in the document."""

from __future__ import annotations

from collections.abc import Mapping

NAMED: Mapping[str, frozenset[str]] = {
    "traits.physical": frozenset({"Ferocious", "Brutal", "Quick", "Dexterous", "Nimble"}),
    "traits.social": frozenset({"Beguiling", "Dignified", "Seductive"}),
    "traits.mental": frozenset({"Wily"}),
    "negative_traits": frozenset({"Lethargic"}),
    "abilities": frozenset({"Brawl", "Dodge", "Firearms", "Computer"}),
    "powers": frozenset({"Dominate", "Mesmerism"}),
    "merits": frozenset({"Lucky"}),
}
