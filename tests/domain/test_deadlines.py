"""Response deadlines (``domain.deadlines``), per ruleset and per kind of move: a lapse either tells
the Storyteller (``tell``) or makes the move (``act``), names the deadline, the time given and the
option, is refused before its time, after the move was made and twice, never times the
Storyteller's own moves, and replays identically. The clocks are the log's times only: each
command of a ``Table`` is one second after the last, and ``tick`` moves the table's clock on."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain.commands import Relent, parse_command
from domain.context import Context
from domain.deadlines import Due, lapses, next_due, running
from domain.decide import decide
from domain.errors import Rejected
from domain.events import DeadlineExtended, DeadlinePassed, DeadlinesSet, GameOpened, SceneEvent
from domain.evolve import evolve, fold
from domain.log import GENESIS, Recorded, event_data, seal
from domain.rules import ruleset_for
from domain.rules.catalog import SIGNS
from domain.state import Scene
from tests.table import T0, Table, entropy_for, types

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
    """The scene as a ``tell`` lapse must leave it: everything but its clocks, version and time, and
    the lapses its challenges keep for their account (``Challenge.late``)."""
    kept = {f: getattr(t.state, f) for f in t.state.__struct_fields__ if f not in ("clocks", "version", "last_at")}
    challenges = kept["challenges"].mutate()
    for cid, ch in t.state.challenges.items():
        challenges[cid] = replace(ch, late=())
    return Scene(**{**kept, "challenges": challenges.finish()})


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
        t.refused("st", "lapse", key=due.key, code="told", rule="justicar:deadlines")
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
        assert extended == DeadlineExtended(key=due.key, character="juan", seconds=120, step="answer")
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
        (owed,) = lapses(t.state, due.due_at + timedelta(seconds=5))
        assert owed.key == due.key and owed.at == due.due_at + timedelta(seconds=5)
        assert (owed.actor, owed.scene, owed.id) == (
            "st",
            "s1",
            f"~lapse-{due.key}@{int(due.due_at.timestamp()) * 1_000_000 + due.due_at.microsecond}",
        )
        assert lapses(t.state, due.due_at)[0].id == owed.id  # two processes send the same command
        t.now = due.due_at - timedelta(seconds=2)  # the command comes one second before
        refusal = t.refused("st", "lapse", key=due.key, code="not_yet", rule="justicar:deadlines")
        left = math.ceil((due.due_at - t.now).total_seconds())
        assert refusal.message == f"This move has until {due.due_at:%H:%M:%S} UTC ({left} s more)."
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
        t.refused("st", "lapse", key=due.key, code="no_deadline")  # fired again: the move was made
        replays(t)

    def test_a_move_the_ruleset_refuses_tells_the_storyteller_instead(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """``act`` whose move ``decide`` refuses (here a relent said for the challenger, whom no
        ruleset lets relent): nothing of the move is appended; the ``deadline_passed`` says why and
        tells the Storyteller, whose choices are then offered as for ``tell``; it replays the same."""
        import domain.deadlines

        t = duel("act")
        declare(t)
        due = the(t, "answer")
        wrong = Relent(id="~lapse", scene="s1", actor="st", challenge="c", character="sam")
        monkeypatch.setattr(domain.deadlines, "move_for", lambda state, due: wrong)
        events = lapse(t, due)
        assert types(events) == ["deadline_passed"]
        event = passed(events)
        assert (event.lapse, event.did) == ("tell", "")
        assert event.refused == "Only the defender relents; the challenger may withdraw before the defender answers."
        assert the(t, "answer").told == t.state.version and next_due(t.state) is None
        assert t.challenge("c").status == "awaiting_response"
        t.refused("st", "lapse", key=due.key, code="told", rule="justicar:deadlines")
        monkeypatch.undo()
        replays(t)

    def test_traits_owed_unpaid(self) -> None:
        """``act`` on ``answer`` for Traits a Negative Trait call made a side owe (lotn:negative-traits):
        the defender relents; a challenger, who cannot relent, gives the challenge up (withdrawn)."""
        t = duel("act", 60, "answer")
        t.add("rosa", {"Nimble": 2}, negative_traits={"physical": ["Clumsy"]})
        declare(t, "d", who="juan", target="rosa", bid="Tough")
        t.do("rosa", "bid", challenge="d", bid=["Nimble"])
        t.do("juan", "call_negative", challenge="d", trait="Clumsy")
        due = the(t, "answer")
        assert (due.who, due.step) == ("rosa", "owed")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="relent")
        outcome = t.challenge("d").outcome
        assert outcome is not None and outcome.winner == "challenger"

        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.tick(seconds=20)
        t.do("sam", "call_negative", challenge="c", trait="Lazy")  # a wrong call: Sam owes
        due = the(t, "answer")
        assert (due.who, due.step, due.since) == ("sam", "owed", t.log[-1].at)
        events = lapse(t, due)
        cites(passed(events), due, "act", did="withdraw")
        assert types(events) == ["deadline_passed", "challenge_withdrawn"]
        assert t.challenge("c").status == "withdrawn" and t.lost("sam") == []
        replays(t)

    def test_a_later_step_under_the_same_key_keeps_nothing_of_the_earlier(self) -> None:
        """A key names a step, but the Traits a call makes the defender owe come back to her answer's
        key: what was told of, or given, before that step began does not hold for it. Told of her
        late answer, then her bid, then a call: the owed Trait runs (not told), from the call; given
        10 seconds more for her answer, the owed Trait still has its full time from the call."""
        for given in (False, True):
            t = duel("tell", 60, "answer")
            t.add("rosa", {"Nimble": 2}, negative_traits={"physical": ["Clumsy"]})
            declare(t, "d", who="juan", target="rosa", bid="Tough")
            answer = the(t, "answer")
            if given:
                t.do("st", "extend_deadline", key=answer.key, seconds=10)
            else:
                lapse(t, answer)
            t.tick(seconds=30)
            t.do("rosa", "bid", challenge="d", bid=["Nimble"])
            t.tick(seconds=30)
            t.do("juan", "call_negative", challenge="d", trait="Clumsy")
            owed = the(t, "answer")
            assert owed.key == answer.key and owed.step == "owed", owed
            assert (owed.told, owed.since, owed.seconds) == (0, t.log[-1].at, 60), given
            t.refused("st", "lapse", key=owed.key, code="not_yet")
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

    def test_a_cancelled_retest_starts_the_clock_of_the_side_behind_again(self) -> None:
        """A retest cancelled (lotn:retests): the side behind may retest again from the cancel on, its
        clock starting then, not when its first retest was called."""
        t = duel("tell", 60, "retest")
        declare(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.test("c", "paper", "rock")
        t.do("juan", "retest", challenge="c", source={"category": "ability", "name": "Dodge"})
        t.tick(seconds=50)
        t.do("sam", "cancel_retest", challenge="c", source={"category": "ability", "name": "Brawl"})
        due = the(t, "retest")
        assert (due.who, due.step, due.since) == ("juan", "retest", t.log[-1].at)
        cites(passed(lapse(t, due)), due, "tell")
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
        t.do("juan", "declare", challenge="s", kind="static", category="physical", bid=["Tough"], difficulty=3)
        static = [d for d in running(t.state) if d.challenge == "s"]
        assert [(d.who, d.step) for d in static] == [("juan", "throw")]  # the Narrator's side: never
        replays(t)

    def test_nothing_runs_without_the_option(self) -> None:
        t = Table()
        t.add("sam", {"Brawny": 2})
        t.add("juan", {"Tough": 2})
        declare(t)
        assert running(t.state) == [] and next_due(t.state) is None and lapses(t.state, T0 + timedelta(days=1)) == []
        assert t.challenge("c").step_at is None  # a scene without deadlines folds as it always did
        rounds = Table("camarilla")
        rounds.add("sam", {"Brawny": 2})
        rounds.do("st", "start_round")
        assert rounds.state.round is not None and rounds.state.round.step_at is None
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

    @pytest.mark.parametrize(
        ("given", "said"),
        [
            ({"throw": {"seconds": 0}}, "`deadlines.throw.seconds`"),
            ({"throw": {"seconds": 86401}}, "`deadlines.throw.seconds`"),
            ({"turn": {"seconds": 60, "lapse": "shout"}}, "`deadlines.turn.lapse`"),
            ({"nap": {"seconds": 60}}, "`deadlines`: Object contains unknown field `nap`"),
        ],
    )
    def test_bad_deadlines_in_play_or_for_a_night_are_refused_alike(self, given: dict[str, Any], said: str) -> None:
        """``set_deadlines`` and ``open_game`` read their deadlines as a scene's options are read: refused
        in the Storyteller's words, appending nothing."""
        t = duel()
        error = t.refused("st", "set_deadlines", deadlines=given, code="bad_options", rule="justicar:deadlines")
        assert said in error.message and 'takes {"seconds": 1 to 86400, "lapse": "tell" or "act"}' in error.message
        body = {"id": "g", "scene": "g1", "actor": "st", "type": "open_game", "ruleset": "lotn", "deadlines": given}
        with pytest.raises(Rejected) as caught:
            decide(Scene(), parse_command(msgspec.json.encode(body)), Context(now=T0))
        assert caught.value.code == "bad_options" and said in caught.value.message

    def test_recorded_as_given_and_read_back(self) -> None:
        t = duel("act", 90, "throw")
        opened = t.log[0].event
        assert opened.options["deadlines"] == {"throw": {"seconds": 90, "lapse": "act"}}  # type: ignore[attr-defined]
        assert t.state.options.deadlines.throw is not None and t.state.options.deadlines.answer is None
        plain = Table()
        assert "deadlines" not in plain.log[0].event.options  # type: ignore[attr-defined]


