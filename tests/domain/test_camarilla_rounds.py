"""Camarilla combat rounds: actions, initiative, turns, movement, extra actions."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.evolve import fold_rows
from domain.log import event_data, format_at
from tests.table import Table, types


def act(t: Table, who: str, kind: str = "challenge", **action: Any) -> None:
    t.do(who, "declare_action", action={"kind": kind, **action})


def punch(t: Table, cid: str, who: str, target: str, bid: str, **extra: Any) -> None:
    t.do(who, "declare", challenge=cid, kind="contested", targets=[target], category="physical", bid=[bid], **extra)


def won(t: Table, cid: str, answer: str) -> None:
    """The target answers and loses the test; nobody retests."""
    ch = t.challenge(cid)
    t.do(ch.defender.who, "bid", challenge=cid, bid=[answer])
    t.test(cid, "rock", "scissors")
    t.do(ch.defender.who, "pass", challenge=cid)
    assert t.challenge(cid).outcome is not None and t.challenge(cid).outcome.winner == "challenger"  # type: ignore[union-attr]


class TestOrderOfActions:
    def test_frank_and_jimmy(self) -> None:
        """Jimmy bids 9 Physical plus a weapon, Frank 10 Social plus a ritual: only base Traits count,
        so Frank's Dread Gaze resolves first (camarilla:order-of-actions)."""
        t = Table(ruleset="camarilla")
        t.add("jimmy", {"Brawny": 5, "Quick": 4}, traits={"social": {"Proud": 2}}, powers=["Feral Claws"])
        t.add("frank", {"Wiry": 3}, traits={"social": {"Charming": 10}}, powers=["Dread Gaze"])
        assert types(t.do("st", "start_round")) == ["round_started"]
        act(t, "jimmy", category="physical", target="frank")
        events = t.do("frank", "declare_action", action={"kind": "challenge", "category": "social", "target": "jimmy"})
        assert types(events) == ["action_declared", "initiative_set", "turn_started"]
        assert events[1].order == [["frank"], ["jimmy"]] and events[1].values == {"frank": 10, "jimmy": 9}  # type: ignore[union-attr]
        t.refused(
            "jimmy",
            "declare",
            challenge="claw",
            kind="contested",
            targets=["frank"],
            category="physical",
            bid=["Brawny"],
            code="not_your_turn",
            rule="camarilla:order-of-actions",
        )
        t.do(
            "frank",
            "declare",
            challenge="gaze",
            kind="contested",
            targets=["jimmy"],
            category="social",
            bid=["Charming"],
            power="Dread Gaze",
        )
        t.do("jimmy", "bid", challenge="gaze", bid=["Proud"])
        t.test("gaze", "rock", "paper")
        t.do("frank", "pass", challenge="gaze")
        t.do("frank", "end_turn")
        assert t.state.round is not None and t.state.round.turn == ("jimmy",)
        punch(t, "claw", "jimmy", "frank", "Brawny")

    def test_equal_initiative_acts_at_once_and_the_st_orders_it(self) -> None:
        """Equal base Traits act together; the ST chooses who resolves first (camarilla:order-of-actions)."""
        t = Table(ruleset="camarilla")
        for who in ("a", "b", "c"):
            t.add(who, {"Brawny": 4 if who != "c" else 2})
        t.do("st", "start_round")
        for who in ("a", "b", "c"):
            act(t, who, "none")
        assert t.state.round is not None and t.state.round.order == (("a", "b"), ("c",))
        t.refused("st", "order", characters=["a", "c"], code="not_tied")
        (ordered,) = t.do("st", "order", characters=["b", "a"])
        assert ordered.order == [["b", "a"], ["c"]]  # type: ignore[union-attr]
        assert t.state.round.turn == ("b", "a")  # both act now
        assert t.state.round.ordered == (("b", "a"),)  # in the order the ST gave: what the pages show
        t.do("st", "order", characters=["a", "b"])  # ordered again: the new order replaces the old
        assert t.state.round.ordered == (("a", "b"),)
        assert t.replayed().round == t.state.round
        punch(t, "x", "a", "c", "Brawny")
        t.do("b", "declare", challenge="y", kind="contested", targets=["a"], category="physical", bid=["Brawny"])

    def test_only_base_traits_and_alacrity(self) -> None:
        """Alacrity adds to initiative, blood does not; a full-round action ignores Alacrity
        (camarilla:full-round)."""
        t = Table(ruleset="camarilla")
        t.add("quick", {"Quick": 5}, powers=["Alacrity", "Thaumaturgy"], blood=3, traits={"mental": {"Wise": 5}})
        t.add("slow", {"Tough": 5})
        t.do("quick", "spend_blood", kind="strength")
        t.do("st", "start_round")
        act(t, "quick", category="physical")
        act(t, "slow", "none")
        assert t.state.round is not None and t.state.round.values == {"quick": 6, "slow": 5}
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.refused(
            "quick",
            "declare_action",
            action={"kind": "full_round", "category": "mental", "steps": 1},
            code="too_far",
            rule="camarilla:full-round",
        )
        act(t, "quick", "full_round", category="mental")
        act(t, "slow", "none")
        assert t.state.round.values == {"quick": 5, "slow": 5}

    def test_several_tests_take_the_lowest(self) -> None:
        """An action needing a Social and a Physical test goes on the lower of the two
        (camarilla:multiple-tests)."""
        t = Table(ruleset="camarilla")
        t.add("a", {"Brawny": 8}, traits={"social": {"Calm": 3}})
        t.add("b", {"Quick": 5})
        t.do("st", "start_round")
        act(t, "a", categories=["social", "physical"], target="b")
        act(t, "b", "none")
        assert t.state.round is not None and t.state.round.values["a"] == 3


