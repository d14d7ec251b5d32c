"""What the player's sheet is drawn from: their own character's view carries everything the rules use
(Negative Traits, powers with levels, merits, gestures, the blood pool and what is left of it,
Willpower and health with their maxima), and nobody else's view of that character carries any of
it."""

from __future__ import annotations

from domain.state import NARRATOR
from projections.views import SPECTATOR, view
from tests.table import Table, sheet

JIMMY = sheet(
    "jimmy",
    {"Brawny": 3, "Quick": 2},
    willpower=4,
    health=7,
    abilities={"Brawl": 2},
    negative_traits={"physical": ["Clumsy"], "social": ["Repugnant"]},
    powers={"Feral Claws": 1, "Puissance": 2},
    merits=["Lucky"],
    gestures=["bomb"],
    blood=10,
    notes="owes the Prince",
)
FRANK = sheet("frank", {"Wiry": 3})


def table() -> Table:
    t = Table("camarilla")
    for s in (JIMMY, FRANK):
        t.do("st", "add_character", character=s)
    return t


def test_the_player_sees_their_whole_sheet_and_blood_left() -> None:
    t = table()
    t.do("jimmy", "spend_blood", kind="strength")
    mine = view(t.state, "jimmy").characters["jimmy"]
    assert mine.sheet is not None
    assert mine.sheet.negative_traits.physical == ["Clumsy"] and mine.sheet.negative_traits.social == ["Repugnant"]
    assert mine.sheet.powers == {"Feral Claws": 1, "Puissance": 2}
    assert mine.sheet.merits == ["Lucky"] and mine.sheet.gestures == ["bomb"]
    assert (mine.sheet.blood, mine.blood) == (10, 9)
    assert (mine.sheet.willpower, mine.willpower, mine.sheet.health, mine.health) == (4, 4, 7, 7)
    assert mine.sheet.notes == ""  # the ST's notes are the ST's
    assert view(t.state, NARRATOR).characters["jimmy"].blood == 9


def test_nobody_else_sees_it() -> None:
    t = table()
    for viewer in ("frank", SPECTATOR):
        theirs = view(t.state, viewer).characters["jimmy"]
        assert theirs.sheet is None and theirs.blood is None and theirs.traits is None


def test_no_blood_pool_no_blood_in_the_view() -> None:
    assert view(table().state, "frank").characters["frank"].blood is None
