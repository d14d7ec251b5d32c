"""The words a player reads (issue 14), on 390x844 phones against a real server: on their own page a
player is "you" (the timeline, the challenge cards), everyone else by name; the Storyteller's
console and a spectator read everyone by name; a rule under a step is its words signed by its
book, never its id; a ruleset is named by its title, served by the server; a what-if is named by
its scene's title; the "Your turn." banner follows a shared turn; a refusal under the declare form
goes once a later command goes through."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from server.app import Running
from tests.live.test_player_page import player
from tests.live.test_web import accessible, browser, phone, shot, st_view

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

MACHINE = re.compile(r"\b(lotn|camarilla|bns|kony):|\b[cs]-[0-9a-f]{4,}")
"""A rule's id ("lotn:rps") or a challenge's or scene's ("c-0a37ff") in a page's words."""


async def fight(live: Running, tokens: dict[str, str]) -> None:
    """Sam challenges Juan (Brawny against Quick); rock against paper: Juan wins, Sam loses Brawny."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        body = {"type": "declare", "challenge": "alley", "kind": "contested", "targets": ["juan"]}
        assert (await sam.send({**body, "category": "physical", "bid": ["Brawny"], "victory": "A shove"}))["ok"]
        assert (await juan.send({"type": "bid", "challenge": "alley", "bid": ["Quick"]}))["ok"]
        assert (await sam.send({"type": "throw", "challenge": "alley", "sign": "rock"}))["ok"]
        assert (await juan.send({"type": "throw", "challenge": "alley", "sign": "paper"}))["ok"]
        assert (await sam.send({"type": "pass", "challenge": "alley"}))["ok"]


async def steps(page: Page) -> str:
    return await page.locator("#timeline ol.timeline").inner_text()


