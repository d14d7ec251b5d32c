"""What a ruleset keeps in its scenes (issue 28): a slot of its own on each character and on the
round (``Character.slot``, ``RoundState.slot``), of the types its ``Ruleset`` declares, written only
through events, read as the character's or the round's own fields, and kept by snapshots."""

from __future__ import annotations

import pytest

from domain.rules import RULESETS
from domain.rules.bns.state import BnsCharacter, BnsRound
from domain.rules.kony.state import KonyCharacter, KonyRound
from domain.state import Character, CharacterSlot, RoundSlot
from server.snapshots import decode, encode
from tests.domain.test_bns_rounds import fight
from tests.domain.test_kony import attack, duel, roll


def test_each_ruleset_that_keeps_state_declares_its_slot_types() -> None:
    assert (RULESETS["bns"].character_state, RULESETS["bns"].round_state) == (BnsCharacter, BnsRound)
    assert (RULESETS["kony"].character_state, RULESETS["kony"].round_state) == (KonyCharacter, KonyRound)
    for name in ("lotn", "camarilla"):
        assert RULESETS[name].character_state is None and RULESETS[name].round_state is None
    for ruleset in RULESETS.values():
        assert ruleset.character_state is None or issubclass(ruleset.character_state, CharacterSlot)
        assert ruleset.round_state is None or issubclass(ruleset.round_state, RoundSlot)


def test_a_bns_round_fills_the_bns_slots_and_their_fields_read_through() -> None:
    t = fight(rage={"edward": 1})
    edward = t.character("edward")
    assert isinstance(edward.slot, BnsCharacter)
    assert edward.budget == edward.slot.budget == {"standard": 1, "simple": 1}
    assert edward.rage == 1 and edward.aids == () and edward.free_used == ()
    r = t.state.round
    assert r is not None and isinstance(r.slot, BnsRound)
    assert r.escape_window is None and r.phase_seq == r.slot.phase_seq
    assert r.narrative is False and r.normal_over is False  # another ruleset's fields: their defaults
    assert edward.down_traits == 0 and edward.drained == {}
    assert not hasattr(edward, "evolved") and not hasattr(r, "closed")  # a slot's fields, never its methods


def test_a_character_with_no_slot_reads_the_defaults_and_no_other_name() -> None:
    t = duel()
    sam = t.character("sam")
    assert sam.slot is None
    assert (sam.down_traits, sam.armor_lost, sam.expended, sam.drained) == (0, 0, False, {})
    assert (sam.budget, sam.rage, sam.aids, sam.maneuver_round) == ({}, 0, (), 0)
    with pytest.raises(AttributeError, match="no attribute 'worn'"):
        _ = sam.worn
    assert not hasattr(sam, "nothing_at_all")


def test_kony_events_write_the_kony_slot_and_a_round_resets_it() -> None:
    t = duel({"ties": "traits"})
    t.do("st", "adjust", character="sam", changes={"down_traits": 2}, reason="rain")
    assert t.character("sam").slot == KonyCharacter(down_traits=2)
    assert t.character("juan").slot is None  # untouched: nothing kept
    attack(t)
    roll(t, "sam", [3])
    roll(t, "juan", [3])
    t.do("st", "start_round", narrative=True)
    r = t.state.round
    assert r is not None and r.slot == KonyRound(narrative=True) and r.narrative
    assert t.character("sam").down_traits == 2  # penalties outlast a round


@pytest.mark.parametrize("made", ["bns", "kony"])
def test_a_snapshot_reads_the_slots_back_as_the_rulesets_types(made: str) -> None:
    if made == "bns":
        t = fight(rage={"edward": 1})
    else:
        t = duel()
        t.do("st", "adjust", character="sam", changes={"down_traits": 1}, reason="mud")
        t.do("st", "start_round", narrative=True)
    state = t.state
    back = decode(encode(state))
    assert back == state
    for who, c in state.characters.items():
        assert type(back.characters[who].slot) is type(c.slot)
    assert state.round is not None and back.round is not None
    assert type(back.round.slot) is type(state.round.slot) is RULESETS[made].round_state
    assert back == t.replayed()


def test_a_slot_field_is_never_a_field_of_the_shared_structs() -> None:
    shared = {f for f in Character.__struct_fields__}
    for ruleset in RULESETS.values():
        if ruleset.character_state is not None:
            assert not shared & set(ruleset.character_state.__struct_fields__)
