"""bns combat rounds (docs/rules/bns-complex-scenarios-combat.txt): initiative and its ties, the
standard and simple action, movement, Rage rounds, fair escapes held across the round, prone and
range, combat maneuvers, grapples and mass combat. Each test names the rule it holds the engine to,
and each reading the documents leave open is played both ways through ``options.bns``."""

from __future__ import annotations

from typing import Any

import pytest

from domain.events import (
    ActionTaken,
    ConditionCleared,
    ConditionSet,
    DamageTaken,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    GrappleBroken,
    GrappleStarted,
    InitiativeSet,
    ManeuverUsed,
    WillpowerSpent,
)
from domain.rules.bns.rounds import TIE_TESTS
from domain.rules.catalog import SIGNS
from tests.table import Table, entropy_for, types


def nine(strength: int, dexterity: int, stamina: int, wits: int, **rest: int) -> dict[str, int]:
    return {
        "strength": strength,
        "dexterity": dexterity,
        "stamina": stamina,
        "charisma": 2,
        "manipulation": 2,
        "composure": 2,
        "intelligence": 2,
        "wits": wits,
        "resolve": 2,
        **rest,
    }


EDWARD: dict[str, Any] = {
    "id": "edward",
    "name": "Edward",
    "willpower": 4,
    "attributes": nine(3, 3, 2, 3),
    "skills": {"brawl": 2, "melee": 2, "dodge": 2, "athletics": 2, "archery": 2},
    "weapons": [{"name": "Knife", "kind": "melee", "bonus": 1}, {"name": "Bow", "kind": "archery", "range": 30}],
}
JULIAN: dict[str, Any] = {
    "id": "julian",
    "name": "Julian",
    "willpower": 3,
    "creature": "vampire",
    "attributes": nine(2, 2, 2, 4),
    "skills": {"brawl": 1, "dodge": 3},
}
MOOK: dict[str, Any] = {
    "id": "mook",
    "name": "Mook",
    "npc": True,
    "willpower": 2,
    "creature": "human",
    "attributes": nine(4, 3, 4, 3),
    "skills": {"brawl": 3},
}
WOLF: dict[str, Any] = {
    "id": "wolf",
    "name": "Grey Wolf",
    "npc": True,
    "willpower": 2,
    "creature": "werewolf",
    "form": "lupus",
    "attributes": nine(4, 4, 3, 1),
    "skills": {"brawl": 3},
}
PUNCH = {"kind": "damage", "amount": 1, "type": "bashing"}
DODGE = {"defense": "dodge"}
ROCK, PAPER, SCISSORS = (SIGNS.index(s) for s in ("rock", "paper", "scissors"))
EDWARD_FIRST = entropy_for(ROCK, SCISSORS)
"""The server's draws for the Edward-Mook tie: Edward rock, Mook scissors."""


def fight(entropy: int = EDWARD_FIRST, rage: dict[str, int] | None = None, **options: Any) -> Table:
    """Julian (6, Wits 4), then Edward and Mook (6, Wits 3, Dexterity 3: a test), then the wolf (5)."""
    t = Table("bns", {"bns": {"relent_exceptional": False, **options}})  # a relent: a plain success
    for sheet in (EDWARD, JULIAN, MOOK, WOLF):
        t.do("st", "add_character", character=sheet)
    t.entropy = entropy
    t.do("st", "start_round", rage=rage or {})
    t.entropy = 0
    return t


def turn(t: Table) -> list[str]:
    r = t.state.round
    assert r is not None
    return list(r.turn)


def act(t: Table, who: str, kind: str, **action: Any) -> list[Any]:
    return t.do(
        "st" if t.character(who).sheet.npc else who, "declare_action", character=who, action={"kind": kind, **action}
    )


def attack(t: Table, who: str, target: str, cid: str = "hit", attack_kind: str = "unarmed", **fields: Any) -> list[Any]:
    actor = "st" if t.character(who).sheet.npc else who
    pool = fields.pop("pool", {"attack": attack_kind})
    return t.do(
        actor,
        "declare",
        character=who,
        challenge=cid,
        kind="contested",
        targets=[target],
        category="physical",
        victory="hurt them",
        effect=fields.pop("effect", PUNCH),
        pool=pool,
        **fields,
    )


def refused_attack(t: Table, who: str, target: str, **fields: Any) -> Any:
    """A physical attack ``who`` declares on ``target`` (unarmed unless a ``pool`` is given), refused
    with ``code`` (and ``rule``)."""
    actor = "st" if t.character(who).sheet.npc else who
    pool = fields.pop("pool", {"attack": "unarmed"})
    challenge = fields.pop("challenge", "x")
    return t.refused(
        actor,
        "declare",
        character=who,
        challenge=challenge,
        kind="contested",
        targets=[target],
        category="physical",
        pool=pool,
        **fields,
    )


def give_in(t: Table, target: str, cid: str = "hit") -> list[Any]:
    """The target relents (dodging, as it would have): the attack succeeds without a test."""
    actor = "st" if t.character(target).sheet.npc else target
    return t.do(actor, "relent", character=target, challenge=cid, pool=DODGE)


def done(t: Table, who: str) -> None:
    t.do("st", "end_turn", character=who)


