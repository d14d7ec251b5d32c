"""A live scene: one anyio task that owns the scene's state and serializes its jobs.

Every connection's commands, subscriptions and departures arrive on one memory channel and are
handled one at a time, so a scene never sees two commands at once, and a new subscriber's last
stretch of catch-up and the live stream never interleave (no gap, no duplicate). A long catch-up
is streamed by the subscriber's own connection, at the pace its socket drains, before it joins
here (``server.catchup``); the room only ever sends the last ``CHUNK`` events. After the commits
of a group the room writes each subscriber's frames, each framed once for all its viewers, in one
write per subscriber, without awaiting (``_gathered``); a subscriber whose write buffer is over
``WRITE_LIMIT`` is dropped, never awaited, and catches up when it comes back.

Other processes may append to the same scene (``docs/deploy.md``). What they appended reaches
the room two ways, and is pushed the same way as its own commits, in the log's order, before
anything the room appends after it: a command of the room's that was decided on a state gone stale
conflicts, is decided again on the log's end (``SceneService.refresh``), and the events before it
are pushed first (``_show``); and the process's feed (``server.notify``) says a scene moved on,
and the room has what it has not seen read beside it, on a reading thread, while it goes on with
its jobs, and pushes it when it comes (``missed``, ``Caught``). Between two jobs, what the
subscribers were sent is exactly the state the room decides on.

A room's task runs only while it has something to do: when no one is subscribed and no job has
come for ``linger`` seconds, the task ends and the room sleeps, its state kept in the service's
cache; the next job posted to it (``post``: a command, a join, a read of what another process
appended, a ``state`` read) starts the task again. The hand-over needs no lock: the task ends only
when its inbox is empty, and ``post`` starts a task when none runs, each without awaiting between
its look and its act, on the one event loop. A scene asleep for long is unloaded by the hub (one
sweep for the process, ``Hub``), never by a timer of its own.

A room is supervised: its scene is loaded (checked) off the event loop when it starts, and if the
scene cannot be served, or anything unexpected goes wrong in a job, the room stops alone. Its
subscribers get an ``error`` naming the scene and the cause and are closed (1011); every job
waiting for it is answered with that error; the failure is logged with its traceback; the next
job for the scene starts a fresh room, which loads the scene again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import shutil
import sys
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, NamedTuple, TypeVar

import anyio
import msgspec
import structlog
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN

from domain.automation import automatic
from domain.commands import AddCharacter, AnyCommand, OpenScene, RegisterCharacter
from domain.deadlines import next_due
from domain.evolve import fold
from domain.log import Recorded
from domain.night import follow_ups
from domain.state import Scene
from projections.deadlines import DeadlineView, deadline_views
from projections.redact import SEES_ALL, Blind, blind
from server.service import ErrorBody, Handled, SceneService
from server.snapshots import Verdict
from server.store import SceneCorrupt, SqliteStore, StorageUnavailable
from server.tokens import Grant
from server.wire import (
    ErrorMessage,
    Presence,
    Present,
    Shared,
    after_commit,
    befores_of,
    commit_frames,
    encode,
    joined_frames,
    reach_of,
)
from server.worker import Worker

WRITE_LIMIT = 512 * 1024
"""Bytes a subscriber may leave unread before it is dropped as too slow."""
TOO_SLOW = 4008
"""The close code of a dropped subscriber: reconnect and catch up."""
FAILED = 1011
"""The close code of a subscriber whose scene stopped: reconnect to try again."""
QUEUE = 1024
"""Jobs waiting for a room before senders wait."""
AUTOMATION_ROUNDS = 10
"""Passes of automatic throws after one command (each pass may open the next test)."""
CHUNK = 256
"""Events a room sends a joining subscriber at most; the connection streams any more itself."""
GROUP = 64
"""Commands of one scene decided in turn and committed together, at most."""
RECENT = 64
"""States after the last commits, kept to put a joining subscriber's last events into words."""
TAIL = 100
"""Events at most that a subscriber without ``since`` gets before the view (older: ``history``)."""
UNREAD = "The server's database did not answer in time, so the scene could not be sent; try again in a moment."
CATCH_UP = 1000
"""Events of other processes' commits read at most by one job of the room (``catch_up``)."""
LINGER = 1.0
"""Seconds a room no one watches waits for another job before its task ends (a burst of jobs does
not start and stop it for each)."""

log = structlog.get_logger("justicar.room")
T = TypeVar("T")


class _Wired(NamedTuple):
    """A message and its websocket frame from a server (unmasked, final, no extension): the same
    bytes for every subscriber, so framed once, not once per connection."""

    message: bytes
    frame: bytes


