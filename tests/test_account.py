"""One account of each challenge (projections.account): what each side put up, the tests, the
verdict with what it cost, what winning will do while it is open, the rulings and their reasons;
redacted and said to each viewer the way the view is."""

from __future__ import annotations

from projections.account import EffectLine, account, costs, for_viewer
from projections.views import view
from tests.domain.test_bns import bns, shoot
from tests.domain.test_damage_explained import punch
from tests.domain.test_kony import attack, duel
from tests.table import Table


def overbid_table() -> Table:
    t = Table()
    t.add("favian", traits={"social": {"Beguiling": 3, "Seductive": 3}})
    t.add("endora", traits={"social": {"Dignified": 2}})
    t.contest("flattery", "favian", "endora", "Beguiling", "Dignified", category="social")
    t.test("flattery", "rock", "paper")  # Endora wins the first test
    t.do("favian", "retest", challenge="flattery", source={"category": "overbid", "bid": ["Seductive"]})
    t.do("favian", "declare_traits", challenge="flattery", count=5)
    t.do("endora", "declare_traits", challenge="flattery", count=2)
    t.test("flattery", "scissors", "paper")
    t.do("endora", "pass", challenge="flattery")
    return t


def test_an_overbid_keeps_the_first_bid_apart_from_the_trait_risked() -> None:
    """The demo's case: Favian bid Beguiling and risked Seductive on the overbid; the account never
    says he bid Seductive."""
    t = overbid_table()
    favian = account(t.state, t.challenge("flattery")).sides[0]
    assert (favian.bid, favian.risked) == (["Beguiling"], ["Seductive"])
    assert favian.words == "Favian bids Beguiling (lost on the overbid); on the overbid, Favian risks Seductive"
    mine = for_viewer(t.state, t.challenge("flattery"), "favian", ("Favian", ("Endora",))).sides[0]
    assert mine.words == "You bid Beguiling (lost on the overbid); on the overbid, you risk Seductive"


def test_each_test_is_said_once_and_the_verdict_does_not_repeat_it() -> None:
    t = overbid_table()
    told = account(t.state, t.challenge("flattery"))
    assert [x.words for x in told.tests] == [
        "Favian threw rock, Endora threw paper: Endora wins the test.",
        "Favian threw scissors, Endora threw paper: Favian wins the test.",
    ]
    assert told.verdict is not None
    assert told.verdict.words == "Favian won: Endora loses Dignified"
    assert [(e.words, e.rule) for e in told.effects] == [
        ("Favian loses Beguiling", "lotn:overbid"),  # on the way: the overbid's first bid
        ("Endora loses Dignified", "lotn:trait-loss"),
    ]
    assert told.verdict.why == "Favian wins the challenge."  # the last test's words are on its own line
    assert [r.words for r in told.retests] == [
        "After test 1, Favian retests with an overbid, risking Seductive: it stands, and the test is thrown again"
    ]


def test_a_bns_side_shows_its_pool_make_up_and_the_other_side_sees_it_only_once_thrown() -> None:
    t = bns()
    shoot(t)
    ch = t.challenge("shot")
    mine = {s.who: s for s in for_viewer(t.state, ch, "vincent", ("Vincent", ("Hunter", "Brute"))).sides}
    assert mine["vincent"].words == "Your dodge pool: Physical 3 + Dodge 2 + 1 (cover) = 6"
    assert mine["hunter"].pool is None and mine["hunter"].words == "The hunter's pool is kept secret until the test"
    st = {s.who: s for s in for_viewer(t.state, ch, "st", None).sides}
    assert st["hunter"].pool is not None and "Firearms 3" in st["hunter"].words
    t.do("vincent", "throw", challenge="shot", sign="rock")
    t.do("st", "throw", character="hunter", challenge="shot", sign="rock")
    seen = {s.who: s for s in for_viewer(t.state, t.challenge("shot"), "*", None).sides}
    assert seen["hunter"].pool is not None and seen["vincent"].pool is not None


