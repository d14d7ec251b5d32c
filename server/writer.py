"""Writes the event loop hands to a thread of their own, so it never waits on the disk: the
server's one writer (every write to the store, one at a time: an fsync, a step of a fork's rows, a
snapshot). Heavy pure work goes to the worker (``server.worker``).

The writer commits in groups: the appends that arrive while a commit is on its way to the disk,
from any scene, go to the disk together in the next transaction, each acknowledged only once that
transaction is durable. A store that takes appends side by side (PostgreSQL) has ``FLIGHTS``
group commits on their way at once, each on a thread and a connection of its own. A store in
memory is written inline. The writer's thread is a ``Lane`` of its own (a one-worker executor),
not anyio's pool: a handoff costs the loop about half as much.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.lowlevel

from domain.log import Recorded, Wire
from server.store import Append, ConcurrencyConflict, EventStore, MemoryStore, StoreError
from server.store.base import copy_steps

T = TypeVar("T")
FLIGHTS = 2
"""Group commits on their way at once, for a store that takes them side by side (PostgreSQL: each
on a connection of its own; its commits' flushes of the write-ahead log are shared): while one
waits for the disk, the next group goes."""
Outcome = list[Recorded] | ConcurrencyConflict | StoreError


class _Waiting:
    __slots__ = ("item", "outcome", "taken")

    def __init__(self, item: Append) -> None:
        self.item = item
        self.outcome: Outcome | None = None
        self.taken = False


class Lane:
    """One thread that runs jobs in the order they were given (a one-worker executor), each awaited
    on the event loop and finished even if its caller is cancelled. Lighter on the loop than
    ``anyio.to_thread`` (no limiter, no checkpoint): one hand-over there, one call back."""

    def __init__(self, name: str = "justicar writer") -> None:
        self.name = name
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        context = contextvars.copy_context()  # the log's bound fields go with the job
        done = asyncio.get_running_loop().run_in_executor(self._thread, context.run, job, *args)
        with anyio.CancelScope(shield=True):
            result = await done
        return result


class Writer:
    def __init__(self, store: EventStore, *, threaded: bool | None = None) -> None:
        self.store = store
        self.threaded = not isinstance(store, MemoryStore) if threaded is None else threaded
        self._lane = Lane()
        self._lanes = [self._lane]
        """Where group commits go: a store whose appends may run side by side (``FLIGHTS``, on
        connections of their own: PostgreSQL) has a lane more for each."""
        for n in range(1, FLIGHTS if getattr(store, "concurrent", False) else 1):
            self._lanes.append(Lane(f"justicar writer {n + 1}"))
        self._idle = list(self._lanes)
        self._waiting: list[_Waiting] = []
        self._landed = anyio.Event()
        self._stepping = anyio.Lock()
        """Held by the copy whose step is with the writer: one step at a time, however many copies
        are made, so a commit waits behind one step at most."""

    async def run(self, job: Callable[[], T]) -> T:
        """Run ``job`` after every write before it; it finishes even if the caller is cancelled
        (a commit is never abandoned half-way)."""
        if not self.threaded:
            return job()
        return await self._lane.run(job)

    async def copy(self, scene: str, wires: Sequence[Wire], digests: dict[tuple[str, str], str] | None = None) -> None:
        """Write a whole scene's records (a fork) a step at a time (``STEP`` records, each step a
        job of its own, and one copy's step at a time: the commits that arrive meanwhile go in
        between, so none waits longer than one step). After each step the copies pause as long as
        it took: they have at most half the writer's thread, and the event loop the interpreter
        (a step is Python work too: steps back to back starve the loop that brings the commits).
        The scene exists for readers once the last step is in; an unfinished copy of the same
        records (a copy that died half-way) is taken over and completed."""
        owner = secrets.token_hex(8)
        done = await self.run(partial(self.store.resume, scene, wires))
        for step in copy_steps(scene, wires, digests, done):  # each made on the loop: well under 0.1 ms
            async with self._stepping:
                started = time.perf_counter()
                await self.run(partial(self.store.write_step, scene, owner, step))
                await anyio.sleep(time.perf_counter() - started)  # as long again for the others

    async def append(self, items: Sequence[Append]) -> list[Outcome]:
        """Append these commands' events (in this order), committed with whatever else is waiting:
        each one's records, or what kept it out."""
        if not self.threaded:
            return list(self.store.append_batch(items))
        mine = [_Waiting(item) for item in items]
        self._waiting += mine
        while any(w.outcome is None for w in mine):
            if self._idle and not all(w.taken for w in mine):
                await self._commit(self._idle.pop())
            else:  # a commit is on its way with them, or every lane is busy: the next to land
                await self._landed.wait()
        return [w.outcome for w in mine if w.outcome is not None]

    async def _commit(self, lane: Lane) -> None:
        """Commit what waits, on ``lane``. A scene's commands are never in two commits at once
        (its room sends its next group once the last is answered), so commits side by side keep
        each scene's order."""
        try:
            await anyio.sleep(0)  # what arrives in this turn of the loop goes in too
            batch, self._waiting = self._waiting, []
            for waiting in batch:
                waiting.taken = True
            outcomes: Sequence[Outcome] = []
            if batch:
                try:
                    outcomes = await lane.run(self.store.append_batch, [w.item for w in batch])
                except StoreError as err:
                    outcomes = [err] * len(batch)
            for waiting, outcome in zip(batch, outcomes, strict=True):
                waiting.outcome = outcome
        finally:
            self._idle.append(lane)
            landed, self._landed = self._landed, anyio.Event()
            landed.set()


def let_go(*held: list[Any] | dict[Any, Any]) -> None:
    """Empty big containers one entry at a time (on a worker thread). Dropped whole, a list of
    20,000 events' records is freed in one go, about 8 ms with the interpreter held, and the event
    loop waits that long; entry by entry, it gets its turn in between."""
    for each in held:
        if isinstance(each, dict):
            while each:
                each.popitem()
        else:
            while each:
                each.pop()


def lower_priority() -> None:
    """A helper process (documents, checks) gives way to the server's on a busy machine (once per
    process)."""
    global _NICE
    if not _NICE:
        _NICE = True
        with contextlib.suppress(OSError):
            os.nice(10)


_NICE = False
