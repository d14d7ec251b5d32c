"""bns: one opposed challenge with test pools (docs/rules/bns-opposed-challenges.txt, and the attack
and defence pools of docs/rules/bns-complex-scenarios-combat.txt). Each test names the rule it
holds the engine to; the documents' worked examples are played as written."""

from __future__ import annotations

from typing import Any

import pytest

from domain.events import (
    ChallengeDeclared,
    ChallengeResolved,
    DamageTaken,
    RetestStood,
    TestRevealed,
    TraitLost,
    WillpowerSpent,
)
from tests.table import Table, types

HUNTER: dict[str, Any] = {
    "id": "hunter",
    "name": "The hunter",
    "npc": True,
    "willpower": 6,
    "attributes": {"physical": 7, "social": 3, "mental": 4},
    "skills": {"firearms": 3},
}
VINCENT: dict[str, Any] = {
    "id": "vincent",
    "name": "Vincent",
    "willpower": 4,
    "attributes": {"physical": 3, "social": 10, "mental": 5},
    "skills": {"dodge": 2, "intimidation": 5},
    "powers": ["Dread Gaze", "Entrancement"],
}
BRUTE: dict[str, Any] = {
    "id": "brute",
    "name": "Brute",
    "willpower": 3,
    "attributes": {
        "strength": 4,
        "dexterity": 2,
        "stamina": 3,
        "charisma": 1,
        "manipulation": 1,
        "composure": 2,
        "intelligence": 1,
        "wits": 2,
        "resolve": 2,
    },
    "skills": {"brawl": 3, "melee": 2},
    "weapons": [
        {"name": "Knife", "kind": "melee", "bonus": 1, "damage": 1},
        {"name": "Hatchet", "kind": "melee", "bonus": 1, "throwable": True},
        {"name": "Bow", "kind": "archery", "bonus": 2, "range": 30},
    ],
}

SHOTGUN = {"attack": "firearms", "wildcard": 2, "why": "shotgun"}
"""The hunter's attack: Physical 7 + Firearms 3 + 2 (shotgun) = 12."""
COVER = {"defense": "dodge", "wildcard": 1, "why": "cover"}
"""Vincent's defence: Physical 3 + Dodge 2 + 1 (cover) = 6."""
SHOT = {"kind": "damage", "amount": 2, "type": "lethal"}


def bns(**options: Any) -> Table:
    t = Table("bns", {"bns": options} if options else None)
    for sheet in (HUNTER, VINCENT, BRUTE):
        t.do("st", "add_character", character=sheet)
    return t


@pytest.fixture
def table() -> Table:
    return bns()


def shoot(t: Table, cid: str = "shot", defense: dict[str, Any] | None = None, **pool: Any) -> None:
    """The hunter shoots Vincent; Vincent answers (dodging behind cover unless told)."""
    t.do(
        "st",
        "declare",
        character="hunter",
        challenge=cid,
        kind="contested",
        targets=["vincent"],
        category="physical",
        victory="shoot Vincent",
        effect=SHOT,
        pool={**SHOTGUN, **pool},
    )
    t.do("vincent", "bid", challenge=cid, pool=defense or COVER)


def throws(t: Table, cid: str, challenger: str, defender: str) -> list[Any]:
    ch = t.challenge(cid)
    t.do(
        "st" if ch.challenger.who == "hunter" else ch.challenger.who,
        "throw",
        challenge=cid,
        sign=challenger,
        character=ch.challenger.who,
    )
    return t.do(
        "st" if ch.defender.who == "hunter" else ch.defender.who,
        "throw",
        challenge=cid,
        sign=defender,
        character=ch.defender.who,
    )


def gaze(t: Table, cid: str = "gaze", power: str = "Dread Gaze", target: str = "hunter") -> None:
    """Vincent stares the hunter down: Social 10 + Intimidation 5 = 15."""
    t.do(
        "vincent",
        "declare",
        challenge=cid,
        kind="contested",
        targets=[target],
        category="social",
        victory="scare the hunter away",
        power=power,
        pool={"attack": "social", "skill": "intimidation"},
    )


def resolved(t: Table, cid: str) -> ChallengeResolved:
    return next(r.event for r in reversed(t.log) if isinstance(r.event, ChallengeResolved) and r.event.challenge == cid)


