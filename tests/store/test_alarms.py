"""The ``alarms`` index (when each scene next needs waking, for ``server.alarms``), the same on
every backend: written by the append that changed it, in its transaction (a conflict leaves it as
it was), left alone by an append that does not say, deleted by one that says None; read whole or
only the rows due before a time, the earliest first. A database of an older version gets the table
when a server opens it, and is still read without it by a read-only store."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from domain.events import CharacterRemoved, SceneClosed, SceneOpened
from server.backend import Backend
from server.store import Append, ConcurrencyConflict, SqliteStore
from server.store.base import from_micros, to_micros
from server.store.postgres import PostgresStore
from tests.store.conftest import KINDS, raw

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
SOON = AT + timedelta(seconds=120, microseconds=250)
LATER = AT + timedelta(minutes=5)

every_backend = pytest.mark.parametrize("where", KINDS, indirect=True)


def item(scene: str, version: int, command: str, **due: datetime | None) -> Append:
    event = SceneOpened(ruleset="lotn") if version == 0 else CharacterRemoved(character=command)
    return Append(
        scene=scene, expected_version=version, events=[event], command=command, digest="", actor="st", at=AT, **due
    )


def test_a_time_is_kept_to_the_microsecond() -> None:
    at = datetime(2026, 12, 2, 19, 30, 1, 999_999, tzinfo=UTC)
    assert from_micros(to_micros(at)) == at
    assert to_micros(at) < to_micros(at + timedelta(microseconds=1))


@every_backend
class TestIndex:
    def test_each_append_says_or_leaves_its_scenes_row(self, backend: Backend) -> None:
        """A due time writes the scene's row, an append saying nothing leaves it, a new time
        replaces it, None deletes it; other scenes' rows are their own."""
        store = backend.store
        store.append("s1", 0, [SceneOpened(ruleset="lotn")], command="c1", digest="", actor="st", at=AT, due=LATER)
        store.append_batch([item("s2", 0, "c1", due=SOON)])
        assert store.alarms() == [("s2", SOON), ("s1", LATER)]
        store.append_batch([item("s1", 1, "c2")])  # no word of it: the time did not change
        assert store.alarms() == [("s2", SOON), ("s1", LATER)]
        store.append_batch([item("s1", 2, "c3", due=AT)])
        assert store.alarms() == [("s1", AT), ("s2", SOON)]
        assert (store.alarm("s1"), store.alarm("s2"), store.alarm("s3")) == (AT, SOON, None)
        store.append_batch([item("s1", 3, "c4", due=None)])
        assert store.alarms() == [("s2", SOON)] and store.alarm("s1") is None
        store.append_batch([item("s1", 4, "c5", due=None)])  # nothing to delete
        assert store.alarms() == [("s2", SOON)]

    def test_only_the_rows_due_before_a_time(self, backend: Backend) -> None:
        store = backend.store
        store.append_batch([item("s1", 0, "c1", due=LATER), item("s2", 0, "c1", due=SOON), item("s3", 0, "c1")])
        assert store.alarms(before=SOON) == []
        assert store.alarms(before=SOON + timedelta(microseconds=1)) == [("s2", SOON)]
        assert store.alarms(before=LATER + timedelta(seconds=1)) == [("s2", SOON), ("s1", LATER)]

    def test_a_conflict_leaves_the_row_as_it_was(self, backend: Backend) -> None:
        """An append that conflicts (a version moved on, a command id taken) writes no row, nor
        do the items after it of the same scene in a group; the others' go in."""
        store = backend.store
        store.append_batch([item("s1", 0, "c1", due=LATER), item("s2", 0, "c1")])
        out = store.append_batch(
            [item("s1", 0, "c2", due=AT), item("s1", 1, "c3", due=None), item("s2", 1, "c2", due=SOON)]
        )
        assert isinstance(out[0], ConcurrencyConflict) and isinstance(out[1], ConcurrencyConflict)
        assert isinstance(out[2], list)
        with pytest.raises(ConcurrencyConflict):
            store.append("s1", 1, [SceneClosed()], command="c1", digest="", actor="st", at=AT, due=None)
        assert store.alarms() == [("s2", SOON), ("s1", LATER)]

    def test_the_last_of_a_group_for_a_scene_holds(self, backend: Backend) -> None:
        """Several commands of one scene in one group commit: the row is the last one's."""
        store = backend.store
        store.append_batch([item("s1", 0, "c1", due=AT), item("s1", 1, "c2", due=LATER), item("s1", 2, "c3")])
        assert store.alarms() == [("s1", LATER)]


def test_an_older_sqlite_file_gets_the_table(tmp_path: Path, opened: Callable[..., Backend]) -> None:
    """A file written before the index: read-only, it is read as having no rows (nothing is made
    beside it); a server opening it adds the table, and its appends fill it."""
    db = tmp_path / "old.db"
    store = SqliteStore(db)
    store.append("s1", 0, [SceneOpened(ruleset="lotn")], command="c1", digest="", actor="st", at=AT)
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE alarms")
    reader = SqliteStore(db, readonly=True)
    try:
        assert reader.alarms() == [] and reader.alarm("s1") is None and reader.head("s1")[0] == 1
    finally:
        reader.close()
    backend = opened(str(db))
    backend.store.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT, due=SOON)
    assert backend.store.alarms() == [("s1", SOON)]
    assert raw(str(db), "SELECT scene, due FROM alarms") == [("s1", to_micros(SOON))]


def test_an_older_postgres_database_gets_the_table(postgres_db: str) -> None:
    """A database made before the index: a read-only store reads it without the table; a server
    opening it makes the table, and its appends fill it."""
    store = PostgresStore(postgres_db)
    try:
        store.append("s1", 0, [SceneOpened(ruleset="lotn")], command="c1", digest="", actor="st", at=AT)
    finally:
        store.close()
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute("DROP TABLE alarms")
    reader = PostgresStore(postgres_db, readonly=True)
    try:
        assert reader.alarms() == [] and reader.head("s1")[0] == 1
    finally:
        reader.close()
    writer = PostgresStore(postgres_db)
    try:
        writer.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT, due=SOON)
        assert writer.alarms() == [("s1", SOON)]
    finally:
        writer.close()
