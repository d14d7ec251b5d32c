"""Effects in plain sight, damage that explains itself, and the player's sheet, on 390x844 phone
pages against a real server: the declare form asks what winning does up front (a punch for 1
lethal lands as 1 lethal; a knock down knocks down), offers no category without a Trait to bid,
carries the action declared for the round into the form, and the damage step says how Feral Claws
and Puissance made 1 lethal into 2 aggravated, with the rule; the player's sheet shows everything
the rules use, like a paper one."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from domain.evolve import fold
from domain.state import Scene
from server.app import Running
from tests.live.test_web import ARTIFACTS, accessible, browser, phone, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

NO_SCROLL = "() => document.documentElement.scrollWidth <= innerWidth"

JIMMY = {
    "id": "jimmy",
    "name": "Jimmy",
    "willpower": 3,
    "health": 7,
    "blood": 10,
    "abilities": {"Brawl": 2, "Dodge": 1},
    "traits": {"physical": {"Brawny": 3, "Quick": 2}, "social": {"Charming": 1}},
    "negative_traits": {"physical": ["Clumsy"], "social": ["Repugnant"]},
    "powers": {"Feral Claws": 1, "Puissance": 2},
    "merits": ["Lucky"],
    "gestures": ["bomb"],
}
FRANK = {"id": "frank", "name": "Frank", "npc": True, "traits": {"physical": {"Wiry": 1}}}


def scene(live: Running, scene_id: str) -> Scene:
    """The scene as its log holds it on the server."""
    return fold(live.hub.backend.store.read(scene_id))


async def test_a_punch_for_1_lethal_and_a_knock_down_from_the_declare_form(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await phone(browser, f"{live.web}/play#token={tokens['juan']}")
    declare = sam.locator("#declare")

    # Sam has only Physical Traits: Mental and Social are not offered, and say why
    category = declare.get_by_label("Category")
    for name in ("mental", "social"):
        option = category.locator(f"option[value={name}]")
        await expect(option).to_be_disabled()
        await expect(option).to_contain_text("no Traits left to bid")
    await expect(category).to_have_value("physical")

    # what winning does is asked up front, damage to start with for a Physical challenge
    effect = declare.get_by_role("group", name="What winning does")
    await expect(effect).to_be_visible()
    await expect(effect.get_by_label("Damage", exact=True)).to_be_checked()
    await declare.get_by_label("Target").select_option(label="Juan")
    await declare.get_by_label("Type of damage").select_option("lethal")
    # the form says what is declared, as declared; what it will do is the server's to say (below)
    await expect(declare.locator(".victory-sentence")).to_have_text("Declared: 1 lethal damage.")
    victory = declare.get_by_label("Victory condition")
    await expect(victory).to_have_attribute("placeholder", "I punch him in the jaw")
    await victory.fill("I punch him in the jaw")
    await victory.blur()
    # what winning will do, as the server's ruleset will apply it (the read-only stakes request)
    preview = declare.locator(".stakes-preview li")
    await expect(preview.first).to_have_text("If you win: Juan takes 1 lethal damage")  # said to Sam
    assert await sam.evaluate(NO_SCROLL)
    await accessible(sam)
    await shot(sam, "effects-declare-punch")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(sam.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot
    # declared, the card says what winning does, as the server will apply it
    await expect(juan.locator("#challenges .stakes li").first).to_have_text("If Sam wins: you take 1 lethal damage")
    await expect(sam.locator("#challenges .stakes li").first).to_have_text("If you win: Juan takes 1 lethal damage")

    # Juan loses (he relents): 1 lethal, as declared, on his sheet and in his timeline
    await juan.get_by_role("button", name="Relent (lose without a test)").click()
    await juan.get_by_role("button", name="Confirm: relent and lose").click()
    mine = juan.get_by_role("region", name="Juan's sheet")
    await expect(mine.locator(".health")).to_contain_text("6 of 7 left · 1 lethal")
    await expect(mine.locator(".health .box.lethal")).to_have_count(1)
    await expect(juan.locator("#timeline")).to_contain_text("You take 1 lethal damage, as declared.")  # his own page
    await expect(sam.locator("#timeline")).to_contain_text("Juan takes 1 lethal damage, as declared.")
    wounds = scene(live, "s1").characters["juan"].wounds
    assert (wounds.bashing, wounds.lethal, wounds.aggravated) == (0, 1, 0)

    # a knock down: chosen, it says so, and Juan's sheet shows him down
    await effect.get_by_label("Knock down", exact=True).check()
    await expect(declare.get_by_label("Type of damage")).to_be_hidden()
    await expect(declare.locator(".victory-sentence")).to_have_text("Declared: knocking down.")
    await expect(victory).to_have_attribute("placeholder", "I sweep his legs out from under him")
    await victory.fill("I sweep his legs")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await juan.get_by_role("button", name="Relent (lose without a test)").click()
    await juan.get_by_role("button", name="Confirm: relent and lose").click()
    await expect(mine).to_contain_text("Knocked down (prone)")
    await expect(juan.locator(".verdict").filter(has_text="prone")).to_have_text("You lost: you are knocked prone")
    await expect(sam.locator(".verdict").filter(has_text="prone")).to_have_text("You won: Juan is knocked prone")
    await expect(mine).not_to_contain_text("Willpower")  # none on his sheet: no empty track
    await expect(mine.locator(".health")).to_contain_text("6 of 7 left")  # no damage with it
    await accessible(juan)
    await shot(juan, "effects-sheet-hurt-and-down")


async def jimmy_at_the_docks(live: Running, tokens: dict[str, str], browser: Browser) -> tuple[Page, Client, str, str]:
    """A camarilla scene with Jimmy (Feral Claws, Puissance, blood) and Frank, an NPC; Jimmy's page."""
    async with Client(live.url, tokens["st"]) as opener:
        opened = await opener.request(
            {"type": "create_scene", "ruleset": "camarilla", "title": "The docks"}, "scene_created"
        )
    st = Client(live.url, opened["token"])
    await st.__aenter__()
    for sheet in (JIMMY, FRANK):
        assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
    token = live.hub.backend.tokens.issue(opened["scene"], "player", "jimmy")[0]
    return await phone(browser, f"{live.web}/play#token={token}"), st, token, opened["scene"]