class TestInitiative:
    def test_dexterity_plus_wits_ties_by_wits_then_a_test(self) -> None:
        """bns:initiative: Dex + Wits. bns:initiative-ties: Julian's higher Wits goes first; Edward and
        Mook tie on Wits and Dexterity and throw, the server's signs recorded."""
        t = fight()
        order = next(r.event for r in t.log if isinstance(r.event, InitiativeSet))
        assert order.order == [["julian"], ["edward"], ["mook"], ["wolf"]]
        assert order.values == {"edward": 6, "julian": 6, "mook": 6, "wolf": 5}
        assert order.rule == "bns:initiative-ties"
        assert [(x.between, x.signs, x.first) for x in order.tests] == [
            (["edward", "mook"], [{"edward": "rock", "mook": "scissors"}], "edward")
        ]
        assert turn(t) == ["julian"]

    def test_a_tie_retests_until_one_wins(self) -> None:
        """bns:initiative-ties: "retest on ties"."""
        t = fight(entropy=entropy_for(ROCK, ROCK, PAPER, ROCK))
        test = next(r.event for r in t.log if isinstance(r.event, InitiativeSet)).tests[0]
        assert len(test.signs) == 2 and test.first == "edward"

    def test_three_tied_the_one_who_beats_each_other_goes_first(self) -> None:
        """bns:initiative-ties, three tied: the winner of Edward and Mook's test throws against the
        twin, and whoever wins goes first; then the other two throw again."""
        t = Table("bns", {"bns": {"relent_exceptional": False}})
        for sheet in (EDWARD, JULIAN, MOOK, WOLF, {**EDWARD, "id": "twin", "name": "The twin"}):
            t.do("st", "add_character", character=sheet)
        t.entropy = entropy_for(ROCK, SCISSORS, SCISSORS, ROCK, PAPER, ROCK)
        t.do("st", "start_round")
        order = next(r.event for r in t.log if isinstance(r.event, InitiativeSet))
        assert order.order == [["julian"], ["twin"], ["edward"], ["mook"], ["wolf"]]
        assert [(x.between, x.first) for x in order.tests] == [
            (["edward", "mook"], "edward"),
            (["edward", "twin"], "twin"),
            (["edward", "mook"], "edward"),
        ]

    def test_the_table_throws_and_the_storyteller_orders(self) -> None:
        """bns:initiative-ties, AMB: option initiative_tests=table leaves the tie to the ST."""
        t = fight(initiative_tests="table")
        r = t.state.round
        assert r is not None and r.order == (("julian",), ("edward", "mook"), ("wolf",))
        done(t, "julian")
        assert turn(t) == ["edward", "mook"]  # tied, until the ST orders them
        t.do("st", "order", characters=["mook", "edward"])
        r = t.state.round
        assert r is not None and r.order[1:3] == (("mook",), ("edward",)) and r.turn == ("mook",)
        done(t, "mook")
        assert turn(t) == ["edward"]

    def test_throws_that_run_out_leave_the_tie_to_the_storyteller(self) -> None:
        t = fight(entropy=entropy_for(*(ROCK,) * 2 * TIE_TESTS))  # rock against rock, every time
        r = t.state.round
        assert r is not None and r.order[1] == ("edward", "mook")
        assert (
            "The Storyteller orders the tie" in next(x.event for x in t.log if isinstance(x.event, InitiativeSet)).why
        )


class TestActions:
    def test_a_standard_and_a_simple_action_on_ones_turn(self) -> None:
        """bns:round: up to two actions, one standard and one simple, in initiative order;
        bns:standard-action: a challenge is a standard action; bns:simple-action: drawing a weapon."""
        t = fight()
        t.refused(
            "st", "declare_action", character="mook", action={"kind": "draw"}, code="not_your_turn", rule="bns:round"
        )
        attack(t, "julian", "mook")
        assert t.character("julian").budget == {"standard": 0, "simple": 1}
        t.refused(
            "julian",
            "declare_action",
            action={"kind": "advanced_move", "steps": 2},
            code="no_action_left",
            rule="bns:advanced-movement",
        )
        act(t, "julian", "draw", item="stake")
        assert turn(t) == ["edward"]  # Julian's actions are spent: the turn passes

    def test_a_standard_action_traded_for_a_simple_one_never_back(self) -> None:
        """bns:standard-action: forgo the standard action for another simple one, never the reverse."""
        t = fight()
        act(t, "julian", "trade")
        assert t.character("julian").budget == {"standard": 0, "simple": 2}
        e = refused_attack(t, "julian", "mook", code="no_action_left", rule="bns:standard-action")
        assert "cannot be traded for a standard one" in e.message

    def test_movement_three_steps_an_action_six_with_both(self) -> None:
        """bns:movement: three steps a simple or standard action; six with both."""
        t = fight()
        t.refused("julian", "declare_action", action={"kind": "move", "steps": 4}, code="too_far", rule="bns:movement")
        act(t, "julian", "move", steps=3)
        act(t, "julian", "move", steps=3, using="standard")
        assert t.character("julian").conditions.moved_steps == 6

    def test_advanced_movement_and_blocking(self) -> None:
        """bns:advanced-movement: climbing takes the standard action. bns:blocking: the ST's call,
        recorded."""
        t = fight()
        events = act(t, "julian", "advanced_move", steps=3, what="climbs the fence")
        assert events[0].spent == "standard" and events[0].rule == "bns:advanced-movement"
        events = act(t, "julian", "move", steps=1, blocked_by="mook")
        assert events[0].rule == "bns:blocking" and "blocked by Mook (the Storyteller's call)" in events[0].why

    def test_rage_rounds_after_the_universal_round(self) -> None:
        """bns:rage-rounds: extra actions in Rage rounds after the universal round, in initiative
        order, each with a standard and a simple action."""
        t = fight(rage={"wolf": 1, "edward": 1})
        for who in ("julian", "edward", "mook", "wolf"):
            done(t, who)
        r = t.state.round
        assert r is not None and r.turn_phase == "extra" and r.turn == ("edward",)
        assert t.character("edward").budget == {"standard": 1, "simple": 1}
        done(t, "edward")
        assert t.state.round is not None and t.state.round.turn == ("wolf",)
        attack(t, "wolf", "julian", attack_kind="bite", effect={"kind": "damage", "amount": 1, "type": "lethal"})
        assert t.character("wolf").budget["standard"] == 0


def test_rage_rounds_from_the_sheet() -> None:
    """bns:rage-rounds, AMB: the sheet's `rage_rounds`, unless the ST rules otherwise at `start_round`."""
    t = Table("bns", {"bns": {"relent_exceptional": False}})
    for sheet in (EDWARD, {**JULIAN, "rage_rounds": 1}, MOOK, WOLF):
        t.do("st", "add_character", character=sheet)
    t.do("st", "start_round")
    assert t.character("julian").rage == 1 and t.character("edward").rage == 0
    t.do("st", "end_round")
    t.do("st", "start_round", rage={"julian": 0, "edward": 2})
    assert t.character("julian").rage == 0 and t.character("edward").rage == 2


