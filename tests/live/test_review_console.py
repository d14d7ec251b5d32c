"""The Storyteller's console after a new user's review, on 390x844 phones against a real server: a
ruling on any step from the timeline, asked before it acts, and its what-if the other way; the
round says who is still acting and draws a finished turn as done; a character moved from one scene
of the night to another in one confirmed step, with the words of a night; the night's ledgers
follow its scenes by themselves; the test recorded offers only the gestures the sheets grant;
sheet files refused in a player's words and the sheet form emptied after each character; the
replay says whose move a loss followed; new consoles open in a new tab."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from server.service import SceneService
from tests.live.conftest import seed
from tests.live.test_night_page import NIGHT, backend, handle, tokens
from tests.live.test_web import ARTIFACTS, accessible, browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["backend", "browser", "tokens"]  # the fixtures: the night's (test_night_page), the browser


async def part(where: Locator, name: str) -> None:
    """A screenshot of one section, as the phone shows it."""
    ARTIFACTS.mkdir(exist_ok=True)
    await where.screenshot(path=ARTIFACTS / f"{name}.png")


def kinds(backend: Backend, stream: str) -> list[str]:
    return [w.type for w in backend.store.read_wire(stream)]


async def no_sideways_scroll(page: Page) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.fixture
def parking(backend: Backend) -> str:
    """A second scene of the night, “The parking lot”, open and empty."""
    service = SceneService(backend.store)
    handle(service, "parking", "st", "open_scene", [100], ruleset="lotn", title="The parking lot", game=NIGHT)
    return "parking"


@pytest.fixture
def ring(backend: Backend) -> str:
    """A Camarilla scene (not of the night): Marcus and Rosa at 5 Physical Traits each, round 1
    started, Marcus's action declared (Rosa's is not yet); its Storyteller's token."""
    service, n = SceneService(backend.store), [200]
    handle(service, "ring", "st", "open_scene", n, ruleset="camarilla", title="The ring")
    for who, name in (("marcus", "Marcus"), ("rosa", "Rosa")):
        sheet = {"id": who, "name": name, "traits": {"physical": {"Brawny": 3, "Quick": 2}}}
        handle(service, "ring", "st", "add_character", n, character=sheet)
    handle(service, "ring", "st", "start_round", n, new_fight=True)
    action = {"kind": "challenge", "category": "physical", "target": "rosa"}
    handle(service, "ring", "st", "declare_action", n, character="marcus", action=action)
    return backend.tokens.issue("ring", "st")[0]


@pytest.fixture
def alley(backend: Backend) -> dict[str, str]:
    """The alley of the other live tests (Sam, Juan, a Guard), with Bea, whose sheet grants Bomb."""
    seed(backend, "s1")
    bea = {"id": "bea", "name": "Bea", "gestures": ["bomb"], "traits": {"physical": {"Nimble": 3}}}
    handle(SceneService(backend.store), "s1", "st", "add_character", [300], character=bea)
    return {
        "st": backend.tokens.issue("s1", "st")[0],
        "sam": backend.tokens.issue("s1", "player", "sam")[0],
        "bea": backend.tokens.issue("s1", "player", "bea")[0],
    }


async def step_of(page: Page, words: str) -> int:
    """The number of the timeline's step that says ``words``."""
    seq = await page.locator("#timeline li").filter(has_text=words).first.get_attribute("data-seq")
    assert seq is not None
    return int(seq)


