"""What winning will do, before the test (``domain.stakes``), in worked cases with their values: a
LotN overbid, camarilla Feral Claws and Puissance, a mob that chooses, a bns grapple maneuver and
an exceptional success, a kony fight with armour and the defender's own victory condition; and
the words of each (``projections.account``), and the preview of a would-be declaration
(``server.wire.stakes_preview``), which appends nothing. Each case is then played out and the log
checked by ``tests.test_stakes_properties.check_stakes``: the stakes shown were what happened."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.commands import Declare
from domain.events import ArmorDamaged, DamageTaken, GrappleStarted, KnockedDown, TraitLost
from domain.stakes import Stake, stakes
from projections.account import stake_title, stake_words
from server.wire import StakesPreview, encode, outgoing_decoder, stakes_preview
from tests.table import Table
from tests.test_stakes_properties import check_stakes

JIMMY = {
    "id": "jimmy",
    "name": "Jimmy",
    "blood": 10,
    "abilities": {"Brawl": 2},
    "traits": {"physical": {"Brawny": 3, "Quick": 2}},
    "powers": {"Feral Claws": 1, "Puissance": 2},
}
FRANK = {"id": "frank", "name": "Frank", "traits": {"physical": {"Wiry": 2}}}
CARL = {"id": "carl", "name": "Carl", "traits": {"physical": {"Quick": 2}}}
CLAWS = {"kind": "damage", "amount": 1, "type": "lethal"}


def one(shown: tuple[Stake, ...], winner: str, **way: Any) -> Stake:
    """The one stake for ``winner`` (and ``exceptional``, ``relent``, ``chosen`` as given)."""
    found = [
        s
        for s in shown
        if s.winner == winner
        and s.exceptional == way.get("exceptional", False)
        and s.relent == way.get("relent", False)
        and s.chosen == way.get("chosen")
    ]
    assert len(found) == 1, shown
    return found[0]


def words(t: Table, cid: str) -> dict[str, list[str]]:
    """Each stake's words under its heading."""
    ch = t.challenge(cid)
    return {stake_title(t.state, ch, s): stake_words(t.state, s) for s in stakes(t.state, cid)}


class TestLotn:
    def test_an_overbid_risks_the_new_trait_only(self) -> None:
        """lotn:overbid: the first bid is lost as the overbid is made; what the next test risks is
        the new Trait, and the stakes say so."""
        t = Table("lotn")
        t.add("sam", {"Brawny": 3, "Tough": 2}, abilities={"Brawl": 1})
        t.add("juan", {"Quick": 1})
        t.contest("x", "sam", "juan", "Brawny", "Quick", effect={"kind": "damage", "amount": 1})
        assert words(t, "x")["If Juan wins"] == ["Sam loses Brawny"]
        t.test("x", "rock", "paper")
        t.do("sam", "retest", challenge="x", source={"category": "overbid", "bid": ["Tough"]})
        t.do("sam", "declare_traits", challenge="x", count=4)
        t.do("juan", "declare_traits", challenge="x", count=1)  # 4 against 1: a new test
        assert words(t, "x") == {
            "If Sam wins": ["Juan loses Quick", "Juan takes 1 bashing damage"],
            "If Juan wins": ["Sam loses Tough"],
            "If it is a draw": ["Sam loses Tough", "Juan loses Quick"],
        }
        lost = one(stakes(t.state, "x"), "defender").events
        assert lost == (
            TraitLost(
                character="sam",
                trait="Tough",
                category="physical",
                challenge="x",
                why="Sam loses Tough: the loser loses the Traits bid, for the rest of the session.",
                rule="lotn:trait-loss",
            ),
        )
        t.test("x", "paper", "scissors")
        t.do("sam", "pass", challenge="x")
        assert t.lost("sam") == ["Brawny", "Tough"]
        [checked] = check_stakes(t.log)
        assert checked.stake.winner == "defender" and checked.applied == lost

    def test_a_relent_loses_no_trait(self) -> None:
        """lotn: the defender who relents loses no Trait; the effect lands all the same."""
        t = Table("lotn")
        t.add("sam", {"Brawny": 1})
        t.add("juan", {"Quick": 1})
        t.do("sam", "declare", challenge="x", kind="contested", targets=["juan"], category="physical",
             bid=["Brawny"], effect={"kind": "knock_down"})  # fmt: skip
        assert words(t, "x")["If Juan relents"] == ["Juan is knocked prone"]
        t.do("juan", "relent", challenge="x")
        [checked] = check_stakes(t.log)
        assert checked.stake.relent and checked.applied == (KnockedDown(character="juan", challenge="x"),)


