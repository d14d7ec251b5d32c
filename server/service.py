"""Handling one command: idempotency, the clock and the dice, decide, append, fold.

The same path serves ``justicar play`` (offline: a command's ``at`` is honoured) and, later, the
live server (the clock stamps every event). A command id already accepted in the scene returns
its first result; the same id with another body is ``id_reused``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from domain.commands import AnyCommand
from domain.context import ENTROPY_SIZE, Context
from domain.decide import decide
from domain.errors import Rejected
from domain.evolve import fold
from domain.log import Wire, to_wire
from domain.state import Scene
from server.store import ConcurrencyConflict, EventStore

_canonical = msgspec.json.Encoder(order="sorted")
RETRIES = 3


class ErrorBody(msgspec.Struct, frozen=True, omit_defaults=True):
    code: str
    message: str
    rule: str | None = None


class Result(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a command got: ``ok`` with the events it appended, or the error."""

    id: str | None
    ok: bool
    version: int | None = None
    events: list[Wire] | None = None
    error: ErrorBody | None = None

    @classmethod
    def refused(cls, command_id: str | None, code: str, message: str, rule: str | None = None) -> Result:
        return cls(id=command_id, ok=False, error=ErrorBody(code, message, rule))


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
    ) -> None:
        self.store = store
        self.clock = clock
        self.entropy = entropy
        self.honour_at = honour_at
        self._states: dict[str, Scene] = {}

    def state(self, scene: str) -> Scene:
        state = self._states.get(scene)
        if state is None:
            state = fold(self.store.read(scene))
            self._states[scene] = state
        return state

    def handle(self, command: AnyCommand) -> Result:
        body = digest(command)
        for _ in range(RETRIES):
            prior = self.store.command(command.scene, command.id)
            if prior is not None:
                if prior.digest != body:
                    return Result.refused(
                        command.id,
                        "id_reused",
                        f"Command id {command.id!r} was already used in this scene for another "
                        "command; pick a new id.",
                    )
                events = list(
                    self.store.read_wire(command.scene, after=prior.first_seq - 1, upto=prior.last_seq)
                )
                return Result(id=command.id, ok=True, version=prior.last_seq, events=events)
            state = self.state(command.scene)
            now = command.at if (self.honour_at and command.at) else self.clock()
            try:
                events = decide(state, command, Context(now=now, entropy=self.entropy()))
            except Rejected as refusal:
                return Result.refused(command.id, refusal.code, refusal.message, refusal.rule)
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
                self._states.pop(command.scene, None)  # someone else wrote: read again, decide again
                continue
            self._states[command.scene] = fold(records, state)
            return Result(
                id=command.id,
                ok=True,
                version=records[-1].seq,
                events=[to_wire(record) for record in records],
            )
        return Result.refused(
            command.id,
            "conflict",
            "The scene kept changing while this command was applied; send it again.",
        )
