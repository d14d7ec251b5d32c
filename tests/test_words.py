"""The words the server says: every sentence a player reads names people and steps, never the
machine's ids (``c-…``, ``s-…``) or raw statuses, and a rule is signed with its book's title."""

from __future__ import annotations

import re

import pytest

from domain.events import SceneForked
from domain.evolve import evolve
from domain.rules import RULES
from domain.rules.words import BOOKS
from domain.state import Scene
from projections.narrate import addressed, narrate
from projections.replay import replay
from tests.table import Table, entropy_for
from tests.test_kony_views import kony, punch

CID = "c-0a37ff"
LATER = "c-77b1e0"
MACHINE = re.compile(r"\b[cs]-[0-9a-f]{4,}|_|#\d")


def sentences(t: Table, viewer: str = "st") -> list[str]:
    """Each step of the log as ``viewer`` reads it, from the state just before it."""
    state, said = Scene(), []
    for record in t.log:
        said.append(narrate(state, record.event, viewer))
        state = evolve(state, record)
    return said


@pytest.fixture
def fight() -> Table:
    """Sam wins a challenge against Juan (Juan loses Brutal)."""
    t = Table()
    t.add("sam", {"Ferocious": 2, "Brawny": 3, "Quick": 2})
    t.add("juan", {"Brutal": 2, "Quick": 3, "Tough": 2})
    t.contest(CID, "sam", "juan", "Ferocious", "Brutal")
    t.test(CID, "paper", "rock")
    t.do("juan", "pass", challenge=CID)
    return t


def test_a_dispute_and_its_ruling_name_the_challenge_by_its_people(fight: Table) -> None:
    resolved = fight.seq_of("challenge_resolved", CID)
    fight.do("juan", "dispute", event=resolved, reason="I threw rock after Sam, not paper")
    fight.do("st", "rule", event=resolved, decision="overturn", reason="Sam threw late")
    said = sentences(fight)
    assert next(s for s in said if s.startswith("Juan disputes")) == (
        f"Juan disputes the result of Sam's challenge to Juan (step {resolved}): I threw rock after Sam, not paper."
    )
    ruling = next(s for s in said if s.startswith("The Storyteller overturns"))
    assert ruling == (
        f"The Storyteller overturns the result of Sam's challenge to Juan (step {resolved}): Sam threw late. "
        "Sam's challenge to Juan: Juan wins instead of Sam."
    )
    assert (
        f"By the ruling at step {fight.seq_of('ruling_issued')}: Sam's challenge to Juan: Juan wins instead of Sam."
        in said
    )
    for sentence in said:
        assert not MACHINE.search(sentence), sentence


def test_a_draw_corrected_and_back_says_so_in_words(fight: Table) -> None:
    resolved = fight.seq_of("challenge_resolved", CID)
    (drawn, *_) = fight.do("st", "rule", event=resolved, decision="amend", reason="r", correction={"winner": "none"})
    assert drawn.why == "Sam's challenge to Juan: a draw instead of a win for Sam."  # type: ignore[union-attr]
    (won, *_) = fight.do(
        "st", "rule", event=resolved, decision="amend", reason="r", correction={"winner": "challenger"}
    )
    assert won.why == "Sam's challenge to Juan: Sam wins instead of a draw."  # type: ignore[union-attr]
    (upheld,) = fight.do("st", "rule", event=resolved, decision="uphold", reason="it stands now.")
    assert upheld.why == f"Upheld: the result of Sam's challenge to Juan (step {resolved}) stands as played."  # type: ignore[union-attr]
    assert (
        sentences(fight)[-1]
        == f"The Storyteller upholds the result of Sam's challenge to Juan (step {resolved}): it stands now."
    )


def test_later_challenges_are_listed_by_their_people_and_steps(fight: Table) -> None:
    fight.contest(LATER, "juan", "sam", "Quick", "Brawny")
    declared = fight.challenge(LATER).seq
    fight.test(LATER, "paper", "rock")
    fight.do("sam", "pass", challenge=LATER)
    (ruling, *_) = fight.do(
        "st", "rule", event=fight.seq_of("challenge_resolved", CID), decision="overturn", reason="late"
    )
    assert ruling.later == [LATER]  # type: ignore[union-attr]  (the data keeps the id for the audit)
    assert ruling.why.endswith(  # type: ignore[union-attr]
        f"Challenges since, involving them, stand as played: Juan's challenge to Sam (step {declared})."
    )
    assert LATER not in " ".join(sentences(fight))


