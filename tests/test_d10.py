"""Tens (tests/rulesets/d10/tens.txt), a fifth ruleset kept in the tests, played through the engine:
a ruleset from outside ``domain/rules/`` that joins the registry (tests/conftest.py loads it) and
plays every step the lifecycle asks of it. One test at least names each of its rule ids."""

from __future__ import annotations

from typing import Any

import pytest

import tests.rulesets.d10
from domain.errors import Rejected
from domain.events import ChallengeResolved, DamageTaken, DiceRolled, InitiativeSet, TestResolved, TestRevealed
from domain.evolve import fold
from domain.rules import RULES, RULESETS, load, ruleset_for
from projections.narrate import narrate
from projections.rules import rulesets
from projections.views import view
from tests.table import Table, entropy_for, types

PUNCH = {"kind": "damage", "amount": 2, "type": "bashing"}


def tens(options: dict[str, Any] | None = None, **sheets: dict[str, Any]) -> Table:
    """Sam (Physical 3, Mental 2; Brawl 2) and Juan (Physical 2, Mental 3; Dodge 1)."""
    t = Table("d10", {"d10": options or {}})
    people = {
        "sam": {"attributes": {"physical": 3, "social": 2, "mental": 2}, "skills": {"Brawl": 2}},
        "juan": {"attributes": {"physical": 2, "social": 2, "mental": 3}, "skills": {"Dodge": 1}},
        **sheets,
    }
    for who, fields in people.items():
        as_written = fields.pop("as_written", False)  # the Storyteller keeps a sheet beyond the scale
        t.do("st", "add_character", character={"id": who, "name": who.capitalize(), **fields}, as_written=as_written)
    return t


def attack(t: Table, cid: str = "c", *, skill: str | None = "Brawl", dodge: str | None = "Dodge") -> None:
    """Sam punches Juan with Physical (+ Brawl); Juan answers with Physical (+ Dodge)."""
    t.do("sam", "declare", challenge=cid, kind="contested", targets=["juan"], category="physical",
         pool={"skill": skill} if skill else {}, effect=PUNCH)  # fmt: skip
    t.do("juan", "bid", challenge=cid, pool={"defense": "dodge", **({"skill": dodge} if dodge else {})})


def roll(t: Table, who: str, values: list[int], cid: str = "c") -> list[Any]:
    """The Storyteller enters ``who``'s dice, rolled at the table."""
    return t.do("st", "roll", challenge=cid, character=who, values=values)


def outcome(t: Table, cid: str = "c") -> Any:
    found = t.challenge(cid).outcome
    assert found is not None
    return found


def replays(t: Table) -> None:
    """The log folds back into the very state the table holds (replay equals the live fold)."""
    assert t.replayed() == t.state


class TestRegistry:
    def test_it_joins_from_outside_domain_rules(self) -> None:
        """The registry plays it from its package in tests/rulesets/ (loading it again changes nothing);
        its rule table is every rule id ``d10:…`` of its own document."""
        assert RULESETS["d10"] is tests.rulesets.d10.RULESET
        assert type(RULESETS["d10"]).__module__.startswith("tests.rulesets.d10")
        load("tests.rulesets.d10")
        assert list(RULESETS).count("d10") == 1
        ids = [rule_id for rule_id in RULES if rule_id.startswith("d10:")]
        assert len(ids) == 13 and all(RULES[i].document == "tens.txt" for i in ids)
        assert RULES["d10:successes"].source == "Tens, a house system"

    def test_the_pages_descriptor_lists_its_option_die_and_sheet(self) -> None:
        """What /rulesets.json serves of it: its title, its one option, its die, its sheet fields."""
        (found,) = [r for r in rulesets() if r.name == "d10"]
        assert found.title == "Tens" and not found.default
        assert [(o.name, o.default, o.label) for o in found.options] == [("double_tens", False, "Double tens")]
        assert found.rules.die is not None and found.rules.die.size == 10 and found.rules.die.successes == [8, 9, 10]
        assert found.rules.rounds and found.rules.family == "dice"
        assert [f.name for f in found.sheet] == ["health", "attributes", "skills"]

    def test_its_options_are_its_own(self) -> None:
        """An option of another ruleset, or a wrong value, is refused as a scene opens."""
        Table("d10", {"d10": {"double_tens": True}})
        for options in ({"kony": {"dice": "players"}}, {"d10": {"double_tens": "yes"}}, {"d10": {"ties": "draw"}}):
            with pytest.raises(Rejected) as refused:
                Table("d10", options)
            assert refused.value.code == "bad_options"


