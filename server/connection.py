"""One websocket connection: authenticate, then read frames one at a time.

A bad frame never ends a connection by itself: it gets an ``error`` naming the problem (a command
gets a ``result`` carrying its id) and the connection goes on. But every frame, good or bad, counts
against the connection's rate limit, and a connection that keeps sending bad or excess frames is
closed (1008) with the reason. A connection that does not say ``hello`` in time is closed too.

Every command's actor comes from the token: a player acts for its character, the ST as ``st``, a
spectator only reads. The token is checked again on every frame: one revoked or expired (here, in
another process, or from the command line) stops the connection within a second, subscriptions
included (``Hub.watch_tokens``).

Anything heavy (QR codes, sheet reports, replays, audits, exports, forks, long catch-ups) runs on a
worker thread, through the writer, or in chunks that yield, so no connection stalls the others.
The worker is shared fairly: a connection's jobs wait their turn in its link's share of it
(``server.worker.Worker``), and long folds and catch-ups go in turns of bounded size.

A heavy request (history, challenges, replay, ledger, audit, export, fork: ``Connection._heavy``) is
answered beside the frame loop, one at a time per connection: pings, views and commands are
answered meanwhile, and a second heavy request before the first is answered is refused at once
(``busy``). Each costs work in proportion to what it asks for (``server.writer.HEAVY`` plus the
events or challenges asked and the events folded to reach them), taken from the connection's
budget and its link's (all the connections of one token together: ``server.writer.Budget``); one
asked while either is in debt is refused at once (``work_limited``, with when to ask again). A
catch-up is never refused: each of its chunks waits its link's debt out instead. Whatever a
connection still had waiting or in progress when it closed is dropped, never done for nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache, partial
from io import BytesIO
from typing import Any

import anyio
import msgspec
import segno
import structlog
from anyio.abc import TaskGroup
from structlog.contextvars import bound_contextvars
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from domain.commands import COMMANDS, AnyCommand, Declare, Dispute, OpenScene
from domain.errors import Rejected
from domain.evolve import fold
from domain.log import Wire
from domain.rules import ruleset_for
from domain.sheets import UNPLAIN
from domain.state import Scene
from projections.narrate import narrate_records, said_to
from projections.redact import Blind, blind, redact
from projections.replay import Step, links_of_rows, replay
from projections.ruled import ruled_elsewhere, tonight, was_in
from projections.views import blind_export, older_challenges
from server.catchup import release, state_at, stream
from server.documents import audit_document, export_document
from server.history import fork_wires
from server.hub import Hub, SceneUnavailable
from server.ledgers import ledger_frame, night_of
from server.room import Behind, Joined, JoinRefused, Subscriber, unavailable
from server.service import STORAGE_UNAVAILABLE, ErrorBody, Result, utc_now
from server.sheet_words import every_problem
from server.store import EventStore, SceneCorrupt, StorageUnavailable, StoreError
from server.tokens import Grant, IssuerEnded, Role
from server.wire import (
    COMMAND_TYPES,
    CONNECTIONS,
    CONTROL_TYPES,
    MAX_QR,
    MAX_REPLAY,
    SPECTATOR_CONNECTIONS,
    AuditRequest,
    ChallengesPage,
    ChallengesRequest,
    Control,
    CreateScene,
    ErrorMessage,
    ExportRequest,
    Forked,
    ForkRequest,
    GetView,
    Hello,
    HistoryPage,
    HistoryRequest,
    Invite,
    Invited,
    LedgerRequest,
    ListTokens,
    Ping,
    Pong,
    PoolPreview,
    PoolRequest,
    QrCode,
    QrRequest,
    ReplayMessage,
    ReplayRequest,
    Revoke,
    Revoked,
    SceneCreated,
    StakesPreview,
    StakesRequest,
    Subscribe,
    TokenList,
    TonightPage,
    TonightRequest,
    Welcome,
    befores_of,
    encode,
    stakes_preview,
    viewed,
)
from server.worker import CONNECTION_WORK, FOLDED, HEAVY, Budget, Worker
from server.writer import let_go

log = structlog.get_logger("justicar.connection")
security = structlog.get_logger("justicar.security")
_ids = itertools.count(1)
_json = msgspec.json.Decoder()

HELLO_WITHIN = 10.0
"""Seconds a new connection has to say ``hello``."""
POLICY = 1008
"""The close code of a connection closed for what it sent (or did not send)."""
STRIKES = (1.0, 30)
"""Bad or excess frames a connection may send: one a second on average, 30 at once; then it is
closed."""
CLOSE_GRACE = 0.5
"""Seconds a stopped connection's peer has to answer the close frame."""
QUIET = 10.0
"""Seconds between two security log lines of one kind for one connection (a flood logs once)."""


PART = 64 * 1024
"""Bytes per fragment of a long message (a ``document``)."""


def _fragments(frame: bytes) -> Iterator[memoryview]:
    """``frame`` in pieces of about ``PART`` bytes, each cut between two UTF-8 characters."""
    view, start = memoryview(frame), 0
    while start < len(frame):
        end = min(start + PART, len(frame))
        while end < len(frame) and frame[end] & 0xC0 == 0x80:  # inside a character: cut before it
            end -= 1
        yield view[start:end]
        start = end


async def _paced(parts: Iterator[memoryview]) -> AsyncIterator[memoryview]:
    """Each part as the socket takes it, the event loop free between parts."""
    for part in parts:
        yield part
        await anyio.sleep(0)


