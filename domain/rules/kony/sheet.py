"""A kony sheet: Traits as in Laws of the Night, with armour, extra actions, escape powers, and an
NPC's combat sheet (kony:npc-sheets)."""

from __future__ import annotations

from domain.rules.fields import SheetField
from domain.rules.sheets import trait_sheet

TRAITS = trait_sheet(
    traits=("Brawny 2, Tough", "Intimidating 2", "Alert"),
    negative="Clumsy",
    abilities="Brawl 2, Blind Fighting",
    powers="Celerity 2, Fortitude 1",
    merits="a merit's name",
)

DICE_SHEET: tuple[SheetField, ...] = (
    *(f for f in TRAITS if f.name != "gestures"),
    SheetField(name="armor", label="Armour", default=0),
    SheetField(name="extra_actions", label="Extra actions each round", default=0),
    SheetField(
        name="escape_powers", label="Powers to leave the scene at any time", kind="list", examples=("e.g. Obfuscate",)
    ),
    SheetField(name="combat_sheet", label="A combat sheet (you declare for it at any time)", kind="check", npc=True),
    SheetField(name="retests", label="Retests on its sheet", default=0, npc=True),
    SheetField(name="rerolls", label="Rerolls in a narrative test", default=0, npc=True),
)
"""A kony sheet, in the form's order."""
