"""How the processes that serve one database hear of each other's commits: a feed of
``(scene, seq)``.

Any number of ``justicar serve`` processes append to one log. A commit by one must reach the
subscribers of every other, in the log's order. The feed only says that a scene reached a seq; it
never carries the events: each process's room for that scene reads what it has not seen from the
log itself (``Room.catch_up``) and pushes it, redacted per viewer, as it pushes its own commits.
So a lost, late, repeated or merged announcement costs at most a delay, never an event: the next
one for the scene (or the sweep) brings everything since the room's last.

- ``Poller`` (SQLite): two processes on one file have no NOTIFY. Every ``POLL`` seconds it asks
  SQLite's ``PRAGMA data_version`` (which moves when another connection commits; a few
  microseconds); only when it moved does it read the heads of the scenes this process holds.
- ``Listener`` (PostgreSQL): ``server.store.postgres`` ``NOTIFY``s ``"seq scene"`` on the channel
  of the scene's group (``server.store.channels``) inside each append's transaction (so only once
  it is committed, and never lost with a process killed after its commit); for a store that does
  not, the feed says it after the commit. The feed ``LISTEN``s only to the groups of the scenes its
  process holds (``watch``, ``unwatch``: the hub's loaded rooms), on its one listening connection,
  so a process holding a tenth of the scenes hears about a tenth of the commits (and those of the
  few other scenes that share their groups), not all of them.
  A group listened to late, and a listening connection lost and made again, are covered by a read
  of the end of each scene concerned once the ``LISTEN`` is in place; an announcement lost
  anyway (or said on a channel this process does not hear: a process of another version during an
  upgrade) by a sweep of every held scene's end every ``SWEEP`` seconds (one query for them all:
  a room reads its log only where the end moved past what it holds).
- ``Silent``: a store in memory is one process's alone.

Each feed also gives a scene's *turn* among the processes appending to it (``turn``), which the
service takes while another process appends to the scene too (``server.service.SHARED``): a
group decided and appended in its turn finds the log's end where it read it, so processes racing
on one scene take turns instead of losing races to whoever happens to be quicker. It is an
optimisation, never what keeps the log whole: that is the append's expected version, and a turn
that cannot be had in ``TURN_WAIT`` seconds is done without.

- SQLite: a byte-range lock (``fcntl.lockf``) on a ``.turns`` file beside the database, one byte
  per bucket of scenes, tried without blocking every half millisecond.
- PostgreSQL: a session advisory lock (``pg_advisory_lock``) per scene, on a small pool of
  connections of the feed's own.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import zlib
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any, Protocol

import anyio
import structlog

from server.store import EventStore, SqliteStore
from server.store.channels import channel, channel_of, group
from server.writer import Lane

POLL = 0.005
"""Seconds between looks at an SQLite file for another process's commits."""
SWEEP = 2.0
"""Seconds between the PostgreSQL feed's sweeps (a NOTIFY lost, or said where this process does not listen)."""
RETRY = 1.0
"""Seconds before a lost listening connection is made again."""
TURN_WAIT = 5.0
"""Seconds a group waits for its scene's turn before it goes without (its append still checked)."""
BUCKETS = 4096
"""Bytes of an SQLite database's ``.turns`` file: scenes share a lock when their hashes do."""
LOCK_CLASS = 0x4A55
"""The first key of PostgreSQL advisory locks taken for turns (the second: the scene's hash)."""

Heard = Callable[[str, int | None], None]
"""Told a scene reached a seq (``None``: it may have; read the log's end)."""
Watched = Callable[[], Collection[str]]
"""The scenes this process holds (whose rooms would push what another process appended)."""

_HEADS = (
    "SELECT scene, head FROM (SELECT s.scene, (SELECT max(e.seq) FROM events e WHERE e.scene = s.scene) AS head "
    "FROM unnest(%s::text[]) AS s(scene) WHERE NOT EXISTS (SELECT 1 FROM unfinished u WHERE u.scene = s.scene)) "
    "AS heads WHERE head IS NOT NULL"
)
"""The end of each of these scenes that has one (not a scene still being copied in)."""

log = structlog.get_logger("justicar.notify")


class Feed(Protocol):
    def announce(self, scene: str, seq: int) -> None:
        """This process committed ``scene`` up to ``seq`` (never waits)."""
        ...

    def watch(self, scene: str) -> None:
        """This process holds ``scene`` now (its room loaded): hear of its commits from now on, and
        have it read once more (``Heard`` with ``None``) if they may have been missed meanwhile."""
        ...

    def unwatch(self, scene: str) -> None:
        """This process no longer holds ``scene`` (its room unloaded or failed)."""
        ...

    async def run(self, watched: Watched, heard: Heard) -> None:
        """Tell ``heard`` of commits (any process's, this one's included) until cancelled."""
        ...

    def turn(self, scene: str) -> contextlib.AbstractAsyncContextManager[None]:
        """This process's turn to decide and append on ``scene`` (see the module's docstring)."""
        ...