class TestWorkedExamples:
    def test_the_hunter_against_vincent(self, table: Table) -> None:
        """The document's Physical example: a tie goes to the larger pool (bns:ties); Vincent's
        Willpower retest stands at once and he wins it (bns:willpower-retest); the hunter's pool is
        double Vincent's, so he overbids for free (bns:overbid) and wins: a normal success, for he did
        not win every test (bns:exceptional-success)."""
        shoot(table)
        assert table.challenge("shot").challenger.pool.total == 12  # type: ignore[union-attr]
        assert table.challenge("shot").defender.pool.total == 6  # type: ignore[union-attr]
        events = throws(table, "shot", "rock", "rock")
        assert events[-1].leader == "challenger" and events[-1].rule == "bns:ties"
        assert events[-1].compared == {"hunter": 12, "vincent": 6}
        events = table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        assert types(events) == ["retest_invoked", "willpower_spent", "retest_stood"]
        assert table.character("vincent").willpower == 3
        events = throws(table, "shot", "rock", "paper")
        assert events[-1].leader == "defender"
        table.refused("vincent", "retest", challenge="shot", source={"category": "willpower"}, code="not_losing")
        events = table.do("st", "retest", character="hunter", challenge="shot", source={"category": "overbid"})
        assert types(events) == ["retest_invoked", "retest_stood"]
        events = throws(table, "shot", "scissors", "paper")
        outcome = resolved(table, "shot")
        assert outcome.winner == "challenger" and not outcome.exceptional
        assert "not every test was won outright" in outcome.why
        assert [r.result for r in table.challenge("shot").tests] == ["tie", "lose", "win"]
        hurt = [e for e in events if isinstance(e, DamageTaken)]
        assert [(e.character, e.amount, e.damage) for e in hurt] == [("vincent", 2, "lethal")]
        assert not any(isinstance(r.event, TraitLost) for r in table.log)

    def test_had_the_hunter_won_every_test(self, table: Table) -> None:
        """ "If he had, the hunter would have scored an exceptional success and Vincent would have
        taken an additional point of damage" (bns:exceptional-success, bns:exceptional-damage)."""
        shoot(table)
        throws(table, "shot", "rock", "scissors")
        table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        events = throws(table, "shot", "paper", "rock")
        outcome = resolved(table, "shot")
        assert outcome.winner == "challenger" and outcome.exceptional
        assert outcome.rule == "bns:exceptional-success"
        assert [(e.amount, e.damage) for e in events if isinstance(e, DamageTaken)] == [(3, "lethal")]

    def test_dread_gaze(self, table: Table) -> None:
        """The document's Social example: the hunter defends with Social 3 + current Willpower 6
        (bns:mental-social-defense); 15 is not double 9, so Vincent cannot overbid (bns:overbid); his
        Willpower retest wins, and with no retest left to the hunter the challenge is over at once
        (bns:willpower-retest)."""
        gaze(table)
        table.do("st", "bid", character="hunter", challenge="gaze", pool={"defense": "social"})
        hunter = table.challenge("gaze").defender.pool
        assert hunter is not None and (hunter.attribute_rating, hunter.willpower, hunter.total) == (3, 6, 9)
        assert table.challenge("gaze").challenger.pool.total == 15  # type: ignore[union-attr]
        throws(table, "gaze", "rock", "paper")
        table.refused(
            "vincent",
            "retest",
            challenge="gaze",
            source={"category": "overbid"},
            code="no_overbid",
            rule="bns:overbid",
        )
        table.do("vincent", "retest", challenge="gaze", source={"category": "willpower"})
        events = throws(table, "gaze", "scissors", "paper")
        assert types(events)[-1] == "challenge_resolved"
        outcome = resolved(table, "gaze")
        assert outcome.winner == "challenger" and not outcome.exceptional

    def test_entrancement_then_dread_gaze(self, table: Table) -> None:
        """The document's immunity example: a failed Entrancement cannot be tried on the officer
        again for ten minutes; Dread Gaze, another power of the discipline, can (bns:retry-immunity)."""
        gaze(table, "c1", power="Entrancement")
        table.do("st", "bid", character="hunter", challenge="c1", pool={"defense": "social"})
        throws(table, "c1", "rock", "paper")
        table.do("vincent", "pass", challenge="c1")
        outcome = resolved(table, "c1")
        assert outcome.winner == "defender" and "immune to Vincent's Entrancement for ten minutes" in outcome.why
        table.tick(minutes=9)
        error = table.refused(
            "vincent",
            "declare",
            challenge="c2",
            kind="contested",
            targets=["hunter"],
            category="social",
            power="Entrancement",
            pool={"attack": "social", "skill": "intimidation"},
            code="immune",
            rule="bns:retry-immunity",
        )
        assert "0:5" in error.message  # about 59 seconds left
        gaze(table, "c3", power="Dread Gaze")
        table.tick(minutes=1, seconds=1)
        gaze(table, "c4", power="Entrancement")


class TestSheets:
    def test_three_ratings_or_nine_attributes(self, table: Table) -> None:
        """A sheet gives the three category ratings or the nine attributes; on a three-rating sheet
        an attribute is its category's rating (bns:attack-pool)."""
        shoot(table, defense={"defense": "dodge"})
        pool = table.challenge("shot").defender.pool
        assert pool is not None and (pool.attribute, pool.attribute_rating, pool.total) == ("physical", 3, 5)
        assert pool.describe() == "Physical 3 + Dodge 2 = 5"

    def test_a_bad_sheet_names_every_wrong_field(self, table: Table) -> None:
        """Every problem at once: Traits, an unknown attribute, both kinds of rating, a twice-named
        weapon (bns:attack-pool)."""
        error = table.refused(
            "st",
            "add_character",
            character={
                "id": "odd",
                "name": "Odd",
                "traits": {"physical": {"Quick": 1}},
                "attributes": {"luck": 3, "physical": 2, "strength": 2},
                "weapons": [{"name": "Stick", "kind": "melee"}, {"name": "stick", "kind": "melee"}],
            },
            code="bad_sheet",
        )
        for field in ("character.traits", "character.attributes.luck", "not both", "character.weapons[1].name"):
            assert field in error.message


