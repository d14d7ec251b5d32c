"""The websocket server: ``justicar serve``.

The listening socket is bound first (a port already taken is an ``OSError`` before anything
starts); then one task group holds the websocket listener, the token watcher and a room per open
scene. On Ctrl-C or SIGTERM the server stops taking commands at once (``shutting_down``), waits
briefly for the commands in flight to be committed and answered, says ``goodbye`` to every client
and closes their connections (1001, going away), all within about two seconds. An acknowledged
command was committed before its result was sent, so nothing acknowledged is lost; a command in
flight is either committed (and answered, or answered again from the log when its sender re-sends
its id) or never happened.
"""

from __future__ import annotations

import gc
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import structlog
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve

from server.backend import Backend
from server.connection import Connection
from server.hub import Hub
from server.web import process_request
from server.wire import HARD_FRAME, Goodbye, Limits, encode

log = structlog.get_logger("justicar.server")

SWITCH = 0.001
"""Seconds a worker thread (a QR code, an audit, a fork) may hold the interpreter before the event
loop gets its turn (Python's default is 0.005): work sent off the loop must not stall it."""
COLLECT = (10_000, 10, 100)
"""Thresholds of the cyclic garbage collector (Python's are 700, 10, 10). A full collection walks
every live object (a long scene's state is hundreds of thousands) with every thread stopped, 20 ms
and more for a 20,000-event scene: the server allocates few cycles, so full collections are made
ten times rarer (benchmarks/stall.py logs them)."""
SETTLE = 1.5
"""Seconds a shutdown waits for commands in flight to be answered."""
CLOSE = 0.5
"""Seconds a shutdown waits for connections to close."""


@dataclass
class Running:
    """A server that is up: where it listens, and its scenes."""

    host: str
    port: int
    hub: Hub
    server: Server

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def web(self) -> str:
        """Where the pages are."""
        return f"http://{self.host}:{self.port}"


def listen(host: str, port: int) -> socket.socket:
    """The listening socket; ``OSError`` if the address is taken or not ours. It is made with its
    protocol named, so asyncio turns Nagle's algorithm off on every connection it accepts (a small
    frame is sent at once, not held for the peer's next acknowledgement)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


@asynccontextmanager
async def running(
    backend: Backend,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    idle_after: float = 300.0,
    limits: Limits | None = None,
) -> AsyncIterator[Running]:
    """Serve until the block ends, then shut down cleanly."""
    sock = listen(host, port)
    sys.setswitchinterval(SWITCH)
    gc.set_threshold(*COLLECT)
    async with anyio.create_task_group() as tg:
        hub = Hub(backend, tg, idle_after=idle_after, limits=limits)
        tg.start_soon(hub.watch_tokens, name="token watcher")
        tg.start_soon(hub.follow_others, name="feed")
        tg.start_soon(hub.run_alarm, name="alarm")

        async def handler(conn: ServerConnection) -> None:
            await Connection(conn, hub).serve()

        async with serve(
            handler,
            sock=sock,
            max_size=HARD_FRAME,
            compression=None,
            ping_interval=20,
            ping_timeout=20,
            close_timeout=CLOSE,  # a peer that never answers the closing handshake is cut, not awaited
            process_request=process_request,
        ) as server:
            bound = sock.getsockname()[1]
            log.info("listening", host=host, port=bound)
            try:
                yield Running(host, bound, hub, server)
            finally:
                with anyio.CancelScope(shield=True):
                    await _shutdown(server, hub)
        tg.cancel_scope.cancel()


async def _shutdown(server: Server, hub: Hub) -> None:
    await hub.settle(SETTLE)
    broadcast(server.connections, encode(Goodbye(reason="the server is shutting down")), text=True)
    server.close(close_connections=True)
    with anyio.move_on_after(CLOSE):
        await server.wait_closed()
    log.info("stopped")


async def serve_forever(
    backend: Backend,
    host: str,
    port: int,
    *,
    limits: Limits | None = None,
    on_ready: Callable[[Running], None] | None = None,
) -> None:
    """Serve until Ctrl-C or SIGTERM."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with running(backend, host, port, limits=limits) as live:
            if on_ready:
                on_ready(live)
            async for signum in signals:
                log.info("signal", signal=signal.Signals(signum).name)
                break
