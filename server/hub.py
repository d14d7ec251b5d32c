"""The open scenes of one server: a room per scene, started on first use, unloaded when idle,
stopped alone when it fails; the live connections of each token, closed within a second of the
token being revoked or expiring (by this server, another process, or the command line); and the
commands in flight, so a shutdown answers every command it committed.

Other processes may serve the same database: the hub announces its commits on the process's
feed (``server.notify``) and, told by the feed that a scene it holds moved on, has that scene's
room read and push what another process appended (``Room.missed``).

A room's task runs only while it has jobs or subscribers (``server.room``); a room asleep for
``idle_after`` seconds is unloaded by one sweep for the whole process (``_sweep``), which sleeps until
the first sleeper is due: rooms fall asleep in time order, so the oldest is always first in line.

The hub holds the process's one alarm (``server.alarms``): each room tells it when its scene next
needs waking, and it fires the response deadlines that run out through the hub, as commands.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

import anyio
import structlog
from anyio.abc import TaskGroup

from domain.commands import AnyCommand, Arrive
from domain.night import bounced, pending, sending
from domain.state import Scene
from server.alarms import Alarm
from server.backend import Backend
from server.notify import Feed, Silent, feed_for
from server.reader import Reader
from server.room import LINGER, Inspect, Join, JoinAnswer, Leave, Reply, Room, SendView, Submit, Subscriber
from server.service import ErrorBody, Handled, SceneService
from server.store import StorageUnavailable
from server.tokens import Grant
from server.wire import Limits
from server.worker import Worker
from server.writer import Lane, Writer


class Connection(Protocol):
    """What the hub asks of a live connection (``server.connection``): to end it."""

    def stop(self, code: int, why: str) -> None: ...


REVOKED = 4003
"""The close code of a connection whose token was revoked or expired."""
WATCH = 0.5
"""Seconds between looks at the tokens table for revocations and expiries."""
CHECKED = 10_000
"""Tokens whose grant a hub remembers for an outage (``Hub.check``)."""

log = structlog.get_logger("justicar.hub")
T = TypeVar("T")


class SceneUnavailable(Exception):
    """The scene's room failed: ``error`` says why."""

    def __init__(self, error: ErrorBody) -> None:
        super().__init__(error.message)
        self.error = error


