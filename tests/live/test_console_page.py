"""The Storyteller's console at a real table, on a phone (Playwright driving Debian's Chromium against
a real server on loopback): it fits a 390 px screen, asks before anything that cannot be undone (and
a cancel leaves the log as it was), confirms every action with what it did, offers only what the
server would accept, writes sheets with a form, gives disputes their context, and shows a what-if
unlike the live scene."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.test_web import ARTIFACTS, accessible, browser, invite, phone, shot, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]

WIDE = "() => document.documentElement.scrollWidth"
RULESETS = ("lotn", "camarilla", "bns", "kony")


def log(backend: Backend, scene: str = "s1") -> list[str]:
    """The scene's log, event types in order."""
    return [r.type for r in backend.store.read(scene)]


async def fits(page: Page, name: str) -> None:
    """Nothing runs off a 390 px screen; the screenshot is saved to look at."""
    assert await page.evaluate(WIDE) <= 390, f"{name}: the page is wider than the phone"
    await shot(page, name)


async def part(locator: Any, name: str) -> None:
    """One section of a page as a screenshot of its own, to look at closely."""
    ARTIFACTS.mkdir(exist_ok=True)
    await locator.screenshot(path=ARTIFACTS / f"{name}.png")


async def right_edge(page: Page, locator: Any) -> float:
    box = await locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"]


