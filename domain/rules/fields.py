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
    kind: Literal[
        "number", "named", "leveled", "ratings", "traits", "trait_names", "list", "check", "weapons", "text"
    ] = "number"
    """A number; names with how many (``Brawl 2, Dodge``); names, with levels if any are given
    (powers, merits); a number for each of ``names`` (attributes); Traits with how many in each of
    the three categories; names in each of the three categories (Negative Traits); names; a yes or
    no; weapons; a word."""
    default: int | None = None
    npc: bool = False
    """Asked only for a non-player character."""
    hint: str = ""
    """A note below the field ("Missing skills count as 0: unskilled")."""
    examples: tuple[str, ...] = ()
    """What the empty field shows, in the ruleset's own words ("e.g. Brawl 2, Dodge"): one; a
    ``traits`` field's, one for each category (physical, social, mental), or one for all three."""
    names: dict[str, str] = {}
    """A ``ratings`` field's names, each with the group the form shows it in (``strength``:
    ``physical``); a sheet may give the groups' own names instead (the three ratings)."""
    means: str = ""
    """A ``check`` on a list of names: the name a tick puts in it (``bomb``); else a tick is true."""
    lead: tuple[str, ...] = ()
    """The form opens by saying how this field is written: the words, then an example quoted
    (``("Names with how many, separated by commas", "Ferocious 2, Quick")``); one field leads."""
