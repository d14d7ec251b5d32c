"""What a character loses in one scene of a game night is still lost in the next (lotn:
"you lose the Trait you bid for the duration of the session")."""

from __future__ import annotations

import pytest

from domain.evolve import fold
from tests.night.table import JUAN, ROSA, SAM, NightTable


@pytest.fixture
def night() -> NightTable:
    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("elysium", title="Elysium")
    t.move("sam", "elysium")
    t.move("juan", "elysium")
    return t


def sam_loses_brawny(t: NightTable, scene: str = "elysium", cid: str = "c-1") -> None:
    t.fight(scene, cid, "juan", "sam", "Wiry", "Brawny", ("rock", "scissors"))


class TestCarried:
    def test_entering_records_what_the_character_carries_and_where_from(self, night: NightTable) -> None:
        entered = [r for r in night.log("elysium") if r.type == "character_entered"]
        moved = [r for r in night.log("g1") if r.type == "character_moved"]
        assert [e.event.character.id for e in entered] == ["sam", "juan"]
        assert [(e.event.game, e.event.seq, e.event.hash) for e in entered] == [("g1", m.seq, m.hash) for m in moved]
        assert night.state("g1").night.where["sam"].scene == "elysium"

    def test_a_trait_lost_in_one_scene_is_lost_in_the_next(self, night: NightTable) -> None:
        sam_loses_brawny(night)
        assert night.character("elysium", "sam").lost_names == ["Brawny"]
        night.ok("elysium", "st", "close_scene")
        assert night.types("g1")[-3:] == ["character_returned", "character_returned", "scene_ended"]
        assert night.character("g1", "sam").lost_names == ["Brawny"]
        assert "sam" not in night.state("g1").night.where

        night.open_scene("parking", title="The parking lot")
        night.move("sam", "parking")
        sam = night.character("parking", "sam")
        assert sam.lost_names == ["Brawny"]
        assert sam.left("Brawny", "physical") == 1  # two Brawny on the sheet, one lost tonight

    def test_a_new_night_starts_from_the_sheet(self, night: NightTable) -> None:
        sam_loses_brawny(night)
        night.ok("elysium", "st", "close_scene")
        night.ok("g1", "st", "close_game")
        night.open_game("g2", SAM)
        night.open_scene("docks", "g2")
        night.move("sam", "docks", "g2")
        assert night.character("docks", "sam").lost_names == []

    def test_a_character_is_in_one_open_scene_at_a_time(self, night: NightTable) -> None:
        night.open_scene("upstairs", title="Upstairs")
        message = night.refused("g1", "st", "move_character", code="in_another_scene", character="sam", to="upstairs")
        assert message == "Sam is in Elysium now; they leave it first (remove them from it, or close it)."
        night.ok("elysium", "st", "remove_character", character="sam")
        night.move("sam", "upstairs")
        assert night.character("upstairs", "sam").present
        assert not night.character("elysium", "sam").present

    def test_an_overturned_ruling_travels_to_the_scene_the_character_is_in(self, night: NightTable) -> None:
        sam_loses_brawny(night)
        lost_at = next(r.seq for r in night.log("elysium") if r.type == "trait_lost")
        night.ok("elysium", "st", "close_scene")
        night.open_scene("parking", title="The parking lot")
        night.move("sam", "parking")
        resolved = next(r.seq for r in night.log("elysium") if r.type == "challenge_resolved")
        assert lost_at > resolved

        night.ok("elysium", "st", "rule", event=resolved, decision="overturn", reason="Sam had cover")

        ruling = next(r.seq for r in night.log("elysium") if r.type == "ruling_issued")
        in_night = [r.event for r in night.log("g1") if r.type == "carried_corrected"]
        in_parking = [r.event for r in night.log("parking") if r.type == "carried_corrected"]
        corrections = [
            (e.character, e.scene, e.ruling, e.changes.restore_traits, e.changes.lose_traits) for e in in_night
        ]
        assert sorted(corrections) == [
            ("juan", "elysium", ruling, [], ["Wiry"]),  # the new loser loses what Juan bid
            ("sam", "elysium", ruling, ["Brawny"], []),
        ]
        assert in_parking == [e for e in in_night if e.character == "sam"]  # Juan is in no scene now
        assert night.character("parking", "sam").lost_names == []
        assert night.character("g1", "sam").lost_names == []
        assert night.character("g1", "juan").lost_names == ["Wiry"]
        # nothing is rewritten: the parking lot's entry still says what Sam carried then
        entered = next(r.event for r in night.log("parking") if r.type == "character_entered")
        assert [lost.trait for lost in entered.carried.lost] == ["Brawny"]

    def test_each_stream_folds_on_its_own(self, night: NightTable) -> None:
        sam_loses_brawny(night)
        night.ok("elysium", "st", "close_scene")
        night.open_scene("parking")
        night.move("sam", "parking")
        for stream in ("g1", "elysium", "parking"):
            assert fold(night.log(stream)) == night.state(stream)

    def test_the_five_minute_wait_holds_across_scenes(self, night: NightTable) -> None:
        night.ok(
            "elysium",
            "sam",
            "declare",
            challenge="c-s",
            kind="contested",
            targets=["juan"],
            category="social",
            bid=["Charming"],
        )
        night.ok("elysium", "juan", "bid", challenge="c-s", bid=["Dignified"])
        night.ok("elysium", "sam", "throw", challenge="c-s", sign="rock")
        night.ok("elysium", "juan", "throw", challenge="c-s", sign="paper")
        night.do("elysium", "sam", "pass", challenge="c-s")
        night.ok("elysium", "st", "close_scene")
        night.open_scene("parking")
        night.move("sam", "parking")
        night.move("juan", "parking")
        night.tick(minutes=2)
        message = night.refused(
            "parking",
            "sam",
            "declare",
            code="wait_required",
            challenge="c-t",
            kind="contested",
            targets=["juan"],
            category="social",
            bid=["Charming"],
        )
        assert "wait" in message.lower()
        night.tick(minutes=3)
        night.ok(
            "parking",
            "sam",
            "declare",
            challenge="c-t",
            kind="contested",
            targets=["juan"],
            category="social",
            bid=["Charming"],
        )


