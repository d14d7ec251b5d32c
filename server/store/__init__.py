"""Event stores: one interface (``EventStore``), an embedded SQLite default, PostgreSQL for many
processes, and an in-memory one."""

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
    is_postgres,
    verified,
)
from server.store.memory import MemoryStore
from server.store.sqlite import SqliteStore


def open_store(db: str | None, *, readonly: bool = False) -> EventStore:
    """The store ``db`` names: a PostgreSQL database by its URL (``postgresql://…``), else the
    SQLite file at that path (read-only: it writes nothing, not even WAL files); a fresh in-memory
    store when ``db`` is None."""
    if not db:
        return MemoryStore()
    if is_postgres(db):
        from server.store.postgres import PostgresStore  # psycopg only when asked for: most runs never are

        return PostgresStore(db, readonly=readonly)
    return SqliteStore(db, readonly=readonly)


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
    "is_postgres",
    "open_store",
    "verified",
]