class TestActions:
    @pytest.fixture
    def t(self) -> Table:
        table = Table(ruleset="camarilla")
        table.add("mark", {"Brawny": 5, "Quick": 4}, abilities={"Melee": 1})
        table.add("joe", {"Wiry": 3}, abilities={"Firearms": 1})
        table.add("eve", {"Lithe": 2})
        table.do("st", "start_round")
        act(table, "mark", category="physical", target="joe")
        act(table, "joe", category="physical", target="mark")
        act(table, "eve", "move", steps=2)
        return table

    def test_mark_and_joe(self, t: Table) -> None:
        """Joe (3) counterattacks Mark (9) on Mark's initiative: the fastest participant's
        (camarilla:multiple-participants)."""
        punch(t, "sword", "mark", "joe", "Brawny")
        punch(t, "gun", "joe", "mark", "Wiry")
        assert t.character("joe").actions_left == 0

    def test_one_test_action_a_turn(self) -> None:
        """One action with a test per turn: an extra action waits for the extra round
        (camarilla:taking-actions)."""
        t = Table(ruleset="camarilla")
        t.add("mark", {"Brawny": 5}, powers=["Swiftness"])
        t.add("eve", {"Lithe": 2})
        t.add("joe", {"Wiry": 1})
        t.do("st", "start_round")
        act(t, "mark", category="physical", target="eve")
        act(t, "eve", "none")
        act(t, "joe", "none")
        punch(t, "sword", "mark", "eve", "Brawny")
        t.do("eve", "relent", challenge="sword")
        assert t.character("mark").actions_left == 1
        kick = {"challenge": "kick", "kind": "contested", "targets": ["joe"], "category": "physical", "bid": ["Brawny"]}
        t.refused("mark", "declare", code="one_test_action", rule="camarilla:taking-actions", **kick)
        for who in ("mark", "eve", "joe"):
            t.do(who, "end_turn")
        assert t.state.round is not None and t.state.round.turn_phase == "extra"
        t.do("mark", "declare", **kick)
        assert t.character("mark").actions_left == 0

    def test_a_counterattack_is_physical_and_uses_the_action(self) -> None:
        """Only a physical attack answers on the attacker's initiative; once it has, the counterattacker's
        own turn has no test left, even with an extra action to come (camarilla:multiple-participants)."""
        t = Table(ruleset="camarilla")
        t.add("mark", {"Brawny": 9})
        t.add("joe", {"Wiry": 3}, powers=["Swiftness"], traits={"social": {"Witty": 2}})
        t.do("st", "start_round")
        act(t, "mark", category="physical", target="joe")
        act(t, "joe", category="physical", target="mark")
        punch(t, "sword", "mark", "joe", "Brawny")
        taunt = {"challenge": "taunt", "kind": "contested", "targets": ["mark"], "category": "social", "bid": ["Witty"]}
        t.refused("joe", "declare", code="not_your_turn", **taunt)
        punch(t, "gun", "joe", "mark", "Wiry")
        assert t.character("joe").actions_left == 1
        for cid, who in (("sword", "joe"), ("gun", "mark")):
            t.do(who, "relent", challenge=cid)
        t.do("mark", "end_turn")
        assert t.state.round is not None and t.state.round.turn == ("joe",)
        t.refused("joe", "declare", code="one_test_action", rule="camarilla:taking-actions", **taunt)

    def test_relenting_still_uses_the_action(self, t: Table) -> None:
        """A relented challenge used the challenger's action (camarilla:relent)."""
        punch(t, "sword", "mark", "joe", "Brawny")
        events = t.do("joe", "relent", challenge="sword")
        assert events[0].rule == "camarilla:relent"  # type: ignore[union-attr]
        assert t.character("mark").actions_left == 0

    def test_defending_is_free_and_without_an_action_only_passive(self, t: Table) -> None:
        """Answering a challenge costs no action; a counterattack does; once out of actions a character
        can only defend (camarilla:passive-defense)."""
        punch(t, "sword", "mark", "joe", "Brawny")
        t.do("joe", "bid", challenge="sword", bid=["Wiry"])
        assert t.character("joe").actions_left == 1
        punch(t, "gun", "joe", "mark", "Wiry")  # a counterattack, on Mark's initiative
        assert t.character("joe").actions_left == 0
        t.do("mark", "relent", challenge="gun")
        t.test("sword", "rock", "scissors")
        t.do("joe", "pass", challenge="sword")
        t.do("mark", "end_turn")
        assert t.state.round is not None and t.state.round.turn == ("joe",)
        t.refused(
            "joe",
            "declare",
            challenge="late",
            kind="contested",
            targets=["eve"],
            category="physical",
            bid=["Wiry"],
            code="no_action_left",
            rule="camarilla:passive-defense",
        )

    def test_one_challenge_of_each_type_per_target(self, t: Table) -> None:
        """Joe can be the target of one Physical challenge this round; a second attacker joins it
        instead (camarilla:one-per-round)."""
        punch(t, "sword", "mark", "joe", "Brawny")
        t.do("joe", "relent", challenge="sword")
        t.do("mark", "end_turn")
        t.do("joe", "end_turn")
        error = t.refused(
            "eve",
            "declare",
            challenge="kick",
            kind="contested",
            targets=["joe"],
            category="physical",
            bid=["Lithe"],
            code="already_targeted",
            rule="camarilla:one-per-round",
        )
        assert "join it as a mob" in error.message

    def test_moving_more_than_one_step_costs_a_trait(self, t: Table) -> None:
        """Eve moved two steps: she is down one Physical Trait this round (camarilla:movement)."""
        t.do("mark", "end_turn")
        t.do("joe", "end_turn")
        t.do("eve", "declare", challenge="kick", kind="contested", targets=["mark"], category="physical", bid=["Lithe"])
        t.do("mark", "bid", challenge="kick", bid=["Quick"])
        t.test("kick", "rock", "rock")
        t.refused("eve", "declare_traits", challenge="kick", count=2, code="over_declared")
        t.do("eve", "declare_traits", challenge="kick", count=1)
        t.do("mark", "declare_traits", challenge="kick", count=4)
        t.do("eve", "pass", challenge="kick")
        t.do("st", "end_round")  # the penalty is for that round only
        assert t.character("eve").conditions.moved_steps == 0
        t.contest("kick2", "eve", "mark", "Lithe", "Quick")
        t.test("kick2", "rock", "rock")
        t.do("eve", "declare_traits", challenge="kick2", count=1)  # her one Trait left, no longer down one


