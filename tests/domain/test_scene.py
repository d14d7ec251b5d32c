"""Scene verbs and the refusals every command shares."""

from __future__ import annotations

from datetime import timedelta

from domain.state import Scene
from tests.table import Table, types


class TestSheets:
    """A bad sheet is refused, naming the field."""

    def test_missing_traits(self) -> None:
        """A lotn sheet without Traits is refused naming `character.traits`."""
        t = Table()
        error = t.refused("st", "add_character", character={"id": "x", "name": "X"}, code="bad_sheet")
        assert "`character.traits`" in error.message

    def test_trait_in_two_categories(self) -> None:
        """A Trait belongs to one category."""
        t = Table()
        error = t.refused(
            "st",
            "add_character",
            character={"id": "x", "name": "X", "traits": {"physical": {"Quick": 1}, "mental": {"Quick": 1}}},
            code="bad_sheet",
            rule="lotn:categories",
        )
        assert "character.traits.mental.Quick" in error.message

    def test_duplicate_and_reserved_ids(self) -> None:
        """Ids are unique in a scene and 'st' is the Storyteller's."""
        t = Table()
        t.add("sam", {"Brawny": 1})
        t.refused(
            "st",
            "add_character",
            character={"id": "sam", "name": "Sam", "traits": {}},
            code="character_exists",
        )
        t.refused("st", "add_character", character={"id": "st", "name": "Nope", "traits": {}}, code="bad_sheet")

    def test_only_the_storyteller_adds(self) -> None:
        """Players do not add characters."""
        t = Table()
        t.refused("sam", "add_character", character={"id": "sam", "name": "Sam", "traits": {}}, code="forbidden")


class TestAdjust:
    """lotn:adjudication: the ST corrects a character with an event that gives a reason."""

    def test_restore_and_spend(self) -> None:
        """An adjustment restores a lost Trait and changes levels; nothing below zero."""
        t = Table()
        t.add("sam", {"Brawny": 2}, willpower=2, abilities={"Brawl": 1})
        t.do("st", "adjust", character="sam", changes={"lose_traits": ["Brawny"]}, reason="hit by a car")
        assert t.lost("sam") == ["Brawny"]
        t.do(
            "st",
            "adjust",
            character="sam",
            changes={"restore_traits": ["Brawny"], "willpower": -1, "abilities": {"Brawl": 1}},
            reason="the ruling was wrong",
        )
        sam = t.character("sam")
        assert sam.lost == () and sam.willpower == 1 and sam.abilities["Brawl"] == 2
        error = t.refused(
            "st",
            "adjust",
            character="sam",
            changes={"willpower": -5, "restore_traits": ["Quick"]},
            reason="oops",
            code="bad_adjustment",
        )
        assert "willpower" in error.message and "Quick" in error.message


class TestSceneLifecycle:
    """Opening, removing, closing; commands out of time."""

    def test_unknown_scene_and_reopen(self) -> None:
        """Commands need an open scene; a scene opens once."""
        t = Table()
        t.refused("st", "open_scene", ruleset="lotn", code="scene_exists")
        assert t.state.status == "open"

    def test_every_ruleset_named_opens(self) -> None:
        """Every ruleset ``open_scene`` names is played here; anything else is refused as the command
        is read."""
        for ruleset in ("lotn", "camarilla", "bns", "kony"):
            assert Table(ruleset=ruleset).state.ruleset == ruleset

    def test_remove_and_close(self) -> None:
        """A character in an open challenge stays until it ends; a closed scene takes no commands."""
        t = Table()
        t.add("a", {"Brawny": 1})
        t.add("b", {"Quick": 1})
        t.do(
            "a",
            "declare",
            challenge="c",
            kind="contested",
            targets=["b"],
            category="physical",
            bid=["Brawny"],
        )
        t.refused("st", "remove_character", character="b", code="in_challenge")
        t.refused("st", "close_scene", code="open_challenges")
        t.do("b", "relent", challenge="c")
        assert types(t.do("st", "remove_character", character="b")) == ["character_removed"]
        t.refused(
            "a",
            "declare",
            challenge="d",
            kind="contested",
            targets=["b"],
            category="physical",
            bid=["Brawny"],
            code="character_removed",
        )
        t.do("st", "close_scene")
        t.refused("a", "declare", challenge="d", kind="simple", category="physical", code="scene_closed")

    def test_time_runs_forward(self) -> None:
        """A command dated before the scene's last event is refused."""
        t = Table()
        t.tick(seconds=-30)
        t.refused("st", "add_character", character={"id": "a", "name": "A", "traits": {}}, code="time_out_of_order")

    def test_unknown_challenge(self) -> None:
        """Challenge verbs name an existing challenge."""
        t = Table()
        t.add("a", {"Brawny": 1})
        t.refused("a", "throw", challenge="nope", sign="rock", code="unknown_challenge")


def test_fold_equals_live_state() -> None:
    """Folding the log gives the state the table had (ARCHITECTURE invariant 1)."""
    t = Table()
    t.add("a", {"Brawny": 2})
    t.add("b", {"Quick": 2})
    t.contest("c", "a", "b", "Brawny", "Quick")
    t.test("c", "rock", "rock")
    assert t.replayed() == t.state
    assert t.replayed() != Scene()
    assert t.log[-1].at - t.log[0].at > timedelta(0)
