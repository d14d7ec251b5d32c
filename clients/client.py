"""An async client for a Justicar server, that survives dropped connections.

    async with Client("ws://127.0.0.1:8765", token) as table:
        await table.subscribe()                      # catch up, then live
        result = await table.send({"type": "throw", "challenge": "ch1", "sign": "rock"})
        async for message in table.messages():       # events, views, presence, errors
            ...

When the connection drops the client reconnects (with backoff), says hello again, re-subscribes
from the last event it saw (so the app sees no gap and no duplicate) and re-sends every command
still waiting for its result, with the same id: the server answers a repeat with its first result.
``view`` is the viewer's projection, kept whole by merging the server's patches. When the
connection drops, ``messages()`` says so with ``{"type": "connection_lost", "seq": N}`` (the
client's own, never the server's, not in ``received``; N: the last event it had); the ``subscribed``
that ends the catch-up after the reconnect says it is back.

Once welcomed, the client names its scene in the socket's URL (``?scene=ID``) whenever it
connects again, so a proxy that hashes on it sends it back to the process its table is on
(docs/deploy.md); a URL that names it already is routed from the first connection.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import anyio
import msgspec
from anyio.abc import TaskGroup
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

_json = msgspec.json.Decoder()
_encode = msgspec.json.Encoder().encode


class ClientError(Exception):
    """The server could not be reached, or would not let this client in."""


class Refused(ClientError):
    """The server refused the token (unknown or revoked)."""


REVOKED = 4003
MAX_MESSAGE = 256 * 1024 * 1024
"""The largest message taken from the server (an audit of a long scene runs to megabytes)."""
AGAIN = frozenset({"rate_limited", "conflict", "shutting_down"})
"""Refusals a command is sent again for, with its id, a moment later."""


def page_link(site: str, page: str, token: str, scene: str, **more: str) -> str:
    """A page's link as the command line prints it, ``SITE/PAGE#token=…&scene=ID`` (then ``more``):
    the key, and the scene (or night) it follows, both in the fragment, which no server sees; the
    page's very first socket names that scene to a proxy (``routed``), as ``justicar join`` does."""
    return f"{site}/{page}#" + urlencode({"token": token, "scene": scene, **more})


def routed(url: str, scene: str) -> str:
    """``url`` naming ``scene`` in its query (``?scene=ID``, in place of any other): what a proxy
    hashes on to keep a table's sockets on one process. The server ignores it (the token decides
    the scene)."""
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "scene"]
    return urlunsplit(parts._replace(path=parts.path or "/", query=urlencode([*query, ("scene", scene)])))


