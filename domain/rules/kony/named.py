"""The names the kony document(s) use, by what a sheet holds them as: a sheet is checked against
them for a near miss (``domain.rules.named``); tests/test_catalogs.py finds each in the document."""

from __future__ import annotations

from collections.abc import Mapping

NAMED: Mapping[str, frozenset[str]] = {
    "abilities": frozenset({"Brawl", "Blind Fighting"}),
    "powers": frozenset({"Celerity", "Auspex", "Protean", "Fortitude", "Majesty"}),
}
