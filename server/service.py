"""Handling one command: idempotency, the clock and the dice, decide, append, fold.

The same steps serve ``justicar play`` (offline: a command's ``at`` is honoured; ``handle`` writes
inline) and the live server (the clock stamps every event; ``submit`` writes through the server's
writer thread). A command id already accepted from the same actor in the scene returns its first
result; the same id with another body is ``id_reused``. A refused command is not recorded. A disk
that will not take the write refuses the command with ``storage_unavailable``, acknowledging
nothing.

A scene is loaded checked: from a snapshot that still matches the log (or from its first event),
every event after it verified (seq, link, hash, readable) and the log's end matching the commands
acknowledged; a scene that fails is ``SceneCorrupt`` and is never served.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

import msgspec
import structlog

from domain.commands import AnyCommand, Dispute, Rule
from domain.context import ENTROPY_SIZE, Context
from domain.decide import decide
from domain.errors import Rejected
from domain.events import SceneEvent
from domain.evolve import fold, fold_rows
from domain.log import GENESIS, Recorded, Wire
from domain.state import NARRATOR, Scene
from projections.redact import redact
from server.snapshots import Snapshots
from server.store import Checked, ConcurrencyConflict, EventStore, StorageUnavailable
from server.store.base import lost_end
from server.writer import Writer

_canonical = msgspec.json.Encoder(order="sorted")
RETRIES = 3
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


class _Decided(msgspec.Struct, frozen=True, kw_only=True):
    """A command decided against a state: what to append, and on what."""

    command: AnyCommand
    state: Scene
    events: list[SceneEvent]
    digest: str
    now: datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def draw_entropy() -> tuple[int, ...]:
    """The command's random draws, from one read of the system's randomness."""
    return struct.unpack(f"<{ENTROPY_SIZE}I", os.urandom(4 * ENTROPY_SIZE))


def digest(command: AnyCommand) -> str:
    """What makes two commands with one id the same command."""
    return hashlib.sha256(_canonical.encode(command)).hexdigest()


def refused(command_id: str, code: str, message: str, rule: str | None = None) -> Handled:
    return Handled(id=command_id, error=ErrorBody(code, message, rule))


STORAGE_UNAVAILABLE = (
    "storage_unavailable",
    "The server could not write to its disk, so nothing was recorded; send it again in a moment.",
)


class SceneService:
    """Applies commands to scenes in one store, keeping each scene's folded state."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = utc_now,
        entropy: Callable[[], tuple[int, ...]] = draw_entropy,
        honour_at: bool = False,
        snapshots: Snapshots | None = None,
        writer: Writer | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.entropy = entropy
        self.honour_at = honour_at
        self.snapshots = snapshots
        self.writer = writer or Writer(threaded=False)
        self._states: dict[str, Scene] = {}

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
        start = self.snapshots.load(scene) if self.snapshots else None
        after, prev = (start.state.version, start.hash) if start else (0, GENESIS)
        rows = Checked(scene, self.store.read_wire(scene, after=after), after=after, prev=prev)
        try:
            state = fold_rows(scene, rows, start.state if start else None)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            raise rows.unreadable(err) from None
        lost = lost_end(scene, state.version, self.store.acknowledged(scene))
        if lost is not None:
            raise lost
        return state

    def adopt(self, scene: str, state: Scene) -> None:
        """Keep a state loaded elsewhere (on a worker thread)."""
        self._states[scene] = state

    def forget(self, scene: str) -> None:
        """Drop a scene's folded state (it is read again on next use)."""
        self._states.pop(scene, None)

    # -- commands --------------------------------------------------------------------------------

    def handle(self, command: AnyCommand) -> Handled:
        """Decide and append inline (the offline path)."""
        for _ in range(RETRIES):
            try:
                step = self._decide(command)
                if isinstance(step, Handled):
                    return step
                records = self._append(step)
            except ConcurrencyConflict:
                self.forget(command.scene)  # someone else wrote: read again, decide again
                continue
            except StorageUnavailable as err:
                return self._unavailable(command, err)
            state = self._applied(step, records)
            if self.snapshots and self.snapshots.due(state, len(records)):
                self.save_snapshot(state, records[-1].hash)
            return Handled(id=command.id, records=records, fresh=True)
        return self._kept_changing(command)

    async def submit(self, command: AnyCommand) -> Handled:
        """Decide, and append through the writer (the live path)."""
        for _ in range(RETRIES):
            try:
                step = self._decide(command)
                if isinstance(step, Handled):
                    return step
                records = await self.writer.run(partial(self._append, step))
            except ConcurrencyConflict:
                self.forget(command.scene)
                continue
            except StorageUnavailable as err:
                return self._unavailable(command, err)
            self._applied(step, records)
            return Handled(id=command.id, records=records, fresh=True)
        return self._kept_changing(command)

    def save_snapshot(self, state: Scene, at_hash: str) -> None:
        """Keep a snapshot; a disk that will not take it costs only the shortcut."""
        if self.snapshots is None:
            return
        try:
            self.snapshots.save(state, at_hash)
        except Exception as err:  # derived data: never worth failing a command for
            log.warning("snapshot not saved", scene=state.id, version=state.version, error=str(err))

    def _decide(self, command: AnyCommand) -> _Decided | Handled:
        body = digest(command)
        prior = self.store.command(command.scene, command.actor, command.id)
        if prior is not None:
            if prior.digest and prior.digest != body:
                return refused(
                    command.id,
                    "id_reused",
                    f"Command id {command.id!r} was already used in this scene for another command; pick a new id.",
                )
            first = list(self.store.read(command.scene, after=prior.first_seq - 1, upto=prior.last_seq))
            return Handled(id=command.id, records=first)
        state = self.state(command.scene)
        now = command.at if (self.honour_at and command.at) else self._now(state)
        ctx = Context(now=now, entropy=self.entropy(), subject=self._subject(command))
        try:
            events = decide(state, command, ctx)
        except Rejected as refusal:
            return refused(command.id, refusal.code, refusal.message, refusal.rule)
        return _Decided(command=command, state=state, events=events, digest=body, now=now)

    def _append(self, step: _Decided) -> list[Recorded]:
        command = step.command
        return self.store.append(
            command.scene,
            step.state.version,
            step.events,
            command=command.id,
            digest=step.digest,
            actor=command.actor,
            at=step.now,
        )

    def _applied(self, step: _Decided, records: list[Recorded]) -> Scene:
        state = fold(records, step.state)
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
