"""Live server benchmarks: latency to the last subscriber of a table, throughput, memory per loaded scene.

    .venv/bin/python -m benchmarks.live latency [--runs 3] [--rounds 300] [--block 50] [--scenes demo,1000,10000,100000]
    .venv/bin/python -m benchmarks.live throughput [--runs 3] [--seconds 3] [--many 50]
    .venv/bin/python -m benchmarks.live throughput --against /tmp/old   # + another checkout, same runs
    .venv/bin/python -m benchmarks.live memory [--runs 3] [--copies 100]
    .venv/bin/python -m benchmarks.live deadlines [--runs 3] [--many 50] [--idle 1000] [--quiet 10]
    .venv/bin/python -m benchmarks.live all [--runs 3]

The server runs as its own process (``justicar serve --log-json`` on a SQLite file in
.justicar/bench, WAL and ``synchronous=FULL``, the rate limit lifted, its log in a file), the
clients in this one, all on loopback; 2 cores share both. The scenes are built once per
invocation through the real command path (``benchmarks.scenes.build``: the demo, brawls of 1,000,
10,000 and 100,000 events, snapshots saved as the server saves them), then each given open
challenges (each character declared against another, awaiting the answer); every run serves a
fresh copy of that file from a fresh server.

latency
    Per scene, a *table mix* of 50 subscribers, all with ``summaries: true`` (each event in words,
    as the pages ask): a player per character in an open challenge (their own tokens: their views
    carry the moves open to them, probed afresh on every commit), the Storyteller, and spectators
    up to 50. The Storyteller (also subscribed) sends an ``adjust`` of a character in an open
    challenge; a sample is the time from sending it to the moment the LAST of the 50 has received
    the ``commit`` frame. The server's own time for the command (from its JSON log: ``latency_ms``
    of the ``command`` line, from taking the command to having written every push and the result)
    is reported beside it. Baseline, in the same run and interleaved with ours (``--block`` rounds
    of ours, then as many of the baseline, and so on): a bare ``websockets`` server (compression
    off, as ours) that, when the sender asks, ``broadcast``s to the same 50 clients frames of the
    sizes ours sent each of them in the block before (a player's, the Storyteller's, the
    spectators'), through the same client code; the sender is one of the 50, as ours.

throughput
    Committed ``adjust`` commands a second, pushed to every subscriber, for ``--seconds``: one
    scene (the 1,000-event brawl) with 4 concurrent Storyteller senders and the 50-subscriber
    table mix; and ``--many`` scenes (demo copies with open challenges), each with one sender and
    a table mix of 10 (6 players, the Storyteller, 3 spectators). Beside each rate, the server
    process's CPU time per command over the same seconds (user and system, all threads: what a
    busy neighbour on a shared machine moves least).

``--against DIR`` (latency, throughput): the server of another checkout of the project too (``git
worktree add /tmp/old <commit>``), alternating with this one's within each run, the same clients
and scenes; throughput gives the same-run ratio.

memory
    Server RSS growth per loaded scene: ``--copies`` copies of the demo (61 events), then of a
    1,000-event brawl, each loaded by subscribing once (a fresh server per kind and run), from one
    loaded to all. Each is measured twice: with SQLite's page caches cold (the growth then
    includes their filling up, a fixed cost: 2 MiB a connection at most, SQLite's default), and
    warm (``WARM`` other 1,000-event brawls loaded first, which fills them). Beside it, the
    brawl's state alone (traced allocations in this process), loaded as the server loads it (its
    snapshot, then the log after it), folded from its first event, and kept with one copy of each
    part that repeats (``domain.state.shared``).

deadlines
    What response deadlines cost: busy scenes with and without them, and a server idle on a
    thousand scenes each with a deadline running, against one on as many without
    (``benchmarks.deadlines``).

Every figure is given as the median and the range (min-max) over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from websockets.asyncio.client import ClientConnection, connect

import domain.state as state_module
from benchmarks.common import (
    ROOT,
    cleanup,
    copy_db,
    header,
    percentile,
    spread,
    table,
    workdir,
)
from benchmarks.scenes import Table, build
from domain.state import Scene
from server.service import SceneService
from server.snapshots import Snapshots
from server.store import SqliteStore

SUBSCRIBERS = 50
WARM_UP = 20
"""Rounds of each kind discarded first (per scene and run): the room is loaded, caches filled."""
TIMEOUT = 60.0

BARE_SERVER = """
import asyncio, json, sys
from websockets.asyncio.server import serve, broadcast
subs = []
async def handler(ws):
    try:
        async for message in ws:
            if message == "hi":
                subs.append(ws)
                await ws.send("ok")
            elif message.startswith("go:"):
                groups = {}
                for conn, size in zip(subs, json.loads(message[3:])):
                    groups.setdefault(size, []).append(conn)
                for size, conns in groups.items():
                    broadcast(conns, "x" * size)
                await ws.send("sent")
    finally:
        if ws in subs:
            subs.remove(ws)
