"""The night's ledger on request (``ledger``): the Storyteller's console of a night shows each
character's ledger (``projections.ledger``), and the console of a fork of one of the night's scenes
shows how the ledger would stand had the fork's way been the scene's (``what_if``). Read and
computed on the worker thread; sent as a ``document`` (JSON), like the audit.

Who gets which ledgers (``server.connection.Connection.ledger``): the night's Storyteller (a token
for the night itself) every character's; the Storyteller of one scene of the night (a token for that
scene, or for a fork of it) those of the characters who have been in that scene, and no other."""

from __future__ import annotations

import msgspec

from domain.evolve import fold
from domain.state import Scene
from projections.ledger import Ledger, WhatIf, ledgers, what_if
from server.nights import scenes_of
from server.store import EventStore
from server.wire import Document, encode


class WhatIfPart(msgspec.Struct, frozen=True, kw_only=True):
    scene: str
    """The night's scene the fork branches from."""
    title: str
    fork: str
    at: int
    """The fork keeps the scene's steps 1..``at``."""
    characters: list[WhatIf]


class NightLedger(msgspec.Struct, frozen=True, kw_only=True):
    night: str
    title: str
    ruleset: str
    ledgers: list[Ledger]
    """As the night stands."""
    what_if: WhatIfPart | None = None
    """Asked of a fork of a scene of the night: the ledger had the fork been that scene."""


def night_of(state: Scene) -> str | None:
    """The night a stream belongs to: itself (a night), its ``game`` (a scene of a night, or a fork
    of one), or None."""
    if state.night is not None:
        return state.id
    return state.game or None


def ledger_frame(
    store: EventStore, stream: str, night: str, origin: str | None, at: int, only: frozenset[str] | None = None
) -> bytes:
    """The ``document`` message holding the night's ledger (and, asked of a fork of one of its
    scenes, ``origin``, the what-if): every character's, or (``only``) those characters' alone.
    Pure reads: safe on a worker thread."""
    records = list(store.read(night))
    scenes = {s: list(store.read(s)) for s in scenes_of(store, night)}
    state = fold(records)
    part = None
    if origin is not None and origin in scenes and stream not in scenes:
        titles = {s.id: s.title or s.id for s in state.night.scenes} if state.night else {}
        part = WhatIfPart(
            scene=origin,
            title=titles.get(origin, origin),
            fork=stream,
            at=at,
            characters=[
                w
                for w in what_if(records, scenes, origin, list(store.read(stream)))
                if only is None or w.character in only
            ],
        )
    book = NightLedger(
        night=night,
        title=state.title,
        ruleset=state.ruleset,
        ledgers=[book for book in ledgers(records, scenes) if only is None or book.character in only],
        what_if=part,
    )
    text = msgspec.json.encode(book).decode()
    return encode(Document(name=f"{stream}-ledger.json", media_type="application/json", text=text))