def test_stakes_are_what_the_ruleset_will_apply_and_then_does() -> None:
    """Feral Claws and Puissance: the stake says 2 aggravated before the test, as the result does
    after it (not the 1 lethal declared)."""
    t = Table("camarilla")
    t.add("jimmy", {"Brawny": 3}, powers=["Feral Claws", "Puissance"])
    t.add("frank", {"Wiry": 3})
    effect = {"kind": "damage", "amount": 1, "type": "lethal"}
    t.contest("hit", "jimmy", "frank", "Brawny", "Wiry", effect=effect, victory="I rip him", power="Feral Claws")
    before = account(t.state, t.challenge("hit"))
    win = next(s for s in before.stakes if s.winner == "challenger")
    assert win.words == "If Jimmy wins: Frank loses Wiry; Frank takes 2 aggravated damage"
    assert win.effects[1].why == "1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
    assert "Jimmy uses Feral Claws on Frank" in before.in_play
    said_to_frank = for_viewer(t.state, t.challenge("hit"), "frank", ("Frank", ("Jimmy",)))
    assert "If Jimmy wins: you lose Wiry; you take 2 aggravated damage" in [s.words for s in said_to_frank.stakes]
    t.test("hit", "paper", "rock")
    t.do("frank", "pass", challenge="hit")
    after = account(t.state, t.challenge("hit"))
    assert after.stakes == []
    assert [(e.words, e.why) for e in after.effects] == [(e.words, e.why) for e in win.effects]


def test_a_bns_grapple_maneuver_is_staked_as_the_grapple_it_is() -> None:
    t = bns()
    t.do(
        "brute",
        "declare",
        challenge="grab",
        kind="contested",
        targets=["vincent"],
        category="physical",
        pool={"attack": "unarmed"},
        maneuver="grapple",
        effect={"kind": "damage", "amount": 1, "type": "bashing"},
        victory="I hold him",
    )
    told = account(t.state, t.challenge("grab"))
    assert "(Physical · Grapple)" in told.title
    win = next(s for s in told.stakes if s.winner == "challenger" and not s.exceptional)
    assert "bashing" not in win.words and "grapples Vincent" in win.words, win.words


def test_a_ruling_s_reason_reaches_the_result_and_stand_lists_only_what_was_played() -> None:
    t = Table()
    t.add("sam", {"Brawny": 3})
    t.add("michael", {"Wiry": 3})
    punch(t, "sam", "michael", "Brawny", "Wiry", {"kind": "damage", "amount": 1, "type": "bashing"})
    result = t.state.challenges["hit"].resolved_seq
    t.do("michael", "declare", challenge="later", kind="contested", targets=["sam"], category="physical", bid=["Wiry"])
    t.do("michael", "withdraw", challenge="later")
    t.do("st", "rule", event=result, decision="overturn", reason="Michael had cover behind the bar")
    told = account(t.state, t.challenge("hit"))
    assert (
        told.verdict is not None
        and told.verdict.ruled == "overturned by the Storyteller: Michael had cover behind the bar"
    )
    assert told.verdict.before == "Sam won"
    (ruling,) = told.rulings
    assert ruling.reason == "Michael had cover behind the bar" and ruling.stand == []
    assert "stand as played" not in t.state.rulings[-1].why  # the withdrawn challenge is not listed
    card = view(t.state, "michael").challenges["hit"].account
    assert card is not None and card.verdict is not None
    assert card.verdict.tone == "won" and "Michael had cover" in card.verdict.ruled


def test_losses_are_counted_not_said_twice() -> None:
    """The terminal once said "Brawny is gone for the night; Brawny is gone for the night": a Trait
    lost twice is counted, and every other effect is said once beside it."""
    lines = [
        EffectLine(kind="trait_lost", who="sam", words="Sam loses Brawny", rule="kony:trait-loss", trait="Brawny"),
        EffectLine(kind="trait_lost", who="sam", words="Sam loses Brawny", rule="kony:trait-loss", trait="Brawny"),
        EffectLine(kind="armor_damaged", who="sam", words="Sam's armour takes 1", amount=1),
    ]
    t = Table()
    t.add("sam", {"Brawny": 3})
    assert costs(t.state, lines) == ["Sam loses Brawny ×2", "Sam's armour takes 1"]


def test_the_armour_a_target_has_left_is_not_told_to_others_before_the_test() -> None:
    """kony:damage-order: armour takes damage first; how much a target has left is its own (the
    view shows it to its player and the ST), so a stake says the amount dealt to anyone else."""
    t = duel(juan={"armor": 1})
    attack(t, effect={"kind": "damage", "amount": 2, "type": "lethal"})
    ch = t.challenge("c")
    own = next(s for s in for_viewer(t.state, ch, "st", None).stakes if s.winner == "challenger")
    assert own.words.endswith("Juan's armour takes 1; Juan takes 1 lethal damage")
    seen = next(s for s in for_viewer(t.state, ch, "sam", ("Sam", ("Juan",))).stakes if s.winner == "challenger")
    assert "armour" not in seen.words and seen.words.endswith("Juan takes 2 lethal damage"), seen.words
    assert for_viewer(t.state, ch, "*", None).stakes == []  # stakes are for those who act on them
    juan = next(s for s in for_viewer(t.state, ch, "juan", ("Juan", ("Sam",))).stakes if s.winner == "challenger")
    assert "your armour takes 1" in juan.words.lower()
