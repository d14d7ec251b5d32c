"""The worked examples of laws-of-the-night-challenges.txt, played as written."""

from __future__ import annotations

from tests.table import Table, types


def test_sam_and_juan() -> None:
    """Sam and Juan both throw Rock; Sam declares all nine Traits, Juan has eight: Juan loses the
    Trait he bid and a health level (lotn:ties, lotn:trait-loss)."""
    t = Table()
    t.add("sam", {"Ferocious": 1, "Brawny": 2, "Quick": 2, "Tough": 2, "Wiry": 1, "Nimble": 1})
    t.add("juan", {"Brutal": 2, "Quick": 2, "Tireless": 2, "Dexterous": 1, "Lithe": 1})
    t.contest(
        "guitar",
        "sam",
        "juan",
        "Ferocious",
        "Brutal",
        effect={"kind": "damage", "amount": 1},
        victory="I take a Ferocious swipe at you with my guitar!",
    )
    t.test("guitar", "rock", "rock")
    t.do("sam", "declare_traits", challenge="guitar", count=9)
    t.do("juan", "declare_traits", challenge="guitar", count=8)
    t.do("juan", "pass", challenge="guitar")
    outcome = t.challenge("guitar").outcome
    assert outcome is not None and outcome.winner == "challenger" and outcome.rule == "lotn:ties"
    assert t.lost("juan") == ["Brutal"] and t.lost("sam") == []
    assert t.character("juan").wounds.total == 1


def test_joshua_and_marsilio() -> None:
    """Joshua calls Lethargic; Marsilio has no such Negative Trait, so Joshua must bid an extra Trait
    to go on (lotn:negative-traits)."""
    t = Table()
    t.add("joshua", {"Ferocious": 2, "Brawny": 2})
    t.add("marsilio", {"Quick": 2, "Graceful": 2}, negative_traits={"social": ["Callous"]})
    t.contest("claws", "joshua", "marsilio", "Ferocious", "Quick")
    (call,) = t.do("joshua", "call_negative", challenge="claws", trait="Lethargic")
    assert not call.correct and call.owed_by == "joshua"  # type: ignore[union-attr]
    t.refused("marsilio", "throw", challenge="claws", sign="rock", code="bids_owed")
    t.do("joshua", "bid", challenge="claws", bid=["Brawny"])
    assert t.challenge("claws").challenger.bids == ("Ferocious", "Brawny")
    t.test("claws", "rock", "paper")
    t.do("joshua", "pass", challenge="claws")
    assert t.lost("joshua") == ["Ferocious", "Brawny"] and t.lost("marsilio") == []


def test_favian_and_endora() -> None:
    """Favian loses the test, overbids with Seductive, shows 14 Social Traits to Endora's 5, wins
    the new test: Endora loses Dignified, Favian still loses Beguiling and wins the challenge
    (lotn:overbid, lotn:overbid-double)."""
    t = Table()
    t.add("favian", traits={"social": {"Beguiling": 3, "Seductive": 3, "Charismatic": 4, "Eloquent": 5}})
    t.add("endora", traits={"social": {"Dignified": 2, "Diplomatic": 3}, "mental": {"Studious": 3}})
    t.contest(
        "coax",
        "favian",
        "endora",
        "Beguiling",
        "Dignified",
        category="social",
        victory="You tell me what I want to know",
    )
    t.test("coax", "rock", "paper")
    t.do("favian", "retest", challenge="coax", source={"category": "overbid", "bid": ["Seductive"]})
    t.do("favian", "declare_traits", challenge="coax", count=14)
    events = t.do("endora", "declare_traits", challenge="coax", count=5)
    assert types(events)[-1] == "overbid_succeeded"
    t.test("coax", "scissors", "paper")
    t.do("endora", "pass", challenge="coax")
    assert t.challenge("coax").outcome.winner == "challenger"  # type: ignore[union-attr]
    assert t.lost("endora") == ["Dignified"]
    assert t.lost("favian") == ["Beguiling"]
    assert t.challenge("coax").challenger.bids == ("Seductive",)


def test_daron_and_michael() -> None:
    """Daron loses, retests with Firearms and wins: Michael is shot. Michael loses the next test,
    retests with Brawl, Daron blocks with Dodge: no retest, Daron is out of reach
    (lotn:retests, lotn:retest-cancel)."""
    t = Table(options={"cross_category_bids": True})  # a Wily plan behind a gunshot, by agreement
    t.add(
        "daron",
        {"Nimble": 2, "Quick": 2},
        traits={"mental": {"Wily": 2}},
        abilities={"Firearms": 1, "Dodge": 1},
    )
    t.add("michael", {"Quick": 1, "Dexterous": 1, "Brawny": 2}, abilities={"Brawl": 1})
    t.contest("shot", "daron", "michael", "Wily", "Quick", effect={"kind": "damage", "amount": 1, "type": "lethal"})
    t.test("shot", "scissors", "rock")
    t.do("daron", "retest", challenge="shot", source={"category": "ability", "name": "Firearms"})
    t.do("michael", "pass", challenge="shot")
    t.test("shot", "paper", "rock")
    t.do("michael", "pass", challenge="shot")
    assert t.challenge("shot").outcome.winner == "challenger"  # type: ignore[union-attr]
    assert t.character("michael").wounds.lethal == 1

    t.contest("grab", "michael", "daron", "Dexterous", "Nimble", victory="I yank the gun from your grasp")
    t.test("grab", "scissors", "rock")
    t.do("michael", "retest", challenge="grab", source={"category": "ability", "name": "Brawl"})
    t.do("daron", "cancel_retest", challenge="grab", source={"category": "ability", "name": "Dodge"})
    assert len(t.challenge("grab").tests) == 1
    t.do("michael", "pass", challenge="grab")
    assert t.challenge("grab").outcome.winner == "defender"  # type: ignore[union-attr]
    assert t.character("michael").abilities["Brawl"] == 0 and t.character("daron").abilities["Dodge"] == 0
    assert t.lost("michael") == ["Quick", "Dexterous"]
