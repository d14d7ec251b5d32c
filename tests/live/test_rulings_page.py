"""Rulings and disputes reach people (issue 27, item 5), on 390x844 phone pages against a real
server: a ruling that takes a Trait raises the banner of the player it touches, with the
Storyteller's reason and what it took, in the server's words (``StateView.ruled``), marks the tab's
title, and the sheet shows the Trait lost; the untouched player's page raises nothing; dismissed,
the banner does not come back on reload. In a game night, a player in one scene disputes a result
of theirs from the scene they left, from the list of their results elsewhere tonight."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from domain.evolve import fold
from server.app import Running
from server.backend import Backend
from tests.live.test_adversary import Night, park, where_is
from tests.live.test_night_disputes import disputes, shoved
from tests.live.test_night_live import night, st_do
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser", "night", "park"]  # the fixtures, from the other tests

SHOTS = Path("/tmp")


async def shot(page: Page, name: str) -> None:
    await page.screenshot(path=SHOTS / f"i27-rulings-{name}.png")
    await page.screenshot(path=SHOTS / f"i27-rulings-{name}-full.png", full_page=True)


async def test_a_ruling_that_takes_a_trait_raises_the_touched_player_s_banner(
    live: Running, backend: Backend, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await phone(browser, f"{live.web}/play#token={tokens['juan']}")
    async with Client(live.url, tokens["sam"]) as me:
        punch = {"type": "declare", "challenge": "punch", "kind": "contested", "targets": ["guard"]}
        assert (await me.send({**punch, "category": "physical", "bid": ["Brawny"]}))["ok"]
    async with Client(live.url, tokens["st"]) as st:
        assert (await st.send({"type": "bid", "challenge": "punch", "character": "guard", "bid": ["Tough"]}))["ok"]
        assert (await st.send({"type": "throw", "challenge": "punch", "character": "guard", "sign": "rock"}))["ok"]
    async with Client(live.url, tokens["sam"]) as me:
        assert (await me.send({"type": "throw", "challenge": "punch", "sign": "paper"}))["ok"]
    async with Client(live.url, tokens["st"]) as st:
        passed = await st.send({"type": "pass", "challenge": "punch", "character": "guard"})
        assert passed["ok"], passed
    result = fold(backend.store.read("s1")).challenges["punch"].resolved_seq
    assert result is not None
    card = sam.locator("#challenges article[data-challenge=punch]")
    await expect(card.locator(".verdict")).to_contain_text("You won")
    banner = sam.locator(".ruled-banner")
    await expect(banner).to_have_count(0)

    async with Client(live.url, tokens["st"]) as st:
        taken = {"character": "sam", "changes": {"lose_traits": ["Brawny"]}}
        ruling = {"type": "rule", "event": result, "decision": "amend", "correction": taken}
        assert (await st.send({**ruling, "reason": "Sam had spent his Brawny earlier tonight"}))["ok"]

    await expect(banner).to_have_count(1)
    await expect(banner.locator(".ruled-words")).to_have_text(
        "The Storyteller amended the result of “You challenge Guard (Physical)”: you lose Brawny."
    )
    await expect(banner.locator(".ruled-reason")).to_have_text("Reason: Sam had spent his Brawny earlier tonight")
    await expect(sam.locator(".ruled-area")).to_have_attribute("role", "status")
    assert (await sam.title()).startswith("● A ruling · Sam · ")
    await expect(sam.locator("#me .lost-trait")).to_contain_text("Brawny")  # the sheet shows it too
    # in the page's flow: it covers nothing (the card's heading and the sheet are below it, in sight)
    box, sheet = await banner.bounding_box(), await sam.locator("#me").bounding_box()
    assert box is not None and sheet is not None and box["y"] + box["height"] <= sheet["y"]
    await accessible(sam)
    await shot(sam, "banner")

    await expect(juan.locator(".ruled-banner")).to_have_count(0)  # Juan: not in it, nothing of his changed
    assert not (await juan.title()).startswith("● A ruling")

    await expect(banner).to_be_in_viewport()  # brought into view as it comes
    await banner.get_by_role("button", name="Show the challenge").click()
    await expect(card).to_be_in_viewport()
    await banner.get_by_role("button", name="Got it").click()
    await expect(banner).to_have_count(0)
    assert not (await sam.title()).startswith("● A ruling")
    await sam.reload()
    await expect(sam.get_by_role("status").filter(has_text="Live")).to_be_visible()
    await expect(sam.locator("#me .lost-trait")).to_contain_text("Brawny")
    await expect(sam.locator(".ruled-banner")).to_have_count(0)  # seen: it does not come back


async def test_a_player_in_one_scene_disputes_a_result_from_the_scene_they_left(
    live: Running, backend: Backend, park: Night, browser: Browser
) -> None:
    st, links = park
    await shoved(live, links)
    result = fold(backend.store.read("park")).challenges["shove"].resolved_seq
    await st_do(st, "park", "remove_character", character="rosa")
    await where_is(st, "rosa", None)
    await st_do(st, "g1", "move_character", character="rosa", to="docks")
    await where_is(st, "rosa", "docks")

    page = await phone(browser, f"{live.web}/play#token={links['rosa']}")
    await expect(page.locator(".night-bar .where")).to_contain_text("The docks")
    elsewhere = page.locator("#elsewhere")
    item = elsewhere.locator("li.elsewhere-result[data-challenge=shove]")
    await expect(item).to_contain_text("In “Park”: You challenge Sam (Physical)")
    await expect(item.locator(".verdict-line")).to_have_text("You won: Sam loses Brawny")
    await item.locator("summary", has_text="Dispute this result").click()
    await item.get_by_label("Why the result is wrong").fill("Sam had Dodge left")
    await accessible(page)
    await item.get_by_role("button", name="Send the dispute").click()
    await expect(item.locator(".outcome")).to_have_text("Sent to the Storyteller.")
    await item.scroll_into_view_if_needed()
    await shot(page, "dispute-elsewhere")
    assert disputes(backend, "park") == [("rosa", result, "Sam had Dodge left")]

    # the Storyteller rules on it in Park: Sam wins instead; what Rosa loses reaches her in the docks,
    # with the ruling's reason, in a banner, and her sheet there says so
    await st_do(st, "park", "rule", event=result, decision="overturn", reason="Sam had Dodge left, as Rosa says")
    banner = page.locator(".ruled-banner")
    await expect(banner).to_have_count(1)
    await expect(banner.locator("h2")).to_have_text("The Storyteller has ruled in “Park”")
    await expect(banner.locator(".ruled-words")).to_have_text(
        "The Storyteller overturned the result of “You challenge Sam (Physical)”: you lose Nimble."
    )
    await expect(banner.locator(".ruled-reason")).to_have_text("Reason: Sam had Dodge left, as Rosa says")
    await expect(banner.locator(".ruled-also")).to_have_text("Also: Sam gets Brawny back.")
    await expect(page.locator("#me .lost-trait")).to_contain_text("Nimble")
    await expect(item.locator(".ruled")).to_contain_text("overturned by the Storyteller")
    await accessible(page)
    await shot(page, "ruled-elsewhere")
    await banner.get_by_role("button", name="Got it").click()
    await expect(banner).to_have_count(0)
