"""The server's one worker thread, for heavy pure work (QR codes, sheet reports, catch-ups,
replays, history pages, ledgers, a fork's reading, loads): one job at a time, so the event loop
competes for the interpreter with one thread, not a crowd; shared fairly: jobs are taken in turn
(the server's own loads first, then link by link and, within a link, connection by connection:
each job's ``Share``), and every heavy request is paid for from its connection's and its link's
``Budget`` of work (``docs/protocol.md``, Limits). Writes are the writer's (``server.writer``)."""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.lowlevel

T = TypeVar("T")


CONNECTION_WORK = (2_000.0, 5_000.0)
"""Work one connection may ask for in heavy requests: 2,000 units a second on average, 5,000 at
once. A unit is an event read, folded or put into words, or a challenge shown; a heavy request
(``docs/protocol.md``, Limits) costs ``HEAVY`` units plus what it asks for, plus the events folded
to reach what it asks for."""
LINK_WORK = (5_000.0, 10_000.0)
"""Work all the connections of one link (a token) may ask for together in heavy requests: 5,000
units a second on average (about a quarter of what the worker does), 10,000 at once."""
LINK_CATCH_UP = (5_000.0, 20_000.0)
"""Events all the connections of one link may catch up on together while another link waits for
the worker: 5,000 a second on average once 20,000 are spent. A link alone goes at the worker's
pace (``Worker.contended``)."""
CONTENDED = 0.5
"""Seconds after a link last asked for the worker during which others catching up are paced."""
HEAVY = 100
"""Units every heavy request costs whatever it asks for (its turn on the worker, its state)."""
FOLDED = 10
"""Events folded (read, checked and folded, not put into words) for one unit: about as long."""


class Budget:
    """A token bucket of work (``CONNECTION_WORK``, ``LINK_WORK``): ``rate`` units a second on
    average, ``burst`` at once. A request may start while the budget is not in debt; what it costs
    is then taken, into debt if need be (a request's whole cost is not known before it runs), and
    whoever asks next waits the debt out (``owed``)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level, self.last = burst, time.monotonic()

    def _refilled(self) -> float:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        return self.level

    def owed(self) -> float:
        """Seconds until the budget is out of debt (0: it is not in debt)."""
        level = self._refilled()
        return 0.0 if level >= 0 else -level / self.rate

    def full(self) -> bool:
        return self._refilled() >= self.burst

    def spend(self, units: float) -> None:
        self._refilled()
        self.level -= units


Share = tuple[str, int]
"""Whose heavy work a job is: a link (a token's id) and one of its connections."""


class _Fair:
    """The worker's queue: jobs wait in lanes, and the worker takes them in turn, the server's own
    (loads of scenes, ahead of everything: commands may wait on them) first, then one job of each
    link in turn and, within a link, of each of its connections in turn. A link's hundred
    connections get one turn among links, as one connection does: no link, and no connection,
    holds the worker for longer than one job at a time while another waits. A job given up while
    it waits (its connection closed) leaves the queue without running."""

    def __init__(self) -> None:
        self.busy = False
        self.server: deque[anyio.Event] = deque()
        self.links: dict[str, dict[int, deque[anyio.Event]]] = {}
        """Waiting jobs by link, then connection, each in turn order (first: next to go)."""
        self.budgets: dict[tuple[str, bool], Budget] = {}
        """The work each link may still ask for (``Worker.budget``)."""
        self.asked: dict[str, float] = {}
        """When each link last asked for the worker (``Worker.contended``)."""
        self.last: str | None = None
        """The link whose job had the worker last (None: the server's)."""

    async def turn(self, lane: Share | None) -> None:
        """Wait for this job's turn (the worker is then this job's until ``done``)."""
        if lane is not None:
            self._asked(lane[0])
        if not self.busy:
            self.busy, self.last = True, lane[0] if lane is not None else None
            return
        ticket = anyio.Event()
        queue = self.server if lane is None else self.links.setdefault(lane[0], {}).setdefault(lane[1], deque())
        queue.append(ticket)
        try:
            await ticket.wait()
        except BaseException:
            if ticket.is_set():  # given the turn as it was cancelled: the next one takes it
                self.done()
            else:
                queue.remove(ticket)
                if lane is not None and not queue:
                    self._drop(lane)
            raise

    def _asked(self, link: str) -> None:
        now = self.asked[link] = time.monotonic()
        if len(self.asked) > 1024:  # forget the links quiet for a while
            for name in [name for name, at in self.asked.items() if at < now - CONTENDED]:
                del self.asked[name]

    def _drop(self, lane: Share) -> None:
        link = self.links.get(lane[0])
        if link is not None and not link.get(lane[1], True):
            del link[lane[1]]
            if not link:
                del self.links[lane[0]]

    def done(self) -> None:
        """The job that had the worker is done: give it to the next in turn."""
        if self.server:
            self.server.popleft().set()
            return
        if not self.links:
            self.busy = False
            return
        names = iter(self.links)
        name = next(names)
        if name == self.last and len(self.links) > 1:  # a link back as its job ended goes before it
            name = next(names)
        link = self.links[name]
        self.last = name
        connection, queue = next(iter(link.items()))
        queue.popleft().set()
        del link[connection], self.links[name]  # to the back of their rounds
        if queue:
            link[connection] = queue
        if link:
            self.links[name] = link


class Worker:
    """One worker thread for heavy pure work (the loop waits for the interpreter at most one
    switch interval behind it), taken in fair turns (``_Fair``): a connection asks for it through
    its ``lane`` (``Worker.lane``), the server's own work (loads) through the worker itself. The
    cyclic garbage collector is paused while a job runs: a job makes hundreds of thousands of
    short-lived objects (an audit's steps), which would otherwise trigger full collections that
    stop every thread, the loop's included, for tens of milliseconds; freed by reference counting
    when the job ends, they never reach one."""

    def __init__(self, fair: _Fair | None = None, lane: Share | None = None) -> None:
        self._fair = fair or _Fair()
        self._lane = lane

    def contended(self) -> bool:
        """Whether a link other than this share's has asked for the worker in the last
        ``CONTENDED`` seconds."""
        mine = self._lane[0] if self._lane is not None else None
        since = time.monotonic() - CONTENDED
        return any(link != mine and at > since for link, at in self._fair.asked.items())

    def share(self, link: str, connection: int) -> Worker:
        """This worker as one connection of one link asks for it: its jobs wait their turn."""
        return Worker(self._fair, (link, connection))

    def budget(self, link: str, *, catching_up: bool = False) -> Budget:
        """The work ``link`` (all its connections together) may still ask for: in heavy requests
        (``LINK_WORK``) or, ``catching_up``, in catch-ups (``LINK_CATCH_UP``)."""
        budgets = self._fair.budgets
        found = budgets.get((link, catching_up))
        if found is None:
            if len(budgets) >= 4096:  # forget the links whose budgets are whole again
                for key in [key for key, held in budgets.items() if held.full()]:
                    del budgets[key]
            found = budgets[link, catching_up] = Budget(*(LINK_CATCH_UP if catching_up else LINK_WORK))
        return found

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` on the worker thread, in its turn. Cancelled while it waits, it never
        runs; once running, it finishes (the caller waits for it) before the next one starts."""
        await self._fair.turn(self._lane)
        try:
            return await anyio.to_thread.run_sync(_uncollected, job, args)
        finally:
            self._fair.done()


def _uncollected(job: Callable[..., T], args: tuple[Any, ...]) -> T:
    paused = gc.isenabled()
    gc.disable()
    try:
        return job(*args)
    finally:
        if paused:
            gc.enable()
