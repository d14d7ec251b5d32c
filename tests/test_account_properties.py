"""The account made once and shared (``projections.account``'s memo: made again only when what it
reads has changed) is the account made afresh, at every step of generated fights in the four
rulesets, for the Storyteller, a side and a spectator; and its facts are the events' own: each
side's first bid and the Traits it risked on overbids, each test's signs or dice, each retest, the
verdict's winner."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.commands import OverbidSource
from domain.events import BidPlaced, ChallengeDeclared, ChallengeResolved, RetestInvoked, TestRevealed
from domain.evolve import fold
from domain.log import Recorded
from projections import account as accounts
from projections.account import for_viewer
from projections.views import _reader
from tests.test_stakes_properties import bns_duels, duels

FIGHTS = st.one_of(duels("lotn"), duels("camarilla"), duels("kony"), bns_duels())


def _check(records: list[Recorded]) -> None:
    for n in range(1, len(records) + 1, 3):
        state = fold(records[:n])
        for ch in state.challenges.values():
            for viewer in ("st", ch.challenger.who, "*"):
                reader = _reader(state, viewer)
                shared = for_viewer(state, ch, viewer, reader)
                accounts._MEMO.clear()
                accounts._NOW.clear()
                assert for_viewer(state, ch, viewer, reader) == shared, (n, ch.id, viewer)
    state = fold(records)
    for ch in state.challenges.values():
        told = accounts.account(state, ch)
        mine = [r.event for r in records if getattr(r.event, "challenge", None) == ch.id]
        first = next(e for e in mine if isinstance(e, ChallengeDeclared))
        sides = {s.who: s for s in told.sides}
        if first.bid and first.challenger in sides:
            assert sides[first.challenger].bid[: len(first.bid)] == list(first.bid)
        for who, side in sides.items():  # each Trait a side risked on an overbid, in order
            risked = [
                t
                for e in mine
                if isinstance(e, RetestInvoked) and e.character == who and isinstance(e.source, OverbidSource)
                for t in e.source.bid
            ]
            assert side.risked == risked, (ch.id, who)
        answered = [e for e in mine if isinstance(e, BidPlaced) and not e.owed and e.character in sides]
        for e in answered[:1]:
            assert sides[e.character].bid[: len(e.traits)] == list(e.traits) or not e.traits
        shown = [e for e in mine if isinstance(e, TestRevealed)]
        assert [t.number for t in told.tests] == [e.test for e in shown]
        for t, e in zip(told.tests, shown, strict=True):
            assert t.signs == dict(e.signs) and t.dice == {w: list(d) for w, d in e.dice.items()}
        assert len(told.retests) == sum(isinstance(e, RetestInvoked) for e in mine)
        resolved = [e for e in mine if isinstance(e, ChallengeResolved)]
        if resolved and told.verdict is not None and not ch.rulings:
            assert told.verdict.winner == resolved[-1].winner


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(FIGHTS)
def test_the_shared_account_is_the_account_and_its_facts_are_the_events(records: list[Recorded]) -> None:
    _check(records)
