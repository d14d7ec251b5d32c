"""Stalls: the longest a bystander waits for a ``pong`` while another connection floods the server.

    .venv/bin/python -m benchmarks.stall [--runs 3] [--seconds 4] [--events 20000] [--links 8] [--crowd 60]
        [--nodelay] [--json] [--postgres URL | --outage]

One server (``server.app.running`` over ``server.backend.open_backend`` on a SQLite file in
.justicar/bench, WAL and ``synchronous=FULL``, logging JSON lines to a file as ``justicar serve
--log-json`` does, the rate limit lifted as in ``benchmarks.live``) serves a long scene (a brawl of
``--events`` events from ``benchmarks.scenes``) and a short one (the demo). It runs in a process
of its own; so does the bystander, a spectator of the SHORT scene that sends
``{"type": "ping", "id": …}`` every ``--interval`` ms on a fixed schedule (never waiting for the
last pong, so a stall shows in full) and times each ``pong``. A ping's round-trip includes any time
the server's event loop spent on something else: the longest one is the longest stall a table's
phones would feel, whoever caused it. A committer, the Storyteller of the short scene in a process
of its own, sends an always-accepted ``adjust`` every ``--commit-interval`` ms on a fixed schedule
and times each ``result``: its longest wait is the longest a table's commands waited on the writer
(a fork's rows, a snapshot), which pings do not see. The flooders run in this process.

With ``--postgres URL`` (a server where the role may create databases) the server serves a
PostgreSQL database instead: the scenes are seeded once into a database of their own, and each run
serves a copy of it (``CREATE DATABASE … TEMPLATE``), dropped afterwards.

Phases, ``--seconds`` each, one request at a time (each waits for its answer, so the server has
the next one as soon as it is free):

- ``baseline``: no flood.
- ``qr``: QR codes from the Storyteller token, each a different 300-character link (no cache
  hit), one in eight over the 500-character limit.
- ``malformed``: from a player connection, frames that are not JSON, nested 30,000 deep, emoji
  text near and over the 64 KiB limit, binary, unknown types. The server closes a connection that
  keeps sending garbage (1008): the flooder reconnects and goes on, and the closes are counted.
- ``sheets``: ``add_character`` with a sheet of about 1,300 wrong entries, as the Storyteller.
- ``forks``: ``fork`` of the long scene at a random event, as its Storyteller.
- ``forks3``: the same from three connections at once.
- ``documents``: ``export`` and ``audit`` (HTML) of the long scene, in turn.
- ``catchups``: ``--catchups`` spectators subscribing to the long scene from 0 with words
  (``summaries``), again and again, and ``--stuck`` more that subscribe the same way but never
  read (``max_queue=1``: their socket fills and stays full).
- ``challenges``: ``--links`` connections of the long scene's spectators' link, each asking for
  the oldest 200 decided challenges every 20 ms (the default rate limit) without waiting for the
  answers, then cut off at once (issue 25). Meanwhile a witness, the SHORT scene's spectators'
  link, asks for a page of its history every 250 ms and once right after the flood: its longest
  wait is ``witness ms``.
- ``history``: the same with ``history`` pages of 500 events from a random place (the long scene
  has no snapshot, as one written by ``play`` or ``import``: a page folds from its first event).
- ``spectators``: a reader on another link of the long scene catches up from 0 with words alone,
  then again while ``--crowd`` spectators of one link do the same (and stay); ``catch-up x`` is
  its time crowded over its time alone (goal: at most 2). The crowd leaves at the phase's end,
  caught up or not.

- ``outage`` (with ``--outage`` only, which serves a PostgreSQL cluster of the benchmark's own,
  ``tests.postgres.Cluster``): the cluster is stopped as a crash stops it for ``--seconds``, then
  started again, and a command is asked for until one is taken again. The committer's commands
  meanwhile are refused ``storage_unavailable``: its longest wait is how long a command waits for
  that answer; the bystander's pings say whether the server's loop waited on the database.

Each phase reports the bystander's round-trip p50, p99 and max (ms) over the pings sent while the
flood lasted (until its last answer came), pings never answered, the committer's longest wait and
median (``commit``), how many cores other processes
kept busy meanwhile (``others``: the machine is shared; a run with others at work is noise), and
what the flood got back (answered of sent: an answer, or for the floods of heavy requests a refusal
``busy``, ``work_limited``; requests still unanswered when a flooder went count as cut), and the
phase's own figures. The whole sequence runs ``--runs`` times, each on a
fresh copy of the database and a fresh server; the summary gives per phase the median and the
range (min-max) across runs of the max and of the p99, and of the longest commit. Goal: every
phase's longest ping and longest commit under 20 ms. ``--json`` prints every figure as JSON instead of the tables.

The server now makes its listening socket with the protocol named (``server.app.listen``), so
asyncio turns Nagle's algorithm off on every connection. Earlier versions made it with
``socket.create_server`` (protocol 0), which left Nagle on: a pong written while the previous one
was not yet acknowledged waited for the client's next packet, adding up to one ping interval to a
round-trip. ``--nodelay`` (serving from a socket made with the protocol named) is kept to measure
such versions; on the current server it changes nothing.

``--phases`` picks phases, ``--keep`` keeps the databases and the server log; to profile a phase,
``py-spy record --pid`` the server pid printed on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import re
import secrets
import shutil
import socket
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.common import ROOT, cleanup, command_line, revision, workdir
from benchmarks.scenes import PEOPLE, brawl
from domain.commands import parse_command
from server import app
from server.app import running
from server.backend import Backend, open_backend
from server.logs import configure
from server.service import SceneService
from server.store import SqliteStore, is_postgres
from server.wire import MAX_FRAME, MAX_QR, Limits
from tests.postgres import Cluster

PHASES = (
    "baseline", "qr", "malformed", "sheets", "forks", "forks3", "documents", "catchups", "challenges", "history",
    "spectators",
)  # fmt: skip
OUTAGE = "outage"
"""A phase of ``--outage`` only: the database stopped for the phase's seconds, then started again."""
GOAL_MS = 20.0
TIMEOUT = 60.0
"""Seconds a flooding request waits for its answer before it counts as missing."""
GAP = 1.0
"""Seconds between two phases (not measured), for the server to finish what a flood left."""
LONG, SHORT = "long", "short"


