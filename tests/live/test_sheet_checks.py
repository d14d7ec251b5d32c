"""Sheets checked against their ruleset, on a 390x844 phone against a real server (issue 27, item
4): the console's sheet form shows every problem of a bns sheet at once, each beside its field,
with "did you mean"; what the rules leave open (Strength 7, a werewolf's) is kept only once the
Storyteller says so; the form speaks bns (skills, weapons), not lotn. A sheet is amended after it
is added, with a reason, and the amended sheet reaches the player's page and timeline; a character
removed and added again is the one character (one row), not a ghost beside a new one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.test_web import accessible, browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOTS = Path("/tmp")


async def shot(page: Page, name: str) -> None:
    await page.screenshot(path=SHOTS / f"i27-sheets-{name}.png", full_page=True)


def alert_of(form: object, page: Page, label: str) -> object:
    """The problems shown beside the field labelled ``label``."""
    return form.locator(".field").filter(has=page.get_by_label(label, exact=True)).get_by_role("alert")  # type: ignore[attr-defined]


async def test_a_bns_sheet_names_every_problem_beside_its_field(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    async with Client(live.url, tokens["st"]) as opener:
        opened = await opener.request(
            {"type": "create_scene", "ruleset": "bns", "title": "The church"}, "scene_created"
        )
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await st_view(st, "People")
    await st.locator("details.sheet-form summary").click()
    form = st.get_by_role("form", name="A new character's sheet")
    await expect(form).not_to_contain_text("Brawny")  # bns words: skills, not lotn's Traits
    await expect(form.get_by_role("group", name="Weapon 1")).to_be_visible()

    await form.get_by_label("Name", exact=True).fill("Vincent")
    await form.get_by_label("Strength", exact=True).fill("12")
    await form.get_by_label("Skills").fill("Brawl two, Brwal 2")
    await form.get_by_label("Weapon", exact=True).fill("Knife")
    await form.get_by_role("button", name="Add the character").click()
    skills = alert_of(form, st, "Skills")
    await expect(skills).to_have_count(2)
    await expect(skills.filter(has_text="Brwal")).to_contain_text("did you mean brawl?")
    await expect(skills.filter(has_text="Brawl two")).to_contain_text("like “Brawl 2”")
    await expect(alert_of(form, st, "Strength")).to_contain_text("Strength 12: attributes run 1 to 5 dots")
    await expect(st.get_by_role("button", name="Keep it as written")).to_have_count(0)  # a level in words: refused
    # review round 2: the refusal below said "see the fields marked above" two screens down; the
    # first field marked now has the focus, in view
    strength = form.get_by_label("Strength", exact=True)
    await expect(strength).to_be_focused()
    await expect(strength).to_be_in_viewport()
    await expect(strength).to_have_attribute("aria-invalid", "true")
    await st.screenshot(path=SHOTS / "i27-domain-sheet-focus.png")
    await shot(st, "bns-refused")
    await form.screenshot(path=SHOTS / "i27-sheets-bns-form.png")

    # the slips corrected; Strength 7 (a werewolf in Crinos) is the rules' open end: kept once confirmed
    await form.get_by_label("Skills").fill("brawl 2, dodge 1")
    await form.get_by_label("Strength", exact=True).fill("7")
    await form.get_by_role("button", name="Add the character").click()
    await expect(alert_of(form, st, "Skills")).to_have_count(0)
    await expect(alert_of(form, st, "Strength")).to_contain_text("Strength 7")
    await st.locator("details.sheet-form .outcome").screenshot(path=SHOTS / "i27-sheets-bns-keep.png")
    await st.get_by_role("button", name="Keep it as written").click()
    await expect(st.locator("details.sheet-form").get_by_role("status")).to_contain_text("Vincent joins the scene")
    added = [r for r in backend.store.read(opened["scene"]) if r.type == "character_added"]
    sheet = msgspec.to_builtins(added[-1].event)["character"]
    assert sheet["attributes"]["strength"] == 7 and sheet["skills"] == {"brawl": 2, "dodge": 1}
    assert [(w["name"], w["kind"], w["bonus"]) for w in sheet["weapons"]] == [("Knife", "melee", 0)]
    await accessible(st)


async def test_an_amended_sheet_reaches_the_player_and_a_return_is_one_character(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st_view(st, "People")
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    await expect(sam.locator("body")).to_contain_text("Brawl 2")

    row = st.locator("#characters tr").filter(has_text=re.compile("^Sam"))
    await row.get_by_text("Amend Sam's sheet").click()
    form = st.get_by_role("form", name="Sam's sheet, amended")
    await expect(form.get_by_label("Abilities")).to_have_value("Brawl 2")
    await form.get_by_label("Abilities").fill("Brwal 3")
    await form.get_by_label("Why (for the record; the player reads it)").fill("Brawl 3 on the paper sheet")
    await form.get_by_role("button", name="Amend the sheet").click()
    await expect(alert_of(form, st, "Abilities")).to_contain_text("did you mean Brawl?")
    await form.screenshot(path=SHOTS / "i27-sheets-amend-check.png")
    await form.get_by_label("Abilities").fill("Brawl 3")
    await form.get_by_role("button", name="Amend the sheet").click()
    await expect(row.get_by_role("status")).to_contain_text("Sam's sheet is amended")
    assert [r.type for r in backend.store.read("s1")][-1] == "character_amended"

    await expect(sam.locator("body")).to_contain_text("Brawl 3")
    await expect(sam.locator("body")).to_contain_text(
        "The Storyteller amends your sheet (Brawl 2 → 3): Brawl 3 on the paper sheet"
    )
    await shot(sam, "player-amended")

    # the Guard leaves and comes back from the form: one row, one character, both steps in the log
    guard = st.locator("#characters tr").filter(has_text=re.compile("^Guard"))
    await guard.get_by_role("button", name="Remove Guard").click()
    await st.get_by_role("button", name="Confirm: remove Guard").click()
    await expect(guard).to_contain_text("left the scene")
    await st.locator("details.sheet-form summary").click()
    adding = st.get_by_role("form", name="A new character's sheet")
    await adding.get_by_label("Name", exact=True).fill("Guard")
    await adding.get_by_label("An NPC").check()
    await adding.get_by_label("Physical Traits").fill("Tough 4")
    await adding.get_by_role("button", name="Add the character").click()
    await expect(st.locator("details.sheet-form").get_by_role("status")).to_contain_text("Guard is back in the scene")
    await expect(st.locator("#characters tbody tr").filter(has_text=re.compile("^Guard"))).to_have_count(1)
    await expect(guard).not_to_contain_text("left the scene")
    types = [(r.type, getattr(r.event, "character", None)) for r in backend.store.read("s1")]
    assert ("character_removed", "guard") in types
    returned = [r for r in backend.store.read("s1") if r.type == "character_added"][-1]
    assert returned.event.character.id == "guard"  # the one Guard, not a "guard-2"
    await shot(st, "console-returned")
    await st.locator("#characters table").screenshot(path=SHOTS / "i27-sheets-people.png")
    await accessible(st)
    await accessible(sam)


async def test_a_sheet_file_names_every_problem_and_what_the_rules_leave_open_is_kept_once_asked(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, tmp_path: Path
) -> None:
    async with Client(live.url, tokens["st"]) as opener:
        opened = await opener.request({"type": "create_scene", "ruleset": "bns", "title": "The docks"}, "scene_created")
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await st_view(st, "People")
    files = st.get_by_label("Add characters from sheet files", exact=False)
    results = st.locator("#characters .outcome").filter(has_text="docks.json")

    # review round 2: a weapon's kind that does not decode hides no other problem, and says which weapon
    knife = {"id": "rosa", "name": "Rosa", "attributes": {"strenght": 3, "strength": 12}, "skills": {"Brwal": 2},
             "weapons": [{"name": "Knife", "kind": "knife"}]}  # fmt: skip
    (tmp_path / "docks.json").write_text(json.dumps(knife))
    await files.set_input_files([tmp_path / "docks.json"])
    await st.get_by_role("button", name="Add", exact=True).click()
    said = results.get_by_role("alert")
    await expect(said).to_contain_text("Weapon 1 (Knife): kind must be melee, thrown, archery or firearms")
    await expect(said).to_contain_text("“strenght”")
    await expect(said).to_contain_text("Strength 12")
    await expect(said).to_contain_text("did you mean brawl?")
    await expect(said).not_to_contain_text("Invalid enum")
    await st.screenshot(path=SHOTS / "i27-domain-sheetfile-all.png", full_page=True)

    # two slips the rules close (a level in words, an attribute that is not one): refused, both named
    bad = {"id": "vincent", "name": "Vincent", "attributes": {"strenght": 3}, "skills": {"Brawl two": 1}}
    (tmp_path / "docks.json").write_text(json.dumps(bad))
    await files.set_input_files([tmp_path / "docks.json"])
    await st.get_by_role("button", name="Add", exact=True).click()
    await expect(results.get_by_role("alert")).to_contain_text("Refused: the sheet has 2 problems")
    await expect(results.get_by_role("button", name="Keep it as written")).to_have_count(0)

    # a near-miss of the document's skill (left open): Check, kept once the Storyteller says so
    unusual = {"id": "vincent", "name": "Vincent", "attributes": {"strength": 3}, "skills": {"Brwal": 2}}
    (tmp_path / "docks.json").write_text(json.dumps(unusual))
    await files.set_input_files([tmp_path / "docks.json"])
    await st.get_by_role("button", name="Add", exact=True).click()
    await expect(results.get_by_role("alert")).to_contain_text("did you mean")
    await expect(results.get_by_role("alert")).to_contain_text("Check:")
    await results.get_by_role("button", name="Keep it as written").click()
    await expect(results).to_contain_text("docks.json added.")
    added = [r for r in backend.store.read(opened["scene"]) if r.type == "character_added"]
    assert [msgspec.to_builtins(r.event)["character"]["skills"] for r in added] == [{"Brwal": 2}]
