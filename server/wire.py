"""The messages of a live connection (docs/protocol.md, section 8), and the pure functions that
say what each viewer is sent after a commit and what a would-be declaration puts at stake.

Client to server: ``hello``, ``subscribe``, ``ping``, ``get_view``, ``replay``, ``qr``, the ST's
``create_scene``, ``invite``, ``revoke``, ``tokens``, ``audit``, ``export`` and ``fork``, the
previews ``pool`` and ``stakes`` (read-only: nothing is appended), and commands (section 1).
Server to client: ``welcome``, ``result`` (``server.service.Result``), ``commit`` (the event
pushes), ``view``, ``subscribed``, ``presence``, ``error``, ``pong``, ``scene_created``,
``invited``, ``revoked``, ``tokens``, ``goodbye``, ``replay``, ``document``, ``forked``, ``qr``,
``pool``, ``stakes``.
"""

from __future__ import annotations

import typing
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from domain.commands import AnyCommand, Declare, Maneuver, OptionsGiven, RulesetName, Title
from domain.context import Context
from domain.errors import Rejected
from domain.events import Leader
from domain.evolve import evolve
from domain.log import Recorded, Wire
from domain.pools import Pool, PoolSpec
from domain.sheets import Category, Ident
from domain.stakes import declared
from domain.state import Consequence, Scene
from projections.account import preview, with_why
from projections.deadlines import DeadlineView
from projections.narrate import narrate_records
from projections.night_view import night_view
from projections.redact import SEES_ALL, Blind, blind, hidden_command, hidden_fields, redact
from projections.replay import Step, states
from projections.ruled import Result as TonightResult
from projections.ruled import RuledThere
from projections.views import ChallengeView, CharacterView, StateView, touched, turned, view
from server.service import ErrorBody, Result
from server.tokens import Grant

MAX_FRAME = 64 * 1024
"""The largest message the server reads; a larger one gets ``error`` ``too_large``."""
HARD_FRAME = 1024 * 1024
"""Past this the websocket layer closes the connection (1009, message too big)."""
RATE = 50.0
BURST = 100
"""By default each connection may send ``RATE`` messages a second on average, ``BURST`` at once."""
CONNECTIONS = 8
"""Live connections one player's or Storyteller's token may hold at once (in one server process):
a page holds two (a night's and its scene's), a few tabs and phones more; the next is closed (1008)
with the reason, so one token cannot flood the server with connections each under its rate."""
SPECTATOR_CONNECTIONS = 64
"""Live connections one spectators' link may hold at once: it is shared with the room."""


# -- client to server ------------------------------------------------------------------------