class TestSheet:
    def test_three_attributes_and_skills(self) -> None:
        """d10:sheet: Physical, Social and Mental, 1 to 5; skills 1 to 5; no Traits."""
        t = tens()
        t.refused("st", "add_character", character={"id": "x", "name": "X", "traits": {"physical": {"Brawny": 1}}},
                  code="bad_sheet", rule="d10:sheet")  # fmt: skip
        t.refused("st", "add_character", character={"id": "x", "name": "X", "attributes": {"physical": 3}},
                  code="bad_sheet", rule="d10:sheet")  # fmt: skip
        big = {"id": "x", "name": "X", "attributes": {"physical": 7, "social": 1, "mental": 1}}
        t.refused("st", "add_character", character=big, code="unusual_sheet")
        t.do("st", "add_character", character=big, as_written=True)  # the Storyteller keeps it as written
        assert t.character("x").sheet.attributes["physical"] == 7


class TestChallenge:
    def test_a_contested_challenge_with_dice_rolled_at_the_table(self) -> None:
        """d10:pool: attribute of the category + one skill named; d10:dice: each side rolls its pool,
        the Storyteller enters dice rolled at the table; d10:successes: 8, 9 and 10 succeed, more wins;
        the winner's victory condition applies and nothing else is lost."""
        t = tens()
        attack(t)
        assert t.challenge("c").challenger.pool is not None and t.challenge("c").challenger.pool.total == 5
        t.refused("st", "roll", challenge="c", character="sam", values=[8, 9], code="wrong_dice", rule="d10:dice")
        sealed = roll(t, "sam", [8, 3, 10, 1, 2])
        assert sealed == [DiceRolled(challenge="c", test=1, character="sam", dice=[8, 3, 10, 1, 2],
                                     why="Physical 3 + Brawl 2 = 5 d10", entered_by="st")]  # fmt: skip
        events = roll(t, "juan", [9, 1, 1])
        assert types(events) == [
            "dice_rolled", "test_revealed", "test_resolved", "challenge_resolved", "damage_taken",
        ]  # fmt: skip
        shown = events[1]
        assert isinstance(shown, TestRevealed) and shown.rule == "d10:successes"
        assert shown.successes == {"sam": 2, "juan": 1} and shown.result == "win"
        assert shown.pools["juan"].describe() == "Physical 2 + Dodge 1 = 3"
        assert outcome(t).winner == "challenger" and outcome(t).rule == "d10:successes"
        assert t.character("juan").wounds.bashing == 2 and t.lost("sam") == [] and t.lost("juan") == []
        assert isinstance(events[-1], DamageTaken)
        replays(t)

    def test_the_server_draws_the_dice(self) -> None:
        """d10:dice: without values the server rolls each d10 from the command's entropy."""
        t = tens(sam={"attributes": {"physical": 2, "social": 1, "mental": 1}},
                 juan={"attributes": {"physical": 1, "social": 1, "mental": 1}})  # fmt: skip
        attack(t, skill=None, dodge=None)
        t.entropy = entropy_for(9, 2, among=10)  # faces 10 and 3
        (sealed,) = t.do("sam", "roll", challenge="c")
        assert sealed.dice == [10, 3] and sealed.entered_by is None and sealed.why == "Physical 2 = 2 d10"
        t.entropy = entropy_for(7, among=10)  # an 8
        events = t.do("juan", "roll", challenge="c")
        assert events[0].dice == [8]
        # one success each, and Sam's pool is larger (d10:ties)
        assert outcome(t).winner == "challenger" and outcome(t).rule == "d10:ties"
        replays(t)

    def test_equal_successes_go_to_the_larger_pool_then_to_the_defender(self) -> None:
        """d10:ties: "On equal successes the larger pool wins; if the pools are equal too, the defender
        holds and the challenger fails"."""
        t = tens()
        attack(t)  # Sam 5 dice, Juan 3
        roll(t, "sam", [8, 1, 1, 1, 1])
        roll(t, "juan", [9, 1, 1])
        assert outcome(t).winner == "challenger" and outcome(t).rule == "d10:ties"
        assert "pools of 5 against 3: the larger pool wins" in outcome(t).why
        t = tens(juan={"attributes": {"physical": 3, "social": 2, "mental": 2}, "skills": {"Dodge": 2}})
        attack(t)  # 5 dice each
        roll(t, "sam", [8, 1, 1, 1, 1])
        roll(t, "juan", [9, 1, 1, 1, 1])
        assert outcome(t).winner == "defender" and outcome(t).rule == "d10:ties"
        assert "the defender holds" in outcome(t).why
        assert t.character("juan").wounds.bashing == 0
        replays(t)

    def test_double_tens_changes_the_outcome(self) -> None:
        """d10:double-tens: the one house option. The same dice: without it Juan has more successes;
        with it a 10 counts twice, the successes are equal and Sam's larger pool wins."""
        for double, winner, rule in ((False, "defender", "d10:successes"), (True, "challenger", "d10:ties")):
            t = tens({"double_tens": double})
            attack(t)
            roll(t, "sam", [10, 1, 1, 1, 1])
            shown = roll(t, "juan", [8, 9, 1])[1]
            assert shown.successes == {"sam": 2 if double else 1, "juan": 2}
            assert (outcome(t).winner, outcome(t).rule) == (winner, rule)
            assert ("tens count twice" in outcome(t).why) is double
            replays(t)

    def test_a_static_challenge_needs_the_difficulty(self) -> None:
        """d10:static: "the challenger needs at least as many successes as the difficulty"; the
        Storyteller's side rolls nothing."""
        for dice, winner in (([8, 9], "challenger"), ([10, 1], "defender")):
            t = tens()
            t.do("sam", "declare", challenge="s", kind="static", category="mental", difficulty=2,
                 pool={"skill": "Occult"}, victory="reads the runes")  # fmt: skip
            assert t.challenge("s").challenger.pool is not None and t.challenge("s").challenger.pool.total == 2
            events = roll(t, "sam", dice, cid="s")
            assert types(events)[:3] == ["dice_rolled", "test_revealed", "test_resolved"]
            successes = 2 if winner == "challenger" else 1
            assert events[1].rule == "d10:static" and events[2].compared == {"sam": successes, "difficulty": 2}
            assert outcome(t, "s").winner == winner and outcome(t, "s").rule == "d10:static"
            replays(t)

    def test_a_pool_is_one_to_ten_dice(self) -> None:
        """d10:pool: "A pool holds at least one die and at most ten"; the attribute is the category's."""
        t = tens(sam={"attributes": {"physical": 7, "social": 1, "mental": 1}, "skills": {"Brawl": 5},
                      "as_written": True})  # fmt: skip
        t.do("st", "add_character", character={"id": "zed", "name": "Zed", "attributes":
             {"physical": 1, "social": 1, "mental": 1}})  # fmt: skip
        attack(t)
        pool = t.challenge("c").challenger.pool
        assert (
            pool is not None
            and pool.total == 10
            and pool.describe() == "Physical 7 + Brawl 5 - 2 (at most ten dice) = 10"
        )
        t.refused("sam", "declare", challenge="d", kind="contested", targets=["zed"], category="physical",
                  pool={"attribute": "mental"}, code="wrong_attribute", rule="d10:pool")  # fmt: skip
        t.refused("sam", "declare", challenge="d", kind="contested", targets=["zed"], category="physical",
                  bid=["Brawny"], code="no_traits", rule="d10:pool")  # fmt: skip