# -- a scene of a game night takes the night's deadlines --------------------------------------


def _stream(scene: str, actor: str, verb: str, state: Scene, log: list[Recorded], at: Any, **fields: Any) -> Scene:
    """``state`` after one command to the stream ``scene`` (a night's own), its records added to ``log``."""
    body = {"id": f"{scene}-{len(log)}", "scene": scene, "actor": actor, "type": verb, **fields}
    command = parse_command(msgspec.json.encode(body))
    for event in decide(state, command, Context(now=at)):
        record, _ = seal(prev=log[-1].hash if log else GENESIS, seq=state.version + 1, scene=scene, at=at,
                         actor=actor, command=command.id, event=event)  # fmt: skip
        state = evolve(state, record)
        log.append(record)
    return state


class TestGameNight:
    def test_a_scene_takes_the_nights_deadlines_unless_it_gives_its_own(self) -> None:
        """``open_game`` with ``deadlines``: a scene opened in the night without ``deadlines`` of its own
        takes the night's (recorded in its ``scene_opened``, so it replays on its own); one that gives
        them, even none, keeps its own; the night's ``set_deadlines`` applies to scenes opened later."""
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
        assert b"deadlines" not in event_data(GameOpened(ruleset="lotn"))  # none: as nights were written


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


# -- camarilla: a round's declarations and turns --------------------------------------------------


