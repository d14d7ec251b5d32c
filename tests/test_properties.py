"""Properties over random games: the log is the truth, refusals change nothing, decide raises only
``Rejected``, and replay is deterministic."""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.commands import parse_command
from domain.evolve import evolve, fold
from domain.state import RECENT, Scene, undecided
from projections.replay import render, replay, states
from projections.views import view
from server import snapshots
from server.service import SceneService
from server.store import MemoryStore

PEOPLE = ["a", "b", "c"]
TRAITS = ["Brawny", "Quick", "Tough", "Clever", "Charming", "Nope"]
SHEETS = [
    {
        "id": "a",
        "name": "A",
        "blood": 2,
        "willpower": 2,
        "gestures": ["bomb"],
        "abilities": {"Brawl": 2, "Dodge": 1},
        "merits": ["Lucky"],
        "traits": {"physical": {"Brawny": 3, "Quick": 2}, "social": {"Charming": 1}},
        "negative_traits": {"physical": ["Clumsy"]},
    },
    {
        "id": "b",
        "name": "B",
        "npc": True,
        "abilities": {"Dodge": 2, "Occult": 1},
        "powers": ["Might"],
        "traits": {"physical": {"Quick": 2, "Tough": 1}, "mental": {"Clever": 3}},
        "negative_traits": {"mental": ["Gullible"]},
    },
    {
        "id": "c",
        "name": "C",
        "abilities": {"Firearms": 1},
        "traits": {"physical": {"Tough": 1}, "social": {"Charming": 2}, "mental": {"Clever": 1}},
    },
]
SOURCES = [
    {"category": "overbid", "bid": ["Brawny"]},
    {"category": "overbid", "bid": ["Tough"]},
    {"category": "ability", "name": "Brawl"},
    {"category": "ability", "name": "Dodge"},
    {"category": "ability", "name": "Firearms"},
    {"category": "merit", "name": "Lucky"},
    {"category": "power", "name": "Might"},
    {"category": "willpower"},
    {"category": "overbid", "bid": ["Quick"]},
    {"category": "overbid", "bid": ["Clever"]},
    {"category": "overbid", "bid": []},
]

actor = st.sampled_from([*PEOPLE, "st"])
someone = st.sampled_from(PEOPLE)
SIGNS = ["rock", "paper", "scissors", "rock", "paper", "scissors", "bomb", "random", "lizard"]
NEXT = {
    "awaiting_response": ["bid", "bid", "relent", "withdraw"],
    "bidding": ["throw", "throw", "throw", "call_negative", "bid", "record_test", "relent"],
    "throwing": ["throw", "throw", "record_test"],
    "tie_declaring": ["declare_traits"],
    "retest_window": ["pass", "pass", "retest", "retest", "cancel_retest"],
}


def _traits(state: Scene, who: str, category: str) -> list[str]:
    """Mostly the character's Traits of the category, sometimes anything."""
    character = state.characters.get(who)
    if character is None or character.sheet.traits is None:
        return TRAITS
    fitting = list(character.sheet.traits.of(category))  # type: ignore[arg-type]
    return fitting * 4 + TRAITS


@st.composite
def round_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    """A camarilla move of the round, a mob, blood or a grapple."""
    r = state.round
    if r is None or r.phase == "over":
        return {"type": "start_round", "actor": "st"}
    waiting = [w for w, c in state.characters.items() if c.action is None]
    if r.phase == "declaring" and waiting:
        who = draw(st.sampled_from(waiting))
        kind = draw(st.sampled_from(["challenge", "challenge", "move", "none", "end_of_turn", "full_round"]))
        action: dict[str, Any] = {"kind": kind}
        if kind in ("challenge", "full_round"):
            action["category"] = draw(st.sampled_from(["physical", "social", "mental"]))
            action["target"] = draw(st.sampled_from([p for p in PEOPLE if p != who]))
        if kind in ("move", "challenge"):
            action["steps"] = draw(st.integers(0, 3))
        return {"type": "declare_action", "actor": who, "action": action}
    challenges = sorted(state.challenges)
    options: list[dict[str, Any]] = [
        {"type": "end_turn", "actor": draw(st.sampled_from([*r.turn, *PEOPLE] if r.turn else PEOPLE))},
        {"type": "end_turn", "actor": draw(st.sampled_from([*r.turn, *PEOPLE] if r.turn else PEOPLE))},
        {"type": "end_round", "actor": "st"},
        {"type": "spend_blood", "actor": draw(someone), "kind": draw(st.sampled_from(["strength", "stamina"]))},
        {"type": "let_go", "actor": draw(someone)},
        {"type": "order", "actor": "st", "characters": draw(st.permutations(PEOPLE))[:2]},
    ]
    if challenges:
        waiting_ids = [c for c in challenges if state.challenges[c].status == "awaiting_response"]
        cid = draw(st.sampled_from(waiting_ids or challenges))
        who = draw(someone)
        options += [
            {
                "type": "join",
                "actor": who,
                "challenge": cid,
                "bid": [draw(st.sampled_from(_traits(state, who, "physical")))],
            },
            {"type": "champion", "actor": draw(actor), "challenge": cid, "character": draw(someone)},
            {"type": "choose_victory", "actor": draw(actor), "challenge": cid, "of": draw(someone)},
        ]
    return draw(st.sampled_from(options))


