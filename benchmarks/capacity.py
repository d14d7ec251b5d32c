"""Capacity: many scenes at once, each with its table, on one SQLite process, one PostgreSQL process
or two PostgreSQL processes that each hold whole tables.

    .venv/bin/python -m benchmarks.capacity [--runs 3] [--scenes 100,1000] [--setups sqlite,pg1,pg2]
        [--pace back-to-back,table] [--seconds 5] [--postgres URL] [--keep]

Each of ``--scenes`` demo scenes (61 events, every character in an open challenge: built once
through the real command path, ``benchmarks.scenes.build``) has a table: its Storyteller, 2 players
and 2 spectators subscribed with words on (``summaries``), and the Storyteller's own connection
sending ``adjust`` commands, one in flight per scene, either

back-to-back
    each the moment the last one's result came back (saturation: commands a second; the p99 from
    sending to the result is then queueing), or
table
    at a table's pace: about one a second per scene (each scene starts at a random moment of the
    first second, then keeps to its own one-second beat), so the p99 from sending a command to its
    result and to the LAST of the scene's 5 subscribers' ``commit`` frame is what a player waits.

Setups (``--setups``):

sqlite
    one ``justicar serve`` process on a copy of the SQLite file.
pg1
    one process on a fresh PostgreSQL database (``CREATE DATABASE … TEMPLATE``, on the server named
    by ``--postgres``, ``JUSTICAR_TEST_POSTGRES`` or 127.0.0.1:5432, dropped afterwards).
pg2
    two processes on one fresh database; every connection of a scene's table goes to the process a
    hash of the scene picks (CRC-32 mod 2), as a proxy hashing ``$arg_scene`` would.
pg2-spread
    (not run unless asked) two processes, each table's connections dealt to them in turn: the
    pushes that cross processes when the proxy cannot tell which scene a socket is for.

Figures, over ``--seconds`` after a second of warm-up: commands a second; the server processes' CPU
per command and cores used; the database's cores (the CPU, from /proc, of the PostgreSQL backends
connected to the run's database and of the server's shared processes: WAL writer, checkpointer…;
other databases' backends are left out); this client process's cores; the p99s; cross-process
pushes (commit frames a subscriber received from another process than the one the command was sent
to); and memory, from the server processes' RSS before any scene is loaded, once each scene is
loaded with one subscriber (per scene: what that added, less a connection), and once the other 5
connections of each table are in (per connection). Setups alternate within each run (the first of
one run is last in the next); every figure is the median and the range (min-max) over ``--runs``.
The machine's cores are shared by everything measured, the clients included.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import cleanup, copy_db, header, parser, percentile, pg_url, spread, table, workdir
from benchmarks.live import Served, adjust, free_port, hello, justicar, kind, subscriber
from benchmarks.processes import admin_url, copied, fresh, serve
from benchmarks.scenes import Table, build

PLAYERS = 2
SPECTATORS = 2
SUBSCRIBERS = 1 + PLAYERS + SPECTATORS
PERIOD = 1.0
"""Seconds between a scene's commands at a table's pace."""
WARM_UP = 1.0
CONNECTING = 32
"""Connections made at once while a table sits down."""
TIMEOUT = 60.0
SETUPS = {"sqlite": ("sqlite", 1), "pg1": ("postgresql", 1), "pg2": ("postgresql", 2), "pg2-spread": ("postgresql", 2)}


# -- the scenes, in SQLite and in a PostgreSQL template -------------------------------------------


def seed(where: Path, count: int) -> tuple[Path, list[Table]]:
    """``count`` demo scenes in a SQLite file, each with 2 players in open challenges."""
    db = where / f"capacity-{count}.db"
    started = time.perf_counter()
    tables = build(db, dict.fromkeys(f"c{n}" for n in range(count)), quiet=True)
    print(f"# {count} scenes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return db, [_two_players(t) for t in tables.values()]


def _two_players(t: Table) -> Table:
    return Table(t.scene, t.version, t.st, t.spectator, dict(list(t.players.items())[:PLAYERS]))


@contextlib.contextmanager
def template(admin: str, source: Path, tables: list[Table]) -> Iterator[tuple[str, list[Table]]]:
    """A PostgreSQL database holding the SQLite file's scenes (``copied``) and tokens of its own,
    each run's database made from it (``fresh``)."""
    from server.backend import open_backend

    with copied(admin, source, [t.scene for t in tables]) as name:
        backend = open_backend(pg_url(admin, name))
        try:
            issue = backend.tokens.issue
            copies = [
                Table(
                    t.scene,
                    t.version,
                    st=issue(t.scene, "st")[0],
                    spectator=issue(t.scene, "spectator")[0],
                    players={who: issue(t.scene, "player", who)[0] for who in t.players},
                )
                for t in tables
            ]
        finally:
            backend.close()
        yield name, copies


