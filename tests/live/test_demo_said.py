"""The demo's scripted results do not read as the newcomer's own (Playwright driving Debian's
Chromium at 390x844 against a real server on loopback, the demo loaded as ``make run`` loads it):
Sam's page opens on "You won" for a fight the script played, so the scene says it is the demo, on
the record (its title, in every page's header and the timeline's first step), and ``serve`` prints
which steps the script played (tests/live/test_serve_links.py runs it)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from clients.offline import play_script
from server.app import Running
from server.backend import Backend, open_backend
from server.service import SceneService
from tests.live.test_web import accessible, browser, phone

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.jsonl"
SAID = "a demo: the book's examples, played by its script"


@pytest.fixture
def backend() -> Backend:
    """The demo, loaded as ``justicar serve --load examples/demo.jsonl`` loads it."""
    b = open_backend(None)
    with DEMO.open(encoding="utf-8") as script:
        malformed, _ = play_script(SceneService(b.store, honour_at=True), script, io.StringIO())
    assert not malformed
    return b


async def test_sams_page_says_the_demo_played_it(live: Running, backend: Backend, browser: Browser) -> None:
    sam = await phone(browser, f"{live.web}/play#token={backend.tokens.issue('demo', 'player', 'sam')[0]}")
    await expect(sam.locator("header .scene")).to_contain_text(SAID)
    won = sam.locator("#challenges article.resolved").filter(has_text="You challenge Juan")
    await expect(won.locator(".verdict")).to_have_text("You won: Juan loses Brutal; Juan takes 1 bashing damage")
    await accessible(sam)
    await sam.screenshot(path="/tmp/i27-bits-demo-sam.png")
    st = await phone(browser, f"{live.web}/st#token={backend.tokens.issue('demo', 'st')[0]}")
    await expect(st.locator("header")).to_contain_text(SAID)


def test_serve_says_which_steps_the_script_played(backend: Backend) -> None:
    from clients.serve import scripted  # here: today's main has none

    said = scripted(backend, str(DEMO), ["demo"])
    version = max(r.seq for r in backend.store.read("demo"))
    assert said == {"demo": f"Steps 1–{version} were played by {DEMO}: its moves and results, not yours."}
