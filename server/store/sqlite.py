"""The embedded default: one SQLite file (WAL, ``synchronous=FULL``) through sqlite-utils.

``events`` holds every record with ``UNIQUE(scene, seq)`` (its primary key); ``commands`` holds
each accepted command id per scene and actor with the digest of its body and the events it
appended. An append is one ``BEGIN IMMEDIATE`` transaction: check the version, check that the log
does not already hold the command (its events are hash-chained; the ``commands`` row is only an
index of them, believed only where it agrees with them: ``as_logged``), insert the events and the
command (replacing a row the log does not bear out), commit. When ``append`` returns, the events are
on disk.

``alarms`` holds, for each scene that will need waking (a response deadline running), when: the
due time ``Append.due`` gives, written in the append's own transaction (``server.alarms``); a file
of an older version gets the table when a server opens it.

``unfinished`` names each scene being copied in steps (a fork, an import: ``server.history``) and
who copies it: until its last step the scene has no events for any read and an append to it
conflicts. A file of an older version has no such table (a read-only store then reads as before).

Writes go through one connection (the server calls it from its writer thread only); every thread
that reads has its own connection, so a read never sees another's open transaction. A read-only
store (``readonly=True``, for ``log``, ``verify``, ``replay``, ``export`` and ``audit``) opens the
file read-only and creates nothing next to it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import sqlite_utils

from domain.log import GENESIS, Recorded, Row, Wire, decode_event, format_at
from server.store.base import (
    Append,
    Batched,
    CommandRecord,
    ConcurrencyConflict,
    Repeated,
    Step,
    StorageUnavailable,
    StoreError,
    as_logged,
    chain,
    claimable,
    from_micros,
    resumed,
    to_micros,
)

SCHEMA_VERSION = 2
"""1: commands keyed by (scene, id). 2: by (scene, actor, id), and events indexed by command."""

_COLUMNS = "seq, scene, type, at, actor, command, prev, hash, data"
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
_TIMEOUT = 10.0


def connect(path: str, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection to the file at ``path``; read-only ones write nothing, not even WAL files
    (``immutable`` when no writer has the file open, which its missing ``-wal`` shows)."""
    if not readonly:
        return sqlite3.connect(path, check_same_thread=False, timeout=_TIMEOUT, isolation_level=None)
    if not os.path.exists(path):
        raise StoreError(f"no database at {path}")
    mode = "mode=ro" if os.path.exists(path + "-wal") else "immutable=1"
    uri = f"{Path(path).resolve().as_uri()}?{mode}"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=_TIMEOUT, isolation_level=None)


def unavailable(err: sqlite3.Error) -> StorageUnavailable:
    """A driver error as the store's: the disk, not the caller, is at fault."""
    return StorageUnavailable(f"the database could not be written or read: {err}")


@contextlib.contextmanager
def on_disk() -> Iterator[None]:
    """The disk's errors (full, read-only, I/O) inside the block, as ``StorageUnavailable``."""
    try:
        yield
    except sqlite3.IntegrityError:
        raise
    except sqlite3.DatabaseError as err:
        raise unavailable(err) from err