# -- the database -------------------------------------------------------------------------------


@dataclass
class Seeded:
    db: str
    """The seeded database: a SQLite file, or a PostgreSQL database's URL (``--postgres``)."""
    long_version: int
    short_version: int
    tokens: dict[str, str]


def seed(where: Path, events: int, postgres: str | None = None) -> Seeded:
    """The long scene (played command by command) and the demo scene, and the tokens the clients
    use; with ``postgres`` (a server's URL), copied into a database of their own there."""
    db = where / "base.db"
    store = SqliteStore(db)
    store.db.execute("PRAGMA synchronous=OFF")  # only to build the scenes fast
    service = SceneService(store, honour_at=True)
    brawl(events, scene=LONG, service=service)
    for line in (ROOT / "examples" / "demo.jsonl").read_text().splitlines():
        if line.startswith("{"):
            service.handle(parse_command(json.dumps({**json.loads(line), "scene": SHORT})))
    seeded = Seeded(str(db), store.head(LONG)[0], store.head(SHORT)[0], {})
    if postgres:
        seeded.db = pg_create(postgres, f"justicar_stall_{os.getpid()}")
        target = open_backend(seeded.db)
        for scene in (LONG, SHORT):
            target.store.import_wires(scene, list(store.read_wire(scene)))
        target.close()
    store.close()
    backend = open_backend(seeded.db)
    issue = backend.tokens.issue
    seeded.tokens = {
        "st": issue(LONG, "st")[0],
        "player": issue(LONG, "player", PEOPLE[0])[0],
        "spectator": issue(LONG, "spectator")[0],
        "bystander": issue(SHORT, "spectator")[0],
        "committer": issue(SHORT, "st")[0],
        "reader": issue(LONG, "spectator")[0],
    }
    backend.close()
    return seeded


def fresh_copy(seeded: Seeded, where: Path, run: int) -> str:
    """A copy of the seeded database for one run (forks grow it)."""
    if is_postgres(seeded.db):
        return pg_create(seeded.db, f"{pg_name(seeded.db)}_run{run}", template=pg_name(seeded.db))
    target = where / f"run{run}.db"
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{seeded.db}{suffix}")
        if source.exists():
            shutil.copyfile(source, f"{target}{suffix}")
    return str(target)


def pg_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def pg_create(url: str, name: str, *, template: str | None = None) -> str:
    """A new database ``name`` on the server of ``url`` (a copy of ``template``): its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def pg_drop(url: str, names: list[str]) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for name in names:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# -- the server and the bystander, each in a process of its own ---------------------------------


def listen_nodelay(host: str, port: int) -> socket.socket:
    """``server.app.listen`` with the protocol named (``IPPROTO_TCP``): asyncio then sets
    ``TCP_NODELAY`` on each accepted connection, which it skips for the protocol-0 socket that
    ``socket.create_server`` makes, leaving Nagle's algorithm on."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def serve(db: str, log: str, rate: float, burst: int, nodelay: bool, pipe: Pipe) -> None:
    """The server process: serve until told to stop, logging JSON lines to ``log``."""
    if nodelay:
        app.listen = listen_nodelay
    with open(log, "w", encoding="utf-8") as out:
        sys.stderr = out
        configure(json=True)
        pauses = _collections()
        backend = open_backend(db, lock=True)
        try:
            anyio.run(_serve_until_told, backend, Limits(rate=rate, burst=burst), pipe)
        finally:
            backend.close()
            worst = sorted(pauses, reverse=True)[:5]
            print(json.dumps({"event": "collections", "gen2": len(pauses), "longest_ms": worst}), file=out)


def _collections() -> list[float]:
    """The duration (ms) of each full garbage collection from now on."""
    import gc

    pauses: list[float] = []
    started = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                pauses.append(round((time.perf_counter() - started[0]) * 1000, 1))

    gc.callbacks.append(timed)
    return pauses


async def _serve_until_told(backend: Backend, limits: Limits, pipe: Pipe) -> None:
    async with running(backend, limits=limits) as live:
        pipe.send(live.port)
        await anyio.to_thread.run_sync(pipe.recv)


def bystander(url: str, token: str, since: int, interval: float, pipe: Pipe) -> None:
    """The bystander process: ping until told to stop, then send back (sent at, round-trip ms) per
    ping, the round-trip ``nan`` for a ping never answered."""
    pipe.send(asyncio.run(_ping(url, token, since, interval, pipe)))


