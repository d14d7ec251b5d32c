"""Events: facts in the past tense (PROTOCOL section 2), one tagged union on ``type``.

An event here is the ``data`` of a log record; ``domain.log.Recorded`` wraps it with its seq, time,
actor and hash. Stored events stay tolerant: new fields always get defaults, nothing is renamed.
Ruling events (``test_resolved``, ``overbid_*``, ``challenge_resolved``, ``trait_lost``, …) carry
the ``rule`` they applied and the numbers they ``compared``, so a replay explains itself. Each
event type says once what it is (``FACTS``, ``domain.facts``); views, redaction, rulings and the
night read that instead of keeping lists of their own.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

import msgspec

from domain.carried import Carried
from domain.commands import NO_DEADLINES, Action, Changes, Deadlines, OptionsGiven, Source
from domain.effects import DamageType, Effect
from domain.facts import A_SHEET, Facts, Secret
from domain.pools import Pool
from domain.sheets import Category, Sheet

Role = Literal["challenger", "defender"]
Leader = Literal["challenger", "defender", "none"]
Result = Literal["win", "lose", "tie"]


class Event(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag_field="type"):
    FACTS: ClassVar[Facts]
    """What the event type is (``domain.facts``): whom it touches, what of it is secret from whom,
    whether a ruling undoes it, what of it a game night carries. Every event type declares its own,
    beside its fields (tests/test_event_facts.py)."""

    @classmethod
    def type_name(cls) -> str:
        return cls.__struct_config__.tag  # type: ignore[return-value]


# -- the scene ---------------------------------------------------------------------------------


class SceneOpened(Event, frozen=True, kw_only=True, tag="scene_opened"):
    FACTS: ClassVar[Facts] = Facts(sends=True)

    ruleset: str
    title: str = ""
    options: OptionsGiven = {}
    """As the ruleset read them: the common ones, and its own under its name, every reading
    written out (``Ruleset.read_options``)."""
    game: str = ""
    """The game night the scene belongs to (empty: a scene on its own)."""


class CharacterAdded(Event, frozen=True, kw_only=True, tag="character_added"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), secret=A_SHEET)

    character: Sheet


class CharacterAmended(Event, frozen=True, kw_only=True, tag="character_amended"):
    """The Storyteller corrected a character's sheet: ``character`` is the sheet as it is now,
    ``changed`` the paths of what differs from the sheet before (``skills.brawl``, ``willpower``),
    ``reason`` why. What the scene did to the character stays."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",),
        secret=(*A_SHEET, Secret(fields=("changed", "reason"), known_to="character")),
    )

    character: Sheet
    changed: list[str]
    reason: str


class CharacterRemoved(Event, frozen=True, kw_only=True, tag="character_removed"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    character: str


class CharacterAdjusted(Event, frozen=True, kw_only=True, tag="character_adjusted"):
    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(Secret(fields=("changes", "reason"), known_to="character"),), carried=True
    )

    character: str
    changes: Changes
    reason: str
    lifted: list[str] = []
    """The waits lifted (``changes.lift_waits``): their keys, as the challenges that set them."""
    ruling: int = 0
    """The ruling that made it (the seq of its ``ruling_issued``: an amend's ``changes``); 0 for the
    Storyteller's own ``adjust``."""

    LATE: ClassVar[tuple[str, ...]] = ("ruling",)


class SceneClosed(Event, frozen=True, kw_only=True, tag="scene_closed"):
    FACTS: ClassVar[Facts] = Facts(turns=True, sends=True)


class SceneForked(Event, frozen=True, kw_only=True, tag="scene_forked"):
    """This scene's events so far are a copy of ``scene``'s events 1..``seq``, whose last hash was
    ``hash``: a what-if that never touches the original."""

    FACTS: ClassVar[Facts] = Facts()

    scene: str
    seq: int
    hash: str


# -- a game night (its own stream) and its scenes' side of it --------------------------------


