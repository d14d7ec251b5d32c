"""The moves a player's view offers: exactly what ``decide`` would accept, nothing the rules forbid,
and nothing of the other side's hidden sheet."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.rules import ruleset_for
from domain.state import Scene
from projections import moves as moves_module
from projections.moves import Moves
from projections.views import view
from tests.table import Table
from tests.test_bns_fight_properties import bns_fight
from tests.test_bns_properties import _play as _play_bns
from tests.test_bns_properties import bns_game
from tests.test_properties import Move, _play, game


def offered(t: Table, who: str, cid: str) -> Moves | None:
    return view(t.state, who).challenges[cid].moves.get(who)


def sources(found: list[object]) -> list[dict[str, object]]:
    return [msgspec.to_builtins(s) for s in found]


def lotn() -> Table:
    t = Table()
    t.add(
        "sam",
        {"Brawny": 2, "Quick": 1},
        abilities={"Brawl": 1, "Computer": 1},
        merits=["Lucky"],
        gestures=["bomb"],
        traits={"social": {"Witty": 1}},
    )
    t.add("juan", {"Brutal": 2}, abilities={"Dodge": 1}, negative_traits={"physical": ["Clumsy"]})
    t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", bid=["Brawny"])
    return t


def test_the_defender_answers_or_relents_and_the_challenger_waits() -> None:
    t = lotn()
    juan = offered(t, "juan", "c")
    assert juan is not None and juan.verbs == ["bid", "relent"]
    assert juan.bid_count == 1 and juan.traits == {"Brutal": 2}  # Physical only: the challenge's category
    assert offered(t, "sam", "c") == Moves(verbs=["withdraw"])
    assert view(t.state, "st").challenges["c"].moves == {}  # no NPC in it


def test_throws_offer_the_signs_the_sheet_grants() -> None:
    t = lotn()
    t.do("juan", "bid", challenge="c", bid=["Brutal"])
    sam, juan = offered(t, "sam", "c"), offered(t, "juan", "c")
    assert sam is not None and sam.signs == ["rock", "paper", "scissors", "bomb", "random"]
    assert juan is not None and juan.signs == ["rock", "paper", "scissors", "random"]
    assert "call_negative" in juan.verbs and "throw" in juan.verbs
    t.do("sam", "throw", challenge="c", sign="rock")
    assert offered(t, "sam", "c") is None  # sealed: nothing to do but wait
    juan = offered(t, "juan", "c")
    assert juan is not None and juan.verbs == ["throw"]


def test_a_tie_offers_a_count_up_to_what_is_left_challenger_first() -> None:
    t = lotn()
    t.contest("d", "juan", "sam", "Brutal", "Quick")
    t.test("d", "rock", "rock")
    juan = offered(t, "juan", "d")
    assert juan is not None and juan.verbs == ["declare_traits"] and juan.most == 2
    assert offered(t, "sam", "d") is None  # the challenger declares first


def test_the_side_behind_gets_only_the_retests_it_holds_and_may_use() -> None:
    t = lotn()
    t.do("juan", "bid", challenge="c", bid=["Brutal"])
    t.test("c", "scissors", "rock")
    sam = offered(t, "sam", "c")
    assert sam is not None and sam.verbs == ["retest", "pass"]
    assert sources(sam.retest) == [
        {"category": "ability", "name": "Brawl"},  # not Computer: it does not fit a Physical challenge
        {"category": "merit", "name": "Lucky"},
        {"category": "overbid", "bid": ["Brawny"]},
    ]
    assert offered(t, "juan", "c") is None  # ahead: he waits for Sam to retest or pass
    t.do("sam", "retest", challenge="c", source={"category": "ability", "name": "Brawl"})
    juan = offered(t, "juan", "c")
    assert juan is not None and juan.verbs == ["cancel_retest", "pass"]
    assert sources(juan.cancel) == [{"category": "ability", "name": "Dodge"}]


def test_a_mobs_target_bids_one_per_attacker_and_an_outsider_may_join() -> None:
    t = Table(ruleset="camarilla")
    t.add("andrew", {"Ferocious": 2})
    t.add("bob", {"Brawny": 2})
    t.add("zach", {"Tough": 3, "Quick": 1})
    t.do("andrew", "declare", challenge="m", kind="contested", targets=["zach"], category="physical", bid=["Ferocious"])
    bob = offered(t, "bob", "m")
    assert bob is not None and bob.verbs == ["join"] and bob.traits == {"Brawny": 2}
    t.do("bob", "join", challenge="m", bid=["Brawny"], effect={"kind": "damage", "amount": 1})
    zach = offered(t, "zach", "m")
    assert zach is not None and zach.bid_count == 2 and zach.traits == {"Tough": 3, "Quick": 1}
    t.do("zach", "bid", challenge="m", bid=["Tough", "Tough"])
    t.test("m", "paper", "rock")
    t.do("zach", "pass", challenge="m")
    andrew = offered(t, "andrew", "m")
    assert andrew is not None and andrew.verbs == ["choose_victory"] and andrew.victory_of == ["andrew", "bob"]
    assert offered(t, "bob", "m") is None


def test_probing_changes_nothing() -> None:
    t = lotn()
    before = t.state
    view(t.state, "juan")
    assert t.state is before and len(t.log) == before.version


def test_the_storyteller_is_offered_the_moves_of_the_npcs_in_a_challenge() -> None:
    t = lotn()
    t.add("guard", {"Tough": 2}, npc=True)
    t.do("sam", "declare", challenge="g", kind="contested", targets=["guard"], category="physical", bid=["Quick"])
    st = view(t.state, "st").challenges["g"].moves
    assert list(st) == ["guard"] and st["guard"].verbs == ["bid", "relent"]
    assert view(t.state, "sam").challenges["g"].moves["sam"].verbs == ["withdraw"]


def test_a_patch_offers_the_moves_of_every_open_challenge_afresh() -> None:
    """A Dodge spent in one challenge is no longer offered in another, though the commit did not
    name it."""
    from projections.views import touched

    t = lotn()
    t.do("juan", "bid", challenge="c", bid=["Brutal"])
    t.contest("d", "sam", "juan", "Quick", "Brutal")
    for cid in ("c", "d"):
        t.test(cid, "rock", "scissors")
    assert {"category": "ability", "name": "Dodge"} in sources(offered(t, "juan", "d").retest)  # type: ignore[union-attr]
    events = t.do("juan", "retest", challenge="c", source={"category": "ability", "name": "Dodge"})
    patch = view(t.state, "juan", only=touched(events))
    d = patch.challenges["d"].moves["juan"]
    assert {"category": "ability", "name": "Dodge"} not in sources(d.retest)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["lotn", "camarilla"]).flatmap(lambda ruleset: st.tuples(st.just(ruleset), game(ruleset))))
def test_moves_tried_by_phase_are_every_move_decide_accepts(played: tuple[str, list[Move]]) -> None:
    """Trying each kind of move only in the phases where the lifecycle takes it (and joins only
    where the ruleset has mobs) offers exactly what trying every move in every phase offers."""
    ruleset, play = played
    _, checkpoints = _play(play, ruleset)
    for _, state in checkpoints:
        for cid in state.undecided:
            ch = state.challenges[cid]
            for who in state.characters:
                fast = moves_module.moves(state, ch, who)
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(moves_module, "phases", lambda ch: set(EVERY_KIND))
                    patch.setattr(ruleset_for(ruleset), "has_mobs", True)
                    assert fast == moves_module.moves(state, ch, who), (cid, who, ch.status)


EVERY_KIND = ("answer", "call", "throw", "declare", "retest", "cancel", "pass")


def _offered_everywhere(states: list[Scene]) -> list[Moves | None]:
    return [
        moves_module.moves(state, state.challenges[cid], who)
        for state in states
        for cid in state.undecided
        for who in state.characters
    ]


def _fully_decided(self: object, kind: object, **fields: object) -> bool:
    return moves_module._Probe.events(self, kind, **fields) is not None  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.sampled_from(["lotn", "camarilla"]).flatmap(lambda ruleset: st.tuples(st.just(ruleset), game(ruleset))),
        st.tuples(st.just("bns"), bns_game()),
        st.tuples(st.just("bns fight"), bns_fight()),
    )
)
def test_a_probe_for_the_verdict_offers_what_a_full_decision_accepts(played: tuple[str, list[Move]]) -> None:
    """Probing a move stops once its verdict is known (``Context.verdict``: nothing that happens by
    itself afterwards is worked out); it offers exactly what deciding each move in full accepts."""
    ruleset, play = played
    states = _play_bns(play)[1] if ruleset.startswith("bns") else [s for _, s in _play(play, ruleset)[1]]
    quick = _offered_everywhere(states)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moves_module._Probe, "__call__", _fully_decided)
        assert quick == _offered_everywhere(states)
