"""A catch-up's state, made to put a long catch-up into words, is freed a map entry at a time on the
worker (``server.catchup.release``): everything it alone held is freed; what others still hold is
left to them."""

from __future__ import annotations

import weakref
from typing import Any

import immutables

from domain.state import Scene
from server.catchup import release


class _Entry:
    """Stands for a challenge or a character: something a map of the state holds, that can be
    watched for being freed."""


def _map(entries: dict[str, _Entry]) -> Any:
    return immutables.Map(entries)


def test_a_state_held_by_the_catch_up_alone_is_freed_entry_by_entry() -> None:
    entries = {f"c{n}": _Entry() for n in range(300)}
    watched = [weakref.ref(e) for e in entries.values()]
    state = Scene(id="s", challenges=_map(entries), characters=_map({"a": _Entry()}))
    watched.append(weakref.ref(state.characters["a"]))  # type: ignore[arg-type]
    entries.clear()
    held = [state]
    del state
    release(held)
    assert held == [] and all(ref() is None for ref in watched)


def test_a_state_someone_else_holds_is_left_whole() -> None:
    state = Scene(id="s", challenges=_map({"c1": _Entry()}))
    release([state])
    assert len(state.challenges) == 1 and isinstance(state.challenges["c1"], _Entry)


def test_a_map_another_state_shares_keeps_its_entries() -> None:
    """A later state shares the maps of the one it was folded from: freeing one keeps the other's."""
    shared = _map({"c1": _Entry()})
    first = Scene(id="s", challenges=shared)
    later = Scene(id="s", version=1, challenges=shared)
    del shared
    held = [first]
    del first
    release(held)
    assert isinstance(later.challenges["c1"], _Entry)
