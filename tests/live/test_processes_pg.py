"""Three `justicar serve` processes on one PostgreSQL database (a fresh one per test,
tests/postgres.py): the Storyteller, the players and the spectators connected to different
processes, commands on one scene from all three at once. Every subscriber receives the same events
in the same order (commits announced with NOTIFY, the events read from the table); nothing
acknowledged is lost; a race on a rule ends in its refusal; `justicar verify` passes. Then one
process is killed (SIGKILL) during a burst: its clients reconnect to another, catch up from the
last event they had, and every acknowledged command is in the log; a command left unanswered was
either committed (sending it again answers it from the log) or never happened (it applies once)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from tests.live.faults import Peer, cli, free_port, peer, serve_argv, served
from tests.live.test_processes import (
    CONNECTIONS,
    EACH,
    SCENE,
    Tally,
    acknowledged_in_log,
    burst,
    bursts,
    caught_up,
    connected,
    events_sent,
    logged,
    pushed,
    redacted_for,
    refused_hello,
    same_order,
    table_script,
    willpower,
)

pytestmark = pytest.mark.anyio


@contextlib.asynccontextmanager
async def three(url: str, tmp_path: Path) -> AsyncIterator[list[tuple[str, dict[str, str], int]]]:
    """Three processes on ``url``: each one's websocket URL, the tokens the first printed, its pid."""
    load = str(table_script(tmp_path / "table.jsonl"))
    ports = [free_port() for _ in range(3)]
    argvs = [serve_argv(url, ports[0], "--load", load), *(serve_argv(url, port) for port in ports[1:])]
    async with contextlib.AsyncExitStack() as stack:
        servers = []
        for n, (argv, port) in enumerate(zip(argvs, ports, strict=True)):
            servers.append(await stack.enter_async_context(served(argv, port, tmp_path / f"server{n}.log")))
        tokens = servers[0].tokens[SCENE]
        yield [(server.url, tokens, server.pid) for server in servers]


async def resubscribe(url: str, token: str, old: Peer, stack: contextlib.AsyncExitStack) -> Peer:
    """A client of a process that died, connected to another: it subscribes from the last event it
    had, so its old and new connections together were sent each event once."""
    seen = pushed(old)
    since = seen[-1][0] if seen else 0
    again = await stack.enter_async_context(peer(url, token))
    mark = len(again.messages)
    await again.send({"type": "subscribe", "since": since})
    answer = await again.wait(lambda m: m["type"] in ("subscribed", "error"), "the subscription", after=mark)
    assert answer["type"] == "subscribed", answer
    return again


