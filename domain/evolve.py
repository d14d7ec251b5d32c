"""``evolve``: fold one recorded event into the scene. It applies facts; it never judges them.

Every judgement (who leads, what is lost, whether a wait applies) was made by ``decide`` and is in
the event, so evolve needs no ruleset and replays exactly what the table saw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import assert_never

from msgspec.structs import replace

from domain.commands import Changes, OverbidSource
from domain.events import (
    AbilitySpent,
    ActionDeclared,
    BidPlaced,
    BloodSpent,
    BonusExpired,
    ChallengeDeclared,
    ChallengeResolved,
    ChallengeWithdrawn,
    ChampionChosen,
    CharacterAdded,
    CharacterAdjusted,
    CharacterRemoved,
    DamageHealed,
    DamageTaken,
    DeclarationsOpened,
    DisputeOpened,
    GrappleBroken,
    GrappleStarted,
    InitiativeSet,
    KnockedDown,
    MobJoined,
    NegativeTraitCalled,
    OutcomeCorrected,
    OverbidFailed,
    OverbidSucceeded,
    Passed,
    ProneCleared,
    Relented,
    RetestCancelled,
    RetestInvoked,
    RoundEnded,
    RoundStarted,
    RulingIssued,
    SceneClosed,
    SceneForked,
    SceneOpened,
    TestResolved,
    TestRevealed,
    ThrowSealed,
    TraitLost,
    TraitRestored,
    TraitsDeclared,
    TurnEnded,
    TurnStarted,
    VictoryChosen,
    WillpowerSpent,
)
from domain.log import Recorded
from domain.state import (
    NARRATOR,
    Bonus,
    Call,
    Challenge,
    Character,
    Consequence,
    DisputeRecord,
    Helper,
    Lost,
    Origin,
    Outcome,
    RetestEntry,
    RoundState,
    RulingRecord,
    Scene,
    Side,
    TestRecord,
)


def fold(records: Iterable[Recorded], state: Scene | None = None) -> Scene:
    """The state after these records, starting from ``state`` (a new scene by default)."""
    state = state if state is not None else Scene()
    for record in records:
        state = evolve(state, record)
    return state


def evolve(state: Scene, record: Recorded) -> Scene:
    state = _apply(state, record)
    if isinstance(record.event, _CONSEQUENCES):
        state = _consequence(state, record.event)
    return replace(state, version=record.seq, last_at=record.at)


_CONSEQUENCES = (TraitLost, DamageTaken, GrappleStarted, GrappleBroken, KnockedDown)


def _consequence(state: Scene, event: Consequence) -> Scene:
    """Keep what a resolved challenge did to the characters, so a ruling can undo it."""
    ch = state.challenges.get(event.challenge)
    if ch is None or ch.status != "resolved":
        return state  # a loss on the way (an overbid's), not the outcome's
    return replace(state, challenges=state.challenges.set(ch.id, replace(ch, consequences=(*ch.consequences, event))))


def _apply(state: Scene, record: Recorded) -> Scene:
    event = record.event
    match event:
        case SceneOpened():
            return replace(
                state,
                id=record.scene,
                ruleset=event.ruleset,
                title=event.title,
                options=event.options,
                status="open",
            )
        case CharacterAdded(character=sheet):
            character = Character(
                sheet=sheet, seq=record.seq, abilities=dict(sheet.abilities), willpower=sheet.willpower
            )
            return replace(state, characters=state.characters.set(sheet.id, character))
        case CharacterRemoved():
            return _character(state, event.character, lambda c: replace(c, present=False))
        case CharacterAdjusted():
            return _character(state, event.character, lambda c: _adjusted(c, event.changes))
        case SceneClosed():
            return replace(state, status="closed")
        case SceneForked():
            return replace(state, forked_from=Origin(event.scene, event.seq, event.hash))
        case ChallengeDeclared():
            return _declared(state, event, record)
        case BidPlaced():
            state = _side(state, event.challenge, event.character, lambda ch, s: _bid(state, ch, s, event))
            if event.owed:
                return state
            return _challenge(state, event.challenge, lambda ch: replace(ch, status="bidding"))
        case Relented():
            return state
        case ChallengeWithdrawn():
            return _challenge(state, event.challenge, lambda ch: replace(ch, status="withdrawn"))
        case NegativeTraitCalled():
            call = Call(
                by=event.by,
                against=event.against,
                trait=event.trait,
                correct=event.correct,
                owed_by=event.owed_by,
                matched=event.matched,
            )
            state = _challenge(state, event.challenge, lambda ch: replace(ch, calls=(*ch.calls, call)))
            if event.matched:
                state = _side(state, event.challenge, event.owed_by, lambda ch, s: replace(s, owed=s.owed + 1))
            return state
        case ThrowSealed():
            state = _side(state, event.challenge, event.character, lambda ch, s: replace(s, throw=event.sign))
            return _challenge(state, event.challenge, lambda ch: replace(ch, status="throwing"))
        case TestRevealed():
            test = TestRecord(number=event.test, signs=event.signs, result=event.result)
            return _challenge(
                state,
                event.challenge,
                lambda ch: _sides(
                    replace(ch, tests=(*ch.tests, test), status="throwing"),
                    lambda s: replace(s, throw=None),
                ),
            )
        case DeclarationsOpened():

            def opened(ch: Challenge) -> Challenge:
                first = ch.role_of(event.first)
                ch = replace(ch, status="tie_declaring", declaring=event.purpose, declaring_first=first)
                return _sides(ch, lambda s: replace(s, declared=None))

            return _challenge(state, event.challenge, opened)
        case TraitsDeclared():
            return _side(
                state,
                event.challenge,
                event.character,
                lambda ch, s: replace(s, declared=event.count),
            )
        case TestResolved():

            def resolved(ch: Challenge) -> Challenge:
                test = replace(
                    ch.tests[-1],
                    leader=event.leader,
                    why=event.why,
                    rule=event.rule,
                    compared=event.compared,
                )
                ch = replace(ch, tests=(*ch.tests[:-1], test), status="retest_window", declaring=None)
                return _sides(ch, lambda s: replace(s, passed=False))

            return _challenge(state, event.challenge, resolved)
        case RetestInvoked():
            return _challenge(state, event.challenge, lambda ch: _retest(ch, event))
        case RetestCancelled():

            def cancelled(ch: Challenge) -> Challenge:
                entry = replace(ch.retests[-1], status="cancelled", cancelled_by=event.source)
                ch = replace(ch, retests=(*ch.retests[:-1], entry))
                return _sides(ch, lambda s: replace(s, passed=False))

            return _challenge(state, event.challenge, cancelled)
        case AbilitySpent():

            def spent(c: Character) -> Character:
                left = c.abilities.get(event.ability, 0) - 1
                return replace(c, abilities={**c.abilities, event.ability: left})

            return _character(state, event.character, spent)
        case Passed():
            return _challenge(state, event.challenge, lambda ch: _passed(ch, event.character))
        case OverbidSucceeded():
            return _challenge(state, event.challenge, lambda ch: _new_test(_close_retest(ch, "stood")))
        case OverbidFailed():

            def failed(ch: Challenge) -> Challenge:
                ch = _close_retest(ch, "failed")
                role = ch.role_of(event.character)
                ch = _replace_side(ch, role, lambda s: replace(s, bids=()))  # its trait is lost
                return _sides(
                    replace(ch, status="retest_window", declaring=None),
                    lambda s: replace(s, declared=None),
                )

            return _challenge(state, event.challenge, failed)
        case ChallengeResolved():
            outcome = Outcome(winner=event.winner, exceptional=event.exceptional, why=event.why, rule=event.rule)
            state = _challenge(
                state,
                event.challenge,
                lambda ch: replace(ch, status="resolved", outcome=outcome, resolved_seq=record.seq),
            )
            if event.wait_key and event.wait_until:
                state = replace(state, failures=state.failures.set(event.wait_key, event.wait_until))
            return state
        case TraitLost():
            lost = Lost(event.trait, event.category)
            return _character(state, event.character, lambda c: replace(c, lost=(*c.lost, lost)))
        case DamageTaken():

            def hurt(c: Character) -> Character:
                before = getattr(c.wounds, event.damage)
                return replace(c, wounds=replace(c.wounds, **{event.damage: before + event.amount}))

            return _character(state, event.character, hurt)
        case GrappleStarted():
            state = _character(
                state,
                event.grappler,
                lambda c: replace(
                    c,
                    conditions=replace(c.conditions, grappling=(*c.conditions.grappling, event.victim)),
                ),
            )
            return _character(
                state,
                event.victim,
                lambda c: replace(c, conditions=replace(c.conditions, grappled_by=event.grappler)),
            )
        case GrappleBroken():
            state = _character(
                state,
                event.grappler,
                lambda c: replace(
                    c,
                    conditions=replace(
                        c.conditions,
                        grappling=tuple(v for v in c.conditions.grappling if v != event.victim),
                    ),
                ),
            )
            return _character(
                state,
                event.victim,
                lambda c: replace(c, conditions=replace(c.conditions, grappled_by=None)),
            )
        case KnockedDown():
            return _character(
                state,
                event.character,
                lambda c: replace(c, conditions=replace(c.conditions, prone=True)),
            )
        case DisputeOpened():
            dispute = DisputeRecord(id=record.seq, event=event.event, by=event.by, reason=event.reason)
            return replace(state, disputes=(*state.disputes, dispute))
        case RulingIssued():
            ruling = RulingRecord(
                id=record.seq,
                event=event.event,
                decision=event.decision,
                reason=event.reason,
                why=event.why,
                challenge=event.challenge,
                winner=event.winner,
                later=tuple(event.later),
            )
            disputes = tuple(
                replace(d, status="ruled", ruling=record.seq) if d.id in event.disputes else d for d in state.disputes
            )
            return replace(state, disputes=disputes, rulings=(*state.rulings, ruling))
        case OutcomeCorrected():

            def corrected(ch: Challenge) -> Challenge:
                return replace(
                    ch,
                    original_outcome=ch.original_outcome or ch.outcome,
                    outcome=Outcome(winner=event.winner, why=event.why, rule=event.rule),
                    rulings=(*ch.rulings, event.ruling),
                    consequences=(),  # what follows the correction are its consequences now
                )

            return _challenge(state, event.challenge, corrected)
        case TraitRestored():

            def restored(c: Character) -> Character:
                lost = list(c.lost)
                for i in range(len(lost) - 1, -1, -1):
                    if lost[i] == Lost(event.trait, event.category):
                        del lost[i]
                        break
                return replace(c, lost=tuple(lost))

            return _character(state, event.character, restored)
        case DamageHealed():

            def healed(c: Character) -> Character:
                left = max(0, getattr(c.wounds, event.damage) - event.amount)
                return replace(c, wounds=replace(c.wounds, **{event.damage: left}))

            return _character(state, event.character, healed)
        case ProneCleared():
            return _character(
                state, event.character, lambda c: replace(c, conditions=replace(c.conditions, prone=False))
            )
        case MobJoined():
            state = _challenge(state, event.challenge, lambda ch: _joined(ch, event))
            if not event.uses_action:
                return state
            return _character(
                state, event.character, lambda c: replace(c, actions_left=max(0, (c.actions_left or 1) - 1))
            )
        case ChampionChosen():
            return _challenge(state, event.challenge, lambda ch: _champion(ch, event.character))
        case VictoryChosen():
            return _challenge(state, event.challenge, lambda ch: replace(ch, chosen=event.of))
        case WillpowerSpent():
            return _character(state, event.character, lambda c: replace(c, willpower=c.willpower - 1))
        case RoundStarted():
            state = replace(state, round=RoundState(number=event.number, first=event.first))
            return _each(
                state,
                lambda c: replace(
                    c,
                    actions_left=event.actions.get(c.id),
                    action=None,
                    turn_done=False,
                    acted=False,
                    conditions=replace(c.conditions, moved_steps=0),
                ),
            )
        case ActionDeclared():
            action = event.action

            def declared(c: Character) -> Character:
                conditions = replace(
                    c.conditions, moved_steps=action.steps, prone=c.conditions.prone and not action.stand
                )
                return replace(c, action=action, conditions=conditions)

            return _character(state, event.character, declared)
        case InitiativeSet():
            assert state.round is not None
            order = tuple(tuple(group) for group in event.order)
            turn = next((g for g in order if set(g) == set(state.round.turn)), state.round.turn)  # the ST's order
            return replace(
                state, round=replace(state.round, phase="acting", order=order, values=dict(event.values), turn=turn)
            )
        case TurnStarted():
            assert state.round is not None
            group = state.round.group + 1 if event.phase == "initiative" else state.round.group
            started = replace(
                state.round, turn=tuple(event.characters), turn_phase=event.phase, extra=event.extra, group=group
            )
            state = replace(state, round=started)
            for who in event.characters:
                state = _character(state, who, lambda c: replace(c, turn_done=False, acted=False))
            return state
        case TurnEnded():
            return _character(state, event.character, lambda c: replace(c, turn_done=True))
        case RoundEnded():
            assert state.round is not None
            state = replace(state, round=replace(state.round, phase="over", turn=()))
            return _each(  # steps count per round; once on guard, nobody is surprised
                state,
                lambda c: replace(
                    c, actions_left=None, action=None, conditions=replace(c.conditions, moved_steps=0, surprised=False)
                ),
            )
        case BloodSpent():
            bonus = Bonus(trait=event.trait, kind=event.kind, lasts=event.lasts)
            return _character(
                state, event.character, lambda c: replace(c, bonuses=(*c.bonuses, bonus), blood_spent=c.blood_spent + 1)
            )
        case BonusExpired():

            def expired(c: Character) -> Character:
                bonuses = list(c.bonuses)
                for i, bonus in enumerate(bonuses):
                    if bonus.trait == event.trait:
                        del bonuses[i]
                        break
                return replace(c, bonuses=tuple(bonuses))

            return _character(state, event.character, expired)
        case _:
            assert_never(event)


# -- small pure helpers --------------------------------------------------------------------------


def _character(state: Scene, who: str, change: Callable[[Character], Character]) -> Scene:
    character = state.characters.get(who)
    if character is None:  # the narrator, or a stale reference: nothing to change
        return state
    return replace(state, characters=state.characters.set(who, change(character)))


def _each(state: Scene, change: Callable[[Character], Character]) -> Scene:
    characters = state.characters
    for who, c in state.characters.items():
        characters = characters.set(who, change(c))
    return replace(state, characters=characters)


def _challenge(state: Scene, cid: str, change: Callable[[Challenge], Challenge]) -> Scene:
    return replace(state, challenges=state.challenges.set(cid, change(state.challenges[cid])))


def _replace_side(ch: Challenge, role: str | None, change: Callable[[Side], Side]) -> Challenge:
    if role == "challenger":
        return replace(ch, challenger=change(ch.challenger))
    if role == "defender":
        return replace(ch, defender=change(ch.defender))
    return ch


def _side(state: Scene, cid: str, who: str, change: Callable[[Challenge, Side], Side]) -> Scene:
    def on(ch: Challenge) -> Challenge:
        return _replace_side(ch, ch.role_of(who), lambda s: change(ch, s))

    return _challenge(state, cid, on)


def _sides(ch: Challenge, change: Callable[[Side], Side]) -> Challenge:
    return replace(ch, challenger=change(ch.challenger), defender=change(ch.defender))


def _declared(state: Scene, event: ChallengeDeclared, record: Recorded) -> Scene:
    challenger = state.characters.get(event.challenger)
    lead = challenger.category_of(event.bid[0], event.category) if challenger and event.bid else None
    challenge = Challenge(
        id=event.challenge,
        kind=event.kind,
        category=event.category,
        challenger=Side(
            who=event.challenger,
            bids=tuple(event.bid),
            category=lead or event.category,
            victory=event.victory,
            lead=event.lead,
            effect=event.effect,
            power=event.power,
        ),
        defender=Side(
            who=event.targets[0] if event.targets else NARRATOR,
            category=event.defense or event.category,
        ),
        targets=tuple(event.targets),
        victory=event.victory,
        effect=event.effect,
        difficulty=event.difficulty,
        require_win=event.require_win,
        power=event.power,
        declared_at=record.at,
        seq=record.seq,
        round=event.round,
        defense=event.defense,
        surprise=event.surprise,
        ranged=event.ranged,
        darkness=event.darkness,
        status="awaiting_response" if event.kind == "contested" else "throwing",
    )
    state = replace(state, challenges=state.challenges.set(event.challenge, challenge))
    if event.surprise:
        for target in event.targets:
            state = _character(state, target, lambda c: replace(c, conditions=replace(c.conditions, surprised=True)))
    if event.uses_action:
        state = _character(
            state, event.challenger, lambda c: replace(c, actions_left=max(0, (c.actions_left or 1) - 1), acted=True)
        )
    return state


def _bid(state: Scene, ch: Challenge, side: Side, event: BidPlaced) -> Side:
    if event.owed:
        return replace(side, bids=(*side.bids, *event.traits), owed=max(0, side.owed - len(event.traits)))
    character = state.characters.get(event.character)
    lead = character.category_of(event.traits[0], side.category or ch.category) if character else None
    return replace(
        side,
        bids=tuple(event.traits),
        category=lead or side.category or ch.category,
        victory=event.victory,
        lead=event.lead,
    )


def _joined(ch: Challenge, event: MobJoined) -> Challenge:
    helper = Helper(
        who=event.character,
        bids=tuple(event.traits),
        victory=event.victory,
        effect=event.effect,
        lead=event.lead,
        power=event.power,
    )
    return replace(ch, challenger=replace(ch.challenger, helpers=(*ch.challenger.helpers, helper)))


def _champion(ch: Challenge, who: str) -> Challenge:
    """Make ``who`` the mob's champion; the old champion becomes a helper."""
    side = ch.challenger
    new = next((h for h in side.helpers if h.who == who), None)
    if new is None:  # already the champion
        return ch
    helpers = tuple(side.member(side.who) if h.who == who else h for h in side.helpers)
    champion = replace(
        side,
        who=new.who,
        bids=new.bids,
        victory=new.victory,
        effect=new.effect,
        lead=new.lead,
        power=new.power,
        helpers=helpers,
    )
    return replace(ch, challenger=champion)