class TestCamarilla:
    def table(self) -> Table:
        t = Table("camarilla")
        for sheet in (JIMMY, FRANK, CARL):
            t.do("st", "add_character", character=sheet)
        return t

    def test_feral_claws_and_puissance(self) -> None:
        """camarilla:stacking: 1 lethal with Feral Claws, led by a Strength Trait with Puissance on
        the sheet, lands as 2 aggravated, and the stakes say so and why."""
        t = self.table()
        t.contest("x", "jimmy", "frank", "Brawny", "Wiry", power="Feral Claws", effect=CLAWS)
        won = one(stakes(t.state, "x"), "challenger").events
        assert won[-1] == DamageTaken(
            character="frank",
            amount=2,
            damage="aggravated",
            challenge="x",
            why="1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1.",
            rule="camarilla:stacking",
        )
        assert words(t, "x")["If Jimmy wins"] == [
            "Frank loses Wiry",
            "Frank takes 2 aggravated damage: 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1.",
        ]
        t.test("x", "rock", "scissors")
        t.do("frank", "pass", challenge="x")
        assert t.character("frank").wounds.aggravated == 2
        [checked] = check_stakes(t.log)
        assert checked.applied == won

    def test_puissance_needs_a_strength_lead(self) -> None:
        """Puissance adds only when the attack leads with a Strength Trait (Quick is Dexterity)."""
        t = self.table()
        t.contest("x", "jimmy", "frank", "Quick", "Wiry", effect=CLAWS)
        assert words(t, "x")["If Jimmy wins"] == ["Frank loses Wiry", "Frank takes 1 lethal damage"]

    def test_a_mob_wins_and_its_champion_chooses(self) -> None:
        """camarilla:mob-victory: a winning mob applies the one victory condition its champion
        chooses; the stakes list each, the Traits the target risks lost in every one."""
        t = self.table()
        t.do("jimmy", "declare", challenge="m", kind="contested", targets=["frank"], category="physical",
             bid=["Brawny"], power="Feral Claws", effect=CLAWS)  # fmt: skip
        t.do("carl", "join", challenge="m", bid=["Quick"], effect={"kind": "knock_down"})
        t.do("frank", "bid", challenge="m", bid=["Wiry", "Wiry"])
        shown = stakes(t.state, "m")
        assert [s.chosen for s in shown if s.winner == "challenger" and not s.relent] == ["jimmy", "carl"]
        assert words(t, "m")["If the mob of Jimmy wins and Carl's victory condition is chosen"] == [
            "Frank loses Wiry",
            "Frank loses Wiry",
            "Frank is knocked prone",
        ]
        assert words(t, "m")["If Frank wins"] == ["Jimmy loses Brawny", "Carl loses Quick"]
        t.test("m", "rock", "scissors")
        t.do("frank", "pass", challenge="m")
        t.do("jimmy", "choose_victory", challenge="m", of="carl")
        [checked] = check_stakes(t.log)
        assert checked.stake == one(shown, "challenger", chosen="carl")
        assert checked.applied[-1] == KnockedDown(character="frank", challenge="m")


BNS_A = {
    "id": "a",
    "name": "Ann",
    "willpower": 2,
    "attributes": {"physical": 6, "social": 3, "mental": 4},
    "skills": {"brawl": 2, "dodge": 1},
}
BNS_C = {
    "id": "c",
    "name": "Cole",
    "willpower": 1,
    "attributes": {"physical": 2, "social": 2, "mental": 2},
    "skills": {"dodge": 1},
}


