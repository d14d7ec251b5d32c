"""Live server benchmarks: latency to the last subscriber, throughput, memory per idle scene.

    .venv/bin/python -m benchmarks.live latency [--rounds 300] [--summaries]
    .venv/bin/python -m benchmarks.live throughput [--seconds 3]
    .venv/bin/python -m benchmarks.live memory [--scenes 100]

The server runs as its own process (``justicar serve`` on a database in .justicar/bench), the
clients in this one, all on loopback. Latency is from sending a command to the moment the last
subscriber has received its event, measured against a bare ``websockets`` server (compression
off, as ours) that ``broadcast``s a frame of the same size to the same number of clients when
asked, in the same run, through the same client code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from benchmarks.common import ROOT, cleanup, header, workdir
from domain.commands import parse_command
from server.backend import open_backend
from server.service import SceneService

BARE_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve, broadcast
clients = set()
async def handler(ws):
    clients.add(ws)
    try:
        async for message in ws:
            if message.startswith("go:"):
                size = int(message[3:])
                broadcast([c for c in clients if c is not ws], "x" * size)
                await ws.send("sent")
    finally:
        clients.discard(ws)
async def main():
    async with serve(handler, "127.0.0.1", int(sys.argv[1]), compression=None, max_size=2**22):
        print("ready", flush=True)
        await asyncio.Future()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seed_scenes(db: Path, scenes: int) -> dict[str, dict[str, str]]:
    """``scenes`` copies of the demo scene, each with an ST and a spectator token."""
    backend = open_backend(str(db))
    service = SceneService(backend.store, honour_at=True)
    lines = [line for line in (ROOT / "examples" / "demo.jsonl").read_text().splitlines() if line.startswith("{")]
    tokens = {}
    for n in range(scenes):
        scene = f"bench{n}"
        for line in lines:
            body = json.loads(line)
            service.handle(parse_command(json.dumps({**body, "scene": scene})))
        tokens[scene] = {
            "st": backend.tokens.issue(scene, "st")[0],
            "spectator": backend.tokens.issue(scene, "spectator")[0],
        }
    backend.close()
    return tokens


class Served:
    """A server process, stopped (with SIGTERM) on exit."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)

    def wait_ready(self, word: str) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if word in line:
                return
        raise RuntimeError("the server did not start")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def justicar(db: Path, port: int) -> Served:
    served = Served(
        [
            sys.executable,
            "-m",
            "clients.cli",
            "serve",
            "--db",
            str(db),
            "--port",
            str(port),
            "--rate",
            "1000000",
            "--burst",
            "1000000",
            "--log-json",
        ]
    )
    served.wait_ready("listens on")
    return served


async def hello(url: str, token: str, subscribe: bool, summaries: bool = False) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=2**24, max_queue=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    await ws.recv()
    if subscribe:
        await ws.send(json.dumps({"type": "subscribe", "since": 10**9, "summaries": summaries}))
        while json.loads(await ws.recv())["type"] != "subscribed":
            pass
    return ws


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def receive_until(ws: ClientConnection, match: Callable[[str], bool]) -> float:
    while True:
        frame = await ws.recv(decode=True)
        if match(str(frame)):
            return time.perf_counter()


async def measure(
    subscribers: list[ClientConnection],
    trigger: Callable[[], Awaitable[float]],
    match: Callable[[str], bool],
    rounds: int,
) -> list[float]:
    samples = []
    for _ in range(rounds):
        waiting = [asyncio.ensure_future(receive_until(ws, match)) for ws in subscribers]
        started = await trigger()
        last = max(await asyncio.gather(*waiting))
        samples.append((last - started) * 1000)
    return samples


async def latency(args: argparse.Namespace, where: Path) -> None:
    header(f"latency: command to the last subscriber's receipt ({args.rounds} rounds each)")
    db = where / "live.db"
    tokens = seed_scenes(db, 1)["bench0"]
    port, bare_port = free_port(), free_port()
    ours = justicar(db, port)
    bare = Served([sys.executable, "-c", BARE_SERVER, str(bare_port)])
    bare.wait_ready("ready")
    print(f"{'subscribers':>11} | {'justicar p50':>12} {'p99':>8} | {'bare broadcast p50':>18} {'p99':>8} | p99 ratio")
    try:
        st = await hello(f"ws://127.0.0.1:{port}", tokens["st"], subscribe=False)
        sender = await connect(f"ws://127.0.0.1:{bare_port}", compression=None)
        n = 0
        for count in (1, 10, 50, 200):
            subs = [
                await hello(f"ws://127.0.0.1:{port}", tokens["spectator"], subscribe=True, summaries=args.summaries)
                for _ in range(count)
            ]
            size = 0

            async def command() -> float:
                nonlocal n
                n += 1
                started = time.perf_counter()
                await st.send(
                    json.dumps(
                        {
                            "type": "adjust",
                            "id": f"b{n}",
                            "character": "sam",
                            "changes": {"willpower": 1},
                            "reason": "bench",
                        }
                    )
                )
                await st.recv()  # the result
                return started

            def is_event(frame: str) -> bool:
                nonlocal size
                if frame.startswith('{"type":"commit"'):
                    size = len(frame)
                    return True
                return False

            for ws in subs:  # settle presence messages
                while True:
                    try:
                        await asyncio.wait_for(ws.recv(), 0.05)
                    except TimeoutError:
                        break
            await measure(subs, command, is_event, 20)  # warm up: load the scene, fill caches
            ours_ms = await measure(subs, command, is_event, args.rounds)
            for ws in subs:
                await ws.close()
            await asyncio.sleep(0.2)

            bare_subs = [await connect(f"ws://127.0.0.1:{bare_port}", compression=None) for _ in range(count)]

            async def go(size: int = size) -> float:
                started = time.perf_counter()
                await sender.send(f"go:{size}")
                return started

            await measure(bare_subs, go, lambda frame: frame.startswith("x"), 20)
            bare_ms = await measure(bare_subs, go, lambda frame: frame.startswith("x"), args.rounds)
            while True:  # drain the "sent" acknowledgements
                try:
                    await asyncio.wait_for(sender.recv(), 0.05)
                except TimeoutError:
                    break
            for ws in bare_subs:
                await ws.close()
            (o50, o99), (b50, b99) = percentiles(ours_ms), percentiles(bare_ms)
            print(
                f"{count:>11} | {o50:>9.2f} ms {o99:>5.2f} ms | {b50:>15.2f} ms {b99:>5.2f} ms | {o99 / b99:>8.2f}x"
                f"   (commit frame {size} B)"
            )
        await st.close()
    finally:
        ours.stop()
        bare.stop()


