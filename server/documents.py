"""The Storyteller's downloads (the audit, the export), made where they cannot stall anything.

An audit of a long scene is a second of Python and megabytes of text. On a worker thread it
still competes with the event loop for the interpreter, and it would hold the worker that every
connection's reading shares (``server.worker.Worker``) for as long: so it is made in a process of
its own (``anyio.to_process``) that opens the store read-only (a SQLite file, or the same
PostgreSQL database). The process hands back the whole ``document`` message already encoded:
bytes cross the pipe and unpickle as one copy (a string would be decoded on the server's loop: 20
ms for a long audit), and the server sends them in fragments (``Connection.send_parts``). A scene
kept in memory has nothing another process can open: its documents are made on a thread of their
own (``_DOCUMENTS``), one at a time, never on the shared worker. The process runs at a lower
priority than the server, so on a machine with few cores the server's loop still gets its turn
first.

Asked of a game night's own stream, the audit is the night's (its scenes in time order, each
character's ledger, every stream's chain check) and the export carries the night and its scenes.
"""

from __future__ import annotations

import anyio

from projections.audit import audit
from projections.audit_render import MEDIA_TYPES, Format, render
from server.nights import audit_of_night, export_all, is_night
from server.store import EventStore, SqliteStore
from server.wire import Document, encode
from server.writer import Lane, lower_priority


def audit_text(store: EventStore, scene: str, fmt: Format) -> str:
    """A scene's audit, or a game night's (``scene`` naming the night)."""
    if is_night(store, scene):
        return render(audit_of_night(store, scene), fmt)
    return render(audit(list(store.read_wire(scene))), fmt)


def audit_frame(store: EventStore, scene: str, fmt: Format) -> bytes:
    """The ``document`` message holding the scene's audit."""
    text = audit_text(store, scene, fmt)
    return encode(Document(name=f"{scene}-audit.{fmt}", media_type=MEDIA_TYPES[fmt], text=text))


def export_frame(store: EventStore, scene: str) -> bytes:
    """The ``document`` message holding the scene's export (a game night's: with its scenes)."""
    return encode(Document(name=f"{scene}.jsonl", media_type="application/jsonl", text=export_all(store, scene)))


_DOCUMENTS = Lane("justicar documents")
"""The thread that makes the documents of a store in memory, one at a time."""


def _reopened(where: tuple[str, str]) -> EventStore:
    """In the document's process: the store ``_elsewhere`` named, read-only."""
    kind, address = where
    if kind == "sqlite":
        return SqliteStore(address, readonly=True)
    from server.store.postgres import PostgresStore  # psycopg only where it is used

    return PostgresStore(address, readonly=True, notify=False)


def _elsewhere(store: EventStore) -> tuple[str, str] | None:
    """How another process opens ``store`` (None: it cannot, a store in memory)."""
    if isinstance(store, SqliteStore):
        return "sqlite", store.path
    url = getattr(store, "url", None)
    if type(store).__name__ == "PostgresStore" and isinstance(url, str):
        return "postgresql", url
    return None


def _audit_of(where: tuple[str, str], scene: str, fmt: Format) -> bytes:
    lower_priority()
    store = _reopened(where)
    try:
        return audit_frame(store, scene, fmt)
    finally:
        store.close()


def _export_of(where: tuple[str, str], scene: str) -> bytes:
    lower_priority()
    store = _reopened(where)
    try:
        return export_frame(store, scene)
    finally:
        store.close()


async def audit_document(store: EventStore, scene: str, fmt: Format) -> bytes:
    """The audit's ``document`` message, encoded."""
    where = _elsewhere(store)
    if where is not None:
        return await anyio.to_process.run_sync(_audit_of, where, scene, fmt)
    return await _DOCUMENTS.run(audit_frame, store, scene, fmt)


async def export_document(store: EventStore, scene: str) -> bytes:
    """The export's ``document`` message, encoded."""
    where = _elsewhere(store)
    if where is not None:
        return await anyio.to_process.run_sync(_export_of, where, scene)
    return await _DOCUMENTS.run(export_frame, store, scene)
