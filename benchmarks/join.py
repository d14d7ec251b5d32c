"""Joining a scene: how long a ``subscribe`` takes and how much it sends, by the scene's length, and
the longest another connection waits meanwhile.

    .venv/bin/python -m benchmarks.join [--runs 3] [--scenes demo,1000,10000,20000,100000] [--repeats 5]

The scenes are built once (``benchmarks.scenes.build``: the demo and brawls, through the real
command path, snapshots saved as the server saves them, then open challenges for every
character); each run serves a fresh copy from a fresh ``justicar serve --log-json`` process (WAL,
``synchronous=FULL``, the rate limit lifted), as ``benchmarks.live`` does.

Per scene and run, every subscribe asks ``summaries: true`` (words on, as the pages do), and is
timed from sending it to the arrival of ``subscribed``, counting every byte received meanwhile:

- ``cold``: the first subscribe after the server started (a spectator, ``since`` at the head):
  it loads the scene (from its latest snapshot and the log after it).
- then the Storyteller sends ``--commands`` adjusts (a table at play: the room holds the states
  after its last commits), and ``--repeats`` times each: a player in an open challenge and a
  spectator, each with ``since`` at the head and without ``since`` (the server then sends the
  latest events it can put into words, then the view);
- ``catch-up from 0``: one spectator with ``since: 0`` (every event, in words).

Meanwhile a bystander, a spectator of another, short scene in a process of its own
(``benchmarks.stall.bystander``), pings every ``--interval`` ms on a fixed schedule; each join's
``stall`` is the longest round-trip of a ping in flight during it (sent before it ended, answered
after it began). Every figure is the median and the range (min-max) over ``--runs`` runs (within a
run, the median of the repeats; the stall, their longest).

Goal (the project's): a 100,000-event scene joins in under 50 ms with a view under 100 KiB, and no
other connection waits more than 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common import ROOT, cleanup, copy_db, header, spread, table, workdir
from benchmarks.live import free_port, hello, justicar, kind, scene_lengths
from benchmarks.scenes import Table, build
from benchmarks.stall import bystander

GOAL_MS, GOAL_VIEW_KIB, GOAL_STALL_MS = 50.0, 100.0, 20.0
TIMEOUT = 600.0


@dataclass
class Joined:
    """One subscribe: its time, what it received, and when it ran (monotonic clock)."""

    ms: float
    bytes: int
    frames: int
    view: int
    start: float
    end: float


async def join(url: str, token: str, since: int | None) -> Joined:
    ws = await hello(url, token)
    ask: dict[str, object] = {"type": "subscribe", "summaries": True}
    if since is not None:
        ask["since"] = since
    body = json.dumps(ask)
    received = frames = view = 0
    start = time.monotonic()
    started = time.perf_counter()
    await ws.send(body)
    async with asyncio.timeout(TIMEOUT):
        while True:
            frame = await ws.recv(decode=False)
            received += len(frame)
            frames += 1
            what = kind(frame)
            if what == b"view":
                view = len(frame)
            elif what == b"subscribed":
                break
            elif what == b"error":
                raise RuntimeError(f"subscribe refused: {frame[:300]!r}")
    ms = (time.perf_counter() - started) * 1000
    end = time.monotonic()
    await ws.close()
    await asyncio.sleep(0.05)  # the leave, and the presence it sends, before the next
    return Joined(ms, received, frames, view, start, end)


async def commands(url: str, t: Table, count: int, run: int) -> int:
    """The Storyteller at play: ``count`` adjusts; the scene's version after them."""
    ws = await hello(url, t.st)
    who = next(iter(t.players))
    version = t.version
    for n in range(count):
        body = {"type": "adjust", "id": f"j{run}-{n}", "character": who, "changes": {"willpower": 1}, "reason": "x"}
        await ws.send(json.dumps(body))
        while kind(reply := await ws.recv(decode=False)) != b"result":
            pass
        version = int(json.loads(reply)["version"])
    await ws.close()
    return version


CONFIGS = ("cold", "player, since head", "player, no since", "spectator, since head", "spectator, no since", "from 0")


@dataclass
class SceneRun:
    joins: dict[str, list[Joined]] = field(default_factory=dict)


async def run_scenes(url: str, tables: list[Table], args: argparse.Namespace, run: int) -> dict[str, SceneRun]:
    out: dict[str, SceneRun] = {}
    for t in tables:
        r = out[t.scene] = SceneRun()
        r.joins["cold"] = [await join(url, t.spectator, t.version)]
        head = await commands(url, t, args.commands, run)
        player = next(iter(t.players.values()))
        for role, token in (("player", player), ("spectator", t.spectator)):
            for mode, since in (("since head", head), ("no since", None)):
                r.joins[f"{role}, {mode}"] = [await join(url, token, since) for _ in range(args.repeats)]
        r.joins["from 0"] = [await join(url, t.spectator, 0)]
        print(f"#   run {run}: {t.scene} done", file=sys.stderr)
    return out