class TestMovement:
    def test_step_limits_and_standing_up(self) -> None:
        """Three steps with a test, six without; standing from prone costs one
        (camarilla:movement)."""
        t = Table(ruleset="camarilla")
        t.add("a", {"Quick": 3})
        t.add("b", {"Tough": 3})
        t.do("st", "start_round")
        t.refused(
            "a",
            "declare_action",
            action={"kind": "challenge", "category": "physical", "steps": 4},
            code="too_far",
            rule="camarilla:movement",
        )
        t.refused("a", "declare_action", action={"kind": "move", "steps": 5, "stand": True}, code="not_prone")
        act(t, "a", "move", steps=6)
        t.do("st", "end_round")
        t.contest("trip", "a", "b", "Quick", "Tough", effect={"kind": "knock_down"})
        t.test("trip", "rock", "scissors")
        t.do("b", "pass", challenge="trip")
        t.do("st", "start_round")
        t.refused("b", "declare_action", action={"kind": "move", "steps": 2}, code="prone")
        t.refused("b", "declare_action", action={"kind": "move", "steps": 6, "stand": True}, code="too_far")
        act(t, "b", "move", steps=5, stand=True)
        assert not t.character("b").conditions.prone


class TestExtraActions:
    def test_dana_and_petra(self) -> None:
        """Dana (Legerity) and Petra (Swiftness and Black Metamorphosis) both have two extra actions:
        after the everyman turns they act together in two extra rounds (camarilla:multiple-actions)."""
        t = Table(ruleset="camarilla")
        t.add("dana", {"Quick": 4}, powers=["Legerity"], traits={"social": {"Calm": 2}})
        t.add("petra", {"Lithe": 3}, powers=["Swiftness", "Black Metamorphosis"])
        t.add("zed", {"Tough": 2})
        (started,) = t.do("st", "start_round")
        assert started.actions == {"dana": 3, "petra": 3, "zed": 1}  # type: ignore[union-attr]
        for who in ("dana", "petra", "zed"):
            act(t, who, "none")
        for who in ("dana", "petra", "zed"):
            t.do(who, "end_turn")
        r = t.state.round
        assert r is not None and (r.turn_phase, r.extra, r.turn) == ("extra", 1, ("dana", "petra"))
        t.refused(
            "dana",
            "declare",
            challenge="s",
            kind="contested",
            targets=["zed"],
            category="social",
            bid=["Calm"],
            code="physical_only",
            rule="camarilla:multiple-actions",
        )
        punch(t, "e1", "dana", "zed", "Quick")
        t.do("zed", "relent", challenge="e1")
        t.do("dana", "end_turn")
        t.do("petra", "end_turn")
        assert t.state.round.turn == ("dana", "petra") and t.state.round.extra == 2
        t.refused("zed", "end_turn", code="not_your_turn")

    def test_end_of_turn_actions_come_before_extra_actions(self) -> None:
        """An end-of-turn action resolves after everyone's initiative, before extra actions
        (camarilla:initiative-exceptions)."""
        t = Table(ruleset="camarilla")
        t.add("a", {"Quick": 4}, powers=["Swiftness"])
        t.add("b", {"Tough": 3})
        t.do("st", "start_round")
        act(t, "a", "none")
        act(t, "b", "end_of_turn")
        assert t.state.round is not None and t.state.round.order == (("a",),)
        t.do("a", "end_turn")
        assert t.state.round.turn_phase == "end_of_turn" and t.state.round.turn == ("b",)
        t.do("b", "end_turn")
        assert t.state.round.turn_phase == "extra" and t.state.round.turn == ("a",)

    def test_immediate_powers_need_no_turn(self) -> None:
        """A power usable at any time is declared out of turn; an ordinary challenge flagged so is not
        (camarilla:initiative-exceptions)."""
        t = Table(ruleset="camarilla")
        t.add(
            "a",
            {"Quick": 2},
            traits={"mental": {"Wise": 2}},
            powers=["Dementation", "Bolt"],
            immediate_powers=["Dementation"],
        )
        t.add("b", {"Tough": 5})
        t.do("st", "start_round")
        act(t, "a", category="mental", target="b")
        act(t, "b", "none")
        assert t.state.round is not None and t.state.round.turn == ("b",)
        now = {"kind": "contested", "targets": ["b"], "category": "mental", "bid": ["Wise"], "defense": "physical"}
        error = t.refused(
            "a",
            "declare",
            challenge="bolt",
            power="Bolt",
            immediate=True,
            code="not_immediate",
            rule="camarilla:initiative-exceptions",
            **now,
        )
        assert "Dementation" in error.message
        t.do("a", "declare", challenge="now", power="Dementation", immediate=True, **now)
        assert t.challenge("now").status == "awaiting_response" and t.state.round.turn == ("b",)


