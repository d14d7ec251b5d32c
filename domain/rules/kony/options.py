"""How a kony scene reads what its document leaves open: its options, their defaults and words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from domain.commands import Options
from domain.rules.words import OptionWords


class KonyOptions(Options, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """How a ``kony`` scene reads what its document leaves open (docs/rulesets.md)."""

    dice: Literal["server", "players"] = "server"
    """Who may enter dice rolled by hand: the ST only, for any side (``server``: players' dice are
    drawn by the server), or each player for their own side too (``players``) (kony:d3-test)."""
    ties: Literal["draw", "traits", "per_die"] = "draw"
    """Equal successes: a draw (the words; the trait pool decides overbids only), the larger pool
    wins (``traits``), or each 2 rolled counts as a success for the side with the larger pool
    (``per_die``) (kony:draw)."""
    extra_actions: Literal["after_everyman", "on_turn"] = "after_everyman"
    """Extra actions after everyone's first action (the end-of-round rule), or all on one's turn
    (kony:actions). Narrative rounds are always ``on_turn``."""
    narrative_equal: Literal["loss", "win"] = "loss"
    """A 2 in a narrative test, with a trait total equal to the difficulty (kony:narrative-test)."""
    blind_fighting: Literal["hold", "spend"] = "hold"
    """Holding the Blind Fighting ability negates darkness, or spending a level does
    (kony:blind-fighting)."""
    escape: Literal["round", "fight"] = "round"
    """Fair escape before any declaration of this round, or only before the fight's first
    (kony:fair-escape)."""


OPTION_WORDS: Mapping[str, OptionWords] = {
    "dice": OptionWords(
        label="Dice",
        choices=(("server", "The server rolls"), ("players", "Players may enter their own")),
        help="Who may enter dice rolled by hand: the Storyteller always may",
    ),
    "ties": OptionWords(
        label="Equal successes",
        choices=(
            ("draw", "A draw: both lose their bids"),
            ("traits", "The larger Trait Pool wins"),
            ("per_die", "Each 2 to the larger pool"),
        ),
        help="What equal numbers of 1s do; per die: each 2 counts as a 1 for the larger Trait Pool",
    ),
    "extra_actions": OptionWords(
        label="Extra actions",
        choices=(("after_everyman", "After everyone's first action"), ("on_turn", "All on one's own turn")),
        help="When Celerity's and combat sheets' extra actions come (narrative rounds: on one's turn)",
    ),
    "narrative_equal": OptionWords(
        label="Narrative test, equal pool",
        choices=(("loss", "A loss"), ("win", "A win")),
        help="A narrative test that comes down to a 2 with the Trait Pool equal to the difficulty",
    ),
    "blind_fighting": OptionWords(
        label="Blind Fighting in darkness",
        choices=(("hold", "Holding it negates darkness"), ("spend", "Spent when named")),
        help="How the Ability negates darkness; spent: named in the roll, it adds no die",
    ),
    "escape": OptionWords(
        label="Fair escape",
        choices=(("round", "Each round, first"), ("fight", "Only as the fight starts")),
        help="When a character may leave without a test: before any declaration of the round, or of the fight",
    ),
}
"""What the new-scene form says of each option (the first choice of each is the usual one)."""