class TestRefusals:
    def test_no_simple_tests_and_one_target(self) -> None:
        """d10:kinds: contested against one other character, or static against a difficulty."""
        t = tens()
        t.refused("sam", "declare", challenge="c", kind="simple", category="physical", code="unsupported",
                  rule="d10:kinds")  # fmt: skip
        t.refused("sam", "declare", challenge="c", kind="contested", targets=["sam"], category="physical",
                  code="one_target", rule="d10:kinds")  # fmt: skip
        t.refused("sam", "declare", challenge="c", kind="static", category="physical", code="difficulty_required",
                  rule="d10:kinds")  # fmt: skip

    def test_the_defender_may_relent_before_the_dice(self) -> None:
        """d10:relent: "the challenger wins without a roll"; once a die is rolled, too late."""
        t = tens()
        t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", effect=PUNCH)
        t.do("juan", "relent", challenge="c")
        assert outcome(t).winner == "challenger" and outcome(t).rule == "d10:relent"
        assert outcome(t).why == "Juan relented: Sam wins without a roll." and t.character("juan").wounds.bashing == 2
        t = tens()
        attack(t)
        roll(t, "sam", [1, 1, 1, 1, 1])
        t.refused("juan", "relent", challenge="c", code="too_late", rule="d10:relent")

    def test_no_retests_no_throws_and_the_storyteller_enters_dice(self) -> None:
        """d10:no-retests: a roll names no retest; d10:dice: dice are rolled, not signs thrown, and only
        the Storyteller enters dice rolled at the table."""
        t = tens()
        attack(t)
        t.refused("sam", "roll", challenge="c", retests=[{"category": "ability", "name": "Brawl"}],
                  code="no_retests", rule="d10:no-retests")  # fmt: skip
        t.refused("sam", "throw", challenge="c", sign="rock", code="roll_dice", rule="d10:dice")
        t.refused("sam", "roll", challenge="c", values=[8, 8, 8, 8, 8], code="dice_by_hand", rule="d10:dice")
        t.refused("st", "roll", challenge="c", character="sam", values=[11, 8, 8, 8, 8], code="malformed")
        roll(t, "sam", [1, 1, 1, 1, 1])
        roll(t, "juan", [8, 1, 1])
        assert outcome(t).winner == "defender"  # no retest window: the dice stand
        t.refused("sam", "retest", challenge="c", source={"category": "willpower"}, code="already_resolved")

    def test_what_the_rules_do_not_say_is_the_storytellers(self) -> None:
        """d10:adjudication: flags these rules have no rule for are refused, citing it."""
        t = tens()
        t.refused("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical",
                  surprise=True, code="unsupported", rule="d10:adjudication")  # fmt: skip
        t.refused("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical",
                  maneuver="disarm", code="unsupported", rule="d10:adjudication")  # fmt: skip


