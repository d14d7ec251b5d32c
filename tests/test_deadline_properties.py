"""Properties of response deadlines (``domain.deadlines``) over random games: with deadlines set,
time passing, lapses fired by the shell (on time, early, twice, after the move), the Storyteller
changing the deadlines and giving more time, the live state is the fold of the log after every
command, event by event and in bulk, and from a snapshot (``server.snapshots``) taken at any
step and the events after it; a refused lapse appends nothing; and what ``lapses`` owes at the
command's time is exactly what the core accepts; and the patches a room pushes, which leave out a
viewer's deadlines where it has them already, keep every viewer's deadlines as the whole view says."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import deadlines
from domain.commands import parse_command
from domain.deadlines import KINDS, lapses, running
from domain.evolve import evolve, fold
from domain.log import Recorded
from domain.state import Scene
from projections import deadlines as deadline_views
from projections.views import SPECTATOR, view
from server import snapshots
from server.service import SceneService
from server.store import MemoryStore
from server.wire import Shared, after_commit, outgoing_decoder, reach_of
from tests import test_bns_properties as bns_props
from tests import test_properties as props
from tests.test_bns_fight_properties import fight_move

AT0 = props.AT0
Move = tuple[dict[str, Any], int, int]
"""A command's body, the seconds before it, its entropy."""
Moves = Callable[[Scene], st.SearchStrategy[dict[str, Any]]]

deadline = st.fixed_dictionaries(
    {"seconds": st.sampled_from([1, 5, 60, 300])}, optional={"lapse": st.sampled_from(["tell", "act"])}
)
some_deadlines = st.dictionaries(st.sampled_from(KINDS), deadline, min_size=1)


@st.composite
def kony_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    """kony's moves: the challenge moves of ``tests.test_properties`` with a roll for each throw, and
    its rounds (declarations, expenditures, turns)."""
    r, roll = state.round, draw(st.integers(0, 9))
    if roll == 0:
        return {"type": "start_round" if r is None or r.phase == "over" else "end_round", "actor": "st"}
    who = draw(st.sampled_from(props.PEOPLE))
    actor, mine = ("st", {"character": who}) if who == "b" else (who, {})
    if r is not None and r.phase == "declaring" and roll < 5:
        target = draw(st.sampled_from([p for p in props.PEOPLE if p != who]))
        action = draw(
            st.sampled_from([{"kind": "none"}, {"kind": "challenge", "category": "physical", "target": target}])
        )
        return {"type": "declare_action", "actor": actor, **mine, "action": action}
    if r is not None and r.phase == "expending" and roll < 5:
        return {"type": "expenditures_done", "actor": actor, **mine}
    if r is not None and r.phase == "acting" and roll == 1:
        return {"type": "end_turn", "actor": "st", "character": draw(st.sampled_from(list(r.turn) or props.PEOPLE))}
    body = draw(props.next_move(state))
    if body["type"] in ("throw", "record_test"):
        keep = {k: body[k] for k in ("actor", "challenge", "character") if k in body}
        return {"type": "roll", **keep}
    return body


RULESETS: dict[str, tuple[list[dict[str, Any]], Moves]] = {
    "lotn": (props.SHEETS, props.next_move),
    "camarilla": (props.SHEETS, props.next_move),
    "bns": (bns_props.SHEETS, fight_move),
    "kony": (props.SHEETS, kony_move),
}


def _service(ruleset: str, given: dict[str, Any]) -> SceneService:
    draws: list[int] = [0]
    service = SceneService(MemoryStore(), honour_at=True, entropy=lambda: draws[0])
    service.draws = draws  # type: ignore[attr-defined]
    sheets, _ = RULESETS[ruleset]
    setup = [{"type": "open_scene", "actor": "st", "ruleset": ruleset, "options": {"deadlines": given}}] + [
        {"type": "add_character", "actor": "st", "character": sheet} for sheet in sheets
    ]
    for n, body in enumerate(setup):
        _apply(service, -n - 1, body, 0, AT0 - timedelta(seconds=10 - n))
    return service


