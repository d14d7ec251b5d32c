"""Blind throws for the Storyteller, on a real server (issue 25, item 7): while the Storyteller
still has to throw or roll for an NPC, nothing the Storyteller's sockets receive carries the
player's sealed sign or dice: not the push, not a catch-up from the first event (long enough to be
streamed by the connection in chunks, ``server.catchup``) or from the event before the throw, not a
page of history, not a replay as itself or as the player, not a fresh view. Once the Storyteller has
thrown for the NPC, the reveal shows both and a catch-up shows the player's sealed throw whole. A
Storyteller who only watches two players reads the sealed sign as it comes, as ever. In each
ruleset: lotn, camarilla, bns (signs) and kony (dice)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.history import read_export
from server.room import CHUNK
from server.service import SceneService
from tests.domain.test_bns import COVER, HUNTER, SHOTGUN, VINCENT
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio
SCENE = "docks"
FILLER = CHUNK // 2 + 10
"""Challenges declared and withdrawn before the test: more events than a room sends a joining
subscriber, so that a catch-up from the first event is streamed by the connection (``Behind``)."""


def setup(ruleset: str, npc: bool = True) -> tuple[list[dict[str, Any]], str, str]:
    """The commands (as the ST) that open the scene and bring challenge ``c`` to its first throw, the
    player who throws in it, and the player's name."""
    if ruleset == "bns":
        people = [{**HUNTER, "npc": npc}, VINCENT]
        declare = {"type": "declare", "character": "hunter", "kind": "contested", "targets": ["vincent"],
                   "category": "physical", "victory": "shoot Vincent", "pool": SHOTGUN}  # fmt: skip
        answer = {"type": "bid", "character": "vincent", "pool": COVER}
        player, name = "vincent", "Vincent"
    else:
        people = [
            {"id": "marco", "name": "Marco Reyes", "traits": {"physical": {"Brawny": 3}}},
            {"id": "thug", "name": "Dockside Thug", "npc": npc, "traits": {"physical": {"Strong": 3}}},
        ]
        declare = {"type": "declare", "character": "marco", "kind": "contested", "targets": ["thug"],
                   "category": "physical", "bid": ["Brawny"], "victory": "knock him down"}  # fmt: skip
        answer = {"type": "bid", "character": "thug", "bid": ["Strong"]}
        player, name = "marco", "Marco Reyes"
    commands: list[dict[str, Any]] = [
        {"type": "open_scene", "ruleset": ruleset, "title": "The docks"},
        *({"type": "add_character", "character": sheet} for sheet in people),
    ]
    for n in range(FILLER):
        commands += [{**declare, "challenge": f"f{n}"}, {"type": "withdraw", "challenge": f"f{n}"}]
    return [*commands, {**declare, "challenge": "c"}, {**answer, "challenge": "c"}], player, name


def seeded(ruleset: str, npc: bool = True) -> tuple[Any, str, str]:
    backend = open_backend(None)
    service = SceneService(backend.store)
    commands, player, name = setup(ruleset, npc)
    for n, body in enumerate(commands):
        command = {"id": f"s{n}", "scene": SCENE, "actor": "st", **body}
        handled = service.handle(parse_command(msgspec.json.encode(command)))
        assert handled.error is None, (body, handled.error)
    return backend, player, name


