"""Audit time: the post-game audit of a long scene, from the stored records to the HTML page.

    .venv/bin/python -m benchmarks.audit [--events 5000]

Goal: a 5,000-event scene audits in under 1 s. Baseline in the same run: reading and decoding the
same rows with plain sqlite3 and msgspec.
"""

from __future__ import annotations

import sqlite3
import time

import msgspec

from benchmarks.common import cleanup, header, parser, workdir
from benchmarks.scenes import brawl
from projections.audit import audit
from projections.audit_render import html, markdown
from server.service import SceneService
from server.store import SqliteStore


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=5000)
    args = p.parse_args()
    header(f"audit of a {args.events:,}-event scene")
    where = workdir(args)
    try:
        store = SqliteStore(where / "audit.db")
        store.db.execute("PRAGMA synchronous=OFF")  # only to build the scene fast; it is read below
        brawl(args.events, service=SceneService(store, honour_at=True))
        n = store.head("brawl")[0]
        for label, render in (("json", lambda a: msgspec.json.encode(a)), ("md", markdown), ("html", html)):
            started = time.perf_counter()
            report = audit(list(store.read_wire("brawl")))
            size = len(render(report))
            seconds = time.perf_counter() - started
            print(
                f"{'audit --format ' + label:<40} {n:>6} events, {len(report.challenges):>4} challenges, "
                f"{size / 1024:8.0f} KiB in {seconds:6.3f} s"
            )
        conn = sqlite3.connect(where / "audit.db")
        started = time.perf_counter()
        for (data,) in conn.execute("SELECT data FROM events WHERE scene = 'brawl' ORDER BY seq"):
            msgspec.json.decode(data)
        print(f"{'plain sqlite3 + msgspec decode':<40} {n:>6} events in {time.perf_counter() - started:6.3f} s")
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
