"""Response deadlines (``domain.deadlines``), per ruleset and per kind of move: a lapse either tells
the Storyteller (``tell``) or makes the move (``act``), names the deadline, the time given and the
option, is refused before its time, after the move was made and twice, never times the
Storyteller's own moves, and replays identically. The clocks are the log's times only: each
command of a ``Table`` is one second after the last, and ``tick`` moves the table's clock on."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec
import pytest

from domain.commands import parse_command
from domain.context import Context
from domain.deadlines import Due, lapses, next_due, running
from domain.decide import decide
from domain.errors import Rejected
from domain.events import DeadlineExtended, DeadlinePassed, DeadlinesSet, SceneEvent
from domain.evolve import evolve, fold
from domain.log import GENESIS, Recorded, seal
from domain.rules.catalog import SIGNS
from domain.state import Scene
from tests.table import T0, Table, entropy_for, sheet, types

KINDS = ("answer", "throw", "retest", "turn", "assist", "escape")


def deadlines(lapse: str = "tell", seconds: int = 60, *kinds: str) -> dict[str, Any]:
    """The ``deadlines`` option: ``seconds`` for each kind named (every kind by default)."""
    return {kind: {"seconds": seconds, "lapse": lapse} for kind in kinds or KINDS}


def options(lapse: str = "tell", seconds: int = 60, *kinds: str, **more: Any) -> dict[str, Any]:
    return {"deadlines": deadlines(lapse, seconds, *kinds), **more}


def the(t: Table, kind: str, who: str | None = None) -> Due:
    """The one running deadline of ``kind`` (``who``'s)."""
    found = [d for d in running(t.state) if d.kind == kind and (who is None or d.who == who)]
    assert len(found) == 1, running(t.state)
    return found[0]


def at_due(t: Table, due: Due) -> None:
    """Set the table's clock so that its next command comes exactly when ``due`` runs out."""
    t.now = due.due_at - timedelta(seconds=1)


def lapse(t: Table, due: Due) -> list[SceneEvent]:
    """The shell's ``lapse`` for ``due``, sent the moment it runs out (the command ``lapses`` owes)."""
    at_due(t, due)
    owed = lapses(t.state, due.due_at)
    assert due.key in [c.key for c in owed]
    return t.do("st", "lapse", key=due.key)


def passed(events: list[SceneEvent]) -> DeadlinePassed:
    first = events[0]
    assert isinstance(first, DeadlinePassed)
    return first


def cites(event: DeadlinePassed, due: Due, lapse: str, did: str = "") -> None:
    """The ``deadline_passed`` names the deadline, its clock, the option that applied, and the move."""
    assert (event.key, event.kind, event.character, event.challenge) == (due.key, due.kind, due.who, due.challenge)
    assert (event.since, event.seconds, event.option) == (due.since, due.seconds, f"deadlines.{due.kind}")
    assert (event.lapse, event.did, event.refused) == (lapse, did, "")


def replays(t: Table) -> None:
    assert fold(t.log) == t.state


def quiet(t: Table) -> Scene:
    """The scene as a ``tell`` lapse must leave it: everything but its clocks, version and time."""
    return Scene(**{f: getattr(t.state, f) for f in t.state.__struct_fields__ if f not in ("clocks", "version", "last_at")})


# -- lotn: answer, throw, declare Traits on a tie, retest, cancel or let stand ------------------


def duel(lapse: str = "tell", seconds: int = 60, *kinds: str, **more: Any) -> Table:
    """Sam (Brawny 2, Quick 1; Brawl 1) and Juan (Tough 2, Wiry 1; Dodge 1), and an NPC guard."""
    t = Table(options=options(lapse, seconds, *kinds, **more))
    t.add("sam", {"Brawny": 2, "Quick": 1}, abilities={"Brawl": 1})
    t.add("juan", {"Tough": 2, "Wiry": 1}, abilities={"Dodge": 1})
    t.add("guard", {"Burly": 3}, npc=True)
    return t


def declare(t: Table, cid: str = "c", who: str = "sam", target: str = "juan", bid: str = "Brawny") -> None:
    actor = "st" if t.character(who).sheet.npc else who
    t.do(actor, "declare", challenge=cid, character=who, kind="contested", targets=[target], category="physical",
         bid=[bid])  # fmt: skip


class TestTell:
    def test_the_storyteller_is_told_and_nothing_else_moves(self) -> None:
        """``tell``: a ``deadline_passed`` citing ``deadlines.answer``, its clock and time; the challenge
        waits on; the told deadline runs no more (``next_due``) and cannot lapse again."""
        t = duel()
        declare(t)
        due = the(t, "answer")
        assert (due.who, due.step, due.seconds, due.lapse) == ("juan", "answer", 60, "tell")
        assert due.since == t.log[-1].at and due.due_at == due.since + timedelta(seconds=60)
        assert next_due(t.state) == due.due_at
        before = quiet(t)
        events = lapse(t, due)
        assert types(events) == ["deadline_passed"]
        cites(passed(events), due, "tell")
        assert quiet(t) == before
        assert the(t, "answer").told == t.state.version and next_due(t.state) is None
        assert lapses(t.state, t.now + timedelta(hours=1)) == []
        t.tick(hours=1)
        t.refused("st", "lapse", key=due.key, code="told", rule="justicar:deadlines")
        replays(t)

    def test_more_time_restarts_the_clock_and_it_can_lapse_again(self) -> None:
        """``extend_deadline``: the Storyteller's; the clock starts again at the command, for the seconds
        given (or the kind's own); when that runs out it lapses again."""
        t = duel()
        declare(t)
        due = the(t, "answer")
        lapse(t, due)
        t.refused("juan", "extend_deadline", key=due.key, code="forbidden", rule="justicar:deadlines")
        t.refused("st", "extend_deadline", key="answer:nothing", code="no_deadline", rule="justicar:deadlines")
        t.tick(seconds=30)
        (extended,) = t.do("st", "extend_deadline", key=due.key, seconds=120)
        assert extended == DeadlineExtended(key=due.key, character="juan", seconds=120)
        again = the(t, "answer")
        assert (again.key, again.since, again.seconds, again.told) == (due.key, t.log[-1].at, 120, 0)
        assert next_due(t.state) == again.due_at == t.log[-1].at + timedelta(seconds=120)
        t.now = again.due_at - timedelta(seconds=2)
        t.refused("st", "lapse", key=due.key, code="not_yet", rule="justicar:deadlines")
        cites(passed(lapse(t, again)), again, "tell")
        (extended,) = t.do("st", "extend_deadline", key=due.key)
        assert extended.seconds == 60  # the kind's own time
        replays(t)

    def test_a_lapse_before_its_time_is_refused(self) -> None:
        t = duel()
        declare(t)
        due = the(t, "answer")
        assert lapses(t.state, due.due_at - timedelta(seconds=1)) == []
        t.now = due.due_at - timedelta(seconds=2)  # the command comes one second before
        refusal = t.refused("st", "lapse", key=due.key, code="not_yet", rule="justicar:deadlines")
        assert "20:01:05" in refusal.message or "until" in refusal.message
        cites(passed(t.do("st", "lapse", key=due.key)), due, "tell")  # exactly on time

    def test_a_move_made_first_wins(self) -> None:
        """A lapse that comes after the move was made (the shell's clock was late, or another process
        fired it) is refused and appends nothing."""
        t = duel()
        declare(t)
        due = the(t, "answer")
        t.tick(minutes=5)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.refused("st", "lapse", key=due.key, code="no_deadline", rule="justicar:deadlines")

    def test_only_the_storyteller_lapses_or_sets(self) -> None:
        t = duel()
        declare(t)
        due = the(t, "answer")
        at_due(t, due)
        t.refused("juan", "lapse", key=due.key, code="forbidden", rule="justicar:deadlines")
        t.refused("sam", "set_deadlines", deadlines={}, code="forbidden", rule="justicar:deadlines")


class TestActLotn:
    def test_an_unanswered_challenge_is_relented(self) -> None:
        """``act`` on ``answer``: the defender relents; the challenger wins (lotn:relent)."""
        t = duel("act")
        declare(t)
        due = the(t, "answer")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="relent")
        assert types(events)[:2] == ["deadline_passed", "relented"]
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger"
        assert running(t.state) == []
        replays(t)

    def test_a_random_throw_from_the_commands_entropy(self) -> None:
        """``act`` on ``throw``: the server throws a random sign for the side, drawn from the lapse's
        entropy; the other side's throw did not restart its clock."""
        t = duel("act")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        juan = the(t, "throw", "juan")
        t.tick(seconds=30)
        t.do("sam", "throw", challenge="c", sign="paper")
        assert the(t, "throw", "juan") == juan  # the same clock
        t.entropy = entropy_for(SIGNS.index("rock"), among=len(SIGNS))
        events = lapse(t, juan)
        cites(passed(events), juan, "act", did="throw")
        assert types(events)[:3] == ["deadline_passed", "throw_sealed", "test_revealed"]
        assert events[1].sign == "rock" and events[1].random  # type: ignore[attr-defined]
        assert t.challenge("c").tests[0].signs == {"sam": "paper", "juan": "rock"}
        replays(t)

    def test_both_throws_lapse_in_turn(self) -> None:
        """Both sides silent: the shell owes two lapses at once; each throws for its own side."""
        t = duel("act")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        sam, juan = the(t, "throw", "sam"), the(t, "throw", "juan")
        assert sam.due_at == juan.due_at
        assert [c.key for c in lapses(t.state, sam.due_at)] == [sam.key, juan.key]
        lapse(t, sam)
        lapse(t, juan)
        assert len(t.challenge("c").tests) == 1
        replays(t)

    def test_a_tie_declares_every_trait_the_side_may(self) -> None:
        """``act`` on a tie's declaration (lotn:ties): the late side declares as many Traits as it may;
        the first to declare does not restart the other's clock, the other's starts when its turn
        to declare came."""
        t = duel("act", 60, "throw")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.test("c", "rock", "rock")
        first = the(t, "throw")
        assert first.step == "declare_traits" and first.who == "sam"
        events = lapse(t, first)
        cites(passed(events), first, "act", did="declare_traits")
        assert events[1].count == 3  # type: ignore[attr-defined]  # Brawny 2, Quick 1
        second = the(t, "throw")
        assert (second.who, second.step, second.since) == ("juan", "declare_traits", t.log[-1].at)
        events = lapse(t, second)
        assert events[1].count == 3  # type: ignore[attr-defined]
        assert t.challenge("c").tests[0].compared == {"sam": 3, "juan": 3}
        replays(t)

    def test_the_side_behind_passes(self) -> None:
        """``act`` on ``retest``: the side behind passes and the test stands (lotn:retests)."""
        t = duel("act", 60, "retest")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.test("c", "paper", "rock")
        due = the(t, "retest")
        assert (due.who, due.step) == ("juan", "retest")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="pass")
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger"
        assert t.lost("juan") == ["Tough"]
        replays(t)

    def test_a_retest_unanswered_stands(self) -> None:
        """``act`` on the winner's answer to a retest (cancel it or let it stand): it stands and the
        test is thrown again."""
        t = duel("act", 60, "retest")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.test("c", "paper", "rock")
        t.do("juan", "retest", challenge="c", source={"category": "ability", "name": "Dodge"})
        due = the(t, "retest")
        assert (due.who, due.step) == ("sam", "cancel_or_let_stand")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="pass")
        assert types(events) == ["deadline_passed", "passed"]  # a winner's pass lets it stand
        ch = t.challenge("c")
        assert ch.status == "throwing" and [r.status for r in ch.retests] == ["stood"]
        replays(t)

    def test_tell_at_a_retest_names_the_step(self) -> None:
        t = duel("tell", 60, "retest")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.test("c", "paper", "rock")
        due = the(t, "retest")
        before = quiet(t)
        cites(passed(lapse(t, due)), due, "tell")
        assert quiet(t) == before


