"""The event store's interface, the same on every backend: appends and their conflicts, command
ids kept with their first result, the hash chain, group commits, imports, reads, heads."""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime

import msgspec
import psycopg
import pytest

from domain.events import CharacterRemoved, SceneClosed, SceneEvent, SceneOpened
from domain.log import GENESIS, Recorded, check_chain
from server.backend import Backend
from server.store import Append, ConcurrencyConflict, EventStore, StoreError
from server.store.base import Repeated, first_problem
from tests.store.conftest import KINDS, ON_DISK, raw

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)

every_backend = pytest.mark.parametrize("where", KINDS, indirect=True)
on_disk = pytest.mark.parametrize("where", ON_DISK, indirect=True)


def append(store: EventStore, version: int, events: list[SceneEvent], command: str, scene: str = "s1") -> list:
    return store.append(scene, version, events, command=command, digest=f"d-{command}", actor="st", at=AT)


def item(scene: str, version: int, events: list[SceneEvent], command: str, actor: str = "st") -> Append:
    return Append(
        scene=scene, expected_version=version, events=events, command=command, digest=f"d-{command}", actor=actor, at=AT
    )


@every_backend
class TestAppend:
    def test_append_and_read_back(self, backend: Backend) -> None:
        """Appended events come back in order, numbered from 1, each chained to the one before."""
        store = backend.store
        first = append(store, 0, [SceneOpened(ruleset="lotn", title="t")], "c1")
        more = append(store, 1, [CharacterRemoved(character="a"), SceneClosed()], "c2")
        records = list(store.read("s1"))
        assert records == first + more
        assert [r.seq for r in records] == [1, 2, 3]
        assert records[0].prev == GENESIS
        assert [r.prev for r in records[1:]] == [r.hash for r in records[:-1]]
        assert store.head("s1") == (3, records[-1].hash)
        assert check_chain(store.read_wire("s1")) is None
        assert first_problem(store, "s1") is None

    def test_expected_version_conflict_writes_nothing(self, backend: Backend) -> None:
        """An append that expects another version fails cleanly and writes nothing."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        with pytest.raises(ConcurrencyConflict):
            append(store, 0, [SceneClosed()], "c2")
        with pytest.raises(ConcurrencyConflict):
            append(store, 5, [SceneClosed()], "c3")
        assert store.head("s1")[0] == 1
        assert store.command("s1", "st", "c2") is None and store.command("s1", "st", "c3") is None
        assert store.acknowledged("s1") == 1

    def test_scenes_are_separate_streams(self, backend: Backend) -> None:
        """Each scene numbers its own events from 1; a scene never written is empty at version 0;
        ``scenes`` lists them in the order they began."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "a", scene="s2")
        append(store, 0, [SceneOpened(ruleset="lotn")], "a", scene="s1")
        append(store, 1, [SceneClosed()], "b", scene="s2")
        assert store.head("s1")[0] == 1 and store.head("s2")[0] == 2
        assert list(store.read("missing")) == [] and store.head("missing") == (0, GENESIS)
        assert store.acknowledged("missing") == 0
        assert store.scenes() == ["s2", "s1"]

    def test_an_append_of_no_events_writes_nothing(self, backend: Backend) -> None:
        """A command that appended nothing leaves neither events nor a command id."""
        store = backend.store
        assert append(store, 0, [], "nothing") == []
        assert store.head("s1") == (0, GENESIS) and store.command("s1", "st", "nothing") is None
        assert store.scenes() == []


