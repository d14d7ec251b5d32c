"""Revoking a link revokes every link it gave: a Storyteller's link invites players and a spectator
and forks a what-if whose console invites a spectator of its own; revoked (from another console, or
from the command line, another process), every one of those links is cut off (4003) and refused at
hello, and the console says which went with it. A console whose link was revoked elsewhere a moment
ago invites nobody, and invitations sent while the revocation lands never give a link that works
afterwards. On SQLite and on PostgreSQL, with a real server and real websocket clients."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from playwright.async_api import Browser, expect

from server import hub
from server.app import Running, running
from server.backend import Backend, open_backend
from server.wire import Limits
from tests.live.conftest import seed
from tests.live.faults import Peer, cli, peer
from tests.live.test_processes import refused_hello
from tests.live.test_web import browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]

KINDS = ["sqlite", "postgres"]
CLOSED = 5.0
"""Seconds within which every connection of a revoked link is closed (the command line's
revocation is seen by the server's watch, every 0.5 s)."""


@pytest.fixture(params=KINDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The ``--db`` of the server (and of the command line that revokes)."""
    if request.param == "sqlite":
        return str(tmp_path / "j.db")
    return str(request.getfixturevalue("postgres_db"))


@pytest.fixture
async def served_on(db: str) -> AsyncIterator[tuple[Backend, Running]]:
    """Scene ``s1`` (Sam, Juan and a guard), served from ``db``; no rate limit in the way."""
    backend = open_backend(db)
    seed(backend)
    try:
        async with running(backend, limits=Limits(rate=10_000, burst=10_000)) as live:
            yield backend, live
    finally:
        backend.close()


async def request(connection: Peer, body: dict[str, object], reply: str) -> dict[str, object]:
    """A control message and its answer (``reply``, or an ``error``)."""
    mark = len(connection.messages)
    await connection.send(body)
    return await connection.wait(lambda m: m["type"] in (reply, "error"), reply, after=mark)


def token_of(answer: dict[str, object]) -> str:
    assert "token" in answer, answer
    return str(answer["token"])


def id_of(backend: Backend, token: str) -> str:
    grant = backend.tokens.check(token)
    assert grant is not None
    return grant.token_id


def counted(said: str) -> int:
    """How many tokens ``justicar scene revoke`` says it revoked with the one asked for."""
    found = re.search(r"and (\d+) tokens? it had issued", said)
    return int(found[1]) if found else 0


async def closed_4003(connections: list[Peer]) -> list[int | None]:
    """Each connection's close code, once every one is closed (within ``CLOSED`` seconds)."""
    with anyio.fail_after(CLOSED):
        for connection in connections:
            await connection.closed.wait()
    return [connection.close_code for connection in connections]


class TestCascade:
    @pytest.mark.parametrize("how", ["console", "command line"])
    async def test_every_link_a_revoked_link_gave_is_cut_off(
        self, db: str, served_on: tuple[Backend, Running], how: str
    ) -> None:
        """The Storyteller's link invites Sam, Juan and a spectator and forks a what-if, whose own
        link invites a spectator there. Revoking the first link, from another Storyteller's console
        or from the command line, revokes all five it gave, closes all six links' connections
        (4003), and every one of them is refused at hello after."""
        backend, live = served_on
        link = backend.tokens.issue("s1", "st")[0]
        other = backend.tokens.issue("s1", "st")[0]
        async with contextlib.AsyncExitStack() as stack:
            st = await stack.enter_async_context(peer(live.url, link))
            gave = [
                token_of(await request(st, {"type": "invite", "role": "player", "character": "sam"}, "invited")),
                token_of(await request(st, {"type": "invite", "role": "player", "character": "juan"}, "invited")),
                token_of(await request(st, {"type": "invite", "role": "spectator"}, "invited")),
                token_of(await request(st, {"type": "fork", "at": 4, "scene": "what-if"}, "forked")),
            ]
            what_if = await stack.enter_async_context(peer(live.url, gave[-1]))
            gave.append(token_of(await request(what_if, {"type": "invite", "role": "spectator"}, "invited")))
            given = [await stack.enter_async_context(peer(live.url, token, subscribe=True)) for token in gave]
            ids = {id_of(backend, token) for token in gave}
            assert len(ids) == 5

            link_id = next(m for m in st.messages if m["type"] == "welcome")["token_id"]
            if how == "console":
                async with peer(live.url, other) as console:
                    revoked = await request(console, {"type": "revoke", "token_id": link_id}, "revoked")
                assert revoked["type"] == "revoked", revoked
                cascaded = revoked["cascaded"]
                assert isinstance(cascaded, list) and {g["token_id"] for g in cascaded} == ids
            else:
                done = await anyio.to_thread.run_sync(lambda: cli("scene", "revoke", "--db", db, link_id))
                assert done.returncode == 0, done.stderr
                assert counted(done.stdout) == 5, done.stdout
                assert all(token_id in done.stdout for token_id in ids)

            assert await closed_4003([st, what_if, *given]) == [4003] * 7
        for token in [link, *gave]:
            assert await refused_hello(live.url, token), "a link given by a revoked link still says hello"
        async with peer(live.url, other) as untouched:  # another Storyteller's link goes on
            assert (await request(untouched, {"type": "ping", "id": "p"}, "pong"))["type"] == "pong"


class TestConsole:
    async def test_the_console_says_which_links_went_with_the_one_it_revoked(
        self, live: Running, backend: Backend, tokens: dict[str, str], browser: Browser
    ) -> None:
        """Another Storyteller's link has invited two spectators; revoked from the console (asked,
        then confirmed), the console says the two links it gave went with it, and that link's
        page is cut off."""
        deputy = backend.tokens.issue("s1", "st")[0]
        async with peer(live.url, deputy) as other:
            for _ in range(2):
                assert (await request(other, {"type": "invite", "role": "spectator"}, "invited"))["type"] == "invited"
            st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
            await st_view(st, "Invitations")
            await st.get_by_role("button", name="List links").click()
            table = st.locator("#invitations table")
            await table.get_by_role("button", name=re.compile("^Revoke the Storyteller's link at ")).click()
            await table.get_by_role("button", name=re.compile("^Confirm: revoke the Storyteller's link at ")).click()
            said = "and the 2 links it gave: those pages have stopped."
            await expect(st.locator("#invitations")).to_contain_text(said)
            assert await closed_4003([other]) == [4003]
        assert await refused_hello(live.url, deputy)


class TestRace:
    async def test_a_console_whose_link_was_just_revoked_elsewhere_invites_nobody(
        self, db: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Revoked by another process a moment ago (before this server has looked: its watch is
        slowed here to an hour), the Storyteller's console asks to invite: refused ``bad_token``,
        in words, its connection closed (4003), and no link made."""
        monkeypatch.setattr(hub, "WATCH", 3600.0)
        backend = open_backend(db)
        seed(backend)
        try:
            link = backend.tokens.issue("s1", "st")[0]
            async with running(backend) as live, peer(live.url, link) as st:
                elsewhere = open_backend(db)
                try:
                    elsewhere.tokens.revoke(id_of(backend, link))
                finally:
                    elsewhere.close()
                refused = await request(st, {"type": "invite", "role": "player", "character": "sam"}, "invited")
                assert refused["type"] == "error" and refused["code"] == "bad_token", refused
                assert refused["message"] == "Your token has been revoked or has expired: it can give no more links."
                assert await closed_4003([st]) == [4003]
            assert [g.role for g in backend.tokens.list("s1")] == ["st"]
        finally:
            backend.close()

    async def test_invitations_sent_as_the_revocation_lands_never_work(
        self, db: str, served_on: tuple[Backend, Running]
    ) -> None:
        """The Storyteller's console keeps inviting, one invitation after another without waiting,
        while the command line (another process) revokes its link. Whatever links came back before
        the connection was cut, none of them works afterwards, and the command line counted every
        one."""
        backend, live = served_on
        link = backend.tokens.issue("s1", "st")[0]
        link_id = id_of(backend, link)
        async with peer(live.url, link) as st:
            sent = 0

            async def invite_until_cut() -> None:
                nonlocal sent
                with contextlib.suppress(Exception):  # the connection closed under a send
                    while not st.closed.is_set():
                        await st.send({"type": "invite", "role": "spectator"})
                        sent += 1
                        await anyio.sleep(0.01)

            async with anyio.create_task_group() as tg:
                tg.start_soon(invite_until_cut)
                await st.wait(lambda m: m["type"] == "invited", "a first invitation")
                done = await anyio.to_thread.run_sync(lambda: cli("scene", "revoke", "--db", db, link_id))
                with anyio.fail_after(CLOSED):
                    await st.closed.wait()
        assert done.returncode == 0, done.stderr
        invited = [str(m["token"]) for m in st.messages if m["type"] == "invited"]
        assert st.close_code == 4003 and sent > len(invited) > 0
        refused = [m for m in st.messages if m["type"] == "error"]
        assert all(m["code"] == "bad_token" for m in refused), refused
        working = [token for token in invited if not await refused_hello(live.url, token)]
        assert working == [], f"{len(working)} of {len(invited)} links given as the revocation landed still work"
        assert counted(done.stdout) >= len(invited), done.stdout
