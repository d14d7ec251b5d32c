"""The shell's clock for response deadlines: one alarm per process, however many scenes.

The core says when a scene next needs waking (``domain.deadlines.next_due``) and what is owed then
(``domain.deadlines.lapses``); this module only keeps time. It holds a heap of ``(when, scene)``
and one task that sleeps until the earliest; on waking it has each due scene's room load it
through the hub (as any command would: the alarm holds no room, and a room it woke unloads when
idle like any other) and submits the ``lapse`` commands the core gives for that state, as the
Storyteller, as automation submits its throws. The core decides each on the log: a move committed
first, or another process's lapse of the same deadline, makes it a refusal that appends nothing,
which is normal here (logged at debug). A thousand idle scenes with deadlines cost a heap of a
thousand entries and one sleeping task, never a task or a timer each.

Where the times come from:

- Each room tells the alarm its scene's time after a load and after every commit it pushes, its
  own and those of other processes it catches up on (``Room.on_due``).
- Each append keeps the time in the store's ``alarms`` index in its own transaction
  (``Append.due``), so a crash between a commit and the alarm loses nothing: at start the alarm
  reads the index (``EventStore.alarms``).
- With PostgreSQL (or ``serve --shared`` on an SQLite file), several processes serve one
  database. Each fires at once the scenes it holds (a room loaded), and reads the index every
  ``LOOK`` seconds (one query, only the rows due within ``AHEAD``) to take over the scenes of a
  process that died or unloaded them; those it fires only ``GRACE`` seconds past their time, its
  row read again first, so that the process holding the scene goes first.

The index is a shortcut: a wrong row costs a wake-up (the room loads, nothing is owed) or a late
one (the scene fires when next loaded); the decision is always the core's, on the folded log.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import anyio
import msgspec
import structlog

from domain.deadlines import lapses, next_due

if TYPE_CHECKING:
    from server.hub import Hub

GRACE = 3.0
"""Seconds past its time before a process fires a scene it does not hold (another may)."""
LOOK = 15.0
"""Seconds between a process's reads of the index, when it shares its database."""
AHEAD = 2 * LOOK
"""Seconds ahead a read of the index looks: the rows due before the next read but one."""
RETRY = 1.0
MAX_RETRY = 60.0
"""Seconds before a scene fired whose time did not move (its lapse could not be submitted: the
database away, the scene unavailable) is fired again, doubling with each try up to ``MAX_RETRY``."""
FIRING = 8
"""Scenes fired at once at most (a restart after a long stop may find many due together)."""

log = structlog.get_logger("justicar.alarms")


