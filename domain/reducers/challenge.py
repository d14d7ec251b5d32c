"""Reducers of a challenge's lifecycle: declared, answered, thrown, tied, retested, resolved."""

from __future__ import annotations

from msgspec.structs import replace

from domain.change import Change, name, names, on, replace_side, sides
from domain.commands import OverbidSource, Source
from domain.events import (
    AbilitySpent,
    BidPlaced,
    ChallengeDeclared,
    ChallengeResolved,
    ChallengeWithdrawn,
    DeclarationsOpened,
    DiceRolled,
    NegativeTraitCalled,
    OverbidFailed,
    OverbidSucceeded,
    Passed,
    RetestCancelled,
    RetestInvoked,
    RetestStood,
    TestResolved,
    TestRevealed,
    ThrowSealed,
    TraitsDeclared,
)
from domain.log import Place
from domain.state import NARRATOR, Call, Challenge, Outcome, RetestEntry, Rolled, Side, SideDice, Terms, TestRecord

NO_DICE: dict[str, tuple[int, ...]] = {}
"""The dice of a test thrown with signs: one empty mapping for them all (never changed)."""
NOTHING_COMPARED: dict[str, int] = {}
"""The counts of a test decided by its signs alone: one empty mapping for them all (never changed)."""


# -- a challenge -------------------------------------------------------------------------------


@on(ChallengeDeclared)
def _declared(s: Change, e: ChallengeDeclared, r: Place) -> None:
    challenger = s.characters.get(e.challenger)
    lead = challenger.category_of(e.bid[0], e.category) if challenger and e.bid else None
    s.put(
        Challenge(
            id=e.challenge,
            kind=e.kind,
            category=e.category,
            challenger=Side(
                who=name(e.challenger),
                bids=names(*e.bid),
                category=lead or e.category,
                victory=name(e.victory),
                lead=e.lead,
                effect=e.effect,
                power=e.power,
                pool=e.pool,
            ),
            defender=Side(  # a static test is against the Narrator, even when it names a target (kony)
                who=name(e.targets[0]) if e.targets and e.kind == "contested" else NARRATOR,
                category=e.defense or e.category,
            ),
            targets=names(*e.targets),
            victory=name(e.victory),
            effect=e.effect,
            difficulty=e.difficulty,
            require_win=e.require_win,
            power=e.power,
            declared_at=r.at,
            seq=r.seq,
            round=e.round,
            defense=e.defense,
            surprise=e.surprise,
            ranged=e.ranged,
            darkness=e.darkness,
            terms=Terms(range=e.range, maneuvers=_maneuvers(e.maneuver), gate=e.gate)
            if e.range is not None or e.maneuver or e.gate
            else None,
            status="awaiting_response" if e.kind == "contested" else "throwing",
        )
    )
    if e.surprise:
        for target in e.targets:
            s.conditions(target, surprised=True)
    if e.uses_action:
        s.character(e.challenger, lambda c: replace(c, actions_left=max(0, (c.actions_left or 1) - 1), acted=True))
    if e.pool is not None and e.pool.modifiers:  # an assistance it uses is used up (bns)
        s.slot(e.challenger, e)
    if e.gate or (challenger is not None and challenger.gate is not None and not e.immediate):
        # a gate waits for the action's next test; that test (declared next, in turn) ends the wait
        s.character(e.challenger, lambda c: replace(c, gate=e.challenge if e.gate else None))


def _maneuvers(given: str | list[str] | None) -> tuple[str, ...]:
    return names(given) if isinstance(given, str) else names(*(given or ()))


@on(BidPlaced)
def _bid_placed(s: Change, e: BidPlaced, r: Place) -> None:
    if e.owed:
        s.side(e.challenge, e.character, lambda ch, side: replace(
            side, bids=(*side.bids, *names(*e.traits)), owed=max(0, side.owed - len(e.traits))
        ))  # fmt: skip
        return
    character = s.characters.get(e.character)

    def answered(ch: Challenge, side: Side) -> Side:
        lead = character.category_of(e.traits[0], side.category or ch.category) if character and e.traits else None
        category = lead or side.category or ch.category
        bids = names(*e.traits)
        return replace(
            side, bids=bids, category=category, victory=name(e.victory), lead=e.lead, pool=e.pool, effect=e.effect
        )

    s.side(e.challenge, e.character, answered)
    s.challenge(e.challenge, lambda ch: replace(ch, status="bidding"))


