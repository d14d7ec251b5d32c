"""A game night on a real server (issue 15): three players with one night link each follow their
characters from scene to scene, each on two sockets as docs/protocol.md says ("Following a
character through a night"): the night's stream, and the scene the night says the character is in.
What one scene took is still gone in the next; a night's link opens no scene of another night;
revoking it closes both sockets. And a move whose arrival a crash kept is mended once, on load."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect

from clients.client import Client
from domain.commands import parse_command
from server.app import Running, running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.conftest import until
from tests.night.table import JUAN, ROSA, SAM

pytestmark = pytest.mark.anyio

PLAYERS = {"sam": SAM, "juan": JUAN, "rosa": ROSA}


class SceneClient(Client):
    """A client of one scene of its token's night: it subscribes (and after a drop, subscribes
    again) with ``scene``."""

    def __init__(self, url: str, token: str, scene: str, **options: Any) -> None:
        super().__init__(url, token, **options)
        self.scene = scene

    def _subscription(self, since: int) -> dict[str, Any]:
        return {**super()._subscription(since), "scene": self.scene}


def where(client: Client, who: str) -> str | None:
    """The scene the night's view says ``who`` is in now (None: between scenes)."""
    return ((client.view.get("night") or {}).get("where") or {}).get(who, {}).get("scene")


class Follower:
    """A player's client as a page is: the night on one socket; the scene its character is in on a
    second, opened when the night says it went there (the last one closed). Each socket is held by
    a task of its own, so they open and close in any order."""

    def __init__(self, url: str, token: str, me: str) -> None:
        self.url, self.token, self.me = url, token, me
        self.night = Client(url, token, keep=True)
        self.scene: SceneClient | None = None
        self._tg = anyio.create_task_group()
        self._stops: list[anyio.Event] = []

    async def __aenter__(self) -> Follower:
        await self._tg.__aenter__()
        await self._open(self.night)
        await self.night.subscribe()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for stop in self._stops:
            stop.set()
        await self._tg.__aexit__(None, None, None)

    async def _open(self, client: Client) -> anyio.Event:
        """Connect ``client`` in a task of its own; the event that closes it."""
        ready, stop = anyio.Event(), anyio.Event()
        self._stops.append(stop)

        async def hold() -> None:
            try:
                async with client:
                    ready.set()
                    await stop.wait()
            finally:
                ready.set()

        self._tg.start_soon(hold)
        await ready.wait()
        return stop

    async def follow(self) -> dict[str, Any]:
        """Wait for the night to say where the character went, open that scene (closing the one it
        left), and return the character there once it has arrived."""
        held = self.scene.scene if self.scene else None
        await until(self.night, lambda c: where(c, self.me) not in (None, held))
        to = where(self.night, self.me)
        assert to is not None
        if self.scene is not None:
            self._stops[-1].set()
        self.scene = SceneClient(self.url, self.token, to, keep=True)
        await self._open(self.scene)
        await self.scene.subscribe()
        await until(self.scene, lambda c: c.view["characters"].get(self.me, {}).get("present", False))
        return dict(self.scene.view["characters"][self.me])

    async def send(self, verb: str, **fields: Any) -> dict[str, Any]:
        """A command in the scene the character is in (the scene socket's own stream)."""
        assert self.scene is not None
        return await self.scene.send({"type": verb, **fields})


async def fight(
    challenger: Follower, target: Follower, cid: str, bids: tuple[str, str], signs: tuple[str, str]
) -> None:
    """A Physical challenge thrown to its end, each side sending its own moves on its own socket."""
    declared = await challenger.send(
        "declare", challenge=cid, kind="contested", targets=[target.me], category="physical", bid=[bids[0]]
    )
    assert declared["ok"], declared
    assert (await target.send("bid", challenge=cid, bid=[bids[1]]))["ok"]
    assert (await challenger.send("throw", challenge=cid, sign=signs[0]))["ok"]
    done = await target.send("throw", challenge=cid, sign=signs[1])
    assert done["ok"], done
    version = done["version"]
    for side in (challenger, target):  # neither retests
        assert side.scene is not None
        await until(side.scene, lambda c, v=version: c.last_seq >= v)
        if side.scene.view["challenges"][cid]["status"] == "retest_window":
            passed = await side.send("pass", challenge=cid)
            version = passed.get("version") or version
    assert challenger.scene is not None
    await until(challenger.scene, lambda c: c.view["challenges"][cid]["status"] == "resolved")


