"""What a connection may send, and what stops it: hello in time, every frame against the rate limit,
limits counted in bytes, garbage floods closed, QR codes only for the Storyteller and bounded,
tokens that end (revoked anywhere, or expired) stopping their connections and subscriptions."""

from __future__ import annotations

import json
from datetime import timedelta

import anyio
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from server import connection
from server.app import Running, running
from server.backend import Backend
from server.wire import Limits
from tests.live.conftest import until
from tests.live.test_guards import hello, recv, still_alive

pytestmark = pytest.mark.anyio


async def closed_with(ws: ClientConnection, seconds: float = 5.0) -> tuple[int, str]:
    """Read until the server closes the connection: its close code and reason."""
    with anyio.fail_after(seconds), pytest.raises(ConnectionClosed) as closed:
        while True:
            await ws.recv()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


class TestFrames:
    async def test_a_silent_connection_is_closed(self, live: Running, monkeypatch: pytest.MonkeyPatch) -> None:
        """A connection that never says hello is closed (1008) with the reason."""
        monkeypatch.setattr(connection, "HELLO_WITHIN", 0.2)
        async with connect(live.url) as ws:
            code, reason = await closed_with(ws)
        assert code == 1008 and "hello" in reason

    async def test_every_frame_counts_against_the_rate(self, backend: Backend, tokens: dict[str, str]) -> None:
        """Malformed frames are rate-limited like any other: a flood of garbage gets rate_limited."""
        async with running(backend, limits=Limits(rate=10, burst=5)) as live:
            ws = await hello(live.url, tokens["sam"])
            for _ in range(12):
                await ws.send("not json")
            codes = [(await recv(ws))["code"] for _ in range(12)]
            assert codes.count("malformed") <= 6 and "rate_limited" in codes
            await anyio.sleep(0.6)
            await still_alive(ws)

    async def test_a_garbage_flood_closes_the_connection(self, live: Running, tokens: dict[str, str]) -> None:
        """A connection that keeps sending bad frames is closed (1008) with the reason; others go on."""
        other = await hello(live.url, tokens["juan"])
        ws = await hello(live.url, tokens["sam"])
        for _ in range(60):
            await ws.send("{not json")
        code, reason = await closed_with(ws)
        assert code == 1008 and "too many bad" in reason
        await still_alive(other)

    async def test_the_frame_limit_counts_bytes(self, live: Running, tokens: dict[str, str]) -> None:
        """64 KiB is bytes: 20,000 emoji (80 KB) are too large although they are 20,000 characters."""
        ws = await hello(live.url, tokens["sam"])
        await ws.send(json.dumps({"type": "ping", "id": "😀" * 20_000}, ensure_ascii=False))
        error = await recv(ws, "error")
        assert error["code"] == "too_large" and "65536" in error["message"]
        await still_alive(ws)

    async def test_welcome_always_says_the_server_and_its_limits(self, live: Running, tokens: dict[str, str]) -> None:
        """The defaults are in ``welcome`` too."""
        async with connect(live.url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": tokens["sam"]}))
            welcome = await recv(ws, "welcome")
        assert welcome["server"].startswith("justicar") and welcome["expires_at"] is None
        assert welcome["limits"] == {"max_frame": 65536, "rate": 50.0, "burst": 100}

    async def test_since_past_the_head_is_refused(self, live: Running, tokens: dict[str, str]) -> None:
        """A subscriber cannot claim to have seen events that do not exist."""
        ws = await hello(live.url, tokens["sam"])
        await ws.send(json.dumps({"type": "subscribe", "since": 99}))
        error = await recv(ws, "error")
        assert error["code"] == "bad_since" and "last event is 4" in error["message"]
        await ws.send(json.dumps({"type": "subscribe", "since": 4}))
        assert (await recv(ws, "subscribed"))["version"] == 4


class TestQrCodes:
    async def test_only_the_storyteller_and_bounded(self, live: Running, tokens: dict[str, str]) -> None:
        """QR codes are the Storyteller's (for invitations); text past the limit is refused clearly."""
        for who in ("sam", "spectator"):
            ws = await hello(live.url, tokens[who])
            await ws.send(json.dumps({"type": "qr", "text": "http://x/play"}))
            assert (await recv(ws, "error"))["code"] == "forbidden"
        async with Client(live.url, tokens["st"]) as st:
            long = await st.request({"type": "qr", "text": "x" * 501}, "error")
            assert long["code"] == "too_long" and "500" in long["message"]
            code = await st.request({"type": "qr", "text": "http://192.168.1.5:8765/play#token=jt_x"}, "qr")
            assert code["svg"].startswith('<svg xmlns="http://www.w3.org/2000/svg"')


class TestTokensEnd:
    async def test_the_console_cannot_revoke_its_own_token(self, live: Running, tokens: dict[str, str]) -> None:
        """Revoking one's own token from the console is refused; the console goes on."""
        async with Client(live.url, tokens["st"]) as st:
            own = st.welcome["token_id"]
            refused = await st.request({"type": "revoke", "token_id": own}, "error")
            assert refused["code"] == "own_token"
            assert (await st.request({"type": "tokens"}, "tokens"))["tokens"]

    async def test_a_subscription_stops_when_its_token_is_revoked_elsewhere(
        self, live: Running, backend: Backend, tokens: dict[str, str]
    ) -> None:
        """A player's subscription is closed (4003) within a second of its token being revoked from
        the command line, and the room no longer counts it."""
        sam = await connect(live.url)
        await sam.send(json.dumps({"type": "hello", "token": tokens["sam"]}))
        await sam.send(json.dumps({"type": "subscribe", "since": 4}))
        await recv(sam, "subscribed")
        assert len(live.hub.rooms["s1"].subscribers) == 1
        grant = next(g for g in backend.tokens.list("s1") if g.character == "sam")
        backend.tokens.revoke(grant.token_id)
        started = anyio.current_time()
        code, _ = await closed_with(sam, 2.0)
        assert code == 4003 and anyio.current_time() - started < 1.5
        assert live.hub.rooms["s1"].subscribers == []

    async def test_an_invitation_expires(self, live: Running, backend: Backend, tokens: dict[str, str]) -> None:
        """A token invited with ``expires`` works until then; then its connection is closed and its
        hello refused."""
        async with Client(live.url, tokens["st"]) as st:
            invited = await st.request({"type": "invite", "role": "spectator", "expires": 1}, "invited")
            assert invited["grant"]["expires_at"]
            watcher = await hello(live.url, invited["token"])
            code, _ = await closed_with(watcher, 3.0)
            assert code == 4003
            async with connect(live.url) as again:
                await again.send(json.dumps({"type": "hello", "token": invited["token"]}))
                assert (await recv(again, "error"))["code"] == "bad_token"

    async def test_an_expired_token_is_refused_at_hello(self, live: Running, backend: Backend) -> None:
        """A token issued already past its time never gets in."""
        token, _ = backend.tokens.issue("s1", "spectator", expires=timedelta(seconds=-1))
        async with connect(live.url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            assert (await recv(ws, "error"))["code"] == "bad_token"


class TestPushesStop:
    async def test_a_revoked_player_sees_no_more_private_updates(
        self, live: Running, backend: Backend, tokens: dict[str, str]
    ) -> None:
        """After revocation no update about the character reaches the old subscription."""
        async with Client(live.url, tokens["st"]) as st, Client(live.url, tokens["sam"], keep=True) as sam:
            await sam.subscribe()
            grant = next(g for g in backend.tokens.list("s1") if g.character == "sam")
            await st.request({"type": "revoke", "token_id": grant.token_id}, "revoked")
            await until(sam, lambda c: c.closed_by_server is not None)
            seen = len(sam.received or [])
            await st.send({"type": "adjust", "character": "sam", "changes": {"willpower": 5}, "reason": "secret"})
            await anyio.sleep(0.2)
            assert len(sam.received or []) == seen
