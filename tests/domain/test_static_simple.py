"""Static challenges against a difficulty and simple tests (lotn:static, lotn:static-overbid,
lotn:simple)."""

from __future__ import annotations

import pytest

from tests.table import Table, types


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add("hacker", traits={"mental": {"Clever": 4, "Alert": 2}}, abilities={"Computer": 2})
    return t


def static(t: Table, difficulty: int = 5, cid: str = "lock") -> None:
    t.do(
        "hacker",
        "declare",
        challenge=cid,
        kind="static",
        category="mental",
        bid=["Clever"],
        difficulty=difficulty,
        victory="break into the mainframe",
    )


class TestStatic:
    """lotn:static: a test against the Narrator; on a tie, more Traits than the difficulty succeed."""

    def test_needs_a_difficulty_and_no_target(self, table: Table) -> None:
        """A static challenge names its difficulty and no target (lotn:static)."""
        table.refused(
            "hacker",
            "declare",
            challenge="x",
            kind="static",
            category="mental",
            bid=["Clever"],
            code="difficulty_required",
            rule="lotn:static",
        )
        table.add("guard", {"Brawny": 1})
        table.refused(
            "hacker",
            "declare",
            challenge="x",
            kind="static",
            category="mental",
            bid=["Clever"],
            difficulty=3,
            targets=["guard"],
            code="no_targets",
            rule="lotn:static",
        )

    def test_the_narrator_throws(self, table: Table) -> None:
        """The ST throws for the Narrator; a player cannot (lotn:static)."""
        static(table)
        table.do("hacker", "throw", challenge="lock", sign="rock")
        table.refused("hacker", "throw", challenge="lock", sign="rock", character="st", code="forbidden")
        events = table.do("st", "throw", challenge="lock", sign="scissors")
        assert types(events) == ["throw_sealed", "test_revealed", "test_resolved"]
        assert table.challenge("lock").leader == "challenger"

    @pytest.mark.parametrize(("count", "leader"), [(6, "challenger"), (5, "defender")])
    def test_tie_needs_more_than_the_difficulty(self, table: Table, count: int, leader: str) -> None:
        """On a tie only more Traits than the difficulty succeed; equal fails (lotn:static)."""
        static(table)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "paper", "st": "paper"})
        table.refused("st", "declare_traits", challenge="lock", count=5, code="narrator_count")
        events = table.do("hacker", "declare_traits", challenge="lock", count=count)
        assert events[-1].rule == "lotn:static"  # type: ignore[union-attr]
        assert events[-1].compared == {"hacker": count, "difficulty": 5}  # type: ignore[union-attr]
        assert table.challenge("lock").leader == leader

    def test_failure_loses_the_bid_trait(self, table: Table) -> None:
        """A failed static challenge costs the Trait bid, as any lost test (lotn:static)."""
        static(table)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "rock", "st": "paper"})
        table.do("hacker", "pass", challenge="lock")
        assert table.challenge("lock").outcome.winner == "defender"  # type: ignore[union-attr]
        assert table.lost("hacker") == ["Clever"]

    def test_success_waits_for_the_narrator_to_pass(self, table: Table) -> None:
        """When the player leads, the Narrator may overbid or pass (lotn:static-overbid)."""
        static(table)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "paper", "st": "rock"})
        table.refused("hacker", "pass", challenge="lock", code="not_losing")
        table.do("st", "pass", challenge="lock")
        assert table.challenge("lock").outcome.winner == "challenger"  # type: ignore[union-attr]
        assert table.lost("hacker") == []

    def test_player_retests_with_an_ability(self, table: Table) -> None:
        """The initiator may retest a static challenge with an Ability; the Narrator cannot cancel it
        (lotn:retests)."""
        static(table)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "rock", "st": "paper"})
        table.do("hacker", "retest", challenge="lock", source={"category": "ability", "name": "Computer"})
        table.refused(
            "st",
            "cancel_retest",
            challenge="lock",
            source={"category": "ability", "name": "Dodge"},
            code="narrator_cancel",
        )
        table.do("st", "pass", challenge="lock")
        assert table.challenge("lock").status == "throwing"


