"""Throwing and comparing: Rock-Paper-Scissors, gestures, sealed and random throws, ties, draws,
and what the loser loses (lotn)."""

from __future__ import annotations

import pytest

from domain.state import Character
from tests.table import Table, entropy_for, types


def duel(**sam: object) -> Table:
    t = Table()
    t.add("sam", {"Ferocious": 1, "Brawny": 2, "Quick": 2, "Tough": 2, "Wiry": 1, "Nimble": 1}, **sam)
    t.add("juan", {"Brutal": 2, "Quick": 2, "Tireless": 2, "Dexterous": 1, "Lithe": 1})
    t.contest("c", "sam", "juan", "Ferocious", "Brutal")
    return t


def available(c: Character) -> int:
    return c.available("physical")


class TestRockPaperScissors:
    """lotn:rps: Rock crushes Scissors, Scissors cuts Paper, Paper covers Rock."""

    @pytest.mark.parametrize(
        ("mine", "theirs", "result", "leader"),
        [
            ("rock", "scissors", "win", "challenger"),
            ("scissors", "paper", "win", "challenger"),
            ("paper", "rock", "win", "challenger"),
            ("scissors", "rock", "lose", "defender"),
            ("paper", "scissors", "lose", "defender"),
            ("rock", "paper", "lose", "defender"),
        ],
    )
    def test_signs(self, mine: str, theirs: str, result: str, leader: str) -> None:
        """Each pair of different signs has one winner (lotn:rps)."""
        t = duel()
        t.test("c", mine, theirs)
        test = t.challenge("c").test
        assert test is not None and test.result == result and test.leader == leader and test.rule == "lotn:rps"

    @pytest.mark.parametrize("sign", ["rock", "paper", "scissors"])
    def test_identical_signs_tie(self, sign: str) -> None:
        """Identical signs are a tie and open the Trait declarations (lotn:rps)."""
        t = duel()
        events = t.test("c", sign, sign)
        assert types(events) == ["throw_sealed", "test_revealed", "declarations_opened"]
        assert t.challenge("c").status == "tie_declaring"

    def test_throws_are_sealed_until_both_are_in(self) -> None:
        """The first throw reveals nothing; the second reveals both (lotn:test)."""
        t = duel()
        assert types(t.do("sam", "throw", challenge="c", sign="rock")) == ["throw_sealed"]
        assert t.challenge("c").tests == ()
        t.refused("sam", "throw", challenge="c", sign="paper", code="already_thrown")
        events = t.do("juan", "throw", challenge="c", sign="scissors")
        assert types(events) == ["throw_sealed", "test_revealed", "test_resolved"]

    def test_random_throw_is_drawn_by_the_shell_and_kept(self) -> None:
        """A random throw takes the shell's draw and stores the sign in the event."""
        t = duel()
        t.entropy = entropy_for(2)  # index 2: scissors
        (sealed,) = t.do("sam", "throw", challenge="c", sign="random")
        assert sealed.sign == "scissors" and sealed.random  # type: ignore[union-attr]

    def test_unknown_sign(self) -> None:
        """A sign that is not one is refused, listing what may be thrown (lotn:rps)."""
        t = duel()
        error = t.refused("sam", "throw", challenge="c", sign="lizard", code="unknown_sign", rule="lotn:rps")
        assert "rock, paper, scissors" in error.message


class TestGestures:
    """lotn:gestures: a special gesture only where a sheet grants it, compared by the beats table."""

    @pytest.mark.parametrize(
        ("theirs", "result"), [("rock", "win"), ("paper", "win"), ("scissors", "lose"), ("bomb", "tie")]
    )
    def test_bomb(self, theirs: str, result: str) -> None:
        """The bomb beats rock and paper; scissors cut its fuse (lotn:gestures)."""
        t = Table()
        t.add("sam", {"Brawny": 1}, gestures=["bomb"])
        t.add("juan", {"Brutal": 1}, gestures=["bomb"])
        t.contest("c", "sam", "juan", "Brawny", "Brutal")
        t.test("c", "bomb", theirs)
        assert t.challenge("c").tests[0].result == result

    def test_gesture_not_granted(self) -> None:
        """A gesture the sheet does not grant is refused (lotn:gestures)."""
        t = duel()
        t.refused("sam", "throw", challenge="c", sign="bomb", code="gesture_not_granted", rule="lotn:gestures")

    def test_sheet_with_unknown_gesture(self) -> None:
        """A sheet granting an unknown gesture is refused, naming the field (lotn:gestures)."""
        t = Table()
        error = t.refused(
            "st",
            "add_character",
            character={"id": "x", "name": "X", "traits": {}, "gestures": ["rock", "nuke"]},
            code="bad_sheet",
            rule="lotn:gestures",
        )
        assert "character.gestures[0]" in error.message


