"""A bns sheet checked: attributes (the nine, or the three ratings) and skills, weapons, a form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.rules.bns.catalog import ATTRIBUTES, RATINGS
from domain.rules.fields import SheetField
from domain.rules.sheets import Problem, close, named_problems
from domain.sheets import Sheet

if TYPE_CHECKING:
    from domain.rules.base import Ruleset

DOTS = 5
"""The nine bns attributes are measured in dots ("at least four dots in Strength"): 1 to 5 unless a
form or a power raises them."""
RATING = 10
"""The highest of the three bns ratings the documents use ("Social 10 (attribute)")."""
SKILL = 5
"""The highest bns skill the documents use ("Intimidation 5 (skill)")."""

POOL = "bns:attack-pool"


def pool_problems(ruleset: Ruleset, sheet: Sheet) -> list[Problem]:
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
            guess = close(key, [*ATTRIBUTES, *RATINGS])
            hint = f" Did you mean {guess.capitalize()}?" if guess else ""
            said = (
                f"“{name}” is not an attribute (the nine: {', '.join(ATTRIBUTES)}; or physical, social, mental).{hint}"
            )
            found.append(Problem(path, said, True, POOL))
    found += named_problems(ruleset, "skills", sheet.skills, "skills")
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
        found += named_problems(ruleset, "forms", [sheet.form], "form", single=True)
    return found


POOL_SHEET: tuple[SheetField, ...] = (
    SheetField(name="willpower", label="Willpower", default=3),
    SheetField(name="health", label="Health levels", default=6),
    SheetField(name="attributes", label="Attributes (dots)", kind="ratings", default=2, names=dict(ATTRIBUTES)),
    SheetField(
        name="skills",
        label="Skills",
        kind="named",
        hint="Missing skills count as 0: unskilled",
        examples=("e.g. brawl 2, dodge 1, firearms 3",),
        lead=("Skills with their dots, separated by commas", "brawl 2, dodge 1"),
    ),
    SheetField(name="creature", label="Creature", kind="text", examples=("e.g. vampire, werewolf, human",)),
    SheetField(name="form", label="Form now", kind="text", examples=("e.g. crinos, hispo, lupus",)),
    SheetField(name="weapons", label="Weapons", kind="weapons"),
    SheetField(name="powers", label="Powers (with levels)", kind="leveled", examples=("e.g. Dread Gaze",)),
    SheetField(name="merits", label="Merits", kind="leveled", examples=("e.g. Fighting Finesse",)),
)
"""A bns sheet, in the form's order."""
