"""Everything a server keeps, opened together: the event store, the tokens, the snapshots.

With a database path, all three live in that one SQLite file; with a PostgreSQL URL
(``postgresql://…``, ``server.store.postgres``), in that database, shared by every process that
serves it; without either, in memory (gone at exit, and with no snapshots: a scene in memory is
never reloaded). A server holds its SQLite file's writer lock (``lock=True``): a second server on
the same file refuses to start, naming the process that serves it (many processes serve one
database through PostgreSQL, not SQLite).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

from server.snapshot_keys import Keys
from server.snapshots import Snapshots
from server.store import EventStore, MemoryStore, SqliteStore, StoreError, is_postgres
from server.tokens import MemoryTokens, PostgresTokens, SqliteTokens, Tokens


class DatabaseBusy(StoreError):
    """Another process serves this database."""


@dataclass
class Backend:
    store: EventStore
    tokens: Tokens
    snapshots: Snapshots | None
    lock: Held | None = field(default=None, repr=False)
    kind: str = "memory"
    """``memory``, ``sqlite`` or ``postgresql``."""
    where: str = ""
    """The file, or the database's URL without its password: what ``serve`` logs."""

    def close(self) -> None:
        self.store.close()
        self.tokens.close()
        if self.lock is not None:
            self.lock.close()  # releases the writer lock


def open_backend(
    db: str | None, *, snapshot_every: int = 1000, lock: bool = False, snapshot_key: Keys | None = None
) -> Backend:
    """``snapshot_key``: the keys that sign snapshots (default: the key file ``read_keys`` finds,
    read when a snapshot is first saved or loaded)."""
    if not db:
        return Backend(MemoryStore(), MemoryTokens(), None)
    if is_postgres(db):
        from server.store.postgres import PostgresStore, describe

        pg = PostgresStore(db)  # many processes may serve it: no writer lock
        try:
            snapshots = Snapshots(pg, every=snapshot_every, keys=snapshot_key)
            return Backend(pg, PostgresTokens(pg), snapshots, kind="postgresql", where=describe(db))
        except BaseException:
            pg.close()
            raise
    held = hold(db) if lock else None
    try:
        store = SqliteStore(db)
        return Backend(
            store,
            SqliteTokens(db),
            Snapshots(store, every=snapshot_every, keys=snapshot_key),
            held,
            kind="sqlite",
            where=db,
        )
    except BaseException:
        if held is not None:
            held.close()
        raise


class Held:
    """The writer locks of a database file, held for the server's life."""

    def __init__(self, handles: list[IO[str]]) -> None:
        self.handles = handles

    def close(self) -> None:
        for handle in self.handles:
            handle.close()


def lock_paths(db: str) -> list[str]:
    """Where the writer lock of ``db`` lives: a ``.lock`` file beside the file itself (a symlink
    resolved), which says who holds it; and, once the file exists (``hold`` makes it), one named for
    its inode in the system's temporary folder, which a hard link to the same file shares."""
    real = os.path.realpath(db)
    paths = [f"{real}.lock"]
    with contextlib.suppress(OSError):
        found = os.stat(real)
        paths.append(os.path.join(tempfile.gettempdir(), f"justicar-{found.st_dev}-{found.st_ino}.lock"))
    return paths


def hold(db: str) -> Held:
    """Take the writer lock of ``db``, or raise ``DatabaseBusy`` naming the process that holds it.
    The lock ends with the process, however it ends."""
    handles: list[IO[str]] = []
    started = datetime.now(UTC).isoformat(timespec="seconds")
    with contextlib.suppress(OSError):  # an empty file is a new database to SQLite; it has an inode now
        open(os.path.realpath(db), "a").close()
    for path in lock_paths(db):
        try:
            handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the server's life
        except OSError as err:
            Held(handles).close()
            raise StoreError(f"cannot open {path}: {err.strerror}") from err
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            Held(handles).close()
            raise DatabaseBusy(
                f"{db} is already served by {holder}; stop that server first, or serve another file"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()} on {socket.gethostname()} (since {started})\n")
        handle.flush()
        handles.append(handle)
    return Held(handles)


def busy(db: str) -> str | None:
    """Who holds the writer lock of ``db`` now, if anyone (for commands that must not write under a
    running server)."""
    for path in lock_paths(db):
        try:
            handle = open(path, encoding="utf-8")  # noqa: SIM115
        except OSError:
            continue
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return handle.read().strip() or "another process"
    return None