async def st_do(st: Client, scene: str, verb: str, **fields: Any) -> dict[str, Any]:
    done = await st.send({"type": verb, "scene": scene, **fields})
    assert done["ok"], done
    return done


async def raw_refusal(url: str, token: str, frame: dict[str, Any]) -> dict[str, Any]:
    """What a fresh connection with ``token`` gets for one frame after hello (an error or a result)."""
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps(frame))
        with anyio.fail_after(5):
            while True:
                reply = json.loads(await ws.recv())
                if reply["type"] in ("error", "result"):
                    return reply


@pytest.fixture
async def night(live: Running, backend: Backend) -> AsyncIterator[tuple[Client, dict[str, str]]]:
    """Night g1 opened by its Storyteller over the socket, three characters registered, a night
    link for each player and one for spectators (invited over the socket)."""
    async with Client(live.url, backend.tokens.issue("g1", "st")[0], keep=True) as st:
        await st_do(st, "g1", "open_game", ruleset="lotn", title="Friday at Elysium")
        for sheet in PLAYERS.values():
            await st_do(st, "g1", "register_character", character=sheet)
        await st.subscribe()
        links = {}
        for who in PLAYERS:
            invited = await st.request({"type": "invite", "role": "player", "character": who}, "invited")
            assert invited["grant"]["scene"] == "g1" and invited["grant"]["character"] == who
            links[who] = invited["token"]
        links["*"] = (await st.request({"type": "invite", "role": "spectator"}, "invited"))["token"]
        listed = await st.request({"type": "tokens"}, "tokens")
        assert sorted(g["character"] or g["role"] for g in listed["tokens"]) == [
            "juan",
            "rosa",
            "sam",
            "spectator",
            "st",
        ]
        yield st, links


