"""The night's ledger (projections/ledger.py): each character's losses and gains across the
night's scenes, with the step, the words and the rule signed by its book."""

from __future__ import annotations

from collections import Counter

import pytest

from projections.ledger import Ledger, ledgers
from server.history import fork
from tests.night.table import JUAN, ROSA, NightTable
from tests.table import sheet

SAM = sheet(
    "sam",
    {"Brawny": 1, "Quick": 2},
    name="Sam",
    traits={"social": {"Charming": 2}},
    abilities={"Brawl": 1},
    willpower=2,
)


@pytest.fixture
def night() -> NightTable:
    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("elysium", title="Elysium")
    t.move("sam", "elysium")
    t.move("juan", "elysium")
    return t


def books(t: NightTable) -> dict[str, Ledger]:
    scenes = {s: t.log(s) for s in t.store.scenes() if s != "g1"}
    return {ledger.character: ledger for ledger in ledgers(t.log("g1"), scenes)}


def seq_of(t: NightTable, stream: str, kind: str) -> int:
    return next(r.seq for r in t.log(stream) if r.type == kind)


def sam_loses_brawny(t: NightTable) -> None:
    t.fight("elysium", "c-1", "juan", "sam", "Wiry", "Brawny", ("rock", "scissors"))


def test_every_registered_character_has_a_ledger_in_the_order_registered(night: NightTable) -> None:
    book = books(night)
    assert list(book) == ["sam", "juan", "rosa"]
    assert book["rosa"].entries == [] and book["rosa"].scenes == [] and book["rosa"].where is None
    assert book["sam"].where == "elysium"


def test_a_lost_trait_names_its_step_its_words_and_its_rule_signed_by_the_book(night: NightTable) -> None:
    sam_loses_brawny(night)
    [entry] = books(night)["sam"].entries
    assert (entry.scene, entry.title, entry.seq) == ("elysium", "Elysium", seq_of(night, "elysium", "trait_lost"))
    assert (entry.kind, entry.item, entry.loss, entry.by) == ("trait", "Brawny", True, "play")
    assert entry.what == "Sam loses Brawny (Physical)"
    assert "the loser loses the Traits bid" in entry.why
    assert (entry.rule, entry.book) == ("lotn:trait-loss", "Laws of the Night")
    assert books(night)["juan"].entries == []


def test_a_ruling_after_the_character_left_is_counted_once_where_it_arrives(night: NightTable) -> None:
    sam_loses_brawny(night)
    night.ok("elysium", "st", "remove_character", character="sam")
    night.open_scene("parking", title="The parking lot")
    night.move("sam", "parking")
    resolved = seq_of(night, "elysium", "challenge_resolved")
    night.ok("elysium", "st", "rule", event=resolved, decision="overturn", reason="Sam had cover")

    sam = books(night)["sam"]
    assert sam.scenes == ["elysium", "parking"] and sam.where == "parking"
    lost, back = sam.entries  # elysium's own trait_restored (Sam had left) is not counted twice
    assert (lost.scene, lost.loss) == ("elysium", True)
    assert (back.scene, back.title, back.seq) == (
        "parking",
        "The parking lot",
        seq_of(night, "parking", "carried_corrected"),
    )
    assert (back.kind, back.item, back.loss, back.by) == ("trait", "Brawny", False, "correction")
    ruling = seq_of(night, "elysium", "ruling_issued")
    assert (back.ruling.scene, back.ruling.title, back.ruling.seq) == ("elysium", "Elysium", ruling)
    assert back.what == "Sam gets Brawny back"
    assert "Sam had cover" in back.why
    assert back.rule == "lotn:adjudication" and back.book == "Laws of the Night"
    assert sam.now.lost == ()

    [juan] = books(night)["juan"].entries  # Juan was still there: the ruling's own loss, in Elysium
    assert (juan.scene, juan.item, juan.loss, juan.by, juan.ruling.seq) == ("elysium", "Wiry", True, "ruling", ruling)
    assert [lost.trait for lost in books(night)["juan"].now.lost] == ["Wiry"]