def _wired(message: bytes) -> _Wired:
    return _Wired(message, Frame(Opcode.TEXT, message).serialize(mask=False))


@dataclass(eq=False)
class Subscriber:
    conn: ServerConnection
    grant: Grant
    summaries: bool = False
    """Whether it wants each event in words."""
    scene: str = ""
    """The stream it follows: its token's (empty), or a scene of its token's game night."""
    held: list[_Wired] | None = None
    """Frames kept back while its connection sends a message in fragments (a document): written,
    in order, as soon as that ends (``Room._after_fragments``)."""

    @property
    def viewer(self) -> str:
        return self.grant.viewer

    @property
    def stream(self) -> str:
        return self.scene or self.grant.scene


@dataclass
class Joined:
    version: int


@dataclass
class Behind:
    """Too far behind for the room: stream up to ``version`` first (and, for words, bring the state
    at ``since``: ``need_base``)."""

    version: int
    need_base: bool = False
    blind: Blind = SEES_ALL
    """The sealed throws the subscriber may not know (``projections.redact.blind``), as of now."""


@dataclass
class JoinRefused:
    code: str
    message: str


JoinAnswer = Joined | Behind | JoinRefused


class Reply(Generic[T]):
    """The one answer to a job: the room sets it (``send_nowait``, never waiting), the connection
    waits for it (``receive``). An asyncio future (the server runs on asyncio): lighter than a
    memory stream or an ``anyio.Event``, which asks which event loop runs at each making; a
    connection gone before its answer (its wait cancelled, the future with it) leaves nothing
    behind, and the answer is dropped."""

    __slots__ = ("_future",)

    def __init__(self) -> None:
        self._future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

    def send_nowait(self, value: T) -> None:
        """Answer; an answer to a wait that was cancelled is dropped; a second answer is refused
        (``anyio.WouldBlock``)."""
        if self._future.cancelled():
            return
        if self._future.done():
            raise anyio.WouldBlock
        self._future.set_result(value)

    async def receive(self) -> T:
        return await self._future


@dataclass
class Submit:
    command: AnyCommand
    reply: Reply[Handled]


@dataclass
class Join:
    subscriber: Subscriber
    since: int | None
    """None: from the latest events the room can put into words (see ``TAIL``)."""
    reply: Reply[JoinAnswer]
    base: Scene | None = None
    """The state at ``since``, when the subscriber streamed there itself."""


@dataclass
class Leave:
    subscriber: Subscriber


@dataclass
class SendView:
    subscriber: Subscriber


@dataclass
class Inspect:
    """The room's current state (for the connection's checks), or its failure."""

    reply: Reply[Scene | ErrorBody]


TRUST_AFTER = 1.0
"""Seconds after a load before what a snapshot took on trust is checked (``_distrust``), or a
snapshot is saved at the end of a long scene folded from far back (``_snapshot``)."""
_CHECKS = anyio.Lock()
"""One such check at a time, whatever the number of scenes loading: the machine stays the loop's."""
_NICE = ["nice", "-n", "10"] if shutil.which("nice") else []


class Distrusted(Exception):
    """What a load took on trust failed its check (``server.snapshots.distrust``)."""


@dataclass
class Caught:
    """What other processes appended after event ``after``, read beside the room (``missed``): to
    push, as far as the room has not got it otherwise meanwhile. ``failed``: the read did not answer."""

    after: int
    records: list[Recorded]
    failed: bool = False


@dataclass
class Fault:
    """A check made beside the room found the scene unsound: the room stops as if a job had failed."""

    error: Exception


Job = Submit | Join | Leave | SendView | Inspect | Caught | Fault


def unavailable(scene: str, cause: str) -> ErrorBody:
    return ErrorBody(
        "scene_unavailable",
        f"Scene {scene!r} cannot be served: {cause}. Nothing was recorded; the Storyteller can check the log "
        f"with `justicar verify`.",
    )


async def _nothing_to_warm(scenes: list[str]) -> None:
    pass


