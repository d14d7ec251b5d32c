"""Append: events committed one command at a time through the SQLite store, against plain sqlite3
doing the same transactions on the same schema with the same settings, in alternating blocks.

    .venv/bin/python -m benchmarks.append [--runs 3] [--commands 3000] [--block 250] [--dir DIR]

The commands are those of a brawl (``benchmarks.scenes``; one to four events each, 1.8 on
average). ``SqliteStore.append`` seals, hashes and encodes them, checks the version and that the
command is not already logged, inserts the events and the command's row and commits (``BEGIN
IMMEDIATE`` … ``COMMIT``, WAL, ``synchronous=FULL``). The baseline is plain ``sqlite3`` on a file
made with the very schema the store created (copied from its ``sqlite_master``), the same pragmas,
and per command the same statements: the head, the two duplicate checks, the inserts (JSON and
hashes precomputed), the commit. What is left between the two is the store's own cost.

Each run starts both files afresh and alternates: ``--block`` commands through the store, the same
block through plain sqlite3, the next block through the store, and so on, ``--commands`` each; so
both meet the same moments of the disk and of the machine. Per run: events a second, and the p50
and p99 of one command's commit (ms); the summary gives the median and range (min-max) over runs.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from benchmarks.common import cleanup, header, parser, percentile, spread, table, workdir
from benchmarks.scenes import brawl
from domain.log import Recorded, event_data, format_at
from server.store import SqliteStore

GOAL = 0.70

Prepared = list[tuple[object, ...]]


def prepared(batch: list[Recorded]) -> Prepared:
    return [
        (r.seq, r.scene, r.type, format_at(r.at), r.actor, r.command, r.prev, r.hash, event_data(r.event).decode())
        for r in batch
    ]


def plain_db(path: Path, schema_from: Path) -> sqlite3.Connection:
    """A file with the store's own schema, opened as the store opens its own."""
    source = sqlite3.connect(schema_from)
    ddl = [sql for (sql,) in source.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")]
    source.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    for sql in ddl:
        conn.execute(sql)
    return conn


def plain_append(conn: sqlite3.Connection, rows: Prepared) -> None:
    scene, actor, command = rows[0][1], rows[0][4], rows[0][5]
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("SELECT seq, hash FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1", [scene]).fetchone()
    conn.execute(
        "SELECT digest, first_seq, last_seq FROM commands WHERE scene = ? AND actor = ? AND id = ?",
        [scene, actor, command],
    ).fetchone()
    conn.execute(
        "SELECT '', min(seq), max(seq) FROM events WHERE scene = ? AND actor = ? AND command = ? HAVING count(*) > 0",
        [scene, actor, command],
    ).fetchone()
    conn.executemany(
        "INSERT INTO events (seq, scene, type, at, actor, command, prev, hash, data)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute(
        "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES (?, ?, ?, ?, ?, ?)",
        (scene, actor, command, "0" * 64, rows[0][0], rows[-1][0]),
    )
    conn.execute("COMMIT")


def one_run(where: Path, commands: list[list[Recorded]], block: int) -> tuple[list[float], list[float], float, float]:
    """Per-commit ms of the store and of plain sqlite3, and each one's total seconds."""
    store = SqliteStore(where / "justicar.db")
    conn = plain_db(where / "plain.db", where / "justicar.db")
    rows = [prepared(batch) for batch in commands]
    ours: list[float] = []
    plain: list[float] = []
    version = 0
    for start in range(0, len(commands), block):
        for batch in commands[start : start + block]:
            first = batch[0]
            began = time.perf_counter()
            store.append(
                first.scene,
                version,
                [r.event for r in batch],
                command=first.command,
                digest="0" * 64,
                actor=first.actor,
                at=first.at,
            )
            ours.append((time.perf_counter() - began) * 1000)
            version += len(batch)
        for ready in rows[start : start + block]:
            began = time.perf_counter()
            plain_append(conn, ready)
            plain.append((time.perf_counter() - began) * 1000)
    store.close()
    conn.close()
    return ours, plain, sum(ours) / 1000, sum(plain) / 1000


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--commands", type=int, default=3000, help="commands per side and run (default 3000)")
    p.add_argument("--block", type=int, default=250, help="commands in a row before switching sides (default 250)")
    args = p.parse_args()
    header(
        f"append: one command per committed transaction (WAL, synchronous=FULL), {args.commands} commands a side,"
        f" alternating blocks of {args.block}, {args.runs} runs"
    )
    source, _ = brawl(args.commands * 3)
    batches: dict[str, list[Recorded]] = {}
    for record in source.read("brawl"):
        batches.setdefault(record.command, []).append(record)
    commands = list(batches.values())[: args.commands]
    events = sum(len(batch) for batch in commands)
    print(f"# {len(commands)} commands, {events} events, {events / len(commands):.2f} events per command")
    where = workdir(args)
    results = []
    try:
        for run in range(1, args.runs + 1):
            here = where / f"run{run}"
            here.mkdir()
            ours, plain, ours_s, plain_s = one_run(here, commands, args.block)
            results.append((ours, plain, events / ours_s, events / plain_s))
            print(
                f"run {run}: justicar {events / ours_s:,.0f} events/s, p50 {percentile(ours, 0.5):.3f} ms,"
                f" p99 {percentile(ours, 0.99):.3f} ms | plain {events / plain_s:,.0f} events/s,"
                f" p50 {percentile(plain, 0.5):.3f} ms, p99 {percentile(plain, 0.99):.3f} ms"
                f" | ratio {plain_s / ours_s:.0%}"
            )
            sys.stdout.flush()
    finally:
        cleanup(where)
    print(f"\n## across {args.runs} runs: median (min-max)")
    table(
        ["", "events/s", "commands/s", "commit p50 ms", "commit p99 ms"],
        [
            [
                "`SqliteStore.append` (seal, hash, encode, checks, inserts, commit)",
                spread([r[2] for r in results], ",.0f"),
                spread([r[2] * len(commands) / events for r in results], ",.0f"),
                spread([percentile(r[0], 0.5) for r in results], ".3f"),
                spread([percentile(r[0], 0.99) for r in results], ".3f"),
            ],
            [
                "plain sqlite3, same schema, statements and transactions",
                spread([r[3] for r in results], ",.0f"),
                spread([r[3] * len(commands) / events for r in results], ",.0f"),
                spread([percentile(r[1], 0.5) for r in results], ".3f"),
                spread([percentile(r[1], 0.99) for r in results], ".3f"),
            ],
            [
                "ratio (justicar / plain events/s)",
                spread([r[2] / r[3] * 100 for r in results], ".0f") + "%",
                "",
                "",
                "",
            ],
        ],
    )
    print(f"# goal: at least {GOAL:.0%} of the plain rate")


if __name__ == "__main__":
    main()
