"""A page keeps its view whole by merging each commit's patch (``clients/client.py``): over random
games, for every viewer, the merged view always equals the whole view at that version, moves
included, although a patch offers afresh only the moves a commit may have changed; and so it does
when the commits of a group go out with one patch, on the last, covering them all
(``server.room.Room.push``)."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.evolve import fold
from projections.views import SPECTATOR, touched, turned, view
from tests.test_properties import PEOPLE, Move, _play, game


def merged(whole: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(whole)
    for key, value in patch.items():
        out[key] = {**whole.get(key, {}), **value} if key in ("characters", "challenges") else value
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["lotn", "camarilla"]).flatmap(lambda ruleset: st.tuples(st.just(ruleset), game(ruleset))),
    st.lists(st.booleans(), max_size=60),
)
def test_merged_patches_are_the_whole_view(played: tuple[str, list[Move]], grouped: list[bool]) -> None:
    """``grouped[n]``: command n's commit goes without a patch, the next one's covering it."""
    ruleset, play = played
    service, checkpoints = _play(play, ruleset)
    records = list(service.store.read("s"))
    for viewer in ("st", SPECTATOR, *PEOPLE):
        start = checkpoints[0][0] - 1 if checkpoints else len(records)
        state = fold(records[:start])
        shown = msgspec.to_builtins(view(state, viewer))
        for n, (version, live) in enumerate(checkpoints):
            batch = records[state.version : version]
            if not batch or (n < len(grouped) and grouped[n] and n < len(checkpoints) - 1):
                continue
            facts = [r.event for r in batch]
            patch = view(live, viewer, only=touched(facts), turned=turned(facts))
            shown = merged(shown, msgspec.to_builtins(patch))
            whole = msgspec.to_builtins(view(live, viewer))
            for key in ("characters", "challenges"):
                for entry, value in whole[key].items():
                    assert shown[key][entry] == value, (viewer, version, key, entry)
            state = live
