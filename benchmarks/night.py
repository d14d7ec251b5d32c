"""Game nights (issue 15): what entering a scene costs at the start of a long night and at its end,
and what loading the night costs.

    .venv/bin/python -m benchmarks.night [--runs 5] [--repeats 30] [--scenes 50] [--events 20000] [--rebuild]

The night is built once, through the offline service (``SceneService.handle``, which carries every
follow-up between the night and its scenes inline), into a SQLite file kept between runs
(``.justicar/bench/night-<scenes>x<events>.db``, ``--rebuild`` to build it again): a lotn night
of twelve characters and ``--scenes`` scenes one after the other, four to six characters in each,
contested challenges of every category between those present (ties, ability retests, Traits lost,
the five-minute waits after a failed Social or Mental challenge), characters leaving mid-scene
and others sent in, the Storyteller restoring what a character has lost when it has lost a great
deal (so that what a character carries stays the size a real night's does), and now and then a
ruling that overturns a challenge of a closed scene and travels to the night and to the scene the
character is in now. Every scene but the last is closed; the night and its scenes hold about
``--events`` events in all. A copy of the file is kept at the start of the night, when the first
scene has just opened.

Each run copies both files and opens each with the store's own settings (WAL,
``synchronous=FULL``: every append is a durable commit), and again with ``synchronous=OFF``
(what the commits cost but their fsync). Both nights and their open scene are loaded first, as
a running server has them. Then ``--repeats`` times, interleaved: a character in no scene is sent
into the open scene (``move_character``, timed until ``handle`` returns: the night's
``character_moved``, then its arrival, the scene's ``character_entered``), at the start of the
night and at its end, and taken out again (not timed). After each, the baseline: reading and
decoding with plain sqlite3 and msgspec the rows of the whole night at its end (every stream), what
an entrance that read the night would pay at least.

The night's load: a fresh service's checked load of the night's stream at its end (read, chain
checked, decoded, folded; no snapshots), against reading and decoding the same rows with plain
sqlite3 and msgspec, interleaved. Every figure: the median of a run's repeats, then the median and
range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import gc
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import ROOT, cleanup, copy_db, header, parser, spread, table, workdir
from domain.commands import parse_command
from domain.events import ChallengeResolved
from server.service import Handled, SceneService
from server.store import SqliteStore

NIGHT = "night"
PEOPLE = ["ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kit", "lu"]
TRAITS = {"physical": ["Brawny", "Quick", "Tough"], "social": ["Charming", "Proud"], "mental": ["Clever", "Alert"]}
ABILITY = {"physical": "Brawl", "social": "Intimidation", "mental": "Occult"}
T0 = datetime(2026, 11, 28, 19, 0, tzinfo=UTC)


def _sheet(who: str) -> dict[str, Any]:
    return {
        "id": who,
        "name": who.capitalize(),
        "willpower": 3,
        "traits": {category: dict.fromkeys(names, 4) for category, names in TRAITS.items()},
        "abilities": {"Brawl": 99, "Intimidation": 99, "Occult": 99},
    }


class Builder:
    """A night played into a store through the offline service, on a clock of its own."""

    def __init__(self, store: SqliteStore, seed: int = 15) -> None:
        self.store = store
        self.rng = random.Random(seed)
        self.now = T0
        self.n = 0
        self.service = SceneService(store, clock=lambda: self.now, entropy=lambda: self.rng.getrandbits(256))

    def do(self, stream: str, actor: str, verb: str, **fields: Any) -> Handled:
        self.n += 1
        self.now += timedelta(seconds=2)
        body = {"id": f"b{self.n}", "scene": stream, "actor": actor, "type": verb, **fields}
        return self.service.handle(parse_command(msgspec.json.encode(body)))

    def ok(self, stream: str, actor: str, verb: str, **fields: Any) -> Handled:
        done = self.do(stream, actor, verb, **fields)
        if done.error is not None:
            raise RuntimeError(f"{verb} in {stream} refused: {done.error.message}")
        return done

    def total(self) -> int:
        return sum(self.store.head(stream)[0] for stream in self.store.scenes())

    def free(self) -> list[str]:
        night = self.service.state(NIGHT).night
        assert night is not None
        return [who for who in PEOPLE if who not in night.where]

    def present(self, scene: str) -> list[str]:
        return [c.id for c in self.service.state(scene).roster() if c.present]

    def challenge(self, scene: str, cid: str) -> None:
        """A contested challenge between two of those present, thrown to its end."""
        rng = self.rng
        a, d = rng.sample(self.present(scene), 2)
        category = rng.choice(["physical", "physical", "social", "mental"])
        state = self.service.state(scene)

        def bid(who: str) -> str | None:
            have = [t for t in TRAITS[category] if state.characters[who].left(t, category) > 0]  # type: ignore[arg-type]
            return rng.choice(have) if have else None

        bid_a, bid_d = bid(a), bid(d)
        if bid_a is None or bid_d is None:
            return
        fields = {"kind": "contested", "targets": [d], "category": category, "bid": [bid_a]}
        if self.do(scene, a, "declare", challenge=cid, **fields).error is not None:
            return  # a five-minute wait still running between them
        self.ok(scene, d, "bid", challenge=cid, bid=[bid_d])
        for _ in range(10):
            ch = self.service.state(scene).challenges[cid]
            if not ch.open:
                return
            sides = {"challenger": a, "defender": d}
            if ch.status in ("bidding", "throwing"):
                for who in (a, d):
                    self.do(scene, who, "throw", challenge=cid, sign=rng.choice(["rock", "paper", "scissors"]))
            elif ch.status == "tie_declaring":
                first = ch.declaring_first or "challenger"
                for role in (first, ch.other(first)):
                    self.do(scene, sides[role], "declare_traits", challenge=cid, count=rng.randint(0, 3))
            elif ch.status == "retest_window":
                if ch.pending_retest is not None:
                    self.do(scene, sides[ch.other(ch.pending_retest.role)], "pass", challenge=cid)
                    continue
                for role in ch.losing_roles():
                    if rng.random() < 0.3:
                        source = {"category": "ability", "name": ABILITY[category]}
                        self.do(scene, sides[role], "retest", challenge=cid, source=source)
                    else:
                        self.do(scene, sides[role], "pass", challenge=cid)
            else:
                break
        for cid_open in self.service.state(scene).undecided:
            self.ok(scene, "st", "withdraw", challenge=cid_open)

    def restore(self, scene: str) -> None:
        """The Storyteller gives back what a character present has lost when it has lost a lot."""
        for who in self.present(scene):
            lost = self.service.state(scene).characters[who].lost_names
            if len(lost) >= 8:
                changes = {"restore_traits": lost}
                self.ok(scene, "st", "adjust", character=who, changes=changes, reason="a long night")

    def rule_on_the_past(self, closed: list[str]) -> None:
        """Overturn a challenge of a closed scene: its corrections travel to the night and on."""
        scene = self.rng.choice(closed)
        resolved = [r.seq for r in self.store.read(scene) if isinstance(r.event, ChallengeResolved)]
        if resolved:
            seq = self.rng.choice(resolved)
            self.do(scene, "st", "rule", event=seq, decision="overturn", reason="seen again")

    def night(self, scenes: int, events: int, start: Path) -> None:
        self.ok(NIGHT, "st", "open_game", ruleset="lotn", title="A long night")
        for who in PEOPLE:
            self.ok(NIGHT, "st", "register_character", character=_sheet(who))
        closed: list[str] = []
        challenges = 0
        for k in range(1, scenes + 1):
            scene = f"s{k:02d}"
            self.ok(scene, "st", "open_scene", ruleset="lotn", title=f"Scene {k}", game=NIGHT)
            for who in self.rng.sample(self.free(), self.rng.randint(4, 6)):
                self.ok(NIGHT, "st", "move_character", character=who, to=scene)
            if k == 1:
                keep(self.store, start)
            budget = (events - self.total()) // (scenes - k + 1)
            until = self.total() + budget
            while self.total() < until:
                challenges += 1
                self.challenge(scene, f"c{challenges}")
                if self.rng.random() < 0.08 and self.free():
                    self.ok(NIGHT, "st", "move_character", character=self.rng.choice(self.free()), to=scene)
                if self.rng.random() < 0.08 and len(self.present(scene)) > 3:
                    who = self.rng.choice(self.present(scene))
                    self.ok(scene, "st", "remove_character", character=who)
                if challenges % 10 == 0:
                    self.restore(scene)
            if closed and k % 3 == 0:
                self.rule_on_the_past(closed)
            if k < scenes:
                self.ok(scene, "st", "close_scene")
                closed.append(scene)
            self.service.forget(scene)
            print(f"# built {scene}: {self.total():,} events in all", file=sys.stderr, end="\r")
        print(file=sys.stderr)


def keep(store: SqliteStore, path: Path) -> None:
    """A consistent copy of the store's database as it stands."""
    path.unlink(missing_ok=True)
    target = sqlite3.connect(path)
    store.db.conn.backup(target)
    target.close()


