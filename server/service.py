"""Handling one command: idempotency, the clock and the dice, decide, append, fold.

The same steps serve ``justicar play`` (offline: a command's ``at`` is honoured; ``handle`` writes
inline) and the live server (the clock stamps every event; ``submit`` writes through the server's
writer thread, and reads through its reading threads, ``server.reader``: the event loop never
waits on the database). A command id already accepted from the same actor in the scene returns its
first result, read from the events that carry that id and actor in the hash chain (the append finds
them: ``Repeated``; a command decided again and refused looks for them), never from the
``commands`` index alone; the same id with another body is ``id_reused``. A refused command is not
recorded. A disk or database that will not take the write, or does not answer a read in time,
refuses the command with ``storage_unavailable``, acknowledging nothing.

A scene is loaded checked: from a snapshot the server signed that still matches the log (or from its
first event), every event after it verified (seq, link, hash, readable) and the log's end matching
the commands acknowledged; a scene that fails is ``SceneCorrupt`` and is never served.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import os
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import anyio
import msgspec
import structlog

from domain.commands import AddCharacter, AnyCommand, Arrive, Dispute, OpenScene, RegisterCharacter, Rule
from domain.context import ENTROPY_BITS, Context
from domain.deadlines import next_due
from domain.decide import decide
from domain.errors import Rejected
from domain.events import DeadlinesSet, SceneEvent, SceneOpened
from domain.evolve import fold, fold_rows
from domain.log import GENESIS, Recorded, Wire
from domain.night import bounced, follow_ups
from domain.state import NARRATOR, Scene, shared
from projections.redact import redact
from server.reader import Reader
from server.snapshots import WORTH, Snapshots
from server.store import Append, Checked, CommandRecord, ConcurrencyConflict, EventStore, StorageUnavailable
from server.store.base import Due, Repeated, lost_end
from server.writer import Writer

_canonical = msgspec.json.Encoder(order="sorted")
RETRIES = 3
"""Times the offline path decides a command again when the scene moved under it."""
PATIENCE = 10.0
"""Seconds the live path keeps deciding a command again while other processes keep appending to
its scene first, before refusing it with ``conflict`` (nothing recorded)."""
BACKOFF = 0.0005
MAX_BACKOFF = 0.02
"""Seconds before a command is decided again: random, up to ``BACKOFF`` doubled with each try, at
most ``MAX_BACKOFF`` (so that racing processes do not retry in lockstep)."""
SHARED = 2.0
"""Seconds after another process last appended to a scene during which this one decides and
appends its groups there only in its turn (``SceneService.turn``), reading the log's end first."""

Turn = Callable[[str], contextlib.AbstractAsyncContextManager[None]]
"""A scene's turn among the processes that append to it (``server.notify``): an optimisation that
spares a race its losers; what keeps the log whole is the append's expected version."""


@contextlib.asynccontextmanager
async def alone(scene: str) -> AsyncIterator[None]:
    """No other process to take turns with."""
    yield


log = structlog.get_logger("justicar.service")


class ErrorBody(msgspec.Struct, frozen=True, omit_defaults=True):
    code: str
    message: str
    rule: str | None = None
    fields: dict[str, str] = {}
    """For a bad sheet: every wrong field, by its path, with what is wrong."""


class Result(msgspec.Struct, frozen=True, omit_defaults=True, tag_field="type", tag="result"):
    """What a command got, as its sender sees it: ``ok`` with its events, or the error."""

    id: str | None
    ok: bool
    version: int | None = None
    events: list[Wire] | None = None
    error: ErrorBody | None = None

    @classmethod
    def refused(
        cls,
        command_id: str | None,
        code: str,
        message: str,
        rule: str | None = None,
        fields: dict[str, str] | None = None,
    ) -> Result:
        return cls(id=command_id, ok=False, error=ErrorBody(code, message, rule, fields or {}))


