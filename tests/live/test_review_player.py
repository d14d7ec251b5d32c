"""The player's page after a new-user review, on 390x844 phones against a real server: a game
night's link opened before the first scene shows the character and its sheet; a second banner
never covers the card it brought into view; a player reads their own retest, result and tie in the
second person; a defender answers knowing what a loss costs; the timeline says each test once; a
Trait lost twice is counted, an overturn is called one; the page asks for the one tap that lets it
buzz and beep; no "Show earlier events" when there is nothing earlier."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from domain.commands import parse_command
from server.app import Running, running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.test_player_page import player, screen
from tests.live.test_web import accessible, browser, shot
from tests.night.table import JUAN, SAM

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SHOVE = {"kind": "damage", "amount": 1, "type": "bashing"}


async def do(client: Client, verb: str, **fields: Any) -> dict[str, Any]:
    reply = await client.send({"type": verb, **fields})
    assert reply["ok"], reply
    return reply


async def shown(page: Page, selector: str) -> str:
    """What the eye reads there (hidden lines left out)."""
    return await page.locator(selector).inner_text()


async def test_a_night_link_before_the_first_scene_shows_the_character_and_its_sheet(browser: Browser) -> None:
    """Review item 2: no scene yet, and the page showed only "You are between scenes."."""
    backend: Backend = open_backend(None)
    service = SceneService(backend.store)
    bodies = [
        ("g1", {"type": "open_game", "ruleset": "lotn", "title": "Saturday night"}),
        ("g1", {"type": "register_character", "character": SAM}),
        ("g1", {"type": "register_character", "character": JUAN}),
    ]
    for n, (stream, body) in enumerate(bodies):
        line = {"id": f"seed-{n}", "scene": stream, "actor": "st", **body}
        assert service.handle(parse_command(msgspec.json.encode(line))).error is None
    sam_token = backend.tokens.issue("g1", "player", "sam")[0]
    st_token = backend.tokens.issue("g1", "st")[0]
    async with running(backend) as live:
        sam = await player(browser, f"{live.web}/play#token={sam_token}")  # waits for the Live badge
        bar = sam.get_by_role("region", name="Tonight")
        await expect(bar.get_by_role("status")).to_have_text("You are between scenes.")
        await expect(sam.get_by_role("heading", level=1)).to_have_text("Sam")
        await expect(sam.locator("header.top .badge")).to_have_text("Live")
        await expect(sam.get_by_role("heading", name="My character tonight")).to_be_visible()
        await expect(sam.locator("#me")).to_contain_text("Nothing lost tonight so far.")
        await expect(sam.get_by_role("region", name="Sam's sheet")).to_contain_text("Brawny")
        await accessible(sam)
        await shot(sam, "review-night-before-first-scene")

        # the first scene opens and Sam is sent in: the page follows
        async with Client(live.url, st_token, keep=True) as st:
            await do(st, "open_scene", scene="elysium", ruleset="lotn", title="Elysium", game="g1")
            await do(st, "move_character", scene="g1", character="sam", to="elysium")
        await expect(bar.get_by_role("status")).to_have_text("You are in “Elysium”.")
        await expect(sam.get_by_role("heading", level=1)).to_have_text("Sam")


async def test_the_second_banner_never_covers_the_card_it_brings_into_view(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Review item 3: "Also: …" was drawn over the card heading (a see-through button, and a
    scroll margin for one banner only); since issue 27 there is one banner, with a count."""
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["st"]) as st:
        await do(sam, "declare", challenge="a", kind="contested", targets=["juan"], category="physical", bid=["Brawny"])
        await do(
            st,
            "declare",
            challenge="b",
            character="guard",
            kind="contested",
            targets=["juan"],
            category="physical",
            bid=["Tough"],
        )
    # one banner, counting the moves that wait (issue 27: no "Also:" banner stacked on it)
    await expect(juan.locator("button.due")).to_have_text("2 moves wait: Sam challenges you: bid a Physical Trait")
    await expect(juan.locator(".sticky-top button:visible")).to_have_count(1)
    for cid in ("a", "b"):  # each card, brought into view as the page does, starts below the banner
        await juan.evaluate(
            f"document.getElementById('ch-{cid}').closest('article').scrollIntoView({{block: 'start'}})"
        )
        heading = await juan.locator(f"#ch-{cid}").bounding_box()
        banners = await juan.locator(".sticky-top").bounding_box()
        assert heading and banners
        assert heading["y"] >= banners["y"] + banners["height"], (cid, heading, banners)
    await screen(juan, "review-two-banners")