@on(ChallengeWithdrawn)
def _withdrawn(s: Change, e: ChallengeWithdrawn, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: replace(ch, status="withdrawn"))


@on(NegativeTraitCalled)
def _called(s: Change, e: NegativeTraitCalled, r: Place) -> None:
    call = Call(by=e.by, against=e.against, trait=e.trait, correct=e.correct, owed_by=e.owed_by, matched=e.matched)
    s.challenge(e.challenge, lambda ch: replace(ch, calls=(*ch.calls, call)))
    if e.matched and e.owed_by:  # (a wrong kony call costs nobody anything)
        s.side(e.challenge, e.owed_by, lambda ch, side: replace(side, owed=side.owed + 1))


@on(ThrowSealed)
def _sealed(s: Change, e: ThrowSealed, r: Place) -> None:
    ch: Challenge = s.challenges[e.challenge]
    ch = replace_side(ch, ch.role_of(e.character), lambda side: replace(side, throw=name(e.sign)))
    s.put(replace(ch, status="throwing"))


@on(DiceRolled)
def _rolled(s: Change, e: DiceRolled, r: Place) -> None:
    ch: Challenge = s.challenges[e.challenge]
    rolled = Rolled(dice=tuple(e.dice), retests=tuple(e.retests), entered=e.entered_by is not None)
    named = tuple(source.key for source in e.retests)
    ch = replace_side(
        ch,
        ch.role_of(e.character),
        lambda side: replace(side, dice=SideDice(sealed=rolled, named=(*side.named, *named))),
    )
    s.put(replace(ch, status="throwing"))


@on(TestRevealed)
def _revealed(s: Change, e: TestRevealed, r: Place) -> None:
    signs = {name(who): name(sign) for who, sign in e.signs.items()}
    dice = {name(who): tuple(rolled) for who, rolled in e.dice.items()} if e.dice else NO_DICE
    if e.rerolled:  # a narrative test: its dice after the NPC's rerolls
        dice = {who: tuple(e.rerolled) for who in dice}
    test = TestRecord(number=e.test, signs=signs, dice=dice, result=e.result, compared=NOTHING_COMPARED)
    s.challenge(e.challenge, lambda ch: sides(
        replace(ch, tests=(*ch.tests, test), status="throwing"),
        lambda side: replace(side, throw=None, dice=side.unsealed()),
    ))  # fmt: skip


@on(DeclarationsOpened)
def _declarations(s: Change, e: DeclarationsOpened, r: Place) -> None:
    def opened(ch: Challenge) -> Challenge:
        ch = replace(ch, status="tie_declaring", declaring=e.purpose, declaring_first=ch.role_of(e.first))
        return sides(ch, lambda side: replace(side, declared=None))

    s.challenge(e.challenge, opened)


@on(TraitsDeclared)
def _traits_declared(s: Change, e: TraitsDeclared, r: Place) -> None:
    s.side(e.challenge, e.character, lambda ch, side: replace(side, declared=e.count))


@on(TestResolved)
def _test_resolved(s: Change, e: TestResolved, r: Place) -> None:
    def resolved(ch: Challenge) -> Challenge:
        compared = {name(who): count for who, count in e.compared.items()} or NOTHING_COMPARED
        test = replace(ch.tests[-1], leader=e.leader, why=name(e.why), rule=name(e.rule), compared=compared)
        ch = replace(ch, tests=(*ch.tests[:-1], test), status="retest_window", declaring=None)
        return sides(ch, lambda side: replace(side, passed=False))

    s.challenge(e.challenge, resolved)


@on(RetestInvoked)
def _retested(s: Change, e: RetestInvoked, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _retest(ch, e))