async def test_three_players_follow_their_characters_through_two_scenes(
    live: Running, night: tuple[Client, dict[str, str]]
) -> None:
    st, links = night
    async with AsyncExitStack() as stack:
        players = {who: await stack.enter_async_context(Follower(live.url, links[who], who)) for who in PLAYERS}
        watcher = await stack.enter_async_context(Client(live.url, links["*"], keep=True))
        await watcher.subscribe()
        sam, juan, rosa = players["sam"], players["juan"], players["rosa"]

        # Between scenes: each player's night shows their own character whole, and nobody else.
        for who, player in players.items():
            assert player.night.welcome["scene"] == "g1"
            assert list(player.night.view["characters"]) == [who]
            assert player.night.view["night"] == {"scenes": [], "where": {}}
        assert sam.night.view["characters"]["sam"]["traits"]["physical"] == 3
        assert "traits" not in watcher.view["characters"]["sam"]  # a spectator: names, no sheets

        # Scene one, opened from the night's link; everyone sent into it.
        await st_do(st, "elysium", "open_scene", ruleset="lotn", title="Elysium", game="g1")
        await until(st, lambda c: [s["id"] for s in c.view["night"]["scenes"]] == ["elysium"])
        for who in PLAYERS:
            await st_do(st, "g1", "move_character", character=who, to="elysium")
        for who, player in players.items():
            arrived = await player.follow()
            assert arrived["traits_lost"] == [] and player.scene is not None
            assert player.scene.view["scene"] == "elysium" and player.scene.view["title"] == "Elysium"
            whereabouts = player.night.view["night"]["where"]
            assert list(whereabouts) == [who]  # where the others are is not theirs to know
            assert (whereabouts[who]["scene"], whereabouts[who]["title"]) == ("elysium", "Elysium")
        await until(watcher, lambda c: len(c.view["night"]["where"]) == 3)
        assert watcher.view["night"]["scenes"] == [
            {"id": "elysium", "title": "Elysium", "open": True, "characters": ["sam", "juan", "rosa"]}
        ]

        # Two fights: Juan beats Sam (Brawny lost), Rosa beats Juan (Quick lost).
        await fight(juan, sam, "c-1", ("Wiry", "Brawny"), ("rock", "scissors"))
        await fight(rosa, juan, "c-2", ("Nimble", "Quick"), ("paper", "rock"))
        assert sam.scene is not None and juan.scene is not None
        assert sam.scene.view["characters"]["sam"]["traits_lost"] == ["Brawny"]
        await until(juan.scene, lambda c: c.view["characters"]["juan"].get("traits_lost") == ["Quick"])

        # Scene one closes: each character comes back to the night with what it lost there.
        await st_do(st, "elysium", "close_scene")
        for player in players.values():
            await until(player.night, lambda c, me=player.me: where(c, me) is None)
        await until(sam.night, lambda c: c.view["characters"]["sam"]["traits_lost"] == ["Brawny"])
        await until(juan.night, lambda c: c.view["characters"]["juan"]["traits_lost"] == ["Quick"])
        assert sam.night.view["characters"]["sam"]["traits"]["physical"] == 2
        await until(st, lambda c: c.view["night"]["scenes"][0]["open"] is False)

        # Scene two: each is sent there and finds what it lost in scene one still gone.
        await st_do(st, "parking", "open_scene", ruleset="lotn", title="The parking lot", game="g1")
        for who in PLAYERS:
            await st_do(st, "g1", "move_character", character=who, to="parking")
        lost = {}
        for who, player in players.items():
            there = await player.follow()
            assert player.scene is not None and player.scene.view["title"] == "The parking lot"
            assert where(player.night, who) == "parking"
            lost[who] = there["traits_lost"]
        assert lost == {"sam": ["Brawny"], "juan": ["Quick"], "rosa": []}
        assert sam.scene is not None and sam.scene.view["characters"]["sam"]["traits"]["physical"] == 2

        # The night's stream told each player of its own moves, and not where the others went.
        for who, player in players.items():
            assert player.night.received is not None
            events = [e for m in player.night.received if m["type"] == "commit" for e in m["events"]]
            mine = [
                (e["type"], e["data"].get("to") or e["data"].get("scene"))
                for e in events
                if e["type"] in ("character_moved", "character_returned") and e["data"]["character"] == who
            ]
            assert mine == [
                ("character_moved", "elysium"),
                ("character_returned", "elysium"),
                ("character_moved", "parking"),
            ]
            others = [e for e in events if e["type"] == "character_moved" and e["data"]["character"] != who]
            assert len(others) == 4 and {e["data"]["to"] for e in others} == {None}
            registered = [
                e for e in events if e["type"] == "character_registered" and e["data"]["character"]["id"] != who
            ]
            assert registered and all(set(e["data"]["character"]) == {"id", "name", "npc"} for e in registered)

        # Sam may act only as Sam; the Storyteller acts in the scene from the night's link.
        forged = await sam.send(
            "declare",
            challenge="c-3",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Quick"],
            actor="juan",
        )
        assert forged["error"]["code"] == "forbidden"
        adjusted = await st_do(st, "parking", "adjust", character="rosa", changes={"willpower": 1}, reason="a gift")
        assert adjusted["events"][0]["type"] == "character_adjusted"


CLOSED_TO = (
    "Your link for “Friday at Elysium” does not open that scene: it opens the scene you are in now and the "
    "closed scenes you have been in tonight."
)


