"""The deploy guide's nginx, run: Debian's nginx (``make proxy`` installs it) with the very files
``docs/deploy.md`` prints (``docs/nginx/``), in front of three `justicar serve` processes on one
PostgreSQL database. Clients connect through the proxy only, naming their scene in the socket's
URL (``?scene=ID``): each scene's clients land on one process. One process is killed (SIGKILL)
mid-burst: its clients reconnect through the proxy, all to one other process, and catch up
exactly (each client was sent the log, no gap, no duplicate); every acknowledged command is in
the log once; `justicar verify` passes. A ``scene`` parameter decides nothing: empty, long or
another scene's, the token decides the scene.

nginx runs as the tests' own user (as root, its workers too: ``user root``, else they would be
``nobody``) in a temporary directory of its own (its prefix, pid, temporary files and logs there;
``daemon off``; the logs are left there to read), with a configuration that writes only what must differ
from the guide (the listening port on 127.0.0.1, the processes' ports, no TLS) around
``include``s of the guide's files. Skipped only where there is neither nginx nor apt-get."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.async_api import Browser, expect
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.client import Client, page_link, routed
from server.app import Running
from tests.live.faults import ROOT, Served, adjust, cli, free_port, peer, script, serve_argv, served, stopped
from tests.live.test_web import PHONE, browser

pytestmark = pytest.mark.anyio
__all__ = ["browser"]  # the fixture, from the other browser tests

GUIDE = ROOT / "docs" / "nginx"
SCENES = ("a", "b")
SENDERS = 2
"""Storyteller clients per scene, each sending its commands one after another."""
EACH = 40
"""Commands each of them sends."""


def nginx() -> str:
    """Debian's nginx, or a skip (neither it nor apt-get to install it) or a failure saying how."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")  # not on a user's PATH
    if found:
        return found
    if shutil.which("apt-get"):
        pytest.fail("nginx is not installed: `make proxy` (which `make test` runs) installs Debian's nginx")
    pytest.skip("neither nginx nor apt-get here: the proxy test runs Debian's nginx (`make proxy`)")


# -- the guide's configuration, around the test's ports --------------------------------------------


