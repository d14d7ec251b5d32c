"""Negative Trait calls (lotn:negative-traits, -unmatched, -bonus)."""

from __future__ import annotations

import pytest

from tests.table import Table


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add("joshua", {"Ferocious": 1, "Brawny": 2, "Tough": 1})
    t.add("marsilio", {"Quick": 2, "Nimble": 1}, negative_traits={"physical": ["Clumsy"], "social": ["Callous"]})
    t.contest("c", "joshua", "marsilio", "Ferocious", "Quick")
    return t


class TestCalls:
    """lotn:negative-traits: a right call makes the other side bid more; a wrong one, the caller."""

    def test_right_call_owes_the_opponent_a_trait(self, table: Table) -> None:
        """A correct call forces the opponent to bid one more Trait before the test (lotn:negative-traits)."""
        (call,) = table.do("joshua", "call_negative", challenge="c", trait="Clumsy")
        assert call.correct and call.owed_by == "marsilio" and call.matched  # type: ignore[union-attr]
        table.refused("joshua", "throw", challenge="c", sign="rock", code="bids_owed", rule="lotn:negative-traits")
        table.refused("marsilio", "bid", challenge="c", bid=["Quick", "Nimble"], code="too_many_traits")
        table.do("marsilio", "bid", challenge="c", bid=["Nimble"])
        assert table.challenge("c").defender.bids == ("Quick", "Nimble")
        table.test("c", "rock", "scissors")
        table.do("marsilio", "pass", challenge="c")
        assert table.lost("marsilio") == ["Quick", "Nimble"]

    def test_wrong_call_owes_the_caller_a_trait(self, table: Table) -> None:
        """A wrong call makes the caller risk another Trait (lotn:negative-traits)."""
        (call,) = table.do("joshua", "call_negative", challenge="c", trait="Lethargic")
        assert not call.correct and call.owed_by == "joshua"  # type: ignore[union-attr]
        table.do("joshua", "bid", challenge="c", bid=["Brawny"])
        table.test("c", "rock", "paper")
        table.do("joshua", "pass", challenge="c")
        assert table.lost("joshua") == ["Ferocious", "Brawny"]

    def test_several_calls(self, table: Table) -> None:
        """Several calls may be made, each in any category, each paid for (lotn:negative-traits)."""
        table.do("joshua", "call_negative", challenge="c", trait="Clumsy")
        table.do("joshua", "call_negative", challenge="c", trait="Callous")
        assert table.challenge("c").defender.owed == 2
        table.refused("joshua", "call_negative", challenge="c", trait="Clumsy", code="already_called")

    def test_calls_only_during_the_initial_bid(self, table: Table) -> None:
        """No calls once a throw is in (lotn:negative-traits)."""
        table.do("joshua", "throw", challenge="c", sign="rock")
        table.refused(
            "marsilio",
            "call_negative",
            challenge="c",
            trait="Clumsy",
            code="wrong_phase",
            rule="lotn:negative-traits",
        )

    def test_no_calls_before_the_answer(self) -> None:
        """Both sides must have bid before anyone calls (lotn:negative-traits)."""
        t = Table()
        t.add("a", {"Brawny": 1})
        t.add("b", {"Quick": 1})
        t.do(
            "a",
            "declare",
            challenge="c",
            kind="contested",
            targets=["b"],
            category="physical",
            bid=["Brawny"],
        )
        t.refused("a", "call_negative", challenge="c", trait="Clumsy", code="wrong_phase")

    def test_only_while_you_can_pay(self) -> None:
        """A caller with no Trait left to risk may not call (lotn:negative-traits)."""
        t = Table()
        t.add("a", {"Brawny": 1})
        t.add("b", {"Quick": 2})
        t.contest("c", "a", "b", "Brawny", "Quick")
        t.refused(
            "a",
            "call_negative",
            challenge="c",
            trait="Clumsy",
            code="cannot_pay",
            rule="lotn:negative-traits",
        )


