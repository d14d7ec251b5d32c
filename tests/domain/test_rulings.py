"""Disputes and rulings: a ruling adds the events that set things right; history stays
(lotn:adjudication)."""

from __future__ import annotations

import pytest

from tests.table import Table, types


@pytest.fixture
def fight() -> Table:
    """Sam wins a contested challenge against Juan: Juan loses Brutal, takes a wound, is grappled
    and knocked down (one effect each, over three challenges)."""
    t = Table()
    t.add("sam", {"Ferocious": 2, "Brawny": 3, "Quick": 2}, abilities={"Brawl": 1})
    t.add("juan", {"Brutal": 2, "Quick": 3, "Tough": 2})
    t.contest("hit", "sam", "juan", "Ferocious", "Brutal", effect={"kind": "damage", "amount": 2, "type": "lethal"})
    t.test("hit", "paper", "rock")
    t.do("juan", "pass", challenge="hit")
    return t


class TestDisputes:
    def test_any_participant_disputes_an_event(self, fight: Table) -> None:
        """A character of the scene names an event and a reason; the dispute is open until ruled."""
        resolved = fight.seq_of("challenge_resolved", "hit")
        (opened,) = fight.do("juan", "dispute", event=resolved, reason="I threw rock after Sam, not paper")
        assert types([opened]) == ["dispute_opened"]
        (dispute,) = fight.state.disputes
        assert (dispute.event, dispute.by, dispute.status) == (resolved, "juan", "open")
        fight.refused("juan", "dispute", event=resolved, reason="again", code="already_disputed")
        fight.refused("juan", "dispute", event=999, reason="?", code="unknown_event")
        fight.refused("nobody", "dispute", event=resolved, reason="?", code="forbidden", rule="lotn:adjudication")

    def test_only_the_storyteller_rules(self, fight: Table) -> None:
        """A player cannot rule (lotn:adjudication)."""
        fight.refused(
            "juan", "rule", event=3, decision="uphold", reason="mine", code="forbidden", rule="lotn:adjudication"
        )

    def test_uphold_closes_the_dispute_and_changes_nothing(self, fight: Table) -> None:
        """An upheld event stands; the dispute is ruled."""
        resolved = fight.seq_of("challenge_resolved", "hit")
        fight.do("juan", "dispute", event=resolved, reason="unfair")
        before = fight.state.characters
        (ruling,) = fight.do("st", "rule", event=resolved, decision="uphold", reason="the throws were clear")
        assert ruling.disputes == [resolved + 3]  # type: ignore[union-attr]
        assert fight.state.characters == before
        assert fight.state.disputes[0].status == "ruled" and fight.state.disputes[0].ruling == fight.state.version

    def test_disputes_and_rulings_go_on_after_the_scene_closes(self, fight: Table) -> None:
        """A post-game dispute: the scene is closed, but disputes and rulings are still taken."""
        fight.do("st", "close_scene")
        fight.do("juan", "dispute", event=fight.seq_of("test_revealed", "hit"), reason="post-game")
        fight.do("st", "rule", event=fight.seq_of("test_revealed", "hit"), decision="uphold", reason="stands")
        fight.refused("st", "adjust", character="sam", changes={"willpower": 1}, reason="x", code="scene_closed")