class TestProne:
    def test_drop_crawl_stand(self) -> None:
        """bns:prone: a simple action to drop; crawl one step, or stand and move one."""
        t = fight()
        act(t, "julian", "prone")
        assert t.character("julian").conditions.prone
        t.refused("julian", "declare_action", action={"kind": "move", "steps": 1}, code="prone", rule="bns:prone")
        done(t, "julian")
        for who in ("edward", "mook", "wolf"):
            done(t, who)
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.refused("julian", "declare_action", action={"kind": "crawl", "steps": 2}, code="too_far", rule="bns:prone")
        act(t, "julian", "crawl", steps=1)
        act(t, "julian", "trade")
        act(t, "julian", "stand", steps=1)
        assert not t.character("julian").conditions.prone

    def test_prone_defence_near_and_far(self) -> None:
        """bns:prone-defense: +2 against a ranged attack from more than three steps, -2 against an
        attack from within three; the range must be declared."""
        t = fight()
        act(t, "julian", "prone")
        done(t, "julian")
        refused_attack(
            t,
            "edward",
            "julian",
            challenge="arrow",
            pool={"attack": "archery", "weapon": "Bow"},
            code="range_required",
            rule="bns:prone-defense",
        )
        attack(t, "edward", "julian", "arrow", pool={"attack": "archery", "weapon": "Bow"}, range=8)
        t.do("julian", "bid", challenge="arrow", pool=DODGE)
        pool = t.challenge("arrow").defender.pool
        assert pool is not None and pool.total == 2 + 3 + 2 and pool.modifiers[0].rule == "bns:prone-defense"
        t.do("st", "withdraw", challenge="arrow")
        done(t, "edward")
        attack(t, "mook", "julian", "kick", range=1)
        t.do("julian", "bid", challenge="kick", pool=DODGE)
        pool = t.challenge("kick").defender.pool
        assert pool is not None and pool.total == 2 + 3 - 2

    def test_reach(self) -> None:
        """bns:unarmed: within two steps; bns:thrown: ten; bns:lunging-attack: two more."""
        t = fight()
        refused_attack(t, "julian", "mook", range=3, code="out_of_reach", rule="bns:unarmed")
        t.do(
            "julian",
            "declare",
            challenge="x",
            kind="contested",
            targets=["mook"],
            category="physical",
            pool={"attack": "unarmed"},
            range=4,
            maneuver="lunging_attack",
        )
        assert t.challenge("x").range == 4


class TestFairEscape:
    def test_held_by_an_intent_then_failed_by_the_attack(self) -> None:
        """bns:fair-escape-declare: first thing on one's turn. bns:fair-escape-intent: those who have
        not acted may announce an attack. bns:fair-escape-hold: the attack fails it; then the escaper acts."""
        t = fight()
        done(t, "julian")
        act(t, "edward", "fair_escape")
        assert t.character("edward").conditions.fair_escape == "declared"
        t.refused("julian", "intend_attack", target="edward", code="already_acted", rule="bns:fair-escape-intent")
        t.do("st", "intend_attack", character="mook", target="edward")
        t.refused("edward", "declare_action", action={"kind": "draw"}, code="escaping", rule="bns:fair-escape-hold")
        done(t, "edward")
        held = t.log[-2].event
        assert isinstance(held, FairEscapeHeld) and held.by == ["mook"]
        assert t.character("edward").conditions.fair_escape == "held"
        attack(t, "mook", "edward")
        failed = next(r.event for r in t.log if isinstance(r.event, FairEscapeFailed))
        assert failed.challenge == "hit" and t.character("edward").conditions.fair_escape == "failed"
        act(t, "edward", "draw", item="knife")  # right after the attack that failed it, with its actions
        assert t.character("edward").budget["simple"] == 0

    def test_nobody_intends_escaped_at_once_and_out_of_reach(self) -> None:
        """bns:fair-escape-intent: "If no one declares intent to attack, you fair escape immediately."
        The escaped cannot be targeted, and leave the order."""
        t = fight()
        act(t, "julian", "fair_escape")
        done(t, "julian")
        assert isinstance(t.log[-2].event, FairEscapeSucceeded)
        assert turn(t) == ["edward"]
        refused_attack(t, "edward", "julian", code="escaped", rule="bns:fair-escape-hold")
        for who in ("edward", "mook", "wolf"):
            done(t, who)
        t.do("st", "end_round")
        t.do("st", "start_round")
        assert t.character("julian").conditions.fair_escape == "escaped"
        assert all("julian" not in g for g in t.state.round.order)  # type: ignore[union-attr]

    def test_the_storyteller_brings_the_escaped_back(self) -> None:
        """bns:fair-escape-hold: the escaped stay out of the fight until a new fight, or until the ST
        clears ``escaped`` (``adjust``): a target again at once, and in the next round's order."""
        t = fight()
        act(t, "julian", "fair_escape")
        done(t, "julian")
        refused_attack(t, "edward", "julian", code="escaped", rule="bns:fair-escape-hold")
        cleared = t.do("st", "adjust", character="julian", changes={"clear_conditions": ["escaped"]},
                       reason="Julian comes back in")[-1]  # fmt: skip
        assert cleared.type_name() == "condition_cleared" and t.character("julian").conditions.fair_escape is None
        attack(t, "edward", "julian")
        give_in(t, "julian")
        assert t.character("julian").wounds.bashing == 1
        for who in ("edward", "mook", "wolf"):
            done(t, who)
        t.do("st", "end_round")
        t.do("st", "start_round")
        assert any("julian" in g for g in t.state.round.order)  # type: ignore[union-attr]

    def test_the_last_to_act_escapes_automatically(self) -> None:
        """bns:fair-escape-automatic: nobody can still attack this round."""
        t = fight()
        for who in ("julian", "edward", "mook"):
            done(t, who)
        events = act(t, "wolf", "fair_escape")
        succeeded = next(e for e in events if isinstance(e, FairEscapeSucceeded))
        assert succeeded.rule == "bns:fair-escape-automatic"
        assert types(events)[-1] == "turn_ended"  # gone: its turn ends with it

    def test_no_way_out_grappled_or_ruled(self) -> None:
        """bns:fair-escape-no-exit: grappled, or the ST's no_exit: declared, then failed."""
        t = fight()
        t.do("st", "adjust", character="julian", changes={"set_conditions": ["no_exit"]}, reason="a locked room")
        events = act(t, "julian", "fair_escape")
        assert types(events) == ["fair_escape_declared", "fair_escape_failed"]
        assert events[1].rule == "bns:fair-escape-no-exit"

    def test_attacked_before_ones_initiative(self) -> None:
        """bns:fair-escape-blocked: attacked before one's initiative, the escape fails even if it missed."""
        t = fight()
        attack(t, "julian", "edward")
        t.do("edward", "bid", challenge="hit", pool=DODGE)
        t.do("st", "withdraw", challenge="hit")
        done(t, "julian")
        events = act(t, "edward", "fair_escape")
        assert events[-1].rule == "bns:fair-escape-blocked"

    def test_the_storyteller_fails_it_for_a_challenge_against_a_physical_attribute(self) -> None:
        """bns:fair-escape-blocked: "Mental and Social Challenges versus your Physical attribute also
        block an attempt to fair escape": the engine cannot tell them apart, so the ST rules it."""
        t = fight()
        done(t, "julian")
        act(t, "edward", "fair_escape")
        t.do("st", "intend_attack", character="mook", target="edward")
        done(t, "edward")
        events = t.do(
            "st", "adjust", character="edward", changes={"fail_escape": True}, reason="the Dread Gaze roots him"
        )
        assert types(events)[-1] == "fair_escape_failed" and events[-1].rule == "bns:fair-escape-blocked"
        assert t.character("edward").conditions.fair_escape == "failed"
        t.refused("st", "adjust", character="julian", changes={"fail_escape": True}, reason="x", code="bad_adjustment")

    def test_held_through_the_round_escapes_when_it_ends(self) -> None:
        """bns:fair-escape-hold, AMB (3): held and not attacked, it succeeds when the universal round
        ends (option escape_resolves=round), or only when the whole turn ends (turn)."""
        for resolves, after_universal in (("round", "escaped"), ("turn", "held")):
            t = fight(escape_resolves=resolves, rage={"wolf": 1})
            done(t, "julian")
            act(t, "edward", "fair_escape")
            t.do("st", "intend_attack", character="mook", target="edward")
            done(t, "edward")
            done(t, "mook")
            done(t, "wolf")
            assert t.character("edward").conditions.fair_escape == after_universal
            t.do("st", "end_round")
            assert t.character("edward").conditions.fair_escape == "escaped"

    def test_in_a_rage_round(self) -> None:
        """bns:fair-escape-declare: "even during Rage rounds"; held through the Rage round, it succeeds
        when that Rage round ends (bns:fair-escape-hold)."""
        t = fight(rage={"edward": 1, "wolf": 1})
        for who in ("julian", "edward", "mook", "wolf"):
            done(t, who)
        assert turn(t) == ["edward"]
        act(t, "edward", "fair_escape")
        t.do("st", "intend_attack", character="wolf", target="edward")
        t.refused("st", "intend_attack", character="mook", target="edward", code="already_acted")
        done(t, "edward")
        assert t.character("edward").conditions.fair_escape == "held"
        done(t, "wolf")
        assert t.character("edward").conditions.fair_escape == "escaped"

    def test_only_intenders_fail_it(self) -> None:
        """bns:fair-escape-hold, AMB (2): option escape_failed_by=intenders: another's attack does not."""
        t = fight(escape_failed_by="intenders")
        done(t, "julian")
        act(t, "edward", "fair_escape")
        t.do("st", "intend_attack", character="wolf", target="edward")
        done(t, "edward")
        attack(t, "mook", "edward")
        assert t.character("edward").conditions.fair_escape == "held"
        done(t, "mook")
        attack(t, "wolf", "edward", "bite", attack_kind="bite")
        assert t.character("edward").conditions.fair_escape == "failed"


