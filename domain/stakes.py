"""What winning a challenge will do, before it is decided: the resolution itself (``resolve``, the
function that decides the real outcome), run on a draft that is thrown away, once for each way the
challenge can end. So the preview a defender reads and the result the ruleset applies are one
computation: the declared effect, the power in play (Feral Claws), the sheet's extra damage
(Puissance), the maneuver, armour first, and what an exceptional success adds. A relent is a way
of ending too (no Trait lost), and a mob's win one for each victory condition its champion may
choose (``choose_victory``, run on the same draft). ``declared`` does the same for a would-be
declaration: ``decide`` on a draft, then the stakes of the challenge it would declare.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeGuard

import msgspec

from domain.challenge import resolve, thrown
from domain.commands import ChooseVictory, Declare, Relent
from domain.context import Context, Draft
from domain.decide import decide
from domain.errors import Rejected
from domain.events import Leader, SceneEvent
from domain.mobs import choose_victory
from domain.rules import ruleset_for
from domain.rules.base import Verdict
from domain.state import NARRATOR, Challenge, Consequence, Scene

_CONSEQUENCES: tuple[type, ...] = Consequence.__args__
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Stake(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One way a challenge can end, and what the resolution would then do to the characters."""

    winner: Leader
    """``challenger``, ``defender`` or ``none`` (a draw)."""
    exceptional: bool = False
    """An exceptional success (bns:exceptional-success): listed only where it changes what happens."""
    relent: bool = False
    """The defender relents before the test: the challenger wins and nobody loses a Trait."""
    by_pool: bool = False
    """A relent whose grade hangs on the defence the relenting side will name (bns:relent, before
    it has answered): the exceptional stake is "if it names a smaller pool than the attacker's",
    the plain one "if it names one at least as large". Otherwise a relent is one stake, graded as
    the rules will grade it (a relent has no test: no chance of an exceptional success)."""
    chosen: str | None = None
    """A mob's win (camarilla:mob-victory): the member whose victory condition the champion
    chooses; one stake for each member."""
    events: tuple[Consequence, ...] = ()
    """The consequences, as the resolution would append them: Traits lost, damage (with its
    ``why``), armour, grapples, knock-downs, conditions."""


def stakes(state: Scene, cid: str) -> tuple[Stake, ...]:
    """What each way ``cid`` can end would do now: the challenger winning (and winning
    exceptionally, where that differs; for a mob, with each member's victory condition), the
    defender winning, a draw, and, while the defender may still relent, a relent. Pure: nothing is
    appended."""
    ch = state.challenges[cid]
    out: list[Stake] = []
    for winner in ("challenger", "defender", "none"):
        out += _ways(state, ch, winner, relent=False)
    if _may_relent(ch):
        out += _relents(state, ch)
    return tuple(out)


def declared(state: Scene, cmd: Declare, ctx: Context) -> tuple[Scene, tuple[Stake, ...]]:
    """What a would-be declaration would put at stake: ``decide`` it on a draft of ``state`` (raises
    ``Rejected`` as the declaration would be refused), then ``stakes`` of the challenge it declares.
    Returns the draft (thrown away by the caller: nothing is appended) and the stakes."""
    d = Draft(state, ctx, actor=cmd.actor, command=cmd.id)
    d.add(*decide(state, cmd, ctx))
    return d.state, stakes(d.state, cmd.challenge)


def consequences(
    state: Scene,
    cid: str,
    winner: Leader,
    *,
    exceptional: bool = False,
    relent: bool = False,
    chosen: str | None = None,
) -> tuple[Consequence, ...]:
    """What resolving ``cid`` for ``winner`` would do to the characters (``resolve`` on a draft;
    a relent loses no Trait; a mob's win then ``choose_victory`` of ``chosen``)."""
    d = Draft(state, Context(now=state.last_at or _EPOCH), actor=NARRATOR, command="stakes")
    resolve(d, cid, Verdict(winner=winner, why="", rule="", exceptional=exceptional), losses=not relent)
    if chosen is not None:
        choose_victory(d, ChooseVictory(id="stakes", scene=state.id, actor=NARRATOR, challenge=cid, of=chosen))
    return tuple(e for e in d.events if is_consequence(e))


def is_consequence(event: SceneEvent) -> TypeGuard[Consequence]:
    """Whether ``event`` is something a challenge does to a character (``Consequence``)."""
    return isinstance(event, _CONSEQUENCES)


def _ways(state: Scene, ch: Challenge, winner: Leader, *, relent: bool) -> list[Stake]:
    """The stakes of ``winner`` winning: one for each victory condition a winning mob may choose,
    and, for the challenger of a contested challenge, the exceptional success where it differs."""
    choices: tuple[str | None, ...] = (None,)
    if winner == "challenger" and ch.challenger.helpers:
        choices = ch.challenger.members
    out: list[Stake] = []
    for chosen in choices:
        plain = consequences(state, ch.id, winner, relent=relent, chosen=chosen)
        out.append(Stake(winner=winner, relent=relent, chosen=chosen, events=plain))
        if winner == "challenger" and ch.kind == "contested":
            graded = consequences(state, ch.id, winner, exceptional=True, relent=relent, chosen=chosen)
            if graded != plain:
                out.append(Stake(winner=winner, exceptional=True, relent=relent, chosen=chosen, events=graded))
    return out


def _relents(state: Scene, ch: Challenge) -> list[Stake]:
    """The stakes of a relent: the one way the rules will grade it now (``relented``); where the
    grade hangs on the defence still to be named (bns:relent), the plain and exceptional ways,
    each marked ``by_pool``. Never a graded relent where the rules grade none."""
    try:
        verdict = ruleset_for(state.ruleset).relented(state, ch, ch.defender.who, _RELENT)
    except Rejected:
        return [msgspec.structs.replace(s, by_pool=True) for s in _ways(state, ch, "challenger", relent=True)]
    ways = _ways(state, ch, "challenger", relent=True)
    graded = {s.chosen: s for s in ways if verdict.exceptional and s.exceptional}
    return [graded.get(s.chosen, s) for s in ways if not s.exceptional]


_RELENT = Relent(id="stakes", scene="", actor=NARRATOR, challenge="")


def _may_relent(ch: Challenge) -> bool:
    """Whether the defender may still relent (``domain.challenge.relent``): before any throw."""
    return ch.status in ("awaiting_response", "bidding") and not thrown(ch)
