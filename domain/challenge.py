"""The challenge lifecycle every ruleset shares (PROTOCOL section 1, "The order of a contested
challenge"): who may do what, when. Where rule systems differ it asks the scene's ruleset.

declare → relent | bid → call_negative … (owed bids) → throw × 2 | record_test → reveal →
declare_traits on a tie → the retest window (retest → cancel_retest | pass → new test …) →
pass by the side behind → resolution: what is lost, and the winner's effect.
"""

from __future__ import annotations

from functools import partial

from domain.commands import (
    BidTraits,
    CallNegative,
    CancelRetest,
    ChallengeCommand,
    Declare,
    DeclareTraits,
    Pass,
    RecordTest,
    Relent,
    Retest,
    Roll,
    Throw,
    Withdraw,
)
from domain.context import Draft
from domain.effects import Damage, EscapeGrapple, Grapple, KnockDown
from domain.errors import Rejected
from domain.events import (
    BidPlaced,
    ChallengeDeclared,
    ChallengeResolved,
    ChallengeWithdrawn,
    DiceRolled,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    Leader,
    Passed,
    Relented,
    RetestCancelled,
    RetestInvoked,
    RetestStood,
    Role,
    SceneEvent,
    TestRevealed,
    ThrowSealed,
    TraitsDeclared,
)
from domain.pools import Pool
from domain.rules import ruleset_for
from domain.rules.base import Ruleset, Verdict
from domain.state import NARRATOR, Challenge, Scene, challenge_words
from domain.turns import spent

# -- the verbs -------------------------------------------------------------------------------


def declare(d: Draft, cmd: Declare) -> None:
    state = d.state
    if cmd.challenge in state.challenges:
        words = challenge_words(state, state.challenges[cmd.challenge])
        raise Rejected("challenge_exists", f"That challenge is already declared ({words}); a new one needs a new id.")
    who = cmd.character or cmd.actor
    if who == NARRATOR:
        raise Rejected("which_character", 'The Storyteller declares for a character: add "character".')
    may_act(d, who)
    present(state, who)
    for target in cmd.targets:
        present(state, target)
    rules = ruleset_for(state.ruleset)
    _in_kind(rules, bool(cmd.bid), cmd.pool is not None)
    declaration = rules.check_declare(state, cmd, who, d.ctx.now)
    d.add(
        ChallengeDeclared(
            challenge=cmd.challenge,
            kind=cmd.kind,
            challenger=who,
            targets=list(cmd.targets),
            category=cmd.category,
            victory=cmd.victory,
            effect=cmd.effect,
            bid=list(cmd.bid),
            difficulty=cmd.difficulty,
            require_win=cmd.require_win,
            power=cmd.power,
            defense=cmd.defense,
            lead=declaration.lead,
            round=declaration.round,
            uses_action=declaration.uses_action,
            surprise=cmd.surprise,
            ranged=cmd.ranged,
            darkness=cmd.darkness,
            immediate=cmd.immediate,
            pool=declaration.pool,
            unseen=cmd.unseen,
            range=cmd.range,
            maneuver=(names[0] if len(names := cmd.maneuvers) == 1 else names) or None,
            gate=declaration.gate,
        ),
        *declaration.then,
    )
    spent(d, who)  # a bns attack with the last action ends the turn


def bid(d: Draft, cmd: BidTraits) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    if ch.status == "awaiting_response":
        if role != "defender":
            raise _waiting_for(d.state, ch.defender.who, "to bid or relent")
        _in_kind(rules, bool(cmd.bid), cmd.pool is not None)
        if cmd.effect is not None and not rules.defender_victory:
            raise Rejected(
                "no_defender_effect",
                f"In {rules.name} a defender who wins only stops the challenge: leave out the effect.",
                rules.cites["adjudication"],
            )
        answer = rules.answer(d.state, ch, who, cmd)
        d.add(
            BidPlaced(
                challenge=ch.id,
                character=who,
                traits=cmd.bid,
                victory=cmd.victory,
                lead=answer.lead,
                pool=answer.pool,
                effect=cmd.effect,
            )
        )
    elif ch.status == "bidding" and ch.side(role).owed and cmd.effect is None:
        rules.check_owed_bid(d.state, ch, role, cmd.bid)
        d.add(BidPlaced(challenge=ch.id, character=who, traits=cmd.bid, owed=True))
    else:
        raise _wrong_phase(ch, "a bid")


