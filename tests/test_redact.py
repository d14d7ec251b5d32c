"""What each viewer reads of a game night's records (projections/redact.py), after the adversarial
review: the server's follow-ups keep their scene-naming command ids for the Storyteller alone, and
players read no scene of the night but their character's (its opening, its end), in the records
and in the words the pages show beside them (projections/narrate.py)."""

from __future__ import annotations

import msgspec
import pytest

from domain.log import Recorded, check_chain, to_wire
from domain.state import Scene
from projections.narrate import narrate
from projections.night_view import night_view
from projections.redact import FOLLOW_UP, redact
from server.wire import befores_of
from tests.night.table import JUAN, ROSA, SAM, NightTable


@pytest.fixture
def night() -> NightTable:
    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("park", title="Park")
    t.open_scene("docks", title="The docks")
    t.move("rosa", "park")
    t.move("sam", "docks")
    t.ok("park", "st", "remove_character", character="rosa")  # Rosa back in the night: a ~back-park-… record
    return t


def data(record: Recorded, viewer: str) -> dict[str, object]:
    return msgspec.json.decode(redact(record, viewer).data)


def test_a_follow_ups_command_id_is_the_storytellers_alone(night: NightTable) -> None:
    """``character_returned``'s command is ``~back-park-rosa-…``: it names the scene Rosa came back
    from. Everyone but the ST reads ``~`` (named in ``redacted``); a player's own command keeps its
    id; the ST's copy is whole and re-hashes."""
    back = next(r for r in night.log("g1") if r.type == "character_returned")
    assert back.command.startswith("~back-park-")
    for viewer in ("sam", "rosa", "*"):
        copy = redact(back, viewer)
        assert copy.command == FOLLOW_UP and "park" not in copy.command
        assert "command" in copy.redacted
    assert redact(back, "st").command == back.command and redact(back, "st").redacted == []
    arrived = next(r for r in night.log("docks") if r.type == "character_entered")
    assert arrived.command.startswith("~arrive-") and redact(arrived, "sam").command == FOLLOW_UP
    assert redact(arrived, "sam").redacted == ["command"]  # Sam's own arrival: only the id is hidden
    own = next(r for r in night.log("g1") if r.type == "game_opened")
    assert redact(own, "sam").command == own.command and redact(own, "sam").redacted == []
    st_copies = [redact(r, "st") for r in night.log("g1")]
    assert check_chain(st_copies) is None  # the ST's copy verifies: nothing blanked
    assert check_chain([redact(r, "rosa") for r in night.log("g1")]) is not None  # a redacted one cannot


def test_players_read_no_title_or_id_of_a_scene_opening_or_ending(night: NightTable) -> None:
    """``scene_added`` and ``scene_ended``: a player reads neither the scene nor its title, and the
    words say "a new scene"; a spectator and the ST read both."""
    night.ok("park", "st", "close_scene")
    records = night.log("g1")
    added = [r for r in records if r.type == "scene_added"]
    ended = next(r for r in records if r.type == "scene_ended")
    assert [r.event.title for r in added] == ["Park", "The docks"]
    for record in added:
        assert data(record, "sam")["title"] is None and data(record, "sam")["scene"] is None
        assert redact(record, "sam").redacted == ["command", "scene", "title"]
        assert data(record, "*")["title"] == record.event.title == data(record, "st")["title"]
    assert data(ended, "sam")["scene"] is None and data(ended, "*")["scene"] == "park"
    for viewer in ("sam", "juan"):
        copies = [redact(r, viewer) for r in records]
        shown = b"".join(bytes(c.data) for c in copies if c.type.startswith("scene_"))
        assert b"Park" not in shown and b"docks" not in shown and b"park" not in shown


def test_a_players_words_agree_with_their_night_view(night: NightTable) -> None:
    """The night's words for a player name no scene its view does not: Sam's view names the docks
    while he is in them, and once the scene closes he is back between scenes (he comes back before
    the scene ends), so its end names no scene, as his view then lists none. A spectator's and the
    ST's words name every scene."""
    in_docks = night_view(night.state("g1"), "sam")
    assert in_docks.night is not None and [s.title for s in in_docks.night.scenes] == ["The docks"]
    night.ok("docks", "st", "close_scene")
    records = night.log("g1")
    befores = befores_of(records, Scene(id="g1"))

    def words(viewer: str) -> list[str]:
        pairs = zip(befores, records, strict=True)
        return [narrate(b, r.event, viewer) for b, r in pairs if r.type.startswith("scene_")]

    for player in ("sam", "juan", "rosa"):
        assert words(player) == ["A new scene opens tonight."] * 2 + ["A scene of tonight's game ends."]
        shown = night_view(befores[-1], player)
        assert shown.night is not None and shown.night.scenes == []
    assert words("*") == ["“Park” opens tonight.", "“The docks” opens tonight.", "“The docks” ends."]
    assert words("st") == words("*")


def test_the_wire_form_of_an_unredacted_record_is_unchanged(night: NightTable) -> None:
    """A record with nothing hidden from a viewer is the stored record as it is."""
    opened = next(r for r in night.log("g1") if r.type == "game_opened")
    assert redact(opened, "*") == to_wire(opened)