@every_backend
class TestCommands:
    def test_command_ids_are_kept_per_scene_and_actor(self, backend: Backend) -> None:
        """A command id maps to its digest and the events it appended; another scene, or another
        actor, may use it too; the same actor may not use it twice in one scene."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn"), SceneClosed()], "c1")
        record = store.command("s1", "st", "c1")
        assert record is not None and (record.digest, record.first_seq, record.last_seq) == ("d-c1", 1, 2)
        with pytest.raises(ConcurrencyConflict):
            append(store, 2, [SceneClosed()], "c1")
        assert store.head("s1")[0] == 2
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1", scene="s2")
        assert store.command("s2", "st", "c1") is not None
        store.append("s1", 2, [SceneClosed()], command="c1", digest="d", actor="sam", at=AT)
        assert store.command("s1", "sam", "c1") is not None and store.command("s1", "juan", "c1") is None
        assert store.scenes() == ["s1", "s2"]

    def test_the_digests_of_the_commands_a_fork_copies(self, backend: Backend) -> None:
        """Every command of the scene that began at or before the event named, by actor and id, with
        its digest, in one read; not another scene's, nor one begun after it."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(store, 1, [SceneClosed(), SceneClosed()], "c2")
        store.append("s1", 3, [SceneClosed()], command="c1", digest="d-sam", actor="sam", at=AT)
        append(store, 0, [SceneOpened(ruleset="lotn")], "c9", scene="s2")
        assert store.digests("s1", 2) == {("st", "c1"): "d-c1", ("st", "c2"): "d-c2"}
        assert store.digests("s1", 4) == {("st", "c1"): "d-c1", ("st", "c2"): "d-c2", ("sam", "c1"): "d-sam"}
        assert store.digests("s1", 0) == {} and store.digests("missing", 9) == {}

    def test_the_first_result_stays(self, backend: Backend) -> None:
        """A command sent again after later commands still finds the events it first appended."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(store, 1, [SceneClosed(), SceneClosed()], "c2")
        append(store, 3, [SceneClosed()], "c3")
        record = store.command("s1", "st", "c2")
        assert record is not None and (record.first_seq, record.last_seq, record.digest) == (2, 3, "d-c2")
        assert store.acknowledged("s1") == 4


@every_backend
class TestReads:
    def test_after_and_upto_bound_every_read(self, backend: Backend) -> None:
        """``after`` and ``upto`` bound ``read``, ``read_wire`` and ``rows`` alike."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn"), SceneClosed(), SceneClosed(), SceneClosed()], "c1")
        assert [r.seq for r in store.read("s1", after=1)] == [2, 3, 4]
        assert [r.seq for r in store.read("s1", upto=2)] == [1, 2]
        assert [w.seq for w in store.read_wire("s1", after=1, upto=3)] == [2, 3]
        assert [row[0] for row in store.rows("s1", after=2)] == [3, 4]
        assert list(store.read("s1", after=4)) == [] and list(store.rows("s1", upto=0)) == []

    def test_the_three_reads_agree(self, backend: Backend) -> None:
        """``read`` decodes what ``read_wire`` holds; ``rows`` is its seq, time, type and data."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn", title="Élysée « at night »")], "c1")
        append(store, 1, [CharacterRemoved(character="a")], "c2")
        records, wires, rows = list(store.read("s1")), list(store.read_wire("s1")), list(store.rows("s1"))
        for record, wire, (seq, at, type_, data) in zip(records, wires, rows, strict=True):
            assert (record.seq, record.hash, record.prev, record.type) == (wire.seq, wire.hash, wire.prev, wire.type)
            assert (seq, at, type_) == (wire.seq, wire.at, wire.type)
            assert bytes(data.encode() if isinstance(data, str) else data) == bytes(wire.data)
        assert wires[0].at == "2026-11-29T20:00:00Z"
        assert isinstance(records[0].event, SceneOpened) and records[0].event.title == "Élysée « at night »"

    def test_a_long_scene_reads_whole(self, backend: Backend) -> None:
        """A scene longer than any page of a read comes back whole and in order."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "open")
        for n in range(1, 26):
            append(store, 1 + (n - 1) * 200, [SceneClosed()] * 200, f"c{n}")
        assert [r.seq for r in store.read("s1")] == list(range(1, 5002))
        assert [w.seq for w in store.read_wire("s1", after=1999, upto=4001)] == list(range(2000, 4002))
        assert check_chain(store.read_wire("s1")) is None


