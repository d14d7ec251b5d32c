"""The order of a round once it is set: turns pass group by group on initiative, then the
end-of-turn actions, then the extra-action turns the ruleset orders; the ruleset's hooks run as a
turn, the universal round and the round end (held escapes resolve there)."""

from __future__ import annotations

from domain.context import Draft
from domain.events import TurnEnded, TurnStarted
from domain.rules import ruleset_for


def turn_over(d: Draft, who: str) -> None:
    """``who`` is done for the turn; once everyone in it is, the next turn starts."""
    rules = ruleset_for(d.state.ruleset)
    d.add(TurnEnded(character=who), *rules.turn_ended(d.state, who))
    r = d.state.round
    if r is not None and r.phase == "acting" and all(d.state.characters[w].turn_done for w in r.turn):
        next_turn(d)


def spent(d: Draft, who: str) -> None:
    """Where actions are counted by kind (bns), a character with none left is done for the turn."""
    r = d.state.round
    me = d.state.characters[who]
    if r is None or r.phase != "acting" or not r.turn or who not in r.turn or me.turn_done:
        return
    gone = me.conditions.fair_escape == "escaped"
    if gone or (me.budget and not any(me.budget.values()) and me.conditions.fair_escape != "declared"):
        turn_over(d, who)


def next_turn(d: Draft) -> None:
    """The next group of the order; then the end-of-turn actions; then the extra actions."""
    state = d.state
    r = state.round
    assert r is not None
    rules = ruleset_for(state.ruleset)
    present_ = [c.id for c in state.roster() if c.present]
    if r.turn_phase == "initiative":
        for i in range(r.group + 1, len(r.order)):
            group = [w for w in r.order[i] if _in_round(d, w)]
            if group:  # (a group with nobody left in the fight is skipped)
                values = ", ".join(f"{state.name_of(w)} ({r.values.get(w)})" for w in group)
                d.add(
                    TurnStarted(
                        phase="initiative",
                        characters=group,
                        why=f"On initiative: {values}.",
                        rule=rules.cites.get("order", rules.cites.get("order_of_actions", rules.cites["adjudication"])),
                    )
                )
                return
        late = [w for w in present_ if (a := state.characters[w].action) is not None and a.kind == "end_of_turn"]
        if late:
            names = ", ".join(state.name_of(w) for w in late)
            d.add(
                TurnStarted(
                    phase="end_of_turn",
                    characters=late,
                    why=f"End of turn: {names}.",
                    rule=rules.cites.get("initiative_exceptions", rules.cites["adjudication"]),
                )
            )
            return
    turn = rules.extra_turn(d.state)
    if r.turn_phase != "extra" or turn is None or turn.extra != r.extra:  # a round of actions is over
        d.add(*rules.phase_ended(d.state))
        turn = rules.extra_turn(d.state)
    if turn is not None:
        d.add(turn)


def _in_round(d: Draft, who: str) -> bool:
    """Whether ``who`` gets a turn: present, not escaped, not unconscious."""
    c = d.state.characters.get(who)
    if c is None or not c.present or c.conditions.fair_escape == "escaped":
        return False
    out = c.conditions.marked("unconscious")
    return out is None or (out.until is not None and out.until <= d.ctx.now)