async def test_a_night_link_opens_only_its_own_night(
    live: Running, backend: Backend, night: tuple[Client, dict[str, str]]
) -> None:
    st, links = night
    await st_do(st, "elysium", "open_scene", ruleset="lotn", title="Elysium", game="g1")
    created = await st.request(
        {"type": "create_scene", "scene": "upstairs", "ruleset": "lotn", "title": "Upstairs"}, "scene_created"
    )
    assert created["scene"] == "upstairs"  # opened in the night its Storyteller's link is for
    await until(st, lambda c: [s["id"] for s in c.view["night"]["scenes"]] == ["elysium", "upstairs"])
    await st_do(st, "g1", "move_character", character="sam", to="elysium")
    async with Client(live.url, backend.tokens.issue("g2", "st")[0]) as other:
        await st_do(other, "g2", "open_game", ruleset="lotn", title="Saturday")
        await st_do(other, "g2", "register_character", character=SAM)
        await st_do(other, "docks", "open_scene", ruleset="lotn", title="The docks", game="g2")
        refused = await other.send({"type": "close_scene", "scene": "elysium"})  # nor the other way round
        assert refused["error"]["code"] == "forbidden"

    sam = links["sam"]
    for scene in ("docks", "s1"):  # a scene of another night; a scene of no night
        error = await raw_refusal(live.url, sam, {"type": "subscribe", "scene": scene})
        assert error["code"] == "forbidden"
        assert error["message"] == CLOSED_TO  # one refusal, whatever the reason: it names no scene
        result = await raw_refusal(live.url, sam, {"type": "relent", "id": "x1", "scene": scene, "challenge": "c"})
        assert result["id"] == "x1" and result["error"]["code"] == "forbidden"
    error = await raw_refusal(live.url, sam, {"type": "subscribe", "scene": "upstairs"})  # not where Sam is
    assert error == {"type": "error", "code": "forbidden", "message": CLOSED_TO}
    async with SceneClient(live.url, sam, "elysium") as there:
        await there.subscribe()
        assert there.view["characters"]["sam"]["present"]
    for who, count in (("docks", 1), ("s1", 4), ("upstairs", 1), ("elysium", 2)):
        assert backend.store.head(who)[0] == count, who  # nothing refused was written

    # A spectator's night link opens every scene of the night, and acts in none.
    async with SceneClient(live.url, links["*"], "upstairs") as watcher:
        await watcher.subscribe()
        assert watcher.view["title"] == "Upstairs"
        acted = await watcher.send({"type": "close_scene"})
        assert acted["error"]["code"] == "forbidden"


async def test_revoking_a_night_link_closes_both_its_sockets(
    live: Running, night: tuple[Client, dict[str, str]]
) -> None:
    st, links = night
    await st_do(st, "elysium", "open_scene", ruleset="lotn", title="Elysium", game="g1")
    await st_do(st, "g1", "move_character", character="rosa", to="elysium")
    async with Follower(live.url, links["rosa"], "rosa") as rosa:
        await rosa.follow()
        assert rosa.night.welcome["token_id"]
        revoked = await st.request({"type": "revoke", "token_id": rosa.night.welcome["token_id"]}, "revoked")
        assert revoked["grant"]["revoked"] is True and revoked["grant"]["scene"] == "g1"
        assert rosa.scene is not None
        for client in (rosa.night, rosa.scene):
            await until(client, lambda c: c.closed_by_server is not None)
            assert client.closed_by_server is not None and client.closed_by_server[0] == 4003
    error = await raw_refusal_hello(live.url, links["rosa"])
    assert error["code"] == "bad_token"


async def raw_refusal_hello(url: str, token: str) -> dict[str, Any]:
    """What a fresh connection with ``token`` gets for its hello."""
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        reply: dict[str, Any] = json.loads(await ws.recv())
        return reply


# -- a crash between a move and the arrival ----------------------------------------------------


def command(stream: str, body: dict[str, Any]) -> Any:
    return parse_command(msgspec.json.encode({"scene": stream, "actor": "st", **body}))


def entered(backend: Backend, scene: str) -> list[tuple[str, int]]:
    return [(r.event.character.id, r.event.seq) for r in backend.store.read(scene) if r.type == "character_entered"]