@every_backend
class TestBatches:
    def test_a_batch_keeps_each_command_apart(self, backend: Backend) -> None:
        """A group commit: each command's events, or the conflict that kept it out; the others go
        in. A command after one that conflicted in the same scene conflicts too (it was decided on
        the state the one before it would have left)."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c0")
        done = store.append_batch(
            [
                item("s1", 1, [SceneClosed()], "c1"),
                item("s2", 0, [SceneOpened(ruleset="lotn")], "c1"),
                item("s1", 1, [SceneClosed()], "late"),  # expected 1, but c1 took it to 2
                item("s1", 2, [SceneClosed()], "after"),  # decided after "late"
                item("s2", 1, [SceneClosed()], "c1"),  # a command id already in the scene
                item("s3", 0, [SceneOpened(ruleset="lotn"), SceneClosed()], "c1"),
            ]
        )
        conflicted = [isinstance(d, ConcurrencyConflict) for d in done]
        assert conflicted == [False, False, True, True, True, False]
        assert [r.seq for r in done[0]] == [2] and [r.seq for r in done[5]] == [1, 2]  # type: ignore[union-attr]
        assert [r.command for r in store.read("s1")] == ["c0", "c1"]
        assert store.head("s2")[0] == 1 and store.head("s3")[0] == 2
        assert store.command("s1", "st", "late") is None and store.command("s1", "st", "after") is None
        for scene in ("s1", "s2", "s3"):
            assert check_chain(store.read_wire(scene)) is None
        assert store.append_batch([]) == []

    def test_a_batch_of_distinct_ids_settles_each_as_alone(self, backend: Backend) -> None:
        """A group whose command ids all differ (PostgreSQL writes it in one statement): commands
        of one scene chain on each other, a stale one and those after it conflict, a command the
        log holds already is a repeat, one without events writes nothing; the rest go in, every
        scene's chain whole, and each scene's last alarm holds."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c0")
        append(store, 0, [SceneOpened(ruleset="lotn")], "held", scene="s2")
        items = [
            item("s1", 1, [SceneClosed()], "a"),
            item("s3", 0, [SceneOpened(ruleset="lotn")], "a"),
            item("s1", 2, [SceneClosed(), SceneClosed()], "b"),
            item("s2", 0, [SceneOpened(ruleset="lotn")], "stale"),  # s2 is at 1
            item("s2", 1, [SceneClosed()], "after"),  # decided on the stale one
            item("s4", 0, [SceneOpened(ruleset="lotn")], "x"),
            item("s4", 1, [SceneClosed()], "c0"),  # not a repeat: another scene's id
            item("s1", 4, [], "nothing"),
        ]
        items[1] = msgspec.structs.replace(items[1], due=AT)
        done = store.append_batch(items)
        assert [[r.seq for r in d] if isinstance(d, list) else type(d).__name__ for d in done] == [
            [2],
            [1],
            [3, 4],
            "ConcurrencyConflict",
            "ConcurrencyConflict",
            [1],
            [2],
            [],
        ]
        assert [r.command for r in store.read("s1")] == ["c0", "a", "b", "b"]
        assert store.head("s2")[0] == 1 and store.head("s3")[0] == 1 and store.head("s4")[0] == 2
        assert store.command("s1", "st", "nothing") is None and store.command("s2", "st", "after") is None
        for scene in ("s1", "s2", "s3", "s4"):
            assert check_chain(store.read_wire(scene)) is None
        assert store.alarms() == [("s3", AT)]
        again = store.append_batch([item("s1", 4, [SceneClosed()], "b"), item("s3", 1, [SceneClosed()], "z")])
        assert isinstance(again[0], Repeated) and (again[0].prior.first_seq, again[0].prior.last_seq) == (3, 4)
        assert [r.seq for r in again[1]] == [2]  # type: ignore[union-attr]

    def test_a_batch_result_is_what_was_stored(self, backend: Backend) -> None:
        """The records a batch returns are the ones read back."""
        store = backend.store
        done = store.append_batch(
            [item("a", 0, [SceneOpened(ruleset="lotn")], "x"), item("b", 0, [SceneOpened(ruleset="kony")], "x")]
        )
        assert all(isinstance(d, list) for d in done)
        stored: list[Recorded] = list(store.read("a")) + list(store.read("b"))
        assert stored == [r for d in done for r in d]  # type: ignore[union-attr]


