"""The rulesets this server plays, by the name ``open_scene`` uses."""

from __future__ import annotations

from domain.errors import Rejected
from domain.rules.base import Ruleset
from domain.rules.bns import Bns
from domain.rules.camarilla import Camarilla
from domain.rules.kony import Kony
from domain.rules.lotn import Lotn

RULESETS: dict[str, Ruleset] = {ruleset.name: ruleset for ruleset in (Lotn(), Camarilla(), Bns(), Kony())}


def ruleset_for(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise Rejected(
            "ruleset_unavailable",
            f"The {name} ruleset is not available on this server yet; it plays: {', '.join(sorted(RULESETS))}.",
        ) from None
