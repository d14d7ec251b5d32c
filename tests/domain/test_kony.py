"""kony (kings-of-new-york-combat.txt): one test per rule id, each reading the document leaves open
played both ways through ``options.kony``, every die exact (entered by the ST, or drawn from an
entropy found by ``entropy_for``)."""

from __future__ import annotations

from typing import Any

from domain.events import (
    AbilitySpent,
    ArmorDamaged,
    ConditionCleared,
    DamageTaken,
    DiceRolled,
    Fed,
    InitiativeSet,
    NormalActionsEnded,
    OverbidSucceeded,
    TestResolved,
    TestRevealed,
    TurnStarted,
)
from domain.state import NARRATOR
from projections.redact import redact
from tests.table import Table, entropy_for, sheet, types

PUNCH = {"kind": "damage", "amount": 2, "type": "bashing"}
BRAWL = {"category": "ability", "name": "Brawl"}


def duel(options: dict[str, Any] | None = None, **sheets: dict[str, Any]) -> Table:
    """Sam (Brawny 2, Quick 1; Brawl 2, Dodge 1; Clumsy) against Juan (Tough 2; Brawl 1)."""
    t = Table("kony", {"kony": options or {}})
    add(t, "sam", {"Brawny": 2, "Quick": 1}, sheets.get("sam", {}), abilities={"Brawl": 2, "Dodge": 1},
        traits={"mental": {"Cunning": 2}}, negative_traits={"physical": ["Clumsy"]})  # fmt: skip
    add(t, "juan", {"Tough": 2}, sheets.get("juan", {}), abilities={"Brawl": 1})
    return t


def add(t: Table, who: str, physical: dict[str, int], overrides: dict[str, Any], **fields: Any) -> None:
    """A character; ``overrides`` replace its Physical Traits or any other field."""
    fields = {**fields, **overrides}
    as_written = fields.pop("as_written", False)  # the Storyteller confirms what the rules leave open
    t.do("st", "add_character", character=sheet(who, fields.pop("physical", physical), **fields), as_written=as_written)


def attack(t: Table, cid: str = "c", who: str = "sam", target: str = "juan", **fields: Any) -> None:
    bid = fields.pop("bid", ["Brawny"])
    answer = fields.pop("answer", ["Tough"])
    effect = fields.pop("effect", PUNCH)
    defends = fields.pop("defends", None)
    t.do(who, "declare", challenge=cid, kind="contested", category="physical", targets=[target], bid=bid,
         effect=effect, **fields)  # fmt: skip
    t.do(target, "bid", challenge=cid, bid=answer, **({"effect": defends} if defends else {}))


def roll(t: Table, who: str, values: list[int], cid: str = "c", **fields: Any) -> list[Any]:
    """The ST enters ``who``'s dice, rolled at the table."""
    return t.do("st", "roll", challenge=cid, character=who, values=values, **fields)


def resolved(t: Table, cid: str = "c") -> Any:
    outcome = t.challenge(cid).outcome
    assert outcome is not None
    return outcome


def last(t: Table, kind: type) -> Any:
    return next(r.event for r in reversed(t.log) if isinstance(r.event, kind))


class TestSequence:
    def test_the_defender_relents_or_bids(self) -> None:
        """kony:declaration: "Defender either relents, or declares her response and bids a Trait"."""
        t = duel()
        t.do("sam", "declare", challenge="c", kind="contested", category="physical", targets=["juan"],
             bid=["Brawny"], effect=PUNCH)  # fmt: skip
        t.refused("juan", "bid", challenge="c", bid=["Tough", "Tough"], code="one_bid", rule="kony:declaration")
        t.do("juan", "relent", challenge="c")
        assert resolved(t).winner == "challenger" and resolved(t).rule == "kony:declaration"
        assert t.character("juan").wounds.bashing == 2 and t.lost("sam") == []

    def test_more_successes_win_and_the_loser_loses_its_bid(self) -> None:
        """kony:successes: "1 Equals a Success [...] The person with the most successes wins";
        kony:trait-loss: the loser loses the Trait it bid."""
        t = duel()
        attack(t)
        roll(t, "sam", [1])
        events = roll(t, "juan", [2])
        assert types(events)[:3] == ["dice_rolled", "test_revealed", "test_resolved"]
        shown = events[1]
        assert shown.dice == {"sam": [1], "juan": [2]} and shown.successes == {"sam": 1, "juan": 0}
        assert resolved(t).winner == "challenger"
        assert t.lost("juan") == ["Tough"] and t.character("juan").wounds.bashing == 2

    def test_throws_are_refused(self) -> None:
        """kony:d3-test: kony rolls d3s; a throw or a recorded test is refused."""
        t = duel()
        attack(t)
        t.refused("sam", "throw", challenge="c", sign="rock", code="roll_dice", rule="kony:d3-test")
        t.refused("st", "record_test", challenge="c", signs={"sam": "rock", "juan": "rock"}, code="roll_dice")


