"""The timeline's step numbers never skip with no sign (Playwright driving Debian's Chromium at
390x844 against a real server on loopback): a test's resolution told in its reveal's line keeps its
number there ("#12–13"), so every number from the first step shown to the last is on the page; and
where the steps a viewer was sent skip numbers, a line says which are not shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOTS = Path("/tmp")

NUMBERS_SHOWN = """(list) => [...list.querySelectorAll(':scope > li')].filter((li) => !li.hidden && li.dataset.seq)
  .flatMap((li) => [...li.textContent.matchAll(/(?:#|–)(\\d+)/g)].slice(0, 2).map((m) => Number(m[1])))"""
"""The step numbers a reader sees in a timeline: each shown step's own, and the one told with it."""


async def test_a_folded_step_keeps_its_number(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    async with Client(live.url, tokens["sam"]) as sam_client, Client(live.url, tokens["juan"]) as juan_client:
        declare = {
            "type": "declare",
            "challenge": "c",
            "kind": "contested",
            "targets": ["juan"],
            "category": "physical",
            "bid": ["Brawny"],
            "victory": "down",
        }
        assert (await sam_client.send(declare))["ok"]
        assert (await juan_client.send({"type": "bid", "challenge": "c", "bid": ["Brutal"]}))["ok"]
        assert (await sam_client.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
        thrown = await juan_client.send({"type": "throw", "challenge": "c", "sign": "scissors"})
        assert thrown["ok"], thrown
        assert (await juan_client.send({"type": "pass", "challenge": "c"}))["ok"]  # steps after it
    steps = sam.locator("#timeline ol.timeline")
    revealed = steps.locator("li[data-type=test_revealed]")
    resolved = steps.locator("li[data-type=test_resolved]")
    await expect(steps).to_contain_text("Juan passes")
    await expect(resolved).to_be_hidden()  # said once: its words are the reveal's
    seq = int(await resolved.get_attribute("data-seq") or 0)
    shown = await steps.evaluate(NUMBERS_SHOWN)
    assert shown == list(range(shown[0], shown[-1] + 1)), shown  # no number skipped
    await expect(revealed.locator(".seq-with")).to_have_text(f"–{seq} and step {seq}, told with it")
    await expect(revealed).to_contain_text(f"#{seq - 1}–{seq}")
    assert await steps.locator("li.gap").count() == 0  # the server sent every step
    await accessible(sam)
    await revealed.scroll_into_view_if_needed()
    await sam.screenshot(path=SHOTS / "i27-bits-timeline-folded.png")


async def test_steps_not_sent_are_said(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """The page's timeline (words.js), given steps whose numbers skip, as a server that keeps some
    steps from a viewer would send them: the gap is said where it is, and goes when the steps come."""
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    drawn = await sam.evaluate(
        """async () => {
          const { timeline, grow } = await import('/static/js/words.js');
          const step = (seq) => ({ seq, type: 'passed', data: {}, summary: `Step ${seq} happened.` });
          const list = timeline([1, 2, 6, 7, 9].map(step));
          const said = () => [...list.children]
            .map((li) => li.classList.contains('gap') ? li.textContent : Number(li.dataset.seq));
          const before = said();
          grow(list, [3, 4, 5, 8].map(step));
          return [before, said()];
        }"""
    )
    before, after = drawn
    assert before == [1, 2, "Steps 3–5 are not shown to you.", 6, 7, "Step 8 is not shown to you.", 9]
    assert after == list(range(1, 10))
