"""Replay: a long scene read and folded from SQLite (from scratch, the lean way and the record way),
stored alone or interleaved with other scenes, loaded with a snapshot, and any step reached; each
against plain sqlite3 + msgspec decoding the same rows, measured right beside it.

    .venv/bin/python -m benchmarks.replay [--runs 3] [--events 100000] [--others 3] [--no-explain]
        [--ruleset lotn|bns|bns-fight|kony]

Two copies of the same brawl (``benchmarks.scenes``: same script, same dice) are played through
the real command path into one SQLite file, with snapshots saved as the server saves them (every
1,000 events): ``alone``, played by itself, its rows side by side on disk; and ``interleaved``,
played one command at a time in turn with ``--others`` other brawls of the same length, as a live
server writes the scenes of an evening, so its rows are spread over the whole file.

Per scene and run, each timed once, in this order, each ours followed by its baseline:

- ``fold(store.read(scene))``: records (envelope, time, decoded event), then folded;
- ``fold_rows(scene, store.rows(scene))``: the lean path (seq, time, type, data: no records);
- ``SceneService(store).load(scene)``: the server's checked load (every link and hash) from scratch;
- ``SceneService(store, snapshots=Snapshots(store)).load(scene)``: the same from the latest snapshot;
- reaching a step with the help of the snapshot (``server.catchup.fold_to``, as a catch-up
  with words or a page of history does): 10 steps drawn at random, and the step just before the
  latest snapshot (the worst case when only the latest is kept);
- the baseline: plain ``sqlite3`` + msgspec typed decoding of the scene's rows (``type, data``).

Then, for the scene stored alone, the parts (read and decode into records; the fold alone; the
plain fetch) and the step-by-step replay of issue 4: seek to a step and explain it as ``justicar
replay --from N --to N`` does (``clients/offline.py``: the lean fold up to the step, the step read
and explained, its links to disputes and rulings); and, unless ``--no-explain``, every step
explained. Last, how long a thread that wakes every millisecond (as the server's event loop)
waits while a worker thread loads the latest snapshot, or folds the whole scene, with the
server's switch interval (``server.app.SWITCH``): a long call that never lets go of the
interpreter shows here. Every figure: the median and the range (min-max) over
``--runs`` runs.

Goals (the project's): a 100,000-event scene from scratch in at most 0.45 s; any step, with
snapshots, in under 0.1 s.
"""

from __future__ import annotations

import gc
import random
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec

from benchmarks.common import cleanup, header, parser, spread, table, workdir
from benchmarks.scenes import playing
from domain.events import SceneEvent
from domain.evolve import fold, fold_rows
from domain.state import NARRATOR, Scene
from projections.replay import Step, links_of_rows, replay
from server.app import SWITCH
from server.catchup import fold_to
from server.service import SceneService
from server.snapshots import Snapshots
from server.store import SqliteStore

T = TypeVar("T")
GOAL_SCRATCH, GOAL_STEP = 0.45, 0.1
ALONE, INTERLEAVED = "alone", "interleaved"


def timed(work: Callable[[], T]) -> tuple[float, T]:
    gc.collect()
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def service(store: SqliteStore, snapshots: bool, seed: int) -> SceneService:
    dice = random.Random(seed)
    entropy = lambda: dice.getrandbits(256)  # noqa: E731
    return SceneService(store, honour_at=True, entropy=entropy, snapshots=Snapshots(store) if snapshots else None)