class TestDice:
    def test_one_die_plus_one_per_retest_each_source_once_and_abilities_spent(self) -> None:
        """kony:d3-test: "1+ the Number of Retests they would have"; each source once per challenge;
        Ability levels spent when the dice are shown."""
        t = duel()
        attack(t)
        t.refused("st", "roll", challenge="c", character="sam", retests=[BRAWL], values=[1], code="wrong_dice")
        t.refused("sam", "roll", challenge="c", retests=[BRAWL, BRAWL], code="source_used", rule="kony:d3-test")
        t.refused("sam", "roll", challenge="c", retests=[{"category": "willpower"}], code="source_not_allowed")
        sealed = roll(t, "sam", [3, 3], retests=[BRAWL])[0]
        assert sealed.why == "1 + 1 retest = 2 d3"
        assert t.character("sam").abilities["Brawl"] == 2  # spent at the reveal, not before
        events = roll(t, "juan", [3])
        assert [e for e in events if isinstance(e, AbilitySpent)] == [
            AbilitySpent(character="sam", ability="Brawl", challenge="c")
        ]
        assert t.character("sam").abilities["Brawl"] == 1

    def test_a_level_named_in_sealed_dice_cannot_be_named_again_before_the_reveal(self) -> None:
        """kony:d3-test: Ability levels are spent; one named in dice not yet shown is taken."""
        t = duel(sam={"abilities": {"Brawl": 1}})
        t.add("rosa", {"Quick": 1})
        attack(t)
        attack(t, "d", target="rosa", bid=["Quick"], answer=["Quick"])
        roll(t, "sam", [3, 3], retests=[BRAWL])
        t.refused("st", "roll", challenge="d", character="sam", retests=[BRAWL], values=[3, 3], code="no_ability")

    def test_the_server_rolls_from_the_commands_entropy(self) -> None:
        """kony:d3-test: without values, the server rolls each d3 from the command's entropy."""
        t = duel()
        attack(t)
        t.entropy = entropy_for(0, 2)  # faces 1 and 3
        (sealed,) = t.do("sam", "roll", challenge="c", retests=[BRAWL])
        assert sealed.dice == [1, 3] and sealed.entered_by is None

    def test_dice_entered_by_hand_come_from_the_st_unless_the_option_allows(self) -> None:
        """kony:d3-test, AMB: option dice=players lets a player enter their own dice."""
        t = duel()
        attack(t)
        t.refused("sam", "roll", challenge="c", values=[1], code="dice_by_hand", rule="kony:d3-test")
        t = duel({"dice": "players"})
        attack(t)
        (sealed,) = t.do("sam", "roll", challenge="c", values=[1])
        assert sealed.entered_by == "sam"
        t.refused("sam", "roll", challenge="c", character="juan", values=[1], code="forbidden")

    def test_sealed_dice_reach_only_the_roller_and_the_st_until_the_reveal(self) -> None:
        """kony:d3-test: the dice, their count and the retests are sealed like a throw."""
        t = duel()
        attack(t)
        roll(t, "sam", [1, 2], retests=[BRAWL])
        record = t.log[-1]
        assert isinstance(record.event, DiceRolled)
        for viewer, hidden in (("juan", True), ("*", True), ("sam", False), (NARRATOR, False)):
            wire = redact(record, viewer)
            data = bytes(wire.data)
            assert (b'"dice":null' in data) is hidden and (b"Brawl" in data) is not hidden


class TestDraws:
    def test_equal_successes_draw_and_both_lose_their_bids(self) -> None:
        """kony:draw: "In the case of any true ties in this number; the challenge is considered a draw
        and nothing happens"; kony:trait-loss: "in the case of a draw, both lose their bid Traits"."""
        t = duel()
        attack(t)
        roll(t, "sam", [1, 3], retests=[BRAWL])
        roll(t, "juan", [1])
        assert resolved(t).winner == "none" and resolved(t).rule == "kony:draw"
        assert t.lost("sam") == ["Brawny"] and t.lost("juan") == ["Tough"]
        assert t.character("juan").wounds.total == 0

    def test_option_traits_the_larger_pool_wins_equal_successes(self) -> None:
        """kony:draw, AMB ties=traits: equal successes, the larger trait pool wins."""
        t = duel({"ties": "traits"})
        attack(t)
        roll(t, "sam", [2])
        roll(t, "juan", [3])
        test = last(t, TestResolved)
        assert test.leader == "challenger" and test.compared["sam pool"] == 3 and test.compared["juan pool"] == 2

    def test_option_per_die_twos_decide(self) -> None:
        """kony:draw, AMB ties=per_die: Sam's pool (3) is larger; the 2s are his."""
        t = duel({"ties": "per_die"})
        attack(t)
        roll(t, "sam", [2, 3], retests=[BRAWL])
        roll(t, "juan", [2])
        assert last(t, TestResolved).leader == "challenger"


class TestPools:
    def test_pools_are_capped_at_thirty_after_penalties(self) -> None:
        """kony:trait-pool: "the total max regardless is 30"; kony:down-traits: "This math is done
        before the 30 trait cap rule"."""
        t = duel({"ties": "traits"}, sam={"physical": {"Brawny": 34}})
        t.do("st", "adjust", character="sam", changes={"down_traits": 3}, reason="mud")
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [3])
        assert last(t, TestResolved).compared["sam pool"] == 30  # 34 - 3 = 31, then capped

    def test_the_storyteller_sets_environmental_penalties(self) -> None:
        """kony:environment: "A Storyteller may introduce any Penalties or Negative traits for acting
        in an environment"; the penalty comes off the pool (kony:down-traits)."""
        t = duel({"ties": "traits"})
        t.do("st", "adjust", character="sam", changes={"down_traits": 2}, reason="rain")
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [3])
        test = last(t, TestResolved)
        assert test.compared["sam pool"] == 1 and test.leader == "defender"


