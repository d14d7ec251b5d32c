"""The Storyteller's console, throwing for an NPC against a player's sealed throw (issue 25, item 7):
it does not show the player's sign above the NPC's throw, and says the throw is blind, in the words
the view made (``projections.views``); once both are in, the test shows both signs (Playwright
driving Debian's Chromium against a real server on loopback)."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import ARTIFACTS, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]


async def test_the_console_throws_for_the_npc_blind(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["st"]) as st:
        declared = await sam.send(
            {"type": "declare", "challenge": "c1", "kind": "contested", "targets": ["guard"],
             "category": "physical", "bid": ["Brawny"], "victory": "Past the gate"}
        )  # fmt: skip
        assert declared["ok"], declared
        assert (await st.send({"type": "bid", "challenge": "c1", "character": "guard", "bid": ["Tough"]}))["ok"]
        assert (await sam.send({"type": "throw", "challenge": "c1", "sign": "scissors"}))["ok"]
        page = await phone(browser, f"{live.web}/st#token={tokens['st']}")
        card = page.locator("#challenges article").filter(has_text="Sam challenges Guard").first
        blind = "You throw for Guard blind: Sam's sign stays sealed until both are in."
        await expect(card.locator("p.blind")).to_have_text(blind)
        await expect(card).to_contain_text("Acting for Guard")
        await expect(card).not_to_contain_text("Sam's sealed throw")
        ARTIFACTS.mkdir(exist_ok=True)
        await card.screenshot(path=ARTIFACTS / "console-blind-throw.png")  # the card, at 390 px
        assert (await st.send({"type": "throw", "challenge": "c1", "character": "guard", "sign": "rock"}))["ok"]
        await expect(card.locator("ol.tests")).to_contain_text("Sam threw scissors")
        await expect(card.locator("p.blind")).to_have_count(0)
