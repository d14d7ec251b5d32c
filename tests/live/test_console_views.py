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
    """Open a view of the console from its bar (a link, marked aria-current once shown). A console
    with no views (today's main) has everything on one page: nothing to open (the test then fails on
    what it looks for, not on the bar)."""
    if not await page.get_by_role("navigation", name=bar).count():
        return
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


async def table_of_six(live: Running, tokens: dict[str, str], ruleset: str, npc_first: bool = False) -> str:
    """A scene of `ruleset` with six characters (four players', two NPCs) in a round where the
    ruleset has rounds (every action declared, expenditures done: the round is acting), and one
    challenge open, declared by the first to act; ``npc_first`` (bns): the Guard is quickest and
    its turn is open, nothing declared yet (the turn's block holds its attack form). Returns the
    scene's Storyteller token."""
    async with Client(live.url, tokens["st"]) as st:
        body = {"type": "create_scene", "ruleset": ruleset, "title": "Six at the docks"}
        opened = await st.request(body, "scene_created")
    async with Client(live.url, opened["token"], keep=True) as st:

        async def send(body: dict[str, object]) -> None:
            reply = await st.send(body)
            assert reply["ok"], reply

        pool_six = [pool_sheet("guard", 3, 5, npc=True), *POOL_SIX[:4], POOL_SIX[5]] if npc_first else POOL_SIX
        for sheet in pool_six if ruleset == "bns" else TRAIT_SIX:
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
        if npc_first:
            assert first == "guard", view["round"]["turn"]
            return str(opened["token"])
        declare = {"type": "declare", "character": first, "challenge": "c1", "kind": "contested",
                "targets": [TARGETS[first]], "category": "physical", "victory": "A swing at the jaw"}  # fmt: skip
        if ruleset == "bns":
            declare["pool"] = {"attack": "unarmed"}
        else:
            declare["bid"] = [next(iter(next(s for s in TRAIT_SIX if s["id"] == first)["traits"]["physical"]))]
        await send(declare)
    return str(opened["token"])


async def screens(page: Page) -> float:
    """The page's height in phone screens, as it stands."""
    return round(await page.evaluate("document.documentElement.scrollHeight") / SCREEN, 2)


async def settled_screens(page: Page) -> float:
    """The page's height in phone screens once it stays the same for 300 ms (the rule notes' words
    and the other late parts have come; on a loaded machine they come later)."""
    height = await screens(page)
    for _ in range(20):
        await page.wait_for_timeout(300)
        if (now := await screens(page)) == height:
            break
        height = now
    return height


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
    height = await settled_screens(st)  # the rule notes' words arrive after the first draw
    print(f"\nconsole Now view, {ruleset}, six characters in a round: {height} phone screens")
    await st.screenshot(path=f"/tmp/i27-console-{ruleset}.png", full_page=True)
    assert height <= 3, f"{ruleset}: the Now view is {height} screens"
    await no_ids_and_accessible(st, ruleset)


