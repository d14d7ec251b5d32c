"""``justicar serve``: the live server on the embedded SQLite default."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import socket
import sys
from typing import TextIO

import anyio
import structlog

from clients.offline import play_script
from clients.stores import add_snapshot_key
from server.app import Running, listen, serve_forever
from server.backend import Backend, DatabaseBusy, open_backend
from server.logs import configure
from server.service import SceneService
from server.snapshot_keys import KeyFileError, read_keys
from server.wire import BURST, RATE, Limits

log = structlog.get_logger("justicar.serve")


def _load(backend: Backend, script: str) -> list[str]:
    """Play a script into the database (idempotent: commands already there are not repeated)."""
    service = SceneService(backend.store, honour_at=True)
    with open(script, encoding="utf-8") as source:
        malformed, scenes = play_script(service, source, io.StringIO())
    if malformed:
        raise SystemExit(f"justicar serve: {script} has malformed lines; `justicar play {script}` shows them")
    service.snapshot_long(scenes, backend.snapshots)
    return scenes


def _invitations(backend: Backend, scenes: list[str]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """For each scene: its heading, and a (who, page, token) per Storyteller, player and spectators."""
    service = SceneService(backend.store)
    out = []
    for scene in scenes:
        state = service.state(scene)
        people = [("Storyteller", "st", backend.tokens.issue(scene, "st")[0])]
        for character in state.roster():
            if not character.sheet.npc and character.present:
                people.append((character.name, "play", backend.tokens.issue(scene, "player", character.id)[0]))
        people.append(("spectators", "play", backend.tokens.issue(scene, "spectator")[0]))
        out.append((f"Scene {scene!r} ({state.ruleset}, “{state.title}”)", people))
    return out


def _reachable(host: str) -> str:
    """The address phones at the table can reach when the server listens on every interface."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        return str(probe.getsockname()[0])
    return socket.gethostname()


def _cannot_listen(args: argparse.Namespace, err: OSError) -> int:
    taken = "the port is taken (is another server running?)" if err.errno == errno.EADDRINUSE else err.strerror
    print(f"justicar serve: cannot listen on {args.host}:{args.port}: {taken}", file=sys.stderr)
    return 2


def serve(args: argparse.Namespace, out: TextIO) -> int:
    configure(json=args.log_json)
    try:
        listen(args.host, args.port).close()  # a taken port is said before anything is opened
    except OSError as err:
        return _cannot_listen(args, err)
    try:
        keys = read_keys(args.snapshot_key)
        backend = open_backend(args.db, lock=not args.shared, snapshot_key=keys)
    except (DatabaseBusy, KeyFileError) as busy:
        print(f"justicar serve: {busy}", file=sys.stderr)
        return 2
    log.info("backend", kind=backend.kind, db=backend.where, shared=args.shared or backend.kind == "postgresql")
    scenes = _load(backend, args.load) if args.load else []
    invitations = _invitations(backend, scenes)

    def ready(live: Running) -> None:
        web = f"http://{_reachable(live.host)}:{live.port}"
        for heading, people in invitations:
            print(f"\n{heading}. Links (each holds its key; shown once):", file=out)
            for who, page, token in people:
                print(f"  {who:<15} {web}/{page}#token={token}", file=out)
        print(f"\nJusticar listens on {live.web} (pages) and {live.url} (socket).", file=out)
        print(f"Open a link in a browser, or from a terminal: justicar join LINK ({live.url} --token TOKEN)", file=out)
        print("Ctrl-C stops the server.\n", file=out)
        out.flush()

    try:
        limits = Limits(rate=args.rate, burst=args.burst)
        anyio.run(lambda: serve_forever(backend, args.host, args.port, limits=limits, on_ready=ready))
    except OSError as err:
        return _cannot_listen(args, err)
    finally:
        backend.close()
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="serve scenes live over websockets")
    p.add_argument(
        "--db",
        metavar="PATH|URL",
        default="justicar.db",
        help="SQLite file, or a postgresql:// URL for many processes (default: justicar.db)",
    )
    p.add_argument("--host", default="127.0.0.1", help="0.0.0.0 to let phones on the table's network join")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument(
        "--load",
        metavar="SCRIPT.jsonl",
        help="play a script into the database first, and print "
        "a Storyteller, player and spectator token for each scene it touches",
    )
    p.add_argument(
        "--shared",
        action="store_true",
        help="let other `justicar serve` processes on this machine serve the same SQLite file "
        "(they take turns to write, and each pushes what the others commit; see docs/deploy.md)",
    )
    add_snapshot_key(p)
    p.add_argument("--log-json", action="store_true", help="log JSON lines instead of text")
    p.add_argument("--rate", type=float, default=RATE, help=f"messages a second per connection (default {RATE:g})")
    p.add_argument("--burst", type=int, default=BURST, help=f"messages at once per connection (default {BURST})")
    p.set_defaults(run=serve)
