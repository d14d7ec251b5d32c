"""Moving scenes between databases and branching them: export, import, fork.

An export is the scene's records as JSON lines, exactly as stored (seq, times, hashes), ending
with a line that says how many events it holds and the head hash, so a truncated file is known.
Import checks the whole file first (one scene, seq from 1 without gaps, every hash, every event
readable, the end present and matching, and the head noted with ``--expect``) and writes nothing
unless all of it is sound. A fork copies events 1..N of a scene into a new one and records where it
came from; the original is never touched.

Both write in steps (``server.store.base.copy_steps``: ``STEP`` records a transaction; in a server,
``Writer.copy``, each a job of its own on the writer followed by a pause as long as it took, so
other scenes' commits go in between and none waits longer than one step; ``justicar import`` and
``fork`` on a file a server is serving hold SQLite's write lock one step at a time too), the steps
but the last without waiting for the disk (the last one's sync takes them with it), and the new
scene is whole or absent to everyone else:

- The first step claims the name: in the transaction that writes the first records, a row of the
  store's ``unfinished`` table names the scene and the copy's owner (a random key). The first
  record's seq collides with any append to that scene, so a copy and a command opening the same
  scene cannot both win.
- While that row stands, the scene does not exist for readers (its head is 0, its records,
  commands and digests are none, ``scenes`` leaves it out) and every append to it conflicts: no
  half scene is ever loaded, served, listed, exported, verified or joined.
- Each later step writes only while its owner still holds the row and the scene's head is the
  record just before the step's. The last step deletes the row in its own transaction (for a
  fork: with ``scene_forked``, the last record): the scene then exists whole, at once.
- A copy that dies half-way (the process killed, the disk full) leaves the row and a prefix of its
  records, which nobody sees. The records of a copy are the same bytes each time it is made (a
  fork re-chains the origin's events, seq, times, actors and command ids kept; an import writes
  the file's records), so a retry with the same name finds the prefix its own, takes the row over
  and goes on from there (``resume``); a live copy taken over finds it gone at its next step and
  fails, leaving the name to the retry. A name held by an unfinished copy of other records (another
  origin, another file) is refused, naming why: nothing is ever deleted from ``events``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

import msgspec

from domain.events import SceneForked
from domain.log import GENESIS, Recorded, Wire, check_chain, decode_event, decode_wire, to_wire
from server.store import EventStore, StoreError, chain, verified
from server.writer import let_go


class ImportRefused(StoreError):
    """An export that is not sound: nothing was written."""


class ExportEnd(msgspec.Struct, frozen=True):
    """The last line of an export: its scene, how many events it holds, and the head hash."""

    scene: str
    events: int
    head: str


class _EndLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    end: ExportEnd


_json = msgspec.json.Encoder()
_end_decoder = msgspec.json.Decoder(_EndLine)


def export_lines(store: EventStore, scene: str) -> Iterable[str]:
    """A scene's records as JSON lines, exactly as stored, then the end line."""
    count, head = 0, ""
    for wire in store.read_wire(scene):
        count, head = count + 1, wire.hash
        yield _json.encode(wire).decode() + "\n"
    yield _json.encode(_EndLine(ExportEnd(scene, count, head))).decode() + "\n"


def export_text(store: EventStore, scene: str) -> str:
    return "".join(export_lines(store, scene))


def read_export(lines: Iterable[str]) -> tuple[list[Wire], ExportEnd | None]:
    """Parse an export, refusing the first line that is not a record (or the end line, last)."""
    wires: list[Wire] = []
    end: ExportEnd | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if end is not None:
            raise ImportRefused(f"line {number} comes after the export's end line")
        if line.lstrip().startswith('{"end"'):
            try:
                end = _end_decoder.decode(line).end
                continue
            except msgspec.DecodeError as err:
                raise ImportRefused(f"line {number} is not a sound end line: {err}") from None
        try:
            wires.append(decode_wire(line))
        except msgspec.DecodeError as err:
            raise ImportRefused(f"line {number} is not an event record: {err}") from None
    return wires, end


