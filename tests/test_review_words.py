"""Words the new-user review found wrong (review items 4, 8, 12, 15), in the projections: each
ledger entry quotes its own rule, an overbid's offer says what it risks and needs, and a ledger
names the character who lost a test."""

from __future__ import annotations

from projections.ledger import ledgers
from projections.views import view
from tests.night.table import JUAN, NightTable
from tests.table import Table, sheet

SAM = sheet("sam", {"Brawny": 1, "Quick": 1}, name="Sam")
LIA = sheet("lia", {"Nimble": 2}, name="Lia")
HIT = {"kind": "damage", "amount": 1, "type": "bashing"}


def night_with(*sheets: dict[str, object]) -> NightTable:
    t = NightTable()
    t.open_game("g1", *sheets)
    t.open_scene("lot", title="The parking lot")
    for s in sheets:
        t.move(str(s["id"]), "lot")
    return t


def entries(t: NightTable, who: str) -> list[tuple[str, str]]:
    scenes = {s: t.log(s) for s in t.store.scenes() if s != "g1"}
    book = {b.character: b for b in ledgers(t.log("g1"), scenes)}
    return [(e.what, e.rule) for e in book[who].entries]


def test_damage_taken_as_declared_quotes_no_test_or_trait_loss_rule() -> None:
    """Review 4: "Sam takes 1 bashing damage" quoted the Trait-loss rule (the step before it in the
    same command); damage as declared cites no rule of its own, so the entry quotes none."""
    t = night_with(SAM, JUAN)
    t.ok("lot", "juan", "declare", challenge="c", kind="contested", targets=["sam"], category="physical",
         bid=["Wiry"], effect=HIT)  # fmt: skip
    t.ok("lot", "sam", "bid", challenge="c", bid=["Brawny"])
    t.ok("lot", "juan", "throw", challenge="c", sign="rock")
    t.ok("lot", "sam", "throw", challenge="c", sign="scissors")
    t.ok("lot", "sam", "pass", challenge="c")
    assert entries(t, "sam") == [
        ("Sam loses Brawny (Physical)", "lotn:trait-loss"),
        ("Sam takes 1 bashing damage", ""),  # not lotn:trait-loss, not lotn:rps
    ]


def test_an_overbids_losses_name_the_character_and_each_quotes_its_own_rule() -> None:
    """Review 4 and 12: Lia's overbid lost two Nimble and 1 bashing; the ledger said "it lost the
    test" and quoted "Rock crushes Scissors" (lotn:rps) for the damage."""
    t = night_with(SAM, LIA)
    t.ok("lot", "sam", "declare", challenge="c", kind="contested", targets=["lia"], category="physical",
         bid=["Brawny"], effect=HIT)  # fmt: skip
    t.ok("lot", "lia", "bid", challenge="c", bid=["Nimble"])
    t.ok("lot", "sam", "throw", challenge="c", sign="scissors")
    t.ok("lot", "lia", "throw", challenge="c", sign="paper")
    t.ok("lot", "lia", "retest", challenge="c", source={"category": "overbid", "bid": ["Nimble"]})
    t.ok("lot", "lia", "declare_traits", challenge="c", count=1)
    t.ok("lot", "sam", "declare_traits", challenge="c", count=2)  # 1 is less than double 2: it fails
    t.ok("lot", "lia", "pass", challenge="c")
    scenes = {s: t.log(s) for s in t.store.scenes() if s != "g1"}
    [lia] = [b for b in ledgers(t.log("g1"), scenes) if b.character == "lia"]
    called, failed, hurt = lia.entries
    assert called.what == "Lia loses Nimble (Physical)"  # the loss said once, its reason after it
    assert called.why == "Lia lost the test, and an overbid risks a new Trait"
    assert "it lost" not in " ".join(e.why for e in lia.entries)
    assert (called.rule, failed.rule, hurt.rule) == ("lotn:overbid", "lotn:overbid", "")
    assert hurt.what == "Lia takes 1 bashing damage"


