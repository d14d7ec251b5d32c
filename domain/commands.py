"""Commands: what a client asks for (PROTOCOL section 1), one tagged union on ``type``.

Input from clients is strict: unknown fields are refused, and msgspec's error names the JSON path.
``character`` on a challenge verb says whom the actor acts for; it defaults to the actor, and only
the ST may name someone else (an NPC, or a player at an in-person table).
"""

from __future__ import annotations

import typing
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from domain.carried import Carried
from domain.effects import Effect
from domain.pools import PoolSpec
from domain.sheets import PLAIN, UNCONTROLLED, Category, Ident, Name, Sheet, plain_sheet

CommandId = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[^~]")]
"""A client's command id. Ids starting with ``~`` are the server's own (its automatic throws, a
scene it opens, a fork): no client may take one."""
Text = Annotated[str, Meta(max_length=2000, pattern=UNCONTROLLED)]
"""Free text (a victory condition): no control characters (``domain.sheets.UNCONTROLLED``)."""
Title = Annotated[str, Meta(max_length=2000, pattern=PLAIN)]
"""A scene's or a night's title: as a name, no control characters nor bidi controls."""
Reason = Annotated[str, Meta(min_length=1, max_length=2000, pattern=UNCONTROLLED)]
Aware = Annotated[datetime, Meta(tz=True)]
Sign = Annotated[str, Meta(min_length=1, max_length=32)]
Bid = Annotated[list[Name], Meta(max_length=20)]


Seconds = Annotated[int, Meta(ge=1, le=86_400)]


