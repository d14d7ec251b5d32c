"""Declaring, answering, relenting and withdrawing (lotn)."""

from __future__ import annotations

import pytest

from tests.table import Table, types


@pytest.fixture
def table() -> Table:
    t = Table()
    t.add("sam", {"Ferocious": 1, "Brawny": 2, "Quick": 2}, traits={"social": {"Charismatic": 1}})
    t.add("juan", {"Brutal": 2, "Quick": 1}, traits={"mental": {"Alert": 1}})
    return t


class TestCategories:
    """lotn:categories: every Trait in a challenge comes from its category, unless agreed."""

    def test_challenger_bids_another_category(self, table: Table) -> None:
        """A Social Trait cannot open a Physical challenge (lotn:categories)."""
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Charismatic"],
            code="wrong_category",
            rule="lotn:categories",
        )

    def test_defender_answers_in_another_category(self, table: Table) -> None:
        """The defender's answer must be of the challenge's category too (lotn:categories)."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        error = table.refused(
            "juan", "bid", challenge="c", bid=["Alert"], code="wrong_category", rule="lotn:categories"
        )
        assert "Alert is a Mental Trait" in error.message

    def test_scene_option_allows_other_categories(self) -> None:
        """By agreement (the scene option) each side bids its own category and counts it on a tie
        (lotn:categories)."""
        t = Table(options={"cross_category_bids": True})
        t.add("daron", {"Quick": 1}, traits={"mental": {"Wily": 3}})
        t.add("michael", {"Quick": 2})
        t.contest("c", "daron", "michael", "Wily", "Quick")
        t.test("c", "rock", "rock")
        t.do("daron", "declare_traits", challenge="c", count=3)
        t.refused("michael", "declare_traits", challenge="c", count=3, code="over_declared")
        t.do("michael", "declare_traits", challenge="c", count=2)
        assert t.challenge("c").test.compared == {"daron": 3, "michael": 2}
        assert t.challenge("c").leader == "challenger"


class TestInitialBid:
    """lotn:initial-bid: one Trait each to begin, against one opponent."""

    @pytest.mark.parametrize("bid", [[], ["Brawny", "Quick"]])
    def test_challenger_bids_exactly_one(self, table: Table, bid: list[str]) -> None:
        """A challenge opens with exactly one Trait (lotn:initial-bid)."""
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=bid,
            code="one_bid",
            rule="lotn:initial-bid",
        )

    def test_defender_answers_with_one(self, table: Table) -> None:
        """The defender answers with exactly one Trait (lotn:initial-bid)."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        table.refused("juan", "bid", challenge="c", bid=["Brutal", "Quick"], code="one_bid", rule="lotn:initial-bid")

    def test_one_target(self, table: Table) -> None:
        """A challenge names one target; itself is not one (lotn:initial-bid)."""
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=[],
            category="physical",
            bid=["Brawny"],
            code="one_target",
            rule="lotn:initial-bid",
        )
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["sam"],
            category="physical",
            bid=["Brawny"],
            code="self_target",
        )

    def test_unknown_trait_and_target(self, table: Table) -> None:
        """Traits and targets must exist on this scene's sheets."""
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Mighty"],
            code="unknown_trait",
        )
        table.refused(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["zed"],
            category="physical",
            bid=["Brawny"],
            code="unknown_character",
        )

    def test_nothing_is_thrown_before_the_answer(self, table: Table) -> None:
        """No test until both sides have bid (lotn:test)."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        table.refused("sam", "throw", challenge="c", sign="rock", code="wrong_phase")
        table.refused("sam", "bid", challenge="c", bid=["Quick"], code="not_your_turn")

    def test_acting_for_someone_else(self, table: Table) -> None:
        """A player acts only for their own character; the ST may act for anyone."""
        table.refused(
            "juan",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
            character="sam",
            code="forbidden",
        )
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        table.refused("sam", "bid", challenge="c", bid=["Brutal"], character="juan", code="forbidden")
        table.do("st", "bid", challenge="c", bid=["Brutal"], character="juan")
        assert table.challenge("c").defender.bids == ("Brutal",)


class TestRelent:
    """lotn:relent: the defender loses at once, without risking a Trait."""

    def test_relent_loses_without_a_trait(self, table: Table) -> None:
        """Relenting resolves for the challenger; nobody loses a Trait; the wound lands (lotn:relent)."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
            effect={"kind": "damage", "amount": 1, "type": "lethal"},
        )
        events = table.do("juan", "relent", challenge="c")
        assert types(events) == ["relented", "challenge_resolved", "damage_taken"]
        outcome = table.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger" and outcome.rule == "lotn:relent"
        assert table.lost("juan") == [] and table.lost("sam") == []
        assert table.character("juan").wounds.lethal == 1
        table.refused("juan", "pass", challenge="c", code="already_resolved")

    def test_relent_after_bidding_before_the_test(self, table: Table) -> None:
        """The defender may still relent after bidding, until the test begins (lotn:relent)."""
        table.contest("c", "sam", "juan", "Brawny", "Brutal")
        table.do("juan", "relent", challenge="c")
        assert table.lost("juan") == []
        t2 = Table()
        t2.add("sam", {"Brawny": 1})
        t2.add("juan", {"Brutal": 1})
        t2.contest("c", "sam", "juan", "Brawny", "Brutal")
        t2.do("sam", "throw", challenge="c", sign="rock")
        t2.refused("juan", "relent", challenge="c", code="too_late", rule="lotn:relent")

    def test_only_the_defender_relents(self, table: Table) -> None:
        """The challenger does not relent; it may withdraw (lotn:relent)."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        table.refused("sam", "relent", challenge="c", code="not_defender", rule="lotn:relent")


class TestWithdraw:
    """The challenger withdraws before an answer; after it only a Narrator stops a challenge."""

    def test_withdraw_before_the_answer(self, table: Table) -> None:
        """Withdrawing before the answer ends the challenge; nothing is lost."""
        table.do(
            "sam",
            "declare",
            challenge="c",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        table.do("sam", "withdraw", challenge="c")
        assert table.challenge("c").status == "withdrawn"
        table.refused("juan", "bid", challenge="c", bid=["Brutal"], code="withdrawn")

    def test_narrator_stops_an_answered_challenge(self, table: Table) -> None:
        """After the answer the challenger cannot withdraw, but the ST can (lotn:adjudication)."""
        table.contest("c", "sam", "juan", "Brawny", "Brutal")
        table.refused("sam", "withdraw", challenge="c", code="too_late", rule="lotn:adjudication")
        table.do("st", "withdraw", challenge="c")
        assert table.challenge("c").status == "withdrawn"
