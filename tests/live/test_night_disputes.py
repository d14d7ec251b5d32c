"""A game night's player disputes a result of theirs from whichever scene they are in (issue 27):
Rosa fights Sam in “Park”, is sent to “The docks”, and disputes that result from there, on the
docks' socket and on the night's, naming Park; the dispute lands in Park's log. She may not dispute
what she was not in there (a fight after she left, a step that is not there), nor a scene of
another night; Juan, never in Park, may not dispute it at all. ``tonight`` lists her results from
the other scenes, each with the step to dispute."""

from __future__ import annotations

from typing import Any

import pytest

from clients.client import Client
from domain.evolve import fold
from server.app import Running
from server.backend import Backend
from tests.live.conftest import until
from tests.live.test_adversary import CLOSED_TO, ESC, Night, park, where_is
from tests.live.test_night_live import SceneClient, night, raw_refusal, st_do

pytestmark = pytest.mark.anyio
__all__ = ["night", "park"]  # the fixtures, from the other tests

ONLY_YOURS = "You left “Park”: from there you can dispute only the results of challenges you were in."


async def fought(client: Client, other: Client, cid: str, them: str, bids: tuple[str, str]) -> None:
    """``client``'s character challenges ``them`` and wins (paper over rock), neither retests."""
    declare = {"type": "declare", "challenge": cid, "kind": "contested", "targets": [them]}
    assert (await client.send({**declare, "category": "physical", "bid": [bids[0]]}))["ok"]
    assert (await other.send({"type": "bid", "challenge": cid, "bid": [bids[1]]}))["ok"]
    assert (await client.send({"type": "throw", "challenge": cid, "sign": "paper"}))["ok"]
    assert (await other.send({"type": "throw", "challenge": cid, "sign": "rock"}))["ok"]
    for side in (other, client):
        await until(side, lambda c: c.view["challenges"][cid]["status"] in ("retest_window", "resolved"))
        if side.view["challenges"][cid]["status"] == "retest_window":
            await side.send({"type": "pass", "challenge": cid})
    await until(client, lambda c: c.view["challenges"][cid]["status"] == "resolved")


async def shoved(live: Running, links: dict[str, str]) -> None:
    """In the park, Rosa shoves Sam and wins (Sam loses Brawny): the result the tests dispute."""
    async with (
        SceneClient(live.url, links["rosa"], "park", keep=True) as rosa,
        SceneClient(live.url, links["sam"], "park", keep=True) as sam,
    ):
        await rosa.subscribe()
        await sam.subscribe()
        await fought(rosa, sam, "shove", "sam", ("Nimble", "Brawny"))


def disputes(backend: Backend, scene: str) -> list[tuple[str, int, str]]:
    return [
        (r.actor, r.event.event, r.event.reason)  # type: ignore[attr-defined]
        for r in backend.store.read(scene)
        if r.type == "dispute_opened"
    ]


async def test_a_player_disputes_a_result_from_the_scene_they_left(
    live: Running, backend: Backend, park: Night
) -> None:
    st, links = park
    await shoved(live, links)
    shove = fold(backend.store.read("park")).challenges["shove"]
    result, declared = shove.resolved_seq, shove.seq
    assert result is not None
    await st_do(st, "park", "remove_character", character="rosa")
    await where_is(st, "rosa", None)
    await st_do(st, "g1", "move_character", character="rosa", to="docks")
    await where_is(st, "rosa", "docks")

    # after she left: Sam fights Esc, an NPC of Park (not hers to dispute)
    await st_do(st, "park", "add_character", character={**ESC, "npc": True})
    async with SceneClient(live.url, links["sam"], "park", keep=True) as sam:
        await sam.subscribe()
        declare = {"type": "declare", "challenge": "later", "kind": "contested", "targets": ["esc"]}
        assert (await sam.send({**declare, "category": "physical", "bid": ["Brawny"]}))["ok"]
    head = backend.store.head("park")[0]

    async with SceneClient(live.url, links["rosa"], "docks", keep=True) as docks:
        await docks.subscribe()
        await until(docks, lambda c: c.view["characters"].get("rosa", {}).get("present", False))
        # from the docks' socket, naming Park: it lands in Park's log
        sent = await docks.send({"type": "dispute", "scene": "park", "event": result, "reason": "Sam cheated"})
        assert sent["ok"], sent
        assert ("rosa", result, "Sam cheated") in disputes(backend, "park")

        mine = await docks.request({"type": "tonight"}, "tonight")
        assert [(r["scene"], r["challenge"], r["step"]) for r in mine["results"]] == [("park", "shove", result)]
        assert mine["results"][0]["scene_title"] == "Park" and mine["results"][0]["title"].startswith("You challenge")
        assert mine["results"][0]["words"].startswith("You won")

        # what she was not in, or a step that is not there: refused, in her words, nothing written
        for step in (head, head + 40):
            refused = await docks.send({"type": "dispute", "scene": "park", "event": step, "reason": "x"})
            assert refused["error"] == {"code": "forbidden", "message": ONLY_YOURS}, step
        assert backend.store.head("park")[0] == head + 1

    # from the night's socket too
    async with Client(live.url, links["rosa"], keep=True) as tonight:
        sent = await tonight.send({"type": "dispute", "scene": "park", "event": declared, "reason": "too dark"})
        assert sent["ok"], sent
    assert ("rosa", declared, "too dark") in disputes(backend, "park")

    # Juan was never in Park: one refusal, naming nothing
    refused = await raw_refusal(
        live.url, links["juan"], {"type": "dispute", "id": "j1", "scene": "park", "event": result, "reason": "x"}
    )
    assert refused["error"] == {"code": "forbidden", "message": CLOSED_TO}

    # a scene of another night: the same one refusal
    async with Client(live.url, backend.tokens.issue("g2", "st")[0], keep=True) as other:
        await st_do(other, "g2", "open_game", ruleset="lotn", title="Saturday")
        await st_do(other, "yard", "open_scene", ruleset="lotn", title="Yard", game="g2")
    refused = await raw_refusal(
        live.url, links["rosa"], {"type": "dispute", "id": "r9", "scene": "yard", "event": 1, "reason": "x"}
    )
    assert refused["error"] == {"code": "forbidden", "message": CLOSED_TO}
    assert [d for d in disputes(backend, "yard")] == []


async def test_tonight_is_a_night_player_s_alone(live: Running, backend: Backend, park: Night) -> None:
    _, links = park
    for token in (links["*"], backend.tokens.issue("g1", "st")[0]):
        async with Client(live.url, token, keep=True) as someone:
            answer: dict[str, Any] = await someone.request({"type": "tonight"}, "tonight")
            assert answer["type"] == "error" and answer["code"] == "forbidden"
    async with Client(live.url, backend.tokens.issue("s1", "player", "sam")[0], keep=True) as alone:
        answer = await alone.request({"type": "tonight"}, "tonight")
        assert answer["type"] == "error" and answer["code"] == "not_a_game"