class TestWhoIsTimed:
    def test_npcs_and_the_narrator_are_never_timed(self) -> None:
        """The Storyteller answers for NPCs and the Narrator: only a player's move has a clock."""
        t = duel("act")
        declare(t, "g", who="guard", target="sam", bid="Burly")
        assert the(t, "answer").who == "sam"
        t.do("sam", "bid", challenge="g", bid=["Brawny"])
        assert [d.who for d in running(t.state)] == ["sam"]  # the guard's throw waits on the ST
        declare(t, "h", who="juan", target="guard", bid="Tough")
        assert [d.challenge for d in running(t.state)] == ["g"]  # the guard's answer is the ST's
        replays(t)

    def test_nothing_runs_without_the_option(self) -> None:
        t = Table()
        t.add("sam", {"Brawny": 2})
        t.add("juan", {"Tough": 2})
        declare(t)
        assert running(t.state) == [] and next_due(t.state) is None and lapses(t.state, T0 + timedelta(days=1)) == []
        assert t.challenge("c").step_at is None
        t.refused("st", "lapse", key="answer:c:0.0:juan", code="no_deadline")

    def test_a_kind_not_set_is_not_timed(self) -> None:
        t = duel("act", 60, "throw")
        declare(t)
        assert running(t.state) == []
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        assert {d.who for d in running(t.state)} == {"sam", "juan"}


