"""The same log in every backend: a script played into each ends at the same head hashes (the
same bytes are sealed), and what one backend exports another imports to the same heads."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.cli import main
from clients.offline import play_script
from server.backend import Backend
from server.nights import export_all, import_all
from server.service import SceneService
from server.store.base import first_problem

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PAIRS = [
    ("memory", "sqlite"),
    ("memory", "postgres"),
    ("sqlite", "postgres"),
    ("postgres", "sqlite"),
    ("postgres", "memory"),
]


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], str | None]:
    """The ``--db`` of a new database of a kind, for this test."""
    made: dict[str, int] = {}

    def db(kind: str) -> str | None:
        made[kind] = made.get(kind, 0) + 1
        if kind == "memory":
            return None
        if kind == "sqlite":
            return str(tmp_path / f"j{made[kind]}.db")
        if made[kind] > 1:
            pytest.fail("one PostgreSQL database a test")
        return str(request.getfixturevalue("postgres_db"))

    return db


def played(backend: Backend, script: str) -> list[str]:
    service = SceneService(backend.store, honour_at=True)
    with open(EXAMPLES / script, encoding="utf-8") as source:
        malformed, scenes = play_script(service, source, io.StringIO())
    assert not malformed
    return scenes


def heads(backend: Backend) -> dict[str, tuple[int, str]]:
    return {scene: backend.store.head(scene) for scene in backend.store.scenes()}


@pytest.mark.parametrize("script", ["demo.jsonl", "night.jsonl"])
def test_one_script_one_head_in_every_backend(
    script: str, dbs: Callable[[str], str | None], opened: Callable[..., Backend]
) -> None:
    """Played into memory, SQLite and PostgreSQL, a script (with its times) seals the same events:
    every stream ends at the same seq and hash."""
    found = {}
    for kind in ("memory", "sqlite", "postgres"):
        backend = opened(dbs(kind))
        played(backend, script)
        found[kind] = heads(backend)
        assert all(first_problem(backend.store, scene) is None for scene in found[kind])
    assert found["memory"] == found["sqlite"] == found["postgres"] and found["memory"]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_export_from_one_import_into_another(
    source: str, target: str, dbs: Callable[[str], str | None], opened: Callable[..., Backend]
) -> None:
    """A game night with its scenes, exported from one backend and imported into another: the
    same events, the same heads, the same command ids (a command sent again is a repeat there)."""
    one = opened(dbs(source))
    played(one, "night.jsonl")
    exported = export_all(one.store, "friday")
    other = opened(dbs(target))
    imported = import_all(other.store, io.StringIO(exported))
    assert {stream for stream, _ in imported} == set(one.store.scenes())
    assert heads(other) == heads(one)
    for stream in one.store.scenes():
        assert list(other.store.read_wire(stream)) == list(one.store.read_wire(stream))
        assert other.store.acknowledged(stream) == one.store.acknowledged(stream)
        assert first_problem(other.store, stream) is None
    assert export_all(other.store, "friday") == exported
    again = SceneService(other.store, honour_at=True)
    before = heads(other)
    with open(EXAMPLES / "night.jsonl", encoding="utf-8") as source_lines:
        play_script(again, source_lines, io.StringIO())
    assert heads(other) == before  # every command of the script is already in the log


def test_the_command_line_moves_a_scene_between_backends(
    dbs: Callable[[str], str | None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``justicar play``, ``export``, ``import`` and ``verify`` take a PostgreSQL URL as ``--db``:
    the demo played into PostgreSQL, exported, imported into SQLite, verified at the same head."""
    pg, lite = dbs("postgres"), dbs("sqlite")
    assert pg is not None and lite is not None
    assert main(["play", str(EXAMPLES / "demo.jsonl"), "--db", pg]) == 0
    capsys.readouterr()
    assert main(["verify", "--db", pg, "demo"]) == 0
    head = capsys.readouterr().out.split("head ")[1].split()[0]
    export = tmp_path / "demo.jsonl"
    assert main(["export", "--db", pg, "demo", "-o", str(export)]) == 0
    assert main(["import", "--db", lite, str(export), "--expect", head]) == 0
    assert main(["verify", "--db", lite, "demo", "--expect", head]) == 0
    assert f"demo: ok, 61 events, head {head} (as expected" in capsys.readouterr().out
    assert main(["import", "--db", pg, str(export)]) == 1  # the scene is there already
    assert "already has events" in capsys.readouterr().err