async def swing(live: Running, tokens: dict[str, str], challenge: str = "c1") -> None:
    """Sam swings at Juan and Juan answers: both have bid, nobody has thrown."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        declared = await sam.send(
            {"type": "declare", "challenge": challenge, "kind": "contested", "targets": ["juan"],
             "category": "physical", "bid": ["Brawny"], "victory": "A swing at his jaw"}
        )  # fmt: skip
        assert declared["ok"], declared
        assert (await juan.send({"type": "bid", "challenge": challenge, "bid": ["Quick"]}))["ok"]


async def test_the_console_asks_before_it_destroys_and_a_cancel_sends_nothing(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """Withdraw, Revoke, Remove and Close the scene each ask first; Cancel leaves the log as it was,
    Confirm does it and says so."""
    await swing(live, tokens)
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    card = st.locator("#challenges article").filter(has_text="Sam challenges Juan").first
    await expect(card.get_by_role("button", name="Withdraw Sam → Juan")).to_be_visible()
    await fits(st, "console-phone")

    # the scene cannot be closed while a challenge is open: not offered, and says why
    await st_view(st, "Settings")
    await expect(st.locator("#scene").get_by_role("button", name="Close the scene")).to_have_count(0)
    await expect(st.locator("#scene")).to_contain_text("once no challenge is open")
    # Sam is in the open challenge: no Remove for him; the Guard may go
    await st_view(st, "People")
    await expect(st.locator("#characters").get_by_role("button", name="Remove Sam")).to_have_count(0)

    before = log(backend)
    await st_view(st, "Now")
    await card.get_by_role("button", name="Withdraw Sam → Juan").click()
    await expect(card).to_contain_text("Withdraw Sam → Juan? It stops where it is")
    await expect(card.get_by_role("button", name="Confirm: withdraw Sam → Juan")).to_be_focused()
    await shot(st, "console-confirm-withdraw")
    await part(card, "console-confirm-withdraw-card")
    await card.get_by_role("button", name="Cancel").click()
    await expect(card.get_by_role("button", name="Withdraw Sam → Juan")).to_be_focused()
    assert log(backend) == before, "a cancel sends nothing"
    await card.get_by_role("button", name="Withdraw Sam → Juan").click()
    await card.get_by_role("button", name="Confirm: withdraw Sam → Juan").click()
    await expect(st.locator("#challenges .outcome[data-key=challenges]")).to_contain_text("withdraw")
    assert log(backend) == [*before, "challenge_withdrawn"]

    # revoking a player's link
    await invite(st, "Sam")
    await st_view(st, "Invitations")
    async with Client(live.url, tokens["st"]) as st_client:
        listed = await st_client.request({"type": "tokens"}, "tokens")
        issued = [g["token_id"] for g in listed["tokens"] if g["character"] == "sam"][-1]
    tokens_table = st.locator("#invitations table")
    sams = tokens_table.locator("tr").filter(has_text=re.compile("^Sam"))
    await expect(sams).to_have_count(2)  # the fixture's link and the one just made
    revoke = sams.last.get_by_role("button", name=re.compile("^Revoke Sam's link at "))
    await expect(revoke).to_be_visible()
    await revoke.click()
    await tokens_table.get_by_role("button", name="Cancel").click()
    async with Client(live.url, tokens["st"]) as st_client:
        listed = await st_client.request({"type": "tokens"}, "tokens")
        assert not any(g["revoked"] for g in listed["tokens"]), "a cancel revokes nothing"
    await revoke.click()
    await tokens_table.get_by_role("button", name=re.compile("^Confirm: revoke Sam's link at ")).click()
    await expect(st.locator("#invitations")).to_contain_text("Revoked Sam's link")
    async with Client(live.url, tokens["st"]) as st_client:
        listed = await st_client.request({"type": "tokens"}, "tokens")
        assert [g["token_id"] for g in listed["tokens"] if g["revoked"]] == [issued]

    # removing the Guard: asked, cancelled, then done
    await st_view(st, "People")
    remove = st.locator("#characters").get_by_role("button", name="Remove Guard")
    await remove.click()
    await st.locator("#characters").get_by_role("button", name="Cancel").click()
    assert "character_removed" not in log(backend)
    await remove.click()
    await st.locator("#characters").get_by_role("button", name="Confirm: remove Guard").click()
    await expect(st.locator("#characters")).to_contain_text("left the scene")
    assert log(backend)[-1] == "character_removed"

    # closing the scene, now that nothing is open
    await st_view(st, "Settings")
    close = st.locator("#scene").get_by_role("button", name="Close the scene")
    await close.click()
    await expect(st.locator("#scene")).to_contain_text("Nothing more can be played in it")
    await st.locator("#scene").get_by_role("button", name="Cancel").click()
    assert "scene_closed" not in log(backend)
    await close.click()
    await st.locator("#scene").get_by_role("button", name="Confirm: close the scene").click()
    await expect(st.locator("header.top")).to_contain_text("closed")
    assert log(backend)[-1] == "scene_closed"
    # only disputes and rulings go on: nothing else is offered
    await st_view(st, "People")
    await expect(st.locator("#characters")).to_contain_text("The scene is closed: nobody joins it now.")
    await expect(st.locator("details.sheet-form")).to_be_hidden()
    await expect(st.locator("#characters").get_by_text("Adjust Sam")).to_have_count(0)
    await expect(st.locator("#characters").get_by_role("button", name="Remove Sam")).to_have_count(0)
    await expect(st.locator("#challenges .npc-declare")).to_be_empty()
    await accessible(st)


ROUND_SHEETS = [
    {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 9}}},
    {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5}}},
    {"id": "thug", "name": "Thug", "npc": True, "traits": {"physical": {"Tough": 5}}},
    {"id": "maria", "name": "Maria Villanueva de la Cruz", "traits": {"physical": {"Quick": 3}}},
    {"id": "fred", "name": "Frederick the Unready", "npc": True, "traits": {"physical": {"Lithe": 2}}},
]


async def camarilla_round(live: Running, tokens: dict[str, str]) -> str:
    """A camarilla scene with five characters in round 1, every action declared: Mark 9, then
    Joe and Thug tied at 5, then Maria and Frederick. Returns the console's token."""
    async with Client(live.url, tokens["st"]) as st:
        opened = await st.request(
            {"type": "create_scene", "ruleset": "camarilla", "title": "The docks"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st:
        for sheet in ROUND_SHEETS:
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st.send({"type": "start_round"}))["ok"]
        targets = {"mark": "thug", "joe": "mark", "thug": "mark", "maria": "fred", "fred": "maria"}
        for who, target in targets.items():
            action = {"kind": "challenge", "category": "physical", "target": target, "steps": 0}
            reply = await st.send({"type": "declare_action", "character": who, "action": action})
            assert reply["ok"], reply
    return str(opened["token"])


async def test_a_round_fits_a_phone_and_every_action_is_confirmed(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """Five characters in a round: no sideways scroll, each End turn button on the screen; ordering
    the tie confirms it and the order no longer reads as a tie; ending a turn says so; End round
    asks first and a cancel sends nothing."""
    st = await phone(browser, f"{live.web}/st#token={await camarilla_round(live, tokens)}")
    round_ = st.locator("#round")
    await expect(round_).to_contain_text("Order: Mark 9 → Joe 5 = Thug 5")
    await st_view(st, "People")
    await expect(st.locator("#characters")).to_contain_text("Maria Villanueva de la Cruz")
    await fits(st, "console-people-phone")
    await st_view(st, "Now")
    await fits(st, "console-round-phone")
    end_turn = round_.get_by_role("button", name="End Mark's turn")
    await end_turn.scroll_into_view_if_needed()
    assert await right_edge(st, end_turn) <= 390, "End turn is on the screen, not cut off"

    await round_.get_by_label("1st to resolve").select_option(label="Thug")
    await round_.get_by_label("2nd to resolve").select_option(label="Joe")
    await round_.get_by_role("button", name="Order the tie at 5").click()
    await expect(round_.get_by_role("status")).to_contain_text("The Storyteller orders the tie: Thug, then Joe.")
    await expect(round_).to_contain_text("Order: Mark 9 → Thug 5, then Joe 5")
    await expect(round_).not_to_contain_text("Thug 5 = Joe 5")
    await expect(round_.get_by_role("button", name="Order the tie at 5")).to_be_hidden()  # folded away
    await expect(round_).to_contain_text("You ordered the tie at 5: change it")
    await shot(st, "console-tie-ordered")
    await part(round_, "console-tie-ordered-round")

    await st_view(st, "Settings")  # the scene's id, for the record
    await st.locator("#scene details.record summary").click()
    scene = (await st.locator("#scene details.record dd code").first.inner_text()).strip()
    await st_view(st, "Now")
    header = await st.locator("header.top").inner_text()
    assert "The docks" in header and scene not in header, "the header names the scene by its title, not its id"
    before = log(backend, scene)
    await end_turn.click()  # ending a turn asks first; a cancel sends nothing
    await expect(round_).to_contain_text("End Mark's turn? It cannot be taken back.")
    await part(round_.locator("tr").filter(has_text=re.compile("^Mark")), "console-confirm-end-turn")
    await round_.get_by_role("button", name="Cancel").click()
    assert log(backend, scene) == before, "a cancel ends no turn"
    await round_.get_by_role("button", name="End Mark's turn").click()
    await round_.get_by_role("button", name="Confirm: end Mark's turn").click()
    await expect(round_.get_by_role("status")).to_contain_text("Mark")
    mark_row = round_.locator("tr").filter(has_text=re.compile("^Mark"))
    await expect(mark_row).to_contain_text("done")

    before = log(backend, scene)
    await round_.get_by_role("button", name="End round 1").click()
    await expect(round_).to_contain_text("End round 1 for everyone? Not done yet:")
    await fits(st, "console-confirm-end-round")
    await part(round_.locator(".confirm").filter(has_text="End round 1 for"), "console-confirm-end-round-part")
    await round_.get_by_role("button", name="Cancel").click()
    assert log(backend, scene) == before, "a cancel sends nothing"
    await round_.get_by_role("button", name="End round 1").click()
    await round_.get_by_role("button", name="Confirm: end round 1").click()
    await expect(round_).to_contain_text("Round 1 is over.")
    await expect(round_.get_by_role("status")).to_contain_text("Round 1 ends")
    assert log(backend, scene)[-1] == "round_ended"
    await accessible(st)


async def test_record_the_test_is_offered_only_while_the_server_would_take_it(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """Once a sealed throw is in, "Record the test" goes (record_test would be refused) and the card
    says why; a test recorded, an adjustment and an NPC's declaration each confirm what they did."""
    await swing(live, tokens, "first")
    await swing(live, tokens, "second")
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    first = st.locator("#challenges article").filter(has_text="Sam challenges Juan").first
    second = st.locator("#challenges article").filter(has_text="Sam challenges Juan").last
    await expect(first.get_by_role("button", name="Record the test")).to_be_visible()
    await expect(second.get_by_role("button", name="Record the test")).to_be_visible()

    async with Client(live.url, tokens["sam"]) as sam:  # Sam throws for the second on his phone
        assert (await sam.send({"type": "throw", "challenge": "second", "sign": "rock"}))["ok"]
    await expect(second.get_by_role("button", name="Record the test")).to_have_count(0)
    await expect(second).to_contain_text("A sealed throw is in: Sam threw on their phone")
    async with Client(live.url, tokens["st"]) as st_client:  # as the server says
        refused = await st_client.send(
            {"type": "record_test", "challenge": "second", "signs": {"sam": "rock", "juan": "paper"}}
        )
        assert refused["error"]["code"] == "throws_in"

    # the first, recorded from the table: the confirmation says what the test came to
    await first.get_by_label("Sam threw").select_option("rock")
    await first.get_by_label("Juan threw").select_option("scissors")
    await first.get_by_role("button", name="Record the test").click()
    said = st.locator("#challenges .outcome[data-key=challenges]")
    await expect(said).to_contain_text("✓")
    await expect(said).to_contain_text("Test 1")
    assert "test_revealed" in log(backend)

    # an adjustment: confirmed, and the row shows the new Willpower
    await st_view(st, "People")
    adjust = st.locator("#characters details").filter(has_text="Adjust Sam")
    await adjust.locator("summary").click()
    await adjust.get_by_label("Willpower (+/-)").fill("-1")
    await adjust.get_by_label("Reason (kept in the log)").fill("a retest")
    await adjust.get_by_role("button", name="Adjust", exact=True).click()
    sam_row = st.locator("#characters tr").filter(has_text=re.compile("^Sam"))
    await expect(sam_row.get_by_role("status")).to_contain_text("Adjusted.")
    await expect(sam_row.get_by_role("cell", name="Willpower: 1")).to_be_visible()  # it was 2

    # the Guard swings at Sam, declared from the console: confirmed, and the card is there
    await st_view(st, "Now")
    npc = st.locator("#challenges .npc-declare")
    await npc.get_by_text("Declare a challenge for an NPC").click()
    await npc.get_by_label("Target", exact=True).select_option(label="Sam")
    await npc.get_by_label("Victory condition").fill("Out you go")
    await npc.get_by_role("button", name="Declare", exact=True).click()
    await expect(npc.get_by_role("status").filter(has_text="Declared.")).to_be_visible()
    await expect(st.locator("#challenges article").filter(has_text="Guard challenges Sam")).to_be_visible()
    await fits(st, "console-recorded")
    await accessible(st)


async def test_a_sheet_written_in_the_form_joins_the_scene_and_the_players_page(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """The Storyteller writes Rosa's sheet in the form; each bad value is refused beside its field
    (the server's words), then she joins the scene with all of it, and her player's page shows her."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    form = st.get_by_role("form", name="A new character's sheet")
    await st_view(st, "People")
    await st.locator("details.sheet-form summary").click()
    await form.get_by_label("Name", exact=True).fill("Rosa Vega")
    await form.get_by_label("Willpower").fill("300")
    await form.get_by_label("Health levels").fill("7")
    await form.get_by_label("Blood").fill("10")
    await form.get_by_label("Physical Traits").fill("Quick 2, Brawny, Nimble ×3")
    await form.get_by_label("Mental Traits").fill("Alert, Quick")
    await form.get_by_label("Physical Negative Traits").fill("Clumsy")
    await form.get_by_label("Abilities").fill("Brawl 2, Dodge")
    await form.get_by_label("Powers (with levels)").fill("Celerity 2, Potence 1")
    await form.get_by_label("Merits").fill("Lucky")
    await form.get_by_role("button", name="Add the character").click()
    willpower = form.locator(".field").filter(has=st.get_by_label("Willpower"))
    await expect(willpower.get_by_role("alert")).to_contain_text("Willpower must be at most 99 (you wrote “300”).")
    await part(form, "console-sheet-refused")
    assert "character_added" not in log(backend)[4:]

    await form.get_by_label("Willpower").fill("3")
    await form.get_by_role("button", name="Add the character").click()
    mental = form.locator(".field").filter(has=st.get_by_label("Mental Traits", exact=True))
    await expect(mental.get_by_role("alert")).to_contain_text("Quick is already a Physical Trait")
    await expect(willpower.get_by_role("alert")).to_have_count(0)  # that one is right now

    await form.get_by_label("Mental Traits", exact=True).fill("Alert, Clever")
    await form.get_by_role("button", name="Add the character").click()
    await expect(st.locator("#characters").get_by_role("status")).to_contain_text("Rosa Vega joins the scene")
    await expect(st.locator("#characters tr").filter(has_text=re.compile("^Rosa Vega"))).to_be_visible()
    added = [r for r in backend.store.read("s1") if r.type == "character_added"][-1]
    sheet = msgspec.to_builtins(added.event)["character"]
    assert sheet["id"] == "rosa-vega" and sheet["willpower"] == 3 and sheet["blood"] == 10
    assert sheet["traits"]["physical"] == {"Quick": 2, "Brawny": 1, "Nimble": 3}
    assert sheet["negative_traits"]["physical"] == ["Clumsy"]
    assert sheet["powers"] == {"Celerity": 2, "Potence": 1} and sheet["merits"] == ["Lucky"]
    assert sheet["abilities"] == {"Brawl": 2, "Dodge": 1}
    await fits(st, "console-sheet-added")

    rosa = await phone(browser, await invite(st, "Rosa Vega"))
    await expect(rosa.get_by_role("heading", name="Rosa Vega", exact=True)).to_be_visible()
    await expect(rosa.locator("body")).to_contain_text("Nimble")
    await shot(rosa, "player-sheet-from-form")
    await accessible(st)


async def test_each_ruleset_has_a_template_sheet_the_server_accepts(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """The console links a template sheet for its ruleset; each of the four, downloaded as the page
    offers it, is a sheet the server takes in a scene of that ruleset; the bns form asks for
    attributes and skills, the kony form for armour and extra actions."""
    async with Client(live.url, tokens["st"]) as st_client:
        for ruleset in RULESETS:
            opened = await st_client.request({"type": "create_scene", "ruleset": ruleset}, "scene_created")
            st = await phone(browser, f"{live.web}/st#token={opened['token']}")
            await st_view(st, "People")
            await st.locator("details.sheet-form summary").click()
            link = st.get_by_role("link", name="Download a template sheet")
            assert await link.get_attribute("href") == f"/static/templates/{ruleset}.json"
            async with st.expect_download() as downloading:
                await link.click()
            template = json.loads(Path(await (await downloading.value).path()).read_text())
            async with Client(live.url, opened["token"]) as console:
                added = await console.send({"type": "add_character", "character": template})
                assert added["ok"], (ruleset, added)
            form = st.get_by_role("form", name="A new character's sheet")
            if ruleset == "bns":
                await expect(form.get_by_label("Wits")).to_have_value("2")
                await form.get_by_label("Name", exact=True).fill("Vincent")
                await form.get_by_label("Wits").fill("4")
                await form.get_by_label("Skills").fill("dodge 2, intimidation 5")
                await form.get_by_role("button", name="Add the character").click()
                await expect(st.locator("#characters tr").filter(has_text=re.compile("^Vincent"))).to_contain_text(
                    "Wits 4"
                )
                await part(form, "console-sheet-bns")
            if ruleset == "kony":
                await expect(form.get_by_label("Armour")).to_be_visible()
                await expect(form.get_by_label("Extra actions each round")).to_be_visible()
                await form.get_by_label("An NPC").check()
                await expect(form.get_by_label("A combat sheet")).to_be_visible()
            await st.context.close()


async def test_a_dispute_shows_the_step_in_words_and_the_sides_by_name(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """Juan disputes the test he lost: the console counts the open dispute in its navigation, shows
    the disputed step in the timeline's words and the challenge it was in, and its ruling form names
    Sam and Juan (never "Challenger" or "Defender"); the ruling is confirmed and the count goes."""
    await swing(live, tokens)
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        assert (await sam.send({"type": "throw", "challenge": "c1", "sign": "rock"}))["ok"]
        assert (await juan.send({"type": "throw", "challenge": "c1", "sign": "scissors"}))["ok"]
        assert (await juan.send({"type": "pass", "challenge": "c1"}))["ok"]
        revealed = next(r.seq for r in backend.store.read("s1") if r.type == "test_revealed")
        disputed = await juan.send({"type": "dispute", "event": revealed, "reason": "He threw late"})
        assert disputed["ok"], disputed
    async with Client(live.url, tokens["st"]) as st_client:  # a long night since: the step is far back
        for n in range(120):
            body = {
                "type": "adjust",
                "character": "guard",
                "changes": {"willpower": 1 - 2 * (n % 2)},
                "reason": "a sip",
            }
            assert (await st_client.send(body))["ok"]
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st_view(st, "Log")
    await expect(st.locator("#timeline")).to_contain_text("The Storyteller adjusts Guard")
    await expect(st.locator("#timeline")).not_to_contain_text("Test 1: Sam rock")  # not among the latest
    nav = st.get_by_role("navigation", name="Console views")
    await expect(nav.get_by_role("link", name="Disputes (1 open)")).to_be_visible()
    await st.screenshot(path=ARTIFACTS / "console-top-disputes.png")  # the first screen, as the ST sees it
    await st_view(st, "Disputes")
    dispute = st.locator("#disputes article")
    await expect(dispute.get_by_role("heading")).to_have_text(f"Juan disputes step {revealed}")
    await expect(dispute.locator("blockquote")).to_contain_text("Test 1: Sam rock")
    await expect(dispute).to_contain_text("In the challenge Sam challenges Juan (Physical): Sam won")
    await expect(dispute).to_contain_text("Juan: “He threw late”")
    ruling = dispute.get_by_label("Ruling")
    options = await ruling.locator("option").all_inner_texts()
    assert options == ["Uphold: it stands", "Overturn: Juan wins instead", "Amend: name the winner"]
    await ruling.select_option("amend")
    winner = dispute.get_by_label("Winner")
    assert await winner.locator("option").all_inner_texts() == ["Sam wins", "Juan wins", "Nobody (a draw)"]
    text = await st.locator("#disputes").inner_text()
    assert "Challenger" not in text and "Defender" not in text
    await part(st.locator("#disputes"), "console-dispute")
    await fits(st, "console-dispute-page")

    await ruling.select_option("overturn")
    await expect(winner).to_be_hidden()  # only an amendment names a winner
    await dispute.get_by_label("Reason (kept in the log)").fill("Juan threw in time")
    await dispute.get_by_role("button", name="Rule", exact=True).click()
    await expect(dispute.locator(".warn")).to_contain_text(f"Rule on step {revealed}: Overturn: Juan wins instead?")
    assert "ruling_issued" not in log(backend)  # nothing sent before the confirmation
    await dispute.get_by_role("button", name=f"Confirm: rule on step {revealed}").click()
    await expect(st.locator("#disputes .outcome[data-key=disputes]")).to_contain_text("Ruled.")
    await expect(nav.get_by_role("link", name="Disputes", exact=True)).to_be_visible()
    assert log(backend)[-1] != "dispute_opened" and "ruling_issued" in log(backend)
    await accessible(st)


async def test_a_what_if_console_looks_unlike_the_live_one(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """The Storyteller forks a what-if from the console: its console carries a banner naming the
    scene and the event it was forked at, and another accent; the live console has neither, and
    nothing done in the what-if reaches the live scene's log."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    banner = st.get_by_role("note").filter(has_text="What-if")
    await expect(banner).to_have_count(0)
    await st_view(st, "Settings")
    live_accent = await st.locator("#scene h2").evaluate("(el) => getComputedStyle(el).color")
    await st.get_by_label("Fork a what-if after event #").fill("3")
    await st.get_by_role("button", name="Fork", exact=True).click()
    opened = st.get_by_role("link", name="Open its console")
    await expect(opened).to_be_visible()
    href = await opened.get_attribute("href")
    assert href
    fork = await phone(browser, f"{live.web}{href}")
    what_if = fork.get_by_role("note")
    await expect(what_if).to_have_text("What-if of “The alley”, from step 3 — nothing here changes the real scene.")
    assert await fork.locator("#scene h2").evaluate("(el) => getComputedStyle(el).color") != live_accent
    assert (await fork.title()).startswith("What-if")
    await st_view(fork, "People")
    await expect(fork.locator("#characters")).to_contain_text("Juan")
    await expect(fork.locator("#characters")).not_to_contain_text("Guard")  # added after event 3
    await fits(fork, "console-what-if")
    await part(fork.locator("body > #app > .what-if-banner, header.top").first, "console-what-if-banner")
    await accessible(fork)

    before = log(backend)
    remove = fork.locator("#characters").get_by_role("button", name="Remove Juan")
    await remove.click()
    await fork.locator("#characters").get_by_role("button", name="Confirm: remove Juan").click()
    await expect(fork.locator("#characters")).to_contain_text("left the scene")
    assert log(backend) == before  # the live scene never hears of it
    await expect(banner).to_have_count(0)  # and its console still looks live


QR_FITS = """(box) => {
  const svg = box.querySelector('svg');
  const drawn = svg.querySelector('path.qrline') || svg.querySelector('path:last-of-type');
  const r = (el) => el.getBoundingClientRect();
  const [b, s, d] = [r(box), r(svg), r(drawn)];
  const inside = (a, o) => a.left >= o.left - 0.5 && a.top >= o.top - 0.5
    && a.right <= o.right + 0.5 && a.bottom <= o.bottom + 0.5;
  return {viewBox: svg.getAttribute('viewBox'), width: svg.getAttribute('width'), svgInBox: inside(s, b),
          codeInSvg: inside(d, s), side: s.width, square: Math.abs(s.width - s.height) < 1};
}"""
"""Where the QR code is drawn: the SVG inside its box, the dark modules inside the SVG (a code cut at
its edge cannot be scanned), and the SVG sized by its viewBox, not a fixed width."""

TOKEN_ID = re.compile(r"\bt-[0-9a-f]{10}\b")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


async def test_an_invitation_on_a_phone_is_whole_scannable_and_named_in_words(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Invite waits for a choice; a refusal goes when the next invitation succeeds; the QR code is
    drawn whole inside its box; the links table stacks on a phone with Revoke on the screen, times in
    words and no token ids; Copy link says it copied, or selects the link where there is no clipboard."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st_view(st, "Invitations")
    section = st.locator("#invitations")
    button = section.get_by_role("button", name="Invite", exact=True)
    await expect(section.get_by_label("Invite the player of")).to_have_value("")
    await expect(button).to_be_disabled()  # nobody chosen: nothing to send
    # a character who is not in the scene (a stale choice): refused, then cleared by a success
    await section.get_by_label("Invite the player of").evaluate(
        "(s) => { s.append(new Option('Ghost', 'ghost')); s.value = 'ghost'; s.dispatchEvent(new Event('change')); }"
    )
    await button.click()
    await expect(section.get_by_role("alert")).to_be_visible()
    await invite(st, "Sam")
    await expect(section.get_by_role("alert")).to_have_count(0)

    box = section.get_by_role("img", name="QR code of Sam's link")
    qr = await box.evaluate(QR_FITS)
    assert qr["viewBox"] and not qr["width"], qr
    assert qr["svgInBox"] and qr["codeInSvg"] and qr["square"], f"the QR code is cut off: {qr}"
    assert qr["side"] >= 148, qr

    table = section.locator("table.tokens")
    await expect(table.locator("tr").filter(has_text=re.compile("^Sam"))).to_have_count(2)
    assert await table.evaluate("(t) => t.scrollWidth <= t.parentElement.clientWidth"), "the table runs off its box"
    for revoke in await table.get_by_role("button", name=re.compile("^Revoke")).all():
        assert await right_edge(st, revoke) <= 390, "Revoke is on the screen"
    words = await section.inner_text()
    assert not TOKEN_ID.search(words) and not ISO_TIME.search(words), words
    assert re.search(r"\bat \d\d:\d\d\b", await table.inner_text()) and "never expires" in words, words
    await expect(section.locator(".invite")).to_contain_text("Issued at ")

    await st.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.web)
    await section.get_by_role("button", name="Copy link").click()
    await expect(section.locator(".invite").get_by_role("status")).to_contain_text("Copied")
    link = await section.get_by_role("textbox", name="Sam's link").input_value()
    assert await st.evaluate("() => navigator.clipboard.readText()") == link
    # plain http on a LAN address has no clipboard: the link is selected to copy by hand
    await st.evaluate("() => Object.defineProperty(navigator, 'clipboard', { value: undefined })")
    await section.get_by_role("button", name="Copy link").click()
    await expect(section.locator(".invite").get_by_role("status")).to_contain_text("Selected: copy it")
    selected = "(i) => document.activeElement === i && i.selectionStart === 0 && i.selectionEnd === i.value.length"
    assert await section.get_by_role("textbox", name="Sam's link").evaluate(selected)
    await fits(st, "console-invitation-phone")
    await part(section, "console-invitation-section")

    # the file picker says its words whole
    await st_view(st, "People")
    picker = st.get_by_label("Add characters from sheet files (JSON: one sheet or a list)")
    assert (await picker.bounding_box() or {"width": 0})["width"] >= 300, "the file picker is cut short"
    await accessible(st)


async def test_an_npc_challenge_has_one_withdraw_and_it_asks(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    """The Guard's challenge on the console: one Withdraw (the Storyteller's, which asks first), not a
    second one that acts at a tap."""
    async with Client(live.url, tokens["st"]) as st_client:
        declared = await st_client.send(
            {"type": "declare", "challenge": "c1", "character": "guard", "kind": "contested", "targets": ["sam"],
             "category": "physical", "bid": ["Tough"], "victory": "A shove"}
        )  # fmt: skip
        assert declared["ok"], declared
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    card = st.locator("#challenges article").filter(has_text="Guard challenges Sam").first
    await expect(card.get_by_role("button", name="Withdraw Guard → Sam")).to_be_visible()
    await expect(card.get_by_role("button", name=re.compile("^Withdraw"))).to_have_count(1)
    await expect(card.get_by_text("Acting for Guard")).to_be_hidden()  # nothing else the Guard may do yet
    await part(card, "console-npc-challenge-card")
    before = log(backend)
    await card.get_by_role("button", name="Withdraw Guard → Sam").click()
    assert log(backend) == before, "the first tap only asks"
    await card.get_by_role("button", name="Confirm: withdraw Guard → Sam").click()
    await expect(st.locator("#challenges .outcome[data-key=challenges]")).to_contain_text("withdraw")
    assert log(backend)[-1] == "challenge_withdrawn"


async def test_the_console_speaks_in_names_and_plain_words(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """The header names the scene by its title (its id for the record, folded in the scene panel); the
    new scene form names each ruleset and its house rules in words, with no rule ids in its hints."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await expect(st.locator("header.top")).to_contain_text("The alley · Laws of the Night")
    await st_view(st, "Settings")
    await expect(st.locator("#scene details.record")).to_contain_text("s1")
    await expect(st.locator("#scene details.record dd").first).to_be_hidden()  # folded
    tools = st.locator("#tools")
    await tools.locator("summary").filter(has_text="Start a new scene").click()
    for ruleset, legend in (
        ("bns", "House rules for By Night Studios"),
        ("kony", "House rules for Kings of New York"),
    ):
        await tools.get_by_label("Rules").select_option(value=ruleset)
        await expect(tools.locator("fieldset.house-rules:visible legend")).to_have_text(re.compile(f"^{legend}"))
        words = await tools.inner_text()
        assert not re.search(r"\((bns|kony|lotn)\)|\b(kony|bns|lotn):", words), words
    await fits(st, "console-new-scene-kony")
    await part(tools.locator("details").filter(has_text="Start a new scene"), "console-new-scene-kony-form")
    await part(st.locator("header.top"), "console-header")
    await part(st.locator("#scene"), "console-scene-panel")


async def test_an_npc_who_escaped_reads_as_one_sentence(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """A kony NPC escapes at the start of a round and leaves: the Characters table says "Rat escaped,
    left the scene", not "Rat escaped., left the scene"."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "kony", "title": "Kings of New York"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for sheet in (
            {"id": "sal", "name": "Sal", "traits": {"physical": {"Brawny": 3}}},
            {"id": "rat", "name": "Rat", "npc": True, "traits": {"physical": {"Quick": 3}}, "blood": 5},
        ):
            assert (await st_client.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st_client.send({"type": "start_round"}))["ok"]
        escaped = await st_client.send(
            {"type": "declare_action", "character": "rat", "action": {"kind": "fair_escape"}}
        )  # fmt: skip
        assert escaped["ok"], escaped
        assert (await st_client.send({"type": "end_round"}))["ok"]
        assert (await st_client.send({"type": "remove_character", "character": "rat"}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await st_view(st, "People")
    row = st.locator("#characters tr").filter(has_text=re.compile("^Rat"))
    await expect(row).to_contain_text("Rat escaped, left the scene")
    words = await row.inner_text()
    assert ".," not in words, words
    await part(row, "console-npc-escaped-row")
