"""The log record: an event with its place in the scene's stream, and the hash chain.

A record's JSON form is PROTOCOL section 2::

    {"seq": 42, "scene": "s1", "type": "test_resolved", "at": "2026-11-29T20:14:03Z",
     "actor": "st", "command": "c-17", "prev": "9f2c…", "hash": "4ab1…", "data": {…}}

``hash`` is the SHA-256 (hex) of ``prev`` (64 hex digits, ASCII) followed by the canonical JSON of
the record without ``prev`` and ``hash``: keys sorted at every level, no whitespace, UTF-8.
``prev`` of event 1 is 64 zeros. ``canonical`` recomputes this from any JSON copy of a record, so
a verifier needs only the stored text, never the current event schema.
"""

from __future__ import annotations

import hashlib
import typing
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from domain.events import Event, SceneEvent

GENESIS = "0" * 64

EVENT_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {
    cls.type_name(): msgspec.json.Decoder(cls) for cls in typing.get_args(SceneEvent)
}
"""The decoder of each event type's data, by its name."""
EVENT_TYPES: frozenset[str] = frozenset(EVENT_DECODERS)


class Place(Protocol):
    """Where an event stands in its scene's log: what folding it needs of its record."""

    @property
    def seq(self) -> int: ...

    @property
    def scene(self) -> str: ...

    @property
    def at(self) -> datetime: ...


Row = tuple[int, str, str, "bytes | str"]
"""An event as a store keeps it, for a lean fold: seq, time (RFC 3339), type, canonical data."""


