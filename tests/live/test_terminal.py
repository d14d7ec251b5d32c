"""``justicar join``: a player's terminal, driven through its standard input."""

from __future__ import annotations

import sys

import anyio
import pytest

from clients.client import Client
from server.app import Running
from tests.live.conftest import at_version

pytestmark = pytest.mark.anyio


async def test_a_player_answers_a_challenge_from_the_terminal(live: Running, tokens: dict[str, str]) -> None:
    """Juan sees his sheet and Sam's challenge with the moves he has, bids, throws; a refused move
    shows the reason and the rule."""
    async with Client(live.url, tokens["sam"]) as sam:
        await sam.subscribe()
        await sam.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": "down you go",
            }
        )
        moves = "help\nthrow rock\nbid Brutal\ncall Lazy\nthrow paper\nbid Quick\nthrow scissors\nview\nquit\n"
        with anyio.fail_after(20):
            done = await anyio.run_process(
                [sys.executable, "-m", "clients.cli", "join", live.url, "--token", tokens["juan"]],
                input=moves.encode(),
                check=False,
            )
        out = done.stdout.decode()
        assert done.returncode == 0, done.stderr.decode()
        assert "Connected to" in out and "── Juan (player) · scene s1" in out
        assert "Traits: Physical 5, Social 0, Mental 0 (lost tonight: none)" in out
        assert "[c] Sam → Juan · physical contested · awaiting_response · bids Sam: Brawny" in out
        assert "you may: bid TRAIT, or relent" in out
        assert "refused: This is not the moment for a throw: the defender has not answered yet." in out
        assert "ok (bid)" in out
        assert "you may: bid 1 more Trait(s)" in out  # Lazy was a wrong call: Juan owes a Trait
        assert "refused: Juan must first bid 1 more Trait(s) for the Negative Trait call. [lotn:negative-traits]" in out
        assert "ok (throw)" in out and "your sealed throw: scissors" in out
        view = await at_version(sam, 9)
        assert view["challenges"]["c"]["calls"][0]["trait"] == "Lazy"
        assert "sealed" not in view["challenges"]["c"]  # Sam never sees Juan's sign before his own throw


async def test_a_bad_token_is_a_clear_error(live: Running) -> None:
    """A wrong token ends ``join`` with the server's reason, exit 1."""
    done = await anyio.run_process(
        [sys.executable, "-m", "clients.cli", "join", live.url, "--token", "jt_wrong"], input=b"", check=False
    )
    assert done.returncode == 1 and "unknown, revoked or expired" in done.stderr.decode()