class Handled(msgspec.Struct, frozen=True, kw_only=True):
    """What handling a command did: the records it appended (``fresh``), the records of its first
    result (a repeat), or the error."""

    id: str
    records: list[Recorded] = []
    error: ErrorBody | None = None
    fresh: bool = False
    state: Scene | None = None
    """Fresh: the scene once its records are in, as the service holds it (a room pushing the
    commit from the state just before it takes this one rather than fold it again: the same
    state object, whose running deadlines and views are then made once)."""

    def result(self, viewer: str = NARRATOR) -> Result:
        """The result as ``viewer`` may see it."""
        if self.error is not None:
            return Result(id=self.id, ok=False, error=self.error)
        return Result(
            id=self.id,
            ok=True,
            version=self.records[-1].seq if self.records else None,
            events=[redact(record, viewer) for record in self.records],
        )


class Loaded(NamedTuple):
    """A scene as a load made it: its state; the event it was folded from, a snapshot's (0: the
    log's first) and that event's hash; and the hash of its last event."""

    state: Scene
    start: int
    start_hash: str
    head: str


class _Decided(msgspec.Struct, frozen=True, kw_only=True):
    """A command decided against a state: what to append, and on what."""

    command: AnyCommand
    state: Scene
    events: list[SceneEvent]
    digest: str
    now: datetime
    due: Due = msgspec.UNSET
    """When the scene next needs waking once these events are in, for the ``alarms`` index
    (``timed``): unset while the scene has no response deadlines, before or after."""
    after: Scene | None = None
    """The state these events leave, folded ahead of the append (a state keeps no hash: the same
    as the appended records give), where it was folded anyway."""


def timed(step: _Decided, after: Scene) -> _Decided:
    """``step`` with the time its scene next needs waking once it is in (``after``: the state it
    leaves), for its append to keep in the ``alarms`` index in the same transaction: the time, or
    None once no deadline runs (which deletes the row); nothing when the time does not move (most
    appends, in a scene with deadlines or without: no write). A row missing (a scene copied in by a
    fork or an import) comes back with the next commit that moves its time, and a room that loads
    the scene tells its process's alarm meanwhile."""
    due = next_due(after)
    if due == next_due(step.state):
        return msgspec.structs.replace(step, after=after)
    return msgspec.structs.replace(step, due=due, after=after)


def may_time(state: Scene, events: Sequence[SceneEvent]) -> bool:
    """Whether a command's events may start, move or stop a deadline: the scene has deadlines, or
    the events set them (an opening's options, ``deadlines_set``). Only then is the state after it
    folded ahead of its append, where it is not folded anyway (``timed``)."""
    return state.options.timed or any(isinstance(e, SceneOpened | DeadlinesSet) for e in events)


def utc_now() -> datetime:
    return datetime.now(UTC)


