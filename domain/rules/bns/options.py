"""How a bns scene reads what its documents leave open: its options, their defaults and words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from domain.commands import Options
from domain.rules.words import OptionWords


class BnsOptions(Options, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """How a ``bns`` scene reads what its documents leave open (docs/rulesets.md)."""

    static_tests: bool = True
    """Static challenges: the same comparison against a difficulty the ST sets (bns:static)."""
    unskilled_critical: bool = True
    """An unskilled loss is a critical failure (bns:unskilled, bns:complications)."""
    critical_defenders: bool = False
    """Defenders can fail critically too, defending unskilled (bns:unskilled)."""
    relent_exceptional: bool = True
    """Relenting with the lower pool gives the attacker an exceptional success (bns:relent)."""
    retry_immunity: bool = True
    """A failed Mental or Social challenge leaves the target immune to it for ten minutes
    (bns:retry-immunity)."""
    soak_overbid: bool = False
    """A soaking defender may overbid too: the "general retest" read as any retest that is not a
    power's (bns:soak). Off: soaking, the only retest is Willpower."""
    initiative_tests: Literal["server", "table"] = "server"
    """Who throws the test between characters tied on initiative, Wits and Dexterity: the server
    (random signs until one wins, recorded in ``initiative_set``) or the table (the ST records the
    order with ``order``) (bns:initiative-ties)."""
    escape_failed_by: Literal["any", "intenders"] = "any"
    """Whose attack fails a held fair escape: anyone's (the words), or only those who declared
    intent (bns:fair-escape-hold)."""
    escape_resolves: Literal["round", "turn"] = "round"
    """When a held escape succeeds: when the universal round ends, before Rage rounds (``round``), or
    when the whole turn ends, after them (``turn``) (bns:fair-escape-hold)."""
    free_maneuvers: Literal["per_list", "one"] = "per_list"
    """Free maneuvers per fight with Strength or Dexterity 4: one from each list the character
    qualifies for (``per_list``), or one in all (``one``) (bns:free-maneuvers)."""
    damage_floor: Literal["after", "before"] = "after"
    """Damage with maneuvers: the amount, the exceptional point and the reductions summed, then
    floored at 0 (``after``); or the reductions floored at 0 first, then the point (``before``)."""
    maneuver_damage: Literal["normal", "none"] = "normal"
    """Disarm and Knock Out, whose words state no damage reduction: the attack's damage as usual,
    or none (bns:disarm)."""


OPTION_WORDS: Mapping[str, OptionWords] = {
    "static_tests": OptionWords(label="Static challenges against a difficulty"),
    "unskilled_critical": OptionWords(label="An unskilled loss is a critical failure"),
    "critical_defenders": OptionWords(label="Defenders can fail critically too"),
    "relent_exceptional": OptionWords(label="Relenting with the lower pool gives an exceptional success"),
    "retry_immunity": OptionWords(label="Ten minutes' immunity after a failed Mental or Social challenge"),
    "soak_overbid": OptionWords(label="A soaking defender may overbid"),
    "initiative_tests": OptionWords(
        label="Initiative ties",
        choices=(("server", "The server throws the tie-breaking tests"), ("table", "The table throws; you order them")),
        help="Characters tied on initiative, Wits and Dexterity",
    ),
    "escape_failed_by": OptionWords(
        label="A held fair escape fails",
        choices=(("any", "When anyone attacks"), ("intenders", "Only when one who declared intent attacks")),
    ),
    "escape_resolves": OptionWords(
        label="A held fair escape succeeds",
        choices=(("round", "When the universal round ends"), ("turn", "When the whole turn ends, after Rage rounds")),
    ),
    "free_maneuvers": OptionWords(
        label="Free maneuvers a fight",
        choices=(("per_list", "One from each list the character qualifies for"), ("one", "One in all")),
        help="With Strength or Dexterity 4",
    ),
    "damage_floor": OptionWords(
        label="Damage with maneuvers",
        choices=(("after", "Summed, then floored at 0"), ("before", "Reductions floored at 0 first")),
    ),
    "maneuver_damage": OptionWords(
        label="Disarm and Knock Out",
        choices=(("normal", "Deal the attack's damage"), ("none", "Deal no damage")),
    ),
}
"""What the new-scene form says of each option."""