async def test_the_round_action_is_carried_in_and_the_damage_says_why(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    jimmy, st, token, docks = await jimmy_at_the_docks(live, tokens, browser)
    try:
        assert (await st.send({"type": "start_round"}))["ok"]
        async with Client(live.url, token) as me:
            action = {"kind": "challenge", "category": "physical", "target": "frank"}
            assert (await me.send({"type": "declare_action", "action": action}))["ok"]
        assert (await st.send({"type": "declare_action", "character": "frank", "action": {"kind": "none"}}))["ok"]

        # the form carries the action declared for the round: Physical, against Frank, damage
        declare = jimmy.locator("#declare")
        await expect(declare.locator(".intent")).to_have_text("From your action this round: Physical against Frank.")
        await expect(declare.get_by_label("Target")).to_have_value("frank")
        await expect(declare.get_by_label("Category")).to_have_value("physical")
        await expect(
            declare.get_by_role("group", name="What winning does").get_by_label("Damage", exact=True)
        ).to_be_checked()
        await expect(declare.get_by_label("Category").locator("option[value=mental]")).to_be_disabled()
        await expect(declare.get_by_label("Category").locator("option[value=social]")).to_be_enabled()

        await declare.get_by_label("Type of damage").select_option("lethal")
        await declare.get_by_label("Victory condition").fill("I rake him with my claws")
        await declare.get_by_text("More: power").click()
        await declare.get_by_label("Power", exact=True).select_option("Feral Claws")
        await declare.get_by_role("button", name="Declare", exact=True).click()
        await expect(jimmy.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot
        cid = next(iter(scene(live, docks).challenges))
        assert (await st.send({"type": "relent", "character": "frank", "challenge": cid}))["ok"]

        # the damage step says how 1 lethal became 2 aggravated, and which rule did it
        words = "Frank takes 2 aggravated damage: 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
        step = jimmy.locator("#timeline li").filter(has_text=words)
        await expect(step).to_have_count(1)
        rule = step.locator("details.rule")
        await expect(rule).to_have_attribute("data-rule", "camarilla:stacking")  # the id, for the audit only
        await expect(rule.locator("summary")).to_have_text(
            re.compile(
                r"^The rule: “Powers or effects that cause additional damage .+” \(The Camarilla Combat Guide\)$"
            )
        )
        assert "camarilla:" not in await step.inner_text()
        assert scene(live, docks).characters["frank"].wounds.aggravated == 2
        verdict = jimmy.locator("#challenges .verdict").first  # the result, large, says it too
        await expect(verdict).to_have_text("You won: Frank takes 2 aggravated damage")
        card = jimmy.locator("#challenges article").first
        await card.locator("details.how summary").click()  # how the damage came, one tap away
        await expect(card.locator(".effects li")).to_have_text(
            ["Frank takes 2 aggravated damage — 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."]
        )
        await shot(jimmy, "effects-damage-explained")
        await step.screenshot(path=ARTIFACTS / "effects-damage-step.png")
    finally:
        await st.__aexit__(None, None, None)


async def test_the_players_sheet_reads_like_a_paper_one(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    jimmy, st, token, _ = await jimmy_at_the_docks(live, tokens, browser)
    try:
        changes = {
            "willpower": -1,
            "abilities": {"Brawl": -1},
            "damage": {"lethal": 1, "bashing": 2},
            "lose_traits": ["Quick"],
        }
        assert (await st.send({"type": "adjust", "character": "jimmy", "changes": changes, "reason": "a bad night"}))[
            "ok"
        ]
        async with Client(live.url, token) as me:
            assert (await me.send({"type": "spend_blood", "kind": "strength"}))["ok"]

        sheet = jimmy.get_by_role("region", name="Jimmy's sheet")
        await expect(sheet.locator(".track").filter(has_text="Blood")).to_contain_text("9 of 10 (1 spent)")
        await expect(sheet.locator(".sheet-name")).to_have_text("Jimmy")
        traits = sheet.locator("dl.sheet-traits")
        await expect(traits.locator("dt").nth(0)).to_have_text("Physical 5")  # 5 base, Quick lost, BloodStrength
        await expect(traits.locator("li.lost-trait")).to_have_text("Quick lost tonight")
        await expect(traits.locator("li.lost-trait s")).to_have_text("Quick")
        await expect(traits).to_contain_text("Brawny ×3")
        await expect(traits).to_contain_text("Charming")
        await expect(sheet.locator("dl.negative")).to_contain_text("Clumsy")
        await expect(sheet.locator("dl.negative")).to_contain_text("Repugnant")
        await expect(sheet).to_contain_text("Brawl 1 of 2 (1 spent)")
        await expect(sheet).to_contain_text("Dodge 1")
        await expect(sheet).to_contain_text("Feral Claws 1")
        await expect(sheet).to_contain_text("Puissance 2")
        await expect(sheet).to_contain_text("Lucky")
        await expect(sheet).to_contain_text("Bomb")
        await expect(sheet.locator(".track").filter(has_text="Willpower")).to_contain_text("2 of 3 (1 spent)")
        health = sheet.locator(".health")
        await expect(health).to_contain_text("4 of 7 left · 1 lethal, 2 bashing")
        await expect(health.locator(".box.lethal")).to_have_count(1)
        await expect(health.locator(".box.bashing")).to_have_count(2)
        await expect(health.locator(".box")).to_have_count(7)
        await expect(sheet).to_contain_text("Conditions")
        assert await jimmy.evaluate(NO_SCROLL)
        await accessible(jimmy)
        await shot(jimmy, "effects-paper-sheet")
        await sheet.screenshot(path=ARTIFACTS / "effects-paper-sheet-card.png")  # the sheet alone, close up
    finally:
        await st.__aexit__(None, None, None)


async def test_spend_blood_is_offered_only_while_blood_is_left(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """A control offered is one the server takes: the last blood spent, "Spend blood" goes."""
    async with Client(live.url, tokens["st"]) as opener:
        opened = await opener.request({"type": "create_scene", "ruleset": "camarilla", "title": "Ana"}, "scene_created")
    async with Client(live.url, opened["token"]) as st:
        ana = {"id": "ana", "name": "Ana", "blood": 1, "traits": {"physical": {"Quick": 1}}}
        assert (await st.send({"type": "add_character", "character": ana}))["ok"]
    token = live.hub.backend.tokens.issue(opened["scene"], "player", "ana")[0]
    page = await phone(browser, f"{live.web}/play#token={token}")
    spend = page.get_by_role("button", name="Spend blood")
    await expect(spend).to_be_visible()
    await spend.click()  # it asks first: a blood point cannot be taken back
    await expect(page.get_by_text("Spend a blood point? It cannot be taken back.")).to_be_visible()
    assert scene(live, opened["scene"]).characters["ana"].blood_spent == 0
    await page.get_by_role("button", name="Confirm: spend blood").click()
    await expect(page.locator(".toast")).to_have_text("Blood spent.")
    await expect(spend).to_have_count(0)
    assert scene(live, opened["scene"]).characters["ana"].blood_spent == 1
