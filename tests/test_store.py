"""One suite for every event store (the SQLite default and the in-memory one)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.events import CharacterRemoved, SceneClosed, SceneEvent, SceneOpened
from domain.log import GENESIS, check_chain
from server.store import ConcurrencyConflict, EventStore, MemoryStore, SqliteStore

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    s: EventStore = SqliteStore(tmp_path / "j.db") if request.param == "sqlite" else MemoryStore()
    yield s
    s.close()


def append(store: EventStore, version: int, events: list[SceneEvent], command: str, scene: str = "s1") -> list:
    return store.append(scene, version, events, command=command, digest=f"d-{command}", actor="st", at=AT)


class TestStore:
    def test_append_and_read_back(self, store: EventStore) -> None:
        """Appended events come back in order, numbered from 1, each chained to the one before."""
        first = append(store, 0, [SceneOpened(ruleset="lotn", title="t")], "c1")
        more = append(store, 1, [CharacterRemoved(character="a"), SceneClosed()], "c2")
        records = list(store.read("s1"))
        assert records == first + more
        assert [r.seq for r in records] == [1, 2, 3]
        assert records[0].prev == GENESIS
        assert [r.prev for r in records[1:]] == [r.hash for r in records[:-1]]
        assert store.head("s1") == (3, records[-1].hash)
        assert check_chain(store.read_wire("s1")) is None

    def test_read_a_range(self, store: EventStore) -> None:
        """``after`` and ``upto`` bound what is read."""
        append(store, 0, [SceneOpened(ruleset="lotn"), SceneClosed(), SceneClosed()], "c1")
        assert [r.seq for r in store.read("s1", after=1)] == [2, 3]
        assert [w.seq for w in store.read_wire("s1", after=1, upto=2)] == [2]

    def test_expected_version_conflict_writes_nothing(self, store: EventStore) -> None:
        """An append that expects another version fails cleanly and writes nothing."""
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        with pytest.raises(ConcurrencyConflict):
            append(store, 0, [SceneClosed()], "c2")
        with pytest.raises(ConcurrencyConflict):
            append(store, 5, [SceneClosed()], "c3")
        assert store.head("s1")[0] == 1
        assert store.command("s1", "st", "c2") is None

    def test_command_ids_are_kept_per_scene_and_actor(self, store: EventStore) -> None:
        """A command id maps to its digest and the events it appended; another scene, or another
        actor, may use it too."""
        append(store, 0, [SceneOpened(ruleset="lotn"), SceneClosed()], "c1")
        record = store.command("s1", "st", "c1")
        assert record is not None and (record.digest, record.first_seq, record.last_seq) == ("d-c1", 1, 2)
        with pytest.raises(ConcurrencyConflict):
            append(store, 2, [SceneClosed()], "c1")
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1", scene="s2")
        assert store.command("s2", "st", "c1") is not None
        store.append("s1", 2, [SceneClosed()], command="c1", digest="d", actor="sam", at=AT)
        assert store.command("s1", "sam", "c1") is not None and store.command("s1", "juan", "c1") is None
        assert store.scenes() == ["s1", "s2"]

    def test_scenes_are_separate_streams(self, store: EventStore) -> None:
        """Each scene numbers its own events from 1."""
        append(store, 0, [SceneOpened(ruleset="lotn")], "a", scene="s1")
        append(store, 0, [SceneOpened(ruleset="lotn")], "a", scene="s2")
        assert store.head("s1")[0] == store.head("s2")[0] == 1
        assert list(store.read("missing")) == [] and store.head("missing") == (0, GENESIS)


class TestSqlite:
    def test_committed_events_survive_a_reopen(self, tmp_path: Path) -> None:
        """What an append returned is on disk: a new connection reads it, in WAL mode."""
        path = tmp_path / "j.db"
        store = SqliteStore(path)
        records = append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        other = SqliteStore(path)
        assert list(other.read("s1")) == records
        mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"

    def test_two_writers_race(self, tmp_path: Path) -> None:
        """Two stores on one file both expecting version 1: one wins, the other conflicts."""
        path = tmp_path / "j.db"
        a, b = SqliteStore(path), SqliteStore(path)
        append(a, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(a, 1, [SceneClosed()], "c2")
        with pytest.raises(ConcurrencyConflict):
            append(b, 1, [SceneClosed()], "c3")
        assert [r.command for r in b.read("s1")] == ["c1", "c2"]

    def test_unique_scene_seq_is_the_backstop(self, tmp_path: Path) -> None:
        """The schema itself refuses a second event at the same (scene, seq)."""
        path = tmp_path / "j.db"
        append(SqliteStore(path), 0, [SceneOpened(ruleset="lotn")], "c1")
        conn = sqlite3.connect(path)
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO events (scene, seq, type, at, actor, command, prev, hash, data) "
                "VALUES ('s1', 1, 'scene_closed', 'x', 'st', 'c9', 'p', 'h', '{}')"
            )

    def test_tampering_is_found(self, tmp_path: Path) -> None:
        """Changing one byte of one stored event breaks the chain at that event."""
        path = tmp_path / "j.db"
        store = SqliteStore(path)
        append(store, 0, [SceneOpened(ruleset="lotn", title="honest")], "c1")
        append(store, 1, [SceneClosed()], "c2")
        conn = sqlite3.connect(path)
        conn.execute("UPDATE events SET data = replace(data, 'honest', 'hOnest') WHERE seq = 1")
        conn.commit()
        problem = check_chain(SqliteStore(path).read_wire("s1"))
        assert problem is not None and problem.seq == 1 and "hash" in problem.problem

    def test_not_a_database(self, tmp_path: Path) -> None:
        """A file that is not SQLite is refused with a clear error."""
        path = tmp_path / "notes.txt"
        path.write_text("not a database, just notes\n" * 100)
        with pytest.raises(Exception, match="not a Justicar database"):
            SqliteStore(path)
