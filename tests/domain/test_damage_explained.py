"""Every damage step says how its amount and type came from what was declared, and which rule
changed it (``damage_taken``'s ``why`` and ``rule``): a 1 lethal claw that lands as 2 aggravated
says Feral Claws and Puissance did it. One test per ruleset's way of changing damage."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.events import DamageTaken
from domain.evolve import fold
from domain.log import GENESIS, decode_event, event_data, seal
from domain.state import NARRATOR
from projections.narrate import narrate
from tests.domain import test_bns_rounds as bns_rounds
from tests.domain.test_kony import attack as kony_attack
from tests.domain.test_kony import duel, roll
from tests.table import T0, Table


def damage(t: Table) -> list[DamageTaken]:
    return [r.event for r in t.log if isinstance(r.event, DamageTaken)]


def said(t: Table) -> str:
    """The replay's words for the last damage step."""
    i = max(i for i, r in enumerate(t.log) if isinstance(r.event, DamageTaken))
    return narrate(fold(t.log[:i]), t.log[i].event, NARRATOR)


def punch(t: Table, who: str, target: str, bid: str, answer: str, effect: dict[str, Any], **extra: Any) -> None:
    t.contest("hit", who, target, bid, answer, effect=effect, victory="I punch him in the jaw", **extra)
    t.test("hit", "paper", "rock")  # the challenger wins
    t.do(target, "pass", challenge="hit")


class TestAsDeclared:
    def test_lotn_deals_what_was_declared_and_says_so(self) -> None:
        t = Table("lotn")
        t.add("sam", {"Brawny": 2})
        t.add("juan", {"Tough": 2})
        punch(t, "sam", "juan", "Brawny", "Tough", {"kind": "damage", "amount": 1, "type": "lethal"})
        (hurt,) = damage(t)
        assert (hurt.amount, hurt.damage, hurt.why, hurt.rule) == (1, "lethal", "1 lethal, as declared.", "")
        assert t.character("juan").wounds.lethal == 1
        assert said(t) == "Juan takes 1 lethal damage, as declared."


class TestCamarilla:
    def test_feral_claws_and_puissance_say_what_they_did(self) -> None:
        """The issue's case: 1 lethal with Feral Claws, a Strength Trait led with Puissance on the
        sheet, lands as 2 aggravated: the step names both and cites camarilla:stacking."""
        t = Table("camarilla")
        t.add("jimmy", {"Brawny": 3}, powers=["Feral Claws", "Puissance"])
        t.add("frank", {"Wiry": 3})
        effect = {"kind": "damage", "amount": 1, "type": "lethal"}
        punch(t, "jimmy", "frank", "Brawny", "Wiry", effect, power="Feral Claws")
        (hurt,) = damage(t)
        assert (hurt.amount, hurt.damage) == (2, "aggravated")
        assert hurt.why == "1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
        assert hurt.rule == "camarilla:stacking"
        assert said(t) == (
            "Frank takes 2 aggravated damage: 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
        )

    def test_puissance_alone_adds_and_a_dexterity_lead_leaves_it(self) -> None:
        t = Table("camarilla")
        t.add("jimmy", {"Brawny": 3, "Quick": 2}, powers=["Puissance"])
        t.add("frank", {"Wiry": 3})
        effect = {"kind": "damage", "amount": 1, "type": "bashing"}
        punch(t, "jimmy", "frank", "Brawny", "Wiry", effect)
        assert [(e.amount, e.why, e.rule) for e in damage(t)] == [
            (2, "1 bashing declared; Puissance adds 1.", "camarilla:stacking")
        ]
        t.contest("kick", "jimmy", "frank", "Quick", "Wiry", effect=effect)
        t.test("kick", "paper", "rock")
        t.do("frank", "pass", challenge="kick")
        assert [(e.amount, e.why, e.rule) for e in damage(t)][1] == (1, "1 bashing, as declared.", "")


class TestBns:
    def test_a_claw_is_lethal_and_a_maneuver_takes_its_share(self) -> None:
        """bns:tooth-and-claw turns a bashing claw lethal; Hamstring takes 3 of 5 away: the step
        says both and cites the first rule that changed it."""
        t = bns_rounds.fight()
        for who in ("julian", "edward"):
            bns_rounds.done(t, who)
        bns_rounds.attack(
            t, "mook", "julian", maneuver="hamstring", effect={"kind": "damage", "amount": 5, "type": "bashing"}
        )
        bns_rounds.give_in(t, "julian")
        (hurt,) = damage(t)
        assert (hurt.amount, hurt.damage) == (2, "bashing")
        assert (hurt.why, hurt.rule) == ("5 bashing declared; Hamstring takes 3 away.", "bns:hamstring")

    def test_an_exceptional_success_adds_its_point(self) -> None:
        t = bns_rounds.fight(relent_exceptional=True)
        for who in ("julian", "edward"):
            bns_rounds.done(t, who)
        bns_rounds.attack(t, "mook", "julian", effect={"kind": "damage", "amount": 1, "type": "lethal"})
        bns_rounds.give_in(t, "julian")  # a lower pool relents: exceptional
        (hurt,) = damage(t)
        assert (hurt.amount, hurt.why, hurt.rule) == (
            2,
            "1 lethal declared; an exceptional success adds 1.",
            "bns:exceptional-damage",
        )


class TestKony:
    def test_armour_takes_its_share_first(self) -> None:
        t = duel(juan={"armor": 1})
        kony_attack(t)
        roll(t, "sam", [1]) + roll(t, "juan", [3])
        (hurt,) = damage(t)
        assert (hurt.amount, hurt.damage) == (1, "bashing")
        assert (hurt.why, hurt.rule) == ("2 bashing declared; armour takes 1 first.", "kony:damage-order")


class TestOldLogs:
    def test_a_damage_step_written_before_the_why_decodes_and_encodes_as_it_was(self) -> None:
        """Logs written before ``why``/``rule`` carry neither: they decode with both empty and encode
        to the same bytes, so their hashes hold."""
        old = b'{"amount":1,"challenge":"c","character":"juan","damage":"lethal"}'
        event = decode_event("damage_taken", old)
        assert isinstance(event, DamageTaken) and (event.why, event.rule) == ("", "")
        assert event_data(event) == old
        explained = msgspec.structs.replace(event, why="1 lethal, as declared.")
        assert b'"why":"1 lethal, as declared."' in event_data(explained)
        record, data = seal(prev=GENESIS, seq=1, scene="s", at=T0, actor="st", command="c", event=event)
        assert data == old and decode_event("damage_taken", data) == record.event


def test_the_rules_are_named_as_players_call_them() -> None:
    """The first step names the rule system by its title, never its id ("lotn")."""
    for ruleset, words in (
        ("lotn", "Laws of the Night"),
        ("camarilla", "Camarilla combat"),
        ("kony", "Kings of New York"),
    ):
        t = Table(ruleset=ruleset)
        opened = narrate(fold([]), t.log[0].event, NARRATOR)
        assert f"under the {words} rules" in opened and f" {ruleset} " not in opened, opened