def camarilla(lapse: str = "act", *kinds: str) -> Table:
    t = Table("camarilla", options(lapse, 60, *kinds))
    t.add("sam", {"Brawny": 4})
    t.add("juan", {"Tough": 3})
    t.add("guard", {"Burly": 2}, npc=True)
    return t


class TestCamarilla:
    def test_an_undeclared_action_is_none(self) -> None:
        """``act`` on ``turn`` while declaring (camarilla:order-of-actions): the late character
        declares no action; a declaration by another does not restart its clock."""
        t = camarilla("act", "turn")
        t.do("st", "start_round")
        sam, juan = the(t, "turn", "sam"), the(t, "turn", "juan")
        assert (sam.step, sam.since) == ("declare", t.log[-1].at)
        t.do("st", "declare_action", character="guard", action={"kind": "none"})  # the NPC: untimed
        t.do("sam", "declare_action", action={"kind": "challenge", "category": "physical", "target": "juan"})
        assert the(t, "turn", "juan") == juan
        events = lapse(t, juan)
        cites(passed(events), juan, "act", did="declare_action")
        assert types(events)[:2] == ["deadline_passed", "action_declared"]
        assert events[1].action.kind == "none"  # type: ignore[attr-defined]
        assert t.state.round is not None and t.state.round.phase == "acting"
        replays(t)

    def test_a_turn_not_taken_ends(self) -> None:
        """``act`` on ``turn`` while acting: the turn ends; the next one's clock starts with it."""
        t = camarilla("act", "turn")
        t.do("st", "start_round")
        for who in ("sam", "juan"):
            t.do(who, "declare_action", action={"kind": "none"})
        t.do("st", "declare_action", character="guard", action={"kind": "none"})
        sam = the(t, "turn")
        assert (sam.who, sam.step) == ("sam", "act")
        events = lapse(t, sam)
        cites(passed(events), sam, "act", did="end_turn")
        assert types(events) == ["deadline_passed", "turn_ended", "turn_started"]
        juan = the(t, "turn")
        assert (juan.who, juan.since) == ("juan", t.log[-1].at)
        lapse(t, juan)
        assert running(t.state) == []  # the guard's turn is the Storyteller's
        replays(t)

    def test_a_turn_waits_on_its_challenge_and_restarts_after(self) -> None:
        """One in a challenge is timed by the challenge's clocks, not its turn's; when the challenge
        ends, the turn's clock starts again."""
        t = camarilla("tell", "turn", "answer")
        t.do("st", "start_round")
        for who in ("sam", "juan"):
            t.do(who, "declare_action", action={"kind": "none"})
        t.do("st", "declare_action", character="guard", action={"kind": "none"})
        declare(t, who="sam", target="juan", bid="Brawny")
        assert [d.kind for d in running(t.state)] == ["answer"]
        t.tick(minutes=5)
        t.do("juan", "relent", challenge="c")
        due = the(t, "turn")
        assert (due.who, due.since) == ("sam", t.log[-1].at)
        cites(passed(lapse(t, due)), due, "tell")
        replays(t)

    def test_tell_in_a_round(self) -> None:
        t = camarilla("tell", "turn")
        t.do("st", "start_round")
        due = the(t, "turn", "juan")
        before = quiet(t)
        cites(passed(lapse(t, due)), due, "tell")
        assert quiet(t) == before
        t.do("st", "extend_deadline", key=due.key, seconds=30)
        assert the(t, "turn", "juan").due_at == t.log[-1].at + timedelta(seconds=30)