async def main():
    async with serve(handler, "127.0.0.1", int(sys.argv[1]), compression=None, max_size=2**22):
        print("ready", flush=True)
        await asyncio.Future()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """A server process, stopped (with SIGTERM) on exit; its stderr to ``log`` if given."""

    def __init__(self, argv: list[str], log: Path | None = None, root: Path = ROOT) -> None:
        self.log: IO[str] | None = open(log, "w", encoding="utf-8") if log else None  # noqa: SIM115
        env = None if root == ROOT else {**os.environ, "PYTHONPATH": str(root)}
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self.log or subprocess.DEVNULL, text=True, cwd=root, env=env
        )

    def cpu_seconds(self) -> float:
        """CPU time the process has used so far (user and system, all its threads)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_ready(self, word: str) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if word in line:
                return
        raise RuntimeError("the server did not start")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.log is not None:
            self.log.close()


def justicar(db: Path, port: int, log: Path | None = None, root: Path = ROOT) -> Served:
    """``justicar serve --log-json`` on ``db``, the rate limit lifted, its log lines to ``log``; the
    server of the checkout at ``root`` (``--against``), this one's by default."""
    argv = [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port)]
    argv += ["--rate", "1000000", "--burst", "1000000", "--log-json"]
    served = Served(argv, log, root)
    served.wait_ready("listens on")
    return served


def bare_server() -> tuple[Served, str]:
    port = free_port()
    served = Served([sys.executable, "-c", BARE_SERVER, str(port)])
    served.wait_ready("ready")
    return served, f"ws://127.0.0.1:{port}"


def server_latencies(log: Path) -> dict[str, float]:
    """``latency_ms`` per command id, from the server's JSON log."""
    found = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"command"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") == "command" and "latency_ms" in entry:
            found[str(entry.get("id"))] = float(entry["latency_ms"])
    return found


# -- clients ------------------------------------------------------------------------------------


def kind(frame: bytes) -> bytes:
    return frame[9 : frame.find(b'"', 9)] if frame.startswith(b'{"type":"') else b"?"


