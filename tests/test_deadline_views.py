"""What each viewer reads of the response deadlines (``projections.deadlines``): the player whose
move it is reads it as its own, the others quietly by name; the Storyteller alone is offered
choices, only once told of a lapse, and only those ``decide`` accepts; a commit that only lapses or
extends a clock still carries the list whole in its patch; nothing hidden is shown on the way."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec

from domain import deadlines as running_kept
from domain.commands import AnyCommand, parse_command
from domain.context import Context
from domain.deadlines import lapses
from domain.decide import decide
from domain.errors import Rejected
from domain.evolve import evolve
from domain.log import GENESIS, Recorded, seal
from projections.deadlines import _KEPT, _SEEN, DeadlineView, deadline_views
from projections.views import SPECTATOR, view
from server.wire import after_commit, outgoing_decoder
from tests.table import Table

DEADLINES = {"throw": {"seconds": 120, "lapse": "act"}, "answer": {"seconds": 300}, "retest": {"seconds": 90}}


def table(ruleset: str = "lotn", deadlines: dict[str, Any] | None = None) -> Table:
    t = Table(ruleset, {"deadlines": DEADLINES if deadlines is None else deadlines})
    t.add("juan", {"Strong": 3, "Brawny": 2}, name="Juan")
    t.add("ana", {"Quick": 3, "Nimble": 2}, name="Ana")
    t.add("thug", {"Burly": 3}, name="Dockside Thug", npc=True)
    return t


def declared(t: Table) -> None:
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])


def submit(t: Table, command: AnyCommand) -> list[Recorded]:
    """The shell's own command (a ``~`` id no client may send), decided and appended as ``Table.do``
    appends a client's; its records."""
    events = decide(t.state, command, Context(now=t.now, entropy=t.entropy))
    for event in events:
        record, _ = seal(
            prev=t.log[-1].hash if t.log else GENESIS,
            seq=t.state.version + 1,
            scene="s1",
            at=t.now,
            actor=command.actor,
            command=command.id,
            event=event,
        )
        t.state = evolve(t.state, record)
        t.log.append(record)
    return t.log[len(t.log) - len(events) :]


def lapse(t: Table) -> list[str]:
    """The shell's part: past the first deadline's time, submit the lapse owed, as it does."""
    owed = lapses(t.state, t.now)
    assert len(owed) == 1, owed
    return [r.type for r in submit(t, owed[0])]


def past_due(t: Table) -> None:
    first = min(d.due_at for d in view(t.state).deadlines if not d.told)
    t.now = first + timedelta(seconds=1)


def only(t: Table, viewer: str) -> DeadlineView:
    [found] = view(t.state, viewer).deadlines
    return found


def test_the_one_whose_move_it_is_reads_it_as_its_own_and_the_others_by_name() -> None:
    t = table()
    declared(t)
    mine, hers, st, watching = (only(t, v) for v in ("juan", "ana", "st", SPECTATOR))
    assert (mine.kind, mine.character, mine.name, mine.challenge) == ("answer", "juan", "Juan", "c1")
    assert mine.mine and not hers.mine and not st.mine and not watching.mine
    assert mine.said == "You have 5 minutes to answer Ana's challenge."
    assert hers.said == "Juan has 5 minutes to answer your challenge."
    assert st.said == watching.said == "Juan has 5 minutes to answer Ana's challenge."
    assert mine.then == st.then == "Then the Storyteller is told."
    assert mine.to_do == st.to_do == "answer Ana's challenge" and hers.to_do == "answer your challenge"
    assert mine.seconds == 300 and mine.due_at - mine.since == timedelta(seconds=300)
    assert mine.due_at - mine.warn_at == timedelta(seconds=30)
    assert not mine.told and mine.choices == [] and st.choices == []
    # the same deadline for everyone, save the words and whose it is
    assert {(d.key, d.due_at, d.warn_at) for d in (mine, hers, st, watching)} == {(mine.key, mine.due_at, mine.warn_at)}