class TestManeuvers:
    def test_one_willpower_before_the_test_one_a_round(self) -> None:
        """bns:maneuvers: declare it and spend a Willpower before the test; one a round."""
        t = fight()
        events = attack(t, "julian", "edward", maneuver="targeted_attack")
        assert types(events)[-2:] == ["willpower_spent", "maneuver_used"]
        assert t.character("julian").willpower == 2
        pool = t.challenge("hit").challenger.pool
        assert pool is not None and pool.total == 2 + 1 - 3 + 0 and pool.modifiers[0].rule == "bns:targeted-attack"
        t.refused(
            "julian",
            "declare_action",
            action={"kind": "draw", "maneuver": "quick_draw"},
            code="one_maneuver",
            rule="bns:maneuvers",
        )

    def test_what_fits_the_attack(self) -> None:
        """bns:maneuver-logic: no Grapple with an arrow. bns:maneuvers-physical: only Fighting Blind
        goes with a Social or Mental action; bns:fighting-blind lets one attack the unseen."""
        t = fight()
        done(t, "julian")
        refused_attack(
            t,
            "edward",
            "mook",
            pool={"attack": "archery", "weapon": "Bow"},
            maneuver="grapple",
            code="maneuver_logic",
            rule="bns:maneuver-logic",
        )
        t.refused(
            "edward",
            "declare",
            challenge="x",
            kind="contested",
            targets=["mook"],
            category="mental",
            pool={"attack": "mental", "attribute": "wits", "skill": "dodge"},
            maneuver="knock_down",
            code="maneuvers_physical",
            rule="bns:maneuvers-physical",
        )
        refused_attack(t, "edward", "mook", unseen=True, code="line_of_sight")
        attack(t, "edward", "mook", unseen=True, maneuver="fighting_blind")
        assert t.challenge("hit").maneuvers == ("fighting_blind",)

    def test_free_once_a_fight_with_four_dots(self) -> None:
        """bns:free-maneuvers: Strength 4, one of Disarm, Grapple, Knock Down, Knock Out, Pierce the
        Heart once a fight without Willpower; AMB: one per list (default) or one in all."""
        t = fight()
        for who in ("julian", "edward"):
            done(t, who)
        events = attack(t, "mook", "edward", maneuver="knock_down")
        used = events[-1]
        assert isinstance(used, ManeuverUsed) and used.paid == "free" and used.free_list == "strength"
        assert not any(isinstance(e, WillpowerSpent) for e in events)
        assert t.character("mook").willpower == 2
        # the wolf, Strength and Dexterity 4: a free use from each list (per_list), or one in all
        for option, second in (("per_list", "free"), ("one", "willpower")):
            w = fight(free_maneuvers=option)
            for who in ("julian", "edward", "mook"):
                done(w, who)
            attack(w, "wolf", "edward", attack_kind="bite", maneuver="knock_down")
            done(w, "wolf")
            w.do("st", "end_round")
            w.do("st", "start_round")
            done(w, "julian")  # the wolf moves before its initiative
            events = act(w, "wolf", "move", steps=3, maneuver="burst_of_speed")
            assert next(e for e in events if isinstance(e, ManeuverUsed)).paid == second

    def test_knock_down_knock_back_blinding_hamstring_and_reductions(self) -> None:
        """bns:knock-down (1 fewer, prone), bns:knock-back (2 fewer), bns:blinding-attack (3 fewer,
        blinded until two simple actions clear it), bns:hamstring (3 fewer, a step fewer)."""
        cases = [
            ("knock_down", 2, 1, "prone"),
            ("knock_back", 3, 1, None),
            ("blinding_attack", 4, 1, "blinded"),
            ("hamstring", 5, 2, "hamstrung"),
        ]
        for maneuver, amount, dealt, condition in cases:
            t = fight()
            for who in ("julian", "edward"):
                done(t, who)
            attack(
                t, "mook", "julian", maneuver=maneuver, effect={"kind": "damage", "amount": amount, "type": "bashing"}
            )
            events = give_in(t, "julian")
            reduction = {"knock_down": 1, "knock_back": 2, "blinding_attack": 3, "hamstring": 3}[maneuver]
            taken = [e for e in events if isinstance(e, DamageTaken)]
            assert [e.amount for e in taken] == [max(0, amount - reduction)] == [dealt], maneuver
            set_ = [e for e in events if isinstance(e, ConditionSet)]
            assert [e.name for e in set_] == ([condition] if condition else []), maneuver

    def test_a_blinded_character_clears_its_eyes(self) -> None:
        t = fight()
        for who in ("julian", "edward"):
            done(t, who)
        attack(t, "mook", "wolf", maneuver="blinding_attack")
        give_in(t, "wolf")
        mark = t.character("wolf").conditions.marked("blinded")
        assert mark is not None and mark.clears_after == 2 and mark.by == "mook"
        done(t, "mook")
        act(t, "wolf", "clear", clears="blinded")
        assert t.character("wolf").conditions.marked("blinded").clears_after == 1  # type: ignore[union-attr]
        events = act(t, "wolf", "trade") + act(t, "wolf", "clear", clears="blinded")
        cleared = [e for e in events if isinstance(e, ConditionCleared)]
        assert [(e.name, e.rule) for e in cleared] == [("blinded", "bns:blinding-attack")]
        assert t.character("wolf").conditions.marked("blinded") is None

    def test_sturdy_targets(self) -> None:
        """bns:knock-down: more Stamina than the attacker's Strength, and it cannot be done."""
        t = fight()
        refused_attack(t, "julian", "mook", maneuver="knock_down", code="sturdy", rule="bns:knock-down")

    def test_disarm_and_picking_it_up(self) -> None:
        """bns:disarm: -2; the target drops it; picking it up is a standard action. AMB: damage as usual
        (option maneuver_damage=normal) or none."""
        for option, dealt in (("normal", [1]), ("none", [])):
            t = fight(maneuver_damage=option)
            for who in ("julian", "edward"):
                done(t, who)
            attack(t, "mook", "edward", maneuver="disarm")
            pool = t.challenge("hit").challenger.pool
            assert pool is not None and pool.total == 4 + 3 - 2
            events = give_in(t, "edward")
            assert [e.amount for e in events if isinstance(e, DamageTaken)] == dealt
            assert t.character("edward").conditions.marked("disarmed") is not None
        done(t, "mook")
        done(t, "wolf")
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        events = act(t, "edward", "pick_up", item="Knife")
        assert events[0].spent == "standard" and types(events)[-1] == "condition_cleared"

    def test_knock_out(self) -> None:
        """bns:knock-out: -2, the first round only, a surprised target, never a vampire, nor one of
        more Stamina than one's Strength; unconscious for ten minutes."""
        t = fight()
        for who in ("julian", "edward"):
            done(t, who)
        refused_attack(
            t, "mook", "julian", maneuver="knock_out", surprise=True, code="cannot_knock_out", rule="bns:knock-out"
        )
        refused_attack(t, "mook", "edward", maneuver="knock_out", code="not_surprised", rule="bns:knock-out")
        attack(t, "mook", "edward", maneuver="knock_out", surprise=True)
        give_in(t, "edward")
        mark = t.character("edward").conditions.marked("unconscious")
        assert mark is not None and mark.until is not None
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        assert turn(t) == ["mook"]  # unconscious, Edward's turn is passed over
        t.refused("edward", "declare_action", action={"kind": "draw"}, code="not_your_turn")

    def test_pierce_the_heart(self) -> None:
        """bns:pierce-the-heart: -3, only into the Incapacitated track; a vampire staked; a
        shapeshifter takes a point more."""
        t = fight()
        done(t, "julian")
        refused_attack(
            t,
            "edward",
            "wolf",
            pool={"attack": "melee", "weapon": "Knife"},
            maneuver="pierce_the_heart",
            code="not_incapacitated",
            rule="bns:pierce-the-heart",
        )
        t.do("st", "adjust", character="wolf", changes={"set_conditions": ["incapacitated"]}, reason="down")
        attack(t, "edward", "wolf", pool={"attack": "melee", "weapon": "Knife"}, maneuver="pierce_the_heart")
        events = give_in(t, "wolf")
        assert [e.amount for e in events if isinstance(e, DamageTaken)] == [2]

    def test_action_maneuvers(self) -> None:
        """bns:quick-draw and bns:snap-shot spend no action; bns:burst-of-speed takes the simple
        action before one's initiative."""
        t = fight()
        events = act(t, "julian", "draw", item="stake", maneuver="quick_draw")
        assert isinstance(events[-1], ActionTaken) and events[-1].spent is None
        assert t.character("julian").budget == {"standard": 1, "simple": 1}
        events = act(t, "edward", "move", steps=2, maneuver="burst_of_speed")
        assert events[-1].spent == "simple" and turn(t) == ["julian"]
        done(t, "julian")
        t.refused(
            "edward",
            "declare_action",
            action={"kind": "nock", "maneuver": "snap_shot"},
            code="one_maneuver",
            rule="bns:maneuvers",
        )
        for who in ("edward", "mook", "wolf"):
            done(t, who)
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        events = act(t, "edward", "nock", maneuver="snap_shot")
        assert events[-1].spent is None and events[-1].rule == "bns:archery"
        assert t.character("edward").budget == {"standard": 1, "simple": 1}

    def test_feral_maneuvers_only_in_animal_form(self) -> None:
        """bns:feral-maneuvers: Lupus or Hispo form. bns:feral-dash: both actions, nine steps.
        bns:mangle-fur: -2, armour mangled. bns:dart-behind, bns:savage-leap."""
        t = fight()
        done(t, "julian")
        t.refused(
            "edward",
            "declare_action",
            action={"kind": "move", "steps": 3, "maneuver": "dart_behind"},
            code="not_animal_form",
            rule="bns:feral-maneuvers",
        )
        for who in ("edward", "mook"):
            done(t, who)
        events = act(t, "wolf", "move", steps=9, maneuver="feral_dash")
        assert [e.spent for e in events if isinstance(e, ActionTaken)] == ["standard", "simple"]
        t.do("st", "end_round")
        t.do("st", "start_round")
        for who in ("julian", "edward", "mook"):
            done(t, who)
        attack(t, "wolf", "julian", attack_kind="bite", maneuver="mangle_fur")
        give_in(t, "julian")
        assert t.character("julian").conditions.marked("armor_mangled") is not None
        t.do("st", "end_round")
        t.do("st", "start_round")
        for who in ("julian", "edward", "mook"):
            done(t, who)
        act(t, "wolf", "move", steps=3, maneuver="dart_behind")
        t.do("st", "end_round")
        t.do("st", "start_round")
        for who in ("julian", "edward", "mook"):
            done(t, who)
        attack(t, "wolf", "julian", "leap", attack_kind="bite", maneuver="savage_leap")
        assert t.character("wolf").budget == {"standard": 0, "simple": 0}


