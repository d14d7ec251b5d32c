"""The player's page can be added to a phone's home screen: the page links a web app manifest
that Chromium itself reads without error, served as ``application/manifest+json``; its colours are
the pages' own dark background; each icon it names (and the favicon and the Apple touch icon)
loads, at the size it claims."""

from __future__ import annotations

import json
from urllib.error import HTTPError
from urllib.request import urlopen

import anyio
import pytest
from playwright.async_api import Browser

from server.app import Running
from tests.live.test_web import browser, phone, shot

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

SIZE = """async (src) => { const img = new Image(); img.src = src; await img.decode();
  return [img.naturalWidth, img.naturalHeight]; }"""


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except HTTPError as refused:
        return refused.code, refused.headers["Content-Type"], refused.read()


async def test_the_page_is_installable(live: Running, tokens: dict[str, str], browser: Browser) -> None:
    status, kind, body = await anyio.to_thread.run_sync(fetch, live.web + "/")
    assert status == 200 and kind.startswith("text/html")
    assert b'rel="manifest"' in body and b'href="data:,"' not in body  # a real favicon
    status, _, _ = await anyio.to_thread.run_sync(fetch, live.web + "/static/icons/make.py")
    assert status == 404  # the script that drew the icons is the repository's, not the page's

    sam = await phone(browser, f"{live.web}/play#token={tokens['sam']}")
    href = await sam.locator('link[rel="manifest"]').evaluate("(link) => link.href")
    assert href == live.web + "/static/manifest.webmanifest"
    status, kind, body = await anyio.to_thread.run_sync(fetch, href)
    assert status == 200 and kind == "application/manifest+json; charset=utf-8"
    manifest = json.loads(body)
    bg = (await sam.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bg')")).strip()
    assert manifest["name"] == "Justicar" and manifest["short_name"] == "Justicar"
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/play"
    assert manifest["background_color"] == manifest["theme_color"] == bg == "#0e0f12"
    assert await sam.locator('meta[name="theme-color"]').get_attribute("content") == bg

    # Chromium's own reading of it: the same manifest, with no error (the page's CSP lets it load)
    cdp = await sam.context.new_cdp_session(sam)
    read = await cdp.send("Page.getAppManifest")
    assert read["url"] == href and read["errors"] == [], read["errors"]
    assert json.loads(read["data"]) == manifest
    errors = (await cdp.send("Page.getInstallabilityErrors"))["installabilityErrors"]
    assert [e["errorId"] for e in errors] == ["in-incognito"]  # installable, but for the test's private window

    icons = {(icon["sizes"], icon.get("purpose", "any")): icon["src"] for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= set(icons)
    for (sizes, _), src in icons.items():
        status, kind, _ = await anyio.to_thread.run_sync(fetch, live.web + src)
        assert status == 200 and kind == ("image/svg+xml" if src.endswith(".svg") else "image/png"), src
        if sizes != "any":
            width, height = sizes.split("x")
            assert await sam.evaluate(SIZE, src) == [int(width), int(height)], src
    for rel, size in (("apple-touch-icon", [180, 180]), ('icon"][type="image/png', [192, 192])):
        src = await sam.locator(f'link[rel="{rel}"]').get_attribute("href")
        assert src is not None and await sam.evaluate(SIZE, src) == size, rel
    favicon = await sam.locator('link[rel="icon"][type="image/svg+xml"]').get_attribute("href")
    assert favicon is not None and (await sam.evaluate(SIZE, favicon))[0] > 0

    # what opens from the home screen: the player's page, with the token this browser kept
    home = await sam.context.new_page()
    await home.goto(live.web + manifest["start_url"])
    await home.get_by_role("heading", name="Sam", exact=True).wait_for()
    await home.set_content(f'<body style="margin:0;background:#fff"><img src="{live.web}{favicon}" width="390">')
    await home.locator("img").evaluate("(img) => img.decode()")
    await shot(home, "icon-favicon")
