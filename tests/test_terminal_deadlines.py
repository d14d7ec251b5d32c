"""The terminal prints the running deadlines in the view's words with the time left (``due_at``
less the server's time as the terminal reckons it), marks a player's own once it is warned, and
gives the Storyteller the choices of a lapse it was told of, numbered for ``choose N``; at a live
table too (a real server, real terminals)."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import msgspec
import pytest

from clients.terminal import ServerClock, Unclear, deadline_lines, left_words, parse, status
from domain.commands import parse_command
from domain.deadlines import lapses
from projections.views import view
from server.app import running
from server.backend import open_backend
from server.service import SceneService
from tests.table import Table
from tests.test_deadline_views import submit


def seen(t: Table, who: str) -> dict[str, Any]:
    """The view ``who`` is sent, as the terminal holds it (JSON)."""
    shown: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(view(t.state, who)))
    return shown


def waiting() -> Table:
    t = Table("lotn", {"deadlines": {"throw": {"seconds": 120, "lapse": "act"}, "answer": {"seconds": 300}}})
    t.add("juan", {"Strong": 3}, name="Juan")
    t.add("ana", {"Quick": 3}, name="Ana")
    t.do("ana", "declare", challenge="c1", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    return t


def test_time_left_in_words() -> None:
    assert [left_words(s) for s in (0, -3, 0.2, 5, 94, 3600, 3725)] == [
        "time is up",
        "time is up",
        "0:01 left",
        "0:05 left",
        "1:34 left",
        "1:00:00 left",
        "1:02:05 left",
    ]


def test_each_reads_the_deadline_with_the_time_left() -> None:
    t = waiting()
    since = t.now  # the challenge was declared now: the clock started
    juan, ana = seen(t, "juan"), seen(t, "ana")
    at = since + timedelta(seconds=206)
    assert deadline_lines(juan, "juan", at) == [
        "⏱ You have 5 minutes to answer Ana's challenge: 1:34 left. Then the Storyteller is told."
    ]
    assert deadline_lines(ana, "ana", at) == [
        "⏱ Juan has 5 minutes to answer your challenge: 1:34 left. Then the Storyteller is told."
    ]
    late = since + timedelta(seconds=285)  # past warn_at: the one whose move it is is hurried
    assert deadline_lines(juan, "juan", late)[0].startswith("⏱ Hurry! You have 5 minutes")
    assert not deadline_lines(ana, "ana", late)[0].startswith("⏱ Hurry!")
    assert "time is up" in deadline_lines(juan, "juan", since + timedelta(seconds=400))[0]
    assert "⏱ You have 5 minutes to answer" in status(juan, {"character": "juan", "role": "player"}, now=at)


def test_the_storyteller_chooses_by_number() -> None:
    t = waiting()
    t.now += timedelta(seconds=301)
    [owed] = lapses(t.state, t.now)
    submit(t, owed)
    st = seen(t, "st")
    assert deadline_lines(st, "st") == [
        "⏱ Juan did not answer Ana's challenge in 5 minutes. You were told: choose what happens.",
        "    [1] Relent for Juan: choose 1",
        "    [2] Give Juan 5 minutes more: choose 2",
    ]
    assert parse("choose 1", st, "st") == {"type": "relent", "challenge": "c1", "character": "juan"}
    assert parse("choose 2", st, "st") == {"type": "extend_deadline", "key": owed.key}
    with pytest.raises(Unclear, match="1 to 2"):
        parse("choose 3", st, "st")
    assert deadline_lines(seen(t, "juan"), "juan") == [
        "⏱ You did not answer Ana's challenge in 5 minutes. The Storyteller chooses what happens."
    ]
    with pytest.raises(Unclear, match="No deadline waits"):
        parse("choose 1", seen(t, "juan"), "juan")


def test_the_clock_is_the_servers_as_the_last_event_said() -> None:
    clock = ServerClock()
    ahead = datetime.now(UTC) + timedelta(hours=1)
    clock.heard({"type": "commit", "events": [{"at": ahead.isoformat().replace("+00:00", "Z")}]})
    assert abs((clock.now() - ahead).total_seconds()) < 60  # an hour ahead of the local clock, as the server is


JUAN = {"id": "juan", "name": "Juan", "traits": {"physical": {"Strong": 3}}}
ANA = {"id": "ana", "name": "Ana", "traits": {"physical": {"Quick": 3}}}


@pytest.mark.anyio
async def test_at_a_live_table_the_storyteller_gives_more_time_and_the_player_reads_it() -> None:
    """The scene was played ten minutes ago (a service with its clock then); Juan's throw lapsed and
    the Storyteller was told. At the live table the Storyteller's terminal lists the choices and
    takes ``choose 2`` (more time); Juan's terminal reads his new minute running."""
    backend = open_backend(None)
    then = datetime.now(UTC) - timedelta(minutes=10)
    past = SceneService(backend.store, clock=lambda: then)
    setup: list[dict[str, Any]] = [
        {"type": "open_scene", "ruleset": "lotn", "options": {"deadlines": {"throw": {"seconds": 60}}}}
    ]
    setup += [{"type": "add_character", "character": c} for c in (JUAN, ANA)]
    setup += [
        {"type": "declare", "actor": "ana", "challenge": "c1", "kind": "contested", "targets": ["juan"]}
        | {"category": "physical", "bid": ["Quick"]},
        {"type": "bid", "actor": "juan", "challenge": "c1", "bid": ["Strong"]},
        {"type": "throw", "actor": "ana", "challenge": "c1", "sign": "rock"},
    ]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "k", "actor": "st", **body}))
        assert past.handle(command).error is None
    later = then + timedelta(minutes=2)
    [owed] = lapses(past.state("k"), later)
    assert SceneService(backend.store, clock=lambda: later).handle(owed).error is None
    tokens = {"st": backend.tokens.issue("k", "st")[0], "juan": backend.tokens.issue("k", "player", "juan")[0]}

    async with running(backend) as live:

        async def terminal(who: str, moves: str) -> str:
            with anyio.fail_after(20):
                done = await anyio.run_process(
                    [sys.executable, "-m", "clients.cli", "join", live.url, "--token", tokens[who]],
                    input=moves.encode(),
                    check=False,
                )
            assert done.returncode == 0, done.stderr.decode()
            return str(done.stdout.decode())

        out = await terminal("st", "view\nchoose 2\nquit\n")
        assert "⏱ Juan did not throw in 1 minute. You were told: choose what happens." in out
        assert "    [1] Throw at random for Juan: choose 1\n    [2] Give Juan 1 minute more: choose 2" in out
        assert "ok (extend_deadline)" in out
        assert "» The Storyteller gives Juan 1 minute more to throw." in out
        out = await terminal("juan", "view\nquit\n")
        assert re.search(r"⏱ You have 1 minute to throw: (1:00|0:\d\d) left\. Then the Storyteller is told\.", out), out
        assert "choose" not in out.split("help")[0]
