"""A game night on 390x844 phones against a real server (issue 15): the player's page follows its
character with the night's one link (the scene it is in, on a second socket; between scenes, its
sheet as it stands tonight, with what it lost and where), switching when the Storyteller moves it;
the Storyteller's console of the night (its scenes, who is where, each character's ledger with links
to the steps, a move with its confirmation, a new scene, closing the night) fits a phone; a what-if
of an earlier scene shows how the night's ledger would stand, and the real night does not change."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

import anyio
import msgspec
import pytest
from playwright.async_api import Browser, Page, WebSocket, expect

from clients.client import Client
from domain.commands import parse_command
from server.app import Running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.test_web import accessible, browser, phone, shot, st_view
from tests.night.table import JUAN, ROSA, SAM

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

NIGHT = "g1"


def handle(service: SceneService, stream: str, actor: str, verb: str, n: list[int], **fields: Any) -> None:
    n[0] += 1
    body = {"id": f"seed-{n[0]}", "scene": stream, "actor": actor, "type": verb, **fields}
    done = service.handle(parse_command(msgspec.json.encode(body)))
    assert done.error is None, done.error


@pytest.fixture
def backend() -> Backend:
    """Night g1, “Friday at Elysium”: Sam, Juan and Rosa registered; “Elysium” open with Sam and
    Juan in it, where Juan beats Sam (Wiry against Brawny): Sam loses Brawny for the night."""
    b = open_backend(None)
    service, n = SceneService(b.store), [0]
    handle(service, NIGHT, "st", "open_game", n, ruleset="lotn", title="Friday at Elysium")
    for sheet in (SAM, JUAN, ROSA):
        handle(service, NIGHT, "st", "register_character", n, character=sheet)
    handle(service, "elysium", "st", "open_scene", n, ruleset="lotn", title="Elysium", game=NIGHT)
    for who in ("sam", "juan"):
        handle(service, NIGHT, "st", "move_character", n, character=who, to="elysium")
    fight = {"challenge": "c-1"}
    declare = {"kind": "contested", "targets": ["sam"], "category": "physical", "bid": ["Wiry"]}
    handle(service, "elysium", "juan", "declare", n, **fight, **declare)
    handle(service, "elysium", "sam", "bid", n, **fight, bid=["Brawny"])
    handle(service, "elysium", "juan", "throw", n, **fight, sign="rock")
    handle(service, "elysium", "sam", "throw", n, **fight, sign="scissors")
    handle(service, "elysium", "sam", "pass", n, **fight)  # Sam, losing, does not retest
    assert service.state("elysium").characters["sam"].lost_names == ["Brawny"]
    return b


@pytest.fixture
def tokens(backend: Backend) -> dict[str, str]:
    """One link for the whole night: the Storyteller's, and each player's."""
    return {
        "st": backend.tokens.issue(NIGHT, "st")[0],
        "sam": backend.tokens.issue(NIGHT, "player", "sam")[0],
        "juan": backend.tokens.issue(NIGHT, "player", "juan")[0],
    }


def sockets(page: Page) -> list[WebSocket]:
    """Every websocket the page opens, from now on."""
    opened: list[WebSocket] = []
    page.on("websocket", lambda ws: opened.append(ws))
    return opened


async def open_sockets(opened: list[WebSocket], n: int) -> None:
    """Wait (bounded) until exactly ``n`` of the page's websockets are open."""
    with anyio.fail_after(10):
        while sum(not ws.is_closed() for ws in opened) != n:
            await anyio.sleep(0.05)


async def no_sideways_scroll(page: Page) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "scrolls sideways"


