"""Helpers for the fault tests: raw websocket peers that read in the background, pings kept up
during a fault, `justicar serve` as a subprocess (optionally on a private mount), and the database
looked at from outside the server."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.live import free_port

__all__ = ["free_port"]  # re-exported: the tests take their ports from here

ROOT = Path(__file__).resolve().parents[2]
WAIT = 5.0
"""Seconds any single wait for the server may take."""
FAST = ["--rate", "10000", "--burst", "10000"]
"""`justicar serve` options that keep the rate limit out of the way of a burst."""


# -- a raw peer ------------------------------------------------------------------------------------


class Gone(AssertionError):
    """The connection closed before what was awaited came."""


@dataclass(eq=False)
class Peer:
    """One websocket connection whose frames are all kept, in order, by a background reader."""

    ws: ClientConnection
    messages: list[dict[str, Any]] = field(default_factory=list)
    closed: anyio.Event = field(default_factory=anyio.Event)
    _pings: int = 0

    async def read(self) -> None:
        """Keep every frame until the connection closes."""
        try:
            async for frame in self.ws:
                self.messages.append(json.loads(frame))
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code

    async def send(self, body: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(body))

    async def wait(
        self, match: Callable[[dict[str, Any]], bool], what: str, seconds: float = WAIT, *, after: int = 0
    ) -> dict[str, Any]:
        """The first message from the ``after``-th on (already received or to come) that
        ``match``es, within ``seconds``; ``Gone`` if the connection closes first."""
        with anyio.fail_after(seconds):
            while True:
                for message in self.messages[after:]:
                    if match(message):
                        return message
                after = max(after, len(self.messages))
                if self.closed.is_set():
                    raise Gone(f"closed ({self.close_code}) before {what}; last got {self.messages[-3:]}")
                await anyio.sleep(0.005)

    async def command(self, body: dict[str, Any], seconds: float = WAIT) -> dict[str, Any]:
        """Send a command (it has an ``id``) and return its result."""
        await self.send(body)
        return await self.wait(
            lambda m: m["type"] == "result" and m.get("id") == body["id"], f"result {body['id']}", seconds
        )

    async def ping(self, seconds: float = WAIT) -> float:
        """A ping answered: its round trip in seconds."""
        self._pings += 1
        ping_id = f"ping-{self._pings}"
        started = time.perf_counter()
        await self.send({"type": "ping", "id": ping_id})
        await self.wait(lambda m: m == {"type": "pong", "id": ping_id}, f"pong {ping_id}", seconds)
        return time.perf_counter() - started

    async def subscribe(self) -> dict[str, Any]:
        """Subscribe from the start: the ``subscribed`` message, or the ``error`` the server sent."""
        seen = len(self.messages)
        await self.send({"type": "subscribe", "since": 0})
        return await self.wait(lambda m: m["type"] in ("subscribed", "error"), "the subscription", after=seen)

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "error"]


@contextlib.asynccontextmanager
async def peer(url: str, token: str, *, subscribe: bool = False) -> AsyncIterator[Peer]:
    """A connection that has said hello (and, with ``subscribe``, caught up)."""
    with anyio.fail_after(WAIT):
        ws = await connect(url, compression=None, max_size=2**22)
    async with ws, anyio.create_task_group() as tg:
        connection = Peer(ws)
        tg.start_soon(connection.read)
        await connection.send({"type": "hello", "token": token})
        welcome = await connection.wait(lambda m: m["type"] in ("welcome", "error"), "welcome")
        assert welcome["type"] == "welcome", welcome
        if subscribe:
            answer = await connection.subscribe()
            assert answer["type"] == "subscribed", answer
        yield connection
        tg.cancel_scope.cancel()


@dataclass
class Pings:
    """The pings answered while a fault lasted."""

    answered: int = 0
    slowest: float = 0.0


@contextlib.asynccontextmanager
async def kept_alive(*peers: Peer, every: float = 0.03, within: float = 1.0) -> AsyncIterator[Pings]:
    """Ping every peer every ``every`` seconds for the whole block: a ping not answered within
    ``within`` seconds (or a closed connection) fails the test at once."""
    pings = Pings()

    async def keep(connection: Peer) -> None:
        while True:
            pings.slowest = max(pings.slowest, await connection.ping(within))
            pings.answered += 1
            await anyio.sleep(every)

    async with anyio.create_task_group() as tg:
        for connection in peers:
            tg.start_soon(keep, connection)
        yield pings
        for connection in peers:  # one last round after the fault
            pings.slowest = max(pings.slowest, await connection.ping(within))
            pings.answered += 1
        tg.cancel_scope.cancel()


# -- commands ----------------------------------------------------------------------------------------


def adjust(command_id: str, character: str = "sam") -> dict[str, Any]:
    """An ST command that is always accepted: one more Willpower."""
    return {
        "type": "adjust",
        "id": command_id,
        "character": character,
        "changes": {"willpower": 1},
        "reason": command_id,
    }


def script(path: Path, *scenes: str) -> Path:
    """A `--load` script opening each scene with two players' characters."""
    lines: list[dict[str, Any]] = []
    for scene in scenes:
        base = {"scene": scene, "actor": "st"}
        lines.append({**base, "id": f"{scene}-open", "type": "open_scene", "ruleset": "lotn", "title": scene})
        for who in ("sam", "juan"):
            sheet = {"id": who, "name": who.title(), "traits": {"physical": {"Quick": 3}}}
            lines.append({**base, "id": f"{scene}-add-{who}", "type": "add_character", "character": sheet})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# -- the database from outside ---------------------------------------------------------------------


