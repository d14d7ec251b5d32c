"""What idle loaded scenes cost a server process: its RSS and CPU with ``--scenes`` small scenes
loaded and left alone, against the same process with none loaded.

    .venv/bin/python -m benchmarks.idle [--runs 3] [--scenes 10000] [--settle 5] [--quiet 10] [--old DIR]
        [--store sqlite|postgresql] [--postgres URL]

The scenes (two characters, a challenge awaiting its answer, no deadline) are built once through
the service straight into an SQLite file (as ``benchmarks.deadlines.seed_idle``). Each setup is a
fresh server process (``running`` on a fresh copy of the file, as ``justicar serve`` runs it;
``--store postgresql``: on a fresh PostgreSQL database holding the same scenes, made on the server
named by ``--postgres``, ``JUSTICAR_TEST_POSTGRES`` or 127.0.0.1:5432 and dropped afterwards) that
loads the scenes through its hub (``Hub.state``: each by its room, as a command or join would),
100 at a time, waits ``--settle`` seconds, and says how many tasks it runs and how many of its
rooms are awake; its CPU over ``--quiet`` seconds of nobody doing anything is then measured, and
its RSS at the end. ``--old DIR``: the same setups with the code of another checkout too (``git
worktree add --detach DIR <commit>``: its ``server`` package is imported instead of this one's),
alternating with this one's within each run (the first of one run last in the next).

Every figure: the median and the range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
import time
from pathlib import Path

HOLD = Path(__file__).resolve()
"""This file, run as a script in the server process (``hold``): the ``server`` package imported
is the one on ``PYTHONPATH`` (``--old``), else this checkout's."""


async def hold(db: str, scenes: int, settle: float) -> None:
    """Serve ``db``, load ``scenes`` scenes through the hub, wait ``settle`` seconds, say so."""
    import anyio

    from server.app import running
    from server.backend import open_backend
    from server.logs import configure

    configure(json=True)  # to stderr (thrown away), as ``justicar serve --log-json``
    backend = open_backend(db, lock=True)
    async with running(backend) as live:
        for start in range(0, scenes, 100):
            async with anyio.create_task_group() as tg:
                for n in range(start, min(start + 100, scenes)):
                    tg.start_soon(live.hub.state, f"i{n}")
        await anyio.sleep(settle)
        awake = sum(1 for room in live.hub.rooms.values() if getattr(room, "running", True))
        tasks = len(asyncio.all_tasks())
        print(f"ready tasks={tasks} rooms={len(live.hub.rooms)} awake={awake}", flush=True)
        await anyio.sleep_forever()


def build(where: Path, scenes: int) -> Path:
    from benchmarks.deadlines import _small
    from domain.commands import parse_command
    from server.service import SceneService
    from server.store import SqliteStore

    db = where / "idle.db"
    store = SqliteStore(db)
    store.db.execute("PRAGMA synchronous=OFF")  # only to build fast; the runs copy the file
    service = SceneService(store, entropy=itertools.count(1).__next__)
    for n in range(scenes):
        for k, (verb, fields) in enumerate(_small({})):
            body = {"id": f"c{k}", "scene": f"i{n}", "actor": "st", "type": verb, **fields}
            assert service.handle(parse_command(json.dumps(body))).error is None
        service.forget(f"i{n}")
    store.close()
    return db


def measure(db: str, scenes: int, root: Path, settle: float, quiet: float) -> dict[str, float]:
    from benchmarks.live import Served

    argv = [sys.executable, str(HOLD), "hold", db, str(scenes), str(settle)]
    started = time.perf_counter()
    served = Served(argv, None, root)
    try:
        assert served.proc.stdout is not None
        said = served.proc.stdout.readline()
        if not said.startswith("ready"):
            raise RuntimeError(f"the server did not load its scenes: {said!r}")
        loaded = time.perf_counter() - started - settle
        figures: dict[str, float] = {k: float(v) for k, v in (w.split("=") for w in said.split()[1:])}
        cpu = served.cpu_seconds()
        time.sleep(quiet)
        figures["cpu_ms_s"] = (served.cpu_seconds() - cpu) * 1000 / quiet
        figures["rss_kib"] = served.rss_kib()
        figures["load_s"] = loaded
        return figures
    finally:
        served.stop()


