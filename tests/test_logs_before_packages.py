"""Logs written before each ruleset became a package of its own (issue 28) still verify, import
and fold to what the same play gives now. ``tests/fixtures/before-packages/`` holds the examples'
scenes as ``justicar export`` wrote them at commit d220771 (the last before the move): their
``scene_opened`` records options the old way (``{"bns": null, "cross_category_bids": false,
"kony": null}``); the scenes played now record them as their ruleset read them."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from clients.cli import main
from domain.evolve import fold_rows
from projections.views import view
from server.store import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
BEFORE = ROOT / "tests" / "fixtures" / "before-packages"
SCENES = {"bns-duel": "church", "bns-fight": "alley", "camarilla": "rooftop", "kony": "docks"}


def _state(db: Path, scene: str) -> object:
    store = SqliteStore(db)
    try:
        return fold_rows(scene, store.rows(scene))
    finally:
        store.close()


@pytest.mark.parametrize("example", sorted(SCENES))
def test_an_old_log_verifies_imports_and_folds_as_the_same_play_does_now(
    example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = SCENES[example]
    old = tmp_path / "old.db"
    assert main(["import", "--db", str(old), str(BEFORE / f"{example}.jsonl")]) == 0, capsys.readouterr()
    assert main(["verify", "--db", str(old)]) == 0, capsys.readouterr()
    first = json.loads((BEFORE / f"{example}.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["type"] == "scene_opened" and "cross_category_bids" in first["data"]["options"]
    now = tmp_path / "now.db"
    assert main(["play", str(ROOT / "examples" / f"{example}.jsonl"), "--db", str(now)]) == 0
    capsys.readouterr()
    before, after = _state(old, scene), _state(now, scene)
    assert before.options == after.options  # type: ignore[attr-defined]
    for viewer in ("st", "spectator"):
        assert msgspec.json.encode(view(before, viewer)) == msgspec.json.encode(view(after, viewer))  # type: ignore[arg-type]
