"""Snapshots: several kept (the latest few, and one every few thousand events), any step reached
from the nearest one at or before it, and each used only when it still matches the log."""

from __future__ import annotations

from pathlib import Path

from benchmarks.scenes import brawl
from domain.evolve import fold_rows
from server.backend import open_backend
from server.catchup import fold_to
from server.service import SceneService
from server.snapshots import LATEST, SPACING


def test_the_latest_few_and_one_every_spacing_are_kept(tmp_path: Path) -> None:
    """After 12,600 events saved every 1,000: the latest five, and the first of every 5,000; any
    step folds from the nearest one at or before it to the state the log itself folds to."""
    backend = open_backend(str(tmp_path / "j.db"), snapshot_every=1000)
    assert backend.snapshots is not None
    brawl(12_600, scene="s1", service=SceneService(backend.store, snapshots=backend.snapshots, honour_at=True))
    kept = backend.snapshots.versions("s1")
    latest = kept[-LATEST:]
    assert len(latest) == LATEST and latest[-1] <= 12_700 and latest[0] >= 7_000
    assert {v // SPACING for v in kept} == {0, 1, 2} and len(kept) <= LATEST + 3
    for step in (4_321, 6_000, 9_999, 12_345):
        snapshot = backend.snapshots.load("s1", at_most=step)
        assert snapshot is not None and snapshot.state.version <= step
        assert fold_to(backend.store, backend.snapshots, "s1", step) == fold_rows(
            "s1", backend.store.rows("s1", upto=step)
        )


def test_a_short_scene_loads_from_its_log(tmp_path: Path) -> None:
    """A snapshot that would save folding fewer than 5,000 events is not used to load a scene (the
    log folds as fast, and shares its repeated names)."""
    backend = open_backend(str(tmp_path / "j.db"), snapshot_every=1000)
    assert backend.snapshots is not None
    brawl(2_500, scene="s1", service=SceneService(backend.store, snapshots=backend.snapshots, honour_at=True))
    assert backend.snapshots.load("s1") is not None
    assert backend.snapshots.load("s1", worth=5_000) is None
    assert SceneService(backend.store, snapshots=backend.snapshots).load("s1") == fold_rows(
        "s1", backend.store.rows("s1")
    )