class TestOverbid:
    def test_the_loser_with_double_the_pool_overbids_once_and_both_roll_again(self) -> None:
        """kony:overbid: "They must be bidding double [...] This creates a New Test [...] This may be
        done once"; the first bid is lost and one new Trait risked."""
        t = duel(sam={"physical": {"Brawny": 5}})
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        assert t.challenge("c").status == "retest_window"  # 5 against 2: Sam may overbid
        t.refused("sam", "retest", challenge="c", source=BRAWL, code="retests_in_roll", rule="kony:d3-test")
        events = t.do("sam", "retest", challenge="c", source={"category": "overbid", "bid": ["Brawny"]})
        assert isinstance(events[-1], OverbidSucceeded) and events[-1].compared == {"sam": 5, "juan": 2}
        assert t.lost("sam") == ["Brawny"]
        assert "Sam lost the test and overbids" in events[1].why  # type: ignore[union-attr]  # by name, not "it"
        t.refused("sam", "roll", challenge="c", retests=[BRAWL, BRAWL], code="source_used")
        roll(t, "sam", [1, 1], retests=[BRAWL])
        roll(t, "juan", [1])
        assert resolved(t).winner == "challenger" and t.lost("juan") == ["Tough"]

    def test_an_overbid_is_refused_once_the_pool_is_no_longer_double(self) -> None:
        """kony:overbid: the window opened at double; the ST's down Traits since take it away."""
        t = duel(sam={"physical": {"Brawny": 4}})
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        t.do("st", "adjust", character="sam", changes={"down_traits": 1}, reason="the mud")
        t.refused("sam", "retest", challenge="c", source={"category": "overbid", "bid": ["Brawny"]},
                  code="no_overbid", rule="kony:overbid")  # fmt: skip

    def test_no_overbid_without_double_on_a_draw_or_twice(self) -> None:
        """kony:overbid: less than double resolves at once; a draw has no loser to overbid."""
        t = duel()
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        assert resolved(t).winner == "defender"  # 3 is less than double 2: no window
        t = duel(sam={"physical": {"Brawny": 5}})
        attack(t)
        roll(t, "sam", [1])
        roll(t, "juan", [1])
        assert resolved(t).winner == "none"
        t = duel(sam={"physical": {"Brawny": 6}})
        attack(t)
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        t.do("sam", "retest", challenge="c", source={"category": "overbid", "bid": ["Brawny"]})
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        assert resolved(t).winner == "defender"  # once per challenge: resolved without a window


class TestResolution:
    def test_a_winning_defender_applies_its_own_victory_condition_and_a_ruling_undoes_it(self) -> None:
        """kony:resolution: "If the Challenged Wins their Victory condition is met"."""
        t = duel()
        attack(t, defends={"kind": "damage", "amount": 1, "type": "lethal"})
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        assert resolved(t).rule == "kony:resolution" and t.character("sam").wounds.lethal == 1
        t.do("sam", "dispute", event=t.seq_of("challenge_resolved"), reason="I rolled a 1")
        t.do("st", "rule", event=t.seq_of("challenge_resolved"), decision="overturn", reason="misread")
        assert t.character("sam").wounds.lethal == 0 and t.character("juan").wounds.bashing == 2

    def test_other_rulesets_refuse_a_defenders_effect(self) -> None:
        t = Table("lotn")
        t.add("a", {"Quick": 1})
        t.add("b", {"Tough": 1})
        t.do("a", "declare", challenge="c", kind="contested", category="physical", targets=["b"], bid=["Quick"])
        t.refused("b", "bid", challenge="c", bid=["Tough"], effect=PUNCH, code="no_defender_effect")


class TestNegativeTraits:
    def test_a_correct_call_costs_the_loser_one_more_trait_and_a_wrong_one_nothing(self) -> None:
        """kony:negative-traits: "If a negative trait is called against a character in a challenge and
        they lose that challenge; they will lose 1 additional trait from the their bids"."""
        t = duel(sam={"physical": {"Brawny": 2, "Quick": 1}})
        attack(t)
        called = t.do("juan", "call_negative", challenge="c", trait="Clumsy")[0]
        assert called.correct and called.owed_by == "sam" and called.rule == "kony:negative-traits"
        t.refused("st", "roll", challenge="c", character="sam", values=[1], code="bids_owed")
        t.do("sam", "bid", challenge="c", bid=["Quick"])
        wrong = t.do("sam", "call_negative", challenge="c", trait="Cowardly")[0]
        assert not wrong.correct and wrong.owed_by == "" and t.challenge("c").defender.owed == 0
        roll(t, "sam", [3])
        roll(t, "juan", [1])
        assert sorted(t.lost("sam")) == ["Brawny", "Quick"] and t.lost("juan") == []


