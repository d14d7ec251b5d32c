"""Tens (tests/rulesets/d10/), the ruleset kept in the tests, on the pages (Playwright driving
Debian's Chromium against a real server on loopback): the console's new-scene form offers its one
option from /rulesets.json, its sheet form asks for its own fields, and on two phones a challenge
is declared with the parts of a pool Tens asks for (category, target, skill: no bid, no attack kind,
weapon or wild card), answered with a defence and a skill, and rolled with a dice form of d10s, the
successes marked from the die."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import browser, invite, phone, shot, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests


async def test_tens_on_the_console_and_two_phones(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    # the new-scene form: Tens among the rules, its option with its words
    await st_view(st, "Settings")
    tools = st.locator("#tools")
    await tools.get_by_text("Start a new scene").click()
    await tools.get_by_label("Rules").select_option("d10")
    await expect(tools.get_by_label("Rules").locator("option:checked")).to_have_text("Tens (d10 pools, a house system)")
    await tools.get_by_label("Double tens", exact=True).check()
    await tools.get_by_label("Title").fill("Tens")
    await tools.get_by_role("button", name="Create").click()
    link = tools.get_by_role("link", name="open its console")
    await expect(link).to_be_visible()
    token = (await link.get_attribute("href") or "").split("#token=")[1].split("&")[0]
    async with Client(live.url, token) as st_client:
        history = await st_client.request({"type": "history", "before": 2, "limit": 1}, "history")
    opened = next(e for e in history["events"] if e["type"] == "scene_opened")["data"]
    assert opened["ruleset"] == "d10" and opened["options"]["d10"] == {"double_tens": True}
    await st.context.close()

    # the sheet form: its own fields, none of another ruleset's
    st = await phone(browser, f"{live.web}/st#token={token}")
    await st_view(st, "People")
    await st.locator("details.sheet-form summary").click()
    form = st.get_by_role("form", name="A new character's sheet")
    for label in ("Health levels", "Attributes", "Skills"):
        await expect(form.get_by_label(label, exact=True)).to_be_visible()
    for label in ("Physical Traits", "Armour", "Willpower", "Blood"):
        await expect(form.get_by_label(label, exact=True)).to_have_count(0)
    for name, attributes, skills in (
        ("Sam", "Physical 3, Social 2, Mental 2", "Brawl 2"),
        ("Juan", "Physical 2, Social 2, Mental 3", "Dodge 1"),
    ):
        await form.get_by_label("Name", exact=True).fill(name)
        await form.get_by_label("Attributes", exact=True).fill(attributes)
        await form.get_by_label("Skills", exact=True).fill(skills)
        await form.get_by_role("button", name="Add the character").click()
        row = st.locator("#characters tr").filter(has_text=re.compile(f"^{name}"))
        await expect(row).to_be_visible()
        # the table's columns follow the sheet: its attributes and skills, no Traits left to count
        await expect(row.locator("td[data-label=Attributes]")).to_have_text(attributes.replace(", ", " · "))
        await expect(row.locator("td[data-label=Skills]")).to_have_text(skills)

    sam_link = await invite(st, "Sam")
    sam = await phone(browser, sam_link)
    juan = await phone(browser, await invite(st, "Juan"))
    # Tens rolls dice, but has no narrative rounds (kony's): the round's form does not offer one
    await st_view(st, "round")
    await expect(st.locator("#round").get_by_role("button", name="Start round 1")).to_be_visible()
    await expect(st.locator("#round").get_by_label(re.compile("A new fight"))).to_be_visible()
    await expect(st.locator("#round").get_by_label(re.compile("A narrative round"))).to_have_count(0)

    # Sam declares on his phone: the category (its attribute), the target, one skill; a pool, no bid
    declare = sam.locator("#declare")
    await expect(declare.get_by_label("Category", exact=True)).to_be_visible()
    for label in ("Trait to bid", "Attack", "Weapon", "Attribute", "Wild card (+/-)"):
        await expect(declare.get_by_label(label, exact=True)).to_have_count(0)
    await expect(declare.get_by_label("Kind", exact=True).locator("option[value=simple]")).to_have_count(0)
    await expect(declare.get_by_text("More: kind, power")).to_be_visible()
    await expect(declare.locator(".pool-preview")).to_contain_text("Physical 3 = 3")  # its attribute alone
    # a skill tapped on the sheet starts the challenge with it
    await sam.locator("#me").get_by_role("button", name="Challenge with Brawl 2").click()
    await expect(declare.get_by_label("Skill", exact=True)).to_have_value("Brawl")
    await declare.get_by_label("Target", exact=True).select_option(label="Juan")
    await declare.get_by_label("Category", exact=True).select_option("mental")
    await expect(declare.locator(".pool-preview")).to_contain_text("Mental 2 + Brawl 2 = 4")
    await declare.get_by_label("Category", exact=True).select_option("physical")
    await expect(declare.locator(".pool-preview")).to_contain_text("Physical 3 + Brawl 2 = 5")
    await declare.get_by_label("How much").fill("2")
    await declare.get_by_label("Victory condition").fill("I knock the wind out of him")
    await shot(sam, "tens-declare")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(sam.locator(".toast")).to_have_text("Declared.")

    # Juan defends on his phone with the pool the server offers, and a skill of his added to it
    juan_card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await expect(juan_card.locator("fieldset.defenses")).to_contain_text("Physical 2")
    await expect(juan_card.get_by_label("Wild card (+/-)", exact=True)).to_have_count(0)
    await juan_card.get_by_label("Skill", exact=True).fill("Dodge")
    await expect(juan_card.locator(".pool-preview")).to_contain_text("Physical 2 + Dodge 1 = 3")
    await juan_card.get_by_role("button", name="Defend", exact=True).click()

    # the dice form: d10s, as many as the pool
    card = sam.locator("#challenges article").filter(has_text="You challenge Juan")
    roll = card.get_by_role("button", name="Roll 5 d10s", exact=True)
    await expect(roll).to_be_visible()
    await expect(card).to_contain_text("Physical 3 + Brawl 2 = 5 d10")
    await roll.click()
    await expect(juan_card).to_contain_text("Sam has rolled (sealed)")
    await juan_card.get_by_role("button", name="Roll 3 d10s", exact=True).click()

    for page, line in ((sam, "You challenge Juan"), (juan, "Sam challenges you")):
        shown = page.locator("#challenges article").filter(has_text=line).locator(".dice-shown").first
        await expect(shown.locator(".die")).to_have_count(8)  # both sides' dice
        faces = [int(t) for t in await shown.locator(".die .face").all_inner_texts()]
        marked = [int(t) for t in await shown.locator(".die.success .face").all_inner_texts()]
        assert sorted(marked) == sorted(f for f in faces if f >= 8)  # 8, 9 and 10: the die's successes
        await expect(shown).to_contain_text("8 is a success, 9 is a success, 10 is a success")
    await shot(juan, "tens-dice-shown")
    async with Client(live.url, token) as st_client:
        await st_client.subscribe()
        (challenge,) = st_client.view["challenges"].values()
    assert challenge["effect"] == {"kind": "damage", "amount": 2, "type": "bashing"}
    assert challenge["outcome"]["rule"].startswith("d10:")
