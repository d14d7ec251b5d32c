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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

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

    @property
    def shared(self) -> bool:
        """Whether other processes may serve the database too: PostgreSQL's always, an SQLite file
        this process does not hold the writer lock of (``serve --shared``)."""
        return self.kind == "postgresql" or (self.kind == "sqlite" and self.lock is None)

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
    """The writer lock of a database file, held for the server's life (and the note of who holds it)."""

    def __init__(self, handles: list[IO[Any]]) -> None:
        self.handles = handles

    def close(self) -> None:
        for handle in self.handles:
            handle.close()


def _note(db: str) -> str:
    """The file beside the database that says which process holds its writer lock."""
    return f"{os.path.realpath(db)}.lock"


def hold(db: str) -> Held:
    """Take the writer lock of ``db``, or raise ``DatabaseBusy`` naming the process that holds it.
    The lock is on the database file itself (``flock``, which SQLite's own byte-range locks never
    touch), so a hard link or a symlink to the file shares it, and no cleaner of a temporary folder
    can take it away; the note beside it only says who holds it. The lock ends with the process,
    however it ends."""
    real = os.path.realpath(db)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        open(real, "a").close()  # an empty file is a new database to SQLite
        handle = open(real, "rb")  # noqa: SIM115 - held for the server's life
    except OSError as err:
        raise StoreError(f"cannot open {db}: {err.strerror}") from err
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise DatabaseBusy(
            f"{db} is already served by {_holder(db)}; stop that server first, or serve another file"
        ) from None
    # the note is a courtesy: a folder that refuses it costs nothing
    with contextlib.suppress(OSError), open(_note(db), "w", encoding="utf-8") as note:
        note.write(f"process {os.getpid()} on {socket.gethostname()} (since {started})\n")
    return Held([handle])


def _holder(db: str) -> str:
    """Who holds the writer lock of ``db``: its note, if the note beside this name is the holder's
    (a hard link has a name, and so a note, of its own), else the process the system says holds it."""
    pid = _locker(db)
    try:
        with open(_note(db), encoding="utf-8") as handle:
            note = handle.read().strip()
    except OSError:
        note = ""
    if note and (pid is None or note.startswith(f"process {pid} ")):
        return note
    return f"process {pid}" if pid is not None else "another process"


def _locker(db: str) -> int | None:
    """The process holding a ``flock`` on the file ``db`` names, from ``/proc/locks`` (Linux)."""
    try:
        found = os.stat(db)
        with open("/proc/locks", encoding="ascii") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return None
    inode = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == inode and fields[4].isdigit():
            return int(fields[4])
    return None


def busy(db: str) -> str | None:
    """Who holds the writer lock of ``db`` now, if anyone (for commands that must not write under a
    running server)."""
    try:
        handle = open(os.path.realpath(db), "rb")  # noqa: SIM115
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(db)
    return None
