"""Fixtures every test directory may use."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from domain import rules
from server.snapshot_keys import ENV
from tests import postgres

rules.load("tests.rulesets.d10")  # a ruleset kept in the tests (tests/rulesets/d10/): every test sees it


@pytest.fixture(autouse=True, scope="session")
def snapshot_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The key file that signs the tests' snapshots (``server.snapshot_keys``), made on first use in
    a folder of the session's: never the user's own; the servers the tests start inherit it."""
    path = str(tmp_path_factory.mktemp("keys") / "snapshot.key")
    before = os.environ.get(ENV)
    os.environ[ENV] = path
    yield path
    if before is None:
        del os.environ[ENV]
    else:
        os.environ[ENV] = before


@pytest.fixture(autouse=True, scope="session")
def state_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The folder ``serve --load`` keeps its printed links in (``XDG_STATE_HOME``), one of the
    session's: a test never writes into the user's own ~/.local/state; the servers inherit it."""
    path = str(tmp_path_factory.mktemp("state"))
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = path
    yield path
    if before is None:
        del os.environ["XDG_STATE_HOME"]
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture
def postgres_db() -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database for this test alone, dropped after it
    (``tests.postgres``: the server named by ``JUSTICAR_TEST_POSTGRES``, the one on 127.0.0.1:5432,
    or a throwaway cluster). A missing server fails the test's set-up; it never skips."""
    try:
        with postgres.database() as url:
            yield url
    except postgres.NoPostgres as err:
        pytest.fail(str(err), pytrace=False)
