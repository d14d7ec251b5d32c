"""The folded state of a scene: frozen values, replaced (never mutated) by ``evolve``.

Collections that grow with the scene (characters, challenges) are ``immutables.Map`` (a HAMT), so
replacing one entry costs O(log n) and a 100,000-event scene folds in linear time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, Self, TypeVar

import immutables
import msgspec
from msgspec.structs import replace

from domain.carried import Carried, Lost, Mark, Wounds
from domain.commands import Action, Options, Source
from domain.effects import Effect
from domain.events import (
    ArmorDamaged,
    ArmorRestored,
    CharacterAdjusted,
    ConditionCleared,
    ConditionSet,
    DamageHealed,
    DamageTaken,
    DeadlinePassed,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    Leader,
    ProneCleared,
    Result,
    Role,
    SceneEvent,
    TraitLost,
    TraitRestored,
)
from domain.pools import Pool
from domain.sheets import CATEGORIES, Category, Sheet

_T = TypeVar("_T")

NARRATOR = "st"
"""Who stands on the other side of a static or simple test, and the Storyteller's actor id."""

Status = Literal[
    "awaiting_response",
    "bidding",
    "throwing",
    "tie_declaring",
    "retest_window",
    "resolved",
    "withdrawn",
]


class Conditions(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    grappled_by: str | None = None
    grappling: tuple[str, ...] = ()
    prone: bool = False
    surprised: bool = False
    fair_escape: Literal["declared", "held", "escaped", "failed"] | None = None
    escape_held_by: tuple[str, ...] = ()
    """Who declared intent to attack one whose fair escape is held (bns)."""
    escape_phase: int = 0
    """The Rage round a held escape runs to the end of (0: the universal round) (bns)."""
    moved_steps: int = 0
    """Steps taken this round: more than one and the character is down a Physical Trait."""
    marks: tuple[Mark, ...] = ()

    def marked(self, name: str) -> Mark | None:
        return next((m for m in self.marks if m.name == name), None)


class Aid(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """An Assist Attacker this round: who offers, what, and the attacker's answer (bns:assist-attacker)."""

    offer: int
    """The seq of its ``assist_offered``."""
    by: str
    benefit: Literal["plus_one", "maneuver"]
    status: Literal["offered", "accepted", "refused"] = "offered"
    at: datetime | None = None
    """When it was offered, while the scene has response deadlines (the attacker's clock to answer
    starts then: ``domain.deadlines``)."""


class Bonus(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A temporary Physical Trait (from blood): its name, kind, and how long it lasts."""

    trait: str
    kind: str
    lasts: Literal["scene", "challenge"]


class CharacterSlot(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """What a ruleset keeps on each character of its scenes (``Ruleset.character_state``, a subclass
    in the ruleset's package): only that ruleset reads and writes it, through its own events.

    A shared event that also changes the slot (a round or turn starting, a round ending, a fair
    escape) is handed to ``evolved`` after the shared reducer has done its part: only those of the
    types in ``EVENTS``, so that the many others cost it nothing."""

    EVENTS: ClassVar[frozenset[type]] = frozenset()
    """The shared events ``evolved`` changes the slot on."""

    def evolved(self, who: str, e: SceneEvent) -> Self:
        """The slot of the character ``who`` after the shared event ``e`` (by default: as it was)."""
        return self


class RoundSlot(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """What a ruleset keeps on the round under way (``Ruleset.round_state``): made afresh when a round
    starts (the ``round_started`` event is handed to ``evolved`` of a new one), then changed by the
    ruleset's own events and by ``evolved`` (the shared events of the types in ``EVENTS`` only)."""

    EVENTS: ClassVar[frozenset[type]] = frozenset()
    """The shared events ``evolved`` changes the slot on."""

    def evolved(self, before: RoundState, e: SceneEvent, seq: int) -> Self:
        """The slot after the shared event ``e`` at ``seq``; ``before`` is the round as it stood before
        it (by default: as it was)."""
        return self


CHARACTER_SLOT_FIELDS: dict[str, Any] = {}
"""Each field of every registered ruleset's character slot, with its default: what a character with
no slot yet reads (``Ruleset.__init_subclass__`` fills it)."""
ROUND_SLOT_FIELDS: dict[str, Any] = {}
"""Likewise for the round slots."""


def slot_fields(table: dict[str, Any], kind: type[msgspec.Struct]) -> None:
    """Let ``table``'s owner read ``kind``'s fields through its slot (a name two slot types share must
    have one default)."""
    for f in msgspec.structs.fields(kind):
        default = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
        if table.get(f.name, default) != default:
            raise ValueError(f"two slot types give {f.name!r} different defaults")
        table.setdefault(f.name, default)


def _every(slot: object, table: dict[str, Any]) -> Mapping[str, Any]:
    """Every slot field of every registered ruleset: ``slot``'s own values over the defaults (a
    reader of many fields takes them in one go, where each read through ``__getattr__`` would first
    fail the plain lookup)."""
    if slot is None:
        return table
    return table | msgspec.structs.asdict(slot)  # type: ignore[arg-type]


def _forwarded(owner: object, slot: object, name: str, table: dict[str, Any]) -> Any:
    """``owner.name`` read through its slot: the slot's field, or its default where the slot has no
    such field or there is no slot (a slot's fields alone: never its methods)."""
    try:
        default = table[name]
    except KeyError:
        raise AttributeError(f"{type(owner).__name__!r} object has no attribute {name!r}") from None
    return default if slot is None else getattr(slot, name, default)


class Character(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    sheet: Sheet
    seq: int = 0
    """The seq of its ``character_added``: characters are listed in the order they were added."""
    present: bool = True
    lost: tuple[Lost, ...] = ()
    abilities: dict[str, int] = {}
    willpower: int = 0
    wounds: Wounds = Wounds()
    conditions: Conditions = Conditions()
    bonuses: tuple[Bonus, ...] = ()
    blood_spent: int = 0
    action: Action | None = None
    """What the character declared for this round."""
    actions_left: int | None = None
    """Actions left this round (None outside rounds)."""
    turn_done: bool = False
    acted: bool = False
    """Whether the character has used a test action this turn."""
    gate: str | None = None
    """The gate test (its challenge) of this turn's multi-test action while the action's next
    test is still to come: that test needs no action of its own (camarilla:multiple-tests-turn)."""
    entered: int = 0
    """In a scene of a game night: the seq of the night's ``character_moved`` that sent it here
    (0: a character of this scene alone)."""
    slot: Any = None
    """What its ruleset keeps on it (a ``CharacterSlot`` of ``Ruleset.character_state``; None until
    something has). Its fields read as the character's own (``c.budget``)."""

    def __getattr__(self, name: str) -> Any:
        return _forwarded(self, self.slot, name, CHARACTER_SLOT_FIELDS)

    def kept(self) -> Mapping[str, Any]:
        """Every field its ruleset keeps on it (and every other ruleset's, at its default), by name."""
        return _every(self.slot, CHARACTER_SLOT_FIELDS)

    @classmethod
    def from_sheet(cls, sheet: Sheet, seq: int) -> Character:
        """A character as its sheet starts the night."""
        return cls(sheet=sheet, seq=seq, abilities=dict(sheet.abilities), willpower=sheet.willpower)

    def carried(self, waits: dict[str, datetime] | None = None) -> Carried:
        """What it takes to the next scene of the night."""
        return Carried(
            lost=self.lost,
            abilities=self.abilities,
            willpower=self.willpower,
            wounds=self.wounds,
            blood_spent=self.blood_spent,
            marks=self.conditions.marks,
            waits=waits or {},
        )

    def carrying(self, carried: Carried) -> Character:
        """This character with what it carries in from the night."""
        return replace(
            self,
            lost=carried.lost,
            abilities=carried.abilities,
            willpower=carried.willpower,
            wounds=carried.wounds,
            blood_spent=carried.blood_spent,
            conditions=replace(self.conditions, marks=carried.marks),
        )

    @property
    def id(self) -> str:
        return self.sheet.id

    @property
    def name(self) -> str:
        return self.sheet.name

    def total(self, category: Category) -> int:
        traits = self.sheet.traits
        return sum(traits.of(category).values()) if traits else 0

    def available(self, category: Category) -> int:
        """Traits the character can still call on in a category tonight (blood bonuses are Physical).
        A Trait lost more often than the character has it (a ruling in a scene it has left takes a
        Trait it has lost since, in another scene of the night) counts once per copy it had."""
        bonus = len(self.bonuses) if category == "physical" else 0
        lost: dict[str, int] = {}
        for each in self.lost:
            if each.category == category:
                lost[each.trait] = lost.get(each.trait, 0) + 1
        return self.total(category) + bonus - sum(min(n, n + self.left(trait, category)) for trait, n in lost.items())

    def category_of(self, trait: str, prefer: Category | None = None) -> Category | None:
        """The category a trait belongs to on this sheet (the preferred one first)."""
        if any(bonus.trait == trait for bonus in self.bonuses):
            return "physical"
        traits = self.sheet.traits
        if traits is None:
            return None
        order = (prefer, *CATEGORIES) if prefer else CATEGORIES
        for category in order:
            if category and trait in traits.of(category):
                return category
        return None

    def left(self, trait: str, category: Category) -> int:
        """How many of a trait are not yet lost tonight."""
        traits = self.sheet.traits
        have = traits.of(category).get(trait, 0) if traits else 0
        have += sum(1 for bonus in self.bonuses if bonus.trait == trait) if category == "physical" else 0
        return have - sum(1 for lost in self.lost if lost.trait == trait and lost.category == category)

    @property
    def lost_names(self) -> list[str]:
        return [lost.trait for lost in self.lost]


class Helper(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A mob member lending a Trait to the champion (camarilla)."""

    who: str
    bids: tuple[str, ...] = ()
    victory: str = ""
    effect: Effect | None = None
    lead: str | None = None
    power: str | None = None
    """The power its attack uses (Feral Claws): part of its victory condition."""
    pool: Pool | None = None
    """Its attack pool (pool rulesets)."""


class Rolled(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A side's sealed d3s, and the retest sources it named for them (kony)."""

    dice: tuple[int, ...]
    retests: tuple[Source, ...] = ()
    entered: bool = False
    """Rolled by hand and entered (then so are a narrative test's rerolls)."""


class SideDice(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A side's dice in a challenge (kony)."""

    sealed: Rolled | None = None
    """The dice of the current test, until it is shown."""
    named: tuple[str, ...] = ()
    """The retest sources named for dice in this challenge, by key: each once (kony:d3-test)."""


class Side(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """One side of a challenge: a character (a mob's champion), or the narrator of a static or
    simple test."""

    who: str
    bids: tuple[str, ...] = ()
    """Traits at risk now, in the order bid (the first is the lead)."""
    first: tuple[str, ...] = ()
    """The Traits first bid, once an overbid has put others at risk instead (lost on the way)."""
    category: Category | None = None
    victory: str = ""
    owed: int = 0
    """Traits this side must still bid for correct Negative Trait calls against it."""
    throw: str | None = None
    """The sealed sign for the current test."""
    declared: int | None = None
    """The count declared in the comparison under way."""
    passed: bool = False
    lead: str | None = None
    """The kind of the first Trait bid: which powers and retests apply (camarilla)."""
    effect: Effect | None = None
    power: str | None = None
    helpers: tuple[Helper, ...] = ()
    """The rest of a mob; the side's ``who`` is its champion."""
    pool: Pool | None = None
    """The side's test pool (bns), frozen when set."""
    dice: SideDice | None = None
    """Its dice (kony): one slot, None where a ruleset throws signs."""

    @property
    def rolled(self) -> Rolled | None:
        """The sealed dice for the current test (kony)."""
        return self.dice.sealed if self.dice else None

    @property
    def named(self) -> tuple[str, ...]:
        """The retest sources named for dice in this challenge, by key: each once (kony:d3-test)."""
        return self.dice.named if self.dice else ()

    def unsealed(self) -> SideDice | None:
        """``dice`` once the test is shown: nothing sealed, the sources named kept."""
        return None if self.dice is None or self.dice.sealed is None else replace(self.dice, sealed=None)

    @property
    def members(self) -> tuple[str, ...]:
        return (self.who, *(h.who for h in self.helpers))

    def member(self, who: str) -> Helper:
        """One attacker of this side, the champion included: what it bid, and its victory condition."""
        if who == self.who:
            return Helper(
                who=who, bids=self.bids, victory=self.victory, effect=self.effect, lead=self.lead, power=self.power
            )
        return next(h for h in self.helpers if h.who == who)


class TestRecord(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    __test__ = False  # not a pytest test class

    number: int
    signs: dict[str, str] = {}
    dice: dict[str, tuple[int, ...]] = {}
    """Each side's d3s (kony)."""
    result: Result | None = None
    leader: Leader | None = None
    why: str = ""
    rule: str = ""
    compared: dict[str, int] = {}


class RetestEntry(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    by: str
    role: Role
    source: Source
    test: int
    cancelled_by: Source | None = None
    status: Literal["pending", "cancelled", "stood", "failed"] = "pending"


class Call(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    by: str
    against: str
    trait: str
    correct: bool
    owed_by: str
    matched: bool


class Outcome(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    winner: Leader
    exceptional: bool = False
    critical: str | None = None
    """Who failed critically (bns:unskilled)."""
    why: str = ""
    rule: str = ""


Consequence = TraitLost | DamageTaken | ArmorDamaged | GrappleStarted | GrappleBroken | KnockedDown | ConditionSet
"""What resolving a challenge did to the characters (what a ruling may undo)."""

Corrected = (
    Consequence | TraitRestored | ArmorRestored | DamageHealed | ProneCleared | ConditionCleared | CharacterAdjusted
)
"""What a ruling does to the characters: undoes a consequence, applies one, or adjusts a sheet."""


class Late(msgspec.Struct, frozen=True, gc=False):
    """A deadline of the challenge that lapsed: its ``deadline_passed`` and that event's seq (what
    the challenge's account tells of it)."""

    seq: int
    passed: DeadlinePassed


class Terms(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """The rarer terms of a declaration."""

    range: int | None = None
    """Steps to the target (bns)."""
    maneuvers: tuple[str, ...] = ()
    """The combat maneuvers the attack uses (bns: one, or two with an assist's)."""
    gate: bool = False
    """A test before the one that causes its action's effect: not counted as a challenge of its
    category against the target, never a mob (camarilla:multiple-tests-type)."""


class Challenge(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    id: str
    kind: Literal["contested", "static", "simple"]
    category: Category
    challenger: Side
    defender: Side
    targets: tuple[str, ...] = ()
    victory: str = ""
    effect: Effect | None = None
    difficulty: int | None = None
    require_win: bool = False
    power: str | None = None
    declared_at: datetime
    seq: int = 0
    """The seq of its declaration: challenges are listed in the order they were declared."""
    round: int | None = None
    defense: Category | None = None
    surprise: bool = False
    ranged: bool = False
    darkness: str | None = None
    terms: Terms | None = None
    """What few challenges declare (a range, a maneuver, a gate): one slot, kept apart so that the
    many copies of a challenge as it moves on stay small."""
    chosen: str | None = None
    """Whose victory condition a winning mob applied."""
    status: Status = "awaiting_response"
    tests: tuple[TestRecord, ...] = ()
    retests: tuple[RetestEntry, ...] = ()
    calls: tuple[Call, ...] = ()
    declaring: Literal["tie", "overbid"] | None = None
    declaring_first: Role | None = None
    outcome: Outcome | None = None
    resolved_seq: int | None = None
    consequences: tuple[Consequence, ...] = ()
    spent: tuple[TraitLost, ...] = ()
    """Traits lost on the way, before the outcome (an overbid's first bid): no ruling undoes them."""
    original_outcome: Outcome | None = None
    """Before a ruling corrected it."""
    rulings: tuple[int, ...] = ()
    """The seqs of the rulings that corrected the outcome."""
    late: tuple[Late, ...] = ()
    """Its deadlines that lapsed, in order (``domain.deadlines``)."""
    step_at: datetime | None = None
    """When it entered its current step (its status, test or retest changed), while the scene had
    response deadlines (``domain.deadlines``; a clock starts no earlier than the deadlines did)."""

    @property
    def range(self) -> int | None:
        return self.terms.range if self.terms else None

    @property
    def maneuvers(self) -> tuple[str, ...]:
        return self.terms.maneuvers if self.terms else ()

    @property
    def gate(self) -> bool:
        return self.terms.gate if self.terms else False

    def role_of(self, who: str) -> Role | None:
        if who == self.challenger.who:
            return "challenger"
        if who == self.defender.who:
            return "defender"
        return None

    def side(self, role: Role) -> Side:
        return self.challenger if role == "challenger" else self.defender

    @staticmethod
    def other(role: Role) -> Role:
        return "defender" if role == "challenger" else "challenger"

    @property
    def test(self) -> TestRecord | None:
        """The latest test, if any has been thrown."""
        return self.tests[-1] if self.tests else None

    @property
    def leader(self) -> Leader | None:
        test = self.test
        return test.leader if test else None

    @property
    def pending_retest(self) -> RetestEntry | None:
        last = self.retests[-1] if self.retests else None
        return last if last and last.status == "pending" else None

    @property
    def open(self) -> bool:
        return self.status not in DECIDED

    def losing_roles(self) -> tuple[Role, ...]:
        """Who may retest now: the side behind, or both on a draw."""
        leader = self.leader
        if leader == "challenger":
            return ("defender",)
        if leader == "defender":
            return ("challenger",)
        return ("challenger", "defender")


DECIDED = frozenset({"resolved", "withdrawn"})
"""The statuses of a challenge that is over."""
RECENT = 20
"""Decided challenges a scene keeps at hand for its views (older ones are asked for in pages)."""


def _parties(key: str) -> list[str]:
    """The challenger and the targets a wait's repeat key names."""
    head, _, rest = key.partition(">")
    return [head.rpartition(":")[2], *rest.partition(":")[0].split(",")]  # after a ruleset's prefix, if any


def undecided(ch: Challenge) -> bool:
    """Still open, or won by a mob that has not yet chosen whose victory condition applies."""
    return ch.open or bool(ch.challenger.helpers and ch.chosen is None and ch.leader == "challenger")


def challenge_words(state: Scene, ch: Challenge) -> str:
    """A challenge named by its people ("Alice's challenge to Bob"), never by its id: the id is
    the machine's handle, and the people at the table know a challenge by who threw it at whom."""
    who = state.name_of(ch.challenger.who)
    targets = ch.targets or ((ch.defender.who,) if ch.kind == "contested" and ch.defender.who else ())
    if targets:
        return f"{who}'s challenge to {and_list(state.name_of(t) for t in targets)}"
    return f"{who}'s {ch.category.capitalize()} test"


def and_list(names: Iterable[str]) -> str:
    """Names in a sentence: "Ana", "Ana and Bob", "Ana, Bob and Cy"; one said more than once is
    counted, not repeated ("Brawny ×2 and Quick", never "Brawny and Brawny")."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    listed = [f"{name} ×{n}" if n > 1 else name for name, n in counts.items()]
    return f"{', '.join(listed[:-1])} and {listed[-1]}" if len(listed) > 1 else "".join(listed)


class RoundState(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    number: int
    first: bool = True
    """The first round of a fight: the only one with surprise."""
    phase: Literal["declaring", "expending", "acting", "over"] = "declaring"
    order: tuple[tuple[str, ...], ...] = ()
    """Groups acting at the same time, fastest first (within a group, the ST's order)."""
    values: dict[str, int] = {}
    turn: tuple[str, ...] = ()
    """Who acts now."""
    turn_phase: Literal["initiative", "end_of_turn", "extra"] = "initiative"
    group: int = -1
    extra: int = 0
    ordered: tuple[tuple[str, ...], ...] = ()
    """Ties the Storyteller ordered that still act as one group, each in its order."""
    step_at: datetime | None = None
    """When its phase or turn last changed, or a fair escape opened its window, while the scene has
    response deadlines (a turn's clock starts then: ``domain.deadlines``)."""
    slot: Any = None
    """What the scene's ruleset keeps on the round (a ``RoundSlot`` of ``Ruleset.round_state``). Its
    fields read as the round's own (``state.round.narrative``)."""

    def __getattr__(self, name: str) -> Any:
        return _forwarded(self, self.slot, name, ROUND_SLOT_FIELDS)

    def kept(self) -> Mapping[str, Any]:
        """Every field its ruleset keeps on the round (and every other ruleset's, at its default)."""
        return _every(self.slot, ROUND_SLOT_FIELDS)

    @property
    def key(self) -> int:
        """The universal round or Rage round under way, as one number (a maneuver a round)."""
        return self.number * 100 + (self.extra if self.turn_phase == "extra" else 0)


class DisputeRecord(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    id: int
    """The seq of its ``dispute_opened`` event."""
    event: int
    by: str
    reason: str
    status: Literal["open", "ruled"] = "open"
    ruling: int | None = None


class RulingRecord(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    id: int
    """The seq of its ``ruling_issued`` event."""
    event: int
    decision: str
    reason: str
    why: str
    challenge: str | None = None
    winner: str | None = None
    later: tuple[str, ...] = ()
    did: tuple[Corrected, ...] = ()
    """What the ruling changed, its own events as they came: the undoing of the outcome first given
    (``trait_restored``, ``damage_healed`` …), then what the corrected outcome did (``trait_lost`` …);
    or an amend's ``character_adjusted``. The words each viewer reads of it are made from these
    (``projections.ruled``)."""


class Clocks(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """What the scene's response deadlines have done (``domain.deadlines``): when they were last
    set (no clock starts earlier), the lapses the Storyteller was told of, by key (the seq of their
    ``deadline_passed``, and when), and the moves given more time, by key (from when, for how long).
    A key names a step, but a later step may come back to it (a defender answers, then owes a Trait
    for a call; a turn goes on after a challenge): what was told or given before the step began
    does not hold for it (``domain.deadlines.running`` compares the times)."""

    set_at: datetime | None = None
    told: dict[str, int] = {}
    told_at: dict[str, datetime] = {}
    more: dict[str, tuple[datetime, int]] = {}

    KEPT: ClassVar[int] = 64
    """Keys kept of each (the latest): an older one's step is long over."""

    def telling(self, key: str, seq: int, at: datetime) -> Clocks:
        """With the lapse of ``key`` told (its ``deadline_passed`` at ``seq``, at ``at``)."""
        told, told_at = {**self.told, key: seq}, {**self.told_at, key: at}
        return replace(
            self, told=dict(list(told.items())[-self.KEPT :]), told_at=dict(list(told_at.items())[-self.KEPT :])
        )

    def giving(self, key: str, at: datetime, seconds: int) -> Clocks:
        """With ``key`` given ``seconds`` more from ``at`` (told no more)."""
        more = {**self.more, key: (at, seconds)}
        told = {k: v for k, v in self.told.items() if k != key}
        told_at = {k: v for k, v in self.told_at.items() if k != key}
        return replace(self, told=told, told_at=told_at, more=dict(list(more.items())[-self.KEPT :]))


class NightScene(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    id: str
    title: str = ""
    open: bool = True


class Visit(msgspec.Struct, frozen=True, gc=False):
    """The scene a character of the night is in, and the seq of the ``character_moved`` that sent
    it there."""

    scene: str
    seq: int


class Night(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """What a game night's stream keeps beside its characters (which carry what they have lost):
    its scenes in the order they opened, and which scene each character is in now."""

    scenes: tuple[NightScene, ...] = ()
    where: dict[str, Visit] = {}

    def scene(self, sid: str) -> NightScene | None:
        return next((s for s in self.scenes if s.id == sid), None)


class Origin(msgspec.Struct, frozen=True, gc=False):
    """Where a forked scene came from."""

    scene: str
    seq: int
    hash: str


class Scene(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    id: str = ""
    version: int = 0
    ruleset: str = ""
    title: str = ""
    options: Options = Options()
    status: Literal["new", "open", "closed"] = "new"
    characters: immutables.Map[str, Character] = msgspec.field(default_factory=immutables.Map)
    challenges: immutables.Map[str, Challenge] = msgspec.field(default_factory=immutables.Map)
    failures: immutables.Map[str, datetime] = msgspec.field(default_factory=immutables.Map)
    """When each failed Social or Mental challenge failed, by repeat key (lotn:five-minute-wait)."""
    last_at: datetime | None = None
    disputes: tuple[DisputeRecord, ...] = ()
    rulings: tuple[RulingRecord, ...] = ()
    forked_from: Origin | None = None
    round: RoundState | None = None
    undecided: tuple[str, ...] = ()
    """The challenges not yet decided (``undecided``), in the order they were declared: what views,
    moves and automation look at, so their cost does not grow with the scene's history."""
    recent: tuple[str, ...] = ()
    """The last ``RECENT`` challenges decided, in the order they were decided: the page of history a
    view shows."""
    decided: int = 0
    """How many challenges have been decided (resolved or withdrawn)."""
    game: str = ""
    """The game night this scene belongs to (empty: a scene on its own)."""
    night: Night | None = None
    """Set when this stream is a game night rather than a scene."""
    clocks: Clocks | None = None
    """What its response deadlines did (None: nothing yet)."""

    def waits_of(self, who: str, now: datetime) -> dict[str, datetime]:
        """The waits still running on challenges ``who`` made or was the target of, by repeat key
        (``challenger>targets:…``, or that after a ruleset's prefix: its immunities)."""
        return {key: until for key, until in self.failures.items() if until > now and who in _parties(key)}

    def character(self, who: str) -> Character | None:
        return self.characters.get(who)

    def roster(self) -> list[Character]:
        """The characters in the order they were added (a map's own order is its keys' hashes)."""
        return sorted(self.characters.values(), key=lambda c: c.seq)

    def in_order(self) -> list[Challenge]:
        """The challenges in the order they were declared."""
        return sorted(self.challenges.values(), key=lambda ch: ch.seq)

    def name_of(self, who: str) -> str:
        """How messages and explanations name someone."""
        if who == NARRATOR:
            return "the Narrator"
        character = self.characters.get(who)
        return character.name if character else who


_json = msgspec.json.Encoder()


def shared(state: Scene) -> Scene:
    """``state`` with one copy of each part that repeats among its challenges, equal to it in every
    field: a side that bid the same Trait for the same victory condition, a test's signs, a test,
    an outcome, a consequence. A long scene's challenges are mostly such repeats (a 1,000-event
    brawl's state: 118 KiB instead of 134). Parts that hold no time are the same when
    equal (``==``, of one type); the others (a test, a consequence) when they encode alike (every
    field, its type, a mapping's order). A challenge's two sides stay two objects: rules tell them
    apart by identity."""
    memo: dict[object, object] = {}
    encode = _json.encode

    def one(part: _T) -> _T:
        try:
            return memo.setdefault((type(part), part), part)  # type: ignore[return-value]
        except TypeError:  # it holds a list: kept as it is
            return part

    def encoded(part: _T) -> _T:
        return memo.setdefault((type(part), encode(part)), part)  # type: ignore[return-value]

    def many(parts: tuple[_T, ...], each: Callable[[_T], _T]) -> tuple[_T, ...]:
        kept = tuple(each(part) for part in parts)
        return memo.setdefault((tuple, *map(id, kept)), kept)  # type: ignore[return-value]

    def test(t: TestRecord) -> TestRecord:
        key = (TestRecord, encode(t))
        found = memo.get(key)
        if found is None:
            signs = encoded(t.signs) if t.signs else t.signs
            compared = encoded(t.compared) if t.compared else t.compared
            if signs is not t.signs or compared is not t.compared:
                t = replace(t, signs=signs, compared=compared)
            found = memo[key] = t
        return found  # type: ignore[return-value]

    challenges = state.challenges.mutate()
    for cid, ch in state.challenges.items():
        challenger, defender = one(ch.challenger), one(ch.defender)
        if defender is challenger:
            defender = ch.defender
        parts: dict[str, object] = {"challenger": challenger, "defender": defender}
        if ch.tests:
            parts["tests"] = many(ch.tests, test)
        if ch.outcome is not None:
            parts["outcome"] = one(ch.outcome)
        if ch.consequences:
            parts["consequences"] = many(ch.consequences, encoded)
        if ch.retests:
            parts["retests"] = many(ch.retests, one)
        changed = {name: part for name, part in parts.items() if part is not getattr(ch, name)}
        if changed:
            challenges[cid] = replace(ch, **changed)
    return replace(state, challenges=challenges.finish())