def build(path: Path, events: int, others: int, ruleset: str = "lotn") -> SqliteStore:
    """The brawl alone, then the same brawl interleaved command by command with ``others`` more
    (``ruleset``: a lotn brawl, a bns one, a bns fight in rounds, or a kony fight in rounds)."""
    store = SqliteStore(path)
    store.db.execute("PRAGMA synchronous=OFF")  # only to build fast
    started = time.perf_counter()
    for _ in playing(events, scene=ALONE, service=service(store, True, 11), ruleset=ruleset):
        pass
    print(f"# {ALONE}: {store.head(ALONE)[0]:,} events in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    started = time.perf_counter()
    companions = service(store, False, 12)
    players: list[Iterator[int]] = [
        playing(events, scene=INTERLEAVED, service=service(store, True, 11), ruleset=ruleset)
    ]
    players += [
        playing(events, seed=8 + n, scene=f"other{n}", service=companions, ruleset=ruleset) for n in range(others)
    ]
    while players:
        for player in list(players):
            if next(player, None) is None:
                players.remove(player)
    print(
        f"# {INTERLEAVED}: {store.head(INTERLEAVED)[0]:,} events among {others} other scenes of"
        f" {store.head('other0')[0] if others else 0:,}, in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return store


class Plain:
    """The baseline: plain sqlite3 and msgspec typed decoding of a scene's rows."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path)
        self.decoders = {cls.type_name(): msgspec.json.Decoder(cls) for cls in SceneEvent.__args__}

    def decode(self, scene: str, upto: int | None = None) -> int:
        count = 0
        sql = "SELECT type, data FROM events WHERE scene = ? AND seq <= ? ORDER BY seq"
        for type_, data in self.conn.execute(sql, [scene, upto if upto is not None else 1 << 62]):
            self.decoders[type_].decode(data)
            count += 1
        return count

    def fetch(self, scene: str) -> int:
        sql = "SELECT type, data FROM events WHERE scene = ? ORDER BY seq"
        return len(self.conn.execute(sql, [scene]).fetchall())


Figures = dict[str, list[float]]


def measure(store: SqliteStore, plain: Plain, scene: str, steps: list[int], expected: Scene, out: Figures) -> None:
    def add(key: str, seconds: float) -> None:
        out.setdefault(key, []).append(seconds)

    def with_baseline(key: str, work: Callable[[], Scene]) -> None:
        seconds, state = timed(work)
        assert state == expected, f"{key}: the state differs from the live one"
        add(key, seconds)
        add(key + " baseline", timed(lambda: plain.decode(scene))[0])

    with_baseline("fold(read)", lambda: fold(store.read(scene)))
    with_baseline("fold_rows(rows)", lambda: fold_rows(scene, store.rows(scene)))
    with_baseline("checked load, from scratch", lambda: SceneService(store).load(scene))
    with_baseline("checked load, with snapshot", lambda: SceneService(store, snapshots=Snapshots(store)).load(scene))
    snapshots = Snapshots(store)
    times = []
    for step in steps:
        seconds, state = timed(lambda step=step: fold_to(store, snapshots, scene, step))  # type: ignore[misc]
        assert state.version == step
        times.append(seconds)
    add("step, median of 11", sorted(times)[len(times) // 2])
    add("step, worst of 11", max(times))
    add("step, just before the snapshot", times[-1])
    add("step baseline", timed(lambda: plain.decode(scene, steps[-1]))[0])


def pause(work: Callable[[], object]) -> float:
    """The longest (ms) a thread that wakes every millisecond, as the server's event loop would,
    waits while ``work`` runs on another thread as the server's worker runs it: the server's
    switch interval, the cyclic collector paused during the job (``server.worker.Worker``). What
    the job returns is kept until the measure ends (freeing a whole state is a pause of its own)."""
    done = threading.Event()
    kept: list[object] = []

    def run() -> None:
        gc.disable()
        try:
            kept.append(work())
        finally:
            gc.enable()
            done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH)
    worker = threading.Thread(target=run)
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    sys.setswitchinterval(interval)
    return longest * 1000


def pauses(store: SqliteStore, scene: str, out: Figures) -> None:
    gc.collect()
    out.setdefault("the latest snapshot loaded (Snapshots.load)", []).append(
        pause(lambda: Snapshots(store).load(scene))
    )
    gc.collect()
    out.setdefault("the whole scene folded (fold_rows)", []).append(pause(lambda: fold_rows(scene, store.rows(scene))))


def parts(store: SqliteStore, plain: Plain, scene: str, out: Figures, explain: bool) -> int:
    def add(key: str, seconds: float) -> None:
        out.setdefault(key, []).append(seconds)

    add("read + decode into records", timed(lambda: list(store.read(scene)))[0])
    records = list(store.read(scene))
    add("rows only (store.rows)", timed(lambda: list(store.rows(scene)))[0])
    add("fold alone (evolve over records)", timed(lambda: fold(records))[0])
    add("plain sqlite3 fetch alone", timed(lambda: plain.fetch(scene))[0])
    n = len(records)
    for label, at in (("seek to the end, explained", n), ("seek to the middle, explained", n // 2)):

        def seek(at: int = at) -> list[Step]:  # as `justicar replay --from N --to N` (clients/offline.py)
            before = fold_rows(scene, store.rows(scene, upto=at - 1))
            shown = store.read(scene, after=at - 1, upto=at)
            return list(replay(shown, NARRATOR, before, links_of_rows(store.rows(scene))))

        seconds, steps = timed(seek)
        assert steps[0].seq == at
        add(label, seconds)
    if explain:
        add("every step explained", timed(lambda: sum(1 for _ in replay(store.read(scene))))[0])
    return n


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--others", type=int, default=3, help="scenes interleaved with the second copy (default 3)")
    p.add_argument("--no-explain", action="store_true", help="skip explaining every step (10 s a run)")
    p.add_argument(
        "--ruleset",
        choices=("lotn", "bns", "bns-fight", "kony"),
        default="lotn",
        help="the scene: a brawl, a bns fight, or a kony fight",
    )
    args = p.parse_args()
    header(f"replay of a {args.events:,}-event {args.ruleset} scene, {args.runs} runs")
    where = workdir(args)
    try:
        path = where / "replay.db"
        store = build(path, args.events, args.others, args.ruleset)
        plain = Plain(path)
        head = {scene: store.head(scene)[0] for scene in (ALONE, INTERLEAVED)}
        steps: dict[str, list[int]] = {}
        rng = random.Random(5)
        drawn = sorted(rng.randint(1, min(head.values())) for _ in range(10))
        for scene in head:
            snapshot = Snapshots(store).load(scene)
            at = snapshot.state.version if snapshot else head[scene]
            sql = "SELECT count(*), max(length(state)) FROM snapshots WHERE scene = ?"
            kept, largest = plain.conn.execute(sql, [scene]).fetchone()
            print(
                f"# {scene}: {head[scene]:,} events; snapshots: {kept} kept, the latest at event {at:,},"
                f" the largest {(largest or 0) / 2**20:.1f} MiB"
            )
            steps[scene] = [*drawn, max(1, at - 1)]
        print(f"# steps reached: {steps[ALONE]}")
        expected = {scene: fold_rows(scene, store.rows(scene)) for scene in head}
        figures: dict[str, Figures] = {scene: {} for scene in head}
        alone: Figures = {}
        paused: Figures = {}
        n = head[ALONE]
        for run in range(1, args.runs + 1):
            for scene in head:
                measure(store, plain, scene, steps[scene], expected[scene], figures[scene])
            parts(store, plain, ALONE, alone, not args.no_explain)
            pauses(store, ALONE, paused)
            print(f"#   run {run} done", file=sys.stderr)

        print(f"\n## across {args.runs} runs: seconds, median (min-max); events/s from the median")
        rows = []
        for key in ("fold(read)", "fold_rows(rows)", "checked load, from scratch", "checked load, with snapshot"):
            for scene in head:
                ours, base = figures[scene][key], figures[scene][key + " baseline"]
                ratios = [o / b for o, b in zip(ours, base, strict=True)]
                rows.append(
                    [
                        f"{key} ({scene})",
                        spread(ours, ".3f"),
                        f"{n / sorted(ours)[len(ours) // 2]:,.0f}" if "snapshot" not in key else "",
                        spread(base, ".3f"),
                        spread(ratios, ".1f") + "x",
                    ]
                )
        table([f"{n:,} events", "s", "events/s", "plain msgspec s", "ours / plain"], rows)
        print()
        rows = []
        for scene in head:
            f = figures[scene]
            for key in ("step, median of 11", "step, worst of 11", "step, just before the snapshot", "step baseline"):
                rows.append([f"{key} ({scene})", spread(f[key], ".3f")])
        table(["a step reached with the snapshot", "s"], rows)
        print()
        table(["the scene stored alone", "s"], [[key, spread(values, ".3f")] for key, values in alone.items()])
        print()
        table(
            ["on a worker thread: the longest another thread waits", "ms"],
            [[key, spread(values, ".1f")] for key, values in paused.items()],
        )
        best = {scene: min(sorted(figures[scene][k])[args.runs // 2] for k in ("fold_rows(rows)",)) for scene in head}
        print(
            f"# goal: from scratch in at most {GOAL_SCRATCH} s (lean fold: {best[ALONE]:.3f} s alone,"
            f" {best[INTERLEAVED]:.3f} s interleaved); any step with snapshots under {GOAL_STEP} s"
            f" (worst: {max(max(figures[s]['step, worst of 11']) for s in head):.3f} s)"
        )
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
