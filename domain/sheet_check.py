"""A sheet checked against its ruleset, every problem at once, each at its field's path
(``skills.Brwal``, ``attributes.strength``), in words a Storyteller understands.

Two kinds of problem (docs/protocol.md, "Sheets checked against the rules"):

- **closed**: what the rules close (the bns attributes, a Trait in two categories, an unknown
  gesture, a level written as a word): the sheet is refused.
- **open**: what the rules leave open but looks like a slip (a near miss of a name the document
  uses: "did you mean Brawl?"; a rating beyond the documents' scale, a Celerity above 5 in kony):
  the sheet is refused until the Storyteller confirms it ``as_written``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from domain.errors import Rejected
from domain.rules.bns_catalog import ATTRIBUTES, RATINGS
from domain.rules.catalog import GESTURES
from domain.rules.named import FOLDED, LEVELS, NAMED, Kind, nearby
from domain.sheets import CATEGORIES, Sheet


class Problem(NamedTuple):
    path: str
    """The field, as a sheet names it (``traits.physical.Brwany``, ``skills.brawl``)."""
    text: str
    """What is wrong, in words."""
    closed: bool
    """The rules close it: refused even ``as_written``."""
    rule: str = ""
    """The rule that closes it, if one does."""


DOTS = 5
"""The nine bns attributes are measured in dots ("at least four dots in Strength"): 1 to 5 unless a
form or a power raises them."""
RATING = 10
"""The highest of the three bns ratings the documents use ("Social 10 (attribute)")."""
SKILL = 5
"""The highest bns skill the documents use ("Intimidation 5 (skill)")."""

_NUMBER_WORD = re.compile(
    r"\s+(?:x\s*)?(?:(one|two|three|four|five|six|seven|eight|nine|ten)|(\d+))\s*$",
    re.IGNORECASE,
)
_WORDS = {
    w: i for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])
}


def problems(ruleset: str, sheet: Sheet) -> list[Problem]:
    """Every problem of ``sheet`` under ``ruleset``, in the order of the form's fields."""
    found: list[Problem] = []
    if ruleset == "bns":
        found += _pools(sheet)
    else:
        found += _traits(ruleset, sheet)
    found += _names(ruleset, "powers", sheet.powers)
    found += _names(ruleset, "merits", sheet.merits)
    for power, (top, rule) in LEVELS.get(ruleset, {}).items():
        level = sheet.powers.get(power, 0) if isinstance(sheet.powers, dict) else 0
        if level > top:
            said = f"{power} {level}: the rules count its levels 1 to {top} ({rule}); more counts as {top}."
            found.append(Problem(f"powers.{power}", said, False))
    if ruleset == "kony" and sheet.combat_sheet and not sheet.npc:
        found.append(
            Problem("combat_sheet", "Only an NPC has a combat sheet (kony:npc-sheets).", True, "kony:npc-sheets")
        )
    return found


def check(ruleset: str, sheet: Sheet, as_written: bool) -> None:
    """Refuse ``sheet`` if it has a closed problem, or an open one not confirmed ``as_written``:
    ``bad_sheet`` or ``unusual_sheet``, every problem named in ``fields`` by its path."""
    found = problems(ruleset, sheet)
    listed = " ".join(f"`character.{_indexed(p.path)}`: {p.text}" for p in found)
    if closed := [p for p in found if p.closed]:
        rule = next((p.rule for p in closed if p.rule), None)
        raise Rejected("bad_sheet", f"The sheet is not valid: {listed}", rule, _fields(found))
    if found and not as_written:
        raise Rejected(
            "unusual_sheet",
            f"Check the sheet: {listed} Correct it, or keep it as written (`as_written`).",
            fields=_fields(found),
        )


