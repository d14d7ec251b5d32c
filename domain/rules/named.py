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

from typing import Literal

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

DOCUMENTS: dict[str, tuple[str, ...]] = {
    "lotn": ("laws-of-the-night-challenges.txt",),
    "camarilla": ("camarilla-combat-guide.txt",),
    "bns": ("bns-opposed-challenges.txt", "bns-complex-scenarios-combat.txt"),
    "kony": ("kings-of-new-york-combat.txt",),
}
"""Each ruleset's document(s), in ``shared/rules/``."""

NAMED: dict[str, dict[Kind, frozenset[str]]] = {
    "lotn": {
        "traits.physical": frozenset({"Ferocious", "Brutal", "Quick", "Dexterous", "Nimble"}),
        "traits.social": frozenset({"Beguiling", "Dignified", "Seductive"}),
        "traits.mental": frozenset({"Wily"}),
        "negative_traits": frozenset({"Lethargic"}),
        "abilities": frozenset({"Brawl", "Dodge", "Firearms", "Computer"}),
        "powers": frozenset({"Dominate", "Mesmerism"}),
        "merits": frozenset({"Lucky"}),
    },
    "camarilla": {
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
    },
    "bns": {
        "skills": frozenset({"brawl", "melee", "athletics", "archery", "firearms", "dodge", "intimidation"}),
        "powers": frozenset({"Dread Gaze", "Entrancement", "Presence"}),
        "merits": frozenset({"Fighting Finesse"}),
        "forms": frozenset({"crinos", "hispo", "lupus"}),
    },
    "kony": {
        "abilities": frozenset({"Brawl", "Blind Fighting"}),
        "powers": frozenset({"Celerity", "Auspex", "Protean", "Fortitude", "Majesty"}),
    },
}
"""The names each ruleset's document uses, by what a sheet holds them as."""

_ALIKE: dict[str, tuple[str, ...]] = {"skills": ("abilities", "skills"), "abilities": ("abilities", "skills")}


def nearby(ruleset: str, kind: Kind) -> frozenset[str]:
    """The names a sheet of ``ruleset`` is checked against for a near miss: its own document's,
    and those every other document uses for the same thing (a skill is an Ability; a Trait a
    Trait): "Potnce" on a bns sheet is most likely Potence, a Discipline the camarilla document
    names, though the bns documents name only Dread Gaze, Entrancement and Presence. Each name is
    still quoted from a document; an exact name from another document is taken as written."""
    kinds = _ALIKE.get(kind, (kind,))
    found = set(NAMED.get(ruleset, {}).get(kind, frozenset()))
    for other, lists in NAMED.items():
        if other != ruleset:
            names = {name for k in kinds for name in lists.get(k, frozenset())}  # type: ignore[call-overload]
            found |= {n.capitalize() if other in FOLDED and n.islower() else n for n in names}
    return frozenset(found)


FOLDED: frozenset[str] = frozenset({"bns"})
"""Rulesets that read names whatever their case (bns skills: ``brawl`` is ``Brawl``)."""

LEVELS: dict[str, dict[str, tuple[int, str]]] = {
    "kony": {"Celerity": (5, "kony:initiative")},
}
"""The highest level a document gives a power, and the rule that says so ("Their level of the
Celerity Discipline (1-5)"): a higher level is questioned (it counts as the highest)."""
