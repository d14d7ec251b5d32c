"""Append throughput: events committed one command at a time through the SQLite store, against
plain sqlite3 doing the same transactions on the same schema with the same synchronous setting.

    .venv/bin/python -m benchmarks.append [--commands 2000] [--dir DIR]

Each command appends the events a typical command produces (one to four, as in a real brawl),
plus its command-id row, in one committed transaction. The baseline writes the same rows with
precomputed JSON and hashes: what is left is SQLite's own cost, so the ratio shows the store's
overhead (sealing, hashing, encoding, sqlite-utils).
"""

from __future__ import annotations

import sqlite3
import time

from benchmarks.common import cleanup, header, parser, row, workdir
from benchmarks.scenes import brawl
from domain.log import Recorded, event_data
from server.store import SqliteStore


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--commands", type=int, default=2000)
    args = p.parse_args()
    header("append: one command per committed transaction (WAL, synchronous=FULL)")
    source, _ = brawl(args.commands * 3)
    records = list(source.read("brawl"))
    batches: dict[str, list[Recorded]] = {}
    for record in records:
        batches.setdefault(record.command, []).append(record)
    commands = list(batches.values())[: args.commands]
    total = sum(len(batch) for batch in commands)
    where = workdir(args)
    try:
        # Justicar's store
        store = SqliteStore(where / "justicar.db")
        started = time.perf_counter()
        version = 0
        for batch in commands:
            first = batch[0]
            store.append(
                "brawl",
                version,
                [r.event for r in batch],
                command=first.command,
                digest="0" * 64,
                actor=first.actor,
                at=first.at,
            )
            version += len(batch)
        ours = row("justicar SqliteStore.append", total, time.perf_counter() - started)
        store.close()

        # plain sqlite3: same schema, same pragmas, same transactions, rows ready-made
        rows = [
            [
                (
                    r.scene,
                    r.seq,
                    r.type,
                    r.at.isoformat(),
                    r.actor,
                    r.command,
                    r.prev,
                    r.hash,
                    event_data(r.event).decode(),
                )
                for r in batch
            ]
            for batch in commands
        ]
        conn = sqlite3.connect(where / "plain.db", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute(
            "CREATE TABLE events (scene TEXT, seq INTEGER, type TEXT NOT NULL, at TEXT NOT NULL, "
            "actor TEXT NOT NULL, command TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, "
            "data TEXT NOT NULL, PRIMARY KEY (scene, seq))"
        )
        conn.execute(
            "CREATE TABLE commands (scene TEXT, id TEXT, digest TEXT NOT NULL, first_seq INTEGER NOT NULL,"
            " last_seq INTEGER NOT NULL, PRIMARY KEY (scene, id))"
        )
        started = time.perf_counter()
        for prepared in rows:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("SELECT seq, hash FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1", ["brawl"]).fetchone()
            conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", prepared)
            conn.execute(
                "INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                (prepared[0][0], prepared[0][5], "0" * 64, prepared[0][1], prepared[-1][1]),
            )
            conn.execute("COMMIT")
        plain = row("plain sqlite3, same schema and transactions", total, time.perf_counter() - started)
        conn.close()
        print(f"{'ratio (justicar / plain)':<58} {ours / plain:>8.0%}   (goal: at least 70%)")
        print(f"# {len(commands)} commands, {total} events, {total / len(commands):.2f} events per command")
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