def relent(d: Draft, cmd: Relent) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    if role != "defender":
        raise Rejected(
            "not_defender",
            "Only the defender relents; the challenger may withdraw before the defender answers.",
            rules.cites["relent"],
        )
    if ch.status not in ("awaiting_response", "bidding") or thrown(ch):
        raise Rejected("too_late", "It is too late to relent: the test has begun.", rules.cites["relent"])
    verdict = rules.relented(d.state, ch, who, cmd)
    d.add(Relented(challenge=ch.id, character=who, rule=rules.cites["relent"], pool=verdict.pool))
    resolve(d, ch.id, verdict, losses=False)


def withdraw(d: Draft, cmd: Withdraw) -> None:
    ch = open_challenge(d.state, cmd.challenge)
    cites = ruleset_for(d.state.ruleset).cites
    if d.actor != NARRATOR:
        who = cmd.character or d.actor
        may_act(d, who)
        if who != ch.challenger.who:
            raise Rejected("not_challenger", "Only the challenger withdraws a challenge.")
        if ch.status != "awaiting_response":
            raise Rejected(
                "too_late",
                "The defender has answered; the challenge goes on (a Narrator can still stop it).",
                cites["adjudication"],
            )
    d.add(ChallengeWithdrawn(challenge=ch.id, by=d.actor))


def call_negative(d: Draft, cmd: CallNegative) -> None:
    ch, _, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    if ch.status != "bidding" or thrown(ch):
        raise Rejected(
            "wrong_phase",
            "Negative Traits are called during the initial bid: after both sides have bid, before anyone throws.",
            rules.cites["negative_traits"],
        )
    d.add(rules.call_negative(d.state, ch, role, cmd.trait))


def throw(d: Draft, cmd: Throw) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    _signs_only(rules)
    _ready_to_throw(d.state, ch, rules)
    if ch.side(role).throw is not None:
        raise Rejected("already_thrown", f"{d.state.name_of(who)} has already thrown for this test.")
    sign, random = cmd.sign, cmd.sign == "random"
    if random:
        sign = d.choose(rules.random_signs())
    else:
        rules.check_sign(d.state, who, sign)
    d.add(ThrowSealed(challenge=ch.id, test=len(ch.tests) + 1, character=who, sign=sign, random=random))
    _settle(d, ch.id)


def record_test(d: Draft, cmd: RecordTest) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", "Only the Storyteller records a test seen at the table.")
    ch = open_challenge(d.state, cmd.challenge)
    rules = ruleset_for(d.state.ruleset)
    _signs_only(rules)
    _ready_to_throw(d.state, ch, rules)
    if ch.challenger.throw is not None or ch.defender.throw is not None:
        raise Rejected("throws_in", "A sealed throw is already in for this test; let both sides throw.")
    sides = {ch.challenger.who, ch.defender.who}
    if set(cmd.signs) != sides:
        raise Rejected("wrong_signs", f"Record one sign for each of: {', '.join(sorted(sides))}.")
    for who, sign in cmd.signs.items():
        if sign == "random":
            raise Rejected("unknown_sign", "Record the signs that were shown, not random.")
        rules.check_sign(d.state, who, sign)
    signs = {
        ch.challenger.who: cmd.signs[ch.challenger.who],
        ch.defender.who: cmd.signs[ch.defender.who],
    }
    d.add(
        TestRevealed(
            challenge=ch.id,
            test=len(ch.tests) + 1,
            signs=signs,
            result=rules.compare_signs(signs[ch.challenger.who], signs[ch.defender.who]),
            recorded_by=NARRATOR,
            rule=rules.cites["test"],
            pools=_pools_shown(ch),
        )
    )
    _settle(d, ch.id)