async def test_the_now_view_on_an_npcs_bns_turn_fits_three_phone_screens(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """The same table of six in bns with the Guard (an NPC) first to act: its turn's block opens on
    its attack form (the rest under More, as a player's), within three screens (figure printed)."""
    st = await phone(browser, f"{live.web}/st#token={await table_of_six(live, tokens, 'bns', npc_first=True)}")
    await expect(st.locator("#round")).to_contain_text("Guard's attack or challenge")
    height = await settled_screens(st)
    print(f"\nconsole Now view, bns, six characters, an NPC's turn: {height} phone screens")
    await st.screenshot(path="/tmp/i27-console-bns-npc-turn.png", full_page=True)
    assert height <= 3, f"an NPC's bns turn: the Now view is {height} screens"
    await no_ids_and_accessible(st, "bns")


async def no_ids_and_accessible(st: Page, ruleset: str) -> None:
    text = await st.evaluate("document.body.innerText")
    found = {what: m.group(0) for what, m in ((w, p.search(text)) for w, p in IDS.items()) if m}
    assert found == {}, f"{ruleset}: {found}"
    await accessible(st)


BUZZES = "() => { window.buzzes = []; navigator.vibrate = (pattern) => (window.buzzes.push(pattern), true); }"
"""Every buzz the page asks for, recorded (a desktop Chromium has no vibration of its own)."""


async def lost_and_disputed(
    live: Running, tokens: dict[str, str], backend: Backend, reason: str, step: str = "test_revealed"
) -> int:
    """Sam beats Juan (rock on scissors), and Juan disputes a step of it (the test's): its number."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        if not any(r.type == "test_revealed" for r in backend.store.read("s1")):
            declared = await sam.send(
                {"type": "declare", "challenge": "c1", "kind": "contested", "targets": ["juan"],
                 "category": "physical", "bid": ["Brawny"], "victory": "A swing at his jaw"}
            )  # fmt: skip
            assert declared["ok"], declared
            assert (await juan.send({"type": "bid", "challenge": "c1", "bid": ["Quick"]}))["ok"]
            assert (await sam.send({"type": "throw", "challenge": "c1", "sign": "rock"}))["ok"]
            assert (await juan.send({"type": "throw", "challenge": "c1", "sign": "scissors"}))["ok"]
            assert (await juan.send({"type": "pass", "challenge": "c1"}))["ok"]
        revealed = next(r.seq for r in backend.store.read("s1") if r.type == step)
        disputed = await juan.send({"type": "dispute", "event": revealed, "reason": reason})
        assert disputed["ok"], disputed
    return revealed


async def test_a_new_dispute_raises_the_banner_marks_the_title_and_buzzes(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """The Storyteller is on the People view when Juan disputes: a banner names him and his reason
    (a tap opens the Disputes view), the title reads "● Dispute · …", the phone buzzes; the Now
    view lists it first. With Quiet on, a second dispute marks the page but does not buzz."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st.evaluate(BUZZES)
    await to_view(st, "People")
    banner = st.get_by_role("button", name=re.compile("Juan disputes a result"))
    await expect(banner).to_have_count(0)
    await lost_and_disputed(live, tokens, backend, "He threw late")
    await expect(banner).to_be_visible()
    await expect(banner).to_contain_text("Juan disputes a result: “He threw late”")
    await expect(st).to_have_title("● Dispute · Storyteller · The alley · Justicar")
    assert len(await st.evaluate("window.buzzes")) == 1
    await st.screenshot(path="/tmp/i27-console-dispute-banner.png")
    await banner.click()
    await expect(st.get_by_role("link", name="Disputes (1 open)")).to_have_attribute("aria-current", "page")
    await expect(st.locator("#disputes article").get_by_role("heading")).to_contain_text("Juan disputes step")
    await expect(banner).to_be_hidden()  # the dispute is in front of the Storyteller
    await to_view(st, "Now")
    await expect(st.locator("#now-disputes")).to_contain_text("Juan: “He threw late”")
    await expect(banner).to_be_visible()
    await accessible(st)

    await to_view(st, "Settings")
    await st.get_by_label("Quiet (no sound or vibration)").check()
    await lost_and_disputed(live, tokens, backend, "He never bid", "challenge_declared")
    await expect(st.locator("button.st-due")).to_contain_text("(and 1 more)")
    await expect(st).to_have_title(re.compile("^● Dispute · "))
    assert len(await st.evaluate("window.buzzes")) == 1, "quiet: no buzz"


IDS = {
    "the scene's id": re.compile(r"\bs1\b"),
    "a challenge's id": re.compile(r"\bc1\b"),
    "a token's id": re.compile(r"\bt-[0-9a-f]{6,}\b"),
    "a hash": re.compile(r"\b[0-9a-f]{12,}\b"),
    "a rule id": re.compile(r"\b(lotn|camarilla|bns|kony):[a-z0-9-]+"),
    "the words": re.compile(r"Scene id"),
}


async def test_no_id_hash_or_rule_id_shows_outside_the_record_fold(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """A disputed challenge, links issued and listed: every view says things in words; the ids are
    in the closed "For the record" folds (one a view that has any), and there when opened."""
    await lost_and_disputed(live, tokens, backend, "He threw late")
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await to_view(st, "Invitations")
    await st.get_by_role("button", name="List links").click()
    await expect(st.locator("#invitations table.tokens")).to_be_visible()
    for name in VIEWS:
        await to_view(st, name)
        await st.wait_for_timeout(200)  # the rule notes' words come from /rules.json
        text = await st.evaluate("document.body.innerText")
        found = {what: m.group(0) for what, m in ((w, p.search(text)) for w, p in IDS.items()) if m}
        assert found == {}, f"{name}: {found}"
    await to_view(st, "Settings")
    record = st.locator("#scene details.record")
    await record.locator("summary").click()
    await expect(record).to_contain_text("Scene id")
    await expect(record.locator("dd code").first).to_have_text("s1")