class Recorded(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One event in its place in the log."""

    seq: int
    scene: str
    at: datetime
    actor: str
    command: str
    event: SceneEvent
    prev: str = GENESIS
    hash: str = ""

    @property
    def type(self) -> str:
        return self.event.type_name()


class Wire(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A record as JSON carries it (exports, ``justicar log``, results, pushes). ``redacted``
    names the fields of ``data`` blanked for the viewer it was sent to (``projections.redact``)."""

    seq: int
    scene: str
    type: str
    at: str
    actor: str
    command: str
    prev: str
    hash: str
    data: msgspec.Raw
    redacted: list[str] = []


_encoder = msgspec.json.Encoder(order="sorted")
_record_encoder = msgspec.json.Encoder()  # fields in PROTOCOL order; data stays canonical
_wire_decoder = msgspec.json.Decoder(Wire)
_generic_decoder = msgspec.json.Decoder()


def format_at(at: datetime) -> str:
    """The one text form of an event time: RFC 3339 in UTC with a ``Z``."""
    return _encoder.encode(at.astimezone(UTC)).decode()[1:-1]


def parse_at(text: str) -> datetime:
    """An event time from its text form."""
    return datetime.fromisoformat(text)


def event_data(event: Event) -> bytes:
    """The canonical ``data`` of an event: its fields, keys sorted; a field an event type gained
    after logs were written (``LATE``) is left out while empty, so those logs encode as they were
    written and their hashes hold."""
    fields = msgspec.structs.asdict(event)
    for name in getattr(event, "LATE", ()):
        if not fields[name]:
            del fields[name]
    return _encoder.encode(fields)


def decode_event(type_: str, data: bytes | str) -> SceneEvent:
    try:
        decoder = EVENT_DECODERS[type_]
    except KeyError:
        raise msgspec.ValidationError(f"unknown event type {type_!r}") from None
    return decoder.decode(data)  # type: ignore[no-any-return]


def canonical(*, seq: int, scene: str, type: str, at: str, actor: str, command: str, data: bytes | str) -> bytes:
    """The bytes the hash covers: the record without prev and hash, keys sorted throughout."""
    data_canon = _encoder.encode(_generic_decoder.decode(data))
    fields = {
        "actor": actor,
        "at": at,
        "command": command,
        "data": msgspec.Raw(data_canon),
        "scene": scene,
        "seq": seq,
        "type": type,
    }
    return _encoder.encode(fields)


def chain_hash(prev: str, canonical_bytes: bytes) -> str:
    return hashlib.sha256(prev.encode("ascii") + canonical_bytes).hexdigest()


def seal(
    *, prev: str, seq: int, scene: str, at: datetime, actor: str, command: str, event: SceneEvent
) -> tuple[Recorded, bytes]:
    """Give a new event its place in the chain; returns the record and its canonical data."""
    data = event_data(event)
    body = canonical(
        seq=seq,
        scene=scene,
        type=event.type_name(),
        at=format_at(at),
        actor=actor,
        command=command,
        data=data,
    )
    record = Recorded(
        seq=seq,
        scene=scene,
        at=at,
        actor=actor,
        command=command,
        event=event,
        prev=prev,
        hash=chain_hash(prev, body),
    )
    return record, data


def to_wire(record: Recorded, data: bytes | None = None) -> Wire:
    return Wire(
        seq=record.seq,
        scene=record.scene,
        type=record.type,
        at=format_at(record.at),
        actor=record.actor,
        command=record.command,
        prev=record.prev,
        hash=record.hash,
        data=msgspec.Raw(data if data is not None else event_data(record.event)),
    )


def from_wire(wire: Wire) -> Recorded:
    return Recorded(
        seq=wire.seq,
        scene=wire.scene,
        at=msgspec.convert(wire.at, datetime),
        actor=wire.actor,
        command=wire.command,
        event=decode_event(wire.type, bytes(wire.data)),
        prev=wire.prev,
        hash=wire.hash,
    )


def encode_record(record: Recorded) -> bytes:
    return _record_encoder.encode(to_wire(record))


def decode_wire(raw: bytes | str) -> Wire:
    return _wire_decoder.decode(raw)


class ChainProblem(msgspec.Struct, frozen=True, gc=False):
    """The first thing wrong with a stream: which event, and what."""

    seq: int
    type: str
    problem: str


def _hash_problem(wire: Wire, prev: str) -> ChainProblem | None:
    """Whether a record's hash is that of its contents after ``prev``. Stored data is canonical
    already, so the record is first hashed as it stands (one encode); only if that misses is its
    data put in canonical form (a file written elsewhere may order its keys otherwise)."""
    data = bytes(wire.data)
    fields = (wire.actor, wire.at, wire.command, msgspec.Raw(data), wire.scene, wire.seq, wire.type)
    if chain_hash(prev, _encoder.encode(dict(zip(_CANONICAL_KEYS, fields, strict=True)))) == wire.hash:
        return None
    try:
        body = canonical(
            seq=wire.seq,
            scene=wire.scene,
            type=wire.type,
            at=wire.at,
            actor=wire.actor,
            command=wire.command,
            data=data,
        )
    except msgspec.DecodeError:
        return ChainProblem(wire.seq, wire.type, "its data is not valid JSON")
    if chain_hash(prev, body) != wire.hash:
        return ChainProblem(wire.seq, wire.type, "its hash does not match its contents")
    return None


_CANONICAL_KEYS = ("actor", "at", "command", "data", "scene", "seq", "type")


def check_chain(wires: Iterable[Wire], *, start_seq: int = 1, prev: str = GENESIS) -> ChainProblem | None:
    """Walk a scene's records in order: seq without gaps, each ``prev`` the hash before it, each
    ``hash`` recomputed from the record's own text. Returns the first problem, or None."""
    expected_seq = start_seq
    for wire in wires:
        if wire.seq != expected_seq:
            return ChainProblem(wire.seq, wire.type, f"expected event {expected_seq} here, found {wire.seq}")
        if wire.prev != prev:
            return ChainProblem(wire.seq, wire.type, "its prev does not match the hash before it")
        problem = _hash_problem(wire, prev)
        if problem is not None:
            return problem
        prev = wire.hash
        expected_seq += 1
    return None
