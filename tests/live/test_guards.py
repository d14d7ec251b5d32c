"""Who may do what, and frames that are wrong: each gets an error, nothing is appended, and the
connection goes on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from structlog.testing import capture_logs
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.client import Client, Refused
from server.app import Running, running
from server.backend import Backend
from server.wire import Limits

pytestmark = pytest.mark.anyio


async def recv(ws: ClientConnection, kind: str | None = None) -> dict[str, Any]:
    """The next message (of ``kind``, skipping pushes), bounded in time."""
    with anyio.fail_after(5):
        while True:
            message = json.loads(await ws.recv())
            if kind is None or message["type"] == kind:
                return message


async def hello(url: str, token: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    assert (await recv(ws))["type"] == "welcome"
    return ws


@pytest.fixture
async def sam(live: Running, tokens: dict[str, str]) -> AsyncIterator[ClientConnection]:
    ws = await hello(live.url, tokens["sam"])
    yield ws
    await ws.close()


async def still_alive(ws: ClientConnection) -> None:
    await ws.send(json.dumps({"type": "ping", "id": "alive?"}))
    assert await recv(ws, "pong") == {"type": "pong", "id": "alive?"}


def declare(**overrides: Any) -> str:
    body = {
        "type": "declare",
        "id": "d1",
        "challenge": "c",
        "kind": "contested",
        "targets": ["juan"],
        "category": "physical",
        "bid": ["Brawny"],
        **overrides,
    }
    return json.dumps(body)


class TestWhoMayDoWhat:
    async def test_forged_actor(self, sam: ClientConnection, backend: Backend) -> None:
        """A command naming another actor is refused forbidden, as a result carrying its id; nothing
        appended; the connection goes on."""
        await sam.send(declare(actor="juan"))
        result = await recv(sam, "result")
        error = result["error"]
        assert result["id"] == "d1" and error["code"] == "forbidden" and "as juan" in error["message"]
        await sam.send(declare(character="juan", targets=["sam"], bid=["Brutal"]))
        result = await recv(sam, "result")
        assert result["error"]["code"] == "forbidden"
        assert backend.store.head("s1")[0] == 4
        await still_alive(sam)

    async def test_wrong_role_verbs(self, live: Running, sam: ClientConnection, tokens: dict[str, str]) -> None:
        """Players do not use ST verbs; spectators do not act at all."""
        await sam.send(json.dumps({"type": "add_character", "id": "x", "character": {"id": "z", "name": "Z"}}))
        assert (await recv(sam, "result"))["error"]["code"] == "forbidden"
        await sam.send(json.dumps({"type": "invite", "role": "spectator"}))
        assert (await recv(sam, "error"))["code"] == "forbidden"
        watcher = await hello(live.url, tokens["spectator"])
        await watcher.send(declare())
        assert (await recv(watcher, "result"))["error"]["code"] == "forbidden"
        await still_alive(watcher)
        await watcher.close()

    async def test_commands_need_hello(self, live: Running) -> None:
        """Nothing but hello and ping before authenticating."""
        async with connect(live.url) as ws:
            await ws.send(declare())
            refused = await recv(ws, "result")
            assert refused["error"]["code"] == "not_authenticated" and refused["id"] == "d1"
            await ws.send(json.dumps({"type": "hello", "token": "jt_nope"}))
            assert (await recv(ws, "error"))["code"] == "bad_token"
            await still_alive(ws)

    async def test_another_scene(self, sam: ClientConnection) -> None:
        """A token is for one scene."""
        await sam.send(json.dumps({"type": "subscribe", "scene": "elsewhere"}))
        assert (await recv(sam, "error"))["code"] == "forbidden"
        await sam.send(declare(scene="elsewhere"))
        assert (await recv(sam, "result"))["error"]["code"] == "forbidden"


class TestTokens:
    async def test_invite_and_revoke_over_the_socket(self, live: Running, tokens: dict[str, str]) -> None:
        """The ST invites (the token is shown once, only its hash kept) and revokes: the revoked
        token's connections are closed and it cannot say hello again."""
        async with Client(live.url, tokens["st"]) as st:
            invited = await st.request({"type": "invite", "role": "player", "character": "juan"}, "invited")
            token = invited["token"]
            assert invited["grant"]["character"] == "juan" and token not in json.dumps(invited["grant"])
            juan = await hello(live.url, token)
            listed = await st.request({"type": "tokens"}, "tokens")
            assert invited["grant"]["token_id"] in [g["token_id"] for g in listed["tokens"]]
            assert all("token" not in g for g in listed["tokens"])
            revoked = await st.request({"type": "revoke", "token_id": invited["grant"]["token_id"]}, "revoked")
            assert revoked["grant"]["revoked"] is True
            with anyio.fail_after(5), pytest.raises(ConnectionClosed) as closed:
                while True:
                    await juan.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
            with pytest.raises(Refused):
                async with Client(live.url, token):
                    pass
            bad = await st.request({"type": "invite", "role": "player", "character": "nobody"}, "error")
            assert bad["code"] == "unknown_character"

    async def test_tokens_are_stored_as_hashes(self, backend: Backend, tokens: dict[str, str]) -> None:
        """Nothing the server keeps contains a token."""
        stored = json.dumps([g.__struct_fields__ and list(g.__struct_fields__) for g in backend.tokens.list("s1")])
        assert all(token not in stored for token in tokens.values())
        assert backend.tokens.check(tokens["sam"]) is not None

    async def test_revoked_from_the_command_line_stops_commands(self, sam: ClientConnection, backend: Backend) -> None:
        """A token revoked behind the server's back stops its connection within a second (4003),
        and cannot say hello again."""
        grant = next(g for g in backend.tokens.list("s1") if g.character == "sam")
        backend.tokens.revoke(grant.token_id)
        with anyio.fail_after(1.5), pytest.raises(ConnectionClosed) as closed:
            while True:
                await sam.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
        assert backend.store.head("s1")[0] == 4


