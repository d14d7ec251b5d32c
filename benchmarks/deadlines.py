"""What response deadlines cost a live server (``benchmarks.live deadlines``).

busy
    ``--many`` demo scenes, each with its Storyteller sending ``adjust`` back to back and a table
    mix of 10 subscribed (6 players in open challenges, the Storyteller, 3 spectators; words on),
    for ``--seconds``: once on scenes without deadlines, once on the same scenes with every kind of
    deadline set (an hour each, so none runs out meanwhile; each open challenge's answer is on the
    clock, and every commit asks the core when the scene next needs waking). A fresh server and a
    fresh copy of the database for each, the two alternating (the first of one run last in the
    next). Committed commands a second and the server process's CPU per command.

idle
    ``--idle`` small scenes (two characters, one challenge awaiting its answer), each with a
    deadline running (an hour) or, for the baseline, none; a fresh server is started on them and,
    once it says it listens and ``--settle`` seconds have passed, its CPU time over ``--quiet``
    seconds of nobody doing anything is measured, and its RSS. Alternating, as above.

Every figure: the median and the range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import copy_db, header, spread, table
from benchmarks.scenes import Table, build
from domain.commands import parse_command
from server.service import SceneService
from server.store import SqliteStore

EVERY = {kind: {"seconds": 3600} for kind in ("answer", "throw", "retest", "turn", "assist", "escape")}
"""Every kind of deadline, an hour: they run, none runs out while measured."""


def seed_busy(where: Path, many: int) -> tuple[Path, dict[str, list[Table]]]:
    db = where / "busy.db"
    plain = build(db, dict.fromkeys(f"m{n}" for n in range(many)), quiet=True)
    timed = build(db, dict.fromkeys(f"n{n}" for n in range(many)), quiet=True, deadlines=EVERY)
    return db, {"without deadlines": list(plain.values()), "with deadlines": list(timed.values())}


def seed_idle(where: Path, scenes: int) -> dict[str, Path]:
    """Two databases of ``scenes`` small scenes each: one with an answer deadline running in each."""
    out = {}
    for label, deadlines in (("without deadlines", None), ("with deadlines", {"answer": {"seconds": 3600}})):
        db = where / f"idle-{'timed' if deadlines else 'plain'}.db"
        store = SqliteStore(db)
        store.db.execute("PRAGMA synchronous=OFF")  # only to build fast; the runs copy the file
        service = SceneService(store, entropy=itertools.count(1).__next__)  # nothing here is random
        for n in range(scenes):
            scene = f"i{n}"
            options: dict[str, Any] = {"deadlines": deadlines} if deadlines else {}
            for k, (verb, fields) in enumerate(_small(options)):
                body = {"id": f"c{k}", "scene": scene, "actor": "st", "type": verb, **fields}
                handled = service.handle(parse_command(json.dumps(body)))
                assert handled.error is None, handled.error
            service.forget(scene)
        store.close()
        out[label] = db
    return out


def _small(options: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    def sheet(who: str) -> dict[str, Any]:
        return {"id": who, "name": who.capitalize(), "traits": {"physical": {"Brawny": 3, "Quick": 2}}}

    declare = {"character": "ana", "challenge": "x", "kind": "contested", "targets": ["bo"]}
    return [
        ("open_scene", {"ruleset": "lotn", "title": "idle", "options": options}),
        ("add_character", {"character": sheet("ana")}),
        ("add_character", {"character": sheet("bo")}),
        ("declare", {**declare, "category": "physical", "bid": ["Brawny"]}),
    ]


async def _busy_run(db: Path, tables: list[Table], where: Path, seconds: float, run: int) -> tuple[float, float]:
    from benchmarks.live import free_port, justicar, throughput_setup

    port = free_port()
    served = justicar(db, port, where / f"busy{run}.log")
    try:
        done, elapsed, cpu = await throughput_setup(f"ws://127.0.0.1:{port}", tables, 1, 10, seconds, run, served)
    finally:
        served.stop()
    return done / elapsed, cpu * 1000 / max(done, 1)


def _idle_run(db: Path, settle: float, quiet: float) -> tuple[float, int]:
    from benchmarks.live import free_port, justicar

    served = justicar(db, free_port())
    try:
        time.sleep(settle)
        cpu = served.cpu_seconds()
        time.sleep(quiet)
        return (served.cpu_seconds() - cpu) * 1000 / quiet, served.rss_kib()
    finally:
        served.stop()


def run(where: Path, args: argparse.Namespace) -> None:
    started = time.perf_counter()
    db, sides = seed_busy(where, args.many)
    idle = seed_idle(where, args.idle)
    print(f"# scenes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    busy: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    quiet: dict[str, list[tuple[float, int]]] = {side: [] for side in idle}
    for n in range(1, args.runs + 1):
        order = list(sides) if n % 2 else list(sides)[::-1]
        for side in order:
            copy = copy_db(db, where / f"busy{n}-{side[:4]}.db")
            busy[side].append(asyncio.run(_busy_run(copy, sides[side], where, args.seconds, n)))
            rate, cpu = busy[side][-1]
            said = f"{rate:,.0f} commands/s, {cpu:.2f} ms server CPU a command"
            print(f"# run {n}: busy, {side}: {said}", file=sys.stderr)
        for side in order:
            copy = copy_db(idle[side], where / f"idle{n}-{side[:4]}.db")
            quiet[side].append(_idle_run(copy, args.settle, args.quiet))
            ms, rss = quiet[side][-1]
            print(f"# run {n}: idle, {side}: {ms:.2f} ms CPU a second, RSS {rss:,} KiB", file=sys.stderr)
    header(
        f"deadlines, busy: {args.many} demo scenes, each 1 Storyteller sender and a table mix of 10 (words on),"
        f" {args.seconds:g} s"
    )
    rows = [[side, spread([r for r, _ in v], ",.0f"), spread([c for _, c in v])] for side, v in busy.items()]
    with_, without = busy["with deadlines"], busy["without deadlines"]
    rows.append(
        [
            "with / without (same run)",
            spread([a[0] / b[0] for a, b in zip(with_, without, strict=True)]) + "x",
            spread([a[1] / b[1] for a, b in zip(with_, without, strict=True)]) + "x",
        ]
    )
    table(["scenes", "commands/s", "server CPU ms a command"], rows)
    print()
    header(
        f"deadlines, idle: a server started on {args.idle:,} small scenes, its CPU over {args.quiet:g} s of quiet"
        f" ({args.settle:g} s after it listens)"
    )
    table(
        ["scenes", "server CPU, ms a second", "server RSS, KiB"],
        [[side, spread([c for c, _ in v]), spread([r for _, r in v], ",.0f")] for side, v in quiet.items()],
    )
