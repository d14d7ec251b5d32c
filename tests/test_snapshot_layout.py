"""Snapshots laid out as parts behind an index (format 6), read from SQLite a part at a time by a
thread of its own that digests them while the loading thread decodes: a snapshot read that way is
the fold it was taken from; one whose bytes changed is never used, and reading it never hangs;
snapshots written before (format 5) are still read."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.evolve import fold_rows
from domain.state import Scene
from server import snapshots
from server.snapshots import Snapshots
from server.store.sqlite import SqliteStore
from tests.test_properties import Move, _play, _setup, game

_encoder = msgspec.msgpack.Encoder()


def _format_5(state: Scene) -> bytes:
    """A state as snapshots were written before format 6: a msgpack map of its parts."""
    parts: dict[str, list[bytes]] = {"head": [_encoder.encode(snapshots._without_maps(state))]}
    for name in snapshots._MAPS:
        items = list(getattr(state, name).items())
        step = snapshots.PART
        parts[name] = [_encoder.encode(dict(items[n : n + step])) for n in range(0, len(items), step)]
    return _encoder.encode(parts)


def _logged(tmp: Path, moves: list[Move]) -> tuple[SqliteStore, list[tuple[int, Scene]], list[str]]:
    """A random game's log in a SQLite file; the states the table had (the one it set out from
    first); each event's hash."""
    service, checkpoints = _play(moves)
    wires = list(service.store.read_wire("s"))
    store = SqliteStore(tmp / "s.db")
    store.import_wires("s", wires)
    set_out = fold_rows("s", store.rows("s", upto=len(_setup("lotn"))))
    return store, [(set_out.version, set_out), *checkpoints], [w.hash for w in wires]


def _corrupt(store: SqliteStore, version: int, blob: bytes, *, digest: bool) -> None:
    """Replace a snapshot's bytes (and its digest too, when ``digest``: a forger's edit)."""
    store.db.conn.execute(
        "UPDATE snapshots SET state = ?, digest = CASE WHEN ? THEN ? ELSE digest END WHERE scene = 's' AND version = ?",
        [blob, digest, hashlib.sha256(blob).hexdigest(), version],
    )


SLOW = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@SLOW
@given(moves=game(), data=st.data())
def test_a_snapshot_read_the_new_way_is_the_fold_it_was_taken_from(
    tmp_path_factory: pytest.TempPathFactory, moves: list[Move], data: st.DataObject
) -> None:
    """Any state of a random game, saved as a snapshot: decoded from memory, read part by part
    from SQLite (digested beside the decode), and in the older layout, it is the fold of its log."""
    store, checkpoints, hashes = _logged(tmp_path_factory.mktemp("layout"), moves)
    try:
        kept = Snapshots(store)
        for version, live in data.draw(st.lists(st.sampled_from(checkpoints), min_size=1, max_size=3)):
            folded = fold_rows("s", store.rows("s", upto=version))
            assert live == folded
            assert snapshots.decode(snapshots.encode(live)) == folded
            assert snapshots.decode_v5(_format_5(live)) == folded
            kept.save(live, hashes[version - 1])
            found = kept.load("s", at_most=version)
            assert found is not None and found.state == folded and found.hash == hashes[version - 1]
    finally:
        store.close()


@SLOW
@given(moves=game(), data=st.data())
def test_a_snapshot_whose_bytes_changed_is_never_used(
    tmp_path_factory: pytest.TempPathFactory, moves: list[Move], data: st.DataObject
) -> None:
    """A byte changed, bytes cut off or added: with its digest left as it was, the snapshot is
    passed over; with its digest forged to match, it is passed over too when it cannot be read
    (and what can be read is the distrust check's to catch). The read always ends."""
    store, checkpoints, hashes = _logged(tmp_path_factory.mktemp("changed"), moves)
    try:
        kept = Snapshots(store)
        version, live = checkpoints[-1]
        kept.save(live, hashes[version - 1])
        blob = snapshots.encode(live)
        at = data.draw(st.integers(0, len(blob) - 1))
        changed = data.draw(
            st.sampled_from(
                [
                    blob[:at] + bytes([blob[at] ^ data.draw(st.integers(1, 255))]) + blob[at + 1 :],
                    blob[:at],
                    blob + data.draw(st.binary(min_size=1, max_size=8)),
                ]
            )
        )
        _corrupt(store, version, changed, digest=False)
        assert kept.load("s") is None
        _corrupt(store, version, changed, digest=True)
        try:
            found = kept.load("s")
        except Exception as err:  # any error at all is a failure: a damaged snapshot is passed over
            pytest.fail(f"reading a damaged snapshot raised {err!r}")
        if found is not None:  # it still reads as a state of this scene at this event
            assert found.state.id == "s" and found.state.version == version
        assert not store.reads.in_transaction
    finally:
        store.close()


def test_a_snapshot_written_before_is_still_read(tmp_path: Path) -> None:
    """A file written by an earlier version keeps its snapshots (format 5): they load as before,
    and those written now (format 6) are preferred only by their version."""
    from benchmarks.scenes import brawl
    from server.service import SceneService

    store = SqliteStore(tmp_path / "old.db")
    try:
        kept = Snapshots(store, every=100)
        brawl(450, scene="s", service=SceneService(store, snapshots=kept, honour_at=True))
        old: list[tuple[Any, ...]] = store.db.conn.execute(
            "SELECT version, hash FROM snapshots WHERE scene = 's' ORDER BY version"
        ).fetchall()
        assert old and {f for (f,) in store.db.conn.execute("SELECT DISTINCT format FROM snapshots")} == {6}
        for version, at_hash in old:
            state = fold_rows("s", store.rows("s", upto=version))
            blob = _format_5(state)
            store.db.conn.execute(
                "UPDATE snapshots SET format = 5, state = ?, digest = ? WHERE scene = 's' AND version = ?",
                [blob, hashlib.sha256(blob).hexdigest(), version],
            )
            found = kept.load("s", at_most=version)
            assert found is not None and found.state == state and found.hash == at_hash
        service = SceneService(store, snapshots=kept)
        assert service.load("s") == fold_rows("s", store.rows("s"))
    finally:
        store.close()


def test_a_snapshot_read_inside_a_transaction_leaves_it_open(tmp_path: Path) -> None:
    """Read on a connection already in a read transaction, a snapshot leaves that transaction as
    it found it (its read is part of it)."""
    from benchmarks.scenes import brawl
    from server.service import SceneService

    store = SqliteStore(tmp_path / "t.db")
    try:
        kept = Snapshots(store, every=100)
        brawl(150, scene="s", service=SceneService(store, snapshots=kept, honour_at=True))
        reads = store.reads
        reads.execute("BEGIN")
        assert kept.load("s") is not None and reads.in_transaction
        reads.execute("COMMIT")
        assert kept.load("s") is not None and not reads.in_transaction
    finally:
        store.close()
