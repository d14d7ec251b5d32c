"""The adversarial review of game nights (issue 15) on a real server, with real websocket clients
(and Chromium for the pages): what-ifs are the Storyteller's alone; a player's night link opens the
scene its character is in and the closed ones it was in, never an open one it has left; refusals
name no scene; players read no scene of the night but their own; a scene's Storyteller gets only
its characters' ledgers; a token holds a bounded number of connections; and user text neither
widens a phone's page nor turns a sentence around."""

from __future__ import annotations

import io
import json
import queue
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import anyio
import msgspec
import pytest
from playwright.async_api import Browser, Page, expect
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients import terminal
from clients.client import Client
from domain.events import CharacterAdded
from domain.sheets import Sheet
from server.app import Running
from server.backend import Backend
from server.wire import CONNECTIONS
from tests.live.conftest import until
from tests.live.test_night_live import SceneClient, night, raw_refusal, st_do
from tests.live.test_web import browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser", "night"]  # the fixtures, from the other tests

TONIGHT = "“Friday at Elysium”"
ESC = {"id": "esc", "name": "Esc", "traits": {"physical": {"Quick": 1}, "social": {}, "mental": {}}}
CLOSED_TO = (
    f"Your link for {TONIGHT} does not open that scene: it opens the scene you are in now and the closed "
    "scenes you have been in tonight."
)
CLOSED_TO_SPECTATORS = f"Your link for {TONIGHT} does not open that scene: it opens the scenes played tonight."
Night = tuple[Client, dict[str, str]]


async def where_is(st: Client, who: str, scene: str | None) -> None:
    """Wait until the night (the ST's view of it) has ``who`` in ``scene`` (None: between scenes)."""
    await until(st, lambda c: (c.view["night"]["where"].get(who) or {}).get("scene") == scene)


@pytest.fixture
async def park(live: Running, backend: Backend, night: Night) -> AsyncIterator[Night]:
    """The night with “Park” (Rosa and Sam in it) and “The docks” (Juan in it) open; the ST's night
    client subscribed."""
    st, links = night
    await st_do(st, "park", "open_scene", ruleset="lotn", title="Park", game="g1")
    await st_do(st, "docks", "open_scene", ruleset="lotn", title="The docks", game="g1")
    for who, scene in (("rosa", "park"), ("sam", "park"), ("juan", "docks")):
        await st_do(st, "g1", "move_character", character=who, to=scene)
        await where_is(st, who, scene)
    await until(st, lambda c: backend.store.head("park")[0] == 3 and backend.store.head("docks")[0] == 2)
    yield st, links


async def test_a_what_if_opens_to_the_storyteller_alone(live: Running, backend: Backend, park: Night) -> None:
    """The ST forks Park (Sam is in it, so the fork holds him too): Sam's night link and the
    spectators' are refused the fork, by its name and by its default name, to read or to act, even
    once the fork is closed; the night's Storyteller link opens it; nothing was written to it."""
    _, links = park
    night_st = backend.tokens.issue("g1", "st")[0]
    async with SceneClient(live.url, night_st, "park", keep=True) as console:
        await console.subscribe()
        named = await console.request({"type": "fork", "at": 3, "scene": "parkfork"}, "forked")
        unnamed = await console.request({"type": "fork", "at": 3}, "forked")
    assert named["scene"] == "parkfork" and unnamed["scene"] == "park-at-3"
    heads = {fork: backend.store.head(fork)[0] for fork in ("parkfork", "park-at-3")}
    for fork in ("parkfork", "park-at-3"):
        refused = await raw_refusal(live.url, links["sam"], {"type": "subscribe", "scene": fork})
        assert refused == {"type": "error", "code": "forbidden", "message": CLOSED_TO}
        declare = {"type": "declare", "id": "sf1", "scene": fork, "challenge": "w1", "kind": "contested"}
        declare |= {"targets": ["rosa"], "category": "physical", "bid": ["Brawny"]}
        acted = await raw_refusal(live.url, links["sam"], declare)
        assert acted["id"] == "sf1" and acted["error"] == {"code": "forbidden", "message": CLOSED_TO}
        watched = await raw_refusal(live.url, links["*"], {"type": "subscribe", "scene": fork})
        assert watched == {"type": "error", "code": "forbidden", "message": CLOSED_TO_SPECTATORS}
    assert {fork: backend.store.head(fork)[0] for fork in heads} == heads
    async with Client(live.url, named["token"], keep=True) as fork_st:  # the what-if closed: still the ST's
        assert (await fork_st.send({"type": "close_scene"}))["ok"]
    refused = await raw_refusal(live.url, links["sam"], {"type": "subscribe", "scene": "parkfork"})
    assert refused["message"] == CLOSED_TO
    async with SceneClient(live.url, night_st, "parkfork") as storyteller:
        await storyteller.subscribe()
        assert storyteller.view["forked_from"]["scene"] == "park"


