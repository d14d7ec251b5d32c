"""The reducers of response deadlines (``domain.deadlines``): what the scene's clocks remember."""

from __future__ import annotations

from msgspec.structs import replace

from domain.change import Change, on
from domain.events import DeadlineExtended, DeadlinePassed, DeadlinesSet
from domain.log import Place
from domain.state import Clocks, Late


@on(DeadlinesSet)
def _deadlines_set(s: Change, e: DeadlinesSet, r: Place) -> None:
    s.options = replace(s.options, deadlines=e.deadlines)
    s.clocks = Clocks(set_at=r.at)


@on(DeadlinePassed)
def _deadline_passed(s: Change, e: DeadlinePassed, r: Place) -> None:
    s.clocks = (s.clocks or Clocks()).telling(e.key, r.seq, r.at)
    if e.challenge and e.challenge in s.challenges:
        s.challenge(e.challenge, lambda ch: replace(ch, late=(*ch.late, Late(r.seq, e))))


@on(DeadlineExtended)
def _deadline_extended(s: Change, e: DeadlineExtended, r: Place) -> None:
    s.clocks = (s.clocks or Clocks()).giving(e.key, r.at, e.seconds)