class TestBadFrames:
    @pytest.mark.parametrize(
        ("frame", "code"),
        [
            ("not json", "malformed"),
            ("[1, 2]", "malformed"),
            ('{"no": "type"}', "malformed"),
            ('{"type": "summon"}', "unknown_message"),
            ('{"type": "subscribe", "since": -1}', "malformed"),
            ('{"type": "declare", "id": "x", "challenge": "c"}', "malformed"),
            ("[" * 32_000 + "]" * 32_000, "malformed"),
            ('{"type": "ping", "id": ' + "[" * 32_000 + "]" * 32_000 + "}", "malformed"),
        ],
    )
    async def test_malformed(self, sam: ClientConnection, backend: Backend, frame: str, code: str) -> None:
        """A bad frame gets an error naming the problem (a command: a result carrying its id); the
        connection goes on."""
        await sam.send(frame)
        reply = await recv(sam)
        error = reply["error"] if reply["type"] == "result" else reply
        assert error["code"] == code and error["message"]
        assert reply["type"] == ("result" if '"declare"' in frame else "error")
        assert backend.store.head("s1")[0] == 4
        await still_alive(sam)

    async def test_binary_and_oversize(self, sam: ClientConnection) -> None:
        """Binary frames and frames over 64 KiB are refused; the connection goes on."""
        await sam.send(b'{"type": "ping"}')
        assert (await recv(sam, "error"))["code"] == "malformed"
        await sam.send(json.dumps({"type": "ping", "id": "x" * 70_000}))
        error = await recv(sam, "error")
        assert error["code"] == "too_large" and "65536" in error["message"]
        await still_alive(sam)

    async def test_flood(self, backend: Backend, tokens: dict[str, str]) -> None:
        """Past the rate limit, messages are refused with rate_limited; then the connection recovers."""
        async with running(backend, limits=Limits(rate=10, burst=5)) as live:
            ws = await hello(live.url, tokens["sam"])
            for n in range(20):
                await ws.send(json.dumps({"type": "ping", "id": str(n)}))
            replies = [await recv(ws) for _ in range(20)]
            assert [r["type"] for r in replies].count("pong") <= 6
            assert {r["code"] for r in replies if r["type"] == "error"} == {"rate_limited"}
            await anyio.sleep(0.3)
            await still_alive(ws)
            await ws.close()


class TestPresenceLogsShutdown:
    async def test_presence(self, live: Running, tokens: dict[str, str]) -> None:
        """Subscribers are told who is connected (roles and characters, never tokens)."""
        async with Client(live.url, tokens["st"], keep=True) as st:
            await st.subscribe()
            async with Client(live.url, tokens["sam"]) as sam:
                await sam.subscribe()
                assert st.received is not None

                def latest() -> list[dict[str, Any]]:
                    assert st.received is not None
                    return [m for m in st.received if m["type"] == "presence"][-1]["connected"]

                with anyio.fail_after(5):
                    while {p["role"] for p in latest()} != {"st", "player"}:
                        await anyio.sleep(0.01)
                assert {"role": "player", "character": "sam", "connections": 1} in latest()
            with anyio.fail_after(5):
                while {p["role"] for p in latest()} != {"st"}:
                    await anyio.sleep(0.01)
            assert all(token not in json.dumps(st.received) for token in tokens.values())

    async def test_one_log_line_per_command_without_secrets(self, sam: ClientConnection) -> None:
        """Each command logs scene, actor, verb, outcome and latency; never a sign."""
        with capture_logs() as logs:
            await sam.send(declare())
            await recv(sam, "result")
            await sam.send(json.dumps({"type": "throw", "id": "t1", "challenge": "c", "sign": "scissors"}))
            await recv(sam, "result")
        lines = [entry for entry in logs if entry["event"] == "command"]
        assert [(e["verb"], e["outcome"]) for e in lines] == [("declare", "ok"), ("throw", "wrong_phase")]
        assert all(e["scene"] == "s1" and e["actor"] == "sam" and e["latency_ms"] >= 0 for e in lines)
        assert "scissors" not in json.dumps(logs, default=str)

    async def test_shutdown_says_goodbye_and_keeps_what_was_acknowledged(
        self, backend: Backend, tokens: dict[str, str]
    ) -> None:
        """On shutdown clients get goodbye and a going-away close; acknowledged commands are stored."""
        async with running(backend) as live:
            ws = await hello(live.url, tokens["sam"])
            await ws.send(declare())
            acknowledged = await recv(ws, "result")
        goodbye = await recv(ws, "goodbye")
        assert "shutting down" in goodbye["reason"]
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert backend.store.head("s1")[0] == acknowledged["version"]