@st.composite
def next_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    """A move that fits the game so far most of the time, and sometimes does not."""
    if state.ruleset == "camarilla" and draw(st.integers(0, 3)) == 0:
        return draw(round_move(state))
    open_ids = sorted(cid for cid, ch in state.challenges.items() if ch.open)
    if not open_ids or draw(st.integers(0, 9)) == 0:
        who = draw(someone)
        kind = draw(st.sampled_from(["contested", "contested", "contested", "static", "simple"]))
        category = draw(st.sampled_from(["physical", "physical", "social", "mental"]))
        body: dict[str, Any] = {
            "type": "declare",
            "actor": who,
            "challenge": draw(st.sampled_from(["x", "y", "z", "w", "v"])),
            "kind": kind,
            "category": category,
            "bid": [draw(st.sampled_from(_traits(state, who, category)))] if kind != "simple" else [],
        }
        if kind == "contested":
            body["targets"] = [draw(st.sampled_from([p for p in PEOPLE if p != who]))]
            body["effect"] = draw(
                st.sampled_from(
                    [
                        None,
                        {"kind": "damage", "amount": 1},
                        {"kind": "grapple"},
                        {"kind": "knock_down"},
                        {"kind": "escape_grapple"},
                    ]
                )
            )
        if kind == "static":
            body["difficulty"] = draw(st.integers(0, 6))
        return body
    cid = draw(st.sampled_from(open_ids))
    ch = state.challenges[cid]
    verb = draw(st.sampled_from(NEXT.get(ch.status, ["pass"])))
    sides = [ch.challenger.who, ch.defender.who]
    if ch.status == "retest_window":  # mostly the side behind moves
        behind = [ch.side(role).who for role in ch.losing_roles()]
        if ch.pending_retest is not None:
            behind = [ch.side(ch.other(ch.pending_retest.role)).who]
        sides = behind * 3 + sides
    elif ch.status == "awaiting_response":
        sides = [ch.defender.who] * 3 + sides
    who = draw(st.sampled_from([*sides, *sides, *sides, "st", draw(actor)]))
    body = {"type": verb, "actor": who, "challenge": cid}
    if who == "st" and "st" not in sides:
        body["character"] = draw(st.sampled_from(sides))
    side = body.get("character", who)
    if verb == "bid":
        body["bid"] = [draw(st.sampled_from(_traits(state, side, ch.category)))]
    elif verb == "call_negative":
        body["trait"] = draw(st.sampled_from(["Clumsy", "Gullible", "Lazy"]))
    elif verb == "throw":
        body["sign"] = draw(st.sampled_from(SIGNS))
    elif verb == "record_test":
        body["actor"] = "st"
        body.pop("character", None)
        body["signs"] = {s: draw(st.sampled_from(SIGNS[:6])) for s in sides}
    elif verb == "declare_traits":
        body["count"] = draw(st.integers(0, 8))
    elif verb in ("retest", "cancel_retest"):
        body["source"] = draw(st.sampled_from(SOURCES))
    return body


Move = tuple[dict[str, Any], int, int]


@st.composite
def game(draw: st.DrawFn, ruleset: str = "lotn") -> list[Move]:
    """A game played against a model of the scene, so that most moves are sensible."""
    service = _new_service(ruleset)
    moves: list[Move] = []
    for _ in range(draw(st.integers(0, 80))):
        body = draw(next_move(service.state("s")))
        seconds = draw(st.sampled_from([1, 1, 1, 400]))
        entropy = draw(st.integers(0, 2**256 - 1))
        moves.append((body, seconds, entropy))
        _apply(service, len(moves), body, entropy, AT0 + timedelta(seconds=sum(m[1] for m in moves)))
    return moves


AT0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def _setup(ruleset: str) -> list[dict[str, Any]]:
    return [{"type": "open_scene", "actor": "st", "ruleset": ruleset}] + [
        {"type": "add_character", "actor": "st", "character": sheet} for sheet in SHEETS
    ]