async def test_a_move_a_crash_kept_from_its_scene_arrives_once_when_the_night_loads(tmp_path: Path) -> None:
    db = str(tmp_path / "night.db")
    backend = open_backend(db)
    service = SceneService(backend.store)
    for stream, body in [
        ("g1", {"id": "o", "type": "open_game", "ruleset": "lotn", "title": "Friday"}),
        ("g1", {"id": "r1", "type": "register_character", "character": SAM}),
        ("g1", {"id": "r2", "type": "register_character", "character": JUAN}),
        ("elysium", {"id": "s", "type": "open_scene", "ruleset": "lotn", "title": "Elysium", "game": "g1"}),
        ("g1", {"id": "m1", "type": "move_character", "character": "juan", "to": "elysium"}),
    ]:
        assert service.handle(command(stream, body)).error is None  # with what each asks of the other
    # Sam's move is committed to the night, and the server stops before it reaches the scene (the
    # live path appends, and leaves the follow-up to the hub: here there is none).
    moved = await service.submit(
        command("g1", {"id": "m2", "type": "move_character", "character": "sam", "to": "elysium"})
    )
    assert moved.error is None
    assert entered(backend, "elysium") == [("juan", 5)]
    st = backend.tokens.issue("g1", "st")[0]
    backend.close()

    heads: dict[str, tuple[int, str]] = {}
    for start in (1, 2):
        backend = open_backend(db)
        async with running(backend) as live, Client(live.url, st) as client:
            await client.subscribe()  # the night loads, and mends what it sent that never came
            assert client.view["night"]["where"]["sam"]["scene"] == "elysium"
            if start == 1:
                with anyio.fail_after(5):
                    while len(entered(backend, "elysium")) < 2:
                        await anyio.sleep(0.01)
            await live.hub._mend("g1")  # once more, awaited: sending it again appends nothing
            async with SceneClient(live.url, st, "elysium") as scene:
                await scene.subscribe()
                assert scene.view["characters"]["sam"]["present"]
        assert entered(backend, "elysium") == [("juan", 5), ("sam", 6)]
        now = {stream: backend.store.head(stream) for stream in ("g1", "elysium")}
        if start == 2:
            assert now == heads  # the second start appends nothing anywhere
        heads = now
        backend.close()


def kinds(backend: Backend, stream: str, kind: str) -> list[str]:
    return [r.event.character for r in backend.store.read(stream) if r.type == kind]  # type: ignore[attr-defined]


async def test_a_close_a_crash_kept_from_the_night_comes_back_once_when_the_night_loads(tmp_path: Path) -> None:
    db = str(tmp_path / "night.db")
    backend = open_backend(db)
    service = SceneService(backend.store)
    for stream, body in [
        ("g1", {"id": "o", "type": "open_game", "ruleset": "lotn", "title": "Friday"}),
        ("g1", {"id": "r1", "type": "register_character", "character": SAM}),
        ("g1", {"id": "r2", "type": "register_character", "character": JUAN}),
        ("elysium", {"id": "s", "type": "open_scene", "ruleset": "lotn", "title": "Elysium", "game": "g1"}),
        ("g1", {"id": "m1", "type": "move_character", "character": "sam", "to": "elysium"}),
        ("g1", {"id": "m2", "type": "move_character", "character": "juan", "to": "elysium"}),
        (
            "elysium",
            {
                "id": "a",
                "type": "adjust",
                "character": "sam",
                "changes": {"lose_traits": ["Brawny"]},
                "reason": "a fall",
            },
        ),
    ]:
        done = service.handle(command(stream, body))
        assert done.error is None, done.error
    # The scene closes, and the server stops before the night hears of it.
    closed = await service.submit(command("elysium", {"id": "c", "type": "close_scene"}))
    assert [r.type for r in closed.records][-1] == "scene_closed"
    assert kinds(backend, "g1", "character_returned") == []
    st = backend.tokens.issue("g1", "st")[0]
    backend.close()

    heads: dict[str, tuple[int, str]] = {}
    for start in (1, 2):
        backend = open_backend(db)
        async with running(backend) as live, Client(live.url, st) as client:
            await client.subscribe()  # the night loads, and takes back what the scene let go
            await until(client, lambda c: c.view["night"]["where"] == {} and not c.view["night"]["scenes"][0]["open"])
            await live.hub._mend("g1")  # once more, awaited: sending it again appends nothing
            assert client.view["night"]["scenes"] == [
                {"id": "elysium", "title": "Elysium", "open": False, "characters": []}
            ]
        assert sorted(kinds(backend, "g1", "character_returned")) == ["juan", "sam"]
        returned = next(r.event for r in backend.store.read("g1") if r.type == "character_returned")
        assert [lost.trait for lost in returned.carried.lost] == ["Brawny"]  # type: ignore[attr-defined]
        assert [r.type for r in backend.store.read("g1")].count("scene_ended") == 1
        now = {stream: backend.store.head(stream) for stream in ("g1", "elysium")}
        if start == 2:
            assert now == heads  # the second start appends nothing anywhere
        heads = now
        backend.close()


