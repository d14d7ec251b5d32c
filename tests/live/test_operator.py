"""What an operator meets running ``justicar``: one server per file, a taken port said plainly, a
shutdown that answers every command it committed, read-only verbs that write nothing, exports whose
truncation shows, Storyteller tokens for forks and imports, and HTTP paths that never crash."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from benchmarks.live import free_port
from clients.cli import main
from clients.serve import _load
from server.app import Running
from server.backend import open_backend

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo.jsonl"


def justicar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "clients.cli", *args], capture_output=True, text=True, cwd=ROOT)


class Server:
    """``justicar serve`` in a process of its own, with the links it printed."""

    def __init__(self, db: Path, port: int, *extra: str) -> None:
        self.port = port
        self.log = db.with_suffix(".log")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port), *extra],
            stdout=subprocess.PIPE,
            stderr=self.log.open("a"),  # never a pipe nobody reads: a full pipe would stall the server
            text=True,
            cwd=ROOT,
            env={**os.environ},
        )
        self.links: dict[str, str] = {}
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line or "listens on" in line:
                break
            parts = line.split()
            if len(parts) >= 2 and "#token=" in parts[-1]:
                self.links[" ".join(parts[:-1])] = parts[-1].split("#token=")[1].split("&")[0]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "j.db", free_port(), "--load", str(DEMO))
    yield server
    server.stop()


class TestOneServerPerFile:
    def test_a_second_server_on_the_same_file_is_refused(self, demo_server: Server, tmp_path: Path) -> None:
        """The second ``serve`` exits 2 naming the process that serves the file, and writes nothing."""
        before = open_backend(str(tmp_path / "j.db")).store.head("demo")
        done = justicar("serve", "--db", str(tmp_path / "j.db"), "--port", str(free_port()))
        assert done.returncode == 2
        assert f"process {demo_server.proc.pid}" in done.stderr and "already served" in done.stderr
        assert "Traceback" not in done.stderr
        assert open_backend(str(tmp_path / "j.db")).store.head("demo") == before

    @pytest.mark.parametrize("link", ["symlink", "hard link"])
    def test_another_name_for_the_same_file_is_refused_too(
        self, demo_server: Server, tmp_path: Path, link: str
    ) -> None:
        """A symlink or a hard link to the served file is the same database: refused, naming the
        process that serves it."""
        other = tmp_path / "elsewhere" / "other.db"
        other.parent.mkdir()
        (os.symlink if link == "symlink" else os.link)(tmp_path / "j.db", other)
        done = justicar("serve", "--db", str(other), "--port", str(free_port()))
        assert done.returncode == 2, done.stderr
        assert f"process {demo_server.proc.pid}" in done.stderr and "already served" in done.stderr

    def test_the_lock_is_the_files_own(self, demo_server: Server, tmp_path: Path) -> None:
        """The writer lock is on the database file itself: with every lock-like file of ours gone
        (the note beside it, anything in the temporary folder a cleaner empties), a hard link to the
        served file is still refused."""
        served = tmp_path / "j.db"
        found = os.stat(served)
        for stray in [
            Path(f"{served}.lock"),
            Path(tempfile.gettempdir()) / f"justicar-{found.st_dev}-{found.st_ino}.lock",
        ]:
            stray.unlink(missing_ok=True)
        other = tmp_path / "elsewhere" / "other.db"
        other.parent.mkdir()
        os.link(served, other)
        done = justicar("serve", "--db", str(other), "--port", str(free_port()))
        assert done.returncode == 2, done.stderr
        assert f"process {demo_server.proc.pid}" in done.stderr and "already served" in done.stderr

    def test_play_into_a_served_file_is_refused(self, demo_server: Server, tmp_path: Path) -> None:
        """Commands go through the server that holds the file, not behind its back."""
        done = justicar("play", str(DEMO), "--db", str(tmp_path / "j.db"))
        assert done.returncode == 2 and "served by" in done.stderr

    def test_a_taken_port_is_said_plainly(self, demo_server: Server, tmp_path: Path) -> None:
        """Two lines at most, exit 2, and no database created for nothing."""
        done = justicar("serve", "--db", str(tmp_path / "other.db"), "--port", str(demo_server.port))
        assert done.returncode == 2 and "port is taken" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "other.db").exists()

    def test_the_lock_ends_with_the_process(self, tmp_path: Path) -> None:
        """A server killed outright leaves a file the next server can serve."""
        first = Server(tmp_path / "j.db", free_port(), "--load", str(DEMO))
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait()
        second = Server(tmp_path / "j.db", free_port())
        try:
            assert second.proc.poll() is None
        finally:
            second.stop()


class TestShutdown:
    @pytest.mark.anyio
    async def test_sigterm_during_a_burst_answers_every_command_it_committed(
        self, demo_server: Server, tmp_path: Path
    ) -> None:
        """SIGTERM while clients send: the server stops taking commands at once, answers every
        command it committed, and exits 0 within about two seconds."""
        st_token = demo_server.links["Storyteller"]
        answered: dict[str, dict[str, object]] = {}

        async def burst(n: int) -> None:
            async with connect(demo_server.url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": st_token}))
                await ws.recv()

                async def read() -> None:
                    try:
                        async for frame in ws:
                            message = json.loads(frame)
                            if message["type"] == "result":
                                answered[message["id"]] = message
                    except ConnectionClosed:
                        pass

                async with anyio.create_task_group() as tg:
                    tg.start_soon(read)
                    try:
                        for i in range(10_000):
                            body = {
                                "type": "adjust",
                                "id": f"b{n}-{i}",
                                "character": "sam",
                                "changes": {"willpower": 1},
                            }
                            await ws.send(json.dumps({**body, "reason": "burst"}))
                            await anyio.sleep(0.004)
                    except ConnectionClosed:
                        pass

        async with anyio.create_task_group() as tg:
            for n in range(3):
                tg.start_soon(burst, n)
            await anyio.sleep(1.0)
            demo_server.proc.send_signal(signal.SIGTERM)
            stopped = time.monotonic()
            code = await anyio.to_thread.run_sync(lambda: demo_server.proc.wait(timeout=10))
            took = time.monotonic() - stopped
        assert code == 0 and took < 2.5
        logged = {
            json.loads(line)["command"]
            for line in justicar("log", "--db", str(tmp_path / "j.db"), "demo").stdout.splitlines()
        }
        committed = {cid for cid in logged if cid.startswith("b")}
        ok = {cid for cid, message in answered.items() if message["ok"]}
        assert committed and committed == ok  # every committed command answered, every ok one committed
        refused = {message["error"]["code"] for message in answered.values() if not message["ok"]}  # type: ignore[index]
        assert refused <= {"shutting_down", "rate_limited"}

    def test_sigterm_does_not_wait_for_a_client_that_stopped_answering(self, demo_server: Server) -> None:
        """A client that upgraded to a websocket and then went silent (a frozen phone, a stopped
        process) never answers the closing handshake: the server exits within about two seconds
        anyway, not after the handshake's own ten."""
        with socket.create_connection(("127.0.0.1", demo_server.port)) as frozen:
            frozen.sendall(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            )
            assert frozen.recv(4096).startswith(b"HTTP/1.1 101")  # upgraded; it reads nothing more
            demo_server.proc.send_signal(signal.SIGTERM)
            stopped = time.monotonic()
            code = demo_server.proc.wait(timeout=15)
            took = time.monotonic() - stopped
        assert code == 0 and took < 2.5, took


