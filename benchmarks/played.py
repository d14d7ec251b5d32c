"""The first join of a long scene written by ``justicar play``, after a restart.

    .venv/bin/python -m benchmarks.played [--runs 5] [--events 30000]

A brawl of ``--events`` events is played in memory once, its commands kept as a script, and the
script played into a SQLite file by ``justicar play --db`` (which keeps a snapshot at the end of a
long scene). Then, each run: a copy of the file, a fresh ``justicar serve --log-json``, and a
spectator's subscribe (``since`` at the head, words on): the scene's first join after a restart,
which loads it, timed from sending it to the arrival of ``subscribed``. The same runs on a copy
whose snapshots were dropped (``--without``) show what that join cost before: the whole log
folded. Beside each join, the same load made in this process alone (``SceneService.loaded`` on the
file, read-only), which a busy machine's scheduling touches less. Figures are the median and range
(min-max) over the runs.

Goal (issue 25): under 50 ms for 30,000 events.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import ROOT, cleanup, copy_db, header, parser, spread, table, workdir
from benchmarks.join import join
from benchmarks.live import free_port, justicar
from benchmarks.scenes import brawl
from domain.commands import AnyCommand
from server.backend import open_backend
from server.service import SceneService
from server.snapshots import Snapshots
from server.store import MemoryStore, SqliteStore

SCENE = "brawl"
GOAL_MS = 50.0


class _Recording(SceneService):
    """A service that keeps every command it is given, as a script line."""

    script: list[bytes]

    def handle(self, command: AnyCommand) -> Any:
        self.script.append(msgspec.json.encode(command))
        return super().handle(command)


def played(events: int, where: Path) -> tuple[Path, float]:
    """A file written by ``justicar play`` of a brawl of ``events`` events, and the play's seconds."""
    service = _Recording(MemoryStore(), honour_at=True)
    service.script = []
    brawl(events, scene=SCENE, service=service)
    script = where / "brawl.jsonl"
    script.write_bytes(b"".join(line + b"\n" for line in service.script))
    db = where / "played.db"
    started = time.perf_counter()
    argv = [sys.executable, "-m", "clients.cli", "play", str(script), "--db", str(db)]
    subprocess.run(argv, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return db, time.perf_counter() - started


def first_join(seeded: Path, where: Path, run: int, *, snapshots: bool) -> float:
    """A restart on a copy of ``seeded`` and the scene's first join: its milliseconds."""
    db = copy_db(seeded, where / f"run{run}-{snapshots}.db")
    if not snapshots:
        with sqlite3.connect(db) as conn:
            conn.execute("DELETE FROM snapshots")
    backend = open_backend(str(db))
    token = backend.tokens.issue(SCENE, "spectator")[0]
    head = backend.store.head(SCENE)[0]
    backend.close()
    port = free_port()
    server = justicar(db, port, where / f"run{run}-{snapshots}.log")
    try:
        joined = asyncio.run(join(f"ws://127.0.0.1:{port}", token, head))
    finally:
        server.stop()
    return joined.ms


def load_alone(seeded: Path, *, snapshots: bool) -> float:
    """The scene's load as a room makes it (``SceneService.loaded``), in this process: its ms."""
    store = SqliteStore(seeded, readonly=True)
    try:
        service = SceneService(store, snapshots=Snapshots(store) if snapshots else None)
        started = time.perf_counter()
        loaded = service.loaded(SCENE)
        ms = (time.perf_counter() - started) * 1000
        assert (loaded.start == loaded.state.version) == snapshots
        return ms
    finally:
        store.close()


def main() -> None:
    p: argparse.ArgumentParser = parser(__doc__.splitlines()[0], runs=5)
    p.add_argument("--events", type=int, default=30_000)
    p.add_argument("--without", action="store_true", help="also join copies without their snapshots")
    args = p.parse_args()
    where = workdir(args)
    try:
        seeded, seconds = played(args.events, where)
        with sqlite3.connect(seeded) as conn:
            head = conn.execute("SELECT max(seq) FROM events WHERE scene = ?", [SCENE]).fetchone()[0]
            kept = [v for (v,) in conn.execute("SELECT version FROM snapshots WHERE scene = ?", [SCENE])]
        header(f"First join after a restart: {head:,} events written by `justicar play` ({seconds:.0f} s)")
        print(f"snapshots kept by the play: at {kept}\n")
        kinds = [True, False] if args.without else [True]
        times: dict[bool, list[float]] = {kind: [] for kind in kinds}
        alone: dict[bool, list[float]] = {kind: [] for kind in kinds}
        for run in range(args.runs):
            for kind in kinds:
                times[kind].append(first_join(seeded, where, run, snapshots=kind))
                alone[kind].append(load_alone(seeded, snapshots=kind))
        rows = [
            [
                "with the play's snapshot" if kind else "without its snapshot (as before: the log folded)",
                spread(ms, ".1f"),
                spread(alone[kind], ".1f"),
            ]
            for kind, ms in times.items()
        ]
        table(["scene", f"first join, ms ({args.runs} runs)", "its load alone, in-process, ms"], rows)
        met = statistics.median(times[True]) < GOAL_MS
        print(f"\ngoal: under {GOAL_MS:.0f} ms: {'met' if met else 'NOT met'}")
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
