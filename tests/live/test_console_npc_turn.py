"""The Storyteller's console after a review as a new ST (issue 27, round 2), on a phone: the acting
NPC's turn leads to its attack (the challenge form in its turn's block, for that NPC, not the first
NPC of the list); a player waiting on the Storyteller's move for an NPC raises the banner, marks the
title and counts on the Now link; the People cards name weapons and powers; the invitations say
plainly that a console opened at 127.0.0.1 makes links no phone can open; a game night's console
has one "Live" badge and rows of tabs that do not both start with "Tonight"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.conftest import until
from tests.live.test_web import accessible, browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]


def sheet(who: str, strength: int, dexterity: int, wits: int, **extra: Any) -> dict[str, Any]:
    attributes = {"strength": strength, "dexterity": dexterity, "stamina": 2, "charisma": 2}
    attributes |= {"manipulation": 2, "composure": 2, "intelligence": 2, "wits": wits, "resolve": 2}
    return {"id": who, "name": who.capitalize(), "willpower": 3, "attributes": attributes, **extra}


ROSA = sheet(
    "rosa", 4, 2, 3, skills={"brawl": 3, "dodge": 1}, weapons=[{"name": "Knife", "kind": "melee", "bonus": 1}]
) | {"powers": {"Potence": 2}}  # initiative 5: first
THUG = sheet("thug", 3, 1, 2, npc=True, skills={"brawl": 2})  # 3: last, but first of the NPCs listed
GOON = sheet("goon", 3, 2, 2, npc=True, skills={"brawl": 3})  # 4


async def alley(live: Running, tokens: dict[str, str]) -> tuple[str, str]:
    """A bns scene with Rosa, Thug and Goon: the Storyteller's token and Rosa's."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "bns", "title": "The alley", "scene": "alley"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (ROSA, THUG, GOON):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
        rosa = await st_client.request({"type": "invite", "role": "player", "character": "rosa"}, "invited")
    return str(opened["token"]), str(rosa["token"])


async def goons_turn(live: Running, tokens: dict[str, str], browser: Browser) -> tuple[Page, str, str]:
    """The alley, on the Storyteller's phone, in round 1 on Goon's turn (Rosa's ended): the page,
    the Storyteller's token and Rosa's."""
    st_token, rosa_token = await alley(live, tokens)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    round_ = st.locator("#round")
    await round_.get_by_role("button", name="Start round 1").click()
    await expect(round_).to_contain_text("Order: Rosa 5 → Goon 4 → Thug 3")
    await round_.get_by_role("button", name="End Rosa's turn").click()
    await round_.get_by_role("button", name="Confirm: end Rosa's turn").click()
    await expect(round_).to_contain_text("Now acting: Goon.")
    return st, st_token, rosa_token


async def test_the_acting_npcs_turn_opens_on_its_attack_for_that_npc(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """On Goon's turn (Thug is the first NPC listed) the block "Goon acts" holds Goon's attack
    form first, then his other actions; declaring from it is Goon's attack, not refused."""
    st, _, _ = await goons_turn(live, tokens, browser)
    errors: list[str] = []
    st.on("pageerror", lambda e: errors.append(str(e)))
    acts = st.locator("#round").get_by_role("region", name="Goon acts")
    await expect(acts).to_be_visible()
    attack = acts.locator(".npc-attack")
    await expect(attack.get_by_role("heading", name="Goon's attack or challenge")).to_be_visible()
    await expect(st.locator("#challenges .npc-declare details")).to_have_count(0)  # not a second form for him
    order = "(el) => [...el.querySelectorAll('.npc-attack, .turn-actions')].map((e) => e.className)"
    first = await acts.evaluate(order)
    assert first[0] == "npc-attack", first  # the attack first, then the other actions
    await st.screenshot(path="/tmp/i27-console-npc-turn.png", full_page=True)
    await accessible(st)
    await attack.get_by_label("Target", exact=True).select_option(label="Rosa")
    await attack.get_by_label("Victory condition").fill("A cosh to the head")
    await attack.get_by_role("button", name="Declare", exact=True).click()
    await expect(st.locator("#challenges article").filter(has_text="Goon challenges Rosa")).to_be_visible()
    await expect(st.locator("#round")).not_to_contain_text("It is not")
    assert errors == []


async def test_a_player_waiting_on_an_npcs_move_raises_the_storytellers_banner(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Goon attacks Rosa; she defends and throws on her phone; the Storyteller, on People, is told
    (banner, title, a count on Now) that Goon's throw is due; a tap brings the card; once thrown,
    all three go."""
    st, st_token, rosa_token = await goons_turn(live, tokens, browser)
    errors: list[str] = []
    st.on("pageerror", lambda e: errors.append(str(e)))
    await st_view(st, "People")
    async with Client(live.url, rosa_token) as rosa, Client(live.url, st_token) as st_client:
        await rosa.subscribe()
        assert (await st_client.send(GOON_ATTACKS))["ok"]
        await until(rosa, lambda c: "cosh" in c.view.get("challenges", {}))
        assert (await rosa.send({"type": "bid", "challenge": "cosh", "pool": {"defense": "dodge"}}))["ok"]
        assert (await rosa.send({"type": "throw", "challenge": "cosh", "sign": "rock"}))["ok"]
        banner = st.get_by_role("button", name=re.compile("Rosa waits: throw for Goon"))
        await expect(banner).to_be_visible()
        await expect(st).to_have_title("● NPC move · Storyteller · The alley · Justicar")
        now = st.get_by_role("navigation", name="Console views").get_by_role("link", name=re.compile("^Now"))
        await expect(now).to_have_text("Now (1 NPC move)")
        await st.screenshot(path="/tmp/i27-console-npc-due.png")
        await accessible(st)
        await banner.click()  # to the challenge's card, in Now
        await expect(now).to_have_attribute("aria-current", "page")
        card = st.locator("#challenges article").filter(has_text="Goon challenges Rosa")
        await expect(card).to_be_in_viewport()
        await card.get_by_role("button", name=re.compile("^Paper")).first.click()
        await expect(banner).to_be_hidden()
        await expect(st).to_have_title("Storyteller · The alley · Justicar")
        await expect(now).to_have_text("Now")
    assert errors == []


GOON_ATTACKS = {"type": "declare", "challenge": "cosh", "character": "goon", "kind": "contested",
                "category": "physical", "targets": ["rosa"], "pool": {"attack": "unarmed"},
                "victory": "A cosh to the head"}  # fmt: skip


async def test_peoples_cards_name_weapons_and_powers(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    st_token, _ = await alley(live, tokens)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    await st_view(st, "People")
    rosa = st.locator("#characters tr").filter(has_text=re.compile("^Rosa"))
    await expect(rosa).to_contain_text("Weapons: Knife (melee, +1)")
    await expect(rosa).to_contain_text("Powers: Potence 2")
    await st.locator("#characters").screenshot(path="/tmp/i27-console-people-extras.png")
    await accessible(st)


async def test_invitations_warn_that_phones_cannot_open_a_loopback_address(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    st_token, _ = await alley(live, tokens)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    await st_view(st, "Invitations")
    warning = st.get_by_role("note").filter(has_text="Phones cannot open 127.0.0.1.")
    await expect(warning).to_be_visible()
    await expect(warning).to_contain_text("justicar serve --host 0.0.0.0")
    await st.screenshot(path="/tmp/i27-console-loopback.png")
    await accessible(st)