class TestGrapple:
    def grappled(self) -> Table:
        t = fight()
        for who in ("julian", "edward"):
            done(t, who)
        attack(t, "mook", "edward", maneuver="grapple", effect={"kind": "damage", "amount": 4, "type": "bashing"})
        events = give_in(t, "edward")
        assert [e.amount for e in events if isinstance(e, DamageTaken)] == [1]  # 3 fewer
        assert any(isinstance(e, GrappleStarted) for e in events)
        done(t, "mook")
        done(t, "wolf")
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        return t

    def test_grappled_no_physical_challenge_but_mental_and_social(self) -> None:
        """bns:grapple: the grappled cannot move nor start a Physical challenge; Mental and Social
        challenges normally."""
        t = self.grappled()
        t.refused("edward", "declare_action", action={"kind": "move", "steps": 1}, code="grappled", rule="bns:grapple")
        refused_attack(t, "edward", "mook", code="grappled", rule="bns:grapple")
        t.do(
            "edward",
            "declare",
            challenge="y",
            kind="contested",
            targets=["mook"],
            category="social",
            pool={"attack": "social", "attribute": "manipulation", "skill": "brawl"},
        )

    def test_breaking_free_is_a_simple_action_and_the_standard_comes_back(self) -> None:
        """bns:grapple-escape: a simple action and an opposed challenge; the standard action is left."""
        t = self.grappled()
        t.do(
            "edward",
            "declare",
            challenge="free",
            kind="contested",
            targets=["mook"],
            category="physical",
            pool={"attack": "unarmed"},
            effect={"kind": "escape_grapple"},
        )
        assert t.character("edward").budget == {"standard": 1, "simple": 0}
        events = give_in(t, "mook", "free")
        assert any(isinstance(e, GrappleBroken) for e in events)
        attack(t, "edward", "mook", "punch")

    def test_several_grapplers_one_beaten_frees(self) -> None:
        """bns:grapple-several: best one grappler to escape them all."""
        t = self.grappled()
        done(t, "edward")
        done(t, "mook")  # the wolf grabs Edward too
        attack(t, "wolf", "edward", "maul", attack_kind="bite", maneuver="grapple")
        give_in(t, "edward", "maul")
        assert "edward" in t.character("wolf").conditions.grappling
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        t.do(
            "edward",
            "declare",
            challenge="free",
            kind="contested",
            targets=["wolf"],
            category="physical",
            pool={"attack": "unarmed"},
            effect={"kind": "escape_grapple"},
        )
        events = t.do("st", "relent", character="wolf", challenge="free", pool=DODGE)
        assert sorted(e.grappler for e in events if isinstance(e, GrappleBroken)) == ["mook", "wolf"]

    def test_the_grappler_lets_go_by_acting_elsewhere_or_moving(self) -> None:
        """bns:grapple-release: an action that targets another, or more than one step."""
        t = self.grappled()
        done(t, "edward")
        events = attack(t, "mook", "julian", "shove")
        assert any(isinstance(e, GrappleBroken) for e in events)
        t2 = self.grappled()
        done(t2, "edward")
        events = act(t2, "mook", "move", steps=2)
        assert any(isinstance(e, GrappleBroken) for e in events)

    def test_forms_and_range(self) -> None:
        """bns:grapple-forms: nothing but escaping or letting go breaks it (a change of form is not an
        event that does). bns:grapple-range: a grapple with the hands (close attacks), never an arrow."""
        t = self.grappled()
        t.do(
            "edward",
            "declare",
            challenge="y",
            kind="contested",
            targets=["mook"],
            category="mental",
            pool={"attack": "mental", "attribute": "wits", "skill": "dodge"},
        )
        assert t.character("edward").conditions.grappled_by == "mook"
        done(t, "edward")
        refused_attack(
            t, "mook", "edward", challenge="z", pool={"attack": "thrown"}, maneuver="grapple", code="not_throwable"
        )