class TestRefusals:
    def test_only_the_server_sends_follow_ups(self, night: NightTable) -> None:
        night.refused(
            "elysium",
            "st",
            "arrive",
            code="forbidden",
            game="g1",
            character=ROSA,
            carried={},
            seq=1,
            hash="x",
        )

    def test_a_scene_of_a_night_plays_its_ruleset(self, night: NightTable) -> None:
        message = night.refused("s9", "st", "open_scene", code="bad_ruleset", ruleset="bns", game="g1")
        assert "Laws of the Night" in message

    def test_no_such_night(self, night: NightTable) -> None:
        night.refused("s9", "st", "open_scene", code="unknown_game", ruleset="lotn", game="nope")

    def test_a_closed_scene_takes_nobody(self, night: NightTable) -> None:
        night.ok("elysium", "st", "close_scene")
        night.refused("g1", "st", "move_character", code="scene_closed", character="rosa", to="elysium")

    def test_the_night_closes_only_when_its_scenes_have(self, night: NightTable) -> None:
        night.refused("g1", "st", "close_game", code="open_scenes")

    def test_a_night_takes_no_challenges(self, night: NightTable) -> None:
        night.refused(
            "g1",
            "sam",
            "declare",
            code="not_a_scene",
            challenge="c-x",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Brawny"],
        )


class TestWhatIf:
    def test_a_fork_of_a_scene_never_touches_the_real_night(self, night: NightTable) -> None:
        from server.history import fork

        sam_loses_brawny(night)
        resolved = next(r.seq for r in night.log("elysium") if r.type == "challenge_resolved")
        fork(night.store, "elysium", night.state("elysium").version, "elysium-what-if", lambda: night.now)
        before = night.log("g1")
        night.ok("elysium-what-if", "st", "rule", event=resolved, decision="overturn", reason="what if")
        night.ok("elysium-what-if", "st", "close_scene")
        assert night.log("g1") == before
        assert night.character("elysium-what-if", "sam").lost_names == []
        assert night.character("elysium", "sam").lost_names == ["Brawny"]
        assert night.state("g1").night.where["sam"].scene == "elysium"


def test_the_waits_a_character_carries_name_it_as_challenger_or_target() -> None:
    """lotn's five-minute wait (``sam>juan:social:``) and bns's ten-minute immunity
    (``bns:sam>juan:…``) go with both the one who failed and the one it failed against."""
    from datetime import timedelta

    import immutables

    from domain.state import Scene
    from tests.table import T0

    later = T0 + timedelta(minutes=5)
    failures = {"sam>juan:social:": later, "bns:sam>juan:dominate": later, "rosa>juan,vi:mental:": later}
    state = Scene(failures=immutables.Map(failures), last_at=T0)
    assert set(state.waits_of("sam", T0)) == {"sam>juan:social:", "bns:sam>juan:dominate"}
    assert set(state.waits_of("juan", T0)) == set(failures)
    assert set(state.waits_of("vi", T0)) == {"rosa>juan,vi:mental:"}
    assert state.waits_of("sam", later) == {}  # over
