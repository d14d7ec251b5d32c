"""An NPC the server answers for (``auto``) rolls its own dice in a kony scene, naming no retest:
the Storyteller does nothing and the test is shown once the player rolls."""

from __future__ import annotations

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import until

pytestmark = pytest.mark.anyio


async def test_an_auto_npc_rolls_by_itself() -> None:
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [
        {"type": "open_scene", "ruleset": "kony"},
        {"type": "add_character", "character": {"id": "sam", "name": "Sam", "traits": {"physical": {"Quick": 2}}}},
        {
            "type": "add_character",
            "character": {"id": "rat", "name": "Rat", "npc": True, "auto": True, "traits": {"physical": {"Wiry": 1}}},
        },
    ]
    for n, body in enumerate(setup):
        command = {"id": f"s{n}", "scene": "k", "actor": "st", **body}
        assert service.handle(parse_command(msgspec.json.encode(command))).error is None
    st_token, _ = backend.tokens.issue("k", "st")
    sam_token, _ = backend.tokens.issue("k", "player", "sam")
    async with (
        running(backend) as live,
        Client(live.url, st_token) as st,
        Client(live.url, sam_token, keep=True) as sam,
    ):
        await sam.subscribe()
        declared = await sam.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "category": "physical",
                "targets": ["rat"],
                "bid": ["Quick"],
                "effect": {"kind": "damage", "amount": 1, "type": "bashing"},
            }
        )
        assert declared["ok"]
        assert (await st.send({"type": "bid", "challenge": "c", "character": "rat", "bid": ["Wiry"]}))["ok"]
        await until(sam, lambda c: c.view["challenges"]["c"].get("rolled") == ["rat"])
        assert "rolls" not in sam.view["challenges"]["c"]  # the rat's dice stay sealed from Sam
        assert (await sam.send({"type": "roll", "challenge": "c"}))["ok"]
        await until(sam, lambda c: bool(c.view["challenges"]["c"].get("tests")))
        if sam.view["challenges"]["c"]["status"] == "retest_window":  # Sam lost, and has double the pool
            assert (await sam.send({"type": "pass", "challenge": "c"}))["ok"]
        await until(sam, lambda c: c.view["challenges"]["c"].get("status") == "resolved")
        test = sam.view["challenges"]["c"]["tests"][0]
        assert len(test["dice"]["rat"]) == 1 and all(1 <= d <= 3 for d in test["dice"]["rat"])
