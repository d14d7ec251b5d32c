"""Replay throughput: read + decode + fold of a long scene from SQLite, against plain msgspec
decoding of the same rows measured in the same run.

    .venv/bin/python -m benchmarks.replay [--events 100000] [--dir DIR]

The scene is a brawl played through the real command path (benchmarks/scenes.py), then written
to a SQLite store in one transaction. Goal: a 100,000-event scene replays in under 1 s.
"""

from __future__ import annotations

import gc
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from benchmarks.common import cleanup, header, parser, row, workdir
from benchmarks.scenes import brawl
from domain.events import SceneEvent
from domain.evolve import fold
from domain.log import event_data, format_at
from domain.state import NARRATOR
from projections.replay import Step, links_of, replay
from server.store import SqliteStore

T = TypeVar("T")


def best_of(runs: int, work: Callable[[], T]) -> tuple[float, T]:
    times = []
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    header(f"replay: read + decode + fold of a {args.events:,}-event scene (best of {args.runs})")
    started = time.perf_counter()
    source, service = brawl(args.events)
    print(f"# generated through decide/append/fold in {time.perf_counter() - started:.1f} s")
    where = workdir(args)
    try:
        path = where / "replay.db"
        store = SqliteStore(path)
        rows = [
            (
                r.seq,
                r.scene,
                r.type,
                format_at(r.at),
                r.actor,
                r.command,
                r.prev,
                r.hash,
                event_data(r.event).decode(),
            )
            for r in source.read("brawl")
        ]
        with store.db.conn:
            store.db.conn.executemany(
                "INSERT INTO events (seq, scene, type, at, actor, command, prev, hash, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        n = len(rows)

        seconds, state = best_of(args.runs, lambda: fold(store.read("brawl")))
        assert state == service.state("brawl"), "the replayed state differs from the live one"
        ours = row("justicar: SqliteStore.read + decode + fold", n, seconds)

        seconds, _ = best_of(args.runs, lambda: list(store.read("brawl")))
        row("  of which read + decode into records", n, seconds)

        records = list(store.read("brawl"))
        seconds, _ = best_of(args.runs, lambda: fold(records))
        row("  of which fold alone (evolve)", n, seconds)

        import msgspec  # the raw baseline: plain msgspec over the same rows

        decoders = {cls.type_name(): msgspec.json.Decoder(cls) for cls in SceneEvent.__args__}
        conn = sqlite3.connect(path)

        def plain() -> int:
            count = 0
            for type_, data in conn.execute("SELECT type, data FROM events WHERE scene = ? ORDER BY seq", ["brawl"]):
                decoders[type_].decode(data)
                count += 1
            return count

        seconds, count = best_of(args.runs, plain)
        raw = row("plain sqlite3 + msgspec typed decode of the same rows", count, seconds)
        seconds, _ = best_of(args.runs, lambda: conn.execute("SELECT type, data FROM events ORDER BY seq").fetchall())
        row("plain sqlite3 fetch alone", count, seconds)
        print(f"{'ratio (justicar / plain msgspec)':<58} {ours / raw:>8.0%}")
        print(f"# {n:,} events replay in {n / ours:.3f} s (goal: under 1 s)")

        # The step-by-step replay (issue 4): seek to a step, then explain it, as `replay --from N --to N`.
        for label, at in (("to its end", n), ("to its middle", n // 2)):

            def seek(at: int = at) -> list[Step]:
                records = list(store.read("brawl"))
                return list(replay(records[at - 1 : at], NARRATOR, fold(records[: at - 1]), links_of(records)))

            seconds, steps = best_of(args.runs, seek)
            assert steps[0].seq == at
            print(f"{'replay ' + label + f' (step {at:,}, explained)':<58} {'':>8}        {seconds:7.3f} s")
        seconds, _ = best_of(1, lambda: sum(1 for _ in replay(store.read("brawl"))))
        row("every step explained (replay --json of the whole scene)", n, seconds)
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
