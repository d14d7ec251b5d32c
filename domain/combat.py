"""Combat rounds: the ST starts and ends them; each character declares an action; the order is
set by initiative (the ST orders equals); turns pass group by group, then the end-of-turn actions,
then the extra actions by count. Also the character verbs of a fight: blood, letting go.

The ruleset says how many actions a character has, its initiative for an action, and what an
action may be; this module keeps the order of the round.
"""

from __future__ import annotations

from domain.challenge import may_act, present
from domain.commands import (
    AnswerAssist,
    Assist,
    DeclareAction,
    EndRound,
    EndTurn,
    ExpendituresDone,
    Feed,
    IntendAttack,
    LetGo,
    Order,
    SpendBlood,
    StartRound,
)
from domain.context import Draft
from domain.errors import Rejected
from domain.events import (
    ActionDeclared,
    ActionTaken,
    ExpendituresOpened,
    GrappleBroken,
    InitiativeSet,
    RoundEnded,
    RoundStarted,
    TurnStarted,
)
from domain.events import ExpendituresDone as ExpendituresDoneEvent
from domain.rules import ruleset_for
from domain.rules.base import Ruleset
from domain.state import NARRATOR, Character, RoundState, Scene
from domain.turns import next_turn, spent, turn_over


def _actions(d: Draft) -> str:
    """The rule of the order of actions (when actions are declared, in what order)."""
    cites = ruleset_for(d.state.ruleset).cites
    return cites.get("order_of_actions", cites["adjudication"])


def _order(d: Draft) -> str:
    """The rule of the order of a round, in this scene's ruleset."""
    return ruleset_for(d.state.ruleset).cites.get("order", _actions(d))


def _rounds(d: Draft) -> Ruleset:
    rules = ruleset_for(d.state.ruleset)
    if not rules.has_rounds:
        raise Rejected("no_rounds", f"{rules.name} has no combat rounds; challenges are declared as they come.")
    return rules


def _open_round(d: Draft) -> RoundState:
    r = d.state.round
    if r is None or r.phase == "over":
        raise Rejected("no_round", "No round is under way: the Storyteller starts one.", _order(d))
    return r


def _who(d: Draft, character: str | None) -> str:
    who = character or d.actor
    if who == NARRATOR:
        raise Rejected("which_character", 'The Storyteller acts for a character: add "character".')
    may_act(d, who)
    present(d.state, who)
    return who


def start_round(d: Draft, cmd: StartRound) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", "Only the Storyteller starts a round.", _order(d))
    rules = _rounds(d)
    r = d.state.round
    if r is not None and r.phase != "over":
        raise Rejected("round_open", f"Round {r.number} is still under way; end it first.", _order(d))
    for who in cmd.rage:
        present(d.state, who)
    present_ = [c.id for c in d.state.roster() if c.present]
    actions = {who: rules.round_actions(d.state, who) for who in present_} if rules.declares_actions else {}
    budget = {who: b for who in present_ if (b := rules.round_budget(d.state, who))}
    rage = {who: n for who in present_ if (n := rules.rage_rounds(d.state, who, cmd.rage))}
    first = r is None or cmd.new_fight
    if cmd.narrative:
        rules.check_narrative(d.state)
    d.add(
        RoundStarted(
            number=(r.number if r else 0) + 1,
            first=first,
            actions=actions,
            budget=budget,
            rage=rage,
            narrative=cmd.narrative,
        )
    )
    if not rules.declares_actions:
        d.add(rules.order_round(d.state, d.choose))
        next_turn(d)


def end_round(d: Draft, cmd: EndRound) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", "Only the Storyteller ends a round.", _order(d))
    r = _open_round(d)
    d.add(*ruleset_for(d.state.ruleset).round_ending(d.state))
    d.add(RoundEnded(number=r.number))


def declare_action(d: Draft, cmd: DeclareAction) -> None:
    rules = _rounds(d)
    r = _open_round(d)
    who = _who(d, cmd.character)
    if not rules.declares_actions:
        d.add(*rules.act(d.state, who, cmd.action, d.ctx.now))
        spent(d, who)
        return
    if r.phase != "declaring":
        raise Rejected("wrong_phase", "Actions are declared at the start of the round, before the order.", _actions(d))
    if d.state.characters[who].action is not None:
        raise Rejected("already_declared", f"{d.state.name_of(who)} has declared an action this round.", _actions(d))
    action = cmd.action
    if action.kind == "challenge" and not (action.category or action.categories):
        raise Rejected("no_category", 'Say the category of the test ("category"), or "categories" for several.')
    d.add(ActionDeclared(character=who, action=action), *rules.check_action(d.state, who, action))
    waiting = [c.id for c in d.state.roster() if _fighting(c) and c.action is None]
    if waiting:
        return
    if rules.has_expenditures:
        names = ", ".join(d.state.name_of(w) for w in _spenders(d.state))
        why = f"Every action is declared: expenditures now ({names} each say done), then initiative."
        d.add(ExpendituresOpened(why=why, rule=rules.cites["expenditures"]))
        if not _spenders(d.state):
            _set_initiative(d, rules)
    else:
        _set_initiative(d, rules)


def _fighting(c: Character) -> bool:
    """Present and not gone by a fair escape: one the round waits for."""
    return c.present and c.conditions.fair_escape != "escaped"


def _spenders(state: Scene) -> list[str]:
    """Who still has to say it is done with its expenditures (kony:expenditures)."""
    return [c.id for c in state.roster() if _fighting(c) and not c.expended]


