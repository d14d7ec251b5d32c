"""Snapshots, the same in SQLite and PostgreSQL (a scene in memory is never reloaded, so it has
none): saved as a scene grows, the latest few and one every ``SPACING`` events kept, loaded at or
before a step, used only while they match the log, discarded."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from benchmarks.scenes import brawl
from domain.evolve import fold_rows
from server import catchup, service, snapshots
from server.backend import Backend
from server.catchup import fold_to
from server.service import SceneService
from server.snapshot_keys import read_keys
from server.snapshots import distrust
from server.store import SceneCorrupt
from tests.store.conftest import ON_DISK, raw

pytestmark = pytest.mark.parametrize("where", ON_DISK, indirect=True)


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keeping rules at a small scale: the latest 3, and the first of every 200 events; a
    snapshot worth loading from when it saves folding 300 events."""
    monkeypatch.setattr(snapshots, "LATEST", 3)
    monkeypatch.setattr(snapshots, "SPACING", 200)
    monkeypatch.setattr(snapshots, "WORTH", 300)
    monkeypatch.setattr(service, "WORTH", 300)
    monkeypatch.setattr(catchup, "WORTH", 300)


def tmp_key() -> Path:
    """A key file path of a folder of its own: a key the server does not hold."""
    return Path(tempfile.mkdtemp()) / "elsewhere.key"


def grown(opened: Callable[..., Backend], where: str, events: int = 720) -> Backend:
    """A backend whose scene ``s1`` was played to ``events`` events, a snapshot due every 50."""
    backend = opened(where, snapshot_every=50)
    assert backend.snapshots is not None
    brawl(events, scene="s1", service=SceneService(backend.store, snapshots=backend.snapshots, honour_at=True))
    return backend


