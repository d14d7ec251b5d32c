"""The open scenes of one server: a room per scene, started on first use, unloaded when idle,
and the live connections of each token (so a revoked token's connections can be closed)."""

from __future__ import annotations

from collections import defaultdict

import anyio
from anyio.abc import TaskGroup
from websockets.asyncio.server import ServerConnection

from domain.commands import AnyCommand
from server.backend import Backend
from server.room import Join, Leave, Room, SendView, Submit, Subscriber
from server.service import Handled, SceneService
from server.wire import Limits

REVOKED = 4003
"""The close code of a connection whose token was revoked."""


class Hub:
    def __init__(
        self, backend: Backend, tg: TaskGroup, *, idle_after: float = 300.0, limits: Limits | None = None
    ) -> None:
        self.backend = backend
        self.limits = limits or Limits()
        self.tg = tg
        self.idle_after = idle_after
        self.service = SceneService(backend.store, snapshots=backend.snapshots)
        self.rooms: dict[str, Room] = {}
        self.connections: dict[str, set[ServerConnection]] = defaultdict(set)

    def room(self, scene: str) -> Room:
        room = self.rooms.get(scene)
        if room is None:
            room = Room(scene, self.service, self.tg, self._unload, idle_after=self.idle_after)
            self.rooms[scene] = room
            self.tg.start_soon(room.run, name=f"room {scene}")
        return room

    def _unload(self, room: Room) -> bool:
        if self.rooms.get(room.scene) is room:
            del self.rooms[room.scene]
            self.service.forget(room.scene)
        return True

    async def _post(self, scene: str, job: Submit | Join | Leave | SendView) -> None:
        for _ in range(3):  # a room unloading as the job arrives: the next one takes it
            try:
                await self.room(scene).jobs.send(job)
                return
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                continue
        raise RuntimeError(f"scene {scene!r} could not take a job")

    async def submit(self, command: AnyCommand) -> Handled:
        send, receive = anyio.create_memory_object_stream[Handled](1)
        with receive:
            await self._post(command.scene, Submit(command, send))
            return await receive.receive()

    async def join(self, subscriber: Subscriber, since: int) -> int:
        send, receive = anyio.create_memory_object_stream[int](1)
        with receive:
            await self._post(subscriber.grant.scene, Join(subscriber, since, send))
            return await receive.receive()

    async def leave(self, subscriber: Subscriber) -> None:
        await self._post(subscriber.grant.scene, Leave(subscriber))

    async def send_view(self, subscriber: Subscriber) -> None:
        await self._post(subscriber.grant.scene, SendView(subscriber))

    def close_token(self, token_id: str) -> None:
        for conn in list(self.connections.pop(token_id, ())):
            self.tg.start_soon(conn.close, REVOKED, "token revoked")