def check_export(wires: list[Wire], end: ExportEnd | None, expect: str | None = None) -> str:
    """The scene an export holds, or ``ImportRefused`` naming the first thing wrong."""
    if not wires:
        raise ImportRefused("the file holds no events")
    scene = wires[0].scene
    for wire in wires:
        if wire.scene != scene:
            raise ImportRefused(f"event {wire.seq} belongs to scene {wire.scene!r}, not {scene!r}")
    problem = check_chain(wires)
    if problem is not None:
        raise ImportRefused(f"event {problem.seq} ({problem.type}): {problem.problem}")
    for wire in wires:
        try:
            decode_event(wire.type, bytes(wire.data))
        except msgspec.DecodeError as err:
            raise ImportRefused(f"event {wire.seq} ({wire.type}) cannot be read: {err}") from None
    if end is None:
        raise ImportRefused(
            f"the file ends after event {wires[-1].seq} without its end line (events and head hash): "
            "it may be truncated; export the scene again"
        )
    if (end.scene, end.events, end.head) != (scene, len(wires), wires[-1].hash):
        raise ImportRefused(
            f"the end line says {end.events} events of {end.scene!r} ending with {end.head}, "
            f"but the file holds {len(wires)} of {scene!r} ending with {wires[-1].hash}"
        )
    if expect is not None and wires[-1].hash != expect:
        raise ImportRefused(f"its head is {wires[-1].hash}, not the expected {expect}")
    return scene


def import_scene(store: EventStore, lines: Iterable[str], expect: str | None = None) -> tuple[str, int]:
    """Import an export into ``store``: ``(scene, events)``, or ``ImportRefused`` and nothing written."""
    wires, end = read_export(lines)
    scene = check_export(wires, end, expect)
    store.import_wires(scene, wires)
    return scene, len(wires)


def fork_wires(
    store: EventStore, scene: str, at: int, new_scene: str, clock: Callable[[], datetime]
) -> tuple[list[Wire], dict[tuple[str, str], str]]:
    """The records of a what-if (events 1..``at`` of ``scene``, each checked, re-chained under
    ``new_scene``, then ``scene_forked``) and the digests of their commands, ready to write in steps
    (``Writer.copy``, ``EventStore.import_wires``); ``SceneCorrupt`` if the events copied are not
    sound. Pure reading: safe on a worker thread."""
    version, _ = store.head(scene)
    if version == 0:
        raise StoreError(f"there is no scene {scene!r}")
    if not 1 <= at <= version:
        raise StoreError(f"scene {scene!r} has events 1 to {version}; fork at one of them")
    if store.head(new_scene)[0]:
        raise StoreError(f"scene {new_scene!r} already exists; pick another name")
    records = list(verified(scene, store.read_wire(scene, upto=at)))  # never branch from a broken log
    known = store.digests(scene, at)
    sealed: list[tuple[Recorded, bytes]] = []
    digests: dict[tuple[str, str], str] = {}
    batch: list[Recorded] = []
    for n, record in enumerate(records):
        batch.append(record)
        if n + 1 < len(records) and records[n + 1].command == record.command:
            continue
        digests[(record.actor, record.command)] = known.get((record.actor, record.command), "")
        prev = sealed[-1][0].hash if sealed else GENESIS
        first = batch[0]
        sealed += chain(
            new_scene,
            len(sealed),
            prev,
            [r.event for r in batch],
            command=record.command,
            actor=first.actor,
            at=first.at,
        )
        batch = []
    origin = records[-1]
    sealed += chain(
        new_scene,
        len(sealed),
        sealed[-1][0].hash,
        [SceneForked(scene=scene, seq=at, hash=origin.hash)],
        command=f"~fork-{scene}-{at}",
        actor="st",
        at=max(clock(), origin.at),
    )
    wires = [to_wire(record, data) for record, data in sealed]
    let_go(records, sealed)
    return wires, digests


def fork(store: EventStore, scene: str, at: int, new_scene: str, clock: Callable[[], datetime]) -> int:
    """Copy events 1..``at`` of ``scene`` into ``new_scene`` and record the origin, in steps (see
    above); returns the new scene's version."""
    wires, digests = fork_wires(store, scene, at, new_scene, clock)
    store.import_wires(new_scene, wires, digests)
    return wires[-1].seq
