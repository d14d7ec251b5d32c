"""The declare form's preview on a real server (``stakes``, docs/protocol.md section 8): a player
asks what a would-be declaration puts at stake, gets each way it can end as events and words, and
then the resolution does exactly that; a refused declaration answers with its refusal; a flood of
previews appends nothing; a spectator and a forged actor are refused."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect

from clients.client import Client
from domain.commands import parse_command
from domain.evolve import fold
from domain.stakes import is_consequence
from server.app import running
from server.backend import Backend, open_backend
from server.service import SceneService

pytestmark = pytest.mark.anyio

JIMMY = {
    "id": "jimmy",
    "name": "Jimmy",
    "traits": {"physical": {"Brawny": 3}},
    "powers": {"Feral Claws": 1, "Puissance": 2},
}
FRANK = {"id": "frank", "name": "Frank", "traits": {"physical": {"Wiry": 2}}}
ANN = {"id": "ann", "name": "Ann", "willpower": 2, "attributes": {"physical": 6, "social": 3, "mental": 4},
       "skills": {"brawl": 2}}  # fmt: skip
COLE = {"id": "cole", "name": "Cole", "attributes": {"physical": 2, "social": 2, "mental": 2}, "skills": {"dodge": 1}}
CLAWS = {"kind": "contested", "category": "physical", "targets": ["frank"], "bid": ["Brawny"],
         "power": "Feral Claws", "effect": {"kind": "damage", "amount": 1, "type": "lethal"}}  # fmt: skip
GRAPPLE = {"kind": "contested", "category": "physical", "targets": ["cole"], "pool": {"attack": "unarmed"},
           "maneuver": "grapple", "effect": {"kind": "damage", "amount": 1}}  # fmt: skip


def seed(backend: Backend, scene: str, ruleset: str, sheets: list[dict[str, Any]]) -> None:
    service = SceneService(backend.store)
    bodies = [{"id": f"{scene}-open", "type": "open_scene", "ruleset": ruleset}]
    bodies += [{"id": f"{scene}-{s['id']}", "type": "add_character", "character": s} for s in sheets]
    for body in bodies:
        command = parse_command(msgspec.json.encode({"scene": scene, "actor": "st", **body}))
        assert service.handle(command).error is None


def applied(backend: Backend, scene: str, cid: str) -> list[dict[str, Any]]:
    """What the resolution of ``cid`` did to the characters, as JSON."""
    records = list(backend.store.read(scene))
    at = next(n for n, r in enumerate(records) if r.type == "challenge_resolved" and r.event.challenge == cid)
    done = [r.event for r in records[at + 1 :] if is_consequence(r.event) and r.event.challenge == cid]
    return [msgspec.json.decode(msgspec.json.encode(e)) for e in done]


def way(preview: dict[str, Any], winner: str, relent: bool = False) -> dict[str, Any]:
    [found] = [
        s
        for s in preview["stakes"]
        if s["winner"] == winner and s.get("relent", False) == relent and not s.get("exceptional")
    ]
    return found


async def test_the_preview_is_what_the_resolution_does() -> None:
    backend = open_backend(None)
    seed(backend, "claws", "camarilla", [JIMMY, FRANK])
    seed(backend, "hold", "bns", [ANN, COLE])
    tokens = {who: backend.tokens.issue("claws", "player", who)[0] for who in ("jimmy", "frank")}
    tokens |= {who: backend.tokens.issue("hold", "player", who)[0] for who in ("ann", "cole")}
    async with running(backend) as live, AsyncExitStack() as stack:
        c = {who: await stack.enter_async_context(Client(live.url, token)) for who, token in tokens.items()}

        # camarilla: Feral Claws with Puissance, and Frank relents
        preview = await c["jimmy"].request({"type": "stakes", "declare": {"challenge": "x", **CLAWS}}, "stakes")
        assert preview["challenge"] == "x" and "error" not in preview
        won = way(preview, "challenger")
        assert won["title"] == "If you win"  # said to Jimmy, who asks
        assert won["words"] == [
            "Frank takes 2 aggravated damage: 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
        ]
        assert won["events"] == [
            {"type": "damage_taken", "character": "frank", "amount": 2, "damage": "aggravated", "challenge": "x",
             "why": "1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1.",
             "rule": "camarilla:stacking"},
        ]  # fmt: skip
        assert way(preview, "defender")["words"] == ["You lose Brawny"]  # said to Jimmy
        assert backend.store.head("claws")[0] == 3, "a preview appended something"
        assert (await c["jimmy"].send({"type": "declare", "challenge": "x", **CLAWS}))["ok"]
        assert (await c["frank"].send({"type": "relent", "challenge": "x"}))["ok"]
        assert applied(backend, "claws", "x") == way(preview, "challenger", relent=True)["events"] == won["events"]

        # bns: a grapple maneuver is previewed as the hold, not "1 bashing"; won exceptionally
        preview = await c["ann"].request({"type": "stakes", "declare": {"challenge": "g", **GRAPPLE}}, "stakes")
        won = way(preview, "challenger")
        assert won["words"] == ["You grapple Cole"]  # said to Ann
        assert won["events"] == [{"type": "grapple_started", "grappler": "ann", "victim": "cole", "challenge": "g"}]
        assert not [s for s in preview["stakes"] if s.get("exceptional") and not s.get("relent")]
        assert (await c["ann"].send({"type": "declare", "challenge": "g", **GRAPPLE}))["ok"]
        assert (await c["cole"].send({"type": "bid", "challenge": "g", "pool": {"defense": "dodge"}}))["ok"]
        assert (await c["ann"].send({"type": "throw", "challenge": "g", "sign": "rock"}))["ok"]
        assert (await c["cole"].send({"type": "throw", "challenge": "g", "sign": "scissors"}))["ok"]  # no retest left
        outcome = fold(backend.store.read("hold")).challenges["g"].outcome
        assert outcome is not None and outcome.winner == "challenger" and outcome.exceptional
        assert applied(backend, "hold", "g") == won["events"]


async def test_refusals_and_a_flood_append_nothing() -> None:
    backend = open_backend(None)
    seed(backend, "claws", "camarilla", [JIMMY, FRANK])
    tokens = {who: backend.tokens.issue("claws", "player", who)[0] for who in ("jimmy", "frank")}
    tokens["*"] = backend.tokens.issue("claws", "spectator")[0]
    async with running(backend) as live, AsyncExitStack() as stack:
        c = {who: await stack.enter_async_context(Client(live.url, token)) for who, token in tokens.items()}
        version = backend.store.head("claws")

        # a declaration the ruleset refuses: its refusal, as a declare would get it
        ask = {"type": "stakes", "declare": {**CLAWS, "targets": ["jimmy"], "bid": ["Wiry"]}}
        refused = await c["frank"].request(ask, "stakes")
        assert refused["error"]["code"] == "unknown_power" and "stakes" not in refused
        declared = await c["frank"].send({"type": "declare", "challenge": "y", **ask["declare"]})
        assert declared["error"]["code"] == refused["error"]["code"]
        assert declared["error"]["message"] == refused["error"]["message"]
        malformed = await c["jimmy"].request({"type": "stakes", "declare": {**CLAWS, "kind": "duel"}}, "stakes")
        assert malformed["error"]["code"] == "malformed"
        forged = await c["frank"].request({"type": "stakes", "declare": {**CLAWS, "actor": "jimmy"}}, "stakes")
        assert forged["type"] == "error" and forged["code"] == "forbidden"
        watching = await c["*"].request({"type": "stakes", "declare": CLAWS}, "stakes")
        assert watching["type"] == "error" and watching["code"] == "forbidden"

        # a flood of previews (within the rate limit) on a plain socket: every one answered, nothing appended
        flood = 80
        async with connect(live.url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": tokens["jimmy"]}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            for n in range(flood):
                await ws.send(json.dumps({"type": "stakes", "declare": {"challenge": f"f{n}", **CLAWS}}))
            with anyio.fail_after(10):
                answers = [json.loads(await ws.recv()) for _ in range(flood)]
        assert [a["challenge"] for a in answers] == [f"f{n}" for n in range(flood)]
        assert all(way(a, "challenger")["words"] == way(answers[0], "challenger")["words"] for a in answers)
        assert backend.store.head("claws") == version
        assert len(fold(backend.store.read("claws")).challenges) == 0
