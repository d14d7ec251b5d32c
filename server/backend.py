"""Everything a server keeps, opened together: the event store, the tokens, the snapshots.

With a database path, all three live in that one SQLite file; without one, in memory (gone at
exit, and with no snapshots: a scene in memory is never reloaded). A server holds its file's
writer lock (``lock=True``): a second server on the same file refuses to start, naming the process
that serves it (many processes serve one database through PostgreSQL, not SQLite).
"""

from __future__ import annotations

import fcntl
import os
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

from server.snapshots import Snapshots
from server.store import EventStore, MemoryStore, SqliteStore, StoreError
from server.tokens import MemoryTokens, SqliteTokens, Tokens


class DatabaseBusy(StoreError):
    """Another process serves this database."""


@dataclass
class Backend:
    store: EventStore
    tokens: Tokens
    snapshots: Snapshots | None
    lock: IO[str] | None = field(default=None, repr=False)

    def close(self) -> None:
        self.store.close()
        self.tokens.close()
        if self.lock is not None:
            self.lock.close()  # releases the writer lock


def open_backend(db: str | None, *, snapshot_every: int = 1000, lock: bool = False) -> Backend:
    if not db:
        return Backend(MemoryStore(), MemoryTokens(), None)
    held = hold(db) if lock else None
    try:
        store = SqliteStore(db)
        return Backend(store, SqliteTokens(db), Snapshots(store, every=snapshot_every), held)
    except BaseException:
        if held is not None:
            held.close()
        raise


def hold(db: str) -> IO[str]:
    """Take the writer lock of ``db`` (a ``.lock`` file beside it), or raise ``DatabaseBusy``
    naming the process that holds it. The lock ends with the process, however it ends."""
    path = f"{db}.lock"
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the server's life
    except OSError as err:
        raise StoreError(f"cannot open {path}: {err.strerror}") from err
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise DatabaseBusy(
            f"{db} is already served by {holder}; stop that server first, or serve another file"
        ) from None
    handle.seek(0)
    handle.truncate()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    handle.write(f"process {os.getpid()} on {socket.gethostname()} (since {started})\n")
    handle.flush()
    return handle


def busy(db: str) -> str | None:
    """Who holds the writer lock of ``db`` now, if anyone (for commands that must not write under a
    running server)."""
    try:
        handle = open(f"{db}.lock", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "another process"
        return None
