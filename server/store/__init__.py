"""Event stores: one interface (``EventStore``), an embedded SQLite default and an in-memory one."""

from server.store.base import CommandRecord, ConcurrencyConflict, EventStore, StoreError
from server.store.memory import MemoryStore
from server.store.sqlite import SqliteStore


def open_store(db: str | None) -> EventStore:
    """The SQLite store at ``db``, or a fresh in-memory store when ``db`` is None."""
    return SqliteStore(db) if db else MemoryStore()


__all__ = [
    "CommandRecord",
    "ConcurrencyConflict",
    "EventStore",
    "MemoryStore",
    "SqliteStore",
    "StoreError",
    "open_store",
]