class Client:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        reconnect: bool = True,
        backoff: float = 0.05,
        max_backoff: float = 2.0,
        keep: bool = False,
        summaries: bool = False,
    ) -> None:
        self.url = url
        self.summaries = summaries
        self.token = token
        self.reconnect = reconnect
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.welcome: dict[str, Any] = {}
        self.view: dict[str, Any] = {}
        self.last_seq = 0
        self.connects = 0
        self.closed_by_server: tuple[int | None, str] | None = None
        self._conn: ClientConnection | None = None
        self._subscribed = False
        self._caught_up = anyio.Event()
        self._not_subscribed: dict[str, Any] | None = None
        """The server's error in answer to the subscription in flight, if it refused it."""
        self._connected = anyio.Event()
        self._pending: dict[str, tuple[dict[str, Any], anyio.Event, list[dict[str, Any]]]] = {}
        self._replies: dict[str, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self._send_inbox, self._inbox = anyio.create_memory_object_stream[dict[str, Any]](10_000)
        self._tg: TaskGroup | None = None
        self._closing = False
        self.received: list[dict[str, Any]] | None = [] if keep else None
        """With ``keep``, every message received, in order (for tests and audits)."""

    # -- life ------------------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self._open()  # before the task group: a refusal leaves nothing to clean up
        self._tg = await anyio.create_task_group().__aenter__()
        self._tg.start_soon(self._run)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(exc_type, exc, tb)

    async def close(self) -> None:
        self._closing = True
        if self._conn is not None:
            await self._conn.close()
        self._send_inbox.close()

    async def _open(self) -> None:
        """Connect and say hello; raise ``ClientError`` if the server refuses the token."""
        scene = self.welcome.get("scene")
        url = routed(self.url, scene) if scene else self.url
        try:
            conn = await connect(url, compression=None, max_size=MAX_MESSAGE)
        except (OSError, InvalidHandshake, InvalidURI) as err:
            raise ClientError(f"cannot reach {self.url}: {err}") from err
        await conn.send(_encode({"type": "hello", "token": self.token}), text=True)
        reply = _json.decode(await conn.recv())
        if reply.get("type") != "welcome":
            await conn.close()
            raise Refused(reply.get("message", f"the server said {reply!r}"))
        self.welcome = reply
        self._conn = conn
        self.connects += 1
        self._connected.set()
        if self._subscribed:
            await conn.send(_encode(self._subscription(self.last_seq)), text=True)
        for body, _, _ in self._pending.values():
            await conn.send(_encode(body), text=True)

    async def _run(self) -> None:
        delay = self.backoff
        while True:
            assert self._conn is not None
            try:
                async for frame in self._conn:
                    delay = self.backoff
                    self._dispatch(_json.decode(frame))
            except ConnectionClosed:
                pass
            self.closed_by_server = (self._conn.close_code, self._conn.close_reason or "")
            self._connected = anyio.Event()
            if self._closing or not self.reconnect or self._conn.close_code == REVOKED:
                return self._give_up("the connection is closed")
            with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
                self._send_inbox.send_nowait({"type": "connection_lost", "seq": self.last_seq})  # the client's own
            while True:  # reconnect with backoff
                await anyio.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
                try:
                    await self._open()
                    break
                except Refused as refused:
                    return self._give_up(str(refused))
                except (ClientError, ConnectionClosed, OSError):
                    continue

    def _give_up(self, why: str) -> None:
        """No more connections: whatever still waits for an answer gets a ``disconnected`` error."""
        error = {"type": "error", "code": "disconnected", "message": why}
        for body, done, slot in self._pending.values():
            slot.append({"type": "result", "id": body["id"], "ok": False, "error": error})
            done.set()
        for done, slot in self._replies.values():
            slot.append(error)
            done.set()
        self._replies.clear()
        self._caught_up.set()
        self._send_inbox.close()

    def drop(self) -> None:
        """Kill the connection without a closing handshake, as a lost network would."""
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.abort()

    # -- talking -----------------------------------------------------------------------------------

    async def subscribe(self, since: int | None = None) -> None:
        """Catch up from ``since`` (default: the last event seen) and then follow live; raise
        ``ClientError`` with the server's words if it will not send the scene (one that cannot be
        served, a connection already subscribed)."""
        self._subscribed = True
        self._caught_up = anyio.Event()
        self._not_subscribed = None
        await self._raw(self._subscription(self.last_seq if since is None else since))
        await self._caught_up.wait()
        if (refusal := self._not_subscribed) is not None:
            self._subscribed = False
            raise ClientError(f"the server would not send the scene: {refusal.get('message', refusal)}")

    def _subscription(self, since: int) -> dict[str, Any]:
        return {"type": "subscribe", "since": since, "summaries": self.summaries}

    async def send(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send a command (an ``id`` is made up if missing) and return its result, re-sending it
        after a reconnect until it has one."""
        body = {"id": secrets.token_hex(8), **body}
        done = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._pending[body["id"]] = (body, done, slot)
        try:
            with contextlib.suppress(ConnectionClosed):
                await self._raw(body)
            await done.wait()
        finally:
            self._pending.pop(body["id"], None)
        return slot[0]

    async def request(self, body: dict[str, Any], reply: str) -> dict[str, Any]:
        """A control message and its reply of type ``reply`` (or the ``error`` it got)."""
        done = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._replies[reply] = (done, slot)
        await self._raw(body)
        await done.wait()
        return slot[0]

    async def _resend_later(self, body: dict[str, Any]) -> None:
        limits = self.welcome.get("limits") or {}
        await anyio.sleep(1 / float(limits.get("rate", 20)))
        with contextlib.suppress(ConnectionClosed):
            await self._raw(body)

    async def _raw(self, body: dict[str, Any]) -> None:
        await self._connected.wait()
        assert self._conn is not None
        await self._conn.send(_encode(body), text=True)

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """Everything the server pushes, in order: commits (each event once), views, presence, errors."""
        async for message in self._inbox:
            yield message

    # -- receiving ---------------------------------------------------------------------------------

    def _dispatch(self, message: dict[str, Any]) -> None:
        if self.received is not None:
            self.received.append(message)
        kind = message.get("type")
        if kind == "result":
            pending = self._pending.get(message.get("id") or "")
            if pending is None or pending[1].is_set():
                return
            code = (message.get("error") or {}).get("code")
            if code in AGAIN and self._tg is not None:
                self._tg.start_soon(self._resend_later, pending[0])  # the same id, a little later
                return
            pending[2].append(message)
            pending[1].set()
            return
        if kind == "commit":
            fresh = [event for event in message["events"] if event["seq"] > self.last_seq]
            if not fresh:
                return  # already seen before a reconnect
            message = {**message, "events": fresh}
            self.last_seq = fresh[-1]["seq"]
            if message.get("view"):
                self._merge({"full": False, "view": message["view"]})
        elif kind == "view":
            self._merge(message)
        elif kind == "subscribed":
            self.last_seq = max(self.last_seq, message["version"])
            self._caught_up.set()
        elif kind == "error" and self._subscribed and not self._caught_up.is_set() and not self._replies:
            self._not_subscribed = message  # the answer to the subscription (it has no id)
            self._caught_up.set()
        if kind in self._replies or (kind == "error" and self._replies):
            key = kind if kind in self._replies else next(iter(self._replies))
            done, slot = self._replies.pop(key)
            slot.append(message)
            done.set()
        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
            self._send_inbox.send_nowait(message)

    def _merge(self, message: dict[str, Any]) -> None:
        patch = message["view"]
        if message.get("full") or not self.view:
            self.view = patch
            return
        for key, value in patch.items():
            if key in ("characters", "challenges"):
                self.view.setdefault(key, {}).update(value)
            else:
                self.view[key] = value