def test_a_withdrawn_challenge_and_a_what_if_are_named_without_ids() -> None:
    t = Table()
    t.add("sam", {"Ferocious": 2})
    t.add("juan", {"Brutal": 2})
    t.do("sam", "declare", challenge=CID, kind="contested", targets=["juan"], category="physical", bid=["Ferocious"])
    t.do("sam", "withdraw", challenge=CID)
    assert sentences(t)[-1] == "Sam withdraws Sam's challenge to Juan."
    fork = SceneForked(scene="s-5e3c0d", seq=12, hash="ab" * 32)
    assert narrate(Scene(), fork) == "A what-if: this scene goes on from another scene as it stood at its step 12."


def test_unknown_steps_are_refused_in_steps_not_event_numbers(fight: Table) -> None:
    error = fight.refused("juan", "dispute", event=999, reason="?", code="unknown_event")
    assert error.message == f"There is no step 999 in this scene (it has {fight.state.version} steps)."


def test_a_rule_is_signed_with_its_books_title_and_keeps_its_id() -> None:
    assert RULES["lotn:rps"].source == "Laws of the Night"
    assert RULES["lotn:rps"].id == "lotn:rps" and RULES["lotn:rps"].document == "laws-of-the-night-challenges.txt"
    for rule in RULES.values():
        assert rule.source in BOOKS.values() and not rule.source.endswith(".txt"), rule.id


def test_a_replay_step_quotes_the_rule_under_the_books_title(fight: Table) -> None:
    steps = list(replay(fight.log))
    cited = [step for step in steps if step.rule == "lotn:trait-loss"]
    assert cited and cited[0].source == "Laws of the Night"


def test_a_retest_names_its_source_as_the_pages_do() -> None:
    t = Table()
    t.add("sam", {"Ferocious": 2}, abilities={"Brawl": 1})
    t.add("juan", {"Brutal": 2, "Quick": 1}, abilities={"Dodge": 1})
    t.contest(CID, "sam", "juan", "Ferocious", "Brutal")
    t.test(CID, "rock", "scissors")
    t.do("juan", "retest", challenge=CID, source={"category": "ability", "name": "Dodge"})
    assert "Juan retests with Dodge (ability)." in sentences(t)


def test_a_player_reads_their_own_character_in_the_second_person(fight: Table) -> None:
    fight.contest(LATER, "juan", "sam", "Quick", "Brawny")
    fight.test(LATER, "paper", "rock")
    fight.do("sam", "pass", challenge=LATER)
    sam = sentences(fight, "sam")
    assert "You challenge Juan (physical), bidding Ferocious." in sam
    assert "Juan challenges you (physical), bidding Quick." in sam
    assert "You answer, bidding Brawny." in sam
    assert "You threw paper, Juan threw rock: you win the test." in sam
    assert "Test 1: Juan threw paper, you threw rock: Juan wins." in sam
    assert any(s.startswith("You lose Brawny: ") for s in sam)
    assert any(s.startswith("Juan loses Brutal: ") for s in sam)
    juan = sentences(fight, "juan")
    assert "Sam challenges you (physical), bidding Ferocious." in juan
    assert any(s.startswith("You lose Brutal: ") for s in juan)


def test_the_storyteller_and_spectators_read_everyone_by_name(fight: Table) -> None:
    for viewer in ("st", "*"):
        said = sentences(fight, viewer)
        assert "Sam challenges Juan (physical), bidding Ferocious." in said
        assert not any(re.search(r"\b[Yy]ou(r)?\b", s) for s in said), viewer


def test_the_second_person_keeps_others_names_and_words_as_they_are() -> None:
    t = Table()
    t.add("sam", {"Ferocious": 2}, name="Sam")
    t.add("wu", {"Brutal": 2}, name="Sam Wu")
    t.do(
        "sam",
        "declare",
        challenge=CID,
        kind="contested",
        targets=["wu"],
        category="physical",
        bid=["Ferocious"],
        victory="Sam throws Sam Wu down",
    )
    assert sentences(t, "sam")[-1] == "You challenge Sam Wu (physical), bidding Ferocious: “Sam throws Sam Wu down”."
    assert sentences(t, "wu")[-1] == "Sam challenges you (physical), bidding Ferocious: “Sam throws Sam Wu down”."


