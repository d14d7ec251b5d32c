"""Retests and cancels (lotn:retests, lotn:retest-cancel)."""

from __future__ import annotations

import pytest

from tests.table import Table, types


def ability(name: str) -> dict[str, str]:
    return {"category": "ability", "name": name}


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add(
        "daron",
        {"Nimble": 2, "Quick": 2},
        abilities={"Firearms": 2, "Dodge": 1, "Computer": 1},
        merits=["Lucky"],
        powers=["Fortitude"],
    )
    t.add("michael", {"Quick": 2, "Dexterous": 1}, abilities={"Brawl": 1, "Dodge": 2})
    t.contest("shot", "daron", "michael", "Nimble", "Quick")
    t.test("shot", "scissors", "rock")  # Daron loses the first test
    return t


class TestRetests:
    """lotn:retests: a level of an appropriate Ability (or a Merit or Power) buys a new test;
    each retest from a different source."""

    def test_ability_retest_spends_a_level_and_throws_again(self, table: Table) -> None:
        """The retest spends one level; once the winner lets it stand, a new test is thrown (lotn:retests)."""
        events = table.do("daron", "retest", challenge="shot", source=ability("Firearms"))
        assert types(events) == ["retest_invoked", "ability_spent"]
        assert table.character("daron").abilities["Firearms"] == 1
        table.refused("daron", "pass", challenge="shot", code="retest_pending")
        assert types(table.do("michael", "pass", challenge="shot")) == ["passed"]
        assert table.challenge("shot").status == "throwing"
        table.test("shot", "paper", "rock")
        assert table.challenge("shot").leader == "challenger"
        table.do("michael", "pass", challenge="shot")
        assert table.challenge("shot").outcome.winner == "challenger"  # type: ignore[union-attr]
        assert table.lost("michael") == ["Quick"] and table.lost("daron") == []

    def test_each_retest_from_a_different_source(self, table: Table) -> None:
        """The same Ability cannot retest twice, even with levels left; another source can
        (lotn:retests)."""
        table.do("daron", "retest", challenge="shot", source=ability("Firearms"))
        table.do("michael", "pass", challenge="shot")
        table.test("shot", "scissors", "rock")
        table.refused(
            "daron",
            "retest",
            challenge="shot",
            source=ability("Firearms"),
            code="source_used",
            rule="lotn:retests",
        )
        table.do("daron", "retest", challenge="shot", source={"category": "merit", "name": "Lucky"})
        assert [r.source.key for r in table.challenge("shot").retests] == ["ability:Firearms", "merit:Lucky"]

    def test_only_the_side_behind_retests(self, table: Table) -> None:
        """The winner of the test has nothing to retest (lotn:retests)."""
        table.refused(
            "michael",
            "retest",
            challenge="shot",
            source=ability("Brawl"),
            code="not_losing",
            rule="lotn:retests",
        )

    def test_what_cannot_retest(self, table: Table) -> None:
        """No levels, an unfit Ability, a Merit or Power not on the sheet, or a Willpower retest are refused
        (lotn:retests)."""
        table.refused("daron", "retest", challenge="shot", source=ability("Brawl"), code="no_ability")
        table.refused(
            "daron",
            "retest",
            challenge="shot",
            source=ability("Computer"),
            code="inappropriate_source",
            rule="lotn:retests",
        )
        table.refused(
            "daron",
            "retest",
            challenge="shot",
            source={"category": "merit", "name": "Ambidextrous"},
            code="unknown_merit",
        )
        table.refused(
            "daron",
            "retest",
            challenge="shot",
            source={"category": "power", "name": "Celerity"},
            code="unknown_power",
        )
        table.refused(
            "daron",
            "retest",
            challenge="shot",
            source={"category": "willpower"},
            code="source_not_allowed",
            rule="lotn:retests",
        )
        table.do("daron", "retest", challenge="shot", source={"category": "power", "name": "Fortitude"})


class TestCancel:
    """lotn:retest-cancel: a retest is blocked by a matching one, which spends its level too."""

    def test_cancel_spends_both_levels_and_keeps_the_result(self, table: Table) -> None:
        """Dodge blocks Firearms: both levels are spent, no new test (lotn:retest-cancel)."""
        table.do("daron", "retest", challenge="shot", source=ability("Firearms"))
        events = table.do("michael", "cancel_retest", challenge="shot", source=ability("Dodge"))
        assert types(events) == ["retest_cancelled", "ability_spent"]
        assert table.character("daron").abilities["Firearms"] == 1
        assert table.character("michael").abilities["Dodge"] == 1
        ch = table.challenge("shot")
        assert ch.status == "retest_window" and ch.leader == "defender" and len(ch.tests) == 1
        assert ch.retests[0].status == "cancelled"
        table.do("daron", "pass", challenge="shot")
        assert table.lost("daron") == ["Nimble"]

    def test_cancel_in_kind_only(self, table: Table) -> None:
        """Only a retest of the same category cancels (lotn:retest-cancel)."""
        table.do("daron", "retest", challenge="shot", source=ability("Firearms"))
        table.refused(
            "michael",
            "cancel_retest",
            challenge="shot",
            source={"category": "merit", "name": "Lucky"},
            code="category_mismatch",
            rule="lotn:retest-cancel",
        )
        table.refused("daron", "cancel_retest", challenge="shot", source=ability("Dodge"), code="own_retest")

    def test_nothing_to_cancel(self, table: Table) -> None:
        """A cancel needs a retest waiting (lotn:retest-cancel)."""
        table.refused(
            "michael",
            "cancel_retest",
            challenge="shot",
            source=ability("Dodge"),
            code="nothing_to_cancel",
            rule="lotn:retest-cancel",
        )

    def test_after_a_cancel_another_source_may_retest(self, table: Table) -> None:
        """A cancelled retest can be followed by one from another source (lotn:retests)."""
        table.do("daron", "retest", challenge="shot", source=ability("Firearms"))
        table.do("michael", "cancel_retest", challenge="shot", source=ability("Dodge"))
        table.do("daron", "retest", challenge="shot", source={"category": "merit", "name": "Lucky"})
        table.do("michael", "pass", challenge="shot")
        assert len(table.challenge("shot").retests) == 2 and table.challenge("shot").status == "throwing"


class TestDrawRetests:
    """On a draw both sides are behind: either may retest (lotn:draw, lotn:retests)."""

    def test_either_side_retests_a_draw(self) -> None:
        """After a draw either side may retest; resolution waits for both to pass."""
        t = Table()
        t.add("a", {"Brawny": 2}, abilities={"Brawl": 1})
        t.add("b", {"Quick": 2}, abilities={"Dodge": 1})
        t.contest("c", "a", "b", "Brawny", "Quick")
        t.test("c", "rock", "rock")
        t.do("a", "declare_traits", challenge="c", count=2)
        t.do("b", "declare_traits", challenge="c", count=2)
        t.do("b", "retest", challenge="c", source=ability("Dodge"))
        t.do("a", "pass", challenge="c")
        t.test("c", "rock", "paper")
        assert t.challenge("c").leader == "defender"
        t.do("a", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "defender"  # type: ignore[union-attr]