async def _ping(url: str, token: str, since: int, interval: float, pipe: Pipe) -> list[tuple[float, float]]:
    ws = await hello(url, token)
    await ws.send(json.dumps({"type": "subscribe", "since": since}))
    while kind(await ws.recv(decode=False)) != "subscribed":
        pass
    sent: dict[str, float] = {}
    samples: list[tuple[float, float]] = []

    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                received = time.monotonic()
                if isinstance(frame, str) and frame.startswith('{"type":"pong"'):
                    at = sent.pop(json.loads(frame)["id"])
                    samples.append((at, (received - at) * 1000))

    reader = asyncio.create_task(read())
    pipe.send("ready")
    started, n = time.monotonic(), 0
    try:
        while not pipe.poll():
            n += 1
            await asyncio.sleep(max(0.0, started + n * interval - time.monotonic()))
            sent[str(n)] = time.monotonic()
            await ws.send(f'{{"type":"ping","id":"{n}"}}')
        await asyncio.sleep(1.0)  # the last pongs
    except ConnectionClosed:
        pass
    reader.cancel()
    await ws.close()
    return sorted(samples + [(at, float("nan")) for at in sent.values()])


def committer(url: str, token: str, interval: float, pipe: Pipe) -> None:
    """The committer process: an ``adjust`` of the short scene (as its Storyteller) every
    ``interval`` seconds until told to stop, then (sent at, ms to its result) per command, ``nan``
    for one never answered or refused."""
    pipe.send(asyncio.run(_commit(url, token, interval, pipe)))


async def _commit(url: str, token: str, interval: float, pipe: Pipe) -> list[tuple[float, float]]:
    ws = await hello(url, token)
    sent: dict[str, float] = {}
    samples: list[tuple[float, float]] = []

    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                received = time.monotonic()
                body = json.loads(frame)
                if body.get("type") == "result" and (at := sent.pop(body.get("id"), None)) is not None:
                    samples.append((at, (received - at) * 1000 if body.get("ok") else float("nan")))

    reader = asyncio.create_task(read())
    pipe.send("ready")
    started, n = time.monotonic(), 0
    try:
        while not pipe.poll():
            n += 1
            await asyncio.sleep(max(0.0, started + n * interval - time.monotonic()))
            sent[f"c{n}"] = time.monotonic()
            adjust = {"type": "adjust", "id": f"c{n}", "character": "michael", "changes": {"willpower": 1}}
            await ws.send(json.dumps({**adjust, "reason": "benchmark"}))
        await asyncio.sleep(1.0)  # the last results
    except ConnectionClosed:
        pass
    reader.cancel()
    await ws.close()
    return sorted(samples + [(at, float("nan")) for at in sent.values()])


class Processes:
    """The server, the bystander and the committer of one run, started in order and stopped on exit."""

    def __init__(self, db: str, log: Path, seeded: Seeded, args: argparse.Namespace) -> None:
        self.ctx = multiprocessing.get_context("spawn")
        self.server_pipe, child = self.ctx.Pipe()
        self.server = self.ctx.Process(
            target=serve, args=(str(db), str(log), args.rate, args.burst, args.nodelay, child)
        )
        self.server.start()
        if not self.server_pipe.poll(60):
            raise RuntimeError(f"the server did not start; see {log}")
        self.url = f"ws://127.0.0.1:{self.server_pipe.recv()}"
        print(f"# server pid {self.server.pid} at {self.url}", file=sys.stderr)
        self.pinger_pipe, child = self.ctx.Pipe()
        self.pinger = self.ctx.Process(
            target=bystander,
            args=(self.url, seeded.tokens["bystander"], seeded.short_version, args.interval / 1000, child),
        )
        self.pinger.start()
        if not self.pinger_pipe.poll(60) or self.pinger_pipe.recv() != "ready":
            raise RuntimeError("the bystander did not start")
        self.committer_pipe, child = self.ctx.Pipe()
        self.committer = self.ctx.Process(
            target=committer, args=(self.url, seeded.tokens["committer"], args.commit_interval / 1000, child)
        )
        self.committer.start()
        if not self.committer_pipe.poll(60) or self.committer_pipe.recv() != "ready":
            raise RuntimeError("the committer did not start")

    @property
    def pids(self) -> list[int]:
        return [pid for pid in (self.server.pid, self.pinger.pid, self.committer.pid) if pid is not None]

    def samples(self) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
        """Stop the bystander and the committer and take their pings and commits."""
        taken = []
        for process, pipe in ((self.pinger, self.pinger_pipe), (self.committer, self.committer_pipe)):
            pipe.send("stop")
            taken.append(pipe.recv())
            process.join(10)
        return taken[0], taken[1]

    def stop(self) -> None:
        pairs = (
            (self.pinger, self.pinger_pipe),
            (self.committer, self.committer_pipe),
            (self.server, self.server_pipe),
        )
        for process, pipe in pairs:
            if process.is_alive():
                with contextlib.suppress(OSError):
                    pipe.send("stop")
                process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(10)


# -- the flooding clients -----------------------------------------------------------------------


_TYPE = re.compile(rb'\{"type":"(\w+)"')


def kind(frame: str | bytes) -> str:
    """A frame's message type, read from its start (a document may be megabytes)."""
    head = frame[:64].encode() if isinstance(frame, str) else frame[:64]
    found = _TYPE.match(head)
    return found[1].decode() if found else "?"


def label(frame: bytes) -> str:
    """``type``, or ``type:code`` for a refusal (``error:malformed``, ``result:bad_sheet``)."""
    what = kind(frame)
    if what in ("error", "result") and len(frame) < 1 << 20:
        body = msgspec.json.decode(frame)
        error = body.get("error") or {}
        code = body.get("code") or error.get("code")
        return f"{what}:{code}" if code else what
    return what


async def hello(url: str, token: str, *, max_queue: int | None = None) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=None, max_queue=max_queue, open_timeout=TIMEOUT)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    if kind(await ws.recv(decode=False)) != "welcome":
        raise RuntimeError("hello was refused")
    return ws


