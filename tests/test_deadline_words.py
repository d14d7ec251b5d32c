"""The words of the response deadlines: each deadline event has a sentence of its own, said to each
viewer; a move a lapse made reads as the deadline's, not the player's, in the replay (a page that
starts at it too), in the words pushed with a commit and in the audit's timeline."""

from __future__ import annotations

from html import escape
from typing import Any

import msgspec

from domain.deadlines import Due, lapses, running
from domain.evolve import fold
from domain.log import Recorded, to_wire
from projections.account_text import account_lines
from projections.audit import audit
from projections.audit_render import html, markdown
from projections.deadline_words import duration, lapse_of
from projections.narrate import narrate, narrate_records
from projections.replay import replay
from projections.views import SPECTATOR, view
from tests.domain.test_bns_rounds import EDWARD, EDWARD_FIRST, JULIAN, MOOK, WOLF, act, done
from tests.table import Table
from tests.test_deadline_views import submit

THROW = {"throw": {"seconds": 120, "lapse": "act"}, "answer": {"seconds": 300}}


def table(deadlines: dict[str, Any], ruleset: str = "lotn") -> Table:
    t = Table(ruleset, {"deadlines": deadlines})
    t.add("juan", {"Strong": 3, "Brawny": 2}, name="Juan")
    t.add("ana", {"Quick": 3, "Nimble": 2}, name="Ana")
    return t


def lapse(t: Table) -> list[Recorded]:
    """Past the first deadline, the shell's ``lapse`` (with the id it gives it): its records."""
    t.now = min(d.due_at for d in _owed(t)) if _owed(t) else t.now
    owed = lapses(t.state, t.now)
    assert len(owed) == 1, owed
    return submit(t, owed[0])


def _owed(t: Table) -> list[Due]:
    return [d for d in running(t.state) if not d.told]


def said(t: Table, record: Recorded, viewer: str) -> str:
    """The words pushed live with a commit (``narrate`` from the state before the record)."""
    before = fold(t.log[: record.seq - 1])
    previous = t.log[record.seq - 2] if record.seq > 1 else None
    return narrate(before, record.event, viewer, lapse=lapse_of(before, record, previous))


def test_durations_in_words() -> None:
    assert [duration(s) for s in (1, 40, 60, 90, 120, 150, 300, 3600, 7200)] == [
        "1 second",
        "40 seconds",
        "1 minute",
        "90 seconds",
        "2 minutes",
        "2 minutes 30 seconds",
        "5 minutes",
        "1 hour",
        "2 hours",
    ]


def test_a_told_lapse_and_more_time_in_words_to_each_viewer() -> None:
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    [passed] = lapse(t)
    assert said(t, passed, "st") == (
        "Juan did not answer Ana's challenge in 5 minutes: "
        "the Storyteller is told (the table's deadline for an answer)."
    )
    assert said(t, passed, "juan") == (
        "You did not answer Ana's challenge in 5 minutes: the Storyteller is told (the table's deadline for an answer)."
    )
    assert said(t, passed, "ana").startswith("Juan did not answer your challenge in 5 minutes")
    assert said(t, passed, SPECTATOR) == said(t, passed, "st")
    key = passed.event.key  # type: ignore[union-attr]
    t.do("st", "extend_deadline", key=key, seconds=60)
    extended = t.log[-1]
    assert said(t, extended, "st") == "The Storyteller gives Juan 1 minute more to answer Ana's challenge."
    assert said(t, extended, "juan") == "The Storyteller gives you 1 minute more to answer Ana's challenge."


def test_an_acting_lapse_says_what_was_done_and_its_move_reads_as_the_deadlines() -> None:
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("juan", "throw", challenge="c1", sign="paper")
    passed, move, *rest = lapse(t)
    assert [r.type for r in (passed, move)] == ["deadline_passed", "throw_sealed"]
    assert said(t, passed, "st") == (
        "Ana did not throw in 2 minutes: a sign was thrown at random for Ana (the table's deadline for a throw)."
    )
    assert said(t, passed, "ana") == (
        "You did not throw in 2 minutes: a sign was thrown at random for you (the table's deadline for a throw)."
    )
    sign = move.event.sign  # type: ignore[union-attr]
    assert said(t, move, "st") == (
        f"A sign is thrown at random for Ana: {sign}, by the table's deadline for a throw (sealed until both are in)."
    )
    # the same command's reveal follows in the same record batch: Juan, who threw, learns the sign there
    assert said(t, move, "juan") == (
        "A sign is thrown at random for Ana, by the table's deadline for a throw (sealed until both are in)."
    )
    assert "Ana throws" not in said(t, move, "ana") and said(t, move, "ana").startswith("A sign is thrown")
    assert rest and not any("table's deadline" in said(t, r, "st") for r in rest)  # consequences are the game's


