"""Snapshots laid out as parts behind an index, read from SQLite a part at a time, their MAC checked
by a thread of its own while the loading thread decodes them: a snapshot read that way is the fold
it was taken from; one whose bytes changed is never used, whatever its forger wrote beside it, and
reading it never hangs; one signed with a key the server does not hold, or written before snapshots
were signed, is passed over (and dropped at the next save); with two keys in its file, the first
signs and either verifies."""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.scenes import brawl
from domain.evolve import fold_rows
from domain.state import Scene
from server import snapshots
from server.service import SceneService
from server.snapshot_keys import read_keys
from server.snapshots import Snapshots
from server.store.sqlite import SqliteStore
from tests.test_properties import Move, _play, _setup, game

_encoder = msgspec.msgpack.Encoder()


def _logged(tmp: Path, moves: list[Move]) -> tuple[SqliteStore, list[tuple[int, Scene]], list[str]]:
    """A random game's log in a SQLite file; the states the table had (the one it set out from
    first); each event's hash."""
    service, checkpoints = _play(moves)
    wires = list(service.store.read_wire("s"))
    store = SqliteStore(tmp / "s.db")
    store.import_wires("s", wires)
    set_out = fold_rows("s", store.rows("s", upto=len(_setup("lotn"))))
    return store, [(set_out.version, set_out), *checkpoints], [w.hash for w in wires]


def _corrupt(store: SqliteStore, version: int, blob: bytes, signed: str | None = None) -> None:
    """Replace a snapshot's bytes, and what is written beside them when ``signed`` (a forger's
    edit)."""
    store.db.conn.execute(
        "UPDATE snapshots SET state = ?, digest = coalesce(?, digest) WHERE scene = 's' AND version = ?",
        [blob, signed, version],
    )


def _forgeries(store: SqliteStore, version: int, blob: bytes, elsewhere: Path) -> list[str]:
    """What a forger who can write the database, not read the key file, may write beside new bytes:
    their SHA-256 (what was checked before snapshots were signed), and a MAC under a key of its own
    with the id of the server's key, or its own key's id."""
    at_hash = store.db.conn.execute("SELECT hash FROM snapshots WHERE scene = 's' AND version = ?", [version])
    header = snapshots.signed_header("s", version, at_hash.fetchone()[0])
    theirs = read_keys(str(elsewhere / "theirs.key"))
    ours = read_keys()
    mac = theirs.sign(header, blob)
    return [hashlib.sha256(blob).hexdigest(), f"{ours.signing}:{mac.partition(':')[2]}", mac]


SLOW = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@SLOW
@given(moves=game(), data=st.data())
def test_a_snapshot_read_the_new_way_is_the_fold_it_was_taken_from(
    tmp_path_factory: pytest.TempPathFactory, moves: list[Move], data: st.DataObject
) -> None:
    """Any state of a random game, saved as a snapshot: decoded from memory, and read from SQLite
    (its MAC checked beside the decode), it is the fold of its log."""
    store, checkpoints, hashes = _logged(tmp_path_factory.mktemp("layout"), moves)
    try:
        kept = Snapshots(store)
        for version, live in data.draw(st.lists(st.sampled_from(checkpoints), min_size=1, max_size=3)):
            folded = fold_rows("s", store.rows("s", upto=version))
            assert live == folded
            assert snapshots.decode(snapshots.encode(live)) == folded
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
    """A byte changed, bytes cut off or added: with what was beside them left as it was, or
    forged as someone without the key can, the snapshot is passed over, and the scene loads from
    its log. The read always ends."""
    folder = tmp_path_factory.mktemp("changed")
    store, checkpoints, hashes = _logged(folder, moves)
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
        for signed in [None, *_forgeries(store, version, changed, folder)]:
            _corrupt(store, version, changed, signed)
            try:
                found = kept.load("s")
            except Exception as err:  # any error at all is a failure: a damaged snapshot is passed over
                pytest.fail(f"reading a damaged snapshot raised {err!r}")
            assert found is None
            assert not store.reads.in_transaction
        assert SceneService(store, snapshots=kept).load("s") == fold_rows("s", store.rows("s"))
    finally:
        store.close()


