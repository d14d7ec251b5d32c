"""The bns combat round (docs/rules/bns-complex-scenarios-combat.txt): initiative and its ties, a
standard and a simple action each, the actions taken on one's turn, Rage rounds, fair escapes held
across the round, maneuvers, grapples and the mass combat tactics. ``Bns`` calls these policies;
the tables they read are in ``bns_combat``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Literal

from domain.commands import Action, Assist, Declare
from domain.effects import EscapeGrapple
from domain.errors import Rejected
from domain.events import (
    ActionTaken,
    AssistAnswered,
    AssistOffered,
    AttackIntended,
    ConditionCleared,
    ConditionSet,
    FairEscapeDeclared,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    GrappleBroken,
    GrappleStarted,
    InitiativeSet,
    InitiativeTest,
    ManeuverUsed,
    SceneEvent,
    TurnStarted,
    WillpowerSpent,
)
from domain.pools import ASSISTED, Modifier
from domain.rules.bns_catalog import SHAPESHIFTERS, options, rating
from domain.rules.bns_combat import (
    ACTS,
    ANIMAL_FORMS,
    CLEARABLE,
    FERAL_DASH_STEPS,
    MANEUVERS,
    RANGED,
    REACH,
    UNCONSCIOUS_MINUTES,
    WITH_ACTION,
)
from domain.rules.catalog import BEATS, SIGNS
from domain.state import Challenge, Character, RoundState, Scene

BUDGET = {"standard": 1, "simple": 1}
TIE_TESTS = 4
"""Tests thrown between two tied characters before the ST is left to order them (each needs two
of the shell's draws)."""


def _rating(c: Character, attribute: str) -> int:
    found = rating(c.sheet, attribute)
    return found[1] if found else 0


def _turn(state: Scene) -> RoundState:
    r = state.round
    if r is None or r.phase != "acting":
        raise Rejected("no_round", "No round is under way: the Storyteller starts one.", "bns:round")
    return r


# -- initiative --------------------------------------------------------------------------------


def order_round(state: Scene, choose: Callable[[tuple[str, ...]], str]) -> InitiativeSet:
    """Dexterity + Wits, highest first; ties by Wits, then Dexterity, then a test (bns:initiative-ties)."""
    fighting = [c for c in state.roster() if c.present and c.conditions.fair_escape != "escaped"]
    values = {c.id: _rating(c, "dexterity") + _rating(c, "wits") for c in fighting}
    key = {c.id: (values[c.id], _rating(c, "wits"), _rating(c, "dexterity")) for c in fighting}
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
    """Order a group tied on every count pairwise by tests (retests on ties): each winner goes
    before the rest. Throws that run out leave the rest tied, for the ST."""
    rest, ordered = list(group), list[list[str]]()
    while len(rest) > 1:
        a, b = rest[0], rest[1]
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
        if first is None:
            return [*ordered, rest]
        ordered.append([first])
        rest.remove(first)
    return [*ordered, rest]


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
    most = max((c.rage for c in state.roster()), default=0)
    while k <= most:
        for who in order[after:]:
            c = state.characters.get(who)
            if c is not None and c.present and c.rage >= k and c.conditions.fair_escape != "escaped":
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


# -- actions on one's turn -----------------------------------------------------------------------


def check_turn(state: Scene, me: Character, *, early: bool = False) -> RoundState:
    """Whether ``me`` may act now: on its turn, right after its fair escape failed, or (``early``)
    before its initiative with Burst of Speed."""
    r = _turn(state)
    escape = me.conditions.fair_escape
    if escape == "escaped":
        raise Rejected("escaped", f"{me.name} has fair escaped: out of the fight.", "bns:fair-escape-hold")
    if escape in ("declared", "held"):
        raise Rejected(
            "escaping",
            f"{me.name} is trying to fair escape: no other action until the attempt fails.",
            "bns:fair-escape-hold",
        )
    if (me.id in r.turn and not me.turn_done) or escape == "failed" or early:
        return r
    now = ", ".join(state.name_of(w) for w in r.turn) or "nobody"
    raise Rejected(
        "not_your_turn",
        f"It is not {me.name}'s turn: now acting {now}; {me.name} acts on {r.values.get(me.id, '-')}.",
        "bns:round",
    )


def _spend(me: Character, spends: str, rule: str) -> None:
    if spends == "both":
        if me.budget.get("standard", 0) < 1 or me.budget.get("simple", 0) < 1:
            raise Rejected("no_action_left", f"{me.name} needs both a standard and a simple action for that.", rule)
        return
    if me.budget.get(spends, 0) < 1:
        hint = " (a simple action cannot be traded for a standard one)" if spends == "standard" else ""
        raise Rejected("no_action_left", f"{me.name} has no {spends} action left this round{hint}.", rule)


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
    check_turn(state, me, early=action.maneuver == "burst_of_speed" and not me.acted)
    _awake(me, now)
    spends: str | None = action.using or spec.spends
    rule = spec.rule
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
        raise Rejected("hamstrung", f"{me.name} is hamstrung: one step fewer until it is cleared.", "bns:hamstring")
    if action.steps and (c.grappled_by or _holders(state, who)):
        raise Rejected("grappled", f"{me.name} is grappled and cannot move.", "bns:grapple")
    if action.kind == "move" and c.prone:
        raise Rejected("prone", f"{me.name} is prone: crawl a step, or stand and move one.", "bns:prone")
    if spec.needs_prone and not c.prone:
        raise Rejected("not_prone", f"{me.name} is not lying prone.", "bns:prone")
    if action.kind == "prone" and c.prone:
        raise Rejected("already_prone", f"{me.name} is already prone.", "bns:prone")
    if spends is not None:
        _spend(me, spends, rule)
    events: list[SceneEvent] = []
    if maneuver is not None:
        events += _paid(state, me, action.maneuver or "", "", round_=_turn(state))
    what = action.what or action.item or action.kind.replace("_", " ")
    why = f"{me.name}: {what}" + (f", {action.steps} step(s)" if action.steps else "")
    if action.blocked_by is not None:
        if action.kind not in ("move", "advanced_move", "crawl", "stand"):
            raise Rejected("not_moving", "Only a move can be blocked.", "bns:blocking")
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
                raise Rejected("nothing_to_clear", f"{me.name} has {held} to clear.", "bns:blinding-attack")
            if mark.clears_after <= 1:
                rule = CLEARABLE[mark.name]
                return [ConditionCleared(character=who, name=mark.name, why=f"{me.name} is rid of it.", rule=rule)]
        case "move" if action.steps > 1:
            return _released(state, me, "moves more than one step")
    return []


def _awake(me: Character, now: datetime) -> None:
    out = me.conditions.marked("unconscious")
    if out is not None and (out.until is None or now < out.until):
        raise Rejected("unconscious", f"{me.name} is unconscious.", "bns:knock-out")


def _holders(state: Scene, who: str) -> list[str]:
    return [c.id for c in state.roster() if who in c.conditions.grappling]


def _released(state: Scene, me: Character, why: str) -> list[SceneEvent]:
    """The grapples ``me`` relinquishes by acting against another or moving more than a step
    (bns:grapple-release). Nothing else breaks one: changing forms does not (bns:grapple-forms)."""
    return [
        GrappleBroken(grappler=me.id, victim=v, why=f"{me.name} {why}: the grapple is relinquished.")
        for v in me.conditions.grappling
    ]


# -- a challenge in the round ----------------------------------------------------------------------


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
    holders = _holders(state, who)
    if physical and holders and not escaping:
        raise Rejected(
            "grappled",
            f"{me.name} is grappled: the standard action cannot start a Physical challenge until free; break free "
            "first (an escape_grapple effect, a simple action).",
            "bns:grapple",
        )
    if escaping and not holders:
        raise Rejected("not_grappled", f"{me.name} is not grappled.", "bns:grapple-escape")
    if escaping and target is not None and target.id not in holders:
        raise Rejected("not_grappler", f"{target.name} does not hold {me.name}.", "bns:grapple-several")
    if r is not None and r.phase == "acting":
        _awake(me, now)
        check_turn(state, me)
        spends: Literal["standard", "simple"] = "simple" if escaping else "standard"
        rule = "bns:grapple-escape" if escaping else "bns:standard-action"
        _spend(me, spends, rule)
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
        events += _released(state, me, f"acts against {target.name}")
    if target is not None and physical and _fails_escape(state, who, target):
        events.append(
            FairEscapeFailed(
                character=target.id,
                challenge=cmd.challenge,
                why=f"{me.name} attacks {target.name}: the fair escape fails; {target.name} may now act.",
                rule="bns:fair-escape-hold",
            )
        )
    modifiers: list[Modifier] = []
    if cmd.maneuver is not None:
        events += check_maneuver(state, cmd, who)
        m = MANEUVERS[cmd.maneuver]
        if m.modifier:
            modifiers.append(Modifier(value=m.modifier, why=m.title, rule=m.rule))
    if physical:
        for aid in me.aids:
            if (aid.benefit, aid.status) == ("plus_one", "accepted"):
                modifiers.append(Modifier(value=1, why=f"assisted by {state.name_of(aid.by)}", rule=ASSISTED))
    return events, modifiers


def _fails_escape(state: Scene, who: str, target: Character) -> bool:
    """Whether an attack by ``who`` fails ``target``'s fair escape (option ``escape_failed_by``)."""
    if target.conditions.fair_escape not in ("declared", "held"):
        return False
    return options(state).escape_failed_by == "any" or who in target.conditions.escape_held_by


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
    lunge = MANEUVERS[cmd.maneuver].reach if cmd.maneuver else 0
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


# -- maneuvers ----------------------------------------------------------------------------------------


def check_maneuver(state: Scene, cmd: Declare, who: str) -> list[SceneEvent]:
    """A maneuver with an attack: it fits the attack, the target is not immune, one a round; paid
    with Willpower, a free use, or an assist."""
    assert cmd.maneuver is not None
    m = MANEUVERS[cmd.maneuver]
    me = state.characters[who]
    attack = cmd.pool.attack if cmd.pool else None
    if cmd.category != "physical" and cmd.maneuver != "fighting_blind":
        raise Rejected(
            "maneuvers_physical",
            f"{m.title} cannot go with a {cmd.category.capitalize()} action; only Fighting Blind goes with any.",
            "bns:maneuvers-physical",
        )
    if cmd.category == "physical" and m.attacks and attack not in m.attacks:
        raise Rejected(
            "maneuver_logic",
            f"{m.title} has no logical way into a {attack or 'plain'} attack "
            f"(it fits {', '.join(sorted(m.attacks))}; the ST may allow others).",
            "bns:maneuver-logic",
        )
    if not m.attacks:
        raise Rejected("maneuver_logic", f"{m.title} goes with an action, not an attack.", "bns:maneuver-logic")
    target = state.characters.get(cmd.targets[0]) if cmd.targets else None
    r = state.round
    if target is not None and m.sturdy and _rating(target, "stamina") > _rating(me, "strength"):
        raise Rejected(
            "sturdy",
            f"{target.name}'s Stamina is more than {me.name}'s Strength: {m.title} cannot work on them.",
            m.rule,
        )
    if cmd.maneuver == "knock_out":
        if r is not None and not r.first:
            raise Rejected("not_first_round", "Knock Out is only for the first round of combat.", m.rule)
        if not cmd.surprise:
            raise Rejected(
                "not_surprised", "Knock Out needs the target surprised, not expecting an attack (`surprise`).", m.rule
            )
        if target is not None and (target.sheet.creature or "").lower() == "vampire":
            raise Rejected("cannot_knock_out", f"{target.name}, a vampire, cannot be knocked unconscious.", m.rule)
    if cmd.maneuver == "pierce_the_heart" and target is not None and not target.conditions.marked("incapacitated"):
        raise Rejected(
            "not_incapacitated",
            f"{target.name}'s wounds are not in the Incapacitated track (the ST marks it with `adjust`).",
            m.rule,
        )
    acting = r if r is not None and r.phase == "acting" else None
    leap: list[SceneEvent] = []
    if cmd.maneuver == "savage_leap" and acting is not None:  # the leap takes the simple action too
        _spend(me, "both", m.rule)
        leap.append(ActionTaken(character=who, spent="simple", why=f"{me.name} leaps up to six steps.", rule=m.rule))
    return [*_paid(state, me, cmd.maneuver, cmd.challenge, round_=acting), *leap]


def _paid(state: Scene, me: Character, maneuver: str, challenge: str, *, round_: RoundState | None) -> list[SceneEvent]:
    m = MANEUVERS[maneuver]
    if m.feral and (me.sheet.form or "").lower() not in ANIMAL_FORMS:
        raise Rejected(
            "not_animal_form", f"{m.title} is a feral maneuver: only in Lupus or Hispo form.", "bns:feral-maneuvers"
        )
    if round_ is not None and me.maneuver_round == round_.number:
        raise Rejected("one_maneuver", f"{me.name} has used a combat maneuver this round.", "bns:maneuvers")
    title = m.title
    if any((a.benefit, a.status) == ("maneuver", "accepted") for a in me.aids):
        by = next(a.by for a in me.aids if (a.benefit, a.status) == ("maneuver", "accepted"))
        why = f"{me.name} uses {title}, free: {state.name_of(by)} assists."
        return [
            ManeuverUsed(
                character=me.id,
                maneuver=maneuver,
                paid="assist",
                challenge=challenge,
                why=why,
                rule="bns:assist-attacker",
            )
        ]
    free = _free_list(state, me, m.free)
    if free is not None:
        why = f"{me.name} uses {title}, free once this fight ({free.capitalize()} 4 or more)."
        rule = "bns:feral-maneuvers" if m.feral else "bns:free-maneuvers"
        return [
            ManeuverUsed(
                character=me.id, maneuver=maneuver, paid="free", free_list=free, challenge=challenge, why=why, rule=rule
            )
        ]
    if me.willpower < 1:
        raise Rejected("no_willpower", f"{me.name} has no Willpower to spend on {title}.", "bns:maneuvers")
    why = f"{me.name} spends a Willpower on {title}."
    return [
        WillpowerSpent(character=me.id, challenge=challenge),
        ManeuverUsed(
            character=me.id, maneuver=maneuver, paid="willpower", challenge=challenge, why=why, rule="bns:maneuvers"
        ),
    ]


def _free_list(state: Scene, me: Character, lists: frozenset[str]) -> str | None:
    """The list of free maneuvers a use can come from, if any is unused this fight."""
    if options(state).free_maneuvers == "one" and me.free_used:
        return None
    for name in sorted(lists):
        attribute = name.split()[-1]
        if _rating(me, attribute) >= 4 and name not in me.free_used:
            return name
    return None


def reduced(state: Scene, ch: Challenge, amount: int) -> int:
    """The damage left once the maneuver's reduction is taken away (minimum 0)."""
    m = MANEUVERS.get(ch.maneuver or "")
    if m is None:
        return amount
    if m.plain_damage and options(state).maneuver_damage == "none":
        return 0
    if ch.maneuver == "pierce_the_heart":
        target = state.characters.get(ch.targets[0]) if ch.targets else None
        if target is not None and (target.sheet.creature or "").lower() in SHAPESHIFTERS:
            amount += 1
    return max(0, amount - m.reduction)


def maneuver_effects(state: Scene, ch: Challenge) -> list[SceneEvent]:
    """What a successful maneuver leaves on its target."""
    m = MANEUVERS.get(ch.maneuver or "")
    if m is None or m.condition is None or not ch.targets:
        return []
    target, me = ch.targets[0], ch.challenger.who
    t, c = state.name_of(target), state.name_of(me)
    if m.condition == "grappled":
        return [GrappleStarted(grappler=me, victim=target, challenge=ch.id)]
    if m.condition == "staked":
        creature = (state.characters[target].sheet.creature or "").lower()
        if creature != "vampire":
            return []  # a human dies, a shapeshifter takes the extra point: the ST and the damage say so
    until = None
    if m.condition == "unconscious" and state.last_at is not None:
        until = state.last_at + timedelta(minutes=UNCONSCIOUS_MINUTES)
    clears = f" until {t} spends {m.clears_after} simple actions clearing it" if m.clears_after else ""
    lasts = f" for {UNCONSCIOUS_MINUTES} minutes" if until else ""
    why = f"{c}'s {m.title}: {t} is {m.condition.replace('_', ' ')}{clears}{lasts}."
    return [
        ConditionSet(
            character=target,
            name=m.condition,
            by=me,
            until=until,
            clears_after=m.clears_after,
            challenge=ch.id,
            why=why,
            rule=m.rule,
        )
    ]


# -- fair escape ---------------------------------------------------------------------------------------


def escape(state: Scene, who: str) -> list[SceneEvent]:
    """Declared first thing on one's turn; failed at once if there is no way out or one was
    attacked before; succeeded at once if nobody could attack; else open to intents until the
    turn ends."""
    me = state.characters[who]
    r = _turn(state)
    if me.conditions.fair_escape in ("declared", "held", "escaped"):
        raise Rejected("escaping", f"{me.name} is already escaping.", "bns:fair-escape-declare")
    if me.id not in r.turn or me.turn_done:
        raise Rejected(
            "not_your_turn",
            f"{me.name} declares a fair escape at the start of their own initiative.",
            "bns:fair-escape-declare",
        )
    if me.acted or not any(me.budget.values()):
        raise Rejected(
            "escape_first",
            f"{me.name} has acted this turn: a fair escape is declared first thing, with an action still to spend.",
            "bns:fair-escape-declare",
        )
    declared = FairEscapeDeclared(
        character=who, why=f"{me.name} raises a hand: a fair escape.", rule="bns:fair-escape-declare"
    )
    if me.conditions.grappled_by or _holders(state, who) or me.conditions.marked("no_exit"):
        why = "grappled" if not me.conditions.marked("no_exit") else "there is no way out"
        return [
            declared,
            FairEscapeFailed(character=who, why=f"{me.name} cannot leave: {why}.", rule="bns:fair-escape-no-exit"),
        ]
    attacked = next(
        (ch for ch in state.in_order() if ch.round == r.number and who in ch.targets and ch.category == "physical"),
        None,
    )
    if attacked is not None:
        by = state.name_of(attacked.challenger.who)
        why = f"{me.name} was attacked before this initiative (by {by}): the escape fails."
        return [
            declared,
            FairEscapeFailed(character=who, challenge=attacked.id, why=why, rule="bns:fair-escape-blocked"),
        ]
    if not could_intend(state, who):
        why = f"Nobody can attack {me.name} this round: {me.name} escapes."
        return [declared, FairEscapeSucceeded(character=who, why=why, rule="bns:fair-escape-automatic")]
    return [declared]


def could_intend(state: Scene, target: str) -> list[str]:
    """Who has not acted yet this round, and so may declare intent to attack ``target``."""
    r = state.round
    if r is None:
        return []
    order = [w for g in r.order for w in g]
    now = [order.index(w) for w in r.turn if w in order]
    later = order[max(now) + 1 :] if now else []
    if r.turn_phase == "extra":  # in a Rage round, those still to act in it
        later = [w for w in later if state.characters[w].rage >= r.extra]
    return [
        w
        for w in later
        if w != target
        and (c := state.characters[w]).present
        and not c.acted
        and c.conditions.fair_escape != "escaped"
        and c.budget.get("standard", 0) > 0
    ]


def intend(state: Scene, who: str, target: str) -> AttackIntended:
    r = _turn(state)
    me, them = state.characters[who], state.characters[target]
    if r.escape_window != target:
        raise Rejected(
            "no_escape_window",
            f"{them.name} is not declaring a fair escape now: intent is announced while the escape is declared.",
            "bns:fair-escape-intent",
        )
    if who not in could_intend(state, target):
        raise Rejected(
            "already_acted",
            f"{me.name} cannot announce an attack: only those who have not acted yet this round may.",
            "bns:fair-escape-intent",
        )
    if who in them.conditions.escape_held_by:
        raise Rejected("already_intended", f"{me.name} has already announced an attack.", "bns:fair-escape-intent")
    return AttackIntended(character=who, target=target, rule="bns:fair-escape-intent")


def turn_ended(state: Scene, who: str) -> list[SceneEvent]:
    """The escaper's turn is over: the intent window closes; held, or escaped at once."""
    me = state.characters[who]
    if me.conditions.fair_escape != "declared":
        return []
    intenders = list(me.conditions.escape_held_by)
    if not intenders:
        why = f"Nobody declared intent to attack {me.name}: {me.name} escapes."
        return [FairEscapeSucceeded(character=who, why=why, rule="bns:fair-escape-intent")]
    names = ", ".join(state.name_of(w) for w in intenders)
    why = f"{me.name}'s escape is held by {names}: an attack later in the round fails it."
    return [FairEscapeHeld(character=who, by=intenders, why=why, rule="bns:fair-escape-hold")]


def phase_ended(state: Scene) -> list[SceneEvent]:
    """The universal round or a Rage round is over: escapes held through it succeed (option
    ``escape_resolves``: ``round``)."""
    r = state.round
    if r is None or options(state).escape_resolves != "round":
        return []
    phase = r.extra if r.turn_phase == "extra" else 0
    return _escaped(state, lambda c: c.conditions.escape_phase == phase, "this round")


def round_ending(state: Scene) -> list[SceneEvent]:
    return _escaped(state, lambda c: True, "the turn")


def _escaped(state: Scene, which: Callable[[Character], bool], span: str) -> list[SceneEvent]:
    return [
        FairEscapeSucceeded(
            character=c.id,
            why=f"Nobody attacked {c.name} through {span}: after everyone acted, {c.name} escapes.",
            rule="bns:fair-escape-hold",
        )
        for c in state.roster()
        if c.conditions.fair_escape in ("held", "declared") and which(c)
    ]


# -- mass combat -----------------------------------------------------------------------------------------


def assist(state: Scene, who: str, cmd: Assist) -> list[SceneEvent]:
    me = state.characters[who]
    r = _turn(state)
    if cmd.kind == "defender":
        return _shield(state, me, cmd, r)
    if cmd.to is None or cmd.benefit is None:
        raise Rejected("assist_parts", "Say whom you assist (`to`) and how (`benefit`).", "bns:assist-attacker")
    if cmd.to == who or cmd.to not in state.characters:
        raise Rejected("assist_whom", "Assist another character in the scene.", "bns:assist-attacker")
    check_turn(state, me)
    _spend(me, "standard", "bns:assist-attacker")
    them = state.characters[cmd.to]
    if any(a.by == who and a.status == "refused" for a in them.aids):
        raise Rejected(
            "refused", f"{them.name} refused {me.name}'s assistance: not again this round.", "bns:assist-attacker"
        )
    if any(a.by == who and a.status == "offered" for a in them.aids):
        raise Rejected("already_offered", f"{me.name} is waiting for {them.name}'s answer.", "bns:assist-attacker")
    if cmd.benefit == "maneuver" and any(a.benefit == "maneuver" and a.status == "accepted" for a in them.aids):
        raise Rejected(
            "once_a_round", f"{them.name} already has a free maneuver from an assist this round.", "bns:assist-attacker"
        )
    offer = "a free combat maneuver" if cmd.benefit == "maneuver" else "+1 on a physical attack"
    return [
        AssistOffered(
            character=who,
            kind="attacker",
            to=cmd.to,
            benefit=cmd.benefit,
            how=cmd.how,
            why=f"{me.name} offers to assist {them.name}'s attack: {offer}.",
            rule="bns:assist-attacker",
        )
    ]


def answer_assist(state: Scene, who: str, offer: int, accept: bool) -> list[SceneEvent]:
    me = state.characters[who]
    aid = next((a for a in me.aids if a.offer == offer and a.status == "offered"), None)
    if aid is None:
        raise Rejected("no_offer", f"No offer {offer} waits for {me.name}'s answer.", "bns:assist-attacker")
    helper = state.name_of(aid.by)
    answered = AssistAnswered(
        offer=offer,
        character=who,
        by=aid.by,
        benefit=aid.benefit,
        accept=accept,
        why=f"{me.name} {'accepts' if accept else 'refuses'} {helper}'s assistance"
        + ("." if accept else f": {helper} keeps the standard action."),
        rule="bns:assist-attacker",
    )
    if not accept:
        return [answered]
    helper_c = state.characters[aid.by]
    if helper_c.budget.get("standard", 0) < 1:
        raise Rejected("no_action_left", f"{helper} has no standard action left to assist with.", "bns:assist-attacker")
    spent = ActionTaken(
        character=aid.by, spent="standard", why=f"{helper} assists {me.name}.", rule="bns:assist-attacker"
    )
    return [answered, spent]


def _shield(state: Scene, me: Character, cmd: Assist, r: RoundState) -> list[SceneEvent]:
    rule = "bns:assist-defender"
    ch = state.challenges.get(cmd.challenge or "")
    if ch is None or not ch.open:
        raise Rejected("unknown_challenge", "Name the open attack to shield a defender from (`challenge`).", rule)
    if ch.category != "physical":
        raise Rejected("mass_combat", "Mass combat tactics only defend against Physical attacks.", "bns:mass-combat")
    if ch.tests or ch.challenger.throw or ch.defender.throw:
        raise Rejected("too_late", "The test has begun: a defender is shielded before the first throw.", rule)
    if me.id in (ch.challenger.who, ch.defender.who):
        raise Rejected("assist_whom", f"{me.name} is already in that challenge.", rule)
    if me.conditions.fair_escape in ("declared", "held", "escaped"):
        raise Rejected("escaping", f"{me.name} is escaping.", "bns:fair-escape-hold")
    if me.shielded == r.number:
        raise Rejected("once_a_round", f"{me.name} has shielded someone this round already.", rule)
    _spend(me, "simple", rule)
    attacker, was = state.name_of(ch.challenger.who), state.name_of(ch.defender.who)
    return [
        ActionTaken(
            character=me.id, spent="simple", challenge=ch.id, why=f"{me.name} moves up to three steps.", rule=rule
        ),
        AssistOffered(
            character=me.id,
            kind="defender",
            to=ch.defender.who,
            challenge=ch.id,
            how=cmd.how,
            why=f"{me.name} shields {was}: {me.name} is now the target of {attacker}'s attack "
            f"({attacker} may withdraw, losing the action).",
            rule=rule,
        ),
    ]
