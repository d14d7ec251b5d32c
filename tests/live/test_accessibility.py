"""Every page, as a phone shows it (390×844), read by axe-core (no serious or critical finding),
with every control named, text at 7:1 and placeholders at 4.5:1 on the dark theme
(``accessible``), and nothing wider than the screen: the join page, a player's page during an
open challenge (the one who must answer, the one waiting, then both with their throws offered), a
spectator's page, the Storyteller's console during a round with an NPC to act for, the replay
viewer, and a what-if's console."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import PHONE, accessible, browser, phone, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

WIDE = """() => {
  const scrolls = (el) => { for (el = el.parentElement; el; el = el.parentElement) {
    if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) return true; } return false; };
  const past = [...document.querySelectorAll('body *')].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.right > innerWidth + 0.5 && !el.closest('.skip') && !scrolls(el);
  });
  const spilt = [...document.querySelectorAll('button, select, label, .field')].filter(
    (el) => el.offsetParent && el.scrollWidth > el.clientWidth + 1);
  return {
    width: document.documentElement.scrollWidth,
    past: past.map((el) => el.outerHTML.slice(0, 100)).slice(0, 6),
    spilt: spilt.map((el) => el.outerHTML.slice(0, 100)).slice(0, 6),
  };
}"""
"""How wide the page is, what reaches past the screen's right edge (not inside a box that scrolls
sideways), and which controls' own text runs out of them ("Scissors" out of its button)."""


async def readable(page: Page, name: str) -> None:
    """The checks every page passes, then its screenshot to look at."""
    await accessible(page)
    wide = await page.evaluate(WIDE)
    assert wide == {"width": PHONE["width"], "past": [], "spilt": []}, f"{name}: {wide}"
    await shot(page, f"a11y-{name}")


async def test_the_join_page_and_the_players_pages_during_a_challenge(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    front = await context.new_page()
    await front.goto(live.web + "/")
    await expect(front.get_by_label("Invitation link or token")).to_be_visible()
    await readable(front, "join")

    async with Client(live.url, tokens["sam"]) as sam_client:
        declared = await sam_client.send(
            {
                "type": "declare",
                "challenge": "jaw",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": "A Brawny swing at his jaw",
            }
        )
        assert declared["ok"], declared
    juan = await phone(browser, f"{live.web}/play#token={tokens['juan']}")
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    watcher = await phone(browser, f"{live.web}/play#token={tokens['spectator']}")
    answer = juan.locator("#challenges")
    await expect(answer.get_by_role("button", name="Bid", exact=True)).to_be_visible()
    await readable(juan, "player-to-answer")
    await readable(sam, "player-waiting-for-an-answer")

    await answer.get_by_label("Trait to bid").select_option("Quick")
    await answer.get_by_role("button", name="Bid", exact=True).click()
    for page in (sam, juan):
        await expect(page.locator("#challenges").get_by_role("button", name="Scissors", exact=True)).to_be_visible()
    await readable(sam, "player-to-throw")
    await readable(juan, "player-to-throw-defender")
    await expect(watcher.locator("#challenges")).to_contain_text("Sam")
    await readable(watcher, "spectator")


async def test_the_console_in_a_round_the_replay_and_a_what_if(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sheets = [
        {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 5, "Quick": 4}}},
        {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5}}},
        {"id": "thug", "name": "Thug", "npc": True, "traits": {"physical": {"Tough": 5}}},
    ]
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "camarilla", "title": "The docks"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for sheet in sheets:
            assert (await st_client.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st_client.send({"type": "start_round"}))["ok"]
        for who, target in (("mark", "thug"), ("joe", "mark"), ("thug", "joe")):
            action = {"kind": "challenge", "target": target, "category": "physical"}
            done = await st_client.send({"type": "declare_action", "character": who, "action": action})
            assert done["ok"], done
        fork = await st_client.request({"type": "fork", "at": 4}, "forked")
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    mark = await phone(browser, f"{live.web}/play#token={await invite_token(live, opened['token'], 'mark')}")
    await expect(mark.locator("#round")).to_contain_text("Your turn")
    declare = mark.locator("#declare")
    await declare.get_by_label("Target").select_option(label="Thug")
    await declare.get_by_label("Victory condition").fill("I knock him flat")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    npc = st.locator("#challenges").get_by_role("region", name="Thug's moves")
    await expect(npc).to_contain_text("Acting for Thug")
    await readable(st, "console-round")
    await readable(mark, "player-round")

    replay = await st.context.new_page()
    await replay.goto(f"{live.web}/replay")
    await expect(replay.get_by_role("slider", name="Step")).to_be_visible()
    await readable(replay, "replay")

    what_if = await phone(browser, f"{live.web}/st#token={fork['token']}")
    await expect(what_if.locator("body")).to_contain_text("What-if")
    await readable(what_if, "console-what-if")


async def invite_token(live: Running, st_token: str, character: str) -> str:
    """A player's token for ``character``, asked of the server as the console asks it."""
    async with Client(live.url, st_token) as st_client:
        issued = await st_client.request({"type": "invite", "role": "player", "character": character}, "invited")
    assert issued.get("token"), issued
    return str(issued["token"])