@pytest.mark.usefixtures("small")
class TestSnapshots:
    def test_the_latest_few_and_one_every_spacing_are_kept(self, where: str, opened: Callable[..., Backend]) -> None:
        """The latest three, and the first of every 200 events; any step folds from the nearest
        one at or before it to the state the log itself folds to."""
        backend = grown(opened, where)
        assert backend.snapshots is not None
        version = backend.store.head("s1")[0]
        kept = backend.snapshots.versions("s1")
        assert len(kept) >= 3 and kept[-1] <= version and version - kept[-1] < 60
        assert kept[-3:] == sorted(kept[-3:]) and kept[-3] > version - 200
        assert {v // 200 for v in kept} == set(range(version // 200 + 1)) - (
            {version // 200} if version % 200 < 50 else set()
        )
        assert len(kept) <= 3 + version // 200 + 1
        for step in (321, 499, 650):
            snapshot = backend.snapshots.load("s1", at_most=step)
            assert snapshot is not None and snapshot.state.version <= step
            assert snapshot.state == fold_rows("s1", backend.store.rows("s1", upto=snapshot.state.version))
            assert fold_to(backend.store, backend.snapshots, "s1", step) == fold_rows(
                "s1", backend.store.rows("s1", upto=step)
            )
        assert backend.snapshots.load("s1", at_most=40) is None

    def test_a_scene_loads_from_its_latest_snapshot(self, where: str, opened: Callable[..., Backend]) -> None:
        """A new service (a restart) loads the scene from the latest snapshot to the state of the
        whole log; one that would save folding fewer events than worth it is not used."""
        backend = grown(opened, where)
        assert backend.snapshots is not None
        latest = backend.snapshots.load("s1")
        assert latest is not None and latest.state.version == backend.snapshots.versions("s1")[-1]
        assert backend.snapshots.load("s1", worth=10_000) is None
        reloaded = opened(where)
        assert SceneService(reloaded.store, snapshots=reloaded.snapshots).load("s1") == fold_rows(
            "s1", backend.store.rows("s1")
        )

    def test_discard_all(self, where: str, opened: Callable[..., Backend]) -> None:
        """Discarded, a scene's snapshots are gone and it loads from its log; another scene's stay."""
        backend = grown(opened, where, events=300)
        assert backend.snapshots is not None
        brawl(120, scene="s2", service=SceneService(backend.store, snapshots=backend.snapshots, honour_at=True))
        before = backend.snapshots.versions("s2")
        backend.snapshots.discard_all("s1")
        assert backend.snapshots.versions("s1") == [] and backend.snapshots.load("s1") is None
        assert backend.snapshots.versions("s2") == before != []
        assert SceneService(backend.store, snapshots=backend.snapshots).load("s1") == fold_rows(
            "s1", backend.store.rows("s1")
        )

    def test_one_that_no_longer_matches_is_passed_over(self, where: str, opened: Callable[..., Backend]) -> None:
        """A snapshot whose bytes changed, or whose event the log no longer holds with that hash,
        is not used: the one before it is."""
        backend = grown(opened, where)
        assert backend.snapshots is not None
        *_, before, last = backend.snapshots.versions("s1")
        raw(where, "UPDATE snapshots SET digest = 'edited' WHERE scene = 's1' AND version = ?", (last,))
        found = backend.snapshots.load("s1")
        assert found is not None and found.state.version == before
        raw(where, "UPDATE snapshots SET hash = 'another' WHERE scene = 's1' AND version = ?", (before,))
        found = backend.snapshots.load("s1")
        assert found is not None and found.state.version < before

    def test_a_forged_snapshot_is_never_used(self, where: str, opened: Callable[..., Backend]) -> None:
        """A snapshot rewritten in the database (Willpower 5 to 99) with its digest recomputed, or
        signed with a key the server does not hold, is passed over for the one before it; the
        scene loads to the fold of its log."""
        backend = grown(opened, where)
        assert backend.snapshots is not None
        *_, before, last = backend.snapshots.versions("s1")
        state = backend.snapshots.load("s1")
        assert state is not None and state.state.version == last
        who, c = next(iter(state.state.characters.items()))
        forged = snapshots.encode(
            msgspec.structs.replace(
                state.state, characters=state.state.characters.set(who, msgspec.structs.replace(c, willpower=99))
            )
        )
        elsewhere = read_keys(str(tmp_key()))
        header = snapshots.signed_header("s1", last, state.hash)
        for signed in [hashlib.sha256(forged).hexdigest(), elsewhere.sign(header, forged)]:
            raw(
                where,
                "UPDATE snapshots SET state = ?, digest = ? WHERE scene = 's1' AND version = ?",
                (forged, signed, last),
            )
            found = backend.snapshots.load("s1")
            assert found is not None and found.state.version == before
            loaded = SceneService(backend.store, snapshots=backend.snapshots).load("s1")
            assert loaded == fold_rows("s1", backend.store.rows("s1")) and loaded.characters[who].willpower != 99

    def test_distrust_checks_the_log_before_a_snapshot(self, where: str, opened: Callable[..., Backend]) -> None:
        """The room's check of a load from a snapshot (``distrust``, in a process of its own, given
        the database's path or URL and the snapshot's event and hash): nothing to say of a sound log;
        an event edited before the snapshot is named, and so is a log that no longer holds the
        snapshot's event with its hash."""
        backend = grown(opened, where)
        assert backend.snapshots is not None
        latest = backend.snapshots.load("s1")
        assert latest is not None
        version = latest.state.version
        assert distrust(where, "s1", version, latest.hash) is None
        assert "no longer holds event" in (distrust(where, "s1", version, "another") or "")
        raw(where, "UPDATE events SET data = replace(data, 'Brawny', 'Brawnie') WHERE scene = 's1' AND seq = 3")
        assert "event 3" in (distrust(where, "s1", version, latest.hash) or "")


def test_a_log_edited_under_its_snapshots_is_refused(where: str, opened: Callable[..., Backend]) -> None:
    """An event edited in the database: the scene's load, checked all the way, is refused."""
    grown(opened, where, events=120)
    raw(where, "UPDATE events SET data = replace(data, 'Brawny', 'Brawnie') WHERE scene = 's1' AND seq = 3")
    try:  # not pytest.raises: its traceback would keep the log's reader open past the store's close
        SceneService(opened(where).store).load("s1")
    except SceneCorrupt as refused:
        assert refused.problem.seq == 3
    else:
        pytest.fail("a log edited under its snapshots was loaded")