class TestSetDeadlines:
    def test_set_restarts_every_clock(self) -> None:
        """``set_deadlines``: the new times apply at once, every running clock starting at the command;
        what was told is forgotten (it runs again)."""
        t = duel("tell", 60)
        declare(t)
        declare(t, "d", who="juan", target="sam", bid="Tough")
        lapse(t, the(t, "answer", "juan"))
        t.tick(seconds=10)
        (changed,) = t.do("st", "set_deadlines", deadlines={"answer": {"seconds": 300, "lapse": "act"}})
        assert isinstance(changed, DeadlinesSet) and changed.deadlines.answer is not None
        assert t.state.options.deadlines.answer.seconds == 300  # type: ignore[union-attr]
        dues = running(t.state)
        assert [(d.who, d.since, d.seconds, d.lapse, d.told) for d in dues] == [
            ("juan", t.log[-1].at, 300, "act", 0),
            ("sam", t.log[-1].at, 300, "act", 0),
        ]
        replays(t)

    def test_set_to_none_stops_every_clock(self) -> None:
        t = duel()
        declare(t)
        due = the(t, "answer")
        t.do("st", "set_deadlines", deadlines={})
        assert running(t.state) == [] and next_due(t.state) is None
        t.tick(hours=1)
        t.refused("st", "lapse", key=due.key, code="no_deadline")

    def test_set_on_a_scene_without_them(self) -> None:
        """Deadlines set in play: a challenge already waiting gets its clock from the command."""
        t = Table()
        t.add("sam", {"Brawny": 2})
        t.add("juan", {"Tough": 2})
        declare(t)
        t.tick(minutes=10)
        t.do("st", "set_deadlines", deadlines=deadlines("tell", 60, "answer"))
        due = the(t, "answer")
        assert due.since == t.log[-1].at
        cites(passed(lapse(t, due)), due, "tell")
        replays(t)


