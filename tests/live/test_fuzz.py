"""Fuzzed frames against a real server: whatever a connection sends (random text and JSON, frames of
emoji, nesting deeper than any decoder reads, QR codes too long to draw, commands and requests with
random fields), each frame gets its answer or is refused in words, the connection goes on, nothing
is appended that the rules did not accept, and the log stays whole."""

from __future__ import annotations

import json
import typing
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from domain.commands import AnyCommand
from server import connection
from server.app import running
from server.backend import open_backend
from server.store.base import first_problem
from server.wire import CONTROL_TYPES, Limits
from tests.live.conftest import seed

VERBS = sorted({cls.__struct_config__.tag for cls in typing.get_args(AnyCommand)} | CONTROL_TYPES)  # type: ignore[misc]
KNOWN = {"error", "result", "pong", "welcome", "view", "commit", "subscribed", "presence", "qr", "tokens",
         "invited", "revoked", "document", "replay", "forked", "scene_created"}  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
frames = st.one_of(
    st.text(max_size=200),
    json_values.map(json.dumps),
    st.integers(500, 40_000).map(lambda n: "[" * n + "]" * n),
    st.integers(500, 40_000).map(lambda n: '{"type": "ping", "id": ' + "[" * n + "]" * n + "}"),
    st.integers(1, 30_000).map(lambda n: json.dumps({"type": "ping", "id": "😀" * n}, ensure_ascii=False)),
    st.text(min_size=300, max_size=3_000).map(lambda t: json.dumps({"type": "qr", "text": t}, ensure_ascii=False)),
    st.fixed_dictionaries(
        {"type": st.sampled_from(VERBS), "id": st.text(max_size=20) | st.integers()},
        optional={
            "challenge": st.text(max_size=10),
            "character": json_values,
            "bid": json_values,
            "since": st.integers(-5, 10**6),
            "actor": st.sampled_from(["st", "sam", "juan", "nobody"]),
        },
    ).map(lambda body: json.dumps(body, ensure_ascii=False)),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, min_size=1, max_size=12))
def test_any_frames_get_answers_and_leave_the_log_whole(batch: list[str]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "STRIKES", (1000.0, 1000))  # judge every frame; floods are tested elsewhere
        anyio.run(_exchange, batch)


async def _exchange(batch: list[str]) -> None:
    backend = open_backend(None)
    seed(backend)
    head = backend.store.head("s1")[0]
    token, _ = backend.tokens.issue("s1", "st")
    limits = Limits(rate=10_000, burst=10_000)
    async with running(backend, limits=limits) as live, connect(live.url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for n, frame in enumerate(batch):
            await ws.send(frame)
            await ws.send(json.dumps({"type": "ping", "id": f"alive-{n}"}))
            with anyio.fail_after(10):
                while True:
                    message: dict[str, Any] = json.loads(await ws.recv())
                    assert message["type"] in KNOWN, message
                    if message["type"] == "error":
                        assert message["code"] and message["message"]
                    if message == {"type": "pong", "id": f"alive-{n}"}:
                        break
    assert first_problem(backend.store, "s1") is None
    appended = list(backend.store.read("s1", after=head))
    assert all(record.actor == "st" for record in appended)  # only what the ST's token may do
