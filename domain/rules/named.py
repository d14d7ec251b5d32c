"""What each ruleset's own document names that a sheet holds: its Traits, Abilities or skills,
powers, merits, forms. A sheet is checked against these (``domain.sheet_check``): a name close to
one of them but not it is most likely a slip ("Brwal": did you mean Brawl?). Every name here is
quoted from the ruleset's document (tests/test_catalogs.py reads the documents to prove it), so the
check never suggests a name the rules do not use.

Which lists the rules close and which they leave open (docs/protocol.md, "Sheets checked against
the rules"):

- The bns attributes are closed: the nine, or the three category ratings (``bns_catalog``).
- Traits are adjectives "described fully in the Creation pages" (lotn), which the documents do not
  reproduce: the list is open, and so are Abilities, skills, powers and merits (a chronicle has its
  own); only a near miss of a name the document uses is questioned.
- Gestures are closed: rock, paper, scissors, and the bomb some powers grant (``catalog.GESTURES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from domain.rules.base import Ruleset

Kind = Literal[
    "traits.physical",
    "traits.social",
    "traits.mental",
    "negative_traits",
    "abilities",
    "skills",
    "powers",
    "merits",
    "forms",
]

_ALIKE: dict[str, tuple[str, ...]] = {"skills": ("abilities", "skills"), "abilities": ("abilities", "skills")}


def nearby(ruleset: Ruleset | str, kind: Kind) -> frozenset[str]:
    """The names a sheet of ``ruleset`` is checked against for a near miss: its own document's,
    and those every other document uses for the same thing (a skill is an Ability; a Trait a
    Trait): "Potnce" on a bns sheet is most likely Potence, a Discipline the camarilla document
    names, though the bns documents name only Dread Gaze, Entrancement and Presence. Each name is
    still quoted from a document; an exact name from another document is taken as written."""
    from domain.rules import RULESETS  # the registry imports the rulesets, which import this

    if isinstance(ruleset, str):
        ruleset = RULESETS[ruleset]
    kinds = _ALIKE.get(kind, (kind,))
    found = set(ruleset.named.get(kind, frozenset()))
    for other in RULESETS.values():
        if other is not ruleset:
            names = {name for k in kinds for name in other.named.get(k, frozenset())}
            found |= {n.capitalize() if other.folded and n.islower() else n for n in names}
    return frozenset(found)


def __getattr__(name: str) -> object:
    """``NAMED``, ``DOCUMENTS``, ``FOLDED`` and ``LEVELS`` by ruleset, as this module held them before
    each ruleset kept its own (``Ruleset.named``, ``books``, ``folded``, ``levels``)."""
    if name not in ("NAMED", "DOCUMENTS", "FOLDED", "LEVELS"):
        raise AttributeError(name)
    from domain.rules import RULESETS

    match name:
        case "NAMED":
            return {n: dict(r.named) for n, r in RULESETS.items()}
        case "DOCUMENTS":
            return {n: tuple(r.books) for n, r in RULESETS.items()}
        case "FOLDED":
            return frozenset(n for n, r in RULESETS.items() if r.folded)
        case "LEVELS":
            return {n: dict(r.levels) for n, r in RULESETS.items() if r.levels}
    raise AttributeError(name)
