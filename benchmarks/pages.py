"""What the web pages add to each push: the moves a player's view carries (each candidate move put
to ``decide``) and the events in words, per viewer per commit.

    .venv/bin/python -m benchmarks.pages [--runs 3] [--rounds 2000]

A challenge between two players sits in its retest window (the moment with the most candidate
moves: every Ability, power, merit and overbid is tried); the commit is the losing side's retest.
Times are per viewer per commit: the frame a spectator gets, a player (moves probed), the
Storyteller (no player moves; NPCs' if any), each with and without words. Baseline in the same
run: plain msgspec encoding the spectator's already-built frame. Each figure: the median and range
(min-max) over ``--runs`` batches of ``--rounds`` calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

from benchmarks.common import header, parser, spread, table
from domain.commands import parse_command
from domain.evolve import fold
from server.service import SceneService
from server.store import MemoryStore
from server.wire import CommitMessage, after_commit, befores_of

SHEET: dict[str, Any] = {
    "traits": {"physical": {"Brawny": 3, "Quick": 3, "Tough": 3}},
    "abilities": {"Brawl": 2, "Dodge": 2, "Melee": 1, "Firearms": 1},
    "powers": ["Might", "Fleetness"],
    "merits": ["Lucky"],
    "willpower": 3,
}
SCRIPT: list[dict[str, Any]] = [
    {"type": "open_scene", "ruleset": "camarilla", "title": "bench"},
    {"type": "add_character", "character": {"id": "ann", "name": "Ann", **SHEET}},
    {"type": "add_character", "character": {"id": "bob", "name": "Bob", **SHEET}},
    {"type": "declare", "actor": "ann", "challenge": "c", "kind": "contested", "targets": ["bob"],
     "category": "physical", "bid": ["Brawny"]},
    {"type": "bid", "actor": "bob", "challenge": "c", "bid": ["Quick"]},
    {"type": "throw", "actor": "ann", "challenge": "c", "sign": "rock"},
    {"type": "throw", "actor": "bob", "challenge": "c", "sign": "scissors"},
]  # fmt: skip
RETEST = {"type": "retest", "actor": "bob", "challenge": "c", "source": {"category": "ability", "name": "Dodge"}}


def per_call(fn: Callable[[], object], rounds: int, runs: int) -> list[float]:
    """Microseconds per call, in each of ``runs`` batches."""
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(rounds):
            fn()
        out.append((time.perf_counter() - started) / rounds * 1e6)
    return out


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2000)
    args = p.parse_args()
    header(f"a commit's frame per viewer, with the pages' moves and words ({args.runs} runs of {args.rounds} calls)")
    store = MemoryStore()
    service = SceneService(store)
    for n, body in enumerate(SCRIPT):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "b", "actor": "st", **body}))
        assert service.handle(command).error is None, body
    before = service.state("b")
    handled = service.handle(parse_command(msgspec.json.encode({"id": "r", "scene": "b", **RETEST})))
    assert handled.error is None
    state, records = service.state("b"), handled.records
    assert fold(store.read("b")).version == state.version
    befores = befores_of(records, before)
    frame = after_commit(state, records, "*")[0]
    built = msgspec.json.decode(frame, type=CommitMessage)
    rows = [
        ("plain msgspec: encode a built frame", lambda: msgspec.json.encode(built)),
        ("spectator", lambda: after_commit(state, records, "*")),
        ("spectator, with words", lambda: after_commit(state, records, "*", befores)),
        ("player in the challenge (moves)", lambda: after_commit(state, records, "ann")),
        ("player in the challenge, with words", lambda: after_commit(state, records, "ann", befores)),
        ("Storyteller, with words", lambda: after_commit(state, records, "st", befores)),
        ("the words' states (once per commit)", lambda: befores_of(records, before)),
    ]
    figures = [(label, per_call(fn, args.rounds, args.runs)) for label, fn in rows]
    table(["the frame for", "µs per commit"], [[label, spread(values, ".1f")] for label, values in figures])


if __name__ == "__main__":
    main()