@pytest.fixture
def on_the_loop(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The streams the service loads on the event loop's thread (a room loads on its worker)."""
    loaded: list[str] = []
    load = SceneService.load

    def watched(self: SceneService, scene: str) -> Any:
        if threading.current_thread() is threading.main_thread():
            loaded.append(scene)
        return load(self, scene)

    monkeypatch.setattr(SceneService, "load", watched)
    return loaded


async def test_an_npc_added_by_hand_is_not_registered_while_in_a_scene_no_room_holds(
    backend: Backend, on_the_loop: list[str]
) -> None:
    """The night reads its open scenes to register a character: one no room holds (idle, unloaded)
    is loaded first by its own room, off the event loop, and the NPC added there by hand is found."""
    rat = {"id": "rat", "name": "Rat", "npc": True, "traits": {"physical": {"Quick": 1}}}
    async with running(backend, idle_after=0.2) as live, Client(live.url, backend.tokens.issue("g1", "st")[0]) as st:
        await st_do(st, "g1", "open_game", ruleset="lotn", title="Friday at Elysium")
        await st.subscribe()  # the night stays loaded; the scene, which nobody follows, does not
        await st_do(st, "bar", "open_scene", ruleset="lotn", title="The bar", game="g1")
        await st_do(st, "bar", "add_character", character=rat)
        with anyio.fail_after(5):
            while "bar" in live.hub.rooms or live.hub.service.cached("bar") is not None:
                await anyio.sleep(0.05)  # idle: unloaded
        refused = await st.send({"type": "register_character", "scene": "g1", "character": rat})
        assert refused["error"]["code"] == "in_a_scene" and "The bar" in refused["error"]["message"]
        assert "bar" in live.hub.rooms and on_the_loop == []  # loaded by its room, off the loop
        assert "rat" not in st.view["characters"]


async def test_a_scene_adding_a_character_or_opened_has_its_night_loaded_off_the_loop(
    backend: Backend, on_the_loop: list[str]
) -> None:
    """A scene of a night reads the night to add a character by its sheet (a character of the night
    comes in from it), and a scene opened in a night reads it too: a night no room holds (idle,
    unloaded) is loaded first by its own room."""
    token = backend.tokens.issue("g1", "st")[0]
    async with running(backend, idle_after=0.2) as live, Client(live.url, token) as st:
        await st_do(st, "g1", "open_game", ruleset="lotn", title="Friday at Elysium")
        await st_do(st, "g1", "register_character", character=SAM)
        await st_do(st, "bar", "open_scene", ruleset="lotn", title="The bar", game="g1")
        async with Client(live.url, backend.tokens.issue("bar", "st")[0]) as there:  # the scene's own link
            await there.subscribe()  # the scene stays loaded; the night, which nobody follows, does not
            with anyio.fail_after(5):
                while "g1" in live.hub.rooms or live.hub.service.cached("g1") is not None:
                    await anyio.sleep(0.05)
            refused = await there.send({"type": "add_character", "character": SAM})
            assert refused["error"]["code"] == "night_character"
            assert "g1" in live.hub.rooms and on_the_loop == []  # loaded by its room, off the loop
            with anyio.fail_after(5):
                while "g1" in live.hub.rooms or live.hub.service.cached("g1") is not None:
                    await anyio.sleep(0.05)
        async with Client(live.url, backend.tokens.issue("cellar", "st")[0]) as cellar:  # and a scene opened in it
            await st_do(cellar, "cellar", "open_scene", ruleset="lotn", title="The cellar", game="g1")
            assert on_the_loop == []
