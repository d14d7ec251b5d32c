"""The replay page on a phone, against a real server: a challenge played and then overturned by a
ruling reads, step by step, in names and words: no challenge or scene ids, no underscores, no
raw stages, the scene by its title, the rule signed with its book, and no "Live" badge on a
page that only looks back."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import PHONE, accessible, browser, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

CID = "c-0a37ff"
MACHINE = re.compile(r"\b[cs]-[0-9a-f]{4,}|\bs1\b|_|#\d|awaiting|retest window|\bchallenger\b|\bdefender\b")


async def played(live: Running, tokens: dict[str, str]) -> int:
    """Sam's swing at Juan, won with rock over scissors, disputed by Juan and overturned; the seq of
    the challenge's result."""
    async with (
        Client(live.url, tokens["st"]) as st,
        Client(live.url, tokens["sam"]) as sam,
        Client(live.url, tokens["juan"]) as juan,
    ):
        declare = {"type": "declare", "challenge": CID, "kind": "contested", "targets": ["juan"]}
        await sam.send({**declare, "category": "physical", "bid": ["Brawny"], "victory": "a swing at his jaw"})
        await juan.send({"type": "bid", "challenge": CID, "bid": ["Quick"]})
        await sam.send({"type": "throw", "challenge": CID, "sign": "rock"})
        await juan.send({"type": "throw", "challenge": CID, "sign": "scissors"})
        await juan.send({"type": "pass", "challenge": CID})
        steps = (await st.request({"type": "replay"}, "replay"))["steps"]
        resolved = next(s["seq"] for s in steps if s["type"] == "challenge_resolved")
        await juan.send({"type": "dispute", "event": resolved, "reason": "Sam threw after me"})
        await st.send({"type": "rule", "event": resolved, "decision": "overturn", "reason": "Sam threw late"})
        return resolved


async def test_the_replay_reads_in_names_and_words(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    resolved = await played(live, tokens)
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await context.new_page()
    await page.goto(f"{live.web}/replay#token={tokens['st']}")
    header = page.locator("header")
    await expect(header.get_by_role("status")).to_have_text("Connected")  # it looks back: not "Live"
    await expect(header).to_contain_text("The alley · Laws of the Night")  # the scene's title, not its id
    slider = page.get_by_role("slider", name="Step")
    await expect(slider).to_be_visible()
    last = int(await slider.get_attribute("max") or 0)
    assert last > resolved + 2

    detail = page.locator(".step-detail")
    seen: dict[int, str] = {}
    for n in range(1, last + 1):
        await slider.fill(str(n))
        await expect(detail.get_by_role("heading", level=2)).to_have_text(f"Step {n}")
        await expect(page.locator("#state-h")).to_have_text(f"The scene after step {n}")
        seen[n] = await detail.inner_text()
        assert not MACHINE.search(seen[n]), f"step {n}: {MACHINE.search(seen[n])}: {seen[n]}"
        assert not MACHINE.search(await page.locator("section").last.inner_text()), n
    changes = "\n".join(seen.values())
    assert "the challenge ›" not in changes and "› outcome" not in changes  # its words, never its fields
    bid = next(n for n, text in seen.items() if "Juan answers" in text)
    then = detail.get_by_role("region", name="The challenge then")
    await slider.fill(str(bid))
    await expect(then.get_by_role("heading", level=3)).to_have_text("Sam challenges Juan (Physical)")
    await expect(then).to_contain_text("Sam bids Brawny")
    await expect(then).to_contain_text("Juan bids Quick")
    await slider.fill(str(resolved + 1))  # Juan's loss, after the result
    await expect(then).to_contain_text("Test 1: Sam threw rock, Juan threw scissors: Sam wins the test.")
    await expect(then.locator(".verdict")).to_have_text("Sam won: Juan loses Quick")
    last = max(n for n, text in seen.items() if "Juan wins instead of Sam" in text)
    await slider.fill(str(last))  # the correction: the verdict with the Storyteller's reason
    await expect(then.locator(".verdict")).to_contain_text("Juan won")
    await expect(then.locator(".verdict")).to_contain_text(
        "(overturned by the Storyteller: Sam threw late. First given: Sam won)"
    )
    assert "characters" not in changes and "ruleset: Laws of the Night" in seen[1]

    await slider.fill(str(resolved))
    await expect(detail.locator(".step-summary")).to_contain_text("Sam wins the challenge")
    await expect(detail.locator("figcaption")).to_contain_text("Laws of the Night")  # the book, not a file
    assert ".txt" not in await detail.inner_text()
    ruling = next(n for n, text in seen.items() if "The Storyteller overturns" in text)
    await slider.fill(str(ruling))
    await expect(detail.locator(".step-summary")).to_have_text(
        f"The Storyteller overturns the result of Sam's challenge to Juan (step {resolved}): Sam threw late. "
        "Sam's challenge to Juan: Juan wins instead of Sam."
    )
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    assert width == PHONE["width"]
    await accessible(page)
    await shot(page, "replay-words")
