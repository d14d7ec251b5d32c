"""The reducers of the events only kony records: expenditures declared, feeding, the end of everyone's
normal actions. They write what kony keeps (``domain.rules.kony.state``) beside the character's and
the round's shared fields; registered with ``on`` like every reducer (importing this package
registers them)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.change import Change, on
from domain.events import ExpendituresDone, Fed, NormalActionsEnded
from domain.log import Place
from domain.rules.kony.state import KonyRound, kept
from domain.state import Character


@on(ExpendituresDone)
def _expenditures_done(s: Change, e: ExpendituresDone, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, slot=replace(kept(c), expended=True)))


@on(Fed)
def _fed(s: Change, e: Fed, r: Place) -> None:
    def drained(c: Character) -> Character:
        mine = kept(c)
        taken = {**mine.drained, e.character: mine.drained.get(e.character, 0) + e.blood}
        return replace(c, blood_spent=c.blood_spent + e.blood, slot=replace(mine, drained=taken))

    s.character(e.target, drained)
    s.character(
        e.character,
        lambda c: replace(
            c,
            blood_spent=max(0, c.blood_spent - e.blood),
            actions_left=None if c.actions_left is None else max(0, c.actions_left - 1),
        ),
    )


@on(NormalActionsEnded)
def _normal_actions_ended(s: Change, e: NormalActionsEnded, r: Place) -> None:
    assert s.round is not None
    slot = s.round.slot if isinstance(s.round.slot, KonyRound) else KonyRound()
    s.round = replace(s.round, slot=replace(slot, normal_over=True))
