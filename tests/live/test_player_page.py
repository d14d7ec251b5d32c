"""The player's page at a real table (issue 14), on 390x844 phones in Debian's Chromium against a
real server: the move due finds its player (banner, title, the card in view, a buzz unless Quiet,
the screen kept awake during a fight); a result reads once, large, in the second person, with the
rule one tap away; every command is confirmed, also one sent while offline; the controls are those
the server accepts; disputes come from the result or a step's menu; the spectator's page has no
empty boxes."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from domain.events import ChallengeResolved, DisputeOpened, TraitLost
from server.app import Running
from tests.live.test_web import ARTIFACTS, PHONE, accessible, browser, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

MARK = {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 5, "Quick": 4}}}
JOE = {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5}}}

# navigator.vibrate and the Wake Lock, recorded (the page uses them where the browser allows)
SENSORS = """
window.__buzz = [];
navigator.vibrate = (pattern) => (window.__buzz.push(pattern), true);
window.__locks = [];
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: { request: async (kind) => {
  window.__locks.push("taken");
  const lock = new EventTarget();
  lock.release = async () => { window.__locks.push("released"); };
  return lock;
} } });
"""

IN_VIEW = """(el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; }"""

PLACEHOLDERS = """() => {
  const rgb = (c) => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll('input[placeholder]')].map((el) =>
    ratio(getComputedStyle(el, '::placeholder').color, getComputedStyle(el).backgroundColor));
}"""


async def player(browser: Browser, url: str, sensors: bool = False) -> Page:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    if sensors:
        await context.add_init_script(SENSORS)
    page = await context.new_page()
    await page.goto(url)
    await expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    return page


async def screen(page: Page, name: str) -> None:
    """What the phone's screen shows now (not the whole page): what the player sees."""
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=ARTIFACTS / f"{name}.png")


async def swing(sam: Page, at: str = "Juan", trait: str = "Brawny") -> None:
    """Sam declares a Physical challenge from his phone's form."""
    declare = sam.locator("#declare")
    await declare.get_by_label("Target").select_option(label=at)
    await declare.get_by_label("Category").select_option("physical")
    await declare.get_by_label("Trait to bid").select_option(trait)
    await declare.get_by_label("Victory condition").fill("A Brawny swing at his jaw")
    await declare.get_by_role("button", name="Declare", exact=True).click()


async def test_your_move_finds_you(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}", sensors=True)
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}", sensors=True)
    banner = juan.locator("button.due")
    await expect(banner).to_be_hidden()
    assert await juan.title() == "Juan · The alley · Justicar"
    await juan.locator("#timeline").scroll_into_view_if_needed()  # Juan is reading the timeline
    await swing(sam)

    # after declaring, Sam's own card is in view, not far above the form
    mine = sam.locator("#challenges article").filter(has_text="You challenge Juan")
    await expect(mine).to_be_in_viewport()
    assert await mine.evaluate(IN_VIEW)
    await expect(sam.locator(".toast")).to_have_text("Declared.")
    await expect(sam.get_by_text("Declared.", exact=True)).to_have_count(1)  # said once, not under the form too

    # Juan: a banner naming the move, the title marked, his card brought into view, a buzz, awake
    await expect(banner).to_have_text("Sam challenges you: bid a Physical Trait")
    await expect(juan).to_have_title("● Your move · Juan · The alley · Justicar")
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await expect(card).to_be_in_viewport()
    assert await card.evaluate(IN_VIEW)
    await expect(card).to_contain_text("Your answer is due")
    await expect(sam.locator("#challenges article")).to_contain_text("waiting for Juan to answer")
    assert await juan.evaluate("window.__buzz.length") == 1
    assert await juan.evaluate("window.__locks") == ["taken"]
    await expect(banner).to_be_in_viewport()
    await screen(juan, "player-your-move")

    # Quiet: the next move is named, but nothing buzzes
    await juan.get_by_label("Quiet (no sound or vibration)").check()
    assert await juan.evaluate("localStorage.getItem('justicar:quiet')") == "1"
    await card.get_by_label("Trait to bid").select_option("Quick")
    await card.get_by_role("button", name="Bid", exact=True).click()
    await expect(juan.locator(".toast")).to_have_text("Answered.")
    await expect(banner).to_have_text("Throw now")
    await expect(sam.locator("button.due")).to_have_text("Throw now")
    assert await juan.evaluate("window.__buzz.length") == 1  # quiet: no second buzz
    assert await sam.evaluate("window.__buzz.length") == 1  # Sam's page is not quiet: one for "Throw now"

    await sam.locator("#challenges").get_by_role("button", name="Rock", exact=True).click()
    await expect(sam.locator(".toast")).to_have_text("Thrown.")
    await expect(sam.locator("button.due")).to_be_hidden()
    await expect(sam).to_have_title("Sam · The alley · Justicar")
    await juan.locator("#challenges").get_by_role("button", name="Paper", exact=True).click()
    await expect(sam.locator("button.due")).to_have_text("Retest or pass")
    await expect(juan.locator("button.due")).to_be_hidden()
    await sam.locator("#challenges").get_by_role("button", name="Pass: no retest").click()
    await expect(sam.locator(".toast")).to_have_text("Passed.")

    # nothing due and nothing open: the titles restored, the screen let go
    for page, name in ((sam, "Sam"), (juan, "Juan")):
        await expect(page.locator("button.due")).to_be_hidden()
        await expect(page).to_have_title(f"{name} · The alley · Justicar")
    assert await juan.evaluate("window.__locks") == ["taken", "released"]