@dataclass
class Tally:
    """What the flooding connections sent and got back."""

    sent: int = 0
    answered: int = 0
    """Replies of the kind the request expects (a refusal, for a bad request)."""
    missing: int = 0
    """Requests with no reply within ``TIMEOUT``."""
    cut: int = 0
    """Requests unanswered because the server closed the connection."""
    closes: int = 0
    replies: Counter[str] = field(default_factory=Counter)
    extra: dict[str, float] = field(default_factory=dict)
    """Figures of the phase's own (``witness ms``, ``catch-up x``)."""

    def got(self, closes_expected: bool) -> bool:
        """Whether every request got its answer (or, where the server closes flooders, a close)."""
        return self.answered + (self.cut if closes_expected else 0) == self.sent


class Asker:
    """One flooding connection: a request, then its one reply; it reconnects when the server closes it."""

    def __init__(self, url: str, token: str, tally: Tally) -> None:
        self.url, self.token, self.tally = url, token, tally
        self.ws: ClientConnection | None = None

    async def ask(self, frame: str | bytes, expected: frozenset[str]) -> None:
        if self.ws is None:
            self.ws = await hello(self.url, self.token)
        self.tally.sent += 1
        try:
            await self.ws.send(frame)
            reply = await asyncio.wait_for(self.ws.recv(decode=False), TIMEOUT)
        except ConnectionClosed:
            self.tally.cut += 1
            self.tally.closes += 1
            self.ws = None
            return
        except TimeoutError:
            self.tally.missing += 1
            await self.close()
            return
        what = label(reply)
        self.tally.replies[what] += 1
        if what in expected:
            self.tally.answered += 1

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


@dataclass
class Context:
    url: str
    seeded: Seeded
    run: int
    rng: random.Random
    args: argparse.Namespace


Flood = Callable[[Context, float, Tally], Awaitable[None]]


async def ask_until(
    ctx: Context, token: str, deadline: float, tally: Tally, requests: Iterator[tuple[str | bytes, frozenset[str]]]
) -> None:
    asker = Asker(ctx.url, token, tally)
    try:
        while time.monotonic() < deadline:
            frame, expected = next(requests)
            await asker.ask(frame, expected)
    finally:
        await asker.close()


async def flood_nothing(ctx: Context, deadline: float, tally: Tally) -> None:
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))


def _link(rng: random.Random, size: int) -> str:
    start = f"http://192.0.2.10:8765/play#token=jt_{secrets.token_urlsafe(24)}&v="
    return start + "".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=size - len(start)))


async def flood_qr(ctx: Context, deadline: float, tally: Tally) -> None:
    def requests() -> Iterator[tuple[str, frozenset[str]]]:
        n = 0
        while True:
            n += 1
            if n % 8 == 0:
                yield json.dumps({"type": "qr", "text": _link(ctx.rng, MAX_QR + 100)}), frozenset({"error:too_long"})
            else:
                yield json.dumps({"type": "qr", "text": _link(ctx.rng, 300)}), frozenset({"qr"})

    await ask_until(ctx, ctx.seeded.tokens["st"], deadline, tally, requests())


REFUSED = frozenset({"error:busy", "error:work_limited", "error:rate_limited"})
"""What a request over its connection's or link's share may get instead of its answer."""
BAD = frozenset({"error:malformed", "error:too_large", "error:unknown_message"})


