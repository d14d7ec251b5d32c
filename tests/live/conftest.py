"""A real server on a loopback port, and real websocket clients."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.async_api import Browser, async_playwright

from clients.client import Client
from domain.commands import parse_command
from server.app import Running, running
from server.backend import Backend, open_backend
from server.service import SceneService

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SHEETS = [
    {
        "id": "sam",
        "name": "Sam",
        "willpower": 2,
        "health": 7,
        "abilities": {"Brawl": 2},
        "traits": {"physical": {"Ferocious": 1, "Brawny": 2, "Quick": 3}},
        "notes": "owes the Prince",
    },
    {
        "id": "juan",
        "name": "Juan",
        "health": 7,
        "abilities": {"Dodge": 1},
        "merits": ["Lucky"],
        "traits": {"physical": {"Brutal": 2, "Quick": 3}},
        "negative_traits": {"physical": ["Clumsy"]},
    },
    {"id": "guard", "name": "Guard", "npc": True, "traits": {"physical": {"Tough": 4}}, "notes": "bribable"},
]


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session-wide, so that one Chromium (``chromium`` below) serves every browser test."""
    return "asyncio"


@pytest.fixture(scope="session")
async def chromium() -> AsyncIterator[Browser]:
    """Debian's Chromium, started once per test process (launching it is a second or so); each
    test gets it through ``browser`` (tests/live/test_web.py), which closes the test's own
    contexts (its phones) when the test ends, so no page outlives its test."""
    assert Path(CHROMIUM).exists(), "Debian's Chromium is needed: `make test` installs it (apt-get install chromium)"
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        await browser.close()


def seed(backend: Backend, scene: str = "s1") -> None:
    """A scene with two players' characters and an NPC."""
    service = SceneService(backend.store)
    lines = [{"id": "open", "type": "open_scene", "ruleset": "lotn", "title": "The alley"}]
    lines += [{"id": f"add-{s['id']}", "type": "add_character", "character": s} for s in SHEETS]
    for body in lines:
        import msgspec

        assert service.handle(parse_command(msgspec.json.encode({"scene": scene, "actor": "st", **body}))).error is None


@pytest.fixture
def backend() -> Backend:
    b = open_backend(None)
    seed(b)
    return b


@pytest.fixture
async def live(backend: Backend) -> AsyncIterator[Running]:
    async with running(backend) as server:
        yield server


@pytest.fixture
def tokens(backend: Backend) -> dict[str, str]:
    issued = {
        "st": backend.tokens.issue("s1", "st")[0],
        "sam": backend.tokens.issue("s1", "player", "sam")[0],
        "juan": backend.tokens.issue("s1", "player", "juan")[0],
        "spectator": backend.tokens.issue("s1", "spectator")[0],
    }
    return issued


async def until(client: Client, check: Callable[[Client], bool], seconds: float = 5.0) -> None:
    """Wait (bounded) until the client's state satisfies ``check``."""
    with anyio.fail_after(seconds):
        while not check(client):
            await anyio.sleep(0.005)


async def at_version(client: Client, version: int) -> dict[str, Any]:
    await until(client, lambda c: (c.view.get("version") or 0) >= version)
    return client.view
