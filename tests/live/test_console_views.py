"""The Storyteller's console in views that fit a phone (issue 27, item 3): Now, People, Disputes,
Invitations, Log and Settings, the view in the address so a reload keeps it; one console and one
link for a whole game night, its scenes in tabs that act in their scene; ids only in a "For the
record" fold; a new dispute raises the banner, marks the title and buzzes; and the Now view of every
ruleset within three phone screens in a round of six characters (measured, and printed)."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.conftest import until
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser", "to_view"]

VIEWS = ["Now", "People", "Disputes", "Invitations", "Log", "Settings"]


async def to_view(page: Page, name: str, bar: str = "Console views") -> None:
    """Open a view of the console from its bar (a link, marked aria-current once shown)."""
    link = page.get_by_role("navigation", name=bar).get_by_role("link", name=re.compile(f"^{name}"))
    await link.click()
    await expect(link).to_have_attribute("aria-current", "page")


async def test_the_console_is_in_views_and_a_reload_keeps_the_one_shown(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    errors: list[str] = []
    st.on("pageerror", lambda e: errors.append(str(e)))
    bar = st.get_by_role("navigation", name="Console views")
    assert await bar.get_by_role("link").all_inner_texts() == VIEWS
    await expect(bar.get_by_role("link", name="Now")).to_have_attribute("aria-current", "page")
    await expect(st.locator("#challenges")).to_be_visible()
    await expect(st.locator("#characters")).to_be_hidden()
    await to_view(st, "People")
    await expect(st.locator("#characters")).to_be_visible()
    await expect(st.locator("#challenges")).to_be_hidden()
    assert st.url.endswith("#people")
    await st.reload()
    await expect(st.get_by_role("status").filter(has_text="Live")).to_be_visible()
    await expect(bar.get_by_role("link", name="People")).to_have_attribute("aria-current", "page")
    await expect(st.locator("#characters")).to_be_visible()
    await expect(st).to_have_title("Storyteller · The alley · Justicar")
    for name in VIEWS:
        await to_view(st, name)
        await accessible(st)
    assert errors == []


SCREEN = 844
"""A phone screen's height (390 x 844), in CSS pixels."""

TRAIT_SIX = [
    {"id": "sam", "name": "Sam", "traits": {"physical": {"Brawny": 3, "Quick": 2}}, "abilities": {"Brawl": 2}},
    {"id": "juan", "name": "Juan", "traits": {"physical": {"Strong": 4, "Quick": 1}}, "abilities": {"Dodge": 1}},
    {"id": "rosa", "name": "Rosa", "traits": {"physical": {"Wiry": 3}, "mental": {"Clever": 2}}},
    {"id": "mark", "name": "Mark", "traits": {"physical": {"Tough": 2}, "social": {"Charming": 2}}},
    {"id": "guard", "name": "Guard", "npc": True, "traits": {"physical": {"Tough": 4}}},
    {"id": "thug", "name": "Thug", "npc": True, "traits": {"physical": {"Brutal": 3}}},
]


def pool_sheet(who: str, strength: int, dexterity: int, npc: bool = False) -> dict[str, object]:
    attributes = {"strength": strength, "dexterity": dexterity, "stamina": 2, "charisma": 2, "manipulation": 2}
    attributes |= {"composure": 2, "intelligence": 2, "wits": 3, "resolve": 2}
    sheet = {"id": who, "name": who.capitalize(), "willpower": 3, "attributes": attributes}
    return sheet | {"skills": {"brawl": 2, "dodge": 1}} | ({"npc": True} if npc else {})


POOL_SIX = [
    pool_sheet("sam", 3, 4),
    pool_sheet("juan", 3, 3),
    pool_sheet("rosa", 2, 3),
    pool_sheet("mark", 4, 2),
    pool_sheet("guard", 3, 2, npc=True),
    pool_sheet("thug", 4, 1, npc=True),
]
TARGETS = {"sam": "juan", "juan": "sam", "rosa": "guard", "mark": "thug", "guard": "rosa", "thug": "mark"}


async def table_of_six(live: Running, tokens: dict[str, str], ruleset: str) -> str:
    """A scene of `ruleset` with six characters (four players', two NPCs) in a round where the
    ruleset has rounds (every action declared, expenditures done: the round is acting), and one
    challenge open, declared by the first to act. Returns the scene's Storyteller token."""
    async with Client(live.url, tokens["st"]) as st:
        opened = await st.request({"type": "create_scene", "ruleset": ruleset, "title": "Six at the docks"}, "scene_created")
    async with Client(live.url, opened["token"], keep=True) as st:
        version = 0

        async def send(body: dict[str, object]) -> None:
            nonlocal version
            reply = await st.send(body)
            assert reply["ok"], reply
            version = max(version, int(reply.get("version") or 0))

        for sheet in POOL_SIX if ruleset == "bns" else TRAIT_SIX:
            await send({"type": "add_character", "character": sheet})
        if ruleset != "lotn":
            await send({"type": "start_round"})
            if ruleset != "bns":
                for who, target in TARGETS.items():
                    action = {"kind": "challenge", "category": "physical", "target": target, "steps": 0}
                    await send({"type": "declare_action", "character": who, "action": action})
            if ruleset == "kony":
                for who in TARGETS:
                    await send({"type": "expenditures_done", "character": who})
        if ruleset != "lotn":
            await st.subscribe()
            await until(st, lambda c: bool((c.view.get("round") or {}).get("turn")))
        view = st.view
        first = view["round"]["turn"][0] if view.get("round") else "sam"
        body = {"type": "declare", "character": first, "challenge": "c1", "kind": "contested",
                "targets": [TARGETS[first]], "category": "physical", "victory": "A swing at the jaw"}  # fmt: skip
        if ruleset == "bns":
            body["pool"] = {"attack": "unarmed"}
        else:
            body["bid"] = [next(iter(next(s for s in TRAIT_SIX if s["id"] == first)["traits"]["physical"]))]
        await send(body)
    return str(opened["token"])


async def screens(page: Page) -> float:
    """The page's height in phone screens, as it stands."""
    return round(await page.evaluate("document.documentElement.scrollHeight") / SCREEN, 2)


@pytest.mark.parametrize("ruleset", ["lotn", "camarilla", "bns", "kony"])
async def test_the_now_view_of_every_ruleset_fits_three_phone_screens(
    live: Running, tokens: dict[str, str], browser: Browser, ruleset: str
) -> None:
    """Six characters in a round (lotn: no rounds, six in the scene) with a challenge open: the Now
    view holds the challenge and the round's turn, within three screens (figures printed)."""
    st = await phone(browser, f"{live.web}/st#token={await table_of_six(live, tokens, ruleset)}")
    await expect(st.locator("#challenges article.challenge").first).to_be_visible()
    if ruleset != "lotn":
        await expect(st.locator("#round")).to_contain_text("Round 1")
    await st.wait_for_timeout(300)  # the rule notes' words arrive after the first draw
    height = await screens(st)
    print(f"\nconsole Now view, {ruleset}, six characters in a round: {height} phone screens")
    await st.screenshot(path=f"/tmp/i27-console-{ruleset}.png", full_page=True)
    assert height <= 3, f"{ruleset}: the Now view is {height} screens"