def _indexed(path: str) -> str:
    """``weapons.1.name`` as a JSON path names it: ``weapons[1].name``."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", path)


def _fields(found: Iterable[Problem]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for p in found:
        fields[p.path] = f"{fields[p.path]} {p.text}" if p.path in fields else p.text
    return fields


# -- trait rulesets (lotn, camarilla, kony) ------------------------------------------------------


CAT = "lotn:categories"


def _traits(ruleset: str, sheet: Sheet) -> list[Problem]:
    found: list[Problem] = []
    if sheet.attributes or sheet.skills:
        found.append(Problem("attributes", f"A {ruleset} sheet lists Traits, not attributes and skills.", True, CAT))
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
        found += _named(ruleset, f"traits.{category}", held, f"traits.{category}")  # type: ignore[arg-type]
        found += _named(ruleset, "negative_traits", sheet.negative_traits.of(category), f"negative_traits.{category}")
    found += _named(ruleset, "abilities", sheet.abilities, "abilities")
    for i, gesture in enumerate(sheet.gestures):
        if gesture not in GESTURES:
            known = ", ".join(sorted(GESTURES))
            said = f"“{gesture}” is not a gesture these rules know ({known})."
            found.append(Problem(f"gestures.{i}", said, True, "lotn:gestures"))
    return found


# -- bns -------------------------------------------------------------------------------------


POOL = "bns:attack-pool"


def _pools(sheet: Sheet) -> list[Problem]:
    found: list[Problem] = []
    if sheet.traits is not None:
        found.append(Problem("traits", "A bns sheet has attributes and skills, not Traits.", True, POOL))
    attributes = {name.lower(): (name, level) for name, level in sheet.attributes.items()}
    if not attributes:
        found.append(
            Problem("attributes", "Give the nine attributes (Strength … Resolve) or the three ratings.", True, POOL)
        )
    if attributes.keys() & RATINGS and attributes.keys() & set(ATTRIBUTES):
        found.append(Problem("attributes", "Give the nine attributes or the three ratings, not both.", True, POOL))
    for key, (name, level) in attributes.items():
        path = f"attributes.{name}"
        if key in ATTRIBUTES:
            if not 1 <= level <= DOTS:
                said = (
                    f"{name.capitalize()} {level}: attributes run 1 to {DOTS} dots, more only with a form or a power."
                )
                found.append(Problem(path, said, False))
        elif key in RATINGS:
            if not 1 <= level <= RATING:
                said = f"{name.capitalize()} {level}: the rules' ratings run 1 to {RATING} (Social 10)."
                found.append(Problem(path, said, False))
        else:
            guess = _close(key, [*ATTRIBUTES, *RATINGS])
            hint = f" Did you mean {guess.capitalize()}?" if guess else ""
            said = (
                f"“{name}” is not an attribute (the nine: {', '.join(ATTRIBUTES)}; or physical, social, mental).{hint}"
            )
            found.append(Problem(path, said, True, POOL))
    found += _named("bns", "skills", sheet.skills, "skills")
    for name, level in sheet.skills.items():
        if level > SKILL:
            said = f"{name.capitalize()} {level}: the rules' skills run to {SKILL} (Intimidation 5)."
            found.append(Problem(f"skills.{name}", said, False))
    seen: set[str] = set()
    for i, weapon in enumerate(sheet.weapons):
        if weapon.name.lower() in seen:
            found.append(Problem(f"weapons.{i}.name", f"There is already a weapon called {weapon.name}.", True, POOL))
        seen.add(weapon.name.lower())
    if sheet.form is not None:
        found += _named("bns", "forms", [sheet.form], "form", single=True)
    return found


# -- names ------------------------------------------------------------------------------------


def _names(ruleset: str, kind: Kind, held: Mapping[str, int] | list[str]) -> list[Problem]:
    return _named(ruleset, kind, held, kind)


def _named(
    ruleset: str, kind: Kind, held: Mapping[str, int] | list[str], path: str, *, single: bool = False
) -> list[Problem]:
    """Each name of ``held`` that is a level written in words ("Brawl two": closed) or a near miss
    of a name the document uses ("Brwal": open)."""
    own = NAMED.get(ruleset, {}).get(kind, frozenset())
    known = own | {k for k in nearby(ruleset, kind) if k.lower() not in {o.lower() for o in own}}
    folded = ruleset in FOLDED
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
        guess = _close(name.lower(), [k.lower() for k in known])
        if guess is not None:
            proper = next(k for k in known if k.lower() == guess)
            said = f"“{name}” is not a name the rules use: did you mean {proper}?"
            found.append(Problem(where, said, False))
    return found


def _close(name: str, known: list[str]) -> str | None:
    """The known name ``name`` most likely misspells (difflib's ratio at least 0.8: Wiry is not Wily), if any."""
    found = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    return found[0] if found else None
