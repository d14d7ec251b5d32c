"""What kony keeps in its scenes: what a fight has done to each character (Trait penalties, armour
lost, this round's expenditures and feeding) and what kind of round is under way. Only kony reads
and writes them, through its own events (``domain.rules.kony.evolve``) and the shared ones handed to
``evolved``."""

from __future__ import annotations

from typing import ClassVar, Self

import msgspec
from msgspec.structs import replace

from domain.commands import Changes
from domain.events import ArmorDamaged, ArmorRestored, CarriedCorrected, CharacterAdjusted, RoundStarted, SceneEvent
from domain.state import Character, CharacterSlot, RoundSlot, RoundState


class KonyCharacter(CharacterSlot, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    EVENTS: ClassVar[frozenset[type]] = frozenset(
        {RoundStarted, ArmorDamaged, ArmorRestored, CharacterAdjusted, CarriedCorrected}
    )

    down_traits: int = 0
    """Trait penalties the ST set (kony:environment, kony:down-traits)."""
    armor_lost: int = 0
    """Levels of armour destroyed (kony:damage-order)."""
    expended: bool = False
    """Whether the character has declared its expenditures this round (kony:expenditures)."""
    drained: dict[str, int] = msgspec.field(default_factory=dict)
    """Blood each feeder has taken from this character this round (kony:feeding)."""

    def evolved(self, who: str, e: SceneEvent) -> Self:
        match e:
            case RoundStarted():
                return replace(self, expended=False, drained={}) if self.expended or self.drained else self
            case ArmorDamaged():
                return replace(self, armor_lost=self.armor_lost + e.amount)
            case ArmorRestored():
                return replace(self, armor_lost=max(0, self.armor_lost - e.amount))
            case CharacterAdjusted() | CarriedCorrected():
                return self.adjusted(e.changes)
        return self

    def adjusted(self, changes: Changes) -> Self:
        """With the ST's Trait penalties changed (``character_adjusted``, or ``carried_corrected`` from
        another scene)."""
        if not changes.down_traits:
            return self
        return replace(self, down_traits=max(0, self.down_traits + changes.down_traits))


class KonyRound(RoundSlot, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    EVENTS: ClassVar[frozenset[type]] = frozenset({RoundStarted})

    narrative: bool = False
    """A narrative round (kony:narrative)."""
    normal_over: bool = False
    """Everyone's normal action is done: "end of the round" has come (kony:end-of-round)."""

    def evolved(self, before: RoundState, e: SceneEvent, seq: int) -> Self:
        if isinstance(e, RoundStarted) and e.narrative != self.narrative:
            return replace(self, narrative=e.narrative)
        return self


NOBODY = KonyCharacter()


def kept(c: Character) -> KonyCharacter:
    """What kony keeps on ``c`` (the defaults while it keeps nothing)."""
    slot = c.slot
    return slot if isinstance(slot, KonyCharacter) else NOBODY


NO_ROUND = KonyRound()


def round_kept(r: RoundState) -> KonyRound:
    """What kony keeps on the round ``r``."""
    slot = r.slot
    return slot if isinstance(slot, KonyRound) else NO_ROUND
