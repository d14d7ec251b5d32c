"""The store interface every event store implements, and what they share.

Errors:
- ``StoreError``: the base of the store's errors.
- ``ConcurrencyConflict``: the scene moved on since the caller read it, or the command id was
  taken meanwhile; nothing was written. Read again and decide again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from domain.events import SceneEvent
from domain.log import GENESIS, Recorded, Wire, seal


class StoreError(Exception):
    """Something is wrong with the store itself."""


class ConcurrencyConflict(StoreError):
    """An append expected another version of the scene (or its command id was taken): nothing
    was written."""


class CommandRecord(msgspec.Struct, frozen=True):
    """An accepted command: the digest of its body and the events it appended."""

    scene: str
    id: str
    digest: str
    first_seq: int
    last_seq: int


class EventStore(Protocol):
    def append(
        self,
        scene: str,
        expected_version: int,
        events: Sequence[SceneEvent],
        *,
        command: str,
        digest: str,
        actor: str,
        at: datetime,
    ) -> list[Recorded]:
        """Append ``events`` after event ``expected_version``, chained and committed, and keep
        the command id. Raises ``ConcurrencyConflict`` if the scene is at another version."""
        ...

    def import_wires(self, scene: str, wires: Sequence[Wire]) -> None:
        """Write records exactly as given (seq, times, hashes) into a scene with no events, in one
        transaction; command ids are rebuilt from the records, with an unknown (empty) digest.
        Raises ``StoreError`` if the scene already has events. The caller checks the chain."""
        ...

    def read(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        """The scene's records in order, decoded."""
        ...

    def read_wire(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Wire]:
        """The scene's records in order as stored, undecoded (for logs, exports and checks)."""
        ...

    def head(self, scene: str) -> tuple[int, str]:
        """The scene's version (0 if empty) and its last hash."""
        ...

    def command(self, scene: str, command_id: str) -> CommandRecord | None:
        """The accepted command with this id in this scene, if any."""
        ...

    def scenes(self) -> list[str]:
        """Every scene with at least one event, in the order they began."""
        ...

    def close(self) -> None: ...


def chain(
    scene: str,
    version: int,
    prev: str,
    events: Sequence[SceneEvent],
    *,
    command: str,
    actor: str,
    at: datetime,
) -> list[tuple[Recorded, bytes]]:
    """Seal new events after ``version`` (whose hash is ``prev``)."""
    sealed = []
    for offset, event in enumerate(events, start=1):
        record, data = seal(
            prev=prev,
            seq=version + offset,
            scene=scene,
            at=at,
            actor=actor,
            command=command,
            event=event,
        )
        sealed.append((record, data))
        prev = record.hash
    return sealed


def command_spans(wires: Sequence[Wire]) -> list[tuple[str, int, int]]:
    """Each command id with the first and last seq of its events."""
    spans: list[tuple[str, int, int]] = []
    for wire in wires:
        if spans and spans[-1][0] == wire.command:
            spans[-1] = (wire.command, spans[-1][1], wire.seq)
        else:
            spans.append((wire.command, wire.seq, wire.seq))
    return spans


__all__ = ["GENESIS", "CommandRecord", "ConcurrencyConflict", "EventStore", "StoreError", "chain", "command_spans"]
