"""``justicar join`` as a player reads it (issue 27): the Traits, powers and targets listed from the
view, Tab completion at a real terminal, help of this scene's ruleset only, challenges by number
(their ids only with ``--ids``), lines broken at word boundaries to the width, and a notice when the
connection drops and when it is back. Each drives the real client against a real server."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import sys
import termios

import anyio
import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from server.app import Running, running
from server.backend import open_backend
from server.service import SceneService
from tests.live.conftest import at_version, seed
from tests.live.test_terminal import terminal

pytestmark = pytest.mark.anyio


async def join(live: Running, token: str, moves: str, *flags: str) -> str:
    """The terminal run to the end of ``moves``, its input and output pipes (not a terminal)."""
    with anyio.fail_after(30):
        done = await anyio.run_process(
            [sys.executable, "-m", "clients.cli", "join", live.url, "--token", token, *flags],
            input=moves.encode(),
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    return str(done.stdout.decode())


async def declare(client: Client, cid: str, bid: str) -> None:
    body = {"type": "declare", "challenge": cid, "kind": "contested", "targets": ["juan"], "category": "physical"}
    assert (await client.send({**body, "bid": [bid], "victory": "down you go"}))["ok"]


async def test_your_traits_powers_and_targets_are_listed(live: Running, tokens: dict[str, str]) -> None:
    """``sheet`` names each Trait (how many, how many lost), the abilities, powers and merits, the
    Negative Traits, and the others here; the challenge that asks for a bid lists the Traits of its
    category under the move; Sam declares by name, with no challenge id."""
    out = await join(live, tokens["juan"], "sheet\nquit\n")
    assert (
        "Juan's sheet:\n"
        "  Physical Traits: Brutal ×2, Quick ×3\n"
        "  Social Traits: none\n"
        "  Mental Traits: none\n"
        "  Negative Traits: Clumsy\n"
        "  Abilities: Dodge 1\n"
        "  Powers: none · Merits: Lucky\n"
        "  Willpower 0 · Health 7\n"
        "Others here: Sam, Guard (NPC)\n"
    ) in out
    assert "No open challenge involves you.\nOthers here: Sam, Guard (NPC)\n" in out  # before any challenge
    out = await join(live, tokens["sam"], "declare Juan physical Brawny down you go\nquit\n")
    assert "ok (declare)" in out and "You challenge Juan (Physical) · waiting for Juan to answer" in out
    out = await join(live, tokens["juan"], "view\nquit\n")
    assert "    you may: bid TRAIT, or relent\n    your Physical Traits: Brutal ×2, Quick ×3\n" in out


async def test_help_is_this_scenes_ruleset_only(live: Running, tokens: dict[str, str]) -> None:
    """A lotn scene: the moves of trait challenges, no pool, dice or round move; ``help throw``."""
    out = await join(live, tokens["juan"], "help\nhelp throw\nquit\n")
    for other in ("defend", "roll", "escape", "shield", "feed", "intend", "act", "assist", "done", "end"):
        assert f"\n  {other} " not in out, other
    said = out.split("moves (", 1)[1].split("\n  throw", 2)
    assert "  bid [#N] TRAIT…        answer a challenge" in said[0]
    assert len(said[0].splitlines()) < 25  # the old help: 65 lines, every ruleset's
    assert out.endswith("  throw [#N] SIGN        rock, paper, scissors or random (or a gesture your sheet grants)\n")


async def test_challenges_by_number_and_ids_only_with_ids(live: Running, tokens: dict[str, str]) -> None:
    """Sam challenges Juan twice: Juan's terminal tells them by number, with no id anywhere, and
    ``bid 2`` answers the second; with ``--ids`` each shows its id and the id names it."""
    async with Client(live.url, tokens["sam"]) as sam:
        await sam.subscribe()
        await declare(sam, "first", "Brawny")
        await declare(sam, "second", "Quick")
        out = await join(live, tokens["juan"], "bid Quick\nbid 2 Quick\nquit\n")
        assert "first" not in out and "second" not in out and "scene s1" not in out  # no id, no scene id
        assert "#1 Sam challenges you (Physical) · your answer is due" in out
        assert "#2 Sam challenges you (Physical) · waiting for Sam and you to throw" in out
        assert "Which challenge? Name it by its number: #1 Sam challenges you (Physical) · your answer is due;" in out
        assert "ok (bid)" in out
        view = await at_version(sam, 7)
        assert (
            view["challenges"]["second"]["bids"]["juan"] == ["Quick"]
            and not view["challenges"]["first"]["bids"]["juan"]
        )

        out = await join(live, tokens["juan"], "bid first Brutal\nquit\n", "--ids")
        assert "[first] Sam challenges you (Physical) · your answer is due" in out and "scene s1" in out
        assert "[second] Sam challenges you (Physical) · waiting for Sam and you to throw" in out
        assert "ok (bid)" in out
        view = await at_version(sam, 8)
        assert view["challenges"]["first"]["bids"]["juan"] == ["Brutal"]


async def test_lines_break_at_word_boundaries_at_the_width(live: Running, tokens: dict[str, str]) -> None:
    """``--width 44``: no line is wider, and the words are the very words of the same screens
    unwrapped (a word cut in two would be two)."""
    async with Client(live.url, tokens["sam"]) as sam:
        await sam.subscribe()
        await declare(sam, "c", "Brawny")
    moves = "view\nhelp\nsheet\nbid\nquit\n"
    whole = await join(live, tokens["juan"], moves)
    narrow = await join(live, tokens["juan"], moves, "--width", "44")
    assert max(len(line) for line in whole.splitlines()) > 44
    assert max(len(line) for line in narrow.splitlines()) <= 44
    assert narrow.split() == whole.split() and narrow != whole
    assert "  bid [#N] TRAIT…        answer a challenge,\n    or bid what a Negative Trait call made\n" in narrow
    assert "\n    you may: bid TRAIT, or relent\n    your Physical Traits: Brutal ×2, Quick\n      ×3\n" in narrow


async def test_at_a_real_terminal_tab_completes_and_lines_fit_its_width(live: Running, tokens: dict[str, str]) -> None:
    """Run on a pseudo-terminal 60 columns wide: every line fits it, broken between words; ``sh``
    and Tab completes to ``sheet``, ``bid B`` and Tab to ``bid Brutal``; a prompt waits for a move."""
    async with Client(live.url, tokens["sam"]) as sam:
        await sam.subscribe()
        await declare(sam, "c", "Brawny")
        main, side = pty.openpty()
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 60, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")} | {"TERM": "dumb"}
        argv = [sys.executable, "-m", "clients.cli", "join", live.url, "--token", tokens["juan"]]
        process = await anyio.open_process(argv, stdin=side, stdout=side, stderr=side, env=env)
        os.close(side)
        os.set_blocking(main, False)
        raw = b""

        async def expect(text: str) -> None:
            nonlocal raw
            with anyio.fail_after(30):
                while text not in screen(raw):
                    await anyio.wait_readable(main)
                    raw += os.read(main, 65536)

        try:
            await expect("you may: bid TRAIT, or relent")
            os.write(main, b"sh\t\n")
            await expect("Others here: Sam, Guard (NPC)")
            os.write(main, b"bid B\t\n")
            await expect("ok (bid)")
            os.write(main, b"quit\n")
            with anyio.fail_after(10):
                assert await process.wait() == 0
        finally:
            if process.returncode is None:
                process.kill()
            await process.aclose()
            os.close(main)
        view = await at_version(sam, 6)
        assert view["challenges"]["c"]["bids"]["juan"] == ["Brutal"]
    lines = screen(raw).splitlines()
    assert "> sheet" in lines and "> bid Brutal" in lines  # completed by Tab, as typed at the prompt
    assert "Juan's sheet:" in lines and "    your Physical Traits: Brutal ×2, Quick ×3" in lines
    assert max(len(line) for line in lines) <= 60 and sum(len(line) > 50 for line in lines) > 3


def screen(raw: bytes) -> str:
    """What a terminal shows of its output: each line from its last carriage return, escapes gone."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace")).replace("\r\n", "\n")
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