# -- kony: dice, declarations, expenditures -------------------------------------------------------

KONY_PUNCH = {"kind": "damage", "amount": 2, "type": "bashing"}


def kony(lapse: str = "act", *kinds: str) -> Table:
    t = Table("kony", options(lapse, 60, *kinds))
    t.add("sam", {"Brawny": 2, "Quick": 1}, abilities={"Brawl": 2})
    t.add("juan", {"Tough": 2}, abilities={"Brawl": 1})
    return t


def kony_attack(t: Table) -> None:
    t.do("sam", "declare", challenge="c", kind="contested", category="physical", targets=["juan"], bid=["Brawny"],
         effect=KONY_PUNCH)  # fmt: skip


class TestKony:
    def test_a_roll_from_the_commands_entropy(self) -> None:
        """``act`` on ``throw`` (kony:dice): the server rolls the side's pool from the lapse's entropy;
        Juan's own roll did not restart Sam's clock."""
        t = kony("act", "throw")
        kony_attack(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        sam = the(t, "throw", "sam")
        assert sam.step == "roll"
        t.entropy = entropy_for(2, among=3)
        t.do("juan", "roll", challenge="c")
        assert the(t, "throw", "sam") == sam
        t.entropy = entropy_for(0, among=3)
        events = lapse(t, sam)
        cites(passed(events), sam, "act", did="roll")
        assert types(events)[:3] == ["deadline_passed", "dice_rolled", "test_revealed"]
        assert events[1].dice == [1] and events[1].entered_by is None  # type: ignore[attr-defined]
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger"  # a 1 succeeds, a 3 does not
        replays(t)

    def test_the_loser_who_may_overbid_passes(self) -> None:
        """``act`` on ``retest`` (kony:overbid): the loser with double the pool may overbid; silent,
        it passes and the result stands."""
        t = Table("kony", options("act", 60, "retest"))
        t.add("sam", {"Brawny": 6, "Quick": 1}, abilities={"Brawl": 2})
        t.add("juan", {"Tough": 2}, abilities={"Brawl": 1})
        kony_attack(t)
        t.do("juan", "bid", challenge="c", bid=["Tough"])
        t.entropy = entropy_for(2, among=3)
        t.do("sam", "roll", challenge="c")
        t.entropy = entropy_for(0, among=3)
        t.do("juan", "roll", challenge="c")
        due = the(t, "retest")
        assert (due.who, due.step, due.since) == ("sam", "retest", t.log[-1].at)
        events = lapse(t, due)
        cites(passed(events), due, "act", did="pass")
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "defender"
        replays(t)

    def test_an_unanswered_challenge_is_relented(self) -> None:
        t = kony("act", "answer")
        kony_attack(t)
        due = the(t, "answer")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="relent")
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger" and outcome.rule == "kony:declaration"
        assert t.character("juan").wounds.bashing == 2
        replays(t)

    def test_a_round_declares_spends_and_acts_by_itself(self) -> None:
        """``act`` on ``turn`` in each of kony's phases: declaring (no action), expending (done),
        acting (the turn ends)."""
        t = kony("act", "turn")
        t.do("st", "start_round")
        steps = []
        while dues := running(t.state):
            due = dues[0]
            events = lapse(t, due)
            cites(passed(events), due, "act", did=passed(events).did)
            steps.append((due.who, due.step, passed(events).did))
        assert steps == [
            ("sam", "declare", "declare_action"),
            ("juan", "declare", "declare_action"),
            ("sam", "expenditures", "expenditures_done"),
            ("juan", "expenditures", "expenditures_done"),
            ("sam", "act", "end_turn"),
            ("juan", "act", "end_turn"),
        ]
        replays(t)

    def test_tell_while_spending(self) -> None:
        t = kony("tell", "turn")
        t.do("st", "start_round")
        for who in ("sam", "juan"):
            t.do(who, "declare_action", action={"kind": "none"})
        assert t.state.round is not None and t.state.round.phase == "expending"
        due = the(t, "turn", "juan")
        assert (due.step, due.since) == ("expenditures", t.log[-1].at)
        before = quiet(t)
        cites(passed(lapse(t, due)), due, "tell")
        assert quiet(t) == before
        t.do("juan", "expenditures_done")
        t.refused("st", "lapse", key=due.key, code="no_deadline")


