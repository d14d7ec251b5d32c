"""What the registry refuses, in words a Storyteller understands, with nothing appended: a ruleset
this server does not play, another ruleset's options, an option's wrong value, and a die entered
by hand with a face the ruleset's die has not (issue 28: the names, the options and the die now
come from the ruleset, no longer from a list the decoder checked)."""

from __future__ import annotations

import pytest

from domain.errors import Rejected
from domain.rules import RULESETS
from tests.domain.test_kony import attack, duel
from tests.table import Table


def test_a_ruleset_the_server_does_not_play_is_refused_naming_those_it_does() -> None:
    with pytest.raises(Rejected) as caught:
        Table("werewolf")
    assert caught.value.code == "ruleset_unavailable"
    assert "werewolf" in caught.value.message
    assert all(name in caught.value.message for name in RULESETS)


def test_another_rulesets_options_are_refused_on_a_scene() -> None:
    with pytest.raises(Rejected) as caught:
        Table("lotn", {"kony": {"dice": "players"}})
    assert caught.value.code == "bad_options"
    assert caught.value.message == "`options.kony` is for a Kings of New York scene; this one plays Laws of the Night."


def test_an_options_wrong_value_is_refused_naming_it() -> None:
    with pytest.raises(Rejected) as caught:
        Table("kony", {"kony": {"dice": "dealer"}})
    assert caught.value.code == "bad_options"
    assert (
        caught.value.message
        == "`options.kony.dice`: 'dealer' is not one of its readings; it takes 'server' or 'players'."
    )
    with pytest.raises(Rejected) as unknown:
        Table("bns", {"bns": {"static_test": False}})
    assert unknown.value.code == "bad_options" and "static_test" in unknown.value.message


def test_the_options_a_scene_opened_with_are_recorded_written_out() -> None:
    """The log says which reading applied, defaults included (docs/protocol.md)."""
    t = Table("kony", {"kony": {"ties": "traits"}})
    opened = t.log[0].event
    assert opened.options["kony"]["ties"] == "traits" and opened.options["kony"]["dice"] == "server"  # type: ignore[union-attr]
    assert t.state.options.ties == "traits"  # type: ignore[attr-defined]


def test_a_face_the_die_has_not_is_refused_and_nothing_is_appended() -> None:
    """kony:d3-test: a d3 shows 1 to 3; a 4 entered by hand (or in the rerolls) is refused."""
    t = duel()
    attack(t)
    refused = t.refused("st", "roll", character="sam", challenge="c", values=[4], code="malformed")
    assert refused.message == "A d3 shows 1 to 3: 4 is not one of its faces."
    t.refused("st", "roll", character="sam", challenge="c", values=[1], rerolls=[7], code="malformed")
    (rolled,) = t.do("st", "roll", character="sam", challenge="c", values=[3])
    assert rolled.dice == [3]  # type: ignore[attr-defined]
