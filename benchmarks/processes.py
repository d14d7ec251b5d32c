"""Many `justicar serve` processes on one database: one scene's commands a second and its latency
to the last of 50 subscribers, with 1, 2 and 4 processes; and what a push costs that crosses
from one process to another.

    .venv/bin/python -m benchmarks.processes [--runs 3] [--processes 1,2,4] [--backends postgresql,sqlite]
        [--rounds 200] [--seconds 3] [--postgres URL]

Each run of each setup starts from a fresh database (PostgreSQL: ``CREATE DATABASE`` on the server
named by ``--postgres``, ``JUSTICAR_TEST_POSTGRES`` or 127.0.0.1:5432, dropped afterwards; SQLite:
a file in .justicar/bench, served with ``--shared``) holding one scene (the Storyteller, Sam and
Juan), and N fresh ``justicar serve --log-json`` processes on it, the rate limit lifted. The 50
subscribers (the Storyteller, both players, 47 spectators; words on, as the pages ask) are dealt
to the processes in turn: with N processes, 1 in N is on the process the commands go to.

latency
    The Storyteller (subscribed, on the first process) sends an ``adjust`` and waits for its
    result; a sample is the time from sending it to the moment the LAST of the 50 has its
    ``commit`` frame. Beside it, the last receipt among the subscribers of the first process
    (local) and among those of the others (remote): the push that crosses processes costs the
    difference (a NOTIFY or a poll, a read of the events from the database, the push).
    ``--rounds`` samples after 20 discarded.

throughput
    Four Storyteller connections, dealt to the processes in turn, send ``adjust`` commands back to
    back on the one scene for ``--seconds`` while the 50 subscribers read: committed commands a
    second (a command refused ``conflict``, after its process lost every race for 10 s, is not
    counted; their number is printed).

The machine's cores are shared by every server process and this client process: with 4 processes
on 2 cores, the figures show what the database and the races cost, not what 4 machines would do.
Every figure is the median and the range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import cleanup, header, parser, percentile, pg_database, pg_url, spread, table, workdir
from benchmarks.live import Served, drain, free_port, hello, kind, settle, subscriber
from domain.commands import parse_command
from server.backend import open_backend
from server.service import SceneService

SUBSCRIBERS = 50
SENDERS = 4
WARM_UP = 20
TIMEOUT = 60.0
SCENE = "bench"


# -- a database ------------------------------------------------------------------------------------


def admin_url(given: str | None) -> str:
    return given or os.environ.get("JUSTICAR_TEST_POSTGRES") or "postgresql://postgres@127.0.0.1:5432/postgres"


@contextlib.contextmanager
def database(backend: str, where: Path, admin: str, label: str) -> Iterator[str]:
    """A fresh database for one setup: a PostgreSQL URL or an SQLite path."""
    if backend == "sqlite":
        yield str(where / f"{label}.db")
        return
    with pg_database(admin) as name:
        yield pg_url(admin, name)


@contextlib.contextmanager
def copied(admin: str, source: Path, scenes: list[str]) -> Iterator[str]:
    """A PostgreSQL database holding these scenes of the SQLite file ``source`` (copied as
    ``justicar import`` copies them): its name; dropped afterwards."""
    from server.store import SqliteStore

    with pg_database(admin, "copy") as name:
        started = time.perf_counter()
        sqlite = SqliteStore(source, readonly=True)
        backend = open_backend(pg_url(admin, name))
        try:
            for scene in scenes:
                wires = list(sqlite.read_wire(scene))
                backend.store.import_wires(scene, wires, sqlite.digests(scene, wires[-1].seq))
        finally:
            backend.close()
            sqlite.close()
        took = time.perf_counter() - started
        print(f"# {len(scenes):,} scenes copied to PostgreSQL in {took:.1f} s", file=sys.stderr)
        yield name


@contextlib.contextmanager
def fresh(admin: str, source: str) -> Iterator[tuple[str, str]]:
    """A database made from the template ``source``: its URL and its name; dropped afterwards."""
    with pg_database(admin, template=source) as name:
        yield pg_url(admin, name), name


@dataclass
class Seeded:
    st: str
    players: list[str]
    spectator: str


def seed(db: str) -> Seeded:
    """The scene, and its tokens."""
    backend = open_backend(db)
    try:
        service = SceneService(backend.store)
        lines: list[dict[str, Any]] = [{"id": "open", "type": "open_scene", "ruleset": "lotn", "title": "Bench"}]
        for who in ("sam", "juan"):
            sheet = {"id": who, "name": who.title(), "traits": {"physical": {"Quick": 3}}}
            lines.append({"id": f"add-{who}", "type": "add_character", "character": sheet})
        for body in lines:
            command = parse_command(json.dumps({"scene": SCENE, "actor": "st", **body}).encode())
            assert service.handle(command).error is None
        tokens = backend.tokens
        return Seeded(
            st=tokens.issue(SCENE, "st")[0],
            players=[tokens.issue(SCENE, "player", who)[0] for who in ("sam", "juan")],
            spectator=tokens.issue(SCENE, "spectator")[0],
        )
    finally:
        backend.close()


def serve(db: str, backend: str, log: Path) -> tuple[Served, str]:
    port = free_port()
    argv = [sys.executable, "-m", "clients.cli", "serve", "--db", db, "--port", str(port)]
    argv += ["--rate", "1000000", "--burst", "1000000", "--log-json"]
    if backend == "sqlite":
        argv.append("--shared")
    served = Served(argv, log)
    served.wait_ready("listens on")
    return served, f"ws://127.0.0.1:{port}"


def adjust(command_id: str) -> str:
    body = {"type": "adjust", "id": command_id, "character": "sam", "changes": {"willpower": 1}, "reason": "bench"}
    return json.dumps(body)


# -- one setup -------------------------------------------------------------------------------------


async def _commit_at(ws: Any) -> float:
    while True:
        frame = await ws.recv(decode=False)
        if frame.startswith(b'{"type":"commit"'):
            return time.perf_counter()


async def _result(ws: Any) -> bytes:
    while True:
        frame = await ws.recv(decode=False)
        if kind(frame) == b"result":
            return bytes(frame)


@dataclass
class Figures:
    last: list[float]
    local: list[float]
    remote: list[float]
    rate: float
    conflicts: int


async def measure(urls: list[str], seeded: Seeded, args: argparse.Namespace, run: int) -> Figures:
    tokens = [seeded.st, *seeded.players] + [seeded.spectator] * (SUBSCRIBERS - 1 - len(seeded.players))
    subs, homes = [], []
    for n, token in enumerate(tokens):
        ws, _ = await subscriber(urls[n % len(urls)], token, None)
        subs.append(ws)
        homes.append(n % len(urls))
    await settle(subs)
    st = subs[0]
    last, local, remote = [], [], []
    for n in range(WARM_UP + args.rounds):
        waiting = [asyncio.ensure_future(_commit_at(ws)) for ws in subs]
        started = time.perf_counter()
        await st.send(adjust(f"l{run}-{n}"))
        async with asyncio.timeout(TIMEOUT):
            got = await asyncio.gather(*waiting)
            reply = await _result(st)
        if b'"ok":false' in reply[:300]:
            raise RuntimeError(f"refused: {reply[:300]!r}")
        if n < WARM_UP:
            continue
        times = [(t - started) * 1000 for t in got]
        last.append(max(times))
        local.append(max(t for t, home in zip(times, homes, strict=True) if home == 0))
        if len(urls) > 1:
            remote.append(max(t for t, home in zip(times, homes, strict=True) if home != 0))

    drains = [asyncio.ensure_future(drain(ws)) for ws in subs]
    done = conflicts = 0
    ready = asyncio.Event()

    async def send_loop(k: int) -> None:
        nonlocal done, conflicts
        ws = await hello(urls[k % len(urls)], seeded.st)
        await ready.wait()
        deadline = time.perf_counter() + args.seconds
        n = 0
        while time.perf_counter() < deadline:
            n += 1
            await ws.send(adjust(f"t{run}-{k}-{n}"))
            reply = await _result(ws)
            if b'"ok":false' in reply[:300]:
                if b'"conflict"' not in reply[:400]:
                    raise RuntimeError(f"refused: {reply[:300]!r}")
                conflicts += 1
            else:
                done += 1
        await ws.close()

    loops = [asyncio.ensure_future(send_loop(k)) for k in range(SENDERS)]
    await asyncio.sleep(0.5)
    started = time.perf_counter()
    ready.set()
    await asyncio.gather(*loops)
    elapsed = time.perf_counter() - started
    await asyncio.gather(*(ws.close() for ws in subs))
    for task in drains:
        task.cancel()
    return Figures(last, local, remote, done / elapsed, conflicts)


def one(backend: str, processes: int, where: Path, args: argparse.Namespace, run: int) -> Figures:
    label = f"{backend}-{processes}-{run}"
    with database(backend, where, admin_url(args.postgres), label) as db:
        seeded = seed(db)
        servers = []
        try:
            for n in range(processes):
                servers.append(serve(db, backend, where / f"{label}-{n}.log"))
            figures = asyncio.run(measure([url for _, url in servers], seeded, args, run))
        finally:
            for served, _ in servers:
                served.stop()
    print(
        f"#   run {run}, {backend}, {processes} process(es): p99 last {percentile(figures.last, 0.99):.2f} ms, "
        f"{figures.rate:,.0f} commands/s, {figures.conflicts} refused conflict",
        file=sys.stderr,
    )
    return figures


def main() -> None:
    p = parser(__doc__.splitlines()[0] if __doc__ else "", runs=3)
    p.add_argument("--processes", default="1,2,4")
    p.add_argument("--backends", default="postgresql,sqlite")
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--keep", action="store_true", help="keep the SQLite files and the servers' logs")
    p.add_argument("--postgres", help="an administrator's URL of the PostgreSQL server to make databases on")
    args = p.parse_args()
    header(f"many processes, one scene, {SUBSCRIBERS} subscribers (words on)")
    where = workdir(args)
    counts = [int(n) for n in args.processes.split(",")]
    backends = args.backends.split(",")
    try:
        results: dict[tuple[str, int], list[Figures]] = {}
        for run in range(1, args.runs + 1):
            for backend in backends:
                for processes in counts:
                    results.setdefault((backend, processes), []).append(one(backend, processes, where, args, run))
    finally:
        if args.keep:
            print(f"# the databases and the servers' logs: {where}", file=sys.stderr)
        else:
            cleanup(where)
    print(f"\n## across {args.runs} runs: median (min-max); ms from sending to a subscriber's commit frame")
    rows = []
    for (backend, processes), runs in results.items():
        crossing = [percentile(r.remote, 0.5) - percentile(r.local, 0.5) for r in runs] if processes > 1 else []
        rows.append(
            [
                f"{backend}, {processes} process{'es' if processes > 1 else ''}",
                spread([r.rate for r in runs], ",.0f"),
                spread([float(r.conflicts) for r in runs], ".0f"),
                spread([percentile(r.last, 0.5) for r in runs]),
                spread([percentile(r.last, 0.99) for r in runs]),
                spread([percentile(r.local, 0.99) for r in runs]),
                spread([percentile(r.remote, 0.99) for r in runs]) if processes > 1 else "-",
                spread(crossing) if crossing else "-",
            ]
        )
    table(
        [
            "setup",
            "commands/s (4 senders)",
            "refused conflict",
            "p50 last of 50",
            "p99 last of 50",
            "p99 last local",
            "p99 last remote",
            "crossing (p50 remote - local)",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
