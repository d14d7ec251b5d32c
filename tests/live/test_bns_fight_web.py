"""A bns fight in rounds on phones (Playwright driving Debian's Chromium against a real server on
loopback): the Storyteller starts a round from the console; Julian acts first and ends his turn;
Edward presses Escape on his turn; Rosa, who has not acted, presses "I will attack"; Edward ends
his turn and every phone reads that his escape is held by Rosa; Rosa's attack (a Knock Down, free
with her Strength 4) fails the escape on every phone; Edward, knocked down, stands up out of turn
and offers Rosa his help, which she accepts. Then a third character shields the defender of an
attack and answers it; Quick Draw, Burst of Speed and the feral maneuvers go with an action; an
assist's free maneuver and a Willpower put two maneuvers on one attack, and the Storyteller fails
a held escape from the console. No control sticks out of its card at phone width. Phone-sized
screenshots go to ``tests/artifacts/``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_web import ARTIFACTS, PHONE, accessible, browser, invite, phone, shot, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests


def sheet(who: str, strength: int, dexterity: int, stamina: int, wits: int, **extra: Any) -> dict[str, Any]:
    attributes = {"strength": strength, "dexterity": dexterity, "stamina": stamina, "charisma": 2}
    attributes |= {"manipulation": 2, "composure": 2, "intelligence": 2, "wits": wits, "resolve": 2}
    return {"id": who, "name": who.capitalize(), "willpower": 3, "attributes": attributes, **extra}


OVERFLOWING = """() => [...document.querySelectorAll('main button, main input, main select, main .mark')]
  .filter((el) => {
    const box = el.parentElement.closest('article, section');
    if (!box || !el.offsetParent || el.closest('.scroll')) return false; // a wide table scrolls in its box
    const [a, b] = [el.getBoundingClientRect(), box.getBoundingClientRect()];
    const spills = el.tagName === 'BUTTON' && el.scrollWidth > el.clientWidth + 1;
    return a.right > b.right + 0.5 || a.left < b.left - 0.5 || spills;
  })
  .map((el) => el.outerHTML.slice(0, 80))"""


async def shots(page: Page, name: str, *parts: str) -> None:
    """The whole page, and parts of it up close: the round (what a player looks at in a fight).
    Nothing sticks out of its card, or out of itself, at phone width."""
    assert await page.evaluate(OVERFLOWING) == [], name
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
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
    for page, order in (
        (julian, "Order: you (8) → Edward (6) → Rosa (5)"),  # each player reads themselves as "you"
        (edward, "Order: Julian (8) → you (6) → Rosa (5)"),
        (rosa, "Order: Julian (8) → Edward (6) → you (5)"),
    ):
        await expect(page.locator("#round")).to_contain_text(order)
    await expect(julian.locator("#round")).to_contain_text("Your turn.")
    await expect(julian.locator("#round")).to_contain_text("Actions left: 1 standard, 1 simple.")
    await expect(edward.locator("#round")).to_contain_text("Now acting: Julian.")
    await expect(edward.locator("#round").get_by_role("button", name="Escape")).to_have_count(0)  # not his turn
    await shots(julian, "bns-round-turn")
    await julian.locator("#round").get_by_role("button", name="End my turn").click()
    await julian.locator("#round").get_by_role("button", name="Confirm: end my turn").click()  # actions left: asked

    # Edward's turn: he raises a hand
    round_ = edward.locator("#round")
    await expect(round_).to_contain_text("Your turn.")
    await round_.get_by_role("button", name="Escape", exact=True).click()
    for page in (julian, rosa, st):
        await expect(page.locator("#round")).to_contain_text("Edward is trying to escape.")
    await expect(round_).to_contain_text("You are trying to escape.")  # his own page: in the second person
    await expect(round_).to_contain_text("You are escaping: end the turn.")
    await expect(round_.get_by_role("button", name="Drop prone")).to_have_count(0)  # escaping: nothing else
    await expect(julian.locator("#round").get_by_role("button", name="I will attack Edward")).to_have_count(0)  # acted
    intend = rosa.locator("#round").get_by_role("button", name="I will attack Edward")
    await expect(intend).to_be_visible()
    await shots(rosa, "bns-escape-intent")
    await intend.click()
    for page, line in ((julian, "Edward is trying"), (edward, "You are trying"), (rosa, "Edward is trying")):
        attacker = "you" if page is rosa else "Rosa"
        await expect(page.locator("#round")).to_contain_text(f"{line} to escape; {attacker} will attack.")
    await expect(intend).to_have_count(0)
    await round_.get_by_role("button", name="End my turn").click()
    for page, line in ((julian, "Edward's escape is held by Rosa."), (st, "Edward's escape is held by Rosa.")):
        await expect(page.locator("#round")).to_contain_text(line)
    await expect(edward.locator("#round")).to_contain_text("Your escape is held by Rosa.")
    await expect(rosa.locator("#round")).to_contain_text("Edward's escape is held by you.")
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
    await declare.get_by_text("More: kind, range").click()  # the range, under More with the rarer fields
    await declare.get_by_label("Range (steps)").fill("1")
    await declare.get_by_label("Victory condition").fill("He goes down")
    await shots(rosa, "bns-declare-maneuver", "declare")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(rosa.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot
    for page in (julian, rosa, st):
        await expect(page.locator("#round")).to_contain_text("Edward's escape failed.")
    await expect(edward.locator("#round")).to_contain_text("Your escape failed.")
    await expect(rosa.locator("#round")).to_contain_text("Actions left: 0 standard, 1 simple.")
    card = edward.locator("#challenges article").filter(has_text="Rosa challenges you")
    await expect(card.locator("h3")).to_contain_text("(Physical · Knock Down)")  # the maneuver, in its heading
    await expect(card.locator(".in-play")).to_have_text("from 1 step")
    await shots(edward, "bns-escape-failed", "round", "challenges")

    # Edward gives in; knocked down, he stands up out of turn, and offers Rosa his help
    await card.get_by_role("button", name="Relent (lose without a test)").click()
    await card.get_by_role("button", name="Confirm: relent and lose").click()
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
    await st_view(st, "People")
    adjust = st.locator("#characters details").filter(has_text="Adjust Julian")
    await adjust.locator("summary").click()
    await adjust.get_by_label("Condition", exact=True).select_option("no_exit")
    await adjust.get_by_label("Reason (kept in the log)").fill("the door is barred")
    await adjust.get_by_role("button", name="Adjust", exact=True).click()
    await expect(st.locator("#characters")).to_contain_text("no exit")
    for page, who in ((julian, "You"), (edward, "Julian"), (rosa, "Julian")):
        await expect(page.locator("#round .marked").filter(has_text=f"{who}:")).to_contain_text("no exit")
    await st_view(st, "Now")
    await st.get_by_role("button", name="End round 1").click()
    await st.get_by_role("button", name="Confirm: end round 1").click()  # it asks first
    await expect(julian.locator("#round")).to_contain_text("Round 1 is over.")
    await st.locator("#round details.rage summary").click()
    await st.get_by_label("Julian's Rage rounds").fill("1")
    await st.get_by_role("button", name="Start round 2").click()
    await expect(st.locator("#round")).to_contain_text("then 1 Rage round")
    await expect(julian.locator("#round")).to_contain_text("Actions left: 1 standard, 1 simple. Then 1 Rage round.")
    await julian.locator("#round").get_by_role("button", name="Escape", exact=True).click()
    for page in (edward, rosa, st):
        await expect(page.locator("#round")).to_contain_text("Julian's escape failed.")
    await expect(julian.locator("#round")).to_contain_text("Your escape failed.")
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
    await expect(edward.locator("#round")).to_contain_text("You are trying to escape; Mook will attack.")
    await edward.locator("#round").get_by_role("button", name="End my turn").click()
    edward_row = round_.locator("tr").filter(has_text=re.compile("^Edward"))
    await expect(edward_row).to_contain_text("Edward's escape is held by Mook.")
    await round_.get_by_role("button", name="End Rosa's turn").click()
    await round_.get_by_role("button", name="Confirm: end Rosa's turn").click()  # the console asks first

    # Mook's turn: the console offers his actions; he drops prone, then attacks Edward
    await expect(npc).to_contain_text("Mook acts")
    await npc.get_by_text("Or another action").click()  # his attack first; the rest folded
    await npc.get_by_role("button", name="Drop prone").click()
    mook_row = round_.locator("tr").filter(has_text=re.compile("^Mook"))
    await expect(mook_row).to_contain_text("prone")
    await expect(edward.locator("#round .marked")).to_contain_text("Mook: prone")
    declare = npc.locator(".npc-attack")  # his attack opens in his turn's block
    await declare.get_by_label("Target", exact=True).select_option(label="Edward")
    await declare.get_by_label("Victory condition").fill("Not so fast")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(st.locator("#round")).to_contain_text("Edward's escape failed.")
    await expect(edward.locator("#round")).to_contain_text("Your escape failed.")
    await expect(mook_row).to_contain_text("0 standard, 0 simple")
    await accessible(st)
    await shots(st, "bns-console-npc")
    await round_.get_by_role("button", name="End round 1").click()
    await round_.get_by_role("button", name="Confirm: end round 1").click()  # it asks first
    await round_.get_by_role("button", name="Start round 2").click()
    await expect(round_).to_contain_text("Order: Edward 6 → Rosa 5 → Mook 4")


async def bns_scene(live: Running, tokens: dict[str, str], scene: str, *sheets: dict[str, Any]) -> str:
    """A bns scene with these characters: its Storyteller's token."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "bns", "title": scene.capitalize(), "scene": scene}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in sheets:
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    return str(opened["token"])


