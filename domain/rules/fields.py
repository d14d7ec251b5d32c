"""The sheet's fields as a ruleset plays them: what the sheet form asks and the sheet view shows."""

from __future__ import annotations

from typing import Literal

import msgspec


class SheetField(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A field of the shared sheet (``domain.sheets.Sheet``) that a ruleset plays, as the sheet
    form asks for it and the sheet view shows it."""

    name: str
    """The sheet's field: ``traits``, ``attributes``, ``armor`` …"""
    label: str
    kind: Literal["number", "named", "traits", "list", "check", "weapons", "text"] = "number"
    """A number; names with levels; the three categories of Traits; names; a yes or no; weapons;
    a word."""
    default: int | None = None
    npc: bool = False
    """Asked only for a non-player character."""
    hint: str = ""