class Alarm:
    """When each scene next needs waking, and the one task that wakes them (``run``)."""

    def __init__(self, hub: Hub, *, shared: bool, clock: Callable[[], datetime] | None = None) -> None:
        self.hub = hub
        self.shared = shared
        """Whether other processes may serve the database too (``Backend.shared``): then the index is read
        again every ``LOOK`` seconds, and a scene not held here waits ``GRACE`` past its time."""
        self.clock = clock or hub.service.clock
        self.due: dict[str, datetime] = {}
        """Each scene's time as last heard (a room's, or the index's): the heap's live entries."""
        self._heap: list[tuple[datetime, str, datetime]] = []
        """(when to look at it, scene, its time then): an entry whose time is no longer the scene's
        is stale, and skipped when it comes up."""
        self._wake = anyio.Event()
        self._firing: set[str] = set()
        self._tries: dict[str, int] = {}
        self._limit = anyio.CapacityLimiter(FIRING)

    @property
    def entries(self) -> int:
        """The heap's entries, stale ones included (what the alarm holds for its scenes)."""
        return len(self._heap)

    # -- what the rooms and the index say ------------------------------------------------------------

    def set(self, scene: str, due: datetime | None) -> None:
        """The scene next needs waking at ``due`` (None: no deadline runs). Never waits."""
        if due is None:
            self.due.pop(scene, None)
            self._tries.pop(scene, None)
            return
        if self.due.get(scene) == due:
            return
        self.due[scene] = due
        self._tries.pop(scene, None)
        self._push(due, scene, due)

    def _push(self, when: datetime, scene: str, due: datetime) -> None:
        earliest = self._heap[0][0] if self._heap else None
        heapq.heappush(self._heap, (when, scene, due))
        if len(self._heap) > 2 * len(self.due) + 64:  # stale entries: make the heap again from the live ones
            self._heap = [entry for entry in self._heap if self.due.get(entry[1]) == entry[2]]
            heapq.heapify(self._heap)
        if earliest is None or when < earliest:
            self._wake.set()

    async def look(self) -> bool:
        """Read the index (the rows due within ``AHEAD`` when shared, else all) and take the times of
        the scenes not held here; a scene not held whose time was within reach and has no row any
        more (met, or moved later by the process that holds it) is dropped. Whether it was read."""
        store = self.hub.backend.store
        horizon = self.clock() + timedelta(seconds=AHEAD) if self.shared else None
        try:
            rows = await self.hub.reader.run(store.alarms, horizon)
        except Exception as err:  # the next look (or a room's load) brings them
            log.warning("alarms index not read", error=str(err))
            return False
        found = dict(rows)
        for scene, due in list(self.due.items()):
            if scene not in found and not self.held(scene) and (horizon is None or due < horizon):
                del self.due[scene]
        for scene, due in rows:
            if not self.held(scene):
                self.set(scene, due)
        return True

    def held(self, scene: str) -> bool:
        """Whether this process holds the scene now (its room is loaded and serving)."""
        room = self.hub.rooms.get(scene)
        return room is not None and room.failure is None

    # -- the one task ----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read the index, then wake each scene when its time comes, until cancelled. Alone on its
        database, the process reads the index again only if its first read failed."""
        again = not await self.look() or self.shared
        looked = time.monotonic()
        async with anyio.create_task_group() as tg:
            while True:
                now = self.clock()
                while self._heap and self._heap[0][0] <= now:
                    when, scene, due = heapq.heappop(self._heap)
                    if self.due.get(scene) != due or scene in self._firing:
                        continue  # stale, or already being fired (its end looks again)
                    grace = due + timedelta(seconds=GRACE)
                    if self.shared and when < grace and not self.held(scene):
                        heapq.heappush(self._heap, (grace, scene, due))  # its holder goes first
                        continue
                    self._firing.add(scene)
                    tg.start_soon(self._fire, scene, due, name=f"alarm {scene}")
                wait = (self._heap[0][0] - now).total_seconds() if self._heap else LOOK
                if again:
                    wait = min(wait, looked + LOOK - time.monotonic())
                self._wake = anyio.Event()
                with anyio.move_on_after(max(wait, 0.0)):
                    await self._wake.wait()
                if again and time.monotonic() >= looked + LOOK:
                    again = not await self.look() or self.shared
                    looked = time.monotonic()

    async def _fire(self, scene: str, due: datetime) -> None:
        """Load the scene through the hub and submit what the core says is owed now; its room then
        tells the new time. A scene owed again at once (a lapse that made the next move due: a
        tie's second declaration) is fired again at once; one that is still owed though nothing was
        recorded (the database away, the scene unavailable) is tried again later, ``RETRY``
        seconds and doubling."""
        recorded = False
        try:
            async with self._limit:
                recorded = await self._lapse(scene, due)
        except Exception as err:
            log.warning("deadline not fired", scene=scene, error=str(err), exc_info=err)
        finally:
            self._firing.discard(scene)
        now, current = self.clock(), self.due.get(scene)
        if current is None or current > now:  # nothing runs, or its entry waits in the heap
            self._tries.pop(scene, None)
        elif recorded:  # owed again already: its entry was passed over while it was fired
            self._tries.pop(scene, None)
            self._push(current, scene, current)
        else:
            tries = self._tries[scene] = self._tries.get(scene, 0) + 1
            self._push(now + timedelta(seconds=min(RETRY * 2 ** (tries - 1), MAX_RETRY)), scene, current)

    async def _lapse(self, scene: str, due: datetime) -> bool:
        """The lapses owed in the scene now, submitted; whether any was recorded. A scene not held
        here, when other processes serve the database, has its row read first: the process holding
        it may have moved its time since this one last read the index (then it waits for that time
        and a grace again, and is not loaded for nothing)."""
        from server.hub import SceneUnavailable  # the hub holds the alarm

        if self.shared and not self.held(scene):
            row = await self.hub.reader.run(self.hub.backend.store.alarm, scene)
            if row != due:
                self.set(scene, row)
                return False
        try:
            state = await self.hub.state(scene)
        except SceneUnavailable as err:  # its room says why; it is heard of again when it loads
            log.warning("deadline of a scene that cannot be served", scene=scene, error=err.error.message)
            self.set(scene, None)
            return False
        self.set(scene, next_due(state))  # the state's word, over the index's
        recorded = False
        for command in lapses(state, self.clock()):
            # the time is the clock's at the decision (the live path stamps it), so two processes
            # firing one deadline send the very same command
            handled = await self.hub.submit(msgspec.structs.replace(command, at=None))
            if handled.fresh:
                recorded = True
                log.info("deadline lapsed", scene=scene, key=command.key, seq=handled.records[0].seq)
            elif handled.error is None:
                log.debug("deadline already lapsed", scene=scene, key=command.key)
            elif handled.error.code in ("storage_unavailable", "conflict", "scene_unavailable"):
                log.warning("lapse not recorded", scene=scene, key=command.key, error=handled.error.message)
            else:  # a move committed first, or another process lapsed it: nothing appended
                log.debug("lapse refused", scene=scene, key=command.key, code=handled.error.code)
        return recorded