async def test_a_third_character_shields_the_defender_and_answers(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Julian attacks Edward; before the first throw Rosa, who is not in it and has her simple
    action, presses "Shield Edward" on her phone: the attack is now on her, and her card offers
    her defences; she answers with one. The console offers the same for an NPC (Mook) with a
    simple action (bns:assist-defender)."""
    st_token = await bns_scene(live, tokens, "alley", JULIAN, EDWARD, ROSA, MOOK)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    julian = await phone(browser, await invite(st, "Julian"))
    edward = await phone(browser, await invite(st, "Edward"))
    rosa = await phone(browser, await invite(st, "Rosa"))

    await expect(rosa.locator("#challenges")).to_contain_text("No open challenge involves you.")
    await st.get_by_role("button", name="Start round 1").click()
    await expect(julian.locator("#round")).to_contain_text("Your turn.")
    declare = julian.locator("#declare")
    await declare.get_by_label("Target", exact=True).select_option(label="Edward")
    await declare.get_by_label("Victory condition").fill("A fist to the ribs")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(julian.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot

    # Rosa is not in it, but the attack is in front of her: she may take it for Edward
    card = rosa.locator("#challenges article").filter(has_text="Julian challenges Edward")
    shield = card.get_by_role("button", name="Shield Edward")
    await expect(shield).to_be_visible()
    await expect(card).to_contain_text("you become the target and answer it (your simple action, once a round)")
    await expect(julian.locator("#challenges").get_by_role("button", name=re.compile("^Shield"))).to_have_count(0)
    await expect(edward.locator("#challenges").get_by_role("button", name=re.compile("^Shield"))).to_have_count(0)
    console_card = st.locator("#challenges article").filter(has_text="Julian challenges Edward")
    await expect(console_card.get_by_role("button", name="Mook shields Edward")).to_be_visible()
    await expect(console_card.get_by_role("button", name="Rosa shields Edward")).to_have_count(0)  # a player's
    await accessible(rosa)
    await shots(rosa, "bns-shield-offered", "challenges")
    await card.get_by_label("How (optional)").fill("I step between them")
    await shield.click()

    # the attack is on Rosa now, on every page; her card offers her defences
    for page, line in ((julian, "You challenge Rosa"), (rosa, "Julian challenges you"), (st, "Julian challenges Rosa")):
        await expect(page.locator("#challenges article").filter(has_text=line)).to_be_visible()
    await expect(rosa.locator("#round")).to_contain_text("Actions left: 1 standard, 0 simple.")
    await expect(rosa.locator("#timeline")).to_contain_text("You shield Edward")
    mine = rosa.locator("#challenges article").filter(has_text="Julian challenges you")
    await expect(mine).to_contain_text("Your answer is due")  # her own page: in the second person
    await expect(mine.get_by_role("group", name="Defend with")).to_be_visible()
    await expect(mine.get_by_role("button", name=re.compile("^Shield"))).to_have_count(0)  # she is in it now
    console_card = st.locator("#challenges article").filter(has_text="Julian challenges Rosa")
    await expect(console_card.get_by_role("button", name="Mook shields Rosa")).to_be_visible()
    attack = julian.locator("#challenges article").filter(has_text="You challenge Rosa")
    await expect(attack).to_contain_text("Withdraw the challenge")  # he may, losing the action
    await shots(rosa, "bns-shield-answer", "challenges")
    await mine.get_by_role("button", name="Defend", exact=True).click()
    await expect(mine).not_to_contain_text("Your answer is due")
    await expect(attack).not_to_contain_text("waiting for Rosa to answer")
    await accessible(rosa)
    await shots(rosa, "bns-shield-answered", "challenges")
    await shots(st, "bns-shield-console", "challenges")


FENRIS = sheet("fenris", 3, 3, 3, 2, creature="werewolf", form="lupus", skills={"brawl": 3})  # 5, after Edward


async def test_maneuvers_that_go_with_an_action(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """Julian Quick Draws his knife on his turn: free with Dexterity 4, and no action spent (his
    actions left stay the same); a second maneuver that round is refused with the server's reason.
    Edward, before his turn, moves with Burst of Speed (a Willpower; his simple action). Fenris, a
    werewolf in lupus form, is offered Dart Behind and Feral Dash with his move; the humans are not
    (bns:quick-draw, bns:burst-of-speed, bns:feral-dash)."""
    st_token = await bns_scene(live, tokens, "docks", JULIAN, EDWARD, FENRIS)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    julian = await phone(browser, await invite(st, "Julian"))
    edward = await phone(browser, await invite(st, "Edward"))
    fenris = await phone(browser, await invite(st, "Fenris"))
    await st.get_by_role("button", name="Start round 1").click()
    round_ = julian.locator("#round")
    await expect(round_).to_contain_text("Your turn.")
    await expect(round_).to_contain_text("Actions left: 1 standard, 1 simple.")
    await expect(round_.get_by_role("button", name=re.compile("^Burst of Speed"))).to_have_count(0)  # his turn now
    await expect(round_.get_by_role("button", name=re.compile("^(Dart Behind|Feral Dash)"))).to_have_count(0)
    quick = round_.get_by_role("button", name="Quick Draw (free)")
    await expect(quick).to_be_visible()
    await round_.get_by_label("Draw", exact=True).fill("Knife")
    await shots(julian, "bns-quick-draw")
    await quick.click()
    await expect(julian.locator("#timeline")).to_contain_text("Quick Draw")
    await expect(round_).to_contain_text("Your turn.")
    await expect(round_).to_contain_text("Actions left: 1 standard, 1 simple.")  # no action spent
    await expect(julian.locator("#me")).to_contain_text("Willpower 3")
    again = round_.get_by_role("button", name="Quick Draw (not now)")  # one a round: the view offers none now
    await again.click()
    await expect(round_.locator(".refusal")).to_contain_text("You have used a combat maneuver this round.")
    await expect(round_).to_contain_text("Actions left: 1 standard, 1 simple.")

    # Edward's turn has not come: he moves now, with Burst of Speed
    burst_name = "Burst of Speed: move now (1 Willpower)"
    burst = edward.locator("#round").get_by_role("button", name=burst_name)
    await expect(burst).to_be_visible()
    await expect(fenris.locator("#round").get_by_role("button", name=burst_name)).to_be_visible()
    await accessible(edward)
    await shots(edward, "bns-burst-of-speed")
    await edward.locator("#round").get_by_label("Before your turn (simple action)").select_option("2")
    await burst.click()
    await expect(edward.locator("#round")).to_contain_text("Actions left: 1 standard, 0 simple.")
    await expect(edward.locator("#me")).to_contain_text("Willpower 2")
    await expect(burst).to_have_count(0)
    await expect(round_).to_contain_text("Your turn.")  # still Julian's
    await round_.get_by_role("button", name="End my turn").click()
    await round_.get_by_role("button", name="Confirm: end my turn").click()  # actions left: asked
    await expect(edward.locator("#round")).to_contain_text("Your turn.")
    feral = re.compile("^(Dart Behind|Feral Dash)")
    await expect(edward.locator("#round").get_by_role("button", name=feral)).to_have_count(0)  # human
    await edward.locator("#round").get_by_role("button", name="End my turn").click()
    await edward.locator("#round").get_by_role("button", name="Confirm: end my turn").click()  # actions left: asked

    # Fenris, in lupus form: the feral maneuvers go with his move
    wolf = fenris.locator("#round")
    await expect(wolf).to_contain_text("Your turn.")
    await expect(wolf.get_by_role("button", name="Dart Behind: move through them (1 Willpower)")).to_be_visible()
    dash = wolf.get_by_role("button", name="Feral Dash: 9 steps, both actions (1 Willpower)")
    await expect(dash).to_be_visible()
    await accessible(fenris)
    await shots(fenris, "bns-feral-maneuvers")
    await dash.click()
    await expect(wolf).to_contain_text("Actions left: 0 standard, 0 simple.")
    await expect(fenris.locator("#me")).to_contain_text("Willpower 2")
    await expect(fenris.locator("#timeline")).to_contain_text("Feral Dash")


async def test_two_maneuvers_with_an_assist_and_an_escape_the_storyteller_fails(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Julian offers Rosa a free maneuver from his phone and she accepts: her declare form now
    offers a second maneuver for a Willpower (bns:assist-attacker). Edward escapes, Rosa says she
    will attack, the escape is held; the Storyteller rules that a Mental challenge against Edward's
    Physical attribute stops him, and fails the escape from the console's round table: every phone
    reads that it failed (bns:fair-escape-blocked). Rosa then attacks him with Hamstring, paid by
    the assist, and a Targeted Attack, paid by a Willpower: every card shows both."""
    st_token = await bns_scene(live, tokens, "pier", JULIAN, EDWARD, ROSA)
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    julian = await phone(browser, await invite(st, "Julian"))
    edward = await phone(browser, await invite(st, "Edward"))
    rosa = await phone(browser, await invite(st, "Rosa"))
    await st.get_by_role("button", name="Start round 1").click()

    # Julian's turn: he offers Rosa a free maneuver; she accepts
    round_ = julian.locator("#round")
    await expect(round_).to_contain_text("Your turn.")
    await round_.get_by_text("Assist another's attack").click()
    await round_.get_by_label("Whose attack").select_option(label="Rosa")
    await round_.get_by_label("With", exact=True).select_option("maneuver")
    await round_.get_by_label("How (optional)").fill("I pin his arm")
    await round_.get_by_role("button", name="Offer help").click()
    offer = rosa.locator("#round .offer")
    await expect(offer).to_contain_text("Julian offers you a free maneuver.")
    declare = rosa.locator("#declare")
    await expect(declare.get_by_label("Second maneuver (1 Willpower)")).to_have_count(0)  # not yet accepted
    await offer.get_by_role("button", name="Accept Julian's help").click()
    await expect(rosa.locator("#round")).to_contain_text("Julian's help (a free maneuver): accepted.")
    await expect(round_).to_contain_text("Actions left: 0 standard, 1 simple.")
    second = declare.get_by_label("Second maneuver (1 Willpower)")
    await expect(second).to_be_visible()
    first = declare.get_by_label("Maneuver", exact=True)
    await expect(first.locator("option[value=hamstring]")).to_have_text("Hamstring (free: assisted)")
    await expect(second.locator("option[value=targeted_attack]")).to_have_text("Targeted Attack")
    await expect(julian.locator("#declare").get_by_label("Second maneuver (1 Willpower)")).to_have_count(0)
    await round_.get_by_role("button", name="End my turn").click()
    await round_.get_by_role("button", name="Confirm: end my turn").click()  # actions left: asked

    # Edward escapes; Rosa will attack; his escape is held
    await edward.locator("#round").get_by_role("button", name="Escape", exact=True).click()
    await rosa.locator("#round").get_by_role("button", name="I will attack Edward").click()
    await edward.locator("#round").get_by_role("button", name="End my turn").click()
    for page, line in ((julian, "Edward's escape is held by Rosa."), (edward, "Your escape is held by Rosa.")):
        await expect(page.locator("#round")).to_contain_text(line)
    await expect(rosa.locator("#round")).to_contain_text("Edward's escape is held by you.")
    await expect(st.locator("#round")).to_contain_text("Edward's escape is held by Rosa.")

    # The Storyteller fails it: a Mental challenge against his Physical attribute, which the
    # engine cannot tell from the others
    table = st.locator("#round table")
    fail = table.get_by_role("button", name="Fail Edward's escape")
    await expect(fail).to_be_visible()
    await expect(table.get_by_role("button", name=re.compile("^Fail (Julian|Rosa)"))).to_have_count(0)
    reason = table.get_by_label("Why Edward's escape fails (kept in the log)")
    await reason.fill("Julian's Dominate: Stay")
    await accessible(st)
    await shots(st, "bns-console-fail-escape")
    await fail.click()
    for page in (julian, rosa, st):
        await expect(page.locator("#round")).to_contain_text("Edward's escape failed.")
    await expect(edward.locator("#round")).to_contain_text("Your escape failed.")
    await expect(fail).to_have_count(0)
    await expect(edward.locator("#timeline")).to_contain_text("Julian's Dominate: Stay")
    await shots(edward, "bns-escape-failed-by-st")

    # Rosa's turn: Hamstring, free with Julian's help, and a Targeted Attack for a Willpower
    await expect(rosa.locator("#round")).to_contain_text("Your turn.")
    await expect(rosa.locator("#me")).to_contain_text("Willpower 3")
    await declare.get_by_label("Target", exact=True).select_option(label="Edward")
    await first.select_option("hamstring")
    await expect(second.locator("option[value=hamstring]")).to_be_disabled()  # two different ones
    await second.select_option("targeted_attack")
    await declare.get_by_label("Victory condition").fill("I cut his leg")
    await accessible(rosa)
    await shots(rosa, "bns-declare-two-maneuvers", "declare")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(rosa.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot
    await expect(rosa.locator("#me")).to_contain_text("Willpower 2")
    await expect(declare.get_by_label("Second maneuver (1 Willpower)")).to_have_count(0)  # the assist is spent
    for page, line in ((edward, "Rosa challenges you"), (rosa, "You challenge Edward"), (st, "Rosa challenges Edward")):
        card = page.locator("#challenges article").filter(has_text=line)
        await expect(card.locator("h3")).to_contain_text("Hamstring · Targeted Attack")  # the maneuvers, in its heading
    pool = "Rosa's unarmed pool: Strength 4 + Brawl 3 - 3 (Targeted Attack) = 4"  # the maneuver's part, shown
    pools = st.locator("#challenges article").filter(has_text="Rosa challenges Edward").locator(".sides")
    await expect(pools).to_contain_text(pool)
    await expect(rosa.locator("#timeline")).to_contain_text("Targeted Attack")
    await shots(edward, "bns-two-maneuvers", "challenges")
    await shots(st, "bns-two-maneuvers-console", "round", "challenges")
