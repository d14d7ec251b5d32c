"""A game night's deadlines from its console (issue 29), on a phone against a real server: the night's
own form sets the deadlines of its next scenes (``set_deadlines`` on the night), and its new-scene
form gives a scene deadlines of its own (``options.deadlines``); both off unless ticked."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from server.app import Running
from server.backend import Backend
from tests.live.test_night_page import NIGHT, backend, tokens
from tests.live.test_web import browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["backend", "browser", "tokens"]


async def test_the_nights_console_sets_the_deadlines_of_its_scenes(
    live: Running, backend: Backend, tokens: dict[str, str], browser: Browser, tmp_path: Path
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    actions = st.locator("#scenes .night-actions")
    fold = actions.locator("details.night-deadlines")
    await fold.locator("summary").click()
    await fold.get_by_role("checkbox", name="Answering a challenge", exact=True).check()
    await fold.get_by_label("Seconds (Answering a challenge)", exact=True).fill("240")
    await fold.get_by_role("button", name="Set tonight's deadlines").click()
    await expect(fold.locator(".outcome")).to_contain_text("✓")
    last = list(backend.store.read(NIGHT))[-1]
    assert last.type == "deadlines_set"
    assert last.event.deadlines.answer is not None and last.event.deadlines.answer.seconds == 240
    await fold.screenshot(path=tmp_path / "night-deadlines.png")

    # a new scene of the night, timing throws itself (acting when time is up)
    form = actions.locator("form").filter(has_text="Open a new scene")
    await form.get_by_label("Title of a new scene").fill("The roof")
    await form.get_by_role("checkbox", name="Throwing or rolling", exact=True).check()
    await form.get_by_label("Seconds (Throwing or rolling)", exact=True).fill("90")
    await form.get_by_label("When time is up (Throwing or rolling)", exact=True).select_option("act")
    await form.get_by_role("button", name="Open a new scene").click()
    tabs = st.get_by_role("navigation", name="Tonight's scenes")
    await expect(tabs.get_by_role("link", name="The roof")).to_be_visible()
    roof = [s for s in backend.store.scenes() if s not in (NIGHT, "elysium")]
    assert len(roof) == 1
    opened = next(iter(backend.store.read(roof[0])))
    assert opened.type == "scene_opened"
    assert opened.event.options["deadlines"] == {"throw": {"seconds": 90, "lapse": "act"}}
