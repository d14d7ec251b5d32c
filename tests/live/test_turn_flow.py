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
        body = {"type": "create_scene", "ruleset": ruleset, "scene": scene, "title": title}
        made = await st.request(body, "scene_created")
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


AT_JUAN = {"type": "declare", "kind": "contested", "targets": ["juan"], "category": "physical", "victory": "down"}

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
    form_first = f"({order})(document.getElementById('declare'), document.querySelector('.turn-actions'))"
    assert await julian.evaluate(form_first)
    # the fight above the sheet, and the sheet folded while it is on
    assert await julian.evaluate(f"({order})(document.getElementById('round'), document.getElementById('me'))")
    fold = julian.locator("#me details.sheet-fold")
    await expect(fold).not_to_have_attribute("open", "")
    await expect(julian.locator("#me .sheet")).to_be_hidden()
    await expect(julian.get_by_role("region", name="Julian's sheet")).to_contain_text("Dodge 3")  # folded, still read
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
    await expect(turn).to_contain_text("You still have 1 standard and 1 simple action left. End your turn?")
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
    await mark.locator("#me").screenshot(path="/tmp/i27-flow-camarilla-sheet.png")
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


# -- 2. one banner, never over its target -------------------------------------------------------


async def test_one_banner_counts_the_moves_and_never_covers_its_target(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    juan = await phone(browser, live, "s1", "juan")
    await send(live, tokens["sam"], {**AT_JUAN, "challenge": "swing", "bid": ["Brawny"]})
    await send(live, tokens["st"], {**AT_JUAN, "character": "guard", "challenge": "club", "bid": ["Tough"]})
    banner = juan.locator("button.due")
    await expect(banner).to_have_text("2 moves wait: Sam challenges you: bid a Physical Trait")
    await expect(juan.locator(".sticky-top button:visible")).to_have_count(1)  # one banner, no "Also:" on it
    await screen(juan, "lotn-two-moves")
    sams = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await sams.get_by_role("button", name="Bid").click()
    await expect(banner).to_have_text("2 moves wait: Throw now")


async def test_the_banner_never_covers_the_card_or_the_field_being_filled(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    juan = await phone(browser, live, "s1", "juan")
    await send(live, tokens["sam"], {**AT_JUAN, "challenge": "swing", "bid": ["Brawny"]})
    banner = juan.locator("button.due")
    await expect(banner).to_have_text("Sam challenges you: bid a Physical Trait")
    # the page is read from the top, then the banner taken: the card's heading stops under it
    await juan.evaluate("window.scrollTo(0, 0)")
    await banner.click()
    heading = juan.locator("#challenges article").filter(has_text="Sam challenges you").locator("h3")
    await expect(heading).to_be_in_viewport()
    assert await heading.evaluate(BELOW_BANNER) >= 0
    # a field of the form being filled, reached under the banner, is brought out from under it
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    field = card.get_by_label("Your response (optional)")
    await field.evaluate("(el) => window.scrollBy(0, el.getBoundingClientRect().top - 20)")  # under the banner now
    assert await field.evaluate(BELOW_BANNER) < 0
    await field.focus()
    await expect(field).to_be_focused()
    assert await field.evaluate(BELOW_BANNER) >= 0
    await screen(juan, "lotn-field-clear")


async def test_a_move_out_of_turn_says_so(live: Running, browser: Browser) -> None:
    await bns_round(live)
    await send(live, player_token(live, "warehouse", "julian"), {"type": "end_turn"})
    escape = {"type": "declare_action", "action": {"kind": "fair_escape"}}
    await send(live, player_token(live, "warehouse", "edward"), escape)
    rosa = await phone(browser, live, "warehouse", "rosa")
    banner = rosa.locator("button.due")
    await expect(banner).to_have_text("Out of turn: you may attack Edward, who is escaping")
    await expect(rosa.locator("#round").get_by_role("button", name="I will attack Edward")).to_be_in_viewport()
    await screen(rosa, "bns-out-of-turn")


# -- 3. titles, overbids, Negative Traits -------------------------------------------------------


async def test_each_tab_says_what_it_is(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await phone(browser, live, "s1", "sam")
    await expect(sam).to_have_title("Sam · The alley · Justicar")
    await send(live, tokens["juan"], {"type": "declare", "challenge": "t", "kind": "contested", "targets": ["sam"],
                                       "category": "physical", "bid": ["Brutal"], "victory": "down"})  # fmt: skip
    await expect(sam).to_have_title("● Your move · Sam · The alley · Justicar")
    context = sam.context
    join = await context.new_page()
    await join.goto(f"{live.web}/")
    await expect(join).to_have_title("Join a scene · Justicar")
    await join.goto(f"{live.web}/replay")
    await expect(join).to_have_title("Replay · Justicar")


async def test_a_hopeless_overbid_is_not_offered(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """Sam (6 Physical Traits) loses a static test at difficulty 5: no overbid can double it, so
    none is offered; his Brawl retest is."""
    sam = await phone(browser, live, "s1", "sam")
    await send(live, tokens["sam"], {"type": "declare", "challenge": "lock", "kind": "static", "category": "physical",
                                      "bid": ["Brawny"], "difficulty": 5, "victory": "open"})  # fmt: skip
    signs = {"sam": "rock", "st": "paper"}
    await send(live, tokens["st"], {"type": "record_test", "challenge": "lock", "signs": signs})
    card = sam.locator("#challenges article[data-challenge=lock]")
    await expect(card.get_by_role("button", name="Retest: Brawl (ability)")).to_be_visible()
    await expect(card.get_by_role("button", name="Pass: no retest")).to_be_visible()
    await expect(card.get_by_role("button", name="Overbid")).to_have_count(0)
    await expect(card).not_to_contain_text("Overbid")


async def test_a_known_negative_trait_is_one_tap_to_call(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Sam's right guess of Juan's Clumsy was called aloud: in the next challenge it is a button;
    another name stays a guess, typed."""
    opening = {"type": "declare", "kind": "contested", "targets": ["juan"], "category": "physical", "victory": "down"}
    await send(live, tokens["sam"], {**opening, "challenge": "a", "bid": ["Quick"]})
    await send(live, tokens["juan"], {"type": "bid", "challenge": "a", "bid": ["Brutal"]})
    await send(live, tokens["sam"], {"type": "call_negative", "challenge": "a", "trait": "Clumsy"})
    await send(live, tokens["juan"], {"type": "bid", "challenge": "a", "bid": ["Brutal"]})  # the Trait it costs him
    sam = await phone(browser, live, "s1", "sam")
    await send(live, tokens["sam"], {**opening, "challenge": "b", "bid": ["Quick"]})
    await send(live, tokens["juan"], {"type": "bid", "challenge": "b", "bid": ["Quick"]})
    card = sam.locator("#challenges article[data-challenge=b]")
    call = card.get_by_role("button", name="Call Clumsy")
    await expect(call).to_be_visible()
    await expect(card.get_by_label("Call another Negative Trait (a guess)")).to_be_visible()
    await accessible(sam)
    await screen(sam, "lotn-negative-call")
    await call.click()
    await expect(sam.locator(".toast")).to_have_text("Negative Trait called.")
    await expect(card).to_contain_text("Clumsy")


# -- 4. taps, measured --------------------------------------------------------------------------

PLACE = """(el) => {
  const sticky = document.querySelector('.sticky-top');
  const top = sticky && !sticky.contains(el) ? Math.max(0, sticky.getBoundingClientRect().bottom) : 0;
  const box = el.getBoundingClientRect();
  return { top: box.top, bottom: box.bottom, clear: top, height: innerHeight };
}"""

STILL = """() => new Promise((done) => {
  let last = -1, same = 0;
  const look = () => {
    same = scrollY === last ? same + 1 : 0;
    last = scrollY;
    same > 5 ? done(scrollY) : requestAnimationFrame(look);
  };
  look();
})"""
"""Resolves once the page has stopped scrolling (a smooth scroll from the banner has landed)."""


class Thumb:
    """A player's thumb on the phone, counted: a tap is a press on a control (a field typed into
    is one tap, to focus it; a native select is two: open it, pick); a swipe is a screen's worth
    of scrolling to bring the next control out from under the banner or up from below. Works on
    any version of the page: it reads only the labels and the sticky banner."""

    def __init__(self, page: Page) -> None:
        self.page, self.taps, self.swipes = page, 0, 0

    async def _reach(self, target: Locator) -> None:
        await self.page.evaluate(STILL)
        place = await target.evaluate(PLACE)
        usable = place["height"] - place["clear"]
        if place["top"] < place["clear"]:
            need = place["clear"] - place["top"]
        elif place["bottom"] > place["height"]:
            need = place["bottom"] - place["height"]
        else:
            return
        self.swipes += -(-int(need) // int(usable))  # a swipe moves at most one screen (less the banner)
        await self.page.evaluate(f"window.scrollBy(0, {place['top'] - place['clear'] - 8})")

    async def tap(self, target: Locator) -> None:
        await self._reach(target)
        await target.click()
        self.taps += 1

    async def pick(self, target: Locator, label: str) -> None:
        await self._reach(target)
        await target.select_option(label=label)
        self.taps += 2

    async def type(self, target: Locator, text: str) -> None:
        await self._reach(target)
        await target.fill(text)
        self.taps += 1


async def test_taps_a_defender_needs_in_lotn(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """From the banner ("Sam challenges you: bid a Physical Trait") to a sealed throw."""
    juan = await phone(browser, live, "s1", "juan")
    await send(live, tokens["sam"], {**AT_JUAN, "challenge": "swing", "bid": ["Brawny"]})
    banner = juan.locator("button.due")
    await expect(banner).to_contain_text("Sam challenges you: bid a Physical Trait")
    await juan.evaluate("window.scrollTo(0, 0)")  # the phone picked up: the page read from the top
    thumb = Thumb(juan)
    await thumb.tap(banner)
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await screen(juan, "lotn-defender")
    await thumb.tap(card.get_by_role("button", name="Bid", exact=True))
    rock = card.get_by_role("button", name="Rock")
    await expect(rock).to_be_visible()
    await thumb.tap(rock)
    await expect(card).to_contain_text("Your sealed throw: Rock")
    print(f"\nlotn defender, banner to a sealed throw: {thumb.taps} taps, {thumb.swipes} swipes")
    assert thumb.taps + thumb.swipes <= 3, (thumb.taps, thumb.swipes)


async def test_taps_a_bns_attack_needs_on_its_turn(live: Running, browser: Browser) -> None:
    """From the banner ("Your turn…") to the attack declared, on Rosa (the second in the list)."""
    await bns_round(live)
    julian = await phone(browser, live, "warehouse", "julian")
    banner = julian.locator("button.due")
    await expect(banner).to_contain_text("Your turn")
    await julian.evaluate("window.scrollTo(0, 0)")
    thumb = Thumb(julian)
    await thumb.tap(banner)
    form = julian.locator("#declare form")
    await thumb.pick(form.get_by_label("Target", exact=True), "Rosa")
    await thumb.type(form.get_by_label("Victory condition"), "I punch her")
    await thumb.tap(form.get_by_role("button", name="Declare", exact=True))
    await expect(julian.locator(".toast")).to_have_text("Declared.")
    print(f"\nbns attack, banner to the declared attack: {thumb.taps} taps, {thumb.swipes} swipes")
    assert thumb.taps + thumb.swipes <= 5, (thumb.taps, thumb.swipes)
