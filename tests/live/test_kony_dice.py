"""kony's dice on two phones (Playwright driving Debian's Chromium at 390x844 against a real server on
loopback): the die count beside the retest boxes follows the boxes as they are ticked; at the
reveal the dice are in the big result, not only inside "How it was decided", each die with what
its face counts as and the faces explained, from the account (``account.faces``, kony:successes);
and a screen reader hears each side's dice as a list of dice ("Your dice: 1, 2"), never "12"."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_bns_fight_web import OVERFLOWING
from tests.live.test_kony_web import JUAN, SAM
from tests.live.test_web import accessible, browser, invite, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOTS = Path("/tmp")


async def answered(live: Running, tokens: dict[str, str], browser: Browser, scene: str) -> tuple[Page, Page, str, str]:
    """Juan's challenge on Sam in a kony scene where players enter their own dice, answered on
    Sam's phone: Sam's and Juan's phones, Juan's link and the Storyteller's token."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {
                "type": "create_scene",
                "ruleset": "kony",
                "title": "Docks",
                "scene": scene,
                "options": {"kony": {"dice": "players"}},  # each player may enter the dice they rolled
            },
            "scene_created",
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, JUAN):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    sam = await phone(browser, await invite(st, "Sam"))
    juan_link = await invite(st, "Juan")
    juan = await phone(browser, juan_link)
    async with Client(live.url, juan_link.split("#token=")[1].split("&")[0]) as juan_client:
        declared = await juan_client.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["sam"],
                "category": "physical",
                "bid": ["Strong"],
                "victory": "I throw him in the river",
            }
        )
        assert declared["ok"], declared
    card = sam.locator("#challenges article").filter(has_text="Juan challenges you")
    await card.get_by_role("button", name="Bid", exact=True).click()
    await expect(card.locator("form.roll")).to_be_visible()
    return sam, juan, juan_link, opened["token"]


async def test_the_die_count_follows_the_boxes(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam, _, _, _ = await answered(live, tokens, browser, "count")
    form = sam.locator("#challenges article").filter(has_text="Juan challenges you").locator("form.roll")
    count = form.locator("p.hint").first  # the count above the boxes
    await expect(count).to_have_text("You roll 1 die: 1 for the test. Each retest named adds a die.")
    await form.get_by_label("Brawl (ability)").check()
    await expect(count).to_have_text("You roll 2 dice: 1 for the test + 1 retest. Each retest named adds a die.")
    await expect(form.get_by_role("button", name="Roll 2 d3s · spends Brawl (ability)")).to_be_visible()
    await form.get_by_label("Potence (power)").check()
    await expect(count).to_contain_text("You roll 3 dice: 1 for the test + 2 retests.")
    await form.get_by_label("Potence (power)").uncheck()
    await expect(count).to_contain_text("You roll 2 dice: 1 for the test + 1 retest.")  # it follows the boxes both ways
    await form.scroll_into_view_if_needed()
    await sam.screenshot(path=SHOTS / "i27-bits-kony-count.png")


async def test_dice_in_the_result_with_their_faces(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam, juan, juan_link, st_token = await answered(live, tokens, browser, "dice")
    card = sam.locator("#challenges article").filter(has_text="Juan challenges you")
    form = card.locator("form.roll")
    await form.get_by_label("Brawl (ability)").check()
    await form.get_by_label("Dice rolled by hand (optional)").fill("1 2")
    await form.get_by_role("button", name="Roll 2 d3s · spends Brawl (ability)").click()
    await expect(card).to_contain_text("Your sealed dice: 1, 2")
    async with Client(live.url, juan_link.split("#token=")[1].split("&")[0]) as juan_client:
        assert (await juan_client.send({"type": "roll", "challenge": "c", "values": [3]}))["ok"]

    for page, mine, theirs in ((sam, "Your dice: 1, 2", "Juan's dice: 3"), (juan, "Juan's", "Sam's dice: 1, 2")):
        result = page.locator("#challenges article.resolved").first
        await expect(result.locator(".verdict")).to_be_visible()
        shown = result.locator(".dice-shown")
        await expect(shown).to_be_visible()  # in the big result, not folded inside "How it was decided"
        assert await shown.evaluate("(el) => !el.closest('details')")
        if page is sam:
            dice = shown.get_by_role("list", name=mine, exact=True)
            await expect(dice.get_by_role("listitem")).to_have_text(["1 a success", "2 a tie"])
            await expect(shown.get_by_role("list", name=theirs, exact=True).get_by_role("listitem")).to_have_text(
                ["3 a failure"]
            )
        else:
            await expect(shown.get_by_role("list", name="Your dice: 3", exact=True)).to_be_visible()
            await expect(shown.get_by_role("list", name=theirs, exact=True)).to_be_visible()
        await expect(shown.locator(".faces")).to_have_text("Each die: 1 is a success, 2 is a tie, 3 is a failure.")
        assert await page.evaluate(OVERFLOWING) == []
        await accessible(page)
    await expect(sam.locator("#challenges article.resolved .verdict").first).to_have_text("You won: Juan loses Strong")
    await sam.locator("#challenges article.resolved").first.scroll_into_view_if_needed()
    await sam.screenshot(path=SHOTS / "i27-bits-kony-result.png")
    await juan.locator("#challenges article.resolved").first.scroll_into_view_if_needed()
    await juan.screenshot(path=SHOTS / "i27-bits-kony-result-juan.png")
    # the faces come with the account (the server's reading of a die), not from the page
    async with Client(live.url, st_token) as st_client:
        await st_client.subscribe()
        account = st_client.view["challenges"]["c"]["account"]
        assert account["faces"] == [
            {"face": 1, "means": "a success"},
            {"face": 2, "means": "a tie"},
            {"face": 3, "means": "a failure"},
        ]
