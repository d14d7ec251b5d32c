"""The terminal says the scene's die as its view's rules say it: ``help``'s roll, what a player may
do, and the hint for dice rolled by hand; no die named before the view has come."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from clients.terminal import Unclear, die_word, help_lines, moves, parse
from projections.rules import rules_view


def view(size: int) -> dict[str, Any]:
    die = {"size": size, "faces": [{"face": 1, "means": "a success"}], "successes": [1]}
    return {"rules": {"family": "dice", "rounds": True, "mobs": False, "blood": True, "flags": [], "die": die}}


def test_help_rolls_the_views_die() -> None:
    assert any("roll your d6s: one, plus one" in line for line in help_lines(view(6), "roll"))
    assert any("roll your d10s" in line for line in help_lines(view(10), "roll"))
    kony = {"rules": msgspec.to_builtins(rules_view("kony"))}
    assert any("roll your d3s" in line for line in help_lines(kony, "roll"))
    assert any("roll your dice:" in line for line in help_lines({}, "roll"))  # before the view has come
    assert die_word({}) == "die" and die_word(view(6)) == "d6"


def test_a_roll_offered_and_a_bad_value_name_the_die() -> None:
    ch = {
        "id": "c",
        "challenger": "juan",
        "targets": ["sam"],
        "status": "bidding",
        "moves": {"sam": {"verbs": ["roll"], "dice": 2, "roll_sources": []}},
    }
    assert "(2 d6 as it stands)" in moves(ch, "sam", {"juan": "Juan"}, die_word(view(6)))
    scene = view(6) | {"challenges": {"c": ch}, "characters": {}}
    with pytest.raises(Unclear, match="the faces of the d6s rolled by hand"):
        parse("roll values=1,x", scene, "sam")
