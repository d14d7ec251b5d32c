"""Instructions per frame and per table commit, counted by valgrind's callgrind: the same count
whatever else the machine is doing, where wall-clock figures of a few percent drown in its noise.

    .venv/bin/python -m benchmarks.instructions [--against DIR] [--only TEXT]

Two workloads, each run in a fresh interpreter under callgrind for N and 2N repetitions (the
difference divided by N: the setup and the imports cancel out), ``PYTHONHASHSEED=0``:

- ``frame VIEWER``: ``benchmarks.pages``' commit (a camarilla retest in its window), the frame built
  for a spectator (``*``), a player in the challenge (``ann``, moves probed) or the Storyteller
  (``st``, words on);
- ``table``: ``benchmarks.live``'s table (the demo, every character in an open challenge), the
  Storyteller's ``adjust`` of a player in one, and the frames of the Storyteller, each player and a
  spectator, words on; ``timed``: the same with every kind of response deadline set.

``--against DIR`` counts another checkout too (its modules, this interpreter), for a comparison.
Needs ``valgrind`` (Debian's package).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import msgspec

from benchmarks.common import ROOT, header, parser, table


def frames(viewer: str, n: int) -> None:
    """``n`` frames of ``benchmarks.pages``' commit for ``viewer``."""
    from benchmarks.pages import RETEST, SCRIPT
    from domain.commands import parse_command
    from server.service import SceneService
    from server.store import MemoryStore
    from server.wire import after_commit, befores_of

    service = SceneService(MemoryStore())
    for k, body in enumerate(SCRIPT):
        service.handle(parse_command(msgspec.json.encode({"id": f"s{k}", "scene": "b", "actor": "st", **body})))
    before = service.state("b")
    handled = service.handle(parse_command(msgspec.json.encode({"id": "r", "scene": "b", **RETEST})))
    state, records = service.state("b"), handled.records
    befores = befores_of(records, before)
    for _ in range(n):
        after_commit(state, records, viewer, befores if viewer == "st" else None)


def commits(n: int, timed: bool = False) -> None:
    """``n`` of the Storyteller's ``adjust`` at ``benchmarks.live``'s table, with every frame;
    ``timed``: with every kind of response deadline set (``benchmarks.deadlines.EVERY``: each open
    challenge's answer on the clock, none running out)."""
    from benchmarks.deadlines import EVERY
    from benchmarks.scenes import demo, open_challenges
    from domain.commands import parse_command
    from server.service import SceneService
    from server.store import MemoryStore
    from server.wire import Shared, after_commit, befores_of, reach_of

    dice = random.Random(11)
    service = SceneService(MemoryStore(), entropy=lambda: dice.getrandbits(256))
    demo(service, "t")
    if timed:
        timing = {"id": "timed", "scene": "t", "actor": "st", "type": "set_deadlines", "deadlines": EVERY}
        assert service.handle(parse_command(msgspec.json.encode(timing))).error is None
    players, _ = open_challenges(service, "t")
    sent = None  # what each viewer has of the deadlines, as a room keeps it (``Room.push``)
    for k in range(n):
        before = service.state("t")
        body: dict[str, object] = {"id": f"a{k}", "scene": "t", "actor": "st", "type": "adjust"}
        body |= {"character": players[0], "changes": {"willpower": 1 if k % 2 else -1}, "reason": "bench"}
        handled = service.handle(parse_command(msgspec.json.encode(body)))
        state, records = service.state("t"), handled.records
        befores = befores_of(records, before)
        shared = Shared(reach_of(records), sent)
        for viewer in ("st", *players, "*"):
            after_commit(state, records, viewer, befores, shared)
        sent = shared.made


def counted(tree: Path, work: list[str], n: int) -> int:
    """Instructions for ``work`` repeated ``n`` times in ``tree``, less those of the setup."""

    def run(times: int) -> int:
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
        argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
        argv += [__file__, "--work", *work, str(times)]  # this file, the tree's modules
        out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=True).stderr
        found = re.search(r"Collected : (\d+)", out)
        assert found, out
        return int(found.group(1))

    return (run(2 * n) - run(n)) // n


def main() -> None:
    if "--work" in sys.argv:  # one workload, under callgrind
        work = sys.argv[sys.argv.index("--work") + 1 :]
        frames(work[1], int(work[2])) if work[0] == "frame" else commits(int(work[1]), timed=work[0] == "timed")
        return
    p = parser(__doc__.splitlines()[0], runs=1)
    p.add_argument("--against", type=Path, help="another checkout, counted the same way")
    p.add_argument("--only", default="", help="only the workloads whose label holds this")
    args = p.parse_args()
    header("instructions per frame and per table commit (callgrind)")
    trees = [ROOT, *([args.against.resolve()] if args.against else [])]
    workloads = [
        ("a spectator's frame", ["frame", "*"], 300),
        ("a player's frame in the challenge", ["frame", "ann"], 300),
        ("the Storyteller's frame, with words", ["frame", "st"], 300),
        ("a table's commit (adjust: the ST, each player, a spectator)", ["table"], 100),
        ("the same, every response deadline set", ["timed"], 100),
    ]
    workloads = [w for w in workloads if args.only in w[0]]
    rows = [[label, *(f"{counted(tree, work, n):,}" for tree in trees)] for label, work, n in workloads]
    table(["instructions", *(str(t) for t in trees)], rows)


if __name__ == "__main__":
    main()
