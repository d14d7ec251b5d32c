"""Response deadlines on the pages (issue 29), on 390x844 phones in Debian's Chromium against a real
server, with deadlines of a few seconds: the time left on the card whose move is due, large for its
player and quiet for the other; the player's warning (a banner, a buzz, the title counting down) at
``warn_at``, gone once the deadline is; the Storyteller told, its banner's choice clicked moving the
challenge on; and after a lapse that acts, the random throw on both phones. The Storyteller sets the
deadlines from the console's own form. A lapse is sent as the server's shell sends it (the
Storyteller's ``lapse``, once its time has passed): where the shell's alarm already sent it, the
second is refused and changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from server.backend import Backend
from tests.live.test_player_page import SENSORS
from tests.live.test_web import PHONE, accessible, browser, phone, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]

SAM = {"id": "sam", "name": "Sam", "traits": {"physical": {"Brawny": 3}}}
JUAN = {"id": "juan", "name": "Juan", "traits": {"physical": {"Quick": 3}}}
CLOCK = re.compile(r"^\d+:\d\d$")
SLOW = 16
"""Seconds Juan has to throw in the countdown test: its checks before the warning (a quarter of the
time before the end) have 12 of them, however busy the machine."""
TICKING = "import('/static/js/deadlines.js').then((m) => m.ticking())"  # the page's own module


async def player(browser: Browser, url: str) -> Page:
    """A player's phone, its buzzes recorded (navigator.vibrate)."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    await context.add_init_script(SENSORS)
    page = await context.new_page()
    await page.goto(url)
    await expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    return page


async def snap(page: Page, where: Path, name: str, full: bool = False) -> None:
    await page.screenshot(path=where / f"{name}.png", full_page=full)


def log(backend: Backend, scene: str = "s1") -> list[str]:
    return [r.type for r in backend.store.read(scene)]


async def set_from_console(st: Page, seconds: int, lapse: str) -> None:
    """The Storyteller times throws from Settings (nothing else timed)."""
    await st_view(st, "Settings")
    form = st.locator("#timing form")
    await form.get_by_role("checkbox", name="Throwing or rolling", exact=True).check()
    await form.get_by_label("Seconds (Throwing or rolling)", exact=True).fill(str(seconds))
    await form.get_by_label("When time is up (Throwing or rolling)", exact=True).select_option(lapse)
    await form.get_by_role("button", name="Set the deadlines").click()
    await expect(st.locator("#timing .outcome")).to_contain_text("✓")


