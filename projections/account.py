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
from domain.pools import Pool
from domain.rules import ruleset_for
from domain.stakes import Stake, stakes
from domain.state import NARRATOR, Challenge, Consequence, RetestEntry, Scene, and_list
from projections.narrate import addressed, source_label
from projections.redact import knows

Role = Literal["challenger", "defender", "helper"]
Tone = Literal["won", "lost", "draw", "other", "open", "withdrawn"]


class Put(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one character put up in the challenge."""

    who: str
    role: Role
    words: str
    """All of it in one sentence: "Favian bids Beguiling; Favian risks Seductive on the overbid"."""
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


class StakeLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one way of ending the open challenge would do, as the ruleset will apply it."""

    winner: str
    """``challenger``, ``defender`` or ``none`` (a draw)."""
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
    in_play: list[str] = []
    """The powers and maneuvers in play, in words: "Sam uses Dread Gaze", "Grapple (maneuver)"."""
    calls: list[str] = []
    """Negative Trait calls, in words."""
    tests: list[TestLine] = []
    retests: list[RetestLine] = []
    verdict: Verdict | None = None
    effects: list[EffectLine] = []
    stakes: list[StakeLine] = []
    """While it is open: what each way of ending it would do."""
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


def account(state: Scene, ch: Challenge) -> Account:
    """The challenge's account, everything the table may eventually know, by names (the
    Storyteller's reading; ``for_viewer`` makes another viewer's)."""
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
        in_play=_in_play(state, ch),
        calls=[
            f"{name(c.by)} calls {c.trait} on {name(c.against)}: {'right' if c.correct else 'wrong'}" for c in ch.calls
        ],
        tests=[
            TestLine(
                number=t.number,
                words=t.why or _signs_words(state, ch, t.signs),
                signs=dict(t.signs),
                dice={who: list(d) for who, d in t.dice.items()},
                leader=t.leader,
                compared=dict(t.compared),
                rule=t.rule,
            )
            for t in ch.tests
        ],
        retests=[_retest(state, ch, r) for r in ch.retests],
        verdict=_verdict(state, ch, effects),
        effects=effects,
        stakes=_stakes(state, ch) if ch.open and ch.kind != "simple" else [],
        rulings=_rulings(state, ch),
        round=ch.round,
        seq=ch.seq,
    )


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
        parts.append(f"{name} {'lends' if role == 'helper' else 'bids'} {and_list(bid)}")
    if risked:
        parts.append(f"{name} risks {and_list(risked)} on the overbid")
    if pool is not None:
        what = pool.attack or pool.defense or "test"
        parts.append(f"{name}'s {what} pool: {pool.describe()}")
    if member.power:
        parts.append(f"with {member.power}")
    if not parts:
        parts.append(f"{name} has put nothing up yet" if ch.open else f"{name} put nothing up")  # "you have …"
    counted = ruleset_for(state.ruleset).trait_pool(state, ch, "challenger" if role == "helper" else role)
    trait_pool = f"{counted.why}, at most {counted.cap}" if counted is not None and ch.open and role != "helper" else ""
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
    out += [f"{_maneuver(state, m)} (maneuver)" for m in ch.maneuvers]
    if ch.range is not None:
        out.append(f"from {ch.range} step{'s' if ch.range != 1 else ''}")
    out += [flag for flag, on in (("surprise", ch.surprise), ("ranged", ch.ranged)) if on]
    if ch.darkness:
        out.append("in darkness")
    return out


def _signs_words(state: Scene, ch: Challenge, signs: dict[str, str]) -> str:
    order = [who for who in (ch.challenger.who, ch.defender.who) if who in signs]
    return ", ".join(f"{state.name_of(who)} threw {signs[who]}" for who in order)


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
            return EffectLine(
                kind="trait_lost",
                who=event.character,
                words=said,
                why=reason(event.why, said),
                rule=event.rule,
            )
        case DamageTaken():
            said = f"{name(event.character)} takes {event.amount} {event.damage} damage"
            return EffectLine(kind="damage_taken", who=event.character, words=said, why=event.why, rule=event.rule)
        case ArmorDamaged():
            said = f"{name(event.character)}'s armour takes {event.amount}"
            return EffectLine(kind="armor_damaged", who=event.character, words=said, why=event.why, rule=event.rule)
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


def costs(effects: Iterable[EffectLine]) -> list[str]:
    """What some effects cost, a phrase a person: "Juan loses Brawny ×2 and takes 1 bashing damage"
    is said as "Juan loses Brawny ×2; Juan's armour takes 1; Juan takes 1 bashing damage", each
    Trait counted, never said twice."""
    lost: dict[str, list[str]] = {}
    rest: list[str] = []
    for e in effects:
        if e.kind == "trait_lost":
            lost.setdefault(e.who, []).append(e.words.rsplit(" loses ", 1)[1])
        else:
            rest.append(e.words)
    named = {e.who: e.words.split(" loses ", 1)[0] for e in effects if e.kind == "trait_lost"}
    return [f"{named[who]} loses {and_list(traits)}" for who, traits in lost.items()] + rest


def _verdict(state: Scene, ch: Challenge, effects: list[EffectLine]) -> Verdict | None:
    name = state.name_of
    if ch.status == "withdrawn":
        return Verdict(winner="withdrawn", words=f"{name(ch.challenger.who)} withdrew the challenge", tone="withdrawn")
    o = ch.outcome
    if o is None:
        return None
    cost = "; ".join(costs(effects))
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
    return Verdict(winner=o.winner, words=words, grade=grade, why=why, rule=o.rule, ruled=ruled, before=before)