class TestOptions:
    @pytest.mark.parametrize(
        ("given", "said"),
        [
            ({"throw": {"seconds": 0}}, "options.deadlines.throw.seconds"),
            ({"throw": {"seconds": 60, "lapse": "shout"}}, "options.deadlines.throw.lapse"),
            ({"nap": {"seconds": 60}}, "options.deadlines"),
            ({"throw": 60}, "options.deadlines.throw"),
        ],
    )
    def test_bad_deadlines_are_refused_in_the_storytellers_words(self, given: dict[str, Any], said: str) -> None:
        body = {"id": "o", "scene": "s1", "actor": "st", "type": "open_scene", "ruleset": "lotn", "title": "x",
                "options": {"deadlines": given}}  # fmt: skip
        with pytest.raises(Rejected) as caught:
            decide(Scene(), parse_command(msgspec.json.encode(body)), Context(now=T0))
        assert caught.value.code == "bad_options" and said in caught.value.message
        assert "answer, throw, retest, turn, assist, escape" in caught.value.message

    def test_recorded_as_given_and_read_back(self) -> None:
        t = duel("act", 90, "throw")
        opened = t.log[0].event
        assert opened.options["deadlines"] == {"throw": {"seconds": 90, "lapse": "act"}}  # type: ignore[attr-defined]
        assert t.state.options.deadlines.throw is not None and t.state.options.deadlines.answer is None
        plain = Table()
        assert "deadlines" not in plain.log[0].event.options  # type: ignore[attr-defined]


