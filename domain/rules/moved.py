"""Where the modules of the flat ``domain/rules/`` live now that each ruleset is a package: code
written against the old paths (``domain.rules.bns_catalog``, ``domain.rules.texts``,
``from domain.rules import kony_dice``) still imports what it did. Nothing here is used by the
project itself; new code imports from the packages."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

MOVED = {
    "bns_catalog": "domain.rules.bns.catalog",
    "bns_combat": "domain.rules.bns.combat",
    "bns_escape": "domain.rules.bns.escape",
    "bns_maneuvers": "domain.rules.bns.maneuvers",
    "bns_mass": "domain.rules.bns.mass",
    "bns_rounds": "domain.rules.bns.rounds",
    "bns_texts": "domain.rules.bns.texts",
    "bns_turn": "domain.rules.bns.turn",
    "kony_dice": "domain.rules.kony.dice",
    "kony_rounds": "domain.rules.kony.rounds",
    "kony_texts": "domain.rules.kony.texts",
    "powers": "domain.rules.camarilla.powers",
    "texts": "domain.rules",
}
"""Each old module's name, and the module that holds what it held."""


def install(package: ModuleType) -> None:
    """Make each old name import its new module (``sys.modules``, and an attribute of the
    package for ``from domain.rules import kony_dice``)."""
    for old, new in MOVED.items():
        module = importlib.import_module(new)
        sys.modules[f"{package.__name__}.{old}"] = module
        if old != "texts":
            setattr(package, old, module)
