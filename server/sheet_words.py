"""A bad sheet's problems in a player's words (``add_character`` refused as ``bad_sheet``): each field
named as a sheet names it and what is wrong said plainly, with what was written ("Willpower must
be a number (you wrote “three”)", "The sheet needs an id"). Keyed by the field's path, as
``domain.sheets.sheet_problems`` gives them, so a form can put each beside its field."""

from __future__ import annotations

import re
from typing import Any

from projections.audit_render import visible

_NEEDS = {"id": "an id", "name": "a name"}


def _label(path: str) -> str:
    """ "willpower" → "Willpower"; "traits.physical.Brawny" → "Brawny (Physical Traits)"."""
    parts = [p for p in path.split(".") if p]
    if not parts:
        return "The sheet"
    if parts == ["id"]:
        return "The id"
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


def in_words(problems: dict[str, str], raw: Any) -> dict[str, str]:
    """Each problem as a sentence a player understands."""
    said = {}
    for path, what in problems.items():
        label = _label(path)
        wrote = _written(raw, path)
        shown = f" (you wrote “{wrote}”)" if wrote is not None else ""
        if what == "required":
            text = f"The sheet needs {_NEEDS.get(path, f'a {label.lower()}')}."
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
