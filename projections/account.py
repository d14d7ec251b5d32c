"""One account of each challenge, made once, from the folded state: who stood on each side and what
each put up (the Traits bid, each Trait risked on an overbid, the pool with its make-up, the mob's
lent Traits), the powers and maneuvers in play, each test and retest, the verdict with its grade and
rule, every effect that stands with how it came from what was declared, what winning will do while
it is open (``domain.stakes``: the resolution itself), and the rulings with the Storyteller's reason.

The page's cards, the terminal, the replay and the audit render this and compose nothing of their
own. Sentences are in the third person, by names; ``for_viewer`` redacts what a viewer may not know
yet (the other side's pool before the first test) and says a player's own character as "you".
Rule ids are kept beside the words (``rule``), for the rule's own words and for the record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Literal, TypeVar

import msgspec
from msgspec.structs import replace

from domain.commands import Source
from domain.effects import Damage, EscapeGrapple, Grapple, KnockDown
from domain.events import (
    ArmorDamaged,
    ConditionSet,
    DamageTaken,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    TraitLost,
)
from domain.kept import ByObject
from domain.pools import Pool
from domain.rules import ruleset_for
from domain.rules.base import TraitPool
from domain.stakes import Stake, stakes
from domain.state import NARRATOR, Challenge, Consequence, RetestEntry, Scene, TestRecord, and_list
from projections.deadline_words import lapse_said
from projections.narrate import addressed, source_label
from projections.redact import knows

Role = Literal["challenger", "defender", "helper"]
Tone = Literal["won", "lost", "draw", "other", "open", "withdrawn"]


class Put(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one character put up in the challenge."""

    who: str
    role: Role
    words: str
    """All of it in one sentence: "Favian bids Beguiling; on the overbid, Favian risks Seductive"."""
    bid: list[str] = []
    """The Traits first bid (a mob member: the Traits it lent)."""
    risked: list[str] = []
    """Each Trait risked on an overbid retest, in order."""
    pool: Pool | None = None
    """Its test pool, every part recorded (absent for a viewer who may not know it yet)."""
    power: str | None = None
    victory: str = ""
    """Its own victory condition, in its own words."""
    trait_pool: str = ""
    """While it is open, its Trait Pool for ties and overbids where the ruleset counts one (kony),
    with how it is counted and its cap: "Vito's pool of 8 (8 physical), at most 30" (kept from a
    viewer who may not know it)."""


class TestLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    __test__ = False  # not a pytest test class

    number: int
    words: str
    """The test in one sentence, said once: "Favian threw rock, Endora threw paper: Endora wins the test"."""
    signs: dict[str, str] = {}
    dice: dict[str, list[int]] = {}
    leader: str | None = None
    """``challenger``, ``defender``, ``none``; absent while a tie is still being settled."""
    compared: dict[str, int] = {}
    rule: str = ""


class Face(msgspec.Struct, frozen=True, kw_only=True):
    """What a face of the dice counts as (kony:successes): 1, "a success"."""

    face: int
    means: str


class RetestLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    by: str
    source: Source
    after_test: int
    status: str
    """``pending``, ``stood``, ``cancelled`` or ``failed``."""
    words: str
    """"Endora retests with Dodge (ability): cancelled with Dodge (ability) by Favian"."""
    cancelled_by: Source | None = None


class EffectLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One thing the challenge did to a character, that stands (a ruling's corrections applied)."""

    kind: str
    """The event's type: ``trait_lost``, ``damage_taken``, ``armor_damaged``, ``grapple_started``,
    ``grapple_broken``, ``knocked_down``, ``condition_set``."""
    who: str
    words: str
    """"Juan takes 2 aggravated damage"."""
    why: str = ""
    """How it came: "1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."."""
    rule: str = ""
    amount: int = 0
    """Damage taken, or armour lost: how much."""
    damage: str = ""
    """The damage's type (``bashing``, ``lethal``, ``aggravated``)."""
    trait: str = ""
    """The Trait lost."""


class StakeLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one way of ending the open challenge would do, as the ruleset will apply it."""

    winner: str
    """``challenger``, ``defender`` or ``none`` (a draw)."""
    title: str
    """Which way of ending it is: "If Sam wins", "If Juan relents", "If it is a draw"."""
    words: str
    """"If Sam wins: Juan loses Nimble; Juan takes 1 bashing damage"."""
    effects: list[EffectLine] = []
    exceptional: bool = False


class RulingLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: int
    """The seq of its ``ruling_issued``."""
    decision: str
    reason: str
    """The Storyteller's own words."""
    words: str
    """"The Storyteller overturned the result: Sam had cover."."""
    changed: str = ""
    """What the ruling changed, in words."""
    stand: list[str] = []
    """Challenges resolved since with the same people, which stand as played, in words."""


class Verdict(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    winner: str
    """``challenger``, ``defender``, ``none``; ``withdrawn`` for a withdrawn challenge."""
    words: str
    """How it ended, with what it cost, said once: "Endora won: Favian loses Beguiling"."""
    tone: Tone = "other"
    """For the viewer: ``won``, ``lost``, ``draw``, ``other``, ``withdrawn``."""
    cost: str = ""
    """What the outcome did, each loss counted once: "Favian loses Beguiling; Favian takes 1 bashing damage"."""
    grade: str = ""
    """"An exceptional success", "Lucia fails critically" ("" : none)."""
    why: str = ""
    rule: str = ""
    ruled: str = ""
    """How a ruling changed it: "overturned by the Storyteller: Sam had cover" ("" : it did not)."""
    before: str = ""
    """The outcome first given, where a ruling changed it."""


class Account(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    title: str
    """"Lucia Vance challenges Marco Reyes (Physical · Grapple)"."""
    kind: str
    category: str
    status: str
    now: str
    """Where it stands, in words: "waiting for the throws", "decided", "withdrawn"."""
    sides: list[Put]
    result: str = ""
    """How it ended in a few words, or where it stands: "Juan won", "a draw", "withdrawn" (``result``)."""
    in_play: list[str] = []
    """The powers and maneuvers in play, in words: "Sam uses Dread Gaze", "Grapple (maneuver)"."""
    calls: list[str] = []
    """Negative Trait calls, in words."""
    late: list[str] = []
    """The response deadlines its people ran past (``domain.deadlines``), oldest first, each with
    its step: "Juan ran past the table's deadline for a throw (step 10)"; a lapse the Storyteller
    then gave more time for is taken back (the scene's clocks forget it). What followed is that
    step's own words (a move made for them by the deadline, or the Storyteller told and choosing):
    a move the test lines name after it may be the deadline's, not the player's."""
    tests: list[TestLine] = []
    faces: list[Face] = []
    """Once dice are shown (kony): each face of a die and what it counts as, to read them by."""
    retests: list[RetestLine] = []
    verdict: Verdict | None = None
    effects: list[EffectLine] = []
    """What it did to characters that stands: the Traits lost on the way (an overbid's first bid,
    which no ruling undoes) first, then what the outcome did."""
    stakes: list[StakeLine] = []
    """While it is open: what each way of ending it would do; told to the Storyteller and those in
    it, who act on it (a spectator or another player reads the challenge without them)."""
    rulings: list[RulingLine] = []
    round: int | None = None
    seq: int = 0


# -- making it -------------------------------------------------------------------------------


_STATUS = {
    "awaiting_response": "waiting for an answer",
    "bidding": "Traits being bid",
    "throwing": "waiting for the throws",
    "tie_declaring": "Traits being declared to break a tie",
    "retest_window": "open for retests",
    "resolved": "decided",
    "withdrawn": "withdrawn",
}

_RETEST = {
    "pending": "not yet answered",
    "stood": "it stands, and the test is thrown again",
    "cancelled": "cancelled",
    "failed": "it failed (the overbid fell short)",
}


def account(state: Scene, ch: Challenge, *, staked: bool = True) -> Account:
    """The challenge's account, everything the table may eventually know, by names (the
    Storyteller's reading; ``for_viewer`` makes another viewer's). ``staked``: with what winning
    will do while it is open (the resolution run for each way of ending it: the dearest part; a
    replay of every step goes without)."""
    name = state.name_of
    sides = [_put(state, ch, ch.challenger.who, "challenger")]
    sides += [_put(state, ch, h.who, "helper") for h in ch.challenger.helpers]
    if ch.defender.who != NARRATOR:
        sides.append(_put(state, ch, ch.defender.who, "defender"))
    effects = [effect_line(state, e) for e in ch.consequences]
    return Account(
        id=ch.id,
        title=title(state, ch),
        kind=ch.kind,
        category=ch.category,
        status=ch.status,
        now=_STATUS.get(ch.status, ch.status.replace("_", " ")),
        sides=sides,
        result=result(state, ch),
        in_play=_in_play(state, ch),
        calls=[
            f"{name(c.by)} calls {c.trait} on {name(c.against)}: {'right' if c.correct else 'wrong'}" for c in ch.calls
        ],
        late=_late(state, ch),
        tests=[
            TestLine(
                number=t.number,
                words=_test_words(state, ch, t),
                signs=dict(t.signs),
                dice={who: list(d) for who, d in t.dice.items()},
                leader=t.leader,
                compared=dict(t.compared),
                rule=t.rule,
            )
            for t in ch.tests
        ],
        faces=_faces(state, ch),
        retests=[_retest(state, ch, r) for r in ch.retests],
        verdict=_verdict(state, ch, effects),
        effects=[*(effect_line(state, e) for e in ch.spent), *effects],
        stakes=_stakes(state, ch) if staked and ch.open and ch.kind != "simple" else [],
        rulings=_rulings(state, ch),
        round=ch.round,
        seq=ch.seq,
    )


def _late(state: Scene, ch: Challenge) -> list[str]:
    """The deadlines of ``ch`` that lapsed (``Challenge.late``), each as its ``deadline_passed`` says
    it, and when."""
    if not ch.late:
        return []
    return [f"{lapse_said(state, late.passed).removesuffix('.')}, at step {late.seq}" for late in ch.late]


def title(state: Scene, ch: Challenge) -> str:
    """A challenge by its people and what it was: "Sam challenges Juan (Physical)", "Sam and Ana
    challenge Juan (Physical)" (a mob), "Sam's static Mental test against the Narrator (difficulty
    6)"; the maneuvers an attack uses in the brackets ("(Physical · Grapple)")."""
    kind = ch.category.capitalize()
    if ch.defense:
        kind += f" against {ch.defense.capitalize()}"
    what = " · ".join([kind, *(_maneuver(state, m) for m in ch.maneuvers)])
    who = state.name_of(ch.challenger.who)
    if ch.kind == "contested":
        members = ch.challenger.members
        verb = "challenges" if len(members) == 1 else "challenge"
        against = and_list(state.name_of(t) for t in ch.targets or (ch.defender.who,))
        return f"{and_list(state.name_of(m) for m in members)} {verb} {against} ({what})"
    if ch.kind == "static":
        difficulty = f", difficulty {ch.difficulty}" if ch.difficulty is not None else ""
        return f"{who}'s static test against the Narrator ({what}{difficulty})"
    return f"{who}'s simple test ({what})"


def result(state: Scene, ch: Challenge) -> str:
    """How it ended in a few words ("Juan won", "a draw", "withdrawn"), or where it stands."""
    if ch.outcome is None:
        return _STATUS.get(ch.status, ch.status.replace("_", " "))
    winner = ch.outcome.winner
    if winner == "none":
        return "a draw"
    if ch.kind != "contested":
        return f"{state.name_of(ch.challenger.who)} {'succeeded' if winner == 'challenger' else 'failed'}"
    return f"{and_list(state.name_of(who) for who in ch.side(winner).members)} won"


def _maneuver(state: Scene, name: str) -> str:
    return ruleset_for(state.ruleset).maneuver_title(name)


def _put(state: Scene, ch: Challenge, who: str, role: Role) -> Put:
    name = state.name_of(who)
    side = ch.challenger if role != "defender" else ch.defender
    member = side.member(who)
    risked = [t for r in ch.retests if r.by == who for t in getattr(r.source, "bid", ())]
    bid = list(side.first or member.bids) if role != "helper" else list(member.bids)
    pool = member.pool if role == "helper" else side.pool
    parts = []
    if bid:
        gone = " (lost on the overbid)" if risked and any(e.character == who for e in ch.spent) else ""
        parts.append(f"{name} {'lends' if role == 'helper' else 'bids'} {and_list(bid)}{gone}")
    if risked:
        parts.append(f"on the overbid, {name} risks {and_list(risked)}")
    if pool is not None:
        what = pool.attack or pool.defense or "test"
        parts.append(f"{name}'s {what} pool: {pool.describe()}")
    if member.power:
        parts.append(f"with {member.power}")
    if not parts:
        parts.append(f"{name} has put nothing up yet" if ch.open else f"{name} put nothing up")  # "you have …"
    counted = ruleset_for(state.ruleset).trait_pool(state, ch, "challenger" if role == "helper" else role)
    trait_pool = _trait_pool_words(state, who, counted) if counted is not None and ch.open and role != "helper" else ""
    return Put(
        who=who,
        role=role,
        words="; ".join(parts),
        bid=bid,
        risked=risked,
        pool=pool,
        power=member.power,
        victory=member.victory,
        trait_pool=trait_pool,
    )


def _in_play(state: Scene, ch: Challenge) -> list[str]:
    name = state.name_of
    out = []
    for side in (ch.challenger, ch.defender):
        for member in side.members:
            power = side.member(member).power
            if power:
                against = f" on {and_list(name(t) for t in ch.targets)}" if side is ch.challenger and ch.targets else ""
                out.append(f"{name(member)} uses {power}{against}")
    if ch.range is not None:
        out.append(f"from {ch.range} step{'s' if ch.range != 1 else ''}")
    out += [flag for flag, on in (("surprise", ch.surprise), ("ranged", ch.ranged)) if on]
    if ch.darkness:
        out.append("in darkness")
    return out


def _faces(state: Scene, ch: Challenge) -> list[Face]:
    """What each face of the dice counts as, once a test has shown dice (the ruleset's faces)."""
    if not any(t.dice for t in ch.tests):
        return []
    die = ruleset_for(state.ruleset).die
    return [Face(face=face, means=means) for face, means in die.faces] if die else []


def _signs_words(state: Scene, ch: Challenge, signs: dict[str, str]) -> str:
    order = [who for who in (ch.challenger.who, ch.defender.who) if who in signs]
    return ", ".join(f"{state.name_of(who)} threw {signs[who]}" for who in order)


def _test_words(state: Scene, ch: Challenge, t: TestRecord) -> str:
    """The test's own explanation, with the throws where it does not say them (a tie is told by the
    Traits compared: "Sam threw rock, Juan threw rock. A tie: Sam's 9 Physical Traits …")."""
    thrown = _signs_words(state, ch, t.signs)
    if not t.why or not thrown or thrown in t.why:
        return t.why or thrown
    return f"{thrown}. {t.why}"


def _retest(state: Scene, ch: Challenge, r: RetestEntry) -> RetestLine:
    said = f"After test {r.test}, {state.name_of(r.by)} retests with {source_label(r.source)}"
    if r.status == "cancelled" and r.cancelled_by is not None:
        other = ch.side(ch.other(r.role)).who
        what = f"{state.name_of(other)} cancels it with {source_label(r.cancelled_by)}"
    else:
        what = _RETEST.get(r.status, r.status)
    return RetestLine(
        by=r.by,
        source=r.source,
        after_test=r.test,
        status=r.status,
        words=f"{said}: {what}",
        cancelled_by=r.cancelled_by,
    )


# -- what it did to people --------------------------------------------------------------------


def effect_line(state: Scene, event: Consequence) -> EffectLine:
    """One consequence in words, with how it came and its rule: the one place these are said."""
    name = state.name_of
    match event:
        case TraitLost():
            said = f"{name(event.character)} loses {event.trait}"
            # its rule says why (a loss kept on its challenge keeps its names, not its words)
            return EffectLine(kind="trait_lost", who=event.character, words=said, rule=event.rule, trait=event.trait)
        case DamageTaken():
            said = f"{name(event.character)} takes {event.amount} {event.damage} damage"
            return EffectLine(
                kind="damage_taken",
                who=event.character,
                words=said,
                why=event.why,
                rule=event.rule,
                amount=event.amount,
                damage=event.damage,
            )
        case ArmorDamaged():
            said = f"{name(event.character)}'s armour takes {event.amount}"
            return EffectLine(
                kind="armor_damaged",
                who=event.character,
                words=said,
                why=event.why,
                rule=event.rule,
                amount=event.amount,
            )
        case GrappleStarted():
            said = f"{name(event.grappler)} grapples {name(event.victim)}"
            return EffectLine(kind="grapple_started", who=event.victim, words=said)
        case GrappleBroken():
            said = f"{name(event.victim)} breaks free of {name(event.grappler)}"
            return EffectLine(kind="grapple_broken", who=event.victim, words=said, why=event.why)
        case KnockedDown():
            said = f"{name(event.character)} is knocked prone"
            return EffectLine(kind="knocked_down", who=event.character, words=said)
        case ConditionSet():
            said = f"{name(event.character)} is {event.name.replace('_', ' ')}"
            return EffectLine(kind="condition_set", who=event.character, words=said, why=event.why, rule=event.rule)
    raise TypeError(f"not a consequence: {type(event).__name__}")


def reason(why: str, said: str) -> str:
    """A loss's reason without the loss said again ("Juan loses Nimble: the loser loses …" -> "the
    loser loses …")."""
    return why.removeprefix(f"{said}: ").removesuffix(".") if why.startswith(said) else why


def costs(state: Scene, effects: Iterable[EffectLine]) -> list[str]:
    """What some effects cost, said once each: a person's lost Traits together and counted ("Juan
    loses Brawny ×2"), then every other effect as it came ("Juan's armour takes 1")."""
    lost: dict[str, list[str]] = {}
    rest: list[str] = []
    for e in effects:
        if e.kind == "trait_lost":
            lost.setdefault(e.who, []).append(e.trait)
        else:
            rest.append(e.words)
    return [f"{state.name_of(who)} loses {and_list(traits)}" for who, traits in lost.items()] + rest


def _verdict(state: Scene, ch: Challenge, effects: list[EffectLine]) -> Verdict | None:
    name = state.name_of
    if ch.status == "withdrawn":
        return Verdict(winner="withdrawn", words=f"{name(ch.challenger.who)} withdrew the challenge", tone="withdrawn")
    o = ch.outcome
    if o is None:
        return None
    cost = "; ".join(costs(state, effects))
    said = result(state, ch)
    words = f"{said[0].upper()}{said[1:]}{f': {cost}' if cost else ''}"
    grade = "An exceptional success" if o.exceptional else ""
    if o.critical:
        grade = f"{grade}; {name(o.critical)} fails critically" if grade else f"{name(o.critical)} fails critically"
    ruled = ""
    ruling = next((r for r in reversed(state.rulings) if r.challenge == ch.id and r.decision != "uphold"), None)
    if ruling is not None:
        done = "overturned" if ruling.decision == "overturn" else "amended"
        ruled = f"{done} by the Storyteller: {ruling.reason.strip()}"
    before = ""
    if ch.original_outcome is not None:
        was = ch.original_outcome.winner
        before = "a draw" if was == "none" else f"{and_list(name(w) for w in ch.side(was).members)} won"
    last = ch.tests[-1].why if ch.tests else ""
    why = o.why.replace(last, "").strip() if last else o.why  # the last test is said on its own line
    return Verdict(
        winner=o.winner, words=words, cost=cost, grade=grade, why=why, rule=o.rule, ruled=ruled, before=before
    )


def _stakes(state: Scene, ch: Challenge) -> list[StakeLine]:
    return [_stake(state, ch, s) for s in _stakes_of(state, ch.id)]


def _stakes_of(state: Scene, cid: str) -> tuple[Stake, ...]:
    return _memo(state, cid, "stakes", lambda: stakes(state, cid))


def _stake(state: Scene, ch: Challenge, stake: Stake) -> StakeLine:
    lines = [effect_line(state, e) for e in stake.events]
    said = "; ".join(costs(state, lines)) or _nothing(ch, stake)
    title = stake_title(state, ch, stake)
    return StakeLine(
        winner=stake.winner,
        title=title,
        words=f"{title}: {said}",
        effects=lines,
        exceptional=stake.exceptional,
    )


def stake_title(state: Scene, ch: Challenge, stake: Stake) -> str:
    """Which way of ending ``stake`` is, as a heading: "If Sam wins", "If Sam wins with an
    exceptional success", "If Juan relents", "If the mob of Sam wins and Carl's victory condition
    is chosen", "If it is a draw"; a static or simple test succeeds or fails."""
    name = state.name_of
    challenger, defender = name(ch.challenger.who), name(ch.defender.who)
    if stake.relent:
        title = _relent_title(stake, challenger, defender)
    elif stake.winner == "none":
        return "If it is a draw"
    elif ch.kind != "contested":
        title = f"If {challenger} {'succeeds' if stake.winner == 'challenger' else 'fails'}"
    elif stake.winner == "challenger" and ch.challenger.helpers:
        title = f"If the mob of {challenger} wins"
    else:
        title = f"If {challenger if stake.winner == 'challenger' else defender} wins"
    if stake.exceptional and not stake.relent:
        title += " with an exceptional success"
    if stake.chosen is not None:
        title += f" and {name(stake.chosen)}'s victory condition is chosen"
    return title


def _trait_pool_words(state: Scene, who: str, counted: TraitPool) -> str:
    """A side's Trait Pool for ties and overbids, whose it is, how counted and its cap (said in the
    second person to its own player): "Sam's Trait Pool (for ties): 3 Traits (Physical 3; at most
    30)"."""
    if who == NARRATOR:
        return f"The difficulty: {counted.total}"
    traits = "1 Trait" if counted.total == 1 else f"{counted.total} Traits"
    return f"{state.name_of(who)}'s Trait Pool (for ties): {traits} ({counted.counted}; at most {counted.cap})"


def _relent_title(stake: Stake, challenger: str, defender: str) -> str:
    """A relent's heading: a relent has no test, so its grade is the rule's (bns:relent: a smaller
    pool than the attacker's gives an exceptional success), never a chance: "If Rosa relents",
    "If Rosa relents (Rosa's pool is smaller than Edward's: an exceptional success for Edward)", "If
    Rosa relents naming a defence smaller than Edward's pool (an exceptional success for Edward)"."""
    if stake.by_pool:
        size = "smaller than" if stake.exceptional else "at least as large as"
        grade = "an exceptional success" if stake.exceptional else "a normal success"
        return f"If {defender} relents naming a defence {size} {challenger}'s pool ({grade} for {challenger})"
    if stake.exceptional:
        return (
            f"If {defender} relents ({defender}'s pool is smaller than {challenger}'s: "
            f"an exceptional success for {challenger})"
        )
    return f"If {defender} relents"


def stake_words(state: Scene, stake: Stake) -> list[str]:
    """Each consequence of ``stake`` in words, with how a damage came where something changed it
    (the declare form's preview): "Juan takes 2 aggravated damage: 1 lethal declared; Feral Claws
    makes it aggravated; Puissance adds 1."."""
    return [with_why(effect_line(state, event)) for event in stake.events]


def with_why(e: EffectLine) -> str:
    """An effect's words, with how a damage came where something changed it."""
    changed = e.kind == "damage_taken" and e.why and not e.why.endswith(", as declared.")
    return f"{e.words}: {e.why}" if changed else e.words


def _nothing(ch: Challenge, stake: Stake) -> str:
    """A way of ending that changes no character: what the victory condition says instead."""
    if stake.winner == "none":
        return "nobody loses anything"
    effect = ch.challenger.effect if stake.winner == "challenger" else ch.defender.effect
    victory = ch.victory if stake.winner == "challenger" else ch.defender.victory
    match effect:
        case EscapeGrapple():
            return "they break free"
        case Grapple() | KnockDown() | Damage():
            return "nothing the engine applies"
    return f"“{victory}”" if victory else "nothing is lost"


def _sentence(text: str) -> str:
    """Someone's own words as a sentence of ours: one full stop at the end."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def _rulings(state: Scene, ch: Challenge) -> list[RulingLine]:
    out = []
    for r in state.rulings:
        if r.challenge != ch.id and r.event not in (ch.seq, ch.resolved_seq):
            continue
        done = {"uphold": "upheld", "overturn": "overturned", "amend": "amended"}.get(r.decision, r.decision)
        stand = [
            challenge_title
            for cid in r.later
            if (later := state.challenges.get(cid)) is not None
            and later.status == "resolved"
            and (challenge_title := f"{title(state, later)}: {result(state, later)}")
        ]
        out.append(
            RulingLine(
                id=r.id,
                decision=r.decision,
                reason=r.reason,
                words=f"The Storyteller {done} the result: {_sentence(r.reason)}",
                changed=r.why if r.decision != "uphold" else "",
                stand=stand,
            )
        )
    return out


# -- for one viewer ---------------------------------------------------------------------------


Reader = tuple[str, tuple[str, ...]]
"""A player's own character's name, and the other characters' names."""


def for_viewer(state: Scene, ch: Challenge, viewer: str, reader: Reader | None, *, staked: bool = True) -> Account:
    """The account as ``viewer`` may know it: the other side's pool hidden until the first test is
    shown, a player's own character as "you", the verdict's tone for them. ``staked``: as for
    ``account``."""
    made = "account" if staked else "unstaked"
    whole = _memo(state, ch.id, made, lambda: account(state, ch, staked=staked))
    if viewer == NARRATOR:
        return whole  # the Storyteller reads it whole, by names
    shown = bool(ch.tests) or not ch.open
    sides = whole.sides
    if any((s.pool is not None and not shown) or s.trait_pool for s in sides):
        sides = [
            s if s.pool is None or shown or knows(viewer, s.who) else replace(s, pool=None, words=_hidden(state, s))
            for s in sides
        ]
        sides = [s if not s.trait_pool or knows(viewer, s.who) else replace(s, trait_pool="") for s in sides]
    verdict = whole.verdict
    if verdict is not None and verdict.tone != "withdrawn":
        tone = _tone(ch, viewer, verdict.winner)
        if tone != verdict.tone:
            verdict = replace(verdict, tone=tone)
        if ch.kind == "contested" and tone in ("won", "lost") and reader is not None:
            # a side reads its own result first: "You lost: you take 2 aggravated damage"
            verdict = replace(verdict, words=f"You {tone}{f': {verdict.cost}' if verdict.cost else ''}")
    stakes = whole.stakes
    acting = viewer in (*ch.challenger.members, *ch.targets, ch.defender.who)
    if stakes and not acting:  # what winning will do is for those who act in it (and the Storyteller)
        stakes = []
    if any(e.kind == "armor_damaged" and not knows(viewer, e.who) for st in stakes for e in st.effects):
        stakes = [_armour_kept(state, ch, st, viewer) for st in stakes]
    if sides is not whole.sides or verdict is not whole.verdict or stakes is not whole.stakes:
        whole = replace(whole, sides=sides, verdict=verdict, stakes=stakes)
    if reader is None or not acting:
        return whole  # a challenge between others says nobody as "you"
    return _addressed(whole, reader)


def preview(state: Scene, ch: Challenge, viewer: str) -> list[tuple[StakeLine, tuple[Consequence, ...]]]:
    """What each way ``ch`` (a would-be challenge, on a thrown-away draft) can end would do, as
    ``viewer`` may read it before the test: each stake said to them ("If you win: …"), with its
    events; a target's armour, which only its player and the Storyteller know, said as the one
    amount dealt, and its armour and damage events left out (``domain.stakes``)."""
    out = []
    reader = reader_of(state, viewer)

    def say(text: str) -> str:
        return _said_to(text, reader[0], reader[1]) if reader is not None and reader[0] in text else text

    for stake in stakes(state, ch.id):
        line = _stake(state, ch, stake)
        events = stake.events
        unknown = {e.character for e in events if isinstance(e, ArmorDamaged) and not knows(viewer, e.character)}
        if unknown:
            line = _armour_kept(state, ch, line, viewer)
            events = tuple(
                e for e in events if not (isinstance(e, ArmorDamaged | DamageTaken) and e.character in unknown)
            )
        if reader is not None:
            line = replace(
                line,
                title=say(line.title),
                words=say(line.words),
                effects=[_effect_to(e, say) for e in line.effects],
            )
        out.append((line, events))
    return out


def reader_of(state: Scene, viewer: str) -> Reader | None:
    """A player's own character's name and the others' (None: the viewer has no character here)."""
    mine = state.characters.get(viewer)
    if mine is None:
        return None
    return mine.name, tuple(c.name for who, c in state.characters.items() if who != viewer)


def _armour_kept(state: Scene, ch: Challenge, stake: StakeLine, viewer: str) -> StakeLine:
    """A stake as one who does not know the target may read it before the test: the armour the
    target has left is the target's own (kony:damage-order), so its armour and its damage are said
    as the one amount dealt ("Don takes 3 lethal damage"), the same whether armour takes some or not."""
    lines: list[EffectLine] = []
    soaked: dict[str, int] = {}
    for e in stake.effects:
        if e.kind == "armor_damaged" and not knows(viewer, e.who):
            soaked[e.who] = soaked.get(e.who, 0) + e.amount
        elif e.kind == "damage_taken" and not knows(viewer, e.who):
            total = e.amount + soaked.pop(e.who, 0)
            said = f"{state.name_of(e.who)} takes {total} {e.damage} damage"
            lines.append(replace(e, words=said, why="", rule="", amount=total))
        else:
            lines.append(e)
    dealt = _declared_type(ch)
    for who, amount in soaked.items():  # all of it on the armour
        said = f"{state.name_of(who)} takes {amount} {dealt} damage"
        lines.append(EffectLine(kind="damage_taken", who=who, words=said, amount=amount, damage=dealt))
    return replace(stake, effects=lines, words=f"{stake.title}: {'; '.join(costs(state, lines))}")


def _declared_type(ch: Challenge) -> str:
    effect = ch.challenger.effect
    return effect.type if isinstance(effect, Damage) else "bashing"


def _hidden(state: Scene, put: Put) -> str:
    bid = f"{state.name_of(put.who)} bids {and_list(put.bid)}; " if put.bid else ""
    return f"{bid}{state.name_of(put.who)}'s pool is kept secret until the test"


def _tone(ch: Challenge, viewer: str, winner: str) -> Tone:
    if winner == "none":
        return "draw"
    if viewer == NARRATOR:
        return "other"
    role = "challenger" if viewer in ch.challenger.members else "defender" if viewer in ch.defender.members else None
    if role is None:
        return "other"
    return "won" if role == winner else "lost"


def _addressed(a: Account, reader: Reader) -> Account:
    me, others = reader
    say: Callable[[str], str] = lambda text: _said_to(text, me, others) if me in text else text  # noqa: E731
    return replace(
        a,
        title=say(a.title),
        result=say(a.result),
        sides=[replace(s, words=say(s.words), trait_pool=say(s.trait_pool)) for s in a.sides],
        in_play=[say(x) for x in a.in_play],
        calls=[say(x) for x in a.calls],
        late=[say(x) for x in a.late],
        tests=[replace(t, words=say(t.words)) for t in a.tests],
        retests=[replace(r, words=say(r.words)) for r in a.retests],
        verdict=replace(
            a.verdict,
            words=say(a.verdict.words),
            cost=say(a.verdict.cost),
            grade=say(a.verdict.grade),
            why=say(a.verdict.why),
            before=say(a.verdict.before),
        )
        if a.verdict
        else None,
        effects=[_effect_to(e, say) for e in a.effects],
        stakes=[
            replace(s, title=say(s.title), words=say(s.words), effects=[_effect_to(e, say) for e in s.effects])
            for s in a.stakes
        ],
        rulings=[replace(r, changed=say(r.changed)) for r in a.rulings],
    )


def _effect_to(e: EffectLine, say: Callable[[str], str]) -> EffectLine:
    return replace(e, words=say(e.words), why=say(e.why))


@lru_cache(maxsize=8192)
def _said_to(text: str, me: str, others: tuple[str, ...]) -> str:
    return addressed(text, me, others)


# -- made once a state ------------------------------------------------------------------------

_T = TypeVar("_T")
_MEMO: dict[tuple[object, ...], tuple[tuple[object, ...], object]] = {}
_MEMO_SIZE = 1024
_NOW: ByObject[Scene, dict[tuple[str, str], object]] = ByObject(_MEMO_SIZE)
"""The same, by the very state asked about: the viewers of one commit ask about one state."""


def _memo(state: Scene, cid: str, what: str, make: Callable[[], _T]) -> _T:
    """What ``make`` gives for a challenge, made again only when what it reads has changed: the
    challenge itself, the characters in it, the rulings, the options and the round (all frozen,
    replaced on every change, so the very objects say so); every viewer of a commit, and the
    commits that leave the challenge and its people alone, share one account."""
    now = _NOW.get(state)
    if now is None:
        now = _NOW.put(state, {})
    elif (cid, what) in now:
        return now[(cid, what)]  # type: ignore[return-value]
    inputs = _inputs(state, cid)
    key = (*map(id, inputs), cid, what)
    found = _MEMO.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], inputs, strict=True)):
        value = found[1]
    else:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        value = make()
        _MEMO[key] = (inputs, value)  # kept beside it: their ids are not reused while the entry lives
    now[(cid, what)] = value
    return value  # type: ignore[return-value]


def _inputs(state: Scene, cid: str) -> tuple[object, ...]:
    """Everything a challenge's account and stakes read of the scene: the challenge, of its people
    what a resolution reads (their sheets and names, Traits lost, wounds, conditions, bonuses,
    armour, presence: not their Willpower, Abilities or actions), the rulings, the options, the
    round; and where one of them is held by another (escaping frees from every holder), every
    character."""
    ch = state.challenges[cid]
    people = (*ch.challenger.members, *ch.targets, ch.defender.who)
    found = [c for who in people if (c := state.characters.get(who)) is not None]
    held = any(c.conditions.grappled_by for c in found)
    read = [part for c in found for part in (c.sheet, c.lost, c.wounds, c.conditions, c.bonuses, c.slot, c.present)]
    told = state.clocks.told if state.clocks is not None else None  # the deadlines it ran past
    whole = [state.characters] if held else []
    return (ch, state.rulings, state.options, state.round, state.ruleset, told, *read, *whole)
