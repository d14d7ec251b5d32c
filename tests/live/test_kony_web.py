"""A kony roll on two phones (Playwright driving Debian's Chromium against a real server on
loopback): Sam's challenge is answered on Juan's phone; Sam's phone shows his Trait Pool with its
cap and a Roll button that counts the dice and names the retests ticked; Juan's phone shows only
that Sam has rolled, never his dice; once Juan rolls, both phones show both sides' dice and the
successes (kony:d3-test, kony:trait-pool). Then a round: Escape is offered before anyone declares,
and "Done with my expenditures" once everyone has. Phone-sized screenshots go to
``tests/artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from playwright.async_api import Browser, expect

from clients.client import Client
from domain.rules import RULESETS, register
from domain.rules.base import Die
from domain.rules.fields import SheetField
from domain.rules.kony.ruleset import Kony
from projections.rules import rules_view
from server.app import Running
from server.backend import Backend
from server.web import rulesets_json
from tests.live.test_bns_fight_web import OVERFLOWING
from tests.live.test_web import ARTIFACTS, PHONE, accessible, browser, invite, phone, shot, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SAM = {
    "id": "sam",
    "name": "Sam",
    "traits": {"physical": {"Brawny": 3, "Quick": 2}},
    "abilities": {"Brawl": 2, "Occult": 1},
    "powers": ["Potence"],
    "blood": 10,
}
JUAN = {"id": "juan", "name": "Juan", "traits": {"physical": {"Strong": 4}}, "blood": 10, "armor": 2}


async def test_a_roll_on_two_phones(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "kony", "title": "Kings of New York", "scene": "kony"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, JUAN):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
        down = {"type": "adjust", "character": "juan", "changes": {"down_traits": 1}, "reason": "the smoke"}
        assert (await st_client.send(down))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    sam_link = await invite(st, "Sam")
    sam = await phone(browser, sam_link)
    juan = await phone(browser, await invite(st, "Juan"))

    async with Client(live.url, sam_link.split("#token=")[1].split("&")[0]) as sam_client:
        declared = await sam_client.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": "I knock him down",
                "effect": {"kind": "knock_down"},
            }
        )
        assert declared["ok"], declared
    sheet = juan.get_by_role("region", name="Juan's sheet")
    await expect(sheet).to_contain_text("Armour 2 left (it takes damage first)")  # his own, and the ST's
    await expect(sheet).to_contain_text("Down 1 Trait (off your Trait Pool)")
    await expect(sam.get_by_role("region", name="Sam's sheet")).not_to_contain_text("Armour")  # none on his sheet
    # the defender's own victory condition (kony:resolution), offered like the declaration's effect
    juan_card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await juan_card.get_by_label("Your victory condition (if you win)").fill("I break his arm")
    await juan_card.locator("details.defender-effect summary").click()
    await juan_card.get_by_label("Effect", exact=True).select_option("damage")
    await juan_card.get_by_label("Damage", exact=True).fill("2")
    await juan_card.get_by_label("Damage type").select_option("lethal")
    assert await juan.evaluate(OVERFLOWING) == []
    await accessible(juan)
    await shot(juan, "kony-answer-effect")
    await juan_card.get_by_role("button", name="Bid", exact=True).click()
    # each side reads itself as "you"; the Storyteller reads both by name
    # what each way of ending it does, as the ruleset will apply it (the server's stakes)
    for page, line, stakes in (
        (
            sam,
            "You challenge Juan",
            [
                "If you win: Juan loses Strong; Juan is knocked prone",
                "If Juan wins: you lose Brawny; you take 2 lethal damage",
                "If it is a draw: you lose Brawny; Juan loses Strong",
                "If Juan relents: Juan is knocked prone",
            ],
        ),
        (
            juan,
            "Sam challenges you",
            [
                "If Sam wins: you lose Strong; you are knocked prone",
                "If you win: Sam loses Brawny; Sam takes 2 lethal damage",
                "If it is a draw: Sam loses Brawny; you lose Strong",
                "If you relent: you are knocked prone",
            ],
        ),
        (
            st,
            "Sam challenges Juan",
            [
                "If Sam wins: Juan loses Strong; Juan is knocked prone",
                "If Juan wins: Sam loses Brawny; Sam takes 2 lethal damage",
                "If it is a draw: Sam loses Brawny; Juan loses Strong",
                "If Juan relents: Juan is knocked prone",
            ],
        ),
    ):
        card = page.locator("#challenges article").filter(has_text=line).first
        await expect(card.locator(".stakes li")).to_have_text(stakes)

    card = sam.locator("#challenges article").filter(has_text="You challenge Juan")
    await expect(card).to_contain_text("Your Trait Pool (for ties): 5 Traits (Physical 5; at most 30)")
    await card.screenshot(path="/tmp/i27-domain-kony-pool.png")
    roll = card.get_by_role("button", name="Roll 1 d3", exact=True)
    await expect(roll).to_be_visible()
    await expect(card.locator("fieldset.sources")).to_contain_text("Brawl (ability)")
    await expect(card.locator("fieldset.sources")).to_contain_text("Potence (power)")
    await expect(card.locator("fieldset.sources")).not_to_contain_text("Occult")  # not a Physical Ability
    await card.get_by_label("Brawl (ability)").check()
    await expect(card.get_by_role("button", name="Roll 2 d3s · spends Brawl (ability)")).to_be_visible()
    assert await sam.evaluate(OVERFLOWING) == []
    assert await sam.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await accessible(sam)
    await shot(sam, "kony-roll")
    await card.get_by_role("button", name="Roll 2 d3s · spends Brawl (ability)").click()

    await expect(card).to_contain_text("Your sealed dice:")
    await expect(card).to_contain_text("(naming Brawl (ability))")
    await expect(juan_card).to_contain_text("Sam has rolled (sealed)")
    await expect(juan_card).not_to_contain_text("sealed dice")
    await expect(juan_card).not_to_contain_text("Brawl")
    await expect(juan_card).to_contain_text("Your roll is due")
    await expect(juan_card).to_contain_text(
        "Your Trait Pool (for ties): 3 Traits (Physical 4 - 1 down; at most 30)"
    )  # down 1
    await expect(juan_card).not_to_contain_text("pool of 5")  # Sam's pool is his
    await juan_card.get_by_role("button", name="Roll 1 d3", exact=True).click()

    for page, line, sides in (
        (sam, "You challenge Juan", ("Test 1: You rolled ", ", Juan rolled ")),
        (juan, "Sam challenges you", ("Test 1: Sam rolled ", ", you rolled ")),
    ):
        tests = page.locator("#challenges").filter(has_text=line).locator("ol.tests").first
        for side in sides:  # each reads their own dice as "you"
            await expect(tests).to_contain_text(side)
        await expect(tests).to_contain_text("success")
        await expect(tests.locator("li")).to_have_count(1)  # the test said once, its dice in it
    await expect(st.locator("#challenges")).to_contain_text("Sam rolled")
    assert await sam.evaluate(OVERFLOWING) == []
    await shot(sam, "kony-dice")
    await shot(juan, "kony-dice-defender")


async def test_escape_and_expenditures_on_a_phone(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "kony", "title": "Kings of New York", "scene": "kony2"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, JUAN):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
        assert (await st_client.send({"type": "start_round"}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    sam = await phone(browser, await invite(st, "Sam"))
    juan = await phone(browser, await invite(st, "Juan"))
    round_ = sam.locator("#round")
    await expect(round_.get_by_role("button", name="Escape", exact=True)).to_be_visible()
    await juan.locator("#round").get_by_role("button", name="Declare my action").click()
    await expect(round_.get_by_role("button", name="Escape", exact=True)).to_have_count(0)  # too late now
    await round_.get_by_role("button", name="Declare my action").click()
    for page, waiting in ((sam, "you, Juan"), (juan, "Sam, you")):  # each reads themself as "you"
        await expect(page.locator("#round")).to_contain_text("Expenditures: each says what they spend")
        await expect(page.locator("#round")).to_contain_text(f"Waiting for: {waiting}.")
    await round_.get_by_role("button", name="Done with my expenditures").click()
    await expect(juan.locator("#round")).to_contain_text("Waiting for: you.")
    assert await sam.evaluate(OVERFLOWING) == []
    await shot(juan, "kony-expenditures")
    await expect(st.locator("#round")).to_contain_text("Expenditures: waiting for Juan; then initiative.")
    await st.locator("#round").get_by_role("button", name="Juan is done").click()  # the ST says it for him
    for page in (sam, juan):
        await expect(page.locator("#round")).to_contain_text("Order:")

    # the Storyteller enters dice rolled by hand at the table, for each side
    async with Client(live.url, opened["token"]) as st_client:
        for body in (
            {"type": "declare", "character": "sam", "challenge": "h", "kind": "contested", "targets": ["juan"],
             "category": "physical", "bid": ["Brawny"], "victory": "down"},
            {"type": "bid", "character": "juan", "challenge": "h", "bid": ["Strong"]},
        ):  # fmt: skip
            assert (await st_client.send(body))["ok"]
    entry = st.locator("#challenges").get_by_role("form", name="Sam's dice")
    await expect(entry).to_contain_text("1 d3 to enter (1 + 0 retests = 1 d3; each retest named adds one)")
    await expect(entry.locator("fieldset.sources")).not_to_contain_text("Occult")  # not a Physical Ability
    await entry.get_by_label("Brawl (ability)").check()  # a retest Sam names at the table
    await expect(entry).to_contain_text("2 d3s to enter")
    await entry.get_by_label("Sam rolled (d3 faces)").fill("1 2")
    assert await st.evaluate(OVERFLOWING) == []
    await entry.screenshot(path=ARTIFACTS / "kony-console-sources.png")
    await entry.get_by_role("button", name="Enter Sam's dice").click()
    await expect(juan.locator("#challenges")).to_contain_text("Sam has rolled (sealed)")
    entry = st.locator("#challenges").get_by_role("form", name="Juan's dice")
    await entry.get_by_label("Juan rolled (d3 faces)").fill("3")
    await shot(st, "kony-console")
    await entry.get_by_role("button", name="Enter Juan's dice").click()
    # Sam's own page in the second person; the console by name
    await expect(sam.locator("#challenges")).to_contain_text("You rolled 1, 2, Juan rolled 3")
    await expect(sam.locator("#challenges")).to_contain_text("You win the challenge.")
    await expect(st.locator("#challenges")).to_contain_text("Sam rolled 1, 2, Juan rolled 3")
    await expect(sam.get_by_role("region", name="Sam's sheet")).to_contain_text("Brawl 1")  # the level named is spent


RAT = {"id": "rat", "name": "Rat", "npc": True, "traits": {"physical": {"Quick": 3}}, "blood": 5}


async def test_the_console_offers_kony_options_and_npc_round_moves(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "kony", "title": "Kings of New York", "scene": "kony3"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, RAT):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
        assert (await st_client.send({"type": "start_round"}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    # the NPC's round moves, as the server offers them: a fair escape before anyone declares
    rat = st.locator("#round").get_by_role("region", name="Rat's round moves")
    await expect(rat.get_by_role("button", name="Rat escapes")).to_be_visible()
    assert await st.evaluate(OVERFLOWING) == []
    await rat.screenshot(path=ARTIFACTS / "kony-console-round.png")
    await rat.get_by_role("button", name="Rat escapes").click()
    await expect(st.locator("#round")).to_contain_text("Rat")
    await expect(st.locator("#round").get_by_role("button", name="Rat escapes")).to_have_count(0)

    # a new scene with every kony option, each with its help
    await st_view(st, "Settings")
    tools = st.locator("#tools")
    await tools.get_by_text("Start a new scene").click()
    await tools.get_by_label("Rules").select_option("kony")
    chosen = {
        "Dice": "players",
        "Equal successes": "per_die",
        "Extra actions": "on_turn",
        "Narrative test, equal pool": "win",
        "Blind Fighting in darkness": "spend",
        "Fair escape": "fight",
    }
    for label, value in chosen.items():
        await tools.get_by_label(label, exact=True).select_option(value)
    await expect(tools).to_contain_text("When a character may leave without a test")
    await tools.get_by_label("Title").fill("Options")
    assert await st.evaluate(OVERFLOWING) == []
    await accessible(st)
    await shot(st, "kony-console-options")
    await tools.get_by_role("button", name="Create").click()
    link = tools.get_by_role("link", name="open its console")
    await expect(link).to_be_visible()
    token = (await link.get_attribute("href") or "").split("#token=")[1].split("&")[0]
    async with Client(live.url, token) as st_client:
        history = await st_client.request({"type": "history", "before": 2, "limit": 1}, "history")
    options = next(e for e in history["events"] if e["type"] == "scene_opened")["data"]["options"]
    assert options["kony"] == {
        "dice": "players",
        "ties": "per_die",
        "extra_actions": "on_turn",
        "narrative_equal": "win",
        "blind_fighting": "spend",
        "escape": "fight",
    }


class SixSided(Kony):
    """kony played on a d6, with a sheet of its own: what a ruleset kept elsewhere may be. Its pages
    know it only through its descriptor."""

    name = "kony_six"
    title = "Kings of New York on six sides"
    die = Die(size=6, faces=((1, "a success"), (6, "a failure")), successes=(1,))
    sheet_fields = (
        SheetField(name="health", label="Wounds it can take", default=5),
        SheetField(
            name="traits",
            label="Edges",
            kind="traits",
            examples=("e.g. Quick",),
            lead=("Edges, with how many", "Quick 2"),
        ),
        SheetField(name="escape_powers", label="Ways out", kind="list", examples=("e.g. Mist",)),
        SheetField(name="retests", label="Retests it has", default=0, npc=True),
    )


@pytest.fixture
def six_sided() -> Iterator[str]:
    register(SixSided())
    rules_view.cache_clear()
    rulesets_json.cache_clear()
    yield SixSided.name
    RULESETS.pop(SixSided.name)
    rules_view.cache_clear()
    rulesets_json.cache_clear()


async def test_the_dice_and_sheet_forms_follow_the_descriptor(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, six_sided: str
) -> None:
    """A ruleset on a d6 with a sheet of four fields: the roll form counts d6s and takes faces 1 to
    6 by hand, the Storyteller's entry says d6; the sheet form draws the four fields (and none of
    kony's others), in order, and sends what they hold."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {
                "type": "create_scene",
                "ruleset": six_sided,
                "title": "Six",
                "scene": "six",
                "options": {six_sided: {"dice": "players"}},
            },
            "scene_created",
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, JUAN):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await st_view(st, "People")
    form = st.locator("details.sheet-form")
    await form.locator("summary").click()
    labels = await form.locator("label").evaluate_all("(els) => els.map((el) => el.textContent.trim())")
    assert labels == [
        "Name",
        "An NPC (you play them)",
        "Throws by itself (the server throws at random for it)",
        "Retests it has",
        "Wounds it can take",
        "Physical Edges",
        "Social Edges",
        "Mental Edges",
        "Ways out",
        "Notes (only you see them)",
    ]
    await expect(form.locator("p.hint").first).to_contain_text("Edges, with how many: Quick 2.")
    await expect(form.get_by_label("Wounds it can take")).to_have_value("5")
    await expect(form.get_by_label("Physical Edges")).to_have_attribute("placeholder", "e.g. Quick")
    await expect(form.get_by_label("Ways out")).to_have_attribute("placeholder", "e.g. Mist")
    await form.get_by_label("Name").fill("Vera")
    await form.get_by_label("Physical Edges").fill("Quick 2, Brawny")
    await form.get_by_label("Ways out").fill("Mist, Shadow Step")
    await form.get_by_role("button", name="Add the character").click()
    await expect(form.get_by_role("status")).to_contain_text("Vera joins the scene")
    added = [r for r in backend.store.read("six") if r.type == "character_added"]
    vera = msgspec.to_builtins(added[-1].event)["character"]
    assert (vera["health"], vera["traits"]["physical"], vera["escape_powers"]) == (
        5,
        {"Quick": 2, "Brawny": 1},
        ["Mist", "Shadow Step"],
    )
    assert vera["willpower"] == 0  # no Willpower field: the sheet's own default

    sam = await phone(browser, await invite(st, "Sam"))
    juan_link = await invite(st, "Juan")
    async with Client(live.url, juan_link.split("#token=")[1].split("&")[0]) as juan_client:
        declared = await juan_client.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["sam"],
                "category": "physical",
                "bid": ["Strong"],
                "victory": "I throw him in the river",
            }
        )
        assert declared["ok"], declared
    card = sam.locator("#challenges article").filter(has_text="Juan challenges you")
    await card.get_by_role("button", name="Bid", exact=True).click()
    roll = card.locator("form.roll")
    await expect(roll.get_by_role("button", name="Roll 1 d6", exact=True)).to_be_visible()
    await roll.get_by_label("Brawl (ability)").check()
    await expect(roll.get_by_role("button", name="Roll 2 d6s · spends Brawl (ability)")).to_be_visible()
    by_hand = roll.get_by_label("Dice rolled by hand (optional)")
    valid = "(el, v) => { el.value = v; return el.checkValidity(); }"
    await expect(by_hand).to_have_attribute("placeholder", "1 6")
    assert [await by_hand.evaluate(valid, v) for v in ("6 1", "4,5", "7", "0")] == [True, True, False, False]
    await by_hand.fill("6 1")
    await roll.get_by_role("button", name="Roll 2 d6s · spends Brawl (ability)").click()
    await expect(card).to_contain_text("Your sealed dice: 6, 1")

    entry = st.get_by_label("Juan rolled (d6 faces)")
    await expect(entry).to_have_count(1)
    assert [await entry.evaluate(valid, v) for v in ("6", "1 5", "7", "")] == [True, True, False, False]
    await expect(st.get_by_text("1 d6 to enter")).to_have_count(1)


async def test_the_round_form_offers_a_narrative_round(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """kony's rounds may be narrative (its descriptor says ``narrative``): the console's round form
    offers one, and a round started with it ticked is narrative."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "kony", "title": "Narrative", "scene": "kony4"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for character in (SAM, RAT):
            assert (await st_client.send({"type": "add_character", "character": character}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await st_view(st, "round")
    narrative = st.locator("#round").get_by_label("A narrative round", exact=False)
    await expect(narrative).to_be_visible()
    await narrative.check()
    await st.locator("#round").get_by_role("button", name="Start round 1").click()
    await expect(st.locator("#round")).to_contain_text("(narrative)")
    async with Client(live.url, opened["token"]) as st_client:
        await st_client.subscribe()
        assert st_client.view["round"]["narrative"] is True