def expenditures_done(d: Draft, cmd: ExpendituresDone) -> None:
    rules = _rounds(d)
    r = _open_round(d)
    who = _who(d, cmd.character)
    rule = rules.cites.get("expenditures", _order(d))
    if r.phase != "expending":
        raise Rejected("wrong_phase", "Expenditures are declared once every action is, before initiative.", rule)
    if d.state.characters[who].expended:
        raise Rejected("already_done", f"{d.state.name_of(who)} has already declared its expenditures.", rule)
    d.add(ExpendituresDoneEvent(character=who))
    if not _spenders(d.state):
        _set_initiative(d, rules)


def _set_initiative(d: Draft, rules: Ruleset) -> None:
    state = d.state
    acting = {c.id: c for c in state.roster() if _fighting(c) and c.action is not None}
    values = {w: rules.initiative(state, w, c.action) for w, c in acting.items() if c.action is not None}
    in_order = [w for w in values if acting[w].action is not None and acting[w].action.kind != "end_of_turn"]  # type: ignore[union-attr]
    groups: list[list[str]] = []
    for who in sorted(in_order, key=lambda w: (-values[w], w)):
        if groups and values[groups[-1][0]] == values[who]:
            groups[-1].append(who)
        else:
            groups.append([who])
    why = "; ".join(" = ".join(f"{state.name_of(w)} {values[w]}" for w in group) for group in groups)
    broken = rules.break_ties(state, groups, values, lambda: d.die(10))
    if broken is not None:
        d.add(broken)
    else:
        d.add(InitiativeSet(order=groups, values=values, why=f"Initiative by base Traits: {why}.", rule=_actions(d)))
    next_turn(d)


def order(d: Draft, cmd: Order) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", "Only the Storyteller orders characters of equal initiative.", _order(d))
    r = _open_round(d)
    ruleset_for(d.state.ruleset).check_order(d.state)
    group = next((list(g) for g in r.order if set(g) == set(cmd.characters)), None)
    if group is None or len(cmd.characters) != len(group):
        ties = "; ".join(", ".join(g) for g in r.order if len(g) > 1) or "none"
        raise Rejected("not_tied", f"Order only characters of one equal initiative (ties now: {ties}).", _order(d))
    rules = ruleset_for(d.state.ruleset)
    ordered = [list(cmd.characters)] if rules.declares_actions else [[w] for w in cmd.characters]  # bns: in turn
    new_order = [row for g in r.order for row in (ordered if list(g) == group else [list(g)])]
    names = ", then ".join(d.state.name_of(w) for w in cmd.characters)
    rule = rules.cites.get("ties", _actions(d))
    d.add(
        InitiativeSet(
            order=new_order,
            values=dict(r.values),
            why=f"The Storyteller orders the tie: {names}.",
            rule=rule,
            ordered=ordered if len(ordered) == 1 else [],
        )
    )
    if not rules.declares_actions and set(r.turn) == set(group):  # the tie was acting together: first one now
        first = cmd.characters[0]
        why = f"On initiative, as the Storyteller ordered the tie: {d.state.name_of(first)}."
        d.add(TurnStarted(phase=r.turn_phase, characters=[first], extra=r.extra, why=why, rule=rule))


def end_turn(d: Draft, cmd: EndTurn) -> None:
    _rounds(d)
    r = _open_round(d)
    who = _who(d, cmd.character)
    if who not in r.turn:
        raise Rejected("not_your_turn", f"It is not {d.state.name_of(who)}'s turn.", _order(d))
    if d.state.characters[who].turn_done:
        raise Rejected("already_done", f"{d.state.name_of(who)} has already ended this turn.", _order(d))
    turn_over(d, who)


def intend_attack(d: Draft, cmd: IntendAttack) -> None:
    rules = _rounds(d)
    who = _who(d, cmd.character)
    present(d.state, cmd.target)
    d.add(*rules.intend(d.state, who, cmd.target))


def assist(d: Draft, cmd: Assist) -> None:
    rules = _rounds(d)
    who = _who(d, cmd.character)
    d.add(*rules.assist(d.state, who, cmd))
    spent(d, who)


def answer_assist(d: Draft, cmd: AnswerAssist) -> None:
    rules = _rounds(d)
    who = _who(d, cmd.character)
    events = rules.answer_assist(d.state, who, cmd.offer, cmd.accept)
    d.add(*events)
    for helper in {e.character for e in events if isinstance(e, ActionTaken)}:  # its last action, maybe
        spent(d, helper)


def spend_blood(d: Draft, cmd: SpendBlood) -> None:
    who = _who(d, cmd.character)
    d.add(ruleset_for(d.state.ruleset).blood(d.state, who, cmd.kind))


def feed(d: Draft, cmd: Feed) -> None:
    rules = ruleset_for(d.state.ruleset)
    who = _who(d, cmd.character)
    present(d.state, cmd.target)
    d.add(*rules.feed(d.state, who, cmd.target, cmd.blood))


def let_go(d: Draft, cmd: LetGo) -> None:
    who = _who(d, cmd.character)
    victims = d.state.characters[who].conditions.grappling
    if not victims:
        cites = ruleset_for(d.state.ruleset).cites
        rule = cites.get("grapple", cites["adjudication"])
        raise Rejected("not_grappling", f"{d.state.name_of(who)} holds nobody.", rule)
    d.add(*(GrappleBroken(grappler=who, victim=v, why=f"{d.state.name_of(who)} lets go.") for v in victims))


__all__ = [
    "Scene",
    "answer_assist",
    "assist",
    "declare_action",
    "end_round",
    "end_turn",
    "expenditures_done",
    "feed",
    "intend_attack",
    "let_go",
    "order",
    "spend_blood",
    "start_round",
]
