"""What ``justicar serve`` prints, run as an operator runs it: with ``--host 0.0.0.0`` it prints
addresses a phone can open (this machine's network addresses, and localhost for itself), never
``http://0.0.0.0:…``; and a restart with ``--load`` prints the same links again, still working,
instead of issuing a fresh set each start (the console's "List links" does not grow): only a link
revoked meanwhile is issued anew."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from benchmarks.live import free_port
from clients.client import Client
from server.backend import open_backend

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo.jsonl"


async def started(db: Path, state: Path, *extra: str) -> tuple[subprocess.Popen[str], list[str], int]:
    """``justicar serve --db DB --load the demo`` with its per-user state in ``state``: the process,
    what it printed up to "Ctrl-C stops the server." and its port."""
    port = free_port()
    argv = [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port), "--load", str(DEMO)]
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    proc = subprocess.Popen(
        [*argv, *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env
    )
    assert proc.stdout is not None
    lines: list[str] = []
    with anyio.fail_after(30):
        while "Ctrl-C stops" not in (line := await anyio.to_thread.run_sync(proc.stdout.readline)):
            assert line, f"serve ended early: {lines}"
            lines.append(line.rstrip("\n"))
    return proc, lines, port


def stopped(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=15) == 0


def links(lines: list[str]) -> dict[str, str]:
    """Who -> link, as printed."""
    return {line.split()[0]: line.split()[-1] for line in lines if "#token=jt_" in line}


async def test_serve_on_every_interface_prints_addresses_a_phone_can_open(tmp_path: Path) -> None:
    proc, lines, port = await started(tmp_path / "j.db", tmp_path / "state", "--host", "0.0.0.0")
    try:
        printed = "\n".join(lines)
        assert "0.0.0.0" not in printed, printed
        assert f"http://localhost:{port}" in printed  # for this machine itself
        from clients.serve import reachable  # here: after what today's main fails

        lan = reachable("0.0.0.0")
        assert lan, "this machine has a network address"
        assert all(not a.startswith("127.") for a in lan)
        for address in lan:  # each network address, said once, where the phones are told to go
            assert printed.count(f"http://{address}:{port} ") + printed.count(f"http://{address}:{port}  ") >= 1
        sam = links(lines)["Sam"]
        assert sam.startswith(f"http://{lan[0]}:{port}/play#token=jt_")
        # the printed address is one the server answers on
        async with Client(f"ws://{lan[0]}:{port}", sam.split("#token=")[1].split("&")[0], reconnect=False) as client:
            await client.subscribe()
            assert client.view["characters"]["sam"]["name"] == "Sam"
    finally:
        if proc.poll() is None:
            stopped(proc)


async def test_a_restart_prints_the_same_links(tmp_path: Path) -> None:
    db, state = tmp_path / "demo.db", tmp_path / "state"
    proc, lines, _ = await started(db, state)
    stopped(proc)
    first = links(lines)
    assert set(first) == {"Storyteller", "Sam", "Favian", "Endora", "Daron", "Michael", "spectators"}
    issued = len(open_backend(str(db)).tokens.list("demo"))
    assert issued == len(first)

    proc, lines, port = await started(db, state)
    try:
        again = links(lines)
        token = {who: link.split("#token=")[1].split("&")[0] for who, link in again.items()}
        assert token == {who: link.split("#token=")[1].split("&")[0] for who, link in first.items()}  # the same keys
        async with Client(f"ws://127.0.0.1:{port}", token["Sam"], reconnect=False) as sam:
            await sam.subscribe()  # and they still open the scene
            assert sam.view["characters"]["sam"]["name"] == "Sam"
    finally:
        stopped(proc)
    backend = open_backend(str(db))
    assert len(backend.tokens.list("demo")) == issued  # "List links" did not grow
    # the database still keeps only hashes; the links are kept in the user's own state folder
    raw = db.read_bytes() + (Path(f"{db}-wal").read_bytes() if Path(f"{db}-wal").exists() else b"")
    assert all(t.encode() not in raw for t in token.values())
    kept = list((state / "justicar" / "links").iterdir())
    assert len(kept) == 1 and kept[0].stat().st_mode & 0o777 == 0o600

    # a link revoked meanwhile is not printed again: that one alone is issued anew
    spectators = backend.tokens.check(token["spectators"])
    assert spectators is not None
    backend.tokens.revoke(spectators.token_id)
    backend.close()
    proc, lines, _ = await started(db, state)
    stopped(proc)
    third = {who: link.split("#token=")[1].split("&")[0] for who, link in links(lines).items()}
    assert third["spectators"] != token["spectators"]
    assert {w: t for w, t in third.items() if w != "spectators"} == {
        w: t for w, t in token.items() if w != "spectators"
    }
    assert len(open_backend(str(db)).tokens.list("demo")) == issued + 1