class TestPools:
    def test_an_attack_pool_is_attribute_skill_and_wild_card(self, table: Table) -> None:
        """Attribute + Skill + Wild Card = Test Pool, each part recorded with the total
        (bns:attack-pool)."""
        shoot(table)
        declared = next(r.event for r in table.log if isinstance(r.event, ChallengeDeclared))
        assert declared.pool is not None
        assert declared.pool.describe() == "Physical 7 + Firearms 3 + 2 (shotgun) = 12"
        assert (declared.pool.attribute, declared.pool.skill, declared.pool.wildcard) == ("physical", "firearms", 2)

    def test_a_wild_card_needs_a_reason(self, table: Table) -> None:
        """A wild card other than 0 says why, for the Storyteller to judge (bns:attack-pool)."""
        table.refused(
            "st",
            "declare",
            character="hunter",
            challenge="x",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "firearms", "wildcard": 2},
            code="wildcard_why",
            rule="bns:attack-pool",
        )

    def test_pools_not_traits(self, table: Table) -> None:
        """bns plays pools: a bid of Traits is refused, and a pool is required (bns:attack-pool);
        a lotn scene refuses a pool."""
        base = {"challenge": "x", "kind": "contested", "targets": ["vincent"], "category": "physical"}
        table.refused("brute", "declare", **base, bid=["Brawny"], code="no_traits", rule="bns:attack-pool")
        table.refused("brute", "declare", **base, code="pool_required", rule="bns:attack-pool")
        lotn = Table()
        lotn.add("a", {"Quick": 1})
        lotn.add("b", {"Quick": 1})
        lotn.refused(
            "a",
            "declare",
            challenge="x",
            kind="contested",
            targets=["b"],
            category="physical",
            pool={"attack": "unarmed"},
            code="no_pools",
        )

    def test_a_physical_defence(self, table: Table) -> None:
        """Physical Attribute + Skill + Wild Card, the skill fitting the defence: Dexterity + Dodge
        (bns:physical-defense, bns:dodge)."""
        shoot(table)
        pool = table.challenge("shot").defender.pool
        assert pool is not None and (pool.defense, pool.skill, pool.skill_rating, pool.total) == (
            "dodge",
            "dodge",
            2,
            6,
        )

    def test_the_defence_fits_the_attack(self, table: Table) -> None:
        """A Physical attack is dodged, parried or soaked; a Social one is resisted with Composure +
        Willpower (bns:physical-defense, bns:mental-social-defense)."""
        table.do(
            "st",
            "declare",
            character="hunter",
            challenge="shot",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool=SHOTGUN,
        )
        table.refused(
            "vincent",
            "bid",
            challenge="shot",
            pool={"defense": "social"},
            code="wrong_defense",
            rule="bns:physical-defense",
        )
        gaze(table)
        table.refused(
            "st",
            "bid",
            character="hunter",
            challenge="gaze",
            pool={"defense": "dodge"},
            code="wrong_defense",
            rule="bns:mental-social-defense",
        )

    def test_mental_and_social_defences_use_current_willpower(self, table: Table) -> None:
        """Current Willpower, not permanent: a point spent earlier lowers the next defence, but never
        a pool already set (bns:mental-social-defense, bns:willpower-pools)."""
        table.do(
            "vincent",
            "declare",
            challenge="m1",
            kind="contested",
            targets=["brute"],
            category="mental",
            pool={"attack": "mental", "attribute": "intelligence", "skill": "investigation"},
        )
        table.do("brute", "bid", challenge="m1", pool={"defense": "mental"})
        assert table.challenge("m1").defender.pool.total == 2 + 3  # type: ignore[union-attr]
        throws(table, "m1", "rock", "paper")  # Brute wins; Vincent spends Willpower
        table.do("vincent", "retest", challenge="m1", source={"category": "willpower"})
        assert table.challenge("m1").defender.pool.total == 5  # type: ignore[union-attr]
        throws(table, "m1", "rock", "paper")
        gaze(table, "g2", target="brute")
        table.do("brute", "bid", challenge="g2", pool={"defense": "social"})
        brute = table.challenge("g2").defender.pool
        assert brute is not None and brute.willpower == 3  # Brute spent nothing
        table.do(
            "brute",
            "declare",
            challenge="m3",
            kind="contested",
            targets=["vincent"],
            category="social",
            pool={"attack": "social", "attribute": "manipulation", "skill": "intimidation"},
        )
        table.do("vincent", "bid", challenge="m3", pool={"defense": "social"})
        assert table.challenge("m3").defender.pool.willpower == 3  # type: ignore[union-attr]  # 4, less one spent

    def test_mental_and_social_attacks(self, table: Table) -> None:
        """A Mental attack is the appropriate Mental attribute + ability against Resolve +
        Willpower; a Social one the Social attribute against Composure + Willpower
        (bns:mental-attack, bns:social-attack)."""
        table.do(
            "brute",
            "declare",
            challenge="m",
            kind="contested",
            targets=["vincent"],
            category="mental",
            pool={"attack": "mental", "attribute": "wits", "skill": "investigation"},
        )
        pool = table.challenge("m").challenger.pool
        assert pool is not None and (pool.attribute_rating, pool.skill_rating, pool.total) == (2, 0, 2)
        table.refused(
            "brute",
            "declare",
            challenge="s",
            kind="contested",
            targets=["vincent"],
            category="social",
            pool={"attack": "social", "attribute": "wits", "skill": "intimidation"},
            code="wrong_attribute",
            rule="bns:attack-pool",
        )
        table.do(
            "brute",
            "declare",
            challenge="s",
            kind="contested",
            targets=["hunter"],
            category="social",
            pool={"attack": "social", "attribute": "charisma", "skill": "persuasion"},
        )
        table.do("st", "bid", character="hunter", challenge="s", pool={"defense": "social"})
        assert table.challenge("s").defender.pool.attribute == "social"  # type: ignore[union-attr]  # Composure

    def test_attack_kinds(self, table: Table) -> None:
        """Unarmed is Strength + Brawl (bns:unarmed); melee Strength + Melee with the weapon's bonus
        (bns:melee); thrown Dexterity + Athletics with a throwable weapon (bns:thrown); archery
        Dexterity + Archery (bns:archery)."""
        cases = [
            ({"attack": "unarmed"}, ("strength", 4, "brawl", 3, 7)),
            ({"attack": "melee", "weapon": "Knife"}, ("strength", 4, "melee", 2, 7)),
            ({"attack": "thrown", "weapon": "Hatchet"}, ("dexterity", 2, "athletics", 0, 3)),
            ({"attack": "archery", "weapon": "Bow"}, ("dexterity", 2, "archery", 0, 4)),
        ]
        for i, (spec, parts) in enumerate(cases):
            table.do(
                "brute",
                "declare",
                challenge=f"k{i}",
                kind="contested",
                targets=["vincent"],
                category="physical",
                pool=spec,
            )
            pool = table.challenge(f"k{i}").challenger.pool
            assert pool is not None
            assert (pool.attribute, pool.attribute_rating, pool.skill, pool.skill_rating, pool.total) == parts
            table.do("st", "withdraw", challenge=f"k{i}")
        attack = {"challenge": "x", "kind": "contested", "targets": ["vincent"], "category": "physical"}
        table.refused(
            "brute",
            "declare",
            **attack,
            pool={"attack": "thrown", "weapon": "Knife"},
            code="not_throwable",
            rule="bns:thrown",
        )
        table.refused("brute", "declare", **attack, pool={"attack": "archery", "weapon": "Knife"}, code="wrong_weapon")
        table.refused("brute", "declare", **attack, pool={"attack": "melee", "weapon": "Axe"}, code="unknown_weapon")
        table.refused(
            "brute",
            "declare",
            **{**attack, "category": "mental"},
            pool={"attack": "unarmed"},
            code="wrong_category",
            rule="bns:unarmed",
        )

    def test_fighting_finesse(self, table: Table) -> None:
        """Close range attacks use Strength, Dexterity only with Fighting Finesse
        (bns:fighting-finesse)."""
        attack = {"kind": "contested", "targets": ["vincent"], "category": "physical"}
        spec = {"attack": "unarmed", "attribute": "dexterity"}
        table.refused(
            "brute", "declare", challenge="x", **attack, pool=spec, code="wrong_attribute", rule="bns:fighting-finesse"
        )
        table.do(
            "st", "add_character", character={**BRUTE, "id": "fencer", "name": "Fencer", "merits": ["Fighting Finesse"]}
        )
        table.do("fencer", "declare", challenge="x", **attack, pool=spec)
        assert table.challenge("x").challenger.pool.attribute == "dexterity"  # type: ignore[union-attr]

    def test_tooth_and_claw(self, table: Table) -> None:
        """A werewolf bites in Crinos, Hispo or Lupus form and claws in Crinos or Hispo, inflicting
        lethal damage (bns:tooth-and-claw)."""
        wolf = {**BRUTE, "id": "wolf", "name": "Wolf", "creature": "werewolf", "form": "lupus"}
        table.do("st", "add_character", character=wolf)
        attack = {"kind": "contested", "targets": ["vincent"], "category": "physical"}
        table.refused(
            "wolf",
            "declare",
            challenge="x",
            **attack,
            pool={"attack": "claw"},
            code="wrong_form",
            rule="bns:tooth-and-claw",
        )
        table.refused(
            "brute",
            "declare",
            challenge="x",
            **attack,
            pool={"attack": "bite"},
            code="wrong_form",
            rule="bns:tooth-and-claw",
        )
        table.do(
            "wolf",
            "declare",
            challenge="bite",
            **attack,
            pool={"attack": "bite"},
            effect={"kind": "damage", "amount": 1, "type": "bashing"},
        )
        table.do("vincent", "bid", challenge="bite", pool={"defense": "dodge"})
        throws(table, "bite", "rock", "rock")  # a tie: 7 against 5
        events = table.do("vincent", "pass", challenge="bite")
        assert [(e.amount, e.damage) for e in events if isinstance(e, DamageTaken)] == [(1, "lethal")]

    def test_parry_and_soak(self, table: Table) -> None:
        """A parry needs a weapon in hand and no thrown or archery attack: Dexterity + Melee
        (bns:parry); a soak is Stamina alone (bns:soak)."""
        table.do(
            "vincent",
            "declare",
            challenge="p",
            kind="contested",
            targets=["brute"],
            category="physical",
            pool={"attack": "unarmed"},
        )
        table.do("brute", "bid", challenge="p", pool={"defense": "parry", "weapon": "Knife"})
        pool = table.challenge("p").defender.pool
        assert pool is not None and (pool.attribute, pool.skill, pool.total) == ("dexterity", "melee", 4)
        table.do(
            "brute",
            "declare",
            challenge="a",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "archery", "weapon": "Bow"},
        )
        table.refused("vincent", "bid", challenge="a", pool={"defense": "parry"}, code="no_parry", rule="bns:parry")
        table.do(
            "brute",
            "declare",
            challenge="u",
            kind="contested",
            targets=["hunter"],
            category="physical",
            pool={"attack": "unarmed"},
        )
        table.refused(
            "st", "bid", character="hunter", challenge="u", pool={"defense": "parry"}, code="no_parry", rule="bns:parry"
        )
        table.do("st", "bid", character="hunter", challenge="u", pool={"defense": "soak"})
        pool = table.challenge("u").defender.pool
        assert pool is not None and (pool.attribute, pool.skill, pool.total) == ("physical", None, 7)  # Stamina


