"""A repeated command is answered from the log, not from the ``commands`` index: a row edited to
point at another command's events, or forged for an id never sent, is ignored (the repeat gets its
own first result; the first send of that id is applied) and ``justicar verify`` names it. On a
real server, on SQLite and on PostgreSQL, with a real client."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.app import running
from server.backend import open_backend
from tests.live.conftest import seed
from tests.live.faults import adjust, cli, peer
from tests.store.conftest import raw

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "j.db")
    return str(request.getfixturevalue("postgres_db"))


async def test_tampered_command_rows_are_not_answered_from(db: str) -> None:
    backend = open_backend(db)
    seed(backend, "s1")
    token = backend.tokens.issue("s1", "st")[0]
    async with running(backend) as live, peer(live.url, token) as st:
        first = await st.command(adjust("a1"))
        second = await st.command(adjust("a2"))
        assert first["ok"] and second["ok"]

        # a2's row moved onto a1's events: a repeat of a2 is still a2's own first result
        a1 = raw(db, "SELECT first_seq, last_seq FROM commands WHERE scene = 's1' AND id = 'a1'")[0]
        raw(db, "UPDATE commands SET first_seq = ?, last_seq = ? WHERE scene = 's1' AND id = 'a2'", tuple(a1))
        again = await st.command(adjust("a2"))
        assert again == second
        assert {event["command"] for event in again["events"]} == {"a2"}

        # a row forged for an id never sent: verify names it, and the first send is applied
        raw(
            db,
            "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) VALUES ('s1', 'st', 'a3', '', ?, ?)",
            tuple(a1),
        )
        checked = cli("verify", "--db", db, "s1")
        assert checked.returncode == 1, checked.stdout + checked.stderr
        assert "commands index" in checked.stdout and "'a2'" in checked.stdout
        fresh = await st.command(adjust("a3"))
        assert fresh["ok"] and fresh["version"] == second["version"] + 1
        assert {event["command"] for event in fresh["events"]} == {"a3"}
    backend.close()
    logged = raw(db, "SELECT command, count(*) FROM events WHERE scene = 's1' GROUP BY command")
    assert {command: n for command, n in logged if command in ("a1", "a2", "a3")} == {"a1": 1, "a2": 1, "a3": 1}
    # a2's row still disagrees: verify goes on naming it; a3's was replaced by the true one
    checked = cli("verify", "--db", db, "s1")
    assert checked.returncode == 1 and "'a3'" not in checked.stdout