# -- bns: pools, assists, fair escapes ------------------------------------------------------------


def bns(lapse: str = "act", *kinds: str) -> Table:
    """Julian (6, Wits 4) acts first, then Edward, Mook (an NPC) and the wolf (an NPC)."""
    from tests.domain.test_bns_rounds import EDWARD, EDWARD_FIRST, JULIAN, MOOK, WOLF

    t = Table("bns", options(lapse, 60, *kinds, bns={"relent_exceptional": True}))
    for character in (EDWARD, JULIAN, MOOK, WOLF):
        t.do("st", "add_character", character=character)
    t.entropy = EDWARD_FIRST
    t.do("st", "start_round")
    t.entropy = 0
    return t


def bns_attack(t: Table, who: str = "julian", target: str = "edward") -> None:
    actor = "st" if t.character(who).sheet.npc else who
    t.do(actor, "declare", character=who, challenge="hit", kind="contested", targets=[target], category="physical",
         victory="hurt them", effect={"kind": "damage", "amount": 1, "type": "bashing"},
         pool={"attack": "unarmed"})  # fmt: skip


class TestBns:
    def test_a_relent_with_the_best_defence(self) -> None:
        """``act`` on ``answer`` (bns:relent): the grade of a relent hangs on the defence it would have
        used; a lapse relents with the character's best, so a silent phone costs no more than an answer."""
        t = bns("act", "answer")
        bns_attack(t)
        due = the(t, "answer")
        best = max(p.total for p in ruleset_for("bns").defenses(t.state, t.challenge("hit"), "edward").values())
        events = lapse(t, due)
        cites(passed(events), due, "act", did="relent")
        relented = events[1]
        assert relented.pool is not None and relented.pool.total == best  # type: ignore[attr-defined]
        outcome = t.challenge("hit").outcome
        attack = t.challenge("hit").challenger.pool
        assert outcome is not None and outcome.winner == "challenger" and outcome.rule == "bns:relent"
        assert attack is not None and outcome.exceptional == (best < attack.total)
        replays(t)

    def test_a_random_throw_then_a_pass(self) -> None:
        """``act`` on ``throw`` and ``retest``: a random sign for the late side, then the side behind passes."""
        t = bns("act", "throw", "retest")
        bns_attack(t)
        t.do("edward", "bid", challenge="hit", pool={"defense": "dodge"})
        t.do("julian", "throw", challenge="hit", sign="rock")
        t.entropy = entropy_for(SIGNS.index("scissors"), among=len(SIGNS))
        edward = the(t, "throw")
        events = lapse(t, edward)
        cites(passed(events), edward, "act", did="throw")
        assert events[1].sign == "scissors"  # type: ignore[attr-defined]
        behind = the(t, "retest")
        events = lapse(t, behind)
        cites(passed(events), behind, "act", did="pass")
        assert t.challenge("hit").outcome is not None
        replays(t)

    def test_an_offer_of_assistance_unanswered_is_refused(self) -> None:
        """``act`` on ``assist`` (bns:assist-attacker): the attacker refuses; the helper keeps its action."""
        t = bns("act", "assist")
        t.do("st", "end_turn", character="julian")
        t.do("edward", "assist", kind="attacker", to="julian", benefit="plus_one")
        due = the(t, "assist")
        assert (due.who, due.offer, due.since) == ("julian", t.state.version, t.log[-1].at)
        events = lapse(t, due)
        cites(passed(events), due, "act", did="answer_assist")
        assert types(events) == ["deadline_passed", "assist_answered"]
        assert events[1].accept is False  # type: ignore[attr-defined]
        assert t.character("edward").budget["standard"] == 1
        replays(t)

    def test_an_offer_to_an_npc_is_the_storytellers(self) -> None:
        t = bns("act", "assist")
        t.do("st", "end_turn", character="julian")
        t.do("edward", "assist", kind="attacker", to="mook", benefit="plus_one")
        assert running(t.state) == []

    def test_a_fair_escape_window_closes(self) -> None:
        """``act`` on ``escape`` (bns:fair-escape-intent): the window to announce attacks closes when its
        time is out (the escaper's turn ends), its clock from the declaration; held by the intent made."""
        t = bns("act", "escape", "turn")
        t.do("st", "end_turn", character="julian")
        t.tick(seconds=30)
        t.do("edward", "declare_action", action={"kind": "fair_escape"})
        due = the(t, "escape")
        assert (due.who, due.since) == ("edward", t.log[-1].at)
        assert [d.kind for d in running(t.state)] == ["escape"]  # his turn waits on the window
        t.do("st", "intend_attack", character="mook", target="edward")
        assert the(t, "escape") == due
        events = lapse(t, due)
        cites(passed(events), due, "act", did="end_turn")
        assert "fair_escape_held" in types(events)
        assert t.character("edward").conditions.fair_escape == "held"
        replays(t)

    def test_tell_at_an_escape(self) -> None:
        t = bns("tell", "escape")
        t.do("st", "end_turn", character="julian")
        t.do("edward", "declare_action", action={"kind": "fair_escape"})
        due = the(t, "escape")
        before = quiet(t)
        cites(passed(lapse(t, due)), due, "tell")
        assert quiet(t) == before
        t.do("st", "end_turn", character="edward")
        t.refused("st", "extend_deadline", key=due.key, code="no_deadline")

    def test_a_turn_not_taken_ends(self) -> None:
        t = bns("act", "turn")
        due = the(t, "turn")
        assert (due.who, due.step) == ("julian", "act")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="end_turn")
        assert the(t, "turn").who == "edward"
        lapse(t, the(t, "turn"))
        assert running(t.state) == []  # the Mook's and the wolf's turns are the Storyteller's
        replays(t)


