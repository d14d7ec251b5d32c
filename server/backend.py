"""Everything a server keeps, opened together: the event store, the tokens, the snapshots.

With a database path, all three live in that one SQLite file; without one, in memory (gone at
exit, and with no snapshots: a scene in memory is never reloaded).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.snapshots import Snapshots
from server.store import EventStore, MemoryStore, SqliteStore
from server.tokens import MemoryTokens, SqliteTokens, Tokens


@dataclass(frozen=True)
class Backend:
    store: EventStore
    tokens: Tokens
    snapshots: Snapshots | None

    def close(self) -> None:
        self.store.close()


def open_backend(db: str | None, *, snapshot_every: int = 1000) -> Backend:
    if not db:
        return Backend(MemoryStore(), MemoryTokens(), None)
    store = SqliteStore(db)
    conn = store.db.conn
    return Backend(store, SqliteTokens(conn), Snapshots(conn, every=snapshot_every))