# -- CPU of the database's processes ----------------------------------------------------------------


def postgres_cpu(database: str | None) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL process serving ``database``: its backends (``postgres:
    USER DATABASE HOST…``) and the server's shared processes (those that name no database)."""
    if database is None:
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            if "(postgres)" not in stat:
                continue
            title = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
        except OSError:
            continue
        if not title or title[0] != "postgres:":
            continue
        # a backend: "postgres: [CLUSTER:] USER DATABASE HOST(PORT) STATE"; shared: "postgres: [CLUSTER:] walwriter"
        words = title[2:] if title[1].endswith(":") else title[1:]
        backend = len(words) >= 3 and ("(" in words[2] or words[2] == "[local]")
        if backend and words[1] != database:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _spent(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- one setup ---------------------------------------------------------------------------------------


@dataclass
class Figures:
    rate: float = 0.0
    server_cpu: float = 0.0
    """Seconds of the server processes' CPU per command."""
    server_cores: float = 0.0
    db_cores: float = 0.0
    client_cores: float = 0.0
    result: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    crossed: int = 0
    per_scene: float = 0.0
    """KiB of RSS (all server processes) per loaded scene."""
    per_connection: float = 0.0


@dataclass
class Scene:
    """One table as the clients see it: where its connections go, and the command in flight."""

    table: Table
    homes: list[int]
    """The process of each subscriber (the Storyteller first), then of the sender."""
    subs: list[Any] = field(default_factory=list)
    sender: Any = None
    sent: float = 0.0
    receipts: list[float] = field(default_factory=list)
    heard: asyncio.Event = field(default_factory=asyncio.Event)


def homes(scene: str, processes: int, spread_out: bool) -> list[int]:
    if spread_out:
        return [n % processes for n in range(SUBSCRIBERS + 1)]
    return [zlib.crc32(scene.encode()) % processes] * (SUBSCRIBERS + 1)


async def _gathered(jobs: list[Any]) -> None:
    """Run coroutines, ``CONNECTING`` at a time."""
    gate = asyncio.Semaphore(CONNECTING)

    async def one(job: Any) -> None:
        async with gate:
            await job

    await asyncio.gather(*(one(job) for job in jobs))


async def measure(
    urls: list[str],
    servers: list[Served],
    tables: list[Table],
    pace: str,
    spread_out: bool,
    database: str | None,
    seconds: float,
    run: int,
) -> Figures:
    scenes = [Scene(t, homes(t.scene, len(urls), spread_out)) for t in tables]

    def rss() -> int:
        return sum(s.rss_kib() for s in servers)

    await asyncio.sleep(0.5)
    empty = rss()
    began = time.perf_counter()

    async def sit(s: Scene, which: list[int]) -> None:
        tokens = [s.table.st, *s.table.players.values(), *[s.table.spectator] * SPECTATORS]
        for n in which:
            if n == SUBSCRIBERS:
                s.sender = await hello(urls[s.homes[n]], s.table.st)
            else:
                s.subs.append((await subscriber(urls[s.homes[n]], tokens[n], s.table.version))[0])

    await _gathered([sit(s, [0]) for s in scenes])  # every scene loaded, one subscriber each
    await asyncio.sleep(0.5)
    loaded = rss()
    await _gathered([sit(s, list(range(1, SUBSCRIBERS + 1))) for s in scenes])
    await asyncio.sleep(1.0)  # presence said
    seated = rss()
    print(
        f"#   {len(scenes) * (SUBSCRIBERS + 1):,} connections seated in {time.perf_counter() - began:.1f} s;"
        f" measuring {WARM_UP:g} + {seconds:g} s",
        file=sys.stderr,
        flush=True,
    )
    per_connection = (seated - loaded) / (len(scenes) * SUBSCRIBERS)
    figures = Figures(per_scene=(loaded - empty) / len(scenes) - per_connection, per_connection=per_connection)

    measuring = False
    done = 0
    stop = asyncio.Event()

    async def read(s: Scene, ws: Any, home: int) -> None:
        try:
            while True:
                frame = await ws.recv(decode=False)
                if frame.startswith(b'{"type":"commit"'):
                    if measuring and home != s.homes[SUBSCRIBERS]:
                        figures.crossed += 1
                    s.receipts.append(time.perf_counter())
                    if len(s.receipts) >= SUBSCRIBERS:
                        s.heard.set()
        except Exception:
            return

    async def send(s: Scene) -> None:
        nonlocal done
        rng = random.Random(s.table.scene)
        who = next(iter(s.table.players))
        beat = time.perf_counter() + rng.uniform(0, PERIOD)
        n = 0
        while not stop.is_set():
            if pace == "table":
                await asyncio.sleep(max(0.0, beat - time.perf_counter()))
                beat += PERIOD
            n += 1
            s.receipts, s.heard = [], asyncio.Event()
            s.sent = time.perf_counter()
            await s.sender.send(adjust(f"k{run}-{n}", who, n))
            while kind(reply := await s.sender.recv(decode=False)) != b"result":
                pass
            answered = time.perf_counter()
            if b'"ok":false' in reply[:300]:
                raise RuntimeError(f"refused: {reply[:300]!r}")
            if pace == "table":
                async with asyncio.timeout(TIMEOUT):
                    await s.heard.wait()
            if measuring:
                done += 1
                figures.result.append((answered - s.sent) * 1000)
                if pace == "table":
                    figures.last.append((max(s.receipts[:SUBSCRIBERS]) - s.sent) * 1000)

    readers = [asyncio.ensure_future(read(s, ws, s.homes[n])) for s in scenes for n, ws in enumerate(s.subs)]
    senders = [asyncio.ensure_future(send(s)) for s in scenes]
    await asyncio.sleep(WARM_UP)
    server_cpu, db_cpu, mine = [s.cpu_seconds() for s in servers], postgres_cpu(database), client_cpu()
    started, measuring = time.perf_counter(), True
    await asyncio.sleep(seconds)
    measuring, elapsed = False, time.perf_counter() - started
    count = done
    spent = sum(s.cpu_seconds() - before for s, before in zip(servers, server_cpu, strict=True))
    figures.db_cores = _spent(db_cpu, postgres_cpu(database)) / elapsed
    figures.client_cores = (client_cpu() - mine) / elapsed
    stop.set()
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*senders)
    figures.rate = count / elapsed
    figures.server_cpu = spent / max(count, 1)
    figures.server_cores = spent / elapsed
    await _gathered([ws.close() for s in scenes for ws in [*s.subs, s.sender]])
    for task in readers:
        task.cancel()
    return figures