class SqliteStore(Batched):
    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        try:
            conn = connect(self.path, readonly=readonly)
            self.db = sqlite_utils.Database(conn)
            if not readonly:
                self.db.enable_wal()
                conn.execute("PRAGMA synchronous=FULL")
                self._create()
            self._check_schema()
            self._gated = self.db.table("unfinished").exists()  # a file of an older version has none
            self._alarmed = self.db.table("alarms").exists()  # nor this (a read-only store reads none)
        except sqlite3.DatabaseError as err:
            raise StoreError(self._unreadable(err)) from err

    def _unreadable(self, err: sqlite3.DatabaseError) -> str:
        wal, shm = self.path + "-wal", self.path + "-shm"
        if self.readonly and os.path.exists(wal) and not os.path.exists(shm):
            return (
                f"cannot read {self.path}: its write-ahead log ({wal}) may hold events not yet in the file, and"
                f" SQLite must create {shm} beside it to read them, which it could not ({err}); copy the"
                " database with its -wal file to a directory you can write to, or open it once where it was written"
            )
        return f"{self.path} is not a Justicar database: {err}"

    def _create(self) -> None:
        conn = self.db.conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS events (scene TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, "
            "at TEXT NOT NULL, actor TEXT NOT NULL, command TEXT NOT NULL, prev TEXT NOT NULL, "
            "hash TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (scene, seq))"
        )
        conn.execute("CREATE INDEX IF NOT EXISTS events_by_command ON events (scene, actor, command)")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_commands = self.db.table("commands").exists()
        if has_commands and version < 2:
            self._migrate_commands()
        conn.execute(
            "CREATE TABLE IF NOT EXISTS commands (scene TEXT NOT NULL, actor TEXT NOT NULL, id TEXT NOT NULL, "
            "digest TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, "
            "PRIMARY KEY (scene, actor, id))"
        )
        # ``acknowledged`` (on every load) reads the largest last_seq of a scene from this index
        conn.execute("CREATE INDEX IF NOT EXISTS commands_by_seq ON commands (scene, last_seq)")
        # a scene being copied in steps (a fork, an import) and who copies it: until its last step
        # it does not exist for readers and refuses appends
        conn.execute("CREATE TABLE IF NOT EXISTS unfinished (scene TEXT PRIMARY KEY, owner TEXT NOT NULL)")
        # when each scene next needs waking (``Append.due``, in microseconds since 1970): added to a
        # file of an older version as it is opened; no schema version of its own (an older server
        # that writes the file leaves its rows stale, which costs a wake-up, never a decision)
        conn.execute("CREATE TABLE IF NOT EXISTS alarms (scene TEXT PRIMARY KEY, due INTEGER NOT NULL)")
        conn.execute("CREATE INDEX IF NOT EXISTS alarms_by_due ON alarms (due)")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _migrate_commands(self) -> None:
        """Version 1 kept command ids per scene; they are now per scene and actor (the actor of the
        command's first event)."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE commands_v2 (scene TEXT NOT NULL, actor TEXT NOT NULL, id TEXT NOT NULL, "
                "digest TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, "
                "PRIMARY KEY (scene, actor, id))"
            )
            conn.execute(
                "INSERT OR IGNORE INTO commands_v2 SELECT c.scene, e.actor, c.id, c.digest, c.first_seq, c.last_seq "
                "FROM commands c JOIN events e ON e.scene = c.scene AND e.seq = c.first_seq"
            )
            conn.execute("DROP TABLE commands")
            conn.execute("ALTER TABLE commands_v2 RENAME TO commands")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _check_schema(self) -> None:
        version = self.db.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer Justicar (schema {version}); upgrade to read it")
        if self.readonly and not self.db.table("events").exists():
            raise StoreError(f"{self.path} is not a Justicar database: it has no events table")

    # -- connections ---------------------------------------------------------------------------

    @property
    def reads(self) -> sqlite3.Connection:
        """This thread's reading connection (a read-only store reads through its one connection)."""
        if self.readonly:
            return self.db.conn
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            conn.execute("PRAGMA query_only=1")
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    # -- writing -------------------------------------------------------------------------------

    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]:
        conn = self.db.conn
        out: list[list[Recorded] | ConcurrencyConflict] = []
        stale: set[str] = set()  # a scene whose item conflicted: the items after it were decided on it
        with self._writing(items[0].scene if items else ""):
            for item in items:
                if item.scene in stale:
                    out.append(
                        ConcurrencyConflict(f"scene {item.scene!r}: an earlier command of this batch conflicted")
                    )
                    continue
                conn.execute("SAVEPOINT item")
                try:
                    out.append(self._insert(conn, item))
                    conn.execute("RELEASE item")
                except (ConcurrencyConflict, sqlite3.IntegrityError) as err:
                    conn.execute("ROLLBACK TO item")
                    conn.execute("RELEASE item")
                    out.append(err if isinstance(err, ConcurrencyConflict) else ConcurrencyConflict(str(err)))
                    stale.add(item.scene)
        return out

    def _insert(self, conn: sqlite3.Connection, item: Append) -> list[Recorded]:
        scene = item.scene
        version, prev = self._head(conn, scene)
        if version != item.expected_version:
            raise ConcurrencyConflict(f"scene {scene!r} is at version {version}, not {item.expected_version}")
        if self._holder(conn, scene) is not None:
            raise ConcurrencyConflict(f"scene {scene!r} is being copied in (a fork or an import)")
        prior, indexed = self._logged(conn, scene, item.actor, item.command)
        if prior is not None:
            raise Repeated(prior)
        sealed = chain(scene, version, prev, item.events, command=item.command, actor=item.actor, at=item.at)
        # The hot path uses the connection directly: sqlite-utils' insert_all costs a savepoint
        # and a query build per call, 40% of an append (docs/performance.md).
        conn.executemany(
            _INSERT,
            [
                (r.seq, scene, r.type, format_at(r.at), r.actor, r.command, r.prev, r.hash, data.decode())
                for r, data in sealed
            ],
        )
        if sealed:
            if indexed:  # a row for a command the log does not hold (reported by ``as_logged``)
                conn.execute(
                    "DELETE FROM commands WHERE scene = ? AND actor = ? AND id = ?", (scene, item.actor, item.command)
                )
            conn.execute(
                "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES (?, ?, ?, ?, ?, ?)",
                (scene, item.actor, item.command, item.digest, sealed[0][0].seq, sealed[-1][0].seq),
            )
            if item.due is None:
                conn.execute("DELETE FROM alarms WHERE scene = ?", (scene,))
            elif isinstance(item.due, datetime):
                conn.execute("INSERT OR REPLACE INTO alarms (scene, due) VALUES (?, ?)", (scene, to_micros(item.due)))
        return [record for record, _ in sealed]

    def resume(self, scene: str, wires: Sequence[Wire]) -> int:
        conn = self.reads
        return resumed(scene, wires, self._head(conn, scene), self._holder(conn, scene) is not None)

    def write_step(self, scene: str, owner: str, step: Step) -> None:
        """One step of a copy. Only the last is made durable on its own: the others commit without
        waiting for the disk (``synchronous=NORMAL``), and the last one's sync (or any commit's
        between) takes them to the disk with it. A crash before then loses, at most, the steps
        after the last sync, never one before a step kept (the log is written in order): what is
        left is still a prefix of the copy, unseen, that its retry completes."""
        conn = self.db.conn
        if not step.last:
            conn.execute("PRAGMA synchronous=NORMAL")
        try:
            self._write_step(conn, scene, owner, step)
        finally:
            conn.execute("PRAGMA synchronous=FULL")

    def _write_step(self, conn: sqlite3.Connection, scene: str, owner: str, step: Step) -> None:
        with self._writing(scene):
            claimable(scene, step, self._head(conn, scene), self._holder(conn, scene), owner)
            if step.first:
                conn.execute("INSERT OR REPLACE INTO unfinished (scene, owner) VALUES (?, ?)", [scene, owner])
            conn.executemany(
                _INSERT,
                [
                    (w.seq, scene, w.type, w.at, w.actor, w.command, w.prev, w.hash, bytes(w.data).decode())
                    for w in step.wires
                ],
            )
            conn.executemany(
                "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES (?, ?, ?, ?, ?, ?)",
                [(scene, c.actor, c.id, c.digest, c.first_seq, c.last_seq) for c in step.commands],
            )
            if step.last:
                conn.execute("DELETE FROM unfinished WHERE scene = ?", [scene])

    def _holder(self, conn: sqlite3.Connection, scene: str) -> str | None:
        """Who is writing the scene's unfinished copy (a fork or an import in steps), if anyone."""
        if not self._gated:
            return None
        row = conn.execute("SELECT owner FROM unfinished WHERE scene = ?", [scene]).fetchone()
        return row[0] if row else None

    def _writing(self, scene: str) -> _Transaction:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        return _Transaction(self.db.conn, scene)

    # -- reading -------------------------------------------------------------------------------

    def _rows(self, scene: str, after: int, upto: int | None) -> Iterator[tuple[Any, ...]]:
        sql = f"SELECT {_COLUMNS} FROM events WHERE scene = ? AND seq > ?{self._whole}"
        params: list[object] = [scene, after, *self._scene(scene)]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        try:
            cursor = self.reads.execute(sql + " ORDER BY seq", params)
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err
        try:
            yield from cursor
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err
        finally:
            with contextlib.suppress(sqlite3.Error):  # a reader left half-way, after the store closed
                cursor.close()

    def read(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        for seq, scene_, type_, at, actor, command, prev, hash_, data in self._rows(scene, after, upto):
            yield Recorded(
                seq=seq,
                scene=scene_,
                at=msgspec.convert(at, datetime),
                actor=actor,
                command=command,
                event=decode_event(type_, data),
                prev=prev,
                hash=hash_,
            )

    def read_wire(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Wire]:
        for seq, scene_, type_, at, actor, command, prev, hash_, data in self._rows(scene, after, upto):
            yield Wire(
                seq=seq,
                scene=scene_,
                type=type_,
                at=at,
                actor=actor,
                command=command,
                prev=prev,
                hash=hash_,
                data=msgspec.Raw(str(data).encode()),
            )

    def rows(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        sql = f"SELECT seq, at, type, data FROM events WHERE scene = ? AND seq > ?{self._whole}"
        params: list[object] = [scene, after, *self._scene(scene)]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        try:
            yield from self.reads.execute(sql + " ORDER BY seq", params)
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err

    @staticmethod
    def _head(conn: sqlite3.Connection, scene: str) -> tuple[int, str]:
        row = conn.execute("SELECT seq, hash FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1", [scene]).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def head(self, scene: str) -> tuple[int, str]:
        row = self.reads.execute(
            f"SELECT seq, hash FROM events WHERE scene = ?{self._whole} ORDER BY seq DESC LIMIT 1",
            [scene, *self._scene(scene)],
        ).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    @property
    def _whole(self) -> str:
        """The condition a read adds (with ``_scene``): not a scene still being copied in. Its own
        parameter, not a correlated subquery: SQLite evaluates it once a statement."""
        return " AND NOT EXISTS (SELECT 1 FROM unfinished WHERE scene = ?)" if self._gated else ""

    def _scene(self, scene: str) -> list[str]:
        return [scene] if self._gated else []

    def acknowledged(self, scene: str) -> int:
        """The last seq any accepted command of the scene reached (a log shorter than this lost
        its end)."""
        row = self.reads.execute(
            f"SELECT max(last_seq) FROM commands WHERE scene = ?{self._whole}", [scene, *self._scene(scene)]
        ).fetchone()
        return int(row[0] or 0)

    @staticmethod
    def _logged(conn: sqlite3.Connection, scene: str, actor: str, command_id: str) -> tuple[CommandRecord | None, bool]:
        """The command as the log holds it (its events, with its index row's digest where the row
        agrees), and whether the index has a row for it at all; in one query."""
        first, last, count, digest, first_seq, last_seq = conn.execute(
            "SELECT e.first, e.last, e.n, c.digest, c.first_seq, c.last_seq FROM (SELECT min(seq) AS first, "
            "max(seq) AS last, count(*) AS n FROM events WHERE scene = ?1 AND actor = ?2 AND command = ?3) AS e "
            "LEFT JOIN commands c ON c.scene = ?1 AND c.actor = ?2 AND c.id = ?3",
            [scene, actor, command_id],
        ).fetchone()
        row = (digest, first_seq, last_seq) if digest is not None else None
        return as_logged(scene, actor, command_id, (first, last, count) if count else None, row), row is not None

    def command(self, scene: str, actor: str, command_id: str) -> CommandRecord | None:
        if self._holder(self.reads, scene) is not None:
            return None
        return self._logged(self.reads, scene, actor, command_id)[0]

    def command_rows(self, scene: str) -> list[CommandRecord]:
        if self._holder(self.reads, scene) is not None:
            return []
        rows = self.reads.execute(
            "SELECT actor, id, digest, first_seq, last_seq FROM commands WHERE scene = ? ORDER BY first_seq", [scene]
        ).fetchall()
        return [CommandRecord(scene, *row) for row in rows]

    def digests(self, scene: str, upto: int) -> dict[tuple[str, str], str]:
        rows = self.reads.execute(
            f"SELECT actor, id, digest FROM commands WHERE scene = ? AND first_seq <= ?{self._whole}",
            [scene, upto, *self._scene(scene)],
        ).fetchall()
        return {(actor, command_id): digest for actor, command_id, digest in rows}

    def scenes(self) -> list[str]:
        unfinished = " AND scene NOT IN (SELECT scene FROM unfinished)" if self._gated else ""
        rows = self.reads.execute(f"SELECT scene FROM events WHERE seq = 1{unfinished} ORDER BY at, rowid").fetchall()
        return [row[0] for row in rows]

    def alarms(self, before: datetime | None = None) -> list[tuple[str, datetime]]:
        if not self._alarmed:
            return []
        sql, params = "SELECT scene, due FROM alarms", []
        if before is not None:
            sql += " WHERE due < ?"
            params.append(to_micros(before))
        try:
            rows = self.reads.execute(sql + " ORDER BY due, scene", params).fetchall()
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err
        return [(scene, from_micros(due)) for scene, due in rows]

    def alarm(self, scene: str) -> datetime | None:
        if not self._alarmed:
            return None
        try:
            row = self.reads.execute("SELECT due FROM alarms WHERE scene = ?", [scene]).fetchone()
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err
        return from_micros(row[0]) if row else None

    def close(self) -> None:
        with self._lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        self.db.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; on any error a rollback (when SQLite has not already
    rolled back by itself, as it does after a failed commit on a full disk), and the disk's errors
    raised as ``StorageUnavailable``."""

    def __init__(self, conn: sqlite3.Connection, scene: str) -> None:
        self.conn, self.scene = conn, scene

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise unavailable(err) from err

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: object) -> None:
        if kind is None:
            try:
                self.conn.execute("COMMIT")
                return
            except sqlite3.Error as failed:
                self._rollback()
                raise unavailable(failed) from failed
        self._rollback()
        if isinstance(err, sqlite3.IntegrityError):
            raise ConcurrencyConflict(f"scene {self.scene!r} changed under this write: {err}") from err
        if isinstance(err, sqlite3.DatabaseError):
            raise unavailable(err) from err

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # the connection is in trouble; SQLite rolls back when it can
                self.conn.execute("ROLLBACK")