async def hello(url: str, token: str) -> ClientConnection:
    """A connection said hello on, as a page's: it answers the server's pings and sends none of its
    own (a browser never does; thousands of a benchmark's connections pinging would load the
    machine's cores with what a real table's phones do elsewhere)."""
    ws = await connect(url, compression=None, max_size=None, max_queue=None, open_timeout=TIMEOUT, ping_interval=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    reply = await ws.recv(decode=False)
    if kind(reply) != b"welcome":
        raise RuntimeError(f"hello refused: {reply[:200]!r}")
    return ws


async def subscriber(url: str, token: str, since: int | None, summaries: bool = True) -> tuple[ClientConnection, int]:
    """A connection subscribed to its token's scene; and the scene's version then."""
    ws = await hello(url, token)
    ask: dict[str, object] = {"type": "subscribe", "summaries": summaries}
    if since is not None:
        ask["since"] = since
    await ws.send(json.dumps(ask))
    async with asyncio.timeout(TIMEOUT):
        while True:
            frame = await ws.recv(decode=False)
            if kind(frame) == b"subscribed":
                return ws, int(json.loads(frame)["version"])
            if kind(frame) == b"error":
                raise RuntimeError(f"subscribe refused: {frame[:300]!r}")


@dataclass
class Mix:
    """A table's subscribers: the Storyteller first, then the players, then the spectators."""

    conns: list[ClientConnection]
    roles: list[str]
    version: int

    @property
    def st(self) -> ClientConnection:
        return self.conns[0]

    async def close(self) -> None:
        await asyncio.gather(*(ws.close() for ws in self.conns))


async def table_mix(url: str, table: Table, count: int) -> Mix:
    st, version = await subscriber(url, table.st, table.version)
    conns, roles = [st], ["st"]
    for who, token in table.players.items():
        conns.append((await subscriber(url, token, version))[0])
        roles.append(f"player {who}")
    while len(conns) < count:
        conns.append((await subscriber(url, table.spectator, version))[0])
        roles.append("spectator")
    await settle(conns)
    return Mix(conns, roles, version)


async def settle(conns: Sequence[ClientConnection]) -> None:
    """Read what is waiting (presence) until all is quiet."""

    async def quiet(ws: ClientConnection) -> None:
        while True:
            try:
                await asyncio.wait_for(ws.recv(decode=False), 0.05)
            except TimeoutError:
                return

    await asyncio.gather(*(quiet(ws) for ws in conns))


async def _until(ws: ClientConnection, marker: bytes, then: bytes | None = None) -> tuple[float, int]:
    """Read until a frame starting with ``marker`` (its receipt time and size), then, with
    ``then``, on until a frame starting with that."""
    got: tuple[float, int] | None = None
    while True:
        frame = await ws.recv(decode=False)
        if got is None and frame.startswith(marker):
            got = (time.perf_counter(), len(frame))
            if then is None:
                return got
        elif then is not None and frame.startswith(then):
            if got is None or b'"ok":false' in frame[:300]:
                raise RuntimeError(f"the command was not committed: {frame[:300]!r}")
            return got


async def commit_round(mix: Mix, body: str) -> tuple[float, list[int]]:
    """One command from the Storyteller: ms from sending to the last subscriber's commit frame, and
    each subscriber's frame size."""
    waiting = [asyncio.ensure_future(_until(mix.st, b'{"type":"commit"', b'{"type":"result"'))]
    waiting += [asyncio.ensure_future(_until(ws, b'{"type":"commit"')) for ws in mix.conns[1:]]
    started = time.perf_counter()
    await mix.st.send(body)
    async with asyncio.timeout(TIMEOUT):
        got = await asyncio.gather(*waiting)
    return (max(t for t, _ in got) - started) * 1000, [size for _, size in got]


async def bare_clients(url: str, count: int) -> list[ClientConnection]:
    conns = []
    for _ in range(count):
        ws = await connect(url, compression=None, max_size=None, max_queue=None, ping_interval=None)
        await ws.send("hi")
        await ws.recv()
        conns.append(ws)
    return conns


async def bare_round(conns: list[ClientConnection], sizes: list[int]) -> float:
    sender = conns[0]
    waiting = [asyncio.ensure_future(_until(sender, b"x", b"sent"))]
    waiting += [asyncio.ensure_future(_until(ws, b"x")) for ws in conns[1:]]
    started = time.perf_counter()
    await sender.send("go:" + json.dumps(sizes))
    async with asyncio.timeout(TIMEOUT):
        got = await asyncio.gather(*waiting)
    return (max(t for t, _ in got) - started) * 1000


# -- the scenes ---------------------------------------------------------------------------------


def scene_lengths(text: str) -> dict[str, int | None]:
    """``demo,1000,…`` as scene ids and lengths (None: the demo)."""
    out: dict[str, int | None] = {}
    for part in text.split(","):
        part = part.strip()
        out["t-demo" if part == "demo" else f"t{int(part)}"] = None if part == "demo" else int(part)
    return out


@dataclass
class Seeded:
    db: Path
    tables: dict[str, Table]
    latency: list[str] = field(default_factory=list)
    one: str = ""
    many: list[str] = field(default_factory=list)
    demos: list[str] = field(default_factory=list)
    brawls: list[str] = field(default_factory=list)
    warm: list[str] = field(default_factory=list)


def seed(where: Path, args: argparse.Namespace, what: list[str]) -> Seeded:
    started = time.perf_counter()
    db = where / "base.db"
    scenes: dict[str, int | None] = {}
    seeded = Seeded(db, {})
    if "latency" in what or "throughput" in what:
        lengths = scene_lengths(args.scenes)
        if "throughput" in what:
            lengths.setdefault("t1000", 1000)
        scenes.update(lengths)
        seeded.latency = list(scene_lengths(args.scenes)) if "latency" in what else []
        seeded.one = "t1000"
    if "throughput" in what:
        seeded.many = [f"m{n}" for n in range(args.many)]
        scenes.update(dict.fromkeys(seeded.many))
    tables = build(db, scenes, quiet=True)
    if "memory" in what:
        seeded.demos = [f"d{n}" for n in range(args.copies)]
        seeded.brawls = [f"k{n}" for n in range(args.copies)]
        seeded.warm = [f"w{n}" for n in range(WARM)]
        copies: dict[str, int | None] = {
            **dict.fromkeys(seeded.demos),
            **dict.fromkeys(seeded.brawls, 1000),
            **dict.fromkeys(seeded.warm, 1000),
        }
        tables.update(build(db, copies, challenges=False, quiet=True))
    seeded.tables = tables
    print(f"# scenes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return seeded


def adjust(command_id: str, who: str, n: int) -> str:
    body = {
        "type": "adjust",
        "id": command_id,
        "character": who,
        "changes": {"willpower": 1 if n % 2 else -1},
        "reason": "bench",
    }
    return json.dumps(body)


# -- latency ------------------------------------------------------------------------------------


@dataclass
class LatencyRun:
    ours: list[float]
    bare: list[float]
    ids: list[str]
    sizes: dict[str, int]
    server: list[float] = field(default_factory=list)


async def latency_scene(url: str, bare_url: str, table: Table, args: argparse.Namespace, run: int) -> LatencyRun:
    mix = await table_mix(url, table, SUBSCRIBERS)
    bare = await bare_clients(bare_url, len(mix.conns))
    who = next(iter(table.players), None)
    if who is None:
        raise RuntimeError(f"{table.scene} has no character in an open challenge")
    n = 0
    ids: list[str] = []

    async def ours(rounds: int, measured: bool) -> tuple[list[float], list[int]]:
        nonlocal n
        samples: list[float] = []
        sizes: list[int] = []
        for _ in range(rounds):
            n += 1
            command_id = f"r{run}-{table.scene}-{n}{'' if measured else 'w'}"
            ms, sizes = await commit_round(mix, adjust(command_id, who, n))
            samples.append(ms)
            if measured:
                ids.append(command_id)
        return samples, sizes

    _, sizes = await ours(WARM_UP, measured=False)
    for _ in range(WARM_UP):
        await bare_round(bare, sizes)
    ours_ms: list[float] = []
    bare_ms: list[float] = []
    while len(ours_ms) < args.rounds:
        block = min(args.block, args.rounds - len(ours_ms))
        samples, sizes = await ours(block, measured=True)
        ours_ms += samples
        for _ in range(block):
            bare_ms.append(await bare_round(bare, sizes))
    by_role = {
        "st": sizes[0],
        "player": max(s for s, r in zip(sizes, mix.roles, strict=True) if r.startswith("player")),
        "spectator": sizes[-1],
        "total": sum(sizes),
    }
    await mix.close()
    await asyncio.gather(*(ws.close() for ws in bare))
    return LatencyRun(ours_ms, bare_ms, ids, by_role)


async def latency_run(
    seeded: Seeded, where: Path, args: argparse.Namespace, run: int, root: Path = ROOT
) -> dict[str, LatencyRun]:
    tag = "" if root == ROOT else "-against"
    db = copy_db(seeded.db, where / f"latency{run}{tag}.db")
    log = where / f"latency{run}{tag}.log"
    port = free_port()
    ours = justicar(db, port, log, root)
    bare, bare_url = bare_server()
    out: dict[str, LatencyRun] = {}
    try:
        for scene in seeded.latency:
            out[scene] = await latency_scene(f"ws://127.0.0.1:{port}", bare_url, seeded.tables[scene], args, run)
            print(f"#   run {run}: {scene} done", file=sys.stderr)
    finally:
        ours.stop()
        bare.stop()
    logged = server_latencies(log)
    for result in out.values():
        result.server = [logged[i] for i in result.ids if i in logged]
    return out


def latency(seeded: Seeded, where: Path, args: argparse.Namespace) -> None:
    header(
        f"latency: the Storyteller's adjust to the last of {SUBSCRIBERS} table-mix subscribers (words on),"
        f" {args.rounds} rounds per scene and run, in blocks of {args.block} alternating with the bare broadcast"
    )
    sides = _sides(args)
    every: dict[str, list[dict[str, LatencyRun]]] = {side: [] for side in sides}
    for run in range(1, args.runs + 1):
        for side in _order(sides, run):
            every[side].append(asyncio.run(latency_run(seeded, where, args, run, sides[side])))
    for side, runs in every.items():
        if len(sides) > 1:
            print(f"\n# {side}: {sides[side]}")
        _latency_table(seeded, args, runs)


def _latency_table(seeded: Seeded, args: argparse.Namespace, runs: list[dict[str, LatencyRun]]) -> None:
    print()
    print("## per run (ms)")
    for n, results in enumerate(runs, 1):
        for scene, r in results.items():
            print(
                f"run {n} {scene:<8} ours p50 {percentile(r.ours, 0.5):6.2f} p99 {percentile(r.ours, 0.99):6.2f}"
                f" | server p50 {percentile(r.server, 0.5):6.2f} p99 {percentile(r.server, 0.99):6.2f}"
                f" ({len(r.server)} logged)"
                f" | bare p50 {percentile(r.bare, 0.5):6.2f} p99 {percentile(r.bare, 0.99):6.2f}"
                f" | frames B: {r.sizes}"
            )
    print()
    print(f"## across {args.runs} runs: median (min-max) of each run's figure, ms")
    rows = []
    for scene in seeded.latency:
        of = [run[scene] for run in runs]
        t = seeded.tables[scene]
        players = len(t.players)
        mix = f"{players} players, ST, {SUBSCRIBERS - players - 1} spectators"
        sizes = of[-1].sizes
        rows.append(
            [
                f"{scene} ({t.version:,} events)",
                mix,
                f"{sizes['spectator']:,} / {sizes['player']:,} / {sizes['st']:,}",
                spread([percentile(r.ours, 0.5) for r in of]),
                spread([percentile(r.ours, 0.99) for r in of]),
                spread([percentile(r.server, 0.5) for r in of]),
                spread([percentile(r.server, 0.99) for r in of]),
                spread([percentile(r.bare, 0.5) for r in of]),
                spread([percentile(r.bare, 0.99) for r in of]),
                spread([percentile(r.ours, 0.5) / percentile(r.bare, 0.5) for r in of]) + "x",
                spread([percentile(r.ours, 0.99) / percentile(r.bare, 0.99) for r in of]) + "x",
            ]
        )
    table(
        [
            "scene",
            "subscribers",
            "frame B (spectator / player / ST)",
            "p50",
            "p99",
            "server p50",
            "server p99",
            "bare p50",
            "bare p99",
            "p50 ratio",
            "p99 ratio",
        ],
        rows,
    )
    print("# goal (issue 3): p99 under 5 ms with 50 subscribers and within 2x of the bare broadcast")


# -- throughput ---------------------------------------------------------------------------------


async def drain(ws: ClientConnection) -> None:
    try:
        while True:
            await ws.recv(decode=False)
    except Exception:
        return


async def throughput_setup(
    url: str,
    tables: list[Table],
    senders: int,
    subscribers: int,
    seconds: float,
    run: int,
    server: Served | None = None,
) -> tuple[int, float, float]:
    """Commands committed, seconds taken, and the ``server``'s CPU seconds meanwhile."""
    mixes = [await table_mix(url, t, subscribers) for t in tables]
    drains = [asyncio.ensure_future(drain(ws)) for mix in mixes for ws in mix.conns]
    done = 0
    ready = asyncio.Event()

    async def send_loop(t: Table, k: int) -> None:
        nonlocal done
        ws = await hello(url, t.st)
        who = next(iter(t.players))
        await ready.wait()
        deadline = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < deadline:
            n += 1
            await ws.send(adjust(f"t{run}-{k}-{n}", who, n))
            while kind(reply := await ws.recv(decode=False)) != b"result":
                pass
            if b'"ok":false' in reply[:300]:
                raise RuntimeError(f"refused: {reply[:300]!r}")
            done += 1
        await ws.close()

    loops = [asyncio.ensure_future(send_loop(t, k)) for t in tables for k in range(senders)]
    await asyncio.sleep(0.5)  # every sender connected
    cpu = server.cpu_seconds() if server else 0.0
    started = time.perf_counter()
    ready.set()
    await asyncio.gather(*loops)
    elapsed = time.perf_counter() - started
    cpu = server.cpu_seconds() - cpu if server else 0.0
    for mix in mixes:
        await mix.close()
    for task in drains:
        task.cancel()
    return done, elapsed, cpu


async def throughput_run(
    seeded: Seeded, where: Path, args: argparse.Namespace, run: int, root: Path = ROOT
) -> dict[str, float]:
    """Commands a second of each setup (``one``, ``many``), and the server's CPU ms per command
    (``one cpu``, ``many cpu``)."""
    tag = "" if root == ROOT else "-against"
    db = copy_db(seeded.db, where / f"throughput{run}{tag}.db")
    port = free_port()
    ours = justicar(db, port, where / f"throughput{run}{tag}.log", root)
    url = f"ws://127.0.0.1:{port}"
    out = {}
    try:
        setups = [
            ("one", [seeded.tables[seeded.one]], 4, SUBSCRIBERS),
            ("many", [seeded.tables[s] for s in seeded.many], 1, 10),
        ]
        for label, tables, senders, subscribers in setups:
            done, elapsed, cpu = await throughput_setup(url, tables, senders, subscribers, args.seconds, run, ours)
            out[label] = done / elapsed
            out[f"{label} cpu"] = cpu * 1000 / max(done, 1)
            rate = f"{done} commands in {elapsed:.2f} s = {done / elapsed:,.0f}/s, server CPU {cpu:.2f} s"
            print(f"#   run {run}{tag}: {label}: {rate}", file=sys.stderr)
    finally:
        ours.stop()
    return out


def throughput(seeded: Seeded, where: Path, args: argparse.Namespace) -> None:
    header(f"throughput: committed adjusts a second, pushed to every subscriber (words on), {args.seconds:g} s each")
    sides = _sides(args)
    every: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for run in range(1, args.runs + 1):
        for side in _order(sides, run):
            every[side].append(asyncio.run(throughput_run(seeded, where, args, run, sides[side])))
    one = seeded.tables[seeded.one]
    many = len(seeded.many)
    for side, runs in every.items():
        for n, r in enumerate(runs, 1):
            print(
                f"{side} run {n}: one scene {r['one']:,.0f}/s ({r['one cpu']:.2f} ms server CPU a command),"
                f" {many} scenes {r['many']:,.0f}/s ({r['many cpu']:.2f} ms)"
            )
    print(f"\n## across {args.runs} runs: median (min-max); server CPU: the server process's, per command")
    rows = []
    setups = [
        (
            "one",
            f"one scene ({one.version:,} events), 4 Storyteller senders, table mix of {SUBSCRIBERS}",
            SUBSCRIBERS + 4,
        ),
        ("many", f"{many} scenes (demo), each 1 sender and a table mix of 10", many * 11),
    ]
    for label, setup, connections in setups:
        for side, runs in every.items():
            rows.append(
                [
                    setup if len(sides) == 1 else f"{setup}: {side}",
                    f"{connections}",
                    spread([r[label] for r in runs], ",.0f"),
                    spread([r[f"{label} cpu"] for r in runs]),
                ]
            )
        if len(sides) > 1:
            ours, theirs = every["this tree"], every["against"]
            ratios = [a[label] / b[label] for a, b in zip(ours, theirs, strict=True)]
            cpu = [a[f"{label} cpu"] / b[f"{label} cpu"] for a, b in zip(ours, theirs, strict=True)]
            rows.append([f"{setup}: this tree / against (same run)", "", spread(ratios) + "x", spread(cpu) + "x"])
    table(["setup", "connections", "commands/s", "server CPU ms a command"], rows)


def _sides(args: argparse.Namespace) -> dict[str, Path]:
    """The servers to measure: this tree's, and with ``--against`` another checkout's."""
    sides = {"this tree": ROOT}
    if args.against:
        sides["against"] = Path(args.against).resolve()
    return sides


def _order(sides: dict[str, Path], run: int) -> list[str]:
    """The sides in turn, the first of one run last in the next (so neither always goes first)."""
    names = list(sides)
    return names if run % 2 else names[::-1]


# -- memory -------------------------------------------------------------------------------------


async def load_all(url: str, tables: list[Table]) -> None:
    for t in tables:
        ws, _ = await subscriber(url, t.spectator, t.version, summaries=False)
        await ws.close()


WARM = 10
"""1,000-event brawls loaded before a warm measure: some 3 MiB of log read, more than SQLite's page
cache of a connection holds (2 MiB by default)."""


async def memory_kind(seeded: Seeded, scenes: list[str], warm: list[str] | None = None) -> tuple[int, int]:
    port = free_port()
    ours = justicar(seeded.db, port)
    url = f"ws://127.0.0.1:{port}"
    tables = [seeded.tables[s] for s in scenes]
    try:
        await load_all(url, [seeded.tables[s] for s in warm or []])
        await load_all(url, tables[:1])
        await asyncio.sleep(0.5)
        before = ours.rss_kib()
        await load_all(url, tables[1:])
        await asyncio.sleep(0.5)
        after = ours.rss_kib()
    finally:
        ours.stop()
    return before, after


def stored_bytes(db: Path, scene: str) -> int:
    conn = sqlite3.connect(db)
    (size,) = conn.execute(
        "SELECT sum(length(scene) + length(type) + length(at) + length(actor) + length(command) + length(prev)"
        " + length(hash) + length(data) + 8) FROM events WHERE scene = ?",
        [scene],
    ).fetchone()
    conn.close()
    return int(size)


def memory(seeded: Seeded, where: Path, args: argparse.Namespace) -> None:
    header(
        f"memory: server RSS growth per loaded scene ({args.copies} copies of each kind, each loaded by subscribing)"
    )
    kinds = [("demo", seeded.demos), ("1,000-event brawl", seeded.brawls)]
    per: dict[tuple[str, str], list[float]] = {}
    states: dict[str, list[float]] = {}
    for run in range(1, args.runs + 1):
        for name, scenes in kinds:
            for caches, warm in (("cold", None), ("warm", seeded.warm)):
                before, after = asyncio.run(memory_kind(seeded, scenes, warm))
                per.setdefault((name, caches), []).append((after - before) / (len(scenes) - 1))
                print(
                    f"run {run}: {name}, page caches {caches}: RSS {before:,} KiB with one loaded,"
                    f" {after:,} KiB with {len(scenes)}"
                )
        for how, kib in state_sizes(seeded.db, seeded.brawls[:20]).items():
            states.setdefault(how, []).append(kib)
    print(f"\n## across {args.runs} runs: median (min-max)")
    rows = []
    for name, scenes in kinds:
        t = seeded.tables[scenes[0]]
        rows.append(
            [
                f"{name} ({t.version:,} events)",
                spread(per[(name, "cold")], ",.1f"),
                spread(per[(name, "warm")], ",.1f"),
                f"{stored_bytes(seeded.db, scenes[0]) / 1024:,.1f}",
            ]
        )
    table(
        ["scene", "KiB per loaded scene, caches cold", f"caches warm ({WARM} brawls first)", "its log as stored, KiB"],
        rows,
    )
    print()
    table(
        ["the 1,000-event brawl's state alone (tracemalloc, in this process)", "KiB"],
        [[how, spread(values, ",.1f")] for how, values in states.items()],
    )


def state_sizes(db: Path, scenes: list[str]) -> dict[str, float]:
    """KiB a scene's folded state holds (traced allocations, the mean over ``scenes``), loaded as
    the server loads it (from its snapshot and the log after it) and folded from its first event."""
    store = SqliteStore(db, readonly=True)
    out = {}
    keep = getattr(state_module, "shared", None)  # since issue 10's memory work
    ways: list[tuple[str, Snapshots | None, Callable[[Scene], Scene]]] = [
        ("loaded from its snapshot", Snapshots(store), lambda state: state),
        ("folded from its log", None, lambda state: state),
    ]
    if keep is not None:
        ways.append(("folded from its log, then shared (domain.state.shared)", None, keep))
    try:
        for how, snapshots, then in ways:
            service = SceneService(store, snapshots=snapshots)
            then(service.load(scenes[0]))
            gc.collect()
            tracemalloc.start()
            kept = [then(service.load(scene)) for scene in scenes]
            gc.collect()
            size, _ = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            out[how] = size / len(kept) / 1024
            del kept
    finally:
        store.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["latency", "throughput", "memory", "deadlines", "all"])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--rounds", type=int, default=300, help="measured rounds per scene and run, each side")
    p.add_argument("--block", type=int, default=50, help="rounds in a row before switching to the other side")
    p.add_argument("--scenes", default="demo,1000,10000,100000", help="latency's scenes: demo or a brawl's length")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--many", type=int, default=50, help="scenes in the many-scenes throughput")
    p.add_argument("--copies", type=int, default=100, help="scenes of each kind loaded for memory")
    p.add_argument("--idle", type=int, default=1000, help="deadlines: idle scenes a server is started on")
    p.add_argument("--settle", type=float, default=3.0, help="deadlines: seconds after start before the quiet")
    p.add_argument("--quiet", type=float, default=10.0, help="deadlines: seconds of quiet measured")
    p.add_argument("--dir")
    p.add_argument(
        "--against",
        help="latency, throughput: also the server of another checkout (a directory), alternating with this one's",
    )
    args = p.parse_args()
    what = ["latency", "throughput", "memory"] if args.what == "all" else [args.what]
    where = workdir(args)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    if args.what == "deadlines":
        from benchmarks import deadlines

        try:
            deadlines.run(where, args)
        finally:
            cleanup(where)
        return
    try:
        seeded = seed(where, args, what)
        for n, part in enumerate(what):
            if n:
                print()
            {"latency": latency, "throughput": throughput, "memory": memory}[part](seeded, where, args)
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
