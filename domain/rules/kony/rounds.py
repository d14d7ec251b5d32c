"""kony's rounds: initiative and its d10 ties, "end of the round" after everyone's normal actions,
fair escape before declarations (and the escaped gone from the fight), feeding on a grapple,
narrative rounds (kings-of-new-york-combat.txt). Pure policies over the scene; ``domain.rules.kony``
asks them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from domain.commands import Action
from domain.errors import Rejected
from domain.events import (
    ConditionCleared,
    FairEscapeSucceeded,
    Fed,
    GrappleStarted,
    InitiativeSet,
    NormalActionsEnded,
    SceneEvent,
)
from domain.rules.kony.dice import POOL_CAP, level, options
from domain.rules.kony.state import kept, round_kept
from domain.sheets import Category
from domain.state import Challenge, Character, Scene

CELERITY_CAP = 5
"""Celerity counts 1 to 5 on initiative (kony:initiative)."""
FEED_LIMIT = 3
"""Blood Traits a round one may take from a target in combat (kony:feeding)."""
ROUND_END = {"majesty_dropped": "Majesty goes back up"}
"""Conditions that end "at the end of the round", with what that means (kony:end-of-round)."""
LEFT = "kony:fair-escape-condition"
"""The escaped have left the combat scene: no declaration by them or against them, no feeding."""


def named_traits(c: Character, category: Category) -> int:
    """Named Traits of a category still held: lost ones off, bonus Traits not counted."""
    bonus = {b.trait for b in c.bonuses}
    return c.total(category) - sum(1 for lost in c.lost if lost.category == category and lost.trait not in bonus)


def initiative(state: Scene, who: str, action: Action) -> int:
    """Named Traits of the declared action's category + Celerity (1-5) (kony:initiative); in a
    narrative round, the Traits the challenge would count (bonuses in, down Traits off, capped) +
    Celerity (kony:narrative-initiative)."""
    c = state.characters[who]
    category: Category = action.category or (action.categories[0] if action.categories else "physical")
    celerity = min(CELERITY_CAP, level(c, "Celerity"))
    r = state.round
    if r is not None and round_kept(r).narrative:
        extra = len(c.bonuses) if category == "physical" else 0
        return max(0, min(POOL_CAP, named_traits(c, category) + extra - kept(c).down_traits)) + celerity
    return named_traits(c, category) + celerity


def break_ties(
    state: Scene, groups: list[list[str]], values: Mapping[str, int], d10: Callable[[], int]
) -> InitiativeSet:
    """Each tie split by d10s, highest first, rerolled among those still tied (kony:initiative-ties)."""
    rolls: dict[str, list[int]] = {}
    order: list[list[str]] = []
    for group in groups:
        order.extend([w] for w in _by_dice(group, d10, rolls))
    narrative = state.round is not None and round_kept(state.round).narrative
    shown = "; ".join(
        f"{state.name_of(w)} {values[w]}" + (f" (d10: {', '.join(map(str, rolls[w]))})" if w in rolls else "")
        for (w,) in order
    )
    what = "Traits bid + Celerity" if narrative else "named Traits + Celerity"
    return InitiativeSet(
        order=order,
        values=dict(values),
        why=f"Initiative by {what}: {shown}.",
        rule="kony:initiative-ties" if rolls else "kony:narrative-initiative" if narrative else "kony:initiative",
        rolls=rolls,
    )


def _by_dice(group: list[str], d10: Callable[[], int], rolls: dict[str, list[int]]) -> list[str]:
    if len(group) == 1:
        return group
    thrown = {w: d10() for w in group}
    for w, value in thrown.items():
        rolls.setdefault(w, []).append(value)
    ordered: list[str] = []
    for value in sorted(set(thrown.values()), reverse=True):
        ordered += _by_dice([w for w in group if thrown[w] == value], d10, rolls)
    return ordered


def normal_actions_ended(state: Scene) -> list[SceneEvent]:
    """Everyone's normal action is done: "end of the round" powers act now (kony:end-of-round)."""
    r = state.round
    assert r is not None
    events: list[SceneEvent] = [
        NormalActionsEnded(
            number=r.number,
            why="Everyone's normal action is done: powers that act at the end of the round act now, before "
            "any extra action.",
            rule="kony:end-of-round",
        )
    ]
    for c in state.roster():
        for mark in c.conditions.marks:
            if mark.name in ROUND_END:
                why = f"The end of the round for {c.name}: {ROUND_END[mark.name]}."
                events.append(ConditionCleared(character=c.id, name=mark.name, why=why, rule="kony:end-of-round"))
    return events