def one(
    setup: str,
    tables: list[Table],
    where: Path,
    sqlite: Path,
    pg: str | None,
    args: argparse.Namespace,
    run: int,
    pace: str,
) -> Figures:
    backend, processes = SETUPS[setup]
    label = f"{setup}-{len(tables)}-{pace}-{run}"
    with contextlib.ExitStack() as stack:
        servers: list[tuple[Served, str]] = []
        if backend == "sqlite":
            db, database = str(copy_db(sqlite, where / f"{label}.db")), None
            port = free_port()
            servers.append((justicar(Path(db), port, where / f"{label}.log"), f"ws://127.0.0.1:{port}"))
        else:
            assert pg is not None
            db, database = stack.enter_context(fresh(admin_url(args.postgres), pg))
            for n in range(processes):
                servers.append(serve(db, backend, where / f"{label}-{n}.log"))
        for served, _ in servers:
            stack.callback(served.stop)
        figures = asyncio.run(
            measure(
                [url for _, url in servers],
                [served for served, _ in servers],
                tables,
                pace,
                setup.endswith("spread"),
                database,
                args.seconds,
                run,
            )
        )
    print(
        f"#   run {run}, {len(tables)} scenes, {pace}, {setup}: {figures.rate:,.0f} commands/s,"
        f" {figures.server_cpu * 1000:.2f} ms server CPU a command, cores: servers {figures.server_cores:.2f},"
        f" database {figures.db_cores:.2f}, clients {figures.client_cores:.2f};"
        f" p99 result {percentile(figures.result, 0.99):.1f} ms, last {percentile(figures.last, 0.99):.1f} ms;"
        f" {figures.crossed} crossed",
        file=sys.stderr,
    )
    return figures


