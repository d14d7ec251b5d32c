"""Handling one command: idempotency, the clock and the dice, decide, append, fold.

The same path serves ``justicar play`` (offline: a command's ``at`` is honoured) and the live
server (the clock stamps every event). A command id already accepted in the scene returns its
first result; the same id with another body is ``id_reused``. A refused command is not recorded.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from domain.commands import AnyCommand, Dispute, Rule
from domain.context import ENTROPY_SIZE, Context
from domain.decide import decide
from domain.errors import Rejected
from domain.evolve import fold
from domain.log import Recorded, Wire
from domain.state import NARRATOR, Scene
from projections.redact import redact
from server.snapshots import Snapshots
from server.store import ConcurrencyConflict, EventStore

_canonical = msgspec.json.Encoder(order="sorted")
RETRIES = 3


class ErrorBody(msgspec.Struct, frozen=True, omit_defaults=True):
    code: str
    message: str
    rule: str | None = None


class Result(msgspec.Struct, frozen=True, omit_defaults=True, tag_field="type", tag="result"):
    """What a command got, as its sender sees it: ``ok`` with its events, or the error."""

    id: str | None
    ok: bool
    version: int | None = None
    events: list[Wire] | None = None
    error: ErrorBody | None = None

    @classmethod
    def refused(cls, command_id: str | None, code: str, message: str, rule: str | None = None) -> Result:
        return cls(id=command_id, ok=False, error=ErrorBody(code, message, rule))


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


def utc_now() -> datetime:
    return datetime.now(UTC)


def draw_entropy() -> tuple[int, ...]:
    return tuple(secrets.randbits(32) for _ in range(ENTROPY_SIZE))


def digest(command: AnyCommand) -> str:
    """What makes two commands with one id the same command."""
    return hashlib.sha256(_canonical.encode(command)).hexdigest()


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
    ) -> None:
        self.store = store
        self.clock = clock
        self.entropy = entropy
        self.honour_at = honour_at
        self.snapshots = snapshots
        self._states: dict[str, Scene] = {}

    def state(self, scene: str) -> Scene:
        state = self._states.get(scene)
        if state is None:
            start = self.snapshots.load(scene) if self.snapshots else None
            state = fold(self.store.read(scene, after=start.version if start else 0), start)
            self._states[scene] = state
        return state

    def forget(self, scene: str) -> None:
        """Drop a scene's folded state (it is read again on next use)."""
        self._states.pop(scene, None)

    def handle(self, command: AnyCommand) -> Handled:
        body = digest(command)
        for _ in range(RETRIES):
            prior = self.store.command(command.scene, command.id)
            if prior is not None:
                if prior.digest != body:
                    return self._refused(
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
                return self._refused(command.id, refusal.code, refusal.message, refusal.rule)
            try:
                records = self.store.append(
                    command.scene,
                    state.version,
                    events,
                    command=command.id,
                    digest=body,
                    actor=command.actor,
                    at=now,
                )
            except ConcurrencyConflict:
                self.forget(command.scene)  # someone else wrote: read again, decide again
                continue
            state = fold(records, state)
            self._states[command.scene] = state
            if self.snapshots:
                self.snapshots.maybe_save(state, len(records))
            return Handled(id=command.id, records=records, fresh=True)
        return self._refused(
            command.id, "conflict", "The scene kept changing while this command was applied; send it again."
        )

    def _subject(self, command: AnyCommand) -> Recorded | None:
        """The event a dispute or ruling names, from the log."""
        if not isinstance(command, Dispute | Rule):
            return None
        return next(self.store.read(command.scene, after=command.event - 1, upto=command.event), None)

    def _now(self, state: Scene) -> datetime:
        """The clock, never behind the scene's last event (a script may have dated events ahead)."""
        now = self.clock()
        return max(now, state.last_at) if state.last_at else now

    @staticmethod
    def _refused(command_id: str, code: str, message: str, rule: str | None = None) -> Handled:
        return Handled(id=command_id, error=ErrorBody(code, message, rule))