# -- Tens (d10, the test ruleset) -----------------------------------------------------------------


def tens(lapse: str = "act", *kinds: str) -> Table:
    t = Table("d10", options(lapse, 60, *kinds))
    for who, physical in (("sam", 3), ("juan", 2)):
        t.do("st", "add_character", character={"id": who, "name": who.capitalize(),
             "attributes": {"physical": physical, "social": 2, "mental": 2}})  # fmt: skip
    return t


def tens_attack(t: Table) -> None:
    t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", pool={},
         effect=KONY_PUNCH)  # fmt: skip


class TestTens:
    def test_an_unanswered_challenge_is_relented(self) -> None:
        t = tens("act", "answer")
        tens_attack(t)
        due = the(t, "answer")
        events = lapse(t, due)
        cites(passed(events), due, "act", did="relent")
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger"
        replays(t)

    def test_the_dice_rolled_from_the_commands_entropy(self) -> None:
        """``act`` on ``throw`` (d10:dice): the server rolls the late side's d10s."""
        t = tens("act", "throw")
        tens_attack(t)
        t.do("juan", "bid", challenge="c", pool={"defense": "dodge"})
        sam, juan = the(t, "throw", "sam"), the(t, "throw", "juan")
        assert sam.step == juan.step == "roll"
        t.entropy = entropy_for(9, 9, 9, among=10)
        events = lapse(t, sam)
        assert events[1].dice == [10, 10, 10]  # type: ignore[attr-defined]
        t.entropy = entropy_for(0, 0, among=10)
        events = lapse(t, juan)
        cites(passed(events), juan, "act", did="roll")
        outcome = t.challenge("c").outcome
        assert outcome is not None and outcome.winner == "challenger"
        replays(t)

    def test_turns(self) -> None:
        t = tens("act", "turn")
        t.do("st", "start_round")
        due = the(t, "turn")
        assert (due.who, due.step) == ("sam", "act")
        cites(passed(lapse(t, due)), due, "act", did="end_turn")
        assert the(t, "turn").who == "juan"
        replays(t)