class TestTies:
    """lotn:ties, lotn:challenger-declares-first, lotn:declare-fewer, lotn:draw."""

    def test_more_traits_wins_the_tie(self) -> None:
        """On a tie the side declaring more Traits wins the test (lotn:ties)."""
        t = duel()
        t.test("c", "rock", "rock")
        t.do("sam", "declare_traits", challenge="c", count=9)
        (resolved,) = t.do("juan", "declare_traits", challenge="c", count=8)[1:]
        assert resolved.leader == "challenger" and resolved.rule == "lotn:ties"  # type: ignore[union-attr]
        assert resolved.compared == {"sam": 9, "juan": 8}  # type: ignore[union-attr]

    def test_challenger_declares_first(self) -> None:
        """The defender waits for the challenger's count (lotn:challenger-declares-first)."""
        t = duel()
        t.test("c", "paper", "paper")
        t.refused(
            "juan",
            "declare_traits",
            challenge="c",
            count=8,
            code="not_your_turn",
            rule="lotn:challenger-declares-first",
        )

    def test_never_more_than_available(self) -> None:
        """Declaring more than available is refused; Traits lost earlier lower the maximum
        (lotn:declare-fewer, lotn:ties)."""
        t = duel()
        t.do("st", "adjust", character="sam", changes={"lose_traits": ["Tough"]}, reason="lost earlier tonight")
        t.test("c", "rock", "rock")
        error = t.refused(
            "sam", "declare_traits", challenge="c", count=9, code="over_declared", rule="lotn:declare-fewer"
        )
        assert "only 8 Physical Traits" in error.message
        t.do("sam", "declare_traits", challenge="c", count=8)

    def test_declaring_fewer_is_allowed_and_risky(self) -> None:
        """A side may declare fewer than it has, and lose by it (lotn:declare-fewer)."""
        t = duel()
        t.test("c", "rock", "rock")
        t.do("sam", "declare_traits", challenge="c", count=5)
        t.do("juan", "declare_traits", challenge="c", count=8)
        assert t.challenge("c").leader == "defender"
        t.do("sam", "pass", challenge="c")
        assert t.lost("sam") == ["Ferocious"] and t.lost("juan") == []

    def test_equal_counts_draw_and_both_lose(self) -> None:
        """Equal counts are a draw; after both pass, both lose the Traits they bid (lotn:draw)."""
        t = duel()
        t.test("c", "rock", "rock")
        t.do("sam", "declare_traits", challenge="c", count=8)
        t.do("juan", "declare_traits", challenge="c", count=8)
        assert t.challenge("c").leader == "none"
        t.do("sam", "pass", challenge="c")
        assert t.challenge("c").status == "retest_window"  # both sides are behind on a draw
        events = t.do("juan", "pass", challenge="c")
        assert types(events) == ["passed", "challenge_resolved", "trait_lost", "trait_lost"]
        assert t.challenge("c").outcome.winner == "none"  # type: ignore[union-attr]
        assert t.challenge("c").outcome.rule == "lotn:draw"  # type: ignore[union-attr]
        assert t.lost("sam") == ["Ferocious"] and t.lost("juan") == ["Brutal"]


class TestTraitLoss:
    """lotn:trait-loss: the loser loses the Trait bid, for the rest of the session."""

    def test_loser_loses_the_trait_bid(self) -> None:
        """The loser's bid Trait is gone tonight and the category total drops (lotn:trait-loss)."""
        t = duel()
        t.test("c", "paper", "rock")
        events = t.do("juan", "pass", challenge="c")
        assert types(events) == ["passed", "challenge_resolved", "trait_lost"]
        assert events[2].rule == "lotn:trait-loss"  # type: ignore[union-attr]
        assert t.lost("juan") == ["Brutal"] and available(t.character("juan")) == 7
        assert t.lost("sam") == []

    def test_a_lost_trait_cannot_be_bid_again(self) -> None:
        """Once every copy of a Trait is lost it cannot be bid (lotn:trait-loss)."""
        t = duel()
        t.test("c", "paper", "rock")
        t.do("juan", "pass", challenge="c")
        t.contest("d", "sam", "juan", "Ferocious", "Brutal")  # Juan had Brutal x2
        t.test("d", "paper", "rock")
        t.do("juan", "pass", challenge="d")
        t.do(
            "sam",
            "declare",
            challenge="e",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )
        t.refused("juan", "bid", challenge="e", bid=["Brutal"], code="trait_unavailable", rule="lotn:trait-loss")


def test_a_trait_at_risk_twice_is_lost_once() -> None:
    """A Trait bid in two open challenges and lost in both is lost once: it was there once
    (lotn:trait-loss)."""
    t = Table()
    t.add("sam", {"Brawny": 1, "Quick": 1})
    t.add("juan", {"Brutal": 2})
    t.add("ana", {"Tough": 2})
    t.contest("one", "juan", "sam", "Brutal", "Brawny")
    t.contest("two", "ana", "sam", "Tough", "Brawny")
    for cid in ("one", "two"):
        t.test(cid, "rock", "scissors")
        t.do("sam", "pass", challenge=cid)
    assert t.lost("sam") == ["Brawny"]
    assert t.character("sam").available("physical") == 1
