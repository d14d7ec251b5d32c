"""One websocket connection: authenticate, then read frames one at a time.

A bad frame never ends a connection: it gets an ``error`` naming the problem and the connection
goes on. Every command's actor comes from the token: a player acts for its character, the ST as
``st``, a spectator only reads.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec
import segno
import structlog
from structlog.contextvars import bound_contextvars
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from domain.commands import AnyCommand, OpenScene
from domain.evolve import fold
from domain.sheets import sheet_problems
from domain.state import Scene
from projections.audit import audit
from projections.audit_render import MEDIA_TYPES, render
from projections.replay import Step, links_of, replay
from projections.views import view
from server.history import export_text, fork
from server.hub import Hub
from server.room import Subscriber
from server.service import utc_now
from server.store import StoreError
from server.tokens import Grant
from server.wire import (
    COMMAND_TYPES,
    CONTROL_TYPES,
    MAX_REPLAY,
    AuditRequest,
    Control,
    CreateScene,
    Document,
    ErrorMessage,
    ExportRequest,
    Forked,
    ForkRequest,
    GetView,
    Hello,
    Invite,
    Invited,
    ListTokens,
    Ping,
    Pong,
    QrCode,
    QrRequest,
    ReplayMessage,
    ReplayRequest,
    Revoke,
    Revoked,
    SceneCreated,
    Subscribe,
    TokenList,
    Welcome,
    encode,
)

log = structlog.get_logger("justicar.connection")
_ids = itertools.count(1)
_json = msgspec.json.Decoder()


class Refusal(Exception):
    """A frame the connection answers with an ``error`` message."""

    def __init__(self, code: str, message: str, id: str | None = None, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.id, self.fields = code, message, id, fields or {}


@dataclass
class Bucket:
    """A token bucket: ``rate`` frames a second on average, ``burst`` at once."""

    rate: float
    burst: float
    level: float = -1.0
    last: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.burst

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class Connection:
    def __init__(self, conn: ServerConnection, hub: Hub) -> None:
        self.conn = conn
        self.hub = hub
        self.id = next(_ids)
        self.grant: Grant | None = None
        self.token = ""
        self.subscriber: Subscriber | None = None
        self.limits = hub.limits
        self.bucket = Bucket(hub.limits.rate, hub.limits.burst)

    async def serve(self) -> None:
        with bound_contextvars(conn=self.id):
            try:
                async for frame in self.conn:
                    try:
                        await self.frame(frame)
                    except Refusal as refusal:
                        await self.send(
                            ErrorMessage(
                                code=refusal.code, message=refusal.message, id=refusal.id, fields=refusal.fields
                            )
                        )
            except ConnectionClosed:
                pass
            finally:
                await self.close()

    async def close(self) -> None:
        if self.grant is not None:
            self.hub.connections[self.grant.token_id].discard(self.conn)
        if self.subscriber is not None:
            await self.hub.leave(self.subscriber)
            self.subscriber = None

    async def send(self, message: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.conn.send(encode(message), text=True)

    # -- reading a frame -----------------------------------------------------------------------

    async def frame(self, frame: str | bytes) -> None:
        limits = self.limits
        if isinstance(frame, bytes):
            raise Refusal("malformed", "Send JSON text frames, not binary.")
        if len(frame) > limits.max_frame:
            size = len(frame)
            raise Refusal("too_large", f"A message may be at most {limits.max_frame} bytes; this one is {size}.")
        try:
            body = _json.decode(frame)
        except msgspec.DecodeError as err:
            raise Refusal("malformed", f"Not JSON: {err}") from None
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            raise Refusal("malformed", 'A message is a JSON object with a "type".')
        if not self.bucket.take():
            command_id = body.get("id") if isinstance(body.get("id"), str) else None
            message = f"Too many messages: at most {limits.rate:g} a second ({limits.burst} at once); send it again."
            raise Refusal("rate_limited", message, command_id)
        kind = body["type"]
        if kind in CONTROL_TYPES:
            try:
                message = msgspec.convert(body, Control)
            except msgspec.ValidationError as err:
                raise Refusal("malformed", f"Bad {kind} message: {err}") from None
            await self.control(message)
        elif kind in COMMAND_TYPES:
            await self.command(body)
        else:
            known = ", ".join(sorted(CONTROL_TYPES | COMMAND_TYPES))
            raise Refusal("unknown_message", f"Unknown message type {kind!r}; known: {known}.")

    def _authenticated(self, command_id: str | None = None) -> Grant:
        if self.grant is None:
            raise Refusal(
                "not_authenticated", 'Say hello with your token first: {"type": "hello", "token": …}.', command_id
            )
        return self.grant

    def _storyteller(self, what: str) -> Grant:
        grant = self._authenticated()
        if grant.role != "st":
            raise Refusal("forbidden", f"Only the Storyteller can {what}.")
        return grant

    async def control(self, message: Control) -> None:
        match message:
            case Hello(token=token):
                await self.hello(token)
            case Ping(id=ping_id):
                await self.send(Pong(id=ping_id))
            case Subscribe(scene=scene, since=since, summaries=summaries):
                await self.subscribe(scene, since, summaries)
            case GetView():
                self._authenticated()
                if self.subscriber is None:
                    raise Refusal("not_subscribed", "Subscribe to the scene first.")
                await self.hub.send_view(self.subscriber)
            case CreateScene():
                await self.create_scene(message)
            case Invite(role=role, character=character):
                await self.invite(role, character)
            case Revoke(token_id=token_id):
                grant = self._storyteller("revoke a token")
                target = next((g for g in self.hub.backend.tokens.list(grant.scene) if g.token_id == token_id), None)
                if target is None:
                    raise Refusal("unknown_token", f"There is no token {token_id!r} in this scene.")
                revoked = self.hub.backend.tokens.revoke(token_id)
                self.hub.close_token(token_id)
                log.info("token revoked", scene=grant.scene, token_id=token_id)
                await self.send(Revoked(grant=revoked or target))
            case ListTokens():
                grant = self._storyteller("list tokens")
                await self.send(TokenList(tokens=self.hub.backend.tokens.list(grant.scene)))
            case ReplayRequest():
                await self.replay(message)
            case AuditRequest(format=fmt):
                grant = self._storyteller("download the audit")
                wires = list(self.hub.backend.store.read_wire(grant.scene))
                text = await anyio.to_thread.run_sync(lambda: render(audit(wires), fmt))  # pure: off the loop
                name = f"{grant.scene}-audit.{fmt}"
                await self.send(Document(name=name, media_type=MEDIA_TYPES[fmt], text=text))
            case ExportRequest():
                grant = self._storyteller("export the scene")
                text = export_text(self.hub.backend.store, grant.scene)
                await self.send(Document(name=f"{grant.scene}.jsonl", media_type="application/jsonl", text=text))
            case ForkRequest(at=at, scene=new_scene):
                await self.fork(at, new_scene)
            case QrRequest(text=text):
                self._authenticated()
                svg = segno.make(text, error="m").svg_inline(scale=4, dark="#000", light="#fff", border=4)
                await self.send(QrCode(text=text, svg=svg))

    async def replay(self, ask: ReplayRequest) -> None:
        grant = self._authenticated()
        state = self.hub.service.state(grant.scene)
        if grant.role == "spectator" or (grant.role == "player" and state.status != "closed"):
            raise Refusal(
                "forbidden",
                "The Storyteller replays at any time; players once the scene is closed; spectators do not.",
            )
        viewer = ask.viewer or grant.viewer
        if viewer != grant.viewer and grant.role != "st":
            raise Refusal("forbidden", "Only the Storyteller replays as someone else.")
        if viewer not in ("st", "*") and viewer not in state.characters:
            raise Refusal("unknown_character", f"There is no character {viewer!r} in this scene; as st, *, or one.")
        records = list(self.hub.backend.store.read(grant.scene))
        last = min(state.version, ask.end or state.version, ask.start + MAX_REPLAY - 1)

        def explained() -> tuple[list[Step], Scene | None]:  # pure folds: off the event loop
            before = fold(records[: ask.start - 1])
            steps = list(replay(records[ask.start - 1 : last], viewer, before, links_of(records)))
            return steps, fold(records[ask.start - 1 : last], before) if ask.view else None

        steps, after = await anyio.to_thread.run_sync(explained)
        await self.send(
            ReplayMessage(
                scene=grant.scene,
                viewer=viewer,
                start=ask.start,
                end=last,
                version=state.version,
                steps=steps,
                view=view(after, viewer) if after is not None else None,
            )
        )

    async def fork(self, at: int, new_scene: str | None) -> None:
        grant = self._storyteller("fork a what-if")
        scene = new_scene or f"{grant.scene}-at-{at}"
        try:
            version = fork(self.hub.backend.store, grant.scene, at, scene, utc_now)
        except StoreError as err:
            raise Refusal("bad_fork", f"Cannot fork: {err}.") from None
        token, issued = self.hub.backend.tokens.issue(scene, "st")
        log.info("forked", new_scene=scene, at=at)
        await self.send(Forked(scene=scene, version=version, token=token, grant=issued))

    async def hello(self, token: str) -> None:
        if self.grant is not None:
            raise Refusal("already_authenticated", "This connection has already said hello.")
        grant = self.hub.backend.tokens.check(token)
        if grant is None:
            raise Refusal("bad_token", "That token is unknown or has been revoked.")
        self.grant, self.token = grant, token
        self.hub.connections[grant.token_id].add(self.conn)
        structlog.contextvars.bind_contextvars(scene=grant.scene, role=grant.role)
        log.info("hello", character=grant.character)
        await self.send(Welcome(role=grant.role, scene=grant.scene, token_id=grant.token_id, character=grant.character))

    async def subscribe(self, scene: str | None, since: int, summaries: bool = False) -> None:
        grant = self._authenticated()
        if scene not in (None, grant.scene):
            raise Refusal("forbidden", f"Your token is for scene {grant.scene!r}, not {scene!r}.")
        if self.subscriber is not None:
            raise Refusal("already_subscribed", "This connection is already subscribed.")
        self.subscriber = Subscriber(self.conn, grant, summaries)
        await self.hub.join(self.subscriber, since)

    async def command(self, body: dict[str, Any]) -> None:
        command_id = body.get("id") if isinstance(body.get("id"), str) else None
        grant = self._authenticated(command_id)
        if self.hub.backend.tokens.check(self.token) is None:  # revoked since hello (say, from the CLI)
            raise Refusal("bad_token", "Your token has been revoked.", command_id)
        if grant.role == "spectator":
            raise Refusal("forbidden", "Spectators watch; they do not act.", command_id)
        actor = "st" if grant.role == "st" else grant.character
        if body.get("actor", actor) != actor:
            raise Refusal("forbidden", f"You are connected as {actor}; you cannot act as {body['actor']}.", command_id)
        if body.get("scene", grant.scene) != grant.scene:
            raise Refusal("forbidden", f"Your token is for scene {grant.scene!r}.", command_id)
        try:
            command: AnyCommand = msgspec.convert({**body, "actor": actor, "scene": grant.scene}, AnyCommand)
        except msgspec.ValidationError as err:
            problems = sheet_problems(body.get("character")) if body["type"] == "add_character" else {}
            if problems:
                listed = "; ".join(f"{path or 'the sheet'}: {what}" for path, what in problems.items())
                raise Refusal("bad_sheet", f"The sheet is not valid: {listed}.", command_id, problems) from None
            raise Refusal("malformed", f"Bad {body['type']} command: {err}", command_id) from None
        started = time.perf_counter()
        handled = await self.hub.submit(command)
        result = handled.result(grant.viewer)
        log.info(
            "command",
            scene=grant.scene,
            actor=actor,
            verb=command.verb,
            id=command.id,
            outcome="ok" if result.ok else result.error.code if result.error else "?",
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        await self.send(result)

    async def create_scene(self, message: CreateScene) -> None:
        self._storyteller("create a scene")
        scene = message.scene or f"s-{secrets.token_hex(4)}"
        opening = OpenScene(
            id=f"create-{scene}",
            scene=scene,
            actor="st",
            ruleset=message.ruleset,
            title=message.title,
            options=message.options,
        )
        handled = await self.hub.submit(opening)
        if handled.error is not None:
            raise Refusal(handled.error.code, handled.error.message)
        token, grant = self.hub.backend.tokens.issue(scene, "st")
        log.info("scene created", new_scene=scene)
        await self.send(SceneCreated(scene=scene, token=token, grant=grant))

    async def invite(self, role: str, character: str | None) -> None:
        grant = self._storyteller("invite")
        if role == "player":
            if character is None:
                raise Refusal("malformed", 'A player token is bound to a character: add "character".')
            state = self.hub.service.state(grant.scene)
            if character not in state.characters:
                raise Refusal("unknown_character", f"There is no character {character!r} in this scene.")
        elif character is not None:
            raise Refusal("malformed", "A spectator token is not bound to a character.")
        token, issued = self.hub.backend.tokens.issue(
            grant.scene, "player" if role == "player" else "spectator", character
        )
        log.info("invited", role=role, character=character, token_id=issued.token_id)
        await self.send(Invited(token=token, grant=issued))
