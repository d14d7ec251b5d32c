"""What only the SQLite store has: WAL mode, and a file that is not a database refused plainly."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.events import SceneOpened
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
