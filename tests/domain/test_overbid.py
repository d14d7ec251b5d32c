"""Overbids (lotn:overbid, lotn:overbid-double)."""

from __future__ import annotations

import pytest

from tests.table import Table, types


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add("armand", {"Brawny": 6, "Quick": 6, "Tough": 4})
    t.add("phil", {"Wiry": 2, "Quick": 1})
    t.contest("c", "armand", "phil", "Brawny", "Wiry")
    t.test("c", "rock", "paper")  # Phil wins the first test
    return t


def overbid(bid: list[str]) -> dict[str, object]:
    return {"category": "overbid", "bid": bid}


class TestOverbid:
    """lotn:overbid: the loser risks a new Trait; the original one is already lost."""

    def test_overbid_loses_the_original_and_risks_a_new_trait(self, table: Table) -> None:
        """Calling an overbid loses the bid Trait at once and puts the new one at risk (lotn:overbid)."""
        events = table.do("armand", "retest", challenge="c", source=overbid(["Quick"]))
        assert types(events) == ["retest_invoked", "trait_lost", "declarations_opened"]
        assert events[1].rule == "lotn:overbid"  # type: ignore[union-attr]
        # the character by name, never "it" (the night's ledger quotes this why)
        assert events[1].why == "Armand loses Brawny: Armand lost the test, and an overbid risks a new Trait."  # type: ignore[union-attr]
        assert table.lost("armand") == ["Brawny"]
        assert table.challenge("c").challenger.bids == ("Quick",)

    def test_overbid_needs_exactly_one_new_trait(self, table: Table) -> None:
        """An overbid risks one new Trait, no more, no fewer (lotn:overbid)."""
        table.refused("armand", "retest", challenge="c", source=overbid([]), code="one_bid", rule="lotn:overbid")
        table.refused("armand", "retest", challenge="c", source=overbid(["Quick", "Tough"]), code="one_bid")

    def test_only_the_loser_overbids(self, table: Table) -> None:
        """The test's winner has nothing to overbid (lotn:overbid)."""
        table.refused("phil", "retest", challenge="c", source=overbid(["Quick"]), code="not_losing")


class TestDouble:
    """lotn:overbid-double: the overbidder declares first; double or more earns a new test."""

    def test_double_earns_a_new_test(self, table: Table) -> None:
        """At double or more the overbid earns a new test; the winner of it wins (lotn:overbid-double)."""
        table.do("armand", "retest", challenge="c", source=overbid(["Quick"]))
        table.refused(
            "phil", "declare_traits", challenge="c", count=3, code="not_your_turn", rule="lotn:overbid-double"
        )
        table.do("armand", "declare_traits", challenge="c", count=15)
        events = table.do("phil", "declare_traits", challenge="c", count=3)
        assert types(events) == ["traits_declared", "overbid_succeeded"]
        assert events[1].compared == {"armand": 15, "phil": 3}  # type: ignore[union-attr]
        assert table.challenge("c").status == "throwing"
        table.test("c", "paper", "rock")
        table.do("phil", "pass", challenge="c")
        assert table.challenge("c").outcome.winner == "challenger"  # type: ignore[union-attr]
        assert table.lost("phil") == ["Wiry"]
        assert table.lost("armand") == ["Brawny"]  # lost when he called the overbid; Quick is safe

    def test_less_than_double_fails_and_loses_the_new_trait(self, table: Table) -> None:
        """Below double the result stands and the overbid's Trait is lost too (lotn:overbid-double)."""
        table.do("armand", "retest", challenge="c", source=overbid(["Quick"]))
        table.do("armand", "declare_traits", challenge="c", count=5)
        events = table.do("phil", "declare_traits", challenge="c", count=3)
        assert types(events) == ["traits_declared", "overbid_failed", "trait_lost"]
        assert table.lost("armand") == ["Brawny", "Quick"]
        assert table.challenge("c").status == "retest_window" and table.challenge("c").leader == "defender"
        table.refused(
            "armand",
            "retest",
            challenge="c",
            source=overbid(["Tough"]),
            code="source_used",
            rule="lotn:retests",
        )
        events = table.do("armand", "pass", challenge="c")
        assert table.challenge("c").outcome.winner == "defender"  # type: ignore[union-attr]
        assert "trait_lost" not in types(events)  # nothing more at risk for Armand
        assert table.lost("armand") == ["Brawny", "Quick"] and table.lost("phil") == []

    def test_declared_counts_are_capped_after_the_loss(self, table: Table) -> None:
        """The lost original Trait no longer counts in the overbid (lotn:overbid, lotn:declare-fewer)."""
        table.do("armand", "retest", challenge="c", source=overbid(["Quick"]))
        table.refused("armand", "declare_traits", challenge="c", count=16, code="over_declared")
