"""A PostgreSQL outage never freezes a `justicar serve`: while its database is away, pings and pushes
go on, every command is answered ``storage_unavailable`` within seconds (nothing recorded), a new
connection is answered, and everything resumes by itself when the database is back; nothing
acknowledged is lost and ``verify`` passes. The database is a cluster of the test's own, stopped as
a crash stops it and started again on the same port, mid-burst."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from server.backend import open_backend
from tests.live.conftest import seed
from tests.live.faults import adjust, cli, free_port, peer, serve_argv, served
from tests.postgres import Cluster

pytestmark = pytest.mark.anyio

OUTAGE = 6.0
"""Seconds the database stays away."""


@pytest.fixture
def cluster() -> Any:
    made = Cluster()
    yield made
    made.close()


async def timed(st: Any, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.monotonic()
    result = await st.command(body, seconds=30)
    return time.monotonic() - started, result


async def test_an_outage_freezes_nothing(cluster: Cluster, tmp_path: Path) -> None:
    backend = open_backend(cluster.url)
    seed(backend, "s1")
    seed(backend, "s2")
    tokens = {
        "st1": backend.tokens.issue("s1", "st")[0],
        "sam1": backend.tokens.issue("s1", "player", "sam")[0],
        "st2": backend.tokens.issue("s2", "st")[0],
    }
    backend.close()
    port = free_port()
    async with (
        served(serve_argv(cluster.url, port), port, tmp_path / "serve.log") as server,  # type: ignore[arg-type]
        peer(server.url, tokens["st1"], subscribe=True) as st1,
        peer(server.url, tokens["sam1"], subscribe=True) as sam1,
        peer(server.url, tokens["st2"], subscribe=True) as st2,
    ):
        acknowledged = []
        for n in range(5):  # the burst before
            _, result = await timed(st1, adjust(f"before-{n}"))
            assert result["ok"], result
            acknowledged.append(result["version"])

        cluster.stop()
        started = time.monotonic()
        pings: list[float] = []
        answers: list[tuple[float, dict[str, Any]]] = []
        n = 0
        while time.monotonic() - started < OUTAGE:
            pings.append(await st2.ping(seconds=10))
            pings.append(await sam1.ping(seconds=10))
            answers.append(await timed(st1, adjust(f"during-{n}")))
            n += 1
        refused = [result for _, result in answers if not result["ok"]]
        assert refused and all(r["error"]["code"] == "storage_unavailable" for r in refused), answers
        assert max(seconds for seconds, _ in answers) < 4.5, [seconds for seconds, _ in answers]
        assert max(pings) < 1.0, pings
        async with peer(server.url, tokens["st2"]) as late:  # a new connection is answered too
            assert await late.ping(seconds=10) < 1.0

        cluster.start()
        with anyio.fail_after(30):
            while True:
                _, result = await timed(st1, adjust(f"after-{n}"))
                n += 1
                if result["ok"]:
                    break
                assert result["error"]["code"] == "storage_unavailable", result
                await anyio.sleep(0.2)
        acknowledged.append(result["version"])
        acknowledged += [r["version"] for _, r in answers if r["ok"]]
        pushed = await sam1.wait(
            lambda m: m["type"] == "commit" and m["events"][-1]["seq"] == result["version"], "the commit after"
        )
        assert pushed["events"][-1]["command"].startswith("after-")
        assert server.alive() and sam1.errors() == [] and st2.errors() == []

    done = cli("verify", "--db", cluster.url, "s1")
    assert done.returncode == 0, done.stdout + done.stderr
    backend = open_backend(cluster.url)
    try:
        logged = {record.seq for record in backend.store.read("s1")}
        assert set(acknowledged) <= logged
    finally:
        backend.close()
