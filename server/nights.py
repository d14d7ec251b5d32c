"""A game night's streams together: which scenes belong to a night, its audit, its export (the
night's own log, then each scene's, each ending with its own end line, as ``server.history``
writes one), and its import whole.

Import reads every stream of the file and checks each as ``server.history`` checks one (seq from
1 without gaps, every hash, every event readable, its end line) and that a night arrives with
every scene it names and nothing else; it writes nothing unless all of it is sound and none of its
streams is in the database already. Each stream is then written in steps, as ``server.history``
writes one (it exists for readers once whole).
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.events import SceneAdded
from domain.log import Wire, decode_event
from projections.audit import NightAudit, night_audit
from server.history import ExportEnd, ImportRefused, check_export, export_text, read_export
from server.store import EventStore
from server.store.base import first_problem


def is_night(store: EventStore, stream: str) -> bool:
    """Whether ``stream`` is a game night's own stream."""
    first = next(iter(store.rows(stream, upto=1)), None)
    return first is not None and first[2] == "game_opened"


def scenes_of(store: EventStore, night: str) -> list[str]:
    """The night's scenes, in the order they opened (its ``scene_added`` events)."""
    found: list[str] = []
    for _, _, type_, data in store.rows(night):
        if type_ == "scene_added":
            event = decode_event(type_, data)
            if isinstance(event, SceneAdded) and event.scene not in found:
                found.append(event.scene)
    return found


def streams_of(store: EventStore, stream: str) -> list[str]:
    """A night and its scenes; any other stream alone."""
    return [stream, *scenes_of(store, stream)] if is_night(store, stream) else [stream]


def export_all(store: EventStore, stream: str) -> str:
    """The export of a stream: a night's carries its scenes after it."""
    return "".join(export_text(store, s) for s in streams_of(store, stream))


def audit_of_night(store: EventStore, night: str) -> NightAudit:
    """The night's audit, each stream checked as ``justicar verify`` checks it."""
    streams = streams_of(store, night)
    return night_audit(
        list(store.read_wire(night)),
        {scene: list(store.read_wire(scene)) for scene in streams[1:]},
        {s: first_problem(store, s) for s in streams},
    )


def _parts(lines: Iterable[str]) -> list[list[str]]:
    """An export's streams: the lines up to and including each end line (the rest, if any, last)."""
    parts: list[list[str]] = [[]]
    for line in lines:
        parts[-1].append(line)
        if line.lstrip().startswith('{"end"'):
            parts.append([])
    return [part for part in parts if any(line.strip() for line in part)]


def read_streams(lines: Iterable[str], expect: str | None = None) -> list[tuple[str, list[Wire]]]:
    """Every stream of an export, each checked; ``expect`` is the first stream's head. A night's
    export must hold each of its scenes (and nothing else). ``ImportRefused`` names the first
    thing wrong."""
    streams: list[tuple[str, list[Wire]]] = []
    for n, part in enumerate(_parts(lines)):
        wires, end = read_export(part)
        try:
            stream = check_export(wires, end, expect if n == 0 else None)
        except ImportRefused as refused:
            where = f"stream {n + 1} of the file" + (f" ({wires[0].scene!r})" if wires else "")
            raise ImportRefused(f"{where}: {refused}" if n else str(refused)) from None
        if any(stream == s for s, _ in streams):
            raise ImportRefused(f"the file holds {stream!r} twice")
        streams.append((stream, wires))
    if not streams:
        raise ImportRefused("the file holds no events")
    if len(streams) > 1 or streams[0][1][0].type == "game_opened":
        _whole_night(streams)
    return streams


def _whole_night(streams: list[tuple[str, list[Wire]]]) -> None:
    night, wires = streams[0]
    if wires[0].type != "game_opened":
        raise ImportRefused(f"the file holds several streams, but the first, {night!r}, is not a game night")
    named = [
        event.scene
        for w in wires
        if w.type == "scene_added" and isinstance(event := decode_event(w.type, bytes(w.data)), SceneAdded)
    ]
    held = [s for s, _ in streams[1:]]
    if missing := [s for s in dict.fromkeys(named) if s not in held]:
        raise ImportRefused(f"the game night {night!r} names scenes the file lacks: {', '.join(missing)}")
    if extra := [s for s in held if s not in named]:
        raise ImportRefused(f"the file holds scenes that are not of the game night {night!r}: {', '.join(extra)}")


def import_all(store: EventStore, lines: Iterable[str], expect: str | None = None) -> list[tuple[str, int]]:
    """Import an export (one stream, or a night and its scenes): ``[(stream, events)]``, or
    ``ImportRefused`` and nothing written."""
    streams = read_streams(lines, expect)
    if there := [s for s, _ in streams if store.head(s)[0]]:
        raise ImportRefused(f"{', '.join(map(repr, there))} already has events in this database; import into another")
    for stream, wires in streams:
        store.import_wires(stream, wires)
    return [(stream, len(wires)) for stream, wires in streams]


__all__ = [
    "ExportEnd",
    "audit_of_night",
    "export_all",
    "import_all",
    "is_night",
    "read_streams",
    "scenes_of",
    "streams_of",
]