async def test_a_notice_when_the_connection_drops_and_when_it_is_back() -> None:
    """The server stops under Juan's terminal: it says so; the Storyteller adjusts Juan's Willpower
    meanwhile; the server comes back on the same port: the terminal says it is back and the step it
    caught up to, and shows the change."""
    backend = open_backend(None)
    seed(backend)
    juan_token = backend.tokens.issue("s1", "player", "juan")[0]
    async with running(backend) as live:
        port = live.port
        juan = await terminal(live.url, "--token", juan_token)
        try:
            await juan.expect("── Juan (player)")
        except BaseException:
            juan.process.kill()
            raise
    try:
        await juan.expect("Connection lost; trying again…")
        adjust = {"id": "wp", "scene": "s1", "actor": "st", "type": "adjust", "character": "juan"}
        adjust |= {"changes": {"willpower": 2}, "reason": "a second wind"}
        assert SceneService(backend.store).handle(parse_command(msgspec.json.encode(adjust))).error is None
        async with running(backend, port=port):
            after = await juan.expect("Back online; caught up to step 5 (1 step while you were away).")
            assert "Willpower 2" in juan.out.rpartition("Connection lost")[2]
            assert "Connection lost" not in after
            await juan.type("quit")
            with anyio.fail_after(10):
                assert await juan.process.wait() == 0
    finally:
        if juan.process.returncode is None:
            juan.process.kill()
        await juan.process.aclose()
