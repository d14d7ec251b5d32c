"""The store interface every event store implements, and what they share.

Errors:
- ``StoreError``: the base of the store's errors.
- ``ConcurrencyConflict``: the scene moved on since the caller read it, or the command id was
  taken meanwhile; nothing was written. Read again and decide again.
- ``StorageUnavailable``: the disk would not take a write (full, read-only, failing) or could not
  be read; nothing was written. It passes when the disk does.
- ``SceneCorrupt``: a scene's log fails its check (a gap, a broken link, an edited or unreadable
  event); the scene must not be served.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

import msgspec
import structlog
from msgspec import UNSET, UnsetType

from domain.events import SceneEvent
from domain.log import GENESIS, ChainProblem, Recorded, Row, Wire, check_chain, from_wire, seal


class StoreError(Exception):
    """Something is wrong with the store itself."""


class ConcurrencyConflict(StoreError):
    """An append expected another version of the scene (or its command id was taken): nothing
    was written."""


class Repeated(ConcurrencyConflict):
    """The log already holds this actor's command id: nothing was written. ``prior`` is that
    command as the hash chain holds it (``as_logged``): a repeat is answered with its events."""

    def __init__(self, prior: CommandRecord) -> None:
        super().__init__(f"command {prior.id!r} of {prior.actor!r} is already in scene {prior.scene!r}")
        self.prior = prior


class StorageUnavailable(StoreError):
    """The disk refused a write or a read (full, read-only, an I/O error): nothing was written."""


class SceneCorrupt(StoreError):
    """A scene's log fails its check: the first bad event is ``problem``."""

    def __init__(self, scene: str, problem: ChainProblem) -> None:
        super().__init__(f"scene {scene!r}: event {problem.seq} ({problem.type}): {problem.problem}")
        self.scene = scene
        self.problem = problem


class CommandRecord(msgspec.Struct, frozen=True):
    """An accepted command: the digest of its body (empty when unknown: imported, recovered from
    the log, or its index row disagrees with the log) and the events it appended."""

    scene: str
    actor: str
    id: str
    digest: str
    first_seq: int
    last_seq: int


class Append(msgspec.Struct, frozen=True, kw_only=True):
    """One command's events, to append after event ``expected_version`` of ``scene``."""

    scene: str
    expected_version: int
    events: Sequence[SceneEvent]
    command: str
    digest: str
    actor: str
    at: datetime
    due: datetime | UnsetType | None = UNSET
    """When the scene next needs waking once these events are in (``domain.deadlines.next_due``),
    kept in the ``alarms`` index in the same transaction, so that no commit is ever without it: None
    deletes the scene's row, ``UNSET`` (the default) leaves it as it is (the time did not change)."""