class TestMassCombat:
    def test_assist_attacker_plus_one(self) -> None:
        """bns:assist-attacker: offered, accepted (the helper's standard action spent), +1 on the
        attacker's next physical attack."""
        t = fight()
        done(t, "julian")
        t.do("edward", "assist", kind="attacker", to="mook", benefit="plus_one", how="holds him still")
        offer = t.state.version
        t.do("st", "answer_assist", character="mook", offer=offer, accept=True)
        assert t.character("edward").budget["standard"] == 0
        done(t, "edward")
        attack(t, "mook", "julian")
        pool = t.challenge("hit").challenger.pool
        assert pool is not None and pool.total == 4 + 3 + 1 and pool.modifiers[0].rule == "bns:assist-attacker"
        assert t.character("mook").aids == ()

    def test_refused_keeps_the_action_and_cannot_be_offered_again(self) -> None:
        t = fight()
        done(t, "julian")
        t.do("edward", "assist", kind="attacker", to="mook", benefit="plus_one")
        t.do("st", "answer_assist", character="mook", offer=t.state.version, accept=False)
        assert t.character("edward").budget["standard"] == 1
        t.refused(
            "edward",
            "assist",
            kind="attacker",
            to="mook",
            benefit="plus_one",
            code="refused",
            rule="bns:assist-attacker",
        )

    def test_assist_with_a_free_maneuver(self) -> None:
        t = fight()
        done(t, "julian")
        t.do("edward", "assist", kind="attacker", to="mook", benefit="maneuver")
        t.do("st", "answer_assist", character="mook", offer=t.state.version, accept=True)
        done(t, "edward")
        events = attack(t, "mook", "julian", maneuver="targeted_attack")
        used = events[-1]
        assert isinstance(used, ManeuverUsed) and used.paid == "assist"

    def test_two_maneuvers_with_an_assist_and_a_willpower(self) -> None:
        """bns:assist-attacker: "It is possible for a single attack to make use of two standard combat
        maneuvers if the target of an Assist Attacker takes that benefit and then also spends a
        willpower point to apply another combat maneuver." Both modify the pool, both reduce the
        damage, both leave their condition."""
        t = fight()
        done(t, "julian")
        refused_attack(
            t,
            "edward",
            "mook",
            maneuver=["targeted_attack", "hamstring"],
            code="one_maneuver",
            rule="bns:assist-attacker",
        )
        t.do("edward", "assist", kind="attacker", to="mook", benefit="maneuver")
        t.do("st", "answer_assist", character="mook", offer=t.state.version, accept=True)
        done(t, "edward")
        refused_attack(
            t, "mook", "edward", maneuver=["hamstring", "hamstring"], code="same_maneuver", rule="bns:assist-attacker"
        )
        events = attack(
            t,
            "mook",
            "edward",
            maneuver=["hamstring", "targeted_attack"],
            effect={"kind": "damage", "amount": 5, "type": "bashing"},
        )
        used = [(e.maneuver, e.paid) for e in events if isinstance(e, ManeuverUsed)]
        assert used == [("hamstring", "assist"), ("targeted_attack", "willpower")]
        assert t.character("mook").willpower == 1
        pool = t.challenge("hit").challenger.pool
        assert pool is not None and pool.total == 4 + 3 - 3 and pool.modifiers[0].rule == "bns:targeted-attack"
        events = give_in(t, "edward")
        assert [e.amount for e in events if isinstance(e, DamageTaken)] == [5 - 3]
        assert t.character("edward").conditions.marked("hamstrung") is not None

    def test_assist_defender(self) -> None:
        """bns:assist-defender: a simple action, once a round, before the first throw; the shield
        becomes the target; the attacker may stop and loses the action. bns:mass-combat: Physical only."""
        t = fight()
        attack(t, "julian", "mook")
        t.do("edward", "assist", kind="defender", challenge="hit")
        ch = t.challenge("hit")
        assert ch.targets == ("edward",) and ch.defender.who == "edward"
        assert t.character("edward").budget["simple"] == 0
        t.do("julian", "withdraw", challenge="hit")
        assert t.character("julian").budget["standard"] == 0
        t2 = fight()
        t2.do(
            "julian",
            "declare",
            challenge="stare",
            kind="contested",
            targets=["mook"],
            category="social",
            pool={"attack": "social", "attribute": "charisma", "skill": "brawl"},
        )
        t2.refused("edward", "assist", kind="defender", challenge="stare", code="mass_combat", rule="bns:mass-combat")