def tied_at_five() -> Table:
    """Marcus and Rosa tie at 5 Physical Traits each: a draw, and both may overbid."""
    t = Table()
    t.add("rosa", {"Brawny": 3, "Quick": 2})
    t.add("marcus", {"Wiry": 5})
    t.contest("d", "marcus", "rosa", "Wiry", "Brawny")
    t.test("d", "rock", "rock")
    t.do("marcus", "declare_traits", challenge="d", count=5)
    t.do("rosa", "declare_traits", challenge="d", count=5)
    return t


def test_a_hopeless_overbid_says_what_it_risks_and_needs() -> None:
    """Review 8: Rosa at 5 against Marcus's declared 5 was offered "Overbid (risking Brawny)" with
    no word of its odds; the offer now says what it risks and that it needs double. Round 2: the
    tie form said "at most 5" and the offer "you have only 4" with no word why: it says which Trait
    goes as the overbid is called."""
    t = tied_at_five()
    rosa = view(t.state, "rosa").challenges["d"].moves["rosa"]
    assert {"category": "overbid", "bid": ["Brawny"]} in [{"category": s.category, "bid": getattr(s, "bid", None)}
                                                           for s in rosa.retest]  # fmt: skip
    assert rosa.overbid == (
        "Overbid: risk Brawny (lost too if it fails); you need at least double Marcus's Physical Traits for a "
        "new test: 10 against the 5 Marcus declared, and you have only 4 (5 less the Brawny bid on the test, lost as "
        "the overbid is called), so it fails unless Marcus declares fewer."
    )


def test_an_overbid_against_an_undeclared_count_says_what_the_other_must_declare() -> None:
    """The other side's count is hidden until declared: the offer says only what it would take,
    from the player's own count (after the bid Trait the overbid loses at once)."""
    t = Table()
    t.add("sam", {"Brawny": 4})
    t.add("lia", {"Nimble": 2})
    t.contest("c", "sam", "lia", "Brawny", "Nimble")
    t.test("c", "scissors", "paper")
    lia = view(t.state, "lia").challenges["c"].moves["lia"]
    assert lia.overbid == (
        "Overbid: risk Nimble (lost too if it fails); you need at least double Sam's Physical Traits for a new "
        "test: you have 1 (2 less the Nimble bid on the test, lost as the overbid is called), so Sam must "
        "declare none."
    )
    assert view(t.state, "sam").challenges["c"].moves.get("sam") is None  # the winner has no overbid
    assert "4" not in lia.overbid  # nothing of Sam's hidden count


def test_an_overbid_on_a_static_challenge_counts_against_the_difficulty() -> None:
    """lotn:static-overbid: the difficulty is known, so an overbid that cannot succeed is not offered
    (issue 27: "a hopeless overbid is offered as a button"); one that can says what it needs."""
    t = Table()
    t.add("sam", {"Brawny": 2, "Quick": 2})
    t.do("sam", "declare", challenge="s", kind="static", category="physical", bid=["Brawny"], difficulty=3)
    t.do("st", "record_test", challenge="s", signs={"sam": "rock", "st": "paper"})
    sam = view(t.state, "sam").challenges["s"].moves["sam"]
    assert [s.category for s in sam.retest if s.category == "overbid"] == []  # 3 left can never double 3
    assert sam.overbid == ""
    t = Table()
    t.add("sam", {"Brawny": 2, "Quick": 2})
    t.do("sam", "declare", challenge="s", kind="static", category="physical", bid=["Brawny"], difficulty=1)
    t.do("st", "record_test", challenge="s", signs={"sam": "rock", "st": "paper"})
    sam = view(t.state, "sam").challenges["s"].moves["sam"]
    assert sam.overbid == (
        "Overbid: risk Brawny (lost too if it fails); you need at least double the difficulty for a new test: "
        "2 against the difficulty of 1, and you have 3 (4 less the Brawny bid on the test, lost as the overbid is "
        "called)."
    )