async def test_a_ruling_on_any_step_asks_first_and_its_what_if_goes_the_other_way(
    backend: Backend, parking: str, live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Sam lost Brawny to Juan in Elysium and has left for the parking lot; nobody disputed. The
    Storyteller rules on that step from Elysium's timeline: "Rule" asks (Cancel sends nothing),
    Confirm rules; then "What if this had gone the other way" forks Elysium at its head and
    overturns the step there: the fork's console shows Juan winning again, and the night's ledger
    had it gone that way."""
    async with Client(live.url, tokens["st"], keep=True) as client:
        assert (await client.send({"type": "remove_character", "scene": "elysium", "character": "sam"}))["ok"]
        assert (await client.send({"type": "move_character", "scene": NIGHT, "character": "sam", "to": parking}))["ok"]
    st = await phone(browser, f"{live.web}/st?scene=elysium#token={tokens['st']}")
    await expect(st.locator("#disputes")).to_contain_text("No open dispute.")
    await st_view(st, "Log")
    lost = await step_of(st, "Sam loses Brawny")
    step = st.locator(f"#timeline li[data-seq='{lost}']")
    await expect(st.locator("#timeline")).to_contain_text("Tap a step's number to rule on it")
    await step.get_by_role("button", name=f"#{lost}: rule on this step").click()

    await expect(st.get_by_role("link", name="Disputes")).to_have_attribute("aria-current", "page")  # taken there
    panel = st.locator("#disputes article.rule-any")
    await expect(panel.get_by_role("heading")).to_have_text(f"Rule on step {lost}")
    await expect(panel.locator("blockquote.step")).to_contain_text("Sam loses Brawny")
    await expect(panel).to_contain_text("In the challenge Juan challenges Sam (Physical): Juan won")
    choices = await panel.get_by_label("Ruling").locator("option").all_inner_texts()
    assert choices == ["Uphold: it stands", "Overturn: Sam wins instead", "Amend: name the winner"]
    await panel.get_by_label("Ruling").select_option("overturn")
    await panel.get_by_label("Reason (kept in the log)").fill("Juan had already used his Dodge")
    await panel.get_by_role("button", name="Rule", exact=True).click()
    await expect(panel.locator(".warn")).to_have_text(
        f"Rule on step {lost}: Overturn: Sam wins instead? Reason: “Juan had already used his Dodge”. "
        "The ruling goes into the log for everyone, and cannot be taken back."
    )
    await part(panel, "review-console-rule-confirm")
    await panel.get_by_role("button", name="Cancel").click()
    await expect(panel.locator(".warn")).to_have_count(0)
    assert "ruling_issued" not in kinds(backend, "elysium")  # Cancel sent nothing

    await panel.get_by_role("button", name="Rule", exact=True).click()
    await panel.get_by_role("button", name=f"Confirm: rule on step {lost}").click()
    await expect(panel.locator(f".outcome[data-key='rule-any-{lost}']")).to_contain_text("Ruled.")
    await expect(st.locator("#disputes ul.rulings")).to_contain_text(
        f"Ruling on step {lost}: The Storyteller overturned the result: Juan had already used his Dodge. — "
    )
    assert kinds(backend, "elysium").count("ruling_issued") == 1
    await accessible(st)

    # the what-if the other way: Elysium forked with every step, the ruling overturned there
    ruled = st.locator("#disputes ul.rulings li").first
    await ruled.get_by_role("button", name="What if this had gone the other way").click()
    link = ruled.get_by_role("link", name="open its console")
    await expect(link).to_have_attribute("target", "_blank")
    await expect(ruled).to_contain_text("where Juan wins step")
    await part(st.locator("#disputes"), "review-console-what-if-made")
    fork = await phone(browser, f"{live.web}{await link.get_attribute('href')}")
    await expect(fork.locator(".what-if-banner")).to_contain_text("What-if of “Elysium”")
    rulings = fork.locator("#disputes ul.rulings li")
    await expect(rulings).to_have_count(2)
    await expect(rulings.nth(1)).to_contain_text(
        f"Ruling on step {lost}: The Storyteller overturned the result: What if: Juan had won step {lost}"
    )
    await expect(fork.locator("#timeline")).to_contain_text(f"What if: Juan had won step {lost}")
    tonight = fork.locator("#tonight")
    await expect(tonight.locator(".what-if-ledger[data-character=sam]")).to_contain_text(
        "Would be without: Brawny (really: nothing)"
    )
    assert kinds(backend, "elysium").count("ruling_issued") == 1  # the real scene is as it was
    await part(tonight, "review-console-what-if-the-other-way")


async def test_a_character_moves_from_scene_to_scene_in_one_step_and_the_ledgers_follow(
    backend: Backend, parking: str, live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """From the night's console, Sam (in Elysium) is moved to the parking lot with one
    confirmation naming both scenes; damage in the parking lot reaches the ledgers and "who is
    where" without a tap; in the parking lot's console Sam is taken out "back to the night"; the
    night's form then chooses no scene, and no stale line says where Sam was sent."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    sam = st.locator("ul.night-people li[data-character=sam]")
    await expect(sam).to_contain_text("Sam · in “Elysium”")
    where = sam.get_by_label("Move Sam from “Elysium” to")
    assert await where.locator("option").all_inner_texts() == ["Choose a scene", "“The parking lot”"]
    await expect(sam.get_by_role("button", name="Move Sam")).to_be_disabled()
    await where.select_option(label="“The parking lot”")
    await sam.get_by_role("button", name="Move Sam").click()
    await expect(sam.locator(".warn")).to_have_text(
        "Take Sam out of “Elysium” and send them into “The parking lot”? "
        "They carry what they lost and spent tonight; their player's page follows."
    )
    await part(sam, "review-console-move-between-scenes")
    await sam.get_by_role("button", name="Confirm: move Sam from “Elysium” into “The parking lot”").click()
    await expect(sam).to_contain_text("Sam · in “The parking lot”")
    await expect(st.locator("ul.night-scenes li[data-scene=elysium]")).to_contain_text("In it: Juan")
    await expect(st.locator("ul.night-scenes li[data-scene=parking]")).to_contain_text("In it: Sam")
    await expect(sam).to_contain_text("The Storyteller sends Sam into “The parking lot”")
    assert kinds(backend, "elysium")[-1] == "character_left"

    # a change in a scene of the night: the ledger and who is where follow, with no button
    ledger = st.locator("details.ledger[data-character=sam] > summary")
    await expect(ledger).to_have_text("Sam · without Brawny")
    async with Client(live.url, tokens["st"], keep=True) as client:
        hurt = {"damage": {"bashing": 1}, "willpower": 0}
        body = {"type": "adjust", "scene": parking, "character": "sam", "changes": hurt, "reason": "a car door"}
        assert (await client.send(body))["ok"]
    await expect(ledger).to_have_text("Sam · without Brawny; 1 bashing damage")  # no button tapped
    await expect(sam).to_contain_text("Lost tonight: Brawny")

    # in the parking lot's console: taken out back to the night, not "for good"
    lot = await phone(browser, f"{live.web}/st?scene=parking#token={tokens['st']}")  # an old link still works
    await st_view(lot, "People")
    out = lot.locator("#characters").get_by_role(
        "button", name="Take Sam out of “The parking lot” (back to the night, with what they carry)"
    )
    await out.click()
    await expect(lot.locator("#characters .warn")).to_contain_text("They go back to the night between scenes")
    assert "for good" not in await lot.locator("#characters").inner_text()
    await lot.get_by_role("button", name="Confirm: take Sam out of “The parking lot”").click()

    await expect(sam).to_contain_text("Sam · between scenes")
    await expect(sam.get_by_label("Send Sam into")).to_have_value("")  # not the scene just left
    assert "sends Sam into" not in await sam.inner_text()  # no stale line
    await no_sideways_scroll(st)
    await accessible(st)
    await part(st.locator("#where"), "review-console-night-after-moves")


async def test_the_round_says_who_is_still_acting_and_draws_a_finished_turn_as_done(
    ring: str, live: Running, browser: Browser
) -> None:
    st = await phone(browser, f"{live.web}/st#token={ring}")
    round_ = st.locator("#round")
    await expect(round_.get_by_label("Steps they move this round")).to_be_visible()
    await expect(round_).to_contain_text("Up to 3 with a test, 6 without one, none with a full-round action")
    await round_.get_by_label("Declare the action of").select_option(label="Rosa")
    await round_.get_by_label("Action", exact=True).select_option("challenge")
    await round_.get_by_label("Against").select_option(label="Marcus")
    await round_.get_by_role("button", name="Declare their action").click()
    await expect(round_).to_contain_text("Order: Marcus 5 = Rosa 5")
    await round_.get_by_label("1st to resolve").select_option(label="Marcus")
    await round_.get_by_label("2nd to resolve").select_option(label="Rosa")
    await round_.get_by_role("button", name="Order the tie at 5").click()
    await expect(round_).to_contain_text("Order: Marcus 5, then Rosa 5")
    await expect(round_).to_contain_text("Now acting: Marcus, Rosa.")
    rows = round_.locator("tr:not(.head)")
    assert [t.split("\n")[0] for t in await rows.all_inner_texts()] == ["Marcus", "Rosa"]  # in the order they act

    await round_.get_by_role("button", name="End Marcus's turn").click()
    await round_.get_by_role("button", name="Confirm: end Marcus's turn").click()
    await expect(round_).to_contain_text("Now acting: Rosa.")
    marcus = rows.nth(0)
    await expect(marcus).to_have_class(re.compile(r"\bturn-done\b"))
    await expect(marcus).not_to_have_class(re.compile(r"your-turn"))
    await expect(rows.nth(1)).to_have_class(re.compile(r"\byour-turn\b"))
    styles = "(row) => [getComputedStyle(row).borderTopStyle, getComputedStyle(row).fontSize]"
    border, size = await marcus.evaluate(styles)
    assert border == "dashed" and float(size.removesuffix("px")) < 18  # not drawn large and green like a turn
    await no_sideways_scroll(st)
    await accessible(st)
    await part(round_, "review-console-round-turn-done")


async def test_record_the_test_offers_only_the_gestures_the_sheets_grant(
    alley: dict[str, str], live: Running, browser: Browser
) -> None:
    async with Client(live.url, alley["sam"]) as sam, Client(live.url, alley["bea"]) as bea:
        body = {"type": "declare", "challenge": "push", "kind": "contested", "targets": ["bea"]}
        assert (await sam.send({**body, "category": "physical", "bid": ["Brawny"], "victory": "A shove"}))["ok"]
        assert (await bea.send({"type": "bid", "challenge": "push", "bid": ["Nimble"]}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={alley['st']}")
    card = st.locator("#challenges article").filter(has_text="Sam challenges Bea")
    sams = await card.get_by_label("Sam threw").locator("option").all_inner_texts()
    beas = await card.get_by_label("Bea threw").locator("option").all_inner_texts()
    assert sams == ["Rock", "Paper", "Scissors"]  # Sam's sheet grants no gesture
    assert beas == ["Rock", "Paper", "Scissors", "Bomb"]
    await card.get_by_label("Sam threw").select_option("paper")
    await card.get_by_label("Bea threw").select_option("bomb")
    await card.get_by_role("button", name="Record the test").click()
    await expect(st.locator("#timeline")).to_contain_text("Bea threw bomb")
    assert "Refused" not in await st.locator("#challenges").inner_text()
    await st_view(st, "Log")
    await part(st.locator("#timeline"), "review-console-record-gestures")


async def test_sheets_are_refused_in_a_players_words_and_the_form_empties(
    alley: dict[str, str], live: Running, browser: Browser, tmp_path: Path
) -> None:
    st = await phone(browser, f"{live.web}/st#token={alley['st']}")
    await st_view(st, "People")
    bad = {"name": "Tomas", "willpower": "three", "traits": {"physical": {"Brawny": 0}}}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    await st.get_by_label("Add characters from sheet files", exact=False).set_input_files([tmp_path / "bad.json"])
    await st.get_by_role("button", name="Add", exact=True).click()
    refused = st.locator("#characters").get_by_role("alert")
    await expect(refused).to_contain_text("the sheet has 3 problems")
    await expect(refused.locator("li")).to_have_text(
        [
            "The sheet needs an id.",
            "Willpower must be a number (you wrote “three”).",
            "Brawny (Physical Traits) must be at least 1 (you wrote “0”).",
        ]
    )
    text = await refused.inner_text()
    assert "Expected" not in text and "`" not in text and "required" not in text

    form = st.locator("details.sheet-form")
    await form.locator("summary").click()
    await form.get_by_label("Name").fill("Old Tom")
    await form.get_by_label("Willpower").fill("5")
    await form.get_by_label("Physical Traits", exact=True).fill("Brawny 2, Quick")
    await form.get_by_label("Abilities").fill("Brawl 2")
    await form.get_by_label("Merits").fill("Lucky")
    await form.get_by_label("An NPC (you play them)").check()
    await form.get_by_role("button", name="Add the character").click()
    await expect(form).to_contain_text("✓ Old Tom joins the scene as an NPC.")
    values: dict[str, Any] = {
        "Name": "",
        "Willpower": "3",
        "Physical Traits": "",
        "Abilities": "",
        "Merits": "",
    }
    for label, value in values.items():
        await expect(form.get_by_label(label, exact=True)).to_have_value(value)
    await expect(form.get_by_label("An NPC (you play them)")).not_to_be_checked()
    await expect(form.get_by_label("Name", exact=True)).to_be_focused()
    await expect(st.locator("#characters")).to_contain_text("Old Tom (NPC)")
    await part(st.locator("#characters"), "review-console-sheets")

    # a new scene's console opens in a new tab, as a what-if's does; its invite box reads whole
    await st_view(st, "Settings")
    tools = st.locator("#tools")
    await tools.get_by_text("Start a new scene").click()
    await tools.get_by_label("Title").fill("The roof")
    await tools.get_by_role("button", name="Create").click()
    link = tools.get_by_role("link", name="open its console")
    await expect(link).to_have_attribute("target", "_blank")
    roof = await phone(browser, await link.get_attribute("href") or "")
    await st_view(roof, "Invitations")
    choice = roof.get_by_label("Invite the player of")
    await expect(choice.locator("option")).to_have_text(["Add a character first"])
    width = await choice.evaluate("(s) => s.getBoundingClientRect().width")
    assert width > 300  # a line of its own: the words are not cut off
    await no_sideways_scroll(roof)
    await part(roof.locator("#invitations"), "review-console-invite-box")


async def test_the_replay_says_whose_move_a_loss_followed(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    st = await phone(browser, f"{live.web}/st?scene=elysium#token={tokens['st']}")
    lost = await step_of(st, "Sam loses Brawny")
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    replay = await context.new_page()
    await replay.goto(f"{live.web}/replay?scene=elysium#token={tokens['st']}&step={lost}")
    detail = replay.locator(".step-summary")
    await expect(detail).to_contain_text("Sam loses Brawny")
    said = await replay.locator("p.scene").filter(has_text=re.compile(r"\d\d:\d\d:\d\d")).inner_text()
    assert said.endswith("Juan's challenge, after Sam's pass (no retest)"), said
    assert "by Sam" not in said
    await part(replay.locator(".step-detail"), "review-replay-cause")