# -- a scene of a game night takes the night's deadlines --------------------------------------


def _stream(scene: str, actor: str, verb: str, state: Scene, log: list[Recorded], at: Any, **fields: Any) -> Scene:
    body = {"id": f"{scene}-{len(log)}", "scene": scene, "actor": actor, "type": verb, **fields}
    command = parse_command(msgspec.json.encode(body))
    night = fields.pop("_night", None)
    for event in decide(state, command, Context(now=at, night=night)):
        record, _ = seal(prev=log[-1].hash if log else GENESIS, seq=state.version + 1, scene=scene, at=at,
                         actor=actor, command=command.id, event=event)  # fmt: skip
        state = evolve(state, record)
        log.append(record)
    return state


class TestGameNight:
    def test_a_scene_takes_the_nights_deadlines_unless_it_gives_its_own(self) -> None:
        log: list[Recorded] = []
        night = _stream("g1", "st", "open_game", Scene(), log, T0, ruleset="lotn", title="Friday",
                        deadlines=deadlines("act", 120, "throw"))  # fmt: skip
        assert night.options.deadlines.throw is not None and running(night) == []

        def opened(**given: Any) -> Scene:
            body = {"id": "o", "scene": "s1", "actor": "st", "type": "open_scene", "ruleset": "lotn",
                    "title": "Elysium", "game": "g1", **given}  # fmt: skip
            (event,) = decide(Scene(), parse_command(msgspec.json.encode(body)), Context(now=T0, night=night))
            record, _ = seal(prev=GENESIS, seq=1, scene="s1", at=T0, actor="st", command="o", event=event)
            return evolve(Scene(), record)

        assert opened().options.deadlines == night.options.deadlines
        own = opened(options={"deadlines": deadlines("tell", 30, "answer")})
        assert own.options.deadlines.answer is not None and own.options.deadlines.throw is None
        assert opened(options={"deadlines": {}}).options.deadlines.throw is None  # none, said so

        night = _stream("g1", "st", "set_deadlines", night, log, T0 + timedelta(minutes=1),
                        deadlines=deadlines("tell", 45, "retest"))  # fmt: skip
        assert night.options.deadlines.retest is not None and night.options.deadlines.throw is None
        assert opened().options.deadlines.retest.seconds == 45  # type: ignore[union-attr]
        assert fold(log) == night


# -- rulings --------------------------------------------------------------------------------------


class TestRulings:
    def test_a_ruling_overturns_what_a_lapse_resolved(self) -> None:
        """A lapse's relent is a step like any other: disputed and overturned, the defender wins and
        the log keeps both."""
        t = duel("act", 60, "answer")
        declare(t)
        lapse(t, the(t, "answer"))
        resolved = t.seq_of("challenge_resolved", "c")
        t.do("juan", "dispute", event=resolved, reason="my phone died")
        events = t.do("st", "rule", event=resolved, decision="overturn", reason="the phone died: Juan wins")
        assert types(events)[0] == "ruling_issued"
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "defender"
        cause = next(r for r in t.log if isinstance(r.event, DeadlinePassed))
        assert cause.seq < resolved and cause.command == t.log[resolved - 1].command  # one command, kept
        replays(t)
