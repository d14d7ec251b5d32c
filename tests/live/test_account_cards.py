"""The cards render the challenge's account (projections/account.py), on 390x844 phone pages against
a real server, and say nothing of their own about it: a defender answering a power is told which
power it is before answering; a result the Storyteller overturned says the Storyteller's reason on
the result card; what winning does, while it is open, is what the ruleset will apply (camarilla
Feral Claws with Puissance: 2 aggravated, not the 1 lethal declared); an overbid says the Trait
bid and the Trait risked."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from clients.client import Client
from domain.events import DamageTaken
from domain.evolve import fold
from domain.stakes import stakes
from domain.state import Scene
from server.app import Running
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOTS = Path("/tmp")

FRANK = {
    "id": "frank",
    "name": "Frank",
    "traits": {"physical": {"Wiry": 2}, "social": {"Charming": 3}},
    "powers": ["Dread Gaze"],
}
JIMMY = {
    "id": "jimmy",
    "name": "Jimmy",
    "traits": {"physical": {"Brawny": 3}, "social": {"Proud": 2}},
    "powers": {"Feral Claws": 1, "Puissance": 2},
}
FAVIAN = {"id": "favian", "name": "Favian", "traits": {"social": {"Beguiling": 2, "Seductive": 1}}}
ENDORA = {"id": "endora", "name": "Endora", "traits": {"social": {"Witty": 2}}}


def scene(live: Running, scene_id: str) -> Scene:
    return fold(live.hub.backend.store.read(scene_id))


async def shot(page: Page, name: str, card: Locator) -> None:
    """The whole page, and the card close up (/tmp/account-NAME.png, /tmp/account-NAME-card.png)."""
    await page.screenshot(path=SHOTS / f"account-{name}.png", full_page=True)
    await card.screenshot(path=SHOTS / f"account-{name}-card.png")


async def new_scene(live: Running, tokens: dict[str, str], ruleset: str, *sheets: dict[str, object]) -> tuple[str, str]:
    """A scene of ``ruleset`` with ``sheets``: its id and its Storyteller's token."""
    async with Client(live.url, tokens["st"]) as opener:
        opened = await opener.request({"type": "create_scene", "ruleset": ruleset, "title": "Account"}, "scene_created")
    async with Client(live.url, opened["token"]) as st:
        for sheet in sheets:
            assert (await st.send({"type": "add_character", "character": sheet}))["ok"]
    return opened["scene"], opened["token"]


def player(live: Running, scene_id: str, who: str) -> str:
    return live.hub.backend.tokens.issue(scene_id, "player", who)[0]


