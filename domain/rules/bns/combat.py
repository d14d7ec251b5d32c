"""Data the bns combat rules consult (docs/rules/bns-complex-scenarios-combat.txt): each combat
maneuver (its pool modifier, damage reduction, the condition it leaves and how that clears, who is
immune, the attacks it fits) and each action a character takes on its turn (what it spends). The
policies in ``bns_rounds`` only read these tables."""

from __future__ import annotations

from typing import Literal, NamedTuple

Spends = Literal["standard", "simple", "both"]

CLOSE_ATTACKS = frozenset({"unarmed", "melee", "bite", "claw"})
BRAWL = frozenset({"unarmed", "bite", "claw"})
PHYSICAL_ATTACKS = frozenset({"unarmed", "melee", "bite", "claw", "thrown", "archery", "firearms"})
RANGED = frozenset({"thrown", "archery", "firearms"})
REACH: dict[str, int] = {"unarmed": 2, "melee": 2, "bite": 2, "claw": 2, "thrown": 10}
"""How many steps away an attack reaches (bns:unarmed, bns:melee, bns:thrown); archery and
firearms: the weapon's range, which the ST judges."""
ANIMAL_FORMS = frozenset({"lupus", "hispo"})
"""Where feral maneuvers can be used (bns:feral-maneuvers)."""
UNCONSCIOUS_MINUTES = 10


class Maneuver(NamedTuple):
    title: str
    rule: str
    modifier: int = 0
    """Added to the attack pool."""
    reduction: int = 0
    """Damage taken away on a success (minimum 0)."""
    condition: str | None = None
    """What a success leaves on the target."""
    clears_after: int = 0
    """Simple actions the target spends to clear it."""
    sturdy: bool = False
    """A target with more Stamina than the attacker's Strength is immune."""
    free: frozenset[str] = frozenset()
    """The lists of free maneuvers it is on (``strength``, ``dexterity``; ``feral strength`` …)."""
    feral: bool = False
    attacks: frozenset[str] = PHYSICAL_ATTACKS
    """The attacks it has a logical way into (bns:maneuver-logic); empty: used with an action."""
    reach: int = 0
    plain_damage: bool = False
    """Its words state no reduction (Disarm, Knock Out): option ``maneuver_damage``."""


STRENGTH, DEXTERITY = frozenset({"strength"}), frozenset({"dexterity"})
ACTION = frozenset[str]()

