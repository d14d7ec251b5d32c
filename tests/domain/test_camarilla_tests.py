"""Camarilla: the kinds of test, the lead Trait, mixed challenges, and retests by category."""

from __future__ import annotations

import pytest

from tests.table import Table, types


def ability(name: str) -> dict[str, str]:
    return {"category": "ability", "name": name}


@pytest.fixture
def t() -> Table:
    table = Table(ruleset="camarilla")
    table.add(
        "billy",
        {"Brawny": 2, "Quick": 2},
        powers=["Might", "Fleetness", "Puissance"],
        abilities={"Brawl": 2, "Dodge": 1},
        merits=["Lucky"],
        willpower=2,
        traits={"social": {"Calm": 2}},
    )
    table.add(
        "jeff",
        {"Brutal": 3, "Tough": 2},
        abilities={"Dodge": 2, "Brawl": 1},
        willpower=3,
        traits={"social": {"Charming": 4}, "mental": {"Clever": 3}},
    )
    return table


def fight(t: Table, billy: str = "Brawny", jeff: str = "Brutal", **extra: object) -> None:
    t.contest("c", "billy", "jeff", billy, jeff, **extra)


class TestKinds:
    def test_equal_traits_and_no_one_wins(self, t: Table) -> None:
        """A tie with equal Traits: neither victory condition occurs (camarilla:contested)."""
        fight(t)
        t.test("c", "rock", "rock")
        t.do("billy", "declare_traits", challenge="c", count=4)
        t.do("jeff", "declare_traits", challenge="c", count=4)
        t.do("billy", "pass", challenge="c")
        t.do("jeff", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "none"  # type: ignore[union-attr]
        assert t.character("jeff").wounds.total == 0

    def test_mental_and_social_are_resolved_one_by_one(self, t: Table) -> None:
        """No mob for a Social challenge: each runs its own (camarilla:mental-social)."""
        t.add("ann", traits={"social": {"Witty": 2}})
        t.do("jeff", "declare", challenge="s", kind="contested", targets=["billy"], category="social", bid=["Charming"])
        t.refused("ann", "join", challenge="s", bid=["Witty"], code="no_mob", rule="camarilla:mental-social")

    def test_static_more_than_the_difficulty(self, t: Table) -> None:
        """A static tie succeeds only with more Traits than the difficulty; no surprise in a static test
        (camarilla:static)."""
        t.refused(
            "billy",
            "declare",
            challenge="x",
            kind="static",
            category="physical",
            bid=["Brawny"],
            difficulty=4,
            surprise=True,
            code="contested_only",
            rule="camarilla:surprise",
        )
        t.do("billy", "declare", challenge="lock", kind="static", category="physical", bid=["Brawny"], difficulty=4)
        t.do("st", "record_test", challenge="lock", signs={"billy": "paper", "st": "paper"})
        t.do("billy", "declare_traits", challenge="lock", count=4)
        assert t.challenge("lock").leader == "defender"
        t.refused(
            "billy",
            "retest",
            challenge="lock",
            source={"category": "merit", "name": "Lucky"},
            code="ability_only",
            rule="camarilla:retests",
        )
        t.do("billy", "retest", challenge="lock", source=ability("Brawl"))

    def test_fleetness_wins_a_static_tie(self, t: Table) -> None:
        """Fleetness wins all ties, a static test's too, with a dexterity lead (camarilla:lead-trait)."""
        t.do("billy", "declare", challenge="leap", kind="static", category="physical", bid=["Quick"], difficulty=9)
        events = t.do("st", "record_test", challenge="leap", signs={"billy": "rock", "st": "rock"})
        assert "Fleetness" in events[-1].why and t.challenge("leap").leader == "challenger"  # type: ignore[union-attr]

    def test_simple_cannot_be_retested(self, t: Table) -> None:
        """A simple test succeeds on a win or a tie and cannot be retested (camarilla:simple)."""
        t.do("billy", "declare", challenge="s", kind="simple", category="mental")
        events = t.do("st", "record_test", challenge="s", signs={"billy": "rock", "st": "rock"})
        assert types(events)[-1] == "challenge_resolved" and t.challenge("s").outcome.winner == "challenger"  # type: ignore[union-attr]


class TestLeadTrait:
    def test_billy_leads_with_strength(self, t: Table) -> None:
        """Billy's first Trait, Brawny, is strength: Might works, Fleetness does not (camarilla:lead-trait)."""
        fight(t)
        assert t.challenge("c").challenger.lead == "strength"
        t.test("c", "rock", "rock")
        t.do("billy", "declare_traits", challenge="c", count=3)  # not Fleetness: the tie goes to the counts
        t.do("jeff", "declare_traits", challenge="c", count=5)
        t.do("billy", "retest", challenge="c", source={"category": "power", "name": "Might"})
        assert t.challenge("c").pending_retest is not None

    def test_fleetness_only_with_a_dexterity_lead(self, t: Table) -> None:
        """Leading with Quick, Fleetness wins the tie outright; without it, no retest from Fleetness
        and no Might (camarilla:lead-trait)."""
        fight(t, billy="Quick")
        assert t.challenge("c").challenger.lead == "dexterity"
        (resolved,) = t.test("c", "scissors", "scissors")[-1:]
        assert resolved.leader == "challenger" and "Fleetness" in resolved.why  # type: ignore[union-attr]
        t.contest("d", "jeff", "billy", "Brutal", "Quick")
        t.test("d", "paper", "rock")
        t.refused(
            "billy",
            "retest",
            challenge="d",
            source={"category": "power", "name": "Might"},
            code="needs_lead",
            rule="camarilla:lead-trait",
        )
        t.refused(
            "billy",
            "retest",
            challenge="d",
            source={"category": "power", "name": "Fleetness"},
            code="no_retest",
            rule="camarilla:retests",
        )

    def test_mixed_challenge(self, t: Table) -> None:
        """A Mental-against-Physical challenge: the target resists with a Physical Trait, uses its
        powers, and gets no Willpower retest (camarilla:mixed)."""
        t.do(
            "jeff",
            "declare",
            challenge="bolt",
            kind="contested",
            targets=["billy"],
            category="mental",
            defense="physical",
            bid=["Clever"],
        )
        t.refused("billy", "bid", challenge="bolt", bid=["Calm"], code="wrong_category")
        t.do("billy", "bid", challenge="bolt", bid=["Quick"])
        (resolved,) = t.test("bolt", "rock", "rock")[-1:]
        assert resolved.leader == "defender"  # type: ignore[union-attr]  # Fleetness, led with Quick
        t.do("st", "adjust", character="jeff", changes={"abilities": {"Awareness": 1, "Dodge": 2}}, reason="sheet")
        t.refused("jeff", "retest", challenge="bolt", source=ability("Dodge"), code="inappropriate_source")
        t.do("jeff", "retest", challenge="bolt", source=ability("Awareness"))  # Jeff bid a Mental Trait
        events = t.do("billy", "cancel_retest", challenge="bolt", source=ability("Dodge"))  # Billy bid Quick
        assert types(events) == ["retest_cancelled", "ability_spent"]
        t.contest("m2", "jeff", "billy", "Clever", "Brawny", category="mental", defense="physical")
        t.test("m2", "paper", "rock")
        t.refused(
            "billy",
            "retest",
            challenge="m2",
            source={"category": "willpower"},
            code="no_willpower",
            rule="camarilla:willpower",
        )


class TestRetestCategories:
    def test_one_of_each_category_per_challenge(self, t: Table) -> None:
        """One Ability, one Power and one Merit per side in a challenge; after a cancelled Brawl, no other
        Ability, but Might or a Merit (camarilla:retest-categories)."""
        fight(t)
        t.test("c", "scissors", "rock")
        t.do("billy", "retest", challenge="c", source=ability("Brawl"))
        t.do("jeff", "cancel_retest", challenge="c", source=ability("Dodge"))
        t.refused(
            "billy",
            "retest",
            challenge="c",
            source=ability("Dodge"),
            code="category_used",
            rule="camarilla:retest-categories",
        )
        t.do("billy", "retest", challenge="c", source={"category": "merit", "name": "Lucky"})
        t.do("jeff", "pass", challenge="c")
        t.test("c", "scissors", "rock")
        t.refused("billy", "retest", challenge="c", source=ability("Dodge"), code="category_used")
        t.do("billy", "retest", challenge="c", source={"category": "power", "name": "Might"})

    def test_might_is_the_last_retest(self, t: Table) -> None:
        """After Might no retest follows, from either side (camarilla:final-retest)."""
        fight(t)
        t.test("c", "scissors", "rock")
        t.do("billy", "retest", challenge="c", source={"category": "power", "name": "Might"})
        t.do("jeff", "pass", challenge="c")
        t.test("c", "rock", "scissors")
        t.refused(
            "jeff", "retest", challenge="c", source=ability("Dodge"), code="final_retest", rule="camarilla:final-retest"
        )
        t.refused(
            "jeff", "retest", challenge="c", source={"category": "overbid", "bid": ["Tough"]}, code="final_retest"
        )

    def test_a_cancelled_might_is_not_the_last_and_only_a_retest_power_cancels(self) -> None:
        """Might ends the retests only when it is used, not cancelled; a power cancels a Power retest only
        if it grants one itself (camarilla:final-retest)."""
        t = Table(ruleset="camarilla")
        t.add("billy", {"Brawny": 2}, powers=["Might"], abilities={"Brawl": 1})
        t.add("jeff", {"Brutal": 3}, powers=["Might", "Puissance"])
        fight(t)
        t.test("c", "scissors", "rock")
        t.do("billy", "retest", challenge="c", source={"category": "power", "name": "Might"})
        t.refused(
            "jeff", "cancel_retest", challenge="c", source={"category": "power", "name": "Puissance"}, code="no_retest"
        )
        t.do("jeff", "cancel_retest", challenge="c", source={"category": "power", "name": "Might"})
        t.do("billy", "retest", challenge="c", source=ability("Brawl"))
        assert t.challenge("c").pending_retest is not None

    def test_any_number_of_miscellaneous_retests(self) -> None:
        """A Willpower retest and an overbid in one challenge (camarilla:miscellaneous-retests)."""
        t2 = Table(ruleset="camarilla")
        t2.add("a", traits={"social": {"Witty": 9}})
        t2.add("b", traits={"social": {"Calm": 2}}, willpower=2)
        t2.contest("s", "a", "b", "Witty", "Calm", category="social")
        t2.test("s", "paper", "rock")
        t2.do("b", "retest", challenge="s", source={"category": "willpower"})
        t2.do("a", "pass", challenge="s")
        t2.test("s", "rock", "paper")
        t2.do("a", "retest", challenge="s", source={"category": "overbid", "bid": ["Witty"]})
        t2.do("a", "declare_traits", challenge="s", count=8)
        t2.do("b", "declare_traits", challenge="s", count=2)
        assert [r.source.category for r in t2.challenge("s").retests] == ["willpower", "overbid"]

    def test_willpower_belongs_to_the_target(self, t: Table) -> None:
        """The target of a Social challenge spends Willpower to retest; the initiator may not; never
        on static or simple tests (camarilla:willpower)."""
        t.do("jeff", "declare", challenge="s", kind="contested", targets=["billy"], category="social", bid=["Charming"])
        t.do("billy", "bid", challenge="s", bid=["Calm"])
        t.test("s", "rock", "scissors")
        events = t.do("billy", "retest", challenge="s", source={"category": "willpower"})
        assert types(events) == ["retest_invoked", "willpower_spent"] and t.character("billy").willpower == 1
        t.refused(
            "jeff",
            "cancel_retest",
            challenge="s",
            source={"category": "willpower"},
            code="cannot_cancel",
            rule="camarilla:miscellaneous-retests",
        )
        t.do("jeff", "pass", challenge="s")
        t.test("s", "scissors", "rock")
        t.refused("jeff", "retest", challenge="s", source={"category": "willpower"}, code="no_willpower")
        t.do("jeff", "declare", challenge="st", kind="static", category="social", bid=["Charming"], difficulty=2)
        t.do("st", "record_test", challenge="st", signs={"jeff": "rock", "st": "paper"})
        t.refused("jeff", "retest", challenge="st", source={"category": "willpower"}, code="no_willpower")

    def test_a_failed_overbid_loses_its_trait(self, t: Table) -> None:
        """Below double, the overbid's Trait is lost even if the challenge is later won
        (camarilla:overbid)."""
        fight(t)
        t.test("c", "scissors", "rock")
        t.do("billy", "retest", challenge="c", source={"category": "overbid", "bid": ["Quick"]})
        t.do("billy", "declare_traits", challenge="c", count=3)
        t.do("jeff", "declare_traits", challenge="c", count=5)
        t.do("billy", "retest", challenge="c", source=ability("Brawl"))
        t.do("jeff", "pass", challenge="c")
        t.test("c", "rock", "scissors")
        t.do("jeff", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "challenger"  # type: ignore[union-attr]
        assert t.lost("billy") == ["Brawny", "Quick"]


class TestDarknessSurpriseRange:
    def test_darkness_forces_one_more_test(self, t: Table) -> None:
        """Winning against an unseen target forces a darkness retest; Blindfighting negates it
        (camarilla:darkness)."""
        t.do("st", "adjust", character="billy", changes={"abilities": {"Blindfighting": 1}}, reason="trained")
        fight(t, darkness="challenger")
        t.test("c", "rock", "scissors")
        events = t.do("jeff", "pass", challenge="c")
        assert types(events) == ["passed", "retest_invoked"] and events[1].source.category == "darkness"  # type: ignore[union-attr]
        t.refused("billy", "cancel_retest", challenge="c", source=ability("Brawl"), code="blindfighting")
        events = t.do("billy", "cancel_retest", challenge="c", source=ability("Blindfighting"))
        assert types(events) == ["retest_cancelled", "ability_spent"]
        t.do("jeff", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "challenger"  # type: ignore[union-attr]

    def test_darkness_retest_stands_without_blindfighting(self, t: Table) -> None:
        """Without Blindfighting the forced test is thrown; equally blind sides cancel theirs
        (camarilla:darkness)."""
        fight(t, darkness="challenger")
        t.test("c", "rock", "scissors")
        t.do("jeff", "pass", challenge="c")
        t.do("billy", "pass", challenge="c")  # lets the forced retest stand
        t.test("c", "scissors", "rock")
        t.do("billy", "pass", challenge="c")
        assert t.challenge("c").outcome.winner == "defender"  # type: ignore[union-attr]
        t.contest("d", "billy", "jeff", "Quick", "Tough", darkness="both")
        t.test("d", "rock", "scissors")
        t.do("jeff", "pass", challenge="d")
        assert t.challenge("d").outcome.winner == "challenger"  # type: ignore[union-attr]

    def test_surprise_only_in_the_first_round(self, t: Table) -> None:
        """A surprise retest is free in round one; later only a ranged attack the target cannot answer
        gets it (camarilla:surprise, camarilla:range)."""
        t.do("st", "start_round")
        t.do("billy", "declare_action", action={"kind": "challenge", "category": "physical", "target": "jeff"})
        t.do("jeff", "declare_action", action={"kind": "none"})
        t.do("jeff", "end_turn")  # Jeff (5) acts before Billy (4), and does nothing
        fight(t, surprise=True)
        t.test("c", "scissors", "rock")
        assert t.character("jeff").conditions.surprised
        t.do("billy", "retest", challenge="c", source={"category": "surprise"})
        t.refused("jeff", "retest", challenge="c", source={"category": "surprise"}, code="retest_pending")
        t.do("jeff", "pass", challenge="c")
        t.test("c", "scissors", "rock")
        t.refused("billy", "retest", challenge="c", source={"category": "surprise"}, code="source_used")
        t.do("st", "end_round")
        t.do("st", "start_round")
        t.do("billy", "declare_action", action={"kind": "challenge", "category": "physical", "target": "jeff"})
        t.do("jeff", "declare_action", action={"kind": "none"})
        t.do("jeff", "end_turn")
        t.refused(
            "billy",
            "declare",
            challenge="d",
            kind="contested",
            targets=["jeff"],
            category="physical",
            bid=["Quick"],
            surprise=True,
            code="not_first_round",
            rule="camarilla:surprise",
        )
        t.do(
            "billy",
            "declare",
            challenge="d",
            kind="contested",
            targets=["jeff"],
            category="physical",
            bid=["Quick"],
            ranged=True,
            surprise=True,
        )
        t.do("jeff", "bid", challenge="d", bid=["Tough"])
        t.test("d", "scissors", "rock")
        t.do("billy", "retest", challenge="d", source={"category": "surprise"})
        assert t.challenge("d").pending_retest is not None

    def test_a_new_fight_has_its_own_first_round(self, t: Table) -> None:
        """Once the round ends nobody is surprised; a new fight in the scene starts at a first round again
        (camarilla:surprise)."""
        t.do("st", "start_round")
        t.do("billy", "declare_action", action={"kind": "challenge", "category": "physical", "target": "jeff"})
        t.do("jeff", "declare_action", action={"kind": "none"})
        t.do("jeff", "end_turn")
        fight(t, surprise=True)
        t.do("jeff", "relent", challenge="c")
        assert t.character("jeff").conditions.surprised and t.state.round is not None and t.state.round.first
        t.do("st", "end_round")
        assert not t.character("jeff").conditions.surprised
        t.do("st", "start_round", new_fight=True)
        assert t.state.round.number == 2 and t.state.round.first
        t.do("billy", "declare_action", action={"kind": "challenge", "category": "physical", "target": "jeff"})
        t.do("jeff", "declare_action", action={"kind": "none"})
        t.do("jeff", "end_turn")
        t.contest("d", "billy", "jeff", "Brawny", "Brutal", surprise=True)
        assert t.challenge("d").surprise and t.challenge("d").round == 2


def test_failed_mental_challenge_waits_five_minutes() -> None:
    """A failed Mental challenge cannot be repeated for five real-time minutes
    (camarilla:five-minute-wait)."""
    t = Table(ruleset="camarilla")
    t.add("a", traits={"mental": {"Clever": 3}})
    t.add("b", traits={"mental": {"Wise": 3}})
    t.contest("m", "a", "b", "Clever", "Wise", category="mental")
    t.test("m", "rock", "paper")
    t.do("a", "pass", challenge="m")
    t.refused(
        "a",
        "declare",
        challenge="m2",
        kind="contested",
        targets=["b"],
        category="mental",
        bid=["Clever"],
        code="wait_required",
        rule="camarilla:five-minute-wait",
    )
    t.tick(minutes=5)
    t.contest("m2", "a", "b", "Clever", "Wise", category="mental")
