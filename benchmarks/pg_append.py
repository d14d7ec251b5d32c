"""PostgreSQL append: commands committed through ``PostgresStore``, against plain psycopg doing the
same work on the same schema in the same server, in alternating blocks.

    .venv/bin/python -m benchmarks.pg_append [--db URL] [--runs 5] [--commands 1500] [--groups 120] [--block 100]

Two shapes of commit, each command three events (from a brawl, ``benchmarks.scenes``):
- ``one``: one command a transaction (``PostgresStore.append``);
- ``group``: sixteen commands a transaction (``PostgresStore.append_batch``: the writer's group
  commit when many commands arrive at once).

``PostgresStore`` seals, hashes and encodes the events, takes a connection from its pool (checked
with an empty query), checks the versions and that the commands are not already logged (one
statement for the whole group), then inserts every command's events and rows, sets their alarms
and announces the commit with ``NOTIFY`` in one statement, which is its transaction (a race lost
there has the group written again command by command, each in a savepoint). The baseline
is plain psycopg on one connection to a database made with the same tables and indexes, and per
command what hand-written code would do: the head, the duplicate check, the events
(``executemany``) and the command's row, hashes and JSON precomputed; one ``COMMIT`` per
transaction, no pipeline, no savepoints, no ``NOTIFY``. What is left between the two is the store's own cost.

Each run makes two fresh databases on the server ``--db`` names (a role that may create them;
default the local server as ``postgres``), and alternates ``--block`` commands (a tenth as many
groups) through the store and the same through plain psycopg; so both meet the same moments of the
server and of the machine. Per run: events a second and the p50 and p99 of one commit (ms); the
summary gives the median and range (min-max) over runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg

from benchmarks.common import header, parser, percentile, pg_database, pg_url, spread, table
from benchmarks.scenes import brawl
from domain.events import SceneEvent
from domain.log import GENESIS, format_at
from server.store import Append
from server.store.base import chain
from server.store.postgres import INDEXES, TABLES, PostgresStore

EVENTS = 3
GROUP = 16
SCENE = "brawl"

Command = tuple[str, datetime, list[SceneEvent]]
Rows = list[tuple[object, ...]]


def commands(count: int) -> list[Command]:
    """``count`` commands of three events each, cut from a brawl's events in order."""
    source, _ = brawl(count * EVENTS + 50)
    events = [(r.actor, r.at, r.event) for r in source.read("brawl")][1:]  # the scene as it goes on
    out = []
    for n in range(count):
        chunk = events[n * EVENTS : (n + 1) * EVENTS]
        out.append((chunk[0][0], chunk[0][1], [e for _, _, e in chunk]))
    return out


def sealed(cmds: list[Command]) -> list[Rows]:
    """Each command's rows as the plain side inserts them: sealed ahead, untimed."""
    out: list[Rows] = []
    version, prev = 0, GENESIS
    for n, (actor, at, events) in enumerate(cmds):
        records = chain(SCENE, version, prev, events, command=f"c{n}", actor=actor, at=at)
        out.append(
            [
                (r.seq, SCENE, r.type, format_at(r.at), r.actor, r.command, r.prev, r.hash, data.decode())
                for r, data in records
            ]
        )
        version, prev = records[-1][0].seq, records[-1][0].hash
    return out


@contextmanager
def databases(admin: str) -> Iterator[tuple[str, str]]:
    """Two new databases on the server (the store's, the plain one's), dropped after."""
    with pg_database(admin) as ours, pg_database(admin) as plain:
        yield pg_url(admin, ours), pg_url(admin, plain)


def plain_db(url: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(url)
    for sql in [*TABLES.values(), *INDEXES]:
        conn.execute(sql)
    conn.commit()
    return conn


def plain_command(conn: psycopg.Connection[Any], rows: Rows) -> None:
    scene, actor, command = rows[0][1], rows[0][4], rows[0][5]
    conn.execute("SELECT seq, hash FROM events WHERE scene = %s ORDER BY seq DESC LIMIT 1", [scene]).fetchone()
    conn.execute(
        "SELECT 1 FROM commands WHERE scene = %s AND actor = %s AND id = %s", [scene, actor, command]
    ).fetchone()
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO events (seq, scene, type, at, actor, command, prev, hash, data) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            rows,
        )
    conn.execute(
        "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES (%s, %s, %s, %s, %s, %s)",
        [scene, actor, command, "0" * 64, rows[0][0], rows[-1][0]],
    )


def item(n: int, cmd: Command, version: int) -> Append:
    actor, at, events = cmd
    return Append(
        scene=SCENE, expected_version=version, events=events, command=f"c{n}", digest="0" * 64, actor=actor, at=at
    )


Run = tuple[list[float], list[float], float, float]


