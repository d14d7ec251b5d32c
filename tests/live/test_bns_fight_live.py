"""The bns fight of examples/bns-fight.jsonl on a real server: the Storyteller (who plays the mook),
three players (Julian's, Edward's, and the ghoul's, an NPC the ST hands to a player for the
night) and a spectator, each on its own connection, each command sent by its own player. Every
client sees the round, the hold on Julian's escape and its failure as they happen
(bns:fair-escape-hold); no pool reaches another side before its test; the log replays at every
step as each player, and the audit verifies it."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from domain.log import to_wire
from projections.audit import audit
from projections.replay import replay
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import at_version
from tests.live.test_bns_table import pool_leaks

pytestmark = pytest.mark.anyio
SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "bns-fight.jsonl"
PLAYERS = ("julian", "edward", "ghoul")


def _commands() -> list[dict[str, Any]]:
    lines = [line for line in SCRIPT.read_text(encoding="utf-8").splitlines() if line.strip() and line[0] != "#"]
    return [json.loads(line) for line in lines]


async def test_the_bns_fight_live() -> None:
    commands = _commands()
    setup, play = commands[:5], commands[5:]
    backend = open_backend(None)
    service = SceneService(backend.store)
    for body in setup:
        body = {k: v for k, v in body.items() if k != "at"}
        assert service.handle(parse_command(msgspec.json.encode(body))).error is None
    tokens = {who: backend.tokens.issue("alley", "player", who)[0] for who in PLAYERS}
    tokens["st"] = backend.tokens.issue("alley", "st")[0]
    tokens["*"] = backend.tokens.issue("alley", "spectator")[0]

    async with running(backend) as live, AsyncExitStack() as stack:
        c = {who: await stack.enter_async_context(Client(live.url, token, keep=True)) for who, token in tokens.items()}
        for client in c.values():
            await client.subscribe()
        # the pool a page previews counts the maneuver's penalty: Strength 3 + Brawl 2 - 3 = 2
        ask = {"type": "pool", "pool": {"attack": "unarmed"}, "maneuver": "targeted_attack"}
        preview = await c["edward"].request(ask, "pool")
        assert preview["pool"]["total"] == 2 and preview["pool"]["modifiers"][0]["rule"] == "bns:targeted-attack"
        held_seen: dict[str, bool] = {}
        last = 0
        for body in play:
            who = "ghoul" if body.get("character") == "ghoul" else body["actor"]  # the ghoul's player
            frame = {k: v for k, v in body.items() if k not in ("id", "scene", "actor", "at")}
            result = await c[who].send(frame)
            if body["id"] == "f-48":  # the mook's late attack on Julian, who has escaped
                assert result["error"]["code"] == "escaped" and result["error"]["rule"] == "bns:fair-escape-hold"
                continue
            assert result["ok"], (body["id"], result.get("error"))
            last = result["version"]
            if any(e["type"] == "fair_escape_held" for e in result["events"]):
                for viewer in c:  # every client is told of the hold, in words
                    view = await at_version(c[viewer], last)
                    julian = view["characters"]["julian"]["conditions"]
                    held_seen[viewer] = julian["fair_escape"] == "held" and julian["escape_held_by"] in (
                        ["ghoul"],
                        ["mook"],
                    )
        assert held_seen == {"julian": True, "edward": True, "ghoul": True, "st": True, "*": True}
        for viewer, client in c.items():
            view = await at_version(client, last)
            assert view["characters"]["julian"]["conditions"]["fair_escape"] == "escaped", viewer
            assert view["round"]["phase"] == "over"
            if viewer != "st":  # the Storyteller sees every pool
                assert pool_leaks(client.received or [], viewer) == [], viewer
            kinds = [e["type"] for m in client.received or [] for e in m.get("events") or []]
            for kind in ("fair_escape_declared", "attack_intended", "fair_escape_held", "fair_escape_failed"):
                assert kind in kinds, (viewer, kind)
        assert "willpower" not in c["*"].view["characters"]["julian"]  # a spectator sees the escape, not the sheet
        assert c["julian"].view["characters"]["julian"]["willpower"] == 2

    records = list(backend.store.read("alley"))
    for viewer in (*PLAYERS, "*"):
        steps = list(replay(records, viewer))
        assert len(steps) == len(records)
        words = "\n".join(step.summary for step in steps)
        assert "Julian's escape is held by The ghoul" in words and "after everyone acted, Julian escapes" in words
        held = next(step for step in steps if step.type == "fair_escape_held")
        assert held.rule == "bns:fair-escape-hold" and held.words
    report = audit([to_wire(r) for r in records])
    assert report.chain.ok and report.chain.events == len(records)
    assert any(section.title.startswith("Round 3") for section in report.timeline)