class TestUnmatched:
    """lotn:negative-traits-unmatched and lotn:negative-traits-bonus."""

    def test_unmatched_call_takes_the_callers_trait_off_risk(self) -> None:
        """If the opponent has no Trait to add, the caller's Trait is not at risk
        (lotn:negative-traits-unmatched)."""
        t = Table()
        t.add("a", {"Brawny": 2})
        t.add("b", {"Quick": 1}, negative_traits={"physical": ["Clumsy"]})
        t.contest("c", "a", "b", "Brawny", "Quick")
        (call,) = t.do("a", "call_negative", challenge="c", trait="Clumsy")
        assert call.correct and not call.matched  # type: ignore[union-attr]
        assert call.rule == "lotn:negative-traits-unmatched"  # type: ignore[union-attr]
        t.test("c", "rock", "paper")  # the caller loses the test
        t.do("a", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "defender"  # type: ignore[union-attr]
        assert t.lost("a") == []

    def test_two_unmatched_calls_count_on_a_tie(self) -> None:
        """Two calls the opponent cannot match add two Traits on a tie (lotn:negative-traits-bonus)."""
        t = Table()
        t.add("a", {"Brawny": 3})
        t.add("b", {"Quick": 1, "Lithe": 4}, negative_traits={"physical": ["Clumsy", "Slow"]})
        t.contest("c", "a", "b", "Brawny", "Quick")
        t.do("a", "call_negative", challenge="c", trait="Clumsy")
        t.do("b", "bid", challenge="c", bid=["Lithe"])
        t.do("a", "call_negative", challenge="c", trait="Slow")
        t.do("b", "bid", challenge="c", bid=["Lithe"])
        t.do("a", "call_negative", challenge="c", trait="Lame")  # wrong: a owes one
        t.do("a", "bid", challenge="c", bid=["Brawny"])
        assert t.challenge("c").defender.owed == 0
        # b still has Lithe x2 spare, so make unmatched calls against a fresh, poorer defender:
        u = Table()
        u.add("a", {"Brawny": 3})
        u.add("b", {"Quick": 4}, negative_traits={"physical": ["Clumsy", "Slow"]})
        u.do(
            "st",
            "adjust",
            character="b",
            changes={"lose_traits": ["Quick", "Quick", "Quick"]},
            reason="earlier",
        )
        u.contest("c", "a", "b", "Brawny", "Quick")
        u.do("a", "call_negative", challenge="c", trait="Clumsy")
        u.do("a", "call_negative", challenge="c", trait="Slow")
        u.test("c", "rock", "rock")
        u.do("a", "declare_traits", challenge="c", count=2)
        u.do("b", "declare_traits", challenge="c", count=1)
        test = u.challenge("c").test
        assert test is not None and test.compared == {"a": 4, "b": 1}
        assert "+2 for unmatched Negative Trait calls" in test.why

    def test_one_unmatched_call_adds_nothing_on_a_tie(self) -> None:
        """One unmatched call protects the Trait but adds no count (lotn:negative-traits-bonus)."""
        t = Table()
        t.add("a", {"Brawny": 3})
        t.add("b", {"Quick": 1}, negative_traits={"physical": ["Clumsy"]})
        t.contest("c", "a", "b", "Brawny", "Quick")
        t.do("a", "call_negative", challenge="c", trait="Clumsy")
        t.test("c", "rock", "rock")
        t.do("a", "declare_traits", challenge="c", count=1)
        t.do("b", "declare_traits", challenge="c", count=1)
        assert t.challenge("c").leader == "none"

    def test_a_wrong_caller_who_cannot_pay_favours_the_opponent(self) -> None:
        """Wrong calls the caller cannot match favour the opponent in reverse
        (lotn:negative-traits-bonus)."""
        t = Table()
        t.add("a", {"Brawny": 2})
        t.add("b", {"Quick": 3})
        t.contest("c", "a", "b", "Brawny", "Quick")
        first = t.do("a", "call_negative", challenge="c", trait="Clumsy")[0]  # wrong, a can pay: owes one
        assert first.matched  # type: ignore[union-attr]
        second = t.do("a", "call_negative", challenge="c", trait="Slow")[0]  # wrong again: nothing left
        assert not second.matched and second.owed_by == "a"  # type: ignore[union-attr]
        t.do("a", "bid", challenge="c", bid=["Brawny"])
        t.test("c", "paper", "rock")  # a wins the test, but b's Trait is off risk
        t.do("b", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "challenger"  # type: ignore[union-attr]
        assert t.lost("b") == []