async def test_a_defender_is_told_the_power_and_what_winning_does_before_answering(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sid, st_token = await new_scene(live, tokens, "camarilla", FRANK, JIMMY)
    frank_token, jimmy_token = player(live, sid, "frank"), player(live, sid, "jimmy")
    jimmy = await phone(browser, f"{live.web}/play#token={jimmy_token}")
    frank = await phone(browser, f"{live.web}/play#token={frank_token}")
    st = await phone(browser, f"{live.web}/st#token={st_token}")

    # (1) Frank turns Dread Gaze on Jimmy: Jimmy's card names it, before he answers
    async with Client(live.url, frank_token) as me:
        gaze = {"type": "declare", "challenge": "gaze", "kind": "contested", "targets": ["jimmy"]}
        gaze |= {"category": "social", "bid": ["Charming"], "power": "Dread Gaze", "victory": "He backs away"}
        assert (await me.send(gaze))["ok"]
    card = jimmy.locator("#challenges article[data-challenge=gaze]")
    await expect(card.locator("h3")).to_have_text("Frank challenges you (Social)")
    await expect(card.locator(".in-play")).to_have_text("Frank uses Dread Gaze on you")
    await expect(card.get_by_role("button", name="Bid", exact=True)).to_be_visible()  # not yet answered
    assert scene(live, sid).challenges["gaze"].defender.bids == ()
    await expect(card.locator(".sides")).to_contain_text("Frank bids Charming; with Dread Gaze")
    await expect(card.locator(".stakes li").first).to_have_text("If Frank wins: “He backs away”")
    await expect(frank.locator("#challenges article[data-challenge=gaze] .in-play")).to_have_text(
        "You use Dread Gaze on Jimmy"
    )
    await accessible(jimmy)
    await shot(jimmy, "dread-gaze-defender", card)
    async with Client(live.url, frank_token) as me:
        assert (await me.send({"type": "withdraw", "challenge": "gaze"}))["ok"]
    await expect(card.locator(".verdict")).to_have_text("Frank withdrew the challenge")

    # (3) Jimmy rakes Frank with Feral Claws for 1 lethal: the card says what the ruleset will apply
    async with Client(live.url, jimmy_token) as me:
        claw = {"type": "declare", "challenge": "claw", "kind": "contested", "targets": ["frank"]}
        claw |= {"category": "physical", "bid": ["Brawny"], "power": "Feral Claws", "victory": "I rake him"}
        claw |= {"effect": {"kind": "damage", "amount": 1, "type": "lethal"}}
        assert (await me.send(claw))["ok"]
    won = next(s for s in stakes(scene(live, sid), "claw") if s.winner == "challenger")
    hurt = next(e for e in won.events if isinstance(e, DamageTaken))
    assert (hurt.amount, hurt.damage) == (2, "aggravated")  # the ruleset's own resolution
    card = frank.locator("#challenges article[data-challenge=claw]")
    stake = card.locator(".stakes li").filter(has_text="If Jimmy wins")
    await expect(stake).to_have_text(f"If Jimmy wins: you take {hurt.amount} {hurt.damage} damage")
    await expect(card.locator(".stakes")).not_to_contain_text("1 lethal")
    answer = card.locator(".stakes li").filter(has_text="If you win")
    await expect(answer).to_have_text("If you win: Jimmy loses Brawny")
    await expect(card.locator(".in-play")).to_have_text("Jimmy uses Feral Claws on you")
    console_card = st.locator("#challenges article[data-challenge=claw]")
    await expect(console_card.locator(".stakes li").first).to_have_text(
        "If Jimmy wins: Frank takes 2 aggravated damage"
    )
    await accessible(frank)
    await shot(frank, "feral-claws-stakes", card)

    # played out, the result card says it once, and how the damage came in "How it was decided"
    await card.get_by_role("button", name="Bid", exact=True).click()
    async with Client(live.url, jimmy_token) as me:
        assert (await me.send({"type": "throw", "challenge": "claw", "sign": "rock"}))["ok"]
    async with Client(live.url, frank_token) as me:
        assert (await me.send({"type": "throw", "challenge": "claw", "sign": "scissors"}))["ok"]
        assert (await me.send({"type": "pass", "challenge": "claw"}))["ok"]
    await expect(card.locator(".verdict")).to_have_text("You lost: you lose Wiry; you take 2 aggravated damage")
    await expect(card.locator(".verdict")).to_have_class("verdict lost")
    await card.locator("details.how summary").click()
    tests = card.locator("ol.tests li")
    await expect(tests).to_have_text(["Test 1: Jimmy threw rock, you threw scissors: Jimmy wins the test."])
    damage = card.locator(".effects li").filter(has_text="aggravated")
    await expect(damage).to_have_text(
        "You take 2 aggravated damage — 1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1."
    )
    await expect(card.locator(".rule-words[data-rule='camarilla:stacking']")).to_have_count(1)
    await expect(card.locator(".rule-words blockquote").first).to_be_visible()  # the rule's own words
    await shot(frank, "feral-claws-result", card)


async def test_an_overturned_result_says_the_storytellers_reason(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    juan = await phone(browser, f"{live.web}/play#token={tokens['juan']}")
    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    async with Client(live.url, tokens["sam"]) as me:
        swing = {"type": "declare", "challenge": "swing", "kind": "contested", "targets": ["juan"]}
        swing |= {"category": "physical", "bid": ["Brawny"], "victory": "I knock him down"}
        assert (await me.send(swing))["ok"]
    async with Client(live.url, tokens["juan"]) as me:
        assert (await me.send({"type": "bid", "challenge": "swing", "bid": ["Quick"]}))["ok"]
    async with Client(live.url, tokens["sam"]) as me:
        assert (await me.send({"type": "throw", "challenge": "swing", "sign": "rock"}))["ok"]
    async with Client(live.url, tokens["juan"]) as me:
        assert (await me.send({"type": "throw", "challenge": "swing", "sign": "scissors"}))["ok"]
        assert (await me.send({"type": "pass", "challenge": "swing"}))["ok"]
    card = juan.locator("#challenges article[data-challenge=swing]")
    await expect(card.locator(".verdict")).to_have_text("You lost: you lose Quick")
    await expect(card.locator(".ruled")).to_have_count(0)

    resolved = scene(live, "s1").challenges["swing"].resolved_seq
    async with Client(live.url, tokens["st"]) as st:
        ruling = {"type": "rule", "event": resolved, "decision": "overturn", "reason": "Juan had cover behind the car"}
        assert (await st.send(ruling))["ok"]
    assert scene(live, "s1").challenges["swing"].outcome.winner == "defender"  # type: ignore[union-attr]
    await expect(card.locator(".verdict")).to_have_text("You won: Sam loses Brawny")
    await expect(card.locator(".verdict")).to_have_class("verdict won")
    await expect(card.locator(".ruled")).to_have_text(
        "Overturned by the Storyteller: Juan had cover behind the car (first given: Sam won)"
    )
    mine = sam.locator("#challenges article[data-challenge=swing]")
    await expect(mine.locator(".verdict")).to_have_text("You lost: you lose Brawny")
    await expect(mine.locator(".ruled")).to_contain_text("(first given: You won)")
    await card.locator("details.how summary").click()
    await expect(card.locator(".rulings")).to_contain_text("The Storyteller overturned the result: Juan had cover")
    await accessible(juan)
    await shot(juan, "overturned-result", card)


async def test_an_overbid_says_the_trait_bid_and_the_trait_risked(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    sid, st_token = await new_scene(live, tokens, "lotn", FAVIAN, ENDORA)
    favian_token, endora_token = player(live, sid, "favian"), player(live, sid, "endora")
    endora = await phone(browser, f"{live.web}/play#token={endora_token}")
    favian = await phone(browser, f"{live.web}/play#token={favian_token}")
    st = await phone(browser, f"{live.web}/st#token={st_token}")
    async with Client(live.url, favian_token) as me:
        charm = {"type": "declare", "challenge": "charm", "kind": "contested", "targets": ["endora"]}
        charm |= {"category": "social", "bid": ["Beguiling"], "victory": "She tells me the secret"}
        assert (await me.send(charm))["ok"]
    async with Client(live.url, endora_token) as me:
        assert (await me.send({"type": "bid", "challenge": "charm", "bid": ["Witty"]}))["ok"]
    async with Client(live.url, favian_token) as me:
        assert (await me.send({"type": "throw", "challenge": "charm", "sign": "rock"}))["ok"]
    async with Client(live.url, endora_token) as me:
        assert (await me.send({"type": "throw", "challenge": "charm", "sign": "paper"}))["ok"]
    async with Client(live.url, favian_token) as me:
        overbid = {"category": "overbid", "bid": ["Seductive"]}
        assert (await me.send({"type": "retest", "challenge": "charm", "source": overbid}))["ok"]

    theirs = endora.locator("#challenges article[data-challenge=charm]")
    await expect(theirs.locator(".sides li[data-role=challenger]")).to_have_text(
        "Favian bids Beguiling (lost on the overbid); on the overbid, Favian risks Seductive"
    )
    overbidder = "#challenges article[data-challenge=charm] .sides li[data-role=challenger]"
    await expect(favian.locator(overbidder)).to_have_text(
        "You bid Beguiling (lost on the overbid); on the overbid, you risk Seductive"
    )
    await expect(st.locator(overbidder)).to_have_text(
        "Favian bids Beguiling (lost on the overbid); on the overbid, Favian risks Seductive"
    )
    # the test said once, with its throws; the overbid's retest in its own words
    await expect(theirs.locator("ol.tests li")).to_have_text(
        ["Test 1: Favian threw rock, you threw paper: you win the test."]
    )
    await expect(theirs.locator("ul.retests li")).to_have_text(
        ["After test 1, Favian retests with an overbid, risking Seductive: not yet answered"]
    )
    await accessible(endora)
    await shot(endora, "overbid", theirs)
