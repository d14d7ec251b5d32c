"""Event stores: one interface (``EventStore``), an embedded SQLite default and an in-memory one."""

from server.store.base import (
    Append,
    Checked,
    CommandRecord,
    ConcurrencyConflict,
    EventStore,
    SceneCorrupt,
    StorageUnavailable,
    StoreError,
    chain,
    verified,
)
from server.store.memory import MemoryStore
from server.store.sqlite import SqliteStore


def open_store(db: str | None, *, readonly: bool = False) -> EventStore:
    """The SQLite store at ``db`` (read-only: it writes nothing, not even WAL files), or a fresh
    in-memory store when ``db`` is None."""
    return SqliteStore(db, readonly=readonly) if db else MemoryStore()


__all__ = [
    "Append",
    "Checked",
    "CommandRecord",
    "ConcurrencyConflict",
    "EventStore",
    "MemoryStore",
    "SceneCorrupt",
    "SqliteStore",
    "StorageUnavailable",
    "StoreError",
    "chain",
    "open_store",
    "verified",
]