def test_a_ruling_undoes_a_condition() -> None:
    """Conditions set by an outcome are consequences: a ruling that reverses it clears them."""
    t = fight()
    for who in ("julian", "edward"):
        done(t, who)
    attack(t, "mook", "julian", maneuver="knock_down")
    give_in(t, "julian")
    assert t.character("julian").conditions.prone
    seq = t.seq_of("challenge_resolved", "hit")
    t.do("julian", "dispute", event=seq, reason="he missed")
    t.do("st", "rule", event=seq, decision="overturn", reason="he missed")
    assert not t.character("julian").conditions.prone


@pytest.mark.parametrize("ruleset", ["lotn", "camarilla"])
def test_other_rulesets_are_unchanged(ruleset: str) -> None:
    t = Table(ruleset)
    if ruleset == "lotn":
        t.refused("st", "start_round", code="no_rounds")
    else:
        t.do("st", "start_round")
        assert t.state.round is not None and t.state.round.phase == "declaring"


FLAME = {"attack": "firearms", "wildcard": 3, "why": "a flame thrower"}
"""Edward's flame thrower: Dexterity 3 + Firearms 0 + 3 = 6 against Julian's dodge of 5: no overbid."""


class TestEdwardAndJulian:
    """The worked example of bns-opposed-challenges.txt (bns:willpower-retest), played in a round:
    "Edward attempts to light Julian on fire with a flame thrower and wins the initial test. Julian
    doesn't want to be set on fire, so he decides to spend a point of Willpower to retest. The
    results of this second test are final; no matter who wins or loses, there will be no further
    tests for this challenge." """

    def burn(self, second: tuple[str, str]) -> Table:
        t = fight()
        done(t, "julian")
        attack(t, "edward", "julian", "fire", pool=FLAME, effect={"kind": "damage", "amount": 2, "type": "aggravated"})
        t.do("julian", "bid", challenge="fire", pool=DODGE)
        t.do("edward", "throw", challenge="fire", sign="rock")
        t.do("julian", "throw", challenge="fire", sign="scissors")  # Edward wins the initial test
        t.do("julian", "retest", challenge="fire", source={"category": "willpower"})
        t.do("edward", "throw", challenge="fire", sign=second[0])
        t.do("julian", "throw", challenge="fire", sign=second[1])
        return t

    def test_julian_wins_the_retest_and_it_is_final(self) -> None:
        t = self.burn(("scissors", "rock"))
        ch = t.challenge("fire")
        assert ch.status == "resolved" and ch.outcome is not None and ch.outcome.winner == "defender"
        assert len(ch.tests) == 2 and t.character("julian").willpower == 2
        t.refused("edward", "retest", challenge="fire", source={"category": "willpower"}, code="already_resolved")

    def test_edward_wins_the_retest_and_it_is_final(self) -> None:
        t = self.burn(("paper", "rock"))
        ch = t.challenge("fire")
        assert ch.status == "resolved" and ch.outcome is not None and ch.outcome.winner == "challenger"
        assert len(ch.tests) == 2 and ch.outcome.exceptional  # the greater pool, and every test won
        assert t.character("julian").wounds.aggravated == 3  # bns:exceptional-damage