_CONTROLLED = re.compile(r"Expected `str` matching regex '\^\[\^\\\\x00.*' - at `\$\.(?P<field>[a-z_]+)")


def _plainly(err: msgspec.ValidationError) -> str | None:
    """A name, title, victory condition or reason with a control character (or, a name or title, a
    bidi control) in a player's words; None for any other problem."""
    said = str(err)
    if said.startswith("The character's") and UNPLAIN in said:  # domain.sheets.plain_sheet, in words
        return said.split(" - at `", 1)[0]
    found = _CONTROLLED.match(said)
    if found is None:
        return None
    field = found["field"].replace("_", " ")
    bidi = " or text-direction overrides" if "u202a" in str(err) else ""
    return f"The {field} cannot hold control characters (line breaks, tabs, escape codes){bidi}."


PAGE = 250
"""Events of a page of history put into words in one job on the worker."""


def _page(
    store: EventStore, scene: str, base: Scene, after: int, upto: int, viewer: str, sealed: Blind
) -> tuple[list[Wire], list[str], Scene]:
    """Events ``after+1..upto`` as ``viewer`` may see them, each in words (``base``: the state
    after event ``after``), and the state after them; ``sealed``: the sealed throws the viewer may
    not know, as of now (``projections.redact.blind``)."""
    records = list(store.read(scene, after=after, upto=upto))
    if not records:
        return [], [], base
    befores = befores_of(records, base)
    words = narrate_records(befores, records, viewer, blind=sealed)
    return [redact(r, viewer, sealed) for r in records], words, fold(records[-1:], befores[-1])


async def _refusing_corrupt(work: Callable[[], Awaitable[None]]) -> None:
    """``work``; a scene found damaged on the way (by a replay, a page of history, a catch-up) is
    refused as its load would be."""
    try:
        await work()
    except SceneCorrupt as err:
        failed = unavailable(err.scene, str(err))
        raise Refusal(failed.code, failed.message) from None


SHEET_FIELD = {"add_character": "character", "register_character": "character", "amend_character": "sheet"}
"""The commands that carry a sheet, and the field that holds it."""