class GameOpened(Event, frozen=True, kw_only=True, tag="game_opened"):
    """A game night begins: its characters carry what they lose from scene to scene."""

    FACTS: ClassVar[Facts] = Facts()
    LATE: ClassVar[tuple[str, ...]] = ("deadlines",)

    ruleset: str
    title: str = ""
    deadlines: Deadlines = NO_DEADLINES
    """The response deadlines of its scenes, where one opened in it gives none."""


class GameClosed(Event, frozen=True, kw_only=True, tag="game_closed"):
    FACTS: ClassVar[Facts] = Facts()


class CharacterRegistered(Event, frozen=True, kw_only=True, tag="character_registered"):
    """A character joins the night with its sheet, whole."""

    FACTS: ClassVar[Facts] = Facts(people=("character",), secret=A_SHEET)

    character: Sheet


class SceneAdded(Event, frozen=True, kw_only=True, tag="scene_added"):
    """A scene of this night was opened (its own stream)."""

    FACTS: ClassVar[Facts] = Facts(secret=(Secret(fields=("scene", "title"), spectators=True),))

    scene: str
    title: str = ""


class SceneEnded(Event, frozen=True, kw_only=True, tag="scene_ended"):
    """A scene of this night was closed."""

    FACTS: ClassVar[Facts] = Facts(secret=(Secret(fields=("scene",), spectators=True),))

    scene: str


class CharacterMoved(Event, frozen=True, kw_only=True, tag="character_moved"):
    """The Storyteller sends a character into a scene of the night, carrying what it has now."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(Secret(fields=("to",), known_to="character", spectators=True),), sends=True
    )

    character: str
    to: str


class CharacterEntered(Event, frozen=True, kw_only=True, tag="character_entered"):
    """In a scene: a character of the night arrives with what it carries, from the night's event
    ``seq`` (whose hash is ``hash``): the scene replays on its own."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(*A_SHEET, Secret(fields=("carried",), known_to="character")), carried=True
    )

    character: Sheet
    carried: Carried
    game: str
    seq: int
    hash: str


class CharacterLeft(Event, frozen=True, kw_only=True, tag="character_left"):
    """In a scene: a character of the night leaves (or the scene closes), taking what it carries."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(Secret(fields=("carried",), known_to="character"),), sends=True
    )

    character: str
    carried: Carried


class CharacterReturned(Event, frozen=True, kw_only=True, tag="character_returned"):
    """In the night: a character is back from ``scene`` (its event ``seq``, whose hash is
    ``hash``) with what it carries now; ``why`` says when it never got in."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",),
        secret=(
            Secret(fields=("carried",), known_to="character"),
            Secret(fields=("scene", "why"), known_to="character", spectators=True),
        ),
        carried=True,
    )

    character: str
    scene: str
    seq: int = 0
    hash: str = ""
    carried: Carried
    why: str = ""


class CarriedCorrected(Event, frozen=True, kw_only=True, tag="carried_corrected"):
    """A ruling in ``scene`` (its event ``ruling``) changed what a character carries after it left
    that scene: the correction, appended to the night and to the scene the character is in now."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",),
        secret=(Secret(fields=("changes", "why"), known_to="character"),),
        carried=True,
        sends=True,
    )

    character: str
    scene: str
    ruling: int
    changes: Changes
    why: str


# -- a challenge -------------------------------------------------------------------------------


class ChallengeDeclared(Event, frozen=True, kw_only=True, tag="challenge_declared"):
    FACTS: ClassVar[Facts] = Facts(
        people=("challenger", "targets"),
        secret=(Secret(fields=("pool",), known_to="challenger", until="test_revealed"),),
    )

    challenge: str
    kind: Literal["contested", "static", "simple"]
    challenger: str
    targets: list[str] = []
    category: Category
    victory: str = ""
    effect: Effect | None = None
    bid: list[str] = []
    difficulty: int | None = None
    require_win: bool = False
    power: str | None = None
    defense: Category | None = None
    lead: str | None = None
    """The kind of the first Trait bid (camarilla: strength, dexterity, stamina, social, mental)."""
    round: int | None = None
    uses_action: bool = False
    surprise: bool = False
    ranged: bool = False
    darkness: str | None = None
    immediate: bool = False
    pool: Pool | None = None
    """The challenger's attack pool, every part and the total (bns)."""
    unseen: bool = False
    range: int | None = None
    """Steps to the target, as declared (bns)."""
    maneuver: str | list[str] | None = None
    """The combat maneuver the attack uses, or two (bns)."""
    gate: bool = False
    """A test an action needs before the one that causes its effect (camarilla: the Social test
    against Majesty before a punch, a touch before a Quell): part of the action, not a challenge
    of its own type (camarilla:multiple-tests-type)."""


