"""What a game night's stream shows each viewer (projections/night_view.py) and what each may
read of its events (projections/redact.py): the Storyteller everything, a player their own
character and where it is, a spectator who is where."""

from __future__ import annotations

import msgspec
import pytest

from domain.log import Recorded
from projections.night_view import NightSceneView, Whereabouts, night_view
from projections.redact import redact
from server.wire import viewed
from tests.night.table import JUAN, ROSA, SAM, NightTable


@pytest.fixture
def night() -> NightTable:
    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("elysium", title="Elysium")
    t.open_scene("parking", title="The parking lot")
    t.move("sam", "elysium")
    t.move("juan", "parking")
    return t


def moved_at(t: NightTable, who: str) -> int:
    return next(r.seq for r in t.log("g1") if r.type == "character_moved" and r.event.character == who)


def test_the_storyteller_sees_every_character_every_scene_and_who_is_where(night: NightTable) -> None:
    shown = night_view(night.state("g1"), "st")
    assert list(shown.characters) == ["sam", "juan", "rosa"]
    assert shown.characters["juan"].traits == {"physical": 3, "social": 2, "mental": 0}
    assert shown.night is not None
    assert shown.night.scenes == [
        NightSceneView(id="elysium", title="Elysium", open=True, characters=["sam"]),
        NightSceneView(id="parking", title="The parking lot", open=True, characters=["juan"]),
    ]
    assert shown.night.where == {
        "sam": Whereabouts(scene="elysium", title="Elysium", since=moved_at(night, "sam")),
        "juan": Whereabouts(scene="parking", title="The parking lot", since=moved_at(night, "juan")),
    }


def test_a_player_sees_their_own_character_and_where_it_is(night: NightTable) -> None:
    shown = night_view(night.state("g1"), "sam")
    assert list(shown.characters) == ["sam"] and shown.characters["sam"].traits_lost == []
    assert shown.night is not None
    assert list(shown.night.where) == ["sam"]
    assert [s.id for s in shown.night.scenes] == ["elysium"]
    between = night_view(night.state("g1"), "rosa")  # in no scene yet
    assert list(between.characters) == ["rosa"] and between.night is not None
    assert between.night.where == {} and between.night.scenes == []


def test_a_spectator_sees_who_is_where_and_no_sheet(night: NightTable) -> None:
    shown = night_view(night.state("g1"), "*")
    assert list(shown.characters) == ["sam", "juan", "rosa"]
    assert all(c.traits is None and c.sheet is None for c in shown.characters.values())
    assert shown.night is not None and set(shown.night.where) == {"sam", "juan"}
    assert [s.characters for s in shown.night.scenes] == [["sam"], ["juan"]]


def test_between_scenes_the_night_shows_what_a_character_lost(night: NightTable) -> None:
    night.ok("parking", "st", "close_scene")
    night.move("juan", "elysium")
    night.fight("elysium", "c-1", "juan", "sam", "Wiry", "Brawny", ("rock", "scissors"))
    night.ok("elysium", "st", "close_scene")
    sam = night_view(night.state("g1"), "sam").characters["sam"]
    assert sam.traits_lost == ["Brawny"] and sam.traits is not None and sam.traits["physical"] == 2


def test_a_commit_on_the_night_carries_the_night_whole_and_only_what_the_viewer_may_see(night: NightTable) -> None:
    state = night.state("g1")
    patch = viewed(state, "sam", only=(["juan"], []))  # a commit that touched Juan only
    assert patch.characters == {}
    assert msgspec.to_builtins(patch)["night"]["where"]["sam"]["scene"] == "elysium"
    assert viewed(night.state("elysium"), "sam").__class__.__name__ == "StateView"  # a scene: its own view


def first(t: NightTable, stream: str, kind: str, who: str) -> Recorded:
    def whose(r: Recorded) -> str:
        character = getattr(r.event, "character", None)
        return character if isinstance(character, str) else getattr(character, "id", "")

    return next(r for r in t.log(stream) if r.type == kind and whose(r) == who)


def test_a_players_copy_of_the_nights_events(night: NightTable) -> None:
    copy = msgspec.json.decode(redact(first(night, "g1", "character_registered", "juan"), "sam").data)
    assert copy == {"character": {"id": "juan", "name": "Juan", "npc": False}}
    moved_juan = first(night, "g1", "character_moved", "juan")
    assert msgspec.json.decode(redact(moved_juan, "sam").data)["to"] is None
    assert msgspec.json.decode(redact(moved_juan, "juan").data)["to"] == "parking"
    assert msgspec.json.decode(redact(moved_juan, "*").data)["to"] == "parking"
    entered = first(night, "elysium", "character_entered", "sam")
    assert redact(entered, "juan").redacted == ["carried", "character", "command"]  # a follow-up's id: "~"
    assert redact(entered, "sam").redacted == ["command"]
