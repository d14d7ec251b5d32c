"""Properties over random bns games (bns:exceptional-success, bns:willpower-retest, bns:overbid,
bns:willpower-pools): whatever is played, an exceptional success has the greater pool and every
test won; a challenge has at most one Willpower retest and three tests; a pool never changes once
set; no Trait is lost; and no pool or sealed sign reaches another side before the test shows it,
on any path (a view, a patch, an event as sent, a replay step)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.commands import WillpowerSource, parse_command
from domain.events import ChallengeResolved, Relented, TraitLost
from domain.evolve import fold
from domain.log import Recorded
from domain.state import NARRATOR, Scene
from projections.redact import redact
from projections.replay import replay
from projections.views import view
from server.service import SceneService
from server.store import MemoryStore
from server.wire import after_commit, commit_frames, joined_frames
from tests.live.test_bns_table import pool_leaks

PEOPLE = ["a", "b", "c"]
VIEWERS = ["a", "b", "c", "*"]
SHEETS: list[dict[str, Any]] = [
    {
        "id": "a",
        "name": "A",
        "willpower": 2,
        "attributes": {"physical": 6, "social": 3, "mental": 4},
        "skills": {"brawl": 2, "dodge": 1, "firearms": 3},
        "weapons": [{"name": "Pistol", "kind": "firearms", "bonus": 1}],
    },
    {
        "id": "b",
        "name": "B",
        "npc": True,
        "willpower": 3,
        "attributes": {"physical": 2, "social": 5, "mental": 2},
        "skills": {"intimidation": 2, "melee": 1},
        "powers": ["Dread Gaze"],
        "weapons": [{"name": "Club", "kind": "melee", "bonus": 1}],
    },
    {
        "id": "c",
        "name": "C",
        "willpower": 1,
        "merits": ["Fighting Finesse"],
        "attributes": {
            "strength": 1,
            "dexterity": 4,
            "stamina": 2,
            "charisma": 2,
            "manipulation": 3,
            "composure": 1,
            "intelligence": 3,
            "wits": 2,
            "resolve": 1,
        },
        "skills": {"brawl": 1, "athletics": 2},
        "weapons": [{"name": "Knife", "kind": "melee", "throwable": True}],
    },
]
ATTACKS: list[dict[str, Any]] = [
    {"attack": "unarmed"},
    {"attack": "unarmed", "attribute": "dexterity"},
    {"attack": "melee", "weapon": "Club"},
    {"attack": "thrown", "weapon": "Knife"},
    {"attack": "firearms", "weapon": "Pistol", "wildcard": 2, "why": "close"},
    {"attack": "firearms", "wildcard": 3},
    {"attack": "social", "skill": "intimidation"},
    {"attack": "social", "attribute": "manipulation", "skill": "subterfuge"},
    {"attack": "mental", "attribute": "intelligence", "skill": "occult", "wildcard": -2, "why": "tired"},
    {"attack": "mental", "skill": "investigation"},
    {"defense": "dodge"},
]
DEFENSES: list[dict[str, Any]] = [
    {"defense": "dodge"},
    {"defense": "dodge", "wildcard": 1, "why": "cover"},
    {"defense": "parry"},
    {"defense": "soak"},
    {"defense": "mental"},
    {"defense": "social", "wildcard": -1, "why": "shaken"},
    {"attack": "unarmed"},
]
SOURCES = [{"category": "willpower"}, {"category": "overbid"}, {"category": "ability", "name": "Brawl"}]
SIGNS = ["rock", "paper", "scissors", "rock", "paper", "scissors", "random", "bomb"]
NEXT = {
    "awaiting_response": ["bid", "bid", "bid", "relent", "withdraw"],
    "bidding": ["throw", "throw", "throw", "record_test", "relent"],
    "throwing": ["throw", "throw", "record_test"],
    "retest_window": ["pass", "retest", "retest", "cancel_retest"],
}
AT0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


@st.composite
def next_move(draw: st.DrawFn, state: Scene) -> dict[str, Any]:
    open_ids = sorted(cid for cid, ch in state.challenges.items() if ch.open)
    if not open_ids or draw(st.integers(0, 7)) == 0:
        if draw(st.integers(0, 15)) == 0:
            return {
                "type": "adjust",
                "actor": "st",
                "character": draw(st.sampled_from(PEOPLE)),
                "changes": {"lift_waits": True},
                "reason": "the scene moved on",
            }
        who = draw(st.sampled_from(PEOPLE))
        pool = draw(st.sampled_from(ATTACKS))
        category = {"social": "social", "mental": "mental"}.get(pool.get("attack", ""), "physical")
        kind = draw(st.sampled_from(["contested"] * 5 + ["static"]))
        body: dict[str, Any] = {
            "type": "declare",
            "actor": who,
            "challenge": draw(st.sampled_from(["x", "y", "z", "w"])),
            "kind": kind,
            "category": draw(st.sampled_from([category] * 5 + ["physical", "social"])),
            "pool": pool,
            "effect": {"kind": "damage", "amount": draw(st.integers(0, 2))},
        }
        if kind == "contested":
            body["targets"] = [draw(st.sampled_from([p for p in PEOPLE if p != who]))]
            if pool.get("attack") == "social" and draw(st.booleans()):
                body["power"] = "Dread Gaze"
        else:
            body["difficulty"] = draw(st.integers(0, 12))
            body.pop("effect")
        return body
    cid = draw(st.sampled_from(open_ids))
    ch = state.challenges[cid]
    verb = draw(st.sampled_from(NEXT.get(ch.status, ["pass"])))
    sides = [ch.challenger.who, ch.defender.who]
    if ch.status == "retest_window":
        sides = [ch.side(role).who for role in ch.losing_roles()] * 4 + sides
    elif ch.status == "awaiting_response":
        sides = [ch.defender.who] * 4 + sides
    who = draw(st.sampled_from(sides))
    body = {"type": verb, "actor": "st" if who in ("b", NARRATOR) else who, "challenge": cid}
    if who == "b":
        body["character"] = "b"
    if verb == "bid" or (verb == "relent" and draw(st.booleans())):
        body["pool"] = draw(st.sampled_from(DEFENSES))
    elif verb == "throw":
        body["sign"] = draw(st.sampled_from(SIGNS))
    elif verb == "record_test":
        body = {
            "type": verb,
            "actor": "st",
            "challenge": cid,
            "signs": {s: draw(st.sampled_from(SIGNS[:6])) for s in {ch.challenger.who, ch.defender.who}},
        }
    elif verb in ("retest", "cancel_retest"):
        body["source"] = draw(st.sampled_from(SOURCES))
    return body


Move = tuple[dict[str, Any], int, int]


def _service() -> SceneService:
    draws: list[int] = [0]
    service = SceneService(MemoryStore(), honour_at=True, entropy=lambda: draws[0])
    service.draws = draws  # type: ignore[attr-defined]
    setup = [{"type": "open_scene", "actor": "st", "ruleset": "bns"}] + [
        {"type": "add_character", "actor": "st", "character": sheet} for sheet in SHEETS
    ]
    for n, body in enumerate(setup):
        _apply(service, -n - 1, body, 0, AT0 - timedelta(seconds=10 - n))
    return service


def _apply(service: SceneService, n: int, body: dict[str, Any], entropy: int, at: datetime) -> Any:
    service.draws[0] = entropy  # type: ignore[attr-defined]
    command = parse_command(msgspec.json.encode({"id": f"m{n}", "scene": "s", "at": at, **body}))
    return service.handle(command).result()


@st.composite
def bns_game(draw: st.DrawFn) -> list[Move]:
    service = _service()
    moves: list[Move] = []
    for _ in range(draw(st.integers(0, 60))):
        body = draw(next_move(service.state("s")))
        seconds = draw(st.sampled_from([1, 1, 1, 700]))
        entropy = draw(st.integers(0, 2**256 - 1))
        moves.append((body, seconds, entropy))
        _apply(service, len(moves), body, entropy, AT0 + timedelta(seconds=sum(m[1] for m in moves)))
    return moves


def _play(moves: list[Move], frames: bool = False) -> tuple[list[Recorded], list[Scene]]:
    """Play the moves; with ``frames``, check what each viewer's socket would be sent after each
    commit for pools it may not know yet."""
    service = _service()
    states = []
    now = AT0
    for n, (body, seconds, entropy) in enumerate(moves, start=1):
        now += timedelta(seconds=seconds)
        before = service.store.head("s")
        result = _apply(service, n, body, entropy, now)
        if not result.ok:
            assert service.store.head("s") == before, "a refused command changed the log"
        states.append(service.state("s"))
        fresh = list(service.store.read("s", after=before[0]))
        for viewer in VIEWERS if frames and fresh else ():
            sent = [msgspec.json.decode(frame) for frame in after_commit(states[-1], fresh, viewer)]
            assert pool_leaks(sent, viewer) == [], "a pushed commit tells a pool"
    records = list(service.store.read("s"))
    assert fold(records) == states[-1] if states else True
    return records, states


def _check_grades(records: list[Recorded], state: Scene) -> None:
    relents = {r.event.challenge for r in records if isinstance(r.event, Relented)}
    for record in records:
        event = record.event
        assert not isinstance(event, TraitLost), "bns never takes a Trait"
        if not isinstance(event, ChallengeResolved):
            continue
        ch = state.challenges[event.challenge]
        attack = ch.challenger.pool.total if ch.challenger.pool else 0
        defense = ch.defender.pool.total if ch.defender.pool else (ch.difficulty or 0)
        if event.exceptional:
            assert event.winner == "challenger", "only the attacker scores exceptionally"
            assert attack > defense, "an exceptional success has the greater pool"
            if event.challenge not in relents:
                assert ch.tests and all(t.result == "win" for t in ch.tests), "and won every test"
        assert len(ch.tests) <= 3, "at most three tests"
        assert sum(isinstance(r.source, WillpowerSource) for r in ch.retests) <= 1, "one Willpower retest"
        if event.critical is not None:
            assert ch.tests and ch.tests[-1].result != "tie", "never a critical failure on a tie"


def _check_pools_frozen(states: list[Scene]) -> None:
    seen: dict[tuple[str, str], object] = {}
    for state in states:
        for ch in state.challenges.values():
            for side in (ch.challenger, ch.defender):
                if side.pool is None:
                    continue
                key = (f"{ch.id}@{ch.seq}", side.who)
                assert seen.setdefault(key, side.pool) == side.pool, "a pool changed after it was set"


def _check_secrets(records: list[Recorded], states: list[Scene]) -> None:
    for state in states:
        for viewer in VIEWERS:
            shown = view(state, viewer)
            for cid, ch in shown.challenges.items():
                real = state.challenges[cid]
                if real.open and not real.tests:
                    assert set(ch.pools) <= {viewer}, f"{viewer} sees a pool before the test"
                assert set(ch.sealed) <= {viewer}, f"{viewer} sees a sealed sign"
    for record in records:
        owner = getattr(record.event, "challenger", None) or getattr(record.event, "character", None)
        if getattr(record.event, "pool", None) is None or record.type == "relented":
            continue
        for viewer in VIEWERS:
            data = msgspec.json.decode(redact(record, viewer).data)
            assert (data["pool"] is not None) == (viewer == owner), f"{record.type} pool to {viewer}"
    for viewer in VIEWERS:  # a catch-up from the start, and the view that ends it
        frames, _ = commit_frames(records, viewer, Scene())
        sent = [msgspec.json.decode(frame) for frame in [*frames, *joined_frames(states[-1], 0, viewer)]]
        assert pool_leaks(sent, viewer) == [], "a catch-up tells a pool"
    for viewer in ("a", "c"):
        for step in replay(records, viewer):
            if step.type in ("challenge_declared", "bid_placed"):
                record = records[step.seq - 1]
                owner = getattr(record.event, "challenger", None) or getattr(record.event, "character", None)
                assert owner == viewer or "pool of" not in step.summary, "a replay step tells another's pool"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bns_game())
def test_random_bns_challenges_keep_the_rules(moves: list[Move]) -> None:
    records, states = _play(moves, frames=True)
    if not states:
        return
    _check_grades(records, states[-1])
    _check_pools_frozen(states)
    _check_secrets(records, states)


def test_the_generator_reaches_resolutions() -> None:
    """The generator can play a challenge to its end (so the property tests real play)."""
    zero = 0
    moves: list[Move] = [
        (
            {
                "type": "declare",
                "actor": "a",
                "challenge": "x",
                "kind": "contested",
                "targets": ["c"],
                "category": "physical",
                "pool": {"attack": "unarmed"},
            },
            1,
            zero,
        ),
        ({"type": "bid", "actor": "c", "challenge": "x", "pool": {"defense": "dodge"}}, 1, zero),
        ({"type": "throw", "actor": "a", "challenge": "x", "sign": "rock"}, 1, zero),
        ({"type": "throw", "actor": "c", "challenge": "x", "sign": "scissors"}, 1, zero),
        ({"type": "pass", "actor": "c", "challenge": "x"}, 1, zero),
    ]
    records, states = _play(moves)
    ch = states[-1].challenges["x"]
    assert ch.status == "resolved" and ch.outcome is not None and ch.outcome.winner == "challenger"
    assert ch.outcome.exceptional  # 8 against 4, the only test won
    _check_secrets(records, states)