class Refusal(Exception):
    """A frame the connection answers with an ``error`` message, or (a command) a ``result``."""

    def __init__(
        self,
        code: str,
        message: str,
        id: str | None = None,
        fields: dict[str, str] | None = None,
        *,
        command: bool = False,
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.id, self.fields, self.command = code, message, id, fields or {}, command


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


@lru_cache(maxsize=256)
def qr_svg(text: str) -> str:
    """An SVG QR code (with its namespace, so a page can parse it as SVG) that scales to its box: a
    viewBox and no fixed width or height, so a page draws the whole code at any size (a code cut at
    its edges cannot be scanned)."""
    out = BytesIO()
    segno.make(text, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, nl=False, scale=4, dark="#000", light="#fff", border=4,
        omitsize=True,
    )  # fmt: skip
    return out.getvalue().decode()


class Connection:
    def __init__(self, conn: ServerConnection, hub: Hub) -> None:
        self.conn = conn
        self.hub = hub
        self.id = next(_ids)
        self.grant: Grant | None = None
        self.stream = ""
        """The stream this connection works on: its token's, or the scene of its token's game night
        it subscribed to (requests and commands without a ``scene`` go there)."""
        self._tonight: str | None = None
        """The game night the token is for, once known (a stream's kind never changes)."""
        self._opened: set[str] = set()
        """Scenes of the token's night this connection may open (``_opens``)."""
        self.subscriber: Subscriber | None = None
        self.joining = False
        self.stopped = False
        self._stopping: tuple[int, str] | None = None
        self.limits = hub.limits
        self.bucket = Bucket(hub.limits.rate, hub.limits.burst)
        self.strikes = Bucket(*STRIKES)
        self._said: dict[str, float] = {}
        self.work: Worker = hub.worker
        """The worker as this connection asks for it: its share, once it has said hello."""
        self.budget = Budget(*CONNECTION_WORK)
        self.link_budget: Budget | None = None
        """The work its link (its token's connections together) may still ask for."""
        self._working: anyio.Event | None = None
        """Set when the heavy request in progress is answered (None: none in progress)."""
        self._tasks: TaskGroup | None = None

    @property
    def peer(self) -> str:
        address = self.conn.remote_address
        return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)

    async def serve(self) -> None:
        with bound_contextvars(conn=self.id):
            try:
                async with anyio.create_task_group() as tasks:  # its heavy request, its watch
                    self._tasks = tasks
                    tasks.start_soon(self._until_gone, tasks.cancel_scope)
                    await self._frames()
                    tasks.cancel_scope.cancel()
            finally:
                await self.close()
                if self._stopping is not None:  # before the handler returns (which would close with 1000)
                    await self._close(*self._stopping)

    async def _until_gone(self, scope: anyio.CancelScope) -> None:
        """Once the connection is closed, drop whatever it was waiting for or doing: a job waiting
        for the worker leaves its queue, a catch-up stops, frames it still had queued are not read."""
        await self.conn.wait_closed()
        scope.cancel()

    async def _frames(self) -> None:
        """Read and answer frames, one at a time, until the connection closes or is stopped."""
        try:
            while not self.stopped:
                waiting = anyio.move_on_after(HELLO_WITHIN) if self.grant is None else None  # after: no scope
                with waiting or contextlib.nullcontext():
                    frame = await self.conn.recv()
                if waiting is not None and waiting.cancelled_caught:
                    self._security("no hello", why=f"silent for {HELLO_WITHIN:g} s")
                    await self.conn.close(POLICY, f"say hello within {HELLO_WITHIN:g} seconds")
                    return
                if self.stopped:
                    return
                await self._answered(partial(self.frame, frame))
        except ConnectionClosed:
            pass

    async def _answered(self, work: Callable[[], Awaitable[None]]) -> None:
        """Do ``work`` (a frame, a heavy request), answering what keeps it from being done."""
        try:
            await work()
        except Refusal as refusal:
            await self.refuse(refusal)
        except StoreError as err:
            log.error("store error", error=str(err))
            await self.send(ErrorMessage(code=STORAGE_UNAVAILABLE[0], message=STORAGE_UNAVAILABLE[1]))

    async def refuse(self, refusal: Refusal) -> None:
        if refusal.command:
            await self.send(Result.refused(refusal.id, refusal.code, refusal.message, fields=refusal.fields))
        else:
            await self.send(ErrorMessage(code=refusal.code, message=refusal.message))
        if refusal.code in ("malformed", "too_large", "rate_limited", "unknown_message") and not self.strikes.take():
            self._security("closed for bad frames", code=refusal.code)
            self.stop(POLICY, "too many bad or excess messages")

    async def close(self) -> None:
        if self.grant is not None:
            self.hub.detach(self.grant.token_id, self)
        if self.subscriber is not None:
            subscriber, self.subscriber = self.subscriber, None
            with contextlib.suppress(Exception):  # a failed room has already let it go
                await self.hub.leave(subscriber)

    def stop(self, code: int, why: str) -> None:
        """End this connection (a revoked token, a flood): nothing more is taken or pushed, and it
        is closed with ``code`` and ``why``."""
        if self.stopped:
            return
        self.stopped, self._stopping = True, (code, why)
        self.hub.tg.start_soon(self._close, code, why)  # the frame loop may be waiting to read

    async def _close(self, code: int, why: str) -> None:
        """The close frame goes at once; a peer that does not answer it (a flood it never reads back)
        is cut off after ``CLOSE_GRACE``."""
        with anyio.move_on_after(CLOSE_GRACE):
            await self.conn.close(code, why)
        if self.conn.transport is not None and not self.conn.transport.is_closing():
            self.conn.transport.abort()

    async def send(self, message: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.conn.send(encode(message), text=True)

    async def send_parts(self, frame: bytes) -> None:
        """A long message (a ``document``) sent in fragments of about ``PART`` bytes, each when the
        socket has taken the last: a megabytes-long audit never holds the loop at once. The client
        receives one message."""
        with contextlib.suppress(ConnectionClosed):
            await self.conn.send(_paced(_fragments(frame)), text=True)

    async def _send_chunk(self, frames: list[bytes], wired: bytes) -> None:
        """A catch-up chunk's messages, in one write (``wired``: framed on the worker), then waits
        while the socket drains (the catch-up's back-pressure). A message being sent in fragments
        (a document) goes first, whole."""
        conn = self.conn
        while conn.send_in_progress is not None:
            await asyncio.shield(conn.send_in_progress)
        if conn.protocol.extensions:  # not this server's (no compression): framed its way
            for frame in frames:
                await conn.send(frame, text=True)
            return
        async with conn.send_context():
            conn.transport.write(wired)

    def _security(self, what: str, **details: Any) -> None:
        """A security log line with the token id and the peer (never the token), once per ``QUIET``."""
        now = time.monotonic()
        if now - self._said.get(what, -QUIET) < QUIET:
            return
        self._said[what] = now
        token_id = self.grant.token_id if self.grant else None
        security.warning(what, token_id=token_id, peer=self.peer, **details)

    # -- reading a frame -----------------------------------------------------------------------

    async def frame(self, frame: str | bytes) -> None:
        limits = self.limits
        allowed = self.bucket.take()  # every frame counts, whatever it holds
        if isinstance(frame, bytes):
            raise self._bad(allowed, "malformed", "Send JSON text frames, not binary.")
        size = len(frame) if len(frame) * 4 <= limits.max_frame else len(frame.encode())
        if size > limits.max_frame:
            message = f"A message may be at most {limits.max_frame} bytes; this one is {size}."
            raise self._bad(allowed, "too_large", message)
        try:
            body = _json.decode(frame)
        except msgspec.DecodeError as err:
            raise self._bad(allowed, "malformed", f"Not JSON: {err}") from None
        except RecursionError:
            raise self._bad(allowed, "malformed", "Not JSON this server reads: it is nested too deeply.") from None
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            raise self._bad(allowed, "malformed", 'A message is a JSON object with a "type".')
        kind = body["type"]
        is_command = kind in COMMAND_TYPES
        command_id = body.get("id") if is_command and isinstance(body.get("id"), str) else None
        if not allowed:
            raise self._bad(allowed, "", "", command_id, is_command)
        self._still_allowed(command_id, is_command)
        if kind in CONTROL_TYPES:
            try:
                message = msgspec.convert(body, Control)
            except msgspec.ValidationError as err:
                raise Refusal("malformed", _plainly(err) or f"Bad {kind} message: {err}") from None
            await _refusing_corrupt(partial(self.control, message))
        elif is_command:
            try:
                await self.command(body, command_id)
            except Refusal as refusal:
                refusal.command, refusal.id = True, command_id
                raise
        else:
            known = ", ".join(sorted(CONTROL_TYPES | COMMAND_TYPES))
            raise Refusal("unknown_message", f"Unknown message type {kind!r}; known: {known}.")

    def _bad(
        self, allowed: bool, code: str, message: str, command_id: str | None = None, is_command: bool = False
    ) -> Refusal:
        """A frame's refusal; past the rate limit, whatever is wrong with it, ``rate_limited``."""
        if allowed:
            return Refusal(code, message)
        self._security("rate limited")
        limits = self.limits
        excess = f"Too many messages: at most {limits.rate:g} a second ({limits.burst} at once); send it again."
        return Refusal("rate_limited", excess, command_id, command=is_command)

    def _still_allowed(self, command_id: str | None, is_command: bool) -> None:
        """A token revoked or expired since hello stops the connection, whatever it asks."""
        grant = self.grant
        if grant is None:
            return
        if grant.token_id in self.hub.ended or grant.expired(datetime.now(UTC)):
            self._security("ended token used")
            self.hub.close_token(grant.token_id, "token revoked or expired")
            raise Refusal("bad_token", "Your token has been revoked or has expired.", command_id, command=is_command)

    def _authenticated(self) -> Grant:
        if self.grant is None:
            raise Refusal("not_authenticated", 'Say hello with your token first: {"type": "hello", "token": …}.')
        return self.grant

    def _storyteller(self, what: str) -> Grant:
        grant = self._authenticated()
        if grant.role != "st":
            raise Refusal("forbidden", f"Only the Storyteller can {what}.")
        return grant

    async def _scene_state(self, scene: str) -> Scene:
        try:
            return await self.hub.state(scene)
        except SceneUnavailable as failed:
            raise Refusal(failed.error.code, failed.error.message) from None

    # -- heavy requests: one at a time, paid for in work ------------------------------------------

    def _heavy(self, work: Callable[[], Awaitable[None]], asked: int = 0) -> None:
        """Start ``work`` (a heavy request asking for ``asked`` events or challenges) beside the
        frame loop, or refuse it at once: one is in progress already (``busy``), or the
        connection's or its link's budget is in debt (``work_limited``)."""
        self._authenticated()
        if self._working is not None:
            raise Refusal(
                "busy",
                "One request at a time: the answer to this connection's last history, challenges, replay, "
                "ledger, audit, export or fork has not come yet. Ask again once it has.",
            )
        link = self._link()
        wait = max(self.budget.owed(), link.owed())
        if wait > 0:
            self._security("work limited")
            raise Refusal(
                "work_limited",
                f"This link has asked the server for a lot of reading in a short time (history, older "
                f"challenges, replays, catch-ups); ask again in {math.ceil(wait)} s.",
            )
        self._spend(HEAVY + asked)
        assert self._tasks is not None
        self._working = anyio.Event()
        self._tasks.start_soon(self._heavy_answered, work)

    async def _heavy_answered(self, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await self._answered(partial(_refusing_corrupt, work))
        finally:
            working, self._working = self._working, None
            if working is not None:
                working.set()

    def _link(self) -> Budget:
        if self.link_budget is None:
            self.link_budget = self.hub.worker.budget(self._authenticated().token_id)
        return self.link_budget

    def _spend(self, units: float) -> None:
        """Work done for this connection: taken from its budget and its link's."""
        self.budget.spend(units)
        self._link().spend(units)

    def _folding(self, events: int) -> None:
        self._spend(events / FOLDED)

    def _catching_up(self) -> Budget:
        return self.hub.worker.budget(self._authenticated().token_id, catching_up=True)

    async def _paced(self, events: int) -> None:
        """A catch-up's next ``events``, taken from its link's catch-ups: while another link waits
        for the worker, only once they are out of debt (a catch-up is never refused; a link's crowd
        catching up at once goes at its link's pace, not the others')."""
        catching_up = self._catching_up()
        while (wait := catching_up.owed()) > 0 and self.work.contended():
            await anyio.sleep(min(wait, 0.05))
        catching_up.spend(events)

    def _caught_up(self, folded: int) -> None:
        """The events a catch-up folded to reach its start (to put the rest into words)."""
        self._catching_up().spend(folded / FOLDED)

    async def _document(self, made: Callable[[EventStore, str], Awaitable[bytes]]) -> None:
        """An audit or an export of this connection's stream, paid for by its events."""
        self._spend((await self._scene_state(self.stream)).version)
        await self.send_parts(await made(self.hub.backend.store, self.stream))

    async def challenges(self, before: int | None, limit: int) -> None:
        grant = self._authenticated()
        state = await self._scene_state(self.stream)
        page, after = await self.work.run(older_challenges, state, grant.viewer, before, limit)
        await self.send(ChallengesPage(challenges=page, next=after))

    # -- a game night's token: the night, and the scenes of that night ---------------------------

    async def _night(self) -> Scene | None:
        """The game night this connection's token is for (None: its token is for a scene)."""
        grant = self._authenticated()
        if self._tonight is None:
            state = await self._scene_state(grant.scene)
            if state.night is None:
                return None
            self._tonight = grant.scene
        return await self._scene_state(grant.scene)

    async def _opens(self, scene: str, command: AnyCommand | None = None) -> None:
        """Refuse, in words (``forbidden``), a stream other than the token's own that the token does
        not open. A game night's token opens the scenes of that night (those whose ``game`` is the
        night): the Storyteller's every one, its what-ifs (forks) included; a spectator's every one
        but the what-ifs; a player's the one its character is in now and the closed ones it has been
        in tonight (to look back and dispute, as a closed scene's replay allows), never a what-if nor
        an open scene it has left. The Storyteller also opens a new scene of the night
        (``open_scene`` with ``game``). Every scene a token may not open gets one refusal, whatever
        the reason, that names no scene (``_closed_to``); only a scene the character has left and
        that is still open is said so (its player knows it). What stays open to a connection is
        kept (``_opened``): a scene's night and its being a what-if never change, nor does a closed
        scene reopen; a player's open scene is asked again each time (the character may leave)."""
        grant = self._authenticated()
        if scene in self._opened:
            return
        night = await self._night()
        if night is None:
            self._security("forged scene", claimed=scene[:64])
            raise Refusal("forbidden", f"Your token is for scene {grant.scene!r}, not {scene!r}.")
        if isinstance(command, OpenScene) and command.game == grant.scene and grant.role == "st":
            return  # a new scene of the night: the domain refuses one that is already open
        visit = night.night.where.get(grant.character) if night.night and grant.character else None
        if grant.role == "player" and visit is not None and visit.scene == scene:
            return  # in it now (the night sends characters into its own scenes only): asked again next time
        exists = await self.hub.reader.run(self.hub.backend.store.head, scene)
        state = await self._scene_state(scene) if exists[0] else None
        if state is None or state.game != grant.scene:
            self._security("scene outside the night", claimed=scene[:64])
            raise self._closed_to(night)
        if grant.role == "st":
            self._opened.add(scene)
            return
        if state.forked_from is not None:  # a what-if is the Storyteller's alone
            self._security("what-if asked", claimed=scene[:64])
            raise self._closed_to(night)
        if grant.role == "player" and grant.character is not None:
            there = state.characters.get(grant.character)
            if there is None or not there.entered:
                raise self._closed_to(night)
            if state.status != "closed":
                title = f"“{state.title}”" if state.title else "that scene"
                if isinstance(command, Dispute):  # a result of its own, from wherever it is tonight
                    if was_in(state, grant.character, command.event):
                        return  # asked again next time, as any open scene
                    why = f"You left {title}: from there you can dispute only the results of challenges you were in."
                    raise Refusal("forbidden", why)
                raise Refusal("forbidden", f"You left {title}; you can look back at it once it closes.")
        self._opened.add(scene)

    async def tonight(self) -> None:
        """A game night's player: its character's results in the night's other scenes (those it has
        entered), each with the step to dispute (``projections.ruled.tonight``)."""
        grant = self._authenticated()
        night = await self._night()
        if night is None or night.night is None:
            raise Refusal("not_a_game", "This link is for one scene, not a game night: its results are on this page.")
        if grant.role != "player" or grant.character is None:
            raise Refusal("forbidden", "Only a player of the night asks for the results of their own character.")
        here = night.night.where.get(grant.character)
        scenes = [await self._scene_state(s.id) for s in night.night.scenes]
        entered = [s for s in scenes if (c := s.characters.get(grant.character)) is not None and c.entered]
        now = here.scene if here else None
        found = await self.work.run(tonight, entered, grant.character, now)
        told = await self.work.run(ruled_elsewhere, entered, grant.character, now)
        await self.send(TonightPage(results=found, ruled=told))

    def _closed_to(self, night: Scene) -> Refusal:
        """The one refusal of a scene a night's token does not open, whatever the reason (not a scene
        of the night, a what-if, a scene its character has never been in): it names no scene."""
        grant = self._authenticated()
        tonight = f"“{night.title}”" if night.title else "tonight's game"
        if grant.role == "player":
            opens = "the scene you are in now and the closed scenes you have been in tonight"
        else:
            opens = "the scenes played tonight"
        return Refusal("forbidden", f"Your link for {tonight} does not open that scene: it opens {opens}.")

    async def pool(self, asked: PoolRequest) -> PoolPreview:
        """The pool a side would put in, as the ruleset computes it, or why it would be refused."""
        grant = self._authenticated()
        who = asked.character or grant.character
        if who is None or (grant.role != "st" and who != grant.character):
            raise Refusal("forbidden", "Ask for your own character's pool (the ST names one: `character`).")
        state = await self._scene_state(self.stream)
        if who not in state.characters:
            raise Refusal("unknown_character", f"There is no character {who!r} in this scene.")
        ch = state.challenges.get(asked.challenge) if asked.challenge else None
        try:
            maneuvers = [asked.maneuver] if isinstance(asked.maneuver, str) else list(asked.maneuver or [])
            found = ruleset_for(state.ruleset).pool(state, who, asked.pool, asked.category, ch, maneuvers)
        except Rejected as refused:
            return PoolPreview(error=ErrorBody(refused.code, refused.message, refused.rule))
        return PoolPreview(pool=found)

    async def stakes(self, asked: StakesRequest) -> StakesPreview:
        """What a would-be declaration would put at stake, as the ruleset would apply it, decided
        on a thrown-away draft of the scene (nothing is appended); or the refusal it would get."""
        grant = self._authenticated()
        if grant.role == "spectator":
            raise Refusal("forbidden", "Spectators watch; they do not declare.")
        actor = "st" if grant.role == "st" else grant.character
        body = dict(asked.declare)
        if body.pop("type", "declare") != "declare":
            raise Refusal("malformed", 'A stakes preview is of a declaration: its "type" is "declare" or left out.')
        if body.get("actor", actor) != actor:
            self._security("forged actor", claimed=str(body["actor"])[:64])
            raise Refusal("forbidden", f"You are connected as {actor}; you cannot declare as {body['actor']}.")
        scene = body.get("scene", self.stream)
        if not isinstance(scene, str):
            raise Refusal("malformed", "Bad declare: `scene` is the id of a scene, a string.")
        if scene != grant.scene and not await self._night():
            self._security("forged scene", claimed=scene[:64])
            raise Refusal("forbidden", f"Your token is for scene {grant.scene!r}.")
        if scene != grant.scene:
            await self._opens(scene)
        state = await self._scene_state(scene)
        cid = body.get("challenge") or next(
            name for n in itertools.count(1) if (name := f"preview-{n}") not in state.challenges
        )
        try:
            cmd = msgspec.convert({**body, "id": "preview", "actor": actor, "scene": scene, "challenge": cid}, Declare)
        except msgspec.ValidationError as err:
            return StakesPreview(error=ErrorBody("malformed", _plainly(err) or f"Bad declare: {err}"))
        preview = stakes_preview(state, cmd, utc_now())
        if preview.error is not None and grant.role == "player":  # said as the declaration's own refusal is
            said = said_to(state, grant.viewer, preview.error.message)
            preview = msgspec.structs.replace(preview, error=msgspec.structs.replace(preview.error, message=said))
        return preview

    async def control(self, message: Control) -> None:
        grant = self.grant
        if grant is not None and self.stream != grant.scene and not isinstance(message, Hello | Ping | Subscribe):
            await self._opens(self.stream)  # a scene of the night still open to it (a player may have left it)
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
            case Invite(role=role, character=character, expires=expires):
                await self.invite(role, character, expires)
            case Revoke(token_id=token_id):
                await self.revoke(token_id)
            case ListTokens():
                grant = self._storyteller("list tokens")
                await self.send(TokenList(tokens=await self.hub.keys(self.hub.backend.tokens.list, grant.scene)))
            case ReplayRequest(end=end, start=start):
                span = min(MAX_REPLAY, end - start + 1 if end else MAX_REPLAY)
                self._heavy(partial(self.replay, message), span)
            case AuditRequest(format=fmt):
                self._storyteller("download the audit")
                self._heavy(partial(self._document, partial(audit_document, fmt=fmt)))
            case ExportRequest():
                self._storyteller("export the scene")
                if still := blind_export(await self._scene_state(self.stream)):
                    raise Refusal("blind", still)
                self._heavy(partial(self._document, export_document))
            case LedgerRequest():
                self._heavy(self.ledger)
            case ForkRequest(at=at, scene=new_scene):
                self._heavy(partial(self.fork, at, new_scene), at // FOLDED)
            case ChallengesRequest(before=before, limit=limit):
                self._heavy(partial(self.challenges, before, limit), limit)
            case HistoryRequest(before=before, limit=limit):
                self._heavy(partial(self.history, before, limit), limit)
            case PoolRequest():
                await self.send(await self.pool(message))
            case StakesRequest():
                await self.send(await self.stakes(message))
            case TonightRequest():
                self._heavy(self.tonight)
            case QrRequest(text=text):
                self._storyteller("make QR codes")
                if len(text) > MAX_QR:
                    raise Refusal("too_long", f"A QR code holds at most {MAX_QR} characters here; this is {len(text)}.")
                try:
                    svg = await self.work.run(qr_svg, text)
                except segno.DataOverflowError:
                    raise Refusal("too_long", "That text is too long for a QR code.") from None
                await self.send(QrCode(text=text, svg=svg))

    async def replay(self, ask: ReplayRequest) -> None:
        grant, scene = self._authenticated(), self.stream
        state = await self._scene_state(scene)
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
        last = min(state.version, ask.end or state.version, ask.start + MAX_REPLAY - 1)
        store = self.hub.backend.store
        sealed = blind(state, grant.viewer)  # kept from the asker now, as whomever it replays

        snapshots = self.hub.backend.snapshots

        before = await state_at(self.work, store, snapshots, scene, ask.start - 1, self._folding)

        def explained() -> tuple[list[Step], Scene | None]:  # reads and pure folds: off the event loop
            records = list(store.read(scene, after=ask.start - 1, upto=last))
            steps = list(replay(records, viewer, before, links_of_rows(store.rows(scene)), sealed))
            return steps, fold(records, before) if ask.view else None

        steps, after = await self.work.run(explained)
        await self.send(
            ReplayMessage(
                scene=scene,
                viewer=viewer,
                start=ask.start,
                end=last,
                version=state.version,
                steps=steps,
                view=viewed(after, viewer, hidden=sealed) if after is not None else None,
            )
        )

    async def history(self, before: int, limit: int) -> None:
        """Events before ``before`` as this viewer saw them, in words: folded off the loop."""
        grant = self._authenticated()
        state = await self._scene_state(self.stream)
        end = min(before - 1, state.version)
        start = max(1, end - limit + 1)
        store, snapshots, scene = self.hub.backend.store, self.hub.backend.snapshots, self.stream
        sealed = blind(state, grant.viewer)
        if end < 1:
            await self.send(HistoryPage(start=start, end=end, events=[], summaries=[]))
            return
        base = await state_at(self.work, store, snapshots, scene, start - 1, self._folding)
        events: list[Wire] = []
        words: list[str] = []
        at = start - 1
        while at < end:  # in turns of ``PAGE`` events
            upto = min(end, at + PAGE)
            shown, said, base = await self.work.run(_page, store, scene, base, at, upto, grant.viewer, sealed)
            events += shown
            words += said
            at = upto
        await self.send(HistoryPage(start=start, end=end, events=events, summaries=words))

    async def ledger(self) -> None:
        """The night's ledger (of a fork of one of its scenes: with the what-if), as a document. A
        token for the night itself gets every character's; a token for one scene of the night (or a
        fork of one) the ledgers of the characters who have been in that scene, no other's."""
        grant = self._storyteller("see the night's ledger")
        state = await self._scene_state(self.stream)
        night = night_of(state)
        if night is None:
            raise Refusal("not_a_game", "This scene is not part of a game night: there is no night's ledger.")
        only = None
        if grant.scene != night:  # a scene's Storyteller: its stream is its own scene (``_opens``)
            only = frozenset(who for who, there in state.characters.items() if there.entered)
        origin = state.forked_from
        frame = await self.work.run(
            ledger_frame,
            self.hub.backend.store,
            self.stream,
            night,
            origin and origin.scene,
            origin.seq if origin else 0,
            only,
        )
        await self.send_parts(frame)

    async def fork(self, at: int, new_scene: str | None) -> None:
        self._storyteller("fork a what-if")
        scene = new_scene or f"{self.stream}-at-{at}"
        store = self.hub.backend.store
        try:
            wires, digests = await self.work.run(fork_wires, store, self.stream, at, scene, utc_now)
            version = wires[-1].seq
            try:
                await self.hub.writer.copy(scene, wires, digests)  # in steps: other commits go between
            finally:  # freed there a little at a time, not here in one go
                await self.work.run(let_go, wires, digests)
        except StorageUnavailable as err:
            raise Refusal("storage_unavailable", f"Cannot fork now: {err}.") from None
        except StoreError as err:
            raise Refusal("bad_fork", f"Cannot fork: {err}.") from None
        token, issued = await self._issue(scene, "st")
        log.info("forked", new_scene=scene, at=at)
        await self.send(Forked(scene=scene, version=version, token=token, grant=issued))

    async def hello(self, token: str) -> None:
        if self.grant is not None:
            raise Refusal("already_authenticated", "This connection has already said hello.")
        grant = await self.hub.check(token)
        if grant is None:
            self._security("bad token")
            raise Refusal("bad_token", "That token is unknown, revoked or expired.")
        cap = SPECTATOR_CONNECTIONS if grant.role == "spectator" else CONNECTIONS
        if len(self.hub.connections.get(grant.token_id, ())) >= cap:  # one token, a flood of connections
            self._security("too many connections", of_token=grant.token_id, cap=cap)
            why = f"This link is open in {cap} places already: close one (a tab, a phone) and try again."
            await self.send(ErrorMessage(code="too_many_connections", message=why))
            self.stop(POLICY, why)
            return
        self.grant, self.stream = grant, grant.scene
        self.work = self.hub.worker.share(grant.token_id, self.id)
        self.hub.attach(grant.token_id, self)
        structlog.contextvars.bind_contextvars(scene=grant.scene, role=grant.role)
        log.info("hello", character=grant.character, token_id=grant.token_id, peer=self.peer)
        await self.send(
            Welcome(
                role=grant.role,
                scene=grant.scene,
                token_id=grant.token_id,
                character=grant.character,
                expires_at=grant.expires_at,
                limits=self.limits,
            )
        )

    async def subscribe(self, scene: str | None, since: int | None, summaries: bool = False) -> None:
        grant = self._authenticated()
        if self.subscriber is not None or self.joining:
            raise Refusal("already_subscribed", "This connection is already subscribed.")
        target = scene or grant.scene
        if target != grant.scene:
            await self._opens(target)
        sub = Subscriber(self.conn, grant, summaries, "" if target == grant.scene else target)
        base: Scene | None = None
        store, snapshots = self.hub.backend.store, self.hub.backend.snapshots
        if self._working is not None:  # a heavy request in progress: the catch-up comes after it
            await self._working.wait()
        self.joining = True
        try:
            while not self.stopped:
                with anyio.CancelScope(shield=True):  # a room that adds it is always heard: it leaves when this closes
                    joined = await self.hub.join(sub, since, base)
                match joined:
                    case Joined():
                        self.subscriber, self.stream = sub, target
                        if base is not None:  # a whole state (a catch-up's words): freed off the loop
                            held, base = [base], None
                            await self.work.run(release, held)
                        return
                    case JoinRefused(code=code, message=message):
                        raise Refusal(code, message)
                    case Behind(version=version, blind=sealed):
                        since = since or 0
                        try:
                            if summaries and base is None:
                                base = await state_at(self.work, store, snapshots, target, since, self._caught_up)
                            base = await stream(
                                self.work,
                                self._send_chunk,
                                self._paced,
                                store,
                                target,
                                grant.viewer,
                                since,
                                version,
                                base,
                                sealed,
                            )
                        except SceneCorrupt as err:  # found on the way: refused, as a load would be
                            failed = unavailable(target, str(err))
                            raise Refusal(failed.code, failed.message) from None
                        since = version
        finally:
            self.joining = False

    async def command(self, body: dict[str, Any], command_id: str | None) -> None:
        grant = self._authenticated()
        if self.hub.closing:
            raise Refusal("shutting_down", "The server is shutting down; send it again when it is back.")
        if grant.role == "spectator":
            raise Refusal("forbidden", "Spectators watch; they do not act.")
        actor = "st" if grant.role == "st" else grant.character
        if body.get("actor", actor) != actor:
            self._security("forged actor", claimed=str(body["actor"])[:64])
            raise Refusal("forbidden", f"You are connected as {actor}; you cannot act as {body['actor']}.")
        scene = body.get("scene", self.stream)
        if not isinstance(scene, str):
            raise Refusal("malformed", f"Bad {body['type']} command: `scene` is the id of a scene, a string.")
        if scene != grant.scene and not await self._night():
            self._security("forged scene", claimed=scene[:64])
            raise Refusal("forbidden", f"Your token is for scene {grant.scene!r}.")
        try:
            command: AnyCommand = msgspec.convert({**body, "actor": actor, "scene": scene}, COMMANDS[body["type"]])
        except msgspec.ValidationError as err:
            if body["type"] in SHEET_FIELD:  # a sheet's problems, each by its path, for a form to place
                sheet = body.get(SHEET_FIELD[body["type"]])
                ruleset = (await self._scene_state(scene)).ruleset
                problems = await self.work.run(every_problem, sheet, ruleset)  # decode and catalog, at once
                if problems:
                    listed = " ".join(problems.values())
                    raise Refusal("bad_sheet", f"The sheet is not valid: {listed}", fields=problems) from None
            raise Refusal("malformed", _plainly(err) or f"Bad {body['type']} command: {err}") from None
        if scene != grant.scene:
            await self._opens(scene, command)
        started = time.perf_counter()
        with self.hub.answering():
            handled = await self.hub.submit(command)
            result = handled.result(grant.viewer)
            if result.error is not None and grant.role == "player":
                result = await self._said_to_player(result, scene, grant.viewer)
            log.info(
                "command",
                scene=scene,
                actor=actor,
                verb=command.verb,
                id=command.id,
                outcome="ok" if result.ok else result.error.code if result.error else "?",
                latency_ms=round((time.perf_counter() - started) * 1000, 2),
            )
            await self.send(result)

    async def _said_to_player(self, result: Result, scene: str, viewer: str) -> Result:
        """A refusal as the player reads it: their own character said as "you" (the words are the
        rules', once; only the person changes, ``projections.narrate.said_to``)."""
        assert result.error is not None
        try:
            state = await self._scene_state(scene)
        except Refusal:
            return result  # the scene is not at hand: its words as they are
        said = said_to(state, viewer, result.error.message)
        return msgspec.structs.replace(result, error=msgspec.structs.replace(result.error, message=said))

    async def create_scene(self, message: CreateScene) -> None:
        self._storyteller("create a scene")
        if self.hub.closing:
            raise Refusal("shutting_down", "The server is shutting down; try again when it is back.")
        scene = message.scene or f"s-{secrets.token_hex(4)}"
        night = await self._night()  # a night's Storyteller opens a scene of that night
        opening = OpenScene(
            id="~open",
            scene=scene,
            actor="st",
            ruleset=message.ruleset,
            title=message.title,
            options=message.options,
            game=night.id if night is not None else None,
        )
        handled = await self.hub.submit(opening)
        if handled.error is not None:
            raise Refusal(handled.error.code, handled.error.message)
        token, grant = await self._issue(scene, "st")
        log.info("scene created", new_scene=scene)
        await self.send(SceneCreated(scene=scene, token=token, grant=grant))

    async def invite(self, role: str, character: str | None, expires: float | None) -> None:
        grant = self._storyteller("invite")
        if role == "player":
            if character is None:
                raise Refusal("malformed", 'A player token is bound to a character: add "character".')
            state = await self._scene_state(grant.scene)
            if character not in state.characters and state.night is not None:
                raise Refusal(
                    "unknown_character", f"No character {character!r} is registered tonight; register them first."
                )
            if character not in state.characters:
                raise Refusal("unknown_character", f"There is no character {character!r} in this scene.")
        elif character is not None:
            raise Refusal("malformed", "A spectator token is not bound to a character.")
        token, issued = await self._issue(
            grant.scene,
            "player" if role == "player" else "spectator",
            character,
            timedelta(seconds=expires) if expires else None,
        )
        log.info("invited", role=role, character=character, token_id=issued.token_id)
        await self.send(Invited(token=token, grant=issued))

    async def _issue(
        self, scene: str, role: Role, character: str | None = None, expires: timedelta | None = None
    ) -> tuple[str, Grant]:
        """A token issued by this connection's: refused ``bad_token`` (and this connection closed)
        when that token, or one above it, has been revoked or has expired, even a moment ago in
        another process; its expiry is at the latest this token's."""
        grant = self._authenticated()
        issue = partial(self.hub.backend.tokens.issue, scene, role, character, expires=expires, by=grant.token_id)
        try:
            return await self.hub.keys(issue)
        except IssuerEnded:
            self._security("ended token used")
            self.hub.close_token(grant.token_id, "token revoked or expired")
            why = "Your token has been revoked or has expired: it can give no more links."
            raise Refusal("bad_token", why) from None

    async def revoke(self, token_id: str) -> None:
        grant = self._storyteller("revoke a token")
        if token_id == grant.token_id:
            raise Refusal(
                "own_token", "This console's own token cannot be revoked from it; use another Storyteller link."
            )
        listed = await self.hub.keys(self.hub.backend.tokens.list, grant.scene)
        target = next((g for g in listed if g.token_id == token_id), None)
        if target is None:
            raise Refusal("unknown_token", f"There is no token {token_id!r} in this scene.")
        revocation = await self.hub.keys(self.hub.backend.tokens.revoke, token_id)
        cascaded = revocation.cascaded if revocation else []
        for ended in [token_id, *(g.token_id for g in cascaded)]:
            self.hub.close_token(ended)
        log.info("token revoked", scene=grant.scene, token_id=token_id, cascaded=len(cascaded))
        await self.send(Revoked(grant=revocation.grant if revocation else target, cascaded=cascaded))