def test_the_replay_and_a_page_of_it_starting_at_the_move_say_it_as_the_deadlines() -> None:
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    passed, move, *_ = lapse(t)
    steps = {s.seq: s for s in replay(t.log, "st")}
    assert steps[passed.seq].summary.startswith("Juan did not throw in 2 minutes: a sign was thrown at random")
    assert steps[move.seq].summary.startswith("A sign is thrown at random for Juan")
    assert steps[move.seq].actor == "st"
    page = list(replay(t.log[move.seq - 1 :], "st", state=fold(t.log[: move.seq - 1])))
    assert page[0].summary == steps[move.seq].summary
    for viewer in ("juan", "ana", SPECTATOR):
        told = {s.seq: s.summary for s in replay(t.log, viewer)}
        assert told[move.seq].startswith("A sign is thrown at random for Juan")


def test_a_players_own_move_after_a_told_lapse_is_their_own() -> None:
    t = table({"throw": {"seconds": 60}})
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    [passed] = lapse(t)
    t.do("juan", "throw", challenge="c1", sign="paper")
    own = t.log[passed.seq]
    assert said(t, own, "st") == "Juan throws paper (sealed until both are in)."
    steps = {s.seq: s.summary for s in replay(t.log, "st")}
    page = list(replay(t.log[own.seq - 1 :], "st", state=fold(t.log[: own.seq - 1])))
    assert steps[own.seq] == page[0].summary == "Juan throws paper (sealed until both are in)."


def test_a_relent_a_pass_and_an_ended_turn_made_by_a_lapse() -> None:
    t = table({"answer": {"seconds": 60, "lapse": "act"}, "retest": {"seconds": 30, "lapse": "act"}})
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    passed, move, *_ = lapse(t)
    assert said(t, passed, "st") == (
        "Juan did not answer Ana's challenge in 1 minute: "
        "a relent was made for Juan (the table's deadline for an answer)."
    )
    assert said(t, move, "juan") == "A relent is made for you, by the table's deadline for an answer."
    t.do("juan", "declare", challenge="c2", kind="contested", targets=["ana"], category="physical", bid=["Strong"])
    t.do("ana", "bid", challenge="c2", bid=["Nimble"])
    t.test("c2", "rock", "paper")  # Ana wins the test: Juan may retest
    passed, move, *_ = lapse(t)
    assert said(t, passed, "st") == (
        "Juan did not retest or pass in 30 seconds: a pass was made for Juan (the table's deadline for a retest)."
    )
    assert said(t, move, "ana") == "A pass is made for Juan, by the table's deadline for a retest."


def test_a_turn_lapse_in_a_round() -> None:
    t = table({"turn": {"seconds": 600, "lapse": "act"}}, ruleset="camarilla")
    t.do("st", "start_round")
    t.do("ana", "declare_action", action={"kind": "none"})
    passed, move, *_ = lapse(t)
    assert said(t, passed, "st") == (
        "Juan did not declare an action in 10 minutes: "
        "no action was declared for Juan (the table's deadline for a turn)."
    )
    assert said(t, move, "juan") == "No action is declared for you, by the table's deadline for a turn."


def test_the_deadlines_set_in_words() -> None:
    t = table({})
    t.do(
        "st",
        "set_deadlines",
        deadlines={"throw": {"seconds": 120, "lapse": "act"}, "answer": {"seconds": 300}, "turn": {"seconds": 600}},
    )
    assert said(t, t.log[-1], "juan") == (
        "The Storyteller sets the response deadlines: 5 minutes to answer a challenge (then the Storyteller is told), "
        "2 minutes to throw or roll (then at random), 10 minutes for a turn (then the Storyteller is told)."
    )
    t.do("st", "set_deadlines", deadlines={})
    assert said(t, t.log[-1], "st") == "The Storyteller turns the response deadlines off."


def test_the_audit_timeline_says_the_lapse_and_its_move() -> None:
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    passed, move, *_ = lapse(t)
    report = audit([to_wire(r) for r in t.log])
    steps = {s.seq: s for section in report.timeline for s in section.steps}
    assert steps[passed.seq].summary.startswith("Juan did not throw in 2 minutes: a sign was thrown at random")
    assert steps[move.seq].summary.startswith("A sign is thrown at random for Juan")
    text = markdown(report)
    assert "A sign is thrown at random for Juan" in text and "Juan throws" not in text
    assert msgspec.json.encode(report)  # the JSON audit carries the same words


