"""``evolve``: fold one recorded event into the scene. It applies facts; it never judges them.

Every judgement (who leads, what is lost, whether a wait applies) was made by ``decide`` and is in
the event, so evolve needs no ruleset and replays exactly what the table saw.

Each event type has one small reducer (``domain.reducers``) that changes a ``Change``
(``domain.change``): the scene with its maps open for writing and its other fields as plain
attributes, frozen into a new ``Scene`` once. ``evolve`` freezes after one event; ``fold`` keeps
one ``Change`` for a whole run of records and freezes at the end, so a long replay pays for each
map entry it touches and nothing else. Both keep ``Scene.undecided``, the index of challenges not
yet decided, that views, moves and automation read instead of walking every challenge.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import domain.reducers  # noqa: F401 - registers every reducer
from domain.change import APPLY, Change
from domain.events import SceneEvent
from domain.log import EVENT_DECODERS, Recorded, Row, parse_at
from domain.state import Scene


def fold(records: Iterable[Recorded], state: Scene | None = None) -> Scene:
    """The state after these records, starting from ``state`` (a new scene by default)."""
    change = Change(state if state is not None else Scene())
    last: Recorded | None = None
    apply = APPLY
    for last in records:
        change.at = last.at
        apply[type(last.event)](change, last.event, last)
    return change.frozen(last) if last is not None else change.base


def fold_rows(scene: str, rows: Iterable[Row], state: Scene | None = None) -> Scene:
    """``fold`` of events as a store keeps them (seq, time, type, canonical data), decoded on the
    way and never made into records: the lean path of a replay or a load."""
    change = Change(state if state is not None else Scene())
    place = _Place(scene)
    by_name, parse = _BY_NAME, parse_at
    last_at = ""
    for seq, at, type_, data in rows:
        if at != last_at:  # the events of one command share their time
            last_at, place.at = at, parse(at)
            change.at = place.at
        place.seq = seq
        decode, reduce = by_name[type_]
        reduce(change, decode(data), place)
    return change.frozen(place) if place.seq else change.base


class _Place:
    """The place of the event being folded (reused from one row to the next)."""

    __slots__ = ("at", "scene", "seq")

    def __init__(self, scene: str) -> None:
        self.scene, self.seq, self.at = scene, 0, datetime.min


def evolve(state: Scene, record: Recorded) -> Scene:
    change = Change(state)
    change.at = record.at
    APPLY[type(record.event)](change, record.event, record)
    return change.frozen(record)


_MISSING = set(SceneEvent.__args__) - set(APPLY)
assert not _MISSING, f"events without a reducer: {_MISSING}"
_BY_NAME = {kind.type_name(): (EVENT_DECODERS[kind.type_name()].decode, APPLY[kind]) for kind in SceneEvent.__args__}
"""Each event type's decoder and reducer, by its name in the log."""