class TestModifiers:
    def test_ranged_adds_a_die_unless_the_target_can_shoot_back(self) -> None:
        """kony:ranged: "gains one Retest for the purposes of the number of d3s they roll IF the
        Challenged does not have a means of making a ranged attack in return"."""
        t = duel(juan={"weapons": [{"name": "Glock", "kind": "firearms"}]})
        t.refused(
            "sam", "declare", challenge="c", kind="contested", category="physical", targets=["juan"], bid=["Brawny"],
            ranged=True, code="can_shoot_back", rule="kony:ranged",
        )  # fmt: skip
        t = duel()
        attack(t, ranged=True)
        assert roll(t, "sam", [3, 3])[0].why == "1 + 0 retests + 1 ranged (kony:ranged) = 2 d3"

    def test_surprise_adds_a_die_in_any_round(self) -> None:
        """kony:surprise: "Characters who gain the surprised condition on those the Challenged gain 1
        Retest for their pool" (any round: asserted, the ST disputes)."""
        t = duel()
        attack(t, surprise=True)
        assert roll(t, "sam", [3, 3])[0].why.endswith("+ 1 surprise (kony:surprise) = 2 d3")

    def test_a_power_needs_line_of_sight(self) -> None:
        """kony:line-of-sight: "it requires Line of Sight to use on another character"."""
        t = duel(sam={"powers": {"Dominate": 1}})
        t.refused(
            "sam", "declare", challenge="c", kind="contested", category="mental", targets=["juan"], bid=["Cunning"],
            power="Dominate", unseen=True, code="line_of_sight", rule="kony:line-of-sight",
        )  # fmt: skip

    def test_darkness_costs_two_traits_and_a_die_never_the_last(self) -> None:
        """kony:blind-fighting: "down 2 traits in all challenges and lose one of their retests"."""
        t = duel({"ties": "traits"})
        attack(t, darkness="challenger")
        assert roll(t, "sam", [3])[0].why == "1 + 0 retests - 1 darkness (kony:blind-fighting) = 1 d3"
        roll(t, "juan", [3])
        assert last(t, TestResolved).compared["sam pool"] == 1  # 3 - 2

    def test_auspex_or_the_ability_negates_darkness_held_or_spent(self) -> None:
        """kony:blind-fighting: "negated with Auspex 1, Protean 1, and Use of the Blind Fighting
        ability"; AMB blind_fighting=spend: a level named in the roll negates it."""
        t = duel(sam={"powers": {"Auspex": 1}})
        attack(t, darkness="both")
        assert roll(t, "sam", [3])[0].why == "1 + 0 retests = 1 d3"
        assert "darkness" in roll(t, "juan", [3])[0].why
        held = {"abilities": {"Brawl": 2, "Blind Fighting": 1}}
        t = duel({"ties": "traits"}, sam=held)
        attack(t, darkness="challenger")
        assert roll(t, "sam", [3])[0].why == "1 + 0 retests = 1 d3"
        t = duel({"blind_fighting": "spend", "ties": "traits"}, sam=held)
        attack(t, darkness="challenger")
        sealed = roll(t, "sam", [3, 3], retests=[BRAWL, {"category": "ability", "name": "Blind Fighting"}])[0]
        assert sealed.why == "1 + 1 retest = 2 d3"
        roll(t, "juan", [3])
        assert last(t, TestResolved).compared["sam pool"] == 3  # spent: not down 2 either
        assert t.character("sam").abilities == {"Brawl": 1, "Blind Fighting": 0}

    def test_one_held_must_bid_an_additional_trait(self) -> None:
        """kony:grapple: "If a target is immobilized but still struggling, he must bid an additional
        Trait to enter a Physical Challenge"."""
        t = duel(juan={"physical": {"Tough": 3}})
        attack(t, effect={"kind": "grapple"})
        roll(t, "sam", [1])
        roll(t, "juan", [3])
        assert t.character("juan").conditions.grappled_by == "sam"
        t.refused(
            "juan", "declare", challenge="d", kind="contested", category="physical", targets=["sam"], bid=["Tough"],
            code="grappled_bid", rule="kony:grapple",
        )  # fmt: skip
        t.do("juan", "declare", challenge="d", kind="contested", category="physical", targets=["sam"],
             bid=["Tough", "Tough"])  # fmt: skip


class TestCarrierAttacks:
    def test_one_carrier_attack_per_action(self) -> None:
        """kony:carrier-attacks: "A Character may only use 1 Carrier Attack per action they have": a
        declaration names one power and spends an action, even one usable at any time."""
        t = fight(sam={"powers": {"Dominate": 1}, "immediate_powers": ["Dominate"], "extra_actions": 1})
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        dominate = {"kind": "contested", "category": "mental", "targets": ["juan"], "bid": ["Cunning"]}
        t.do("sam", "declare", challenge="d1", power="Dominate", immediate=True, **dominate)
        assert t.character("sam").actions_left == 1
        t.do("sam", "declare", challenge="d2", power="Dominate", immediate=True, **dominate)
        t.refused("sam", "declare", challenge="d3", power="Dominate", immediate=True, code="no_action_left",
                  **dominate)  # fmt: skip


class TestDamage:
    def test_armour_takes_damage_first(self) -> None:
        """kony:damage-order: "always to armor (including supernatural forms) first, prior to being
        resisted with Fortitude or similar powers"."""
        t = duel(juan={"armor": 1})
        attack(t)
        events = roll(t, "sam", [1]) + roll(t, "juan", [3])
        armour = next(e for e in events if isinstance(e, ArmorDamaged))
        damage = next(e for e in events if isinstance(e, DamageTaken))
        assert (armour.amount, damage.amount) == (1, 1) and events.index(armour) < events.index(damage)
        assert t.character("juan").armor_lost == 1


def fight(options: dict[str, Any] | None = None, **sheets: dict[str, Any]) -> Table:
    """Sam, Juan and Rosa (Quick 1), and an NPC combat sheet, the Beast."""
    t = duel(options, **sheets)
    add(t, "rosa", {"Quick": 3}, sheets.get("rosa", {}), abilities={"Dodge": 1})
    return t


def declared(t: Table, **actions: str) -> list[Any]:
    """Everyone declares a challenge action against someone; then the expenditures each say done."""
    events: list[Any] = []
    for who, target in actions.items():
        action = {"kind": "challenge", "category": "physical", "target": target}
        events += t.do(who, "declare_action", action=action)
    return events


def spent_all(t: Table, *who: str) -> list[Any]:
    events: list[Any] = []
    for w in who:
        events += t.do(w, "expenditures_done")
    return events