class TestStaticOverbid:
    """lotn:static-overbid: the player may overbid the difficulty; the Narrator may overbid too."""

    def test_player_overbids_the_difficulty(self, table: Table) -> None:
        """The player needs double the difficulty for a new test (lotn:static-overbid)."""
        static(table, difficulty=2)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "rock", "st": "paper"})
        table.do("hacker", "retest", challenge="lock", source={"category": "overbid", "bid": ["Alert"]})
        events = table.do("hacker", "declare_traits", challenge="lock", count=4)
        assert types(events) == ["traits_declared", "overbid_succeeded"]
        assert events[-1].compared == {"hacker": 4, "difficulty": 2}  # type: ignore[union-attr]

    def test_narrator_overbids(self, table: Table) -> None:
        """When the player wins, the Narrator overbids with the difficulty, risking nothing
        (lotn:static-overbid)."""
        static(table, difficulty=9)
        table.do("st", "record_test", challenge="lock", signs={"hacker": "paper", "st": "rock"})
        table.refused(
            "st",
            "retest",
            challenge="lock",
            source={"category": "overbid", "bid": ["Clever"]},
            code="narrator_bid",
            rule="lotn:static-overbid",
        )
        table.refused(
            "st",
            "retest",
            challenge="lock",
            source={"category": "ability", "name": "Brawl"},
            code="narrator_retest",
            rule="lotn:static-overbid",
        )
        table.do("st", "retest", challenge="lock", source={"category": "overbid", "bid": []})
        events = table.do("hacker", "declare_traits", challenge="lock", count=4)
        assert types(events) == ["traits_declared", "overbid_succeeded"]
        assert table.lost("hacker") == []
        table.do("st", "record_test", challenge="lock", signs={"hacker": "paper", "st": "scissors"})
        table.do("hacker", "pass", challenge="lock")
        assert table.challenge("lock").outcome.winner == "defender"  # type: ignore[union-attr]
        assert table.lost("hacker") == ["Clever"]


class TestSimple:
    """lotn:simple: a win or a tie succeeds (or a win only); it cannot be retested."""

    @pytest.mark.parametrize(
        ("mine", "require_win", "winner"),
        [
            ("paper", False, "challenger"),
            ("rock", False, "challenger"),
            ("scissors", False, "defender"),
            ("rock", True, "defender"),
            ("paper", True, "challenger"),
        ],
    )
    def test_win_or_tie(self, table: Table, mine: str, require_win: bool, winner: str) -> None:
        """A simple test resolves on its one test: a win, or a tie unless a win is required
        (lotn:simple)."""
        table.do("hacker", "declare", challenge="s", kind="simple", category="mental", require_win=require_win)
        events = table.do("st", "record_test", challenge="s", signs={"hacker": mine, "st": "rock"})
        assert types(events) == ["test_revealed", "test_resolved", "challenge_resolved"]
        assert events[1].rule == "lotn:simple"  # type: ignore[union-attr]
        assert table.challenge("s").outcome.winner == winner  # type: ignore[union-attr]
        table.refused(
            "hacker",
            "retest",
            challenge="s",
            source={"category": "ability", "name": "Computer"},
            code="already_resolved",
        )

    def test_simple_bids_at_most_one(self, table: Table) -> None:
        """A simple test needs no bid, and risks one Trait at most (lotn:simple)."""
        table.refused(
            "hacker",
            "declare",
            challenge="s",
            kind="simple",
            category="mental",
            bid=["Clever", "Alert"],
            code="one_bid",
            rule="lotn:simple",
        )
        table.refused(
            "hacker",
            "declare",
            challenge="s",
            kind="contested",
            targets=[],
            category="mental",
            require_win=True,
            bid=["Clever"],
            code="one_target",
        )

    def test_require_win_only_for_simple(self, table: Table) -> None:
        """Only a simple test can require a win (lotn:simple)."""
        table.refused(
            "hacker",
            "declare",
            challenge="s",
            kind="static",
            category="mental",
            bid=["Clever"],
            difficulty=2,
            require_win=True,
            code="require_win_simple",
            rule="lotn:simple",
        )