async def test_a_result_reads_at_arms_length(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    await expect(sam.locator("header")).to_contain_text("The alley · Laws of the Night")
    await swing(sam)
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await expect(card.get_by_role("heading")).to_have_text("Sam challenges you (Physical)")
    await card.get_by_label("Trait to bid").select_option("Quick")
    await card.get_by_role("button", name="Bid", exact=True).click()
    await sam.locator("#challenges").get_by_role("button", name="Rock", exact=True).click()
    await card.get_by_role("button", name="Paper", exact=True).click()
    await sam.locator("#challenges").get_by_role("button", name="Pass: no retest").click()

    lost = sam.locator("#challenges article").filter(has_text="You challenge Juan")
    await expect(lost.locator(".verdict")).to_have_text("You lost: you lose Brawny")
    await expect(card.locator(".verdict")).to_have_text("You won: Sam loses Brawny")
    # the outcome's sentence is in the card once, folded with the rule's own words (the test said
    # on its own line, not again in it)
    why = "Juan wins the challenge."
    # the test said once, in the second person on each side's own page
    await expect(lost.locator("ol.tests")).to_have_text("Test 1: You threw rock, Juan threw paper: Juan wins the test.")
    await expect(card.locator("ol.tests")).to_have_text("Test 1: Sam threw rock, you threw paper: you win the test.")
    await expect(lost.get_by_text(why)).to_have_count(1)
    await expect(lost.get_by_text(why)).to_be_hidden()
    await lost.get_by_text("How it was decided, and the rule").click()
    await expect(lost.get_by_text(why)).to_be_visible()
    await expect(card.locator(".why")).to_have_text("You win the challenge.")
    await expect(lost.locator(".rule-words blockquote").first).to_be_visible()
    # each rule the account cites, its words once: the test's, then the loss's (the ids for the audit)
    await expect(lost.locator(".rule-words")).to_have_count(2)
    await expect(lost.locator(".rule-words").first).to_have_attribute("data-rule", "lotn:rps")
    await expect(lost.locator(".rule-words").last).to_have_attribute("data-rule", "lotn:trait-loss")
    await expect(lost.locator(".rule-words cite").first).to_have_text("Laws of the Night")  # the words, by their book
    # names and plain words: no ids, no ruleset ids, no "contested", nobody in the third person
    for page, name in ((sam, "Sam"), (juan, "Juan")):
        text = await page.locator("#challenges").inner_text()
        assert not re.search(r"\bc-[0-9a-f]{4,}", text), text
        assert (
            "contested" not in text and "lotn" not in text and "lotn" not in await page.locator("header").inner_text()
        )
        assert f"waiting for {name}" not in text
    await accessible(sam)
    await accessible(juan)
    await shot(sam, "player-lost")
    await shot(juan, "player-won")


async def test_a_tap_while_offline_is_queued_then_confirmed(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    note = sam.locator(".offline-note")
    await expect(note).to_be_hidden()
    await sam.locator("#timeline").scroll_into_view_if_needed()  # the header is scrolled away
    await sam.context.set_offline(True)
    await expect(sam.get_by_role("status").filter(has_text="offline")).to_be_visible()
    # in sight before any tap, where the eye is, not only in the header
    await expect(note).to_have_text("You are offline; commands wait until you're back.")
    await expect(note).to_be_in_viewport()
    await screen(sam, "player-offline")
    await swing(sam)
    toast = sam.locator(".toast")
    await expect(toast).to_have_text("Queued: will be sent when you're back online")
    await shot(sam, "player-queued")
    assert not [r for r in live.hub.backend.store.read("s1") if r.event.__class__.__name__ == "ChallengeDeclared"]
    await sam.context.set_offline(False)
    await expect(toast).to_have_text("Declared.")
    await expect(note).to_be_hidden()
    await expect(sam.locator("#challenges article").filter(has_text="You challenge Juan")).to_be_in_viewport()
    declared = [r for r in live.hub.backend.store.read("s1") if r.event.__class__.__name__ == "ChallengeDeclared"]
    assert len(declared) == 1  # sent once, when back


async def test_the_controls_are_those_the_server_accepts(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    await swing(sam)
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    # by keyboard: Juan bids; the focus stays in his card (on the throw), not lost to <body>
    await card.get_by_label("Trait to bid").select_option("Quick")
    await card.get_by_role("button", name="Bid", exact=True).focus()
    await juan.keyboard.press("Enter")
    throws = card.get_by_role("group", name="Throw")
    await expect(throws.get_by_role("button")).to_have_text(["Rock", "Paper", "Scissors", "At random"])  # no Bomb
    in_card = "() => document.activeElement.closest('article[data-challenge]')?.textContent.includes('Sam challenges')"
    assert await juan.evaluate(in_card)  # the card was drawn anew: the focus moved into the new one
    await expect(throws.get_by_role("button", name="Rock")).to_be_focused()
    await juan.keyboard.press("Tab")
    await juan.keyboard.press("Enter")  # Paper, by keyboard
    await expect(card).to_contain_text("Your sealed throw: Paper")
    assert await juan.evaluate(in_card)
    # Scissors fits its button on one line at 390 px
    scissors = sam.locator("#challenges").get_by_role("button", name="Scissors", exact=True)
    fits = """(b) => { const r = document.createRange(); r.selectNodeContents(b);
      return b.scrollWidth <= b.clientWidth && r.getClientRects().length === 1; }"""
    assert await scissors.evaluate(fits)
    assert min(await sam.evaluate(PLACEHOLDERS)) >= 4.5
    await shot(sam, "player-throw")


async def test_disputes_from_the_result_and_a_steps_menu(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    await swing(sam)
    card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
    await card.get_by_role("button", name="Bid", exact=True).click()
    await sam.locator("#challenges").get_by_role("button", name="Rock", exact=True).click()
    await card.get_by_role("button", name="Paper", exact=True).click()
    await sam.locator("#challenges").get_by_role("button", name="Pass: no retest").click()
    result = sam.locator("#challenges article").filter(has_text="You challenge Juan")
    await expect(result.locator(".verdict")).to_contain_text("You lost")

    steps = sam.locator("#timeline")
    await expect(steps.get_by_text("Dispute", exact=True)).to_have_count(0)  # no toggle on every line
    await result.get_by_text("Dispute this result").click()
    await result.get_by_label("Why the result is wrong").fill("Juan was asleep")
    await result.get_by_role("button", name="Send the dispute").click()
    await expect(result).to_contain_text("Sent to the Storyteller.")
    await expect(sam.locator(".toast")).to_have_text("Dispute sent to the Storyteller.")

    records = list(live.hub.backend.store.read("s1"))
    resolved = next(r.seq for r in records if isinstance(r.event, ChallengeResolved))
    lost = next(r.seq for r in records if isinstance(r.event, TraitLost))
    disputes = [r.event for r in records if isinstance(r.event, DisputeOpened)]
    assert [(d.event, d.reason) for d in disputes] == [(resolved, "Juan was asleep")]

    # a step's menu: the step number opens it, saying what the step was
    step = steps.locator(f"#step-{lost}")
    await step.get_by_role("button", name=f"Step {lost}: options").click()
    await expect(step.locator(".disputed")).to_contain_text(f"Step #{lost}: You lose Brawny")  # his own page
    await expect(step.get_by_label("Why this step is wrong")).to_be_focused()
    await step.get_by_label("Why this step is wrong").fill("Brawny was not bid")
    await step.get_by_role("button", name="Send the dispute").click()
    await expect(step).to_contain_text("Sent to the Storyteller.")
    records = list(live.hub.backend.store.read("s1"))
    disputes = [r.event for r in records if isinstance(r.event, DisputeOpened)]
    assert [(d.event, d.reason) for d in disputes][-1] == (lost, "Brawny was not bid")
    await accessible(sam)
    await shot(sam, "player-dispute")


async def test_the_spectators_page_has_no_empty_boxes(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    watcher = await player(browser, f"{live.web}/play#token={tokens['spectator']}")
    await expect(watcher.get_by_role("heading", name="Spectator")).to_be_visible()
    await expect(watcher).to_have_title("Spectator · The alley · Justicar")
    for box in ("#me", "#declare", ".problems"):
        await expect(watcher.locator(box)).to_be_hidden()
    assert await watcher.locator("button.due").is_hidden()
    await expect(watcher.get_by_label("Quiet (no sound or vibration)")).to_be_hidden()  # nothing to buzz for
    no_scroll = "() => document.documentElement.scrollWidth <= innerWidth"
    assert await watcher.evaluate(no_scroll)
    await accessible(watcher)
    await shot(watcher, "spectator")


async def docks_round(live: Running) -> None:
    """A camarilla scene ``docks`` with Mark and Joe, its first round started."""
    st_token = live.hub.backend.tokens.issue("s1", "st")[0]
    async with Client(live.url, st_token) as st:
        opened = await st.request({"type": "create_scene", "ruleset": "camarilla", "scene": "docks"}, "scene_created")
    async with Client(live.url, opened["token"]) as st:
        for sheet in (MARK, JOE):
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st.send({"type": "start_round"}))["ok"]


async def test_a_round_calls_each_player_on_their_turn(live: Running, browser: Browser) -> None:
    """Camarilla: the round asks for the action, then says whose turn it is; ending the turn is
    confirmed, and the screen is kept awake while the round is on."""
    backend = live.hub.backend
    await docks_round(live)
    mark = await player(browser, f"{live.web}/play#token={backend.tokens.issue('docks', 'player', 'mark')[0]}", True)
    banner = mark.locator("button.due")
    await expect(banner).to_have_text("Declare your action for the round")
    await expect(mark).to_have_title("● Your move · Mark · docks · Justicar")
    assert await mark.evaluate("window.__locks") == ["taken"]
    await mark.get_by_label("My action this round").select_option("none")
    await mark.get_by_role("button", name="Declare my action").click()
    await expect(mark.locator(".toast")).to_have_text("Action declared.")
    await expect(banner).to_be_hidden()
    async with Client(live.url, backend.tokens.issue("docks", "player", "joe")[0]) as joe:
        assert (await joe.send({"type": "declare_action", "action": {"kind": "none"}}))["ok"]
    await expect(banner).to_have_text("Your turn: declare your action")
    await expect(mark.locator("#round")).to_be_in_viewport()
    await screen(mark, "player-your-turn")
    await mark.locator("#round").get_by_role("button", name="End my turn").click()
    await expect(mark.locator(".toast")).to_have_text("Turn ended.")
    await expect(banner).to_be_hidden()
    await expect(mark).to_have_title("Mark · docks · Justicar")
    assert await mark.evaluate("window.__locks") == ["taken"]  # the round is still on: kept awake


async def draw(live: Running, tokens: dict[str, str]) -> int:
    """Sam and Juan tie and declare as many Traits: a draw, both bids lost. Returns the seq of the
    resolution."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        body = {"type": "declare", "challenge": "alley", "kind": "contested", "targets": ["juan"]}
        assert (await sam.send({**body, "category": "physical", "bid": ["Brawny"], "victory": "A shove"}))["ok"]
        assert (await juan.send({"type": "bid", "challenge": "alley", "bid": ["Quick"]}))["ok"]
        assert (await sam.send({"type": "throw", "challenge": "alley", "sign": "rock"}))["ok"]
        assert (await juan.send({"type": "throw", "challenge": "alley", "sign": "rock"}))["ok"]
        assert (await sam.send({"type": "declare_traits", "challenge": "alley", "count": 3}))["ok"]
        drawn = await juan.send({"type": "declare_traits", "challenge": "alley", "count": 3})
        assert drawn["ok"], drawn
        passed = [await client.send({"type": "pass", "challenge": "alley"}) for client in (sam, juan)]
        assert all(p["ok"] for p in passed), passed
        return next(e["seq"] for e in passed[-1]["events"] if e["type"] == "challenge_resolved")


async def amend(live: Running, tokens: dict[str, str], resolved: int) -> None:
    """Juan disputes the draw; the Storyteller amends it to Sam's win (the draw's losses given
    back, Juan's Quick lost)."""
    async with Client(live.url, tokens["juan"]) as juan, Client(live.url, tokens["st"]) as st:
        assert (await juan.send({"type": "dispute", "event": resolved, "reason": "Sam bid more"}))["ok"]
        correction = {"winner": "challenger"}
        ruled = await st.send(
            {
                "type": "rule",
                "event": resolved,
                "decision": "amend",
                "correction": correction,
                "reason": "Sam's Ferocious counts",
            }
        )
        assert ruled["ok"], ruled


async def test_a_draw_then_its_amendment_count_only_the_losses_that_stand(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """A draw says what each side lost; amended to a win, the draw's losses given back are not
    counted again, and the result says the Storyteller amended it, and why."""
    resolved = await draw(live, tokens)
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    watcher = await player(browser, f"{live.web}/play#token={tokens['spectator']}")
    await expect(sam.locator("#challenges .verdict")).to_have_text("A draw: you lose Brawny; Juan loses Quick")
    await expect(juan.locator("#challenges .verdict")).to_have_text("A draw: Sam loses Brawny; you lose Quick")
    await expect(watcher.locator("#challenges .verdict")).to_have_text("A draw: Sam loses Brawny; Juan loses Quick")
    await shot(juan, "player-draw")

    await amend(live, tokens, resolved)
    await expect(sam.locator("#challenges .verdict")).to_have_text("You won: Juan loses Quick")
    await expect(juan.locator("#challenges .verdict")).to_have_text("You lost: you lose Quick")
    await expect(watcher.locator("#challenges .verdict")).to_have_text("Sam won: Juan loses Quick")
    amended = "Amended by the Storyteller: Sam's Ferocious counts (first given: a draw)"
    for page in (sam, juan, watcher):
        await expect(page.locator("#challenges .ruled")).to_have_text(amended)
    await shot(juan, "player-amended")


async def test_what_cannot_be_undone_asks_first(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """Relent and Withdraw ask "Confirm: …" / "Cancel" before anything is sent; letting a retest
    stand is confirmed in its own words."""
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")

    def logged(kind: str) -> int:
        return len([r for r in live.hub.backend.store.read("s1") if type(r.event).__name__ == kind])

    await swing(sam)
    card = juan.locator("#challenges article.open")
    await card.get_by_role("button", name="Relent (lose without a test)").click()
    await expect(card).to_contain_text("Relent? You lose the challenge without a test.")
    await expect(card.get_by_role("button", name="Confirm: relent and lose")).to_be_focused()
    await screen(juan, "player-relent-asks")
    await card.get_by_role("button", name="Cancel").click()
    await expect(card.get_by_role("button", name="Relent (lose without a test)")).to_be_focused()
    assert logged("Relented") == 0  # nothing sent

    # withdrawing asks too, then is done and confirmed
    mine = sam.locator("#challenges article.open")
    await mine.get_by_role("button", name="Withdraw the challenge").click()
    await expect(mine).to_contain_text("Withdraw the challenge? It ends with no winner.")
    assert logged("ChallengeWithdrawn") == 0
    await mine.get_by_role("button", name="Confirm: withdraw").click()
    await expect(sam.locator(".toast")).to_have_text("Challenge withdrawn.")
    assert logged("ChallengeWithdrawn") == 1

    # Sam loses a throw and retests with Brawl; Juan lets it stand, told so in those words
    await swing(sam)
    await card.get_by_role("button", name="Bid", exact=True).click()
    await sam.locator("#challenges article.open").get_by_role("button", name="Rock", exact=True).click()
    await card.get_by_role("button", name="Paper", exact=True).click()
    await sam.locator("#challenges article.open").get_by_role("button", name="Retest: Brawl (ability)").click()
    await card.get_by_role("button", name="Let the retest stand").click()
    await expect(juan.locator(".toast")).to_have_text("You let the retest stand.")


async def test_the_turn_prompts_say_what_is_offered_now(live: Running, browser: Browser) -> None:
    """Camarilla: on Mark's turn the banner asks for his action; while his challenge waits for Joe
    nothing is asked of him (no banner, no marked title); once it is settled the banner says only
    ending the turn is left; once ended, no "Your turn." is left on the page."""
    backend = live.hub.backend
    await docks_round(live)
    mark_token = backend.tokens.issue("docks", "player", "mark")[0]
    mark = await player(browser, f"{live.web}/play#token={mark_token}")
    banner = mark.locator("button.due")
    # the round's declarations first: no challenge form to be refused (camarilla:order-of-actions)
    declare = mark.locator("#declare")
    await expect(declare).to_contain_text("Not yet: first everyone declares an action for the round")
    await expect(declare.get_by_role("button", name="Declare", exact=True)).to_have_count(0)
    action = {"kind": "challenge", "category": "physical", "target": "joe"}
    async with (
        Client(live.url, mark_token) as marks,
        Client(live.url, backend.tokens.issue("docks", "player", "joe")[0]) as joe,
    ):
        assert (await marks.send({"type": "declare_action", "action": action}))["ok"]
        assert (await joe.send({"type": "declare_action", "action": {"kind": "none"}}))["ok"]
        await expect(banner).to_have_text("Your turn: declare your action")
        await expect(declare.get_by_role("button", name="Declare", exact=True)).to_be_visible()  # now it is
        body = {"type": "declare", "challenge": "hit", "kind": "contested", "targets": ["joe"], "category": "physical"}
        assert (await marks.send({**body, "bid": ["Brawny"], "victory": "A shove"}))["ok"]
        await expect(mark.locator("#challenges")).to_contain_text("waiting for Joe to answer")
        await expect(banner).to_be_hidden()  # only waiting for the other side: nothing asked of Mark
        await expect(mark).to_have_title("Mark · docks · Justicar")
        assert (await joe.send({"type": "bid", "challenge": "hit", "bid": ["Wiry"]}))["ok"]
        assert (await marks.send({"type": "throw", "challenge": "hit", "sign": "rock"}))["ok"]
        assert (await joe.send({"type": "throw", "challenge": "hit", "sign": "scissors"}))["ok"]
        await joe.send({"type": "pass", "challenge": "hit"})
    await expect(mark.locator("#challenges .verdict")).to_contain_text("You won")
    await expect(banner).to_have_text("Your turn: your action is done; tap End my turn")
    await screen(mark, "player-turn-end-due")
    await mark.locator("#round").get_by_role("button", name="End my turn").click()
    await expect(mark.locator(".toast")).to_have_text("Turn ended.")
    await expect(mark.locator("#round")).to_contain_text("Now acting: Joe.")
    await expect(mark.locator("#round")).not_to_contain_text("Your turn.")
    await expect(banner).to_be_hidden()
    await expect(mark).to_have_title("Mark · docks · Justicar")


async def test_a_tie_says_who_declares_first(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """A tie: Juan, who declares second, is told he waits for Sam first, not "waiting for Sam and
    you" while nothing is his to do yet."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        body = {"type": "declare", "challenge": "alley", "kind": "contested", "targets": ["juan"]}
        assert (await sam.send({**body, "category": "physical", "bid": ["Brawny"], "victory": "A shove"}))["ok"]
        assert (await juan.send({"type": "bid", "challenge": "alley", "bid": ["Quick"]}))["ok"]
        assert (await sam.send({"type": "throw", "challenge": "alley", "sign": "rock"}))["ok"]
        assert (await juan.send({"type": "throw", "challenge": "alley", "sign": "rock"}))["ok"]
    page = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    waiting = page.locator("#challenges .waiting")
    await expect(waiting).to_have_text("Now: a tie: waiting for Sam to declare Traits first; then you")
    await expect(page.locator("button.due")).to_be_hidden()
