"""Audit time: the post-game audit of a long scene, from the stored records to the HTML page.

    .venv/bin/python -m benchmarks.audit [--runs 3] [--events 5000]

Goal: a 5,000-event scene audits in under 1 s. Baseline in the same run, after each audit:
reading and decoding the same rows with plain sqlite3 and msgspec. Each figure: the median and
range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import gc
import sqlite3
import time
from collections.abc import Callable

import msgspec

from benchmarks.common import cleanup, header, parser, spread, table, workdir
from benchmarks.scenes import brawl
from projections.audit import Audit, audit
from projections.audit_render import html, markdown
from server.service import SceneService
from server.store import SqliteStore


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=5000)
    args = p.parse_args()
    header(f"audit of a {args.events:,}-event scene, {args.runs} runs")
    where = workdir(args)
    try:
        store = SqliteStore(where / "audit.db")
        store.db.execute("PRAGMA synchronous=OFF")  # only to build the scene fast; it is read below
        brawl(args.events, service=SceneService(store, honour_at=True))
        n = store.head("brawl")[0]
        conn = sqlite3.connect(where / "audit.db")

        def plain() -> float:
            started = time.perf_counter()
            for (data,) in conn.execute("SELECT data FROM events WHERE scene = 'brawl' ORDER BY seq"):
                msgspec.json.decode(data)
            return time.perf_counter() - started

        renders: list[tuple[str, Callable[[Audit], bytes | str]]] = [
            ("json", lambda a: msgspec.json.encode(a)),
            ("md", markdown),
            ("html", html),
        ]
        times: dict[str, list[float]] = {}
        sizes: dict[str, int] = {}
        challenges = 0
        for _ in range(args.runs):
            for label, render in renders:
                gc.collect()
                started = time.perf_counter()
                report = audit(list(store.read_wire("brawl")))
                sizes[label] = len(render(report))
                times.setdefault(label, []).append(time.perf_counter() - started)
                times.setdefault("plain sqlite3 + msgspec decode of the same rows", []).append(plain())
                challenges = len(report.challenges)
        print(f"# {n:,} events, {challenges} challenges")
        rows = [
            [f"audit --format {label}", spread(times[label], ".3f"), f"{sizes[label] / 1024:,.0f}"]
            for label, _ in renders
        ]
        baseline = "plain sqlite3 + msgspec decode of the same rows"
        rows.append([baseline, spread(times[baseline], ".3f"), ""])
        table(["", "s", "KiB"], rows)
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
