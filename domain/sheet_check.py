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

import re
from collections.abc import Iterable

from domain.errors import Rejected
from domain.rules import ruleset_for
from domain.rules.sheets import Problem
from domain.sheets import Sheet


def problems(ruleset: str, sheet: Sheet) -> list[Problem]:
    """Every problem of ``sheet`` under ``ruleset``, in the order of the form's fields."""
    return ruleset_for(ruleset).sheet_problems(sheet)


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