class TestBns:
    def table(self) -> Table:
        t = Table("bns")
        for sheet in (BNS_A, BNS_C):
            t.do("st", "add_character", character=sheet)
        return t

    def punch(self, t: Table, **more: Any) -> None:
        t.do("a", "declare", challenge="x", kind="contested", targets=["c"], category="physical",
             pool={"attack": "unarmed"}, effect={"kind": "damage", "amount": 1}, **more)  # fmt: skip
        t.do("c", "bid", challenge="x", pool={"defense": "dodge"})

    def test_a_grapple_maneuver_holds_and_deals_nothing(self) -> None:
        """bns:grapple: the maneuver's reduction takes the 1 bashing away, and an exceptional
        success's point with it; what winning does is the hold, previewed as the hold."""
        t = self.table()
        self.punch(t, maneuver="grapple")
        shown = stakes(t.state, "x")
        assert one(shown, "challenger").events == (GrappleStarted(grappler="a", victim="c", challenge="x"),)
        assert not [s for s in shown if s.exceptional]  # the grade changes nothing here
        assert words(t, "x")["If Ann wins"] == ["Ann grapples Cole"]
        t.test("x", "rock", "scissors")  # 8 against 3, every test won: exceptional
        t.do("c", "pass", challenge="x")
        outcome = t.challenge("x").outcome
        assert outcome is not None and outcome.exceptional
        assert t.character("c").wounds.total == 0 and t.character("c").conditions.grappled_by == "a"
        [checked] = check_stakes(t.log)
        assert checked.applied == (GrappleStarted(grappler="a", victim="c", challenge="x"),)

    def test_a_relent_before_the_defence_hangs_on_the_pool_named(self) -> None:
        """bns:relent: a relent has no test; before Cole names a defence, its grade hangs on the
        pool he will name, and the headings say so (never "relents with an exceptional success")."""
        t = self.table()
        t.do("a", "declare", challenge="x", kind="contested", targets=["c"], category="physical",
             pool={"attack": "unarmed"}, effect={"kind": "damage", "amount": 1})  # fmt: skip
        relents = {k: v for k, v in words(t, "x").items() if "relents" in k}
        assert relents == {
            "If Cole relents naming a defence at least as large as Ann's pool (a normal success for Ann)": [
                "Cole takes 1 bashing damage"
            ],
            "If Cole relents naming a defence smaller than Ann's pool (an exceptional success for Ann)": [
                "Cole takes 2 bashing damage: 1 bashing declared; an exceptional success adds 1."
            ],
        }
        assert not [k for k in words(t, "x") if "relents with" in k]

    def test_an_exceptional_success_adds_a_point(self) -> None:
        """bns:exceptional-damage: the exceptional success is listed apart, with its extra point."""
        t = self.table()
        self.punch(t)
        graded = one(stakes(t.state, "x"), "challenger", exceptional=True).events
        assert graded == (
            DamageTaken(
                character="c",
                amount=2,
                damage="bashing",
                challenge="x",
                why="1 bashing declared; an exceptional success adds 1.",
                rule="bns:exceptional-damage",
            ),
        )
        assert words(t, "x") == {
            "If Ann wins": ["Cole takes 1 bashing damage"],
            "If Ann wins with an exceptional success": [
                "Cole takes 2 bashing damage: 1 bashing declared; an exceptional success adds 1."
            ],
            "If Cole wins": [],
            "If it is a draw": [],
            # a relent has no test, so no chance: Cole's dodge is smaller than Ann's pool (bns:relent)
            "If Cole relents (Cole's pool is smaller than Ann's: an exceptional success for Ann)": [
                "Cole takes 2 bashing damage: 1 bashing declared; an exceptional success adds 1."
            ],
        }
        t.test("x", "rock", "scissors")
        t.do("c", "pass", challenge="x")
        [checked] = check_stakes(t.log)
        assert checked.stake.exceptional and checked.applied == graded


class TestKony:
    def table(self) -> Table:
        t = Table("kony", {"kony": {}})
        t.add("sam", {"Brawny": 3}, abilities={"Brawl": 2})
        t.add("juan", {"Tough": 2}, armor=2)
        return t

    def test_armour_first_and_the_defenders_own_victory(self) -> None:
        """kony:damage-order: armour takes damage first; kony:resolution: a defender who wins with
        a victory condition of its own applies it to the challenger."""
        t = self.table()
        t.do("sam", "declare", challenge="x", kind="contested", targets=["juan"], category="physical",
             bid=["Brawny"], effect={"kind": "damage", "amount": 3, "type": "lethal"})  # fmt: skip
        assert words(t, "x")["If Juan wins"] == ["Sam loses Brawny"]  # no victory condition of his own yet
        t.do("juan", "bid", challenge="x", bid=["Tough"], effect={"kind": "damage", "amount": 1})
        shown = stakes(t.state, "x")
        assert one(shown, "challenger").events[1:] == (
            ArmorDamaged(
                character="juan",
                amount=2,
                challenge="x",
                why="Juan's armour takes 2 of the 3 first (0 left).",
                rule="kony:damage-order",
            ),
            DamageTaken(
                character="juan",
                amount=1,
                damage="lethal",
                challenge="x",
                why="3 lethal declared; armour takes 2 first.",
                rule="kony:damage-order",
            ),
        )
        assert words(t, "x") == {
            "If Sam wins": [
                "Juan loses Tough",
                "Juan's armour takes 2",
                "Juan takes 1 lethal damage: 3 lethal declared; armour takes 2 first.",
            ],
            "If Juan wins": ["Sam loses Brawny", "Sam takes 1 bashing damage"],
            "If it is a draw": ["Sam loses Brawny", "Juan loses Tough"],
            "If Juan relents": [
                "Juan's armour takes 2",
                "Juan takes 1 lethal damage: 3 lethal declared; armour takes 2 first.",
            ],
        }
        t.do("st", "roll", challenge="x", character="sam", values=[3])
        t.do("st", "roll", challenge="x", character="juan", values=[1])  # no overbid at 3 against 2: over
        assert t.character("sam").wounds.bashing == 1
        [checked] = check_stakes(t.log)
        assert checked.stake == one(shown, "defender")


