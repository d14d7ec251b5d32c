"""An event store in memory: for ``justicar play`` without ``--db``, and for tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime

from msgspec import UNSET

from domain.events import SceneEvent
from domain.log import GENESIS, Recorded, Row, Wire, format_at, from_wire, to_wire
from server.store.base import (
    Append,
    CommandRecord,
    ConcurrencyConflict,
    Copies,
    Due,
    Repeated,
    Span,
    Step,
    as_logged,
    chain,
    claimable,
    command_spans,
    resumed,
)


class MemoryStore(Copies):
    readonly = False

    def __init__(self) -> None:
        self._events: dict[str, list[tuple[Recorded, bytes]]] = {}
        self._spans: dict[tuple[str, str, str], Span] = {}
        """Where the log holds each command (read off its events as they are appended)."""
        self._commands: dict[tuple[str, str, str], CommandRecord] = {}
        """The index, as the other stores' ``commands`` table."""
        self._unfinished: dict[str, str] = {}
        """A scene being copied in (``write_step``) and its copier: no reader sees it yet."""
        self._alarms: dict[str, datetime] = {}
        """The index of when each scene next needs waking, as the other stores' ``alarms`` table."""

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
        due: Due = UNSET,
    ) -> list[Recorded]:
        stream = self._events.setdefault(scene, [])
        if len(stream) != expected_version:
            raise ConcurrencyConflict(f"scene {scene!r} is at version {len(stream)}, not {expected_version}")
        if scene in self._unfinished:
            raise ConcurrencyConflict(f"scene {scene!r} is being copied in (a fork or an import)")
        prior = self.command(scene, actor, command)
        if prior is not None:
            raise Repeated(prior)
        prev = stream[-1][0].hash if stream else GENESIS
        sealed = chain(scene, expected_version, prev, events, command=command, actor=actor, at=at)
        stream.extend(sealed)
        if sealed:
            first, last = sealed[0][0].seq, sealed[-1][0].seq
            self._spans[(scene, actor, command)] = (first, last, len(sealed))
            self._commands[(scene, actor, command)] = CommandRecord(scene, actor, command, digest, first, last)
            if due is None:
                self._alarms.pop(scene, None)
            elif isinstance(due, datetime):
                self._alarms[scene] = due
        return [record for record, _ in sealed]

    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]:
        out: list[list[Recorded] | ConcurrencyConflict] = []
        stale: set[str] = set()  # a scene whose item conflicted: the items after it were decided on it
        for item in items:
            if item.scene in stale:
                out.append(ConcurrencyConflict(f"scene {item.scene!r}: an earlier item of this batch conflicted"))
                continue
            try:
                out.append(
                    self.append(
                        item.scene,
                        item.expected_version,
                        item.events,
                        command=item.command,
                        digest=item.digest,
                        actor=item.actor,
                        at=item.at,
                        due=item.due,
                    )
                )
            except ConcurrencyConflict as err:
                out.append(err)
                stale.add(item.scene)
        return out

    def resume(self, scene: str, wires: Sequence[Wire]) -> int:
        return resumed(scene, wires, self._raw_head(scene), scene in self._unfinished)

    def write_step(self, scene: str, owner: str, step: Step) -> None:
        claimable(scene, step, self._raw_head(scene), self._unfinished.get(scene), owner)
        if step.first:
            self._unfinished[scene] = owner
        self._events.setdefault(scene, []).extend((from_wire(w), bytes(w.data)) for w in step.wires)
        for c in step.commands:
            self._commands[(scene, c.actor, c.id)] = c
        if step.last:
            del self._unfinished[scene]
            wires = [to_wire(record, data) for record, data in self._events[scene]]
            for actor, command, first, last in command_spans(wires):
                self._spans[(scene, actor, command)] = (first, last, last - first + 1)

    def _raw_head(self, scene: str) -> tuple[int, str]:
        stream = self._events.get(scene)
        return (len(stream), stream[-1][0].hash) if stream else (0, GENESIS)

    def _slice(self, scene: str, after: int, upto: int | None) -> list[tuple[Recorded, bytes]]:
        return self._stream(scene)[after:upto]

    def _stream(self, scene: str) -> list[tuple[Recorded, bytes]]:
        """The scene's records; none while it is being copied in."""
        return [] if scene in self._unfinished else self._events.get(scene, [])

    def read(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        for record, _ in self._slice(scene, after, upto):
            yield record

    def read_wire(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Wire]:
        for record, data in self._slice(scene, after, upto):
            yield to_wire(record, data)

    def rows(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        for record, data in self._slice(scene, after, upto):
            yield record.seq, format_at(record.at), record.type, data

    def head(self, scene: str) -> tuple[int, str]:
        return (0, GENESIS) if scene in self._unfinished else self._raw_head(scene)

    def acknowledged(self, scene: str) -> int:
        return max((c.last_seq for c in self._commands.values() if c.scene == scene and self._whole(c)), default=0)

    def command(self, scene: str, actor: str, command_id: str) -> CommandRecord | None:
        key = (scene, actor, command_id)
        row = self._commands.get(key)
        if scene in self._unfinished:
            return None
        held = (row.digest, row.first_seq, row.last_seq) if row is not None else None
        return as_logged(scene, actor, command_id, self._spans.get(key), held)

    def command_rows(self, scene: str) -> list[CommandRecord]:
        rows = (c for c in self._commands.values() if c.scene == scene and self._whole(c))
        return sorted(rows, key=lambda c: c.first_seq)

    def digests(self, scene: str, upto: int) -> dict[tuple[str, str], str]:
        return {
            (c.actor, c.id): c.digest
            for c in self._commands.values()
            if c.scene == scene and c.first_seq <= upto and self._whole(c)
        }

    def _whole(self, command: CommandRecord) -> bool:
        return command.scene not in self._unfinished

    def scenes(self) -> list[str]:
        return [scene for scene, stream in self._events.items() if stream and scene not in self._unfinished]

    def alarms(self, before: datetime | None = None) -> list[tuple[str, datetime]]:
        rows = ((scene, due) for scene, due in self._alarms.items() if before is None or due < before)
        return sorted(rows, key=lambda row: (row[1], row[0]))

    def alarm(self, scene: str) -> datetime | None:
        return self._alarms.get(scene)

    def close(self) -> None:
        pass