class BidPlaced(Event, frozen=True, kw_only=True, tag="bid_placed"):
    """A side puts Traits at risk (or, where the ruleset plays pools, sets its defence pool): the
    defender's answer, or what a Negative Trait call owes."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(Secret(fields=("pool",), known_to="character", until="test_revealed"),)
    )

    challenge: str
    character: str
    traits: list[str] = []
    victory: str = ""
    owed: bool = False
    pool: Pool | None = None
    lead: str | None = None
    effect: Effect | None = None
    """The defender's own victory condition (kony:resolution)."""


class Relented(Event, frozen=True, kw_only=True, tag="relented"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str
    rule: str
    pool: Pool | None = None
    """The defence the relenting side would have used, when it had not answered (bns:relent)."""


class ChallengeWithdrawn(Event, frozen=True, kw_only=True, tag="challenge_withdrawn"):
    FACTS: ClassVar[Facts] = Facts(people=("by",))

    challenge: str
    by: str


class NegativeTraitCalled(Event, frozen=True, kw_only=True, tag="negative_trait_called"):
    """``correct`` says whether ``against`` has ``trait``; ``owed_by`` must bid one more Trait,
    unless ``matched`` is false: then the other side's Traits are no longer at risk."""

    FACTS: ClassVar[Facts] = Facts(people=("by", "against", "owed_by"))

    challenge: str
    by: str
    against: str
    trait: str
    correct: bool
    owed_by: str
    matched: bool
    rule: str


class ThrowSealed(Event, frozen=True, kw_only=True, tag="throw_sealed"):
    """A throw nobody but the thrower and the ST may see until both are in."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",),
        secret=(Secret(fields=("sign",), known_to="character", blind=True, until="test_revealed"),),
    )

    challenge: str
    test: int
    character: str
    sign: str
    random: bool = False


class DiceRolled(Event, frozen=True, kw_only=True, tag="dice_rolled"):
    """A side's d3s, sealed like a throw: nobody but the roller and the ST sees the dice, the count or
    the retests named until both sides have rolled (kony:d3-test)."""

    FACTS: ClassVar[Facts] = Facts(
        people=("character",),
        secret=(Secret(fields=("dice", "retests", "why"), known_to="character", blind=True, until="test_revealed"),),
    )

    challenge: str
    test: int
    character: str
    dice: list[int]
    retests: list[Source] = []
    why: str = ""
    """How many dice, and why (1 + retests + ranged + surprise - darkness)."""
    entered_by: str | None = None
    """Who entered dice rolled by hand (None: the server rolled them)."""


class TestRevealed(Event, frozen=True, kw_only=True, omit_defaults=True, tag="test_revealed"):
    """Both signs (or both sides' dice) shown; ``result`` is from the challenger's side."""

    __test__ = False  # not a pytest test class

    FACTS: ClassVar[Facts] = Facts()

    challenge: str
    test: int
    signs: dict[str, str] = {}
    result: Result
    recorded_by: str | None = None
    rule: str
    pools: dict[str, Pool] = {}
    """Each side's test pool, made public with the first test (bns)."""
    dice: dict[str, list[int]] = {}
    """Each side's dice, as rolled (kony)."""
    rerolled: list[int] = []
    """A narrative test's dice after the NPC's rerolls (kony:narrative-rerolls)."""
    successes: dict[str, int] = {}
    """Each side's count of 1s (kony:successes)."""
    retests: dict[str, list[Source]] = {}
    """The retest sources each side named for its dice (kony)."""


class DeclarationsOpened(Event, frozen=True, kw_only=True, tag="declarations_opened"):
    """Both sides must now declare how many Traits they have, ``first`` first."""

    FACTS: ClassVar[Facts] = Facts()

    challenge: str
    test: int
    purpose: Literal["tie", "overbid"]
    first: str
    rule: str


class TraitsDeclared(Event, frozen=True, kw_only=True, tag="traits_declared"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    test: int
    character: str
    count: int
    purpose: Literal["tie", "overbid"] = "tie"


class TestResolved(Event, frozen=True, kw_only=True, tag="test_resolved"):
    """Who leads after the test: the signs, or on a tie the Traits compared."""

    __test__ = False  # not a pytest test class

    FACTS: ClassVar[Facts] = Facts()

    challenge: str
    test: int
    leader: Leader
    why: str
    rule: str
    compared: dict[str, int] = {}


class RetestInvoked(Event, frozen=True, kw_only=True, tag="retest_invoked"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str
    source: Source
    rule: str


class RetestCancelled(Event, frozen=True, kw_only=True, tag="retest_cancelled"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str
    source: Source
    rule: str


class AbilitySpent(Event, frozen=True, kw_only=True, tag="ability_spent"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    ability: str
    challenge: str


class Passed(Event, frozen=True, kw_only=True, tag="passed"):
    """No (further) retest from this side; on a pending retest, the winner lets it stand."""

    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str


class OverbidSucceeded(Event, frozen=True, kw_only=True, tag="overbid_succeeded"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str
    compared: dict[str, int]
    why: str
    rule: str


class OverbidFailed(Event, frozen=True, kw_only=True, tag="overbid_failed"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    challenge: str
    character: str
    compared: dict[str, int]
    why: str
    rule: str


class ChallengeResolved(Event, frozen=True, kw_only=True, tag="challenge_resolved"):
    """The final outcome. ``wait_until`` is set when the challenger may not repeat this
    challenge before then (``wait_key`` names what counts as a repeat)."""

    FACTS: ClassVar[Facts] = Facts(carried=True)

    challenge: str
    winner: Leader
    exceptional: bool = False
    critical: str | None = None
    """Who failed critically (bns:unskilled)."""
    why: str
    rule: str
    wait_key: str | None = None
    wait_until: datetime | None = None


class RetestStood(Event, frozen=True, kw_only=True, tag="retest_stood"):
    """A retest nobody may cancel (bns Willpower and overbid retests) stands at once: the next test
    begins."""

    FACTS: ClassVar[Facts] = Facts()

    challenge: str
    rule: str


class TraitLost(Event, frozen=True, kw_only=True, tag="trait_lost"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), undone_by="trait_restored", carried=True)

    character: str
    trait: str
    category: Category
    challenge: str
    why: str
    rule: str


class DamageTaken(Event, frozen=True, kw_only=True, omit_defaults=True, tag="damage_taken"):
    """Damage a character takes from a won attack. ``why`` says how the amount and type came from
    what was declared ("1 lethal declared; Feral Claws makes it aggravated.", or "1 lethal, as
    declared."), ``rule`` the rule of the first change (empty: as declared). Both default to empty
    and are left out when empty, so logs written before them decode and hash as they did."""

    FACTS: ClassVar[Facts] = Facts(people=("character",), undone_by="damage_healed", carried=True)

    LATE: ClassVar[tuple[str, ...]] = ("why", "rule")
    """Fields added after logs were written: left out of the canonical data when empty."""

    character: str
    amount: int
    damage: DamageType
    challenge: str
    why: str = ""
    rule: str = ""


class ArmorDamaged(Event, frozen=True, kw_only=True, tag="armor_damaged"):
    """Damage armour took before the character (kony:damage-order)."""

    FACTS: ClassVar[Facts] = Facts(people=("character",), undone_by="armor_restored")

    character: str
    amount: int
    challenge: str
    why: str
    rule: str


class GrappleStarted(Event, frozen=True, kw_only=True, tag="grapple_started"):
    FACTS: ClassVar[Facts] = Facts(people=("grappler", "victim"), undone_by="grapple_broken")

    grappler: str
    victim: str
    challenge: str


class GrappleBroken(Event, frozen=True, kw_only=True, tag="grapple_broken"):
    FACTS: ClassVar[Facts] = Facts(people=("grappler", "victim"), undone_by="grapple_started")

    grappler: str
    victim: str
    challenge: str = ""
    why: str = ""


class KnockedDown(Event, frozen=True, kw_only=True, tag="knocked_down"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), undone_by="prone_cleared")

    character: str
    challenge: str


# -- disputes and rulings ----------------------------------------------------------------------


class DisputeOpened(Event, frozen=True, kw_only=True, tag="dispute_opened"):
    FACTS: ClassVar[Facts] = Facts(people=("by",))

    event: int
    by: str
    reason: str


class RulingIssued(Event, frozen=True, kw_only=True, tag="ruling_issued"):
    """The ST's ruling on event ``event``, closing the ``disputes`` (their seqs) on it. For a
    challenge's outcome, ``winner`` is the corrected winner and ``later`` the challenges resolved
    since that involve the same characters: they stand as played."""

    FACTS: ClassVar[Facts] = Facts(sends=True)

    event: int
    decision: Literal["uphold", "overturn", "amend"]
    reason: str
    disputes: list[int] = []
    challenge: str | None = None
    winner: Leader | None = None
    later: list[str] = []
    why: str
    rule: str


class OutcomeCorrected(Event, frozen=True, kw_only=True, tag="outcome_corrected"):
    """A ruling changed a resolved challenge's winner; ``ruling`` is the ruling's seq."""

    FACTS: ClassVar[Facts] = Facts()

    challenge: str
    winner: Leader
    ruling: int
    why: str
    rule: str
    exceptional: bool = False


class TraitRestored(Event, frozen=True, kw_only=True, tag="trait_restored"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    trait: str
    category: Category
    challenge: str
    why: str


class ArmorRestored(Event, frozen=True, kw_only=True, tag="armor_restored"):
    """A ruling gives back armour a challenge's damage destroyed."""

    FACTS: ClassVar[Facts] = Facts(people=("character",))

    character: str
    amount: int
    challenge: str


class DamageHealed(Event, frozen=True, kw_only=True, tag="damage_healed"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    amount: int
    damage: DamageType
    challenge: str


class ProneCleared(Event, frozen=True, kw_only=True, tag="prone_cleared"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    character: str
    challenge: str


# -- mobs (camarilla) ------------------------------------------------------------------------


class MobJoined(Event, frozen=True, kw_only=True, tag="mob_joined"):
    FACTS: ClassVar[Facts] = Facts(
        people=("character",), secret=(Secret(fields=("pool",), known_to="character", until="test_revealed"),)
    )

    challenge: str
    character: str
    traits: list[str] = []
    victory: str = ""
    effect: Effect | None = None
    lead: str | None = None
    power: str | None = None
    uses_action: bool = False
    pool: Pool | None = None


class ChampionChosen(Event, frozen=True, kw_only=True, tag="champion_chosen"):
    FACTS: ClassVar[Facts] = Facts(people=("character", "by"))

    challenge: str
    character: str
    by: str


class VictoryChosen(Event, frozen=True, kw_only=True, tag="victory_chosen"):
    """Whose victory condition the winning mob applies."""

    FACTS: ClassVar[Facts] = Facts(people=("by",))

    challenge: str
    of: str
    by: str


class WillpowerSpent(Event, frozen=True, kw_only=True, tag="willpower_spent"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    challenge: str


# -- rounds -----------------------------------------------------------------------------------


class RoundStarted(Event, frozen=True, kw_only=True, tag="round_started"):
    FACTS: ClassVar[Facts] = Facts(everyone=True, turns=True)

    number: int
    first: bool = True
    """The first round of a fight: the only one with surprise."""
    actions: dict[str, int] = {}
    """Each character's actions this round: one that needs a test, plus extra actions (camarilla)."""
    budget: dict[str, dict[str, int]] = {}
    """Each character's actions this round by kind, ``{"standard": 1, "simple": 1}`` (bns)."""
    rage: dict[str, int] = {}
    """Rage rounds each character has this turn, after the universal round (bns)."""
    narrative: bool = False
    """A narrative round (kony:narrative)."""


class ActionDeclared(Event, frozen=True, kw_only=True, tag="action_declared"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str
    action: Action


class InitiativeTest(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A test thrown to order two characters tied on every count (bns:initiative-ties)."""

    between: list[str]
    signs: list[dict[str, str]]
    """Each throw, retests on ties included."""
    first: str | None
    """Who goes first; None when the throws ran out and the ST orders them."""


class InitiativeSet(Event, frozen=True, kw_only=True, tag="initiative_set"):
    """The order of the round: groups acting at once, fastest first, with each one's initiative."""

    FACTS: ClassVar[Facts] = Facts(turns=True)

    order: list[list[str]]
    values: dict[str, int]
    why: str
    rule: str
    tests: list[InitiativeTest] = []
    """The tests thrown between characters tied on every count (bns)."""
    rolls: dict[str, list[int]] = {}
    """The d10s each tied character rolled, rerolls included (kony:initiative-ties)."""
    ordered: list[list[str]] = []
    """A tie the Storyteller ordered, in that order, where it still acts as one group."""


class TurnStarted(Event, frozen=True, kw_only=True, tag="turn_started"):
    """Whose turn it is: a group of the order, the end-of-turn actions, or an extra action round."""

    FACTS: ClassVar[Facts] = Facts(people=("characters",), turns=True)

    phase: Literal["initiative", "end_of_turn", "extra"]
    characters: list[str]
    extra: int = 0
    why: str = ""
    rule: str = ""
    budget: dict[str, int] = {}
    """The actions each of ``characters`` gets afresh for this turn (a bns Rage round)."""


class TurnEnded(Event, frozen=True, kw_only=True, tag="turn_ended"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str


class RoundEnded(Event, frozen=True, kw_only=True, tag="round_ended"):
    FACTS: ClassVar[Facts] = Facts(everyone=True, turns=True)

    number: int


class BloodSpent(Event, frozen=True, kw_only=True, tag="blood_spent"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    trait: str
    kind: str
    lasts: Literal["scene", "challenge"]
    why: str
    rule: str


class ExpendituresOpened(Event, frozen=True, kw_only=True, tag="expenditures_opened"):
    """Every action is declared: now each side declares its Trait expenditures (kony:expenditures)."""

    FACTS: ClassVar[Facts] = Facts(everyone=True, turns=True)

    why: str
    rule: str


class ExpendituresDone(Event, frozen=True, kw_only=True, tag="expenditures_done"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str


class NormalActionsEnded(Event, frozen=True, kw_only=True, tag="normal_actions_ended"):
    """Everyone's first action is done: "end of the round" powers act now, before extra actions
    (kony:end-of-round)."""

    FACTS: ClassVar[Facts] = Facts(everyone=True, turns=True)

    number: int
    why: str
    rule: str


class Fed(Event, frozen=True, kw_only=True, tag="fed"):
    FACTS: ClassVar[Facts] = Facts(people=("character", "target"), carried=True)

    character: str
    target: str
    blood: int
    why: str
    rule: str


class BonusExpired(Event, frozen=True, kw_only=True, tag="bonus_expired"):
    FACTS: ClassVar[Facts] = Facts(people=("character",))

    character: str
    trait: str
    challenge: str


# -- bns actions, conditions, maneuvers, escapes, assists --------------------------------------


class ActionTaken(Event, frozen=True, kw_only=True, tag="action_taken"):
    """A character spends a standard or a simple action (bns), or acts without spending one."""

    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    spent: Literal["standard", "simple"] | None
    action: Action | None = None
    challenge: str = ""
    """The challenge the action declared (a test is always a standard action)."""
    why: str
    rule: str


class ConditionSet(Event, frozen=True, kw_only=True, tag="condition_set"):
    """A condition marked on a character: by whom, until when, or how many simple actions clear it."""

    FACTS: ClassVar[Facts] = Facts(people=("character", "by"), undone_by="condition_cleared", carried=True)

    character: str
    name: str
    by: str = ""
    until: datetime | None = None
    clears_after: int = 0
    """Simple actions the character must spend (``clear``) to be rid of it."""
    challenge: str = ""
    why: str
    rule: str


class ConditionCleared(Event, frozen=True, kw_only=True, tag="condition_cleared"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), carried=True)

    character: str
    name: str
    challenge: str = ""
    why: str
    rule: str


class ManeuverUsed(Event, frozen=True, kw_only=True, tag="maneuver_used"):
    """A combat maneuver declared with an attack or an action, and how it was paid for."""

    FACTS: ClassVar[Facts] = Facts(people=("character",))

    character: str
    maneuver: str
    paid: Literal["willpower", "free", "assist"]
    free_list: str = ""
    """The list of free maneuvers a free use came from (``strength``, ``dexterity``, ``feral strength`` …)."""
    challenge: str = ""
    why: str
    rule: str


class AttackIntended(Event, frozen=True, kw_only=True, tag="attack_intended"):
    FACTS: ClassVar[Facts] = Facts(people=("character", "target"))

    character: str
    target: str
    rule: str


class FairEscapeDeclared(Event, frozen=True, kw_only=True, tag="fair_escape_declared"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str
    why: str
    rule: str


class FairEscapeHeld(Event, frozen=True, kw_only=True, tag="fair_escape_held"):
    FACTS: ClassVar[Facts] = Facts(people=("character", "by"), turns=True)

    character: str
    by: list[str]
    """Those who declared intent to attack."""
    why: str
    rule: str


class FairEscapeSucceeded(Event, frozen=True, kw_only=True, tag="fair_escape_succeeded"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str
    why: str
    rule: str


class FairEscapeFailed(Event, frozen=True, kw_only=True, tag="fair_escape_failed"):
    FACTS: ClassVar[Facts] = Facts(people=("character",), turns=True)

    character: str
    challenge: str = ""
    """The attack that failed it, if an attack did."""
    why: str
    rule: str


class AssistOffered(Event, frozen=True, kw_only=True, tag="assist_offered"):
    """A mass combat tactic: help offered to an attacker (answered later), or a defender shielded
    (the attack's new target at once)."""

    FACTS: ClassVar[Facts] = Facts(people=("character", "to"))

    character: str
    kind: Literal["attacker", "defender"]
    to: str
    benefit: Literal["plus_one", "maneuver"] | None = None
    challenge: str = ""
    how: str = ""
    why: str
    rule: str


class AssistAnswered(Event, frozen=True, kw_only=True, tag="assist_answered"):
    FACTS: ClassVar[Facts] = Facts(people=("character", "by"))

    offer: int
    """The seq of the ``assist_offered``."""
    character: str
    by: str
    """Who offered."""
    benefit: Literal["plus_one", "maneuver"]
    accept: bool
    why: str
    rule: str


# -- response deadlines (``domain.deadlines``) -------------------------------------------------

LapseKind = Literal["answer", "throw", "retest", "turn", "assist", "escape"]


class DeadlinesSet(Event, frozen=True, kw_only=True, tag="deadlines_set"):
    """The Storyteller changed the response deadlines; every running clock starts again."""

    FACTS: ClassVar[Facts] = Facts()

    deadlines: Deadlines


class DeadlinePassed(Event, frozen=True, kw_only=True, tag="deadline_passed"):
    """A move was not made in the time the scene's options give it. ``lapse`` says what followed:
    ``tell``, the Storyteller was told and chooses; ``act``, the server made the move ``did``
    names, whose own events follow this one. ``refused``: why an ``act`` could not be made (the
    Storyteller was told instead)."""

    FACTS: ClassVar[Facts] = Facts(people=("character",))

    key: str
    """The deadline, as ``domain.deadlines`` names it (its kind, the challenge or round, the step, who)."""
    kind: LapseKind
    character: str
    challenge: str = ""
    since: datetime
    """When the clock started: the step began, the deadlines were set, or more time was given."""
    seconds: int
    lapse: Literal["tell", "act"]
    option: str
    """The option that applied (``deadlines.throw``)."""
    did: str = ""
    """The verb of the move made for the character (``relent``, ``throw``, ``roll``, ``pass``,
    ``end_turn``, ...); empty when the Storyteller was told."""
    refused: str = ""
    step: str = ""
    """The move it waited for (``domain.deadlines.Due.step``: ``answer``, ``throw``, ``roll``,
    ``declare_traits``, ``retest``, ``cancel_or_let_stand``, ``declare``, ``expenditures``, ``act``,
    ``assist``, ``escape``, ``owed``)."""


class DeadlineExtended(Event, frozen=True, kw_only=True, tag="deadline_extended"):
    """The Storyteller gave a move more time: its clock starts again now, for ``seconds``."""

    FACTS: ClassVar[Facts] = Facts(people=("character",))

    key: str
    character: str
    seconds: int
    step: str = ""
    """The move it waits for, as ``deadline_passed`` names it."""


SceneEvent = (
    SceneOpened
    | CharacterAdded
    | CharacterRemoved
    | CharacterAmended
    | CharacterAdjusted
    | SceneClosed
    | SceneForked
    | ChallengeDeclared
    | BidPlaced
    | Relented
    | ChallengeWithdrawn
    | NegativeTraitCalled
    | ThrowSealed
    | TestRevealed
    | DeclarationsOpened
    | TraitsDeclared
    | TestResolved
    | RetestInvoked
    | RetestCancelled
    | RetestStood
    | AbilitySpent
    | Passed
    | OverbidSucceeded
    | OverbidFailed
    | ChallengeResolved
    | TraitLost
    | DamageTaken
    | ArmorDamaged
    | GrappleStarted
    | GrappleBroken
    | KnockedDown
    | DisputeOpened
    | RulingIssued
    | OutcomeCorrected
    | TraitRestored
    | DamageHealed
    | ArmorRestored
    | ProneCleared
    | MobJoined
    | ChampionChosen
    | VictoryChosen
    | WillpowerSpent
    | RoundStarted
    | ActionDeclared
    | InitiativeSet
    | TurnStarted
    | TurnEnded
    | RoundEnded
    | BloodSpent
    | BonusExpired
    | ActionTaken
    | ConditionSet
    | ConditionCleared
    | ManeuverUsed
    | AttackIntended
    | FairEscapeDeclared
    | FairEscapeHeld
    | FairEscapeSucceeded
    | FairEscapeFailed
    | AssistOffered
    | AssistAnswered
    | DiceRolled
    | ExpendituresOpened
    | ExpendituresDone
    | NormalActionsEnded
    | Fed
    | GameOpened
    | GameClosed
    | CharacterRegistered
    | SceneAdded
    | SceneEnded
    | CharacterMoved
    | CharacterEntered
    | CharacterLeft
    | CharacterReturned
    | CarriedCorrected
    | DeadlinesSet
    | DeadlinePassed
    | DeadlineExtended
)