async def swing(live: Running, tokens: dict[str, str]) -> None:
    """Sam swings at Juan, Juan answers, Sam throws: Juan's throw is the move due."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        declared = await sam.send(
            {"type": "declare", "challenge": "c1", "kind": "contested", "targets": ["juan"],
             "category": "physical", "bid": ["Brawny"], "victory": "A swing at his jaw"}
        )  # fmt: skip
        assert declared["ok"], declared
        assert (await juan.send({"type": "bid", "challenge": "c1", "bid": ["Quick"]}))["ok"]
        assert (await sam.send({"type": "throw", "challenge": "c1", "sign": "rock"}))["ok"]


async def lapse(live: Running, token: str, key: str, backend: Backend) -> None:
    """The deadline ``key`` ran out: the Storyteller's ``lapse``, sent as the shell sends it, once
    its time has passed (a second from another sender is refused and appends nothing)."""
    async with Client(live.url, token) as st:
        with anyio.fail_after(30):
            while True:
                reply = await st.send({"type": "lapse", "key": key})
                if reply["ok"] or reply["error"]["code"] in ("told", "no_deadline"):
                    break
                assert reply["error"]["code"] == "not_yet", reply
                await anyio.sleep(0.2)
    assert log(backend).count("deadline_passed") == 1


async def test_the_countdown_the_warning_and_the_storytellers_choice(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, tmp_path: Path
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await set_from_console(st, SLOW, "tell")
    assert log(backend)[-1] == "deadlines_set"
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    await st_view(st, "Now")
    await expect(st.locator("#deadlines")).to_contain_text("No move is timed now.")  # set, none running yet
    assert not await juan.evaluate(TICKING)  # nothing to count down: no timer
    await swing(live, tokens)

    # Juan's move: on his card, large, in his words; on Sam's, quietly, by name
    mine = juan.locator("#challenges article .deadline")
    await expect(mine).to_have_count(1)  # Sam's throw taken in (a locator of two fails at once, not waiting)
    await expect(mine).to_have_class(re.compile(r"\bmine\b"))
    await expect(mine.locator(".said")).to_have_text(f"You have {SLOW} seconds to throw.")
    await expect(mine.locator(".then")).to_have_text("Then the Storyteller is told.")
    assert CLOCK.match(await mine.locator(".time-left").inner_text())
    assert await juan.evaluate(TICKING)  # the page's one timer
    theirs = sam.locator("#challenges article .deadline")
    await expect(theirs).to_have_count(1)
    await expect(theirs).to_have_class(re.compile(r"\btheirs\b"))
    await expect(theirs.locator(".said")).to_have_text(f"Juan has {SLOW} seconds to throw.")
    await expect(theirs.locator(".clock")).to_contain_text("left for Juan")
    big = await mine.locator(".time-left").evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    small = await theirs.locator(".time-left").evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    assert big > 2 * small
    await expect(juan.locator(".hurry")).to_be_hidden()  # not yet: warned a short while before
    # the Storyteller's list: every running deadline, with its time left
    listed = st.locator("#deadlines ul.deadlines li")
    await expect(listed).to_have_count(1)
    await expect(listed).to_contain_text(f"Juan has {SLOW} seconds to throw.")
    await expect(listed.locator(".time-left")).to_have_text(CLOCK)
    await snap(juan, tmp_path, "juan-countdown")
    await snap(sam, tmp_path, "sam-countdown")

    # at warn_at: a banner, a buzz, the title counting down; nothing of it on Sam's phone
    hurry = juan.locator(".hurry")
    await expect(hurry).to_be_visible(timeout=(SLOW + 2) * 1000)
    await expect(hurry).to_contain_text(re.compile(r"\d seconds? left to throw"))
    await expect(juan).to_have_title(re.compile(r"^⏳ 0:0\d · Juan · The alley · Justicar$"))
    assert await juan.evaluate("window.__buzz.length") >= 1
    buzzes = await juan.evaluate("window.__buzz.length")
    await expect(sam.locator(".hurry")).to_be_hidden()
    assert not (await sam.title()).startswith("⏳")
    await snap(juan, tmp_path, "juan-warned")
    await accessible(juan)  # named, readable in a dim room, nothing axe-core finds serious

    # time is up: told. Juan's card says so, his warning and title are gone; the console's banner
    # offers the Storyteller's choices
    key = await mine.get_attribute("data-key")
    assert key
    await lapse(live, tokens["st"], key, backend)
    await expect(mine).to_have_class(re.compile(r"\btold\b"))
    await expect(mine.locator(".said")).to_have_text(f"You did not throw in {SLOW} seconds.")
    await expect(mine.locator(".told-note")).to_have_text("The Storyteller chooses what happens.")
    await expect(hurry).to_be_hidden()
    await expect(juan).to_have_title(re.compile(r"^(● Your move · )?Juan · The alley · Justicar$"))
    assert await juan.evaluate("window.__buzz.length") == buzzes  # warned once, not each second
    banner = st.locator("#deadlines .late-banner")
    await expect(banner).to_contain_text(f"Juan did not throw in {SLOW} seconds.")
    await expect(st).to_have_title(re.compile(r"^● Late move · "))
    choices = banner.get_by_role("button")
    await expect(choices.first).to_have_text("Throw at random for Juan")
    # (no relent: both have bid and Sam has thrown; the view offers only what the server accepts)
    await expect(choices).to_have_text(["Throw at random for Juan", f"Give Juan {SLOW} seconds more"])
    await snap(st, tmp_path, "st-told", full=True)
    await accessible(st)
    await snap(juan, tmp_path, "juan-told")

    # the Storyteller throws for him: the test is thrown, the challenge moves on
    await banner.get_by_role("button", name="Throw at random for Juan").click()
    await expect(st.locator("#deadlines .outcome")).to_contain_text("✓")
    for page in (sam, juan):
        await expect(page.locator("#challenges article ol.tests")).to_contain_text("Test 1:")
    # the late move is gone (a tie's declaring of Traits would be a new step, with a clock of its own)
    await expect(juan.locator(f'.deadline[data-key="{key}"]')).to_have_count(0)
    await expect(banner).to_have_count(0)
    await expect(juan).not_to_have_title(re.compile("^⏳"))
    assert log(backend).count("throw_sealed") >= 2
    await snap(juan, tmp_path, "juan-after-choice", full=True)
    await snap(st, tmp_path, "st-after-choice", full=True)


async def test_a_lapse_that_acts_throws_at_random_on_both_phones(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, tmp_path: Path
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await set_from_console(st, 4, "act")
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    await swing(live, tokens)
    mine = juan.locator("#challenges article .deadline.mine")
    await expect(mine.locator(".then")).to_have_text("Then a sign is thrown at random for you.")
    await expect(sam.locator("#challenges article .deadline.theirs .then")).to_have_text(
        "Then a sign is thrown at random for Juan."
    )
    key = await mine.get_attribute("data-key")
    assert key
    await lapse(live, tokens["st"], key, backend)
    after = log(backend)
    assert after[after.index("deadline_passed") + 1] == "throw_sealed"  # the act follows what names it
    for page in (sam, juan):
        card = page.locator("#challenges article").first
        await expect(card.locator("ol.tests")).to_contain_text("Test 1:")
        # the card's account tells the lapse, as the event says it
        await expect(card.locator("ul.late")).to_contain_text("did not throw in 4 seconds")
        # the lapsed deadline is gone (a tie's next step may have one of its own)
        await expect(card.locator(f'.deadline[data-key="{key}"]')).to_have_count(0)
    # nothing left to count down (unless a tie's next step is timed): the page's timer is gone
    running = await juan.locator(".deadline").count() > 0
    with anyio.fail_after(5):
        while await juan.evaluate(TICKING) != running:
            await anyio.sleep(0.1)
    # the timeline says what the lapse did, on both phones
    await expect(juan.locator("#timeline")).to_contain_text(re.compile("at random", re.I))
    await expect(sam.locator("#timeline")).to_contain_text(re.compile("at random", re.I))
    await snap(sam, tmp_path, "sam-after-act", full=True)
    await snap(juan, tmp_path, "juan-after-act", full=True)


async def test_a_new_scene_opens_with_the_deadlines_its_form_sets(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, tmp_path: Path
) -> None:
    """Off unless set: the new-scene form sends only the kinds ticked, under ``options.deadlines``."""
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await st_view(st, "Settings")
    new = st.locator("#tools details").filter(has_text="Start a new scene")
    await new.locator("summary").click()
    timing = new.locator("fieldset.deadline-fields")
    await expect(timing.get_by_role("checkbox")).to_have_count(6)
    for box in await timing.get_by_role("checkbox").all():
        await expect(box).not_to_be_checked()  # off by default
    await timing.get_by_role("checkbox", name="Answering a challenge", exact=True).check()
    await timing.get_by_label("Seconds (Answering a challenge)", exact=True).fill("300")
    await timing.get_by_label("When time is up (Answering a challenge)", exact=True).select_option("act")
    await new.get_by_label("Title").fill("The roof")
    await new.get_by_role("button", name="Create").click()
    await expect(new.get_by_role("link", name="open its console")).to_be_visible()
    opened = [s for s in backend.store.scenes() if s != "s1"]
    assert len(opened) == 1
    first = next(iter(backend.store.read(opened[0])))
    assert first.type == "scene_opened"
    assert first.event.options["deadlines"] == {"answer": {"seconds": 300, "lapse": "act"}}
    await new.screenshot(path=tmp_path / "new-scene-deadlines.png")


async def test_a_turns_deadline_counts_down_on_the_round(
    live: Running, tokens: dict[str, str], browser: Browser, backend: Backend, tmp_path: Path
) -> None:
    """A round's move (declaring an action, camarilla) has no challenge: its time left is on the
    round's card, the player's own large, another's quiet."""
    async with Client(live.url, tokens["st"]) as st:
        opened = await st.request(
            {"type": "create_scene", "ruleset": "camarilla", "title": "The docks",
             "options": {"deadlines": {"turn": {"seconds": 300}}}},
            "scene_created",
        )  # fmt: skip
        assert opened["type"] == "scene_created", opened
    scene = opened["scene"]
    async with Client(live.url, opened["token"]) as st:
        for sheet in (SAM, JUAN):
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st.send({"type": "start_round"}))["ok"]
    juan = await player(browser, f"{live.web}/play#token={backend.tokens.issue(scene, 'player', 'juan')[0]}")
    sam = await player(browser, f"{live.web}/play#token={backend.tokens.issue(scene, 'player', 'sam')[0]}")
    mine = juan.locator("#round .deadline.mine")
    await expect(mine.locator(".said")).to_have_text("You have 5 minutes to declare an action.")
    await expect(mine.locator(".time-left")).to_have_text(re.compile(r"^[45]:\d\d$"))
    theirs = juan.locator("#round .deadline.theirs")
    await expect(theirs.locator(".said")).to_have_text("Sam has 5 minutes to declare an action.")
    await expect(sam.locator("#round .deadline.mine .said")).to_have_text("You have 5 minutes to declare an action.")
    await snap(juan, tmp_path, "juan-round")
