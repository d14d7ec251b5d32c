"""Views list characters in the order they were added and challenges in the order they were
declared, in every process (a map's own order follows its keys' hashes, which differ between
processes)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

from projections.views import view
from tests.table import Table

NAMES = ["zed", "amy", "mo", "kit", "bo", "ulla", "pia", "dan", "eve", "ray", "ann", "tom"]


def table() -> Table:
    t = Table()
    for who in NAMES:
        t.add(who, {"Quick": 3})
    for n, (a, b) in enumerate(itertools.pairwise(NAMES)):
        t.do(
            a,
            "declare",
            challenge=f"c{(n * 7) % 11}-{a}",
            kind="contested",
            targets=[b],
            category="physical",
            bid=["Quick"],
        )
    return t


def test_views_keep_sheet_and_declaration_order() -> None:
    """The ST's and a player's view list characters as added and challenges as declared."""
    t = table()
    declared = [r.event.challenge for r in t.log if r.type == "challenge_declared"]  # type: ignore[union-attr]
    for viewer in ("st", "amy", "*"):
        shown = view(t.state, viewer)
        assert list(shown.characters) == NAMES
        assert list(shown.challenges) == declared


def test_the_order_is_the_same_in_every_process() -> None:
    """Two processes with different hash seeds list the same order."""
    code = "from tests.test_order import table; from projections.views import view; "
    code += "print(list(view(table().state).challenges))"
    root = Path(__file__).resolve().parents[1]
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=root,
            env={"PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1
