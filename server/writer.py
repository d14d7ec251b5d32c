"""The server's one writer: every write to the store runs here, one at a time, on a worker thread,
so the event loop never waits on the disk (an fsync, a fork's thousands of rows, a snapshot) and
other scenes, pings and pages go on meanwhile. An in-memory store is written inline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


class Writer:
    def __init__(self, *, threaded: bool) -> None:
        self.threaded = threaded
        self._limiter = anyio.CapacityLimiter(1)

    async def run(self, job: Callable[[], T]) -> T:
        """Run ``job`` after every write before it; it finishes even if the caller is cancelled
        (a commit is never abandoned half-way)."""
        if not self.threaded:
            return job()
        return await anyio.to_thread.run_sync(job, limiter=self._limiter)