class TestDeclaring:
    def test_one_target_and_not_oneself(self, table: Table) -> None:
        """An opposed challenge targets another character (bns:opposed)."""
        base = {"challenge": "x", "kind": "contested", "category": "physical", "pool": {"attack": "unarmed"}}
        table.refused("brute", "declare", **base, targets=["vincent", "hunter"], code="one_target", rule="bns:opposed")
        table.refused("brute", "declare", **base, targets=["brute"], code="self_target", rule="bns:opposed")

    def test_line_of_sight(self, table: Table) -> None:
        """An attack on a target one cannot see is refused (bns:line-of-sight)."""
        table.refused(
            "brute",
            "declare",
            challenge="x",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "unarmed"},
            unseen=True,
            code="line_of_sight",
            rule="bns:line-of-sight",
        )

    def test_the_victory_condition_is_approved_by_answering(self, table: Table) -> None:
        """Answering approves the victory condition; the Storyteller may still stop the challenge
        (bns:victory-condition)."""
        shoot(table)
        events = table.do("st", "withdraw", challenge="shot")
        assert types(events) == ["challenge_withdrawn"]
        table.do(
            "brute",
            "declare",
            challenge="y",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "unarmed"},
        )
        table.do("vincent", "bid", challenge="y", pool={"defense": "dodge"})
        table.refused("brute", "withdraw", challenge="y", code="too_late", rule="bns:victory-condition")

    def test_rock_paper_scissors_only(self, table: Table) -> None:
        """No gestures beyond rock, paper and scissors (bns:rps)."""
        shoot(table)
        table.refused("vincent", "throw", challenge="shot", sign="bomb", code="unknown_sign", rule="bns:rps")

    @pytest.mark.parametrize("static_tests", [True, False])
    def test_static_challenges(self, static_tests: bool) -> None:
        """A static challenge compares the pool with the ST's difficulty as a defence; option
        ``static_tests`` (bns:static)."""
        t = bns(static_tests=static_tests)
        declare = {
            "challenge": "lock",
            "kind": "static",
            "category": "physical",
            "difficulty": 6,
            "pool": {"attack": "unarmed"},
            "victory": "break the door",
        }
        if not static_tests:
            t.refused("brute", "declare", **declare, code="unsupported", rule="bns:static")
            return
        t.do("brute", "declare", **declare)
        t.do("brute", "throw", challenge="lock", sign="rock")
        events = t.do("st", "throw", challenge="lock", sign="rock")
        assert types(events) == ["throw_sealed", "test_revealed", "test_resolved", "challenge_resolved"]
        assert events[2].compared == {"brute": 7, "difficulty": 6}
        assert resolved(t, "lock").winner == "challenger"


