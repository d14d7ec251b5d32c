"""Calling a Negative Trait (issue 27): the moves offer, beside the free call the rules allow (a
call is a guess: "a Negative Trait that you believe your opponent possesses", lotn:negative-traits),
the opponent's Negative Traits the caller may know: all of them to the Storyteller calling for an
NPC (who sees the sheet), and to a player only those a correct call has already shown."""

from __future__ import annotations

from projections.views import view
from tests.table import Table


def table() -> Table:
    t = Table()
    t.add("sam", {"Brawny": 3, "Quick": 2})
    t.add("juan", {"Brutal": 3}, negative_traits={"physical": ["Clumsy"], "social": ["Callous"]})
    t.add("guard", {"Tough": 3}, npc=True)
    return t


def test_a_player_is_offered_only_the_negative_traits_a_call_has_shown() -> None:
    t = table()
    t.contest("a", "sam", "juan", "Brawny", "Brutal")
    sam = view(t.state, "sam").challenges["a"].moves["sam"]
    assert "call_negative" in sam.verbs and sam.negatives == []  # Juan's sheet is hidden from Sam
    t.do("sam", "call_negative", challenge="a", trait="Clumsy")  # a guess, and right: now everyone knows
    t.do("juan", "bid", challenge="a", bid=["Brutal"])  # the Trait the call costs him
    t.test("a", "rock", "paper")
    t.contest("b", "sam", "juan", "Brawny", "Brutal")
    sam = view(t.state, "sam").challenges["b"].moves["sam"]
    assert sam.negatives == ["Clumsy"]  # shown by the earlier call; Callous never was


def test_the_storyteller_calling_for_an_npc_is_offered_the_opponents_sheet() -> None:
    t = table()
    t.do("st", "declare", character="guard", challenge="g", kind="contested", targets=["juan"],
         category="physical", bid=["Tough"])  # fmt: skip
    t.do("juan", "bid", challenge="g", bid=["Brutal"])
    guard = view(t.state, "st").challenges["g"].moves["guard"]
    assert guard.negatives == ["Clumsy", "Callous"]
    juan = view(t.state, "juan").challenges["g"].moves["juan"]
    assert juan.negatives == []  # the NPC's sheet stays hidden from Juan
