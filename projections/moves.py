"""What a player may do now in a challenge: each candidate move is put to ``decide`` against the
current state, and only those it would accept are offered. The rules are never restated here, so
the page and the server cannot disagree about what is allowed.

Only the player's own resources are tried (its Traits, Abilities, powers, merits, gestures); a
Negative Trait call is tried with a name nobody has, so the answer says whether calling is open
now without revealing what the other side has.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from domain.commands import (
    AbilitySource,
    AnyCommand,
    BidTraits,
    CallNegative,
    CancelRetest,
    ChooseVictory,
    DeclareAction,
    DeclareTraits,
    ExpendituresDone,
    Feed,
    Join,
    MeritSource,
    OverbidSource,
    Pass,
    PowerSource,
    Relent,
    Retest,
    Roll,
    SheetSource,
    Source,
    SurpriseSource,
    Throw,
    WillpowerSource,
    Withdraw,
)
from domain.context import Context
from domain.decide import decide
from domain.effects import Narrative
from domain.errors import Rejected
from domain.events import OverbidFailed, OverbidSucceeded, Role, SceneEvent
from domain.evolve import fold
from domain.log import Recorded
from domain.pools import Pool, PoolSpec
from domain.rules import ruleset_for
from domain.sheets import Category
from domain.state import NARRATOR, Challenge, Character, Scene, and_list

MOST_BIDS = 5
"""The most Traits one answer bids (a mob's target: one per attacker, at most five)."""
_NOBODY = "\u2014nobody's trait\u2014"
POOL_SOURCES: tuple[Source, ...] = (WillpowerSource(), OverbidSource())
"""The retests a pool ruleset may allow (a pool overbid risks no Trait)."""


class Moves(msgspec.Struct, frozen=True, omit_defaults=True):
    """The moves open to one player in one challenge now."""

    verbs: list[str] = []
    """Of ``bid``, ``relent``, ``withdraw``, ``call_negative``, ``throw``, ``declare_traits``,
    ``retest``, ``cancel_retest``, ``pass``, ``choose_victory``, ``join``."""
    bid_count: int = 0
    """How many Traits the bid takes."""
    traits: dict[str, int] = {}
    """The Traits the player may bid now, with how many of each are left."""
    signs: list[str] = []
    """What the player may throw (``random`` included when allowed)."""
    most: int | None = None
    """The largest count the player may declare."""
    retest: list[Source] = []
    cancel: list[Source] = []
    victory_of: list[str] = []
    """Whose victory condition a winning champion may choose."""
    defenses: dict[str, Pool] = {}
    """The defence pools the player may answer (or relent) with, each with its parts and total
    (pool rulesets)."""
    dice: int = 0
    """How many d3s a ``roll`` naming no retest would roll (dice rulesets); one more for each
    source named."""
    dice_why: str = ""
    """How that count is made (1 + retests + ranged + surprise - darkness)."""
    roll_sources: list[Source] = []
    """The retest sources the roll may name, each good for one more die (dice rulesets)."""
    enter: bool = False
    """Whether the player may enter dice rolled by hand (``values``) for its side."""
    effect: bool = False
    """Whether the answer (``bid``) may carry the defender's own victory condition, ``effect``,
    applied to the challenger if the defender wins (kony:resolution)."""
    overbid: str = ""
    """What the overbid offered in ``retest`` risks and what it needs to earn a new test, in the
    player's words (lotn:overbid-double): "Overbid: risk Nimble; ...". Empty when none is offered."""
    negatives: list[str] = []
    """The other side's Negative Traits the caller knows it has, each one ``call_negative`` would
    take now (with ``call_negative`` in ``verbs``): for an NPC (the Storyteller calls, and sees its
    opponent's sheet), the opponent's sheet; for a player, those shown by a correct call earlier in
    the scene (every call is public). Calling any other name stays open: the rules make a call a
    guess ("a Negative Trait that you believe your opponent possesses", lotn:negative-traits)."""


class RollOffer(msgspec.Struct, frozen=True, omit_defaults=True):
    """A side still to roll, as the Storyteller entering its dice rolled by hand sees it (dice
    rulesets): how many d3s, why, and the retest sources it may name (each one more die)."""

    dice: int
    why: str
    sources: list[Source] = []


class RoundMoves(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a character may do in the round outside any challenge now (dice rulesets)."""

    verbs: list[str] = []
    """Of ``expenditures_done``, ``fair_escape`` (a ``declare_action`` of that kind), ``feed``."""
    feed: dict[str, int] = {}
    """Whom the character may feed on now, with the most blood Traits it may take."""


def moves(state: Scene, ch: Challenge, who: str) -> Moves | None:
    """The moves ``who`` has in ``ch`` now, or None when it has none (or is not a character)."""
    me = state.characters.get(who)
    if me is None:
        return None
    probe = _Probe(state, ch, who)
    if not ch.open:  # a mob that won may still choose whose victory condition applies
        victory_of = [m for m in ch.challenger.members if probe(ChooseVictory, of=m)]
        return Moves(verbs=["choose_victory"], victory_of=victory_of) if victory_of else None
    role = ch.role_of(who)
    rules = ruleset_for(state.ruleset)
    if role is None:
        return _outsider(probe, me) if rules.has_mobs else None
    category = ch.side(role).category or ch.category
    pools = rules.stakes == "pools"
    pool = [] if pools else _pool(me, category)
    verbs: list[str] = []
    phase = phases(ch)
    bid_count = (
        next((n for n in range(1, MOST_BIDS + 1) if probe(BidTraits, bid=pool[:n])), 0)
        if "answer" in phase and not pools
        else 0
    )
    answering = "answer" in phase and pools and role == "defender"
    offered = rules.defenses(state, ch, who) if answering else {}
    defenses: dict[str, Pool] = {
        kind: found for kind, found in offered.items() if probe(BidTraits, pool=PoolSpec(defense=kind))
    }
    if bid_count or defenses:
        verbs.append("bid")
    effect = (
        rules.defender_victory
        and bool(bid_count)
        and role == "defender"
        and probe(BidTraits, bid=pool[:bid_count], effect=Narrative())
    )
    first = next(iter(offered), None)
    if "answer" in phase and (probe(Relent) or (first is not None and probe(Relent, pool=PoolSpec(defense=first)))):
        verbs.append("relent")
    if "answer" in phase and probe(Withdraw):
        verbs.append("withdraw")
    negatives: list[str] = []
    if "call" in phase and probe(CallNegative, trait=_NOBODY):
        verbs.append("call_negative")
        negatives = [t for t in _known_negatives(state, ch, role, me) if probe(CallNegative, trait=t)]
    signs = [
        s for s in (*rules.random_signs(), *me.sheet.gestures, "random") if "throw" in phase and probe(Throw, sign=s)
    ]
    if signs:
        verbs.append("throw")
    dice, dice_why, roll_sources, enter = 0, "", [], False
    if "throw" in phase and rules.die is not None and probe(Roll):
        verbs.append("roll")
        found = rules.dice(state, ch, role, [])
        dice, dice_why = found.count, found.why
        roll_sources = [s for s in _roll_sources(me) if probe(Roll, retests=[s])]
        enter = probe(Roll, values=[1] * dice)
    most = rules.max_declare(state, ch, role) if "declare" in phase and probe(DeclareTraits, count=0) else None
    if most is not None:
        verbs.append("declare_traits")
    sources: list[Source] = []
    if phase & {"retest", "cancel"}:
        sources = list(POOL_SOURCES) if pools else _sources(me, pool, ch.side(role).bids)
    # an overbid that cannot earn a new test, however few the other side declares, is not offered
    retest = [
        s
        for s in sources
        if "retest" in phase
        and probe(Retest, source=s)
        and (not isinstance(s, OverbidSource) or _overbid_may_win(probe, s, role))
    ]
    cancel: list[Source] = [
        s for s in sources if "cancel" in phase and not isinstance(s, OverbidSource) and probe(CancelRetest, source=s)
    ]
    verbs += [verb for verb, found in (("retest", retest), ("cancel_retest", cancel)) if found]
    overbid = next((_overbid_words(probe, s, role) for s in retest if isinstance(s, OverbidSource) and s.bid), "")
    if "pass" in phase and probe(Pass):
        verbs.append("pass")
    if not verbs:
        return None
    traits = {t: me.left(t, category) for t in dict.fromkeys(pool)} if bid_count else {}
    return Moves(
        verbs=verbs,
        bid_count=bid_count,
        traits=traits,
        signs=signs,
        most=most,
        retest=retest,
        cancel=cancel,
        defenses=defenses,
        dice=dice,
        dice_why=dice_why,
        roll_sources=roll_sources,
        enter=enter,
        effect=effect,
        overbid=overbid,
        negatives=negatives,
    )


def _known_negatives(state: Scene, ch: Challenge, role: Role, me: Character) -> list[str]:
    """The Negative Traits of ``role``'s opponent in ``ch`` that ``me``'s caller may know: all of
    its sheet when the caller is the Storyteller (``me`` an NPC); else those a correct call in the
    scene has shown."""
    against = ch.side(ch.other(role)).who
    opponent = state.characters.get(against)
    if opponent is None:
        return []
    if me.sheet.npc:
        found = opponent.sheet.negative_traits
        return list(dict.fromkeys(t for category in ("physical", "social", "mental") for t in found.of(category)))
    calls = (call for c in state.challenges.values() for call in c.calls)
    return list(dict.fromkeys(call.trait for call in calls if call.against == against and call.correct))


def _overbid_may_win(probe: _Probe, source: OverbidSource, role: Role) -> bool:
    """Whether the overbid ``source`` can earn a new test at all: ``decide`` is asked what follows
    the call, the overbidder declaring all it has and the other side as few as it may (the
    Narrator's count is the difficulty). False only when ``decide`` fails the overbid even so."""
    state = probe.after(Retest, source=source)
    if state is None:
        return False
    other = probe.ch.other(role)
    ch = state.challenges[probe.ch.id]
    if ch.status != "tie_declaring":
        return True  # nothing to compare yet in this ruleset: as the rules decide later
    rules = ruleset_for(state.ruleset)
    first = ch.declaring_first or role
    for each in (first, other if first == role else role):
        ch = state.challenges[probe.ch.id]
        who = ch.side(each).who
        if who == NARRATOR or ch.status != "tie_declaring":
            continue
        npc = state.characters[who].sheet.npc
        step = _Probe(state, ch, NARRATOR if npc else who, **({"character": who} if npc else {}))
        most = rules.max_declare(state, ch, each)
        counts = [most] if each == role else range(most + 1)
        count = next((n for n in counts if step(DeclareTraits, count=n)), None)
        if count is None:
            return True  # the rules take no count here: leave it to them
        events = step.events(DeclareTraits, count=count) or []
        if any(isinstance(e, OverbidSucceeded) for e in events):
            return True
        if any(isinstance(e, OverbidFailed) for e in events):
            return False
        state = step.after(DeclareTraits, count=count) or state
    return True


def _overbid_words(probe: _Probe, source: OverbidSource, role: Role) -> str:
    """What calling the overbid ``source`` risks and needs, from what the player knows: its own
    count once the overbid is called (what ``decide`` would make of it), and the other side's count
    only if that side declared it in this challenge (a tie), or the difficulty: "Overbid: risk
    Nimble (lost too if it fails); you need at least double Sam's Physical Traits for a new test: 8
    against the 4 Sam declared, and you have only 2, so it fails unless Sam declares fewer"."""
    state, ch = probe.state, probe.ch
    after = probe.after(Retest, source=source)
    if after is None:
        return ""
    rules = ruleset_for(state.ruleset)
    other = ch.other(role)
    them = ch.side(other).who
    mine = rules.max_declare(after, after.challenges[ch.id], role)
    count = f"{mine}{_spent_by_overbid(state, after, ch.side(role).who, ch.side(role).category or ch.category)}"
    category = (ch.side(role).category or ch.category).capitalize()
    theirs = "the difficulty" if them == NARRATOR else f"{state.name_of(them)}'s {category} Traits"
    risked = and_list(source.bid)
    known = ch.difficulty if them == NARRATOR else ch.side(other).declared
    said = f"Overbid: risk {risked} (lost too if it fails); you need at least double {theirs} for a new test"
    if known is None:
        most = mine // 2
        needs = f"{most} or fewer" if most else "none"
        return f"{said}: you have {count}, so {state.name_of(them)} must declare {needs}."
    need = 2 * known
    declared = f"the difficulty of {known}" if them == NARRATOR else f"the {known} {state.name_of(them)} declared"
    if mine >= need:
        return f"{said}: {need} against {declared}, and you have {count}."
    hope = "it cannot succeed" if them == NARRATOR else f"it fails unless {state.name_of(them)} declares fewer"
    return f"{said}: {need} against {declared}, and you have only {count}, so {hope}."


def _spent_by_overbid(before: Scene, after: Scene, who: str, category: Category) -> str:
    """Why the count after calling the overbid is less than the player's Traits now (the tie form's
    "at most 5"): the Trait bid on the lost test goes as the overbid is called (lotn:overbid), so
    it is not counted: " (5 less the Brawny bid on the test, lost as the overbid is called)"; "" if nothing goes."""
    was, now = before.characters.get(who), after.characters.get(who)
    if was is None or now is None or len(now.lost) <= len(was.lost):
        return ""
    gone = and_list([each.trait for each in now.lost[len(was.lost) :]])
    return f" ({was.available(category)} less the {gone} bid on the test, lost as the overbid is called)"


def roll_offer(state: Scene, ch: Challenge, who: str) -> RollOffer | None:
    """What ``who``'s side may roll now in ``ch`` (dice rulesets), each source put to ``decide`` as
    the Storyteller entering the dice would send it; None when it may not roll."""
    me = state.characters.get(who)
    role = ch.role_of(who)
    if me is None or role is None or "throw" not in phases(ch):
        return None
    probe = _Probe(state, ch, NARRATOR, character=who)
    if not probe(Roll):
        return None
    found = ruleset_for(state.ruleset).dice(state, ch, role, [])
    sources = [s for s in _roll_sources(me) if probe(Roll, retests=[s])]
    return RollOffer(dice=found.count, why=found.why, sources=sources)


FEED_MOST = 3
"""The most blood Traits one ``feed`` takes (the command's own bound)."""


def round_moves(state: Scene, who: str) -> RoundMoves | None:
    """What ``who`` may do in the round outside a challenge now, each put to ``decide``: say its
    expenditures are done, declare a fair escape, feed on one it holds (dice rulesets). The
    Storyteller tries them for an NPC, a player for its own character."""
    me = state.characters.get(who)
    r = state.round
    if me is None or r is None or r.phase == "over" or not me.present:
        return None
    actor = NARRATOR if me.sheet.npc else who
    verbs: list[str] = []
    if r.phase == "expending" and not me.expended and _accepted(state, ExpendituresDone, actor=actor, character=who):
        verbs.append("expenditures_done")
    escape = {"kind": "fair_escape"}
    if r.phase == "declaring" and _accepted(state, DeclareAction, actor=actor, character=who, action=escape):
        verbs.append("fair_escape")
    feed: dict[str, int] = {}
    for target in me.conditions.grappling:
        most = next(
            (
                n
                for n in range(FEED_MOST, 0, -1)
                if _accepted(state, Feed, actor=actor, character=who, target=target, blood=n)
            ),
            0,
        )
        if most:
            feed[target] = most
    if feed:
        verbs.append("feed")
    return RoundMoves(verbs=verbs, feed=feed) if verbs else None


def _accepted(state: Scene, kind: Callable[..., AnyCommand], **fields: object) -> bool:
    """Whether ``decide`` would accept one command outside a challenge now (appending nothing)."""
    try:
        command = msgspec.convert({"id": "probe", "scene": state.id, **fields}, kind)
    except (msgspec.ValidationError, TypeError):
        return False
    return accepted(state, command)


def accepted(state: Scene, command: AnyCommand) -> bool:
    """Whether ``decide`` would accept ``command`` now, appending nothing (what would follow it by
    itself is not worked out)."""
    try:
        decide(state, command, Context(now=state.last_at or datetime(2000, 1, 1, tzinfo=UTC), verdict=True))
    except (Rejected, msgspec.ValidationError, TypeError):
        return False
    return True


def phases(ch: Challenge) -> set[str]:
    """The kinds of move the lifecycle (``domain.challenge``) can take at all in this challenge's
    phase; the others it refuses with ``wrong_phase``, so they are not even tried."""
    match ch.status:
        case "awaiting_response":
            return {"answer"}
        case "bidding":
            return {"answer", "call", "throw"}
        case "throwing":
            return {"throw"}
        case "tie_declaring":
            return {"declare"}
        case "retest_window":
            return {"cancel", "pass"} if ch.pending_retest is not None else {"retest", "pass"}
    return set()


def _outsider(probe: _Probe, me: Character) -> Moves | None:
    """A character outside the challenge may join it as one more attacker (a mob)."""
    pool = _pool(me, "physical")
    if pool and probe(Join, bid=pool[:1]):
        return Moves(verbs=["join"], bid_count=1, traits={t: me.left(t, "physical") for t in dict.fromkeys(pool)})
    return None


class _Probe:
    """Asks ``decide`` whether one command would be accepted now, appending nothing."""

    def __init__(self, state: Scene, ch: Challenge, who: str, **also: object) -> None:
        self.state, self.ch, self.who, self.also = state, ch, who, also
        self.ctx = Context(now=state.last_at or datetime(2000, 1, 1, tzinfo=UTC))
        self.verdict = msgspec.structs.replace(self.ctx, verdict=True)

    def __call__(self, kind: Callable[..., AnyCommand], **fields: object) -> bool:
        """Whether ``decide`` would accept one command now (what would follow it is not worked out)."""
        return self._decide(kind, fields, self.verdict) is not None

    def events(self, kind: Callable[..., AnyCommand], **fields: object) -> list[SceneEvent] | None:
        """The events ``decide`` would make of one command now (None: refused)."""
        return self._decide(kind, fields, self.ctx)

    def _decide(
        self, kind: Callable[..., AnyCommand], fields: dict[str, object], ctx: Context
    ) -> list[SceneEvent] | None:
        try:
            command = kind(id="probe", scene=self.state.id, actor=self.who, challenge=self.ch.id, **self.also, **fields)
            return decide(self.state, command, ctx)
        except (Rejected, msgspec.ValidationError, TypeError):
            return None

    def after(self, kind: Callable[..., AnyCommand], **fields: object) -> Scene | None:
        """The scene as it would be had the command been accepted (None: refused)."""
        events = self.events(kind, **fields)
        if events is None:
            return None
        seq = self.state.version
        at = self.ctx.now
        records = [
            Recorded(seq=seq + i, scene=self.state.id, at=at, actor=self.who, command="probe", event=e)
            for i, e in enumerate(events, 1)
        ]
        return fold(records, self.state)


def _pool(me: Character, category: Category) -> list[str]:
    """Every Trait ``me`` could still bid in ``category``, one entry per copy left."""
    traits = me.sheet.traits
    names = [*(traits.of(category) if traits else {}), *(b.trait for b in me.bonuses if category == "physical")]
    return [name for name in dict.fromkeys(names) for _ in range(max(0, me.left(name, category)))]


def _roll_sources(me: Character) -> list[Source]:
    """Every source ``me`` might name for a die: Abilities with levels left, powers, merits, and a
    combat sheet's retests (``decide`` says which fit this challenge)."""
    sources: list[Source] = [AbilitySource(name=a) for a, level in me.abilities.items() if level > 0]
    sources += [PowerSource(name=p) for p in me.sheet.powers]
    sources += [MeritSource(name=m) for m in me.sheet.merits]
    sources += [SheetSource() for _ in range(me.sheet.retests)]
    return sources


def _sources(me: Character, pool: list[str], bid: tuple[str, ...]) -> list[Source]:
    """Every retest source ``me`` holds (an overbid with a Trait not yet bid)."""
    spare = list(pool)
    for trait in bid:
        if trait in spare:
            spare.remove(trait)
    sources: list[Source] = [AbilitySource(name=a) for a, level in me.abilities.items() if level > 0]
    sources += [PowerSource(name=p) for p in me.sheet.powers]
    sources += [MeritSource(name=m) for m in me.sheet.merits]
    sources += [WillpowerSource(), SurpriseSource()]
    if spare:
        sources.append(OverbidSource(bid=spare[:1]))
    return sources
