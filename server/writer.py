"""Work the event loop hands to worker threads, so it never waits on the disk or on a long
computation: the server's one writer (every write to the store, one at a time: an fsync, a fork's
thousands of rows, a snapshot) and its one worker (QR codes, sheet reports, catch-ups, replays,
audits, exports, forks, loads: one at a time, so the loop competes for the interpreter with one
thread, not a crowd).

The writer commits in groups: the appends that arrive while a commit is on its way to the disk,
from any scene, go to the disk together in the next transaction, each acknowledged only once that
transaction is durable. A store in memory is written inline. The writer's thread is a ``Lane`` of
its own (one queue there, one call back), not anyio's pool: a handoff costs the loop half as much.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import os
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio

from domain.log import Recorded
from server.store import Append, ConcurrencyConflict, EventStore, MemoryStore, StoreError

T = TypeVar("T")
Outcome = list[Recorded] | ConcurrencyConflict | StoreError


class _Waiting:
    __slots__ = ("item", "outcome")

    def __init__(self, item: Append) -> None:
        self.item = item
        self.outcome: Outcome | None = None


IDLE = 10.0
"""Seconds the writer's thread waits for work before it ends (the next write starts another)."""


class Lane:
    """One thread that runs jobs in the order they were given, each answered on the event loop
    that gave it. Lighter than ``anyio.to_thread`` (no limiter, no checkpoint, no thread pool to
    choose from): one queue put there, one ``call_soon_threadsafe`` back."""

    def __init__(self, name: str = "justicar writer") -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[tuple[contextvars.Context, Callable[..., Any], tuple[Any, ...], Any, Any]]
        self._jobs = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._alive = False

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio: anyio's own threads, one at a time
            return await anyio.to_thread.run_sync(job, *args, limiter=self._limiter())
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((contextvars.copy_context(), job, args, future, loop))
        with self._lock:
            if not self._alive:
                self._alive = True
                threading.Thread(target=self._work, name=self.name, daemon=True).start()
        with anyio.CancelScope(shield=True):  # it finishes even if the caller is cancelled
            result = await future
        return result

    def _limiter(self) -> anyio.CapacityLimiter:
        found: anyio.CapacityLimiter | None = getattr(self, "_fallback", None)
        if found is None:
            found = self._fallback = anyio.CapacityLimiter(1)
        return found

    def _work(self) -> None:
        while True:
            try:
                context, job, args, future, loop = self._jobs.get(timeout=IDLE)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._alive = False
                        return
                continue
            try:
                result, error = context.run(job, *args), None
            except BaseException as err:  # handed to the caller, whatever it is
                result, error = None, err
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                loop.call_soon_threadsafe(_settle, future, result, error)
            del context, job, args, future, loop, result, error


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Writer:
    def __init__(self, store: EventStore, *, threaded: bool | None = None) -> None:
        self.store = store
        self.threaded = not isinstance(store, MemoryStore) if threaded is None else threaded
        self._lane = Lane()
        self._waiting: list[_Waiting] = []
        self._committing: anyio.Event | None = None

    async def run(self, job: Callable[[], T]) -> T:
        """Run ``job`` after every write before it; it finishes even if the caller is cancelled
        (a commit is never abandoned half-way)."""
        if not self.threaded:
            return job()
        return await self._lane.run(job)

    async def append(self, items: Sequence[Append]) -> list[Outcome]:
        """Append these commands' events (in this order), committed with whatever else is waiting:
        each one's records, or what kept it out."""
        if not self.threaded:
            return list(self.store.append_batch(items))
        mine = [_Waiting(item) for item in items]
        self._waiting += mine
        while any(w.outcome is None for w in mine):
            if self._committing is not None:
                await self._committing.wait()
            else:
                await self._commit()
        return [w.outcome for w in mine if w.outcome is not None]

    async def _commit(self) -> None:
        self._committing = done = anyio.Event()
        try:
            await anyio.sleep(0)  # what arrives in this turn of the loop goes in too
            batch, self._waiting = self._waiting, []
            outcomes: Sequence[Outcome]
            try:
                outcomes = await self._lane.run(self.store.append_batch, [w.item for w in batch])
            except StoreError as err:
                outcomes = [err] * len(batch)
            for waiting, outcome in zip(batch, outcomes, strict=True):
                waiting.outcome = outcome
        finally:
            self._committing = None
            done.set()


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


def lower_priority() -> None:
    """A helper process (documents, checks) gives way to the server's on a busy machine (once per
    process)."""
    global _NICE
    if not _NICE:
        _NICE = True
        with contextlib.suppress(OSError):
            os.nice(10)


_NICE = False