class TestRounds:
    def test_declarations_then_expenditures_then_initiative(self) -> None:
        """kony:expenditures: "The Challengers and Defenders declare any Trait Expenditures such as
        blood etc" (after declarations, before initiative)."""
        t = fight(sam={"blood": 5})
        t.do("st", "start_round")
        t.refused("sam", "spend_blood", kind="strength", code="wrong_phase", rule="kony:expenditures")
        declared(t, sam="juan", juan="sam", rosa="juan")
        assert t.state.round is not None and t.state.round.phase == "expending"
        blood = t.do("sam", "spend_blood", kind="strength")[0]
        assert blood.rule == "kony:expenditures"
        assert types(spent_all(t, "sam", "juan")) == ["expenditures_done", "expenditures_done"]
        assert t.state.round.phase == "expending"  # Rosa has not said done
        events = t.do("rosa", "expenditures_done")
        assert isinstance(events[1], InitiativeSet)
        t.refused("sam", "expenditures_done", code="wrong_phase", rule="kony:expenditures")

    def test_initiative_is_named_traits_plus_celerity_to_five(self) -> None:
        """kony:initiative: "Attribute Total (Named traits Only) for their declared action + Their
        level of the Celerity Discipline (1-5)"; lost Traits off, blood bonuses not counted."""
        t = fight(sam={"powers": {"Celerity": 7}, "blood": 3, "as_written": True})  # beyond 1-5: confirmed
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        t.do("sam", "spend_blood", kind="strength")
        order = next(e for e in spent_all(t, "sam", "juan", "rosa") if isinstance(e, InitiativeSet))
        assert order.values == {"sam": 3 + 5, "juan": 2, "rosa": 3}
        assert order.order == [["sam"], ["rosa"], ["juan"]] and order.rule == "kony:initiative"

    def test_ties_are_rolled_on_a_d10_rerolled_while_tied_and_not_for_the_st_to_order(self) -> None:
        """kony:initiative-ties: "the Players roll 1 d10. Whoever gets the highest will go first. You
        may not contest actions"; AMB: equal d10s are rolled again, each roll recorded."""
        t = fight()  # Sam 3 and Rosa 3 tie; Juan 2
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        t.do("sam", "expenditures_done")
        t.do("juan", "expenditures_done")
        t.entropy = entropy_for(4, 4, 6, 8, among=10)  # Rosa 5, Sam 5, then Rosa 7, Sam 9
        order = next(e for e in t.do("rosa", "expenditures_done") if isinstance(e, InitiativeSet))
        assert order.rolls == {"rosa": [5, 7], "sam": [5, 9]} and order.rule == "kony:initiative-ties"
        assert order.order == [["sam"], ["rosa"], ["juan"]]
        t.refused("st", "order", characters=["rosa", "sam"], code="dice_decide", rule="kony:initiative-ties")

    def test_extra_actions_come_after_everyones_first_and_the_end_of_round_before_them(self) -> None:
        """kony:turn: "The end of a character's turn is the end of their first normal “every man”
        action"; kony:round: "the collective total of all characters actions (including extra
        actions)"; kony:end-of-round, the document's example: "if Majesty is dropped, it will go up at
        the end of normal actions" (before Celerity's extra action)."""
        t = fight(sam={"extra_actions": 1})
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        r = t.state.round
        assert r is not None and r.turn == ("rosa",)
        t.do("st", "adjust", character="rosa", changes={"set_conditions": ["majesty_dropped"]}, reason="Rosa attacks")
        t.do("rosa", "end_turn")
        attack(t, "c1")
        roll(t, "sam", [3], cid="c1")
        roll(t, "juan", [3], cid="c1")
        t.refused("sam", "declare", challenge="c2", kind="contested", category="physical", targets=["juan"],
                  bid=["Quick"], code="one_test_action")  # fmt: skip
        t.do("sam", "end_turn")
        events = t.do("juan", "end_turn")
        ended = next(e for e in events if isinstance(e, NormalActionsEnded))
        cleared = next(e for e in events if isinstance(e, ConditionCleared))
        extra = next(e for e in events if isinstance(e, TurnStarted) and e.phase == "extra")
        assert events.index(ended) < events.index(cleared) < events.index(extra)
        assert cleared.name == "majesty_dropped" and cleared.rule == "kony:end-of-round"
        assert t.character("rosa").conditions.marked("majesty_dropped") is None and extra.characters == ["sam"]

    def test_a_round_ended_early_still_reaches_its_end(self) -> None:
        """kony:end-of-round: the ST ends the round before everyone's normal action: what lasts until
        the end of the round ends then, once."""
        t = fight()
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        t.do("st", "adjust", character="rosa", changes={"set_conditions": ["majesty_dropped"]}, reason="Rosa attacks")
        events = t.do("st", "end_round")
        assert types(events) == ["normal_actions_ended", "condition_cleared", "round_ended"]
        t = fight()
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        for who in ("rosa", "sam", "juan"):
            t.do(who, "end_turn")
        assert types(t.do("st", "end_round")) == ["round_ended"]

    def test_no_simple_tests_and_combat_sheets_are_npcs(self) -> None:
        """kony:d3-test: kony has no simple tests; kony:npc-sheets: a combat sheet is an NPC's."""
        t = duel()
        t.refused("sam", "declare", challenge="s", kind="simple", category="physical", code="unsupported",
                  rule="kony:d3-test")  # fmt: skip
        t.refused("st", "add_character", character=sheet("x", {"Quick": 1}, combat_sheet=True), code="bad_sheet",
                  rule="kony:npc-sheets")  # fmt: skip

    def test_option_on_turn_takes_every_action_at_once(self) -> None:
        """kony:actions, AMB extra_actions=on_turn: "they will take all their actions one after the
        other immediately during their turn"."""
        t = fight({"extra_actions": "on_turn"}, sam={"extra_actions": 1, "physical": {"Brawny": 5}})
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        attack(t, "c1")
        roll(t, "sam", [3], cid="c1")
        roll(t, "juan", [1], cid="c1")
        t.do("sam", "pass", challenge="c1")
        attack(t, "c2", answer=["Tough"])
        assert t.challenge("c2").round == 1

    def test_a_defender_always_answers_without_an_action(self) -> None:
        """kony:dodging: "Does not require a full action. A character may always Dodge an attack"."""
        t = fight()
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        t.do("rosa", "declare", challenge="r", kind="contested", category="physical", targets=["juan"],
             bid=["Quick"])  # fmt: skip
        t.do("juan", "bid", challenge="r", bid=["Tough"])
        t.do("st", "roll", challenge="r", character="rosa", values=[3])
        t.do("st", "roll", challenge="r", character="juan", values=[3])
        t.do("rosa", "end_turn")
        t.do("sam", "declare", challenge="s", kind="contested", category="physical", targets=["juan"],
             bid=["Brawny"])  # fmt: skip
        assert types(t.do("juan", "bid", challenge="s", bid=["Tough"])) == ["bid_placed"]


