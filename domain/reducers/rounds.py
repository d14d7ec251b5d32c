"""Reducers of mobs, blood and combat rounds (camarilla, bns), and of bns actions, conditions,
maneuvers, fair escapes and assists."""

from __future__ import annotations

from msgspec.structs import replace

from domain.carried import Mark
from domain.change import Change, on
from domain.events import (
    ActionDeclared,
    ActionTaken,
    AssistAnswered,
    AssistOffered,
    AttackIntended,
    BloodSpent,
    BonusExpired,
    ChampionChosen,
    ConditionCleared,
    ConditionSet,
    ExpendituresDone,
    ExpendituresOpened,
    FairEscapeDeclared,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    Fed,
    InitiativeSet,
    ManeuverUsed,
    MobJoined,
    NormalActionsEnded,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnStarted,
    VictoryChosen,
    WillpowerSpent,
)
from domain.log import Place
from domain.reducers.scene import consequence, ruled
from domain.state import Aid, Bonus, Challenge, Character, Helper, RoundState, Side

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
    s.round = RoundState(number=e.number, first=e.first, narrative=e.narrative)
    fresh = e.first  # a new fight: free maneuvers again, and the escaped are back in it

    def started(c: Character) -> Character:
        escape = c.conditions.fair_escape
        return replace(
            c,
            actions_left=e.actions.get(c.id),
            budget=dict(e.budget.get(c.id, {})),
            rage=e.rage.get(c.id, 0),
            aids=(),
            free_used=() if fresh else c.free_used,
            action=None,
            turn_done=False,
            acted=False,
            gate=None,
            worn=c.worn and replace(c.worn, expended=False, drained={}),
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
    seq = s.round.phase_seq or r.seq
    ordered = s.round.ordered
    if e.ordered:
        again = {frozenset(group) for group in e.ordered}
        ordered = (*(g for g in ordered if frozenset(g) not in again), *(tuple(g) for g in e.ordered))
    s.round = replace(
        s.round, phase="acting", order=order, values=dict(e.values), turn=turn, phase_seq=seq, ordered=ordered
    )


@on(TurnStarted)
def _turn_started(s: Change, e: TurnStarted, r: Place) -> None:
    assert s.round is not None
    order = s.round.order
    group = next((i for i, g in enumerate(order) if e.characters and e.characters[0] in g), s.round.group + 1)
    group = group if e.phase == "initiative" else s.round.group
    new_phase = e.phase != s.round.turn_phase or e.extra != s.round.extra
    s.round = replace(
        s.round,
        turn=tuple(e.characters),
        turn_phase=e.phase,
        extra=e.extra,
        group=group,
        phase_seq=r.seq if new_phase else s.round.phase_seq,
        interrupt=None,
    )
    fresh = e.budget
    for who in e.characters:
        s.character(who, lambda c: replace(c, turn_done=False, acted=False, gate=None, budget=dict(fresh) or c.budget))


@on(TurnEnded)
def _turn_ended(s: Change, e: TurnEnded, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, turn_done=True, gate=None))


@on(RoundEnded)
def _round_ended(s: Change, e: RoundEnded, r: Place) -> None:
    assert s.round is not None
    s.round = replace(s.round, phase="over", turn=(), escape_window=None)
    s.each(  # steps count per round; once on guard, nobody is surprised
        lambda c: replace(
            c,
            actions_left=None,
            budget={},
            action=None,
            conditions=replace(c.conditions, moved_steps=0, surprised=False),
        )
    )


# -- bns: actions, conditions, maneuvers, fair escapes, assists ----------------------------------


@on(ActionTaken)
def _action_taken(s: Change, e: ActionTaken, r: Place) -> None:
    action = e.action

    def taken(c: Character) -> Character:
        budget = dict(c.budget)
        if e.spent is not None:
            budget[e.spent] = max(0, budget.get(e.spent, 0) - 1)
        if action is not None and action.kind == "trade":  # a standard action traded for a simple one
            budget["simple"] = budget.get("simple", 0) + 1
        conditions = c.conditions
        if action is not None:
            conditions = replace(conditions, moved_steps=conditions.moved_steps + action.steps)
            if action.kind == "clear" and action.clears:
                conditions = replace(conditions, marks=tuple(_worked(m, action.clears) for m in conditions.marks))
        return replace(c, budget=budget, acted=True, conditions=conditions)

    s.character(e.character, taken)


def _worked(mark: Mark, name: str) -> Mark:
    """A simple action spent clearing ``name``."""
    return replace(mark, clears_after=max(0, mark.clears_after - 1)) if mark.name == name else mark


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


