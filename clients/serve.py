"""``justicar serve``: the live server on the embedded SQLite default."""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

import anyio

from clients.offline import play_script
from server.app import Running, serve_forever
from server.backend import Backend, open_backend
from server.logs import configure
from server.service import SceneService
from server.wire import BURST, RATE, Limits


def _load(backend: Backend, script: str) -> list[str]:
    """Play a script into the database (idempotent: commands already there are not repeated)."""
    service = SceneService(backend.store, honour_at=True)
    with open(script, encoding="utf-8") as source:
        malformed, scenes = play_script(service, source, io.StringIO())
    if malformed:
        raise SystemExit(f"justicar serve: {script} has malformed lines; `justicar play {script}` shows them")
    return scenes


def _invitations(backend: Backend, scenes: list[str], out: TextIO) -> None:
    service = SceneService(backend.store)
    for scene in scenes:
        state = service.state(scene)
        token, _ = backend.tokens.issue(scene, "st")
        print(f"\nScene {scene!r} ({state.ruleset}, “{state.title}”). Tokens, shown once:", file=out)
        print(f"  Storyteller     {token}", file=out)
        for who, character in sorted(state.characters.items()):
            if not character.sheet.npc and character.present:
                player, _ = backend.tokens.issue(scene, "player", who)
                print(f"  {character.name:<15} {player}", file=out)
        spectator, _ = backend.tokens.issue(scene, "spectator")
        print(f"  spectators      {spectator}", file=out)


def serve(args: argparse.Namespace, out: TextIO) -> int:
    configure(json=args.log_json)
    backend = open_backend(args.db)
    scenes = _load(backend, args.load) if args.load else []
    if scenes:
        _invitations(backend, scenes, out)

    def ready(live: Running) -> None:
        print(f"\nJusticar listens on {live.url}", file=out)
        print(f"Join with: justicar join {live.url} --token TOKEN", file=out)
        print("Ctrl-C stops the server.\n", file=out)
        out.flush()

    try:
        limits = Limits(rate=args.rate, burst=args.burst)
        anyio.run(lambda: serve_forever(backend, args.host, args.port, limits=limits, on_ready=ready))
    except OSError as err:
        print(f"justicar serve: cannot listen on {args.host}:{args.port}: {err.strerror}", file=sys.stderr)
        return 2
    finally:
        backend.close()
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="serve scenes live over websockets")
    p.add_argument("--db", metavar="PATH", default="justicar.db", help="SQLite database (default: justicar.db)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument(
        "--load",
        metavar="SCRIPT.jsonl",
        help="play a script into the database first, and print "
        "a Storyteller, player and spectator token for each scene it touches",
    )
    p.add_argument("--log-json", action="store_true", help="log JSON lines instead of text")
    p.add_argument("--rate", type=float, default=RATE, help=f"messages a second per connection (default {RATE:g})")
    p.add_argument("--burst", type=int, default=BURST, help=f"messages at once per connection (default {BURST})")
    p.set_defaults(run=serve)
