"""What each viewer sees of a kony scene, and the moves it is offered: who has rolled is public,
the dice are not until the reveal (kony:d3-test); one's own Trait Pool with its cap of 30
(kony:trait-pool); the roll with its dice and the retest sources it may name; the overbid only when
the pool is double (kony:overbid); expenditures, fair escape and feeding in the round."""

from __future__ import annotations

from typing import Any

from domain.commands import AbilitySource, MeritSource, OverbidSource, PowerSource, SheetSource
from domain.effects import Damage
from domain.rules.base import TraitPool
from domain.state import NARRATOR
from projections.moves import Moves, RoundMoves
from projections.narrate import narrate
from projections.views import view
from server.wire import after_commit
from tests.table import Table, entropy_for, sheet

SAM = sheet(
    "sam",
    {"Brawny": 3, "Quick": 2},
    abilities={"Brawl": 2, "Occult": 1},
    powers=["Potence"],
    merits=["Lucky"],
    blood=10,
)
JUAN = sheet("juan", {"Strong": 4}, abilities={"Brawl": 1}, blood=10)
BRAWL = {"category": "ability", "name": "Brawl"}


def kony(*sheets: dict[str, Any], **options: Any) -> Table:
    t = Table("kony", {"kony": options} if options else None)
    for s in sheets or (SAM, JUAN):
        t.do("st", "add_character", character=s)
    return t


def punch(t: Table, cid: str = "c", **fields: Any) -> None:
    t.do("sam", "declare", challenge=cid, kind="contested", targets=["juan"], category="physical", bid=["Brawny"],
         victory="I punch him", **fields)  # fmt: skip
    t.do("juan", "bid", challenge=cid, bid=["Strong"])


def offered(t: Table, who: str, cid: str = "c") -> Moves | None:
    return view(t.state, who).challenges[cid].moves.get(who)


def test_the_rules_descriptor_says_dice() -> None:
    assert view(kony().state).rules.family == "dice"


def test_who_rolled_is_public_the_dice_are_not_until_the_reveal() -> None:
    t = kony()
    punch(t)
    t.entropy = entropy_for(0, 1)
    t.do("sam", "roll", challenge="c", retests=[BRAWL])
    mine, theirs, watching, st = (view(t.state, v).challenges["c"] for v in ("sam", "juan", "*", NARRATOR))
    for seen in (mine, theirs, watching, st):
        assert seen.rolled == ["sam"] and seen.tests == []
    assert mine.rolls["sam"].dice == [1, 2] and mine.rolls["sam"].retests == [AbilitySource(name="Brawl")]
    assert st.rolls["sam"].dice == [1, 2]
    assert theirs.rolls == {} and watching.rolls == {}
    # the frames a player or a spectator is sent carry neither the dice nor the sources nor the count
    for viewer in ("juan", "*"):
        frames = b"".join(after_commit(t.state, t.log[-1:], viewer))
        assert b'"dice":null' in frames and b'"rolls"' not in frames and b"2 d3" not in frames
        assert b"Brawl" not in frames.replace(b'"roll_sources":[{"category":"ability","name":"Brawl"}]', b"")
    before = t.replayed()
    assert narrate(before, t.log[-1].event, "juan") == "Sam rolls (sealed until both are in)."
    assert "1, 2" in narrate(before, t.log[-1].event, "sam") and "Brawl" in narrate(before, t.log[-1].event, "st")
    # both in: both sides' dice, for everyone
    t.entropy = entropy_for(2)
    t.do("juan", "roll", challenge="c")
    for viewer in ("sam", "juan", "*"):
        seen = view(t.state, viewer).challenges["c"]
        assert seen.tests[0].dice == {"sam": (1, 2), "juan": (3,)} and seen.rolls == {}
        assert seen.outcome is not None and seen.outcome.winner == "challenger"
    revealed = next(r for r in t.log if r.type == "test_revealed")
    assert narrate(before, revealed.event, "*") == "Test 1, the dice: Sam 1, 2 (1 success); Juan 3 (0 successes)."