class Hub:
    def __init__(
        self,
        backend: Backend,
        tg: TaskGroup,
        *,
        idle_after: float = 300.0,
        limits: Limits | None = None,
        feed: Feed | None = None,
    ) -> None:
        self.backend = backend
        self.feed = feed if feed is not None else feed_for(backend.store)
        self.limits = limits or Limits()
        self.tg = tg
        self.idle_after = idle_after
        self.writer = Writer(backend.store)
        self.worker = Worker()
        self.reader = Reader(backend.store)
        self._keys = Lane("justicar tokens")
        self.service = SceneService(backend.store, snapshots=backend.snapshots, writer=self.writer, reader=self.reader)
        self.service.turn = self.feed.turn
        self.service.loads_inline = False  # other streams are loaded by their rooms, off the loop
        self.rooms: dict[str, Room] = {}
        """The scenes loaded here, each by its room, awake or asleep."""
        self._asleep: OrderedDict[Room, float] = OrderedDict()
        """The rooms asleep, in the order they fell asleep, with when (``anyio.current_time``)."""
        self._sweeping = False
        self.connections: dict[str, set[Connection]] = defaultdict(set)
        self.ended: set[str] = set()
        """Tokens revoked or expired, as last seen in the store."""
        self._checked: dict[bytes, Grant] = {}
        """The grants last found for the tokens checked here (by the token's hash), the most recent
        last: what a hello is answered with while the token store cannot answer (``check``)."""
        self.closing = False
        self.in_flight = 0
        self._settled = anyio.Event()
        self.alarm = Alarm(self, shared=backend.shared)
        """The response deadlines of every scene, fired when they run out (``run_alarm``)."""

    # -- rooms -----------------------------------------------------------------------------------

    def room(self, scene: str) -> Room:
        """The scene's room; a new one is started at once, to load the scene."""
        room = self.rooms.get(scene)
        if room is None:
            room = Room(
                scene,
                self.service,
                self.tg,
                on_sleep=self._slept,
                on_wake=self._woke,
                on_failed=self._failed,
                on_loaded=lambda state: self._loaded(scene, state),
                on_follow_ups=self._follow,
                on_commit=self.feed.announce,
                on_due=self.alarm.set,
                warm=self._warm,
                linger=min(LINGER, self.idle_after),
                worker=self.worker,
            )
            self.rooms[scene] = room
            room.wake()
        return room

    @property
    def awake(self) -> int:
        """The rooms whose task runs now (the others sleep: their state is held, no task)."""
        return sum(room.running for room in self.rooms.values())

    def _slept(self, room: Room) -> None:
        self._asleep[room] = anyio.current_time()
        if not self._sweeping:
            self._sweeping = True
            self.tg.start_soon(self._sweep, name="idle rooms")

    def _woke(self, room: Room) -> None:
        self._asleep.pop(room, None)

    async def _sweep(self) -> None:
        """Unload the rooms asleep for ``idle_after`` seconds, the oldest first, sleeping until the
        next is due; the task ends when no room sleeps (the next to fall asleep starts it again)."""
        try:
            while self._asleep:
                room, since = next(iter(self._asleep.items()))
                wait = since + self.idle_after - anyio.current_time()
                if wait > 0:
                    await anyio.sleep(wait)
                    continue
                del self._asleep[room]
                room.close()  # a job posted to it from now on goes to a new room
                self._unload(room)
        finally:
            self._sweeping = False

    async def _warm(self, scenes: list[str]) -> None:
        """Have each scene loaded by its room (off the event loop); one that cannot be served is
        left to its own room to say why, and whatever else goes wrong here leaves the reading to the
        command (which then loads it itself): warming is never a reason for a command to fail."""
        for scene in scenes:
            try:
                await self.state(scene)
            except SceneUnavailable:
                pass
            except Exception as err:
                log.warning("scene not loaded ahead", scene=scene, error=str(err))

    def _unload(self, room: Room) -> None:
        self._asleep.pop(room, None)
        if self.rooms.get(room.scene) is room:
            del self.rooms[room.scene]
            self.service.forget(room.scene)
            self.feed.unwatch(room.scene)

    def _failed(self, room: Room) -> None:
        self._unload(room)

    # -- game nights: what one stream's commit asks of another ----------------------------------

    def _follow(self, commands: list[AnyCommand]) -> None:
        self.tg.start_soon(self._deliver, commands)

    async def _deliver(self, commands: Sequence[AnyCommand]) -> None:
        """Send follow-ups to their streams, in order; an arrival a scene refuses goes back to its
        night. Each has an id of its own making, so sending one again appends nothing twice."""
        for command in commands:
            try:
                done = await self.submit(command)
                if done.error is not None and isinstance(command, Arrive):
                    await self.submit(bounced(command, done.error.message))
                elif done.error is not None:
                    log.warning("follow-up refused", scene=command.scene, id=command.id, error=done.error.message)
            except Exception as err:  # a stream that cannot be served: mended on its night's next load
                log.error("follow-up not delivered", scene=command.scene, id=command.id, error=str(err))

    def _loaded(self, scene: str, state: Scene) -> None:
        """The feed hears of the scene's commits from now on (``Feed.watch``). A night just loaded
        mends what a crash may have kept from its scenes (``pending``); a scene of a night loads its
        night, which does the same. What another process committed while the room was loading was
        announced while it held no state (``Room.missed`` waits for one): it is read once more."""
        self.feed.watch(scene)
        if (room := self.rooms.get(scene)) is not None and not isinstance(self.feed, Silent):
            room.missed(None)
        if state.night is not None:
            self.tg.start_soon(self._mend, state.id)
        elif state.game and state.game not in self.rooms:
            self.room(state.game)

    async def _mend(self, night_id: str) -> None:
        try:
            night = await self.state(night_id)
            scenes = {}
            for visit in night.night.where.values() if night.night else ():
                scenes[visit.scene] = await self.state(visit.scene)
            for held in night.night.scenes if night.night else ():  # a close the night never heard of
                if held.open and held.id not in scenes:
                    with contextlib.suppress(SceneUnavailable):  # that scene's own load says why
                        scenes[held.id] = await self.state(held.id)
            owed: list[AnyCommand] = []
            for item in pending(night, scenes):
                if isinstance(item, tuple):
                    who, to, seq = item
                    (record,) = await self.reader.run(self.service.read, night_id, seq - 1, seq)
                    owed.append(sending(night, who, to, seq, record.hash))
                else:
                    owed.append(item)
        except Exception as err:
            log.error("night not mended", night=night_id, error=str(err))
            return
        if owed:
            log.info("mending night", night=night_id, follow_ups=len(owed))
            await self._deliver(owed)

    async def _post(self, scene: str, job: Submit | Join | Leave | SendView | Inspect) -> None:
        for _ in range(3):  # a room unloaded or failed as the job arrives: the next one takes it
            try:
                await self.room(scene).post(job)
                return
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                continue
        raise RuntimeError(f"scene {scene!r} could not take a job")

    async def submit(self, command: AnyCommand) -> Handled:
        reply: Reply[Handled] = Reply()  # not Reply[Handled](): typing's call costs more than the future
        await self._post(command.scene, Submit(command, reply))
        return await reply.receive()

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """A command being applied and answered: a shutdown waits for it."""
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1
            if self.closing and not self.in_flight:
                self._settled.set()

    async def join(self, subscriber: Subscriber, since: int | None, base: Scene | None = None) -> JoinAnswer:
        reply: Reply[JoinAnswer] = Reply()
        await self._post(subscriber.stream, Join(subscriber, since, reply, base))
        return await reply.receive()

    async def leave(self, subscriber: Subscriber) -> None:
        await self._post(subscriber.stream, Leave(subscriber))

    async def send_view(self, subscriber: Subscriber) -> None:
        await self._post(subscriber.stream, SendView(subscriber))

    async def state(self, scene: str) -> Scene:
        """The scene's state as its room holds it (loading it, off the loop, if need be); raises
        ``SceneUnavailable`` when the scene cannot be served."""
        reply: Reply[Scene | ErrorBody] = Reply()
        await self._post(scene, Inspect(reply))
        answer = await reply.receive()
        if isinstance(answer, ErrorBody):
            raise SceneUnavailable(answer)
        return answer

    async def run_alarm(self) -> None:
        """Fire the response deadlines of every scene when they run out (``server.alarms``)."""
        await self.alarm.run()

    # -- other processes -------------------------------------------------------------------------

    async def follow_others(self) -> None:
        """Hear other processes' commits and have the rooms they concern push them."""
        await self.feed.run(lambda: list(self.rooms), self._heard)

    def _heard(self, scene: str, seq: int | None) -> None:
        room = self.rooms.get(scene)
        if room is not None and (seq is None or seq > self.service.writing.get(scene, 0)):  # not our own
            room.missed(seq)

    # -- tokens ----------------------------------------------------------------------------------

    def attach(self, token_id: str, connection: Connection) -> None:
        self.connections[token_id].add(connection)

    def detach(self, token_id: str, connection: Connection) -> None:
        held = self.connections.get(token_id)
        if held is not None:
            held.discard(connection)
            if not held:
                del self.connections[token_id]

    def close_token(self, token_id: str, why: str = "token revoked") -> None:
        """Stop every connection of a token: no more pushes, commands or requests, then closed."""
        self.ended.add(token_id)
        for connection in list(self.connections.pop(token_id, ())):
            connection.stop(REVOKED, why)
        for room in self.rooms.values():
            room.evict(token_id)

    async def check(self, token: str) -> Grant | None:
        """The grant of ``token``, from the token store (off the loop). While the store cannot answer
        (a database outage), the grant this process last found for it, unless it has ended since as
        last seen (``ended``) or expired: a phone reconnecting during an outage gets its scene back;
        a token never checked here is ``StorageUnavailable``."""
        key = hashlib.sha256(token.encode()).digest()
        try:
            grant = await self.keys(self.backend.tokens.check, token)
        except StorageUnavailable:
            known = self._checked.get(key)
            if known is None or known.token_id in self.ended or known.expired(datetime.now(UTC)):
                raise
            log.warning("token taken as last checked", token_id=known.token_id, why="the token store did not answer")
            return known
        self._checked.pop(key, None)
        if grant is not None:
            self._checked[key] = grant
            if len(self._checked) > CHECKED:
                del self._checked[next(iter(self._checked))]
        return grant

    async def keys(self, job: Callable[..., T], *args: Any) -> T:
        """A call to the token store (``backend.tokens``), on a thread of its own, one at a time: a
        slow disk or database server holds that thread, never the event loop every scene shares."""
        return await self._keys.run(job, *args)

    async def watch_tokens(self) -> None:
        """Keep ``ended`` current and close the connections of tokens that ended anywhere."""
        while True:
            try:
                ended = await self.keys(self.backend.tokens.ended)
            except Exception as err:  # a store that cannot be read now is read next time
                log.warning("tokens unreadable", error=str(err))
            else:
                fresh = ended - self.ended
                self.ended = ended
                for token_id in fresh & set(self.connections):
                    log.info("token ended", token_id=token_id)
                    self.close_token(token_id, "token revoked or expired")
            await anyio.sleep(WATCH)

    # -- shutdown --------------------------------------------------------------------------------

    async def settle(self, seconds: float) -> None:
        """Refuse new commands, and wait (at most ``seconds``) for those in flight to be answered."""
        self.closing = True
        if not self.in_flight:
            return
        with anyio.move_on_after(seconds):
            await self._settled.wait()
