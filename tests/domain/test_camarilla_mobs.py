"""Camarilla mobs, grapples, dragging, blood and damage powers."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tests.table import Table, types


def attack(t: Table, cid: str, who: str, target: str, bid: str, **extra: Any) -> None:
    t.do(who, "declare", challenge=cid, kind="contested", targets=[target], category="physical", bid=[bid], **extra)


@pytest.fixture
def brawl() -> Table:
    t = Table(ruleset="camarilla")
    t.add("andrew", {"Ferocious": 3, "Robust": 2})
    t.add("bob", {"Brawny": 3})
    t.add("charlie", {"Quick": 3, "Tough": 2})
    t.add("zach", {"Brawny": 4, "Quick": 3, "Tough": 3}, powers=["Potence"])
    return t


class TestMobs:
    def test_andrew_bob_and_charlie_against_zach(self, brawl: Table) -> None:
        """Three attackers bid and declare; Zach bids three Traits; Bob champions with +2 on the tie;
        winning, he applies Andrew's victory condition (camarilla:mob, camarilla:mob-champion,
        camarilla:mob-victory)."""
        t = brawl
        attack(t, "mob", "andrew", "zach", "Ferocious", effect={"kind": "damage", "amount": 2}, victory="claw him")
        t.do("bob", "join", challenge="mob", bid=["Brawny"], effect={"kind": "grapple"}, victory="hold him")
        t.do("charlie", "join", challenge="mob", bid=["Quick"], effect={"kind": "knock_down"})
        t.refused("zach", "bid", challenge="mob", bid=["Brawny"], code="one_bid", rule="camarilla:mob-champion")
        t.do("zach", "bid", challenge="mob", bid=["Brawny", "Quick", "Tough"])
        t.refused("zach", "champion", challenge="mob", character="zach", code="forbidden")
        (chosen,) = t.do("charlie", "champion", challenge="mob", character="bob")
        assert chosen.character == "bob" and t.challenge("mob").challenger.who == "bob"  # type: ignore[union-attr]
        t.test("mob", "rock", "rock")
        t.do("bob", "declare_traits", challenge="mob", count=3)
        t.do("zach", "declare_traits", challenge="mob", count=4)
        test = t.challenge("mob").test
        assert test is not None and test.compared == {"bob": 5, "zach": 4} and test.leader == "challenger"
        events = t.do("zach", "pass", challenge="mob")
        assert types(events) == ["passed", "challenge_resolved", "trait_lost", "trait_lost", "trait_lost"]
        assert t.character("zach").wounds.total == 0  # no effect until the champion chooses
        t.refused("andrew", "choose_victory", challenge="mob", of="andrew", code="forbidden")
        events = t.do("bob", "choose_victory", challenge="mob", of="andrew")
        assert types(events) == ["victory_chosen", "damage_taken"] and t.character("zach").wounds.total == 2
        assert t.character("zach").conditions.grappled_by is None and not t.character("zach").conditions.prone

    def test_only_the_chosen_victory_condition_and_its_attackers_powers(self) -> None:
        """The chosen victory condition is that attacker's own: its power and its damage bonuses, not the
        champion's nor the declarer's (camarilla:mob-victory)."""
        t = Table(ruleset="camarilla")
        t.add("andrew", {"Ferocious": 3}, powers=["Feral Claws"])
        t.add("bob", {"Brawny": 3}, powers=["Puissance"])
        t.add("zach", {"Tough": 2})
        t.add("yves", {"Tough": 2})
        claws = {"kind": "damage", "amount": 1, "type": "lethal"}
        punch = {"kind": "damage", "amount": 1}
        for cid, target, chosen in (("m1", "zach", "bob"), ("m2", "yves", "andrew")):
            attack(t, cid, "andrew", target, "Ferocious", power="Feral Claws", effect=claws)
            t.do("bob", "join", challenge=cid, bid=["Brawny"], effect=punch)
            t.do(target, "bid", challenge=cid, bid=["Tough", "Tough"])
            t.do("bob", "champion", challenge=cid, character="bob")
            t.test(cid, "paper", "rock")
            t.do(target, "pass", challenge=cid)
            t.do("bob", "choose_victory", challenge=cid, of=chosen)
        assert msgspec.structs.asdict(t.character("zach").wounds) == {"bashing": 2, "lethal": 0, "aggravated": 0}
        assert msgspec.structs.asdict(t.character("yves").wounds) == {"bashing": 0, "lethal": 0, "aggravated": 1}

    def test_bonus_and_risk_are_capped(self) -> None:
        """The champion gets at most +4; the target risks at most five Traits (camarilla:mob-champion)."""
        t = Table(ruleset="camarilla")
        t.add("target", {"Tough": 9})
        for n in range(6):
            t.add(f"m{n}", {"Brawny": 1})
        attack(t, "mob", "m0", "target", "Brawny")
        for n in range(1, 6):
            t.do(f"m{n}", "join", challenge="mob", bid=["Brawny"])
        t.do("target", "bid", challenge="mob", bid=["Tough"] * 5)
        t.test("mob", "rock", "rock")
        t.do("m0", "declare_traits", challenge="mob", count=1)
        t.do("target", "declare_traits", challenge="mob", count=9)
        assert t.challenge("mob").test.compared == {"m0": 5, "target": 9}  # type: ignore[union-attr]

    def test_a_losing_mob_loses_what_it_lent(self, brawl: Table) -> None:
        """Each member risks what they lent (camarilla:mob-champion)."""
        t = brawl
        attack(t, "mob", "andrew", "zach", "Ferocious")
        t.do("bob", "join", challenge="mob", bid=["Brawny"])
        t.do("zach", "bid", challenge="mob", bid=["Brawny", "Quick"])
        t.test("mob", "scissors", "rock")
        t.do("andrew", "pass", challenge="mob")
        assert t.lost("andrew") == ["Ferocious"] and t.lost("bob") == ["Brawny"] and t.lost("zach") == []

    def test_two_opposing_mobs(self, brawl: Table) -> None:
        """Andrew, Bob and Charlie on Zach; Xavier, Yolanda and Zach on Charlie: two challenges, and
        Zach and Charlie each risk more Traits (camarilla:opposing-mobs)."""
        t = brawl
        t.add("xavier", {"Wiry": 2})
        t.add("yolanda", {"Lithe": 2})
        attack(t, "on-zach", "andrew", "zach", "Ferocious")
        t.do("bob", "join", challenge="on-zach", bid=["Brawny"])
        t.do("charlie", "join", challenge="on-zach", bid=["Quick"])
        attack(t, "on-charlie", "xavier", "charlie", "Wiry")
        t.do("yolanda", "join", challenge="on-charlie", bid=["Lithe"])
        t.do("zach", "join", challenge="on-charlie", bid=["Brawny"])
        t.do("zach", "bid", challenge="on-zach", bid=["Brawny", "Quick", "Tough"])
        t.do("charlie", "bid", challenge="on-charlie", bid=["Tough", "Tough", "Quick"])
        assert len(t.state.challenges) == 2
        assert t.challenge("on-charlie").challenger.members == ("xavier", "yolanda", "zach")
        t.test("on-zach", "paper", "rock")
        t.do("zach", "pass", challenge="on-zach")
        t.test("on-charlie", "rock", "paper")
        t.do("xavier", "pass", challenge="on-charlie")
        assert t.lost("zach") == ["Brawny", "Quick", "Tough", "Brawny"]  # risked three, then lent one
        assert t.lost("charlie") == []  # lent to the winning mob, won his own defence
        assert t.lost("xavier") == ["Wiry"] and t.lost("yolanda") == ["Lithe"]

    def test_the_three_way_frenzy(self) -> None:
        """Andrew punches Martin, Martin kicks Zach, Zach grapples Andrew: three challenges, each
        combatant bidding once to attack and once to resist (camarilla:mob)."""
        t = Table(ruleset="camarilla")
        t.add("andrew", {"Ferocious": 1, "Robust": 1})
        t.add("martin", {"Dexterous": 1, "Quick": 1})
        t.add("zach", {"Potent": 1, "Tough": 1})
        attack(t, "punch", "andrew", "martin", "Ferocious", effect={"kind": "damage", "amount": 1})
        attack(t, "kick", "martin", "zach", "Dexterous", effect={"kind": "damage", "amount": 1})
        attack(t, "grab", "zach", "andrew", "Potent", effect={"kind": "grapple"})
        t.do("andrew", "bid", challenge="grab", bid=["Robust"])
        t.do("martin", "bid", challenge="punch", bid=["Quick"])
        t.do("zach", "bid", challenge="kick", bid=["Tough"])
        for cid in ("punch", "kick", "grab"):
            t.test(cid, "paper", "rock")
            t.do(t.challenge(cid).defender.who, "pass", challenge=cid)
        assert t.character("martin").wounds.total == 1 and t.character("zach").wounds.total == 1
        assert t.character("andrew").conditions.grappled_by == "zach"  # damaged and damaging in one round

    def test_a_mixed_challenge_is_the_defenders_type_in_a_mob(self) -> None:
        """Mental against Physical counts as Physical in mass combat: it forms a mob
        (camarilla:mixed)."""
        t = Table(ruleset="camarilla")
        t.add("tremere", {"Quick": 1}, traits={"mental": {"Clever": 3}})
        t.add("ally", {"Brawny": 2})
        t.add("target", {"Quick": 4})
        t.do(
            "tremere",
            "declare",
            challenge="bolt",
            kind="contested",
            targets=["target"],
            category="mental",
            defense="physical",
            bid=["Clever"],
        )
        t.do("ally", "join", challenge="bolt", bid=["Brawny"])
        assert t.challenge("bolt").challenger.members == ("tremere", "ally")


class TestGrapples:
    def test_maria_and_fred(self) -> None:
        """Maria grabs Fred: no damage, Fred held. Next round Fred may attack only Maria, cannot walk
        away, and by beating her he hurts her and escapes (camarilla:grapple)."""
        t = Table(ruleset="camarilla")
        t.add("maria", {"Brawny": 3, "Tough": 2})
        t.add("fred", {"Ferocious": 3, "Quick": 2})
        t.add("bob", {"Tough": 1})
        attack(t, "grab", "maria", "fred", "Brawny", effect={"kind": "grapple"})
        t.do("fred", "bid", challenge="grab", bid=["Quick"])
        t.test("grab", "rock", "scissors")
        t.do("fred", "pass", challenge="grab")
        assert t.character("fred").conditions.grappled_by == "maria" and t.character("fred").wounds.total == 0
        t.do("st", "start_round")
        t.refused(
            "fred", "declare_action", action={"kind": "move", "steps": 1}, code="grappled", rule="camarilla:grapple"
        )
        for who in ("maria", "fred", "bob"):
            t.do(who, "declare_action", action={"kind": "none"})
        t.do("maria", "end_turn")
        t.refused(
            "fred",
            "declare",
            challenge="x",
            kind="contested",
            targets=["bob"],
            category="physical",
            bid=["Ferocious"],
            code="grappled",
            rule="camarilla:grapple",
        )
        attack(t, "punch", "fred", "maria", "Ferocious", effect={"kind": "damage", "amount": 1})
        t.do("maria", "bid", challenge="punch", bid=["Tough"])
        t.test("punch", "paper", "rock")
        events = t.do("maria", "pass", challenge="punch")
        assert "grapple_broken" in types(events) and "damage_taken" in types(events)
        assert t.character("fred").conditions.grappled_by is None and t.character("maria").wounds.total == 1

    @pytest.fixture
    def held(self) -> Table:
        t = Table(ruleset="camarilla")
        t.add("maria", {"Brawny": 4}, powers={"Potence": 2})
        t.add("fred", {"Quick": 2}, powers={"Potence": 1})
        t.add("bob", {"Tough": 2})
        t.contest("grab", "maria", "fred", "Brawny", "Quick", effect={"kind": "grapple"})
        t.test("grab", "rock", "scissors")
        t.do("fred", "pass", challenge="grab")
        return t

    def test_letting_go_moving_away_or_attacking_another_breaks_it(self, held: Table) -> None:
        """The grapple ends when the grappler lets go, moves away or attacks someone else
        (camarilla:grapple)."""
        held.do("maria", "let_go")
        assert held.character("fred").conditions.grappled_by is None
        held.contest("grab2", "maria", "fred", "Brawny", "Quick", effect={"kind": "grapple"})
        held.test("grab2", "rock", "scissors")
        held.do("fred", "pass", challenge="grab2")
        (_, broken) = held.do(
            "maria", "declare", challenge="hit", kind="contested", targets=["bob"], category="physical", bid=["Brawny"]
        )
        assert broken.type_name() == "grapple_broken" and "attacks someone else" in broken.why  # type: ignore[union-attr]

    def test_beating_the_grappler_frees_the_victim_even_on_a_relent(self, held: Table) -> None:
        """The victim who wins a physical challenge against the grappler, by her relenting too, is free
        (camarilla:grapple)."""
        attack(held, "shove", "fred", "maria", "Quick")
        events = held.do("maria", "relent", challenge="shove")
        assert "grapple_broken" in types(events) and held.character("fred").conditions.grappled_by is None

    def test_joining_a_mob_against_another_breaks_it(self, held: Table) -> None:
        """Joining an attack on someone else is a physical action against them (camarilla:grapple)."""
        held.add("ann", {"Wiry": 2})
        attack(held, "gang", "ann", "bob", "Wiry")
        events = held.do("maria", "join", challenge="gang", bid=["Brawny"])
        assert types(events) == ["mob_joined", "grapple_broken"]
        assert held.character("maria").conditions.grappling == ()

    def test_moving_away_breaks_it_and_dragging_does_not(self, held: Table) -> None:
        """More Physical Traits and more Potence: Maria drags Fred three steps; moving without him ends
        the grapple (camarilla:dragging)."""
        held.do("st", "start_round")
        held.refused("maria", "declare_action", action={"kind": "move", "steps": 4, "drag": "fred"}, code="too_heavy")
        held.do("maria", "declare_action", action={"kind": "move", "steps": 3, "drag": "fred"})
        assert held.character("fred").conditions.grappled_by == "maria"
        held.do("st", "end_round")
        held.do("st", "start_round")
        events = held.do("maria", "declare_action", action={"kind": "move", "steps": 1})
        assert types(events) == ["action_declared", "grapple_broken"]

    def test_dragging_with_only_more_traits(self) -> None:
        """More Physical Traits alone drag one step; neither, not at all (camarilla:dragging)."""
        t = Table(ruleset="camarilla")
        t.add("a", {"Brawny": 4})
        t.add("b", {"Quick": 2}, powers={"Potence": 1})
        t.contest("grab", "a", "b", "Brawny", "Quick", effect={"kind": "grapple"})
        t.test("grab", "rock", "scissors")
        t.do("b", "pass", challenge="grab")
        t.do("st", "start_round")
        t.refused(
            "a",
            "declare_action",
            action={"kind": "move", "steps": 2, "drag": "b"},
            code="too_heavy",
            rule="camarilla:dragging",
        )
        t.do("a", "declare_action", action={"kind": "move", "steps": 1, "drag": "b"})


class TestBloodAndDamage:
    def test_blood_lasts_the_scene_within_the_maximum(self) -> None:
        """Blood buys a Physical Trait of the kind chosen then; within the generational maximum it
        lasts the scene, beyond it one challenge (camarilla:blood)."""
        t = Table(ruleset="camarilla")
        t.add("kindred", {"Brawny": 4}, blood=3, trait_max=5, powers=["Might"])
        t.add("foe", {"Quick": 3})
        (first,) = t.do("kindred", "spend_blood", kind="dexterity")
        assert first.lasts == "scene" and first.trait == "BloodDexterity"  # type: ignore[union-attr]
        (second,) = t.do("kindred", "spend_blood", kind="strength")
        assert second.lasts == "challenge"  # type: ignore[union-attr]
        assert t.character("kindred").available("physical") == 6
        t.contest("c", "kindred", "foe", "BloodStrength", "Quick")
        assert t.challenge("c").challenger.lead == "strength"
        t.test("c", "paper", "rock")
        events = t.do("foe", "pass", challenge="c")
        assert "bonus_expired" in types(events) and t.character("kindred").available("physical") == 5
        (third,) = t.do("kindred", "spend_blood", kind="stamina")
        assert third.lasts == "challenge"  # type: ignore[union-attr]
        attack(t, "d", "kindred", "foe", "Brawny")
        assert "bonus_expired" in types(t.do("foe", "relent", challenge="d"))  # a relent ends a challenge too
        t.refused("kindred", "spend_blood", kind="stamina", code="no_blood", rule="camarilla:blood")

    def test_damage_powers_stack_and_modifiers_do_not(self) -> None:
        """Puissance and Force each add a level with a strength lead; Feral Claws makes it aggravated;
        a special attack does not combine with damage (camarilla:stacking)."""
        t = Table(ruleset="camarilla")
        t.add("brute", {"Brawny": 3, "Quick": 3}, powers=["Puissance", "Force", "Feral Claws", "Gentle Rebuke"])
        t.add("foe", {"Tough": 5})
        t.contest(
            "hit",
            "brute",
            "foe",
            "Brawny",
            "Tough",
            power="Feral Claws",
            effect={"kind": "damage", "amount": 1, "type": "lethal"},
        )
        t.test("hit", "paper", "rock")
        t.do("foe", "pass", challenge="hit")
        assert t.character("foe").wounds.aggravated == 3
        t.contest("fast", "brute", "foe", "Quick", "Tough", effect={"kind": "damage", "amount": 1})
        t.test("fast", "paper", "rock")
        t.do("foe", "pass", challenge="fast")
        assert t.character("foe").wounds.bashing == 1  # no strength lead: no Puissance, no Force
        t.refused(
            "brute",
            "declare",
            challenge="x",
            kind="contested",
            targets=["foe"],
            category="physical",
            bid=["Brawny"],
            power="Gentle Rebuke",
            effect={"kind": "damage", "amount": 1},
            code="special_attack",
            rule="camarilla:stacking",
        )