def _apply(service: SceneService, n: int, body: dict[str, Any], entropy: int, at: datetime) -> Any:
    service.draws[0] = entropy  # type: ignore[attr-defined]
    fields = {k: v for k, v in body.items() if v is not None}
    command = parse_command(msgspec.json.encode({"id": f"m{n}", "scene": "s", "at": at, **fields}))
    return service.handle(command).result()


@st.composite
def timed_move(draw: st.DrawFn, state: Scene, now: datetime, moves: Moves) -> tuple[dict[str, Any], int]:
    """A move of the game, or the shell's lapse after some time, or the Storyteller's deadlines."""
    roll = draw(st.integers(0, 11))
    if roll < 4:  # time passes and the shell fires a deadline: owed, or not yet, or already told
        seconds = draw(st.sampled_from([1, 5, 30, 61, 301]))
        at = now + timedelta(seconds=seconds)
        owed = [c.key for c in lapses(state, at)]
        keys = owed or [d.key for d in running(state)] or ["turn:nothing"]
        return {"type": "lapse", "actor": "st", "key": draw(st.sampled_from(keys))}, seconds
    if roll == 4:
        return {
            "type": "set_deadlines",
            "actor": "st",
            "deadlines": draw(st.dictionaries(st.sampled_from(KINDS), deadline)),
        }, 1
    if roll == 5 and (dues := running(state)):
        more = draw(st.sampled_from([None, 1, 120]))
        return {"type": "extend_deadline", "actor": "st", "key": draw(st.sampled_from(dues)).key, "seconds": more}, 1
    return draw(moves(state)), draw(st.sampled_from([1, 1, 5, 70]))


@st.composite
def timed_game(draw: st.DrawFn, ruleset: str) -> tuple[dict[str, Any], list[Move]]:
    given = draw(some_deadlines)
    service = _service(ruleset, given)
    _, moves_of = RULESETS[ruleset]
    moves: list[Move] = []
    now = AT0
    for _ in range(draw(st.integers(0, 60))):
        body, seconds = draw(timed_move(service.state("s"), now, moves_of))
        entropy = draw(st.integers(0, 2**256 - 1))
        moves.append((body, seconds, entropy))
        now += timedelta(seconds=seconds)
        _apply(service, len(moves), body, entropy, now)
    return given, moves


def _play(ruleset: str, given: dict[str, Any], moves: list[Move]) -> tuple[list[Recorded], list[Scene]]:
    """Play the moves (the states: before the first, and after each), checking after each that the
    live state is the fold of the log, that a refusal appended nothing, and that a lapse is accepted
    exactly when ``lapses`` owes it."""
    service = _service(ruleset, given)
    states: list[Scene] = [service.state("s")]
    now = AT0
    for n, (body, seconds, entropy) in enumerate(moves, start=1):
        now += timedelta(seconds=seconds)
        before, head = service.state("s"), service.store.head("s")
        result = _apply(service, n, body, entropy, now)
        if not result.ok:
            assert service.store.head("s") == head, "a refused command changed the log"
        if body["type"] == "lapse":
            owed = body["key"] in {c.key for c in lapses(before, now)}
            assert result.ok == owed, f"a lapse {'refused' if owed else 'accepted'} against what lapses owes"
        live = service.state("s")
        records = list(service.store.read("s"))
        assert live == fold(records), "the live state is not the fold of the log"
        assert live == functools.reduce(evolve, records, Scene()), "the bulk fold differs from event by event"
        states.append(live)
    return list(service.store.read("s")), states