@on(RetestStood)
def _stood(s: Change, e: RetestStood, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _new_test(_close_retest(ch, "stood")))


@on(RetestCancelled)
def _cancelled(s: Change, e: RetestCancelled, r: Place) -> None:
    def cancelled(ch: Challenge) -> Challenge:
        entry = replace(ch.retests[-1], status="cancelled", cancelled_by=_named(e.source))
        return sides(replace(ch, retests=(*ch.retests[:-1], entry)), lambda side: replace(side, passed=False))

    s.challenge(e.challenge, cancelled)


@on(AbilitySpent)
def _ability_spent(s: Change, e: AbilitySpent, r: Place) -> None:
    s.character(
        e.character, lambda c: replace(c, abilities={**c.abilities, e.ability: c.abilities.get(e.ability, 0) - 1})
    )


@on(Passed)
def _passed_(s: Change, e: Passed, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _passed(ch, e.character))


@on(OverbidSucceeded)
def _overbid_succeeded(s: Change, e: OverbidSucceeded, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _new_test(_close_retest(ch, "stood")))


@on(OverbidFailed)
def _overbid_failed(s: Change, e: OverbidFailed, r: Place) -> None:
    def failed(ch: Challenge) -> Challenge:
        ch = _close_retest(ch, "failed")
        ch = replace_side(ch, ch.role_of(e.character), lambda side: replace(side, bids=()))  # its trait is lost
        return sides(replace(ch, status="retest_window", declaring=None), lambda side: replace(side, declared=None))

    s.challenge(e.challenge, failed)


@on(ChallengeResolved)
def _challenge_resolved(s: Change, e: ChallengeResolved, r: Place) -> None:
    outcome = Outcome(
        winner=e.winner, exceptional=e.exceptional, critical=e.critical, why=name(e.why), rule=name(e.rule)
    )
    s.challenge(e.challenge, lambda ch: replace(ch, status="resolved", outcome=outcome, resolved_seq=r.seq))
    if e.wait_key and e.wait_until:
        s.failures[e.wait_key] = e.wait_until


# -- helpers ---------------------------------------------------------------------------------


def _retest(ch: Challenge, event: RetestInvoked) -> Challenge:
    role = ch.role_of(event.character)
    assert role is not None
    test = ch.test.number if ch.test else 0
    entry = RetestEntry(by=name(event.character), role=role, source=_named(event.source), test=test)
    ch = replace(ch, retests=(*ch.retests, entry))
    source = event.source
    if isinstance(source, OverbidSource):  # the original bid is lost; the new one is at risk
        ch = replace_side(ch, role, lambda s: replace(s, bids=tuple(source.bid), first=s.first or s.bids))
    return sides(ch, lambda s: replace(s, passed=False))


def _named(source: Source) -> Source:
    """A retest source as the state keeps it: one copy of each ability, power or merit named (the
    same few are named again and again)."""
    given = getattr(source, "name", None)
    if not isinstance(given, str) or len(source.__struct_fields__) != 1:
        return source
    key = (type(source), given)
    kept = _SOURCES.get(key)
    if kept is None:
        kept = source if name(given) is given else replace(source, name=name(given))
        if len(_SOURCES) < 10_000:  # names are few; a flood of new ones only stops being shared
            _SOURCES[key] = kept
    return kept


_SOURCES: dict[tuple[type, str], Source] = {}


def _close_retest(ch: Challenge, status: str) -> Challenge:
    entry = replace(ch.retests[-1], status=status)
    return replace(ch, retests=(*ch.retests[:-1], entry))


def _new_test(ch: Challenge) -> Challenge:
    ch = replace(ch, status="throwing", declaring=None)
    return sides(ch, lambda s: replace(s, throw=None, dice=s.unsealed(), declared=None, passed=False))


def _passed(ch: Challenge, who: str) -> Challenge:
    pending = ch.pending_retest
    if pending is not None and pending.by != who:  # the winner lets the retest stand
        return _new_test(_close_retest(ch, "stood"))
    return replace_side(ch, ch.role_of(who), lambda s: replace(s, passed=True))