class TestEscapeAndFeeding:
    def test_a_fair_escape_before_any_declaration_only(self) -> None:
        """kony:fair-escape: "Before any Declaration is made, a character may declare the fair escape
        condition and leave the scene"; later only with a power (AMB escape=round by default)."""
        t = fight(juan={"escape_powers": ["Shadow Step"]})
        t.do("st", "start_round")
        events = t.do("rosa", "declare_action", action={"kind": "fair_escape"})
        assert events[-1].rule == "kony:fair-escape" and t.character("rosa").conditions.fair_escape == "escaped"
        t.do("sam", "declare_action", action={"kind": "challenge", "category": "physical", "target": "juan"})
        t.refused("st", "declare_action", character="rosa", action={"kind": "fair_escape"}, code="already_declared")
        t = fight(juan={"escape_powers": ["Shadow Step"]})
        t.do("st", "start_round")
        t.do("sam", "declare_action", action={"kind": "challenge", "category": "physical", "target": "juan"})
        t.refused("rosa", "declare_action", action={"kind": "fair_escape"}, code="too_late", rule="kony:fair-escape")
        assert "Shadow Step" in t.do("juan", "declare_action", action={"kind": "fair_escape"})[-1].why

    def test_option_fight_only_before_the_fights_first_declaration(self) -> None:
        """kony:fair-escape, AMB escape=fight: no escape at the start of a later round."""
        t = fight({"escape": "fight"})
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        spent_all(t, "sam", "juan", "rosa")
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.refused("rosa", "declare_action", action={"kind": "fair_escape"}, code="too_late", rule="kony:fair-escape")

    def test_the_escaped_have_left_nobody_declares_against_them(self) -> None:
        """kony:fair-escape-condition: "Characters with the Fair Escape Condition are allowed to leave
        the combat scene": no action is declared against one who escaped, no challenge (in the
        round or after it), and she loses nothing."""
        t = fight()
        t.do("st", "start_round")
        t.do("rosa", "declare_action", action={"kind": "fair_escape"})
        at_rosa = {"kind": "challenge", "category": "physical", "target": "rosa"}
        refused = t.refused("sam", "declare_action", action=at_rosa, code="escaped", rule="kony:fair-escape-condition")
        assert refused.message.startswith("Rosa has left the combat scene by a fair escape")
        t.do("sam", "declare_action", action={"kind": "challenge", "category": "physical"})
        t.do("juan", "declare_action", action={"kind": "none"})
        spent_all(t, "sam", "juan")
        assert t.state.round is not None and t.state.round.turn == ("sam",)
        punch_rosa = {"challenge": "c", "kind": "contested", "category": "physical", "targets": ["rosa"],
                      "bid": ["Brawny"], "effect": PUNCH}  # fmt: skip
        t.refused("sam", "declare", **punch_rosa, code="escaped", rule="kony:fair-escape-condition")
        t.do("sam", "end_turn")
        t.do("juan", "end_turn")
        t.do("st", "end_round")
        t.refused("sam", "declare", **punch_rosa, code="escaped", rule="kony:fair-escape-condition")
        rosa = t.character("rosa")
        assert rosa.lost_names == [] and rosa.wounds.bashing == 0 and rosa.conditions.fair_escape == "escaped"
        assert not any("rosa" in getattr(r.event, "targets", ()) for r in t.log)

    def test_the_escaped_are_out_of_the_order_and_declare_nothing(self) -> None:
        """kony:fair-escape-condition: one who left the combat scene gets no turn, not even for an
        extra action, this round or the next (not a new fight), and declares nothing there."""
        t = fight(rosa={"extra_actions": 1})
        t.do("st", "start_round")
        t.do("rosa", "declare_action", action={"kind": "fair_escape"})
        declared(t, sam="juan", juan="sam")
        spent_all(t, "sam", "juan")
        t.do("sam", "end_turn")
        events = t.do("juan", "end_turn")  # everyone's normal action done: the extra actions, if any
        assert any(isinstance(e, NormalActionsEnded) for e in events)
        assert [e for e in events if isinstance(e, TurnStarted)] == []
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.refused("rosa", "declare_action", action={"kind": "challenge", "category": "physical", "target": "sam"},
                  code="escaped", rule="kony:fair-escape-condition")  # fmt: skip
        declared(t, sam="juan", juan="sam")
        order = next(e for e in spent_all(t, "sam", "juan") if isinstance(e, InitiativeSet))
        assert order.order == [["sam"], ["juan"]]
        t.refused("rosa", "declare", challenge="r", kind="contested", category="physical", targets=["juan"],
                  bid=["Quick"], immediate=True, code="escaped", rule="kony:fair-escape-condition")  # fmt: skip
        turns = [r.event for r in t.log if isinstance(r.event, TurnStarted)]
        assert turns and all("rosa" not in e.characters for e in turns)

    def test_nobody_feeds_on_the_escaped(self) -> None:
        """kony:fair-escape-condition: held by Sam's Brawl grapple, Rosa fair-escapes; once gone, Sam
        cannot feed on her (kony:feeding)."""
        t = fight(rosa={"blood": 10})
        attack(t, "g", target="rosa", effect={"kind": "grapple"}, answer=["Quick"])
        roll(t, "sam", [1, 3], cid="g", retests=[BRAWL])
        roll(t, "rosa", [3], cid="g")
        t.do("st", "start_round")
        t.do("rosa", "declare_action", action={"kind": "fair_escape"})
        t.do("st", "end_round")
        t.refused("sam", "feed", target="rosa", blood=1, code="escaped", rule="kony:fair-escape-condition")
        assert t.character("rosa").blood_spent == 0

    def test_the_storyteller_brings_the_escaped_back(self) -> None:
        """kony:fair-escape-condition: the Storyteller clears the condition (``adjust``, ``escaped``):
        she is in the next declarations and the order, and can be declared against again."""
        t = fight()
        t.do("st", "start_round")
        t.do("rosa", "declare_action", action={"kind": "fair_escape"})
        t.refused("st", "adjust", character="sam", changes={"clear_conditions": ["escaped"]}, reason="back",
                  code="bad_adjustment")  # fmt: skip
        t.refused("st", "adjust", character="sam", changes={"set_conditions": ["escaped"]}, reason="gone",
                  code="bad_adjustment")  # fmt: skip
        cleared = t.do("st", "adjust", character="rosa", changes={"clear_conditions": ["escaped"]},
                       reason="Rosa comes back through the door")[-1]  # fmt: skip
        assert isinstance(cleared, ConditionCleared) and cleared.name == "escaped"
        assert t.character("rosa").conditions.fair_escape is None and t.character("rosa").action is None
        declared(t, sam="rosa", juan="sam")
        assert t.state.round is not None and t.state.round.phase == "declaring"  # the round waits for her now
        declared(t, rosa="sam")
        spent_all(t, "sam", "juan")
        t.entropy = entropy_for(0, 9, among=10)  # Sam and Rosa tie on 3: Rosa's d10 1, Sam's 10
        order = next(e for e in t.do("rosa", "expenditures_done") if isinstance(e, InitiativeSet))
        assert order.order == [["sam"], ["rosa"], ["juan"]]
        attack(t, "c", target="rosa", answer=["Quick"])
        roll(t, "sam", [1])
        roll(t, "rosa", [3])
        assert resolved(t).winner == "challenger" and t.character("rosa").wounds.bashing == 2
        assert t.lost("rosa") == ["Quick"]

    def test_feeding_needs_a_grapple_won_with_brawl_and_takes_three_a_round(self) -> None:
        """kony:feeding: "You must establish a Grapple on a character with a contested Physical
        Challenge retested with Brawl. On your next action you may start to feed. A character may
        only take up to 3 blood traits a round in combat from a target"."""
        t = duel(juan={"blood": 10})
        attack(t, effect={"kind": "grapple"})
        roll(t, "sam", [1])
        roll(t, "juan", [3])
        t.refused("sam", "feed", target="juan", code="no_brawl", rule="kony:feeding")
        t.do("sam", "let_go")
        attack(t, "g", effect={"kind": "grapple"}, bid=["Quick"])
        roll(t, "sam", [1, 3], cid="g", retests=[BRAWL])
        roll(t, "juan", [3], cid="g")
        fed = t.do("sam", "feed", target="juan", blood=2)[0]
        assert isinstance(fed, Fed) and t.character("juan").blood_spent == 2
        t.refused("sam", "feed", target="juan", blood=2, code="feed_limit", rule="kony:feeding")
        t.do("sam", "feed", target="juan", blood=1)
        assert t.character("juan").drained == {"sam": 3} and t.character("juan").blood_spent == 3
        t.refused("sam", "feed", target="juan", code="feed_limit")