class _In(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    pass


class Hello(_In, frozen=True, kw_only=True, tag="hello"):
    token: Annotated[str, Meta(min_length=1, max_length=200)]


class Subscribe(_In, frozen=True, kw_only=True, tag="subscribe"):
    scene: Ident | None = None
    since: Annotated[int, Meta(ge=0)] | None = None
    """The last event the subscriber has; none: only the view and the latest events (older ones
    with ``history``)."""
    summaries: bool = False
    """Send each event's explanation in words with it (``commit.summaries``)."""


class ChallengesRequest(_In, frozen=True, kw_only=True, tag="challenges"):
    """A page of the decided challenges a whole view leaves out, newest first."""

    before: Annotated[int, Meta(ge=1)] | None = None
    """Those declared before this event (the ``next`` of the page before); none: the newest."""
    limit: Annotated[int, Meta(ge=1, le=200)] = 50


class HistoryRequest(_In, frozen=True, kw_only=True, tag="history"):
    """A page of the events before ``before``, as the asker may see them, in words too."""

    before: Annotated[int, Meta(ge=1)]
    limit: Annotated[int, Meta(ge=1, le=500)] = 200


class Ping(_In, frozen=True, kw_only=True, tag="ping"):
    id: str | None = None


class GetView(_In, frozen=True, kw_only=True, tag="get_view"):
    pass


class CreateScene(_In, frozen=True, kw_only=True, tag="create_scene"):
    ruleset: RulesetName
    title: Title = ""
    options: OptionsGiven = {}
    scene: Ident | None = None


class Invite(_In, frozen=True, kw_only=True, tag="invite"):
    role: Literal["player", "spectator"]
    character: Ident | None = None
    expires: Annotated[float, Meta(gt=0, le=366 * 24 * 3600)] | None = None
    """Seconds the token lasts (default: until revoked)."""


class Revoke(_In, frozen=True, kw_only=True, tag="revoke"):
    token_id: str


class ListTokens(_In, frozen=True, kw_only=True, tag="tokens"):
    pass


class ReplayRequest(_In, frozen=True, kw_only=True, tag="replay"):
    """Steps ``from``..``to`` of the scene's replay, as the asker may see them (the ST: as any
    viewer, ``as``); with ``view``, the whole view after step ``to`` too."""

    start: Annotated[int, Meta(ge=1)] = msgspec.field(name="from", default=1)
    end: Annotated[int, Meta(ge=1)] | None = msgspec.field(name="to", default=None)
    viewer: Annotated[str, Meta(min_length=1, max_length=64)] | None = msgspec.field(name="as", default=None)
    view: bool = False


class AuditRequest(_In, frozen=True, kw_only=True, tag="audit"):
    """The ST's post-game audit of the scene, as a document."""

    format: Literal["html", "md", "json"] = "html"


class ExportRequest(_In, frozen=True, kw_only=True, tag="export"):
    """The ST's export of the scene's log (JSON lines), as a document."""


class LedgerRequest(_In, frozen=True, kw_only=True, tag="ledger"):
    """The ST's ledger of the game night the stream belongs to (a fork of one of its scenes: with
    the what-if), as a JSON document (``server.ledgers``)."""


class ForkRequest(_In, frozen=True, kw_only=True, tag="fork"):
    """A what-if: a new scene copying events 1..``at``; the ST gets a token for it."""

    at: Annotated[int, Meta(ge=1)]
    scene: Ident | None = None


MAX_QR = 500
"""Characters a QR code request may hold (an invitation link is about 80)."""


class QrRequest(_In, frozen=True, kw_only=True, tag="qr"):
    """The ST's QR code (SVG) for a text, such as an invitation link."""

    text: Annotated[str, Meta(min_length=1, max_length=4000)]


class PoolRequest(_In, frozen=True, kw_only=True, tag="pool"):
    """The test pool a side would put in, computed from its sheet and recorded nowhere (a page
    shows it before sending): an attack in ``category``, or a defence in ``challenge``. A player asks
    for its own character; the ST names one (``character``)."""

    pool: PoolSpec
    category: Category = "physical"
    challenge: Ident | None = None
    character: Ident | None = None
    maneuver: Maneuver | Annotated[list[Maneuver], Meta(min_length=1, max_length=2)] | None = None
    """The maneuvers the attack would use: their pool modifiers count (bns)."""


class StakesRequest(_In, frozen=True, kw_only=True, tag="stakes"):
    """What a would-be declaration would put at stake, decided on a thrown-away draft of the scene
    and recorded nowhere (a page shows it before sending): ``declare`` holds the fields a
    ``declare`` command would (``challenge`` may be left out; ``type``, ``id``, ``actor`` and
    ``scene`` as a command's, or left out)."""

    declare: dict[str, Any]


class TonightRequest(_In, frozen=True, kw_only=True, tag="tonight"):
    """A game night's player: the results of its character's challenges in the night's other scenes,
    each with the step a dispute of it names (``projections.ruled.tonight``)."""


Control = (
    Hello
    | Subscribe
    | Ping
    | GetView
    | CreateScene
    | Invite
    | Revoke
    | ListTokens
    | ReplayRequest
    | AuditRequest
    | ExportRequest
    | LedgerRequest
    | ForkRequest
    | QrRequest
    | ChallengesRequest
    | HistoryRequest
    | PoolRequest
    | StakesRequest
    | TonightRequest
)
CONTROL_TYPES = frozenset(cls.__struct_config__.tag for cls in typing.get_args(Control))
COMMAND_TYPES = frozenset(cls.__struct_config__.tag for cls in typing.get_args(AnyCommand))


# -- server to client ------------------------------------------------------------------------


class _Out(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    pass


class Limits(msgspec.Struct, frozen=True):
    """What one connection may send (told to each client in ``welcome``)."""

    max_frame: int = MAX_FRAME
    rate: float = RATE
    burst: int = BURST


class Welcome(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="welcome"):
    """Every field always present (defaults included)."""

    role: str
    scene: str
    token_id: str
    character: str | None = None
    expires_at: str | None = None
    server: str = "justicar 0.1.0"
    limits: Limits = Limits()


class CommitMessage(_Out, frozen=True, kw_only=True, tag="commit"):
    """The events one command appended, each the viewer's redacted copy, and (live) the patch they
    made to the viewer's view: one frame per commit, so a client never sees an event without its
    state, and a subscriber costs one write per commit."""

    version: int
    events: list[Wire]
    view: StateView | None = None
    summaries: list[str] = []
    """Each event in words, as this viewer may know it (for subscribers that asked)."""


class ViewMessage(_Out, frozen=True, kw_only=True, tag="view"):
    """``full``: the whole view; otherwise a patch: the header and the entries that changed."""

    full: bool
    version: int
    view: StateView


class Subscribed(_Out, frozen=True, kw_only=True, tag="subscribed"):
    """Catch-up is done: every event after ``since`` up to ``version`` has been sent."""

    scene: str
    since: int
    version: int


class Present(msgspec.Struct, frozen=True):
    role: str
    character: str | None
    connections: int


class Presence(_Out, frozen=True, kw_only=True, tag="presence"):
    scene: str
    connected: list[Present]


class ErrorMessage(_Out, frozen=True, kw_only=True, tag="error"):
    """A frame that is not a command and could not be taken, or a scene that stopped (a command's
    refusal is a ``Result``)."""

    code: str
    message: str


class Pong(_Out, frozen=True, kw_only=True, tag="pong"):
    id: str | None = None


class SceneCreated(_Out, frozen=True, kw_only=True, tag="scene_created"):
    scene: str
    token: str
    grant: Grant


class Invited(_Out, frozen=True, kw_only=True, tag="invited"):
    token: str
    grant: Grant


class Revoked(_Out, frozen=True, kw_only=True, tag="revoked"):
    grant: Grant
    cascaded: list[Grant] = []
    """The tokens it had issued (and those they had issued), revoked with it."""


class TokenList(_Out, frozen=True, kw_only=True, tag="tokens"):
    tokens: list[Grant]


class Goodbye(_Out, frozen=True, kw_only=True, tag="goodbye"):
    reason: str


MAX_REPLAY = 500
"""Steps in one ``replay`` answer; ask again from ``to + 1`` for more."""


class ReplayMessage(_Out, frozen=True, kw_only=True, tag="replay"):
    scene: str
    viewer: str
    start: int = msgspec.field(name="from")
    end: int = msgspec.field(name="to")
    version: int
    steps: list[Step]
    view: StateView | None = None
    """The whole view after step ``to``, when asked for."""


class Document(_Out, frozen=True, kw_only=True, tag="document"):
    """A file for the asker to save: an audit or an export."""

    name: str
    media_type: str
    text: str


class Forked(_Out, frozen=True, kw_only=True, tag="forked"):
    scene: str
    version: int
    token: str
    grant: Grant


class QrCode(_Out, frozen=True, kw_only=True, tag="qr"):
    text: str
    svg: str


class PoolPreview(_Out, frozen=True, kw_only=True, tag="pool"):
    """The answer to ``pool``: the pool with every part and its total, or why it would be refused."""

    pool: Pool | None = None
    error: ErrorBody | None = None


class StakeShown(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One way a challenge can end (``domain.stakes.Stake``), with its heading and each of its
    consequences in words (``projections.account``)."""

    winner: Leader
    exceptional: bool = False
    relent: bool = False
    chosen: str | None = None
    title: str
    sentence: str = ""
    """The whole of it in one sentence: "If you win: Frank takes 2 aggravated damage", or what it
    comes to when it changes nobody ("If it is a draw: nobody loses anything")."""
    events: list[Consequence] = []
    words: list[str] = []


class StakesPreview(_Out, frozen=True, kw_only=True, tag="stakes"):
    """The answer to ``stakes``: what each way the would-be challenge can end would do, as the
    ruleset would apply it; or the refusal the declaration would get."""

    challenge: str | None = None
    stakes: list[StakeShown] = []
    error: ErrorBody | None = None


class ChallengesPage(_Out, frozen=True, kw_only=True, tag="challenges"):
    """Decided challenges, newest first; ``next``: ask again with ``before`` set to it (none: that
    was the oldest)."""

    challenges: dict[str, ChallengeView]
    next: int | None = None


class HistoryPage(_Out, frozen=True, kw_only=True, tag="history"):
    """Events ``from``..``to`` as the asker may see them, each with its words."""

    start: int = msgspec.field(name="from")
    end: int = msgspec.field(name="to")
    events: list[Wire]
    summaries: list[str]


class TonightPage(_Out, frozen=True, kw_only=True, tag="tonight"):
    """The answer to ``tonight``: the player's results in the night's other scenes, in the order the
    scenes opened, each disputable from wherever the character is now (``dispute`` with ``scene``)."""

    results: list[TonightResult]
    ruled: list[RuledThere] = []
    """The rulings in those scenes that touch the character, each as the view's ``ruled`` says it,
    with its ``scene`` and ``scene_title``."""


Outgoing = (
    Welcome
    | Result
    | CommitMessage
    | ViewMessage
    | Subscribed
    | Presence
    | ErrorMessage
    | Pong
    | SceneCreated
    | Invited
    | Revoked
    | TokenList
    | Goodbye
    | ReplayMessage
    | Document
    | Forked
    | QrCode
    | ChallengesPage
    | PoolPreview
    | StakesPreview
    | HistoryPage
    | TonightPage
)


def stakes_preview(state: Scene, cmd: Declare, now: datetime) -> StakesPreview:
    """The answer to ``stakes``: ``cmd`` decided on a draft of ``state`` that is thrown away
    (``domain.stakes.declared``), each way it can end with its words; or the refusal it would get."""
    ctx = Context(now=max(now, state.last_at) if state.last_at else now)
    try:
        draft, shown = declared(state, cmd, ctx)
    except Rejected as refused:
        return StakesPreview(error=ErrorBody(refused.code, refused.message, refused.rule))
    ch = draft.challenges[cmd.challenge]
    said = preview(draft, ch, cmd.actor)  # to the asker: "you", and a target's armour kept to its own
    return StakesPreview(
        challenge=cmd.challenge,
        stakes=[
            StakeShown(
                winner=stake.winner,
                exceptional=stake.exceptional,
                relent=stake.relent,
                chosen=stake.chosen,
                title=line.title,
                sentence=line.words,
                events=list(events),
                words=[with_why(e) for e in line.effects],
            )
            for stake, (line, events) in zip(shown, said, strict=True)
        ],
    )


encoder = msgspec.json.Encoder()
outgoing_decoder = msgspec.json.Decoder(Outgoing)


def encode(message: Any) -> bytes:
    return encoder.encode(message)


# -- what a viewer is sent -------------------------------------------------------------------


class Shared:
    """What the frames of one commit to its several viewers share, worked out once for all: what
    its view patch covers (``reach_of`` the commit, or of it and the commits sent before it without
    one; ``None``: no patch, a later commit's covers it), each event's copy for the viewers from
    whom it hides the same fields (most see the same copy), and each character's public part (the
    same for everyone who does not know it). ``sent``: the response deadlines each viewer has, as
    it was last sent them (None: not known, send them whole); ``made``: each viewer's now, once
    its patch is made (what the next patch's ``sent`` is)."""

    __slots__ = ("made", "public", "reach", "sent", "wires")

    def __init__(self, reach: Reach | None, sent: dict[str, list[DeadlineView]] | None = None) -> None:
        self.reach = reach
        self.wires: dict[tuple[int, str, bool], Wire] = {}
        self.public: dict[str, CharacterView] = {}
        self.sent = sent
        self.made: dict[str, list[DeadlineView]] = {}

    def events(self, records: list[Recorded], viewer: str, sealed: Blind = SEES_ALL) -> list[Wire]:
        """The viewer's copy of each record (``redact``), made once per distinct redaction."""
        out = []
        for n, record in enumerate(records):
            hidden = hidden_fields(record, viewer, sealed)
            key = (n, repr(hidden) if hidden else "", hidden_command(record, viewer))
            wire = self.wires.get(key)
            if wire is None:
                wire = self.wires[key] = redact(record, viewer, sealed)
            out.append(wire)
        return out


def after_commit(
    state: Scene,
    records: list[Recorded],
    viewer: str,
    befores: list[Scene] | None = None,
    shared: Shared | None = None,
) -> list[bytes]:
    """The frame one viewer gets after a commit: its copy of the events, and the view patch (unless
    ``shared`` says a later commit's patch covers this one's); with ``befores`` (the state before
    each record), each event in words too. ``shared`` is what the frames of the commit to all its
    viewers share (``Shared``), worked out once. A sealed throw the viewer may not know now (the
    Storyteller's, while it still has to throw for the other side: ``blind``) is hidden from all of
    it."""
    shared = shared or Shared(reach_of(records))
    sealed = blind(state, viewer)
    patch = None
    if shared.reach is not None:
        only, turn = shared.reach
        sent = shared.sent.get(viewer) if shared.sent is not None else None
        patch = viewed(state, viewer, only=only, turned=turn, public=shared.public, hidden=sealed, sent=sent)
        if isinstance(patch, StateView):  # a scene's: what it has now, sent or kept
            shared.made[viewer] = patch.deadlines if isinstance(patch.deadlines, list) else sent or []
    events = shared.events(records, viewer, sealed)
    said = _summaries(records, befores, viewer, sealed)
    return [encode(CommitMessage(version=state.version, events=events, view=patch, summaries=said))]


def viewed(
    state: Scene,
    viewer: str,
    *,
    only: tuple[list[str] | None, list[str]] | None = None,
    turned: bool = False,
    public: dict[str, CharacterView] | None = None,
    hidden: Blind | None = None,
    sent: list[DeadlineView] | None = None,
) -> StateView:
    """The view of a stream for a viewer: a scene's (``projections.views``), or a game night's, which
    holds the night's scenes and whereabouts beside its characters (``projections.night_view``).
    ``public``: the characters' public parts made so far for other viewers of the same state;
    ``hidden``: the sealed throws kept from the viewer (default: ``blind`` of ``state``); ``sent``:
    the deadlines the viewer has, which a patch leaves out if they are the same."""
    if state.night is not None:
        return night_view(state, viewer, only=only)
    return view(state, viewer, only=only, turned=turned, public=public, hidden=hidden, sent=sent)


Reach = tuple[tuple[list[str] | None, list[str]], bool]
"""What a commit touched (characters, or None for all, and challenges), and whether the turn or
the round turned."""


def reach_of(records: list[Recorded]) -> Reach:
    facts = [record.event for record in records]
    return touched(facts), turned(facts)


def befores_of(records: list[Recorded], before: Scene) -> list[Scene]:
    """The state just before each record, starting from ``before``."""
    return [before, *states(records[:-1], before)]


def _summaries(records: list[Recorded], befores: list[Scene] | None, viewer: str, sealed: Blind) -> list[str]:
    if befores is None:
        return []
    return narrate_records(befores, records, viewer, blind=sealed)


def commit_frames(
    records: list[Recorded], viewer: str, base: Scene | None = None, sealed: Blind = SEES_ALL
) -> tuple[list[bytes], Scene | None]:
    """The catch-up frames of some records: a ``commit`` per command (events only); with ``base``
    (the state before the first record), each event in words too, and the state after the last.
    ``sealed``: the sealed throws the viewer may not know now (``blind`` of the scene as it is, not
    as it was at those records: what was sealed then may be shown by now)."""
    frames = []
    for batch in by_command(records):
        befores = None
        if base is not None:
            befores = befores_of(batch, base)
            base = evolve(befores[-1], batch[-1])
        events = [redact(record, viewer, sealed) for record in batch]
        said = _summaries(batch, befores, viewer, sealed)
        frames.append(encode(CommitMessage(version=batch[-1].seq, events=events, summaries=said)))
    return frames, base


def joined_frames(state: Scene, since: int, viewer: str) -> list[bytes]:
    """What ends a subscriber's catch-up: the whole view, and the ``subscribed`` marker."""
    return [
        encode(ViewMessage(full=True, version=state.version, view=viewed(state, viewer))),
        encode(Subscribed(scene=state.id, since=since, version=state.version)),
    ]


def by_command(records: list[Recorded]) -> list[list[Recorded]]:
    """Consecutive records of one command together."""
    batches: list[list[Recorded]] = []
    for record in records:
        if batches and batches[-1][-1].command == record.command:
            batches[-1].append(record)
        else:
            batches.append([record])
    return batches