def _check_snapshots(records: list[Recorded], states: list[Scene]) -> None:
    """A snapshot of a step, decoded, is that step's state; with the events after it folded on, it
    is the live state."""
    final = states[-1]
    for state in states[:: max(1, len(states) // 8)]:
        restored = snapshots.decode(snapshots.encode(state))
        assert restored == state, "a snapshot is not the fold it was taken from"
        assert fold(records[state.version :], restored) == final, "a snapshot and the events after it differ"


def afresh(state: Scene, viewer: str) -> Any:
    """The viewer's deadlines made with nothing kept (``domain.deadlines`` and
    ``projections.deadlines`` keep what they made, by state, challenge and scene)."""
    for kept in (deadlines._SEEN, deadlines._OF_CHALLENGE, deadline_views._SEEN, deadline_views._KEPT):
        kept.clear()
    return view(state, viewer).deadlines


def _check_patches(records: list[Recorded], states: list[Scene]) -> None:
    """Each commit pushed as a room pushes it (``server.room.Room.push``: every third without its
    patch, the next covering it; a patch leaves out the deadlines a viewer has, ``Shared.sent``) and
    merged as a client merges it: each viewer's deadlines are the whole view's after every patch,
    made afresh (nothing kept)."""
    viewers = ["st", SPECTATOR, *list(states[0].characters)[:2]]
    shown = {v: msgspec.to_builtins(view(states[0], v)) for v in viewers}
    sent: dict[str, Any] | None = None
    unpatched: list[Recorded] = []
    commits = [(a, b) for a, b in itertools.pairwise(states) if b.version > a.version]
    for n, (before, after) in enumerate(commits):
        pushed = records[before.version : after.version]
        if n % 3 == 1 and n < len(commits) - 1:
            unpatched += pushed
            continue
        shared = Shared(reach_of([*unpatched, *pushed]), sent)
        for v in viewers:
            [frame] = after_commit(after, pushed, v, shared=shared)
            patch = msgspec.to_builtins(outgoing_decoder.decode(frame).view)  # type: ignore[union-attr]
            shown[v] = {**shown[v], **{k: x for k, x in patch.items() if k not in ("characters", "challenges")}}
            whole = msgspec.to_builtins(afresh(after, v))
            assert shown[v]["deadlines"] == whole, (v, after.version, "deadlines" in patch)
        sent, unpatched = shared.made, []


def _property(ruleset: str) -> Callable[[tuple[dict[str, Any], list[Move]]], None]:
    def check(game: tuple[dict[str, Any], list[Move]]) -> None:
        records, states = _play(ruleset, *game)
        _check_snapshots(records, states)
        _check_patches(records, states)

    return check


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_game("lotn"))
def test_lotn_logs_with_lapses_fold_to_the_live_state(game: tuple[dict[str, Any], list[Move]]) -> None:
    _property("lotn")(game)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_game("camarilla"))
def test_camarilla_logs_with_lapses_fold_to_the_live_state(game: tuple[dict[str, Any], list[Move]]) -> None:
    _property("camarilla")(game)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_game("bns"))
def test_bns_logs_with_lapses_fold_to_the_live_state(game: tuple[dict[str, Any], list[Move]]) -> None:
    _property("bns")(game)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_game("kony"))
def test_kony_logs_with_lapses_fold_to_the_live_state(game: tuple[dict[str, Any], list[Move]]) -> None:
    _property("kony")(game)


def test_the_generator_lapses_both_ways() -> None:
    """The generator's games reach lapses that tell and lapses that act (so the property tests them)."""
    given = {"answer": {"seconds": 5, "lapse": "act"}, "throw": {"seconds": 5}}
    declare = {"type": "declare", "actor": "a", "challenge": "x", "kind": "contested", "targets": ["c"],
               "category": "physical", "bid": ["Brawny"]}  # fmt: skip
    _, states = _play(
        "lotn", given, [(declare, 1, 0), ({"type": "lapse", "actor": "st", "key": "answer:x:0.0:c"}, 5, 0)]
    )
    assert states[-1].challenges["x"].outcome is not None
    answer = {"type": "bid", "actor": "c", "challenge": "x", "bid": ["Tough"]}
    declare_y = {**declare, "challenge": "y"}
    moves: list[Move] = [(declare_y, 1, 0), ({**answer, "challenge": "y"}, 1, 0)]
    moves.append(({"type": "lapse", "actor": "st", "key": "throw:y:0.0:a"}, 5, 0))
    _, states = _play("lotn", given, moves)
    assert states[-1].clocks is not None and "throw:y:0.0:a" in states[-1].clocks.told
