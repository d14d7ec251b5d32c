"""A kony roll stays sealed on every path a viewer can reach it by before the other side rolls
(kony:d3-test): the push, a catch-up from the first event, a page of history with its words, the
Storyteller's replay as that viewer, and a player's replay once the scene is closed (where the
dice_rolled step itself stays sealed, as a throw's sign does; the reveal shows both)."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio
SCENE = "pier"
SAM_DICE = [1, 2, 1]
SETUP: list[dict[str, Any]] = [
    {"type": "open_scene", "ruleset": "kony", "title": "The pier"},
    *(
        {
            "type": "add_character",
            "character": {
                "id": who,
                "name": who.title(),
                "traits": {"physical": {trait: 3}},
                "abilities": {"Pugilism": 2} if who == "sam" else {"Dodge": 1},
            },
        }
        for who, trait in (("sam", "Brawny"), ("juan", "Tough"))
    ),
    {
        "type": "declare",
        "character": "sam",
        "challenge": "c",
        "kind": "contested",
        "category": "physical",
        "targets": ["juan"],
        "bid": ["Brawny"],
        "effect": {"kind": "damage", "amount": 1, "type": "bashing"},
    },
    {"type": "bid", "character": "juan", "challenge": "c", "bid": ["Tough"]},
]


async def test_sealed_dice_on_every_path() -> None:
    backend = open_backend(None)
    service = SceneService(backend.store)
    for n, body in enumerate(SETUP):
        command = {"id": f"s{n}", "scene": SCENE, "actor": "st", **body}
        assert service.handle(parse_command(msgspec.json.encode(command))).error is None
    tokens = {who: backend.tokens.issue(SCENE, "player", who)[0] for who in ("sam", "juan")}
    tokens["st"] = backend.tokens.issue(SCENE, "st")[0]
    tokens["*"] = backend.tokens.issue(SCENE, "spectator")[0]
    async with running(backend) as live, AsyncExitStack() as stack:
        follow = {
            who: await stack.enter_async_context(Client(live.url, token, keep=True, summaries=True))
            for who, token in tokens.items()
        }
        for client in follow.values():
            await client.subscribe()
        roll = {"type": "roll", "challenge": "c", "retests": [{"category": "ability", "name": "Pugilism"}]}
        sealed = await follow["sam"].send(roll)
        assert sealed["ok"] and [e["type"] for e in sealed["events"]] == ["dice_rolled"]
        version = sealed["version"]
        sam_dice = sealed["events"][0]["data"]["dice"]
        assert len(sam_dice) == 2  # 1 + Pugilism, drawn by the server

        # the push, and a catch-up from the first event, with words
        for who in ("juan", "*"):
            await at_version(follow[who], version)
            late = await stack.enter_async_context(Client(live.url, tokens[who], keep=True, summaries=True))
            await late.subscribe(since=0)
            await at_version(late, version)
            for client in (follow[who], late):
                frames = json.dumps(client.received)
                assert "Pugilism" not in frames and f'"dice": {json.dumps(sam_dice)}' not in frames, who
                assert late.view["challenges"]["c"]["rolled"] == ["sam"]
        assert follow["sam"].view["challenges"]["c"]["rolls"]["sam"]["dice"] == sam_dice
        own = json.dumps(follow["sam"].received)  # the roller's own frames carry what the others' lack
        assert "Pugilism" in own and f'"dice": {json.dumps(sam_dice)}' in own

        # a page of history, with its words
        page = await follow["juan"].request({"type": "history", "before": version + 1}, "history")
        text = json.dumps(page)
        assert page["type"] == "history" and "Pugilism" not in text and "rolls (sealed" in text

        # the Storyteller's replay as Juan, and as itself
        as_juan = await follow["st"].request({"type": "replay", "as": "juan", "view": True}, "replay")
        assert "Pugilism" not in json.dumps(as_juan) and as_juan["view"]["challenges"]["c"]["rolled"] == ["sam"]
        as_st = await follow["st"].request({"type": "replay"}, "replay")
        assert "Pugilism" in json.dumps(as_st)

        # Juan rolls: both dice are shown to everyone at once
        shown = await follow["juan"].send({"type": "roll", "challenge": "c"})
        revealed = next(e for e in shown["events"] if e["type"] == "test_revealed")
        assert revealed["data"]["dice"]["sam"] == sam_dice
        for who, client in follow.items():
            view = await at_version(client, shown["version"])
            assert view["challenges"]["c"]["tests"][0]["dice"]["sam"] == sam_dice, who

        # a player's own replay, once the scene is closed: the dice_rolled step stays sealed for Juan
        done = await follow["st"].send({"type": "close_scene"})
        assert done["ok"]
        mine = await follow["juan"].request({"type": "replay"}, "replay")
        steps = {step["type"]: step for step in mine["steps"]}
        assert "Pugilism" not in steps["dice_rolled"]["summary"] and "sealed" in steps["dice_rolled"]["summary"]
        assert "Sam" in steps["test_revealed"]["summary"]