class TestOutcomes:
    def test_losing_the_test_fails(self, table: Table) -> None:
        """Lose the test and fail: the target is unaffected (bns:losing)."""
        shoot(table)
        throws(table, "shot", "rock", "paper")
        table.do("st", "pass", character="hunter", challenge="shot")
        outcome = resolved(table, "shot")
        assert outcome.winner == "defender" and outcome.rule == "bns:losing"
        assert not any(isinstance(r.event, DamageTaken) for r in table.log)

    @pytest.mark.parametrize(("wildcard", "winner"), [(0, "challenger"), (-6, "defender")])
    def test_a_tie_goes_to_the_greater_pool_never_exceptionally(self, table: Table, wildcard: int, winner: str) -> None:
        """On a tie the attack succeeds only with the greater pool, and never exceptionally; equal
        pools fail (bns:ties)."""
        pool = {"attack": "firearms", "wildcard": wildcard, "why": "sniping"} if wildcard else {"attack": "firearms"}
        table.do(
            "st",
            "declare",
            character="hunter",
            challenge="t",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool=pool,
            effect=SHOT,
        )
        table.do("vincent", "bid", challenge="t", pool={"defense": "dodge"})
        events = throws(table, "t", "rock", "rock")
        if winner == "defender":  # 4 against 5: Vincent leads; the hunter may not spend its way out
            table.do("st", "pass", character="hunter", challenge="t")
        else:
            table.do("vincent", "pass", challenge="t")
        outcome = resolved(table, "t")
        assert outcome.winner == winner and not outcome.exceptional
        assert any(getattr(e, "rule", None) == "bns:ties" for e in events)

    def test_equal_pools_tie_fails(self, table: Table) -> None:
        """An attack pool equal to the defence fails on a tie (bns:ties)."""
        table.do(
            "brute",
            "declare",
            challenge="e",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "unarmed", "wildcard": -2, "why": "off balance"},
        )
        table.do("vincent", "bid", challenge="e", pool={"defense": "dodge"})
        assert table.challenge("e").challenger.pool.total == 5  # type: ignore[union-attr]
        events = throws(table, "e", "paper", "paper")
        assert events[-1].leader == "defender"

    def test_only_the_attacker_scores_exceptionally(self, table: Table) -> None:
        """A defender who wins every test with the greater pool does not succeed exceptionally, and
        a ruling cannot make it so (bns:attacker-only)."""
        table.do(
            "brute",
            "declare",
            challenge="w",
            kind="contested",
            targets=["hunter"],
            category="physical",
            pool={"attack": "unarmed", "wildcard": -5, "why": "drunk"},
        )
        table.do("st", "bid", character="hunter", challenge="w", pool={"defense": "soak"})
        throws(table, "w", "rock", "paper")
        table.do("brute", "pass", challenge="w")
        outcome = resolved(table, "w")
        assert outcome.winner == "defender" and not outcome.exceptional
        seq = table.seq_of("challenge_resolved", "w")
        table.do("brute", "dispute", event=seq, reason="the hunter crushed me")
        table.refused(
            "st",
            "rule",
            event=seq,
            decision="amend",
            reason="exceptional",
            correction={"winner": "defender", "exceptional": True},
            code="bad_correction",
            rule="bns:attacker-only",
        )

    def test_a_ruling_amends_the_grade(self, table: Table) -> None:
        """The ST amends a normal success to an exceptional one: the extra point of damage follows
        (bns:exceptional-damage)."""
        shoot(table)
        throws(table, "shot", "rock", "rock")
        table.do("vincent", "pass", challenge="shot")
        seq = table.seq_of("challenge_resolved", "shot")
        assert table.character("vincent").wounds.lethal == 2
        table.do("st", "rule", event=seq, decision="amend", reason="he won it clean", correction={"exceptional": True})
        ch = table.challenge("shot")
        assert ch.outcome is not None and ch.outcome.exceptional and ch.outcome.winner == "challenger"
        assert table.character("vincent").wounds.lethal == 3
        assert table.replayed() == table.state

    @pytest.mark.parametrize(
        ("options", "critical"),
        [({}, "brute"), ({"unskilled_critical": False}, None)],
    )
    def test_unskilled_loss_is_critical(self, options: dict[str, Any], critical: str | None) -> None:
        """Without the skill, losing the test outright is a critical failure; the complication can be
        switched off (bns:unskilled, bns:complications)."""
        t = bns(**options)
        t.do(
            "brute",
            "declare",
            challenge="u",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "firearms"},
        )
        t.do("vincent", "bid", challenge="u", pool={"defense": "dodge"})
        throws(t, "u", "rock", "paper")
        t.do("brute", "pass", challenge="u")
        assert resolved(t, "u").critical == critical

    def test_no_critical_failure_on_a_tie_or_with_the_skill(self, table: Table) -> None:
        """A tie, or the right skill, is never a critical failure (bns:unskilled)."""
        table.do(
            "brute",
            "declare",
            challenge="u",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool={"attack": "firearms"},
        )
        table.do("vincent", "bid", challenge="u", pool={"defense": "dodge"})
        throws(table, "u", "rock", "rock")  # 2 against 5: Vincent leads on the tie
        table.do("brute", "pass", challenge="u")
        assert resolved(table, "u").winner == "defender" and resolved(table, "u").critical is None
        shoot(table, "s2")
        throws(table, "s2", "rock", "paper")
        table.do("st", "pass", character="hunter", challenge="s2")
        assert resolved(table, "s2").critical is None

    @pytest.mark.parametrize(("critical_defenders", "critical"), [(False, None), (True, "hunter")])
    def test_unskilled_defenders(self, critical_defenders: bool, critical: str | None) -> None:
        """A defender losing outright without the skill fails critically only with the option
        ``critical_defenders`` (bns:unskilled)."""
        t = bns(critical_defenders=critical_defenders)
        t.do(
            "brute",
            "declare",
            challenge="d",
            kind="contested",
            targets=["hunter"],
            category="physical",
            pool={"attack": "unarmed"},
        )
        t.do("st", "bid", character="hunter", challenge="d", pool={"defense": "dodge"})
        throws(t, "d", "paper", "rock")
        t.do("st", "pass", character="hunter", challenge="d")
        assert resolved(t, "d").critical == critical

    def test_no_trait_is_ever_lost(self, table: Table) -> None:
        """A lost challenge costs no Trait: bns has none to lose (bns:losing)."""
        shoot(table)
        throws(table, "shot", "rock", "paper")
        table.do("st", "pass", character="hunter", challenge="shot")
        assert not any(isinstance(r.event, TraitLost) for r in table.log)


