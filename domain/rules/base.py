"""The interface a ruleset implements: the questions the challenge lifecycle asks it.

The lifecycle (``domain.challenge``) owns the order of play: declare, answer, call, throw, reveal,
compare, retest, resolve. At each point where rule systems differ it asks the ruleset, which either
refuses (raises ``Rejected``) or returns the events that record its judgement. ``docs/rulesets.md``
explains how a new ruleset plugs in.
"""

from __future__ import annotations

import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Literal

import msgspec

from domain.commands import Action, Assist, BidTraits, Declare, Join, Options, Relent, Source
from domain.effects import Damage, Dealt
from domain.errors import Rejected
from domain.events import (
    BloodSpent,
    DamageTaken,
    DeclarationsOpened,
    InitiativeSet,
    Leader,
    NegativeTraitCalled,
    Result,
    Role,
    SceneEvent,
    TestResolved,
    TestRevealed,
    TurnStarted,
)
from domain.pools import DefenseKind, Pool, PoolSpec
from domain.rules.catalog import BEATS, SIGNS
from domain.rules.fields import SheetField
from domain.rules.sheets import Problem, power_problems
from domain.rules.words import OptionWords, Rule
from domain.sheets import Category, Sheet
from domain.state import (
    CHARACTER_SLOT_FIELDS,
    ROUND_SLOT_FIELDS,
    Challenge,
    CharacterSlot,
    Helper,
    RetestEntry,
    RoundSlot,
    Scene,
    slot_fields,
)


def taken(target: str, ch: Challenge, dealt: Dealt) -> DamageTaken:
    """The ``damage_taken`` of ``dealt`` on ``target``, with how it came from what was declared."""
    return DamageTaken(
        character=target, amount=dealt.amount, damage=dealt.type, challenge=ch.id, why=dealt.why(), rule=dealt.rule
    )


class Declaration(msgspec.Struct, frozen=True, kw_only=True):
    """What a ruleset adds to an accepted declaration."""

    lead: str | None = None
    round: int | None = None
    uses_action: bool = False
    gate: bool = False
    """A test before the one that causes the action's effect (camarilla:multiple-tests-type)."""
    pool: Pool | None = None
    """The attack pool (pool rulesets)."""
    then: list[SceneEvent] = []
    """Events that follow the declaration (a grapple broken by attacking someone else)."""


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """What a ruleset makes of the defender's answer: the lead of its bid, or its defence pool."""

    lead: str | None = None
    pool: Pool | None = None


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """How a challenge ends: who wins, why, by which rule, and its grade."""

    winner: Leader
    why: str
    rule: str
    exceptional: bool = False
    critical: str | None = None
    """Who failed critically."""
    pool: Pool | None = None
    """A relent's: the defence the relenting side would have used."""


class Dice(msgspec.Struct, frozen=True, kw_only=True):
    """How many dice a side rolls, and why (kony:d3-test)."""

    count: int
    why: str


class TraitPool(msgspec.Struct, frozen=True):
    """A side's Trait Pool for ties and overbids, with its cap (kony:trait-pool)."""

    total: int
    why: str
    cap: int
    counted: str = ""
    """How it is counted, without the name: "Physical 3 + 1 bonus - 1 down"."""


