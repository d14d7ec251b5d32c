"""A changed mind while offline (Playwright driving Debian's Chromium on a 390x844 phone against a
real server on loopback): Sam, offline, taps Scissors and then Paper; the page keeps only the newer
throw (the same move: the same type, challenge and character), the card says "Queued: Paper — goes
when you are back online" instead of "Your throw is due", and once back online only Paper goes to
the server, which takes it. Two moves of different kinds both wait and both go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from domain.events import ThrowSealed
from server.app import Running
from tests.live.test_web import PHONE, accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOTS = Path("/tmp")


def sent_frames(page: Page) -> list[dict[str, object]]:
    """Every message the page puts on its sockets from now on, decoded."""
    frames: list[dict[str, object]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(json.loads(payload))))
    return frames


async def test_a_changed_mind_offline_sends_only_the_newer_throw(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    async with Client(live.url, tokens["juan"]) as juan:
        declared = await juan.send(
            {
                "type": "declare",
                "challenge": "shove",
                "kind": "contested",
                "targets": ["sam"],
                "category": "physical",
                "bid": ["Brutal"],
                "victory": "Out of my way",
            }
        )
        assert declared["ok"], declared
    async with Client(live.url, tokens["sam"]) as sam_client:
        assert (await sam_client.send({"type": "bid", "challenge": "shove", "bid": ["Brawny"]}))["ok"]
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    frames = sent_frames(sam)  # the sockets opened from here on: the reconnect's
    card = sam.locator("#challenges article").filter(has_text="Juan challenges you")
    await expect(card.locator(".waiting")).to_have_text("Now: both sides are in: throw")
    await expect(sam.locator("button.due")).to_have_text("Throw now")
    throws = card.get_by_role("group", name="Throw")

    await sam.context.set_offline(True)
    await expect(sam.locator(".offline-note")).to_have_text("You are offline; commands wait until you're back.")
    await throws.get_by_role("button", name="Scissors").click()
    queued = card.locator(".queued")
    await expect(queued).to_have_text("Queued: Scissors — goes when you are back online")
    await expect(card.locator(".waiting")).to_be_hidden()  # no "throw" still asked for: it is made
    await expect(sam.locator("button.due")).to_be_hidden()  # nor by the banner, nor the tab's title
    assert not (await sam.title()).startswith("●")
    await throws.get_by_role("button", name="Paper").click()  # a changed mind
    await expect(queued).to_have_text("Queued: Paper — goes when you are back online")
    await expect(card).not_to_contain_text("Scissors —")
    assert await sam.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await accessible(sam)
    await card.scroll_into_view_if_needed()
    await sam.screenshot(path=SHOTS / "i27-bits-offline-queued.png")
    assert not [r for r in live.hub.backend.store.read("s1") if isinstance(r.event, ThrowSealed)]

    await sam.context.set_offline(False)
    await expect(card).to_contain_text("Your sealed throw: Paper")
    await expect(sam.locator(".toast")).to_have_text("Thrown.")  # not "Refused": nothing was refused
    await expect(queued).to_be_hidden()
    throws_sent = [f for f in frames if f.get("type") == "throw"]
    assert [f["sign"] for f in throws_sent] == ["paper"]  # Scissors never left the phone
    sealed = [r.event for r in live.hub.backend.store.read("s1") if isinstance(r.event, ThrowSealed)]
    assert [(e.character, e.sign) for e in sealed] == [("sam", "paper")]
    await sam.screenshot(path=SHOTS / "i27-bits-offline-sent.png")


async def test_moves_of_different_kinds_both_wait_and_both_go(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Only a newer version of the same move replaces one: a throw in one challenge and a throw
    in another are two moves, and both are sent."""
    async with Client(live.url, tokens["juan"]) as juan:
        for cid in ("one", "two"):
            body = {
                "type": "declare",
                "challenge": cid,
                "kind": "contested",
                "targets": ["sam"],
                "category": "physical",
                "bid": ["Brutal" if cid == "one" else "Quick"],
                "victory": "again",
            }
            assert (await juan.send(body))["ok"]
    async with Client(live.url, tokens["sam"]) as sam_client:
        for cid, trait in (("one", "Brawny"), ("two", "Quick")):
            assert (await sam_client.send({"type": "bid", "challenge": cid, "bid": [trait]}))["ok"]
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    frames = sent_frames(sam)
    cards = sam.locator("#challenges article").filter(has_text="Juan challenges you")
    await expect(cards).to_have_count(2)
    await sam.context.set_offline(True)
    await expect(sam.locator(".offline-note")).to_be_visible()
    for n, sign in ((0, "Rock"), (1, "Scissors")):
        await cards.nth(n).get_by_role("group", name="Throw").get_by_role("button", name=sign).click()
        await expect(cards.nth(n).locator(".queued")).to_have_text(f"Queued: {sign} — goes when you are back online")
    await sam.context.set_offline(False)
    for n, sign in ((0, "Rock"), (1, "Scissors")):
        await expect(cards.nth(n)).to_contain_text(f"Your sealed throw: {sign}")
    assert sorted(f["sign"] for f in frames if f.get("type") == "throw") == ["rock", "scissors"]