class TestFilesAndLinks:
    def test_make_run_keeps_what_was_played(self, tmp_path: Path) -> None:
        """Loading the demo again repeats none of its commands and keeps later play."""
        backend = open_backend(str(tmp_path / "j.db"))
        _load(backend, str(DEMO))
        head = backend.store.head("demo")[0]
        extra = tmp_path / "extra.jsonl"
        later = {"id": "later", "scene": "demo", "actor": "st", "type": "adjust", "character": "sam"}
        extra.write_text(json.dumps({**later, "changes": {"willpower": 1}, "reason": "played after"}) + "\n")
        _load(backend, str(extra))
        _load(backend, str(DEMO))
        assert backend.store.head("demo")[0] == head + 1

    def test_read_only_verbs_write_nothing(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """log, verify, replay, export and audit leave the directory exactly as they found it."""
        db = tmp_path / "j.db"
        assert main(["play", str(DEMO), "--db", str(db)]) == 0
        before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
        os.chmod(db, 0o444)
        for verb in (["log"], ["verify"], ["replay"], ["export"], ["audit"]):
            scene = [] if verb == ["verify"] else ["demo"]
            assert main([*verb, "--db", str(db), *scene]) == 0, verb
        capsys.readouterr()
        assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before

    def test_a_copy_whose_log_cannot_be_read_says_why(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A copy with its ``-wal`` but where SQLite cannot create the ``-shm`` beside it (a read-only
        directory; here a link into nowhere) is named as such, not called "not a Justicar database"."""
        db = tmp_path / "j.db"
        writer = sqlite3.connect(db)
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("CREATE TABLE held (x)")
        writer.commit()
        copy = tmp_path / "copy"
        copy.mkdir()
        shutil.copy(db, copy / "j.db")
        shutil.copy(f"{db}-wal", copy / "j.db-wal")
        writer.close()
        (copy / "j.db-shm").symlink_to(tmp_path / "nowhere" / "shm")
        assert main(["verify", "--db", str(copy / "j.db")]) == 2
        err = capsys.readouterr().err
        assert "write-ahead log" in err and "copy the database with its -wal file" in err, err
        assert "not a Justicar database" not in err

    def test_a_truncated_export_is_refused(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """An export ends with its count and head; a file cut short, or not the head expected, is
        refused and nothing written."""
        db, other = str(tmp_path / "j.db"), str(tmp_path / "other.db")
        assert main(["play", str(DEMO), "--db", db]) == 0
        out = tmp_path / "demo.jsonl"
        assert main(["export", "--db", db, "demo", "-o", str(out)]) == 0
        lines = out.read_text().splitlines(keepends=True)
        head = json.loads(lines[-1])["end"]["head"]
        cut = tmp_path / "cut.jsonl"
        cut.write_text("".join(lines[:30]))
        capsys.readouterr()
        assert main(["import", "--db", other, str(cut)]) == 1
        assert "truncated" in capsys.readouterr().err
        assert main(["import", "--db", other, str(out), "--expect", "0" * 64]) == 1
        assert "not the expected" in capsys.readouterr().err
        assert open_backend(other).store.scenes() == []
        assert main(["import", "--db", other, str(out), "--expect", head]) == 0

    def test_a_fork_gets_a_storyteller_token(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A what-if forked on the command line can be run: ``scene invite --st`` makes its token."""
        db = str(tmp_path / "j.db")
        assert main(["play", str(DEMO), "--db", db]) == 0
        assert main(["fork", "--db", db, "demo", "--at", "20", "--as", "what-if"]) == 0
        capsys.readouterr()
        assert main(["scene", "invite", "--db", db, "what-if", "--st", "--expires", "2h"]) == 0
        out = capsys.readouterr().out
        token = out.split("shown once): ")[1].split()[0]
        grant = open_backend(db).tokens.check(token)
        assert grant is not None and grant.role == "st" and grant.scene == "what-if" and grant.expires_at
        assert "/st#token=" in out


@pytest.mark.anyio
async def test_bad_http_paths_never_crash(live: Running) -> None:
    """A NUL byte or a path the file system cannot hold is a 400 or 404, never a 500."""
    for path in ("/static/%00x", "/static/a\x00b", "/" + "a" * 5000, "/static/../../etc/passwd"):
        with socket.create_connection(("127.0.0.1", live.port)) as raw:
            raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1"))
            status = await anyio.to_thread.run_sync(lambda r=raw: r.recv(200))  # type: ignore[misc]
        assert status.split()[1] in (b"400", b"404"), (path, status[:40])
