"""The store a command-line verb reads or writes, closed when the verb is done (``justicar``'s
``main`` keeps the verb's ``ExitStack`` as ``args.closing``): a PostgreSQL store's pool is then
closed by the verb, never left for the garbage collector."""

from __future__ import annotations

import argparse

from server.snapshot_keys import read_keys
from server.snapshots import Snapshots
from server.store import EventStore, MemoryStore, open_store


def opened(args: argparse.Namespace, *, readonly: bool = False) -> EventStore:
    store = open_store(args.db, readonly=readonly)
    closing = getattr(args, "closing", None)
    if closing is not None:
        closing.callback(store.close)
    return store


def snapshots_of(store: EventStore, args: argparse.Namespace) -> Snapshots | None:
    """The snapshots of a database a verb writes (none in memory), signed with the key file of
    ``--snapshot-key``, else the default one (``server.snapshot_keys``): read now, so that a bad
    file is said before anything is written."""
    if isinstance(store, MemoryStore):
        return None
    return Snapshots(store, keys=read_keys(getattr(args, "snapshot_key", None)))  # type: ignore[arg-type]


def add_snapshot_key(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--snapshot-key",
        metavar="FILE",
        help="the key file that signs snapshots (default: $JUSTICAR_SNAPSHOT_KEY, else "
        "~/.local/state/justicar/snapshot.key, made on first use; see docs/deploy.md)",
    )