@every_backend
class TestImport:
    def test_an_import_keeps_every_byte(self, backend: Backend, opened) -> None:  # type: ignore[no-untyped-def]
        """Records imported from another store come in exactly (seq, times, hashes), with their
        command ids (and the digests given); the chain goes on from their head."""
        source = opened(None).store
        append(source, 0, [SceneOpened(ruleset="lotn")], "c1")
        source.append("s1", 1, [SceneClosed(), SceneClosed()], command="c2", digest="x", actor="sam", at=AT)
        wires = list(source.read_wire("s1"))
        store = backend.store
        store.import_wires("s1", wires, {("st", "c1"): "d-c1"})
        assert list(store.read_wire("s1")) == wires and store.head("s1") == source.head("s1")
        c1, c2 = store.command("s1", "st", "c1"), store.command("s1", "sam", "c2")
        assert c1 is not None and (c1.digest, c1.first_seq, c1.last_seq) == ("d-c1", 1, 1)
        assert c2 is not None and (c2.digest, c2.first_seq, c2.last_seq) == ("", 2, 3)
        assert store.acknowledged("s1") == 3
        more = append(store, 3, [SceneClosed()], "c3")
        assert more[0].prev == wires[-1].hash and check_chain(store.read_wire("s1")) is None
        with pytest.raises(ConcurrencyConflict):
            store.append("s1", 4, [SceneClosed()], command="c2", digest="x", actor="sam", at=AT)

    def test_an_import_into_a_scene_with_events_is_refused(self, backend: Backend) -> None:
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        wires = list(store.read_wire("s1"))
        with pytest.raises(StoreError, match="already has events"):
            store.import_wires("s1", wires)
        assert store.head("s1")[0] == 1