class Silent:
    """One process alone: nothing to hear."""

    def announce(self, scene: str, seq: int) -> None:
        pass

    def watch(self, scene: str) -> None:
        pass

    def unwatch(self, scene: str) -> None:
        pass

    async def run(self, watched: Watched, heard: Heard) -> None:
        await anyio.sleep_forever()

    @contextlib.asynccontextmanager
    async def turn(self, scene: str) -> AsyncIterator[None]:
        yield


class Poller:
    """Another process's commits to one SQLite file, seen by polling it cheaply."""

    def __init__(self, path: str, interval: float = POLL) -> None:
        self.path = path
        self.interval = interval
        self._turns: int | None = None
        self._lane = Lane("justicar feed")
        """Reads the heads off the loop: after each of this process's own commits too (they move
        ``data_version`` as another's would), so by the lightest handoff there is."""

    def announce(self, scene: str, seq: int) -> None:
        pass  # the other processes see the file move

    def watch(self, scene: str) -> None:
        pass  # each look reads the heads of what is held then

    def unwatch(self, scene: str) -> None:
        pass

    @contextlib.asynccontextmanager
    async def turn(self, scene: str) -> AsyncIterator[None]:
        if self._turns is None:
            self._turns = os.open(f"{self.path}.turns", os.O_RDWR | os.O_CREAT, 0o644)
        bucket = zlib.crc32(scene.encode()) % BUCKETS
        held = False
        with anyio.move_on_after(TURN_WAIT):
            while not held:
                try:  # a POSIX lock is the process's: its scenes of one bucket share it (an optimisation only)
                    fcntl.lockf(self._turns, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, bucket)
                    held = True
                except OSError:
                    await anyio.sleep(0.0005)
        try:
            yield
        finally:
            if held:
                fcntl.lockf(self._turns, fcntl.LOCK_UN, 1, bucket)

    async def run(self, watched: Watched, heard: Heard) -> None:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=1.0)
        try:
            seen: int | None = None
            while True:
                await anyio.sleep(self.interval)
                try:
                    version = conn.execute("PRAGMA data_version").fetchone()[0]
                    if version == seen:
                        continue
                    seen = version
                    scenes = list(watched())
                    if not scenes:
                        continue
                    heads = await self._lane.run(_heads, conn, scenes)
                except sqlite3.Error as err:  # read again next time
                    log.warning("feed unreadable", error=str(err))
                    seen = None
                    continue
                for scene, seq in heads:
                    heard(scene, seq)
        finally:
            conn.close()


