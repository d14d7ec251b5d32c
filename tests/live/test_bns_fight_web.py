"""A bns fight in rounds on phones (Playwright driving Debian's Chromium against a real server on
loopback): the Storyteller starts a round from the console; Julian acts first and ends his turn;
Edward presses Escape on his turn; Rosa, who has not acted, presses "I will attack"; Edward ends
his turn and every phone reads that his escape is held by Rosa; Rosa's attack (a Knock Down, free
with her Strength 4) fails the escape on every phone; Edward, knocked down, stands up out of turn
and offers Rosa his help, which she accepts. Phone-sized screenshots go to ``tests/artifacts/``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import ARTIFACTS, accessible, browser, invite, phone, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests


def sheet(who: str, strength: int, dexterity: int, stamina: int, wits: int, **extra: Any) -> dict[str, Any]:
    attributes = {"strength": strength, "dexterity": dexterity, "stamina": stamina, "charisma": 2}
    attributes |= {"manipulation": 2, "composure": 2, "intelligence": 2, "wits": wits, "resolve": 2}
    return {"id": who, "name": who.capitalize(), "willpower": 3, "attributes": attributes, **extra}


async def shots(page: Page, name: str, *parts: str) -> None:
    """The whole page, and parts of it up close: the round (what a player looks at in a fight)."""
    await shot(page, name)
    for part in parts or ("round",):
        await page.locator(f"#{part}").screenshot(path=ARTIFACTS / f"{name}-{part}.png")


JULIAN = sheet("julian", 2, 4, 2, 4, skills={"brawl": 1, "dodge": 3})  # initiative 8: first
EDWARD = sheet("edward", 3, 3, 2, 3, skills={"brawl": 2, "dodge": 2})  # 6
ROSA = sheet("rosa", 4, 2, 3, 3, skills={"brawl": 3}, weapons=[{"name": "Knife", "kind": "melee", "bonus": 1}])  # 5


async def test_a_fair_escape_held_and_failed_on_three_phones(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "bns", "title": "The warehouse", "scene": "warehouse"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (JULIAN, EDWARD, ROSA):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    julian = await phone(browser, await invite(st, "Julian"))
    edward = await phone(browser, await invite(st, "Edward"))
    rosa = await phone(browser, await invite(st, "Rosa"))
    phones = (julian, edward, rosa)

    await st.get_by_role("button", name="Start round 1").click()
    await expect(st.locator("#round")).to_contain_text("Order: Julian 8 → Edward 6 → Rosa 5")
    for page in phones:
        await expect(page.locator("#round")).to_contain_text("Order: Julian (8) → Edward (6) → Rosa (5)")
    await expect(julian.locator("#round")).to_contain_text("Your turn.")
    await expect(julian.locator("#round")).to_contain_text("Actions left: 1 standard, 1 simple.")
    await expect(edward.locator("#round")).to_contain_text("Now acting: Julian.")
    await expect(edward.locator("#round").get_by_role("button", name="Escape")).to_have_count(0)  # not his turn
    await shots(julian, "bns-round-turn")
    await julian.locator("#round").get_by_role("button", name="End my turn").click()

    # Edward's turn: he raises a hand
    round_ = edward.locator("#round")
    await expect(round_).to_contain_text("Your turn.")
    await round_.get_by_role("button", name="Escape", exact=True).click()
    for page in (*phones, st):
        await expect(page.locator("#round")).to_contain_text("Edward is trying to escape.")
    await expect(round_).to_contain_text("You are escaping: end the turn.")
    await expect(round_.get_by_role("button", name="Drop prone")).to_have_count(0)  # escaping: nothing else
    await expect(julian.locator("#round").get_by_role("button", name="I will attack Edward")).to_have_count(0)  # acted
    intend = rosa.locator("#round").get_by_role("button", name="I will attack Edward")
    await expect(intend).to_be_visible()
    await shots(rosa, "bns-escape-intent")
    await intend.click()
    for page in phones:
        await expect(page.locator("#round")).to_contain_text("Edward is trying to escape; Rosa will attack.")
    await expect(intend).to_have_count(0)
    await round_.get_by_role("button", name="End my turn").click()
    for page in (*phones, st):
        await expect(page.locator("#round")).to_contain_text("Edward's escape is held by Rosa.")
    await expect(rosa.locator("#round")).to_contain_text("Your turn.")
    await accessible(edward)
    await shots(edward, "bns-escape-held")

    # Rosa attacks him: a Knock Down, free once a fight with Strength 4; the escape fails
    declare = rosa.locator("#declare")
    await declare.get_by_label("Target", exact=True).select_option(label="Edward")
    maneuver = declare.get_by_label("Maneuver", exact=True)
    await expect(maneuver.locator("option[value=knock_down]")).to_have_text("Knock Down (free)")
    await expect(maneuver.locator("option[value=targeted_attack]")).to_have_text("Targeted Attack (1 Willpower)")
    await expect(maneuver.locator("option[value=mangle_fur]")).to_have_count(0)  # feral: not in human form
    await maneuver.select_option("knock_down")
    await declare.get_by_label("Range (steps)").fill("1")
    await declare.get_by_label("Victory condition").fill("He goes down")
    await shots(rosa, "bns-declare-maneuver", "declare")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(declare).to_contain_text("Declared.")
    for page in (*phones, st):
        await expect(page.locator("#round")).to_contain_text("Edward's escape failed.")
    await expect(rosa.locator("#round")).to_contain_text("Actions left: 0 standard, 1 simple.")
    card = edward.locator("#challenges article").filter(has_text="Rosa → Edward")
    await expect(card).to_contain_text("From 1 step · Knock down")
    await shots(edward, "bns-escape-failed", "round", "challenges")

    # Edward gives in; knocked down, he stands up out of turn, and offers Rosa his help
    await card.get_by_role("button", name="Relent (lose without a test)").click()
    for page in phones:
        await expect(page.locator("#round .marks")).to_contain_text("prone")
    await expect(edward.locator("#me")).to_contain_text("prone")
    await expect(round_.get_by_role("button", name="Crawl a step")).to_be_visible()
    await shots(edward, "bns-prone")
    await round_.get_by_role("button", name="Stand up").click()
    await expect(round_.locator(".marks")).to_have_count(0)
    await expect(round_).to_contain_text("Actions left: 1 standard, 0 simple.")
    await round_.get_by_text("Assist another's attack").click()
    await round_.get_by_label("Whose attack").select_option(label="Rosa")
    await round_.get_by_role("button", name="Offer help").click()
    offer = rosa.locator("#round .offer")
    await expect(offer).to_contain_text("Edward offers you +1 on an attack.")
    await shots(rosa, "bns-assist-offer")
    await offer.get_by_role("button", name="Accept Edward's help").click()
    await expect(rosa.locator("#round")).to_contain_text("Edward's help (+1 on an attack): accepted.")
    await expect(round_).to_contain_text("Actions left: 0 standard, 0 simple.")
    await accessible(rosa)
    await shots(st, "bns-console-round")

    # The Storyteller rules there is no way out for Julian, ends the round, and gives him a Rage
    # round in the next; his escape then fails at once
    adjust = st.locator("#characters details").filter(has_text="Adjust Julian")
    await adjust.locator("summary").click()
    await adjust.get_by_label("Condition", exact=True).select_option("no_exit")
    await adjust.get_by_label("Reason (kept in the log)").fill("the door is barred")
    await adjust.get_by_role("button", name="Adjust", exact=True).click()
    await expect(st.locator("#characters")).to_contain_text("no exit")
    for page in phones:
        await expect(page.locator("#round .marked").filter(has_text="Julian")).to_contain_text("no exit")
    await st.get_by_role("button", name="End round 1").click()
    await expect(julian.locator("#round")).to_contain_text("Round 1 is over.")
    await st.locator("#round details.rage summary").click()
    await st.get_by_label("Julian's Rage rounds").fill("1")
    await st.get_by_role("button", name="Start round 2").click()
    await expect(st.locator("#round")).to_contain_text("then 1 Rage round")
    await expect(julian.locator("#round")).to_contain_text("Actions left: 1 standard, 1 simple. Then 1 Rage round.")
    await julian.locator("#round").get_by_role("button", name="Escape", exact=True).click()
    for page in (*phones, st):
        await expect(page.locator("#round")).to_contain_text("Julian's escape failed.")
    await accessible(st)
    await shots(julian, "bns-no-exit")
    await shots(st, "bns-console-rage")


MOOK = sheet("mook", 4, 2, 3, 2, npc=True, skills={"brawl": 3})  # initiative 4: last


async def test_the_console_plays_an_npc_in_a_round(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """The Storyteller's console plays an NPC in a round: when Edward escapes, Mook, who has not
    acted, says he will attack; on his turn the console offers his actions (he drops prone) and
    his attack fails the escape; the next round leaves out no one."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "bns", "title": "The yard", "scene": "yard"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (EDWARD, ROSA, MOOK):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    edward = await phone(browser, await invite(st, "Edward"))
    await st.get_by_role("button", name="Start round 1").click()
    round_ = st.locator("#round")
    await expect(round_).to_contain_text("Order: Edward 6 → Rosa 5 → Mook 4")
    npc = round_.locator(".npc-turns")
    await expect(npc).to_have_count(0)  # nothing for an NPC to do on Edward's turn

    # Edward escapes; Mook has not acted: the ST says for him that he will attack
    await edward.locator("#round").get_by_role("button", name="Escape", exact=True).click()
    await expect(round_).to_contain_text("Edward is trying to escape.")
    await npc.get_by_role("button", name="Mook will attack Edward").click()
    await expect(edward.locator("#round")).to_contain_text("Edward is trying to escape; Mook will attack.")
    await edward.locator("#round").get_by_role("button", name="End my turn").click()
    edward_row = round_.locator("tr").filter(has_text=re.compile("^Edward"))
    await expect(edward_row).to_contain_text("Edward's escape is held by Mook.")
    await round_.get_by_role("button", name="End Rosa's turn").click()

    # Mook's turn: the console offers his actions; he drops prone, then attacks Edward
    await expect(npc).to_contain_text("Mook acts")
    await npc.get_by_role("button", name="Drop prone").click()
    mook_row = round_.locator("tr").filter(has_text=re.compile("^Mook"))
    await expect(mook_row).to_contain_text("prone")
    await expect(edward.locator("#round .marked")).to_contain_text("Mook: prone")
    declare = st.locator("#challenges .npc-declare")
    await declare.get_by_text("Declare a challenge for an NPC").click()
    await declare.get_by_label("Target", exact=True).select_option(label="Edward")
    await declare.get_by_label("Victory condition").fill("Not so fast")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    for page in (st, edward):
        await expect(page.locator("#round")).to_contain_text("Edward's escape failed.")
    await expect(mook_row).to_contain_text("0 standard, 0 simple")
    await accessible(st)
    await shots(st, "bns-console-npc")
    await round_.get_by_role("button", name="End round 1").click()
    await round_.get_by_role("button", name="Start round 2").click()
    await expect(round_).to_contain_text("Order: Edward 6 → Rosa 5 → Mook 4")
