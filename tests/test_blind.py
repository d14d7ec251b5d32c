"""Blind throws for the Storyteller (issue 25, item 7; ARCHITECTURE, invariant 6): while the
Storyteller still has to throw or roll for a side of a test (an NPC, the Narrator), its view and
its copy of the events carry nothing of the player's sealed sign or dice, on every path (the view
and its patches, a live push, a catch-up, a history page, a replay, as whomever it replays), and
its view says the throw is blind; once both are in, as before. A Storyteller who only watches two
players sees their sealed signs, as ever. In each ruleset: lotn, camarilla, bns (signs), kony (dice).

The rule is one function (``projections.redact.blind``) of the scene *now*; these tests give it to
each path as the server does (``server.room``, ``server.catchup``, ``server.connection``), and the
live test (tests/live/test_blind_live.py) reads it off a real server's socket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from clients.terminal import challenge_lines
from domain.evolve import fold
from domain.log import Recorded
from domain.state import NARRATOR, Scene
from projections.narrate import narrate
from projections.redact import blind, redact
from projections.replay import replay
from projections.views import view
from server.wire import after_commit, befores_of, commit_frames
from tests.domain.test_bns import COVER, HUNTER, SHOTGUN, VINCENT
from tests.table import Table

ST = NARRATOR


@dataclass
class Game:
    """A ruleset's table with a player (``player``) against an NPC (``npc``) in challenge ``c``, and
    how each side throws or rolls."""

    ruleset: str
    table: Table
    player: str
    npc: str
    player_name: str
    npc_name: str

    @property
    def dice(self) -> bool:
        return self.ruleset == "kony"

    def player_goes(self, sign: str = "scissors") -> Recorded:
        """The player's sealed throw (or roll): its record."""
        t = self.table
        if self.dice:
            t.do(self.player, "roll", challenge="c")
        else:
            t.do(self.player, "throw", challenge="c", sign=sign)
        return next(r for r in reversed(t.log) if r.type == SEALED_TYPE[self.dice] and r.actor == self.player)

    def st_goes(self, sign: str = "rock") -> None:
        """The Storyteller throws (or rolls) for the NPC."""
        if self.dice:
            self.table.do(ST, "roll", challenge="c", character=self.npc)
        else:
            self.table.do(ST, "throw", challenge="c", character=self.npc, sign=sign)


MARCO = {"id": "marco", "name": "Marco Reyes"}
THUG = {"id": "thug", "name": "Dockside Thug", "npc": True}


def game(ruleset: str) -> Game:
    """Marco Reyes (a player) challenges the Dockside Thug (an NPC) and the Storyteller answers for
    it; in bns the hunter (an NPC) shoots at Vincent (a player)."""
    t = Table(ruleset)
    if ruleset == "bns":
        for sheet in (HUNTER, VINCENT):
            t.do(ST, "add_character", character=sheet)
        t.do(ST, "declare", character="hunter", challenge="c", kind="contested", targets=["vincent"],
             category="physical", victory="shoot Vincent", pool=SHOTGUN)  # fmt: skip
        t.do("vincent", "bid", challenge="c", pool=COVER)
        return Game(ruleset, t, "vincent", "hunter", "Vincent", "The hunter")
    t.do(ST, "add_character", character={**MARCO, "traits": {"physical": {"Brawny": 3}}, "abilities": {"Brawl": 2}})
    t.do(ST, "add_character", character={**THUG, "traits": {"physical": {"Strong": 3}}})
    t.do("marco", "declare", challenge="c", kind="contested", targets=["thug"], category="physical",
         bid=["Brawny"], victory="knock him down")  # fmt: skip
    t.do(ST, "bid", challenge="c", character="thug", bid=["Strong"])
    return Game(ruleset, t, "marco", "thug", "Marco Reyes", "Dockside Thug")


RULESETS = ["lotn", "camarilla", "bns", "kony"]


def secret(g: Game, record: Recorded) -> dict[str, Any]:
    """What the player's sealed record holds that the ST must not read yet."""
    event = record.event
    if g.dice:
        return {"dice": list(event.dice)}  # type: ignore[attr-defined]
    return {"sign": event.sign}  # type: ignore[attr-defined]


def decoded(frames: list[bytes]) -> list[dict[str, Any]]:
    return [msgspec.json.decode(frame) for frame in frames]


