"""The pages' words the new-user review found wrong (items 4 and 8), asked of the page's own
words module in Chromium: a rule folded away is quoted whole when short ("Rock crushes Scissors"
alone is not the rule of a paper-against-scissors test), and an overbid's counts name the overbid
and agree on both phones about who declares first."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page

from domain.rules import RULES
from projections.views import view
from server.app import Running
from tests.live.test_web import PHONE, browser
from tests.test_review_words import tied_at_five

__all__ = ["browser"]  # the fixture, from the other browser tests

pytestmark = pytest.mark.anyio

WORDS = "/static/js/words.js"


@pytest.fixture
async def page(live: Running, browser: Browser) -> Page:
    """A phone's page on the live server, whose words module the tests ask."""
    context = await browser.new_context(viewport=PHONE)
    found = await context.new_page()
    await found.goto(f"{live.web}/")
    return found


async def ask(page: Page, call: str, *args: Any) -> Any:
    """``call(*args)`` of the page's own words module."""
    return await page.evaluate(f"async (args) => (await import({json.dumps(WORDS)})).{call}(...args)", list(args))


async def test_a_short_rule_is_quoted_whole_and_a_long_ones_opening_says_it_goes_on(page: Page) -> None:
    rps = RULES["lotn:rps"].words
    assert await ask(page, "ruleOpening", rps) == rps.removesuffix(".")  # all four signs' words
    opening = await ask(page, "ruleOpening", RULES["lotn:trait-loss"].words)
    assert opening.endswith("…") and RULES["lotn:trait-loss"].words.startswith(opening.removesuffix("…"))
    stacking = await ask(page, "ruleOpening", RULES["camarilla:stacking"].words)
    assert stacking == "Powers or effects that cause additional damage can be stacked without…"


def seen_by(who: str) -> tuple[Any, Any]:
    """Marcus's challenge to Rosa drawn at 5 Traits each; Rosa overbids, and the counts are due:
    the view ``who`` is sent, and the challenge in it, as the page gets them."""
    t = tied_at_five()
    t.do("rosa", "retest", challenge="d", source={"category": "overbid", "bid": ["Quick"]})
    seen = msgspec.to_builtins(view(t.state, who))
    return seen, seen["challenges"]["d"]


async def test_the_now_lines_of_an_overbid_name_it_and_agree_on_who_declares_first(page: Page) -> None:
    """Review 8: Rosa's page said "a tie: waiting for Marcus and you to declare Traits" while
    Marcus's said "waiting for Rosa to declare Traits first": Rosa, who called the overbid,
    declares first (lotn:overbid-double), and both pages say so, naming the overbid."""
    rosa = await ask(page, "waitingFor", *seen_by("rosa"))
    marcus = await ask(page, "waitingFor", *seen_by("marcus"))
    st = await ask(page, "waitingFor", *seen_by("st"))
    assert rosa == "your overbid: your count of Traits is due first; then Marcus"
    assert marcus == "Rosa's overbid: waiting for Rosa to declare Traits first; then you"
    assert st == "Rosa's overbid: waiting for Rosa to declare Traits first; then Marcus"
