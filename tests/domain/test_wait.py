"""The five-minute wait after a failed Social or Mental challenge (lotn:five-minute-wait)."""

from __future__ import annotations

import pytest

from tests.table import Table


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add(
        "favian",
        traits={"social": {"Beguiling": 3, "Seductive": 2}, "physical": {"Quick": 3}},
        abilities={"Subterfuge": 1},
        powers=["Dominate"],
    )
    t.add("endora", traits={"social": {"Dignified": 3}, "physical": {"Quick": 3}}, abilities={"Etiquette": 1})
    t.add("mina", traits={"social": {"Proud": 3}})
    return t


def flatter(t: Table, cid: str, target: str = "endora", **extra: object) -> None:
    answer = {"endora": "Dignified", "mina": "Proud"}[target]
    t.contest(cid, "favian", target, "Beguiling", answer, category="social", **extra)


def fail(t: Table, cid: str) -> None:
    t.test(cid, "rock", "paper")
    t.do("favian", "pass", challenge=cid)


class TestWait:
    """lotn:five-minute-wait: a challenger who fails a Social or Mental challenge waits five minutes."""

    def test_repeat_within_five_minutes_is_refused(self, table: Table) -> None:
        """Repeating the failed challenge before five minutes is refused with the time left
        (lotn:five-minute-wait)."""
        flatter(table, "c1")
        fail(table, "c1")
        table.tick(minutes=4, seconds=30)
        error = table.refused(
            "favian",
            "declare",
            challenge="c2",
            kind="contested",
            targets=["endora"],
            category="social",
            bid=["Seductive"],
            code="wait_required",
            rule="lotn:five-minute-wait",
        )
        assert "0:2" in error.message  # about 28 seconds to go
        table.tick(seconds=30)
        flatter(table, "c2")

    def test_other_targets_and_powers_are_not_repeats(self, table: Table) -> None:
        """Another target, or another power, is not the failed challenge repeated (lotn:five-minute-wait)."""
        flatter(table, "c1")
        fail(table, "c1")
        flatter(table, "c2", target="mina")
        table.do(
            "favian",
            "declare",
            challenge="c3",
            kind="contested",
            targets=["endora"],
            category="social",
            bid=["Seductive"],
            power="Dominate",
        )

    def test_physical_failures_need_no_wait(self, table: Table) -> None:
        """Only Social and Mental failures wait (lotn:five-minute-wait)."""
        table.contest("p1", "favian", "endora", "Quick", "Quick")
        fail(table, "p1")
        table.contest("p2", "favian", "endora", "Quick", "Quick")

    def test_redeemed_by_a_retest_is_not_a_failure(self, table: Table) -> None:
        """A lost test redeemed through a retest is no failure (lotn:five-minute-wait)."""
        flatter(table, "c1")
        table.test("c1", "rock", "paper")
        table.do("favian", "retest", challenge="c1", source={"category": "ability", "name": "Subterfuge"})
        table.do("endora", "pass", challenge="c1")
        table.test("c1", "paper", "rock")
        table.do("endora", "pass", challenge="c1")
        assert table.challenge("c1").outcome.winner == "challenger"  # type: ignore[union-attr]
        flatter(table, "c2")

    def test_the_defender_never_waits(self, table: Table) -> None:
        """The wait binds the failed challenger, not the defender (lotn:five-minute-wait)."""
        flatter(table, "c1")
        fail(table, "c1")
        table.contest("c2", "endora", "favian", "Dignified", "Seductive", category="social")
