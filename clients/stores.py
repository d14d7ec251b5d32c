"""The store a command-line verb reads or writes, closed when the verb is done (``justicar``'s
``main`` keeps the verb's ``ExitStack`` as ``args.closing``): a PostgreSQL store's pool is then
closed by the verb, never left for the garbage collector."""

from __future__ import annotations

import argparse

from server.store import EventStore, open_store


def opened(args: argparse.Namespace, *, readonly: bool = False) -> EventStore:
    store = open_store(args.db, readonly=readonly)
    closing = getattr(args, "closing", None)
    if closing is not None:
        closing.callback(store.close)
    return store