def test_the_roll_offers_its_dice_and_the_sources_that_fit() -> None:
    """Abilities that fit the challenge with levels left, powers, merits; not Occult in a Physical
    challenge (kony:d3-test)."""
    t = kony()
    punch(t)
    found = offered(t, "sam")
    assert found is not None and found.verbs == ["call_negative", "roll"]
    assert found.dice == 1 and found.dice_why == "1 + 0 retests = 1 d3"
    assert found.roll_sources == [AbilitySource(name="Brawl"), PowerSource(name="Potence"), MeritSource(name="Lucky")]
    assert not found.enter  # the server rolls: only the ST enters dice by hand
    juan = offered(t, "juan")
    assert juan is not None and juan.roll_sources == [AbilitySource(name="Brawl")]
    t.do("sam", "roll", challenge="c")
    assert offered(t, "sam") is None  # rolled: nothing to do but wait


def test_players_may_enter_their_own_dice_where_the_scene_says() -> None:
    t = kony(dice="players")
    punch(t)
    found = offered(t, "sam")
    assert found is not None and found.enter


def test_a_combat_sheets_retests_and_a_surprise_die() -> None:
    npc = sheet("mook", {"Strong": 3}, npc=True, combat_sheet=True, retests=2)
    t = kony(SAM, npc)
    t.do("sam", "declare", challenge="c", kind="contested", targets=["mook"], category="physical", bid=["Brawny"],
         victory="I punch him", surprise=True)  # fmt: skip
    t.do("st", "bid", character="mook", challenge="c", bid=["Strong"])
    sam = offered(t, "sam")
    assert sam is not None and sam.dice == 2 and "surprise" in sam.dice_why
    mook = view(t.state, NARRATOR).challenges["c"].moves["mook"]
    assert "roll" in mook.verbs and mook.roll_sources == [SheetSource(), SheetSource()]
    assert "mook" not in view(t.state, "sam").challenges["c"].moves


def test_ones_own_trait_pool_with_its_cap() -> None:
    big = sheet("sam", {f"T{i}": 1 for i in range(35)}, name="Sam")
    t = kony(big, JUAN)
    punch_big = dict(kind="contested", targets=["juan"], category="physical", bid=["T0"], victory="x")
    t.do("sam", "declare", challenge="c", **punch_big)
    mine = view(t.state, "sam").challenges["c"].trait_pools
    assert mine == {
        "sam": TraitPool(
            total=30, why="Sam's pool of 30 (Physical 35, capped at 30)", cap=30, counted="Physical 35, capped at 30"
        )
    }
    assert set(view(t.state, NARRATOR).challenges["c"].trait_pools) == {"sam", "juan"}
    assert view(t.state, "juan").challenges["c"].trait_pools == {
        "juan": TraitPool(total=4, why="Juan's pool of 4 (Physical 4)", cap=30, counted="Physical 4")
    }
    assert view(t.state, "*").challenges["c"].trait_pools == {}


def test_the_loser_with_a_double_pool_is_offered_the_overbid() -> None:
    strong = sheet("sam", {"Brawny": 8, "Quick": 2}, name="Sam")
    t = kony(strong, JUAN)
    punch(t)
    t.entropy = entropy_for(2)
    t.do("sam", "roll", challenge="c")
    t.entropy = entropy_for(0)
    t.do("juan", "roll", challenge="c")
    assert view(t.state, "sam").challenges["c"].status == "retest_window"
    sam = offered(t, "sam")
    assert sam is not None and "retest" in sam.verbs
    assert sam.retest == [OverbidSource(bid=["Brawny"])]  # only the overbid: every other retest is a die
    assert offered(t, "juan") is None or "retest" not in offered(t, "juan").verbs  # type: ignore[union-attr]