def roll(d: Draft, cmd: Roll) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    if rules.die is None:
        raise Rejected("no_dice", f"{rules.name} throws signs: send a throw.", rules.cites["test"])
    _ready_to_throw(d.state, ch, rules)
    if who == NARRATOR:
        raise Rejected("narrator_rolls", "The Narrator rolls no dice: its side is the difficulty.", rules.cites["test"])
    if ch.side(role).rolled is not None:
        raise Rejected("already_rolled", f"{d.state.name_of(who)} has already rolled for this test.")
    dice = rules.dice(d.state, ch, role, cmd.retests)
    size = rules.die.size
    for face in [*(cmd.values or ()), *(cmd.rerolls or ())]:
        if face > size:
            raise Rejected("malformed", f"A d{size} shows 1 to {size}: {face} is not one of its faces.")
    if cmd.values is None:
        values = [d.die(size) for _ in range(dice.count)]
    else:
        rules.check_entered(d.state, d.actor, who)
        if len(cmd.values) != dice.count:
            raise Rejected(
                "wrong_dice",
                f"{d.state.name_of(who)} rolls {dice.count} d{size}s ({dice.why}); enter {dice.count} values.",
                rules.cites["test"],
            )
        values = list(cmd.values)
    d.add(
        DiceRolled(
            challenge=ch.id,
            test=len(ch.tests) + 1,
            character=who,
            dice=values,
            retests=list(cmd.retests),
            why=dice.why,
            entered_by=d.actor if cmd.values is not None else None,
        )
    )
    _settle(d, ch.id, rerolls=cmd.rerolls)


def declare_traits(d: Draft, cmd: DeclareTraits) -> None:
    ch, who, role = acting(d, cmd)
    if ch.status != "tie_declaring" or ch.test is None:
        raise _wrong_phase(ch, "a Trait declaration")
    side = ch.side(role)
    if side.who == NARRATOR:
        raise Rejected("narrator_count", "The Narrator's count is the difficulty; it needs no declaration.")
    if side.declared is not None:
        raise Rejected("already_declared", f"{d.state.name_of(who)} has already declared {side.declared}.")
    rules = ruleset_for(d.state.ruleset)
    first = ch.declaring_first or "challenger"
    if role != first and ch.side(first).declared is None and ch.side(first).who != NARRATOR:
        rule = rules.cites["declare_first" if ch.declaring == "tie" else "overbid_first"]
        raise Rejected("not_your_turn", f"{d.state.name_of(ch.side(first).who)} declares first.", rule)
    most = rules.max_declare(d.state, ch, role)
    if cmd.count > most:
        category = (side.category or ch.category).capitalize()
        raise Rejected(
            "over_declared",
            f"{d.state.name_of(who)} has only {most} {category} Traits available tonight; declare "
            f"{most} or fewer (fewer keeps your strength secret).",
            rules.cites["declare_fewer"],
        )
    d.add(
        TraitsDeclared(
            challenge=ch.id,
            test=ch.test.number,
            character=who,
            count=cmd.count,
            purpose=ch.declaring or "tie",
        )
    )
    _settle(d, ch.id)


def retest(d: Draft, cmd: Retest) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    if ch.status != "retest_window":
        raise _wrong_phase(ch, "a retest")
    if ch.pending_retest is not None:
        raise Rejected(
            "retest_pending",
            "A retest is waiting to be cancelled or let stand.",
            rules.cites["cancel"],
        )
    if role not in ch.losing_roles():
        raise Rejected(
            "not_losing",
            f"{d.state.name_of(who)} is winning this test; only "
            f"{d.state.name_of(ch.side(ch.other(role)).who)} may retest.",
            rules.cites["retest"],
        )
    costs = rules.check_retest(d.state, ch, role, cmd.source)
    d.add(
        RetestInvoked(challenge=ch.id, character=who, source=cmd.source, rule=rules.cites["retest"]),
        *costs,
    )
    _settle(d, ch.id)