def test_a_correction_between_scenes_is_the_nights(night: NightTable) -> None:
    sam_loses_brawny(night)
    night.ok("elysium", "st", "remove_character", character="sam")
    resolved = seq_of(night, "elysium", "challenge_resolved")
    night.ok("elysium", "st", "rule", event=resolved, decision="overturn", reason="Sam had cover")
    sam = books(night)["sam"]
    assert sam.where is None
    back = sam.entries[-1]
    assert (back.scene, back.title, back.seq) == ("g1", "Night g1", seq_of(night, "g1", "carried_corrected"))
    assert (back.item, back.loss, back.by, back.ruling.scene) == ("Brawny", False, "correction", "elysium")


def test_spent_levels_and_the_storytellers_adjustments(night: NightTable) -> None:
    night.ok(
        "elysium",
        "juan",
        "declare",
        challenge="c-1",
        kind="contested",
        targets=["sam"],
        category="physical",
        bid=["Wiry"],
    )
    night.ok("elysium", "sam", "bid", challenge="c-1", bid=["Brawny"])
    night.ok("elysium", "juan", "throw", challenge="c-1", sign="rock")
    night.ok("elysium", "sam", "throw", challenge="c-1", sign="scissors")
    night.ok("elysium", "sam", "retest", challenge="c-1", source={"category": "ability", "name": "Brawl"})
    night.ok(
        "elysium",
        "st",
        "adjust",
        character="sam",
        changes={"willpower": -1, "damage": {"lethal": 1}},
        reason="Sam stepped on the broken glass",
    )
    spent, willpower, damage = books(night)["sam"].entries
    assert (spent.kind, spent.item, spent.loss, spent.what) == ("ability", "Brawl", True, "Sam spends a level of Brawl")
    assert spent.why == "Spent on a retest with Brawl (ability)."
    assert spent.rule == "lotn:retests" and spent.book == "Laws of the Night"
    assert (willpower.kind, willpower.amount, willpower.by) == ("willpower", 1, "storyteller")
    assert willpower.what == "Sam loses a Willpower Trait" and willpower.why == "Sam stepped on the broken glass"
    assert (damage.kind, damage.item, damage.what) == ("damage", "lethal", "Sam takes 1 lethal damage")
    now = books(night)["sam"].now
    assert (now.abilities["Brawl"], now.willpower, now.wounds.lethal) == (0, 1, 1)


def test_visits_without_losses_add_nothing(night: NightTable) -> None:
    night.ok("elysium", "st", "close_scene")
    night.open_scene("parking")
    night.move("sam", "parking")
    night.ok("parking", "st", "close_scene")
    assert books(night)["sam"].scenes == ["elysium", "parking"]
    assert books(night)["sam"].entries == []


def test_a_what_if_passes_a_fork_under_the_scene_it_branches_from(night: NightTable) -> None:
    """A fork of a scene (its own id, re-chained) read in the scene's place: the entries name the
    night's scene, and stop where the fork does."""
    sam_loses_brawny(night)
    lost = seq_of(night, "elysium", "trait_lost")
    night.ok("elysium", "st", "adjust", character="sam", changes={"willpower": -1}, reason="A misstep")
    fork(night.store, "elysium", lost, "elysium-whatif", lambda: night.now)
    [entry] = ledgers(night.log("g1"), {"elysium": night.log("elysium-whatif")})[0].entries
    assert (entry.scene, entry.title, entry.seq, entry.item) == ("elysium", "Elysium", lost, "Brawny")


def test_the_ledger_adds_up_to_what_the_character_carries(night: NightTable) -> None:
    """Traits lost less those restored, and Willpower spent, are what the character carries now."""
    sam_loses_brawny(night)
    night.ok("elysium", "st", "adjust", character="sam", changes={"willpower": -1}, reason="A misstep")
    night.ok("elysium", "st", "remove_character", character="sam")
    night.open_scene("parking")
    night.move("sam", "parking")
    night.ok(
        "elysium",
        "st",
        "rule",
        event=seq_of(night, "elysium", "challenge_resolved"),
        decision="overturn",
        reason="Cover",
    )
    night.ok("parking", "st", "adjust", character="sam", changes={"lose_traits": ["Quick"], "willpower": 1}, reason="x")
    for ledger in books(night).values():
        traits = [e for e in ledger.entries if e.kind == "trait"]
        lost = Counter(e.item for e in traits if e.loss) - Counter(e.item for e in traits if not e.loss)
        assert lost == Counter(x.trait for x in ledger.now.lost), ledger.name
    sam = books(night)["sam"]
    spent = sum(-e.amount if e.loss else e.amount for e in sam.entries if e.kind == "willpower")
    assert sam.now.willpower == 2 + spent == 2