def events(db: Path, scene: str) -> list[tuple[int, str]]:
    """The scene's (seq, command) rows, read through a connection of our own."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT seq, command FROM events WHERE scene = ? ORDER BY seq", [scene]).fetchall()


def tamper(db: Path, sql: str) -> None:
    """Change the file behind the server's back."""
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        changed = conn.execute(sql).rowcount
    assert changed == 1, f"{sql!r} changed {changed} rows"


def cli(*args: str, seconds: float = 30) -> subprocess.CompletedProcess[str]:
    """``justicar ARGS`` as an operator runs it."""
    command = [sys.executable, "-m", "clients.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=seconds, check=False)


def logged(db: Path, scene: str) -> list[dict[str, Any]]:
    """``justicar log``: the scene's events as the operator sees them."""
    done = cli("log", "--db", str(db), scene)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


# -- `justicar serve` as a process -----------------------------------------------------------------


def serve_argv(db: Path, port: int, *extra: str) -> list[str]:
    """`justicar serve` on ``db`` and ``port``, without the rate limit."""
    return [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port), *FAST, *extra]


@dataclass
class Served:
    """A `justicar serve` process: its port, and the links it printed (scene → who → token)."""

    proc: subprocess.Popen[str]
    port: int
    log: Path
    tokens: dict[str, dict[str, str]]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def outside(self, path: Path) -> Path:
        """``path`` as the server sees it (through its mount namespace), reached from here."""
        return Path(f"/proc/{self.pid}/root") / path.relative_to("/")

    def alive(self) -> bool:
        return self.proc.poll() is None


LINK = re.compile(r"^\s+(?P<who>.+?)\s+http://\S+#token=(?P<token>jt_[^&\s]+)(?:&\S*)?$")
HEADING = re.compile(r"^Scene '(?P<scene>[^']+)'")


async def _ready(proc: subprocess.Popen[str], log: Path, seconds: float = 20) -> dict[str, dict[str, str]]:
    """Read the links the server prints until it says it listens."""
    assert proc.stdout is not None
    tokens: dict[str, dict[str, str]] = {}
    scene = ""
    with anyio.fail_after(seconds):
        while True:
            line = await anyio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
            if not line:
                raise AssertionError(f"the server stopped ({proc.wait()}): {log.read_text()[-3000:]}")
            if heading := HEADING.match(line):
                scene = heading["scene"]
            elif link := LINK.match(line.rstrip("\n")):
                tokens.setdefault(scene, {})[link["who"]] = link["token"]
            elif "listens on" in line:
                return tokens


async def stopped(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM, and SIGKILL if it has not stopped within 10 s."""
    proc.terminate()
    try:
        await anyio.to_thread.run_sync(lambda: proc.wait(10))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.asynccontextmanager
async def served(argv: list[str], port: int, log: Path) -> AsyncIterator[Served]:
    """Run ``argv`` (a `justicar serve`, perhaps wrapped) until the block ends; SIGTERM, then kill."""
    with log.open("a", encoding="utf-8") as errors:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=ROOT)
    try:
        yield Served(proc, port, log, await _ready(proc, log))
    finally:
        if proc.poll() is None:
            await stopped(proc)
        if proc.stdout is not None:
            proc.stdout.close()


# -- a private mount -------------------------------------------------------------------------------


def _works(argv: list[str]) -> bool:
    """Whether ``argv`` runs and succeeds here."""
    try:
        return subprocess.run(argv, capture_output=True, timeout=10, check=False).returncode == 0
    except OSError:
        return False


def isolation(mount: str, probe: Path, *, userns: bool) -> list[str] | None:
    """How to run a command with ``mount`` (a shell command mounting on ``probe``) done in a mount
    namespace of its own: the `unshare` prefix that works here, or None when none does (then the
    caller, as root, mounts directly)."""
    options = [["unshare", "--mount", "--map-root-user", "--propagation", "private"]] if userns else []
    if os.geteuid() == 0:
        options.append(["unshare", "--mount", "--propagation", "private"])
    for prefix in options:
        if _works([*prefix, "sh", "-c", mount]):
            return prefix
    return None


@contextlib.contextmanager
def on_mount(mount: str, target: Path, argv: list[str], *, userns: bool = True) -> Iterator[list[str]]:
    """``argv`` run with ``mount`` (a shell command mounting on ``target``) done first: in a private
    mount namespace whose process is the server itself (``sh`` execs it), or, where namespaces are
    not allowed, mounted directly (root only) and unmounted at the end."""
    target.mkdir(parents=True, exist_ok=True)
    prefix = isolation(mount, target, userns=userns)
    if prefix is not None:
        yield [*prefix, "sh", "-c", f'{mount} && exec "$@"', "sh", *argv]
        return
    assert os.geteuid() == 0, "neither a mount namespace nor root: the disk cannot be mounted"
    subprocess.run(["sh", "-c", mount], check=True)
    try:
        yield argv
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


def fill(path: Path) -> int:
    """Write zeros to ``path`` until the disk is full: the bytes written."""
    written = 0
    chunk = b"\0" * 65536
    with path.open("wb", buffering=0) as filler:
        try:
            while True:
                written += filler.write(chunk)
        except OSError as err:
            assert err.errno == errno.ENOSPC, err
        with contextlib.suppress(OSError):  # the last few bytes
            while filler.write(b"\0" * 512):
                written += 512
    return written


def immutable(path: Path, on: bool) -> None:
    """Set or clear the immutable attribute (ext4): every write to the file fails, even through a
    descriptor opened earlier."""
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
