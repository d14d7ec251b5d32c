"""What bns keeps in its scenes: on each character (actions by kind, Rage rounds, maneuvers used,
assistance offered) and on the round (a fair escape's window, where the round under way began, who
acts out of turn). Only bns reads and writes them, through its own events (``domain.rules.bns.evolve``)
and the shared ones handed to ``evolved``."""

from __future__ import annotations

from typing import ClassVar, Self

import msgspec
from msgspec.structs import replace

from domain.events import (
    ChallengeDeclared,
    FairEscapeFailed,
    FairEscapeSucceeded,
    InitiativeSet,
    RoundEnded,
    RoundStarted,
    SceneEvent,
    TurnStarted,
)
from domain.state import Aid, Character, CharacterSlot, RoundSlot, RoundState

ASSISTED = "bns:assist-attacker"
"""The rule of the +1 an Assist Attacker gives (a modifier that uses the assistance up)."""


class BnsCharacter(CharacterSlot, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    EVENTS: ClassVar[frozenset[type]] = frozenset(
        {RoundStarted, TurnStarted, RoundEnded, FairEscapeSucceeded, ChallengeDeclared}
    )

    budget: dict[str, int] = msgspec.field(default_factory=dict)
    """Actions left this round by kind, ``{"standard": 1, "simple": 1}`` (empty outside rounds)."""
    rage: int = 0
    """Rage rounds this turn."""
    free_used: tuple[str, ...] = ()
    """The lists of free maneuvers used this fight (bns:free-maneuvers)."""
    maneuver_round: int = 0
    """The last round a maneuver was used in: one a round (bns:maneuvers)."""
    shielded: int = 0
    """The last round this character shielded a defender: once a round (bns:assist-defender)."""
    aids: tuple[Aid, ...] = ()
    """Assistance offered to this character this round, and not yet used (bns:assist-attacker)."""

    def evolved(self, who: str, e: SceneEvent) -> Self:
        match e:
            case RoundStarted():  # a new fight (``first``): free maneuvers again
                return replace(
                    self,
                    budget=dict(e.budget.get(who, {})),
                    rage=e.rage.get(who, 0),
                    aids=(),
                    free_used=() if e.first else self.free_used,
                )
            case TurnStarted():
                return replace(self, budget=dict(e.budget)) if e.budget else self
            case RoundEnded() | FairEscapeSucceeded():
                return replace(self, budget={}) if self.budget else self
            case ChallengeDeclared() if e.pool is not None and any(m.rule == ASSISTED for m in e.pool.modifiers):
                # the accepted +1s are used up
                return replace(
                    self, aids=tuple(a for a in self.aids if (a.benefit, a.status) != ("plus_one", "accepted"))
                )
        return self


class BnsRound(RoundSlot, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    EVENTS: ClassVar[frozenset[type]] = frozenset(
        {InitiativeSet, TurnStarted, RoundEnded, FairEscapeSucceeded, FairEscapeFailed}
    )

    escape_window: str | None = None
    """Whose fair escape is open to intents to attack, until that character's turn ends."""
    phase_seq: int = 0
    """The seq at which the universal round, or the Rage round under way, began."""
    interrupt: str | None = None
    """One whose fair escape an attack just failed: it may act now, out of turn, until the next
    turn starts."""

    def evolved(self, before: RoundState, e: SceneEvent, seq: int) -> Self:
        match e:
            case InitiativeSet():
                return self if self.phase_seq else replace(self, phase_seq=seq)
            case TurnStarted():
                new_phase = e.phase != before.turn_phase or e.extra != before.extra
                if not new_phase and self.interrupt is None:
                    return self
                return replace(self, phase_seq=seq if new_phase else self.phase_seq, interrupt=None)
            case RoundEnded():
                return replace(self, escape_window=None) if self.escape_window is not None else self
            case FairEscapeSucceeded():
                return self.closed(e.character)
            case FairEscapeFailed():
                closed = self.closed(e.character)
                if e.challenge and e.character not in before.turn:  # it acts now, out of turn
                    return replace(closed, interrupt=e.character)
                return closed
        return self

    def closed(self, who: str) -> Self:
        """With ``who``'s fair escape window closed, if it was open."""
        return replace(self, escape_window=None) if self.escape_window == who else self


NOBODY = BnsCharacter()
NO_ROUND = BnsRound()


def kept(c: Character) -> BnsCharacter:
    """What bns keeps on ``c`` (the defaults while it keeps nothing)."""
    slot = c.slot
    return slot if isinstance(slot, BnsCharacter) else NOBODY


def round_kept(r: RoundState) -> BnsRound:
    """What bns keeps on the round ``r``."""
    slot = r.slot
    return slot if isinstance(slot, BnsRound) else NO_ROUND