# -- the report -----------------------------------------------------------------------------------------


def report(count: int, pace: str, results: dict[str, list[Figures]], seconds: float, runs: int) -> None:
    print(
        f"\n## {count} scenes, {pace}: {SUBSCRIBERS} subscribers (words on) and a sender each, {seconds:g} s;"
        f" median (min-max) over {runs} runs"
    )
    rows = []
    for setup, figures in results.items():
        rows.append(
            [
                setup,
                spread([f.rate for f in figures], ",.0f"),
                spread([f.server_cpu * 1000 for f in figures]),
                spread([f.server_cores for f in figures]),
                spread([f.db_cores for f in figures]),
                spread([f.client_cores for f in figures]),
                spread([f.server_cores + f.db_cores + f.client_cores for f in figures]),
                spread([percentile(f.result, 0.5) for f in figures], ".1f"),
                spread([percentile(f.result, 0.99) for f in figures], ".1f"),
                spread([percentile(f.last, 0.99) for f in figures], ".1f") if pace == "table" else "-",
                spread([float(f.crossed) for f in figures], ".0f"),
                spread([f.per_scene for f in figures], ",.0f"),
                spread([f.per_connection for f in figures], ",.1f"),
            ]
        )
    table(
        [
            "setup",
            "commands/s",
            "server CPU ms/command",
            "server cores",
            "database cores",
            "client cores",
            "cores in all",
            "p50 → result ms",
            "p99 → result ms",
            "p99 → last subscriber ms",
            "crossed pushes",
            "RSS KiB/scene",
            "RSS KiB/connection",
        ],
        rows,
    )
    ratios = []
    for a, b in (("pg1", "sqlite"), ("pg2", "pg1"), ("pg2-spread", "pg2")):
        if a in results and b in results:
            pairs = list(zip(results[a], results[b], strict=True))
            ratios.append(
                [
                    f"{a} / {b} (same run)",
                    spread([x.rate / y.rate for x, y in pairs]) + "x",
                    spread([x.server_cpu / y.server_cpu for x, y in pairs]) + "x",
                ]
            )
    if ratios:
        table(["ratio", "commands/s", "server CPU per command"], ratios)


def main() -> None:
    p = parser(__doc__.splitlines()[0] if __doc__ else "", runs=3)
    p.add_argument("--scenes", default="100,1000", help="how many scenes, each with its table (100,1000)")
    p.add_argument("--setups", default="sqlite,pg1,pg2", help=f"of {', '.join(SETUPS)} (sqlite,pg1,pg2)")
    p.add_argument("--pace", default="back-to-back,table", help="back-to-back, table or both (both)")
    p.add_argument("--seconds", type=float, default=5.0, help="seconds measured, after a second of warm-up (5)")
    p.add_argument("--keep", action="store_true", help="keep the SQLite files and the servers' logs")
    p.add_argument("--postgres", help="an administrator's URL of the PostgreSQL server to make databases on")
    args = p.parse_args()
    setups = args.setups.split(",")
    paces = args.pace.split(",")
    for name in setups:
        if name not in SETUPS:
            p.error(f"no setup {name!r}: pick among {', '.join(SETUPS)}")
    for pace in paces:
        if pace not in ("back-to-back", "table"):
            p.error(f"no pace {pace!r}: back-to-back or table")
    header(f"capacity: many scenes, each with its table ({', '.join(setups)}; {', '.join(paces)})")
    where = workdir(args)
    try:
        for count in [int(n) for n in args.scenes.split(",")]:
            sqlite, tables = seed(where, count)
            with contextlib.ExitStack() as stack:
                pg, pg_tables = None, tables
                if any(SETUPS[s][0] == "postgresql" for s in setups):
                    pg, pg_tables = stack.enter_context(template(admin_url(args.postgres), sqlite, tables))
                for pace in paces:
                    results: dict[str, list[Figures]] = {s: [] for s in setups}
                    for run in range(1, args.runs + 1):
                        for setup in setups if run % 2 else setups[::-1]:
                            chosen = tables if SETUPS[setup][0] == "sqlite" else pg_tables
                            results[setup].append(one(setup, chosen, where, sqlite, pg, args, run, pace))
                    report(count, pace, results, args.seconds, args.runs)
    finally:
        if args.keep:
            print(f"# the databases and the servers' logs: {where}", file=sys.stderr)
        else:
            cleanup(where)


if __name__ == "__main__":
    main()