def run(args: argparse.Namespace) -> None:
    from benchmarks.common import ROOT, cleanup, copy_db, header, spread, table, workdir
    from benchmarks.processes import admin_url, copied, fresh

    where = workdir(args)
    try:
        started = time.perf_counter()
        db = build(where, args.scenes)
        print(f"# {args.scenes:,} scenes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        codes = {"this": ROOT} | ({"old": Path(args.old).resolve()} if args.old else {})
        setups = [(code, n) for code in codes for n in (0, args.scenes)]
        got: dict[tuple[str, int], list[dict[str, float]]] = {setup: [] for setup in setups}
        with contextlib.ExitStack() as stack:
            postgres = args.store == "postgresql"
            if postgres:
                admin = admin_url(args.postgres)
                template = stack.enter_context(copied(admin, db, [f"i{n}" for n in range(args.scenes)]))
            for r in range(1, args.runs + 1):
                for code, n in setups if r % 2 else setups[::-1]:
                    with contextlib.ExitStack() as one:
                        if postgres:
                            served = one.enter_context(fresh(admin, template))[0]
                        else:
                            copy = copy_db(db, where / f"run{r}-{code}-{n}.db")
                            served = str(copy)
                            for suffix in ("", "-wal", "-shm"):
                                one.callback(Path(f"{copy}{suffix}").unlink, missing_ok=True)
                        figures = measure(served, n, codes[code], args.settle, args.quiet)
                    got[(code, n)].append(figures)
                    print(f"# run {r}: {code} code, {n:,} scenes: {figures}", file=sys.stderr)
        header(
            f"idle: a server ({args.store}) that loaded {args.scenes:,} small scenes and was left alone"
            f" ({args.settle:g} s to settle,"
            f" then {args.quiet:g} s of quiet measured), against one with none loaded"
        )
        rows = []
        for code, n in setups:
            runs = got[(code, n)]
            base = got[(code, 0)]
            per = [(f["rss_kib"] - b["rss_kib"]) * 1024 / n for f, b in zip(runs, base, strict=True)] if n else []
            rows.append(
                [
                    f"{code} code, {n:,} scenes" + (f" ({codes[code]})" if code != "this" else ""),
                    spread([f["tasks"] for f in runs], ".0f"),
                    spread([f["awake"] for f in runs], ",.0f"),
                    spread([f["rss_kib"] / 1024 for f in runs], ",.1f"),
                    spread(per, ",.0f") if n else "-",
                    spread([f["cpu_ms_s"] for f in runs]),
                    spread([f["load_s"] for f in runs], ".1f") if n else "-",
                ]
            )
        table(
            [
                "server",
                "tasks",
                "rooms awake",
                "RSS, MiB",
                "RSS a scene, bytes",
                "CPU, ms a second",
                "start and load, s",
            ],
            rows,
        )
    finally:
        cleanup(where)


def main(argv: list[str] | None = None) -> None:
    from benchmarks.common import parser

    p = parser("What idle loaded scenes cost a server: RSS and CPU", runs=3)
    p.add_argument("--scenes", type=int, default=10_000, help="small scenes loaded (10000)")
    p.add_argument("--settle", type=float, default=5.0, help="seconds after loading before measuring (5)")
    p.add_argument("--quiet", type=float, default=10.0, help="seconds of quiet measured (10)")
    p.add_argument("--old", help="another checkout of the project, measured in the same runs")
    p.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite", help="where the scenes are (sqlite)")
    p.add_argument("--postgres", help="an administrator's URL of the PostgreSQL server to make databases on")
    run(p.parse_args(argv))


if __name__ == "__main__":
    if sys.argv[1:2] == ["hold"]:
        _, _, db, scenes, settle = sys.argv
        import anyio

        anyio.run(hold, db, int(scenes), float(settle))  # as ``justicar serve`` runs
    else:
        main()
