"""Reducers of a game night's stream, and of its scenes' side of it: characters entering a scene
with what they carry, leaving with it, and corrections that travel."""

from __future__ import annotations

from datetime import datetime

from msgspec.structs import replace

from domain.carried import Wounds
from domain.change import Change, on
from domain.commands import Changes, Options
from domain.events import (
    CarriedCorrected,
    CharacterEntered,
    CharacterLeft,
    CharacterMoved,
    CharacterRegistered,
    CharacterReturned,
    GameClosed,
    GameOpened,
    SceneAdded,
    SceneEnded,
)
from domain.log import Place
from domain.reducers.scene import _adjusted
from domain.state import Character, Night, NightScene, Visit

# -- the night ---------------------------------------------------------------------------------


@on(GameOpened)
def _game_opened(s: Change, e: GameOpened, r: Place) -> None:
    s.id, s.ruleset, s.title, s.status, s.night = r.scene, e.ruleset, e.title, "open", Night()
    if e.deadlines:
        s.options = Options(deadlines=e.deadlines)


@on(GameClosed)
def _game_closed(s: Change, e: GameClosed, r: Place) -> None:
    s.status = "closed"


@on(CharacterRegistered)
def _registered(s: Change, e: CharacterRegistered, r: Place) -> None:
    s.characters[e.character.id] = Character.from_sheet(e.character, r.seq)


def _night(s: Change) -> Night:
    assert s.night is not None, "a night's event in a scene"
    return s.night


@on(SceneAdded)
def _scene_added(s: Change, e: SceneAdded, r: Place) -> None:
    night = _night(s)
    s.night = replace(night, scenes=(*night.scenes, NightScene(id=e.scene, title=e.title)))


@on(SceneEnded)
def _scene_ended(s: Change, e: SceneEnded, r: Place) -> None:
    night = _night(s)
    s.night = replace(night, scenes=tuple(replace(x, open=False) if x.id == e.scene else x for x in night.scenes))


@on(CharacterMoved)
def _moved(s: Change, e: CharacterMoved, r: Place) -> None:
    night = _night(s)
    s.night = replace(night, where={**night.where, e.character: Visit(e.to, r.seq)})


@on(CharacterReturned)
def _returned(s: Change, e: CharacterReturned, r: Place) -> None:
    night = _night(s)
    visit = night.where.get(e.character)
    if visit is not None and visit.scene == e.scene:
        s.night = replace(night, where={k: v for k, v in night.where.items() if k != e.character})
    s.character(e.character, lambda c: c.carrying(e.carried))
    _wait(s, e.carried.waits)


# -- both: a correction that travels -----------------------------------------------------------


@on(CarriedCorrected)
def _corrected(s: Change, e: CarriedCorrected, r: Place) -> None:
    s.character(e.character, lambda c: corrected(c, e.changes))
    if e.changes.down_traits:  # Trait penalties are the ruleset's to keep (kony)
        s.slot(e.character, e)


def corrected(c: Character, changes: Changes) -> Character:
    """``c`` with a correction from a scene it had left, made against what it had there: what it
    has spent or healed since may leave nothing to take or to heal, so no number falls below zero.
    A Trait lost again stays lost twice (``Character.available`` counts what is left of each), so
    that restoring one of the two losses leaves it lost."""
    after = _adjusted(c, changes)
    w = after.wounds
    return replace(
        after,
        willpower=max(0, after.willpower),
        abilities={name: max(0, n) for name, n in after.abilities.items()},
        wounds=Wounds(bashing=max(0, w.bashing), lethal=max(0, w.lethal), aggravated=max(0, w.aggravated)),
    )


# -- a scene of the night ----------------------------------------------------------------------


@on(CharacterEntered)
def _entered(s: Change, e: CharacterEntered, r: Place) -> None:
    sheet = e.character
    known: Character | None = s.characters.get(sheet.id)
    base = replace(known, sheet=sheet, present=True) if known else Character.from_sheet(sheet, r.seq)
    s.characters[sheet.id] = replace(base.carrying(e.carried), entered=e.seq)
    _wait(s, e.carried.waits)


@on(CharacterLeft)
def _left(s: Change, e: CharacterLeft, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, present=False))


def _wait(s: Change, waits: dict[str, datetime]) -> None:
    """Keep the waits a character brings, the later end of two for the same repeat."""
    for key, until in waits.items():
        s.failures[key] = max(until, s.failures.get(key, until))
