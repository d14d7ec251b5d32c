"""Where the tests' PostgreSQL comes from (``tests.postgres``): the server named by
``JUSTICAR_TEST_POSTGRES``, else the local one, else a throwaway cluster; never a skip."""

from __future__ import annotations

import os
import socket

import psycopg
import pytest

from tests import postgres


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_named_server_that_does_not_answer_is_a_setup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """``JUSTICAR_TEST_POSTGRES`` naming no server is said, its password hidden; nothing else is tried."""
    monkeypatch.setenv(postgres.ENV, f"postgresql://table:s3cr3t@127.0.0.1:{closed_port()}/postgres")
    with pytest.raises(postgres.NoPostgres, match="does not answer") as refused:
        postgres._find()
    assert "s3cr3t" not in str(refused.value)


def test_without_a_server_a_throwaway_cluster_is_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """No server named and none on the local port: a cluster of its own, in a temporary
    directory on a free port, run as ``postgres`` when the tests run as root; it takes databases."""
    monkeypatch.delenv(postgres.ENV, raising=False)
    monkeypatch.setattr(postgres, "LOCAL", f"postgresql://postgres@127.0.0.1:{closed_port()}/postgres")
    url = postgres._find()
    assert url != postgres.LOCAL and url.startswith("postgresql://postgres@127.0.0.1:")
    with psycopg.connect(url, autocommit=True) as conn:
        directory = conn.execute("SHOW data_directory").fetchone()
        assert directory is not None and os.path.basename(os.path.dirname(directory[0])).startswith("justicar-pg-")
        conn.execute("CREATE DATABASE justicar_provisioned")
        conn.execute("DROP DATABASE justicar_provisioned")
    if os.geteuid() == 0:
        owner = os.stat(directory[0]).st_uid
        assert owner != 0


def test_no_server_and_no_initdb_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing answers and there is no initdb: a set-up error naming the three ways."""
    monkeypatch.setattr(postgres.shutil, "which", lambda name: None)
    monkeypatch.setattr(postgres.glob, "glob", lambda pattern: [])
    with pytest.raises(
        postgres.NoPostgres, match=r"JUSTICAR_TEST_POSTGRES.*127\.0\.0\.1:5432.*apt-get install postgresql"
    ):
        postgres._throwaway()