def _retest(ch: Challenge, event: RetestInvoked) -> Challenge:
    role = ch.role_of(event.character)
    assert role is not None
    test = ch.test.number if ch.test else 0
    entry = RetestEntry(by=event.character, role=role, source=event.source, test=test)
    ch = replace(ch, retests=(*ch.retests, entry))
    source = event.source
    if isinstance(source, OverbidSource):  # the original bid is lost; the new one is at risk
        ch = _replace_side(ch, role, lambda s: replace(s, bids=tuple(source.bid)))
    return _sides(ch, lambda s: replace(s, passed=False))


def _close_retest(ch: Challenge, status: str) -> Challenge:
    entry = replace(ch.retests[-1], status=status)
    return replace(ch, retests=(*ch.retests[:-1], entry))


def _new_test(ch: Challenge) -> Challenge:
    ch = replace(ch, status="throwing", declaring=None)
    return _sides(ch, lambda s: replace(s, throw=None, declared=None, passed=False))


def _passed(ch: Challenge, who: str) -> Challenge:
    pending = ch.pending_retest
    if pending is not None and pending.by != who:  # the winner lets the retest stand
        return _new_test(_close_retest(ch, "stood"))
    return _replace_side(ch, ch.role_of(who), lambda s: replace(s, passed=True))


def _adjusted(c: Character, changes: Changes) -> Character:
    abilities = dict(c.abilities)
    for name, delta in changes.abilities.items():
        abilities[name] = abilities.get(name, 0) + delta
    wounds = c.wounds
    for kind, delta in changes.damage.items():
        wounds = replace(wounds, **{kind: getattr(wounds, kind) + delta})
    lost = list(c.lost)
    for trait in changes.restore_traits:
        for i in range(len(lost) - 1, -1, -1):
            if lost[i].trait == trait:
                del lost[i]
                break
    for trait in changes.lose_traits:
        category = c.category_of(trait)
        if category:
            lost.append(Lost(trait, category))
    return replace(
        c,
        willpower=c.willpower + changes.willpower,
        abilities=abilities,
        wounds=wounds,
        lost=tuple(lost),
    )