def _new_service(ruleset: str = "lotn") -> SceneService:
    draws: list[int] = [0]
    service = SceneService(MemoryStore(), honour_at=True, entropy=lambda: draws[0])
    service.draws = draws  # type: ignore[attr-defined]
    for n, body in enumerate(_setup(ruleset)):
        _apply(service, -n - 1, body, 0, AT0 - timedelta(seconds=10 - n))
    return service


def _apply(service: SceneService, n: int, body: dict[str, Any], entropy: int, at: datetime) -> Any:
    service.draws[0] = entropy  # type: ignore[attr-defined]
    fields = {k: v for k, v in body.items() if v is not None}
    command = parse_command(msgspec.json.encode({"id": f"m{n}", "scene": "s", "at": at, **fields}))
    return service.handle(command).result()


def _play(moves: list[Move], ruleset: str = "lotn") -> tuple[SceneService, list[tuple[int, Any]]]:
    service = _new_service(ruleset)
    checkpoints: list[tuple[int, Any]] = []
    now = AT0
    for n, (body, seconds, entropy) in enumerate(moves, start=1):
        now += timedelta(seconds=seconds)
        before = service.store.head("s")
        result = _apply(service, n, body, entropy, now)  # anything but Rejected escapes decide: a failure
        if not result.ok:
            assert service.store.head("s") == before, "a refused command changed the log"
        live = service.state("s")
        records = list(service.store.read("s"))
        assert live == fold(records), "the live state is not the fold of the log"
        assert live == functools.reduce(evolve, records, Scene()), "the bulk fold differs from event by event"
        walked = tuple(ch.id for ch in live.in_order() if undecided(ch))
        assert live.undecided == walked, "the index of undecided challenges is not what walking them finds"
        decided = [ch.id for ch in live.in_order() if not undecided(ch)]
        assert live.decided == len(decided) and set(live.recent) <= set(decided)
        assert len(live.recent) == min(RECENT, len(decided))
        checkpoints.append((live.version, live))
    return service, checkpoints


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game())
def test_random_games_keep_the_invariants(moves: list[Move]) -> None:
    """For any command sequence: the live state equals fold(log) after every command, refused
    commands leave the log unchanged, and decide raises nothing but Rejected."""
    service, checkpoints = _play(moves)
    records = list(service.store.read("s"))
    for version, live in checkpoints:
        assert fold(records[:version]) == live  # replaying a prefix gives what the table had
        assert snapshots.decode(snapshots.encode(live)) == live  # a snapshot is the fold it was taken from
        msgspec.json.encode(view(live))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game("camarilla"))
def test_random_camarilla_games_keep_the_invariants(moves: list[Move]) -> None:
    """The same for camarilla, with rounds, turns, mobs, blood and grapples in the moves."""
    service, checkpoints = _play(moves, "camarilla")
    records = list(service.store.read("s"))
    for version, live in checkpoints:
        assert fold(records[:version]) == live
        msgspec.json.encode(view(live))
    for step in replay(records, "a"):
        render(step)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game())
def test_replay_is_deterministic(moves: list[Move]) -> None:
    """Replaying the same log twice gives the same steps, for the ST and for each player."""
    service, _ = _play(moves)
    records = list(service.store.read("s"))
    for viewer in ("st", "a", "*"):
        first = list(replay(records, viewer))
        assert first == list(replay(records, viewer))
        assert len(first) == len(records)
        for step in first:
            render(step)


def test_random_games_reach_deep_states() -> None:
    """The move generator above is able to resolve a challenge (so the properties test real play)."""
    moves = [
        (
            {
                "type": "declare",
                "actor": "a",
                "challenge": "x",
                "kind": "contested",
                "targets": ["b"],
                "category": "physical",
                "bid": ["Brawny"],
            },
            1,
            0,
        ),
        ({"type": "bid", "actor": "b", "challenge": "x", "bid": ["Quick"]}, 1, 0),
        ({"type": "throw", "actor": "a", "challenge": "x", "sign": "random"}, 1, 0),
        ({"type": "throw", "actor": "st", "challenge": "x", "sign": "scissors"}, 1, 0),
        ({"type": "pass", "actor": "st", "challenge": "x"}, 1, 0),
    ]
    service, _ = _play(moves)
    assert service.state("s").challenges["x"].status == "resolved"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game())
def test_replay_at_step_n_is_what_the_table_had(moves: list[Move]) -> None:
    """The replay's state after step N equals the live state after event N."""
    service, checkpoints = _play(moves)
    records = list(service.store.read("s"))
    replayed = list(states(records))
    for version, live in checkpoints:
        assert replayed[version - 1] == live