def test_an_acting_lapse_says_what_it_will_do_to_each_side() -> None:
    t = table()
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    juan, ana = view(t.state, "juan").deadlines, view(t.state, "ana").deadlines
    assert [d.character for d in juan] == [d.character for d in ana] == ["ana", "juan"]
    assert [d.mine for d in juan] == [False, True]
    assert juan[1].said == "You have 2 minutes to throw."
    assert juan[1].then == "Then a sign is thrown at random for you."
    assert juan[0].then == "Then a sign is thrown at random for Ana."
    assert juan[1].lapse == "act"


def test_a_short_time_warns_at_a_quarter_of_it() -> None:
    t = table(deadlines={"answer": {"seconds": 40}})
    declared(t)
    d = only(t, "juan")
    assert d.due_at - d.warn_at == timedelta(seconds=10)
    assert d.said == "You have 40 seconds to answer Ana's challenge."


def test_no_deadlines_no_list() -> None:
    t = table(deadlines={})
    declared(t)
    assert view(t.state, "juan").deadlines == [] and view(t.state).deadlines == []


def test_npcs_moves_are_not_timed() -> None:
    t = table()
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["thug"], category="physical", bid=["Quick"])
    assert view(t.state).deadlines == []


def test_once_told_the_storyteller_alone_gets_choices_each_accepted() -> None:
    t = table()
    declared(t)
    past_due(t)
    assert lapse(t) == ["deadline_passed"]
    st, juan, ana = only(t, "st"), only(t, "juan"), only(t, "ana")
    assert st.told and juan.told and ana.told
    assert st.said == "Juan did not answer Ana's challenge in 5 minutes."
    assert juan.said == "You did not answer Ana's challenge in 5 minutes."
    assert juan.then == ana.then == "The Storyteller chooses what happens."
    assert juan.choices == [] and ana.choices == []
    labels = [c.label for c in st.choices]
    assert labels == ["Relent for Juan", "Give Juan 5 minutes more"]
    assert st.choices[0].command == {"type": "relent", "challenge": "c1", "character": "juan"}
    assert st.choices[1].command == {"type": "extend_deadline", "key": st.key}
    assert all(accepted(t, choice.command) for choice in st.choices)  # each taken as the page sends it


def accepted(t: Table, command: dict[str, Any]) -> bool:
    """Whether the server would take ``command`` from the Storyteller now, as a page sends it."""
    body = {"id": "x", "scene": "s1", "actor": "st", **command}
    try:
        return bool(decide(t.state, parse_command(msgspec.json.encode(body)), Context(now=t.now)))
    except Rejected:
        return False


RELENT = {"type": "relent", "challenge": "c1", "character": "juan"}


def test_a_told_throw_offers_the_random_throw_and_more_time_not_a_refused_relent() -> None:
    t = table(deadlines={"throw": {"seconds": 60}})
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    past_due(t)
    assert lapse(t) == ["deadline_passed"]
    st = only(t, "st")
    assert st.said == "Juan did not throw in 1 minute."
    assert [c.label for c in st.choices] == ["Throw at random for Juan", "Give Juan 1 minute more"]
    assert not accepted(t, RELENT)  # no relent once both have answered (the lifecycle refuses it)
    assert st.choices[0].command == {"type": "throw", "challenge": "c1", "character": "juan", "sign": "random"}
    # the Storyteller chooses the random throw: the challenge goes on, the list is empty
    command = dict(st.choices[0].command)
    made = t.do("st", command.pop("type"), **command)
    assert [e.type_name() for e in made][:2] == ["throw_sealed", "test_revealed"]
    assert all(d.key != st.key for d in view(t.state).deadlines)


def test_only_legal_choices_are_offered() -> None:
    """A retest lapse told: a relent is no move of the retest window, so it is not offered."""
    t = table(deadlines={"retest": {"seconds": 90}})
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.test("c1", "rock", "scissors")  # Ana wins the test: Juan is behind
    st = only(t, "st")
    assert st.character == "juan" and st.kind == "retest"
    assert only(t, "juan").said == "You have 90 seconds to retest or pass."
    past_due(t)
    lapse(t)
    st = only(t, "st")
    labels = [c.label for c in st.choices]
    assert "Pass for Juan" in labels and "Give Juan 90 seconds more" in labels
    assert all(accepted(t, choice.command) for choice in st.choices)
    assert "Relent for Juan" not in labels and not accepted(t, RELENT)