def build(db: Path, start: Path, scenes: int, events: int) -> None:
    for path in (db, start):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    store = SqliteStore(db)
    store.db.execute("PRAGMA synchronous=OFF")  # only to build it fast; the runs use copies
    Builder(store).night(scenes, events, start)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    print(f"# built {db.name} in {time.perf_counter() - started:.0f} s", file=sys.stderr)


class Table:
    """A copy of a night at some point: its store, a service with the night and its open scene
    loaded, and who can be sent in."""

    def __init__(self, source: Path, copy: Path, durable: bool) -> None:
        copy_db(source, copy)
        self.store = SqliteStore(copy)
        if not durable:
            self.store.db.execute("PRAGMA synchronous=OFF")
        self.service = SceneService(self.store)
        night = self.service.state(NIGHT)
        assert night.night is not None
        self.scene = next(s.id for s in night.night.scenes if s.open)
        self.service.state(self.scene)
        self.n = 0

    def send(self, verb: str, stream: str, **fields: Any) -> float:
        self.n += 1
        body = {"id": f"m{self.n}", "scene": stream, "actor": "st", "type": verb, **fields}
        command = parse_command(msgspec.json.encode(body))
        started = time.perf_counter()
        done = self.service.handle(command)
        took = time.perf_counter() - started
        if done.error is not None:
            raise RuntimeError(f"{verb} refused: {done.error.message}")
        return took

    def enter(self) -> float:
        """Send a character in no scene into the open scene (timed), and take it out (not)."""
        night = self.service.state(NIGHT).night
        assert night is not None
        who = next(c.id for c in self.service.state(NIGHT).roster() if c.id not in night.where)
        before = self.store.head(self.scene)[0]
        took = self.send("move_character", NIGHT, character=who, to=self.scene)
        assert self.service.state(self.scene).characters[who].present
        assert self.store.head(self.scene)[0] == before + 1
        self.send("remove_character", self.scene, character=who)
        return took

    def carried(self) -> str:
        """How much the characters it can send in carry (the most of them): Traits lost, waits
        (running or run out), and the waits the night keeps in all."""
        state = self.service.state(NIGHT)
        night = state.night
        assert night is not None and state.last_at is not None
        free = [c for c in state.roster() if c.id not in night.where]
        lost = max(len(c.lost) for c in free)
        waits = max(len(state.waits_of(c.id, T0)) for c in free)
        return f"{lost} Traits lost, {waits} waits; the night keeps {len(state.failures)} waits in all"

    def close(self) -> None:
        self.store.close()