async def test_the_players_page_follows_the_character_from_scene_to_scene(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    sam = await context.new_page()
    opened = sockets(sam)
    await sam.goto(f"{live.web}/play#token={tokens['sam']}")

    # in Elysium: the scene's own page (the same player's page), the loss in its sheet
    bar = sam.get_by_role("region", name="Tonight")
    await expect(bar.get_by_role("status")).to_have_text("You are in “Elysium”.")
    await expect(bar).to_contain_text("Friday at Elysium · Laws of the Night")
    await expect(sam.get_by_role("heading", level=1)).to_have_text("Sam")
    await expect(sam.locator("#me .lost-trait")).to_contain_text("Brawny lost tonight")
    await expect(sam.locator("#timeline")).to_contain_text("You enter “Elysium”.")
    await expect(sam.locator("#timeline")).to_contain_text("You lose Brawny")
    await open_sockets(opened, 2)  # the night's and the scene's
    await accessible(sam)
    await shot(sam, "night-sam-in-elysium")

    async with Client(live.url, tokens["st"], keep=True) as st:
        closed = await st.send({"type": "close_scene", "scene": "elysium"})
        assert closed["ok"], closed

        # between scenes: the sheet as it stands tonight, what was lost and where
        await expect(bar.get_by_role("status")).to_have_text("You are between scenes.")
        await expect(sam.locator("header.top .scene")).to_have_text(
            "Between scenes: the Storyteller sends you into the next one."
        )
        await expect(sam.locator(".lost-where")).to_contain_text("Brawny in “Elysium”")
        await expect(sam.locator("#me .lost-trait")).to_contain_text("Brawny lost tonight")
        await expect(sam.locator("#timeline")).to_contain_text(
            "You come back from “Elysium”, now without Brawny: between scenes."
        )
        await open_sockets(opened, 1)  # the scene's socket closed with the scene
        await accessible(sam)
        await shot(sam, "night-sam-between-scenes")

        opened_scene = await st.send(
            {"type": "open_scene", "scene": "parking", "ruleset": "lotn", "title": "The parking lot", "game": NIGHT}
        )
        assert opened_scene["ok"], opened_scene
        moved = await st.send({"type": "move_character", "scene": NIGHT, "character": "sam", "to": "parking"})
        assert moved["ok"], moved

        # sent into the parking lot: the page switches, the loss carried is still there
        await expect(bar.get_by_role("status")).to_have_text("You are in “The parking lot”.")
        await expect(bar.locator(".carried")).to_have_text(
            "Carried in from earlier tonight: without Brawny (lost in “Elysium”)."
        )
        await expect(sam.locator("#timeline")).to_contain_text(
            "You enter “The parking lot”, still without Brawny (lost earlier tonight)."
        )
        await expect(sam.locator("#me .lost-trait")).to_contain_text("Brawny lost tonight")
        await expect(sam.locator("header.top .scene")).to_contain_text("The parking lot · Laws of the Night")
        await open_sockets(opened, 2)
        await no_sideways_scroll(sam)
        await accessible(sam)
        await shot(sam, "night-sam-in-the-parking-lot")


async def console_of_the_night(browser: Browser, live: Running, token: str) -> Page:
    st = await phone(browser, f"{live.web}/st#token={token}")
    await expect(st.get_by_role("heading", name="Scenes tonight")).to_be_visible()
    return st


async def test_the_night_console_on_a_phone(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    st = await console_of_the_night(browser, live, tokens["st"])
    await expect(st.locator("header.top .scene")).to_have_text("“Friday at Elysium” · game night · Laws of the Night")

    # the scenes, and who is where
    elysium = st.locator("ul.night-scenes li[data-scene=elysium]")
    await expect(elysium).to_contain_text("“Elysium” · open")
    await expect(elysium).to_contain_text("In it: Sam, Juan")
    link = elysium.get_by_role("link", name="Open “Elysium”")
    assert await link.get_attribute("href") == "#elysium/now"  # its tab, in this same console
    people = st.locator("ul.night-people")
    await expect(people.locator("li[data-character=sam]")).to_contain_text("Sam · in “Elysium”")
    await expect(people.locator("li[data-character=rosa]")).to_contain_text("Rosa · between scenes")

    # the ledgers: each loss where it happened, linked to its step, with its book
    await st_view(st, "Ledgers")
    sams = st.locator("details.ledger[data-character=sam]")
    await expect(sams.locator(":scope > summary")).to_have_text("Sam · without Brawny")
    loss = sams.locator("ol.entries li").filter(has_text="Sam loses Brawny (Physical)")
    await expect(loss).to_contain_text("Laws of the Night")
    step = loss.get_by_role("link")
    await expect(step).to_have_text(re.compile(r"Step \d+ in “Elysium”"))
    href = await step.get_attribute("href") or ""
    assert href.startswith("/replay?scene=elysium#token=") and "&step=" in href
    juans = st.locator("details.ledger[data-character=juan]")
    await expect(juans.locator(":scope > summary")).to_have_text("Juan · nothing lost")
    await no_sideways_scroll(st)
    await accessible(st)
    await shot(st, "night-console")

    # the step's link opens the replay of Elysium at that step
    replay = await st.context.new_page()
    await replay.goto(f"{live.web}{href}")
    await expect(replay.locator(".step-detail")).to_contain_text("Sam loses Brawny")
    await replay.close()

    # one link for the whole night: Sam's opens the scene Sam is in
    await st_view(st, "Invitations")
    await st.get_by_label("Invite the player of").select_option(label="Sam")
    await st.get_by_role("button", name="Invite", exact=True).click()
    sams_link = await st.get_by_role("textbox", name="Sam's link").input_value()
    assert "/play#token=" in sams_link
    sam = await phone(browser, sams_link)
    await expect(sam.get_by_role("region", name="Tonight").get_by_role("status")).to_have_text("You are in “Elysium”.")
    await sam.context.close()

    # a new scene of the night, from the console
    await st_view(st, "Who is where")
    await st.get_by_label("Title of a new scene").fill("The parking lot")
    await st.get_by_role("button", name="Open a new scene").click()
    await expect(st.locator("ul.night-scenes li").filter(has_text="The parking lot")).to_contain_text("· open")

    # Rosa, between scenes, is moved with a confirmation: nothing is sent before it
    rosa = people.locator("li[data-character=rosa]")
    await rosa.get_by_label("Send Rosa into").select_option(label="“The parking lot”")
    await rosa.get_by_role("button", name="Move Rosa").click()
    await expect(rosa.locator(".warn")).to_have_text(
        "Send Rosa into “The parking lot”? They take with them what they carry tonight; their player's page follows."
    )
    await shot(st, "night-console-move-confirm")
    await expect(rosa).to_contain_text("between scenes")  # not yet
    await rosa.get_by_role("button", name="Confirm: move Rosa into “The parking lot”").click()
    await expect(people.locator("li[data-character=rosa]")).to_contain_text("Rosa · in “The parking lot”")
    await expect(st.locator("ul.night-scenes li").filter(has_text="The parking lot")).to_contain_text("In it: Rosa")
    await st_view(st, "Log")
    await expect(st.locator("#timeline")).to_contain_text("The Storyteller sends Rosa into “The parking lot”.")
    await st_view(st, "Who is where")

    # the night closes only once its scenes are: then with a confirmation
    await expect(st.locator("#scenes")).to_contain_text("The night closes once every scene of it is closed")
    parking = await st.locator("ul.night-scenes li").filter(has_text="The parking lot").get_attribute("data-scene")
    async with Client(live.url, tokens["st"], keep=True) as client:
        for scene in ("elysium", parking):
            assert (await client.send({"type": "close_scene", "scene": scene}))["ok"]
    await expect(people.locator("li[data-character=rosa]")).to_contain_text("Rosa · between scenes")
    await st.get_by_role("button", name="Close the night").click()
    await st.get_by_role("button", name="Confirm: close the night").click()
    await expect(st.locator("header.top .scene")).to_contain_text("· over")
    await no_sideways_scroll(st)
    await accessible(st)


async def test_a_what_if_of_an_earlier_scene_shows_the_nights_ledger_as_it_would_stand(
    live: Running, backend: Backend, tokens: dict[str, str], browser: Browser
) -> None:
    async with Client(live.url, tokens["st"], keep=True) as client:  # Sam has gone on to the parking lot
        assert (await client.send({"type": "close_scene", "scene": "elysium"}))["ok"]
        body = {"type": "open_scene", "scene": "parking", "ruleset": "lotn", "title": "The parking lot", "game": NIGHT}
        assert (await client.send(body))["ok"]
        assert (await client.send({"type": "move_character", "scene": NIGHT, "character": "sam", "to": "parking"}))[
            "ok"
        ]
    st = await console_of_the_night(browser, live, tokens["st"])
    await st.locator("ul.night-scenes li[data-scene=elysium]").get_by_role("link").click()  # its tab
    scene = st
    tab = scene.get_by_role("navigation", name="Tonight's scenes").get_by_role("link", name=re.compile("^Elysium"))
    await expect(tab).to_have_attribute("aria-current", "page")
    await expect(scene.locator("header.scene-top .scene")).to_contain_text("Elysium")
    await st_view(scene, "Settings")

    # fork Elysium as it stands, and overturn the challenge there
    version = await scene.locator("input[name=at]").get_attribute("max")
    await scene.locator("input[name=at]").fill(str(version))
    await scene.get_by_role("button", name="Fork").click()
    fork_link = scene.get_by_role("link", name="Open its console")
    href = await fork_link.get_attribute("href") or ""
    resolved = next(r.seq for r in backend.store.read("elysium") if r.type == "challenge_resolved")
    async with Client(live.url, unquote(href.split("#token=")[1].split("&")[0]), keep=True) as fork:
        ruled = await fork.send({"type": "rule", "event": resolved, "decision": "overturn", "reason": "Sam had cover"})
        assert ruled["ok"], ruled
    what_if = await phone(browser, f"{live.web}{href}")
    tonight = what_if.locator("#tonight")
    await expect(tonight.get_by_role("heading", name="Tonight's ledger, had it gone this way")).to_be_visible()
    sam = tonight.locator(".what-if-ledger[data-character=sam]")
    await expect(sam.locator(".would-lost")).to_have_text("Would be without: nothing (really: Brawny).")
    await expect(sam.locator("li.would")).to_contain_text("Sam gets Brawny back")
    # the what-if's own token is a scene's: the ledgers of Elysium's characters alone (Rosa never came)
    await expect(tonight.locator(".what-if-ledger[data-character=rosa]")).to_have_count(0)
    await no_sideways_scroll(what_if)
    await accessible(what_if)
    await shot(what_if, "night-what-if-ledger")

    # the real night is as it was: Sam still without Brawny, in the console and in the scene
    await st.goto(f"{live.web}/st#night/ledgers")
    await expect(st.locator("details.ledger[data-character=sam] > summary")).to_have_text("Sam · without Brawny")


async def test_the_ledger_is_the_storytellers_and_a_nights(
    live: Running, backend: Backend, tokens: dict[str, str]
) -> None:
    """``ledger`` on the live connection: the night's ledger to its Storyteller, with each loss's
    step, rule and book; refused to a player, and to a scene of no night."""
    async with Client(live.url, tokens["st"], keep=True) as st:
        doc = await st.request({"type": "ledger"}, "document")
        assert doc["name"] == "g1-ledger.json" and doc["media_type"] == "application/json"
        book = json.loads(doc["text"])
        assert book["night"] == NIGHT and book["title"] == "Friday at Elysium" and book["what_if"] is None
        sam = next(b for b in book["ledgers"] if b["character"] == "sam")
        assert [(e["what"], e["scene"], e["book"], e["by"]) for e in sam["entries"]] == [
            ("Sam loses Brawny (Physical)", "elysium", "Laws of the Night", "play")
        ]
        assert sam["where"] == "elysium" and [lost["trait"] for lost in sam["now"]["lost"]] == ["Brawny"]
    async with Client(live.url, tokens["sam"], keep=True) as player:
        refused = await player.request({"type": "ledger"}, "document")
        assert refused["type"] == "error" and refused["code"] == "forbidden"
    handle(SceneService(backend.store), "alone", "st", "open_scene", [0], ruleset="lotn", title="Alone")
    async with Client(live.url, backend.tokens.issue("alone", "st")[0], keep=True) as alone:
        refused = await alone.request({"type": "ledger"}, "document")
        assert refused["type"] == "error" and refused["code"] == "not_a_game"