class TestPreview:
    def test_a_would_be_declaration_appends_nothing(self) -> None:
        """``stakes_preview``: the declaration decided on a draft; the table's state is untouched,
        and the answer carries each stake's events and words, as a client decodes them."""
        t = TestCamarilla().table()
        before = t.state
        cmd = msgspec.convert(
            {"type": "declare", "id": "p", "scene": "s1", "actor": "jimmy", "challenge": "x", "kind": "contested",
             "category": "physical", "targets": ["frank"], "bid": ["Brawny"], "power": "Feral Claws",
             "effect": CLAWS},
            Declare,
        )  # fmt: skip
        answer = stakes_preview(t.state, cmd, t.now)
        assert t.state is before and "x" not in t.state.challenges
        decoded = outgoing_decoder.decode(encode(answer))
        assert isinstance(decoded, StakesPreview) and decoded == answer
        won = next(s for s in answer.stakes if s.winner == "challenger" and not s.relent)
        assert won.title == "If you win"  # said to Jimmy, who asks
        assert won.sentence == "If you win: Frank takes 2 aggravated damage"
        assert won.words == [
            "Frank takes 2 aggravated damage: 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
        ]  # Frank has not answered: no Trait of his is at risk yet
        assert msgspec.json.decode(encode(won))["events"][0]["type"] == "damage_taken"
        t.contest("x", "jimmy", "frank", "Brawny", "Wiry", power="Feral Claws", effect=CLAWS)
        assert one(stakes(t.state, "x"), "challenger").events[-1] == won.events[-1]

    def test_a_refused_declaration_answers_the_refusal(self) -> None:
        t = TestCamarilla().table()
        cmd = msgspec.convert(
            {"type": "declare", "id": "p", "scene": "s1", "actor": "frank", "challenge": "x", "kind": "contested",
             "category": "physical", "targets": ["jimmy"], "bid": ["Wiry"], "power": "Feral Claws"},
            Declare,
        )  # fmt: skip
        answer = stakes_preview(t.state, cmd, t.now)
        assert answer.stakes == [] and answer.error is not None
        assert answer.error.code == "unknown_power" and "Feral Claws" in answer.error.message


def test_a_preview_keeps_a_targets_armour_to_its_own() -> None:
    """kony:damage-order: armour takes damage first, and how much a target has left is its own (its
    player's and the Storyteller's). A player's preview of an attack on it says the amount dealt,
    with no armour event or figure; the Storyteller's says all of it."""
    from tests.domain.test_kony import duel

    t = duel(juan={"armor": 2})
    body = {"type": "declare", "id": "p", "scene": "s1", "challenge": "x", "kind": "contested"}
    body |= {"category": "physical", "targets": ["juan"], "bid": ["Brawny"]}
    body |= {"effect": {"kind": "damage", "amount": 3, "type": "lethal"}}
    mine = stakes_preview(t.state, msgspec.convert({**body, "actor": "sam"}, Declare), t.now)
    won = next(s for s in mine.stakes if s.winner == "challenger" and not s.relent)
    assert won.words == ["Juan takes 3 lethal damage"], won.words
    assert not [e for e in won.events if isinstance(e, ArmorDamaged | DamageTaken)]
    told = stakes_preview(t.state, msgspec.convert({**body, "actor": "st", "character": "sam"}, Declare), t.now)
    theirs = next(s for s in told.stakes if s.winner == "challenger" and not s.relent)
    assert any(isinstance(e, ArmorDamaged) and e.amount == 2 for e in theirs.events)
    assert "Juan's armour takes 2" in theirs.words
