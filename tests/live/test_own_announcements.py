"""A PostgreSQL process hears its own commits' announcements (its NOTIFY comes back on its LISTEN),
often before its room has taken the commit in: it must not read those commits back from the
database (with many busy scenes those reads swamp its readers). Another process's commit, heard
after them, is still read and pushed. The reads of what passed before the process listened to the
scene's group (from where the scene stood then, before ours: a loaded machine listens late) are
not reads back.
A real server on PostgreSQL, with a real client."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from server.store.channels import group
from tests.live.conftest import seed
from tests.live.faults import adjust, peer

pytestmark = pytest.mark.anyio

COMMANDS = 30


async def test_own_commits_are_not_read_back(postgres_db: str) -> None:
    backend = open_backend(postgres_db)
    seed(backend, "s1")
    token = backend.tokens.issue("s1", "st")[0]
    other = open_backend(postgres_db)  # another process, writing to the same scene
    async with running(backend) as live, peer(live.url, token, subscribe=True) as st:
        service = live.hub.service
        reads: list[tuple[str, int]] = []
        read = service.read

        def counted(scene: str, after: int, upto: int | None) -> Any:
            reads.append((scene, after))
            return read(scene, after, upto)

        service.read = counted  # type: ignore[method-assign]
        feed: Any = live.hub.feed
        with anyio.fail_after(10):  # listening to the scene's group: what passed before is read from here
            while group("s1") not in feed.on:
                await anyio.sleep(0.01)
        start = service.state("s1").version
        for n in range(COMMANDS):
            assert (await st.command(adjust(f"a{n}")))["ok"]
        version = service.state("s1").version
        body = {"scene": "s1", "actor": "st", **adjust("theirs", "juan")}
        assert SceneService(other.store).handle(parse_command(json.dumps(body).encode())).error is None
        # announced after all of ours, on the same channel: once it is pushed, ours were all heard
        await st.wait(lambda m: m["type"] == "commit" and m.get("version", 0) > version, "their commit")
        assert reads and all(after >= version or after <= start for _, after in reads), reads
    other.close()
    backend.close()
