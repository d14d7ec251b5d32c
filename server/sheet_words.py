"""A bad sheet's problems in a player's words (``add_character`` refused as ``bad_sheet``): each field
named as a sheet names it and what is wrong said plainly, with what was written ("Willpower must
be a number (you wrote “three”)", "The sheet needs an id"). Keyed by the field's path, as
``domain.sheets.sheet_problems`` gives them, so a form can put each beside its field."""

from __future__ import annotations

import re
import typing
from typing import Any, Literal

import msgspec

from domain import sheet_check
from domain.sheets import Weapon, partial_sheet, sheet_problems
from projections.audit_render import visible

_NEEDS = {"id": "an id", "name": "a name"}


def _label(path: str) -> str:
    """ "willpower" → "Willpower"; "traits.physical.Brawny" → "Brawny (Physical Traits)"."""
    parts = [p for p in path.split(".") if p]
    if not parts:
        return "The sheet"
    if parts == ["id"]:
        return "The id"
    if parts[0] == "weapons" and len(parts) > 1 and parts[1].isdigit():
        return f"Weapon {int(parts[1]) + 1}"
    if parts[0] in ("traits", "negative_traits") and len(parts) >= 2:
        kind = f"{parts[1].capitalize()} {'Negative Traits' if parts[0] == 'negative_traits' else 'Traits'}"
        return f"{parts[2]} ({kind})" if len(parts) > 2 else kind
    if parts[0] in ("abilities", "powers", "merits", "skills", "attributes") and len(parts) > 1:
        return f"{parts[-1]} ({parts[0].replace('_', ' ')})"
    last = parts[0] if parts[-1].isdigit() else parts[-1]
    return last.replace("_", " ").capitalize()


def _written(raw: Any, path: str) -> str | None:
    """What the sheet holds at ``path``, as written (None: nothing there)."""
    here = raw
    for step in (p for p in path.split(".") if p):
        if isinstance(here, dict) and step in here:
            here = here[step]
        elif isinstance(here, list) and step.isdigit() and int(step) < len(here):
            here = here[int(step)]
        else:
            return None
    return here if isinstance(here, str) else repr(here) if not isinstance(here, (dict, list)) else None


def every_problem(raw: Any, ruleset: str) -> dict[str, str]:
    """Every problem of a sheet that does not decode, at once and in words: the fields that do not
    decode (``sheet_problems``, each weapon alone) and what the ruleset's catalog finds in the rest
    (``domain.sheet_check``: "did you mean Brawl?", Strength 12), each by its path."""
    decoded = sheet_problems(raw)
    said = in_words(decoded, raw)
    rest = partial_sheet(raw, decoded)
    if rest is not None:
        for p in sheet_check.problems(ruleset, rest):
            said.setdefault(p.path, p.text)
    return said


_CHOICES = {
    f.encode_name: typing.get_args(f.type)
    for f in msgspec.structs.fields(Weapon)
    if typing.get_origin(f.type) is Literal
}


def _weapon(raw: Any, path: str) -> str:
    """ "Weapon 1 (Knife): " for a problem inside a weapon, named as written."""
    parts = path.split(".")
    weapons = raw.get("weapons") if isinstance(raw, dict) else None
    if len(parts) < 3 or parts[0] != "weapons" or not parts[1].isdigit() or not isinstance(weapons, list):
        return ""
    n = int(parts[1])
    entry = weapons[n] if n < len(weapons) else None
    named = entry.get("name") if isinstance(entry, dict) else None
    return f"Weapon {n + 1}{f' ({named})' if isinstance(named, str) and named else ''}: "


def in_words(problems: dict[str, str], raw: Any) -> dict[str, str]:
    """Each problem as a sentence a player understands."""
    said = {}
    for path, what in problems.items():
        label = _label(path)
        if weapon := _weapon(raw, path):
            label = f"{weapon}{path.split('.')[-1].replace('_', ' ')}"
        wrote = _written(raw, path)
        shown = f" (you wrote “{wrote}”)" if wrote is not None else ""
        if what == "required":
            text = f"The sheet needs {_NEEDS.get(path, f'a {label.lower()}')}."
        elif what.startswith("Invalid enum value") and path.split(".")[-1] in _CHOICES:
            choices = [str(c) for c in _CHOICES[path.split(".")[-1]]]
            text = f"{label} must be {', '.join(choices[:-1])} or {choices[-1]}{shown}."
        elif what.startswith("not a sheet field"):
            known = what[what.find("(") :] if "(" in what else ""
            text = f"“{path}” is not something a sheet holds {known}".rstrip() + "."
        elif m := re.match(r"Expected `int` >= (-?\d+)", what):
            text = f"{label} must be at least {m[1]}{shown}."
        elif m := re.match(r"Expected `int` <= (-?\d+)", what):
            text = f"{label} must be at most {m[1]}{shown}."
        elif what.startswith("Expected `int`"):
            text = f"{label} must be a number{shown}."
        elif m := re.match(r"Expected `str` of length <= (\d+)", what):
            text = f"{label} must be at most {m[1]} characters long."
        elif what.startswith("Expected `str` of length >= 1"):
            text = f"{label} cannot be empty."
        elif "matching regex" in what and "x00" in what:  # domain.sheets.PLAIN: shown, not echoed
            text = f"{visible(label)} cannot hold control characters (line breaks, tabs, escape codes)"
            text += " or text-direction overrides."
        elif what.startswith("Expected `str` matching regex"):
            text = f"{label} takes letters, digits, dots, dashes and underscores only{shown}."
        elif what.startswith("Expected `str`"):
            text = f"{label} must be words{shown}."
        elif what.startswith("Expected `bool`"):
            text = f"{label} must be true or false{shown}."
        elif what.startswith("Expected `object`"):
            text = f'{label} must be a list of names with how many, like {{"Brawny": 2}}.'
        elif what.startswith("Expected `array`"):
            text = f"{label} must be a list of names{shown}."
        else:
            text = f"{label}: {what.replace('`', '')}"
        said[path] = text
    return said