class TestRetests:
    def test_only_the_side_behind_and_once(self, table: Table) -> None:
        """Only the loser retests with Willpower, once a challenge: the result of that retest is
        final (bns:willpower-retest)."""
        shoot(table, defense={"defense": "dodge", "wildcard": 3, "why": "smoke"})  # 12 against 8: no overbid
        throws(table, "shot", "rock", "scissors")
        table.refused(
            "st",
            "retest",
            character="hunter",
            challenge="shot",
            source={"category": "willpower"},
            code="not_losing",
            rule="bns:willpower-retest",
        )
        table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        events = throws(table, "shot", "scissors", "rock")  # Vincent wins: the hunter has no retest left
        assert types(events)[-1] == "challenge_resolved" and resolved(table, "shot").winner == "defender"

    def test_the_willpower_retest_is_one_per_challenge(self, table: Table) -> None:
        """Once either side has spent Willpower, the other cannot (bns:willpower-retest)."""
        gaze(table, "p", target="brute")
        table.do("brute", "bid", challenge="p", pool={"defense": "social"})  # 15 against 5
        throws(table, "p", "rock", "scissors")
        table.do("brute", "retest", challenge="p", source={"category": "willpower"})
        throws(table, "p", "scissors", "rock")
        table.refused(
            "vincent",
            "retest",
            challenge="p",
            source={"category": "willpower"},
            code="source_used",
            rule="bns:willpower-retest",
        )
        table.do("vincent", "retest", challenge="p", source={"category": "overbid"})

    def test_a_willpower_retest_stands(self, table: Table) -> None:
        """Nothing cancels a Willpower retest: the next test begins at once (bns:willpower-retest)."""
        shoot(table)
        throws(table, "shot", "rock", "scissors")
        events = table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        assert isinstance(events[-1], RetestStood) and isinstance(events[1], WillpowerSpent)
        assert table.challenge("shot").status == "throwing" and len(table.challenge("shot").tests) == 1
        table.refused(
            "st",
            "cancel_retest",
            character="hunter",
            challenge="shot",
            source={"category": "willpower"},
            code="nothing_to_cancel",
        )

    def test_other_retests_are_refused(self, table: Table) -> None:
        """Abilities, powers and merits do not retest in bns (bns:willpower-retest)."""
        shoot(table)
        throws(table, "shot", "rock", "scissors")
        table.refused(
            "vincent",
            "retest",
            challenge="shot",
            source={"category": "power", "name": "Dread Gaze"},
            code="source_not_allowed",
            rule="bns:willpower-retest",
        )

    def test_overbid_at_double_either_order_three_tests_at_most(self, table: Table) -> None:
        """An overbid is free at double the other's pool, once per side, before or after the
        Willpower retest: at most three tests (bns:overbid)."""
        shoot(table)
        throws(table, "shot", "rock", "paper")  # Vincent wins the first
        table.do("st", "retest", character="hunter", challenge="shot", source={"category": "overbid"})
        throws(table, "shot", "paper", "rock")  # the hunter's overbid wins
        table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        events = throws(table, "shot", "rock", "paper")  # Vincent's Willpower wins: nothing is left
        assert types(events)[-1] == "challenge_resolved"
        assert len(table.challenge("shot").tests) == 3
        assert resolved(table, "shot").winner == "defender"

    def test_one_overbid_per_side(self, table: Table) -> None:
        """A side overbids once (bns:overbid)."""
        shoot(table, defense={"defense": "dodge", "wildcard": -3, "why": "dazzled"})  # 12 against 3
        throws(table, "shot", "rock", "paper")
        table.do("st", "retest", character="hunter", challenge="shot", source={"category": "overbid"})
        throws(table, "shot", "rock", "paper")
        table.refused(
            "st",
            "retest",
            character="hunter",
            challenge="shot",
            source={"category": "overbid"},
            code="source_used",
            rule="bns:overbid",
        )

    def test_an_overbid_needs_double(self, table: Table) -> None:
        """Below double there is no overbid (bns:overbid)."""
        shoot(table, defense={"defense": "dodge", "wildcard": 2, "why": "smoke"})  # 12 against 7
        throws(table, "shot", "rock", "paper")
        table.refused(
            "st",
            "retest",
            character="hunter",
            challenge="shot",
            source={"category": "overbid"},
            code="no_overbid",
            rule="bns:overbid",
        )

    @pytest.mark.parametrize("soak_overbid", [False, True])
    def test_soaking_allows_only_willpower(self, soak_overbid: bool) -> None:
        """Soaking, the only retest is the general one: Willpower, and with option ``soak_overbid``
        an overbid too (bns:soak)."""
        t = bns(soak_overbid=soak_overbid)
        t.do(
            "vincent",
            "declare",
            challenge="p",
            kind="contested",
            targets=["hunter"],
            category="physical",
            pool={"attack": "unarmed", "wildcard": -3, "why": "tired"},
        )  # Physical 3 + 0 - 3 = 0
        t.do("st", "bid", character="hunter", challenge="p", pool={"defense": "soak"})  # 7
        throws(t, "p", "rock", "scissors")
        retest = {"character": "hunter", "challenge": "p", "source": {"category": "overbid"}}
        if soak_overbid:
            t.do("st", "retest", **retest)
        else:
            t.refused("st", "retest", **retest, code="source_not_allowed", rule="bns:soak")
            t.do("st", "retest", character="hunter", challenge="p", source={"category": "willpower"})

    def test_no_retest_left_resolves_at_once(self, table: Table) -> None:
        """A loser with no Willpower and no overbid has nothing to wait for: the result stands
        (bns:willpower-retest)."""
        table.do("st", "adjust", character="vincent", changes={"willpower": -4}, reason="spent all night")
        shoot(table, defense={"defense": "dodge", "wildcard": 3, "why": "smoke"})
        events = throws(table, "shot", "rock", "scissors")
        assert types(events)[-1] == "damage_taken"
        assert resolved(table, "shot").winner == "challenger"