def stall(joins: list[Joined], pings: Pings) -> tuple[float, int]:
    """The longest round-trip of a ping in flight during any of ``joins`` (nan: none was), and how
    many were."""
    worst, seen = float("nan"), 0
    for j in joins:
        for at, rtt in pings:
            if at <= j.end and at + (rtt if rtt == rtt else 1e9) / 1000 >= j.start:
                seen += 1
                if rtt != rtt:
                    return float("inf"), seen  # never answered
                worst = rtt if worst != worst else max(worst, rtt)
    return worst, seen


Pings = list[tuple[float, float]]
"""The bystander's pings: when each was sent (monotonic clock) and its round-trip in ms (nan: no answer)."""


def one_run(
    seeded: Path, tables: list[Table], by: Table, where: Path, args: argparse.Namespace, run: int
) -> tuple[dict[str, SceneRun], Pings]:
    db = copy_db(seeded, where / f"join{run}.db")
    port = free_port()
    server = justicar(db, port, where / f"join{run}.log")
    url = f"ws://127.0.0.1:{port}"
    ctx = multiprocessing.get_context("spawn")
    mine, theirs = ctx.Pipe()
    pinger = ctx.Process(target=bystander, args=(url, by.spectator, by.version, args.interval / 1000, theirs))
    try:
        pinger.start()
        if not mine.poll(60) or mine.recv() != "ready":
            raise RuntimeError("the bystander did not start")
        results = asyncio.run(run_scenes(url, tables, args, run))
        mine.send("stop")
        pings: Pings = mine.recv()
        pinger.join(10)
    finally:
        if pinger.is_alive():
            pinger.terminate()
            pinger.join(10)
        server.stop()
    return results, pings


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--scenes", default="demo,1000,10000,20000,100000", help="demo, or a brawl's length")
    p.add_argument("--repeats", type=int, default=5, help="joins of each kind per scene and run (default 5)")
    p.add_argument("--commands", type=int, default=10, help="adjusts before the warm joins (default 10)")
    p.add_argument("--interval", type=float, default=5.0, help="ms between the bystander's pings (default 5)")
    p.add_argument("--dir")
    args = p.parse_args()
    where = workdir(args)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    try:
        started = time.perf_counter()
        lengths = {name.replace("t", "j", 1): n for name, n in scene_lengths(args.scenes).items()}
        tables = build(where / "base.db", {"bystander": None, **lengths}, quiet=True)
        print(f"# scenes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        header(
            f"join: subscribe (words on) to the last frame, bytes received, and the longest ping of a bystander"
            f" (every {args.interval:g} ms) meanwhile; {args.repeats} joins of each kind per scene and run"
        )
        scenes = [tables[s] for s in lengths]
        runs = [
            one_run(where / "base.db", scenes, tables["bystander"], where, args, n) for n in range(1, args.runs + 1)
        ]
        print()
        print("## per run: median ms of the joins, bytes, longest ping in flight meanwhile (ms)")
        for n, (results, pings) in enumerate(runs, 1):
            answered = sorted(rtt for _, rtt in pings if rtt == rtt)
            lost = len(pings) - len(answered)
            print(f"run {n}: bystander {len(pings)} pings, {lost} unanswered, longest {answered[-1]:.1f} ms")
            for scene, r in results.items():
                cells = []
                for config in CONFIGS:
                    js = r.joins[config]
                    worst, seen = stall(js, pings)
                    ms = statistics.median(j.ms for j in js)
                    cells.append(f"{config}: {ms:.1f} ms {js[0].bytes:,} B, ping {worst:.1f} ({seen})")
                print(f"  {scene:<8} " + " | ".join(cells))
        print()
        print(f"## across {args.runs} runs: median (min-max) of each run's figure")
        rows = []
        for s in lengths:
            t = tables[s]
            for config in CONFIGS:
                of = [results[s].joins[config] for results, _ in runs]
                stalls = [stall(js, pings)[0] for js, (_, pings) in zip(of, runs, strict=True)]
                rows.append(
                    [
                        f"{t.version:,} events" if config == "cold" else "",
                        config,
                        spread([statistics.median(j.ms for j in js) for js in of], ".1f"),
                        spread([statistics.median(j.bytes for j in js) / 1024 for js in of], ",.1f"),
                        spread([statistics.median(j.view for j in js) / 1024 for js in of], ",.1f"),
                        spread([statistics.median(j.frames for j in js) for js in of], ",.0f"),
                        spread(stalls, ".1f"),
                    ]
                )
        table(["scene", "subscribe", "ms", "KiB received", "view KiB", "frames", "longest ping ms"], rows)
        print(
            f"# goals: a 100,000-event scene joins in under {GOAL_MS:g} ms with a view under {GOAL_VIEW_KIB:g} KiB;"
            f" no other connection waits more than {GOAL_STALL_MS:g} ms"
        )
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