# -- every ruleset, every kind it has, both lapses -------------------------------------------------


def _lotn_answer(lapse: str) -> Table:
    t = duel(lapse, 60, "answer")
    declare(t)
    return t


def _lotn_throw(lapse: str) -> Table:
    t = duel(lapse, 60, "throw")
    declare(t)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.do("juan", "throw", challenge="c", sign="rock")
    return t


def _lotn_tie(lapse: str) -> Table:
    t = duel(lapse, 60, "throw")
    declare(t)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.test("c", "rock", "rock")
    return t


def _lotn_retest(lapse: str) -> Table:
    t = duel(lapse, 60, "retest")
    declare(t)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.test("c", "paper", "rock")
    return t


def _lotn_let_stand(lapse: str) -> Table:
    t = _lotn_retest(lapse)
    t.do("juan", "retest", challenge="c", source={"category": "ability", "name": "Dodge"})
    return t


def _lotn_owed(lapse: str) -> Table:
    t = _lotn_answer(lapse)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.do("sam", "call_negative", challenge="c", trait="Lazy")
    return t


def _camarilla_declaring(lapse: str) -> Table:
    t = camarilla(lapse, "turn")
    t.do("st", "start_round")
    t.do("sam", "declare_action", action={"kind": "none"})
    t.do("st", "declare_action", character="guard", action={"kind": "none"})
    return t


def _camarilla_acting(lapse: str) -> Table:
    t = _camarilla_declaring(lapse)
    t.do("juan", "declare_action", action={"kind": "none"})
    return t


def _kony_roll(lapse: str) -> Table:
    t = kony(lapse, "throw")
    kony_attack(t)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.do("juan", "roll", challenge="c")
    return t


def _kony_answer(lapse: str) -> Table:
    t = kony(lapse, "answer")
    kony_attack(t)
    return t


def _kony_overbid(lapse: str) -> Table:
    t = Table("kony", options(lapse, 60, "retest"))
    t.add("sam", {"Brawny": 6})
    t.add("juan", {"Tough": 2})
    kony_attack(t)
    t.do("juan", "bid", challenge="c", bid=["Tough"])
    t.entropy = entropy_for(2, among=3)
    t.do("sam", "roll", challenge="c")
    t.entropy = entropy_for(0, among=3)
    t.do("juan", "roll", challenge="c")
    return t


def _kony_expending(lapse: str) -> Table:
    t = kony(lapse, "turn")
    t.do("st", "start_round")
    for who in ("sam", "juan"):
        t.do(who, "declare_action", action={"kind": "none"})
    t.do("sam", "expenditures_done")
    return t


def _bns_answer(lapse: str) -> Table:
    t = bns(lapse, "answer")
    bns_attack(t)
    return t


def _bns_throw(lapse: str) -> Table:
    t = bns(lapse, "throw")
    bns_attack(t)
    t.do("edward", "bid", challenge="hit", pool={"defense": "dodge"})
    t.do("julian", "throw", challenge="hit", sign="rock")
    return t


def _bns_retest(lapse: str) -> Table:
    t = bns(lapse, "retest")
    bns_attack(t)
    t.do("edward", "bid", challenge="hit", pool={"defense": "dodge"})
    t.test("hit", "rock", "paper")
    return t


def _bns_turn(lapse: str) -> Table:
    return bns(lapse, "turn")


def _bns_assist(lapse: str) -> Table:
    t = bns(lapse, "assist")
    t.do("st", "end_turn", character="julian")
    t.do("edward", "assist", kind="attacker", to="julian", benefit="plus_one")
    return t


def _bns_escape(lapse: str) -> Table:
    t = bns(lapse, "escape")
    t.do("st", "end_turn", character="julian")
    t.do("edward", "declare_action", action={"kind": "fair_escape"})
    return t