class TestRelent:
    @pytest.mark.parametrize(
        ("defense", "exceptional"),
        [({"defense": "dodge"}, True), ({"defense": "soak", "wildcard": 9, "why": "armour"}, False)],
    )
    def test_relent_grade(self, table: Table, defense: dict[str, Any], exceptional: bool) -> None:
        """Relenting before the test loses; a relenting pool below the attacker's gives an
        exceptional success, otherwise a normal one (bns:relent)."""
        table.do(
            "st",
            "declare",
            character="hunter",
            challenge="r",
            kind="contested",
            targets=["vincent"],
            category="physical",
            pool=SHOTGUN,
            effect=SHOT,
        )
        table.refused("vincent", "relent", challenge="r", code="pool_required", rule="bns:relent")
        events = table.do("vincent", "relent", challenge="r", pool=defense)
        outcome = resolved(table, "r")
        assert outcome.winner == "challenger" and outcome.exceptional is exceptional and outcome.rule == "bns:relent"
        assert [e.amount for e in events if isinstance(e, DamageTaken)] == [3 if exceptional else 2]

    def test_relent_after_answering_uses_the_answer(self, table: Table) -> None:
        """After answering, a relent is graded by the pool given; once a throw is in it is too late
        (bns:relent)."""
        shoot(table)
        table.do("vincent", "relent", challenge="shot")
        assert resolved(table, "shot").exceptional
        shoot(table, "s2")
        table.do("vincent", "throw", challenge="s2", sign="rock")
        table.refused("vincent", "relent", challenge="s2", code="too_late", rule="bns:relent")

    def test_relent_without_the_complication(self) -> None:
        """With ``relent_exceptional`` off a relent is a normal success (bns:complications)."""
        t = bns(relent_exceptional=False)
        shoot(t)
        t.do("vincent", "relent", challenge="shot")
        assert not resolved(t, "shot").exceptional


