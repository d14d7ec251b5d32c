"""The table's flow on the player's page (issue 27), on 390x844 phones in Debian's Chromium against
a real server: a round's turn leads to the action (the challenge form opens in the turn card,
filled from the action declared for the round, attack first; the sheet folds below the fight and
its entries start a challenge; "End my turn" asks while an action is left); one banner, never
over what it points at, counting the moves that wait and saying when a move is out of turn; the
tab's title says what the tab is; a hopeless overbid is not offered, and a Negative Trait the
caller knows is one tap. Phone screenshots of every ruleset's turn card go to /tmp/i27-flow-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import PHONE, accessible, browser

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests


def bns_sheet(who: str, strength: int, dexterity: int, stamina: int, wits: int, **extra: Any) -> dict[str, Any]:
    attributes = {"strength": strength, "dexterity": dexterity, "stamina": stamina, "charisma": 2}
    attributes |= {"manipulation": 2, "composure": 2, "intelligence": 2, "wits": wits, "resolve": 2}
    return {"id": who, "name": who.capitalize(), "willpower": 3, "attributes": attributes, **extra}


JULIAN = bns_sheet("julian", 2, 4, 2, 4, skills={"brawl": 1, "dodge": 3})  # initiative 8: first
EDWARD = bns_sheet("edward", 3, 3, 2, 3, skills={"brawl": 2, "dodge": 2})  # 6
ROSA = bns_sheet("rosa", 4, 2, 3, 3, skills={"brawl": 3})  # 5
MARK = {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 5, "Quick": 4}}, "powers": ["Potence"]}
JOE = {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5}}}
VITO = {"id": "vito", "name": "Vito", "traits": {"physical": {"Brawny": 3, "Quick": 3}}, "abilities": {"Brawl": 2}}
NICKY = {"id": "nicky", "name": "Nicky", "traits": {"physical": {"Strong": 4}}}


async def opened(live: Running, ruleset: str, scene: str, *sheets: dict[str, Any], title: str = "") -> str:
    """A new scene of ``ruleset`` with ``sheets``; the Storyteller's token for it."""
    async with Client(live.url, live.hub.backend.tokens.issue("s1", "st")[0]) as st:
        made = await st.request({"type": "create_scene", "ruleset": ruleset, "scene": scene, "title": title}, "scene_created")
    async with Client(live.url, made["token"]) as st:
        for sheet in sheets:
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
    return str(made["token"])


async def send(live: Running, token: str, *bodies: dict[str, Any]) -> None:
    """Commands from one connection (a player's token, or the Storyteller's), each accepted."""
    async with Client(live.url, token) as client:
        for body in bodies:
            reply = await client.send(body)
            assert reply["ok"], (body, reply)


def player_token(live: Running, scene: str, who: str) -> str:
    return live.hub.backend.tokens.issue(scene, "player", who)[0]


async def phone(browser: Browser, live: Running, scene: str, who: str) -> Page:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await context.new_page()
    await page.goto(f"{live.web}/play#token={live.hub.backend.tokens.issue(scene, 'player', who)[0]}")
    await expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    return page


async def screen(page: Page, name: str) -> None:
    """What the phone's screen shows now, as the player sees it."""
    await page.screenshot(path=f"/tmp/i27-flow-{name}.png")


BELOW_BANNER = """(el) => {
  const sticky = document.querySelector('.sticky-top').getBoundingClientRect();
  return Math.round(el.getBoundingClientRect().top - sticky.bottom);
}"""
"""How far below the sticky banner's bottom an element's top is (negative: under it)."""


async def bns_round(live: Running) -> str:
    st = await opened(live, "bns", "warehouse", JULIAN, EDWARD, ROSA, title="The warehouse")
    await send(live, st, {"type": "start_round"})
    return st


# -- 1. the turn leads to the action ------------------------------------------------------------