def test_a_pool_named_in_the_rules_words_is_your_pool() -> None:
    said = addressed("Vito's pool of 8 (8 physical) is more than Juan's pool of 5: Vito leads.", "Vito", ["Juan"])
    assert said == "Your pool of 8 (8 physical) is more than Juan's pool of 5: you lead."
    assert addressed("Juan's pool of 5 against Vito's pool of 8.", "Vito") == "Juan's pool of 5 against your pool of 8."


def test_a_kony_tie_decided_by_the_pools_says_your_pool_to_its_owner() -> None:
    t = kony(ties="traits")
    punch(t)
    for who in ("sam", "juan"):
        t.entropy = entropy_for(1)
        t.do(who, "roll", challenge="c")
    sam, juan = sentences(t, "sam"), sentences(t, "juan")
    tie = next(s for s in sam if "the pools decide" in s)
    decided = "the pools decide: your pool of 5 (Physical 5) against Juan's pool of 4 (Physical 4): you win the test."
    assert decided in tie
    assert "Sam's" not in tie and "Sam " not in tie
    assert any("Sam's pool of 5 (Physical 5) against your pool of 4" in s for s in juan)
    assert any("Sam's pool of 5 (Physical 5) against Juan's pool of 4" in s for s in sentences(t, "st"))


def test_a_what_if_is_named_by_its_scenes_title() -> None:
    fork = SceneForked(scene="s-5e3c0d", seq=12, hash="ab" * 32)
    said = narrate(Table().state, fork)
    assert said == "A what-if of “test”, from its step 12: nothing here changes the real scene."


# -- a game night: each of its events in a sentence, "you" for the viewer's own character -------


def night_sentences(viewer: str) -> dict[str, list[str]]:
    """Sam loses Brawny in Elysium, comes back, is sent to the parking lot; then a ruling in
    Elysium overturns the loss: each stream's steps as ``viewer`` reads them."""
    from domain.evolve import fold
    from tests.night.table import JUAN, ROSA, SAM, NightTable

    t = NightTable()
    t.open_game("g1", SAM, JUAN, ROSA)
    t.open_scene("elysium", title="Elysium")
    t.move("sam", "elysium")
    t.move("juan", "elysium")
    t.fight("elysium", "c-1", "juan", "sam", "Wiry", "Brawny", ("rock", "scissors"))
    t.ok("elysium", "st", "close_scene")
    t.open_scene("parking", title="The parking lot")
    t.move("sam", "parking")
    resolved = next(r.seq for r in t.log("elysium") if r.type == "challenge_resolved")
    t.ok("elysium", "st", "rule", event=resolved, decision="overturn", reason="Sam had cover")
    said: dict[str, list[str]] = {}
    for stream in ("g1", "elysium", "parking"):
        state = fold([])
        for record in t.log(stream):
            said.setdefault(stream, []).append(narrate(state, record.event, viewer))
            state = evolve(state, record)
    return said


def test_a_players_night_in_the_second_person() -> None:
    said = night_sentences("sam")
    night = said["g1"]
    assert "You are at the game tonight." in night
    assert "Juan is at the game tonight." in night
    assert "A new scene opens tonight." in night and "“Elysium” opens tonight." not in night  # no other scene
    assert "The Storyteller sends you into “Elysium”." in night
    assert "The Storyteller sends Juan into a scene." in night  # where Juan goes is not Sam's to know
    assert "You come back from “Elysium”, now without Brawny: between scenes." in night
    assert "Juan is between scenes." in night
    assert "A scene of tonight's game ends." in night  # Sam is back between scenes before it ends
    assert "The Storyteller sends you into “The parking lot”." in night
    assert "A ruling in “Elysium” after you left it: you get Brawny back." in night
    assert "A ruling in an earlier scene changes what Juan carries tonight." in night
    assert "You enter “The parking lot”, still without Brawny (lost earlier tonight)." in said["parking"]
    assert "You leave the scene, back to tonight's game, without Brawny." in said["elysium"]
    assert "Juan enters “Elysium” from tonight's game." in said["elysium"]


