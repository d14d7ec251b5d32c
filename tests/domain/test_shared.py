"""``domain.state.shared``: a state with one copy of each part that repeats among its challenges is
the same state, field for field and byte for byte, and folds on the same."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.scenes import playing
from domain.evolve import fold, fold_rows
from domain.state import Scene, shared
from projections.views import view
from server import snapshots
from server.service import SceneService
from server.store import MemoryStore
from tests.test_properties import Move, _play, game


def _same(state: Scene, kept: Scene) -> None:
    assert kept == state
    assert snapshots.encode(kept) == snapshots.encode(state)  # a snapshot of it is byte for byte the same
    assert snapshots.decode(snapshots.encode(kept)) == state
    for viewer in ("st", "*", "a"):
        assert msgspec.json.encode(view(kept, viewer)) == msgspec.json.encode(view(state, viewer))
    for ch in kept.challenges.values():
        assert ch.challenger is not ch.defender  # rules tell a challenge's sides apart by identity
    assert shared(kept) == kept


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game())
def test_a_shared_state_is_the_state(moves: list[Move]) -> None:
    service, checkpoints = _play(moves)
    records = list(service.store.read("s"))
    for version, live in checkpoints[-3:]:
        kept = shared(live)
        _same(live, kept)
        assert fold(records[version:], kept) == fold(records[version:], live)  # it folds on the same


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game("camarilla"))
def test_a_shared_camarilla_state_is_the_state(moves: list[Move]) -> None:
    _, checkpoints = _play(moves, "camarilla")
    for _, live in checkpoints[-2:]:
        _same(live, shared(live))


@pytest.mark.parametrize("ruleset", ["lotn", "bns", "bns-fight", "kony"])
def test_a_long_brawl_shares_what_repeats(ruleset: str) -> None:
    rng = random.Random(5)
    service = SceneService(MemoryStore(), honour_at=True, entropy=lambda: rng.getrandbits(256))
    for _ in playing(600, scene="b", service=service, rng=random.Random(5), ruleset=ruleset):
        pass
    folded = fold_rows("b", service.store.rows("b"))
    kept = shared(folded)
    _same(folded, kept)
    sides = [side for ch in kept.challenges.values() for side in (ch.challenger, ch.defender)]
    assert len({id(side) for side in sides}) < len(sides)
    records = list(service.store.read("b"))
    assert fold(records[-50:], shared(fold(records[:-50]))) == folded