def _stakes(state: Scene, ch: Challenge) -> list[StakeLine]:
    return [_stake(state, ch, s) for s in _stakes_of(state, ch.id)]


def _stakes_of(state: Scene, cid: str) -> tuple[Stake, ...]:
    return _memo(state, cid, "stakes", lambda: stakes(state, cid))


def _stake(state: Scene, ch: Challenge, stake: Stake) -> StakeLine:
    name = state.name_of
    if stake.winner == "none":
        head = "On a draw"
    else:
        winners = and_list(name(w) for w in ch.side(stake.winner).members)
        won = "succeeds" if ch.kind != "contested" and stake.winner == "challenger" else "wins"
        won = "fails" if ch.kind != "contested" and stake.winner == "defender" else won
        head = f"If {winners} {'win' if len(ch.side(stake.winner).members) > 1 else won}"
        if stake.exceptional:
            head += " exceptionally"
    lines = [effect_line(state, e) for e in stake.events]
    said = "; ".join(costs(lines)) or _nothing(ch, stake)
    return StakeLine(winner=stake.winner, words=f"{head}: {said}", effects=lines, exceptional=stake.exceptional)


def _nothing(ch: Challenge, stake: Stake) -> str:
    """A way of ending that changes no character: what the victory condition says instead."""
    effect = ch.challenger.effect if stake.winner == "challenger" else ch.defender.effect
    victory = ch.victory if stake.winner == "challenger" else ch.defender.victory
    match effect:
        case EscapeGrapple():
            return "they break free"
        case Grapple() | KnockDown() | Damage():
            return "nothing the engine applies"
    return f"“{victory}”" if victory else "nothing is lost"


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
                words=f"The Storyteller {done} the result: {r.reason.strip()}",
                changed=r.why if r.decision != "uphold" else "",
                stand=stand,
            )
        )
    return out


# -- for one viewer ---------------------------------------------------------------------------


Reader = tuple[str, tuple[str, ...]]
"""A player's own character's name, and the other characters' names."""


def for_viewer(state: Scene, ch: Challenge, viewer: str, reader: Reader | None) -> Account:
    """The account as ``viewer`` may know it: the other side's pool hidden until the first test is
    shown, a player's own character as "you", the verdict's tone for them (a side's own verdict
    begins "You won" or "You lost")."""
    whole = _memo(state, ch.id, "account", lambda: account(state, ch))
    shown = bool(ch.tests) or not ch.open
    sides = [
        s if s.pool is None or shown or knows(viewer, s.who) else replace(s, pool=None, words=_hidden(state, s))
        for s in whole.sides
    ]
    sides = [s if not s.trait_pool or knows(viewer, s.who) else replace(s, trait_pool="") for s in sides]
    verdict = whole.verdict
    if verdict is not None and verdict.tone != "withdrawn":
        tone = _tone(ch, viewer, verdict.winner)
        verdict = replace(verdict, tone=tone)
        if ch.kind == "contested" and tone in ("won", "lost") and reader is not None:
            # a side reads its own result first: "You lost: you take 2 aggravated damage"
            cost = "; ".join(costs(whole.effects))
            verdict = replace(verdict, words=f"You {tone}{f': {cost}' if cost else ''}")
    seen = replace(whole, sides=sides, verdict=verdict)
    return _addressed(seen, reader) if reader is not None else seen


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
        sides=[replace(s, words=say(s.words), trait_pool=say(s.trait_pool)) for s in a.sides],
        in_play=[say(x) for x in a.in_play],
        calls=[say(x) for x in a.calls],
        tests=[replace(t, words=say(t.words)) for t in a.tests],
        retests=[replace(r, words=say(r.words)) for r in a.retests],
        verdict=replace(
            a.verdict,
            words=say(a.verdict.words),
            grade=say(a.verdict.grade),
            why=say(a.verdict.why),
            before=say(a.verdict.before),
        )
        if a.verdict
        else None,
        effects=[_effect_to(e, say) for e in a.effects],
        stakes=[replace(s, words=say(s.words), effects=[_effect_to(e, say) for e in s.effects]) for s in a.stakes],
        rulings=[replace(r, changed=say(r.changed)) for r in a.rulings],
    )


def _effect_to(e: EffectLine, say: Callable[[str], str]) -> EffectLine:
    return replace(e, words=say(e.words), why=say(e.why))


@lru_cache(maxsize=8192)
def _said_to(text: str, me: str, others: tuple[str, ...]) -> str:
    return addressed(text, me, others)


# -- made once a state ------------------------------------------------------------------------

_T = TypeVar("_T")
_MEMO: dict[tuple[int, str, str], tuple[Scene, object]] = {}
_MEMO_SIZE = 256


def _memo(state: Scene, cid: str, what: str, make: Callable[[], _T]) -> _T:
    """What ``make`` gives for this very state (kept beside it, so its id is not reused while the
    entry lives): every viewer of one commit shares one account."""
    key = (id(state), cid, what)
    found = _MEMO.get(key)
    if found is not None and found[0] is state:
        return found[1]  # type: ignore[return-value]
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    value = make()
    _MEMO[key] = (state, value)
    return value
