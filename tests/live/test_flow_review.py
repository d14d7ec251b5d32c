"""The reviewer's findings on the player's page (issue 27, round 2), on 390x844 phones in Debian's
Chromium against a real server: a result of mine lands in sight after my own last move; a bns turn
with no standard action left invites only what is left; the banner and the offline note never
cover the card's heading; the words around a turn, a roll and a tab say plainly what they mean.
Screenshots go to /tmp/i27-flow2-*.png."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_kony_web import JUAN, SAM
from tests.live.test_turn_flow import (
    BELOW_BANNER,
    EDWARD,
    JOE,
    JULIAN,
    MARK,
    ROSA,
    bns_round,
    opened,
    phone,
    player_token,
    send,
)
from tests.live.test_web import accessible, browser

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SETTLED = f"""(el) => new Promise((resolve) => {{
  const below = {BELOW_BANNER};
  let frames = 0;
  const check = () => (below(el) >= 0 || ++frames > 60 ? resolve(below(el)) : requestAnimationFrame(check));
  check();
}})"""
"""How far below the sticky top an element is once the page has settled (the sticky top's growth
seen and answered: at most 60 frames)."""

AT_GUARD = {"type": "declare", "challenge": "shove", "kind": "contested", "targets": ["guard"], "category": "physical"}


async def shot(page: Page, name: str) -> None:
    await page.screenshot(path=f"/tmp/i27-flow2-{name}.png")


async def in_sight(page: Page, selector: str) -> None:
    """``selector`` is on the screen, below the sticky banner (not under it)."""
    element = page.locator(selector)
    await expect(element).to_be_in_viewport()
    assert await element.evaluate(BELOW_BANNER) >= 0


async def test_my_result_is_brought_into_view_after_my_last_move(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await phone(browser, live, "s1", "sam")
    await send(live, tokens["sam"], {**AT_GUARD, "bid": ["Brawny"], "victory": "I shove past him"})
    await send(live, tokens["st"], {"type": "bid", "challenge": "shove", "character": "guard", "bid": ["Tough"]})
    await send(live, tokens["st"], {"type": "throw", "challenge": "shove", "character": "guard", "sign": "rock"})
    card = sam.locator("#challenges article[data-challenge=shove]")
    await card.get_by_role("button", name="Scissors").click()
    await expect(card.get_by_role("button", name="Pass: no retest")).to_be_visible()
    # Sam reads on, down the page, then passes: his result, above, comes back into sight
    await sam.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    await card.get_by_role("button", name="Pass: no retest").click()
    await expect(card.locator(".verdict")).to_contain_text("You lost")
    await in_sight(sam, "#challenges article[data-challenge=shove] h3")
    await shot(sam, "lotn-sam-lost")


async def test_the_defender_sees_their_sealed_throw(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    juan = await phone(browser, live, "s1", "juan")
    body = {"type": "declare", "challenge": "swing", "kind": "contested", "targets": ["juan"], "category": "physical"}
    await send(live, tokens["sam"], {**body, "bid": ["Brawny"], "victory": "I knock him down"})
    card = juan.locator("#challenges article[data-challenge=swing]")
    await juan.locator("button.due").click()
    await card.get_by_role("button", name="Bid", exact=True).click()
    await card.get_by_role("button", name="Paper").click()
    await expect(card).to_contain_text("Your sealed throw")
    await in_sight(juan, "#challenges article[data-challenge=swing] h3")
    await shot(juan, "lotn-juan-sealed")


async def test_a_bns_turn_with_only_a_simple_action_left_invites_only_that(live: Running, browser: Browser) -> None:
    await bns_round(live)
    await send(live, player_token(live, "warehouse", "julian"), {"type": "end_turn"})
    attack = {
        "type": "declare",
        "challenge": "slam",
        "kind": "contested",
        "targets": ["rosa"],
        "pool": {"attack": "unarmed"},
    }
    await send(live, player_token(live, "warehouse", "edward"), {**attack, "category": "physical", "victory": "down"})
    edward = await phone(browser, live, "warehouse", "edward")
    await expect(edward.locator("button.due")).to_have_text("Your turn: 1 simple action left, or end your turn")
    declare = edward.locator("#declare")
    await expect(declare).to_contain_text("No standard action left this round")
    await expect(declare.locator("form")).to_have_count(0)  # no form inviting an attack the server refuses
    turn = edward.locator("#round")
    await turn.get_by_role("button", name="End my turn").click()
    await expect(turn).to_contain_text("You still have 1 simple action left. End your turn?")
    await accessible(edward)
    await shot(edward, "bns-edward-simple-left")


async def test_the_offline_note_never_covers_the_card(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await phone(browser, live, "s1", "sam")
    await send(live, tokens["sam"], {**AT_GUARD, "bid": ["Brawny"], "victory": "I grab the keys"})
    await send(live, tokens["st"], {"type": "bid", "challenge": "shove", "character": "guard", "bid": ["Tough"]})
    await expect(sam.locator("button.due")).to_have_text("Throw now")
    heading = "#challenges article[data-challenge=shove] h3"
    await in_sight(sam, heading)
    await sam.context.set_offline(True)
    await expect(sam.locator(".offline-note")).to_be_visible()
    # the page moves down as the sticky top grows: the heading comes out from under it
    assert await sam.locator(heading).evaluate(SETTLED) >= 0
    await in_sight(sam, heading)
    await shot(sam, "offline")
    await sam.context.set_offline(False)


async def test_words_around_the_turn(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """The Skill and Draw fields hold no grey word that reads as filled in; alone in a scene, no
    empty form; one added after the round started is told it joins next round."""
    st = await opened(live, "bns", "yard", JULIAN, title="The yard")
    julian = await phone(browser, live, "yard", "julian")
    await expect(julian.locator("#declare")).to_contain_text("Nobody here to challenge.")
    await expect(julian.locator("#declare form")).to_have_count(0)
    await send(live, st, {"type": "add_character", "character": EDWARD})
    await send(live, st, {"type": "start_round"})
    form = julian.locator("#round #declare form")
    await expect(form).to_be_visible()
    assert await form.get_by_label("Skill", exact=True).get_attribute("placeholder") is None
    assert await julian.locator("#round").get_by_label("Draw", exact=True).get_attribute("placeholder") is None
    await send(live, st, {"type": "add_character", "character": ROSA})
    rosa = await phone(browser, live, "yard", "rosa")
    await expect(rosa.locator("#round")).to_contain_text("you join the fight next round")
    await shot(rosa, "bns-joins-next")
    await send(live, st, {"type": "end_round"}, {"type": "start_round"})  # and so she does
    await expect(rosa.locator("#round")).to_contain_text("Round 2")
    await expect(rosa.locator("#round")).not_to_contain_text("you join the fight next round")
    await expect(rosa.locator("#round")).to_contain_text("you (5)")


async def test_the_replay_tab_names_its_scene(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await phone(browser, live, "s1", "sam")
    await sam.goto(f"{live.web}/replay#token={tokens['st']}")
    await expect(sam).to_have_title("Replay · The alley · Justicar")


async def test_a_ruling_marks_the_title_even_while_a_move_is_not_due(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """The page's own title logic does not wipe the ruling's mark on its next draw."""
    sam = await phone(browser, live, "s1", "sam")
    await send(live, tokens["sam"], {**AT_GUARD, "bid": ["Brawny"], "victory": "down"})
    await send(live, tokens["st"], {"type": "bid", "challenge": "shove", "character": "guard", "bid": ["Tough"]})
    await send(live, tokens["st"], {"type": "throw", "challenge": "shove", "character": "guard", "sign": "rock"})
    await send(live, tokens["sam"], {"type": "throw", "challenge": "shove", "sign": "paper"})
    await send(live, tokens["st"], {"type": "pass", "challenge": "shove", "character": "guard"})
    await expect(sam.locator("#challenges article[data-challenge=shove] .verdict")).to_contain_text("You won")
    async with Client(live.url, tokens["st"]) as st:
        view = await st.request({"type": "replay", "from": 1}, "replay")
        result = max(s["seq"] for s in view["steps"] if s["type"] == "challenge_resolved")
        ruling = {"type": "rule", "event": result, "decision": "amend", "reason": "He had spent it"}
        taken = {"character": "sam", "changes": {"lose_traits": ["Brawny"]}}
        assert (await st.send({**ruling, "correction": taken}))["ok"]
    await expect(sam.locator(".ruled-banner")).to_have_count(1)
    await expect(sam).to_have_title("● A ruling · Sam · The alley · Justicar")
    # another change draws the page again: the mark stays
    await send(live, tokens["juan"], {"type": "declare", "challenge": "x", "kind": "static", "category": "physical",
                                       "bid": ["Brutal"], "difficulty": 1, "victory": "up"})  # fmt: skip
    await expect(sam.locator("#timeline")).to_contain_text("Juan")
    await expect(sam).to_have_title("● A ruling · Sam · The alley · Justicar")


async def test_the_banner_brings_the_move_with_the_heading_in_sight(live: Running, browser: Browser) -> None:
    """kony's Roll now, on the challenger's phone once the defender has answered: the card comes
    into view with its heading below the banner, the Roll button on the screen with it."""
    st = await opened(live, "kony", "river", SAM, JUAN, title="The river")
    sam = await phone(browser, live, "river", "sam")
    declared = {"type": "declare", "challenge": "c", "kind": "contested", "targets": ["juan"], "category": "physical"}
    await send(live, player_token(live, "river", "sam"), {**declared, "bid": ["Brawny"], "victory": "into the river"})
    await sam.evaluate("window.scrollTo(0, 0)")
    await send(live, player_token(live, "river", "juan"), {"type": "bid", "challenge": "c", "bid": ["Strong"]})
    await expect(sam.locator("button.due")).to_have_text("Roll now")
    card = "#challenges article[data-challenge=c]"
    await in_sight(sam, f"{card} h3")
    await in_sight(sam, f"{card} button.roll")
    await shot(sam, "kony-roll")
    assert st


async def test_after_a_bns_attack_the_turn_card_says_what_is_left(live: Running, browser: Browser) -> None:
    await bns_round(live)
    await send(live, player_token(live, "warehouse", "julian"), {"type": "end_turn"})
    edward = await phone(browser, live, "warehouse", "edward")
    form = edward.locator("#round #declare form")
    await form.get_by_label("Target", exact=True).select_option("rosa")
    await form.get_by_label("Victory condition").fill("I slam her into the wall")
    await form.get_by_role("button", name="Declare", exact=True).click()
    await expect(edward.locator(".toast")).to_have_text("Declared.")
    await expect(edward.locator("button.due")).to_have_text("Your turn: 1 simple action left, or end your turn")
    await in_sight(edward, "#round .actions-left")  # what is left, not under the banner
    await expect(edward.locator("#round")).to_contain_text("Actions left: 0 standard, 1 simple.")
    await shot(edward, "bns-edward-declared")


async def test_a_refusal_about_my_character_is_said_to_me(live: Running, browser: Browser) -> None:
    st = await opened(live, "camarilla", "pier", MARK, JOE, title="The pier")
    await send(live, st, {"type": "start_round"})
    action = {"kind": "challenge", "category": "physical", "target": "joe"}
    await send(live, player_token(live, "pier", "mark"), {"type": "declare_action", "action": action})
    await send(live, player_token(live, "pier", "joe"), {"type": "declare_action", "action": {"kind": "none"}})
    first = {"type": "declare", "challenge": "one", "kind": "contested", "targets": ["joe"], "category": "physical"}
    await send(live, player_token(live, "pier", "mark"), {**first, "bid": ["Brawny"], "victory": "down"})
    mark = await phone(browser, live, "pier", "mark")
    form = mark.locator("#declare form")
    await form.get_by_label("Victory condition").fill("down again")
    await form.get_by_role("button", name="Declare", exact=True).click()
    refusal = mark.locator("#declare .refusal")
    await expect(refusal).to_contain_text("Refused: You")
    await expect(refusal).not_to_contain_text("Mark has")
    await shot(mark, "camarilla-refused")