def draw_entropy() -> int:
    """The command's random value, from one read of the system's randomness."""
    return int.from_bytes(os.urandom(ENTROPY_BITS // 8), "big")


def digest(command: AnyCommand) -> str:
    """What makes two commands with one id the same command."""
    return hashlib.sha256(_canonical.encode(command)).hexdigest()


def _id_reused(command_id: str) -> Handled:
    message = f"Command id {command_id!r} was already used in this scene for another command; pick a new id."
    return refused(command_id, "id_reused", message)


def _provisional(step: _Decided) -> list[Recorded]:
    """The records a decided command will have, but for their hashes (which a state does not
    keep): to decide the next command of a group against."""
    command, version = step.command, step.state.version
    return [
        Recorded(seq=version + n, scene=command.scene, at=step.now, actor=command.actor, command=command.id, event=e)
        for n, e in enumerate(step.events, start=1)
    ]


def refused(
    command_id: str, code: str, message: str, rule: str | None = None, fields: dict[str, str] | None = None
) -> Handled:
    return Handled(id=command_id, error=ErrorBody(code, message, rule, fields or {}))


STORAGE_UNAVAILABLE = (
    "storage_unavailable",
    "The server could not reach its disk or database, so nothing was recorded; send it again in a moment.",
)


def settle() -> None:
    """Move every object the collector tracks to its oldest generation, at once (two list splices:
    ``gc.freeze`` then ``gc.unfreeze``). A load makes a state that lives as long as its scene is
    held: some 76,000 tracked objects (tuples, dicts, map nodes) for 100,000 events, which the next
    young collection would otherwise walk, the interpreter held (7 ms), to conclude they live on.
    Garbage among what was young is collected at the next full collection instead."""
    gc.freeze()
    gc.unfreeze()


class SceneService:
    """Applies commands to scenes in one store, keeping each scene's folded state."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = utc_now,
        entropy: Callable[[], int] = draw_entropy,
        honour_at: bool = False,
        snapshots: Snapshots | None = None,
        writer: Writer | None = None,
        reader: Reader | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.entropy = entropy
        self.honour_at = honour_at
        self.snapshots = snapshots
        self.writer = writer or Writer(store, threaded=False)
        self.reader = reader or Reader(store)
        self.loads_inline = True
        """Whether deciding may load another stream it reads (offline); a server has it loaded first,
        off the event loop (``Room.warm``), and refuses the command if that could not be done."""
        self.turn: Turn = alone
        """Set by a server that shares its store with other processes (``Hub``)."""
        self._states: dict[str, Scene] = {}
        self._moved: dict[str, float] = {}
        self.writing: dict[str, int] = {}
        """The last seq of the group this process's writer has on its way, by scene. Its commit's
        announcement (PostgreSQL's NOTIFY, heard on this process's own LISTEN) may come before the
        state has it: up to this seq it is not news, and the room need not read the log for it."""

    # -- states ----------------------------------------------------------------------------------

    def state(self, scene: str) -> Scene:
        """The scene's folded state (loaded, checked, on first use)."""
        state = self._states.get(scene)
        if state is None:
            state = self._states[scene] = self.load(scene)
        return state

    def load(self, scene: str) -> Scene:
        """The scene folded from the store, checked all the way (``SceneCorrupt`` if it is not
        sound). Pure reading: safe on a worker thread."""
        return self.loaded(scene).state

    def loaded(self, scene: str) -> Loaded:
        """``load``, saying where it started and the hash of the scene's last event."""
        # The acknowledged end is read before the log, not after: another process may commit to the
        # scene while it is read (its events and its command's row in one transaction), and a log
        # read before that commit would then end before a mark read after it, which looks like a
        # lost end (a sound scene refused as corrupt). Read first, the mark is never past the log.
        acknowledged = self.store.acknowledged(scene)
        start = self.snapshots.load(scene, worth=WORTH) if self.snapshots else None
        after, prev = (start.state.version, start.hash) if start else (0, GENESIS)
        wires = self.store.read_wire(scene, after=after)
        rows = Checked(scene, wires, after=after, prev=prev)
        try:
            # folded from its log alone (a short scene): one copy of each part its challenges repeat
            state = fold_rows(scene, rows, start.state) if start else shared(fold_rows(scene, rows))
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            raise rows.unreadable(err) from None
        finally:
            getattr(wires, "close", lambda: None)()  # a reader stopped at a bad event ends here, not in the collector
        lost = lost_end(scene, state.version, acknowledged)
        if lost is not None:
            raise lost
        settle()
        return Loaded(state, after, prev, rows.last.hash if rows.last else prev)

    def unsnapshotted(self, loaded: Loaded) -> bool:
        """Whether a scene loaded so is long, and folded ``every`` events or more from its log: its
        next load would too, unless a snapshot is kept at its end (``save_snapshot``)."""
        state, snapshots = loaded.state, self.snapshots
        return snapshots is not None and state.version >= WORTH and state.version - loaded.start >= snapshots.every

    def cached(self, scene: str) -> Scene | None:
        """The scene's state if it is held (never loads)."""
        return self._states.get(scene)

    def refresh(self, scene: str) -> Scene:
        """The scene's state brought to the log's end: another process may have appended to it
        (what it appended is read and folded on; a scene not held is loaded)."""
        state = self._states.get(scene)
        if state is None:
            return self.state(scene)
        records = list(self.store.read(scene, after=state.version))
        if records:
            state = self._states[scene] = fold(records, state)
            self.moved(scene)
        return state

    async def _refreshed(self, scene: str) -> Scene:
        """``refresh``, its read on a reading thread (``server.reader``)."""
        state = self._states.get(scene)
        if state is None:
            return self.state(scene)
        records = await self.reader.run(self.read, scene, state.version, None)
        if records:
            state = self._states[scene] = fold(records, state)
            self.moved(scene)
        return state

    def read(self, scene: str, after: int, upto: int | None) -> list[Recorded]:
        """The scene's records after ``after`` (up to ``upto``): a read for a reading thread."""
        return list(self.store.read(scene, after=after, upto=upto))

    def moved(self, scene: str) -> None:
        """Another process just appended to the scene (see ``SHARED``)."""
        self._moved[scene] = time.monotonic()

    def adopt(self, scene: str, state: Scene) -> None:
        """Keep a state loaded elsewhere (on a worker thread)."""
        self._states[scene] = state

    def forget(self, scene: str) -> None:
        """Drop a scene's folded state (it is read again on next use)."""
        self._states.pop(scene, None)

    # -- commands --------------------------------------------------------------------------------

    def handle(self, command: AnyCommand) -> Handled:
        """Decide and append inline (the offline path), then carry what it asks of the other
        streams of its game night (``domain.night.follow_ups``) before answering."""
        before = self.state(command.scene)
        done = self._handle(command)
        if done.fresh and done.records:
            self.carry(self._dated(follow_ups(before, self.state(command.scene), done.records), command))
        return done

    def _dated(self, commands: Sequence[AnyCommand], cause: AnyCommand) -> list[AnyCommand]:
        """A script's follow-ups bear the time of the command that caused them (``honour_at``), so
        that a dated script replays exactly; live, the clock stamps them."""
        if not (self.honour_at and cause.at):
            return list(commands)
        return [msgspec.structs.replace(c, at=cause.at) for c in commands]

    def carry(self, commands: Sequence[AnyCommand]) -> None:
        """Apply follow-ups inline, and theirs in turn; an arrival refused goes back to its night."""
        queue = list(commands)
        while queue:
            command = queue.pop(0)
            before = self.state(command.scene)
            done = self._handle(command)
            if done.error is not None and isinstance(command, Arrive):
                queue.extend(self._dated([bounced(command, done.error.message)], command))
            elif done.fresh and done.records:
                queue.extend(self._dated(follow_ups(before, self.state(command.scene), done.records), command))

    def _handle(self, command: AnyCommand) -> Handled:
        for _ in range(RETRIES):
            try:
                step = self._decide(command, subject=self._subject(command))
                if isinstance(step, Handled):
                    return self._first_result(command) or step
                if may_time(step.state, step.events):
                    step = timed(step, fold(_provisional(step), step.state))
                records = self._append(step)
            except Repeated as repeat:
                prior = repeat.prior
                return self._repeat(command, prior, self.read(command.scene, prior.first_seq - 1, prior.last_seq))
            except ConcurrencyConflict:
                self.refresh(command.scene)  # someone else wrote: read on, decide again
                continue
            except StorageUnavailable as err:
                return self._unavailable(command, err)
            state = self._applied(step, records)
            if self.snapshots and self.snapshots.due(state, len(records)):
                self.save_snapshot(state, records[-1].hash)
            return Handled(id=command.id, records=records, fresh=True, state=state)
        return self._kept_changing(command)

    async def submit(self, command: AnyCommand) -> Handled:
        """Decide, and append through the writer (the live path)."""
        return (await self.submit_many([command]))[0]

    async def submit_many(self, commands: Sequence[AnyCommand]) -> list[Handled]:
        """Commands of one scene that arrived together: each decided against the state the ones
        before it leave, all appended in one group commit, each answered once it is durable. Those
        that could not go in as decided (another process appended to the scene first) are decided
        again together on the log's end (``refresh``), after a short random pause that grows with
        each try; while other processes append to the scene too (``SHARED``), groups are decided
        and appended there in this process's turn (``turn``); an id twice in the group gets the
        first one's result."""
        results: list[Handled | None] = [None] * len(commands)
        first: dict[tuple[str, str], int] = {}
        pending = [i for i, c in enumerate(commands) if first.setdefault((c.actor, c.id), i) == i]
        scene = commands[0].scene if commands else ""
        shared = time.monotonic() - self._moved.get(scene, -SHARED) < SHARED
        async with self.turn(scene) if shared else alone(scene):  # another process appends here too
            give_up = time.monotonic() + PATIENCE
            for attempt in itertools.count():
                if attempt:
                    log.info("decided again", scene=scene, commands=len(pending), attempt=attempt)
                    await anyio.sleep(random.uniform(0, min(BACKOFF * 2**attempt, MAX_BACKOFF)))
                pending = await self._try(commands, pending, results, fresh=shared or attempt > 0)
                if not pending or time.monotonic() > give_up:
                    break
        for i in pending:
            results[i] = self._kept_changing(commands[i])
        for i, command in enumerate(commands):
            if results[i] is None:
                earlier = first[(command.actor, command.id)]
                results[i] = self._again(results[earlier], commands[earlier], command)
                if results[i] is None:
                    results[i] = await self._submit_alone(command)
        return [handled for handled in results if handled is not None]

    async def _try(
        self, commands: Sequence[AnyCommand], pending: list[int], results: list[Handled | None], *, fresh: bool
    ) -> list[int]:
        """Decide the ``pending`` commands in turn and append them in one group (on the log's end
        when ``fresh``); answer each in ``results``; those that conflicted, to try again. What is
        read for them (the log's end, the events disputes and rulings name, the first result of a
        refused command that may be a repeat) is read on the reading threads."""
        scene = commands[pending[0]].scene
        decided: list[tuple[int, _Decided]] = []
        refusals: list[tuple[int, Handled]] = []
        try:
            subjects = await self._subjects([commands[i] for i in pending])
            state = await self._refreshed(scene) if fresh else self.state(scene)
        except StorageUnavailable as err:
            for i in pending:
                results[i] = self._unavailable(commands[i], err)
            return []
        for i in pending:
            command = commands[i]
            try:
                step = self._decide(command, state, subjects.get(command.id))
            except StorageUnavailable as err:
                results[i] = self._unavailable(command, err)
                continue
            if isinstance(step, Handled):
                refusals.append((i, step))
                continue
            state = fold(_provisional(step), state)  # what the next command is decided against
            decided.append((i, timed(step, state)))
        for i, refusal in refusals:  # unless the log holds it already: a repeat gets its first result
            results[i] = await self._unless_repeated(commands[i], refusal)
        if not decided:
            return []
        last = decided[-1][1]
        self.writing[scene] = last.state.version + len(last.events)
        try:
            outcomes = await self.writer.append([self._item(step) for _, step in decided])
            state = self.state(scene)
            again = []
            for (i, step), outcome in zip(decided, outcomes, strict=True):
                if isinstance(outcome, list):  # those that went in come first (``EventStore.append_batch``)
                    state = step.after if step.after is not None and step.state is state else fold(outcome, state)
                    results[i] = Handled(id=step.command.id, records=outcome, fresh=True, state=state)
                elif isinstance(outcome, StorageUnavailable):
                    results[i] = self._unavailable(step.command, outcome)
                elif isinstance(outcome, Repeated):
                    results[i] = await self._repeated(step.command, outcome.prior)
                else:
                    again.append(i)
            self._states[scene] = state
        finally:
            self.writing.pop(scene, None)
        if again:
            self.moved(scene)
        return again

    async def _subjects(self, commands: Sequence[AnyCommand]) -> dict[str, Recorded | None]:
        """The event each dispute or ruling among ``commands`` names, by command id."""
        asked = [command for command in commands if isinstance(command, Dispute | Rule)]
        if not asked:
            return {}
        return await self.reader.run(lambda: {command.id: self._subject(command) for command in asked})

    def _again(self, earlier: Handled | None, first: AnyCommand, command: AnyCommand) -> Handled | None:
        """A command whose id came earlier in its group (``first``): the earlier one's result if it
        was recorded (or ``id_reused``: another body); None to decide it afresh."""
        if earlier is None or not earlier.fresh or earlier.id != command.id:
            return None
        if digest(first) != digest(command):
            return _id_reused(command.id)
        return Handled(id=command.id, records=earlier.records)

    async def _submit_alone(self, command: AnyCommand) -> Handled:
        for _ in range(RETRIES):
            try:  # the scene changed under it (another process appended): read on, decide again
                subject = (await self._subjects([command])).get(command.id)
                step = self._decide(command, await self._refreshed(command.scene), subject)
                if isinstance(step, Handled):
                    return await self._unless_repeated(command, step)
                if may_time(step.state, step.events):
                    step = timed(step, fold(_provisional(step), step.state))
                (outcome,) = await self.writer.append([self._item(step)])
            except StorageUnavailable as err:
                return self._unavailable(command, err)
            if isinstance(outcome, StorageUnavailable):
                return self._unavailable(command, outcome)
            if isinstance(outcome, Repeated):
                return await self._repeated(command, outcome.prior)
            if isinstance(outcome, list):
                return Handled(id=command.id, records=outcome, fresh=True, state=self._applied(step, outcome))
        return self._kept_changing(command)

    # -- repeats: answered from the log ------------------------------------------------------------

    def _first_result(self, command: AnyCommand) -> Handled | None:
        """The first result of ``command`` if the log holds its id from its actor (a repeat); a
        read, for a reading thread (or inline, offline)."""
        prior = self.store.command(command.scene, command.actor, command.id)
        if prior is None:
            return None
        return self._repeat(command, prior, self.read(command.scene, prior.first_seq - 1, prior.last_seq))

    async def _unless_repeated(self, command: AnyCommand, refusal: Handled) -> Handled:
        """A refused command's refusal, unless it repeats one the log holds: then that one's result."""
        try:
            first = await self.reader.run(self._first_result, command)
        except StorageUnavailable as err:
            return self._unavailable(command, err)
        return first or refusal

    async def _repeated(self, command: AnyCommand, prior: CommandRecord) -> Handled:
        """The answer to a command the append found in the log already (``Repeated``)."""
        try:
            records = await self.reader.run(self.read, command.scene, prior.first_seq - 1, prior.last_seq)
        except StorageUnavailable as err:
            return self._unavailable(command, err)
        return self._repeat(command, prior, records)

    @staticmethod
    def _repeat(command: AnyCommand, prior: CommandRecord, records: list[Recorded]) -> Handled:
        """A repeat's answer: its first result, as the log holds it (``id_reused`` for another body,
        when the digest of the first is known)."""
        if prior.digest and prior.digest != digest(command):
            return _id_reused(command.id)
        mine = [r for r in records if r.command == command.id and r.actor == command.actor]
        return Handled(id=command.id, records=mine)

    def save_snapshot(self, state: Scene, at_hash: str) -> None:
        """Keep a snapshot; a disk that will not take it costs only the shortcut."""
        if self.snapshots is None:
            return
        try:
            self.snapshots.save(state, at_hash)
        except Exception as err:  # derived data: never worth failing a command for
            log.warning("snapshot not saved", scene=state.id, version=state.version, error=str(err))

    def snapshot_long(self, scenes: Sequence[str], snapshots: Snapshots | None = None) -> None:
        """Keep a snapshot (in ``snapshots``, default the service's) at the end of each of
        ``scenes`` that is long and has none there: after ``justicar play`` or ``import``, so that a
        server's first join of it folds no long log."""
        kept = snapshots or self.snapshots
        if kept is None:
            return
        for scene in scenes:
            version, head = self.store.head(scene)
            if version < WORTH or version in kept.versions(scene):
                continue
            state = self.cached(scene)
            if state is None or state.version != version:
                state = self.load(scene)
            try:
                kept.save(state, head)
            except Exception as err:  # derived data: the scene is written all the same
                log.warning("snapshot not saved", scene=scene, version=version, error=str(err))

    def _decide(
        self, command: AnyCommand, state: Scene | None = None, subject: Recorded | None = None
    ) -> _Decided | Handled:
        """Decide ``command`` against ``state`` (the scene's, by default), with the event it names
        (``subject``: a dispute's or a ruling's, read beforehand). A refusal may be a repeat: the
        caller looks for the command in the log before answering it."""
        body = digest(command)
        state = state or self.state(command.scene)
        now = command.at if (self.honour_at and command.at) else self._now(state)
        night = self._stream(command.game) if isinstance(command, OpenScene) and command.game else None
        if isinstance(command, AddCharacter) and state.game:
            night = self._stream(state.game)  # its characters come in from the night, not by a sheet here
        scenes: tuple[Scene, ...] = ()
        if isinstance(command, RegisterCharacter) and state.night is not None:  # one added by hand stays there
            scenes = tuple(self._stream(s.id) for s in state.night.scenes if s.open)
        ctx = Context(now=now, entropy=self.entropy(), subject=subject, night=night, scenes=scenes)
        try:
            events = decide(state, command, ctx)
        except Rejected as refusal:
            return refused(command.id, refusal.code, refusal.message, refusal.rule, refusal.fields)
        return _Decided(command=command, state=state, events=events, digest=body, now=now)

    def _stream(self, scene: str) -> Scene:
        """Another stream a command reads (its night, a night's scenes): held, or loaded here when
        ``loads_inline``; a server that could not load it first refuses the command."""
        held = self._states.get(scene)
        if held is not None:
            return held
        if not self.loads_inline:
            raise StorageUnavailable(f"stream {scene!r} could not be loaded")
        return self.state(scene)

    def _append(self, step: _Decided) -> list[Recorded]:
        item = self._item(step)
        return self.store.append(
            item.scene,
            item.expected_version,
            item.events,
            command=item.command,
            digest=item.digest,
            actor=item.actor,
            at=item.at,
            due=item.due,
        )

    @staticmethod
    def _item(step: _Decided) -> Append:
        command = step.command
        return Append(
            scene=command.scene,
            expected_version=step.state.version,
            events=step.events,
            command=command.id,
            digest=step.digest,
            actor=command.actor,
            at=step.now,
            due=step.due,
        )

    def _applied(self, step: _Decided, records: list[Recorded]) -> Scene:
        state = step.after if step.after is not None else fold(records, step.state)
        self._states[step.command.scene] = state
        return state

    def _unavailable(self, command: AnyCommand, err: StorageUnavailable) -> Handled:
        log.error("storage unavailable", scene=command.scene, id=command.id, error=str(err))
        return refused(command.id, *STORAGE_UNAVAILABLE)

    @staticmethod
    def _kept_changing(command: AnyCommand) -> Handled:
        return refused(command.id, "conflict", "The scene kept changing while this command was applied; send it again.")

    def _subject(self, command: AnyCommand) -> Recorded | None:
        """The event a dispute or ruling names, from the log."""
        if not isinstance(command, Dispute | Rule):
            return None
        return next(self.store.read(command.scene, after=command.event - 1, upto=command.event), None)

    def _now(self, state: Scene) -> datetime:
        """The clock, never behind the scene's last event (a script may have dated events ahead)."""
        now = self.clock()
        return max(now, state.last_at) if state.last_at else now