class TestRepeats:
    def test_a_failed_physical_attack_may_be_tried_again(self, table: Table) -> None:
        """A failed Physical challenge may be tried again on the next initiative: no wait
        (bns:retry-physical)."""
        shoot(table)
        throws(table, "shot", "rock", "paper")
        table.do("st", "pass", character="hunter", challenge="shot")
        assert resolved(table, "shot").wait_until is None
        shoot(table, "again")

    def test_the_storyteller_lifts_an_immunity(self, table: Table) -> None:
        """ "and for the situation to change significantly": the ST lifts the immunity early with
        ``adjust`` (bns:retry-immunity)."""
        gaze(table, "c1", power="Entrancement")
        table.do("st", "bid", character="hunter", challenge="c1", pool={"defense": "social"})
        throws(table, "c1", "rock", "paper")
        table.do("vincent", "pass", challenge="c1")
        events = table.do(
            "st", "adjust", character="hunter", changes={"lift_waits": True}, reason="the church is burning"
        )
        assert events[0].lifted == ["bns:vincent>hunter:Entrancement"]  # type: ignore[union-attr]
        gaze(table, "c2", power="Entrancement")
        table.refused(
            "st", "adjust", character="vincent", changes={"lift_waits": True}, reason="x", code="bad_adjustment"
        )

    def test_without_the_complication(self) -> None:
        """With ``retry_immunity`` off a failed Social challenge may be repeated at once
        (bns:complications, bns:retry-immunity)."""
        t = bns(retry_immunity=False)
        gaze(t, "c1", power="Entrancement")
        t.do("st", "bid", character="hunter", challenge="c1", pool={"defense": "social"})
        throws(t, "c1", "rock", "paper")
        t.do("vincent", "pass", challenge="c1")
        gaze(t, "c2", power="Entrancement")


class TestOptions:
    def test_bns_options_only_for_bns(self) -> None:
        """``options.bns`` on a scene of another ruleset is refused."""
        with pytest.raises(Exception) as caught:
            Table("lotn", {"bns": {"static_tests": False}})
        assert getattr(caught.value, "code", None) == "bad_options"

    def test_the_pools_are_shown_with_the_first_test(self, table: Table) -> None:
        """The first test reveals each side's pool; later tests repeat nothing (bns:willpower-pools)."""
        shoot(table)
        events = throws(table, "shot", "rock", "scissors")
        revealed = next(e for e in events if isinstance(e, TestRevealed))
        assert {who: p.total for who, p in revealed.pools.items()} == {"hunter": 12, "vincent": 6}
        table.do("vincent", "retest", challenge="shot", source={"category": "willpower"})
        events = throws(table, "shot", "rock", "scissors")
        assert next(e for e in events if isinstance(e, TestRevealed)).pools == {}


def test_flags_a_ruleset_has_no_rule_for_are_refused_by_name() -> None:
    """A declaration flag the ruleset does not take (``flags``) is refused, all of them named, with
    the ruleset's adjudication rule; nothing is appended."""
    t = bns()
    before = len(t.log)
    e = t.refused(
        "vincent",
        "declare",
        challenge="x",
        kind="contested",
        targets=["brute"],
        category="physical",
        pool={"attack": "unarmed"},
        ranged=True,
        darkness="both",
        code="unsupported",
        rule="bns:victory-condition",
    )
    assert "ranged, darkness" in e.message and len(t.log) == before
    lotn = Table("lotn")
    lotn.add("sam", {"Brawny": 2})
    lotn.add("juan", {"Quick": 2})
    e = lotn.refused(
        "sam",
        "declare",
        challenge="y",
        kind="contested",
        targets=["juan"],
        category="physical",
        bid=["Brawny"],
        surprise=True,
        code="unsupported",
        rule="lotn:adjudication",
    )
    assert "lotn has no rule for surprise" in e.message