def garbage(rng: random.Random) -> Iterator[str | bytes]:
    """Bad frames, in turn: not JSON, nested 30,000 deep, emoji text near and over the limit."""
    near = MAX_FRAME // 4 - 16  # four bytes an emoji: just under the limit
    while True:
        yield "{not json " + secrets.token_hex(8)
        yield "[" * 30_000
        yield '{"a":' * 15_000
        yield "".join(rng.choices("😀😈🧛🩸🗡️🌕", k=near))  # not JSON, just under the limit
        yield json.dumps({"type": "🧛" * (near - 8)}, ensure_ascii=False)  # JSON of an unknown type
        yield "🩸" * (MAX_FRAME // 4 + 100)  # over the limit
        yield json.dumps([secrets.token_hex(4)] * 2000)  # JSON, not an object
        yield b"\x00binary\xff" * 100


async def flood_malformed(ctx: Context, deadline: float, tally: Tally) -> None:
    frames = garbage(ctx.rng)
    await ask_until(ctx, ctx.seeded.tokens["player"], deadline, tally, ((frame, BAD) for frame in frames))


def bad_sheet(n: int, rng: random.Random) -> dict[str, Any]:
    """A sheet with about 1,300 wrong entries (and a few fields no sheet has)."""
    names = [f"T{n}x{i}" for i in range(190)]
    return {
        "id": f"bad-{n}",
        "name": f"Bad {n}",
        "willpower": 500,
        "traits": {
            "physical": dict.fromkeys(names, 0),
            "social": dict.fromkeys(names, 100),
            "mental": dict.fromkeys(names, "many"),
        },
        "abilities": {name: -rng.randint(1, 9) for name in names},
        "attributes": dict.fromkeys(names, 1000),
        "skills": dict.fromkeys(names, "x"),
        "trait_kinds": dict.fromkeys(names, "cunning"),
        **{f"unknown{i}": i for i in range(20)},
    }


async def flood_sheets(ctx: Context, deadline: float, tally: Tally) -> None:
    def requests() -> Iterator[tuple[str, frozenset[str]]]:
        n = 0
        while True:
            n += 1
            body = {"type": "add_character", "id": f"r{ctx.run}-bad-{n}", "character": bad_sheet(n, ctx.rng)}
            yield json.dumps(body), frozenset({"result:bad_sheet"})

    await ask_until(ctx, ctx.seeded.tokens["st"], deadline, tally, requests())


async def flood_forks(ctx: Context, deadline: float, tally: Tally) -> None:
    def requests() -> Iterator[tuple[str, frozenset[str]]]:
        n = 0
        while True:
            n += 1
            at = ctx.rng.randint(1, ctx.seeded.long_version)
            yield json.dumps({"type": "fork", "at": at, "scene": f"f-{n}"}), frozenset({"forked"}) | REFUSED

    await ask_until(ctx, ctx.seeded.tokens["st"], deadline, tally, requests())


async def flood_forks3(ctx: Context, deadline: float, tally: Tally) -> None:
    """Three Storytellers forking the long scene at once, each one fork at a time."""

    def requests(who: int) -> Iterator[tuple[str, frozenset[str]]]:
        n = 0
        while True:
            n += 1
            at = ctx.rng.randint(1, ctx.seeded.long_version)
            yield json.dumps({"type": "fork", "at": at, "scene": f"f3-{who}-{n}"}), frozenset({"forked"})

    await asyncio.gather(*(ask_until(ctx, ctx.seeded.tokens["st"], deadline, tally, requests(w)) for w in range(3)))


async def flood_documents(ctx: Context, deadline: float, tally: Tally) -> None:
    def requests() -> Iterator[tuple[str, frozenset[str]]]:
        while True:
            yield json.dumps({"type": "export"}), frozenset({"document"}) | REFUSED
            yield json.dumps({"type": "audit", "format": "html"}), frozenset({"document"}) | REFUSED

    await ask_until(ctx, ctx.seeded.tokens["st"], deadline, tally, requests())


async def flood_catchups(ctx: Context, deadline: float, tally: Tally) -> None:
    """Spectators catching up from 0 with words, again and again; and some that never read."""
    token = ctx.seeded.tokens["spectator"]
    subscribe = json.dumps({"type": "subscribe", "since": 0, "summaries": True})

    async def reader() -> None:
        while time.monotonic() < deadline:
            tally.sent += 1
            ws = await hello(ctx.url, token)
            try:
                await ws.send(subscribe)
                async with asyncio.timeout(TIMEOUT):
                    while (what := kind(await ws.recv(decode=False))) != "subscribed":
                        if what not in ("commit", "view", "presence"):
                            tally.replies[what] += 1
                tally.answered += 1
                tally.replies["subscribed"] += 1
            except ConnectionClosed:
                tally.cut += 1
                tally.closes += 1
            except TimeoutError:
                tally.missing += 1
            finally:
                await ws.close()

    async def stuck() -> ClientConnection:
        ws = await hello(ctx.url, token, max_queue=1)
        await ws.send(subscribe)
        return ws

    never_reading = [await stuck() for _ in range(ctx.args.stuck)]
    await asyncio.gather(*(reader() for _ in range(ctx.args.catchups)))
    for ws in never_reading:
        ws.transport.abort()


async def flood_outage(ctx: Context, deadline: float, tally: Tally) -> None:
    """The database goes away for the phase's seconds (the cluster stopped as a crash stops it) and
    comes back; the committer's commands meanwhile are refused ``storage_unavailable``. After it, the
    committer's commands must be taken again (one is asked for until it is)."""
    cluster: Cluster = ctx.args.cluster
    await asyncio.to_thread(cluster.stop)
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    await asyncio.to_thread(cluster.start)
    asker = Asker(ctx.url, ctx.seeded.tokens["committer"], tally)
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(30):
                while tally.answered == 0:  # resumed by itself: a command is taken again
                    body = {"type": "adjust", "id": f"after-outage-{ctx.run}-{tally.sent}", "character": "michael"}
                    frame = json.dumps({**body, "changes": {"willpower": 1}, "reason": "after the outage"})
                    await asker.ask(frame, frozenset({"result"}))
                    await asyncio.sleep(0.1)
    finally:
        await asker.close()


SPACED = 1 / 50
"""Seconds between two requests of a flooder that does not wait for answers: the default rate limit."""


async def spaced_flood(
    ctx: Context, token: str, deadline: float, tally: Tally, request: Callable[[], str], expected: str
) -> None:
    """``--links`` connections of one link, each sending ``request()`` every ``SPACED`` s without
    waiting for answers (as a page, or an attacker, at the allowed rate) until ``deadline``; then
    each closes at once (its TCP connection cut), whatever it still had asked."""

    async def one() -> None:
        ws = await hello(ctx.url, token)
        asked = replied = 0

        async def read() -> None:
            nonlocal replied
            with contextlib.suppress(ConnectionClosed):
                async for frame in ws:
                    what = label(frame if isinstance(frame, bytes) else frame.encode())
                    tally.replies[what] += 1
                    tally.answered += what == expected or what in REFUSED
                    replied += 1

        reader = asyncio.create_task(read())
        started = time.monotonic()
        try:
            while time.monotonic() < deadline:
                asked += 1
                tally.sent += 1
                await ws.send(request())
                await asyncio.sleep(max(0.0, started + asked * SPACED - time.monotonic()))
        except ConnectionClosed:
            pass
        reader.cancel()
        ws.transport.abort()  # gone, with whatever it asked still queued
        tally.cut += asked - replied  # unanswered when it went: cut

    await asyncio.gather(*(one() for _ in range(ctx.args.links)))


async def witness(ctx: Context, stop: asyncio.Event, tally: Tally) -> None:
    """Another scene's reader (the SHORT scene's spectator link) asking a page of ``history`` every
    250 ms until ``stop``, then once more: the longest it waited for an answer (``witness ms``)."""
    ws = await hello(ctx.url, ctx.seeded.tokens["bystander"])
    ask = json.dumps({"type": "history", "before": ctx.seeded.short_version + 1, "limit": 200})
    longest = 0.0
    try:
        while True:
            last = stop.is_set()
            started = time.monotonic()
            await ws.send(ask)
            async with asyncio.timeout(TIMEOUT):
                while kind(await ws.recv(decode=False)) != "history":
                    pass
            longest = max(longest, (time.monotonic() - started) * 1000)
            if last:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.25)
    except TimeoutError:
        longest = TIMEOUT * 1000
    finally:
        await ws.close()
    tally.extra["witness ms"] = round(longest, 1)


