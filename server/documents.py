"""The Storyteller's downloads (the audit, the export), made where they cannot stall anything.

An audit of a long scene is a second of Python and megabytes of text. On a worker thread it
still competes with the event loop for the interpreter, so with a SQLite file it is made in a
process of its own (``anyio.to_process``) that opens the file read-only; the text comes back and
is sent in fragments (``Connection.send_document``). A scene kept in memory has no file to open:
its documents are made on the worker thread. The process runs at a lower priority than the
server, so on a machine with few cores the server's loop still gets its turn first.
"""

from __future__ import annotations

import contextlib
import os

import anyio

from projections.audit import audit
from projections.audit_render import Format, render
from server.history import export_text
from server.store import EventStore, SqliteStore
from server.writer import Worker


def audit_text(store: EventStore, scene: str, fmt: Format) -> str:
    return render(audit(list(store.read_wire(scene))), fmt)


def _yielding() -> None:
    """The document's process gives way to the server's on a busy machine (once per process)."""
    global _NICE
    if not _NICE:
        _NICE = True
        with contextlib.suppress(OSError):
            os.nice(10)


_NICE = False


def _audit_of_file(path: str, scene: str, fmt: Format) -> str:
    _yielding()
    store = SqliteStore(path, readonly=True)
    try:
        return audit_text(store, scene, fmt)
    finally:
        store.close()


def _export_of_file(path: str, scene: str) -> str:
    _yielding()
    store = SqliteStore(path, readonly=True)
    try:
        return export_text(store, scene)
    finally:
        store.close()


async def audit_document(worker: Worker, store: EventStore, scene: str, fmt: Format) -> str:
    if isinstance(store, SqliteStore):
        return await anyio.to_process.run_sync(_audit_of_file, store.path, scene, fmt)
    return await worker.run(audit_text, store, scene, fmt)


async def export_document(worker: Worker, store: EventStore, scene: str) -> str:
    if isinstance(store, SqliteStore):
        return await anyio.to_process.run_sync(_export_of_file, store.path, scene)
    return await worker.run(export_text, store, scene)