async def test_a_player_who_left_an_open_scene_looks_back_once_it_closes(
    live: Running, backend: Backend, park: Night
) -> None:
    """Rosa is sent out of Park while it goes on: her night link is refused Park, to watch or to
    dispute (on a fresh socket and on the one she had open there), so she never reads what happens
    there after she left (a dispute from there, of a step of no challenge of hers, is refused too:
    tests/live/test_night_disputes.py has the results of hers she may dispute); once Park closes
    she opens it again and disputes a step, as a player may with a closed scene."""
    st, links = park
    rosa = links["rosa"]
    async with SceneClient(live.url, rosa, "park", keep=True) as there:
        await there.subscribe()
        assert (await there.send({"type": "dispute", "event": 1, "reason": "too dark"}))["ok"]
        await st_do(st, "park", "remove_character", character="rosa")
        await where_is(st, "rosa", None)
        left = "You left “Park”; you can look back at it once it closes."
        only_hers = "You left “Park”: from there you can dispute only the results of challenges you were in."
        again = await there.send({"type": "dispute", "event": 2, "reason": "still too dark"})
        assert again["error"] == {"code": "forbidden", "message": only_hers}
        seen = there.last_seq  # her own leaving was the last commit she got from Park
        assert not there.view["characters"]["rosa"]["present"]
        await st_do(st, "park", "adjust", character="sam", changes={"willpower": 1}, reason="Sam rallies")
        await st_do(st, "park", "add_character", character=ESC)  # who comes in after her is not hers to see
        history = await there.request({"type": "history", "before": 99, "limit": 50}, "history")
        assert history == {"type": "error", "code": "forbidden", "message": left}
        view = await there.request({"type": "get_view"}, "view")
        assert view == {"type": "error", "code": "forbidden", "message": left}
        assert there.last_seq == seen and "esc" not in there.view["characters"]
    refused = await raw_refusal(live.url, rosa, {"type": "subscribe", "scene": "park"})
    assert refused == {"type": "error", "code": "forbidden", "message": left}
    head = backend.store.head("park")[0]
    dispute = {"type": "dispute", "id": "d2", "scene": "park", "event": 2, "reason": "x"}
    disputed = await raw_refusal(live.url, rosa, dispute)
    assert disputed["error"]["message"] == only_hers and backend.store.head("park")[0] == head
    refused = await raw_refusal(live.url, links["juan"], {"type": "subscribe", "scene": "park"})  # never in it
    assert refused["message"] == CLOSED_TO

    await st_do(st, "park", "close_scene")
    await where_is(st, "sam", None)
    async with SceneClient(live.url, rosa, "park", keep=True) as back:
        await back.subscribe()
        assert back.view["status"] == "closed"
        later = await back.send({"type": "dispute", "event": 2, "reason": "looking back"})
        assert later["ok"], later
    assert any(r.type == "character_added" for r in backend.store.read("park"))  # now hers to read
    kinds = [(r.type, r.actor) for r in backend.store.read("park")]
    assert kinds.count(("dispute_opened", "rosa")) == 2


