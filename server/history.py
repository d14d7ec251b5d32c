"""Moving scenes between databases and branching them: export, import, fork.

An export is the scene's records as JSON lines, exactly as stored (seq, times, hashes). Import
checks the whole file first (one scene, seq from 1 without gaps, every hash, every event readable)
and writes nothing unless all of it is sound. A fork copies events 1..N of a scene into a new one
and records where it came from; the original is never touched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

import msgspec

from domain.events import SceneForked
from domain.log import Recorded, Wire, check_chain, decode_event, decode_wire
from server.store import EventStore, StoreError


class ImportRefused(StoreError):
    """An export that is not sound: nothing was written."""


_json = msgspec.json.Encoder()


def export_text(store: EventStore, scene: str) -> str:
    """A scene's records as JSON lines, exactly as stored."""
    return "".join(_json.encode(wire).decode() + "\n" for wire in store.read_wire(scene))


def read_export(lines: Iterable[str]) -> list[Wire]:
    """Parse an export, refusing the first line that is not a record."""
    wires = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            wires.append(decode_wire(line))
        except msgspec.DecodeError as err:
            raise ImportRefused(f"line {number} is not an event record: {err}") from None
    return wires


def check_export(wires: list[Wire]) -> str:
    """The scene an export holds, or ``ImportRefused`` naming the first bad event."""
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
    return scene


def import_scene(store: EventStore, lines: Iterable[str]) -> tuple[str, int]:
    """Import an export into ``store``: ``(scene, events)``, or ``ImportRefused`` and nothing written."""
    wires = read_export(lines)
    scene = check_export(wires)
    store.import_wires(scene, wires)
    return scene, len(wires)


def fork(store: EventStore, scene: str, at: int, new_scene: str, clock: Callable[[], datetime]) -> int:
    """Copy events 1..``at`` of ``scene`` into ``new_scene`` and record the origin; returns the new
    scene's version."""
    version, _ = store.head(scene)
    if version == 0:
        raise StoreError(f"there is no scene {scene!r}")
    if not 1 <= at <= version:
        raise StoreError(f"scene {scene!r} has events 1 to {version}; fork at one of them")
    if store.head(new_scene)[0]:
        raise StoreError(f"scene {new_scene!r} already exists; pick another name")
    copied = 0
    batch: list[Recorded] = []
    records = list(store.read(scene, upto=at))
    for n, record in enumerate(records):
        batch.append(record)
        last_of_command = n + 1 == len(records) or records[n + 1].command != record.command
        if last_of_command:
            prior = store.command(scene, record.command)
            store.append(
                new_scene,
                copied,
                [r.event for r in batch],
                command=record.command,
                digest=prior.digest if prior else "",
                actor=batch[0].actor,
                at=batch[0].at,
            )
            copied += len(batch)
            batch = []
    origin = records[-1]
    forked = store.append(
        new_scene,
        copied,
        [SceneForked(scene=scene, seq=at, hash=origin.hash)],
        command=f"fork-{scene}-{at}",
        digest="",
        actor="st",
        at=max(clock(), origin.at),
    )
    return forked[-1].seq
