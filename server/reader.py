"""Reads the event loop hands to threads of their own, each waited for a bounded time.

The loop never waits on the database. A read that a scene's room or a connection needs (what
another process appended, the last events for a joining subscriber, a repeated command's first
result, the event a dispute names, whether a scene exists) runs on one of ``THREADS`` threads and
is awaited at most ``PATIENCE`` seconds: a database that has not answered by then is
``StorageUnavailable`` to whoever asked (a command is refused ``storage_unavailable``, nothing
recorded), while the loop goes on with pings, handshakes and pushes of every loaded scene. The read
itself runs on until the database answers or gives up (``server.store.postgres.POOL_WAIT``); while
every thread is held by reads not yet answered (an outage), a new read is refused at once instead
of queueing behind them, and reads pass again by themselves as soon as the database answers.

A store in memory (tests, ``justicar play``) is read inline.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio

from server.store import EventStore, MemoryStore, StorageUnavailable

T = TypeVar("T")

THREADS = 4
"""Reads in progress at once: the rest wait for one of these threads."""
PATIENCE = 1.5
"""Seconds a read is waited for before its asker is told the database is not answering."""


class Reader:
    def __init__(self, store: EventStore, *, threads: int = THREADS, patience: float = PATIENCE) -> None:
        self.threaded = not isinstance(store, MemoryStore)
        self.threads = threads
        self.patience = patience
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="justicar reads")
        self._busy = 0
        """Reads handed to the threads and not yet finished (abandoned ones included)."""

    async def run(self, job: Callable[..., T], *args: Any, patience: float | None = None) -> T:
        """``job(*args)`` on a reading thread, its answer awaited at most ``patience`` seconds
        (``PATIENCE`` by default); ``StorageUnavailable`` if the database does not answer by then,
        or if every thread is still held by reads it has not answered."""
        if not self.threaded:
            return job(*args)
        if self._busy >= self.threads:
            raise StorageUnavailable("the database has not answered the reads before this one; try again in a moment")
        self._busy += 1
        context = contextvars.copy_context()  # the log's bound fields go with the job
        done = asyncio.get_running_loop().run_in_executor(self._pool, context.run, job, *args)
        done.add_done_callback(self._finished)
        wait = self.patience if patience is None else patience
        try:
            with anyio.fail_after(wait):
                return await asyncio.shield(done)  # a read given up on still ends on its thread
        except TimeoutError:
            raise StorageUnavailable(f"the database did not answer within {wait:g} s") from None

    def _finished(self, done: asyncio.Future[Any]) -> None:
        self._busy -= 1
        if not done.cancelled():
            done.exception()  # read (an abandoned read's error is not worth a warning at exit)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