@on(ManeuverUsed)
def _maneuver_used(s: Change, e: ManeuverUsed, r: Place) -> None:
    number = s.round.key if s.round is not None else 0

    def used(c: Character) -> Character:
        aids = c.aids
        if e.paid == "assist":  # the accepted maneuver assistance is used up
            spent = next((a for a in aids if (a.benefit, a.status) == ("maneuver", "accepted")), None)
            aids = tuple(a for a in aids if a is not spent)
        free_used = (*c.free_used, e.free_list) if e.free_list else c.free_used
        return replace(c, maneuver_round=number, free_used=free_used, aids=aids)

    s.character(e.character, used)


@on(AttackIntended)
def _attack_intended(s: Change, e: AttackIntended, r: Place) -> None:
    s.character(
        e.target,
        lambda c: replace(
            c, conditions=replace(c.conditions, escape_held_by=(*c.conditions.escape_held_by, e.character))
        ),
    )


@on(FairEscapeDeclared)
def _escape_declared(s: Change, e: FairEscapeDeclared, r: Place) -> None:
    s.conditions(e.character, fair_escape="declared", escape_held_by=())
    if s.round is not None:
        s.round = replace(s.round, escape_window=e.character)


@on(FairEscapeHeld)
def _escape_held(s: Change, e: FairEscapeHeld, r: Place) -> None:
    phase = s.round.extra if s.round is not None and s.round.turn_phase == "extra" else 0
    s.conditions(e.character, fair_escape="held", escape_held_by=tuple(e.by), escape_phase=phase)
    _close_window(s, e.character)


@on(FairEscapeSucceeded)
def _escape_succeeded(s: Change, e: FairEscapeSucceeded, r: Place) -> None:
    s.conditions(e.character, fair_escape="escaped")
    s.character(e.character, lambda c: replace(c, budget={}))
    _close_window(s, e.character)


@on(FairEscapeFailed)
def _escape_failed(s: Change, e: FairEscapeFailed, r: Place) -> None:
    s.conditions(e.character, fair_escape="failed")
    _close_window(s, e.character)
    if s.round is not None and e.challenge and e.character not in s.round.turn:  # it acts now, out of turn
        s.round = replace(s.round, interrupt=e.character)


def _close_window(s: Change, who: str) -> None:
    if s.round is not None and s.round.escape_window == who:
        s.round = replace(s.round, escape_window=None)


@on(AssistOffered)
def _assist_offered(s: Change, e: AssistOffered, r: Place) -> None:
    if e.kind == "defender":  # the shield becomes the attack's target
        s.challenge(e.challenge, lambda ch: _shielded(ch, e.character))
        number = s.round.number if s.round is not None else 0
        s.character(e.character, lambda c: replace(c, shielded=number))
        return
    assert e.benefit is not None
    aid = Aid(offer=r.seq, by=e.character, benefit=e.benefit)
    s.character(e.to, lambda c: replace(c, aids=(*c.aids, aid)))


@on(AssistAnswered)
def _assist_answered(s: Change, e: AssistAnswered, r: Place) -> None:
    status = "accepted" if e.accept else "refused"
    s.character(
        e.character,
        lambda c: replace(c, aids=tuple(replace(a, status=status) if a.offer == e.offer else a for a in c.aids)),
    )


def _shielded(ch: Challenge, who: str) -> Challenge:
    defender = Side(who=who, category=ch.defender.category)
    return replace(ch, targets=(who,), defender=defender, status="awaiting_response")


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


# -- kony: expenditures, feeding ---------------------------------------------------------------


@on(ExpendituresOpened)
def _expenditures_opened(s: Change, e: ExpendituresOpened, r: Place) -> None:
    assert s.round is not None
    s.round = replace(s.round, phase="expending")


@on(ExpendituresDone)
def _expenditures_done(s: Change, e: ExpendituresDone, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, worn=c.wearing(expended=True)))


@on(Fed)
def _fed(s: Change, e: Fed, r: Place) -> None:
    s.character(
        e.target,
        lambda c: replace(
            c,
            blood_spent=c.blood_spent + e.blood,
            worn=c.wearing(drained={**c.drained, e.character: c.drained.get(e.character, 0) + e.blood}),
        ),
    )
    s.character(
        e.character,
        lambda c: replace(
            c,
            blood_spent=max(0, c.blood_spent - e.blood),
            actions_left=None if c.actions_left is None else max(0, c.actions_left - 1),
        ),
    )


@on(NormalActionsEnded)
def _normal_actions_ended(s: Change, e: NormalActionsEnded, r: Place) -> None:
    assert s.round is not None
    s.round = replace(s.round, normal_over=True)
