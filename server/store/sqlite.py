"""The embedded default: one SQLite file (WAL, ``synchronous=FULL``) through sqlite-utils.

``events`` holds every record with ``UNIQUE(scene, seq)`` (its primary key); ``commands`` holds
each accepted command id per scene with the digest of its body and the events it appended. An
append is one ``BEGIN IMMEDIATE`` transaction: check the version, insert the events and the
command, commit. When ``append`` returns, the events are on disk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import sqlite_utils

from domain.events import SceneEvent
from domain.log import GENESIS, Recorded, Wire, decode_event, format_at
from server.store.base import CommandRecord, ConcurrencyConflict, StoreError, chain, command_spans

SCHEMA_VERSION = 1

_COLUMNS = "seq, scene, type, at, actor, command, prev, hash, data"


class SqliteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            self.db = sqlite_utils.Database(conn)
            self.db.enable_wal()
            self.db.execute("PRAGMA synchronous=FULL")
            self._create()
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path} is not a Justicar database: {err}") from err

    def _create(self) -> None:
        events = self.db.table("events")
        if not events.exists():
            events.create(
                {
                    "scene": str,
                    "seq": int,
                    "type": str,
                    "at": str,
                    "actor": str,
                    "command": str,
                    "prev": str,
                    "hash": str,
                    "data": str,
                },
                pk=("scene", "seq"),
                not_null={"type", "at", "actor", "command", "prev", "hash", "data"},
            )
        commands = self.db.table("commands")
        if not commands.exists():
            commands.create(
                {"scene": str, "id": str, "digest": str, "first_seq": int, "last_seq": int},
                pk=("scene", "id"),
                not_null={"digest", "first_seq", "last_seq"},
            )
        self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- writing -------------------------------------------------------------------------------

    def append(
        self,
        scene: str,
        expected_version: int,
        events: Sequence[SceneEvent],
        *,
        command: str,
        digest: str,
        actor: str,
        at: datetime,
    ) -> list[Recorded]:
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            version, prev = self.head(scene)
            if version != expected_version:
                raise ConcurrencyConflict(f"scene {scene!r} is at version {version}, not {expected_version}")
            sealed = chain(scene, version, prev, events, command=command, actor=actor, at=at)
            # The hot path uses the connection directly: sqlite-utils' insert_all costs a savepoint
            # and a query build per call, 40% of an append (docs/performance.md).
            conn.executemany(
                f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.seq, scene, r.type, format_at(r.at), r.actor, r.command, r.prev, r.hash, data.decode())
                    for r, data in sealed
                ],
            )
            if sealed:
                conn.execute(
                    "INSERT INTO commands (scene, id, digest, first_seq, last_seq) VALUES (?, ?, ?, ?, ?)",
                    (scene, command, digest, sealed[0][0].seq, sealed[-1][0].seq),
                )
            conn.execute("COMMIT")
        except sqlite3.IntegrityError as err:
            conn.execute("ROLLBACK")
            raise ConcurrencyConflict(f"scene {scene!r} changed under this append: {err}") from err
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return [record for record, _ in sealed]

    def import_wires(self, scene: str, wires: Sequence[Wire]) -> None:
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self.head(scene)[0]:
                raise StoreError(f"scene {scene!r} already has events; import into a new scene")
            conn.executemany(
                f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (w.seq, scene, w.type, w.at, w.actor, w.command, w.prev, w.hash, bytes(w.data).decode())
                    for w in wires
                ],
            )
            conn.executemany(
                "INSERT INTO commands (scene, id, digest, first_seq, last_seq) VALUES (?, ?, '', ?, ?)",
                [(scene, command, first, last) for command, first, last in command_spans(wires)],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # -- reading -------------------------------------------------------------------------------

    def _rows(self, scene: str, after: int, upto: int | None) -> Iterator[tuple[Any, ...]]:
        sql = f"SELECT {_COLUMNS} FROM events WHERE scene = ? AND seq > ?"
        params: list[object] = [scene, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        yield from self.db.execute(sql + " ORDER BY seq", params)

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

    def head(self, scene: str) -> tuple[int, str]:
        row = self.db.execute(
            "SELECT seq, hash FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1", [scene]
        ).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def command(self, scene: str, command_id: str) -> CommandRecord | None:
        row = self.db.execute(
            "SELECT scene, id, digest, first_seq, last_seq FROM commands WHERE scene = ? AND id = ?",
            [scene, command_id],
        ).fetchone()
        return CommandRecord(*row) if row else None

    def scenes(self) -> list[str]:
        rows = self.db.execute("SELECT scene FROM events WHERE seq = 1 ORDER BY at, rowid").fetchall()
        return [row[0] for row in rows]

    def close(self) -> None:
        self.db.close()