class TestOverturn:
    def test_overturn_reverses_traits_damage_and_records_the_new_outcome(self, fight: Table) -> None:
        """Overturning Sam's win: Juan's Brutal and wound come back, Sam loses his bid Trait, the
        outcome says Juan won, and the original events stay in the log."""
        resolved = fight.seq_of("challenge_resolved", "hit")
        original = list(fight.log)
        fight.do("juan", "dispute", event=resolved, reason="Sam threw late")
        events = fight.do("st", "rule", event=resolved, decision="overturn", reason="a late throw loses")
        assert types(events) == ["ruling_issued", "damage_healed", "trait_restored", "outcome_corrected", "trait_lost"]
        assert fight.lost("juan") == [] and fight.character("juan").wounds.lethal == 0
        assert fight.lost("sam") == ["Ferocious"]
        ch = fight.challenge("hit")
        assert ch.outcome is not None and ch.outcome.winner == "defender" and ch.outcome.rule == "lotn:adjudication"
        assert ch.original_outcome is not None and ch.original_outcome.winner == "challenger"
        assert ch.rulings == (fight.seq_of("ruling_issued"),)
        assert fight.log[: len(original)] == original  # nothing edited
        assert fight.replayed() == fight.state

    def test_overturning_back_restores_the_first_outcome(self, fight: Table) -> None:
        """A second overturn undoes the first ruling's consequences, not the original's."""
        resolved = fight.seq_of("challenge_resolved", "hit")
        fight.do("st", "rule", event=resolved, decision="overturn", reason="late throw")
        fight.do("st", "rule", event=resolved, decision="overturn", reason="on reflection it was on time")
        assert fight.lost("juan") == ["Brutal"] and fight.lost("sam") == []
        assert fight.character("juan").wounds.lethal == 2
        assert fight.challenge("hit").outcome.winner == "challenger"  # type: ignore[union-attr]

    def test_overturn_a_grapple_and_a_knock_down(self) -> None:
        """Overturned grapples are released and the knocked-down stand up; an escape is undone."""
        t = Table()
        t.add("maria", {"Brawny": 3})
        t.add("fred", {"Quick": 3})
        t.contest("grab", "maria", "fred", "Brawny", "Quick", effect={"kind": "grapple"})
        t.test("grab", "rock", "scissors")
        t.do("fred", "pass", challenge="grab")
        assert t.character("fred").conditions.grappled_by == "maria"
        t.contest("trip", "maria", "fred", "Brawny", "Quick", effect={"kind": "knock_down"})
        t.test("trip", "rock", "scissors")
        t.do("fred", "pass", challenge="trip")
        assert t.character("fred").conditions.prone
        t.do("st", "rule", event=t.seq_of("challenge_resolved", "trip"), decision="overturn", reason="slipped")
        assert not t.character("fred").conditions.prone
        t.do("st", "rule", event=t.seq_of("challenge_resolved", "grab"), decision="overturn", reason="no grip")
        assert t.character("fred").conditions.grappled_by is None
        assert t.character("maria").conditions.grappling == ()

    def test_overturn_only_a_resolved_outcome(self, fight: Table) -> None:
        """Events outside a resolved challenge cannot be overturned; draws need an amend."""
        fight.refused(
            "st", "rule", event=2, decision="overturn", reason="?", code="not_overturnable", rule="lotn:adjudication"
        )
        fight.contest("open", "sam", "juan", "Brawny", "Quick")
        fight.refused(
            "st",
            "rule",
            event=fight.seq_of("bid_placed", "open"),
            decision="overturn",
            reason="?",
            code="not_overturnable",
        )

    def test_an_overbids_loss_is_not_the_outcomes(self) -> None:
        """A Trait lost calling an overbid stays lost when the outcome is overturned."""
        t = Table()
        t.add("favian", traits={"social": {"Beguiling": 3, "Seductive": 3, "Witty": 9}})
        t.add("endora", traits={"social": {"Dignified": 2, "Calm": 2}})
        t.contest("coax", "favian", "endora", "Beguiling", "Dignified", category="social")
        t.test("coax", "rock", "paper")
        t.do("favian", "retest", challenge="coax", source={"category": "overbid", "bid": ["Seductive"]})
        t.do("favian", "declare_traits", challenge="coax", count=14)
        t.do("endora", "declare_traits", challenge="coax", count=4)
        t.test("coax", "scissors", "paper")
        t.do("endora", "pass", challenge="coax")
        assert t.lost("favian") == ["Beguiling"] and t.lost("endora") == ["Dignified"]
        t.do("st", "rule", event=t.seq_of("challenge_resolved", "coax"), decision="overturn", reason="x")
        assert t.lost("endora") == []
        assert t.lost("favian") == ["Beguiling", "Seductive"]  # the overbid's loss stands; Seductive now too


class TestAmend:
    def test_amend_to_a_draw(self, fight: Table) -> None:
        """Amending the winner to a draw: both lose their bid Traits (lotn:draw), no effect."""
        fight.do(
            "st",
            "rule",
            event=fight.seq_of("challenge_resolved", "hit"),
            decision="amend",
            correction={"winner": "none"},
            reason="they threw at once",
        )
        assert fight.lost("sam") == ["Ferocious"] and fight.lost("juan") == ["Brutal"]
        assert fight.character("juan").wounds.lethal == 0
        assert fight.challenge("hit").outcome.winner == "none"  # type: ignore[union-attr]

    def test_amend_a_character(self, fight: Table) -> None:
        """An amend may correct a character, with the ruling in the reason."""
        events = fight.do(
            "st",
            "rule",
            event=2,
            decision="amend",
            reason="his sheet lists Brawl 2",
            correction={"character": "sam", "changes": {"abilities": {"Brawl": 1}}},
        )
        assert types(events) == ["ruling_issued", "character_adjusted"]
        assert fight.character("sam").abilities["Brawl"] == 2
        assert "the ruling at step" in events[1].reason  # type: ignore[union-attr]

    @pytest.mark.parametrize(
        "correction",
        [
            None,
            {},
            {"winner": "challenger"},
            {"changes": {"willpower": 1}},
            {"character": "sam", "changes": {"willpower": -9}},
        ],
    )
    def test_bad_corrections(self, fight: Table, correction: dict | None) -> None:
        """An amend needs a correction that changes something possible."""
        fields = {"correction": correction} if correction is not None else {}
        error = fight.refused(
            "st",
            "rule",
            event=fight.seq_of("challenge_resolved", "hit"),
            decision="amend",
            reason="r",
            code="bad_adjustment" if correction and "character" in correction else "bad_correction",
            **fields,
        )
        assert error.message


class TestLaterChallenges:
    def test_a_ruling_on_a_challenge_later_ones_built_on(self, fight: Table) -> None:
        """Overturning an earlier challenge lists the later ones involving the same characters; they
        stand as played, and can be ruled on in turn."""
        fight.contest("again", "juan", "sam", "Quick", "Brawny")
        fight.test("again", "rock", "rock")
        fight.do("juan", "declare_traits", challenge="again", count=6)  # Brutal already lost: 6 left
        fight.do("sam", "declare_traits", challenge="again", count=7)
        fight.do("juan", "pass", challenge="again")
        assert fight.challenge("again").outcome.winner == "defender"  # type: ignore[union-attr]
        (ruling, *_) = fight.do(
            "st", "rule", event=fight.seq_of("challenge_resolved", "hit"), decision="overturn", reason="late throw"
        )
        assert ruling.later == ["again"]  # type: ignore[union-attr]
        assert "stand as played: Juan's challenge to Sam" in ruling.why  # type: ignore[union-attr]
        assert fight.challenge("again").outcome.winner == "defender"  # type: ignore[union-attr]
        assert fight.lost("juan") == ["Quick"]  # Brutal back from the ruling; Quick lost in "again" stays
