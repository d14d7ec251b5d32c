"""Reducers of mobs, blood and combat rounds (camarilla, bns, kony), conditions and fair escapes.
What a ruleset keeps of a round in its own slot, these hand the shared events to
(``Change.slot``, ``Change.round_slot``); the events one ruleset alone records are reduced in its
package (``domain.rules.<name>.evolve``)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.carried import Mark
from domain.change import Change, on, slot_after
from domain.events import (
    ActionDeclared,
    AttackIntended,
    BloodSpent,
    BonusExpired,
    ChampionChosen,
    ConditionCleared,
    ConditionSet,
    ExpendituresOpened,
    FairEscapeFailed,
    FairEscapeSucceeded,
    InitiativeSet,
    MobJoined,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnStarted,
    VictoryChosen,
    WillpowerSpent,
)
from domain.log import Place
from domain.reducers.scene import consequence, ruled
from domain.state import Bonus, Challenge, Character, Helper, RoundState

# -- mobs, blood, rounds -----------------------------------------------------------------------


@on(MobJoined)
def _mob_joined(s: Change, e: MobJoined, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _joined(ch, e))
    if e.uses_action:
        s.character(e.character, lambda c: replace(c, actions_left=max(0, (c.actions_left or 1) - 1)))
    joiner = s.characters.get(e.character)
    if joiner is not None and joiner.gate is not None:  # the effect test of a multi-test action
        s.character(e.character, lambda c: replace(c, gate=None))


@on(ChampionChosen)
def _champion_chosen(s: Change, e: ChampionChosen, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: _champion(ch, e.character))


@on(VictoryChosen)
def _victory_chosen(s: Change, e: VictoryChosen, r: Place) -> None:
    s.challenge(e.challenge, lambda ch: replace(ch, chosen=e.of))


@on(WillpowerSpent)
def _willpower_spent(s: Change, e: WillpowerSpent, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, willpower=c.willpower - 1))


@on(BloodSpent)
def _blood_spent(s: Change, e: BloodSpent, r: Place) -> None:
    bonus = Bonus(trait=e.trait, kind=e.kind, lasts=e.lasts)
    s.character(e.character, lambda c: replace(c, bonuses=(*c.bonuses, bonus), blood_spent=c.blood_spent + 1))


@on(BonusExpired)
def _bonus_expired(s: Change, e: BonusExpired, r: Place) -> None:
    def expired(c: Character) -> Character:
        bonuses = list(c.bonuses)
        for i, bonus in enumerate(bonuses):
            if bonus.trait == e.trait:
                del bonuses[i]
                break
        return replace(c, bonuses=tuple(bonuses))

    s.character(e.character, expired)


@on(RoundStarted)
def _round_started(s: Change, e: RoundStarted, r: Place) -> None:
    s.round = RoundState(number=e.number, first=e.first, step_at=s.stamp())
    s.round_slot(s.round, e, r.seq)
    fresh = e.first  # a new fight: the escaped are back in it
    kind = s.kinds()[0]

    def started(c: Character) -> Character:
        escape = c.conditions.fair_escape
        return replace(
            c,
            actions_left=e.actions.get(c.id),
            action=None,
            turn_done=False,
            acted=False,
            gate=None,
            slot=slot_after(c, kind, e),
            conditions=replace(
                c.conditions,
                moved_steps=0,
                fair_escape="escaped" if escape == "escaped" and not fresh else None,
                escape_held_by=(),
            ),
        )

    s.each(started)


@on(ActionDeclared)
def _action_declared(s: Change, e: ActionDeclared, r: Place) -> None:
    action = e.action

    def declared(c: Character) -> Character:
        conditions = replace(c.conditions, moved_steps=action.steps, prone=c.conditions.prone and not action.stand)
        return replace(c, action=action, conditions=conditions)

    s.character(e.character, declared)


@on(InitiativeSet)
def _initiative_set(s: Change, e: InitiativeSet, r: Place) -> None:
    assert s.round is not None
    order = tuple(tuple(group) for group in e.order)
    turn = next((g for g in order if set(g) == set(s.round.turn)), s.round.turn)  # the ST's order
    ordered = s.round.ordered
    if e.ordered:
        again = {frozenset(group) for group in e.ordered}
        ordered = (*(g for g in ordered if frozenset(g) not in again), *(tuple(g) for g in e.ordered))
    slot = s.round_slot_after(s.round, s.round, e, r.seq)
    s.round = replace(
        s.round,
        phase="acting",
        order=order,
        values=dict(e.values),
        turn=turn,
        ordered=ordered,
        slot=slot,
        step_at=s.stamp(),
    )


@on(TurnStarted)
def _turn_started(s: Change, e: TurnStarted, r: Place) -> None:
    assert s.round is not None
    order = s.round.order
    group = next((i for i, g in enumerate(order) if e.characters and e.characters[0] in g), s.round.group + 1)
    group = group if e.phase == "initiative" else s.round.group
    slot = s.round_slot_after(s.round, s.round, e, r.seq)
    s.round = replace(
        s.round, turn=tuple(e.characters), turn_phase=e.phase, extra=e.extra, group=group, slot=slot, step_at=s.stamp()
    )
    kind = s.kinds()[0]
    for who in e.characters:
        s.character(who, lambda c: replace(c, turn_done=False, acted=False, gate=None, slot=slot_after(c, kind, e)))


@on(TurnEnded)
def _turn_ended(s: Change, e: TurnEnded, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, turn_done=True, gate=None))


@on(RoundEnded)
def _round_ended(s: Change, e: RoundEnded, r: Place) -> None:
    assert s.round is not None
    s.round = replace(
        s.round, phase="over", turn=(), slot=s.round_slot_after(s.round, s.round, e, r.seq), step_at=s.stamp()
    )
    kind = s.kinds()[0]
    s.each(  # steps count per round; once on guard, nobody is surprised
        lambda c: replace(
            c,
            actions_left=None,
            action=None,
            conditions=replace(c.conditions, moved_steps=0, surprised=False),
            slot=slot_after(c, kind, e),
        )
    )


# -- conditions, fair escapes ----------------------------------------------------------------


@on(ConditionSet)
def _condition_set(s: Change, e: ConditionSet, r: Place) -> None:
    if e.name == "prone":
        s.conditions(e.character, prone=True)
    else:
        mark = Mark(name=e.name, by=e.by, until=e.until, clears_after=e.clears_after, rule=e.rule)
        s.character(
            e.character,
            lambda c: replace(
                c,
                conditions=replace(c.conditions, marks=(*(m for m in c.conditions.marks if m.name != e.name), mark)),
            ),
        )
    if e.challenge:
        consequence(s, e)


@on(ConditionCleared)
def _condition_cleared(s: Change, e: ConditionCleared, r: Place) -> None:
    if e.challenge:
        ruled(s, e)
    if e.name == "prone":
        s.conditions(e.character, prone=False)
        return
    if e.name == "escaped":  # back in the fight; a fair escape declared this round is no longer its action
        s.character(
            e.character,
            lambda c: replace(
                c,
                action=None if c.action is not None and c.action.kind == "fair_escape" else c.action,
                conditions=replace(c.conditions, fair_escape=None),
            ),
        )
        return
    s.character(
        e.character,
        lambda c: replace(
            c, conditions=replace(c.conditions, marks=tuple(m for m in c.conditions.marks if m.name != e.name))
        ),
    )


@on(AttackIntended)
def _attack_intended(s: Change, e: AttackIntended, r: Place) -> None:
    s.character(
        e.target,
        lambda c: replace(
            c, conditions=replace(c.conditions, escape_held_by=(*c.conditions.escape_held_by, e.character))
        ),
    )


@on(FairEscapeSucceeded)
def _escape_succeeded(s: Change, e: FairEscapeSucceeded, r: Place) -> None:
    s.conditions(e.character, fair_escape="escaped")
    s.slot(e.character, e)
    if s.round is not None:
        s.round_slot(s.round, e, r.seq)


@on(FairEscapeFailed)
def _escape_failed(s: Change, e: FairEscapeFailed, r: Place) -> None:
    s.conditions(e.character, fair_escape="failed")
    if s.round is not None:
        s.round_slot(s.round, e, r.seq)


# -- helpers ---------------------------------------------------------------------------------


def _joined(ch: Challenge, event: MobJoined) -> Challenge:
    helper = Helper(
        who=event.character,
        bids=tuple(event.traits),
        victory=event.victory,
        effect=event.effect,
        lead=event.lead,
        power=event.power,
        pool=event.pool,
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


# -- expenditures (kony) ----------------------------------------------------------------------


@on(ExpendituresOpened)
def _expenditures_opened(s: Change, e: ExpendituresOpened, r: Place) -> None:
    assert s.round is not None
    s.round = replace(s.round, phase="expending", step_at=s.stamp())
