"""Tens (tests/rulesets/d10/), the ruleset kept in the tests, on a real server: the pages' descriptor
and rule table list it, and a round of it is played by the Storyteller and two players, each on its
own websocket, each command sent by its own player. The first side's d10s stay sealed from the other
until the reveal; the log replays and audits. ``justicar serve`` run as an operator would, with
``JUSTICAR_RULESETS=tests.rulesets.d10``, plays it too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from benchmarks.live import free_port
from clients.client import Client
from domain.commands import parse_command
from domain.evolve import fold
from domain.log import to_wire
from projections.audit import audit
from projections.replay import replay
from server.app import Running, running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
SCENE = "tens"
PUNCH = {"kind": "damage", "amount": 2, "type": "bashing"}
SETUP: list[dict[str, Any]] = [
    {"id": "open", "type": "open_scene", "ruleset": "d10", "title": "Tens", "options": {"d10": {"double_tens": True}}},
    {"id": "add-sam", "type": "add_character", "character": {"id": "sam", "name": "Sam", "skills": {"Brawl": 2},
                                                             "attributes": {"physical": 3, "social": 2, "mental": 2}}},
    {"id": "add-juan", "type": "add_character", "character": {"id": "juan", "name": "Juan", "skills": {"Dodge": 1},
                                                              "attributes": {"physical": 2, "social": 3, "mental": 4}}},
]  # fmt: skip


def get(web: str, path: str) -> Any:
    with urllib.request.urlopen(web + path, timeout=5) as reply:
        return json.loads(reply.read())


def d10_of(listed: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = [r for r in listed if r["name"] == "d10"]
    return found


async def test_the_descriptor_and_the_rule_table_list_it() -> None:
    """/rulesets.json: its title, its one option with its words, its die, its sheet fields;
    /rules.json: its rule ids with its document's words."""
    backend = open_backend(None)
    async with running(backend) as live:
        listed = await anyio.to_thread.run_sync(get, live.web, "/rulesets.json")
        table = await anyio.to_thread.run_sync(get, live.web, "/rules.json")
    d10 = d10_of(listed)
    assert d10["title"] == "Tens" and "default" not in d10
    assert d10["options"] == [
        {
            "name": "double_tens",
            "label": "Double tens",
            "default": False,
            "help": "Every 10 rolled counts as two successes",
        }
    ]
    assert d10["rules"]["family"] == "dice" and d10["rules"]["rounds"] is True
    assert d10["rules"]["die"]["size"] == 10 and d10["rules"]["die"]["successes"] == [8, 9, 10]
    assert [f["name"] for f in d10["sheet"]] == ["health", "attributes", "skills"]
    text = json.dumps(table)
    assert "d10:successes" in text and "Every 8, 9 or 10 is a success." in text


async def _clients(stack: AsyncExitStack, live: Running, tokens: dict[str, str]) -> dict[str, Client]:
    c = {who: await stack.enter_async_context(Client(live.url, token, keep=True)) for who, token in tokens.items()}
    for client in c.values():
        await client.subscribe()
    return c


