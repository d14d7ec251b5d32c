"""The backends every test of this suite runs on: memory, SQLite and PostgreSQL, each opened as
the server opens it (``server.backend.open_backend``: a file path, a ``postgresql://`` URL, or
nothing)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from server.backend import Backend, open_backend

KINDS = ["memory", "sqlite", "postgres"]
ON_DISK = ["sqlite", "postgres"]


@pytest.fixture
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """The ``--db`` of this test's backend, named by its parameter (``KINDS``, ``indirect``):
    None in memory."""
    kind = request.param
    if kind == "memory":
        return None
    if kind == "sqlite":
        return str(tmp_path / "j.db")
    return str(request.getfixturevalue("postgres_db"))


@pytest.fixture
def opened() -> Iterator[Callable[..., Backend]]:
    """Opens backends (``open_backend``) and closes them all after the test."""
    backends: list[Backend] = []

    def open_(db: str | None, **options: object) -> Backend:
        backend = open_backend(db, **options)  # type: ignore[arg-type]
        backends.append(backend)
        return backend

    yield open_
    for backend in reversed(backends):
        backend.close()


@pytest.fixture
def backend(where: str | None, opened: Callable[..., Backend]) -> Backend:
    return opened(where)


def raw(where: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """One statement on the database itself, beside the store (``?`` placeholders), committed."""
    if where.startswith("postgresql://"):
        with psycopg.connect(where, autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]
            return cursor.fetchall() if cursor.description else []
    conn = sqlite3.connect(where)
    try:
        rows = conn.execute(sql, params).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()
