"""Work the event loop hands to worker threads, so it never waits on the disk or on a long
computation: the server's one writer (every write to the store, one at a time: an fsync, a fork's
thousands of rows, a snapshot) and its one worker (QR codes, sheet reports, catch-ups, replays,
audits, exports, forks, loads: one at a time, so the loop competes for the interpreter with one
thread, not a crowd). An in-memory store is written inline.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any, TypeVar

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


class Worker:
    """One worker thread for heavy pure work (the loop waits for the interpreter at most one
    switch interval behind it). The cyclic garbage collector is paused while a job runs: a job
    makes hundreds of thousands of short-lived objects (an audit's steps), which would otherwise
    trigger full collections that stop every thread, the loop's included, for tens of
    milliseconds; freed by reference counting when the job ends, they never reach one."""

    def __init__(self) -> None:
        self._limiter = anyio.CapacityLimiter(1)

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        return await anyio.to_thread.run_sync(_uncollected, job, args, limiter=self._limiter)


def _uncollected(job: Callable[..., T], args: tuple[Any, ...]) -> T:
    paused = gc.isenabled()
    gc.disable()
    try:
        return job(*args)
    finally:
        if paused:
            gc.enable()