MANEUVERS: dict[str, Maneuver] = {
    "burst_of_speed": Maneuver("Burst of Speed", "bns:burst-of-speed", free=DEXTERITY, attacks=ACTION),
    "blinding_attack": Maneuver(
        "Blinding Attack",
        "bns:blinding-attack",
        reduction=3,
        condition="blinded",
        clears_after=2,
        attacks=frozenset({"unarmed", "melee", "claw", "thrown"}),
    ),
    "disarm": Maneuver(
        "Disarm",
        "bns:disarm",
        modifier=-2,
        condition="disarmed",
        free=STRENGTH | DEXTERITY,
        attacks=CLOSE_ATTACKS,
        plain_damage=True,
    ),
    "fighting_blind": Maneuver("Fighting Blind", "bns:fighting-blind", free=DEXTERITY),
    "grapple": Maneuver(  # with the hands or a net, never an arrow (bns:grapple-range)
        "Grapple", "bns:grapple", reduction=3, condition="grappled", free=STRENGTH, attacks=CLOSE_ATTACKS
    ),
    "knock_out": Maneuver(
        "Knock Out",
        "bns:knock-out",
        modifier=-2,
        condition="unconscious",
        sturdy=True,
        free=STRENGTH,
        attacks=CLOSE_ATTACKS,
        plain_damage=True,
    ),
    "knock_down": Maneuver(
        "Knock Down",
        "bns:knock-down",
        reduction=1,
        condition="prone",
        sturdy=True,
        free=STRENGTH,
        attacks=CLOSE_ATTACKS,
    ),
    "pierce_the_heart": Maneuver(
        "Pierce the Heart",
        "bns:pierce-the-heart",
        modifier=-3,
        condition="staked",
        free=STRENGTH,
        attacks=frozenset({"melee", "thrown", "archery"}),
    ),
    "quick_draw": Maneuver("Quick Draw", "bns:quick-draw", free=DEXTERITY, attacks=ACTION),
    "snap_shot": Maneuver("Snap Shot", "bns:snap-shot", free=DEXTERITY, attacks=ACTION),
    "knock_back": Maneuver("Knock Back", "bns:knock-back", reduction=2, sturdy=True, attacks=CLOSE_ATTACKS),
    "lunging_attack": Maneuver(
        "Lunging Attack", "bns:lunging-attack", reduction=1, reach=2, attacks=frozenset({"unarmed", "melee"})
    ),
    "hamstring": Maneuver("Hamstring", "bns:hamstring", reduction=3, condition="hamstrung", clears_after=2),
    "targeted_attack": Maneuver("Targeted Attack", "bns:targeted-attack", modifier=-3),
    "dart_behind": Maneuver(
        "Dart Behind", "bns:dart-behind", free=frozenset({"feral dexterity"}), feral=True, attacks=ACTION
    ),
    "feral_dash": Maneuver(
        "Feral Dash", "bns:feral-dash", free=frozenset({"feral dexterity"}), feral=True, attacks=ACTION
    ),
    "mangle_fur": Maneuver(
        "Mangle Fur",
        "bns:mangle-fur",
        modifier=-2,
        condition="armor_mangled",
        clears_after=2,
        sturdy=True,
        free=frozenset({"feral strength"}),
        feral=True,
        attacks=BRAWL,
    ),
    "savage_leap": Maneuver(
        "Savage Leap", "bns:savage-leap", free=frozenset({"feral strength"}), feral=True, attacks=BRAWL
    ),
}
WITH_ACTION: dict[str, frozenset[str]] = {
    "burst_of_speed": frozenset({"move", "prone", "crawl", "stand", "draw", "nock", "clear", "other"}),
    "quick_draw": frozenset({"draw"}),
    "snap_shot": frozenset({"nock"}),
    "dart_behind": frozenset({"move"}),
    "feral_dash": frozenset({"move"}),
}
"""The actions a maneuver used without an attack goes with."""


class Act(NamedTuple):
    """An action taken on one's turn: what it spends, its most steps, and its rule."""

    spends: Spends
    rule: str
    steps: int = 0
    needs_prone: bool = False


ACTS: dict[str, Act] = {
    "move": Act("simple", "bns:movement", steps=3),
    "advanced_move": Act("standard", "bns:advanced-movement", steps=3),
    "prone": Act("simple", "bns:prone"),
    "crawl": Act("simple", "bns:prone", steps=1, needs_prone=True),
    "stand": Act("simple", "bns:prone", steps=1, needs_prone=True),
    "draw": Act("simple", "bns:simple-action"),
    "nock": Act("simple", "bns:archery"),
    "clear": Act("simple", "bns:blinding-attack"),
    "pick_up": Act("standard", "bns:disarm"),
    "trade": Act("standard", "bns:standard-action"),
    "other": Act("simple", "bns:simple-action"),
}
CLEARABLE: dict[str, str] = {
    "blinded": "bns:blinding-attack",
    "hamstrung": "bns:hamstring",
    "armor_mangled": "bns:mangle-fur",
}
"""Conditions a character clears with simple actions, and the rule that says how many."""
CLEARS_AFTER: dict[str, int] = {
    name: m.clears_after for m in MANEUVERS.values() if m.condition is not None and (name := m.condition)
}
"""Simple actions each condition takes to clear (whoever sets it: a maneuver, or the ST)."""
FERAL_DASH_STEPS = 9
"""Both actions' movement (six steps) plus three (bns:feral-dash)."""