def event_data(message: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [e["data"] for e in message["events"] if e["type"] == type_]


SEALED_TYPE = {True: "dice_rolled", False: "throw_sealed"}


def assert_st_blind(g: Game, record: Recorded) -> None:
    """Every path the ST reads the scene by carries nothing of the player's sealed throw or roll."""
    t, now = g.table, g.table.state
    hidden = secret(g, record)
    kind = SEALED_TYPE[g.dice]
    seen = view(now, ST).challenges["c"]
    assert g.player not in seen.sealed and g.player not in seen.rolls
    assert (g.player in seen.rolled) if g.dice else (g.player in seen.thrown)  # that it is in is public
    verb = "roll" if g.dice else "throw"
    assert seen.blind.startswith(f"You {verb} for {g.npc_name} blind: {g.player_name}'s")
    # the live push: the event blanked, the patch without it, the words without it
    (pushed,) = decoded(after_commit(now, [record], ST, befores_of([record], fold(t.log[: record.seq - 1]))))
    (data,) = event_data(pushed, kind)
    assert all(data[field] is None for field in hidden) and sorted(pushed["events"][0]["redacted"]) >= sorted(hidden)
    assert g.player not in pushed["view"]["challenges"]["c"].get("sealed", {})
    assert g.player not in pushed["view"]["challenges"]["c"].get("rolls", {})
    assert pushed["summaries"] == [f"{g.player_name} {verb}s (sealed until both are in)."]
    # a catch-up from the start, in words (as the room and ``server.catchup`` make it)
    frames, _ = commit_frames(t.log, ST, Scene(), blind(now, ST))
    (caught,) = [e for message in decoded(frames) for e in message["events"] if e["seq"] == record.seq]
    assert caught["type"] == kind and all(caught["data"][field] is None for field in hidden)
    said = [
        s for m in decoded(frames) for e, s in zip(m["events"], m["summaries"], strict=True) if e["seq"] == record.seq
    ]
    assert said == [f"{g.player_name} {verb}s (sealed until both are in)."]
    # a history page: the record and its words
    assert all(msgspec.json.decode(redact(record, ST, blind(now, ST)).data)[f] is None for f in hidden)
    before = fold(t.log[: record.seq - 1])
    assert (
        narrate(before, record.event, ST, blind=blind(now, ST))
        == f"{g.player_name} {verb}s (sealed until both are in)."
    )
    # a replay, as the ST and as the player (the ST still asks)
    for as_whom in (ST, g.player):
        steps = list(replay(t.log, as_whom, blind=blind(now, ST)))
        step = next(s for s in steps if s.seq == record.seq)
        shown = [t.number for t in before.challenges["c"].tests]  # the sealed throw or roll shows no test
        assert step.account is not None and [t.number for t in step.account.tests] == shown
        assert not [c.path for c in step.changes if c.path.startswith("challenges.")]  # its words, not its fields
        assert step.summary == f"{g.player_name} {verb}s (sealed until both are in)."


def assert_st_sees(g: Game, record: Recorded) -> None:
    """Once both are in (or when the ST only watches): the ST reads the player's sealed record whole."""
    now = g.table.state
    hidden = secret(g, record)
    data = msgspec.json.decode(redact(record, ST, blind(now, ST)).data)
    assert {field: data[field] for field in hidden} == hidden
    frames, _ = commit_frames(g.table.log, ST, Scene(), blind(now, ST))
    (caught,) = [e["data"] for message in decoded(frames) for e in message["events"] if e["seq"] == record.seq]
    assert {field: caught[field] for field in hidden} == hidden
    assert view(now, ST).challenges["c"].blind == ""


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_storyteller_throwing_for_an_npc_reads_nothing_of_the_players_sealed_throw(ruleset: str) -> None:
    g = game(ruleset)
    record = g.player_goes()
    assert blind(g.table.state, ST) == {("c", 1, g.player)}
    assert blind(g.table.state, g.player) == frozenset() and blind(g.table.state, "*") == frozenset()
    assert_st_blind(g, record)
    # the player still reads their own; the spectator nothing, as before
    mine = view(g.table.state, g.player).challenges["c"]
    assert (g.player in mine.rolls) if g.dice else (mine.sealed == {g.player: "scissors"})
    assert mine.blind == ""
    g.st_goes()
    seen = view(g.table.state, ST).challenges["c"]
    assert seen.tests and (g.player in (seen.tests[0].dice if g.dice else seen.tests[0].signs))
    assert_st_sees(g, record)
    pushed = decoded(after_commit(g.table.state, g.table.log[-3:], ST))
    assert all(d.get("sign") or d.get("dice") for m in pushed for d in event_data(m, SEALED_TYPE[g.dice]))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_npc_first_hides_nothing(ruleset: str) -> None:
    """The Storyteller throws for the NPC first: nothing it must not know is sealed yet, and the
    player's throw, which ends the test, shows both."""
    g = game(ruleset)
    g.st_goes()
    assert blind(g.table.state, ST) == frozenset()
    record = g.player_goes()
    assert_st_sees(g, record)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_storyteller_who_only_watches_two_players_sees_their_sealed_throws(ruleset: str) -> None:
    t = Table(ruleset)
    if ruleset == "bns":
        t.do(ST, "add_character", character={**HUNTER, "npc": False})
        t.do(ST, "add_character", character=VINCENT)
        t.do("hunter", "declare", challenge="c", kind="contested", targets=["vincent"], category="physical",
             victory="shoot Vincent", pool=SHOTGUN)  # fmt: skip
        t.do("vincent", "bid", challenge="c", pool=COVER)
        player = "vincent"
    else:
        t.do(ST, "add_character", character={**MARCO, "traits": {"physical": {"Brawny": 3}}})
        t.do(ST, "add_character", character={**THUG, "npc": False, "traits": {"physical": {"Strong": 3}}})
        t.do("marco", "declare", challenge="c", kind="contested", targets=["thug"], category="physical",
             bid=["Brawny"], victory="knock him down")  # fmt: skip
        t.do("thug", "bid", challenge="c", bid=["Strong"])
        player = "marco"
    g = Game(ruleset, t, player, "", "", "")
    record = g.player_goes()
    assert blind(t.state, ST) == frozenset()
    seen = view(t.state, ST).challenges["c"]
    assert (player in seen.rolls) if g.dice else (seen.sealed == {player: "scissors"})
    (pushed,) = decoded(after_commit(t.state, [record], ST))
    (data,) = event_data(pushed, SEALED_TYPE[g.dice])
    assert {f: data[f] for f in secret(g, record)} == secret(g, record)
    assert_st_sees(g, record)


@pytest.mark.parametrize("ruleset", ["lotn", "camarilla"])
def test_the_storyteller_throwing_for_the_narrator_is_blind_too(ruleset: str) -> None:
    """A static test: the Storyteller throws for the Narrator (lotn:static)."""
    t = Table(ruleset)
    t.do(ST, "add_character", character={**MARCO, "traits": {"mental": {"Clever": 4}}})
    t.do("marco", "declare", challenge="c", kind="static", category="mental", bid=["Clever"], difficulty=3,
         victory="pick the lock")  # fmt: skip
    record = Game(ruleset, t, "marco", ST, "Marco Reyes", "the Narrator").player_goes()
    assert blind(t.state, ST) == {("c", 1, "marco")}
    seen = view(t.state, ST).challenges["c"]
    assert (
        seen.sealed == {}
        and seen.blind == "You throw for the Narrator blind: Marco Reyes's sign stays sealed until both are in."
    )
    t.do(ST, "throw", challenge="c", sign="rock")
    assert msgspec.json.decode(redact(record, ST, blind(t.state, ST)).data)["sign"] == "scissors"


@pytest.mark.parametrize("ruleset", ["lotn", "camarilla"])
def test_each_retest_throws_blind_again(ruleset: str) -> None:
    """A retest opens a new throw: the rule holds for it as for the first, and the first test's
    throw, shown by its reveal, stays shown (lotn:retests)."""
    g = game(ruleset)
    first = g.player_goes("scissors")
    g.st_goes("rock")  # Marco loses the first test
    t = g.table
    t.do("marco", "retest", challenge="c", source={"category": "ability", "name": "Brawl"})
    t.do(ST, "pass", challenge="c", character="thug")
    assert t.challenge("c").status == "throwing" and blind(t.state, ST) == frozenset()
    second = g.player_goes("paper")
    assert second.event.test == 2  # type: ignore[attr-defined]
    assert blind(t.state, ST) == {("c", 2, "marco")}
    assert_st_blind(g, second)
    assert msgspec.json.decode(redact(first, ST, blind(t.state, ST)).data)["sign"] == "scissors"
    g.st_goes("rock")
    assert_st_sees(g, second)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_terminal_says_the_storytellers_throw_is_blind(ruleset: str) -> None:
    """The terminal client prints the view's words, and no sealed sign or dice of the player."""
    g = game(ruleset)
    record = g.player_goes()
    shown = msgspec.json.decode(msgspec.json.encode(view(g.table.state, ST)))
    lines = challenge_lines(shown, ST)
    said = [line.strip() for line in lines if "blind" in line]
    assert said == [view(g.table.state, ST).challenges["c"].blind]
    secret_words = f"sealed dice: {', '.join(map(str, record.event.dice))}" if g.dice else "sealed throw: scissors"  # type: ignore[attr-defined]
    assert not [line for line in lines if secret_words in line]