class ManeuverOffer(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A combat maneuver a character could use now, and what it would cost (a page shows it)."""

    name: str
    title: str
    cost: Literal["assist", "free", "willpower"]
    with_action: bool = False
    """It goes with an action (Quick Draw, Burst of Speed …), not an attack."""


Family = Literal["traits", "pools", "dice"]


class Die(msgspec.Struct, frozen=True, kw_only=True):
    """The die a dice ruleset rolls: its size, and what each face counts as (the pages' dice forms,
    the account's words for the dice it shows)."""

    size: int
    faces: tuple[tuple[int, str], ...] = ()
    """Each face that counts for something, with what it counts as ("a success")."""
    successes: tuple[int, ...] = ()
    """The faces that count as a success."""


def _readings(options: type[Options], field: str) -> str:
    """What the option ``field`` takes, in words: ``'server' or 'players'``, ``true or false``."""
    hint = typing.get_type_hints(options).get(field)
    if hint is bool:
        return "true or false"
    if choices := typing.get_args(hint):
        return " or ".join(repr(choice) for choice in choices)
    return f"a {getattr(hint, '__name__', 'value')}"


class Ruleset(ABC):
    """One rule system. Stateless: everything it needs is in the scene it is shown."""

    name: str
    """The ``ruleset`` of ``open_scene``."""

    title: ClassVar[str]
    """What players call it (the pages and the words say this, never ``name``)."""

    listed: ClassVar[int] = 100
    """Where it stands among the rulesets the pages and the CLI list (lower first; ties by name)."""

    summary: ClassVar[str] = ""
    """A few words after the title where rulesets are chosen ("test pools")."""

    rules: ClassVar[Sequence[Rule]] = ()
    """Its rule table: each rule id (``<name>:…``) it cites with the document's own words."""

    books: ClassVar[Mapping[str, str]] = {}
    """Each of its documents (``docs/rules/``) with the title players know the book by."""

    options: ClassVar[type[Options]] = Options
    """The options a scene of it may set, with their defaults (its own extend the common ones)."""

    option_words: ClassVar[Mapping[str, OptionWords]] = {}
    """What the new-scene form says of each of its own options."""

    die: ClassVar[Die | None] = None
    """The die a dice ruleset rolls (None: signs are thrown)."""

    sheet_fields: ClassVar[tuple[SheetField, ...]] = ()
    """The fields of the sheet it plays, in the form's order."""

    named: ClassVar[Mapping[str, frozenset[str]]] = {}
    """The names its documents use, by what a sheet holds them as (``domain.rules.named``)."""

    folded: ClassVar[bool] = False
    """Whether it reads names whatever their case (bns skills: ``brawl`` is ``Brawl``)."""

    levels: ClassVar[Mapping[str, tuple[int, str]]] = {}
    """The highest level its document gives a power, and the rule that says so."""

    character_state: ClassVar[type[CharacterSlot] | None] = None
    """What it keeps on each character of its scenes (``Character.slot``), if anything: a struct of
    its own package that only it reads and writes, through its own events (``@on`` in its package)
    and ``CharacterSlot.evolved`` for the shared ones."""

    round_state: ClassVar[type[RoundSlot] | None] = None
    """What it keeps on the round under way (``RoundState.slot``), if anything."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "rules" in cls.__dict__:
            cls.texts = {rule.id: rule for rule in cls.rules}
        if cls.character_state is not None:  # its fields read as the character's own (``c.budget``)
            slot_fields(CHARACTER_SLOT_FIELDS, cls.character_state)
        if cls.round_state is not None:
            slot_fields(ROUND_SLOT_FIELDS, cls.round_state)

    texts: ClassVar[Mapping[str, Rule]] = {}
    """Its rule table by id."""

    def read_options(self, given: Mapping[str, Any]) -> Options:
        """A scene's options as given (or recorded): the common ones, and this ruleset's own under
        its name; or refused, naming the option."""
        common = {f.name for f in msgspec.structs.fields(Options)}
        unknown = [key for key, value in given.items() if key not in common and key != self.name and value is not None]
        if unknown:
            raise Rejected("bad_options", f"`options.{unknown[0]}` is not an option of {self.title}.")
        own = given.get(self.name) or {}
        if not isinstance(own, dict):
            raise Rejected("bad_options", f'`options.{self.name}` is a set of options, like {{"…": …}}.')
        own_fields = [f for f in self.options.__struct_fields__ if f not in common]
        for key in own:
            if key not in own_fields:
                known = ", ".join(own_fields)
                said = f"`options.{self.name}.{key}` is not an option of {self.title} (its options: {known})."
                raise Rejected("bad_options", said)
        try:
            return msgspec.convert({**{k: v for k, v in given.items() if k in common}, **own}, self.options)
        except msgspec.ValidationError as e:
            field = str(e).rpartition("$.")[2].rstrip("`")
            if field.partition(".")[0] == "deadlines":
                said = (
                    f"`options.{field}`: {e}. Each deadline (answer, throw, retest, turn, assist, escape) takes "
                    '{"seconds": 1 to 86400, "lapse": "tell" or "act"}.'
                )
                raise Rejected("bad_options", said) from None
            where = f"options.{field}" if field in common else f"options.{self.name}.{field}"
            value = own.get(field, given.get(field))
            said = f"`{where}`: {value!r} is not one of its readings; it takes {_readings(self.options, field)}."
            raise Rejected("bad_options", said) from None

    def written(self, options: Options) -> dict[str, Any]:
        """``options`` as ``scene_opened`` records them: every reading written out, this ruleset's
        own under its name."""
        every = msgspec.to_builtins(options)
        if not every.get("deadlines"):  # none: as scenes were recorded before there were any
            every.pop("deadlines", None)
        common = [f.name for f in msgspec.structs.fields(Options) if f.name in every]
        own = {k: v for k, v in every.items() if k not in common}
        return {k: every[k] for k in common} | ({self.name: own} if self.options is not Options else {})

    has_rounds: ClassVar[bool] = False
    """Whether the ruleset has combat rounds (``start_round`` … ``end_round``)."""

    declares_actions: ClassVar[bool] = True
    """Rounds open with everyone declaring an action (camarilla); otherwise the order is set as the
    round starts and actions are taken on one's turn (bns)."""

    has_mobs: ClassVar[bool] = False
    """Whether other attackers may join a challenge (``join``)."""

    stakes: ClassVar[Literal["traits", "pools"]] = "traits"
    """What a side puts in a challenge: Traits bid (``traits``), or a test pool (``pools``). How a
    test is made is ``die`` (signs thrown where it is None); which sheet fields exist,
    ``sheet_fields``."""

    @property
    def family(self) -> Family:
        """The three together, as the pages first knew them: ``traits``, ``pools`` or ``dice``."""
        return "dice" if self.die is not None else self.stakes

    pool_parts: ClassVar[tuple[str, ...]] = ()
    """The parts of a test pool (``PoolSpec`` fields) a challenger names as it declares: the pages
    ask for these and no others (``attack``, ``attribute``, ``skill``, ``weapon``, ``wildcard``)."""

    answer_parts: ClassVar[tuple[str, ...]] = ()
    """The parts of a defence pool (``PoolSpec`` fields) a defender names as it answers (``defense``,
    ``skill``, ``wildcard``)."""

    has_narrative: ClassVar[bool] = False
    """Whether a round may be narrative (``start_round`` with ``narrative``: kony)."""

    flags: ClassVar[tuple[str, ...]] = ()
    """The flags a declaration may carry (``surprise``, ``ranged``, ``unseen`` …)."""

    has_blood: ClassVar[bool] = False
    """Whether blood buys Physical Traits (``spend_blood``)."""

    has_expenditures: ClassVar[bool] = False
    """Whether a round has an expenditures phase between declarations and initiative (kony)."""

    settling_refuses: ClassVar[bool] = False
    """Whether what happens by itself after a move (reveal, compare, resolve) may refuse it: a dice
    reveal checks the rerolls entered by hand. Where it may not, a probe for the verdict stops at
    the move (``Context.verdict``)."""

    defender_victory: ClassVar[bool] = False
    """Whether a winning defender's own victory condition applies to the challenger (kony)."""

    # -- sheets and declarations ------------------------------------------------------------

    def sheet_problems(self, sheet: Sheet) -> list[Problem]:
        """Every problem of ``sheet`` under these rules, in the order of the form's fields
        (``domain.sheet_check``): closed ones refuse it, open ones ask the Storyteller."""
        return power_problems(self, sheet)

    def check_sheet(self, sheet: Sheet) -> None:
        """Refuse a sheet this ruleset cannot play, naming the field (beyond ``sheet_problems``)."""
        return None

    @property
    def _pools_rule(self) -> str:
        return self.cites.get("pools", self.cites["adjudication"])

    @abstractmethod
    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        """Refuse a declaration (kind, targets, bid or pool, difficulty, waiting times, turns), or say
        what it adds."""

    def check_response(self, state: Scene, ch: Challenge, who: str, bid: list[str]) -> str | None:
        """Refuse the defender's answer to a contested challenge, or give its lead (camarilla). Where
        sides stake pools, an answer of Traits is refused."""
        raise Rejected(
            "no_traits",
            f"{self.name} plays test pools, not Traits: answer with a defence pool.",
            self._pools_rule,
        )

    def answer(self, state: Scene, ch: Challenge, who: str, cmd: BidTraits) -> Answer:
        """The defender's answer: what it bids (``check_response``), or refused."""
        return Answer(lead=self.check_response(state, ch, who, cmd.bid))

    def pool(
        self,
        state: Scene,
        who: str,
        spec: PoolSpec,
        category: Category,
        ch: Challenge | None,
        maneuvers: Sequence[str] = (),
    ) -> Pool:
        """The pool ``spec`` asks for, from ``who``'s sheet: an attack in ``category`` (with the
        ``maneuvers`` it would use), or a defence against ``ch``; or refused, naming the rule (what a
        page shows before sending)."""
        raise Rejected("no_pools", f"{self.name} bids Traits, not test pools.")

    def defenses(self, state: Scene, ch: Challenge, who: str) -> dict[DefenseKind, Pool]:
        """The defence pools ``who`` could answer ``ch`` with, by kind (pool rulesets)."""
        return {}

    def relented(self, state: Scene, ch: Challenge, who: str, cmd: Relent) -> Verdict:
        """A defender relents: the challenger wins without a test."""
        c, t = state.name_of(ch.challenger.who), state.name_of(who)
        return Verdict(
            winner="challenger",
            why=f"{t} relented: {c} wins without a test, and no Trait is lost.",
            rule=self.cites["relent"],
        )

    def check_join(self, state: Scene, ch: Challenge, who: str, cmd: Join) -> Declaration:
        """Refuse an attacker joining a challenge (a mob), or say what joining adds (lead, action)."""
        raise Rejected("no_mobs", f"{self.name} has no mobs: each attacker declares a challenge of their own.")

    def check_owed_bid(self, state: Scene, ch: Challenge, role: Role, bid: list[str]) -> None:
        """Refuse a further bid a side makes because it owes one (none is owed where pools are staked)."""
        raise Rejected("no_traits", f"{self.name} has no bids owed.", self._pools_rule)

    def call_negative(self, state: Scene, ch: Challenge, role: Role, trait: str) -> NegativeTraitCalled:
        """Judge a Negative Trait call, or refuse it (where pools are staked, there are none to call)."""
        raise Rejected("unsupported", f"{self.name} has no Negative Traits to call.", self.cites["negative_traits"])

    def refuse_flags(self, cmd: Declare) -> None:
        """Refuse the declaration flags this ruleset has no rule for (those not in ``flags``),
        naming them all."""
        given = {
            "defense": cmd.defense is not None,
            "surprise": cmd.surprise,
            "ranged": cmd.ranged,
            "darkness": cmd.darkness is not None,
            "immediate": cmd.immediate,
        }
        unsupported = [flag for flag, on in given.items() if on and flag not in self.flags]
        if unsupported:
            raise Rejected(
                "unsupported",
                f"{self.name} has no rule for {', '.join(unsupported)}; say it in the victory condition and "
                "let the Storyteller judge.",
                self.cites["adjudication"],
            )

    # -- tests ------------------------------------------------------------------------------

    def random_signs(self) -> tuple[str, ...]:
        """What a ``random`` throw picks from: rock, paper, scissors."""
        return SIGNS

    def check_sign(self, state: Scene, who: str, sign: str) -> None:
        """Refuse a sign this thrower may not use (by default, any but rock, paper and scissors)."""
        if sign not in SIGNS:
            raise Rejected(
                "unknown_sign", f"“{sign}” is not a sign; throw rock, paper, scissors or random.", self.cites["test"]
            )

    def compare_signs(self, challenger: str, defender: str) -> Result:
        """The test from the challenger's side: what beats what (``catalog.BEATS``)."""
        if defender in BEATS.get(challenger, ()):
            return "win"
        if challenger in BEATS.get(defender, ()):
            return "lose"
        return "tie"

    @abstractmethod
    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        """Once both signs are shown: who leads, or who must declare what first."""

    def max_declare(self, state: Scene, ch: Challenge, role: Role) -> int:
        """The most a side may declare in the comparison under way (where counts are declared)."""
        raise Rejected("unsupported", f"{self.name} compares pools, not declared Traits.", self.cites["declare_first"])

    def settle_declarations(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        """Every count is in: who leads after a tie, or whether an overbid earns a new test."""
        raise Rejected("unsupported", f"{self.name} compares pools, not declared Traits.", self.cites["declare_first"])

    # -- dice (the ``dice`` family) ----------------------------------------------------------

    def dice(self, state: Scene, ch: Challenge, role: Role, retests: Sequence[Source]) -> Dice:
        """How many d3s a side rolls with the retest ``retests`` it names, or refused."""
        raise Rejected("no_dice", f"{self.name} throws signs, not dice.", self.cites["test"])

    def check_entered(self, state: Scene, actor: str, who: str) -> None:
        """Refuse dice rolled by hand from ``actor`` for ``who``'s side."""
        raise Rejected("no_dice", f"{self.name} throws signs, not dice.", self.cites["test"])

    def reveal(
        self, state: Scene, ch: Challenge, die: Callable[[], int], rerolls: Sequence[int] | None
    ) -> TestRevealed:
        """Both sides' dice shown: the test's result (a narrative test's rerolls drawn with ``die``,
        or taken from ``rerolls`` entered by hand)."""
        raise Rejected("no_dice", f"{self.name} throws signs, not dice.", self.cites["test"])

    def trait_pool(self, state: Scene, ch: Challenge, role: Role) -> TraitPool | None:
        """A side's Trait Pool for ties and overbids, where the ruleset computes one (kony), with the
        words that say how and its cap; None where sides declare their counts."""
        return None

    def spent(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        """What the retests named for the dice just revealed cost (Ability levels)."""
        return []

    # -- retests ----------------------------------------------------------------------------

    @abstractmethod
    def may_retest(self, state: Scene, ch: Challenge) -> bool:
        """Whether this challenge can be retested now (a simple test never can); if not, it
        resolves without waiting for a pass."""

    @abstractmethod
    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        """Refuse a retest, or return what it costs (after ``retest_invoked``)."""

    def check_cancel(
        self, state: Scene, ch: Challenge, role: Role, pending: RetestEntry, source: Source
    ) -> list[SceneEvent]:
        """Refuse a cancel, or return what it costs (after ``retest_cancelled``). By default a
        retest stands: nothing cancels it."""
        raise Rejected("cannot_cancel", f"A {self.name} retest stands: nothing cancels it.", self.cites["cancel"])

    # -- resolution -------------------------------------------------------------------------

    @abstractmethod
    def outcome(self, state: Scene, ch: Challenge) -> Verdict:
        """The winner once nobody retests, why, and the grade."""

    def losses(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        """What each side loses when the challenge resolves (not on a relent): by default nothing."""
        return []

    def wait(self, state: Scene, ch: Challenge, winner: Leader, now: datetime) -> tuple[str, datetime] | None:
        """``(repeat key, until)`` when the challenger may not repeat this challenge soon (by
        default, never)."""
        return None

    repeat_wait: ClassVar[str] = ""
    """How long ``wait`` keeps a challenger from repeating a failed challenge, as the log's words say
    it ("five minutes"); empty where its waits are not said so (bns's immunities)."""

    def before_resolution(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        """Events that must happen before the challenge resolves (a forced retest), or none."""
        return []

    def settled(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        """What follows any resolution, a relent's included (a grapple the victim broke by winning)."""
        return []

    def damage(self, state: Scene, ch: Challenge, attacker: Helper, effect: Damage) -> Dealt:
        """The damage a winning attacker deals in the resolved challenge ``ch``: the challenger, or
        the mob member whose victory condition was chosen (its powers may add to it or change its
        type, its grade add a point), with each change from ``effect`` in words and its rule."""
        return Dealt.of(effect)

    def wounds(self, state: Scene, ch: Challenge, target: str, dealt: Dealt) -> list[SceneEvent]:
        """The damage a target takes from a won attack (kony: armour first), saying how it came."""
        return [taken(target, ch, dealt)]

    def stands(self, source: Source) -> bool:
        """Whether a retest from ``source`` stands at once, uncancellable (no wait for a pass)."""
        return False

    def blood(self, state: Scene, who: str, kind: str) -> BloodSpent:
        """Spend a point of blood for a bonus Physical Trait of ``kind``, or refuse."""
        raise Rejected("no_blood", f"{self.name} has no rule for spending blood on Traits.")

    # -- rounds (only for rulesets that have them) -------------------------------------------

    def round_actions(self, state: Scene, who: str) -> int:
        """Actions a character has in a round: one that needs a test, plus extra actions."""
        return 1

    def initiative(self, state: Scene, who: str, action: Action) -> int:
        """A character's initiative for the action it declared."""
        return 0

    def check_action(self, state: Scene, who: str, action: Action) -> list[SceneEvent]:
        """Refuse a declared action, or return what it causes at once (a grapple let go)."""
        return []

    def maneuvers(self, state: Scene, who: str) -> list[ManeuverOffer]:
        """The combat maneuvers ``who`` could use now, each with its cost (pool rulesets)."""
        return []

    def maneuver_title(self, name: str) -> str:
        """A combat maneuver by the name the book gives it ("Grapple", "Knock Down")."""
        return name.replace("_", " ").title()

    def clears_after(self, condition: str) -> int:
        """Simple actions a condition takes to clear (0: not that way)."""
        return 0

    def round_budget(self, state: Scene, who: str) -> dict[str, int]:
        """A character's actions this round by kind (rulesets that count them so), or empty."""
        return {}

    def rage_rounds(self, state: Scene, who: str, ruled: Mapping[str, int]) -> int:
        """Rage rounds a character has this turn (``ruled``: the ST's word at ``start_round``)."""
        return 0

    def order_round(self, state: Scene, choose: Callable[[tuple[str, ...]], str]) -> InitiativeSet:
        """The order of a round that opens without declarations, ties broken as the ruleset says
        (``choose`` draws the signs of any test it throws). By default everyone present acts at
        once, in one turn (a ruleset without initiative)."""
        present = [c.id for c in state.roster() if c.present]
        values = dict.fromkeys(present, 0)
        return InitiativeSet(
            order=[present],
            values=values,
            why="Everyone acts at once.",
            rule=self.cites.get("order", self.cites["adjudication"]),
        )

    def break_ties(
        self, state: Scene, groups: list[list[str]], values: Mapping[str, int], d10: Callable[[], int]
    ) -> InitiativeSet | None:
        """The order with its ties broken by the ruleset (kony's d10s), or None: the ST orders them."""
        return None

    def check_order(self, state: Scene) -> None:
        """Refuse the ST's ``order`` where the ruleset's dice order ties (kony)."""
        return None

    def check_narrative(self, state: Scene) -> None:
        """Refuse a narrative round (kony:narrative)."""
        raise Rejected("no_narrative", f"{self.name} has no narrative rounds.", self.cites["adjudication"])

    def feed(self, state: Scene, who: str, target: str, blood: int) -> list[SceneEvent]:
        """Feeding on a grappled target in combat (kony:feeding), or refused."""
        raise Rejected("no_feeding", f"{self.name} has no rule for feeding in combat.", self.cites["adjudication"])

    def act(self, state: Scene, who: str, action: Action, now: datetime) -> list[SceneEvent]:
        """An action taken on one's turn (no declaration phase): refused, or what it records."""
        raise Rejected("no_actions", f"{self.name} declares actions at the start of the round.")

    def intend(self, state: Scene, who: str, target: str) -> list[SceneEvent]:
        """An intent to attack one trying to fair escape, or refused."""
        raise Rejected("no_fair_escape", f"{self.name} has no fair escape to announce an attack against.")

    def assist(self, state: Scene, who: str, cmd: Assist) -> list[SceneEvent]:
        """A mass combat tactic: help an attacker, or shield a defender."""
        raise Rejected("no_assist", f"{self.name} has no mass combat tactics; {self.name} mobs join a challenge.")

    def answer_assist(self, state: Scene, who: str, offer: int, accept: bool) -> list[SceneEvent]:
        """The attacker accepts or refuses an offer of assistance."""
        raise Rejected("no_assist", f"{self.name} has no mass combat tactics.")

    def extra_turn(self, state: Scene) -> TurnStarted | None:
        """The next extra-action turn once the order has been through, or None: by default every
        character with an extra action left acts together, by count (camarilla)."""
        r = state.round
        assert r is not None
        extra = r.extra + 1 if r.turn_phase == "extra" else 1
        movers = sorted(
            c.id
            for c in state.roster()
            if c.present and c.conditions.fair_escape != "escaped" and self.round_actions(state, c.id) - 1 >= extra
        )
        if not movers:
            return None
        names = ", ".join(state.name_of(w) for w in movers)
        return TurnStarted(
            phase="extra",
            characters=movers,
            extra=extra,
            why=f"Extra action {extra}: {names} act together.",
            rule="camarilla:multiple-actions",
        )

    def turn_ended(self, state: Scene, who: str) -> list[SceneEvent]:
        """What follows the end of ``who``'s turn (an escape's window closing)."""
        return []

    def phase_ended(self, state: Scene) -> list[SceneEvent]:
        """What follows the end of the universal round or of a Rage round (held escapes)."""
        return []

    def round_ending(self, state: Scene) -> list[SceneEvent]:
        """What happens as the round ends, before ``round_ended``."""
        return []

    cites: ClassVar[Mapping[str, str]]
    """The rule ids the lifecycle cites for its own steps, by step: ``relent``, ``test``,
    ``retest``, ``cancel``, ``negative_traits``, ``declare_first``, ``overbid_first``,
    ``declare_fewer``, ``adjudication``."""