def _heads(conn: sqlite3.Connection, scenes: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for start in range(0, len(scenes), 500):  # SQLite's limit on bound parameters
        part = scenes[start : start + 500]
        marks = ", ".join("?" * len(part))
        sql = f"SELECT scene, max(seq) FROM events WHERE scene IN ({marks}) GROUP BY scene"
        out += [(str(scene), int(seq)) for scene, seq in conn.execute(sql, part)]
    return out


class Listener:
    """Commits announced through PostgreSQL's LISTEN/NOTIFY (a channel per group of scenes,
    ``server.store.channels``; payload ``"seq scene"``)."""

    sweep = SWEEP

    def __init__(self, url: str, *, speak: bool = True) -> None:
        self.url = url
        self.speak = speak
        """Whether this feed says NOTIFY after a commit (not when the store does it in the commit)."""
        self._pending: dict[str, int] = {}
        self._wake = anyio.Event()
        self.listening = anyio.Event()
        """Set once the listening connection is up, with a LISTEN for each group held then."""
        self.heard = 0
        """Announcements received (any scene's, held or not): what listening by group saves is
        counted here (tests, ``benchmarks/announcements.py``)."""
        self.foreign = 0
        """Of those, the announcements of scenes not held (in a group held for another scene)."""
        self.swept = 0
        """Sweeps done (tests)."""
        self.on: set[int] = set()
        """The groups the listening connection listens to now (read it, never change it)."""
        self._held: dict[int, set[str]] = {}
        """The scenes held, by group: the groups to listen to."""
        self._stale = False
        """``_held`` changed in a way ``on`` does not follow yet."""
        self._waiting: anyio.CancelScope | None = None
        """The listening connection's wait for announcements, cancelled to change its channels."""
        self._pool: Any = None
        self._opening = anyio.Lock()

    def watch(self, scene: str) -> None:
        self._held.setdefault(key := group(scene), set()).add(scene)
        if key not in self.on:
            self._retune()

    def unwatch(self, scene: str) -> None:
        held = self._held.get(key := group(scene))
        if held is None:
            return
        held.discard(scene)
        if not held:
            del self._held[key]
            if key in self.on:
                self._retune()

    def _retune(self) -> None:
        """Have the listening connection change its channels (it is waiting for announcements, or
        will look before it waits again)."""
        self._stale = True
        if self._waiting is not None:
            self._waiting.cancel()

    @contextlib.asynccontextmanager
    async def turn(self, scene: str) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            held: Any = None
            try:
                pool = await self._turns()
                conn = await stack.enter_async_context(pool.connection(timeout=TURN_WAIT))
                await conn.execute(f"SET lock_timeout = '{int(TURN_WAIT * 1000)}ms'")
                await conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (LOCK_CLASS, scene))
                held = conn
            except Exception as err:  # no turn (the server is away, or busy): the append's check holds
                log.warning("no turn for the scene", scene=scene, error=str(err))
            try:
                yield
            finally:
                if held is not None:
                    with contextlib.suppress(Exception):  # a lost connection let go of it already
                        await held.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (LOCK_CLASS, scene))

    async def _turns(self) -> Any:
        """The pool the turns' locks are taken on (opened on first use)."""
        import psycopg_pool

        async with self._opening:
            if self._pool is None:
                pool = psycopg_pool.AsyncConnectionPool(
                    self.url, min_size=1, max_size=4, kwargs={"autocommit": True}, open=False, name="justicar-turns"
                )
                try:
                    await pool.open(wait=True, timeout=TURN_WAIT)
                except BaseException:
                    with anyio.CancelScope(shield=True):
                        await pool.close()
                    raise
                self._pool = pool
        return self._pool

    def announce(self, scene: str, seq: int) -> None:
        if not self.speak:
            return
        if seq > self._pending.get(scene, 0):
            self._pending[scene] = seq
        self._wake.set()

    async def run(self, watched: Watched, heard: Heard) -> None:
        try:
            async with anyio.create_task_group() as tg:
                if self.speak:
                    tg.start_soon(self._speak)
                tg.start_soon(self._listen, watched, heard)
                tg.start_soon(self._sweep, watched, heard)
        finally:
            if self._pool is not None:
                with anyio.CancelScope(shield=True), anyio.move_on_after(1.0):
                    await self._pool.close()

    async def _sweep(self, watched: Watched, heard: Heard) -> None:
        """Every ``sweep`` seconds, the end of every held scene, in one query on a connection of
        its own: a room reads its log only where the end moved past what it holds."""
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    while True:
                        await anyio.sleep(self.sweep)
                        if scenes := list(watched()):
                            cursor = await conn.execute(_HEADS, [scenes])
                            for scene, seq in await cursor.fetchall():
                                heard(scene, int(seq))
                        self.swept += 1
            except psycopg.Error as err:
                log.warning("feed cannot sweep, connecting again", error=str(err))
            await anyio.sleep(RETRY)

    async def _listen(self, watched: Watched, heard: Heard) -> None:
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    self.on = set()
                    await self._tune(conn)
                    self.listening.set()
                    for scene in list(watched()):  # what passed while nobody listened
                        heard(scene, None)
                    while True:
                        with anyio.CancelScope() as self._waiting:
                            if not self._stale:  # cancelled (by ``_retune``) only while waiting here
                                async for note in conn.notifies():
                                    self.heard += 1
                                    seq, _, scene = note.payload.partition(" ")
                                    if scene not in self._held.get(group(scene), ()):
                                        self.foreign += 1
                                    with contextlib.suppress(ValueError):
                                        heard(scene, int(seq))
                        self._waiting = None
                        for key in await self._tune(conn):  # what passed before these LISTENs
                            for scene in list(self._held.get(key, ())):
                                heard(scene, None)
            except psycopg.Error as err:
                log.warning("feed lost, listening again", error=str(err))
            finally:
                self._waiting = None
                self.on = set()
            await anyio.sleep(RETRY)

    async def _tune(self, conn: Any) -> set[int]:
        """LISTEN to the groups held that the connection does not listen to, UNLISTEN those no
        longer held (in one round trip); the groups it now listens to anew. Announcements that
        arrive meanwhile are kept by psycopg for the next wait."""
        self._stale = False
        want = set(self._held)
        new, gone = want - self.on, self.on - want
        if new or gone:
            said = [f"LISTEN {channel_of(key)}" for key in sorted(new)]
            said += [f"UNLISTEN {channel_of(key)}" for key in sorted(gone)]
            await conn.execute("; ".join(said))
        self.on = want
        if set(self._held) != want:  # a room loaded or left meanwhile: tune again before waiting
            self._stale = True
        return new

    async def _speak(self) -> None:
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    while True:
                        await self._wake.wait()
                        self._wake = anyio.Event()
                        pending, self._pending = self._pending, {}
                        for scene, seq in pending.items():
                            await conn.execute("SELECT pg_notify(%s, %s)", (channel(scene), f"{seq} {scene}"))
            except psycopg.Error as err:  # the sweep covers what was not said
                log.warning("feed cannot announce, connecting again", error=str(err))
            await anyio.sleep(RETRY)


def feed_for(store: EventStore) -> Feed:
    """The feed of the processes that share ``store``."""
    if isinstance(store, SqliteStore):
        return Poller(store.path)
    from server.store.postgres import PostgresStore

    if isinstance(store, PostgresStore):  # it NOTIFYs in each append's transaction itself
        return Listener(store.conninfo, speak=not store.notify)
    return Silent()
