"""Rulesets side by side: a long lotn brawl and a long bns brawl (``benchmarks.scenes``, the same
six characters, the same kinds of step a table meets, each played through the real command path
into one SQLite file) folded from scratch the lean way (``fold_rows(scene, store.rows(scene))``),
alternately, each followed by its baseline: plain ``sqlite3`` + msgspec typed decoding of the same
rows.

    .venv/bin/python -m benchmarks.rulesets [--runs 5] [--events 100000]

Goal (issue 11): a 100,000-event bns scene replays at no less than 90% of lotn's events per second.
Also measured (issue 12): a bns fight in rounds of the same length (actions, maneuvers, conditions,
fair escapes), beside them; and (issue 13) a kony fight in rounds (expenditures, d10 ties, d3s with
retests, range, surprise, darkness, overbids).
Every figure: the median and the range (min-max) over ``--runs`` runs; the ratio is taken run by
run (each run measures both, one right after the other).
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import cleanup, header, parser, spread, table, workdir
from benchmarks.replay import Plain
from benchmarks.scenes import playing
from domain.evolve import fold_rows
from server.service import SceneService
from server.store import SqliteStore

GOAL = 0.9
RULESETS = ("lotn", "bns", "bns-fight", "kony")
"""The scenes compared: a lotn brawl, a bns brawl, a bns fight in rounds (scene ids as named)."""


def dice(rng: random.Random) -> Callable[[], int]:
    return lambda: rng.getrandbits(256)


def build(path: Path, events: int) -> SqliteStore:
    store = SqliteStore(path)
    for ruleset in RULESETS:
        service = SceneService(store, honour_at=True, entropy=dice(random.Random(7)))
        started = time.perf_counter()
        for _ in playing(events, scene=ruleset, service=service, rng=random.Random(7), ruleset=ruleset):
            pass
        print(f"# built {ruleset}: {store.head(ruleset)[0]:,} events in {time.perf_counter() - started:.0f} s")
    return store


def baseline(plain: Plain, scene: str) -> float:
    """The baseline (``benchmarks.replay.Plain``): the scene's rows fetched with sqlite3 and
    decoded by msgspec, nothing more."""
    gc.collect()
    started = time.perf_counter()
    plain.decode(scene)
    return time.perf_counter() - started


def ours(store: SqliteStore, scene: str) -> float:
    gc.collect()
    started = time.perf_counter()
    state = fold_rows(scene, store.rows(scene))
    elapsed = time.perf_counter() - started
    assert state.version == store.head(scene)[0]
    return elapsed


def main() -> None:
    p = parser(__doc__.splitlines()[0], runs=5)
    p.add_argument("--events", type=int, default=100_000)
    args = p.parse_args()
    header(f"lotn, bns and kony replay of {args.events:,}-event scenes, {args.runs} runs")
    work = workdir(args)
    path = work / "rulesets.db"
    try:
        store = build(path, args.events)
        counts = {ruleset: store.head(ruleset)[0] for ruleset in RULESETS}
        plain = Plain(path)
        times: dict[str, list[float]] = {f"{r} {k}": [] for r in RULESETS for k in ("fold", "plain")}
        ratios: list[float] = []
        fights: list[float] = []
        konys: list[float] = []
        for run in range(1, args.runs + 1):
            rates = {}
            for ruleset in RULESETS if run % 2 else reversed(RULESETS):  # alternate which goes first
                took = ours(store, ruleset)
                times[f"{ruleset} fold"].append(took)
                times[f"{ruleset} plain"].append(baseline(plain, ruleset))
                rates[ruleset] = counts[ruleset] / took
            ratios.append(rates["bns"] / rates["lotn"])
            fights.append(rates["bns-fight"] / rates["lotn"])
            konys.append(rates["kony"] / rates["lotn"])
            print(f"# run {run}: " + ", ".join(f"{r} {rates[r]:,.0f} events/s" for r in RULESETS))
        rows = []
        for ruleset in RULESETS:
            fold_s = sorted(times[f"{ruleset} fold"])[args.runs // 2]
            rows.append(
                [
                    ruleset,
                    f"{counts[ruleset]:,}",
                    spread(times[f"{ruleset} fold"], ".3f"),
                    f"{counts[ruleset] / fold_s:,.0f}",
                    spread(times[f"{ruleset} plain"], ".3f"),
                ]
            )
        print()
        table(["ruleset", "events", "fold_rows s", "events/s (median)", "plain sqlite3+msgspec s"], rows)
        verdict = "met" if sorted(ratios)[args.runs // 2] >= GOAL else "NOT met"
        print(f"\nbns / lotn events per second, run by run: {spread(ratios, '.2f')} (goal at least {GOAL}: {verdict})")
        print(f"bns-fight / lotn events per second, run by run: {spread(fights, '.2f')}")
        print(f"kony / lotn events per second, run by run: {spread(konys, '.2f')}")
    finally:
        cleanup(work)


if __name__ == "__main__":
    main()