def beast(t: Table, **fields: Any) -> None:
    t.do(
        "st",
        "add_character",
        character=sheet("beast", {"Monstrous": 12}, npc=True, combat_sheet=True, health=20, retests=2, **fields),
    )


class TestNarrative:
    def narrative(self, options: dict[str, Any] | None = None, **fields: Any) -> Table:
        t = fight(options, sam={"powers": {"Celerity": 2}})
        beast(t, **fields)
        t.do("st", "start_round", narrative=True)
        for who in ("sam", "juan", "rosa"):
            t.do(who, "declare_action", action={"kind": "challenge", "category": "physical", "target": "beast"})
        t.do("st", "declare_action", character="beast", action={"kind": "challenge", "category": "physical"})
        spent_all(t, "sam", "juan", "rosa", "beast")
        return t

    def test_only_against_npcs(self) -> None:
        """kony:narrative: "This rule is only ever be used in PVE situations"."""
        t = fight()
        attack(t)
        t.refused("st", "start_round", narrative=True, code="not_pve", rule="kony:narrative")
        t = self.narrative()
        t.refused("sam", "declare", challenge="x", kind="static", category="physical", targets=["juan"],
                  bid=["Brawny"], difficulty=3, code="not_pve", rule="kony:narrative")  # fmt: skip

    def test_an_npc_attacks_a_player_as_a_contested_challenge(self) -> None:
        """kony:narrative-test covers the players' challenges; an NPC's attack on a player is a
        contested challenge, both sides rolling (the player's defence is not a static test)."""
        t = self.narrative()
        t.do("st", "declare", character="beast", challenge="b", kind="contested", category="physical",
             targets=["rosa"], bid=["Monstrous"], effect=PUNCH)  # fmt: skip
        t.do("rosa", "bid", challenge="b", bid=["Quick"])
        roll(t, "beast", [1], cid="b")
        roll(t, "rosa", [3], cid="b")
        assert resolved(t, "b").winner == "challenger" and t.character("rosa").wounds.bashing == 2

    def test_initiative_counts_the_traits_bid_and_celerity(self) -> None:
        """kony:narrative-initiative: "This equals your Total Traits bid in the challenge you intend to
        throw and your levels of celerity 1-5"."""
        t = self.narrative()
        r = t.state.round
        assert r is not None and r.values["sam"] == 3 + 2 and r.values["beast"] == 12

    def test_a_two_compares_traits_with_the_difficulty_equal_loses(self) -> None:
        """kony:narrative-test: "in case you roll a 2 [...] compare your trait totals for your action to
        the difficulty number"; AMB: equal is a loss by default, a win with narrative_equal=win."""
        for option, winner in (("loss", "defender"), ("win", "challenger")):
            t = self.narrative({"narrative_equal": option})
            t.do("st", "end_turn", character="beast")
            t.do("sam", "declare", challenge="n", kind="static", category="physical", targets=["beast"],
                 bid=["Brawny"], difficulty=3, effect=PUNCH)  # fmt: skip
            roll(t, "sam", [2], cid="n")
            assert resolved(t, "n").winner == winner, option

    def test_several_dice_any_one_wins_after_the_rerolls(self) -> None:
        """kony:narrative-retests: "roll a number of D3s equal to 1+ your number of retests"; AMB: any 1
        left after rerolls wins; kony:narrative-rerolls: "a number of D3s you must reroll upon a
        success"."""
        t = self.narrative(rerolls=1)
        t.do("st", "end_turn", character="beast")
        t.do("sam", "declare", challenge="n", kind="static", category="physical", targets=["beast"],
             bid=["Brawny"], difficulty=5, effect=PUNCH)  # fmt: skip
        t.refused("st", "roll", challenge="n", character="sam", values=[1, 3], retests=[BRAWL],
                  code="rerolls_needed", rule="kony:narrative-rerolls")  # fmt: skip
        events = roll(t, "sam", [1, 3], cid="n", retests=[BRAWL], rerolls=[3])
        shown = next(e for e in events if isinstance(e, TestRevealed))
        assert shown.dice == {"sam": [1, 3]} and shown.rerolled == [3, 3]
        assert resolved(t, "n").winner == "defender"
        t.do("st", "end_round")

    def test_the_server_rerolls_and_all_actions_come_on_ones_turn(self) -> None:
        """kony:narrative-actions: "you will take all your actions immediately one after another";
        kony:narrative-rerolls drawn by the server."""
        t = self.narrative(rerolls=2)
        t.do("st", "end_turn", character="beast")
        t.do("sam", "declare", challenge="n", kind="static", category="physical", targets=["beast"],
             bid=["Brawny"], difficulty=5, effect=PUNCH)  # fmt: skip
        t.entropy = entropy_for(0, 0, 2, 0)  # Sam rolls 1, 1; both rerolled: 3, then 1
        events = t.do("sam", "roll", challenge="n", retests=[BRAWL])
        shown = next(e for e in events if isinstance(e, TestRevealed))
        assert shown.dice == {"sam": [1, 1]} and shown.rerolled == [3, 1]
        assert resolved(t, "n").winner == "challenger" and t.character("beast").wounds.bashing == 2

    def test_npc_combat_sheets_act_outside_the_order_with_their_retests(self) -> None:
        """kony:npc-sheets: "a large number of Health Levels [...] multiple actions which the
        Storyteller can take at varying points of the combat outside the normal flow of Combat"."""
        t = fight()
        beast(t)
        t.do("st", "start_round")
        declared(t, sam="juan", juan="sam", rosa="juan")
        t.do("st", "declare_action", character="beast", action={"kind": "challenge", "category": "physical"})
        spent_all(t, "sam", "juan", "rosa", "beast")
        r = t.state.round
        assert r is not None and r.turn == ("beast",)
        t.do("st", "end_turn", character="beast")
        t.do("st", "declare", character="beast", challenge="b", kind="contested", category="physical",
             targets=["rosa"], bid=["Monstrous"], effect=PUNCH)  # fmt: skip
        t.do("rosa", "bid", challenge="b", bid=["Quick"])
        sheet_retest = {"category": "sheet"}
        t.refused("st", "roll", challenge="b", character="beast", values=[3, 3, 3, 3],
                  retests=[sheet_retest] * 3, code="no_retest_left", rule="kony:npc-sheets")  # fmt: skip
        roll(t, "beast", [3, 1, 3], cid="b", retests=[sheet_retest] * 2)
        roll(t, "rosa", [3], cid="b")
        assert resolved(t, "b").winner == "challenger" and t.state.characters["beast"].sheet.health == 20