class TestThreeProcesses:
    async def test_same_events_same_order_nothing_lost(self, postgres_db: str, tmp_path: Path) -> None:
        """Storyteller connections on all three processes give Juan Willpower at once, then take
        more than they gave: every give accepted, exactly as many takes, the rest refused by the
        rule. The Storyteller on one process, Sam on another, Juan on the third, spectators on each
        are all sent the whole log in its order."""
        async with three(postgres_db, tmp_path) as (a, b, c):
            tokens = a[1]
            async with (
                connected(a[0], tokens["Storyteller"], CONNECTIONS) as sts_a,
                connected(b[0], tokens["Storyteller"], CONNECTIONS) as sts_b,
                connected(c[0], tokens["Storyteller"], CONNECTIONS) as sts_c,
                peer(b[0], tokens["Sam"], subscribe=True) as sam,
                peer(c[0], tokens["Juan"], subscribe=True) as juan,
                connected(a[0], tokens["spectators"], 1) as spectators_a,
                connected(b[0], tokens["spectators"], 1) as spectators_b,
                connected(c[0], tokens["spectators"], 1) as spectators_c,
            ):
                tally = Tally()
                writers = [x for trio in zip(sts_a, sts_b, sts_c, strict=True) for x in trio]
                await bursts(writers, "give", 1, tally)
                given = tally.accepted("give")
                assert len(given) == 3 * CONNECTIONS * EACH, tally.refused("give")

                await bursts(writers, "take", -1, tally, each=EACH + 5)
                taken, refused = tally.accepted("take"), tally.refused("take")
                assert len(taken) == len(given)
                assert {r["error"]["code"] for r in refused.values()} == {"bad_adjustment"}

                last = await sts_a[0].command(willpower("one-more", 1))  # nothing to race: only NOTIFY
                await caught_up([sam, juan], last["version"])

                log = logged(["--db", postgres_db])
                subscribers = [*sts_a, *sts_b, *sts_c, sam, juan, *spectators_a, *spectators_b, *spectators_c]
                await caught_up(subscribers, len(log))
                same_order(subscribers, log)
                spectators = [*spectators_a, *spectators_b, *spectators_c]
                viewers = [("sam", [sam]), ("juan", [juan]), ("spectator", spectators)]
                for viewer, connections in viewers:  # Juan's Willpower blanked for all but him and the ST
                    seen = redacted_for(["--db", postgres_db], viewer)
                    assert all(events_sent(connection) == seen for connection in connections), viewer
                acknowledged_in_log(tally, log)
                assert not tally.unanswered

            done = cli("verify", "--db", postgres_db)
            assert done.returncode == 0 and f"{SCENE}: ok" in done.stdout, done.stdout + done.stderr

    async def test_kill_9_of_one_during_a_burst(self, postgres_db: str, tmp_path: Path) -> None:
        """The third process is killed mid-burst. Its Storyteller connections and Juan reconnect
        to the first and catch up from the last event they had; every acknowledged command is in
        the log at its version; each command left unanswered, sent again, is answered from the log
        if it was committed and applied once if not; then every client, old connection and new
        together, was sent the whole log once, in order; `justicar verify` passes."""
        async with three(postgres_db, tmp_path) as (a, b, c):
            tokens = a[1]
            tally = Tally()
            async with (
                connected(a[0], tokens["Storyteller"], 2) as sts_a,
                connected(b[0], tokens["Storyteller"], 2) as sts_b,
                connected(c[0], tokens["Storyteller"], 2) as sts_c,
                peer(b[0], tokens["Sam"], subscribe=True) as sam,
                peer(c[0], tokens["Juan"], subscribe=True) as juan,
                contextlib.AsyncExitStack() as stack,  # the reconnections: entered last, left first
            ):
                async with anyio.create_task_group() as tg:
                    for n, connection in enumerate([*sts_a, *sts_b, *sts_c]):
                        tg.start_soon(burst, connection, [f"k{n}-{i}" for i in range(40)], 1, tally)
                    with anyio.fail_after(20):
                        while len(tally.results) < 60:
                            await anyio.sleep(0.005)
                    os.kill(c[2], signal.SIGKILL)
                assert len(tally.unanswered) <= 2  # one at most per connection of the dead process
                assert all(r["ok"] for r in tally.results.values()), tally.refused("k")

                moved = [await resubscribe(a[0], tokens["Storyteller"], old, stack) for old in sts_c]
                juan_again = await resubscribe(a[0], tokens["Juan"], juan, stack)

                before = logged(["--db", postgres_db])
                acknowledged_in_log(tally, before)
                committed = {command: seq for seq, command, _ in before}
                head = len(before)
                for body in tally.unanswered:
                    result = await moved[0].command(body)
                    assert result["ok"], result
                    if body["id"] in committed:
                        assert result["version"] == committed[body["id"]], result
                    else:
                        head += 1
                        assert result["version"] == head, result

                final = logged(["--db", postgres_db])
                assert len(final) == head  # each unanswered command once, whatever happened to it
                everyone = [*sts_a, *sts_b, sam, *moved, juan_again]
                await caught_up(everyone, len(final))
                same_order([*sts_a, *sts_b, sam], final)
                for old, new in [*zip(sts_c, moved, strict=True), (juan, juan_again)]:
                    assert pushed(old) + pushed(new) == final

            done = cli("verify", "--db", postgres_db)
            assert done.returncode == 0 and f"{SCENE}: ok" in done.stdout, done.stdout + done.stderr

    async def test_a_token_revoked_through_one_is_refused_by_the_others(self, postgres_db: str, tmp_path: Path) -> None:
        """Sam, connected to the second and third processes, is cut off (4003) on both when the
        Storyteller revokes his token through the first, and none of the three lets him in again."""
        async with three(postgres_db, tmp_path) as (a, b, c):
            tokens = a[1]
            async with (
                peer(b[0], tokens["Sam"], subscribe=True) as sam_b,
                peer(c[0], tokens["Sam"], subscribe=True) as sam_c,
                peer(a[0], tokens["Storyteller"]) as st,
            ):
                welcome = next(m for m in sam_b.messages if m["type"] == "welcome")
                await st.send({"type": "revoke", "token_id": welcome["token_id"]})
                await st.wait(lambda m: m["type"] == "revoked", "revoked")
                with anyio.fail_after(10):
                    await sam_b.closed.wait()
                    await sam_c.closed.wait()
                assert sam_b.close_code == sam_c.close_code == 4003
            for url, _, _ in (a, b, c):
                assert await refused_hello(url, tokens["Sam"])
