"""The web pages in a real browser (Playwright driving Debian's Chromium) against a real server on
loopback: the Storyteller invites two players from the console, they play a challenge with a tie
and a retest on their phones, each page shows what its viewer may know and nothing more, the
replay viewer steps through it as a player saw it, and the downloaded audit opens in the same
browser. Every page is saved as a phone-sized screenshot in ``tests/artifacts/``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.domain.test_bns import BRUTE, HUNTER, VINCENT

pytestmark = pytest.mark.anyio

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
PHONE = {"width": 390, "height": 844}

UNNAMED_CONTROLS = """() => [...document.querySelectorAll('button, input, select, textarea')]
  .filter((el) => !(el.labels?.length || el.getAttribute('aria-label')
    || (el.tagName === 'BUTTON' && el.textContent.trim())))
  .map((el) => el.outerHTML.slice(0, 80))"""

CONTRAST = """() => {
  const rgb = (c) => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bg = getComputedStyle(document.documentElement).backgroundColor;
  return ['body', '.field .label', 'button'].map((sel) => {
    const el = document.querySelector(sel);
    return el ? ratio(getComputedStyle(el).color, bg) : 99;
  });
}"""

PLACEHOLDERS = """() => {
  const rgba = (c) => { const v = c.match(/\\d+(\\.\\d+)?/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ground = (el) => { for (; el; el = el.parentElement) { const c = rgba(getComputedStyle(el).backgroundColor);
    if (c[3] > 0) return c; } return rgba(getComputedStyle(document.documentElement).backgroundColor); };
  return [...document.querySelectorAll('input[placeholder], textarea[placeholder]')].map((el) => {
    const style = getComputedStyle(el, '::placeholder'), bg = ground(el), fg = rgba(style.color);
    const a = fg[3] * Number(style.opacity || 1), seen = fg.slice(0, 3).map((v, i) => v * a + bg[i] * (1 - a));
    const [x, y] = [lum(seen), lum(bg)].sort((p, q) => q - p);
    return [el.getAttribute('placeholder'), Math.round((x + 0.05) / (y + 0.05) * 100) / 100];
  });
}"""
"""Each placeholder's contrast on its field's own background (its colour and opacity blended in)."""


@pytest.fixture
async def browser(chromium: Browser) -> AsyncIterator[Browser]:
    """The session's Chromium (tests/live/conftest.py), with no context open; the contexts (phones)
    the test opens are closed when it ends, each test starting from a clean browser."""
    assert chromium.contexts == [], "a context left open by an earlier test"
    yield chromium
    for context in chromium.contexts:
        await context.close()


async def phone(browser: Browser, url: str) -> Page:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await context.new_page()
    await page.goto(url)
    await expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    return page


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


async def accessible(page: Page) -> None:
    """Every control has a name; the text reads in a dim room (WCAG AAA, 7:1, on the dark theme);
    every placeholder at least 4.5:1; and axe-core finds nothing serious or critical."""
    assert await page.evaluate(UNNAMED_CONTROLS) == []
    assert min(await page.evaluate(CONTRAST)) >= 7
    faint = [(words, ratio) for words, ratio in await page.evaluate(PLACEHOLDERS) if ratio < 4.5]
    assert faint == [], f"placeholders under 4.5:1: {faint}"
    findings = await axe_findings(page)
    assert findings == [], "axe-core, serious or critical:\n" + "\n".join(findings)


AXE = Axe()
"""axe-core (its script read once per test run)."""


async def axe_findings(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now, one line each: the rule,
    its help, and the elements (at most eight) it found them on. axe-core is put into the page
    once (half a megabyte of script to compile): a page read again runs the same axe-core again."""
    if not await page.evaluate("() => typeof window.axe?.run === 'function'"):
        await page.evaluate(AXE.axe_script)
    violations = await page.evaluate('axe.run({"resultTypes": ["violations"]})')
    found = []
    for rule in violations["violations"]:
        if rule["impact"] in ("serious", "critical"):
            nodes = "; ".join(f"{' '.join(map(str, n['target']))} {n['html'][:120]}" for n in rule["nodes"][:8])
            found.append(f"{rule['id']} ({rule['impact']}): {rule['help']} [{rule['helpUrl']}] — {nodes}")
    return found


CONSOLE_VIEW = {"challenges": "Now", "round": "Now", "tonight": "Now", "characters": "People", "disputes": "Disputes"}
CONSOLE_VIEW |= {"invitations": "Invitations", "timeline": "Log", "scene": "Settings", "tools": "Settings"}
"""The view of the Storyteller's console that holds each section."""


async def st_view(st: Page, name: str) -> None:
    """Open a view of the Storyteller's console ("People", or a section's id: "characters") from its
    bar of views (a scene's, or a game night's own)."""
    name = CONSOLE_VIEW.get(name, name)
    bar = st.get_by_role("navigation", name=re.compile(r"^(Console|Tonight's) views$"))
    link = bar.get_by_role("link", name=re.compile(f"^{name}"))
    await link.click()
    await expect(link).to_have_attribute("aria-current", "page")


async def invite(st: Page, name: str) -> str:
    """Invite the player of ``name`` from the console (its Invitations view, then back to the view
    it was on): their link."""
    views = st.get_by_role("navigation", name=re.compile(r"^(Console|Tonight's) views$"))
    if await views.count():
        shown = await views.locator("a[aria-current=page]").get_attribute("data-view")
        await st_view(st, "Invitations")
        link = await invited(st, name)
        await views.locator(f"a[data-view={shown}]").click()
        return link
    return await invited(st, name)


async def invited(st: Page, name: str) -> str:
    await st.get_by_label("Invite the player of").select_option(label=name)
    await st.get_by_role("button", name="Invite", exact=True).click()
    link = st.get_by_role("textbox", name=f"{name}'s link")
    await expect(link).to_be_visible()
    qr = st.get_by_role("img", name=f"QR code of {name}'s link").locator("svg")
    await expect(qr).to_be_visible()
    drawn = (
        "(svg) => svg.namespaceURI === 'http://www.w3.org/2000/svg' && svg.querySelector('path').getBBox().width > 20"
    )
    assert await qr.evaluate(drawn), "the QR code is drawn as SVG, not a blank square"
    return await link.input_value()


async def test_a_tie_and_a_retest_at_a_table_of_phones(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await accessible(st)
    # by keyboard: Sam's invitation (the console is usable without a pointer)
    await st_view(st, "Invitations")
    await st.get_by_label("Invite the player of").select_option(label="Sam")
    await st.get_by_label("Invite the player of").focus()
    await st.keyboard.press("Tab")
    await expect(st.get_by_role("button", name="Invite", exact=True)).to_be_focused()
    await st.keyboard.press("Enter")
    sam_link = await st.get_by_role("textbox", name="Sam's link").input_value()
    juan_link = await invite(st, "Juan")
    assert sam_link.startswith(f"{live.web}/play#token=jt_") and juan_link != sam_link

    sam = await phone(browser, sam_link)
    juan = await phone(browser, juan_link)
    await expect(sam.get_by_role("heading", name="Sam", exact=True)).to_be_visible()
    assert "#token" not in sam.url  # the key leaves the address bar

    # Sam has no Mental Trait: Mental is not offered; a page that sends it anyway is refused, with the rule
    declare = sam.locator("#declare")
    await expect(declare.get_by_label("Category").locator("option[value=mental]")).to_be_disabled()
    await declare.get_by_label("Category").evaluate(
        "(s) => { s.querySelector('[value=mental]').disabled = false; s.value = 'mental';"
        " s.form.querySelector('[name=bid]').replaceChildren(); }"
    )
    await declare.get_by_label("Victory condition").fill("I out-think him")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    alert = declare.get_by_role("alert")
    await expect(alert).to_contain_text("Refused")
    await expect(alert.locator("details.rule")).to_have_attribute("data-rule", "lotn:initial-bid")
    await expect(alert.locator("details.rule summary")).to_contain_text("(Laws of the Night)")  # its words, by its book

    # Sam swings at Juan; Juan answers with Quick
    await declare.get_by_label("Target").select_option(label="Juan")
    await declare.get_by_label("Category").select_option("physical")
    await declare.get_by_label("Trait to bid").select_option("Brawny")
    await declare.get_by_label("Victory condition").fill("A Brawny swing at his jaw")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    answer = juan.locator("#challenges")
    await expect(answer.get_by_role("button", name="Bid", exact=True)).to_be_visible()
    await expect(answer.get_by_role("button", name="Relent (lose without a test)")).to_be_visible()
    await answer.get_by_label("Trait to bid").select_option("Quick")
    async with Client(live.url, tokens["st"]) as table:  # the table goes on while Juan chooses
        await table.send({"type": "adjust", "character": "guard", "changes": {"willpower": 1}, "reason": "a drink"})
    await expect(juan.locator("#timeline")).to_contain_text(
        "The Storyteller adjusts Guard."
    )  # not why: his own business
    await expect(answer.get_by_label("Trait to bid")).to_have_value("Quick")  # his choice is still there
    await answer.get_by_role("button", name="Bid", exact=True).click()

    # sealed throws: Sam sees his own, Juan sees only that Sam threw, the ST sees both
    fight = sam.locator("#challenges")
    await fight.get_by_role("button", name="Rock", exact=True).click()
    await expect(fight).to_contain_text("Your sealed throw: Rock")
    await expect(answer).to_contain_text("Your throw is due")  # Juan's own page: in the second person
    await expect(answer.locator(".sealed")).to_have_count(0)
    await expect(st.locator("#challenges")).to_contain_text("Sam's sealed throw: Rock")
    await expect(fight.get_by_role("button", name="Rock", exact=True)).to_have_count(0)  # thrown: no second throw
    await shot(juan, "player-waiting")
    await answer.get_by_role("button", name="Rock", exact=True).click()

    # a tie: Sam declares first (6), then Juan (5); Sam leads
    await expect(fight.locator("ol.tests li")).to_have_text(["Test 1: You threw rock, Juan threw rock"])  # Sam's own
    await expect(fight.locator(".waiting")).to_contain_text("a tie")
    await expect(answer.get_by_label("Traits to declare", exact=False)).to_have_count(0)
    await fight.get_by_label("Traits to declare", exact=False).fill("6")
    await fight.get_by_role("button", name="Declare", exact=True).click()
    await answer.get_by_label("Traits to declare", exact=False).fill("5")
    await answer.get_by_role("button", name="Declare", exact=True).click()

    # Juan, behind, retests with Dodge (the only source he holds that fits); Sam lets it stand
    await expect(answer.get_by_role("button", name="Retest: Dodge (ability)")).to_be_visible()
    await expect(answer.get_by_role("button", name="Retest: Lucky (merit)")).to_be_visible()
    await shot(juan, "player-retest")
    await answer.get_by_role("button", name="Retest: Dodge (ability)").click()
    await expect(fight.get_by_role("button", name="Cancel with Brawl (ability)")).to_be_visible()
    await fight.get_by_role("button", name="Let the retest stand").click()
    await fight.get_by_role("button", name="Paper", exact=True).click()
    await answer.get_by_role("button", name="Scissors", exact=True).click()
    await expect(fight.get_by_role("button", name="Pass: no retest")).to_be_visible()
    await shot(sam, "player-behind")
    await fight.get_by_role("button", name="Pass: no retest").click()

    await expect(fight).to_contain_text("Juan wins the challenge")
    await expect(answer).to_contain_text("You win the challenge")  # Juan's own page
    await expect(answer).not_to_contain_text("Juan wins the challenge")
    await expect(st.locator("#challenges")).to_contain_text("Juan wins the challenge")  # the console: by name
    await expect(sam.locator("#me")).to_contain_text("Lost tonight: Brawny")
    await expect(juan.locator("#timeline")).to_contain_text("Sam loses Brawny")
    await accessible(sam)
    await shot(sam, "player")
    await shot(st, "storyteller-console")

    # the replay viewer, as Juan saw it
    replay = await st.context.new_page()
    await replay.goto(f"{live.web}/replay")
    await expect(replay.get_by_role("slider", name="Step")).to_be_visible()
    await replay.get_by_label("See it as").select_option(label="Juan")
    await expect(replay.get_by_text("as Juan saw it")).to_be_visible()
    await replay.get_by_role("slider", name="Step").fill("8")
    await expect(replay.locator(".step-detail")).to_contain_text("Sam throws (sealed until both are in).")
    await replay.get_by_label("See it as").select_option("st")  # the same step, as the Storyteller saw it
    await expect(replay.get_by_text("Step 8 of 24, as the Storyteller saw it")).to_be_visible()
    await expect(replay.locator(".step-detail")).to_contain_text("Sam throws rock (sealed until both are in).")
    then = replay.get_by_role("region", name="The challenge then")  # the challenge in words, never ids or paths
    await expect(then).to_contain_text("Sam challenges Juan (Physical)")
    assert not re.search(r"c-[0-9a-f]{6}|challenges\.|characters\.|_| › ", await then.inner_text())
    await expect(replay.locator("section").filter(has_text="The scene after step 8")).to_contain_text("Sam")
    await accessible(replay)
    await shot(replay, "replay")

    # the audit, downloaded from the console and opened in the same browser
    await st_view(st, "Settings")
    async with st.expect_download() as downloading:
        await st.get_by_role("button", name="Download the audit (HTML)").first.click()
    download = await downloading.value
    assert download.suggested_filename == "s1-audit.html"
    ARTIFACTS.mkdir(exist_ok=True)
    saved = ARTIFACTS / download.suggested_filename
    await download.save_as(saved)
    audit = await st.context.new_page()
    await audit.goto(saved.as_uri())
    await expect(audit.get_by_role("heading", name="Audit: The alley")).to_be_visible()
    await expect(audit.locator("body")).to_contain_text("Hash chain intact")
    await expect(audit.locator("body")).to_contain_text("Juan wins the challenge")
    await shot(audit, "audit")

    front = await st.context.new_page()  # axe-core reads it in test_accessibility.py (the same page)
    await front.goto(live.web + "/")
    await shot(front, "join")


async def test_a_page_reconnects_by_itself_and_catches_up(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    for conn in list(live.server.connections):
        await conn.close(4008, "too slow: reconnect to catch up")
    badge = sam.get_by_role("status").filter(has_text="Connection lost")
    await expect(badge).to_be_visible()
    async with Client(live.url, tokens["st"]) as st:  # the table goes on meanwhile
        await st.send(
            {
                "type": "declare",
                "challenge": "ambush",
                "kind": "contested",
                "targets": ["sam"],
                "category": "physical",
                "character": "guard",
                "bid": ["Tough"],
                "victory": "Halt!",
            }
        )
    await expect(sam.get_by_role("status").filter(has_text="Live")).to_be_visible()
    await expect(sam.locator("#challenges")).to_contain_text("Guard challenges you")
    await expect(sam.locator("#challenges").get_by_role("button", name="Bid", exact=True)).to_be_visible()
    await expect(sam.locator("#timeline")).to_contain_text("Guard challenges you")
    steps = await sam.locator("#timeline li").count()
    assert steps == 5  # each event once: nothing lost, nothing twice
    # revoked while away: the page says so when it comes back, and stops trying
    grant = live.hub.backend.tokens.check(tokens["sam"])
    assert grant is not None
    for conn in list(live.server.connections):
        await conn.close(4008, "too slow: reconnect to catch up")
    live.hub.backend.tokens.revoke(grant.token_id)
    live.hub.close_token(grant.token_id)  # had it already come back, it would be closed (4003)
    await expect(sam.get_by_role("status")).to_contain_text("unknown, revoked or expired")


GOOD_SHEETS = """[
 {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 5, "Quick": 4}}},
 {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5}}},
 {"id": "thug", "name": "Thug", "npc": true, "auto": true, "traits": {"physical": {"Tough": 5}}}
]"""
BAD_SHEET = '{"id": "bad one", "name": "Bad", "willpower": -2, "traits": {"physical": {"Brawny": "lots"}}}'


async def test_the_console_runs_a_camarilla_round(
    live: Running, tokens: dict[str, str], browser: Browser, tmp_path: Path
) -> None:
    """Sheets from files (a bad one named field by field), a round with a tie the ST orders, an NPC
    the ST answers for that throws by itself, and a player's dispute upheld."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "camarilla", "title": "The docks"}, "scene_created"
        )
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    (tmp_path / "good.json").write_text(GOOD_SHEETS)
    (tmp_path / "bad.json").write_text(BAD_SHEET)
    await st_view(st, "People")
    await st.get_by_label("Add characters from sheet files", exact=False).set_input_files(
        [tmp_path / "bad.json", tmp_path / "good.json"]
    )
    await st.get_by_role("button", name="Add", exact=True).click()
    problems = st.locator("#characters").get_by_role("alert")
    await expect(problems).to_contain_text("Refused: the sheet has 3 problems:")
    refused = st.locator("#characters .outcome > div").filter(has_text="the sheet has 3 problems")
    await expect(refused.locator(":scope > strong")).to_have_text("bad.json")  # which file
    await expect(problems.locator("li")).to_have_text(
        ["The id takes letters, digits, dots, dashes and underscores only (you wrote “bad one”).",
         "Willpower must be at least 0 (you wrote “-2”).",
         "Brawny (Physical Traits) must be a number (you wrote “lots”)."]
    )  # fmt: skip
    await expect(st.locator("#characters")).to_contain_text("good.json · Thug added.")

    await st_view(st, "Now")
    await st.get_by_role("button", name="Start round 1").click()
    mark = await phone(browser, await invite(st, "Mark"))
    joe = await phone(browser, await invite(st, "Joe"))
    for page, target in ((mark, "Thug"), (joe, "Mark")):
        await page.get_by_label("My action this round").select_option("challenge")
        await page.get_by_label("Against", exact=True).select_option(label=target)
        await page.get_by_role("button", name="Declare my action").click()
    await st.get_by_label("Declare the action of").select_option(label="Thug")
    await st.get_by_role("button", name="Declare their action").click()
    await expect(st.locator("#round")).to_contain_text("Order: Mark 9 → Joe 5 = Thug 5")
    await st.get_by_label("1st to resolve").select_option(label="Thug")
    await st.get_by_label("2nd to resolve").select_option(label="Joe")
    await st.get_by_role("button", name="Order the tie at 5").click()
    await expect(st.locator("#round")).to_contain_text("Order: Mark 9 → Thug 5, then Joe 5")  # no longer a tie
    await shot(st, "storyteller-round")
    await expect(joe.locator("#round")).to_contain_text("Order: Mark (9) → Thug (5), then you (5)")  # the ST's order

    await expect(mark.locator("#round")).to_contain_text("Your turn.")
    declare = mark.locator("#declare")
    await declare.get_by_label("Target").select_option(label="Thug")
    await declare.get_by_label("Victory condition").fill("I knock him flat")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    npc = st.locator("#challenges").get_by_role("region", name="Thug's moves")
    await expect(npc).to_contain_text("Acting for Thug")
    await npc.get_by_role("button", name="Bid", exact=True).click()
    await mark.locator("#challenges").get_by_role("button", name="Rock", exact=True).click()
    await expect(mark.locator("#timeline")).to_contain_text("Thug throws at random")
    await expect(mark.locator("#challenges")).to_contain_text("Test 1: You threw rock, Thug threw")

    first_test = mark.locator("#timeline li").filter(has_text="Test 1: you threw rock")
    await first_test.get_by_role("button", name=re.compile(r"^Step \d+: options$")).click()  # the step's menu
    await first_test.get_by_label("Why this step is wrong").fill("Thug was asleep")
    await first_test.get_by_role("button", name="Send the dispute").click()
    await expect(first_test).to_contain_text("Sent to the Storyteller.")
    await st_view(st, "Disputes")
    dispute = st.locator("#disputes article")
    await expect(dispute).to_contain_text("Mark: “Thug was asleep”")
    await dispute.get_by_label("Reason (kept in the log)").fill("The throw stands")
    await dispute.get_by_role("button", name="Rule", exact=True).click()
    await dispute.get_by_role("button", name=re.compile(r"^Confirm: rule on step \d+$")).click()
    await expect(st.locator("#disputes")).to_contain_text("uphold — ")
    await expect(mark.locator("#timeline")).to_contain_text("upholds")
    await accessible(st)


async def test_a_pool_challenge_on_two_phones(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    """bns on two phones: Vincent's page builds a Social attack and shows its pool, computed by the
    server, before sending; Brute's page hides it and offers his defences with their totals; once
    the test shows the pools, both phones show them, and the grade (bns:exceptional-success)."""
    async with Client(live.url, tokens["st"]) as st_client:
        opened = await st_client.request(
            {"type": "create_scene", "ruleset": "bns", "title": "The church", "scene": "church"}, "scene_created"
        )
    async with Client(live.url, opened["token"]) as st_client:
        for sheet in (VINCENT, BRUTE, HUNTER):
            assert (await st_client.send({"type": "add_character", "character": sheet}))["ok"]
    st = await phone(browser, f"{live.web}/st#token={opened['token']}")
    await expect(st.locator("#characters")).to_contain_text("Social 10")
    vincent = await phone(browser, await invite(st, "Vincent"))
    brute = await phone(browser, await invite(st, "Brute"))
    await expect(vincent.locator("#me")).to_contain_text("Intimidation 5")
    await expect(vincent.locator("#me")).to_contain_text("Willpower 4")

    declare = vincent.locator("#declare")
    await declare.get_by_label("Target", exact=True).select_option(label="Brute")
    await declare.get_by_label("Attack", exact=True).select_option("social")
    await declare.get_by_label("Skill", exact=True).fill("intimidation")
    await expect(declare.locator(".pool-preview")).to_have_text("Your pool: Social 10 + Intimidation 5 = 15")
    await declare.get_by_label("Victory condition").fill("He backs off")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    await expect(vincent.locator(".toast")).to_have_text("Declared.")  # confirmed once, at the foot
    await accessible(vincent)

    card = brute.locator("#challenges article")
    await expect(card).to_contain_text("Vincent challenges you (Social)")
    await expect(card).not_to_contain_text("Intimidation")  # Vincent's pool stays his until the test
    defenses = card.locator("fieldset.defenses")
    await expect(defenses).to_contain_text("Social: Composure 2 + Willpower 3 = 5")
    await shot(brute, "bns-defender")
    await card.get_by_role("button", name="Defend", exact=True).click()
    await expect(vincent.locator("#challenges article")).not_to_contain_text("Composure")
    await vincent.locator("#challenges").get_by_role("button", name="Rock", exact=True).click()
    await card.get_by_role("button", name="Scissors", exact=True).click()
    await expect(brute.locator("#challenges")).to_contain_text("Vincent's social pool: Social 10 + Intimidation 5 = 15")
    await expect(vincent.locator("#challenges")).to_contain_text("Brute's social pool: Composure 2 + Willpower 3 = 5")
    await brute.locator("#challenges").get_by_role("button", name="Pass: no retest").click()
    for page in (vincent, brute, st):
        await expect(page.locator("#challenges .grade")).to_have_text("An exceptional success")
    await accessible(brute)
    await shot(vincent, "bns-attacker")

    # The Storyteller shoots for the hunter from the console; Vincent dodges on his phone.
    npc = st.locator("#challenges .npc-declare")
    await npc.get_by_text("Declare a challenge for an NPC").click()
    await npc.get_by_label("Target", exact=True).select_option(label="Vincent")
    await npc.get_by_label("Attack", exact=True).select_option("firearms")
    await npc.get_by_label("Wild card (+/-)").fill("2")
    await npc.get_by_label("Why the wild card").fill("shotgun")
    await expect(npc.locator(".pool-preview")).to_have_text("Your pool: Physical 7 + Firearms 3 + 2 (shotgun) = 12")
    await npc.get_by_label("Victory condition").fill("I shoot Vincent")
    await npc.get_by_role("button", name="Declare", exact=True).click()
    shot_card = vincent.locator("#challenges article").filter(has_text="The hunter challenges you")
    await expect(shot_card.locator("fieldset.defenses")).to_contain_text("Dodge: Physical 3 + Dodge 2 = 5")
    await expect(shot_card).not_to_contain_text("Firearms")
    await accessible(st)
    await shot(st, "bns-console")
