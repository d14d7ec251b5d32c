"""``justicar serve`` and ``justicar scene`` as an operator runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from benchmarks.live import free_port
from clients.cli import main
from clients.client import Client
from domain.evolve import fold
from server.app import Running
from server.backend import open_backend

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def test_scene_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """scene new prints a scene id and an ST token; invite, tokens and revoke manage access; the
    database keeps only hashes."""
    db = str(tmp_path / "j.db")
    assert main(["scene", "new", "--db", db, "--ruleset", "lotn", "--title", "Alley", "--scene", "alley"]) == 0
    out = capsys.readouterr().out
    assert "scene alley: lotn, “Alley”" in out
    st_token = out.split("shown once): ")[1].split()[0]
    assert main(["scene", "new", "--db", db, "--scene", "alley"]) == 1  # already open
    assert main(["scene", "invite", "--db", db, "alley", "--character", "sam"]) == 1  # no such character
    assert "no character 'sam'" in capsys.readouterr().err
    assert main(["scene", "invite", "--db", db, "alley", "--spectator"]) == 0
    spectator = capsys.readouterr().out.split("shown once): ")[1].split()[0]
    assert main(["scene", "tokens", "--db", db, "alley"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[1] for line in listing) == ["spectator", "st"]
    token_id = next(line.split()[0] for line in listing if "spectator" in line)
    assert main(["scene", "revoke", "--db", db, token_id]) == 0
    backend = open_backend(db)
    assert backend.tokens.check(spectator) is None and backend.tokens.check(st_token) is not None
    raw = Path(db).read_bytes() + (Path(db + "-wal").read_bytes() if Path(db + "-wal").exists() else b"")
    assert st_token.encode() not in raw and spectator.encode() not in raw


async def test_create_scene_over_the_socket(live: Running, tokens: dict[str, str]) -> None:
    """An ST creates a scene over the socket and gets its Storyteller token."""
    async with Client(live.url, tokens["st"]) as st:
        created = await st.request({"type": "create_scene", "ruleset": "lotn", "title": "Docks"}, "scene_created")
        assert created["grant"]["role"] == "st" and created["scene"].startswith("s-")
    async with Client(live.url, created["token"]) as new_st:
        await new_st.subscribe()
        assert new_st.view["title"] == "Docks" and new_st.view["ruleset"] == "lotn"
    async with Client(live.url, tokens["sam"]) as sam:
        refused = await sam.request({"type": "create_scene", "ruleset": "lotn"}, "error")
        assert refused["code"] == "forbidden"


async def test_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    """The real command: --load prints tokens, logs are JSON lines, SIGTERM says goodbye, exits 0,
    and what was acknowledged is in the database."""
    db = tmp_path / "j.db"
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clients.cli",
            "serve",
            "--db",
            str(db),
            "--port",
            str(port),
            "--load",
            str(ROOT / "examples" / "demo.jsonl"),
            "--log-json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ},
    )
    try:
        assert proc.stdout is not None
        lines = []
        with anyio.fail_after(20):
            while "listens on" not in (line := await anyio.to_thread.run_sync(proc.stdout.readline)):
                lines.append(line)
        sam_link = next(line.split()[1] for line in lines if line.strip().startswith("Sam "))
        assert sam_link.startswith(f"http://127.0.0.1:{port}/play#token=jt_")
        sam_token = sam_link.split("#token=")[1].split("&")[0]
        async with Client(f"ws://127.0.0.1:{port}", sam_token, reconnect=False, keep=True) as sam:
            await sam.subscribe()
            result = await sam.send(
                {
                    "type": "declare",
                    "challenge": "late",
                    "kind": "contested",
                    "targets": ["juan"],
                    "category": "physical",
                    "bid": ["Brawny"],
                }
            )
            assert result["ok"]
            proc.send_signal(signal.SIGTERM)
            with anyio.fail_after(10):
                while sam.closed_by_server is None:
                    await anyio.sleep(0.02)
            assert sam.received is not None and sam.received[-1]["type"] == "goodbye"
            assert sam.closed_by_server[0] == 1001
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stderr is not None
    logs = [json.loads(line) for line in proc.stderr.read().splitlines() if line.startswith("{")]
    commands = [entry for entry in logs if entry["event"] == "command"]
    assert commands and {"scene", "actor", "verb", "outcome", "latency_ms"} <= commands[0].keys()
    state = fold(open_backend(str(db)).store.read("demo"))
    assert state.version == result["version"] and "late" in state.challenges


async def test_a_running_server_hears_what_the_admin_commands_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``justicar serve`` holds its file's writer lock, yet the admin commands still write to the
    file beside it (``game move`` sends a character of the night into a scene): the server hears
    the commit (``server.notify.Poller``) and pushes it to the scene's subscribers at once, without
    waiting for a command of its own to find the log moved on."""
    db = str(tmp_path / "night.db")
    sheet = tmp_path / "sam.json"
    sheet.write_text(json.dumps({"id": "sam", "name": "Sam", "traits": {"physical": {"Brawny": 2}}}))
    assert main(["game", "new", "--db", db, "--game", "fri", "--title", "Friday", str(sheet)]) == 0
    assert main(["scene", "new", "--db", db, "--scene", "ely", "--title", "Elysium", "--game", "fri"]) == 0
    capsys.readouterr()  # its link is the night's console; a key of the scene's own, for its socket:
    assert main(["scene", "invite", "--db", db, "ely", "--st"]) == 0
    st_token = capsys.readouterr().out.split("#token=")[-1].split()[0].split("&")[0]
    port = free_port()
    argv = [sys.executable, "-m", "clients.cli", "serve", "--db", db, "--port", str(port)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        with anyio.fail_after(20):
            while "listens on" not in await anyio.to_thread.run_sync(proc.stdout.readline):
                pass
        async with Client(f"ws://127.0.0.1:{port}", st_token, reconnect=False, keep=True) as st:
            await st.subscribe()
            assert "sam" not in st.view["characters"]
            moved = await anyio.to_thread.run_sync(main, ["game", "move", "--db", db, "fri", "sam", "ely"])
            assert moved == 0 and "Sam is in Elysium now" in capsys.readouterr().out
            with anyio.fail_after(5):
                while "sam" not in st.view["characters"]:
                    await anyio.sleep(0.02)
            assert st.view["characters"]["sam"]["name"] == "Sam"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
