"""A long catch-up, streamed by the subscriber's own connection before it joins its room.

A subscriber far behind (a page's first load of a long scene, a phone back after an hour) would
cost its room, and every other viewer of the scene, one long stall and a buffer of megabytes. So
its connection reads the log in chunks of ``CHUNK`` events, sends each chunk's frames and waits
for its socket to drain before reading the next, yielding to the event loop between chunks: memory
stays one chunk per connection, and no other scene waits. Then the room sends the last stretch and
the live stream follows (``server.room``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from domain.evolve import fold
from domain.state import Scene
from server.room import CHUNK
from server.snapshots import Snapshots
from server.store import EventStore
from server.wire import commit_frames


async def state_at(store: EventStore, snapshots: Snapshots | None, scene: str, since: int) -> Scene:
    """The scene's state after event ``since``: from a snapshot at or before it (read off the
    loop), then folded a chunk at a time."""
    start = await anyio.to_thread.run_sync(snapshots.load, scene) if snapshots else None
    state = start.state if start is not None and start.state.version <= since else Scene()
    while state.version < since:
        state = fold(store.read(scene, after=state.version, upto=min(since, state.version + CHUNK)), state)
        await anyio.sleep(0)
    return state


async def stream(
    send: Callable[[bytes], Awaitable[None]],
    store: EventStore,
    scene: str,
    viewer: str,
    since: int,
    upto: int,
    base: Scene | None,
) -> Scene | None:
    """Send the viewer's frames of events ``since+1..upto``, a chunk at a time, each sent (and
    drained) before the next is read; with ``base`` (the state at ``since``), in words too.
    Returns the state at ``upto`` when given ``base``."""
    at = since
    while at < upto:
        end = min(upto, at + CHUNK)
        frames, base = commit_frames(list(store.read(scene, after=at, upto=end)), viewer, base)
        for frame in frames:
            await send(frame)
        at = end
        await anyio.sleep(0)
    return base
