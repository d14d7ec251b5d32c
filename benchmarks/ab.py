"""This tree against another checkout of the project (an older commit, in a ``git worktree``),
alternately, in fresh processes with the same interpreter: the fold of a 20,000-event lotn and bns
brawl (events/s), a commit's frame per viewer (µs), and a folded 1,000-event brawl's state
(tracemalloc KiB; beside it, where the tree has ``domain.state.shared``, that state with one copy
of each part that repeats, as a loaded scene is kept). Each figure is the best of many batches,
which a busy neighbour on a shared machine does not move; the median and range are over
``--runs`` alternations.

    git worktree add /tmp/old ebe1515
    .venv/bin/python -m benchmarks.ab --old /tmp/old [--runs 3]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.common import ROOT, header, parser, spread, table

PROBE = r"""
import gc, json, random, sys, time, tracemalloc
import msgspec
from benchmarks import pages as P
from benchmarks.scenes import brawl, playing
import domain.context as C
from domain.commands import parse_command
from domain.evolve import fold
from server.service import SceneService
from server.store import MemoryStore
from server.wire import after_commit, befores_of

out = {}
for ruleset in ("lotn", "bns"):
    rng = random.Random(7)
    if hasattr(C, "ENTROPY_BITS"):  # one 256-bit value a command (since 464368e)
        dice = lambda: rng.getrandbits(256)
    else:  # sixteen 32-bit draws a command, before
        dice = lambda: tuple(rng.getrandbits(32) for _ in range(16))
    service = SceneService(MemoryStore(), honour_at=True, entropy=dice)
    for _ in playing(20000, scene="x", service=service, rng=random.Random(7), ruleset=ruleset):
        pass
    records = list(service.store.read("x"))
    best = 9.0
    for _ in range(7):
        gc.collect()
        started = time.perf_counter()
        fold(records)
        best = min(best, time.perf_counter() - started)
    out[f"fold {ruleset}, events/s"] = len(records) / best
service = SceneService(MemoryStore())
for n, body in enumerate(P.SCRIPT):
    service.handle(parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "b", "actor": "st", **body})))
before = service.state("b")
handled = service.handle(parse_command(msgspec.json.encode({"id": "r", "scene": "b", **P.RETEST})))
state, records = service.state("b"), handled.records
befores = befores_of(records, before)
viewers = (("spectator", "*", None), ("Storyteller, words", "st", befores), ("player, moves", "ann", None))
for label, viewer, words in viewers:
    out[f"frame: {label}, us"] = min(P.per_call(lambda: after_commit(state, records, viewer, words), 500, 30))
store, _ = brawl(1000)
rows = list(store.read("brawl"))
gc.collect()
tracemalloc.start()
kept = fold(rows)
gc.collect()
out["1,000-event state, KiB"] = tracemalloc.get_traced_memory()[0] / 1024
tracemalloc.stop()
import domain.state as S
if hasattr(S, "shared"):  # one copy of what repeats, as a loaded scene is kept (issue 10)
    del kept
    gc.collect()
    tracemalloc.start()
    kept = S.shared(fold(rows))
    gc.collect()
    out["1,000-event state, shared, KiB"] = tracemalloc.get_traced_memory()[0] / 1024
print(json.dumps(out))
"""


def probe(tree: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tree,
        env={"PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    p = parser(__doc__.splitlines()[0], runs=3)
    p.add_argument("--old", type=Path, required=True, help="the other checkout (a git worktree)")
    args = p.parse_args()
    header(f"this tree against {args.old}, {args.runs} alternations")
    runs: dict[str, dict[str, list[float]]] = {"new": {}, "old": {}}
    for n in range(1, args.runs + 1):
        for side, tree in (("new", ROOT), ("old", args.old)) if n % 2 else (("old", args.old), ("new", ROOT)):
            for key, value in probe(tree).items():
                runs[side].setdefault(key, []).append(value)
        print(f"# run {n} done", flush=True)
    rows = [
        [
            key,
            spread(runs["new"][key], ",.0f" if "/s" in key else ".1f"),
            spread(runs["old"][key], ",.0f" if "/s" in key else ".1f") if key in runs["old"] else "-",
        ]
        for key in runs["new"]
    ]
    table(["measure (best of many batches)", "this tree", str(args.old)], rows)


if __name__ == "__main__":
    main()