def cancel_retest(d: Draft, cmd: CancelRetest) -> None:
    ch, who, role = acting(d, cmd)
    rules = ruleset_for(d.state.ruleset)
    cite = rules.cites["cancel"]
    pending = ch.pending_retest
    if ch.status != "retest_window" or pending is None:
        raise Rejected("nothing_to_cancel", "There is no retest waiting to be cancelled.", cite)
    if pending.role == role:
        raise Rejected("own_retest", "A side cannot cancel its own retest.", cite)
    costs = rules.check_cancel(d.state, ch, role, pending, cmd.source)
    d.add(RetestCancelled(challenge=ch.id, character=who, source=cmd.source, rule=cite), *costs)
    _settle(d, ch.id)


def pass_(d: Draft, cmd: Pass) -> None:
    ch, who, role = acting(d, cmd)
    cites = ruleset_for(d.state.ruleset).cites
    if ch.status != "retest_window":
        raise _wrong_phase(ch, "a pass")
    pending = ch.pending_retest
    if pending is not None and pending.role == role:
        raise Rejected(
            "retest_pending",
            f"Your retest waits for {d.state.name_of(ch.side(ch.other(role)).who)} to cancel it or let it stand.",
            cites["cancel"],
        )
    if pending is None:
        if role not in ch.losing_roles():
            raise Rejected(
                "not_losing",
                f"{d.state.name_of(who)} is winning; there is nothing to pass. "
                f"{d.state.name_of(ch.side(ch.other(role)).who)} may retest or pass.",
                cites["retest"],
            )
        if ch.side(role).passed:
            raise Rejected("already_passed", f"{d.state.name_of(who)} has already passed.")
    d.add(Passed(challenge=ch.id, character=who))
    _settle(d, ch.id)


# -- what happens by itself --------------------------------------------------------------------


def _settle(d: Draft, cid: str, *, rerolls: list[int] | None = None) -> None:
    """Take every step that needs nobody's decision: reveal, compare, resolve."""
    rules = ruleset_for(d.ruleset)
    size = rules.die.size if rules.die else 0
    if d.ctx.verdict and not rules.settling_refuses:
        return  # a probe has its verdict: nothing from here on can refuse the move
    while True:
        ch = d.state.challenges[cid]
        test = ch.test
        if ch.status == "throwing" and ch.challenger.rolled and (ch.defender.rolled or ch.defender.who == NARRATOR):
            d.add(rules.reveal(d.state, ch, partial(d.die, size), rerolls), *rules.spent(d.state, ch))
        elif ch.status == "throwing" and ch.challenger.throw and ch.defender.throw:
            signs = {ch.challenger.who: ch.challenger.throw, ch.defender.who: ch.defender.throw}
            result = rules.compare_signs(ch.challenger.throw, ch.defender.throw)
            d.add(
                TestRevealed(
                    challenge=cid,
                    test=len(ch.tests) + 1,
                    signs=signs,
                    result=result,
                    rule=rules.cites["test"],
                    pools=_pools_shown(ch),
                )
            )
        elif ch.status == "throwing" and test is not None and test.leader is None:
            d.add(rules.after_reveal(d.state, ch))
        elif ch.status == "retest_window" and ch.pending_retest and rules.stands(ch.pending_retest.source):
            d.add(RetestStood(challenge=cid, rule=rules.cites["retest"]))
        elif ch.status == "tie_declaring" and all(
            ch.side(role).declared is not None or ch.side(role).who == NARRATOR for role in ("challenger", "defender")
        ):
            d.add(*rules.settle_declarations(d.state, ch))
        elif (
            ch.status == "retest_window"
            and ch.pending_retest is None
            and (not rules.may_retest(d.state, ch) or all(ch.side(role).passed for role in ch.losing_roles()))
        ):
            forced = rules.before_resolution(d.state, ch)
            if forced:  # a retest the rules force before the outcome (darkness)
                d.add(*forced)
                continue
            resolve(d, cid, rules.outcome(d.state, ch))
        else:
            return