def test_round_moves_escape_expenditures_feed() -> None:
    t = kony()
    t.do("st", "start_round")
    sam = view(t.state, "sam").characters["sam"]
    assert sam.round_moves == RoundMoves(verbs=["fair_escape"])
    assert view(t.state, "sam").characters["juan"].round_moves is None  # another's: never shown
    assert view(t.state, "*").characters["sam"].round_moves is None
    t.do("sam", "declare_action", action={"kind": "challenge", "category": "physical", "target": "juan"})
    assert view(t.state, "juan").characters["juan"].round_moves is None  # too late to escape
    t.do("juan", "declare_action", action={"kind": "challenge", "category": "physical", "target": "sam"})
    assert view(t.state, "sam").characters["sam"].round_moves == RoundMoves(verbs=["expenditures_done"])
    t.do("sam", "expenditures_done")
    assert view(t.state, "sam").characters["sam"].round_moves is None
    assert view(t.state, "juan").characters["sam"].expended  # who is done is public
    t.do("juan", "expenditures_done")
    t.do("sam", "declare", challenge="g", kind="contested", targets=["juan"], category="physical", bid=["Brawny"],
         victory="I hold him", effect={"kind": "grapple"})  # fmt: skip
    t.do("juan", "bid", challenge="g", bid=["Strong"])
    t.entropy = entropy_for(0, 0)
    t.do("sam", "roll", challenge="g", retests=[BRAWL])
    t.entropy = entropy_for(2)
    t.do("juan", "roll", challenge="g")
    assert t.state.characters["sam"].conditions.grappling == ("juan",)
    t.do("st", "end_round")
    t.do("st", "start_round")
    t.do("sam", "declare_action", action={"kind": "other", "what": "feed"})
    t.do("juan", "declare_action", action={"kind": "challenge", "category": "physical", "target": "sam"})
    t.do("sam", "expenditures_done")
    t.do("juan", "expenditures_done")
    assert t.state.round is not None and t.state.round.turn == ("sam",)
    assert view(t.state, "sam").characters["sam"].round_moves == RoundMoves(verbs=["feed"], feed={"juan": 3})
    assert view(t.state, "juan").characters["sam"].round_moves is None
    t.do("sam", "feed", target="juan", blood=2)
    assert view(t.state, "sam").characters["sam"].round_moves is None  # its action is spent


def test_the_defender_is_offered_its_own_victory_condition_and_everyone_sees_it() -> None:
    t = kony()
    t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", bid=["Brawny"],
         victory="I punch him")  # fmt: skip
    answer = offered(t, "juan")
    assert answer is not None and "bid" in answer.verbs and answer.effect
    assert not (offered(t, "sam") or Moves()).effect  # the challenger declared its own
    t.do("juan", "bid", challenge="c", bid=["Strong"], effect={"kind": "damage", "amount": 2, "type": "lethal"})
    for viewer in ("sam", "juan", "*", NARRATOR):
        assert view(t.state, viewer).challenges["c"].defender_effect == Damage(amount=2, type="lethal")


def test_the_defender_is_not_offered_an_effect_where_the_ruleset_has_none() -> None:
    t = Table("lotn")
    for s in (SAM, JUAN):
        t.do("st", "add_character", character=s)
    t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", bid=["Brawny"],
         victory="I punch him")  # fmt: skip
    answer = offered(t, "juan")
    assert answer is not None and "bid" in answer.verbs and not answer.effect


def test_the_storyteller_sees_what_each_side_still_to_roll_may_name() -> None:
    t = kony()
    punch(t)
    st = view(t.state, NARRATOR).challenges["c"].to_roll
    assert st["sam"].dice == 1 and st["sam"].sources == [
        AbilitySource(name="Brawl"),
        PowerSource(name="Potence"),
        MeritSource(name="Lucky"),
    ]
    assert st["juan"].sources == [AbilitySource(name="Brawl")]
    assert view(t.state, "sam").challenges["c"].to_roll == {}  # the Storyteller's alone
    t.entropy = entropy_for(0, 1)
    t.do("st", "roll", challenge="c", character="sam", retests=[BRAWL], values=[1, 3])
    assert list(view(t.state, NARRATOR).challenges["c"].to_roll) == ["juan"]


def test_the_round_view_says_narrative_and_when_the_end_of_round_has_come() -> None:
    """kony:narrative and kony:end-of-round, as every viewer's round view shows them."""
    beast = sheet("beast", {"Monstrous": 9}, npc=True, combat_sheet=True)
    t = kony(SAM, JUAN, beast)
    t.do("st", "start_round", narrative=True)
    for who in ("sam", "juan"):
        t.do(who, "declare_action", action={"kind": "challenge", "category": "physical", "target": "beast"})
    t.do("st", "declare_action", character="beast", action={"kind": "none"})
    for who in ("sam", "juan", "beast"):
        t.do("st", "expenditures_done", character=who)
    r = view(t.state, "*").round
    assert r is not None and r.narrative and not r.normal_over and r.phase == "acting"
    for who in ("beast", "sam", "juan"):
        t.do("st", "end_turn", character=who)
    r = view(t.state, "sam").round
    assert r is not None and r.normal_over
