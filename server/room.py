"""A live scene: one anyio task that owns the scene's state and serializes its jobs.

Every connection's commands, subscriptions and departures arrive on one memory channel and are
handled one at a time, so a scene never sees two commands at once, and a new subscriber's
catch-up and the live stream never interleave (no gap, no duplicate). After a commit the room
writes each subscriber's frames with ``websockets.broadcast`` (no awaiting); a subscriber whose
write buffer is over ``WRITE_LIMIT`` is dropped, never awaited, and catches up when it comes back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import structlog
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from websockets.asyncio.server import ServerConnection, broadcast

from domain.automation import automatic
from domain.commands import AnyCommand
from domain.evolve import fold
from domain.log import Recorded
from domain.state import Scene
from server.service import Handled, SceneService
from server.tokens import Grant
from server.wire import Presence, Present, after_commit, befores_of, catch_up, encode

WRITE_LIMIT = 512 * 1024
"""Bytes a subscriber may leave unread before it is dropped as too slow."""
TOO_SLOW = 4008
"""The close code of a dropped subscriber: reconnect and catch up."""
QUEUE = 1024
"""Jobs waiting for a room before senders wait."""
AUTOMATION_ROUNDS = 10
"""Passes of automatic throws after one command (each pass may open the next test)."""

log = structlog.get_logger("justicar.room")


@dataclass(eq=False)
class Subscriber:
    conn: ServerConnection
    grant: Grant
    summaries: bool = False
    """Whether it wants each event in words."""

    @property
    def viewer(self) -> str:
        return self.grant.viewer


@dataclass
class Submit:
    command: AnyCommand
    reply: MemoryObjectSendStream[Handled]


@dataclass
class Join:
    subscriber: Subscriber
    since: int
    reply: MemoryObjectSendStream[int]


@dataclass
class Leave:
    subscriber: Subscriber


@dataclass
class SendView:
    subscriber: Subscriber


Job = Submit | Join | Leave | SendView


@dataclass(eq=False)
class Room:
    scene: str
    service: SceneService
    tg: TaskGroup
    on_idle: Callable[[Room], bool]
    idle_after: float = 300.0
    subscribers: list[Subscriber] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.jobs: MemoryObjectSendStream[Job]
        self._inbox: MemoryObjectReceiveStream[Job]
        self.jobs, self._inbox = anyio.create_memory_object_stream[Job](QUEUE)

    async def run(self) -> None:
        structlog.contextvars.clear_contextvars()  # not the context of the connection that woke the room
        self.automate()  # a throw owed since before a restart
        with self._inbox:
            while True:
                job: Job | None = None
                with anyio.move_on_after(self.idle_after):
                    try:
                        job = await self._inbox.receive()
                    except anyio.EndOfStream:
                        return
                if job is None:
                    if not self.subscribers and self.on_idle(self):
                        self.jobs.close()  # senders holding this room now retry with a new one
                        return
                    continue
                self.handle(job)

    def handle(self, job: Job) -> None:
        match job:
            case Submit(command=command, reply=reply):
                before = self.service.state(self.scene)
                handled = self.service.handle(command)
                if handled.fresh:
                    self.push(before, handled.records)
                    self.automate()
                reply.send_nowait(handled)
            case Join(subscriber=sub, since=since, reply=reply):
                state = self.service.state(self.scene)
                since = min(since, state.version)
                records = list(self.service.store.read(self.scene, after=since))
                befores = None
                if sub.summaries and records:  # the words need the state before each event
                    befores = befores_of(records, fold(self.service.store.read(self.scene, upto=since)))
                self._send([sub], catch_up(records, state, since, sub.viewer, befores))
                self.subscribers.append(sub)
                self.announce()
                reply.send_nowait(state.version)
            case Leave(subscriber=sub):
                if sub in self.subscribers:
                    self.subscribers.remove(sub)
                    self.announce()
            case SendView(subscriber=sub):
                state = self.service.state(self.scene)
                self._send([sub], catch_up([], state, state.version, sub.viewer)[:-1])

    def automate(self) -> None:
        """Let the NPCs the server answers for throw, until none is owed a throw."""
        for _ in range(AUTOMATION_ROUNDS):
            state = self.service.state(self.scene)
            moved = False
            for command in automatic(state):
                handled = self.service.handle(command)
                if handled.fresh:
                    self.push(state, handled.records)
                    state, moved = self.service.state(self.scene), True
                elif handled.error is not None:
                    log.warning("automatic throw refused", code=handled.error.code, message=handled.error.message)
            if not moved:
                return

    def push(self, before: Scene, records: list[Recorded]) -> None:
        """Each subscriber's copy of what was just committed (in words too, for those who asked)."""
        state = self.service.state(self.scene)
        groups: dict[tuple[str, bool], list[Subscriber]] = defaultdict(list)
        for sub in self.subscribers:
            groups[(sub.viewer, sub.summaries)].append(sub)
        befores = befores_of(records, before) if any(said for _, said in groups) else None
        for (viewer, said), subs in groups.items():
            self._send(subs, after_commit(state, records, viewer, befores if said else None))

    def announce(self) -> None:
        """Tell every subscriber who is connected (roles and characters, never tokens)."""
        counts: dict[tuple[str, str | None], int] = defaultdict(int)
        for sub in self.subscribers:
            counts[(sub.grant.role, sub.grant.character)] += 1
        present = [Present(role, character, n) for (role, character), n in sorted(counts.items(), key=str)]
        self._send(self.subscribers, [encode(Presence(scene=self.scene, connected=present))])

    def _send(self, subs: list[Subscriber], frames: list[bytes]) -> None:
        """Write frames to subscribers without waiting; drop those too far behind."""
        conns, behind = [], []
        for sub in list(subs):
            transport: Any = sub.conn.transport
            if transport is not None and transport.get_write_buffer_size() > WRITE_LIMIT:
                behind.append(sub)
            else:
                conns.append(sub.conn)
        for frame in frames:
            broadcast(conns, frame, text=True)
        if behind:
            self._drop(behind)

    def _drop(self, subs: list[Subscriber]) -> None:
        for sub in subs:
            if sub in self.subscribers:
                self.subscribers.remove(sub)
                log.warning("subscriber dropped", scene=self.scene, role=sub.grant.role, reason="too slow")
                self.tg.start_soon(sub.conn.close, TOO_SLOW, "too slow: reconnect to catch up")
        self.announce()