def test_the_words_of_a_commit_say_the_move_as_the_deadlines() -> None:
    """What a commit's subscribers read (``narrate_records``): the lapse, then its move as the
    deadline's; a page of the log starting at the move says it so too (the ``~`` id is the
    server's alone)."""
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    records = lapse(t)
    start = records[0].seq - 1
    befores = [fold(t.log[: start + n]) for n in range(len(records))]
    words = narrate_records(befores, records, "juan")
    assert words[0].startswith("You did not throw in 2 minutes: a sign was thrown at random for you")
    assert words[1].startswith("A sign is thrown at random for you: ")
    assert narrate_records(befores[1:], records[1:], "juan") == words[1:]
    assert narrate_records(befores[1:2], records[1:2], "ana")[0].startswith("A sign is thrown at random for Juan,")


def test_the_challenges_account_names_the_deadlines_run_past_with_their_steps() -> None:
    """The account (every surface's: the cards, the terminal, the replay's step, the audit) says who
    ran past which deadline, what followed and at which step; more time given leaves the lapse on
    the record (it happened), and a later lapse is told after it."""
    t = table(THROW)
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    [told] = lapse(t)
    answered = (
        "Juan did not answer Ana's challenge in 5 minutes: the Storyteller is told (the table's deadline for an"
        f" answer), at step {told.seq}"
    )
    st = view(t.state).challenges["c1"].account
    assert st is not None and st.late == [answered]
    mine = view(t.state, "juan").challenges["c1"].account
    assert mine is not None and mine.late == [
        "You did not answer Ana's challenge in 5 minutes: the Storyteller is told (the table's deadline for an"
        f" answer), at step {told.seq}"
    ]
    t.do("st", "extend_deadline", key=told.event.key)  # type: ignore[union-attr]
    again = view(t.state).challenges["c1"].account
    assert again is not None and again.late == [answered]
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    passed, move, *_ = lapse(t)
    thrown = (
        "Juan did not throw in 2 minutes: a sign was thrown at random for Juan (the table's deadline for a throw),"
        f" at step {passed.seq}"
    )
    a = view(t.state).challenges["c1"].account
    assert a is not None and a.late == [answered, thrown]
    assert thrown in account_lines(a)
    report = audit([to_wire(r) for r in t.log])
    assert report.challenges[0].late == a.late
    assert f"{thrown}." in markdown(report)
    assert escape(f"{thrown}.") in html(report)
    steps = {s.seq: s for s in replay(t.log, "st")}
    told_then = steps[move.seq].account
    assert told_then is not None and told_then.late == a.late


def test_a_fair_escapes_window_in_words_and_its_lapse() -> None:
    """bns: the window for intents to attack a fair escape runs under ``deadlines.escape``; its lapse
    closes it (the escaper's turn ends: nobody declared, Edward escapes)."""
    t = Table("bns", {"bns": {"relent_exceptional": False}, "deadlines": {"escape": {"seconds": 120, "lapse": "act"}}})
    for sheet in (EDWARD, JULIAN, MOOK, WOLF):
        t.do("st", "add_character", character=sheet)
    t.entropy = EDWARD_FIRST
    t.do("st", "start_round", rage={})
    t.entropy = 0
    done(t, "julian")
    act(t, "edward", "fair_escape")
    [mine] = view(t.state, "edward").deadlines
    [theirs] = view(t.state, "julian").deadlines
    assert (mine.kind, mine.mine, theirs.mine) == ("escape", False, False)  # the escaper has nothing to do: no warning
    assert mine.said == "Attacks on your fair escape may be announced for 2 minutes."
    assert mine.then == "Then the window closes and your turn ends."
    assert theirs.said == "Attacks on Edward's fair escape may be announced for 2 minutes."
    passed, move, *rest = lapse(t)
    steps = {s.seq: s.summary for s in replay(t.log, "st")}
    assert steps[passed.seq] == (
        "Edward's fair escape was open to attacks for 2 minutes: the window was closed and Edward's turn ended "
        "(the table's deadline for a fair escape's window)."
    )
    assert (
        steps[move.seq]
        == "The window closes and Edward's turn ends, by the table's deadline for a fair escape's window."
    )
    assert "fair_escape_succeeded" in [r.type for r in rest]
