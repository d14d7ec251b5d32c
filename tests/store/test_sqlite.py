"""What only the SQLite store has: WAL mode, a file that is not a database refused plainly, and the
feed's look at what another process appended."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.events import SceneOpened
from server.notify import _news
from server.store import SqliteStore, StoreError

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    """What an append returned is on disk, in WAL mode: a new connection reads it."""
    path = tmp_path / "j.db"
    store = SqliteStore(path)
    records = store.append("s1", 0, [SceneOpened(ruleset="lotn")], command="c1", digest="", actor="st", at=AT)
    other = SqliteStore(path, readonly=True)
    assert list(other.read("s1")) == records
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    store.close()


def test_not_a_database(tmp_path: Path) -> None:
    """A file that is not SQLite is refused with a clear error."""
    path = tmp_path / "notes.txt"
    path.write_text("not a database, just notes\n" * 100)
    with pytest.raises(StoreError, match="not a Justicar database"):
        SqliteStore(path)


def test_the_feed_reads_what_was_appended_since_its_last_look(tmp_path: Path) -> None:
    """Another process's commits to one SQLite file (``server.notify.Poller``): a look reads only the
    rows appended since the last (each held scene's last seq among them, a scene not held left
    out), whoever appended them; its first look, and a look that finds rows taken away, read every
    held scene's end instead."""
    path = tmp_path / "j.db"
    store = SqliteStore(path)

    def opened(scene: str, version: int = 0, n: int = 1) -> None:
        store.append(
            scene, version, [SceneOpened(ruleset="lotn")] * n, command=f"c{version}", digest="", actor="st", at=AT
        )

    opened("s1")
    opened("s2")
    conn = sqlite3.connect(path, isolation_level=None)
    last, heads = _news(conn, None, {"s1", "s2"})
    assert sorted(heads) == [("s1", 1), ("s2", 1)]
    assert _news(conn, last, {"s1", "s2"}) == (last, [])  # nothing since
    opened("s1", 1, 2)
    opened("s3")  # not held here
    opened("s1", 3)
    last, heads = _news(conn, last, {"s1", "s2"})
    assert heads == [("s1", 4)]
    conn.execute("DELETE FROM events WHERE scene = 's1' AND seq = 4")  # a hand on the file
    taken, heads = _news(conn, last, {"s1", "s2"})
    assert taken < last and sorted(heads) == [("s1", 3), ("s2", 1)]
    conn.close()
    store.close()