async def test_a_player_reads_their_own_retest_result_and_what_a_loss_costs_as_you(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Review items 12, 13, 14 and 15: "Juan: Dodge (ability) (pending)", "the other side may
    cancel it", "Juan wins the challenge" on Juan's own page; the defender answering blind; each
    test said twice in the timeline; a lower-case "your" starting a sentence; "(amended …)" after an
    overturn."""
    sam_page = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as jc:
        fight = {"challenge": "f"}
        declared = {"kind": "contested", "targets": ["juan"], "category": "physical", "bid": ["Brawny"]}
        await do(sam, "declare", **fight, **declared, victory="I shove him into the fountain", effect=SHOVE)

        # the defender's card says what losing means, in the second person, beside the victory text
        card = juan.locator("#challenges article").filter(has_text="Sam challenges you")
        await expect(card.locator(".victory")).to_have_text("“I shove him into the fountain”")
        await expect(card.locator(".stakes li").first).to_have_text("If Sam wins: you take 1 bashing damage")
        await expect(sam_page.locator("#challenges .stakes li").first).to_have_text(
            "If you win: Juan takes 1 bashing damage"
        )
        await accessible(juan)
        await shot(juan, "review-answer-knows-the-cost")

        await do(jc, "bid", **fight, bid=["Quick"])
        await do(sam, "throw", **fight, sign="rock")
        await do(jc, "throw", **fight, sign="scissors")
        await do(jc, "retest", **fight, source={"category": "ability", "name": "Dodge"})

        # Juan's own retest, in his words; the side that may cancel it, by name
        retest = "After test 1, you retest with Dodge (ability): not yet answered"
        await expect(card.locator("ul.retests")).to_have_text(retest)
        await expect(card.locator(".waiting")).to_have_text(
            "Now: You retest with Dodge (ability): waiting for Sam, who may cancel it or let it stand"
        )
        mine = sam_page.locator("#challenges article").filter(has_text="You challenge Juan")
        await expect(mine.locator("ul.retests")).to_have_text(
            "After test 1, Juan retests with Dodge (ability): not yet answered"
        )
        await expect(mine.locator(".waiting")).to_have_text(
            "Now: Juan retests with Dodge (ability): cancel it or let it stand"
        )
        await shot(juan, "review-my-retest")

        await do(sam, "pass", **fight)  # lets it stand: a new test
        await do(sam, "throw", **fight, sign="paper")
        await do(jc, "throw", **fight, sign="scissors")
        await do(sam, "pass", **fight)

        resolved = juan.locator("#challenges article.resolved").filter(has_text="Sam challenges you")
        await expect(resolved.locator(".verdict")).to_have_text("You won: Sam loses Brawny")
        await resolved.get_by_text("How it was decided, and the rule").click()
        await expect(resolved.locator(".why")).to_have_text("You win the challenge.")
        await expect(resolved.locator("ol.tests li")).to_have_text(
            [
                "Test 1: Sam threw rock, you threw scissors: Sam wins the test.",
                "Test 2: Sam threw paper, you threw scissors: you win the test.",
            ]
        )
        await expect(resolved.locator("ul.retests")).to_have_text(
            "After test 1, you retest with Dodge (ability): it stands, and the test is thrown again"
        )
        said = await resolved.inner_text()
        assert "Juan" not in said, said  # nobody reads themselves by name on their own card
        await shot(juan, "review-result-as-you")

        # the timeline: one line a test (the reveal says the winner; the resolution is not said again)
        steps = await shown(juan, "#timeline ol.timeline")
        assert steps.count("Sam threw rock, you threw scissors") == 1, steps
        assert "Test 1: Sam threw rock, you threw scissors: Sam wins." in steps
        assert "Test 2: Sam threw paper, you threw scissors: you win." in steps
        await expect(juan.locator("#timeline li[data-type=test_resolved]").first).to_be_hidden()

    # the Storyteller overturns: the sentence after the reason starts with a capital, and the
    # result says "overturned", with the Storyteller's reason
    async with Client(live.url, tokens["st"]) as st:
        seq = next(r.seq for r in live.hub.backend.store.read("s1") if type(r.event).__name__ == "ChallengeResolved")
        await do(st, "rule", event=seq, decision="overturn", reason="The retest was void.")
    await expect(sam_page.locator("#timeline")).to_contain_text("The retest was void. Your challenge to Juan: you win")
    verdict = resolved.locator(".verdict")
    await expect(verdict).to_have_text("You lost: you lose Quick; you take 1 bashing damage")
    await expect(resolved.locator(".ruled")).to_have_text(
        "Overturned by the Storyteller: The retest was void. (first given: You won)"
    )
    await shot(juan, "review-overturned")


async def test_a_trait_lost_twice_is_counted_not_said_twice(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Review item 15: "you lose Brawny and Brawny" after a failed overbid."""
    async with Client(live.url, tokens["sam"]) as sam, Client(live.url, tokens["juan"]) as juan:
        fight = {"challenge": "o"}
        await do(sam, "declare", **fight, kind="contested", targets=["juan"], category="physical", bid=["Brawny"])
        await do(juan, "bid", **fight, bid=["Quick"])
        await do(sam, "throw", **fight, sign="rock")
        await do(juan, "throw", **fight, sign="paper")
        await do(sam, "retest", **fight, source={"category": "overbid", "bid": ["Brawny"]})
        await do(sam, "declare_traits", **fight, count=4)
        await do(juan, "declare_traits", **fight, count=5)
        await do(sam, "pass", **fight)
    sam_page = await player(browser, f"{live.web}/play#token={tokens['sam']}")
    watcher = await player(browser, f"{live.web}/play#token={tokens['spectator']}")
    # the Brawny bid and the Brawny the overbid risked, each said once where it was put up; the
    # verdict says what the resolution did (the overbid's losses came on the way, before it)
    mine = sam_page.locator("#challenges article[data-challenge=o]")
    await expect(mine.locator(".verdict")).to_have_text("You lost")
    await expect(mine.locator(".sides li[data-role=challenger]")).to_have_text(
        "You bid Brawny (lost on the overbid); on the overbid, you risk Brawny"
    )
    await mine.locator("details.how summary").click()
    await expect(mine.locator("ul.retests")).to_contain_text("it failed (the overbid fell short)")
    await expect(watcher.locator("#challenges .verdict")).to_have_text("Juan won")
    assert "Brawny and Brawny" not in await mine.inner_text()
    await shot(sam_page, "review-brawny-twice")


async def test_the_page_asks_for_one_tap_and_shows_no_earlier_events_button_at_the_start(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Review items 18 and 19: buzz and sound need a first tap, and nothing said so; "Show earlier
    events" with nothing earlier."""
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    hint = juan.locator(".tap-hint")
    await expect(hint).to_be_visible()
    await expect(hint).to_have_text("Tap the page once so it can buzz and beep when it's your move.")
    await expect(juan.get_by_label("Quiet (no sound or vibration)")).to_be_visible()
    await expect(juan.locator("#timeline li").first).to_contain_text("#1")
    await expect(juan.get_by_role("button", name="Show earlier events")).to_be_hidden()
    await accessible(juan)
    await shot(juan, "review-tap-once")
    await juan.get_by_role("heading", level=1).click()  # the first tap
    await expect(hint).to_be_hidden()
    watcher = await player(browser, f"{live.web}/play#token={tokens['spectator']}")
    await expect(watcher.locator(".tap-hint")).to_be_hidden()  # nothing to buzz for


async def test_earlier_events_are_offered_only_while_there_are_some(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """Review item 19, the other way round: a long scene's page starts at its latest steps and offers
    the earlier ones; once it holds step #1, the button goes."""
    async with Client(live.url, tokens["st"]) as st:
        for n in range(110):
            await do(st, "adjust", character="guard", changes={"willpower": n % 3}, reason=f"round {n}")
    juan = await player(browser, f"{live.web}/play#token={tokens['juan']}")
    more = juan.get_by_role("button", name="Show earlier events")
    await expect(more).to_be_visible()
    await expect(juan.locator("#step-1")).to_have_count(0)
    await more.click()
    await expect(juan.locator("#step-1")).to_have_count(1)
    await expect(more).to_be_hidden()