def configure(where: Path, port: int, upstreams: list[int]) -> Path:
    """nginx.conf for a proxy on 127.0.0.1:``port`` in front of ``upstreams``: the guide's files
    included as they are; around them only what a test must have of its own."""
    (where / "temp").mkdir(parents=True, exist_ok=True)
    processes = "".join(f"server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in upstreams)
    (where / "justicar-processes.conf").write_text(processes)  # beside nginx.conf, as the guide says
    user = "user root;\n" if os.geteuid() == 0 else ""  # as root, the workers would otherwise be nobody
    temp = "\n".join(f"    {kind}_temp_path {where / 'temp' / kind};" for kind in ("proxy", "fastcgi", "uwsgi", "scgi"))
    conf = where / "nginx.conf"
    conf.write_text(
        f"""{user}daemon off;
worker_processes 1;
pid {where / "nginx.pid"};
error_log {where / "error.log"} info;
events {{ worker_connections 1024; }}
http {{
    log_format routes '$remote_addr "$request" $status upstream=$upstream_addr';
    access_log {where / "access.log"} routes;
    client_body_temp_path {where / "temp" / "body"};
{temp}
    include {GUIDE / "justicar.conf"};
    server {{
        listen 127.0.0.1:{port};
        include {GUIDE / "justicar-location.conf"};
    }}
}}
""",
        encoding="utf-8",
    )
    return conf


@dataclass
class Proxy:
    port: int
    where: Path

    def url(self, scene: str | None = None) -> str:
        """The socket through the proxy, naming ``scene`` when given."""
        return routed(f"ws://127.0.0.1:{self.port}/", scene) if scene is not None else f"ws://127.0.0.1:{self.port}/"

    def errors(self) -> str:
        return (self.where / "error.log").read_text(encoding="utf-8", errors="replace")


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.asynccontextmanager
async def proxied(servers: list[Served], where: Path) -> AsyncIterator[Proxy]:
    """nginx in front of ``servers`` until the block ends (then stopped, SIGTERM)."""
    binary, port = nginx(), free_port()
    conf = configure(where, port, [server.port for server in servers])
    checked = subprocess.run(
        [binary, "-t", "-p", str(where), "-c", str(conf), "-e", str(where / "error.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    with (where / "nginx.out").open("w") as out:
        proc = subprocess.Popen(
            [binary, "-p", str(where), "-c", str(conf), "-e", str(where / "error.log")], stdout=out, stderr=out
        )
    proxy = Proxy(port, where)
    try:
        with anyio.fail_after(10):
            while not _listening(port):
                assert proc.poll() is None, f"nginx stopped: {proxy.errors()[-2000:]}"
                await anyio.sleep(0.02)
        yield proxy
    finally:
        await stopped(proc)


@contextlib.asynccontextmanager
async def processes(db: str, tmp_path: Path, n: int) -> AsyncIterator[list[Served]]:
    """``n`` `justicar serve` processes on ``db``; the first loads scenes ``a`` and ``b``."""
    load = str(script(tmp_path / "scenes.jsonl", *SCENES))
    async with contextlib.AsyncExitStack() as stack:
        servers = []
        for i in range(n):
            port = free_port()
            argv = serve_argv(db, port, "--load", load) if i == 0 else serve_argv(db, port)
            servers.append(await stack.enter_async_context(served(argv, port, tmp_path / f"server{i}.log")))
        yield servers


# -- what the clients were sent, and the log --------------------------------------------------------


def sent(client: Client) -> list[tuple[int, str, str]]:
    """Every event the client was sent, over all its connections, in order: (seq, command, hash)."""
    assert client.received is not None
    return [
        (event["seq"], event["command"], event["hash"])
        for message in client.received
        if message["type"] == "commit"
        for event in message["events"]
    ]


def logged(db: str, scene: str) -> list[tuple[int, str, str]]:
    done = cli("log", "--db", db, scene)
    assert done.returncode == 0, done.stderr
    return [(e["seq"], e["command"], e["hash"]) for e in map(json.loads, done.stdout.splitlines())]


async def holding(servers: list[Served], token: str) -> dict[int, int]:
    """How many subscribers of a scene each process holds (by pid): a spectator connected straight
    to each (not through the proxy) reads its presence, and is not counted."""
    counts = {}
    for server in servers:
        async with peer(server.url, token, subscribe=True) as probe:
            presence = await probe.wait(lambda m: m["type"] == "presence", "presence")
            counts[server.pid] = sum(p["connections"] for p in presence["connected"]) - 1
    return counts


def tables(proxy: Proxy, tokens: dict[str, dict[str, str]]) -> dict[str, list[Client]]:
    """For each scene, its clients through the proxy (not yet connected), naming the scene: the
    Storyteller's senders first, then Sam, Juan and two spectators."""
    return {
        scene: [
            *(Client(proxy.url(scene), tokens[scene]["Storyteller"], keep=True) for _ in range(SENDERS)),
            Client(proxy.url(scene), tokens[scene]["Sam"], keep=True),
            Client(proxy.url(scene), tokens[scene]["Juan"], keep=True),
            *(Client(proxy.url(scene), tokens[scene]["spectators"], keep=True) for _ in range(2)),
        ]
        for scene in SCENES
    }


async def burst(client: Client, scene: str, prefix: str, results: dict[str, dict[str, Any]]) -> None:
    """Commands one after another, each until it has a result (the client sends it again, with
    its id, after a reconnect)."""
    for i in range(EACH):
        command = adjust(f"{prefix}-{i}")
        results[command["id"]] = {"scene": scene, **await client.send(command)}


class TestTheGuidesProxy:
    async def test_a_table_on_one_process_and_a_kill_9_through_the_proxy(
        self, postgres_db: str, tmp_path: Path
    ) -> None:
        """Each scene's clients, through the proxy, are all on one process. Its Storyteller's
        clients send commands back to back; the process holding scene ``a`` is killed mid-burst.
        Its clients reconnect through the proxy, all to one other process; every command is
        answered, acknowledged once and in the log at its version; every client was sent its
        scene's log exactly; the other processes' clients never reconnected; `verify` passes."""
        async with processes(postgres_db, tmp_path, 3) as servers, proxied(servers, tmp_path / "nginx") as proxy:
            tokens = servers[0].tokens
            people = tables(proxy, tokens)
            async with contextlib.AsyncExitStack() as stack:
                for clients in people.values():
                    for client in clients:
                        await stack.enter_async_context(client)
                        await client.subscribe(since=0)

                held = {scene: await holding(servers, tokens[scene]["spectators"]) for scene in SCENES}
                for scene, counts in held.items():  # every client of the scene on one process
                    assert sorted(counts.values()) == [0, 0, len(people[scene])], (scene, counts)
                holder = {scene: max(counts, key=lambda pid: counts[pid]) for scene, counts in held.items()}
                victim = holder["a"]
                moved = [scene for scene in SCENES if holder[scene] == victim]

                results: dict[str, dict[str, Any]] = {}
                async with anyio.create_task_group() as tg:
                    for scene in SCENES:
                        for n, sender in enumerate(people[scene][:SENDERS]):
                            tg.start_soon(burst, sender, scene, f"{scene}{n}", results)
                    with anyio.fail_after(30):
                        while len(results) < EACH:  # mid-burst
                            await anyio.sleep(0.005)
                    os.kill(victim, signal.SIGKILL)
                    with anyio.fail_after(60):  # every command answered, through another process
                        while len(results) < len(SCENES) * SENDERS * EACH:
                            await anyio.sleep(0.01)
                refused = {cid: r for cid, r in results.items() if not r["ok"]}
                assert not refused, refused

                for scene in SCENES:
                    log = logged(postgres_db, scene)
                    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
                    ids = [command for _, command, _ in log]
                    mine = {cid: r for cid, r in results.items() if r["scene"] == scene}
                    assert len(ids) == len(set(ids)) == 3 + len(mine)  # the script's 3, each command once
                    at = {command: seq for seq, command, _ in log}
                    assert all(at[cid] == r["version"] for cid, r in mine.items())  # acknowledged = logged
                    with anyio.fail_after(20):
                        while any(client.last_seq < len(log) for client in people[scene]):
                            await anyio.sleep(0.01)
                    for client in people[scene]:  # old connection and new together: the log, once
                        assert sent(client) == log, (scene, client.connects)
                        assert client.connects == (2 if scene in moved else 1), (scene, client.connects)

                alive = [server for server in servers if server.pid != victim]
                for scene in moved:  # reconnected through the proxy, all to one other process
                    counts = await holding(alive, tokens[scene]["spectators"])
                    assert sorted(counts.values()) == [0, len(people[scene])], (scene, counts)

            done = cli("verify", "--db", postgres_db)
            assert done.returncode == 0, done.stdout + done.stderr
            assert all(f"{scene}: ok" in done.stdout for scene in SCENES), done.stdout
            serious = [line for line in proxy.errors().splitlines() if re.search(r"\[(emerg|alert|crit)\]", line)]
            assert not serious, serious

    async def test_the_scene_parameter_decides_nothing(self, postgres_db: str, tmp_path: Path) -> None:
        """Through the proxy and straight to a process, a socket naming no scene, an empty one,
        another scene, a long or a strange one is let in by its token alone: the welcome and the
        subscription are its token's scene, whose events it is sent. A page asked with a scene
        is the page. The client library, given no scene, names its token's in the URL it connects
        to again."""
        async with processes(postgres_db, tmp_path, 2) as servers, proxied(servers, tmp_path / "nginx") as proxy:
            token = servers[0].tokens["a"]["Sam"]
            log = logged(postgres_db, "a")
            for base in (proxy.url(), servers[1].url + "/"):
                for query in ("", "?scene=", "?scene=b", "?scene=" + "x" * 4000, "?scene=%00%ff", "?scene=a&scene=b"):
                    async with peer(base + query, token, subscribe=True) as sam:
                        welcome = next(m for m in sam.messages if m["type"] == "welcome")
                        subscribed = next(m for m in sam.messages if m["type"] == "subscribed")
                        assert welcome["scene"] == subscribed["scene"] == "a", (base, query[:20])
                        pushed = [
                            (e["seq"], e["command"], e["hash"])
                            for m in sam.messages
                            if m["type"] == "commit"
                            for e in m["events"]
                        ]
                        assert pushed == log, (base, query[:20])
            async with Client(proxy.url(), token, keep=True) as client:  # it learns its scene from the welcome
                client.drop()
                with anyio.fail_after(10):
                    while client.connects < 2:
                        await anyio.sleep(0.01)
            asked = re.findall(r'"GET (\S+) HTTP/1.1" 101', (proxy.where / "access.log").read_text())
            assert asked[-2:] == ["/", "/?scene=a"], asked[-2:]  # logged as each connection ends
            with pytest.raises(InvalidStatus) as too_long:  # nginx's own limit on a request line
                await connect(proxy.url("x" * 9000))
            assert too_long.value.response.status_code == 414
            async with await anyio.connect_tcp("127.0.0.1", proxy.port) as page:
                await page.send(b"GET /play?scene=b HTTP/1.1\r\nHost: table\r\nConnection: close\r\n\r\n")
                answer = b""
                with contextlib.suppress(anyio.EndOfStream):
                    while True:
                        answer += await page.receive()
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_routed_names_the_scene_in_place_of_any_other() -> None:
    """The client's socket URL names its token's scene, whatever the URL it was given named."""
    assert routed("ws://h:1", "a") == "ws://h:1/?scene=a"
    assert routed("wss://h/?scene=b&x=1", "a b") == "wss://h/?x=1&scene=a+b"


def test_the_guide_prints_the_files_the_proxy_runs() -> None:
    """Each of ``docs/nginx/``'s files is printed in docs/deploy.md, byte for byte, in the block
    after the line that names it; so the guide and this test cannot drift apart."""
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    printed = dict(
        re.findall(r"^`docs/nginx/([\w.-]+)`[^\n]*\n(?:[^\n]+\n)*\n```nginx\n(.*?)^```$", guide, re.M | re.S)
    )
    files = {file.name: file.read_text(encoding="utf-8") for file in GUIDE.iterdir()}
    assert printed == files


async def test_the_page_names_its_scene_in_the_socket_url(
    live: Running, tokens: dict[str, str], browser: Browser
) -> None:
    """A player's page in a fresh browser, opened with a bare token's link, opens its first socket
    naming no scene (nothing has welcomed it yet); every socket after it names its token's scene:
    after a lost connection, and the first of the page opened again (the scene is remembered for
    the token). A link as ``serve`` and the console print it (``#token=…&scene=…``) routes even the
    first socket of a fresh browser."""
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = await context.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    live_status = page.get_by_role("status").filter(has_text="Live")
    await page.goto(f"{live.web}/play#token={tokens['sam']}")
    await expect(live_status).to_be_visible()
    await context.set_offline(True)
    await expect(live_status).to_be_hidden()
    await context.set_offline(False)
    await expect(live_status).to_be_visible()
    await page.reload()
    await expect(live_status).to_be_visible()
    asked = [url.split("/", 3)[3] for url in sockets]  # the path and query
    assert asked == ["", "?scene=s1", "?scene=s1"], sockets
    await context.close()

    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = await context.new_page()
    sockets.clear()
    page.on("websocket", lambda ws: sockets.append(ws.url))
    await page.goto(page_link(live.web, "play", tokens["juan"], "s1"))
    await expect(page.get_by_role("status").filter(has_text="Live")).to_be_visible()
    assert [url.split("/", 3)[3] for url in sockets] == ["?scene=s1"], sockets
    assert page.url == f"{live.web}/play"  # the key and the scene are out of the address bar
    await context.close()
