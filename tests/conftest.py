"""Fixtures every test directory may use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import postgres


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
