"""Refusals a player reads: a challenge named by its people, never by its id; an id, where it is all
there is to go by, in quotes, not as a Python repr (issue 14)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import Rejected
from tests.table import Table


@pytest.fixture
def t() -> Table:
    """Sam challenges Juan (challenge "c-069823"); Rosa looks on."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.add("juan", {"Brutal": 2})
    t.add("rosa", {"Quick": 2})
    attack(t, "c-069823", "sam", "juan", "Brawny")
    return t


def no_id(error: Rejected, *ids: str) -> None:
    """The message leaks neither an id nor a repr."""
    for cid in ids:
        assert cid not in error.message, error.message
    assert "'" not in error.message.replace("'s ", ""), error.message  # a possessive, not a quoted repr


def test_a_player_not_in_the_challenge_is_told_whose_it_is(t: Table) -> None:
    """Rosa throws in Sam's challenge to Juan: refused, naming the two of them."""
    error = t.refused("rosa", "relent", challenge="c-069823", code="not_in_challenge")
    assert error.message == "Rosa is not part of Sam's challenge to Juan."
    no_id(error, "c-069823")


def test_a_challenge_that_is_over_is_named_with_how_it_ended(t: Table) -> None:
    """After Juan relents, a late bid is refused naming the challenge and its outcome."""
    t.do("juan", "relent", challenge="c-069823")
    outcome = t.challenge("c-069823").outcome
    assert outcome is not None
    error = t.refused("juan", "bid", challenge="c-069823", bid=["Brutal"], code="already_resolved")
    assert error.message == f"Sam's challenge to Juan is already over. {outcome.why}"
    no_id(error, "c-069823")


def test_a_withdrawn_challenge_is_named_by_its_people(t: Table) -> None:
    t.do("sam", "withdraw", challenge="c-069823")
    error = t.refused("juan", "bid", challenge="c-069823", bid=["Brutal"], code="withdrawn")
    assert error.message == "Sam's challenge to Juan was withdrawn."


def test_an_id_used_twice_names_the_challenge_it_belongs_to(t: Table) -> None:
    """Declaring again under a used id: refused naming the challenge that has it."""
    error = t.refused(
        "rosa",
        "declare",
        challenge="c-069823",
        kind="contested",
        targets=["juan"],
        category="physical",
        bid=["Quick"],
        code="challenge_exists",
    )
    assert error.message.startswith("That challenge is already declared (Sam's challenge to Juan)")
    no_id(error, "c-069823")


def test_a_challenge_the_scene_never_had_is_named_by_its_id_in_quotes(t: Table) -> None:
    """No people to name: the id is all there is, quoted in words, not as a repr."""
    error = t.refused("sam", "throw", challenge="nope", sign="rock", code="unknown_challenge")
    assert error.message == "No challenge “nope” was declared in this scene."
    no_id(error)


def test_an_unknown_character_and_sign_are_quoted_not_repr(t: Table) -> None:
    error = t.refused(
        "st",
        "declare",
        challenge="d",
        character="sam",
        kind="contested",
        targets=["ghost"],
        category="physical",
        bid=["Brawny"],
        code="unknown_character",
    )
    assert error.message == "No character “ghost” is in this scene."
    t.do("juan", "bid", challenge="c-069823", bid=["Brutal"])
    error = t.refused("sam", "throw", challenge="c-069823", sign="lizard", code="unknown_sign", rule="lotn:rps")
    assert error.message.startswith("“lizard” is not a sign")
    no_id(error)


def attack(t: Table, cid: str, who: str, target: str, bid: str, **extra: Any) -> None:
    t.do(who, "declare", challenge=cid, kind="contested", targets=[target], category="physical", bid=[bid], **extra)


class TestMobs:
    """camarilla:mob: joining a mob, or choosing its victory, names the challenge by its people."""

    @pytest.fixture
    def brawl(self) -> Table:
        t = Table(ruleset="camarilla")
        t.add("andrew", {"Ferocious": 3})
        t.add("bob", {"Brawny": 3})
        t.add("zach", {"Tough": 3})
        attack(t, "m-1f3a", "andrew", "zach", "Ferocious")
        t.do("bob", "join", challenge="m-1f3a", bid=["Brawny"])
        return t

    def test_joining_twice_or_against_oneself(self, brawl: Table) -> None:
        error = brawl.refused("bob", "join", challenge="m-1f3a", bid=["Brawny"], code="already_in")
        assert error.message == "Bob is already part of Andrew's challenge to Zach."
        no_id(error, "m-1f3a")
        error = brawl.refused("zach", "join", challenge="m-1f3a", bid=["Tough"], code="already_in")
        assert error.message.startswith("Zach is the target of Andrew's challenge to Zach")
        no_id(error, "m-1f3a")

    def test_choosing_for_a_challenge_the_scene_never_had(self, brawl: Table) -> None:
        error = brawl.refused("andrew", "choose_victory", challenge="m-9", of="andrew", code="unknown_challenge")
        assert error.message == "No challenge “m-9” was declared in this scene."