async def witnessed(ctx: Context, tally: Tally, flood: Awaitable[None]) -> None:
    """``flood``, with ``witness`` asking another scene's history meanwhile and right after."""
    stop = asyncio.Event()
    watching = asyncio.create_task(witness(ctx, stop, tally))
    await flood
    stop.set()
    await watching


async def flood_challenges(ctx: Context, deadline: float, tally: Tally) -> None:
    """``--links`` spectators of the long scene on one link, each asking the oldest 200 decided
    challenges at 50 a second."""
    ask = json.dumps({"type": "challenges", "limit": 200})
    flood = spaced_flood(ctx, ctx.seeded.tokens["spectator"], deadline, tally, lambda: ask, "challenges")
    await witnessed(ctx, tally, flood)


async def flood_history(ctx: Context, deadline: float, tally: Tally) -> None:
    """``--links`` spectators of the long scene on one link, each asking 500 events of ``history``
    from a random place at 50 a second."""

    def ask() -> str:
        before = ctx.rng.randint(2, ctx.seeded.long_version + 1)
        return json.dumps({"type": "history", "before": before, "limit": 500})

    flood = spaced_flood(ctx, ctx.seeded.tokens["spectator"], deadline, tally, ask, "history")
    await witnessed(ctx, tally, flood)


async def catch_up(url: str, token: str) -> float:
    """Seconds a subscription from 0 with words takes to be ``subscribed`` (``TIMEOUT``: never)."""
    started = time.monotonic()
    ws = await hello(url, token)
    try:
        await ws.send(json.dumps({"type": "subscribe", "since": 0, "summaries": True}))
        async with asyncio.timeout(TIMEOUT):
            while kind(await ws.recv(decode=False)) != "subscribed":
                pass
    except TimeoutError:
        return TIMEOUT
    finally:
        await ws.close()
    return time.monotonic() - started


async def flood_spectators(ctx: Context, deadline: float, tally: Tally) -> None:
    """``--crowd`` spectators on one link catching up from 0 with words, then idle; meanwhile a
    reader on another link catches up the same way: its time against its time alone, just before
    (``catch-up x``). At the deadline (or once the reader is done, if later) the crowd leaves,
    caught up or not (those not yet caught up count as cut)."""
    alone = await catch_up(ctx.url, ctx.seeded.tokens["reader"])
    token = ctx.seeded.tokens["spectator"]
    subscribe = json.dumps({"type": "subscribe", "since": 0, "summaries": True})
    crowd: list[ClientConnection] = []

    async def idle() -> None:
        tally.sent += 1
        ws = await hello(ctx.url, token)
        crowd.append(ws)
        try:
            await ws.send(subscribe)
            while kind(await ws.recv(decode=False)) != "subscribed":
                pass
            tally.answered += 1
            tally.replies["subscribed"] += 1
        except ConnectionClosed:
            tally.cut += 1

    joining = [asyncio.create_task(idle()) for _ in range(ctx.args.crowd)]
    await asyncio.sleep(0.3)  # the crowd's catch-ups under way
    crowded = await catch_up(ctx.url, ctx.seeded.tokens["reader"])
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    for task in joining:
        task.cancel()
    await asyncio.gather(*joining, return_exceptions=True)
    tally.cut += tally.sent - tally.answered - tally.cut
    for ws in crowd:
        ws.transport.abort()
    tally.extra["alone s"] = round(alone, 3)
    tally.extra["crowded s"] = round(crowded, 3)
    tally.extra["catch-up x"] = round(crowded / alone, 2)


FLOODS: dict[str, Flood] = {
    "baseline": flood_nothing,
    "qr": flood_qr,
    "malformed": flood_malformed,
    "sheets": flood_sheets,
    "forks": flood_forks,
    "forks3": flood_forks3,
    "documents": flood_documents,
    "catchups": flood_catchups,
    "outage": flood_outage,
    "challenges": flood_challenges,
    "history": flood_history,
    "spectators": flood_spectators,
}


# -- one run ------------------------------------------------------------------------------------


TICK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pids: list[int]) -> tuple[int, int]:
    """CPU ticks used so far by the whole machine and by ``pids`` (with their threads), from /proc."""
    try:
        fields = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
        ours = 0
        for pid in pids:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ours += int(stat[11]) + int(stat[12])  # utime, stime
        return busy, ours
    except (OSError, ValueError, IndexError):
        return 0, 0


@dataclass
class Phase:
    name: str
    pings: int
    lost: int
    p50: float
    p99: float
    max: float
    sent: int
    answered: int
    cut: int
    missing: int
    closes: int
    got_answers: bool
    replies: dict[str, int]
    seconds: float
    others: float
    """Cores busy with other processes than the benchmark's, on average, while it lasted."""
    extra: dict[str, float] = field(default_factory=dict)
    commits: int = 0
    commits_lost: int = 0
    """Commands of the committer never answered, or refused."""
    commit_p50: float = float("nan")
    commit_max: float = float("nan")


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


