"""One console and one Storyteller link for a whole game night (issue 27, item 3): the night's
console holds its own views and one tab a scene of the night, each tab the scene's console that acts
in that scene; the address keeps the tab and the view across a reload; a dispute in any scene of the
night raises the console's banner and marks its title, and a tap opens it in its scene's tab."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.test_console_views import BUZZES, to_view
from tests.live.test_night_page import NIGHT, backend, tokens
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["backend", "browser", "tokens"]


def kinds(backend: Backend, stream: str) -> list[str]:
    return [r.type for r in backend.store.read(stream)]


async def test_a_night_has_one_console_with_a_tab_a_scene_that_acts_in_it(
    live: Running, backend: Backend, tokens: dict[str, str], browser: Browser
) -> None:
    async with Client(live.url, tokens["st"], keep=True) as client:
        body = {"type": "open_scene", "scene": "parking", "ruleset": "lotn", "title": "The parking lot", "game": NIGHT}
        assert (await client.send(body))["ok"]
        assert (await client.send({"type": "move_character", "scene": NIGHT, "character": "rosa", "to": "parking"}))[
            "ok"
        ]
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st.evaluate(BUZZES)
    tabs = st.get_by_role("navigation", name="Tonight's scenes")
    await expect(tabs.get_by_role("link")).to_have_text(["Whole night", "Elysium", "The parking lot"])
    await expect(tabs.get_by_role("link", name="Whole night")).to_have_attribute("aria-current", "page")
    await expect(st).to_have_title("Storyteller · Friday at Elysium · Justicar")

    # Elysium's tab: its console in this page (no other link, no other page), in views
    pages = len(st.context.pages)
    await tabs.get_by_role("link", name="Elysium").click()
    await expect(tabs.get_by_role("link", name="Elysium")).to_have_attribute("aria-current", "page")
    assert len(st.context.pages) == pages and st.url.endswith("/st#elysium/now")
    await expect(st.locator("header.scene-top")).to_contain_text("Elysium · Laws of the Night")
    await expect(st).to_have_title("Storyteller · Elysium · Friday at Elysium · Justicar")
    await to_view(st, "People")
    await expect(st.locator("#characters")).to_contain_text("Juan")
    await expect(st.locator("#characters")).not_to_contain_text("Rosa")  # she is in the parking lot
    await accessible(st)
    await st.screenshot(path="/tmp/i27-console-night-scene-tab.png", full_page=True)

    # a reload keeps the tab and the view
    await st.reload()
    await expect(tabs.get_by_role("link", name="Elysium")).to_have_attribute("aria-current", "page")
    await expect(st.get_by_role("link", name="People")).to_have_attribute("aria-current", "page")
    await expect(st.locator("#characters")).to_contain_text("Juan")
    await st.evaluate(BUZZES)

    # the parking lot's tab acts in the parking lot: Rosa adjusted there, and only there
    await tabs.get_by_role("link", name="The parking lot").click()
    await to_view(st, "People")
    adjust = st.locator("#characters details").filter(has_text="Adjust Rosa")
    await adjust.locator("summary").click()
    await adjust.get_by_label("Willpower (+/-)").fill("1")
    await adjust.get_by_label("Reason (kept in the log)").fill("a second wind")
    await adjust.get_by_role("button", name="Adjust", exact=True).click()
    await expect(
        st.locator("#characters tr").filter(has_text=re.compile("^Rosa")).get_by_role("status")
    ).to_contain_text("Adjusted.")
    assert kinds(backend, "parking")[-1] == "character_adjusted"
    assert "character_adjusted" not in kinds(backend, "elysium")

    # and Elysium's closes from its tab; the tab says so
    await tabs.get_by_role("link", name="Elysium").click()
    await to_view(st, "Settings")
    await st.get_by_role("button", name="Close the scene").click()
    await st.get_by_role("button", name="Confirm: close the scene").click()
    await expect(tabs.get_by_role("link", name="Elysium (closed)")).to_be_visible()
    assert "scene_closed" in kinds(backend, "elysium")

    # a dispute in Elysium, closed, while the Storyteller is on the night's own tab
    await tabs.get_by_role("link", name="Whole night").click()
    lost = next(r.seq for r in backend.store.read("elysium") if r.type == "test_revealed")
    async with Client(live.url, tokens["sam"], keep=True) as sam:
        disputed = await sam.send({"type": "dispute", "scene": "elysium", "event": lost, "reason": "Juan threw late"})
        assert disputed["ok"], disputed
    banner = st.get_by_role("button", name=re.compile("Sam disputes a result in “Elysium”"))
    await expect(banner).to_contain_text("Sam disputes a result in “Elysium”: “Juan threw late”")
    await expect(st).to_have_title("● Dispute · Storyteller · Friday at Elysium · Justicar")
    await expect(tabs.get_by_role("link", name=re.compile("^Elysium"))).to_contain_text("(1 dispute)")
    assert len(await st.evaluate("window.buzzes")) == 1
    await st.screenshot(path="/tmp/i27-console-night-dispute.png")
    await banner.click()
    await expect(tabs.get_by_role("link", name=re.compile("^Elysium"))).to_have_attribute("aria-current", "page")
    await expect(st.locator("#disputes article").get_by_role("heading")).to_have_text(f"Sam disputes step {lost}")
    await accessible(st)


async def test_the_nights_link_of_a_scene_opens_the_nights_console_on_its_tab(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """The link `scene new --game` prints (the night's key, `&tab=` the scene) opens the night's
    console on that scene's tab."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}&tab=elysium")
    tabs = st.get_by_role("navigation", name="Tonight's scenes")
    await expect(tabs.get_by_role("link", name="Elysium")).to_have_attribute("aria-current", "page")
    assert st.url.endswith("/st#elysium/now")
    await expect(st.locator("header.scene-top")).to_contain_text("Elysium · Laws of the Night")


async def test_a_nights_console_has_one_live_badge_and_rows_that_do_not_start_alike(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """A scene's tab shows one connection badge (the night's), and the two rows of links (the
    night's tabs, the night's own views) do not both start with "Tonight"."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    tabs = st.get_by_role("navigation", name="Tonight's scenes")
    await tabs.get_by_role("link", name=re.compile("^Elysium")).click()
    await expect(st.locator("header.scene-top")).to_contain_text("Elysium · Laws of the Night")
    await expect(st.get_by_role("status").filter(has_text="Live")).to_have_count(1)
    await st.screenshot(path="/tmp/i27-console-night-tab.png")
    await tabs.get_by_role("link").first.click()
    views = st.get_by_role("navigation", name="Tonight's views")
    await expect(views).to_be_visible()
    firsts = [await tabs.get_by_role("link").first.inner_text(), await views.get_by_role("link").first.inner_text()]
    assert firsts[0] != firsts[1] and firsts == ["Whole night", "Who is where"]
    await expect(st.get_by_role("status").filter(has_text="Live")).to_have_count(1)
    await accessible(st)
