"""The sheet checks rulesets share (``domain.sheet_check`` asks a ruleset for its problems; it
answers with these parts): a sheet of Traits, powers and merits, names near the documents'."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from domain.rules.catalog import GESTURES
from domain.rules.named import Kind, nearby
from domain.sheets import CATEGORIES, Sheet

if TYPE_CHECKING:
    from domain.rules.base import Ruleset

from domain.rules.fields import SheetField


class Problem(NamedTuple):
    path: str
    """The field, as a sheet names it (``traits.physical.Brwany``, ``skills.brawl``)."""
    text: str
    """What is wrong, in words."""
    closed: bool
    """The rules close it: refused even ``as_written``."""
    rule: str = ""
    """The rule that closes it, if one does."""


_NUMBER_WORD = re.compile(
    r"\s+(?:x\s*)?(?:(one|two|three|four|five|six|seven|eight|nine|ten)|(\d+))\s*$",
    re.IGNORECASE,
)
_WORDS = {
    w: i for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])
}


CAT = "lotn:categories"


def trait_problems(ruleset: Ruleset, sheet: Sheet) -> list[Problem]:
    """A sheet of Traits (lotn and the rulesets built on it): three categories, a Trait in one,
    known gestures, names near the documents'."""
    found: list[Problem] = []
    if sheet.attributes or sheet.skills:
        found.append(
            Problem("attributes", f"A {ruleset.name} sheet lists Traits, not attributes and skills.", True, CAT)
        )
    if sheet.traits is None:
        found.append(Problem("traits", "A sheet lists Physical, Social and Mental Traits.", True, CAT))
        return found
    seen: dict[str, str] = {}
    for category in CATEGORIES:
        held = sheet.traits.of(category)
        for trait in held:
            if trait in seen:
                text = f"{trait} is already a {seen[trait].capitalize()} Trait; a Trait belongs to one category."
                found.append(Problem(f"traits.{category}.{trait}", text, True, CAT))
            seen.setdefault(trait, category)
        found += named_problems(ruleset, f"traits.{category}", held, f"traits.{category}")  # type: ignore[arg-type]
        found += named_problems(
            ruleset, "negative_traits", sheet.negative_traits.of(category), f"negative_traits.{category}"
        )
    found += named_problems(ruleset, "abilities", sheet.abilities, "abilities")
    for i, gesture in enumerate(sheet.gestures):
        if gesture not in GESTURES:
            known = ", ".join(sorted(GESTURES))
            said = f"“{gesture}” is not a gesture these rules know ({known})."
            found.append(Problem(f"gestures.{i}", said, True, "lotn:gestures"))
    return found


def power_problems(ruleset: Ruleset, sheet: Sheet) -> list[Problem]:
    """Powers and merits near the documents' names, a power's level beyond the document's."""
    found = named_problems(ruleset, "powers", sheet.powers, "powers")
    found += named_problems(ruleset, "merits", sheet.merits, "merits")
    for power, (top, rule) in ruleset.levels.items():
        level = sheet.powers.get(power, 0) if isinstance(sheet.powers, dict) else 0
        if level > top:
            said = f"{power} {level}: the rules count its levels 1 to {top} ({rule}); more counts as {top}."
            found.append(Problem(f"powers.{power}", said, False))
    return found


def named_problems(
    ruleset: Ruleset, kind: Kind, held: Mapping[str, int] | list[str], path: str, *, single: bool = False
) -> list[Problem]:
    """Each name of ``held`` that is a level written in words ("Brawl two": closed) or a near miss
    of a name the document uses ("Brwal": open)."""
    own = ruleset.named.get(kind, frozenset())
    known = own | {k for k in nearby(ruleset, kind) if k.lower() not in {o.lower() for o in own}}
    folded = ruleset.folded
    found: list[Problem] = []
    for name in held:
        where = path if single else f"{path}.{name}"
        if (m := _NUMBER_WORD.search(name)) and m.start() > 0:
            stem = name[: m.start()].strip()
            count = _WORDS[m[1].lower()] if m[1] else m[2]
            said = f"“{name}”: write how many as a number after the name, like “{stem} {count}”."
            found.append(Problem(where, said, True))
            continue
        if (name.lower() if folded else name) in ({k.lower() for k in known} if folded else known):
            continue
        guess = close(name.lower(), [k.lower() for k in known])
        if guess is not None:
            proper = next(k for k in known if k.lower() == guess)
            said = f"“{name}” is not a name the rules use: did you mean {proper}?"
            found.append(Problem(where, said, False))
    return found


def close(name: str, known: list[str]) -> str | None:
    """The known name ``name`` most likely misspells (difflib's ratio at least 0.8: Wiry is not Wily), if any."""
    found = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    return found[0] if found else None


def _common(health: int) -> tuple[SheetField, ...]:
    return (
        SheetField(name="willpower", label="Willpower", default=3),
        SheetField(name="health", label="Health levels", default=health),
    )


NAMES_LEAD = "Names with how many, separated by commas"
"""How a sheet of Traits is written in the form."""


def trait_sheet(
    *, traits: tuple[str, str, str], negative: str, abilities: str, powers: str, merits: str
) -> tuple[SheetField, ...]:
    """A sheet of Traits with its examples in the ruleset's own words (names its document uses):
    ``traits`` one for each category, the first also the form's opening example."""
    return (
        *_common(7),
        SheetField(name="blood", label="Blood", default=0),
        SheetField(
            name="traits",
            label="Traits",
            kind="traits",
            examples=tuple(f"e.g. {t}" for t in traits),
            lead=(NAMES_LEAD, traits[0]),
        ),
        SheetField(name="negative_traits", label="Negative Traits", kind="trait_names", examples=(f"e.g. {negative}",)),
        SheetField(name="abilities", label="Abilities", kind="named", examples=(f"e.g. {abilities}",)),
        SheetField(name="powers", label="Powers (with levels)", kind="leveled", examples=(f"e.g. {powers}",)),
        SheetField(name="merits", label="Merits", kind="leveled", examples=(f"e.g. {merits}",)),
        SheetField(name="gestures", label="Has the Bomb gesture", kind="check", means="bomb"),
    )


TRAIT_SHEET: tuple[SheetField, ...] = trait_sheet(
    traits=("Ferocious 2, Quick", "Dignified 2", "Wily"),
    negative="Lethargic",
    abilities="Brawl 2, Dodge",
    powers="Dominate 1",
    merits="Lucky",
)
"""A sheet of Traits (lotn), in the form's order."""