def resolve(d: Draft, cid: str, verdict: Verdict, *, losses: bool = True) -> None:
    """End the challenge with ``verdict``: the outcome, the losses, what the ruleset settles, the
    winning effect. ``domain.stakes`` runs this same function on a thrown-away draft to say what
    winning will do before the test."""
    rules = ruleset_for(d.state.ruleset)
    ch = d.state.challenges[cid]
    winner, why = verdict.winner, verdict.why
    wait = rules.wait(d.state, ch, winner, d.ctx.now)
    choosing = winner == "challenger" and bool(ch.challenger.helpers)
    if choosing:
        why += f" {d.state.name_of(ch.challenger.who)} now chooses whose victory condition applies."
    d.add(
        ChallengeResolved(
            challenge=cid,
            winner=winner,
            exceptional=verdict.exceptional,
            critical=verdict.critical,
            why=why,
            rule=verdict.rule,
            wait_key=wait[0] if wait else None,
            wait_until=wait[1] if wait else None,
        )
    )
    if losses:
        d.add(*rules.losses(d.state, ch, winner))
    d.add(*rules.settled(d.state, ch, winner))
    if not choosing:
        d.add(*effects(d.state, d.state.challenges[cid], winner))


def effects(state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
    """The winning victory condition, applied to each target (PROTOCOL section 4): the challenger's,
    or, for a mob, the one its champion chose; or, where the ruleset says so, a winning defender's
    own, applied to the challenger (kony:resolution)."""
    rules = ruleset_for(state.ruleset)
    if winner == "challenger":
        attacker, targets = ch.challenger.member(ch.chosen or ch.challenger.who), ch.targets
    elif winner == "defender" and rules.defender_victory and ch.defender.effect is not None:
        attacker, targets = ch.defender.member(ch.defender.who), (ch.challenger.who,)
    else:
        return []
    me, effect = attacker.who, attacker.effect
    events: list[SceneEvent] = []
    for target in targets:
        match effect:
            case Damage():
                dealt = rules.damage(state, ch, attacker, effect)
                if dealt.amount > 0:  # all of it taken away (a maneuver's reduction): nothing happens
                    events.extend(rules.wounds(state, ch, target, dealt))
            case Grapple():
                events.append(GrappleStarted(grappler=me, victim=target, challenge=ch.id))
            case KnockDown():
                events.append(KnockedDown(character=target, challenge=ch.id))
    if isinstance(effect, EscapeGrapple):  # beating one grappler frees from them all (bns:grapple-several)
        holders = [c.id for c in state.roster() if me in c.conditions.grappling]
        events.extend(GrappleBroken(grappler=holder, victim=me, challenge=ch.id) for holder in holders)
    return events


# -- checks shared by the verbs ----------------------------------------------------------------


def open_challenge(state: Scene, cid: str) -> Challenge:
    ch = state.challenges.get(cid)
    if ch is None:
        raise no_challenge(cid)
    if ch.status == "resolved":
        why = ch.outcome.why if ch.outcome else ""
        raise Rejected("already_resolved", f"{challenge_words(state, ch)} is already over. {why}".strip())
    if ch.status == "withdrawn":
        raise Rejected("withdrawn", f"{challenge_words(state, ch)} was withdrawn.")
    return ch


def no_challenge(cid: str) -> Rejected:
    """The refusal for a challenge the scene never had: its id is all there is to name it by."""
    return Rejected("unknown_challenge", f"No challenge “{cid}” was declared in this scene.")


def may_act(d: Draft, who: str) -> None:
    if d.actor != NARRATOR and d.actor != who:
        raise Rejected("forbidden", f"{d.state.name_of(d.actor)} cannot act for {d.state.name_of(who)}.")


def present(state: Scene, who: str) -> None:
    character = state.characters.get(who)
    if character is None:
        raise Rejected("unknown_character", f"No character “{who}” is in this scene.")
    if not character.present:
        raise Rejected("character_removed", f"{character.name} has left the scene.")


def acting(d: Draft, cmd: ChallengeCommand) -> tuple[Challenge, str, Role]:
    """The open challenge, and the side the command acts for."""
    ch = open_challenge(d.state, cmd.challenge)
    who = cmd.character or (d.actor if d.actor != NARRATOR else None)
    if who is None:
        stood_in = [
            side.who for side in (ch.challenger, ch.defender) if side.who == NARRATOR or _is_npc(d.state, side.who)
        ]
        if len(stood_in) != 1:
            raise Rejected("which_character", 'Say which side the Storyteller acts for: add "character".')
        who = stood_in[0]
    may_act(d, who)
    role = ch.role_of(who)
    if role is None:
        raise Rejected("not_in_challenge", f"{d.state.name_of(who)} is not part of {challenge_words(d.state, ch)}.")
    return ch, who, role


def _is_npc(state: Scene, who: str) -> bool:
    character = state.characters.get(who)
    return character is not None and character.sheet.npc


def _pools_shown(ch: Challenge) -> dict[str, Pool]:
    """Each side's test pool, shown with the first test (hidden from the other side until then)."""
    if ch.tests:
        return {}
    return {side.who: side.pool for side in (ch.challenger, ch.defender) if side.pool is not None}


def thrown(ch: Challenge) -> bool:
    """Whether the first test has begun (a throw is in, or a test was shown)."""
    return bool(ch.tests) or ch.challenger.throw is not None or ch.defender.throw is not None


def _ready_to_throw(state: Scene, ch: Challenge, rules: Ruleset) -> None:
    if ch.status not in ("bidding", "throwing"):
        raise _wrong_phase(ch, "a throw")
    for side in (ch.challenger, ch.defender):
        if side.owed:
            raise Rejected(
                "bids_owed",
                f"{state.name_of(side.who)} must first bid {side.owed} more Trait(s) for the Negative Trait call.",
                rules.cites["negative_traits"],
            )


_PHASES = {
    "awaiting_response": "the defender has not answered yet",
    "bidding": "both sides have bid; next they throw",
    "throwing": "the test is being thrown",
    "tie_declaring": "the sides are declaring their Traits",
    "retest_window": "the test is in; the side behind may retest or pass",
}


def _signs_only(rules: Ruleset) -> None:
    if rules.die is not None:
        raise Rejected(
            "roll_dice",
            f"{rules.name} rolls d{rules.die.size}s instead of throwing signs: send a roll (the ST enters dice rolled"
            " by hand).",
            rules.cites["test"],
        )


def _in_kind(rules: Ruleset, bid: bool, pool: bool) -> None:
    """Traits for a ruleset that bids them, a pool for one that plays pools."""
    if pool and rules.stakes != "pools":
        raise Rejected("no_pools", f"{rules.name} bids Traits, not test pools: send a bid.")
    if bid and rules.stakes == "pools":
        raise Rejected("no_traits", f"{rules.name} plays test pools, not Traits: send a pool.", rules.cites["pools"])


def _wrong_phase(ch: Challenge, what: str) -> Rejected:
    return Rejected("wrong_phase", f"This is not the moment for {what}: {_PHASES.get(ch.status, ch.status)}.")


def _waiting_for(state: Scene, who: str, what: str) -> Rejected:
    return Rejected("not_your_turn", f"The challenge waits for {state.name_of(who)} {what}.")