@on_disk
class TestOnDisk:
    def test_unique_scene_seq_is_the_backstop(self, where: str, backend: Backend) -> None:
        """The schema itself refuses a second event at the same (scene, seq)."""
        append(backend.store, 0, [SceneOpened(ruleset="lotn")], "c1")
        with pytest.raises((sqlite3.IntegrityError, psycopg.errors.UniqueViolation)):
            raw(
                where,
                "INSERT INTO events (scene, seq, type, at, actor, command, prev, hash, data) "
                "VALUES ('s1', 1, 'scene_closed', 'x', 'st', 'c9', 'p', 'h', '{}')",
            )

    def test_tampering_is_found(self, where: str, backend: Backend) -> None:
        """Changing one byte of one stored event breaks the chain at that event."""
        append(backend.store, 0, [SceneOpened(ruleset="lotn", title="honest")], "c1")
        append(backend.store, 1, [SceneClosed()], "c2")
        raw(where, "UPDATE events SET data = replace(data, 'honest', 'hOnest') WHERE seq = 1")
        problem = check_chain(backend.store.read_wire("s1"))
        assert problem is not None and problem.seq == 1 and "hash" in problem.problem
        assert first_problem(backend.store, "s1") == problem

    def test_a_lost_end_is_found(self, where: str, backend: Backend) -> None:
        """A log that ends before an acknowledged command's last event has lost its end."""
        append(backend.store, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(backend.store, 1, [SceneClosed(), SceneClosed()], "c2")
        raw(where, "DELETE FROM events WHERE seq = 3")
        problem = first_problem(backend.store, "s1")
        assert problem is not None and problem.seq == 3 and "missing" in problem.problem

    def test_a_lost_command_row_is_found_in_the_log(self, where: str, backend: Backend) -> None:
        """The commands table only indexes the log: without its row, a command is found by its
        events' own hash-chained ``command`` field, and still cannot be appended twice."""
        append(backend.store, 0, [SceneOpened(ruleset="lotn"), SceneClosed()], "c1")
        raw(where, "DELETE FROM commands")
        record = backend.store.command("s1", "st", "c1")
        assert record is not None and (record.digest, record.first_seq, record.last_seq) == ("", 1, 2)
        with pytest.raises(ConcurrencyConflict):
            append(backend.store, 2, [SceneClosed()], "c1")

    def test_a_row_pointed_at_another_command_is_not_believed(self, where: str, backend: Backend) -> None:
        """A ``commands`` row moved onto another command's events: the command is still found where
        its own events are (without the row's digest: the row disagrees), a repeat is ``Repeated``
        with that span, and ``verify`` names the row."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(store, 1, [SceneClosed(), SceneClosed()], "c2")
        raw(where, "UPDATE commands SET first_seq = 1, last_seq = 1 WHERE id = 'c2'")
        record = store.command("s1", "st", "c2")
        assert record is not None and (record.first_seq, record.last_seq, record.digest) == (2, 3, "")
        with pytest.raises(Repeated) as repeat:
            append(store, 3, [SceneClosed()], "c2")
        assert (repeat.value.prior.first_seq, repeat.value.prior.last_seq) == (2, 3)
        assert store.head("s1")[0] == 3
        problem = first_problem(store, "s1")
        assert problem is not None and problem.seq == 1 and problem.type == "command"
        assert "'c2'" in problem.problem and "events 2 to 3" in problem.problem

    def test_a_row_for_a_command_never_sent_is_not_believed(self, where: str, backend: Backend) -> None:
        """A ``commands`` row forged for an id the log does not hold: the command is not found, its
        first append goes in (the row replaced by the true one), and ``verify`` named the row."""
        store = backend.store
        append(store, 0, [SceneOpened(ruleset="lotn"), SceneClosed()], "c1")
        raw(
            where,
            "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES ('s1', 'st', 'c9', 'x', 1, 2)",
        )
        problem = first_problem(store, "s1")
        assert problem is not None and problem.type == "command" and "no event of it" in problem.problem
        assert store.command("s1", "st", "c9") is None
        records = append(store, 2, [SceneClosed()], "c9")
        assert [r.seq for r in records] == [3] and records[0].command == "c9"
        record = store.command("s1", "st", "c9")
        assert record is not None and (record.first_seq, record.last_seq, record.digest) == (3, 3, "d-c9")
        assert first_problem(store, "s1") is None

    def test_what_is_committed_survives_a_reopen(self, where: str, opened) -> None:  # type: ignore[no-untyped-def]
        """What an append returned is in the database: a store opened afresh reads it."""
        first = opened(where)
        records = append(first.store, 0, [SceneOpened(ruleset="lotn")], "c1")
        first.close()
        assert list(opened(where).store.read("s1")) == records

    def test_two_stores_on_one_database_race(self, where: str, opened) -> None:  # type: ignore[no-untyped-def]
        """Two stores (as two processes) both expecting version 2: one wins, the other conflicts
        and wrote nothing; each reads what the other wrote."""
        a, b = opened(where).store, opened(where).store
        append(a, 0, [SceneOpened(ruleset="lotn")], "c1")
        append(b, 1, [SceneClosed()], "c2")
        append(a, 2, [SceneClosed()], "c3")
        with pytest.raises(ConcurrencyConflict):
            append(b, 2, [SceneClosed()], "c4")
        with pytest.raises(ConcurrencyConflict):  # the command id another process appended
            append(b, 3, [SceneClosed()], "c3")
        assert [r.command for r in b.read("s1")] == ["c1", "c2", "c3"]
        assert a.head("s1") == b.head("s1")

    def test_many_writers_never_fork(self, where: str, opened) -> None:  # type: ignore[no-untyped-def]
        """Four stores on one database, each from a thread of its own, append to one scene, each
        reading the head again after a conflict: every command lands exactly once, no gap, no fork."""
        stores = [opened(where).store for _ in range(4)]
        append(stores[0], 0, [SceneOpened(ruleset="lotn")], "open")
        conflicts = [0] * len(stores)
        failures: list[BaseException] = []

        def write(n: int) -> None:
            store = stores[n]
            try:
                for k in range(15):
                    while True:
                        version = store.head("s1")[0]
                        try:
                            store.append(
                                "s1", version, [SceneClosed()], command=f"w{n}-{k}", digest="", actor="st", at=AT
                            )
                            break
                        except ConcurrencyConflict:
                            conflicts[n] += 1
            except BaseException as err:
                failures.append(err)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(len(stores))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        wires = list(stores[1].read_wire("s1"))
        assert [w.seq for w in wires] == list(range(1, 62)) and check_chain(wires) is None
        assert sorted(w.command for w in wires[1:]) == sorted(f"w{n}-{k}" for n in range(4) for k in range(15))
        assert stores[2].acknowledged("s1") == 61