class TestMobsOfTheMind:
    def test_a_later_mental_challenge_needs_a_new_target(self) -> None:
        """Two Social challenges at one target: the faster resolves, the slower may retarget with the
        ST's leave (camarilla:mob-mental-social)."""
        t = Table(ruleset="camarilla")
        t.add("fast", traits={"social": {"Witty": 6}})
        t.add("slow", traits={"social": {"Calm": 3}})
        t.add("mark", traits={"social": {"Proud": 2}})
        t.add("other", traits={"social": {"Meek": 1}})
        t.do("st", "start_round")
        for who in ("fast", "slow"):
            act(t, who, category="social", target="mark")
        act(t, "mark", "none")
        act(t, "other", "none")
        t.do("fast", "declare", challenge="s1", kind="contested", targets=["mark"], category="social", bid=["Witty"])
        t.do("mark", "relent", challenge="s1")
        t.do("fast", "end_turn")
        t.refused(
            "slow",
            "declare",
            challenge="s2",
            kind="contested",
            targets=["mark"],
            category="social",
            bid=["Calm"],
            code="already_targeted",
        )
        t.refused(
            "slow",
            "declare",
            challenge="s2",
            kind="contested",
            targets=["other"],
            category="social",
            bid=["Calm"],
            code="not_declared",
            rule="camarilla:mob-mental-social",
        )
        t.do(
            "st",
            "declare",
            character="slow",
            challenge="s2",
            kind="contested",
            targets=["other"],
            category="social",
            bid=["Calm"],
        )