def _tens_answer(lapse: str) -> Table:
    t = tens(lapse, "answer")
    tens_attack(t)
    return t


def _tens_roll(lapse: str) -> Table:
    t = tens(lapse, "throw")
    tens_attack(t)
    t.do("juan", "bid", challenge="c", pool={"defense": "dodge"})
    t.do("juan", "roll", challenge="c")
    return t


def _tens_turn(lapse: str) -> Table:
    t = tens(lapse, "turn")
    t.do("st", "start_round")
    return t


EVERY = {
    # name: (the scene waiting, the kind, whose move, its step, the verb ``act`` makes)
    "lotn answer": (_lotn_answer, "answer", "juan", "answer", "relent"),
    "lotn owed": (_lotn_owed, "answer", "sam", "owed", "withdraw"),
    "lotn throw": (_lotn_throw, "throw", "sam", "throw", "throw"),
    "lotn tie": (_lotn_tie, "throw", "sam", "declare_traits", "declare_traits"),
    "lotn retest": (_lotn_retest, "retest", "juan", "retest", "pass"),
    "lotn let stand": (_lotn_let_stand, "retest", "sam", "cancel_or_let_stand", "pass"),
    "camarilla declaring": (_camarilla_declaring, "turn", "juan", "declare", "declare_action"),
    "camarilla acting": (_camarilla_acting, "turn", "sam", "act", "end_turn"),
    "kony answer": (_kony_answer, "answer", "juan", "answer", "relent"),
    "kony roll": (_kony_roll, "throw", "sam", "roll", "roll"),
    "kony overbid": (_kony_overbid, "retest", "sam", "retest", "pass"),
    "kony expending": (_kony_expending, "turn", "juan", "expenditures", "expenditures_done"),
    "bns answer": (_bns_answer, "answer", "edward", "answer", "relent"),
    "bns throw": (_bns_throw, "throw", "edward", "throw", "throw"),
    "bns retest": (_bns_retest, "retest", "julian", "retest", "pass"),
    "bns turn": (_bns_turn, "turn", "julian", "act", "end_turn"),
    "bns assist": (_bns_assist, "assist", "julian", "assist", "answer_assist"),
    "bns escape": (_bns_escape, "escape", "edward", "escape", "end_turn"),
    "tens answer": (_tens_answer, "answer", "juan", "answer", "relent"),
    "tens roll": (_tens_roll, "throw", "sam", "roll", "roll"),
    "tens turn": (_tens_turn, "turn", "sam", "act", "end_turn"),
}


@pytest.mark.parametrize("case", list(EVERY))
class TestEveryKind:
    def test_tell(self, case: str) -> None:
        """``tell``: told once, nothing else moved; more time restarts the clock and it lapses again."""
        scene, kind, who, step, _ = EVERY[case]
        t = scene("tell")
        due = the(t, kind)
        assert (due.who, due.step, due.lapse) == (who, step, "tell")
        t.now = due.due_at - timedelta(seconds=2)
        t.refused("st", "lapse", key=due.key, code="not_yet")
        before = quiet(t)
        events = lapse(t, due)
        assert types(events) == ["deadline_passed"]
        cites(passed(events), due, "tell")
        assert quiet(t) == before
        t.refused("st", "lapse", key=due.key, code="told")
        t.tick(seconds=10)
        t.do("st", "extend_deadline", key=due.key, seconds=30)
        again = the(t, kind)
        assert (again.key, again.since, again.seconds, again.told) == (due.key, t.log[-1].at, 30, 0)
        cites(passed(lapse(t, again)), again, "tell")
        replays(t)

    def test_act(self, case: str) -> None:
        """``act``: the move is made for the character, after the ``deadline_passed`` that cites it, and
        the deadline runs no more."""
        scene, kind, who, step, did = EVERY[case]
        t = scene("act")
        due = the(t, kind)
        assert (due.who, due.step, due.lapse) == (who, step, "act")
        t.now = due.due_at - timedelta(seconds=2)
        t.refused("st", "lapse", key=due.key, code="not_yet")
        events = lapse(t, due)
        cites(passed(events), due, "act", did=did)
        assert len(events) > 1 and due.key not in [d.key for d in running(t.state)]
        t.refused("st", "lapse", key=due.key, code="no_deadline")
        replays(t)
