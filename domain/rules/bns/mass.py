"""bns mass combat tactics (bns:mass-combat): Assist Attacker, offered and answered, and Assist
Defender, a shield that becomes the attack's target."""

from __future__ import annotations

from domain.commands import Assist
from domain.errors import Rejected
from domain.events import (
    ActionTaken,
    AssistAnswered,
    AssistOffered,
    SceneEvent,
)
from domain.rules.bns.state import kept
from domain.rules.bns.turn import awake, check_turn, holders, released, spend, turn_of
from domain.state import Character, RoundState, Scene


def assist(state: Scene, who: str, cmd: Assist) -> list[SceneEvent]:
    me = state.characters[who]
    r = turn_of(state)
    awake(me, state.last_at)
    if cmd.kind == "defender":
        return _shield(state, me, cmd, r)
    if cmd.to is None or cmd.benefit is None:
        raise Rejected("assist_parts", "Say whom you assist (`to`) and how (`benefit`).", "bns:assist-attacker")
    if cmd.to == who or cmd.to not in state.characters:
        raise Rejected("assist_whom", "Assist another character in the scene.", "bns:assist-attacker")
    check_turn(state, me)
    spend(me, "standard", "bns:assist-attacker")
    them = state.characters[cmd.to]
    if any(a.by == who and a.status == "refused" for a in kept(them).aids):
        raise Rejected(
            "refused", f"{them.name} refused {me.name}'s assistance: not again this round.", "bns:assist-attacker"
        )
    if any(a.by == who and a.status == "offered" for a in kept(them).aids):
        raise Rejected("already_offered", f"{me.name} is waiting for {them.name}'s answer.", "bns:assist-attacker")
    if cmd.benefit == "maneuver" and any(a.benefit == "maneuver" and a.status == "accepted" for a in kept(them).aids):
        raise Rejected(
            "once_a_round", f"{them.name} already has a free maneuver from an assist this round.", "bns:assist-attacker"
        )
    offer = "a free combat maneuver" if cmd.benefit == "maneuver" else "+1 on a physical attack"
    let_go = released(state, me, f"helps {them.name}") if cmd.to not in me.conditions.grappling else []
    return [
        *let_go,
        AssistOffered(
            character=who,
            kind="attacker",
            to=cmd.to,
            benefit=cmd.benefit,
            how=cmd.how,
            why=f"{me.name} offers to assist {them.name}'s attack: {offer}.",
            rule="bns:assist-attacker",
        ),
    ]


def answer_assist(state: Scene, who: str, offer: int, accept: bool) -> list[SceneEvent]:
    me = state.characters[who]
    aid = next((a for a in kept(me).aids if a.offer == offer and a.status == "offered"), None)
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
    if kept(helper_c).budget.get("standard", 0) < 1:
        raise Rejected("no_action_left", f"{helper} has no standard action left to assist with.", "bns:assist-attacker")
    spent = ActionTaken(
        character=aid.by, spent="standard", why=f"{helper} assists {me.name}.", rule="bns:assist-attacker"
    )
    return [answered, spent]


def _shield(state: Scene, me: Character, cmd: Assist, r: RoundState) -> list[SceneEvent]:
    rule = "bns:assist-defender"
    ch = state.challenges.get(cmd.challenge or "")
    awake(me, state.last_at)
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
    if kept(me).shielded == r.number:
        raise Rejected("once_a_round", f"{me.name} has shielded someone this round already.", rule)
    if me.conditions.prone or me.conditions.grappled_by or holders(state, me.id):
        raise Rejected("cannot_move", f"{me.name} is prone or grappled and cannot move to shield anyone.", rule)
    spend(me, "simple", rule)
    attacker, was = state.name_of(ch.challenger.who), state.name_of(ch.defender.who)
    return [
        *released(state, me, "moves to shield another"),
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
