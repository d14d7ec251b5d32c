"""The names the bns document(s) use, by what a sheet holds them as: a sheet is checked against
them for a near miss (``domain.rules.named``); tests/test_catalogs.py finds each in the document."""

from __future__ import annotations

from collections.abc import Mapping

NAMED: Mapping[str, frozenset[str]] = {
    "skills": frozenset({"brawl", "melee", "athletics", "archery", "firearms", "dodge", "intimidation"}),
    "powers": frozenset({"Dread Gaze", "Entrancement", "Presence"}),
    "merits": frozenset({"Fighting Finesse"}),
    "forms": frozenset({"crinos", "hispo", "lupus"}),
}