def test_a_snapshot_written_before_they_were_signed_is_passed_over(tmp_path: Path) -> None:
    """A file written by an earlier version holds snapshots checked by a bare digest (format 6):
    they are never used (whoever could write them could recompute it), and the next save drops
    them."""
    store = SqliteStore(tmp_path / "old.db")
    try:
        kept = Snapshots(store, every=100)
        service = SceneService(store, snapshots=kept, honour_at=True)
        brawl(450, scene="s", service=service)
        old = [row[0] for row in store.db.conn.execute("SELECT version FROM snapshots WHERE scene = 's'")]
        assert len(old) >= 3 and kept.load("s") is not None
        for version in old:
            blob = snapshots.encode(fold_rows("s", store.rows("s", upto=version)))
            store.db.conn.execute(
                "UPDATE snapshots SET format = 6, state = ?, digest = ? WHERE scene = 's' AND version = ?",
                [blob, hashlib.sha256(blob).hexdigest(), version],
            )
        assert kept.load("s") is None
        assert SceneService(store, snapshots=kept).load("s") == fold_rows("s", store.rows("s"))
        brawl(560, scene="s", service=service)  # one more snapshot saved at event 500
        assert [f for (f,) in store.db.conn.execute("SELECT format FROM snapshots WHERE scene = 's'")] == [
            snapshots.FORMAT
        ]
    finally:
        store.close()


def test_a_snapshot_signed_with_another_key_is_passed_over(tmp_path: Path) -> None:
    """A snapshot signed with a key the server does not hold (a key replaced, or another
    deployment's database copied in) is passed over for the one before it, or the log; the next save
    drops it."""
    store = SqliteStore(tmp_path / "k.db")
    try:
        mine = read_keys(str(tmp_path / "mine.key"))
        other = Snapshots(store, every=100, keys=read_keys(str(tmp_path / "other.key")))
        brawl(350, scene="s", service=SceneService(store, snapshots=other, honour_at=True))
        assert other.load("s") is not None
        kept = Snapshots(store, every=100, keys=mine)
        assert kept.load("s") is None
        assert SceneService(store, snapshots=kept).load("s") == fold_rows("s", store.rows("s"))
        brawl(420, scene="s", service=SceneService(store, snapshots=kept, honour_at=True))
        (last,) = kept.versions("s")  # the one just saved (at 400 or so): the other key's are gone
        assert 400 <= last < 420
        found = kept.load("s")
        assert found is not None and found.state == fold_rows("s", store.rows("s", upto=last))
    finally:
        store.close()


def test_a_key_rotated(tmp_path: Path) -> None:
    """A new key put on top of the file: it signs, and what the old one signed still verifies; the
    old key dropped, what it signed is passed over, and only that."""
    store = SqliteStore(tmp_path / "r.db")
    old_file, both_file, new_file = (tmp_path / name for name in ("old.key", "both.key", "new.key"))
    try:
        old = read_keys(str(old_file))
        brawl(
            250, scene="s", service=SceneService(store, snapshots=Snapshots(store, every=100, keys=old), honour_at=True)
        )
        new = read_keys(str(new_file))
        both_file.write_text(new_file.read_text() + old_file.read_text())
        both = Snapshots(store, every=100, keys=read_keys(str(both_file)))
        assert both.keys.signing == new.signing
        before = both.versions("s")  # the old key's, at 100 and 200 or so
        found = both.load("s")
        assert len(before) == 2 and found is not None and found.state.version == before[-1]
        brawl(350, scene="s", service=SceneService(store, snapshots=both, honour_at=True))
        assert both.load("s", at_most=before[-1]) is not None and both.load("s") is not None
        only_new = Snapshots(store, every=100, keys=new)
        assert only_new.load("s", at_most=before[-1]) is None  # the old key's
        (signed_new,) = set(both.versions("s")) - set(before)
        found = only_new.load("s")
        assert found is not None and found.state.version == signed_new
        assert found.state == fold_rows("s", store.rows("s", upto=signed_new))
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
