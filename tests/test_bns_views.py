"""What each viewer sees of a bns scene, and the moves it is offered: pools hidden from the other
side until the first test (bns:willpower-pools), defence pools offered with their totals
(bns:physical-defense), retests offered only when the rules allow them (bns:overbid)."""

from __future__ import annotations

import msgspec

from projections.moves import Moves
from projections.narrate import narrate
from projections.views import RulesView, view
from tests.domain.test_bns import HUNTER, SHOTGUN, VINCENT, bns, shoot, throws
from tests.table import Table


def offered(t: Table, who: str, cid: str) -> Moves | None:
    viewer = "st" if t.state.characters[who].sheet.npc else who
    return view(t.state, viewer).challenges[cid].moves.get(who)


def test_the_rules_descriptor() -> None:
    """Pages read what the ruleset plays from the view, never its name."""
    assert view(bns().state).rules == RulesView(
        family="pools", rounds=True, mobs=False, blood=False, flags=["unseen", "range", "maneuver", "surprise"]
    )
    assert view(Table("camarilla").state).rules.family == "traits"
    assert view(Table("camarilla").state).rules.blood and view(Table("camarilla").state).rules.rounds


def test_a_sheet_is_shown_to_its_player_and_the_storyteller() -> None:
    t = bns()
    mine = view(t.state, "vincent").characters["vincent"]
    assert mine.attributes == VINCENT["attributes"] and mine.skills == VINCENT["skills"] and mine.willpower == 4
    theirs = view(t.state, "vincent").characters["hunter"]
    assert theirs.attributes is None and theirs.skills is None and theirs.willpower is None
    assert view(t.state, "st").characters["hunter"].attributes == HUNTER["attributes"]
    assert view(t.state, "*").characters["vincent"].attributes is None


def test_pools_are_hidden_from_the_other_side_until_the_first_test() -> None:
    """Each side sees its own pool; the other side and spectators see none until the test shows
    both; the ST sees both (bns:willpower-pools)."""
    t = bns()
    shoot(t)
    assert set(view(t.state, "vincent").challenges["shot"].pools) == {"vincent"}
    assert set(view(t.state, "st").challenges["shot"].pools) == {"hunter", "vincent"}
    assert view(t.state, "*").challenges["shot"].pools == {}
    assert view(t.state, "brute").challenges["shot"].pools == {}
    t.do("vincent", "throw", challenge="shot", sign="rock")
    assert set(view(t.state, "vincent").challenges["shot"].pools) == {"vincent"}  # a sealed throw shows nothing
    t.do("st", "throw", character="hunter", challenge="shot", sign="rock")
    for viewer in ("vincent", "*", "brute"):
        pools = view(t.state, viewer).challenges["shot"].pools
        assert {who: p.total for who, p in pools.items()} == {"hunter": 12, "vincent": 6}


def test_an_event_and_its_narration_keep_the_pool_to_its_owner() -> None:
    t = bns()
    shoot(t)
    declared, answered = t.log[-2], t.log[-1]
    before = t.replayed()
    assert "Firearms 3" in narrate(before, declared.event, "st")
    assert "kept secret" in narrate(before, declared.event, "vincent")
    assert "Dodge 2" in narrate(before, answered.event, "vincent")
    assert "kept secret" in narrate(before, answered.event, "*")


def test_the_defender_is_offered_its_defences_with_totals() -> None:
    """Dodge and soak against a Physical attack, with their totals; no parry without a weapon, no
    Mental or Social defence (bns:physical-defense, bns:parry)."""
    t = bns()
    t.do(
        "st",
        "declare",
        character="hunter",
        challenge="shot",
        kind="contested",
        targets=["vincent"],
        category="physical",
        pool=SHOTGUN,
    )
    moves = offered(t, "vincent", "shot")
    assert moves is not None and moves.verbs == ["bid", "relent"]
    assert {kind: pool.total for kind, pool in moves.defenses.items()} == {"dodge": 5, "soak": 3}
    assert moves.defenses["dodge"].describe() == "Physical 3 + Dodge 2 = 5"
    assert moves.bid_count == 0 and moves.traits == {}
    assert offered(t, "hunter", "shot") == Moves(verbs=["withdraw"])


def test_retests_are_offered_only_when_the_rules_allow() -> None:
    """Behind on a tie, Vincent may spend Willpower but not overbid; the hunter, behind after it,
    may overbid (double the pool) but not spend Willpower again (bns:willpower-retest, bns:overbid)."""
    t = bns()
    shoot(t)
    throws(t, "shot", "rock", "rock")
    vincent = offered(t, "vincent", "shot")
    assert vincent is not None and [msgspec.to_builtins(s) for s in vincent.retest] == [{"category": "willpower"}]
    assert vincent.verbs == ["retest", "pass"] and vincent.cancel == []
    assert offered(t, "hunter", "shot") is None
    t.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
    throws(t, "shot", "rock", "paper")
    hunter = offered(t, "hunter", "shot")
    assert hunter is not None
    assert [msgspec.to_builtins(s) for s in hunter.retest] == [{"category": "overbid", "bid": []}]


def test_a_player_sees_the_maneuvers_it_could_use_and_their_cost() -> None:
    """bns:free-maneuvers, bns:maneuvers: the page never restates the tables; the view says what a
    maneuver would cost now (free, Willpower, an assist's), to the character's player and the ST."""
    from tests.domain.test_bns_rounds import attack, done, fight

    t = fight()
    for who in ("julian", "edward"):
        done(t, who)
    offers = {m.name: m.cost for m in view(t.state, "st").characters["mook"].maneuvers or []}
    assert offers["knock_down"] == "free" and offers["targeted_attack"] == "willpower"
    assert "mangle_fur" not in offers  # feral: the mook is no wolf
    wolf = {m.name: (m.cost, m.with_action) for m in view(t.state, "st").characters["wolf"].maneuvers or []}
    assert wolf["mangle_fur"] == ("free", False) and wolf["burst_of_speed"] == ("free", True)
    assert view(t.state, "julian").characters["mook"].maneuvers is None  # not Julian's to know
    attack(t, "mook", "julian", maneuver="knock_down")
    assert view(t.state, "st").characters["mook"].maneuvers is None  # one a round