async def test_a_bns_turn_opens_the_attack_in_the_turn_card(live: Running, browser: Browser) -> None:
    await bns_round(live)
    julian = await phone(browser, live, "warehouse", "julian")
    turn = julian.locator("#round")
    await expect(julian.locator("button.due")).to_have_text("Your turn: attack, or choose another action")
    # the attack first, in the turn card: its form before Escape, Drop prone, Move, Draw
    form = turn.locator("#declare form")
    await expect(form).to_be_visible()
    await expect(turn.get_by_role("heading", name="Attack or challenge")).to_be_visible()
    first = await turn.evaluate(
        "(el) => [...el.querySelectorAll('#declare button, .turn-actions button')].map((b) => b.textContent)[0]"
    )
    assert first != "Escape"
    order = "(a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)"
    assert await julian.evaluate(f"({order})(document.getElementById('declare'), document.querySelector('.turn-actions'))")
    # the fight above the sheet, and the sheet folded while it is on
    assert await julian.evaluate(f"({order})(document.getElementById('round'), document.getElementById('me'))")
    fold = julian.locator("#me details.sheet-fold")
    await expect(fold).not_to_have_attribute("open", "")
    await expect(julian.get_by_role("region", name="Julian's sheet")).to_be_hidden()
    await accessible(julian)
    await screen(julian, "bns-turn")
    # a skill on the sheet starts a challenge with it: the form, filled in, in view
    await julian.locator("#me summary").click()
    await julian.get_by_role("button", name="Challenge with Dodge 3").click()
    await expect(form.get_by_label("Skill", exact=True)).to_have_value("dodge")
    await expect(form.get_by_label("Victory condition")).to_be_focused()
    assert await form.get_by_label("Victory condition").evaluate(BELOW_BANNER) >= 0
    # End my turn asks while an action is left, saying what is left; Cancel keeps the turn
    await turn.get_by_role("button", name="End my turn").click()
    await expect(turn).to_contain_text("You still have 1 standard, 1 simple action left. End your turn?")
    await turn.get_by_role("button", name="Cancel").click()
    await expect(turn).to_contain_text("Your turn.")
    await turn.get_by_role("button", name="End my turn").click()
    await turn.get_by_role("button", name="Confirm: end my turn").click()
    await expect(julian.locator(".toast")).to_have_text("Turn ended.")
    await expect(turn.locator("#declare")).to_have_count(0)  # the form leaves the turn card with the turn


async def test_a_camarilla_turn_fills_the_challenge_from_the_declared_action(live: Running, browser: Browser) -> None:
    st = await opened(live, "camarilla", "docks", MARK, JOE, title="The docks")
    await send(live, st, {"type": "start_round"})
    mark = await phone(browser, live, "docks", "mark")
    await mark.get_by_label("My action this round").select_option("challenge")
    await mark.get_by_label("Its category").select_option("physical")
    await mark.get_by_label("Against").select_option("joe")
    await mark.get_by_role("button", name="Declare my action").click()
    await expect(mark.locator(".toast")).to_have_text("Action declared.")
    await send(live, player_token(live, "docks", "joe"), {"type": "declare_action", "action": {"kind": "none"}})
    turn = mark.locator("#round")
    await expect(mark.locator("button.due")).to_have_text("Your turn: declare your action")
    form = turn.locator("#declare form")
    await expect(form).to_be_visible()
    await expect(form).to_contain_text("From your action this round: Physical against Joe.")
    await expect(form.get_by_label("Target", exact=True)).to_have_value("joe")
    await expect(form.get_by_label("Category")).to_have_value("physical")
    await accessible(mark)
    await screen(mark, "camarilla-turn")
    # a Trait on the sheet bids it; a power names it
    await mark.locator("#me summary").click()
    await mark.get_by_role("button", name="Challenge with Quick ×4").click()
    await expect(form.get_by_label("Trait to bid")).to_have_value("Quick")
    await mark.get_by_role("button", name="Challenge with Potence").click()
    await expect(form.get_by_label("Power", exact=True)).to_have_value("Potence")
    # End my turn asks while the action is left
    await turn.get_by_role("button", name="End my turn").click()
    await expect(turn.get_by_role("button", name="Confirm: end my turn")).to_be_visible()
    await expect(turn).to_contain_text("You have 1 action left. End your turn?")


async def test_a_kony_turn_opens_the_challenge_in_the_turn_card(live: Running, browser: Browser) -> None:
    st = await opened(live, "kony", "docks2", VITO, NICKY, title="Kings of New York")
    await send(live, st, {"type": "start_round"})
    action = {"kind": "challenge", "category": "physical", "target": "nicky"}
    await send(live, player_token(live, "docks2", "vito"), {"type": "declare_action", "action": action})
    await send(live, player_token(live, "docks2", "nicky"), {"type": "declare_action", "action": {"kind": "none"}})
    for who in ("vito", "nicky"):
        await send(live, player_token(live, "docks2", who), {"type": "expenditures_done"})
    page = await phone(browser, live, "docks2", "vito")
    turn = page.locator("#round")
    await expect(page.locator("button.due")).to_have_text("Your turn: declare your action")
    form = turn.locator("#declare form")
    await expect(form).to_be_visible()
    await expect(form.get_by_label("Target", exact=True)).to_have_value("nicky")
    await expect(form).to_contain_text("From your action this round: Physical against Nicky.")
    await accessible(page)
    await screen(page, "kony-turn")
