"""What-if across scenes: a fork of an earlier scene of the night shows how the night's ledger would
stand had a ruling there gone the other way, and the real night does not change
(``projections.ledger.what_if``)."""

from __future__ import annotations

import pytest

from projections.ledger import ledgers, what_if
from server.history import fork
from tests.night.table import JUAN, ROSA, SAM, NightTable


@pytest.fixture
def night() -> NightTable:
    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("elysium", title="Elysium")
    t.move("sam", "elysium")
    t.move("juan", "elysium")
    t.fight("elysium", "c-1", "juan", "sam", "Wiry", "Brawny", ("rock", "scissors"))
    return t


def books(t: NightTable) -> tuple[list, dict]:
    scenes = {s.id: t.log(s.id) for s in t.state("g1").night.scenes}
    return t.log("g1"), scenes


def resolved(t: NightTable) -> int:
    return next(r.seq for r in t.log("elysium") if r.type == "challenge_resolved")


def test_an_overturn_in_a_fork_restores_the_trait_in_the_what_if_only(night: NightTable) -> None:
    fork(night.store, "elysium", night.state("elysium").version, "what-if", lambda: night.now)
    night.ok("what-if", "st", "rule", event=resolved(night), decision="overturn", reason="Sam had cover")
    before = night.log("g1")
    records, scenes = books(night)

    sam = next(w for w in what_if(records, scenes, "elysium", night.log("what-if")) if w.character == "sam")

    assert sam.changed
    assert [(e.what, e.loss, e.by, e.scene) for e in sam.new] == [
        ("Sam gets Brawny back (Physical)", False, "ruling", "elysium")
    ]
    assert sam.gone == []
    assert sam.lost == []
    real = next(b for b in ledgers(records, scenes) if b.character == "sam")
    assert [lost.trait for lost in real.now.lost] == ["Brawny"]
    assert night.log("g1") == before


def test_a_ruling_in_a_fork_after_the_character_left_travels_in_the_what_if(night: NightTable) -> None:
    night.ok("elysium", "st", "close_scene")
    night.open_scene("parking", title="The parking lot")
    night.move("sam", "parking")
    fork(night.store, "elysium", night.state("elysium").version, "what-if", lambda: night.now)
    night.ok("what-if", "st", "rule", event=resolved(night), decision="overturn", reason="Sam had cover")
    records, scenes = books(night)
    assert not [r for r in records if r.type == "carried_corrected"]  # the real night never heard of it

    found = {w.character: w for w in what_if(records, scenes, "elysium", night.log("what-if"))}

    sam, juan = found["sam"], found["juan"]
    assert [(e.what, e.by, e.ruling.scene if e.ruling else None) for e in sam.new] == [
        ("Sam gets Brawny back", "correction", "elysium")
    ]
    assert sam.lost == []
    assert [(e.what, e.by) for e in juan.new] == [("Juan loses Wiry", "correction")]  # the overturn's other side
    assert juan.lost == ["Wiry"]
    assert night.character("parking", "sam").lost_names == ["Brawny"]


def test_a_real_ruling_after_the_branch_is_gone_from_the_what_if(night: NightTable) -> None:
    at = night.state("elysium").version
    night.ok("elysium", "st", "close_scene")
    night.ok("elysium", "st", "rule", event=resolved(night), decision="overturn", reason="Sam had cover")
    fork(night.store, "elysium", at, "what-if", lambda: night.now)
    records, scenes = books(night)

    sam = next(w for w in what_if(records, scenes, "elysium", night.log("what-if")) if w.character == "sam")

    assert [(e.what, e.by) for e in sam.gone] == [("Sam gets Brawny back", "correction")]
    assert sam.lost == ["Brawny"]