@dataclass(eq=False)
class Room:
    scene: str
    service: SceneService
    tg: TaskGroup
    on_sleep: Callable[[Room], None] = lambda room: None
    """Told when the room's task ended for want of jobs (the hub unloads it if it sleeps long)."""
    on_wake: Callable[[Room], None] = lambda room: None
    """Told when a job starts the task of a sleeping room again."""
    on_failed: Callable[[Room], None] = lambda room: None
    on_loaded: Callable[[Scene], None] = lambda state: None
    """Told the state a load made (a night mends what a crash kept from its scenes)."""
    on_follow_ups: Callable[[list[AnyCommand]], None] = lambda commands: None
    """Given what a commit asks of the other streams of its game night (``domain.night``)."""
    on_commit: Callable[[str, int], None] = lambda scene, seq: None
    """Told the scene and last seq of each commit of this process (to announce to the others)."""
    on_due: Callable[[str, datetime | None], None] = lambda scene, due: None
    """Told when the scene next needs waking (``domain.deadlines.next_due``) after a load and after
    each commit it pushes, this process's or another's (``server.alarms``)."""
    warm: Callable[[list[str]], Awaitable[None]] = _nothing_to_warm
    """Loads other streams (off the event loop, each by its own room) before a command reads them."""
    linger: float = LINGER
    worker: Worker = field(default_factory=Worker)
    subscribers: list[Subscriber] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.jobs: MemoryObjectSendStream[Job]
        self._inbox: MemoryObjectReceiveStream[Job]
        self.jobs, self._inbox = anyio.create_memory_object_stream[Job](QUEUE)
        self.recent: dict[int, Scene] = {}
        self.failure: ErrorBody | None = None
        self._current: Sequence[Job] = ()
        self._held: list[Job] = []
        self._reading = False
        """A read of other processes' commits is on its way (``missed``): announcements meanwhile
        only ask for one more after it (``_again``)."""
        self._again = False
        self._unpatched: list[Recorded] = []
        """Records pushed without their view patch: the next patch covers them too (``push``)."""
        self._patched: tuple[Scene | None, dict[str, list[DeadlineView]]] = (None, {})
        """The state the subscribers' views were last patched to, and the response deadlines each
        viewer has from it: the next patch from that state leaves out those that did not change."""
        self._outbox: dict[Subscriber, list[_Wired]] | None = None
        """Frames for each subscriber, written at the end of ``_gathered``."""
        self._grouped: tuple[tuple[int, ...], dict[tuple[str, bool], list[Subscriber]]] = ((), {})
        """The subscribers' ids when last grouped, and the groups (``_groups``)."""
        self.running = False
        """Whether the room's task runs (it ends when the room sleeps: ``wake`` starts it again)."""
        self._loaded = False
        self._closed = False
        self._waiting: anyio.CancelScope | None = None
        """The task's wait for a job, while it waits (``_unwatched`` shortens it)."""

    @property
    def state(self) -> Scene:
        return self.service.state(self.scene)

    def wake(self) -> None:
        """Start the room's task unless it runs (or the room failed or was unloaded). Never waits: a
        job put in the inbox and then ``wake`` cannot fall between a task that is ending and the
        next one (the task ends only with its inbox empty, without awaiting after its look)."""
        if self.running or self._closed or self.failure is not None:
            return
        self.running = True
        self.on_wake(self)
        self.tg.start_soon(self.run, name=f"room {self.scene}")

    async def post(self, job: Job) -> None:
        """Give the room a job (waiting while its inbox is full), waking it if it sleeps. An unloaded
        or failed room refuses it (``anyio.ClosedResourceError``): the hub makes a new one."""
        try:
            self.jobs.send_nowait(job)
        except anyio.WouldBlock:  # a full inbox: its task runs and will not end before taking this
            await self.jobs.send(job)
        self.wake()

    def _post_nowait(self, job: Job) -> None:
        """A job from beside the room (a read, a check); dropped if the room is gone or full."""
        with contextlib.suppress(anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.jobs.send_nowait(job)
            self.wake()

    def close(self) -> None:
        """Unload: refuse every job from now on (the hub, which does this only to a room asleep, makes
        a new room for the next)."""
        self._closed = True
        self.jobs.close()
        self._inbox.close()

    async def run(self) -> None:
        structlog.contextvars.clear_contextvars()  # not the context of the connection that woke the room
        try:
            if not self._loaded:
                await self._load()
                self._loaded = True
                await self.automate()  # a throw owed since before a restart
            while True:
                job = self._next()
                if job is None:
                    try:
                        job = await self._wait()
                    except anyio.EndOfStream:
                        return
                    if job is None:  # a job sent as the wait ran out is in the inbox, not handed to it
                        job = self._next()
                if job is None:
                    if not self.subscribers:  # no job waits, no one watches: sleep (``wake``)
                        self.running = False
                        self.on_sleep(self)
                        return
                    continue
                if isinstance(job, Submit):
                    group = self._together(job)
                    self._current = group
                    await self.submit(group)
                else:
                    self._current = [job]
                    await self.handle(job)
                    await anyio.lowlevel.checkpoint()  # a flood of joins and leaves lets others run
                self._current = ()
        except Exception as err:  # supervision: the room stops alone, the server goes on
            self._fail(err)

    async def _wait(self) -> Job | None:
        """The next job, or None when none came within ``linger`` seconds while no one is
        subscribed (with subscribers the wait has no end and costs no timer; ``_unwatched``
        gives it one when the last goes from beside the room)."""
        deadline = anyio.current_time() + self.linger if not self.subscribers else math.inf
        with anyio.CancelScope(deadline=deadline) as self._waiting:
            try:
                return await self._inbox.receive()
            finally:
                self._waiting = None
        return None

    def _unwatched(self) -> None:
        """The last subscriber went from beside the room's task (evicted, dropped as too slow while
        the task waits): its wait ends within ``linger`` too."""
        if not self.subscribers and self._waiting is not None:
            self._waiting.deadline = min(self._waiting.deadline, anyio.current_time() + self.linger)

    async def _load(self) -> None:
        """Load (and check) the scene off the event loop. What a load from a snapshot took on trust
        (the log before it) is checked beside the room (``_distrust``); a long scene folded from
        far back gets a snapshot at its end (``_snapshot``), so that its next load need not."""
        loaded = await self.worker.run(self.service.loaded, self.scene)
        state = loaded.state
        self.service.adopt(self.scene, state)
        self._remember(state)
        self.on_loaded(state)
        self.on_due(self.scene, next_due(state))
        if loaded.start:
            self.tg.start_soon(self._distrust, loaded.start, loaded.start_hash)
        if self.service.unsnapshotted(loaded):
            self.tg.start_soon(self._snapshot, state, loaded.head, TRUST_AFTER)

    async def _distrust(self, version: int, at_hash: str) -> None:
        """Check, in a process of its own, the log before the snapshot the scene was loaded from (it
        is checked up to event ``version``, whose hash must be ``at_hash``); if it fails, drop the
        scene's snapshots (the next load folds the log from its first event, checked) and stop the
        room, naming what failed: a damaged log stops its scene the same whether a snapshot was
        used or not. The check's verdict is the last line it prints (``server.snapshots.Verdict``);
        a check that cannot run, or says nothing readable, is logged and stops nothing."""
        await anyio.sleep(TRUST_AFTER)  # the join that loaded the scene goes first
        store = self.service.store
        env = dict(os.environ)
        if isinstance(store, SqliteStore):
            db = store.path
        else:
            db, env["JUSTICAR_DB"] = "-", getattr(store, "url", "")  # a password stays out of the process list
        async with _CHECKS:  # at a lower priority from its first instruction (``nice``), one at a time
            done = await anyio.run_process(
                [*_NICE, sys.executable, "-m", "server.snapshots", db, self.scene, str(version), at_hash],
                check=False,
                env=env,
            )
        try:
            problem = msgspec.json.decode(done.stdout.strip().rsplit(b"\n", 1)[-1], type=Verdict).problem
        except msgspec.DecodeError:
            log.warning("trust check failed to run", scene=self.scene, stderr=done.stderr.decode()[-500:])
            return
        if not problem or self.failure is not None:
            return
        snapshots = self.service.snapshots
        assert snapshots is not None
        await self.service.writer.run(lambda: snapshots.discard_all(self.scene))
        self._post_nowait(Fault(Distrusted(problem)))

    def _next(self) -> Job | None:
        """A job already waiting (None: wait for one). A command's own turn of the loop is its
        append: taking the next job needs none."""
        if self._held:
            return self._held.pop()
        try:
            return self._inbox.receive_nowait()
        except (anyio.WouldBlock, anyio.EndOfStream):
            return None

    def _together(self, first: Submit) -> list[Submit]:
        """The commands waiting now, to decide in turn and commit in one group (up to ``GROUP``);
        the first other job waits its turn."""
        group = [first]
        while len(group) < GROUP:
            try:
                job = self._inbox.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream):
                break
            if not isinstance(job, Submit):
                self._held.append(job)
                break
            group.append(job)
        return group

    def _remember(self, state: Scene) -> None:
        self.recent[state.version] = state
        if len(self.recent) > RECENT:
            del self.recent[min(self.recent)]

    async def handle(self, job: Job) -> None:
        match job:
            case Submit():
                await self.submit([job])
            case Join():
                await self.join(job)
            case Leave(subscriber=sub):
                if sub in self.subscribers:
                    self.subscribers.remove(sub)
                    self.announce()
            case SendView(subscriber=sub):
                self._send([sub], joined_frames(self.state, self.state.version, sub.viewer)[:-1])
            case Inspect(reply=reply):
                reply.send_nowait(self.state)
            case Caught():
                self._caught(job)
            case Fault(error=error):
                raise error

    async def submit(self, jobs: list[Submit]) -> None:
        """Apply commands that arrived together (one group commit); push what each appended, in
        order, then answer each (the answers go even if what follows the commit fails: an
        acknowledged command is committed, and its sender is told)."""
        await self._warm_for([job.command for job in jobs])
        before = self.state
        handled = await self.service.submit_many([job.command for job in jobs])
        try:
            await self._show(before, handled)
        finally:
            for job, done in zip(jobs, handled, strict=True):
                with contextlib.suppress(anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    job.reply.send_nowait(done)
        if any(done.fresh for done in handled):
            await self.automate()

    async def _warm_for(self, commands: list[AnyCommand]) -> None:
        """Streams a command reads beside its own are loaded first, each by its room, off the event
        loop, so deciding does not load them on it: a night registering a character reads its open
        scenes (one added there by hand stays there: ``domain.night.register_character``), a scene
        of a night adding a character reads the night (``domain.scene.add_character``), and so does
        a scene opened in a night."""
        state, read = self.state, set()
        for command in commands:
            if isinstance(command, RegisterCharacter) and state.night is not None:
                read |= {s.id for s in state.night.scenes if s.open}
            elif isinstance(command, AddCharacter) and state.game:
                read.add(state.game)
            elif isinstance(command, OpenScene) and command.game:
                read.add(command.game)
        if cold := sorted(scene for scene in read if self.service.cached(scene) is None):
            await self.warm(cold)

    async def _show(self, before: Scene, handled: Sequence[Handled]) -> None:
        """Push what the service just did, starting from ``before`` (what the subscribers have):
        each command this room appended, after whatever another process appended before it, and
        then whatever the service read after its last (a command decided again, then refused). What
        other processes appended is read first, on a reading thread; then everything is pushed
        without a pause. The frames of several commits go to each subscriber in one write; one
        commit's go out viewer by viewer as they are made (the first subscribers read theirs while
        the last are made)."""
        try:
            foreign = await self._between(before.version, handled)
        except StorageUnavailable as err:  # what they were sent can no longer be continued in order
            self._restart_all(f"the database did not answer ({err})")
            return
        state = before
        last = next((done for done in reversed(handled) if done.fresh), None)
        with self._gathered() if sum(done.fresh for done in handled) > 1 else contextlib.nullcontext():
            for done in handled:
                if done.fresh:
                    if done.records:
                        state = self._foreign(state, foreign.get(state.version, []))
                        self.on_commit(self.scene, done.records[-1].seq)
                    state = self._pushed(state, done, patched=done is last)
            self._foreign(state, foreign.get(state.version, []))

    async def _between(self, version: int, handled: Sequence[Handled]) -> dict[int, list[Recorded]]:
        """What other processes appended between the commits of ``handled`` (and after the last, up
        to the state the service holds), by the version it follows, read on a reading thread."""
        gaps: list[tuple[int, int]] = []
        for done in handled:
            if done.fresh and done.records:
                if done.records[0].seq - 1 > version:
                    gaps.append((version, done.records[0].seq - 1))
                version = done.records[-1].seq
        if self.state.version > version:
            gaps.append((version, self.state.version))
        if not gaps:
            return {}
        read = self.service.read
        return await self.service.reader.run(lambda: {after: read(self.scene, after, upto) for after, upto in gaps})

    async def catch_up(self) -> None:
        """Read what other processes appended since the room's last event (on a reading thread, at
        most ``CATCH_UP`` events; the rest is read beside the room, ``missed``), push it, decide on
        it: a joining subscriber's, so that it joins at the log's end."""
        after = self.state.version
        records = await self.service.reader.run(self.service.read, self.scene, after, after + CATCH_UP)
        self._take(records)
        if len(records) == CATCH_UP:
            self.missed(None)

    def _caught(self, caught: Caught) -> None:
        """Push what a read beside the room brought; read on if more may be there."""
        self._reading = False
        self._take(caught.records)
        again, self._again = self._again or len(caught.records) == CATCH_UP, False
        if again and not caught.failed:  # a read that failed waits for the next announcement or sweep
            self.missed(None)

    def _take(self, records: list[Recorded]) -> None:
        """Push what other processes appended, read from the log, from the room's last event on
        (what the room got meanwhile, from its own commands' gaps or a join's catch-up, is not
        pushed twice), and decide on it."""
        state = self.state
        fresh = [record for record in records if record.seq > state.version]
        if fresh and fresh[0].seq == state.version + 1:
            with self._gathered():
                self.service.adopt(self.scene, self._foreign(state, fresh))
            self.service.moved(self.scene)

    def _foreign(self, state: Scene, records: list[Recorded]) -> Scene:
        """Push another process's commits, command by command; the state after them. Their
        follow-ups are sent too (their ids make a second sending append nothing): a process killed
        after its commit never sent them; their snapshots are the committer's."""
        for (_, command), group in itertools.groupby(records, key=lambda r: (r.actor, r.command)):
            state = self._pushed(state, Handled(id=command, records=list(group), fresh=True), own=False)
        return state

    def missed(self, seq: int | None) -> None:
        """The feed says the scene reached ``seq`` (``None``: it may have moved on): have it read
        beside the room (the room goes on with its jobs, and never waits on the database for it),
        unless the room already holds it; a read on its way is followed by one more."""
        held = self.service.cached(self.scene)
        if self.failure is not None or held is None or (seq is not None and seq <= held.version):
            return
        if self._reading:
            self._again = True
            return
        self._reading = True
        self.tg.start_soon(self._read_beside, held.version)

    async def _read_beside(self, after: int) -> None:
        try:
            records = await self.service.reader.run(self.service.read, self.scene, after, after + CATCH_UP)
            caught = Caught(after, records)
        except StorageUnavailable as err:  # the next announcement, or the feed's sweep, reads again
            log.warning("other processes' commits not read", scene=self.scene, error=str(err))
            caught = Caught(after, [], failed=True)
        self._post_nowait(caught)

    def _pushed(self, before: Scene, done: Handled, *, own: bool = True, patched: bool = True) -> Scene:
        """Push one commit to the subscribers (``patched``: with its view patch); the state after it:
        the service's where it follows ``before`` (the same log, so the same state: what is made
        of it once, its running deadlines and views, is not made again for another copy)."""
        held, records = done.state, done.records
        follows = held is not None and records and records[0].seq == before.version + 1
        after = held if held is not None and follows and held.version == records[-1].seq else fold(records, before)
        self._remember(after)
        self.on_due(self.scene, next_due(after))
        self.push(before, after, done.records, patched=patched)
        if (after.game or after.night) and (asked := follow_ups(before, after, done.records)):
            self.on_follow_ups(asked)
        snapshots = self.service.snapshots
        if own and snapshots is not None and snapshots.due(after, len(done.records)):
            self.tg.start_soon(self._snapshot, after, done.records[-1].hash)
        return after

    async def _snapshot(self, state: Scene, at_hash: str, after: float = 0.0) -> None:
        """Save a snapshot on the writer (``after`` seconds from now: a load's, once its join went)."""
        await anyio.sleep(after)
        await self.service.writer.run(lambda: self.service.save_snapshot(state, at_hash))

    async def join(self, job: Join) -> None:
        """Send the last stretch and add the subscriber, or say how far it must stream first (what
        it needs read on a reading thread; a database that does not answer: ``storage_unavailable``)."""
        try:
            await self.catch_up()  # it may come from another process, further on
        except StorageUnavailable as err:
            log.warning("other processes' commits not read", scene=self.scene, error=str(err))
        sub, since, state = job.subscriber, job.since, self.state
        if since is None:  # the latest events whose words the room can make from a state it holds
            held = [v for v in self.recent if state.version - v <= TAIL]
            since = 0 if state.version <= TAIL else min(held, default=state.version)
        if since > state.version:
            message = f"This scene's last event is {state.version}; there is no event {since} to continue from."
            job.reply.send_nowait(JoinRefused("bad_since", message))
            return
        if state.version - since > CHUNK:
            job.reply.send_nowait(Behind(state.version, blind=blind(state, sub.viewer)))
            return
        base = job.base if job.base is not None and job.base.version == since else self.recent.get(since)
        if since == 0:
            base = Scene()
        if sub.summaries and since < state.version and base is None:
            job.reply.send_nowait(Behind(state.version, need_base=True, blind=blind(state, sub.viewer)))
            return
        try:
            records = []
            if since < state.version:
                records = await self.service.reader.run(self.service.read, self.scene, since, state.version)
        except StorageUnavailable:
            job.reply.send_nowait(JoinRefused("storage_unavailable", UNREAD))
            return
        frames, _ = commit_frames(records, sub.viewer, base if sub.summaries else None, blind(state, sub.viewer))
        with self._gathered():
            self._send([sub], [*frames, *joined_frames(state, since, sub.viewer)])
            self.subscribers.append(sub)
            self.announce()
        self._joined(state, sub.viewer)
        job.reply.send_nowait(Joined(state.version))

    def _joined(self, state: Scene, viewer: str) -> None:
        """A page joined with the whole view of ``state``: the deadlines it has, for the next patch
        (those of the others are forgotten unless their views are of the same state)."""
        if self._patched[0] is not state:
            self._patched = (state, {})
        self._patched[1].setdefault(viewer, deadline_views(state, viewer))

    async def automate(self) -> None:
        """Let the NPCs the server answers for throw, until none is owed a throw."""
        for _ in range(AUTOMATION_ROUNDS):
            moved = False
            for command in automatic(self.state):
                before = self.state
                handled = await self.service.submit(command)
                await self._show(before, [handled])
                if handled.fresh:
                    moved = True
                elif handled.error is not None:
                    log.warning("automatic throw refused", code=handled.error.code, message=handled.error.message)
            if not moved:
                return

    def push(self, before: Scene, state: Scene, records: list[Recorded], *, patched: bool = True) -> None:
        """Each subscriber's copy of what was just committed (in words too, for those who asked).
        Not ``patched``: without its view patch, which the next patched commit's covers (it follows
        in the same write, ``_show``): one view made per viewer for a group of commits, not one per
        commit."""
        groups = self._groups()
        befores = befores_of(records, before) if any(said for _, said in groups) else None
        if patched:
            since, sent = self._patched
            if self._unpatched:
                shared = Shared(reach_of([*self._unpatched, *records]), sent)  # since: the first's before
            else:
                shared = Shared(reach_of(records), sent if since is before else None)
            self._unpatched = []
        else:
            shared = Shared(None)
            if not self._unpatched and self._patched[0] is not before:  # not from the views they have
                self._patched = (None, {})
            self._unpatched += records
        for (viewer, said), subs in groups.items():
            self._send(subs, after_commit(state, records, viewer, befores if said else None, shared))
        if patched:
            self._patched = (state, shared.made)
        self._let_go(state)

    def _groups(self) -> dict[tuple[str, bool], list[Subscriber]]:
        """The subscribers by what they are sent (viewer, words or not), worked out again only when
        the subscribers changed (the same subscribers, in the same order: the same groups)."""
        key = tuple(map(id, self.subscribers))
        if key != self._grouped[0]:
            groups: dict[tuple[str, bool], list[Subscriber]] = defaultdict(list)
            for sub in self.subscribers:
                groups[(sub.viewer, sub.summaries)].append(sub)
            self._grouped = (key, dict(groups))  # holds the subscribers: their ids stay theirs
        return self._grouped[1]

    def _let_go(self, state: Scene) -> None:
        """A player following this scene with a night's link whose character has left it while it
        goes on gets nothing more of it (its page closes that socket; it looks back once the scene
        is closed: ``server.connection.Connection._opens``). Its last commit was its leaving."""
        if state.status == "closed" or not state.game:
            return
        gone = {who for who, there in state.characters.items() if not there.present}
        left = [sub for sub in self.subscribers if sub.scene and sub.grant.role == "player" and sub.viewer in gone]
        for sub in left:
            self.subscribers.remove(sub)
        if left:
            self.announce()

    def announce(self) -> None:
        """Tell every subscriber who is connected (roles and characters, never tokens)."""
        counts: dict[tuple[str, str | None], int] = defaultdict(int)
        for sub in self.subscribers:
            counts[(sub.grant.role, sub.grant.character)] += 1
        present = [Present(role, character, n) for (role, character), n in sorted(counts.items(), key=str)]
        self._send(self.subscribers, [encode(Presence(scene=self.scene, connected=present))])

    def evict(self, token_id: str) -> None:
        """Stop sending to the subscribers of a token that may no longer be used."""
        gone = [sub for sub in self.subscribers if sub.grant.token_id == token_id]
        for sub in gone:
            self.subscribers.remove(sub)
        if gone:
            self.announce()
            self._unwatched()

    def _send(self, subs: list[Subscriber], frames: list[bytes]) -> None:
        """Write frames to subscribers without waiting (within ``_gathered``: at its end); drop those
        too far behind."""
        if not subs or not frames:
            return
        wired = [_wired(frame) for frame in frames]
        outbox = self._outbox
        if outbox is not None:
            for sub in subs:
                held = outbox.get(sub)
                if held is None:
                    outbox[sub] = list(wired)
                else:
                    held += wired
            return
        self._write({sub: wired for sub in subs})

    @contextlib.contextmanager
    def _gathered(self) -> Iterator[None]:
        """Frames sent inside the block are written at its end, all of one subscriber's in one
        write (the commits of a group, the presence after them): one system call per subscriber,
        not one per frame. No frame is written out of order: nothing else writes to a subscriber's
        socket until the block ends (it never awaits)."""
        if self._outbox is not None:
            yield
            return
        self._outbox = {}
        try:
            yield
        finally:
            outbox, self._outbox = self._outbox, None
            self._write(outbox)

    def _write(self, outbox: dict[Subscriber, list[_Wired]]) -> None:
        """Each subscriber's frames in one write, as ``websockets.broadcast`` would write them one by
        one: connections not open are skipped; one whose write buffer is over ``WRITE_LIMIT`` is
        dropped; one sending a message in fragments gets them when that ends (broadcast would skip
        it, and its view would miss a commit)."""
        behind = []
        for sub, wired in outbox.items():
            conn = sub.conn
            transport: Any = conn.transport
            if transport is None or conn.protocol.state is not OPEN:
                continue
            if sub.held is not None or conn.send_in_progress is not None:
                self._hold(sub, wired)
                continue
            if transport.get_write_buffer_size() > WRITE_LIMIT:
                behind.append(sub)
                continue
            try:
                if conn.protocol.extensions:  # not this server's (no compression): frame them its way
                    for each in wired:
                        conn.protocol.send_text(each.message)
                    conn.send_data()
                else:
                    transport.write(b"".join(each.frame for each in wired))
            except Exception as err:  # as broadcast: a failed write is the connection's own end
                log.debug("write failed", scene=self.scene, error=str(err))
        if behind:
            self._drop(behind)

    def _hold(self, sub: Subscriber, wired: list[_Wired]) -> None:
        """Keep frames back for a subscriber whose connection is sending a message in fragments; more
        than ``WRITE_LIMIT`` kept back is too far behind."""
        if sub.held is None:
            sub.held = []
            self.tg.start_soon(self._after_fragments, sub)
        sub.held += wired
        if sum(len(each.frame) for each in sub.held) > WRITE_LIMIT:
            self._drop([sub])

    async def _after_fragments(self, sub: Subscriber) -> None:
        """Write what was kept back for ``sub`` once its connection's message in fragments (and any
        that followed it) is sent: nothing is written in between, so nothing goes out of order."""
        while (sending := sub.conn.send_in_progress) is not None:
            await asyncio.shield(sending)
        held, sub.held = sub.held or [], None
        if sub in self.subscribers and held:
            self._write({sub: held})

    def _restart_all(self, why: str) -> None:
        """Close every subscriber so that each comes back and catches up from the log: what they were
        sent can no longer be continued in order."""
        log.warning("subscribers sent to catch up", scene=self.scene, why=why)
        subs, self.subscribers = self.subscribers, []
        for sub in subs:
            self.tg.start_soon(sub.conn.close, TOO_SLOW, "reconnect to catch up")

    def _drop(self, subs: list[Subscriber]) -> None:
        for sub in subs:
            if sub in self.subscribers:
                self.subscribers.remove(sub)
                log.warning("subscriber dropped", scene=self.scene, role=sub.grant.role, reason="too slow")
                self.tg.start_soon(sub.conn.close, TOO_SLOW, "too slow: reconnect to catch up")
        self.announce()
        self._unwatched()

    # -- supervision -----------------------------------------------------------------------------

    def _fail(self, err: Exception) -> None:
        """Stop this room alone: tell its subscribers and every waiting job why, and log it."""
        known = isinstance(err, SceneCorrupt | StorageUnavailable | Distrusted)
        cause = str(err) if known else f"an unexpected error in the server ({type(err).__name__})"
        self.failure = unavailable(self.scene, cause)
        log.error("scene failed", scene=self.scene, cause=cause, exc_info=err)
        self.jobs.close()
        self.on_failed(self)
        frame = encode(ErrorMessage(code=self.failure.code, message=self.failure.message))
        subs, self.subscribers = self.subscribers, []
        self._send(subs, [frame])
        for sub in subs:
            self.tg.start_soon(sub.conn.close, FAILED, f"scene {self.scene} stopped")
        for job in [*self._current, *self._held]:
            self._answer_failed(job)
        while True:
            try:
                job = self._inbox.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream):
                break
            self._answer_failed(job)
        self._inbox.close()

    def _answer_failed(self, job: Job) -> None:
        with contextlib.suppress(anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._answer(job)

    def _answer(self, job: Job) -> None:
        assert self.failure is not None
        match job:
            case Submit(command=command, reply=reply):
                reply.send_nowait(Handled(id=command.id, error=self.failure))
            case Join(reply=reply):
                reply.send_nowait(JoinRefused(self.failure.code, self.failure.message))
            case Inspect(reply=reply):
                reply.send_nowait(self.failure)
            case Leave() | SendView() | Caught():
                pass