async def throughput(args: argparse.Namespace, where: Path) -> None:
    header(f"throughput: commands/s ({args.seconds:g} s each)")
    db = where / "live.db"
    tokens = seed_scenes(db, 100)
    port = free_port()
    ours = justicar(db, port)
    url = f"ws://127.0.0.1:{port}"
    try:

        async def run(scenes: list[str], senders: int, watchers: int) -> tuple[int, float]:
            conns = []
            for scene in scenes:
                subs = [await hello(url, tokens[scene]["spectator"], subscribe=True) for _ in range(watchers)]
                conns += subs
            drains = [asyncio.ensure_future(drain(ws)) for ws in conns]
            done = 0
            deadline = time.perf_counter() + args.seconds

            async def send_loop(scene: str, k: int) -> None:
                nonlocal done
                ws = await hello(url, tokens[scene]["st"], subscribe=False)
                n = 0
                while time.perf_counter() < deadline:
                    n += 1
                    await ws.send(
                        json.dumps(
                            {
                                "type": "adjust",
                                "id": f"t{k}-{n}-{time.time_ns()}",
                                "character": "sam",
                                "changes": {"willpower": 1},
                                "reason": "t",
                            }
                        )
                    )
                    await ws.recv()
                    done += 1
                await ws.close()

            started = time.perf_counter()
            await asyncio.gather(*(send_loop(scene, k) for scene in scenes for k in range(senders)))
            elapsed = time.perf_counter() - started
            for ws in conns:
                await ws.close()
            for task in drains:
                task.cancel()
            return done, elapsed

        for label, scenes, senders, watchers in (
            ("one scene, 4 senders, 10 subscribers", ["bench0"], 4, 10),
            ("100 scenes, 5 clients each (1 sender, 4 subscribers)", [f"bench{n}" for n in range(100)], 1, 4),
        ):
            done, elapsed = await run(scenes, senders=senders, watchers=watchers)
            print(f"{label:<54} {done:>7} commands in {elapsed:5.2f} s = {done / elapsed:>7,.0f}/s")
    finally:
        ours.stop()


async def drain(ws: ClientConnection) -> None:
    try:
        async for _ in ws:
            pass
    except Exception:
        return


async def memory(args: argparse.Namespace, where: Path) -> None:
    header(f"memory: idle loaded scenes ({args.scenes} copies of the demo scene)")
    db = where / "live.db"
    tokens = seed_scenes(db, args.scenes)
    log_bytes = sum(len(line) for line in (ROOT / "examples" / "demo.jsonl").read_text().splitlines())
    port = free_port()
    ours = justicar(db, port)
    url = f"ws://127.0.0.1:{port}"
    try:
        warm = await hello(url, tokens["bench0"]["spectator"], subscribe=True)
        await warm.close()
        await asyncio.sleep(0.5)
        before = ours.rss_kib()
        for n in range(1, args.scenes):
            ws = await hello(url, tokens[f"bench{n}"]["spectator"], subscribe=True)  # loads the scene
            await ws.close()
        await asyncio.sleep(0.5)
        after = ours.rss_kib()
        per_scene = (after - before) / (args.scenes - 1)
        print(f"server RSS {before:,} KiB with 1 scene loaded, {after:,} KiB with {args.scenes}")
        print(f"{'memory per idle loaded scene (61 events, 6 characters, 4 challenges)':<70} {per_scene:8.1f} KiB")
        print(f"{'raw baseline: the scene script as JSON text':<70} {log_bytes / 1024:8.1f} KiB")
    finally:
        ours.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["latency", "throughput", "memory", "all"])
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--scenes", type=int, default=100)
    p.add_argument("--summaries", action="store_true", help="subscribers ask for each event in words, as the pages do")
    p.add_argument("--dir")
    args = p.parse_args()
    where = workdir(args)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    try:
        for what in ["latency", "throughput", "memory"] if args.what == "all" else [args.what]:
            asyncio.run({"latency": latency, "throughput": throughput, "memory": memory}[what](args, where))
    finally:
        cleanup(where)


if __name__ == "__main__":
    main()
