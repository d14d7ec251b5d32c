"""A long catch-up, streamed by the subscriber's own connection before it joins its room.

A subscriber far behind (a page's first load of a long scene, a phone back after an hour) would
cost its room, and every other viewer of the scene, one long stall and a buffer of megabytes. So
its connection reads the log in chunks of ``CHUNK`` events, each chunk's frames built (read,
folded, put into words, redacted, encoded, framed) on a worker thread, sent in one write, and
drained by the socket before the next is read: memory stays one chunk per connection, and the
event loop only writes, once a chunk (a write a frame would cost the loop a system call each, and
with the worker busy each system call costs the loop up to a switch interval to take the
interpreter back).
Then the room sends the last stretch and the live stream follows (``server.room``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import immutables
import msgspec
from websockets.frames import Frame, Opcode

from domain.evolve import fold_rows
from domain.log import GENESIS, ChainProblem, from_wire
from domain.state import Scene
from projections.redact import SEES_ALL, Blind
from server.room import CHUNK
from server.service import settle
from server.snapshots import WORTH, Snapshots
from server.store import EventStore
from server.store.base import Checked, SceneCorrupt
from server.wire import commit_frames
from server.worker import Worker
from server.writer import let_go


def fold_to(store: EventStore, snapshots: Snapshots | None, scene: str, upto: int) -> Scene:
    """The scene's state after event ``upto``: from the snapshot at or before it, if one saves
    enough folding, then folded from the log, checked as it is read (``SceneCorrupt`` at the first
    event that is not sound)."""
    start = snapshots.load(scene, at_most=upto, worth=WORTH) if snapshots and upto >= WORTH else None
    after, prev = (start.state.version, start.hash) if start is not None else (0, GENESIS)
    rows = Checked(scene, store.read_wire(scene, after=after, upto=upto), after=after, prev=prev)
    try:
        return fold_rows(scene, rows, start.state if start is not None else None)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise rows.unreadable(err) from None


FOLD = 1_000
"""Events folded in one job on the worker (a few tens of milliseconds): a long fold is made in
turns, so that it never holds the worker from the others for long (``server.worker.Worker``)."""


async def state_at(
    worker: Worker,
    store: EventStore,
    snapshots: Snapshots | None,
    scene: str,
    since: int,
    spent: Callable[[int], None] = lambda events: None,
) -> Scene:
    """The scene's state after event ``since`` (as ``fold_to`` makes it), made on the worker in
    turns of ``FOLD`` events, each turn's events told to ``spent``; cancelled between two turns,
    it folds no further."""
    state, at, prev = await worker.run(_start, snapshots, scene, since)
    while True:
        upto = min(since, at + FOLD)
        folded, prev = await worker.run(_folded, store, scene, state, at, prev, upto)
        spent(upto - at)
        state, at = folded, upto
        if at >= since:
            return folded


def _start(snapshots: Snapshots | None, scene: str, upto: int) -> tuple[Scene | None, int, str]:
    """Where a fold to ``upto`` starts: the snapshot at or before it that saves enough folding, or
    the first event."""
    start = snapshots.load(scene, at_most=upto, worth=WORTH) if snapshots and upto >= WORTH else None
    return (start.state, start.state.version, start.hash) if start is not None else (None, 0, GENESIS)


def _folded(store: EventStore, scene: str, state: Scene | None, after: int, prev: str, upto: int) -> tuple[Scene, str]:
    """``state`` (the state after event ``after``, whose hash is ``prev``) with events up to
    ``upto`` folded in, each checked as it is read; and the hash of the last."""
    rows = Checked(scene, store.read_wire(scene, after=after, upto=upto), after=after, prev=prev)
    try:
        state = fold_rows(scene, rows, state)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise rows.unreadable(err) from None
    settle()  # kept for the whole request: no young collection walks it
    return state, rows.last.hash if rows.last is not None else prev


def _chunk(
    store: EventStore, scene: str, viewer: str, after: int, upto: int, base: Scene | None, prev: str, sealed: Blind
) -> tuple[list[bytes], bytes, Scene | None, str]:
    """One chunk's messages, the same framed for the wire (a server's frames, unmasked, one after
    the other: sent in one write), and the hash of its last event. Its events are read linked (seq without
    gaps, each ``prev`` the hash before it: ``prev`` is event ``after``'s) and readable; their own
    hashes are not recomputed here: the room's load checks them (``server.service.load``, and beside
    the room what a snapshot took on trust)."""
    if prev == "":  # the first chunk: the hash of the event it follows
        prev = next((w.hash for w in store.read_wire(scene, after=after - 1, upto=after)), GENESIS)
    try:
        records = list(store.read(scene, after=after, upto=upto))
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise _unreadable(store, scene, after, upto) from None
    expected = after + 1
    for record in records:
        if record.seq != expected:
            problem = f"expected event {expected} here, found {record.seq}"
            raise SceneCorrupt(scene, ChainProblem(record.seq, record.type, problem))
        if record.prev != prev:
            problem = "its prev does not match the hash before it"
            raise SceneCorrupt(scene, ChainProblem(record.seq, record.type, problem))
        prev, expected = record.hash, expected + 1
    frames, base = commit_frames(records, viewer, base, sealed)
    wired = b"".join(Frame(Opcode.TEXT, frame).serialize(mask=False) for frame in frames)
    settle()  # the state grown by this chunk lives on into the next: no young collection walks it
    return frames, wired, base, prev


def _unreadable(store: EventStore, scene: str, after: int, upto: int) -> SceneCorrupt:
    """The first event of a chunk that cannot be read, named (read again one at a time)."""
    for wire in store.read_wire(scene, after=after, upto=upto):
        try:
            from_wire(wire)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            return SceneCorrupt(scene, ChainProblem(wire.seq, wire.type, f"it cannot be read: {err}"))
    return SceneCorrupt(scene, ChainProblem(after + 1, "", "an event after it cannot be read"))


def release(held: list[Scene]) -> None:
    """Free the state in ``held`` (its only holder) a little at a time: made to put a long
    catch-up into words, a 100,000-event state is hundreds of thousands of objects, and dropped
    whole it is freed in one go by the interpreter, 20-25 ms during which no other thread runs.
    Run on a worker thread, it is freed map entry by map entry, each a few microseconds, and the
    event loop gets its turn in between. A state someone else still holds is only let go of."""
    state = held.pop()
    if sys.getrefcount(state) > 2:  # ``state`` and the call's argument: others hold it, nothing to free
        return
    fields: list[Any] = [getattr(state, name) for name in state.__struct_fields__]
    del state
    while fields:
        value = fields.pop()
        if isinstance(value, immutables.Map) and sys.getrefcount(value) == 2:
            entries = list(value.values())
            value = None  # the map's own nodes; its entries live on in ``entries``
            let_go(entries)
        value = None


async def stream(
    worker: Worker,
    send: Callable[[list[bytes], bytes], Awaitable[None]],
    pace: Callable[[int], Awaitable[None]],
    store: EventStore,
    scene: str,
    viewer: str,
    since: int,
    upto: int,
    base: Scene | None,
    sealed: Blind = SEES_ALL,
) -> Scene | None:
    """Send the viewer's frames of events ``since+1..upto``, a chunk at a time, each built (and
    framed for the wire) on a worker thread and sent (and drained) while the next is built, at most
    one ahead; with ``base`` (the state at ``since``), in words too; every event checked as it is
    read (``SceneCorrupt`` at the first that is not sound). Each chunk first awaits ``pace`` with
    its number of events (the link's budget).
    Returns the state at ``upto`` when given ``base``. ``sealed``: the sealed throws the viewer may
    not know, as of now (``projections.redact.blind``)."""
    at, prev = since, ""
    ahead: tuple[list[bytes], bytes] | None = None
    """The chunk built last, sent while the next is built: the catch-up always has a job waiting
    for the worker, and so gets its turn among the others' (``Worker``), not only when it is back."""
    building: asyncio.Future[tuple[list[bytes], bytes, Scene | None, str]] | None = None
    try:
        while at < upto:
            end = min(upto, at + CHUNK)
            await pace(end - at)
            building = asyncio.ensure_future(worker.run(_chunk, store, scene, viewer, at, end, base, prev, sealed))
            if ahead is not None:
                await send(*ahead)
            frames, wired, base, prev = await building
            ahead, at = (frames, wired), end
        if ahead is not None:
            await send(*ahead)
    finally:
        if building is not None and not building.done():
            building.cancel()  # still waiting for the worker: it leaves the queue
    return base
