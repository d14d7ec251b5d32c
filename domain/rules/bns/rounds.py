"""The bns combat round (docs/rules/bns-complex-scenarios-combat.txt): initiative and its ties,
Rage rounds, the actions taken on one's turn, a challenge declared in the round, reach and the
prone defence. ``Bns`` calls these policies; the tables they read are in ``bns_combat``; the turn
itself in ``bns_turn``, maneuvers in ``bns_maneuvers``, fair escapes in ``bns_escape`` and the
mass combat tactics in ``bns_mass``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

from domain.commands import Action, Declare
from domain.effects import EscapeGrapple
from domain.errors import Rejected
from domain.events import (
    ActionTaken,
    ConditionCleared,
    ConditionSet,
    FairEscapeFailed,
    InitiativeSet,
    InitiativeTest,
    SceneEvent,
    TurnStarted,
)
from domain.pools import Modifier
from domain.rules.bns.catalog import options
from domain.rules.bns.combat import (
    ACTS,
    CLEARABLE,
    FERAL_DASH_STEPS,
    MANEUVERS,
    RANGED,
    REACH,
    WITH_ACTION,
)
from domain.rules.bns.escape import escape, fails_escape
from domain.rules.bns.maneuvers import check_maneuvers, paid
from domain.rules.bns.state import ASSISTED, kept
from domain.rules.bns.turn import BUDGET, awake, check_turn, holders, rated, released, spend, still_to_act, turn_of
from domain.rules.catalog import BEATS, SIGNS
from domain.state import Challenge, Character, Scene

TIE_TESTS = 4
"""Tests thrown between two tied characters before the ST is left to order them (each needs two
of the shell's draws)."""


def order_round(state: Scene, choose: Callable[[tuple[str, ...]], str]) -> InitiativeSet:
    """Dexterity + Wits, highest first; ties by Wits, then Dexterity, then a test (bns:initiative-ties)."""
    fighting = [c for c in state.roster() if c.present and c.conditions.fair_escape != "escaped"]
    values = {c.id: rated(c, "dexterity") + rated(c, "wits") for c in fighting}
    key = {c.id: (values[c.id], rated(c, "wits"), rated(c, "dexterity")) for c in fighting}
    groups: list[list[str]] = []
    for who in sorted(key, key=lambda w: (tuple(-k for k in key[w]), w)):
        if groups and key[groups[-1][0]] == key[who]:
            groups[-1].append(who)
        else:
            groups.append([who])
    tests: list[InitiativeTest] = []
    if options(state).initiative_tests == "server":
        groups = [ordered for group in groups for ordered in _thrown(group, choose, tests)]
    why = "; ".join(
        " = ".join(f"{state.name_of(w)} {values[w]} (Wits {key[w][1]}, Dexterity {key[w][2]})" for w in g)
        for g in groups
    )
    tied = [g for g in groups if len(g) > 1]
    shared = len(set(values.values())) < len(values)  # equal initiatives, ordered by Wits, Dexterity or a test
    rule = "bns:initiative-ties" if shared else "bns:initiative"
    if tests:
        why += ". Tied on every count: " + "; ".join(_told(state, t) for t in tests)
    if tied:
        why += ". The Storyteller orders the tie (`order`)"
    return InitiativeSet(
        order=groups, values=values, why=f"Initiative, Dexterity + Wits: {why}.", rule=rule, tests=tests
    )


def _thrown(group: list[str], choose: Callable[[tuple[str, ...]], str], tests: list[InitiativeTest]) -> list[list[str]]:
    """Order a group tied on every count by tests (retests on ties): whoever wins against each of the
    others in turn goes first, then the same among the rest. Throws that run out leave the rest
    tied, for the ST."""
    rest, ordered = list(group), list[list[str]]()
    while len(rest) > 1:
        first: str | None = rest[0]
        for other in rest[1:]:
            assert first is not None
            first = _test(first, other, choose, tests)
            if first is None:
                return [*ordered, rest]
        assert first is not None
        ordered.append([first])
        rest.remove(first)
    return [*ordered, rest]


def _test(a: str, b: str, choose: Callable[[tuple[str, ...]], str], tests: list[InitiativeTest]) -> str | None:
    """One test between two tied characters, retested on ties: who goes first, or None when the
    throws run out."""
    signs: list[dict[str, str]] = []
    first = None
    for _ in range(TIE_TESTS):
        try:
            thrown = {a: choose(SIGNS), b: choose(SIGNS)}
        except Rejected:
            break
        signs.append(thrown)
        if thrown[b] in BEATS[thrown[a]]:
            first = a
        elif thrown[a] in BEATS[thrown[b]]:
            first = b
        if first:
            break
    tests.append(InitiativeTest(between=[a, b], signs=signs, first=first))
    return first


def _told(state: Scene, t: InitiativeTest) -> str:
    throws = ", ".join(" against ".join(f"{state.name_of(w)} {s}" for w, s in signs.items()) for signs in t.signs)
    a, b = (state.name_of(w) for w in t.between)
    if t.first is None:
        return f"{a} and {b} threw {throws} and still tie"
    return f"{a} and {b} threw {throws}: {state.name_of(t.first)} goes first"


def extra_turn(state: Scene) -> TurnStarted | None:
    """Rage rounds after the universal round: round k, everyone with k Rage rounds, one at a time in
    initiative order, each with a standard and a simple action afresh (bns:rage-rounds)."""
    r = state.round
    assert r is not None
    order = [w for g in r.order for w in g]
    k, after = (
        (r.extra, order.index(r.turn[0]) + 1 if r.turn and r.turn[0] in order else 0)
        if r.turn_phase == "extra"
        else (1, 0)
    )
    most = max((kept(c).rage for c in state.roster()), default=0)
    while k <= most:
        for who in order[after:]:
            c = state.characters.get(who)
            busy = c is not None and c.conditions.fair_escape in ("escaped", "declared", "held")
            if c is not None and c.present and kept(c).rage >= k and not busy and not _knocked_out(state, c):
                return TurnStarted(
                    phase="extra",
                    characters=[who],
                    extra=k,
                    budget=dict(BUDGET),
                    why=f"Rage round {k}: {state.name_of(who)} acts, with a standard and a simple action.",
                    rule="bns:rage-rounds",
                )
        k, after = k + 1, 0
    return None


def _knocked_out(state: Scene, c: Character) -> bool:
    out = c.conditions.marked("unconscious")
    return out is not None and (out.until is None or state.last_at is None or state.last_at < out.until)


def act(state: Scene, who: str, action: Action, now: datetime) -> list[SceneEvent]:
    """An action taken on one's turn, or refused naming its rule."""
    me = state.characters[who]
    if action.kind == "fair_escape":
        return escape(state, who)
    spec = ACTS.get(action.kind)
    if spec is None:
        raise Rejected(
            "unknown_action",
            f"A {action.kind} is not a bns action: declare a challenge with `declare`; take move, advanced_move, "
            "prone, crawl, stand, draw, nock, clear, pick_up, trade, other or fair_escape.",
            "bns:round",
        )
    maneuver = MANEUVERS.get(action.maneuver) if action.maneuver else None
    if action.maneuver and action.kind not in WITH_ACTION.get(action.maneuver, frozenset()):
        raise Rejected(
            "maneuver_logic",
            f"{MANEUVERS[action.maneuver].title} has no logical way into a {action.kind}.",
            "bns:maneuver-logic",
        )
    burst = action.maneuver == "burst_of_speed"
    if burst and not still_to_act(state, who):
        raise Rejected(
            "burst_of_speed", "Burst of Speed takes one's simple action before one's initiative.", "bns:burst-of-speed"
        )
    check_turn(state, me, early=burst)
    awake(me, now)
    if spec.spends == "standard" and action.using == "simple":
        what = action.kind.replace("_", " ")
        raise Rejected("standard_action", f"A {what} takes the standard action, not a simple one.", spec.rule)
    spends: str | None = action.using or spec.spends
    rule = "bns:burst-of-speed" if burst else spec.rule
    steps = spec.steps
    if action.maneuver in ("quick_draw", "snap_shot"):
        spends = None
    if action.maneuver == "feral_dash":
        spends, steps, rule = "both", FERAL_DASH_STEPS, "bns:feral-dash"
    elif action.kind == "move" and action.using == "standard":
        rule = "bns:movement"
    if action.maneuver == "burst_of_speed" and spends != "simple":
        raise Rejected("burst_of_speed", "Burst of Speed takes one's simple action early.", "bns:burst-of-speed")
    if action.steps > steps:
        raise Rejected("too_far", f"A {action.kind.replace('_', ' ')} goes at most {steps} steps.", rule)
    c = me.conditions
    hamstrung = c.marked("hamstrung")
    if hamstrung is not None and action.steps >= steps > 0:
        raise Rejected(
            "hamstrung",
            f"{me.name} is hamstrung: at most {steps - 1} step(s) with this action, until two simple actions clear it.",
            "bns:hamstring",
        )
    if action.steps and (c.grappled_by or holders(state, who)):
        raise Rejected("grappled", f"{me.name} is grappled and cannot move.", "bns:grapple")
    if action.kind in ("move", "advanced_move") and c.prone:
        raise Rejected("prone", f"{me.name} is prone: crawl a step, or stand and move one.", "bns:prone")
    if spec.needs_prone and not c.prone:
        raise Rejected("not_prone", f"{me.name} is not lying prone.", "bns:prone")
    if action.kind == "prone" and c.prone:
        raise Rejected("already_prone", f"{me.name} is already prone.", "bns:prone")
    if spends is not None:
        spend(me, spends, rule)
    events: list[SceneEvent] = []
    if maneuver is not None:
        events += paid(state, me, action.maneuver or "", "", round_=turn_of(state))
    what = action.what or action.item or action.kind.replace("_", " ")
    why = f"{me.name}: {what}" + (f", {action.steps} step(s)" if action.steps else "")
    if action.blocked_by is not None:
        if action.kind not in ("move", "advanced_move", "crawl", "stand"):
            raise Rejected("not_moving", "Only a move can be blocked.", "bns:blocking")
        blocker = state.characters.get(action.blocked_by)
        if blocker is None:
            raise Rejected("unknown_character", f"No character “{action.blocked_by}” is in this scene to block.")
        if not blocker.present:
            raise Rejected("unknown_character", f"{blocker.name} has left the scene and blocks nobody.")
        if blocker.conditions.prone or blocker.conditions.grappled_by or holders(state, blocker.id):
            raise Rejected("cannot_block", f"{blocker.name} is prone or grappled, and blocks nobody.", "bns:blocking")
        why += f", then blocked by {state.name_of(action.blocked_by)} (the Storyteller's call)"
        rule = "bns:blocking"
    if spends is None:
        why += f" ({maneuver.title if maneuver else 'free'}: no action spent)"
    if spends == "both":  # both actions (Feral Dash): two spent, the action recorded with the first
        events.append(ActionTaken(character=who, spent="standard", action=action, why=why + ".", rule=rule))
        events.append(ActionTaken(character=who, spent="simple", why=f"{me.name}: the rest of it.", rule=rule))
    else:
        events.append(ActionTaken(character=who, spent=spends, action=action, why=why + ".", rule=rule))  # type: ignore[arg-type]
    events += _after_act(state, me, action)
    return events


def _after_act(state: Scene, me: Character, action: Action) -> list[SceneEvent]:
    who, c = me.id, me.conditions
    match action.kind:
        case "prone":
            return [ConditionSet(character=who, name="prone", by=who, why=f"{me.name} drops prone.", rule="bns:prone")]
        case "stand":
            return [ConditionCleared(character=who, name="prone", why=f"{me.name} stands up.", rule="bns:prone")]
        case "pick_up" if c.marked("disarmed"):
            why = f"{me.name} picks up {action.item or 'what was dropped'}."
            return [ConditionCleared(character=who, name="disarmed", why=why, rule="bns:disarm")]
        case "clear":
            mark = c.marked(action.clears or "")
            if action.clears not in CLEARABLE or mark is None:
                held = ", ".join(m.name for m in c.marks if m.name in CLEARABLE) or "nothing"
                rule = CLEARABLE.get(action.clears or "", "bns:blinding-attack")
                raise Rejected("nothing_to_clear", f"{me.name} has {held} to clear.", rule)
            if mark.clears_after <= 1:
                rule = CLEARABLE[mark.name]
                return [ConditionCleared(character=who, name=mark.name, why=f"{me.name} is rid of it.", rule=rule)]
    if action.steps and c.moved_steps + action.steps > 1:  # counted over the round
        return released(state, me, "moves more than one step this round")
    return []


def in_round(state: Scene, cmd: Declare, who: str, now: datetime) -> tuple[list[SceneEvent], list[Modifier]]:
    """A challenge declared in a round: on one's turn, a standard action (a simple one to break a
    grapple), the grapple's limits, the escapes it fails; and the maneuver and assistance it uses."""
    me = state.characters[who]
    r = state.round
    events: list[SceneEvent] = []
    target = state.characters.get(cmd.targets[0]) if cmd.targets else None
    if target is not None and target.conditions.fair_escape == "escaped":
        raise Rejected("escaped", f"{target.name} has fair escaped and cannot be targeted.", "bns:fair-escape-hold")
    physical = cmd.category == "physical"
    escaping = isinstance(cmd.effect, EscapeGrapple)
    held_by = holders(state, who)
    if physical and held_by and not escaping:
        raise Rejected(
            "grappled",
            f"{me.name} is grappled: the standard action cannot start a Physical challenge until free; break free "
            "first (an escape_grapple effect, a simple action).",
            "bns:grapple",
        )
    if escaping and not held_by:
        raise Rejected("not_grappled", f"{me.name} is not grappled.", "bns:grapple-escape")
    if escaping and target is not None and target.id not in held_by:
        raise Rejected("not_grappler", f"{target.name} does not hold {me.name}.", "bns:grapple-several")
    if r is not None and r.phase == "acting":
        awake(me, now)
        check_turn(state, me)
        spends: Literal["standard", "simple"] = "simple" if escaping else "standard"
        rule = "bns:grapple-escape" if escaping else "bns:standard-action"
        spend(me, spends, rule)
        what = "breaks free of a grapple" if escaping else f"declares a {cmd.category} challenge"
        events.append(
            ActionTaken(
                character=who,
                spent=spends,
                challenge=cmd.challenge,
                why=f"{me.name} {what}.",
                rule=rule,
            )
        )
    if target is not None and me.conditions.grappling and target.id not in me.conditions.grappling:
        events += released(state, me, f"acts against {target.name}")
    if target is not None and physical and fails_escape(state, who, target):
        events.append(
            FairEscapeFailed(
                character=target.id,
                challenge=cmd.challenge,
                why=f"{me.name} attacks {target.name}: the fair escape fails; {target.name} may now act.",
                rule="bns:fair-escape-hold",
            )
        )
    if cmd.maneuvers:
        events += check_maneuvers(state, cmd, who)
    attacking = cmd.kind == "contested" and not escaping
    return events, attack_modifiers(state, me, cmd.category, cmd.maneuvers, attacking=attacking)


def attack_modifiers(
    state: Scene, me: Character, category: str, maneuvers: Sequence[str], *, attacking: bool = True
) -> list[Modifier]:
    """What the maneuvers take off an attack pool, and what accepted assists add to a physical
    attack (not to a static test, nor to breaking a grapple)."""
    used = [MANEUVERS[name] for name in maneuvers if name in MANEUVERS]
    modifiers = [Modifier(value=m.modifier, why=m.title, rule=m.rule) for m in used if m.modifier]
    if category == "physical" and attacking:
        modifiers += [
            Modifier(value=1, why=f"assisted by {state.name_of(aid.by)}", rule=ASSISTED)
            for aid in kept(me).aids
            if (aid.benefit, aid.status) == ("plus_one", "accepted")
        ]
    return modifiers


def check_reach(state: Scene, cmd: Declare, attack: str | None) -> None:
    """An attack within its reach; the range declared where a prone target's defence hangs on it."""
    target = state.characters.get(cmd.targets[0]) if cmd.targets else None
    if cmd.category == "physical" and target is not None and target.conditions.prone and cmd.range is None:
        raise Rejected(
            "range_required",
            f"{target.name} is prone: say how many steps away the attack is from (`range`).",
            "bns:prone-defense",
        )
    reach = REACH.get(attack or "")
    if cmd.range is None or reach is None:
        return
    lunge = sum(MANEUVERS[name].reach for name in cmd.maneuvers)
    if cmd.range > reach + lunge:
        rule = {"thrown": "bns:thrown", "melee": "bns:melee"}.get(attack or "", "bns:unarmed")
        raise Rejected(
            "out_of_reach",
            f"A {attack} attack reaches {reach + lunge} steps; the target is {cmd.range} away.",
            "bns:lunging-attack" if lunge else rule,
        )


def prone_modifier(me: Character, ch: Challenge) -> Modifier | None:
    """A prone defender: +2 against a ranged attack from more than three steps, -2 against a
    physical attack from within three (bns:prone-defense)."""
    if not me.conditions.prone or ch.category != "physical" or ch.range is None:
        return None
    attack = ch.challenger.pool.attack if ch.challenger.pool else None
    if ch.range > 3 and attack in RANGED:
        return Modifier(value=2, why="prone, out of reach of the attack", rule="bns:prone-defense")
    if ch.range <= 3:
        return Modifier(value=-2, why="prone, within three steps", rule="bns:prone-defense")
    return None
