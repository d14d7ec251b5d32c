"""Commands: what a client asks for (PROTOCOL section 1), one tagged union on ``type``.

Input from clients is strict: unknown fields are refused, and msgspec's error names the JSON path.
``character`` on a challenge verb says whom the actor acts for; it defaults to the actor, and only
the ST may name someone else (an NPC, or a player at an in-person table).
"""

from __future__ import annotations

import typing
from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from domain.effects import Effect
from domain.pools import PoolSpec
from domain.sheets import Category, Ident, Name, Sheet

CommandId = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[^~]")]
"""A client's command id. Ids starting with ``~`` are the server's own (its automatic throws, a
scene it opens, a fork): no client may take one."""
Text = Annotated[str, Meta(max_length=2000)]
Reason = Annotated[str, Meta(min_length=1, max_length=2000)]
Aware = Annotated[datetime, Meta(tz=True)]
Sign = Annotated[str, Meta(min_length=1, max_length=32)]
Bid = Annotated[list[Name], Meta(max_length=20)]


class BnsOptions(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
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


class Options(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """House rules a scene opts into: common ones, and each ruleset's own (only for a scene of that
    ruleset)."""

    cross_category_bids: bool = False
    """Both players agree to bid Traits of another category (lotn:categories)."""
    bns: BnsOptions | None = None


# -- retest sources (the ``source`` of ``retest`` and ``cancel_retest``) ----------------------


class _Source(msgspec.Struct, frozen=True, gc=False, tag_field="category", forbid_unknown_fields=True):
    @property
    def category(self) -> str:
        return self.__struct_config__.tag  # type: ignore[return-value]

    @property
    def key(self) -> str:
        """What makes two retests the same source (lotn:retests)."""
        name = getattr(self, "name", None)
        return f"{self.category}:{name}" if name else self.category


class AbilitySource(_Source, frozen=True, tag="ability"):
    name: Name


class PowerSource(_Source, frozen=True, tag="power"):
    name: Name


class MeritSource(_Source, frozen=True, tag="merit"):
    name: Name


class WillpowerSource(_Source, frozen=True, tag="willpower"):
    pass


class OverbidSource(_Source, frozen=True, tag="overbid"):
    bid: Bid = []


class SurpriseSource(_Source, frozen=True, tag="surprise"):
    pass


class DarknessSource(_Source, frozen=True, tag="darkness"):
    pass


Source = AbilitySource | PowerSource | MeritSource | WillpowerSource | OverbidSource | SurpriseSource | DarknessSource


# -- the envelope ------------------------------------------------------------------------------


class Command(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    id: CommandId
    scene: Ident
    actor: Annotated[str, Meta(min_length=1, max_length=64)]
    at: Aware | None = None

    @property
    def verb(self) -> str:
        return self.__struct_config__.tag  # type: ignore[return-value]


# -- scene verbs (actor st) --------------------------------------------------------------------


class OpenScene(Command, frozen=True, kw_only=True, tag="open_scene"):
    ruleset: Literal["lotn", "camarilla", "bns", "kony"]
    title: Text = ""
    options: Options = Options()


class AddCharacter(Command, frozen=True, kw_only=True, tag="add_character"):
    character: Sheet


class RemoveCharacter(Command, frozen=True, kw_only=True, tag="remove_character"):
    character: Ident


class Changes(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A manual correction; numbers are added to what the character has now."""

    willpower: int = 0
    abilities: dict[Name, int] = {}
    damage: dict[Literal["bashing", "lethal", "aggravated"], int] = {}
    restore_traits: list[Name] = []
    lose_traits: list[Name] = []
    lift_waits: bool = False
    """Lift every wait on challenges against this character: an immunity after a failed Mental or
    Social challenge once the situation changed significantly (bns:retry-immunity), a repeat wait."""


class Adjust(Command, frozen=True, kw_only=True, tag="adjust"):
    character: Ident
    changes: Changes
    reason: Reason


class CloseScene(Command, frozen=True, kw_only=True, tag="close_scene"):
    pass


# -- challenge verbs ---------------------------------------------------------------------------


class ChallengeCommand(Command, frozen=True, kw_only=True):
    challenge: Ident
    character: Ident | None = None

    def acting_for(self) -> str:
        return self.character or self.actor


class Declare(ChallengeCommand, frozen=True, kw_only=True, tag="declare"):
    kind: Literal["contested", "static", "simple"]
    category: Category
    targets: Annotated[list[Ident], Meta(max_length=20)] = []
    victory: Text = ""
    effect: Effect | None = None
    bid: Bid = []
    difficulty: Annotated[int, Meta(ge=0, le=99)] | None = None
    require_win: bool = False
    power: Name | None = None
    defense: Category | None = None
    """A mixed challenge: the category the target resists with (camarilla)."""
    surprise: bool = False
    """The target did not respond in time, or a power says so: a surprise retest (camarilla)."""
    ranged: bool = False
    """A ranged attack the target cannot answer: a surprise retest in any round (camarilla)."""
    darkness: Literal["challenger", "both"] | None = None
    """Who cannot see: the challenger, or both alike (camarilla)."""
    immediate: bool = False
    """A power usable "immediately" or "at any time": not bound to the initiative order (camarilla)."""
    pool: PoolSpec | None = None
    """The attack pool (bns), instead of a bid."""
    unseen: bool = False
    """The challenger cannot see the target (bns:line-of-sight)."""


class Join(ChallengeCommand, frozen=True, kw_only=True, tag="join"):
    """Another attacker joins a Physical challenge against the same target: a mob (camarilla)."""

    bid: Bid = []
    victory: Text = ""
    effect: Effect | None = None
    power: Name | None = None
    """The power this attacker's own attack uses (Feral Claws), should its victory condition be chosen."""
    pool: PoolSpec | None = None


class Champion(ChallengeCommand, frozen=True, kw_only=True, tag="champion"):
    """A mob member or the ST names the mob's champion: ``character`` (camarilla)."""


class ChooseVictory(ChallengeCommand, frozen=True, kw_only=True, tag="choose_victory"):
    """The winning champion picks whose victory condition applies: ``of`` (camarilla)."""

    of: Ident


class BidTraits(ChallengeCommand, frozen=True, kw_only=True, tag="bid"):
    """The defender's answer (Traits, or a defence pool where the ruleset plays pools), or the
    Traits a side owes."""

    bid: Bid = []
    victory: Text = ""
    pool: PoolSpec | None = None


class Relent(ChallengeCommand, frozen=True, kw_only=True, tag="relent"):
    pool: PoolSpec | None = None
    """The defence the relenting side would have used, where the grade of a relent hangs on it
    (bns:relent) and it has not answered yet."""


class Withdraw(ChallengeCommand, frozen=True, kw_only=True, tag="withdraw"):
    pass


class CallNegative(ChallengeCommand, frozen=True, kw_only=True, tag="call_negative"):
    trait: Name


class Throw(ChallengeCommand, frozen=True, kw_only=True, tag="throw"):
    sign: Sign


class RecordTest(ChallengeCommand, frozen=True, kw_only=True, tag="record_test"):
    signs: dict[str, Sign]


class DeclareTraits(ChallengeCommand, frozen=True, kw_only=True, tag="declare_traits"):
    count: Annotated[int, Meta(ge=0, le=999)]


class Retest(ChallengeCommand, frozen=True, kw_only=True, tag="retest"):
    source: Source


class CancelRetest(ChallengeCommand, frozen=True, kw_only=True, tag="cancel_retest"):
    source: Source


class Pass(ChallengeCommand, frozen=True, kw_only=True, tag="pass"):
    pass


# -- rounds (camarilla) --------------------------------------------------------------------------


class Action(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a character will do this round."""

    kind: Literal["challenge", "move", "none", "full_round", "end_of_turn"]
    category: Category | None = None
    """The category of the test the action needs (``challenge``)."""
    categories: Annotated[list[Category], Meta(max_length=3)] = []
    """An action needing tests of several categories (initiative takes the lowest)."""
    target: Ident | None = None
    steps: Annotated[int, Meta(ge=0, le=6)] = 0
    stand: bool = False
    """Stand up from prone (a step)."""
    drag: Ident | None = None
    """Drag the character one grapples."""


class StartRound(Command, frozen=True, kw_only=True, tag="start_round"):
    new_fight: bool = False
    """A new fight in the scene: its first round again (surprise is possible)."""


class EndRound(Command, frozen=True, kw_only=True, tag="end_round"):
    pass


class Order(Command, frozen=True, kw_only=True, tag="order"):
    """The ST's order among characters of equal initiative."""

    characters: Annotated[list[Ident], Meta(min_length=2, max_length=50)]


class DeclareAction(Command, frozen=True, kw_only=True, tag="declare_action"):
    character: Ident | None = None
    action: Action


class EndTurn(Command, frozen=True, kw_only=True, tag="end_turn"):
    """A character is done for its turn (the ST may end anyone's)."""

    character: Ident | None = None


class SpendBlood(Command, frozen=True, kw_only=True, tag="spend_blood"):
    """A point of blood for a bonus Physical Trait of the kind chosen now."""

    character: Ident | None = None
    kind: Literal["strength", "dexterity", "stamina"]


class LetGo(Command, frozen=True, kw_only=True, tag="let_go"):
    """The grappler lets the victim go."""

    character: Ident | None = None


# -- disputes and rulings ----------------------------------------------------------------------

Seq = Annotated[int, Meta(ge=1)]


class Dispute(Command, frozen=True, kw_only=True, tag="dispute"):
    """Any participant questions an event of the scene."""

    event: Seq
    reason: Reason


class Correction(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """What an amending ruling sets right: a challenge's winner, or a character."""

    winner: Literal["challenger", "defender", "none"] | None = None
    exceptional: bool | None = None
    """A resolved challenge's grade (bns)."""
    character: Ident | None = None
    changes: Changes | None = None


class Rule(Command, frozen=True, kw_only=True, tag="rule"):
    """The Storyteller's ruling on an event: uphold it, overturn a challenge's outcome, or amend."""

    event: Seq
    decision: Literal["uphold", "overturn", "amend"]
    correction: Correction | None = None
    reason: Reason


AnyCommand = (
    OpenScene
    | AddCharacter
    | RemoveCharacter
    | Adjust
    | CloseScene
    | Declare
    | BidTraits
    | Relent
    | Withdraw
    | CallNegative
    | Throw
    | RecordTest
    | DeclareTraits
    | Retest
    | CancelRetest
    | Pass
    | Dispute
    | Rule
    | Join
    | Champion
    | ChooseVictory
    | StartRound
    | EndRound
    | Order
    | DeclareAction
    | EndTurn
    | SpendBlood
    | LetGo
)

command_decoder = msgspec.json.Decoder(AnyCommand)
COMMANDS: dict[str, type[AnyCommand]] = {cls.__struct_config__.tag: cls for cls in typing.get_args(AnyCommand)}
"""Each command class by its verb, to convert a parsed body straight into its type."""


def parse_command(raw: bytes | str) -> AnyCommand:
    """Decode one command; raises ``msgspec.ValidationError`` naming the JSON path."""
    return command_decoder.decode(raw)
