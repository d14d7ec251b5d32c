"""What winning a challenge will do, before it is decided: the resolution itself (``resolve``, the
function that decides the real outcome), run on a draft that is thrown away, once for each way the
challenge can end. So the preview a defender reads and the result the ruleset applies are one
computation: the declared effect, the power in play (Feral Claws), the sheet's extra damage
(Puissance), the maneuver, armour first, and what an exceptional success adds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeGuard

import msgspec

from domain.challenge import resolve
from domain.context import Context, Draft
from domain.events import Leader, SceneEvent
from domain.rules.base import Verdict
from domain.state import NARRATOR, Consequence, Scene

_CONSEQUENCES: tuple[type, ...] = Consequence.__args__
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Stake(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One way a challenge can end, and what the resolution would then do to the characters."""

    winner: Leader
    """``challenger``, ``defender`` or ``none`` (a draw)."""
    exceptional: bool = False
    """An exceptional success (bns:exceptional-success): listed only where it changes what happens."""
    events: tuple[Consequence, ...] = ()
    """The consequences, as the resolution would append them: Traits lost, damage (with its
    ``why``), armour, grapples, knock-downs, conditions."""


def stakes(state: Scene, cid: str) -> tuple[Stake, ...]:
    """What each way ``cid`` can end would do now: the challenger winning (and winning
    exceptionally, where that differs), the defender winning, a draw. Pure: nothing is appended."""
    ch = state.challenges[cid]
    out: list[Stake] = []
    for winner in ("challenger", "defender", "none"):
        plain = consequences(state, cid, winner)
        out.append(Stake(winner=winner, events=plain))
        if winner == "challenger" and ch.kind == "contested":
            graded = consequences(state, cid, winner, exceptional=True)
            if graded != plain:
                out.append(Stake(winner=winner, exceptional=True, events=graded))
    return tuple(out)


def consequences(state: Scene, cid: str, winner: Leader, *, exceptional: bool = False) -> tuple[Consequence, ...]:
    """What resolving ``cid`` for ``winner`` would do to the characters (``resolve`` on a draft)."""
    d = Draft(state, Context(now=state.last_at or _EPOCH), actor=NARRATOR, command="stakes")
    resolve(d, cid, Verdict(winner=winner, why="", rule="", exceptional=exceptional))
    return tuple(e for e in d.events if _is_consequence(e))


def _is_consequence(event: SceneEvent) -> TypeGuard[Consequence]:
    return isinstance(event, _CONSEQUENCES)