def test_the_storyteller_reads_a_night_by_names_and_titles() -> None:
    said = night_sentences("st")
    assert said["g1"][0] == "The Storyteller opens the game night “Night g1” under the Laws of the Night rules."
    assert "The Storyteller sends Juan into “Elysium”." in said["g1"]
    assert "A ruling in “Elysium” after Juan left it: Juan loses Wiry." in said["g1"]
    assert "Sam enters “Elysium”." in said["elysium"]
    every = [line for lines in said.values() for line in lines]
    assert not [line for line in every if MACHINE.search(line) or line.endswith(("entered.", "moved.", "returned."))]


def test_a_spectator_sees_who_goes_where_and_no_losses() -> None:
    said = night_sentences("*")
    assert "The Storyteller sends Sam into “The parking lot”." in said["g1"]
    assert "Sam comes back from “Elysium”: between scenes." in said["g1"]
    assert not [line for line in said["g1"] if "Brawny" in line]  # what Sam carries is Sam's
    assert "Sam leaves the scene, back to tonight's game." in said["elysium"]


# -- a player's own card says "you" too (the new-user review, item 12) ------------------------


def test_a_tie_on_a_players_card_says_your_count_and_the_others_by_name() -> None:
    from projections.views import view

    t = Table()
    t.add("sam", {"Ferocious": 2, "Brawny": 3, "Quick": 2})
    t.add("juan", {"Brutal": 2, "Quick": 3, "Tough": 2})
    t.contest(CID, "sam", "juan", "Ferocious", "Brutal")
    t.test(CID, "rock", "rock")
    t.do("sam", "declare_traits", challenge=CID, count=7)
    t.do("juan", "declare_traits", challenge=CID, count=7)
    said = {who: view(t.state, who).challenges[CID].tests[0].why for who in ("sam", "juan", "st", "*")}
    assert said["sam"] == "A tie: your 7 Physical Traits against Juan's 7; equal counts: a draw."
    assert said["juan"] == "A tie: Sam's 7 Physical Traits against your 7; equal counts: a draw."
    assert said["st"] == said["*"] == "A tie: Sam's 7 Physical Traits against Juan's 7; equal counts: a draw."


def test_a_result_on_a_players_card_says_you(fight: Table) -> None:
    from projections.views import older_challenges, view

    why = {who: view(fight.state, who).challenges[CID].outcome.why for who in ("sam", "juan", "st")}  # type: ignore[union-attr]
    assert why["sam"] == "You win the challenge. You threw paper, Juan threw rock: you win the test."
    assert why["juan"] == "Sam wins the challenge. Sam threw paper, you threw rock: Sam wins the test."
    assert why["st"] == "Sam wins the challenge. Sam threw paper, Juan threw rock: Sam wins the test."
    assert fight.challenge(CID).outcome.why == why["st"]  # type: ignore[union-attr]  # the log keeps its names
    older, _ = older_challenges(fight.state, "juan", None, 10)
    assert all("Juan" not in ch.outcome.why for ch in older.values() if ch.outcome)


def test_a_sentence_after_someones_own_words_begins_with_a_capital(fight: Table) -> None:
    resolved = fight.seq_of("challenge_resolved", CID)
    fight.do("st", "rule", event=resolved, decision="overturn", reason="The retest was void.")
    ruling = next(s for s in sentences(fight, "sam") if s.startswith("The Storyteller overturns"))
    assert ruling.endswith("The retest was void. Your challenge to Juan: Juan wins instead of you."), ruling


def test_a_trait_lost_twice_is_counted_not_said_twice() -> None:
    from projections.narrate import _and

    assert _and(["Brawny", "Brawny"]) == "Brawny ×2"
    assert _and(["Brawny", "Quick", "Brawny"]) == "Brawny ×2 and Quick"
    assert _and(["Nimble"]) == "Nimble"


def test_a_second_verb_after_you_is_addressed_too() -> None:
    said = "Sam rolled 1, 2, Juan rolled 3: 1 success against 0; Sam has more and wins the test."
    assert addressed(said, "Sam", ["Juan"]).endswith("; you have more and win the test.")
    assert addressed("Sam loses Brawny and Quick.", "Sam") == "You lose Brawny and Quick."


def test_a_turn_with_nobody_in_it_says_so() -> None:
    from domain.events import TurnStarted

    assert narrate(Table().state, TurnStarted(phase="initiative", characters=[])) == "Nobody acts now."