Due = datetime | UnsetType | None
"""What an append says of its scene's row in the ``alarms`` index (``Append.due``)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(at: datetime) -> int:
    """A time as the ``alarms`` index keeps it: whole microseconds since 1970 (UTC), which sort and
    compare as numbers in every backend (the text of ``format_at`` has no fixed width)."""
    return (at - _EPOCH) // timedelta(microseconds=1)


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


class EventStore(Protocol):
    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]:
        """Append several commands' events in one transaction (group commit): each item's records,
        or the conflict that kept it out (the others still go in, but for the items after it of
        the same scene, which were decided on it: they conflict too). Raises ``StorageUnavailable``
        if the disk refuses, and then nothing was written."""
        ...

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
        """Append ``events`` after event ``expected_version``, chained and committed, and keep
        the command id (scoped by ``actor``) and the scene's row of the ``alarms`` index (``due``, as
        ``Append.due``). Raises ``ConcurrencyConflict`` if the scene is at
        another version or the log already holds this actor's command id, ``StorageUnavailable``
        if the disk refuses."""
        ...

    def import_wires(
        self, scene: str, wires: Sequence[Wire], digests: dict[tuple[str, str], str] | None = None
    ) -> None:
        """Write records exactly as given (seq, times, hashes) into a scene with no events, in steps
        (``Copies``): the scene exists for readers only once the last step is in. Command ids are
        rebuilt from the records, with ``digests`` by actor and id (unknown, empty, by default).
        Raises ``StoreError`` if the scene already has events. The caller checks the chain."""
        ...

    def resume(self, scene: str, wires: Sequence[Wire]) -> int:
        """How many of ``wires`` (a whole scene's records, to be written in steps) an unfinished copy
        of them already holds: 0 for a scene with no events. Raises ``StoreError`` if the scene has
        events of its own, or an unfinished copy of other records."""
        ...

    def write_step(self, scene: str, owner: str, step: Step) -> None:
        """One step of a copy, in one transaction: ``step.first`` claims the scene for ``owner``
        (its events must then end just before the step's); a later step is refused
        (``ConcurrencyConflict``) unless ``owner`` still holds it; ``step.last`` makes the scene
        exist."""
        ...

    def read(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        """The scene's records in order, decoded."""
        ...

    def read_wire(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Wire]:
        """The scene's records in order as stored, undecoded (for logs, exports and checks)."""
        ...

    def rows(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        """The scene's events as ``(seq, at, type, data)``, nothing more: the lean path of a fold
        (``domain.evolve.fold_rows``), which needs no hashes."""
        ...

    def head(self, scene: str) -> tuple[int, str]:
        """The scene's version (0 if empty) and its last hash."""
        ...

    def command(self, scene: str, actor: str, command_id: str) -> CommandRecord | None:
        """The accepted command of ``actor`` with this id in this scene, if any, as the log holds it:
        the events whose hash-chained ``actor`` and ``command`` fields name it (``as_logged``); the
        ``commands`` row only lends its digest, and only when it agrees with them."""
        ...

    def command_rows(self, scene: str) -> list[CommandRecord]:
        """Every row of the scene's ``commands`` index, as stored (``justicar verify`` checks each
        against the log: ``index_problem``)."""
        ...

    def digests(self, scene: str, upto: int) -> dict[tuple[str, str], str]:
        """The digest of each accepted command of the scene that began at or before event
        ``upto``, by actor and id, in one read (a fork copies them)."""
        ...

    def acknowledged(self, scene: str) -> int:
        """The last seq any accepted command of the scene reached: a log that ends before it has
        lost its end."""
        ...

    def scenes(self) -> list[str]:
        """Every scene with at least one event, in the order they began."""
        ...

    def alarms(self, before: datetime | None = None) -> list[tuple[str, datetime]]:
        """The ``alarms`` index: each scene that will need waking and when (only those due before
        ``before``, when given), the earliest first. Only a shortcut (``server.alarms``): what a
        wake-up does is decided on the scene's log."""
        ...

    def alarm(self, scene: str) -> datetime | None:
        """The scene's row of the ``alarms`` index, if it has one."""
        ...

    def close(self) -> None: ...


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(db: str | None) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return bool(db) and str(db).startswith(POSTGRES_SCHEMES)


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


STEP = 100
"""Records a fork or an import writes in one transaction (``copy_steps``): the writer is never held
longer than a step (a few milliseconds: about a commit's own time), so other scenes' commits go in
between. Larger steps cost a bystander more than they save (a step of 500 took 15-40 ms)."""


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One transaction of a copy: some of its records, the commands that end among them (an id
    whose events span two steps is written with the later one), whether it is the first of this
    writer (it claims the scene) and whether it is the last (the scene then exists)."""

    wires: Sequence[Wire]
    commands: Sequence[CommandRecord]
    first: bool
    last: bool


def copy_steps(
    scene: str,
    wires: Sequence[Wire],
    digests: dict[tuple[str, str], str] | None = None,
    done: int = 0,
    size: int = STEP,
) -> Iterator[Step]:
    """The steps that write ``wires[done:]`` into ``scene``, ``size`` records each, made one at a
    time (cheap enough between two steps on the event loop)."""
    known = digests or {}
    begun = done  # the command in progress at ``done`` began at ``begun``
    while begun > 0 and (wires[begun - 1].actor, wires[begun - 1].command) == (
        wires[done - 1].actor,
        wires[done - 1].command,
    ):
        begun -= 1
    for start in range(done, len(wires), size):
        chunk = wires[start : start + size]
        last = start + size >= len(wires)
        commands = []
        for n, wire in enumerate(chunk, start=start):
            if n > begun and (wire.actor, wire.command) != (wires[n - 1].actor, wires[n - 1].command):
                commands.append(_span(scene, wires[n - 1], wires[begun].seq, known))
                begun = n
        if last:
            commands.append(_span(scene, wires[-1], wires[begun].seq, known))
        yield Step(wires=chunk, commands=commands, first=start == done, last=last)


def _span(scene: str, end: Wire, first: int, digests: dict[tuple[str, str], str]) -> CommandRecord:
    return CommandRecord(scene, end.actor, end.command, digests.get((end.actor, end.command), ""), first, end.seq)


class Copies:
    """``import_wires`` in steps, for every store (``resume``, ``write_step``)."""

    def import_wires(
        self, scene: str, wires: Sequence[Wire], digests: dict[tuple[str, str], str] | None = None
    ) -> None:
        owner = secrets.token_hex(8)
        for step in copy_steps(scene, wires, digests, self.resume(scene, wires)):
            self.write_step(scene, owner, step)

    @abstractmethod
    def resume(self, scene: str, wires: Sequence[Wire]) -> int: ...

    @abstractmethod
    def write_step(self, scene: str, owner: str, step: Step) -> None: ...


class Batched(Copies, ABC):
    """``append`` as a batch of one, for the stores whose writes are batches (group commit)."""

    @abstractmethod
    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]: ...

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
        item = Append(
            scene=scene,
            expected_version=expected_version,
            events=events,
            command=command,
            digest=digest,
            actor=actor,
            at=at,
            due=due,
        )
        (done,) = self.append_batch([item])
        if isinstance(done, ConcurrencyConflict):
            raise done
        return done


def resumed(scene: str, wires: Sequence[Wire], head: tuple[int, str], unfinished: bool) -> int:
    """``resume`` from what the store holds under ``scene``: its head and whether it is an
    unfinished copy."""
    version, hash_ = head
    if version and not unfinished:
        raise StoreError(f"scene {scene!r} already has events; import into a new scene")
    if version and not (version < len(wires) and wires[version - 1].hash == hash_):
        raise StoreError(
            f"scene {scene!r} holds an unfinished copy of other events (a fork or an import stopped half-way);"
            " pick another name"
        )
    return version


def claimable(scene: str, step: Step, head: tuple[int, str], holder: str | None, owner: str) -> None:
    """Whether ``owner`` may write ``step`` after what the store holds (its head, and who holds its
    unfinished copy): ``StoreError`` or ``ConcurrencyConflict`` if not."""
    version, hash_ = head
    start = step.wires[0]
    if step.first and version and holder is None:
        raise StoreError(f"scene {scene!r} already has events; pick another name")
    if not step.first and holder != owner:
        raise ConcurrencyConflict(f"scene {scene!r} was taken over by another copy of it")
    if (version, hash_) != (start.seq - 1, start.prev):
        raise ConcurrencyConflict(f"scene {scene!r} changed under this copy (at event {version}, not {start.seq - 1})")


def command_spans(wires: Sequence[Wire]) -> list[tuple[str, str, int, int]]:
    """Each command (actor and id) with the first and last seq of its events."""
    spans: list[tuple[str, str, int, int]] = []
    for wire in wires:
        if spans and spans[-1][:2] == (wire.actor, wire.command):
            spans[-1] = (wire.actor, wire.command, spans[-1][2], wire.seq)
        else:
            spans.append((wire.actor, wire.command, wire.seq, wire.seq))
    return spans


class Checked:
    """The rows of ``wires`` (a scene's records after ``after``, whose hash is ``prev``), each
    checked as it passes (seq without gaps, each link, each hash; ``SceneCorrupt`` at the first
    that is not), for ``fold_rows``; ``last`` is the record just passed, to name one that cannot be
    read."""

    def __init__(self, scene: str, wires: Iterable[Wire], *, after: int = 0, prev: str = GENESIS) -> None:
        self.scene, self.wires, self.after, self.prev = scene, wires, after, prev
        self.last: Wire | None = None

    def __iter__(self) -> Iterator[Row]:
        expected, prev = self.after + 1, self.prev
        for wire in self.wires:
            problem = check_chain((wire,), start_seq=expected, prev=prev)
            if problem is not None:
                raise SceneCorrupt(self.scene, problem)
            self.last = wire
            yield wire.seq, wire.at, wire.type, bytes(wire.data)
            prev, expected = wire.hash, expected + 1

    def unreadable(self, err: Exception) -> SceneCorrupt:
        """The error of a record that passed the chain but cannot be read."""
        last = self.last
        assert last is not None
        return SceneCorrupt(self.scene, ChainProblem(last.seq, last.type, f"it cannot be read: {err}"))


def verified(scene: str, wires: Iterable[Wire], *, after: int = 0, prev: str = GENESIS) -> Iterator[Recorded]:
    """The records of ``wires`` (the scene's events after ``after``, whose hash is ``prev``),
    decoded, each checked as it passes: seq without gaps, each link, each hash, each event
    readable. Raises ``SceneCorrupt`` at the first that is not."""
    expected = after + 1
    for wire in wires:
        problem = check_chain((wire,), start_seq=expected, prev=prev)
        if problem is not None:
            raise SceneCorrupt(scene, problem)
        try:
            record = from_wire(wire)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            raise SceneCorrupt(scene, ChainProblem(wire.seq, wire.type, f"it cannot be read: {err}")) from None
        yield record
        prev, expected = wire.hash, expected + 1


log = structlog.get_logger("justicar.store")

Span = tuple[int, int, int]
"""Where the log holds one command: the first and last seq of its events, and how many there are."""


def as_logged(
    scene: str, actor: str, command_id: str, span: Span | None, row: tuple[str, int, int] | None
) -> CommandRecord | None:
    """The command as the log holds it (``span``, from its events), with the digest of its
    ``commands`` row (``row``: digest, first and last seq) only when that row names the same events.
    A row that disagrees, or names a command the log does not hold, is an index gone wrong (edited,
    or left by a write that did not land): it is reported and ignored, never answered from."""
    if span is not None and span[2] != span[1] - span[0] + 1:
        log.warning("command scattered in the log", scene=scene, actor=actor, command=command_id, span=span)
    if row is not None and (span is None or (row[1], row[2]) != (span[0], span[1])):
        held = f"events {span[0]} to {span[1]}" if span else "no events"
        log.warning(
            "command index disagrees with the log",
            scene=scene,
            actor=actor,
            command=command_id,
            index=f"events {row[1]} to {row[2]}",
            log=held,
        )
        row = None
    if span is None:
        return None
    return CommandRecord(scene, actor, command_id, row[0] if row else "", span[0], span[1])


def index_problem(scene: str, rows: Sequence[CommandRecord], wires: Iterable[Wire]) -> ChainProblem | None:
    """The first row of a scene's ``commands`` index that the log does not bear out: a command the
    log does not hold under that actor, or whose events are elsewhere."""
    spans = {(actor, command): (first, last) for actor, command, first, last in command_spans(list(wires))}
    for row in sorted(rows, key=lambda r: (r.first_seq, r.actor, r.id)):
        held = spans.get((row.actor, row.id))
        if held == (row.first_seq, row.last_seq):
            continue
        where = f"events {held[0]} to {held[1]}" if held else "no event of it"
        problem = (
            f"the commands index says {row.actor}'s command {row.id!r} appended events {row.first_seq} to "
            f"{row.last_seq}, but the log holds {where}: the index was edited (a repeat of that command is "
            "answered from the log, never from this row)"
        )
        return ChainProblem(row.first_seq, "command", problem)
    return None


def lost_end(scene: str, version: int, acknowledged: int) -> SceneCorrupt | None:
    """A log that ends before the last event a command was acknowledged with has lost its end."""
    if acknowledged <= version:
        return None
    missing = f"the log ends at event {version}, but commands were acknowledged up to event {acknowledged}"
    return SceneCorrupt(scene, ChainProblem(version + 1, "?", f"it is missing: {missing}"))


def first_problem(store: EventStore, scene: str) -> ChainProblem | None:
    """The first thing wrong with a scene's log (``justicar verify``), or None. Sound against a
    database other processes write meanwhile: what says where the log must reach (the acknowledged
    mark, the commands index) is read before the log it is checked against."""
    acknowledged = store.acknowledged(scene)  # before the head: a commit between never looks like a lost end
    problem = check_chain(store.read_wire(scene))
    if problem is None and (lost := lost_end(scene, store.head(scene)[0], acknowledged)):
        problem = lost.problem
    if problem is None:
        problem = index_problem(scene, store.command_rows(scene), store.read_wire(scene))
    return problem


__all__ = [
    "GENESIS",
    "STEP",
    "Append",
    "Batched",
    "Checked",
    "CommandRecord",
    "ConcurrencyConflict",
    "Copies",
    "Due",
    "EventStore",
    "Repeated",
    "SceneCorrupt",
    "Step",
    "StorageUnavailable",
    "StoreError",
    "as_logged",
    "chain",
    "claimable",
    "command_spans",
    "copy_steps",
    "first_problem",
    "from_micros",
    "index_problem",
    "is_postgres",
    "lost_end",
    "resumed",
    "to_micros",
    "verified",
]