async def test_a_player_reads_themselves_as_you_and_the_others_by_name(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    await fight(live, tokens)
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    watcher = await player(browser, f"{live.web}/play#token={tokens['spectator']}")

    timeline = sam.locator("#timeline")
    await expect(timeline).to_contain_text("You challenge Juan (physical), bidding Brawny: “A shove”.")
    await expect(timeline).to_contain_text("Test 1: you threw rock, Juan threw paper: Juan wins.")
    await expect(timeline).to_contain_text("You lose Brawny: ")
    await expect(timeline).to_contain_text("Juan answers, bidding Quick.")
    await expect(juan.locator("#timeline")).to_contain_text("Sam challenges you (physical), bidding Brawny")
    await expect(juan.locator("#timeline")).to_contain_text("You answer, bidding Quick.")
    await expect(juan.locator("#timeline")).to_contain_text("Sam loses Brawny: ")
    for page, other in ((sam, "Juan"), (juan, "Sam")):  # nobody reads themselves by name
        said = await steps(page)
        me = "Juan" if other == "Sam" else "Sam"
        assert not re.search(rf"\b{me}\b", said), said
        assert other in said

    # the cards: "You challenge Juan" on Sam's page, "Sam challenges you" on Juan's
    await expect(sam.locator("#challenges article h3")).to_have_text("You challenge Juan (Physical)")
    await expect(juan.locator("#challenges article h3")).to_have_text("Sam challenges you (Physical)")

    # the Storyteller and a spectator: everyone by name
    for page in (st, watcher):
        await expect(page.locator("#timeline")).to_contain_text("Sam challenges Juan (physical)")
        await expect(page.locator("#timeline")).to_contain_text("Sam loses Brawny: ")
        assert not re.search(r"\b[Yy]ou (challenge|lose|answer)\b", await steps(page))
    await expect(st.locator("#challenges article h3").first).to_contain_text("Sam challenges Juan")

    await accessible(sam)
    await shot(sam, "words-sam-timeline")
    await shot(juan, "words-juan-timeline")


async def test_a_rule_under_a_step_is_its_words_signed_by_its_book(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    await fight(live, tokens)
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    lost = sam.locator("#timeline li").filter(has_text="You lose Brawny")
    rule = lost.locator("details.rule")
    summary = rule.locator("summary")
    await expect(summary).to_have_text(re.compile(r"^The rule: “.+” \(Laws of the Night\)$"))
    await summary.click()
    await expect(rule.locator("blockquote")).to_be_visible()
    await expect(rule.locator("cite")).to_have_text("Laws of the Night")
    await expect(sam.locator("details.rule summary").first).to_have_text(re.compile(r"^The rule: "))
    said = await sam.locator("main").inner_text()
    assert not MACHINE.search(said), MACHINE.search(said)
    # the outcome's rule on the card: its words and book, no id
    card = sam.locator("#challenges article").first
    await card.get_by_text("How it was decided, and the rule").click()
    await expect(card.locator(".rule-words cite").first).to_have_text("Laws of the Night")
    assert "lotn" not in await card.inner_text()
    await shot(sam, "words-rule")


async def test_rulesets_and_a_what_if_are_named_by_their_titles(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    st = await phone(browser, f"{live.web}/st#token={tokens['st']}")
    await expect(st.locator("header")).to_contain_text("The alley · Laws of the Night")
    # the new-scene form lists the server's rulesets by title, the default first
    await st_view(st, "Settings")
    await st.locator("#tools summary").filter(has_text="Start a new scene").click()
    ruleset = st.locator("#tools").get_by_label("Rules")
    await expect(ruleset.locator("option")).to_have_text(
        [
            "Laws of the Night",
            "Camarilla combat",
            "By Night Studios (test pools)",
            "Kings of New York (three-sided dice)",
            "Tens (d10 pools, a house system)",  # the ruleset kept in the tests (tests/rulesets/d10/)
        ]
    )
    await expect(ruleset).to_have_value("lotn")
    await ruleset.select_option("kony")
    await expect(st.get_by_role("group", name=re.compile("^House rules for Kings of New York"))).to_be_visible()

    await st.get_by_label("Fork a what-if after event #").fill("3")
    await st.get_by_role("button", name="Fork", exact=True).click()
    opened = st.get_by_role("link", name="Open its console")
    await expect(opened.locator("xpath=..")).to_contain_text("What-if of “The alley”, from step 3")
    assert not re.search(r"\bs1\b", await opened.locator("xpath=..").inner_text())
    href = await opened.get_attribute("href")
    assert href
    fork = await phone(browser, f"{live.web}{href}")
    await expect(fork.get_by_role("note")).to_have_text(
        "What-if of “The alley”, from step 3 — nothing here changes the real scene."
    )
    await expect(fork.locator("#timeline")).to_contain_text(
        "A what-if of “The alley”, from its step 3: nothing here changes the real scene."
    )
    await expect(fork.locator("header")).to_contain_text("The alley · Laws of the Night")
    await shot(fork, "words-what-if")

    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    await expect(sam.locator("header")).to_contain_text("The alley · Laws of the Night")


async def test_a_kony_pool_is_your_pool_on_your_own_page(live: Running, browser: Browser) -> None:
    """Kings of New York: a Trait Pool the rules name is "your pool" on its owner's page."""
    st_token = live.hub.backend.tokens.issue("s1", "st")[0]
    async with Client(live.url, st_token) as st:
        opened = await st.request({"type": "create_scene", "ruleset": "kony", "scene": "bar"}, "scene_created")
    vito = {"id": "vito", "name": "Vito", "traits": {"physical": {"Brawny": 4, "Quick": 4}}}
    nico = {"id": "nico", "name": "Nico", "traits": {"physical": {"Wiry": 3}}}
    async with Client(live.url, opened["token"]) as st:
        for sheet in (vito, nico):
            added = await st.send({"type": "add_character", "character": sheet})
            assert added["ok"], added
    tokens = live.hub.backend.tokens
    vito_token, nico_token = (tokens.issue("bar", "player", who)[0] for who in ("vito", "nico"))
    async with Client(live.url, vito_token) as v, Client(live.url, nico_token) as n:
        body = {"type": "declare", "challenge": "punch", "kind": "contested", "targets": ["nico"]}
        declared = await v.send({**body, "category": "physical", "bid": ["Brawny"], "victory": "A punch"})
        assert declared["ok"], declared
        answered = await n.send({"type": "bid", "challenge": "punch", "bid": ["Wiry"]})
        assert answered["ok"], answered
    page = await player(browser, f"{live.web}/play#token={vito_token}")
    timeline = page.locator("#timeline")
    await expect(timeline).to_contain_text("You challenge Nico")
    said = await steps(page)
    assert "Vito" not in said, said
    card = page.locator("#challenges article").first
    await expect(card.locator("h3")).to_contain_text("You challenge Nico")
    await expect(card.locator(".trait-pools")).to_have_text(
        "Your Trait Pool (for ties): 8 Traits (Physical 8; at most 30)"
    )
    assert "Vito" not in await card.inner_text()
    await shot(page, "words-kony")


MARK = {"id": "mark", "name": "Mark", "traits": {"physical": {"Brawny": 5, "Quick": 4}}}
JOE = {"id": "joe", "name": "Joe", "traits": {"physical": {"Wiry": 5, "Tough": 4}}}
VI = {"id": "vi", "name": "Vi", "traits": {"physical": {"Lithe": 2}}}


async def test_a_shared_turn_calls_each_player_until_they_end_it(live: Running, browser: Browser) -> None:
    """Camarilla: Mark and Joe tie on initiative and act together, then Vi. The "Your turn." banner
    is on both their pages; it goes from Mark's when he ends his turn, stays on Joe's until he ends
    his, then comes to Vi; the next round calls Mark again."""
    st_token = live.hub.backend.tokens.issue("s1", "st")[0]
    async with Client(live.url, st_token) as st:
        opened = await st.request({"type": "create_scene", "ruleset": "camarilla", "scene": "docks"}, "scene_created")
    tokens = live.hub.backend.tokens
    mark_token, joe_token, vi_token = (tokens.issue("docks", "player", who)[0] for who in ("mark", "joe", "vi"))
    async with Client(live.url, opened["token"]) as st:
        for sheet in (MARK, JOE, VI):
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
        assert (await st.send({"type": "start_round"}))["ok"]
        for token in (mark_token, joe_token, vi_token):
            async with Client(live.url, token) as who:
                assert (await who.send({"type": "declare_action", "action": {"kind": "none"}}))["ok"]
        mark, joe, vi = [await player(browser, f"{live.web}/play#token={t}") for t in (mark_token, joe_token, vi_token)]
        banners = {page: page.locator("button.due") for page in (mark, joe, vi)}
        # a shared turn: both act now; each reads the order with themselves as "you"
        await expect(mark.locator("#round")).to_contain_text("Order: Joe (9) = you (9) → Vi (2)")
        await expect(joe.locator("#round")).to_contain_text("Order: you (9) = Mark (9) → Vi (2)")
        await expect(mark.locator("#timeline")).to_contain_text("On initiative: Joe (9), you (9).")
        for page in (mark, joe):
            await expect(banners[page]).to_have_text("Your turn: declare your action")
        await expect(banners[vi]).to_be_hidden()
        await shot(mark, "words-shared-turn")

        await mark.locator("#round").get_by_role("button", name="End my turn").click()
        await expect(mark.locator(".toast")).to_have_text("Turn ended.")
        await expect(banners[mark]).to_be_hidden()
        await expect(mark.locator("#round")).not_to_contain_text("Your turn.")
        await expect(banners[joe]).to_have_text("Your turn: declare your action")  # still his
        await expect(banners[vi]).to_be_hidden()

        await joe.locator("#round").get_by_role("button", name="End my turn").click()
        await expect(banners[joe]).to_be_hidden()
        await expect(banners[vi]).to_have_text("Your turn: declare your action")  # Vi's turn now
        await expect(vi).to_have_title("● Your move · Vi · docks · Justicar")
        await vi.locator("#round").get_by_role("button", name="End my turn").click()
        await expect(banners[vi]).to_be_hidden()

        assert (await st.send({"type": "end_round"}))["ok"]
        assert (await st.send({"type": "start_round"}))["ok"]
        await expect(banners[mark]).to_have_text("Declare your action for the round")  # called again


async def test_a_refusal_under_the_declare_form_goes_once_a_command_goes_through(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Sam's declaration is refused (a page that sends a Mental challenge he has no Trait for): the
    refusal shows under the form, with the rule's words; Juan challenges him, and once Sam's answer
    goes through, the old refusal is gone."""
    sam = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    declare = sam.locator("#declare")
    await declare.get_by_label("Category").evaluate(
        "(s) => { s.querySelector('[value=mental]').disabled = false; s.value = 'mental';"
        " s.form.querySelector('[name=bid]').replaceChildren(); }"
    )
    await declare.get_by_label("Victory condition").fill("I out-think him")
    await declare.get_by_role("button", name="Declare", exact=True).click()
    alert = declare.get_by_role("alert")
    await expect(alert).to_contain_text("Refused")
    await expect(alert.locator("details.rule summary")).to_contain_text("(Laws of the Night)")
    assert "lotn" not in await alert.inner_text()
    await shot(sam, "words-refused")

    async with Client(live.url, tokens["juan"]) as juan:
        body = {"type": "declare", "challenge": "jab", "kind": "contested", "targets": ["sam"], "category": "physical"}
        assert (await juan.send({**body, "bid": ["Brutal"], "victory": "A jab"}))["ok"]
        card = sam.locator("#challenges article").filter(has_text="Juan challenges you")
        await expect(alert).to_be_visible()  # the situation is the same: the refusal still stands
        await card.get_by_label("Trait to bid").select_option("Quick")
        await card.get_by_role("button", name="Bid", exact=True).click()
        await expect(sam.locator(".toast")).to_have_text(re.compile("."))
        await expect(declare.get_by_role("alert")).to_have_count(0)
        await expect(declare.locator(".outcome")).to_be_empty()