class Deadline(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """How long one kind of move may wait, and what its lapse does (``domain.deadlines``)."""

    seconds: Seconds
    lapse: Literal["tell", "act"] = "tell"
    """``tell``: the Storyteller is told and chooses; ``act``: the server makes the move the kind
    names (a relent, a random throw or roll, a pass, the turn ended, the assist refused, the escape
    window closed)."""


class Deadlines(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """Response deadlines, by kind of move: none set, none runs (the default)."""

    answer: Deadline | None = None
    """A defender answering a challenge (a bid, a pool, or a relent)."""
    throw: Deadline | None = None
    """A side throwing or rolling its test (or declaring its Traits on a tie)."""
    retest: Deadline | None = None
    """The side behind retesting or passing (or letting the other's retest stand)."""
    turn: Deadline | None = None
    """A character declaring or acting on its turn in a round (or saying its expenditures are done)."""
    assist: Deadline | None = None
    """An attacker accepting or refusing an offer of assistance."""
    escape: Deadline | None = None
    """A fair escape's window, open to intents to attack until the escaper's turn ends."""

    def __bool__(self) -> bool:
        return self != NO_DEADLINES


NO_DEADLINES = Deadlines()
DeadlinesGiven = Annotated[dict[str, Any], Meta(max_length=16)]
"""Response deadlines as ``set_deadlines`` and ``open_game`` give them (``{"throw": {"seconds": 120}}``),
read by ``domain.deadlines.read``: a bad one is refused in the Storyteller's words (``bad_options``),
as a scene's ``options.deadlines`` are, not the decoder's."""


class Options(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """House rules a scene plays by: the ones every ruleset knows. A ruleset with readings of its
    own extends these (``Ruleset.options``); ``open_scene`` gives them as ``OptionsGiven``."""

    cross_category_bids: bool = False
    """Both players agree to bid Traits of another category (lotn:categories)."""
    deadlines: Deadlines = NO_DEADLINES
    """How long each kind of move may wait (``domain.deadlines``); none by default."""

    @property
    def timed(self) -> bool:
        """Whether any response deadline is set (most scenes have none: answered at once)."""
        return self.deadlines is not NO_DEADLINES and self.deadlines != NO_DEADLINES


OptionsGiven = Annotated[dict[str, Any], Meta(max_length=16)]
"""A scene's options as ``open_scene`` gives them and ``scene_opened`` records them: the common
ones (``cross_category_bids``), and the ruleset's own under its name (``{"bns": {"static_tests":
false}}``). The ruleset reads them (``Ruleset.read_options``), refusing another ruleset's."""


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


class SheetSource(_Source, frozen=True, tag="sheet"):
    """One of the retests an NPC combat sheet lists (``retests``) (kony:npc-sheets)."""


Source = (
    AbilitySource
    | PowerSource
    | MeritSource
    | WillpowerSource
    | OverbidSource
    | SurpriseSource
    | DarknessSource
    | SheetSource
)


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


RulesetName = Annotated[str, Meta(min_length=1, max_length=32, pattern="^[a-z][a-z0-9_]*$")]
"""A ruleset by the name the registry knows it by (``domain.rules``)."""


class OpenScene(Command, frozen=True, kw_only=True, tag="open_scene"):
    ruleset: RulesetName
    title: Title = ""
    options: OptionsGiven = {}
    game: Ident | None = None
    """The game night the scene belongs to: its characters enter with what they carry."""


class AddCharacter(Command, frozen=True, kw_only=True, tag="add_character"):
    """Add a character with its sheet; the id of one who left the scene brings them back (one
    character, its leaving and return in its history)."""

    character: Sheet
    as_written: bool = False
    """Keep what the rules leave open but looks like a slip (``domain.sheet_check``: a near miss of
    a name the rules use, a rating beyond their scale): the Storyteller has looked and confirms."""

    def __post_init__(self) -> None:
        plain_sheet(self.character)  # names: no control characters (a follow-up's Arrive keeps old ones)


class RemoveCharacter(Command, frozen=True, kw_only=True, tag="remove_character"):
    character: Ident


class AmendCharacter(Command, frozen=True, kw_only=True, tag="amend_character"):
    """Correct a character's sheet after it was added: the whole sheet as it should be (same id),
    and why. What the scene did to the character (Traits lost, damage, Willpower and levels spent)
    stays; the changes are the sheet's."""

    character: Ident
    sheet: Sheet
    reason: Reason
    as_written: bool = False
    """As ``add_character``'s."""

    def __post_init__(self) -> None:
        plain_sheet(self.sheet)


ConditionName = Literal[
    "prone",
    "blinded",
    "hamstrung",
    "unconscious",
    "armor_mangled",
    "disarmed",
    "no_exit",
    "incapacitated",
    "staked",
    "majesty_dropped",
    "escaped",
]
"""The conditions a scene keeps as marks (``conditions.marks``; ``prone`` and ``escaped`` are flags
of their own: ``escaped`` is ``conditions.fair_escape``, which the ST only clears, bringing one who
fair-escaped back into the fight)."""


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
    set_conditions: Annotated[list[ConditionName], Meta(max_length=10)] = []
    """Situational conditions the ST rules (``no_exit``, ``incapacitated``, ``blinded`` …)."""
    clear_conditions: Annotated[list[ConditionName], Meta(max_length=10)] = []
    down_traits: int = 0
    """Trait penalties (down Traits) from the environment or a power, added to those already set
    (kony:environment); negative to lift them."""
    fail_escape: bool = False
    """Fail the character's fair escape, declared or held (bns: a Mental or Social challenge against
    its Physical attribute, which the engine does not tell apart; bns:fair-escape-blocked)."""


class Adjust(Command, frozen=True, kw_only=True, tag="adjust"):
    character: Ident
    changes: Changes
    reason: Reason


class CloseScene(Command, frozen=True, kw_only=True, tag="close_scene"):
    pass


# -- game nights (actor st; ``scene`` names the night's own stream) ----------------------------


class OpenGame(Command, frozen=True, kw_only=True, tag="open_game"):
    ruleset: RulesetName
    title: Title = ""
    deadlines: DeadlinesGiven = {}
    """The response deadlines of the night's scenes, where a scene opened in it gives none."""


class CloseGame(Command, frozen=True, kw_only=True, tag="close_game"):
    pass


class RegisterCharacter(Command, frozen=True, kw_only=True, tag="register_character"):
    character: Sheet
    as_written: bool = False
    """As ``add_character``'s."""

    def __post_init__(self) -> None:
        plain_sheet(self.character)


class MoveCharacter(Command, frozen=True, kw_only=True, tag="move_character"):
    """Send a character of the night into one of its open scenes."""

    character: Ident
    to: Ident


# -- what the server sends between a night and its scenes (ids starting with ``~``) ------------


class Arrive(Command, frozen=True, kw_only=True, tag="arrive"):
    """To a scene: a character the night sent (its ``character_moved`` at ``seq``, hash ``hash``)."""

    game: Ident
    character: Sheet
    carried: Carried
    seq: int
    hash: str


class ComeBack(Command, frozen=True, kw_only=True, tag="come_back"):
    """To a night: a character left ``origin`` (its ``character_left`` at ``seq``), or never got in."""

    character: Ident
    origin: Ident
    seq: int = 0
    hash: str = ""
    carried: Carried
    why: str = ""


class NoteScene(Command, frozen=True, kw_only=True, tag="note_scene"):
    """To a night: one of its scenes opened or closed."""

    origin: Ident
    title: Title = ""
    closed: bool = False


class CarryCorrection(Command, frozen=True, kw_only=True, tag="carry_correction"):
    """To a night, then to the scene the character is in: a ruling in ``origin`` changed what the
    character carries."""

    character: Ident
    origin: Ident
    ruling: int
    changes: Changes
    why: str


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
    range: Annotated[int, Meta(ge=0, le=200)] | None = None
    """Steps between the attacker and the target, as the players agree (bns: reach, prone)."""
    maneuver: Maneuver | Annotated[list[Maneuver], Meta(min_length=1, max_length=2)] | None = None
    """A combat maneuver the attack uses (bns:maneuvers), or two: one an Assist Attacker pays for,
    the other a Willpower (bns:assist-attacker)."""

    @property
    def maneuvers(self) -> list[str]:
        return [self.maneuver] if isinstance(self.maneuver, str) else list(self.maneuver or [])


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
    effect: Effect | None = None
    """The defender's own victory condition, applied to the challenger if the defender wins (kony)."""
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


Die = Annotated[int, Meta(ge=1, le=100)]
"""A face of a die rolled by hand; the ruleset's die says how many it has (``Ruleset.check_entered``)."""


class Roll(ChallengeCommand, frozen=True, kw_only=True, tag="roll"):
    """A side rolls its d3s (kony): one, plus one for each retest source it names (each spent),
    plus ranged and surprise, less darkness. ``values`` are dice rolled by hand, entered by the ST
    (or by a player where ``options.kony.dice`` allows); ``rerolls`` the hand-rolled dice a narrative
    test's rerolls asked for."""

    retests: Annotated[list[Source], Meta(max_length=10)] = []
    values: Annotated[list[Die], Meta(min_length=1, max_length=20)] | None = None
    rerolls: Annotated[list[Die], Meta(max_length=20)] | None = None


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


# -- rounds ------------------------------------------------------------------------------------

Maneuver = Literal[
    "burst_of_speed",
    "blinding_attack",
    "disarm",
    "fighting_blind",
    "grapple",
    "knock_out",
    "knock_down",
    "pierce_the_heart",
    "quick_draw",
    "snap_shot",
    "knock_back",
    "lunging_attack",
    "hamstring",
    "targeted_attack",
    "dart_behind",
    "feral_dash",
    "mangle_fur",
    "savage_leap",
]
"""The combat maneuvers of bns (bns-complex-scenarios-combat.txt), feral ones included."""

ActionKind = Literal[
    # camarilla: declared at the start of the round
    "challenge",
    "move",
    "none",
    "full_round",
    "end_of_turn",
    # bns: taken on one's turn, each spending a standard or a simple action
    "fair_escape",
    "advanced_move",
    "prone",
    "crawl",
    "stand",
    "draw",
    "nock",
    "clear",
    "pick_up",
    "trade",
    "other",
]


class Action(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a character will do this round (camarilla), or does now (bns)."""

    kind: ActionKind
    category: Category | None = None
    """The category of the test the action needs (``challenge``)."""
    categories: Annotated[list[Category], Meta(max_length=3)] = []
    """An action needing tests of several categories (initiative takes the lowest)."""
    target: Ident | None = None
    steps: Annotated[int, Meta(ge=0, le=9)] = 0
    stand: bool = False
    """Stand up from prone (a step)."""
    drag: Ident | None = None
    """Drag the character one grapples."""
    using: Literal["standard", "simple"] | None = None
    """Which action a bns move spends (a simple one unless said)."""
    clears: ConditionName | None = None
    """The condition a bns ``clear`` works off (blinded, hamstrung, armor_mangled)."""
    item: Name | None = None
    """What a bns ``draw`` or ``pick_up`` takes in hand."""
    maneuver: Maneuver | None = None
    """A maneuver that changes the action (burst_of_speed, quick_draw, snap_shot, feral_dash …)."""
    what: Annotated[str, Meta(max_length=200)] = ""
    """What the character does (``other``: a power on oneself, opening a door)."""
    blocked_by: Ident | None = None
    """Who stopped a move short, as the ST rules (bns:blocking): recorded, no positions are kept."""


class StartRound(Command, frozen=True, kw_only=True, tag="start_round"):
    new_fight: bool = False
    """A new fight in the scene: its first round again (surprise is possible)."""
    rage: dict[Ident, Annotated[int, Meta(ge=0, le=5)]] = {}
    """Rage rounds this turn, by character, as the ST rules (bns:rage-rounds); otherwise the sheet's."""
    narrative: bool = False
    """A narrative round (kony:narrative): PvE only, tests against the ST's difficulty."""


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


class ExpendituresDone(Command, frozen=True, kw_only=True, tag="expenditures_done"):
    """A character has declared its Trait expenditures for the round (kony:expenditures)."""

    character: Ident | None = None


class Feed(Command, frozen=True, kw_only=True, tag="feed"):
    """The grappler feeds on the one it holds (kony:feeding)."""

    character: Ident | None = None
    target: Ident
    blood: Annotated[int, Meta(ge=1, le=3)] = 1


class LetGo(Command, frozen=True, kw_only=True, tag="let_go"):
    """The grappler lets the victim go."""

    character: Ident | None = None


class IntendAttack(Command, frozen=True, kw_only=True, tag="intend_attack"):
    """A character who has not acted yet announces a later physical attack on one trying to fair
    escape, while that escape's window is open (bns:fair-escape-intent)."""

    character: Ident | None = None
    target: Ident


class Assist(Command, frozen=True, kw_only=True, tag="assist"):
    """A mass combat tactic (bns:mass-combat): help an attacker (``to``, with a ``benefit``, which
    the attacker accepts or refuses), or shield a defender (``challenge``: the attack one takes)."""

    character: Ident | None = None
    kind: Literal["attacker", "defender"]
    to: Ident | None = None
    benefit: Literal["plus_one", "maneuver"] | None = None
    challenge: Ident | None = None
    how: Annotated[str, Meta(max_length=200)] = ""


class AnswerAssist(Command, frozen=True, kw_only=True, tag="answer_assist"):
    """The attacker accepts or refuses an offer of assistance (its ``offer``: the seq of
    ``assist_offered``)."""

    character: Ident | None = None
    offer: Annotated[int, Meta(ge=1)]
    accept: bool


# -- response deadlines (``domain.deadlines``) -------------------------------------------------


class SetDeadlines(Command, frozen=True, kw_only=True, tag="set_deadlines"):
    """The Storyteller changes the scene's response deadlines (or a night's, for scenes opened in
    it later); every running clock starts again now."""

    deadlines: DeadlinesGiven


class ExtendDeadline(Command, frozen=True, kw_only=True, tag="extend_deadline"):
    """The Storyteller gives a move more time: its clock starts again now, for ``seconds`` (its
    kind's own time by default)."""

    key: Annotated[str, Meta(min_length=1, max_length=200)]
    seconds: Seconds | None = None


class Lapse(Command, frozen=True, kw_only=True, tag="lapse"):
    """A deadline ran out (the server's, as the Storyteller, when its clock says so): refused unless
    the deadline ``key`` names still runs and its time has passed at the command's time."""

    key: Annotated[str, Meta(min_length=1, max_length=200)]


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
    | AmendCharacter
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
    | Roll
    | ExpendituresDone
    | Feed
    | IntendAttack
    | Assist
    | AnswerAssist
    | OpenGame
    | CloseGame
    | RegisterCharacter
    | MoveCharacter
    | Arrive
    | ComeBack
    | NoteScene
    | CarryCorrection
    | SetDeadlines
    | ExtendDeadline
    | Lapse
)

command_decoder = msgspec.json.Decoder(AnyCommand)
COMMANDS: dict[str, type[AnyCommand]] = {cls.__struct_config__.tag: cls for cls in typing.get_args(AnyCommand)}
"""Each command class by its verb, to convert a parsed body straight into its type."""


def parse_command(raw: bytes | str) -> AnyCommand:
    """Decode one command; raises ``msgspec.ValidationError`` naming the JSON path."""
    return command_decoder.decode(raw)