def escape(state: Scene, who: str) -> list[SceneEvent]:
    """Fair escape before any declaration this round (or this fight), or by a power (kony:fair-escape)."""
    c = state.characters[who]
    r = state.round
    assert r is not None
    declared = [x.name for x in state.roster() if x.action is not None]
    per_fight = options(state).escape == "fight"
    early = r.phase == "declaring" and not declared and (r.first or not per_fight)
    if early:
        why = f"{c.name} declares a fair escape before any declaration and leaves the scene."
    elif c.sheet.escape_powers:
        why = f"{c.name} leaves the scene with {c.sheet.escape_powers[0]}."
    else:
        when = "this fight's first" if per_fight else "any this round"
        since = f" ({', '.join(declared)} declared already)" if declared else ""
        raise Rejected(
            "too_late",
            f"A fair escape comes before {when} declaration{since}; later, only a power that lets {c.name} "
            "leave the scene allows it.",
            "kony:fair-escape",
        )
    return [FairEscapeSucceeded(character=who, why=why, rule="kony:fair-escape")]


def check_in_fight(state: Scene, who: str, targets: Iterable[str | None]) -> None:
    """One with the Fair Escape Condition has left the combat scene: it does nothing there and
    nobody declares against it or feeds on it, until the Storyteller brings it back (``adjust``
    clearing ``escaped``) or a new fight starts (kony:fair-escape-condition)."""
    me = state.characters.get(who)
    if me is not None and me.conditions.fair_escape == "escaped":
        raise Rejected(
            "escaped",
            f"{me.name} has left the combat scene by a fair escape and takes no action in it until the "
            "Storyteller brings them back.",
            LEFT,
        )
    for target in targets:
        them = state.characters.get(target) if target else None
        if them is not None and them.conditions.fair_escape == "escaped":
            raise Rejected(
                "escaped",
                f"{them.name} has left the combat scene by a fair escape: nobody can act against them until the "
                "Storyteller brings them back.",
                LEFT,
            )


def feed(state: Scene, who: str, target: str, blood: int) -> list[SceneEvent]:
    """Feeding on one held by a grapple won in a contested Physical challenge retested with Brawl,
    on a later action, at most three blood Traits a round from a target (kony:feeding); not on one
    who left by a fair escape."""
    check_in_fight(state, who, (target,))
    me, victim = state.characters[who], state.characters[target]
    rule = "kony:feeding"
    if target not in me.conditions.grappling:
        raise Rejected("not_grappling", f"{me.name} must hold {victim.name} in a grapple to feed.", rule)
    hold = _grapple(state, who, target)
    if hold is None or "ability:Brawl" not in hold.challenger.named:
        raise Rejected(
            "no_brawl",
            f"The grapple on {victim.name} must be won in a contested Physical challenge retested with Brawl.",
            rule,
        )
    r = state.round
    if r is not None and r.phase != "over":
        if who not in r.turn:
            raise Rejected("not_your_turn", f"{me.name} feeds on their own action.", rule)
        if (me.actions_left or 0) < 1:
            raise Rejected("no_action_left", f"{me.name} has no action left this round to feed.", rule)
        on_turn = round_kept(r).narrative or options(state).extra_actions == "on_turn"
        if r.turn_phase == "initiative" and me.acted and not on_turn:
            raise Rejected(
                "next_action",
                f"{me.name} has taken this turn's action; the next one comes after everyone's first.",
                "kony:actions",
            )
    taken = kept(victim).drained.get(who, 0)
    if taken + blood > FEED_LIMIT:
        raise Rejected(
            "feed_limit",
            f"{me.name} has taken {taken} of {FEED_LIMIT} blood Traits from {victim.name} this round.",
            rule,
        )
    left = victim.sheet.blood - victim.blood_spent
    if left < blood:
        raise Rejected("no_blood", f"{victim.name} has {max(0, left)} blood Trait(s) left.", rule)
    why = f"{me.name} feeds on {victim.name}: {blood} blood Trait(s) ({taken + blood} of {FEED_LIMIT} this round)."
    return [Fed(character=who, target=target, blood=blood, why=why, rule=rule)]


def _grapple(state: Scene, who: str, target: str) -> Challenge | None:
    """The challenge whose win started ``who``'s hold on ``target`` (the latest)."""
    for ch in sorted(state.challenges.values(), key=lambda ch: -ch.seq):
        if any(isinstance(e, GrappleStarted) and e.grappler == who and e.victim == target for e in ch.consequences):
            return ch
    return None


def check_narrative(state: Scene) -> None:
    """A narrative round is PvE only: refused while a player character targets another (kony:narrative)."""
    for cid in state.undecided:
        ch = state.challenges[cid]
        me = state.characters.get(ch.challenger.who)
        for target in ch.targets:
            them = state.characters.get(target)
            if me and them and not me.sheet.npc and not them.sheet.npc:
                raise Rejected(
                    "not_pve",
                    f"{me.name} is in a challenge against {them.name}: the narrative rule is only for "
                    "fights against NPCs.",
                    "kony:narrative",
                )