async def test_a_round_of_tens_live() -> None:
    """The ST starts a round (the order: Physical plus Mental, d10:order); Sam punches Juan, the
    server draws the dice; Juan, on the same turn, tests Sam's Social, the Storyteller entering the
    dice rolled at the table (a player may not: d10:dice). Each first roll stays sealed from the other
    player until the reveal; the views show the verdicts; the log replays as each and audits."""
    backend = open_backend(None)
    service = SceneService(backend.store)
    for body in SETUP:
        assert service.handle(parse_command(msgspec.json.encode({"scene": SCENE, "actor": "st", **body}))).error is None
    tokens = {who: backend.tokens.issue(SCENE, "player", who)[0] for who in ("sam", "juan")}
    tokens["st"] = backend.tokens.issue(SCENE, "st")[0]
    async with running(backend) as live, AsyncExitStack() as stack:
        c = await _clients(stack, live, tokens)
        started = await c["st"].send({"type": "start_round"})
        assert started["ok"]
        order = next(e for e in started["events"] if e["type"] == "initiative_set")["data"]
        assert order["order"] == [["juan"], ["sam"]] and order["rule"] == "d10:order"  # Juan 6, Sam 5
        punch = {"type": "declare", "challenge": "punch", "kind": "contested", "targets": ["juan"],
                 "category": "physical", "pool": {"skill": "Brawl"}}  # fmt: skip
        refused = await c["sam"].send(punch)
        assert refused["error"]["code"] == "not_your_turn" and refused["error"]["rule"] == "d10:turns"
        # Juan's turn: a Social challenge against Sam, dice rolled at the table
        sent = await c["juan"].send({"type": "declare", "challenge": "talk", "kind": "contested", "targets": ["sam"],
                                     "category": "social", "victory": "Sam backs off"})  # fmt: skip
        assert sent["ok"]
        view = await at_version(c["sam"], sent["version"])
        assert view["challenges"]["talk"]["moves"]["sam"]["defenses"]["social"]["total"] == 2
        assert (await c["sam"].send({"type": "bid", "challenge": "talk", "pool": {"defense": "social"}}))["ok"]
        by_hand = {"type": "roll", "challenge": "talk", "values": [8, 8, 1]}
        refused = await c["juan"].send(by_hand)
        assert refused["error"]["code"] == "dice_by_hand" and refused["error"]["rule"] == "d10:dice"
        sealed = await c["st"].send({**by_hand, "character": "juan"})
        assert sealed["ok"]
        view = await at_version(c["sam"], sealed["version"])
        assert view["challenges"]["talk"].get("rolls", {}) == {}  # Juan's dice: not Sam's to see yet
        view = await at_version(c["juan"], sealed["version"])
        assert view["challenges"]["talk"]["rolls"]["juan"]["dice"] == [8, 8, 1]
        shown = await c["st"].send({"type": "roll", "challenge": "talk", "character": "sam", "values": [10, 1]})
        revealed = next(e for e in shown["events"] if e["type"] == "test_revealed")["data"]
        assert revealed["successes"] == {"juan": 2, "sam": 2}  # a 10 counts twice: the option
        for who in ("sam", "juan", "st"):
            view = await at_version(c[who], shown["version"])
            outcome = view["challenges"]["talk"]["outcome"]
            assert outcome["winner"] == "challenger" and outcome["rule"] == "d10:ties", who  # Juan's pool 3 to 2
        assert (await c["juan"].send({"type": "end_turn"}))["ok"]
        # Sam's turn: the punch, the server rolling
        sent = await c["sam"].send({**punch, "effect": PUNCH})
        assert sent["ok"]
        answered = await c["juan"].send({"type": "bid", "challenge": "punch", "pool": {"defense": "dodge"}})
        view = await at_version(c["sam"], answered["version"])
        assert view["challenges"]["punch"]["moves"]["sam"]["dice"] == 5
        rolled = await c["sam"].send({"type": "roll", "challenge": "punch"})
        dice = next(e for e in rolled["events"] if e["type"] == "dice_rolled")["data"]["dice"]
        assert len(dice) == 5 and all(1 <= d <= 10 for d in dice)
        view = await at_version(c["juan"], rolled["version"])
        assert view["challenges"]["punch"].get("rolls", {}) == {}
        last = await c["juan"].send({"type": "roll", "challenge": "punch"})
        assert last["ok"] and "challenge_resolved" in [e["type"] for e in last["events"]]
        for who in ("sam", "juan", "st"):
            view = await at_version(c[who], last["version"])
            punch = view["challenges"]["punch"]
            assert punch["outcome"]["rule"].startswith("d10:") and len(punch["tests"][0]["dice"]["sam"]) == 5
        for viewer in ("sam", "juan"):  # no die of the other side before its reveal, in events or views
            other = "juan" if viewer == "sam" else "sam"
            early = [
                m
                for m in c[viewer].received or []
                for e in m.get("events") or []
                if e["type"] == "dice_rolled" and e["data"]["character"] == other and e["data"].get("dice") is not None
            ]
            assert early == [], viewer
    records = list(backend.store.read(SCENE))
    state = fold(records)
    assert state.version == len(records) and state.ruleset == "d10"
    assert all(state.challenges[cid].outcome is not None for cid in ("talk", "punch"))
    for viewer in ("sam", "juan", "*"):
        steps = list(replay(records, viewer))
        assert len(steps) == len(records)
        assert "Physical plus Mental: Juan 6, then Sam 5." in "\n".join(step.summary for step in steps)
    report = audit([to_wire(r) for r in records])
    assert report.chain.ok and report.chain.events == len(records)


async def test_justicar_serve_loads_it_from_the_environment(tmp_path: Path) -> None:
    """``justicar serve`` with ``JUSTICAR_RULESETS=tests.rulesets.d10``: the scene of a Tens script
    loads, its descriptor is served, and Sam's player declares with a pool over the socket."""
    script = tmp_path / "tens.jsonl"
    script.write_text("\n".join(json.dumps({"scene": SCENE, "actor": "st", **body}) for body in SETUP) + "\n")
    port = free_port()
    argv = [sys.executable, "-m", "clients.cli", "serve", "--db", str(tmp_path / "j.db"), "--port", str(port),
            "--load", str(script)]  # fmt: skip
    env = {**os.environ, "JUSTICAR_RULESETS": "tests.rulesets.d10"}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        assert proc.stdout is not None
        lines = []
        with anyio.fail_after(20):
            while "listens on" not in (line := await anyio.to_thread.run_sync(proc.stdout.readline)):
                assert line, "the server stopped"
                lines.append(line)
        listed = await anyio.to_thread.run_sync(get, f"http://127.0.0.1:{port}", "/rulesets.json")
        assert d10_of(listed)["options"][0]["name"] == "double_tens"
        sam_link = next(line.split()[1] for line in lines if line.strip().startswith("Sam "))
        async with Client(f"ws://127.0.0.1:{port}", sam_link.split("#token=")[1].split("&")[0], reconnect=False) as sam:
            await sam.subscribe()
            assert sam.view["ruleset"] == "d10" and sam.view["rules"]["die"]["size"] == 10
            result = await sam.send({"type": "declare", "challenge": "punch", "kind": "contested", "targets": ["juan"],
                                     "category": "physical", "pool": {"skill": "Brawl"}})  # fmt: skip
            assert result["ok"], result
            pool = next(e for e in result["events"] if e["type"] == "challenge_declared")["data"]["pool"]
            assert pool["total"] == 5
    finally:
        proc.terminate()
        proc.wait(timeout=10)