def _patch(t: Table, viewer: str) -> list[dict[str, Any]]:
    """The view patch ``viewer`` is pushed after the last command's commit."""
    last = t.log[-1].command
    records: list[Recorded] = [r for r in t.log if r.command == last]
    [frame] = after_commit(t.state, records, viewer)
    message = outgoing_decoder.decode(frame)
    patch = msgspec.to_builtins(message.view)  # type: ignore[union-attr]
    return patch["deadlines"]  # type: ignore[no-any-return]


def test_a_patch_after_a_commit_that_only_lapsed_carries_the_list() -> None:
    t = table()
    declared(t)
    past_due(t)
    lapse(t)
    for viewer in ("st", "juan", "ana", SPECTATOR):
        assert _patch(t, viewer) == msgspec.to_builtins(view(t.state, viewer).deadlines), viewer
    [told] = _patch(t, "st")
    assert told["told"] and [c["label"] for c in told["choices"]] == ["Relent for Juan", "Give Juan 5 minutes more"]
    t.do("st", "extend_deadline", key=told["key"], seconds=60)
    for viewer in ("st", "juan"):
        [again] = _patch(t, viewer)
        assert not again["told"] and again["seconds"] == 60 and again["choices"] == []
    assert _patch(t, "juan")[0]["said"] == "You have 1 minute to answer Ana's challenge."


def test_a_patch_after_the_move_is_made_carries_the_next_clocks() -> None:
    t = table()
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    assert [d["kind"] for d in _patch(t, "juan")] == ["throw", "throw"]
    t.do("st", "set_deadlines", deadlines={})
    assert _patch(t, "juan") == [] and _patch(t, "st") == []


def test_an_acting_lapse_leaves_no_choices_and_moves_on() -> None:
    t = table()
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="rock")
    past_due(t)
    assert lapse(t)[:2] == ["deadline_passed", "throw_sealed"]
    assert all(not d.told for d in view(t.state).deadlines)


def test_the_words_hide_nothing_the_view_hides() -> None:
    """A sealed throw stays sealed from the other side while its clock runs: the deadlines name
    who still owes a move, never what was thrown."""
    t = table()
    declared(t)
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    t.do("ana", "throw", challenge="c1", sign="paper")
    juan = view(t.state, "juan")
    assert "ana" not in juan.challenges["c1"].sealed
    said = msgspec.json.encode(juan.deadlines).decode()
    assert "paper" not in said and [d.character for d in juan.deadlines] == ["juan"]
    assert "paper" not in msgspec.json.encode(view(t.state, SPECTATOR).deadlines).decode()


def test_views_kept_from_the_last_state_are_those_made_afresh() -> None:
    """The views are made again only where what they say changed: after each step (an adjust that
    moves no clock, a bid, a throw, a lapse told, its choices after another adjust, more time), each
    viewer's list equals one made with nothing kept, and an adjust hands on the very same list."""

    def check() -> None:
        kept = {v: deadline_views(t.state, v) for v in ("st", "juan", "ana", "thug", SPECTATOR)}
        for made in (_KEPT, _SEEN, running_kept._SEEN, running_kept._OF_CHALLENGE):
            made.clear()
        for viewer, views in kept.items():
            assert views == deadline_views(t.state, viewer), viewer

    t = table()
    declared(t)
    check()
    before = deadline_views(t.state, "juan")
    t.do("st", "adjust", character="ana", changes={"willpower": 1}, reason="a test")
    assert deadline_views(t.state, "juan") is before
    check()
    t.do("juan", "bid", challenge="c1", bid=["Strong"])
    check()
    t.do("ana", "throw", challenge="c1", sign="rock")
    check()
    t.do("st", "set_deadlines", deadlines={"throw": {"seconds": 60}})
    check()
    past_due(t)
    lapse(t)
    check()
    labels = [c.label for c in only(t, "st").choices]
    t.do("st", "adjust", character="juan", changes={"willpower": 1}, reason="a test")
    check()
    assert [c.label for c in only(t, "st").choices] == labels
    t.do("st", "extend_deadline", key=only(t, "st").key, seconds=30)
    check()
    assert not only(t, "st").told and only(t, "juan").said == "You have 30 seconds to throw."
