"""bns combat maneuvers (bns:maneuvers … bns:savage-leap): whether one fits the attack and the
target, how it is paid (an assist, a free use, a Willpower), the damage it takes away and the
condition it leaves. The maneuvers themselves are data, in ``bns_combat``."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from domain.commands import Declare
from domain.errors import Rejected
from domain.events import (
    ActionTaken,
    ConditionSet,
    GrappleStarted,
    ManeuverUsed,
    SceneEvent,
    WillpowerSpent,
)
from domain.rules.base import ManeuverOffer
from domain.rules.bns.catalog import SHAPESHIFTERS, options
from domain.rules.bns.combat import (
    ANIMAL_FORMS,
    MANEUVERS,
    UNCONSCIOUS_MINUTES,
    Maneuver,
)
from domain.rules.bns.state import kept
from domain.rules.bns.turn import rated, spend
from domain.state import Challenge, Character, RoundState, Scene


def check_maneuvers(state: Scene, cmd: Declare, who: str) -> list[SceneEvent]:
    """The maneuvers of an attack: one (paid with an assist, a free use or Willpower), or two,
    one an accepted Assist Attacker pays for and the other a Willpower (bns:assist-attacker)."""
    chosen = cmd.maneuvers
    if len(chosen) == 1:
        return check_maneuver(state, cmd, who, chosen[0])
    me = state.characters[who]
    rule = "bns:assist-attacker"
    if chosen[0] == chosen[1]:
        raise Rejected("same_maneuver", "Two maneuvers on one attack must be two different ones.", rule)
    if not any((a.benefit, a.status) == ("maneuver", "accepted") for a in kept(me).aids):
        raise Rejected(
            "one_maneuver",
            f"{me.name} may use a second maneuver on one attack only with an Assist Attacker's free one.",
            rule,
        )
    first = check_maneuver(state, cmd, who, chosen[0])
    return [*first, *check_maneuver(state, cmd, who, chosen[1], pay="willpower")]


def check_maneuver(state: Scene, cmd: Declare, who: str, maneuver: str, *, pay: str = "any") -> list[SceneEvent]:
    """A maneuver with an attack: it fits the attack, the target is not immune, one a round; paid
    with Willpower, a free use, or an assist (``pay``: ``willpower`` for the second of two)."""
    m = MANEUVERS[maneuver]
    me = state.characters[who]
    attack = cmd.pool.attack if cmd.pool else None
    if cmd.category != "physical" and maneuver != "fighting_blind":
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
    if target is not None and m.sturdy and rated(target, "stamina") > rated(me, "strength"):
        raise Rejected(
            "sturdy",
            f"{target.name}'s Stamina is more than {me.name}'s Strength: {m.title} cannot work on them.",
            m.rule,
        )
    if maneuver == "knock_out":
        if r is not None and (not r.first or r.phase == "over" or r.turn_phase == "extra"):
            raise Rejected("not_first_round", "Knock Out is only for the first round of combat.", m.rule)
        if not cmd.surprise:
            raise Rejected(
                "not_surprised", "Knock Out needs the target surprised, not expecting an attack (`surprise`).", m.rule
            )
        if target is not None and (target.sheet.creature or "").lower() == "vampire":
            raise Rejected("cannot_knock_out", f"{target.name}, a vampire, cannot be knocked unconscious.", m.rule)
    if maneuver == "pierce_the_heart" and target is not None and not target.conditions.marked("incapacitated"):
        raise Rejected(
            "not_incapacitated",
            f"{target.name}'s wounds are not in the Incapacitated track (the ST marks it with `adjust`).",
            m.rule,
        )
    acting = r if r is not None and r.phase == "acting" else None
    leap: list[SceneEvent] = []
    if maneuver == "savage_leap" and acting is not None:  # the leap takes the simple action too
        spend(me, "both", m.rule)
        leap.append(ActionTaken(character=who, spent="simple", why=f"{me.name} leaps up to six steps.", rule=m.rule))
    return [*paid(state, me, maneuver, cmd.challenge, round_=acting, pay=pay), *leap]


def paid(
    state: Scene, me: Character, maneuver: str, challenge: str, *, round_: RoundState | None, pay: str = "any"
) -> list[SceneEvent]:
    m = MANEUVERS[maneuver]
    if m.feral and (me.sheet.form or "").lower() not in ANIMAL_FORMS:
        raise Rejected(
            "not_animal_form", f"{m.title} is a feral maneuver: only in Lupus or Hispo form.", "bns:feral-maneuvers"
        )
    if round_ is not None and kept(me).maneuver_round == round_.key:
        raise Rejected("one_maneuver", f"{me.name} has used a combat maneuver this round.", "bns:maneuvers")
    title = m.title
    if pay == "any" and not m.feral and any((a.benefit, a.status) == ("maneuver", "accepted") for a in kept(me).aids):
        by = next(a.by for a in kept(me).aids if (a.benefit, a.status) == ("maneuver", "accepted"))
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
    free = _free_list(state, me, m.free) if pay == "any" else None
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


def offers(state: Scene, me: Character) -> list[ManeuverOffer]:
    """The maneuvers ``me`` could use now, each with what it would cost: none once one was used
    this round; feral ones only in animal form; Willpower ones only with Willpower left."""
    r = state.round
    if r is not None and r.phase == "acting" and kept(me).maneuver_round == r.key:
        return []
    animal = (me.sheet.form or "").lower() in ANIMAL_FORMS
    assisted = any((a.benefit, a.status) == ("maneuver", "accepted") for a in kept(me).aids)
    found = []
    for name, m in MANEUVERS.items():
        if m.feral and not animal:
            continue
        cost: Literal["assist", "free", "willpower"] = "willpower"
        if assisted and not m.feral:
            cost = "assist"
        elif _free_list(state, me, m.free) is not None:
            cost = "free"
        if cost == "willpower" and me.willpower < 1:
            continue
        found.append(ManeuverOffer(name=name, title=m.title, cost=cost, with_action=not m.attacks))
    return found


def _free_list(state: Scene, me: Character, lists: frozenset[str]) -> str | None:
    """The list of free maneuvers a use can come from, if any is unused this fight."""
    if options(state).free_maneuvers == "one" and kept(me).free_used:
        return None
    for name in sorted(lists):
        attribute = name.split()[-1]
        if rated(me, attribute) >= 4 and name not in kept(me).free_used:
            return name
    return None


def reduced(state: Scene, ch: Challenge, amount: int) -> int:
    """The damage left once the maneuvers' reductions are taken away (minimum 0)."""
    used = [MANEUVERS[name] for name in ch.maneuvers]
    if not used:
        return amount
    if any(m.plain_damage for m in used) and options(state).maneuver_damage == "none":
        return 0
    if "pierce_the_heart" in ch.maneuvers:
        target = state.characters.get(ch.targets[0]) if ch.targets else None
        if target is not None and (target.sheet.creature or "").lower() in SHAPESHIFTERS:
            amount += 1
    return max(0, amount - sum(m.reduction for m in used))


def maneuver_effects(state: Scene, ch: Challenge) -> list[SceneEvent]:
    """What the successful maneuvers leave on their target."""
    return [event for name in ch.maneuvers for event in _effect(state, ch, MANEUVERS[name])]


def _effect(state: Scene, ch: Challenge, m: Maneuver) -> list[SceneEvent]:
    if m.condition is None or not ch.targets:
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