def one_run(admin: str, cmds: list[Command], rows: list[Rows], size: int, block: int) -> Run:
    """Per-commit ms of the store and of plain psycopg (commits of ``size`` commands), and each
    side's total seconds."""
    ours: list[float] = []
    plain: list[float] = []
    with databases(admin) as (ours_url, plain_url):
        store = PostgresStore(ours_url)
        conn = plain_db(plain_url)
        try:
            commits = [range(n, n + size) for n in range(0, len(cmds) - size + 1, size)]
            for start in range(0, len(commits), block):
                for span in commits[start : start + block]:
                    batch = [item(n, cmds[n], n * EVENTS) for n in span]
                    began = time.perf_counter()
                    if size == 1:
                        store.append(
                            SCENE,
                            batch[0].expected_version,
                            batch[0].events,
                            command=batch[0].command,
                            digest=batch[0].digest,
                            actor=batch[0].actor,
                            at=batch[0].at,
                        )
                    else:
                        done = store.append_batch(batch)
                        assert all(isinstance(d, list) for d in done)
                    ours.append((time.perf_counter() - began) * 1000)
                for span in commits[start : start + block]:
                    began = time.perf_counter()
                    for n in span:
                        plain_command(conn, rows[n])
                    conn.commit()
                    plain.append((time.perf_counter() - began) * 1000)
            assert store.head(SCENE)[0] == len(commits) * size * EVENTS
        finally:
            store.close()
            conn.close()
    return ours, plain, sum(ours) / 1000, sum(plain) / 1000


def main() -> None:
    p = parser(__doc__.splitlines()[0], runs=5)
    p.add_argument(
        "--db",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a server where the benchmark may create databases (default: the local one, as postgres)",
    )
    p.add_argument("--commands", type=int, default=1500, help="one-command commits per side and run (default 1500)")
    p.add_argument("--groups", type=int, default=120, help=f"{GROUP}-command commits per side and run (default 120)")
    p.add_argument("--block", type=int, default=100, help="commits in a row before switching sides (default 100)")
    args = p.parse_args()
    with psycopg.connect(args.db, autocommit=True) as conn:
        settings = {
            name: conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
            for name in ("server_version", "fsync", "synchronous_commit", "shared_buffers")
        }
    header(
        f"pg_append: {EVENTS}-event commands, one a transaction and {GROUP} a transaction, through PostgresStore"
        f" and plain psycopg, alternating blocks of {args.block} commits ({max(1, args.block // 10)} for groups),"
        f" {args.runs} runs"
    )
    print("# server: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
    cmds = commands(max(args.commands, args.groups * GROUP))
    rows = sealed(cmds)
    shapes = [("one", 1, args.commands, args.block), ("group", GROUP, args.groups * GROUP, max(1, args.block // 10))]
    results: dict[str, list[tuple[Run, int]]] = {name: [] for name, *_ in shapes}
    for run in range(1, args.runs + 1):
        for name, size, count, block in shapes:
            outcome = one_run(args.db, cmds[:count], rows[:count], size, block)
            ours, plain, ours_s, plain_s = outcome
            events = count * EVENTS
            results[name].append((outcome, events))
            print(
                f"run {run} {name:>5}: justicar {events / ours_s:,.0f} events/s, p50 {percentile(ours, 0.5):.2f} ms,"
                f" p99 {percentile(ours, 0.99):.2f} ms | plain {events / plain_s:,.0f} events/s,"
                f" p50 {percentile(plain, 0.5):.2f} ms, p99 {percentile(plain, 0.99):.2f} ms"
                f" | ratio {plain_s / ours_s:.0%}"
            )
            sys.stdout.flush()
    print(f"\n## across {args.runs} runs: median (min-max)")
    lines = []
    for name, size, _, _ in shapes:
        runs = results[name]
        what = "1 command" if size == 1 else f"{size} commands"
        lines += [
            [
                f"`PostgresStore`, {what} ({size * EVENTS} events) a commit",
                spread([events / r[2] for r, events in runs], ",.0f"),
                spread([events / r[2] / EVENTS for r, events in runs], ",.0f"),
                spread([percentile(r[0], 0.5) for r, _ in runs], ".2f"),
                spread([percentile(r[0], 0.99) for r, _ in runs], ".2f"),
            ],
            [
                f"plain psycopg, same schema, {what} a commit",
                spread([events / r[3] for r, events in runs], ",.0f"),
                spread([events / r[3] / EVENTS for r, events in runs], ",.0f"),
                spread([percentile(r[1], 0.5) for r, _ in runs], ".2f"),
                spread([percentile(r[1], 0.99) for r, _ in runs], ".2f"),
            ],
            [
                "ratio (justicar / plain events/s)",
                spread([r[3] / r[2] * 100 for r, _ in runs], ".0f") + "%",
                "",
                "",
                "",
            ],
        ]
    table(["", "events/s", "commands/s", "commit p50 ms", "commit p99 ms"], lines)


if __name__ == "__main__":
    main()