async def test_refusals_name_no_scene_and_players_read_no_other_scene(
    live: Running, backend: Backend, park: Night
) -> None:
    """Juan (in the docks) asks for Park (open, never his), a scene that is not there, a scene of
    no night: one refusal each time, naming nothing. His night's events, as he reads them, name no
    other scene: no title, no id, no follow-up id (``~back-park-…``) — words included."""
    st, links = park
    juan = links["juan"]
    for scene in ("park", "nope", "s1"):
        refused = await raw_refusal(live.url, juan, {"type": "subscribe", "scene": scene})
        assert refused == {"type": "error", "code": "forbidden", "message": CLOSED_TO}, scene
        acted = await raw_refusal(live.url, juan, {"type": "relent", "id": "r1", "scene": scene, "challenge": "c"})
        assert acted["error"]["message"] == CLOSED_TO, scene
    await st_do(st, "park", "remove_character", character="rosa")
    await where_is(st, "rosa", None)
    await st_do(st, "park", "close_scene")
    await where_is(st, "sam", None)
    async with connect(live.url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": juan}))
        await ws.send(json.dumps({"type": "subscribe", "since": 0, "summaries": True}))
        frames = await frames_until_subscribed(ws)
    text = "\n".join(frames)
    assert "scene_added" in text and "scene_ended" in text and "character_returned" in text
    assert "Park" not in text and "park" not in text, text
    for frame in frames:
        message = json.loads(frame)
        for event in message.get("events", []):
            if event["command"].startswith("~"):
                assert event["command"] == "~" and "command" in event["redacted"]


async def frames_until_subscribed(ws: ClientConnection) -> list[str]:
    frames: list[str] = []
    with anyio.fail_after(10):
        while True:
            frame = str(await ws.recv())
            frames.append(frame)
            if json.loads(frame)["type"] == "subscribed":
                return frames


async def test_a_scenes_storyteller_gets_its_characters_ledgers_alone(
    live: Running, backend: Backend, park: Night
) -> None:
    """The ledger: the night's Storyteller link gets every character's; a Storyteller link for Park
    alone (``scene new --game``'s) gets Rosa's and Sam's, who have been in Park, not Juan's."""
    async with Client(live.url, backend.tokens.issue("g1", "st")[0], keep=True) as night_st:
        everyone = json.loads((await night_st.request({"type": "ledger"}, "document"))["text"])
    assert sorted(b["character"] for b in everyone["ledgers"]) == ["juan", "rosa", "sam"]
    async with Client(live.url, backend.tokens.issue("park", "st")[0], keep=True) as park_st:
        doc = await park_st.request({"type": "ledger"}, "document")
    assert doc["type"] == "document", doc
    mine = json.loads(doc["text"])
    assert sorted(b["character"] for b in mine["ledgers"]) == ["rosa", "sam"]
    assert "docks" not in doc["text"] and "The docks" not in doc["text"]


async def hello(url: str, token: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


async def test_a_token_holds_a_bounded_number_of_connections(
    live: Running, backend: Backend, tokens: dict[str, str]
) -> None:
    """Sam's token holds ``CONNECTIONS`` connections at once; the next is told why and closed
    (1008); once one closes, another may open. Another player's token is not counted with his; a
    spectators' link (shared with the room) holds more."""
    held = [await hello(live.url, tokens["sam"]) for _ in range(CONNECTIONS)]
    for ws in held:
        assert json.loads(await ws.recv())["type"] == "welcome"
    extra = await hello(live.url, tokens["sam"])
    error = json.loads(await extra.recv())
    reason = f"This link is open in {CONNECTIONS} places already: close one (a tab, a phone) and try again."
    assert error == {"type": "error", "code": "too_many_connections", "message": reason}
    with anyio.fail_after(5), pytest.raises(ConnectionClosed) as closed:
        await extra.recv()
    assert closed.value.rcvd is not None and (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, reason)
    juan = await hello(live.url, tokens["juan"])
    assert json.loads(await juan.recv())["type"] == "welcome"
    await held.pop().close()
    with anyio.fail_after(5):
        while True:  # the server lets the closed one go
            again = await hello(live.url, tokens["sam"])
            if json.loads(await again.recv())["type"] == "welcome":
                break
            await again.close()
            await anyio.sleep(0.05)
    spectators = [await hello(live.url, tokens["spectator"]) for _ in range(CONNECTIONS + 2)]
    for ws in spectators:
        assert json.loads(await ws.recv())["type"] == "welcome"
    for ws in [*held, again, juan, *spectators]:
        await ws.close()


# -- the pages ------------------------------------------------------------------------------------

LONG = "W" * 2000


async def no_sideways_scroll(page: Page) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide"


async def test_a_long_unbroken_victory_condition_never_widens_a_phone(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Sam declares with a 2,000-character victory condition without a space: Juan's page (the
    card he answers, the timeline) and the ST's console stay 390 px wide."""
    async with Client(live.url, tokens["sam"], keep=True) as sam:
        declared = await sam.send(
            {
                "type": "declare",
                "challenge": "long1",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": LONG,
            }
        )
        assert declared["ok"], declared
    juan = await phone(browser, f"{live.web}/play#token={tokens['juan']}")
    await expect(juan.get_by_text(LONG[:50], exact=False).first).to_be_visible()
    await no_sideways_scroll(juan)
    console = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await expect(console.get_by_text(LONG[:50], exact=False).first).to_be_attached()
    await no_sideways_scroll(console)


async def test_a_name_with_a_direction_override_does_not_turn_the_sentence_around(
    live: Running, backend: Backend, tokens: dict[str, str], browser: Browser
) -> None:
    """A character stored before names refused direction overrides (“Esc” then U+202E then “ape”)
    joins the scene: on the console, the words after its name still read left to right, each
    after the one before it on the line."""
    sheet = msgspec.convert({"id": "esc", "name": "Esc", "traits": {"physical": {"Quick": 1}}}, Sheet)
    added = CharacterAdded(character=msgspec.structs.replace(sheet, name="Esc\u202eape"))
    version = backend.store.head("s1")[0]
    backend.store.append("s1", version, [added], command="old-esc", digest="old", actor="st", at=datetime.now(UTC))
    console = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st_view(console, "Log")
    line = console.locator("#timeline li").filter(has_text="joins the scene").filter(has_text="Esc").first
    await expect(line).to_be_visible()
    order = await line.evaluate(ORDER, ["joins", "the", "scene"])
    assert order == sorted(order), f"the words after the name are turned around: {order}"


ORDER = """(li, words) => {
  // the left edge of each word, as drawn (a Range over its letters)
  const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
  const xs = [];
  for (const word of words) {
    walker.currentNode = li;
    let node, x = null;
    while ((node = walker.nextNode())) {
      const at = node.data.indexOf(word);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      x = Math.round(range.getBoundingClientRect().left);
      break;
    }
    xs.push(x);
  }
  return xs;
}"""


async def test_the_terminal_never_prints_a_control_character(
    live: Running, backend: Backend, tokens: dict[str, str]
) -> None:
    """``justicar join``: a character stored before names refused control characters (its name
    clears the screen and retitles the terminal) joins while the Storyteller's terminal follows the
    scene: its news is printed with them as codes."""
    lines: queue.Queue[str] = queue.Queue()

    class Typed:
        """stdin: a line when the test types it."""

        def readline(self) -> str:
            return lines.get()

    out = io.StringIO()
    async with anyio.create_task_group() as tg:
        done: list[int] = []

        async def join() -> None:
            done.append(await terminal.run(live.url, tokens["st"], Typed(), out))  # type: ignore[arg-type]

        tg.start_soon(join)
        with anyio.fail_after(10):
            while "No open challenge." not in out.getvalue():
                await anyio.sleep(0.02)
        sheet = msgspec.convert({"id": "esc", "name": "Esc", "traits": {"physical": {"Quick": 1}}}, Sheet)
        added = CharacterAdded(character=msgspec.structs.replace(sheet, name="Esc\x1b[2J\x1b]0;pwned\x07"))
        version = backend.store.head("s1")[0]
        backend.store.append("s1", version, [added], command="old-esc", digest="old", actor="st", at=datetime.now(UTC))
        async with Client(live.url, tokens["st"], keep=True) as st:  # the room reads what it had not written
            adjust = {"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": "r"}
            assert (await st.send(adjust))["ok"]
        with anyio.fail_after(10):
            while "pwned" not in out.getvalue():
                await anyio.sleep(0.02)
        lines.put("quit\n")
    assert done == [0]
    printed = out.getvalue()
    assert "Esc⟨U+001B⟩[2J⟨U+001B⟩]0;pwned⟨U+0007⟩" in printed
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", printed)