class TestRounds:
    def test_the_order_is_physical_plus_mental(self) -> None:
        """d10:order, the round hook: "characters act in order of Physical plus Mental, highest first;
        equals act at once, unless the Storyteller orders them"."""
        t = tens(rosa={"attributes": {"physical": 4, "social": 1, "mental": 3}})
        events = t.do("st", "start_round")
        order = next(e for e in events if isinstance(e, InitiativeSet))
        assert order.order == [["rosa"], ["juan", "sam"]] and order.values == {"rosa": 7, "sam": 5, "juan": 5}
        assert order.rule == "d10:order" and order.why == "Physical plus Mental: Rosa 7, then Juan 5 and Sam 5."
        assert t.state.round is not None and t.state.round.turn == ("rosa",)
        t.do("rosa", "end_turn")
        assert t.state.round.turn == ("juan", "sam")
        t.do("st", "order", characters=["sam", "juan"])
        assert t.state.round.turn == ("sam",)
        replays(t)

    def test_a_challenge_on_ones_own_turn_one_a_round(self) -> None:
        """d10:turns: "A character declares a challenge only on its own turn, and one challenge a round"."""
        t = tens(rosa={"attributes": {"physical": 4, "social": 1, "mental": 3}})
        t.do("st", "start_round")
        t.refused("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical",
                  code="not_your_turn", rule="d10:turns")  # fmt: skip
        t.do("rosa", "end_turn")
        attack(t)
        roll(t, "sam", [8, 8, 1, 1, 1])
        roll(t, "juan", [1, 1, 1])
        assert t.challenge("c").round == 1 and outcome(t).winner == "challenger"
        t.refused("sam", "declare", challenge="d", kind="contested", targets=["rosa"], category="physical",
                  code="one_a_round", rule="d10:turns")  # fmt: skip
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.do("rosa", "end_turn")
        attack(t, "d")
        replays(t)


class TestViews:
    def test_each_viewer_reads_the_challenge(self) -> None:
        """The views and words every ruleset gets: the moves offer the defence and the roll with its
        count; the other side's pool stays secret until the dice are shown; the narration says it."""
        t = tens()
        t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical",
             pool={"skill": "Brawl"}, effect=PUNCH)  # fmt: skip
        juan = view(t.state, "juan").challenges["c"]
        assert juan.moves["juan"].verbs == ["bid", "relent"] and juan.moves["juan"].defenses["dodge"].total == 2
        t.do("juan", "bid", challenge="c", pool={"defense": "dodge", "skill": "Dodge"})
        sam = view(t.state, "sam").challenges["c"]
        assert sam.moves["sam"].verbs == ["roll"] and sam.moves["sam"].dice == 5
        assert sam.moves["sam"].dice_why == "Physical 3 + Brawl 2 = 5 d10" and "juan" not in sam.pools
        assert view(t.state, "st").rules.die is not None and view(t.state, "st").rules.die.size == 10
        roll(t, "sam", [8, 8, 1, 1, 1])
        roll(t, "juan", [1, 1, 1])
        said = [narrate(fold(t.log[: r.seq - 1]), r.event, "st") for r in t.log]
        assert "Sam challenges Juan (physical), with a pool of Physical 3 + Brawl 2 = 5." in said
        assert "Test 1, the dice: Sam 8, 8, 1, 1, 1 (2 successes); Juan 1, 1, 1 (0 successes)." in said
        assert any(isinstance(r.event, ChallengeResolved) for r in t.log)
        t2 = tens()
        events = t2.do("st", "start_round")
        assert narrate(t2.state, events[0], "st") == "Round 1 begins: each acts on initiative, in turn."


@pytest.mark.parametrize("name", ["d10"])
def test_the_lifecycle_finds_it_by_name(name: str) -> None:
    """``ruleset_for`` gives the registered object; a test resolved by the ruleset is recorded."""
    assert ruleset_for(name).name == name and ruleset_for(name).title == "Tens"
    t = tens()
    attack(t)
    roll(t, "sam", [8, 1, 1, 1, 1])
    events = roll(t, "juan", [1, 1, 1])
    assert isinstance(events[2], TestResolved) and events[2].leader == "challenger"