@dataclass
class Window:
    name: str
    start: float
    end: float
    tally: Tally
    others: float


def measured(window: Window, samples: list[tuple[float, float]], commits: list[tuple[float, float]]) -> Phase:
    name, start, end, tally = window.name, window.start, window.end, window.tally
    inside = [rtt for at, rtt in samples if start <= at <= end]
    answered = sorted(rtt for rtt in inside if rtt == rtt)  # nan: never answered
    committed = [wait for at, wait in commits if start <= at <= end]
    acknowledged = sorted(wait for wait in committed if wait == wait)
    return Phase(
        name=name,
        pings=len(inside),
        lost=len(inside) - len(answered),
        p50=statistics.median(answered) if answered else float("nan"),
        p99=percentile(answered, 0.99),
        max=answered[-1] if answered else float("nan"),
        sent=tally.sent,
        answered=tally.answered,
        cut=tally.cut,
        missing=tally.missing,
        closes=tally.closes,
        got_answers=tally.got(closes_expected=name in ("malformed", "challenges", "history", "spectators")),
        replies=dict(tally.replies),
        seconds=end - start,
        others=window.others,
        commits=len(committed),
        commits_lost=len(committed) - len(acknowledged),
        commit_p50=statistics.median(acknowledged) if acknowledged else float("nan"),
        commit_max=acknowledged[-1] if acknowledged else float("nan"),
        extra=dict(tally.extra),
    )


async def warm_up(url: str, seeded: Seeded) -> None:
    """Load the long scene's room (folded off the loop) before anything is measured."""
    ws = await hello(url, seeded.tokens["spectator"])
    await ws.send(json.dumps({"type": "subscribe", "since": seeded.long_version}))
    while kind(await ws.recv(decode=False)) != "subscribed":
        pass
    await ws.close()


async def phases(url: str, seeded: Seeded, run: int, args: argparse.Namespace, pids: list[int]) -> list[Window]:
    ctx = Context(url, seeded, run, random.Random(run), args)
    await warm_up(url, seeded)
    await asyncio.sleep(GAP)
    done = []
    for name in args.phases:
        tally = Tally()
        busy, ours = cpu_ticks(pids)
        start = time.monotonic()
        await FLOODS[name](ctx, start + args.seconds, tally)
        end = time.monotonic()
        busy_after, ours_after = cpu_ticks(pids)
        others = max(0, (busy_after - busy) - (ours_after - ours)) / TICK / (end - start)
        done.append(Window(name, start, end, tally, others))
        print(f"#   {name}: {tally.answered}/{tally.sent} answered", file=sys.stderr)
        await asyncio.sleep(GAP)
    return done


def one_run(seeded: Seeded, where: Path, run: int, args: argparse.Namespace) -> list[Phase]:
    db = fresh_copy(seeded, where, run)
    log = where / f"server{run}.log"
    processes = Processes(db, log, seeded, args)
    try:
        pids = [os.getpid(), *processes.pids]
        windows = asyncio.run(phases(processes.url, seeded, run, args, pids))
        samples, commits = processes.samples()
    finally:
        processes.stop()
    return [measured(window, samples, commits) for window in windows]


# -- the tables ---------------------------------------------------------------------------------


def print_run(run: int, results: list[Phase]) -> None:
    print(f"\n## run {run}")
    print(
        f"{'phase':<10} | {'pings':>5} {'lost':>4} | {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} |"
        f" {'commits':>7} {'lost':>4} {'p50 ms':>7} {'max ms':>7} | {'others':>6} | flood answered"
    )
    for r in results:
        got = f"{r.answered}/{r.sent}" + (f", {r.closes} closes" if r.closes else "")
        got += "" if r.got_answers else f"  NOT ALL: {r.missing} missing, {r.cut} cut; replies {r.replies}"
        got += "".join(f"; {k} {v:g}" for k, v in r.extra.items())
        print(
            f"{r.name:<10} | {r.pings:>5} {r.lost:>4} | {r.p50:>7.2f} {r.p99:>7.2f} {r.max:>7.2f} |"
            f" {r.commits:>7} {r.commits_lost:>4} {r.commit_p50:>7.2f} {r.commit_max:>7.2f} | {r.others:>6.2f} | {got}"
        )


def summary(runs: list[list[Phase]]) -> list[dict[str, Any]]:
    rows = []
    for name in [phase.name for phase in runs[0]]:
        of = [phase for run in runs for phase in run if phase.name == name]
        maxes, p99s, commit_maxes = [p.max for p in of], [p.p99 for p in of], [p.commit_max for p in of]
        rows.append(
            {
                "phase": name,
                "max_median": statistics.median(maxes),
                "max_min": min(maxes),
                "max_max": max(maxes),
                "p99_median": statistics.median(p99s),
                "p99_min": min(p99s),
                "p99_max": max(p99s),
                "p50_median": statistics.median(p.p50 for p in of),
                "commit_max_median": statistics.median(commit_maxes),
                "commit_max_min": min(commit_maxes),
                "commit_max_max": max(commit_maxes),
                "commits_lost": sum(p.commits_lost for p in of),
                "lost": sum(p.lost for p in of),
                "runs_with_all_answers": sum(p.got_answers for p in of),
                "runs_under_goal": sum(p.max < GOAL_MS and not p.lost for p in of),
                "runs_commits_under_goal": sum(p.commit_max < GOAL_MS and not p.commits_lost for p in of),
                "runs": len(of),
                "closes": sum(p.closes for p in of),
                **{
                    name: (statistics.median(values), min(values), max(values))
                    for name in of[0].extra
                    if len(values := [p.extra[name] for p in of if name in p.extra]) == len(of)
                },
            }
        )
    return rows