def plain(db: Path, scene: str | None) -> Callable[[], tuple[float, int]]:
    """Reading and decoding rows with plain sqlite3 and msgspec: one stream's, or every one's."""
    conn = sqlite3.connect(db)
    args: tuple[str, ...] = (scene,) if scene is not None else ()
    sql = "SELECT data FROM events " + ("WHERE scene = ? " if args else "") + "ORDER BY scene, seq"

    def read() -> tuple[float, int]:
        started = time.perf_counter()
        n = 0
        for (data,) in conn.execute(sql, args):
            msgspec.json.decode(data)
            n += 1
        return time.perf_counter() - started, n

    return read


def main() -> None:
    p = parser(__doc__.splitlines()[0], runs=5)
    p.add_argument("--repeats", type=int, default=30, help="entrances timed per run and point (30)")
    p.add_argument("--scenes", type=int, default=50)
    p.add_argument("--events", type=int, default=20_000, help="events of the night and its scenes, in all")
    p.add_argument("--rebuild", action="store_true", help="build the night again even if its file is there")
    args = p.parse_args()
    run(args)


def run(args: argparse.Namespace) -> None:
    header(f"game night of {args.scenes} scenes and {args.events:,} events: entering a scene, loading the night")
    base = Path(args.dir) if args.dir else ROOT / ".justicar" / "bench"
    base.mkdir(parents=True, exist_ok=True)
    db = base / f"night-{args.scenes}x{args.events}.db"
    start = base / f"night-{args.scenes}x{args.events}-start.db"
    if args.rebuild or not (db.exists() and start.exists()):
        build(db, start, args.scenes, args.events)
    probe = SqliteStore(db, readonly=True)
    heads = {stream: probe.head(stream)[0] for stream in probe.scenes()}
    first = SqliteStore(start, readonly=True)
    at_start = sum(first.head(stream)[0] for stream in first.scenes())
    probe.close()
    first.close()
    print(
        f"# at its end: {sum(heads.values()):,} events in {len(heads)} streams, the night's own {heads[NIGHT]:,};"
        f" at its start: {at_start} events"
    )
    figures: dict[str, list[float]] = {}

    def keep_figure(label: str, value: float) -> None:
        figures.setdefault(label, []).append(value)

    notes: dict[str, str] = {}
    where = workdir(args)
    try:
        for r in range(args.runs):
            tables = {
                (point, durable): Table(source, where / f"{point}-{durable}-{r}.db", durable)
                for point, source in (("start", start), ("end", db))
                for durable in (True, False)
            }
            whole = plain(db, None)
            samples: dict[str, list[float]] = {}
            counted = 0
            gc.collect()
            for _ in range(args.repeats):
                for (point, durable), t in tables.items():
                    label = f"enter at the {point} ({'synchronous=FULL' if durable else 'synchronous=OFF'})"
                    samples.setdefault(label, []).append(t.enter() * 1000)
                took, counted = whole()
                samples.setdefault("plain", []).append(took * 1000)
            for label, values in samples.items():
                keep_figure(label, statistics.median(values))
            for (point, durable), t in tables.items():
                if durable:
                    notes[point] = t.carried()
                t.close()
            notes["plain"] = f"plain sqlite3 + msgspec decode of the whole night's {counted:,} rows"

            loads: list[float] = []
            bases: list[float] = []
            night_rows = plain(db, NIGHT)
            store = SqliteStore(copy_db(db, where / f"load-{r}.db"), readonly=True)
            for _ in range(max(3, args.repeats // 5)):
                gc.collect()
                started = time.perf_counter()
                state = SceneService(store).load(NIGHT)
                loads.append((time.perf_counter() - started) * 1000)
                took, count = night_rows()
                bases.append(took * 1000)
                assert count == state.version
            store.close()
            keep_figure("load", statistics.median(loads))
            keep_figure("load plain", statistics.median(bases))
            print(f"# run {r + 1}: done", file=sys.stderr)
    finally:
        cleanup(where)
    for point in ("start", "end"):
        print(f"# what the characters sent in carry at the {point}: {notes[point]}")
    rows = [[label, spread(values, ".3f")] for label, values in figures.items() if label.startswith("enter")]
    rows.append([notes["plain"], spread(figures["plain"], ".3f")])
    rows.append(
        [f"load the night's stream ({heads[NIGHT]:,} events, checked, no snapshot)", spread(figures["load"], ".3f")]
    )
    rows.append(
        [f"plain sqlite3 + msgspec decode of the night's {heads[NIGHT]:,} rows", spread(figures["load plain"], ".3f")]
    )
    table(["", "ms"], rows)


if __name__ == "__main__":
    main()