class TestMultipleTests:
    """An action that needs several tests: a gate (the Social test against Majesty, a touch), then the
    test that causes its effect, all in one action."""

    @pytest.fixture
    def t(self) -> Table:
        table = Table(ruleset="camarilla")
        table.add("frank", {"Wiry": 5}, traits={"social": {"Charming": 6}}, powers=["Swiftness", "Quell the Beast"])
        table.add("billy", {"Tough": 2}, traits={"social": {"Proud": 2}}, powers=["Majesty"])
        table.add("sam", {"Brawny": 3}, traits={"social": {"Witty": 3}})
        table.add("eve", {"Lithe": 2})
        table.do("st", "start_round")
        return table

    def order(self, t: Table, frank: list[str], sam: str = "social", eve: str = "physical") -> None:
        act(t, "frank", categories=frank, target="billy")
        act(t, "billy", "none")
        act(t, "sam", category=sam, target="billy")
        act(t, "eve", category=eve, target="billy")
        assert t.state.round is not None and t.state.round.turn == ("frank",)

    def test_majesty_then_the_punch_in_one_action(self, t: Table) -> None:
        """Frank breaks Billy's Majesty with a Social test, then punches him, in one turn of action; a
        third test is another action (camarilla:multiple-tests-turn)."""
        self.order(t, ["social", "physical"])
        majesty = {"kind": "contested", "targets": ["billy"], "category": "social", "bid": ["Charming"]}
        (gate,) = t.do("frank", "declare", challenge="majesty", **majesty)
        assert gate.gate and gate.uses_action  # type: ignore[union-attr]
        assert t.character("frank").actions_left == 1  # Swiftness: an extra action to come
        won(t, "majesty", "Proud")
        (effect,) = t.do(
            "frank",
            "declare",
            challenge="punch",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Wiry"],
            effect={"kind": "damage", "amount": 1, "type": "bashing"},
        )
        assert not effect.gate and not effect.uses_action  # type: ignore[union-attr]
        assert t.character("frank").actions_left == 1
        won(t, "punch", "Tough")
        assert t.character("billy").wounds.bashing == 1
        t.refused(
            "frank",
            "declare",
            challenge="again",
            code="one_test_action",
            rule="camarilla:taking-actions",
            **majesty,
        )

    def test_the_gate_is_recorded_and_old_logs_fold_the_same(self, t: Table) -> None:
        """The gate's challenge_declared says gate: true, the effect's does not; a log written before
        the field (no gate at all) folds to the same scene (camarilla:multiple-tests-type)."""
        self.order(t, ["social", "physical"])
        t.do(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
        )
        won(t, "majesty", "Proud")
        punch(t, "punch", "frank", "billy", "Wiry")
        data = {
            r.event.challenge: msgspec.json.decode(event_data(r.event))  # type: ignore[union-attr]
            for r in t.log
            if r.type == "challenge_declared"
        }
        assert data["majesty"]["gate"] is True and data["punch"]["gate"] is False
        assert t.challenge("majesty").gate and not t.challenge("punch").gate
        rows = []
        for r in t.log:
            fields = msgspec.json.decode(event_data(r.event))
            if fields.get("gate") is False:
                del fields["gate"]  # as a log written before the field has it
            rows.append((r.seq, format_at(r.at), r.type, msgspec.json.encode(fields)))
        assert fold_rows("s1", rows) == t.state

    def test_the_gate_does_not_count_for_one_per_round(self, t: Table) -> None:
        """The Social test against Majesty is not a Social action against Billy: Sam may still challenge
        him socially; the punch is the Physical one, so Eve's must join it (camarilla:multiple-tests-type,
        camarilla:one-per-round)."""
        self.order(t, ["social", "physical"])
        t.do(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
        )
        won(t, "majesty", "Proud")
        punch(t, "punch", "frank", "billy", "Wiry")
        won(t, "punch", "Tough")
        t.do("frank", "end_turn")
        assert t.state.round is not None and t.state.round.turn == ("sam",)
        t.do("sam", "declare", challenge="taunt", kind="contested", targets=["billy"], category="social", bid=["Witty"])
        t.do("billy", "relent", challenge="taunt")
        t.do("sam", "end_turn")
        error = t.refused(
            "eve",
            "declare",
            challenge="kick",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Lithe"],
            code="already_targeted",
            rule="camarilla:one-per-round",
        )
        assert "(Frank's challenge to Billy)" in error.message and "punch" not in error.message  # names, not ids

    def test_a_touch_is_no_mob_and_the_quell_is_social(self, t: Table) -> None:
        """A touch before Quell the Beast: nobody joins the touch as a mob, and the Quell is the Social
        action against Billy this round (camarilla:multiple-tests-type)."""
        self.order(t, ["physical", "social"], sam="social")
        punch(t, "touch", "frank", "billy", "Wiry", victory="touches Billy")
        error = t.refused(
            "eve", "join", challenge="touch", bid=["Lithe"], code="gate_test", rule="camarilla:multiple-tests-type"
        )
        assert "no mob" in error.message
        won(t, "touch", "Tough")
        assert t.character("billy").wounds.bashing == 0  # a touch, not a blow
        t.do(
            "frank",
            "declare",
            challenge="quell",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
            power="Quell the Beast",
        )
        t.do("billy", "relent", challenge="quell")
        t.do("frank", "end_turn")
        t.refused(
            "sam",
            "declare",
            challenge="taunt",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Witty"],
            code="already_targeted",
            rule="camarilla:one-per-round",
        )

    def test_the_punch_may_join_a_mob(self) -> None:
        """After the gate, the punch joins the physical attack already on Billy, still within Frank's one
        action (camarilla:multiple-tests-type)."""
        t = Table(ruleset="camarilla")
        t.add("frank", {"Wiry": 3}, traits={"social": {"Charming": 4}})
        t.add("eve", {"Lithe": 3})
        t.add("billy", {"Tough": 2}, traits={"social": {"Proud": 2}}, powers=["Majesty"])
        t.do("st", "start_round")
        act(t, "frank", categories=["social", "physical"], target="billy")
        act(t, "eve", category="physical", target="billy")
        act(t, "billy", "none")
        t.do("st", "order", characters=["eve", "frank"])
        punch(t, "kick", "eve", "billy", "Lithe")
        t.do(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
        )
        assert t.character("frank").actions_left == 0
        won(t, "majesty", "Proud")
        t.refused(
            "frank",
            "declare",
            challenge="punch",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Wiry"],
            code="already_targeted",
        )
        (joined,) = t.do("frank", "join", challenge="kick", bid=["Wiry"])
        assert not joined.uses_action  # type: ignore[union-attr]
        assert t.challenge("kick").challenger.members == ("eve", "frank")
        assert t.character("frank").gate is None

    def test_the_next_test_waits_for_the_gate_won(self, t: Table) -> None:
        """The punch comes after the Majesty test is won, against the same target, in the declared
        category; a lost gate ends the action (camarilla:multiple-tests-turn)."""
        self.order(t, ["social", "physical"])
        t.do(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
        )
        blow = {
            "challenge": "punch",
            "kind": "contested",
            "targets": ["billy"],
            "category": "physical",
            "bid": ["Wiry"],
        }
        rule = "camarilla:multiple-tests-turn"
        t.refused("frank", "declare", code="gate_open", rule=rule, **blow)
        t.do("billy", "bid", challenge="majesty", bid=["Proud"])
        t.test("majesty", "scissors", "rock")
        t.do("frank", "pass", challenge="majesty")
        error = t.refused("frank", "declare", code="gate_failed", rule=rule, **blow)
        assert "the action ends there" in error.message

    def test_the_tests_come_in_the_declared_order(self, t: Table) -> None:
        """After the gate, a test of another category or against another target is not the action's
        next test (camarilla:multiple-tests-turn)."""
        self.order(t, ["social", "physical"])
        t.do(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
        )
        won(t, "majesty", "Proud")
        error = t.refused(
            "frank",
            "declare",
            challenge="again",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
            code="next_test",
            rule="camarilla:multiple-tests-turn",
        )
        assert "Physical test against Billy" in error.message
        t.refused(
            "st",
            "declare",
            character="frank",
            challenge="other",
            kind="contested",
            targets=["sam"],
            category="physical",
            bid=["Wiry"],
            code="next_test",
        )

    def test_one_category_is_one_test(self, t: Table) -> None:
        """An action of one category is one test, gate or not: a second is refused as before
        (camarilla:taking-actions)."""
        act(t, "frank", category="physical", target="billy")
        for who in ("billy", "sam", "eve"):
            act(t, who, "none")
        (declared,) = t.do(
            "frank",
            "declare",
            challenge="punch",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Wiry"],
        )
        assert not declared.gate and declared.uses_action  # type: ignore[union-attr]
        won(t, "punch", "Tough")
        t.refused(
            "frank",
            "declare",
            challenge="again",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Wiry"],
            code="one_test_action",
            rule="camarilla:taking-actions",
        )

    def test_the_effect_first_is_a_single_test(self, t: Table) -> None:
        """A punch declared without its Social test first is the action's one test: no gate, and the
        action is spent (camarilla:multiple-tests-turn)."""
        self.order(t, ["social", "physical"])
        (declared,) = t.do(
            "frank",
            "declare",
            challenge="punch",
            kind="contested",
            targets=["billy"],
            category="physical",
            bid=["Wiry"],
        )
        assert not declared.gate and declared.uses_action  # type: ignore[union-attr]
        won(t, "punch", "Tough")
        t.refused(
            "frank",
            "declare",
            challenge="majesty",
            kind="contested",
            targets=["billy"],
            category="social",
            bid=["Charming"],
            code="one_test_action",
        )