class TestTurnEdges:
    """Edges a table meets: who may act when, and what a round keeps track of."""

    def test_a_failed_escaper_acts_only_until_the_next_turn_and_escapes_no_more(self) -> None:
        """bns:fair-escape-hold (AMB 4): right after the attack that failed it; not again this round."""
        t = fight()
        done(t, "julian")
        act(t, "edward", "fair_escape")
        t.do("st", "intend_attack", character="mook", target="edward")
        done(t, "edward")
        attack(t, "mook", "edward")
        act(t, "edward", "draw", item="Knife")  # out of turn, at once
        done(t, "mook")
        t.refused("edward", "declare_action", action={"kind": "move", "steps": 1}, code="not_your_turn")
        t.do("st", "end_round")
        t.do("st", "start_round")
        done(t, "julian")
        act(t, "edward", "fair_escape")  # a new round: a new attempt
        assert t.character("edward").conditions.fair_escape in ("declared", "escaped")

    def test_an_escape_that_failed_is_not_declared_again_that_round(self) -> None:
        t = fight()
        t.do("st", "adjust", character="julian", changes={"set_conditions": ["no_exit"]}, reason="a locked room")
        act(t, "julian", "fair_escape")
        t.refused("julian", "declare_action", action={"kind": "fair_escape"}, code="escape_failed")

    def test_in_a_rage_round_those_still_to_act_in_it_may_intend(self) -> None:
        """bns:fair-escape-intent in a Rage round: the wolf acted in the universal round, but has its
        Rage turn still to come."""
        t = fight(rage={"edward": 1, "wolf": 1})
        for who in ("julian", "edward", "mook"):
            done(t, who)
        act(t, "wolf", "draw", item="nothing")
        act(t, "wolf", "move", steps=3, using="standard")
        assert turn(t) == ["edward"] and t.state.round is not None and t.state.round.turn_phase == "extra"
        act(t, "edward", "fair_escape")
        assert t.character("edward").conditions.fair_escape == "declared"
        t.do("st", "intend_attack", character="wolf", target="edward")

    def test_a_standard_action_is_not_paid_with_a_simple_one(self) -> None:
        """bns:advanced-movement: climbing takes the standard action; `using` cannot lower it."""
        t = fight()
        t.refused(
            "julian",
            "declare_action",
            action={"kind": "advanced_move", "steps": 3, "using": "simple"},
            code="standard_action",
            rule="bns:advanced-movement",
        )

    def test_a_helpers_last_action_ends_its_turn(self) -> None:
        t = fight()
        act(t, "julian", "draw", item="stake")
        t.do("julian", "assist", kind="attacker", to="mook", benefit="plus_one")
        t.do("st", "answer_assist", character="mook", offer=t.state.version, accept=True)
        assert turn(t) == ["edward"]

    def test_a_grappler_lets_go_over_two_short_moves(self) -> None:
        """bns:grapple-release: "more than one step a round", counted over the round."""
        t = TestGrapple().grappled()
        done(t, "edward")
        assert not any(isinstance(e, GrappleBroken) for e in act(t, "mook", "move", steps=1))
        events = act(t, "mook", "move", steps=1, using="standard")
        assert any(isinstance(e, GrappleBroken) for e in events)

    def test_the_prone_neither_climb_nor_shield(self) -> None:
        """bns:prone limits movement: no advanced move; bns:assist-defender needs three steps."""
        t = fight()
        act(t, "julian", "prone")
        t.refused("julian", "declare_action", action={"kind": "advanced_move", "steps": 1}, code="prone")
        done(t, "julian")
        attack(t, "edward", "mook")
        t.refused("julian", "assist", kind="defender", challenge="hit", code="cannot_move", rule="bns:assist-defender")

    def test_a_blinded_attacker_needs_fighting_blind(self) -> None:
        """bns:line-of-sight: a blinded attacker cannot see the target."""
        t = fight()
        t.do("st", "adjust", character="julian", changes={"set_conditions": ["blinded"]}, reason="sand in his eyes")
        mark = t.character("julian").conditions.marked("blinded")
        assert mark is not None and mark.clears_after == 2  # bns:blinding-attack, whoever sets it
        refused_attack(t, "julian", "mook", code="line_of_sight", rule="bns:line-of-sight")
        attack(t, "julian", "mook", maneuver="fighting_blind")

    def test_a_maneuver_a_round_rage_rounds_included(self) -> None:
        """bns:maneuvers: one a round; a Rage round is a round."""
        t = fight(rage={"julian": 1})
        attack(t, "julian", "mook", maneuver="targeted_attack")
        give_in(t, "mook")
        done(t, "julian")
        for who in ("edward", "mook", "wolf"):
            done(t, who)
        assert turn(t) == ["julian"]
        attack(t, "julian", "mook", "again", maneuver="targeted_attack")

    def test_burst_of_speed_only_before_ones_initiative(self) -> None:
        """bns:burst-of-speed: "take your simple action immediately, out of order, and then your
        standard action on your normal initiative"."""
        t = fight()
        done(t, "julian")
        done(t, "edward")
        t.refused(
            "julian",
            "declare_action",
            action={"kind": "move", "steps": 1, "maneuver": "burst_of_speed"},
            code="burst_of_speed",
            rule="bns:burst-of-speed",
        )

    def test_a_second_grappler_still_holds(self) -> None:
        """bns:grapple-several: when one grappler lets go, the other still holds, and it shows."""
        t = TestGrapple().grappled()
        done(t, "edward")
        done(t, "mook")
        attack(t, "wolf", "edward", "maul", attack_kind="bite", maneuver="grapple")
        give_in(t, "edward", "maul")
        t.do("st", "let_go", character="mook")
        assert t.character("edward").conditions.grappled_by == "wolf"

    def test_an_assists_plus_one_is_for_an_attack(self) -> None:
        """bns:assist-attacker: +1 "on a single normal physical attack": not a static test."""
        t = fight()
        done(t, "julian")
        t.do("edward", "assist", kind="attacker", to="mook", benefit="plus_one")
        t.do("st", "answer_assist", character="mook", offer=t.state.version, accept=True)
        done(t, "edward")
        t.do(
            "st",
            "declare",
            character="mook",
            challenge="climb",
            kind="static",
            category="physical",
            difficulty=5,
            pool={"attack": "unarmed"},
        )
        pool = t.challenge("climb").challenger.pool
        assert pool is not None and pool.modifiers == () and len(t.character("mook").aids) == 1

    def test_the_damage_floor_both_ways(self) -> None:
        """Damage with maneuvers, AMB: the exceptional point and the reductions summed, then floored
        (damage_floor=after), or the reductions floored first (before)."""
        for floor, dealt in (("after", []), ("before", [1])):
            t = fight(damage_floor=floor, relent_exceptional=True)
            for who in ("julian", "edward"):
                done(t, who)
            attack(t, "mook", "julian", maneuver="grapple", effect={"kind": "damage", "amount": 1, "type": "bashing"})
            events = give_in(t, "julian")  # a lower pool relents: exceptional
            assert [e.amount for e in events if isinstance(e, DamageTaken)] == dealt, floor