def print_summary(rows: list[dict[str, Any]]) -> None:
    print(f"\n## across {rows[0]['runs']} runs: median (min-max) of each run's figure; goal: max under {GOAL_MS:g} ms")
    print(
        f"{'phase':<10} | {'max ms':>22} | {'p99 ms':>22} | {'p50 ms':>6} | {'commit max ms':>22} | answers |"
        " under goal (pings, commits)"
    )
    for r in rows:
        spread = f"{r['max_median']:.1f} ({r['max_min']:.1f}-{r['max_max']:.1f})"
        p99 = f"{r['p99_median']:.1f} ({r['p99_min']:.1f}-{r['p99_max']:.1f})"
        commit = f"{r['commit_max_median']:.1f} ({r['commit_max_min']:.1f}-{r['commit_max_max']:.1f})"
        answers = f"{r['runs_with_all_answers']}/{r['runs']}"
        print(
            f"{r['phase']:<10} | {spread:>22} | {p99:>22} | {r['p50_median']:>6.2f} | {commit:>22} | {answers:>7} |"
            f" {r['runs_under_goal']}/{r['runs']}, {r['runs_commits_under_goal']}/{r['runs']} runs"
            + "".join(f"; {k} {v[0]:g} ({v[1]:g}-{v[2]:g})" for k, v in r.items() if isinstance(v, tuple))
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="times the whole sequence runs (default 3)")
    p.add_argument("--seconds", type=float, default=4.0, help="seconds of flood per phase (default 4)")
    p.add_argument("--events", type=int, default=20_000, help="events in the long scene (default 20000)")
    p.add_argument("--interval", type=float, default=5.0, help="ms between the bystander's pings (default 5)")
    p.add_argument(
        "--commit-interval", type=float, default=50.0, help="ms between the committer's commands (default 50)"
    )
    p.add_argument(
        "--postgres",
        metavar="URL",
        help="serve a PostgreSQL database on this server (a role that may create databases) instead of SQLite",
    )
    p.add_argument("--catchups", type=int, default=4, help="spectators catching up at once (default 4)")
    p.add_argument("--stuck", type=int, default=2, help="more that subscribe and never read (default 2)")
    p.add_argument("--links", type=int, default=8, help="connections of one link flooding challenges, history (8)")
    p.add_argument("--crowd", type=int, default=60, help="spectators of one link catching up at once (default 60)")
    p.add_argument("--phases", nargs="+", choices=[*PHASES, OUTAGE], default=list(PHASES), metavar="PHASE")
    p.add_argument(
        "--outage",
        action="store_true",
        help="serve a PostgreSQL cluster of the benchmark's own (initdb), and add the outage phase: it is stopped"
        " as a crash stops it for --seconds, then started again",
    )
    p.add_argument("--rate", type=float, default=1e6, help="the server's per-connection rate (default: lifted)")
    p.add_argument("--burst", type=int, default=1_000_000, help="the server's per-connection burst (default: lifted)")
    p.add_argument(
        "--nodelay",
        action="store_true",
        help="serve from a socket made with IPPROTO_TCP (Nagle off), for versions before the server did it",
    )
    p.add_argument("--json", action="store_true", help="print every figure as JSON instead of the tables")
    p.add_argument("--keep", action="store_true", help="keep the databases and the server logs")
    p.add_argument("--dir", help="where the databases go (default: .justicar/bench)")
    args = p.parse_args()
    args.cluster = None
    if args.outage:
        args.cluster = Cluster()
        args.postgres = args.cluster.url
        args.phases = [*[name for name in args.phases if name != OUTAGE], OUTAGE]
    where = workdir(args)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        print(f"# seeding a {args.events:,}-event scene in {where}", file=sys.stderr)
        seeded = seed(where, args.events, args.postgres)
        if not args.json:
            print(f"# stalls: the bystander's ping round-trip while one connection floods ({args.seconds:g} s a phase)")
            print(f"# store: {'PostgreSQL' if args.postgres else 'SQLite (WAL, synchronous=FULL)'}")
            print(f"# command: {command_line()}; code at {revision()}")
            print(
                f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, {started};"
                f" long scene {seeded.long_version:,} events; a ping every {args.interval:g} ms"
            )
        runs = []
        for run in range(1, args.runs + 1):
            print(f"# run {run} of {args.runs}", file=sys.stderr)
            results = one_run(seeded, where, run, args)
            runs.append(results)
            if not args.json:
                print_run(run, results)
                sys.stdout.flush()
        rows = summary(runs)
        if args.json:
            document = {
                "started": started,
                "python": platform.python_version(),
                "args": {k: v for k, v in vars(args).items() if k != "json"},
                "long_events": seeded.long_version,
                "goal_ms": GOAL_MS,
                "runs": [[asdict(phase) for phase in run] for run in runs],
                "summary": rows,
            }
            print(json.dumps(document, indent=1))
        else:
            print_summary(rows)
    finally:
        if args.keep:
            print(f"# kept {where}", file=sys.stderr)
        else:
            cleanup(where)
            if args.cluster is not None:
                args.cluster.close()
            elif args.postgres:
                base = f"justicar_stall_{os.getpid()}"
                pg_drop(args.postgres, [base] + [f"{base}_run{run}" for run in range(1, args.runs + 1)])


if __name__ == "__main__":
    main()