def leaks(message: Any, player: str, name: str, secret: Any) -> list[str]:
    """Everything in a message that tells the player's sealed throw (``secret``: its sign, or its dice)."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            if value.get("character") == player and value.get("sign" if isinstance(secret, str) else "dice") == secret:
                found.append(f"{path}: the sealed record")
            for key in ("sealed", "rolls"):
                if isinstance(value.get(key), dict) and player in value[key]:
                    found.append(f"{path}.{key}: {value[key][player]}")
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for n, item in enumerate(value):
                walk(item, f"{path}[{n}]")
        elif isinstance(value, str):
            told = (
                f"{name} throws {secret}" if isinstance(secret, str) else f"{name} rolls {', '.join(map(str, secret))}"
            )
            if told in value or f"sealed.{player}" in value or f"rolls.{player}" in value:
                found.append(f"{path}: {value}")

    walk(message, "")
    return found


@pytest.mark.parametrize("ruleset", ["lotn", "camarilla", "bns", "kony"])
async def test_the_storytellers_sockets_never_carry_the_players_sealed_throw_before_its_own(ruleset: str) -> None:
    backend, player, name = seeded(ruleset)
    dice = ruleset == "kony"
    st_token = backend.tokens.issue(SCENE, "st")[0]
    player_token = backend.tokens.issue(SCENE, "player", player)[0]
    async with running(backend) as live, AsyncExitStack() as stack:
        st = await stack.enter_async_context(Client(live.url, st_token, keep=True, summaries=True))
        me = await stack.enter_async_context(Client(live.url, player_token, keep=True, summaries=True))
        for client in (st, me):
            await client.subscribe()
        threw = await me.send(
            {"type": "roll", "challenge": "c"} if dice else {"type": "throw", "challenge": "c", "sign": "scissors"}
        )
        assert threw["ok"], threw
        version = threw["version"]
        (mine,) = [e for e in threw["events"] if e["type"] in ("throw_sealed", "dice_rolled")]
        secret = mine["data"]["dice"] if dice else mine["data"]["sign"]
        assert secret  # the player's own result carries it
        seen = await at_version(st, version)

        # catch-ups: from the first event (streamed in chunks), from the event before the throw
        late = [await stack.enter_async_context(Client(live.url, st_token, keep=True, summaries=True)) for _ in "ab"]
        await late[0].subscribe(since=0)
        await late[1].subscribe(since=version - 1)
        assert version > CHUNK  # the first catch-up is streamed by the connection, not sent by the room
        for client in late:
            await at_version(client, version)
        # a page of history, replays as itself and as the player (with the view), a fresh view
        await st.request({"type": "history", "before": version + 1, "limit": 20}, "history")
        await st.request({"type": "replay", "from": version - 5, "view": True}, "replay")
        await st.request({"type": "replay", "from": version - 5, "as": player, "view": True}, "replay")
        await st.request({"type": "get_view"}, "view")
        audit = await st.request({"type": "audit", "format": "md"}, "document")
        assert audit["type"] == "document" and f"{name} {'rolls' if dice else 'throws'} (sealed" in audit["text"]
        refused = await st.request({"type": "export"}, "document")  # a whole copy of the log: not yet
        assert refused["type"] == "error" and refused["code"] == "blind", refused
        assert refused["message"].endswith("An export holds every event whole: export once both are in.")
        for client in (st, *late):
            assert client.received is not None and len(client.received) > 1
            found = [leak for message in client.received for leak in leaks(message, player, name, secret)]
            assert found == []
        assert any(leaks(message, player, name, secret) for message in me.received or [])  # the test can see one
        assert seen["challenges"]["c"]["blind"].startswith(f"You {'roll' if dice else 'throw'} for ")  # and says so

        # the Storyteller throws (rolls) for the NPC: both are shown, and a catch-up shows the throw whole
        npc = "hunter" if ruleset == "bns" else "thug"
        both = await st.send(
            {"type": "roll", "challenge": "c", "character": npc}
            if dice
            else {"type": "throw", "challenge": "c", "character": npc, "sign": "rock"}
        )
        assert both["ok"], both
        revealed = next(e for e in both["events"] if e["type"] == "test_revealed")
        assert (revealed["data"]["dice"] if dice else revealed["data"]["signs"])[player] == secret
        after = await stack.enter_async_context(Client(live.url, st_token, keep=True, summaries=True))
        await after.subscribe(since=version - 1)
        await at_version(after, both["version"])
        assert any(leaks(message, player, name, secret) for message in after.received or [])
        exported = await st.request({"type": "export"}, "document")
        assert exported["type"] == "document", exported
        wires, _ = read_export(exported["text"].splitlines())
        (sealed,) = [w for w in wires if w.seq == mine["seq"]]
        assert msgspec.json.decode(sealed.data)["dice" if dice else "sign"] == secret


@pytest.mark.parametrize("ruleset", ["lotn", "kony"])
async def test_a_storyteller_who_only_watches_two_players_reads_the_sealed_throw(ruleset: str) -> None:
    backend, player, name = seeded(ruleset, npc=False)
    dice = ruleset == "kony"
    st_token = backend.tokens.issue(SCENE, "st")[0]
    player_token = backend.tokens.issue(SCENE, "player", player)[0]
    async with running(backend) as live, AsyncExitStack() as stack:
        st = await stack.enter_async_context(Client(live.url, st_token, keep=True, summaries=True))
        me = await stack.enter_async_context(Client(live.url, player_token, keep=True))
        for client in (st, me):
            await client.subscribe()
        threw = await me.send(
            {"type": "roll", "challenge": "c"} if dice else {"type": "throw", "challenge": "c", "sign": "scissors"}
        )
        (mine,) = [e for e in threw["events"] if e["type"] in ("throw_sealed", "dice_rolled")]
        secret = mine["data"]["dice"] if dice else mine["data"]["sign"]
        seen = await at_version(st, threw["version"])
        assert (
            seen["challenges"]["c"]["rolls"][player]["dice"] if dice else seen["challenges"]["c"]["sealed"][player]
        ) == secret
        assert "blind" not in seen["challenges"]["c"]
        pushed = [m for m in st.received or [] if m["type"] == "commit" and m["version"] == threw["version"]]
        assert pushed and leaks(pushed[-1], player, name, secret)
