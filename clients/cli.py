"""``justicar``: the command line.

justicar play SCRIPT.jsonl [--db PATH]          apply protocol commands, one per line
justicar log --db PATH SCENE                    the scene's events as JSON lines
justicar verify --db PATH [SCENE]               walk the hash chain; exit 1 at the first bad event
justicar replay --db PATH SCENE                 every step: what happened, what changed, which rule
justicar serve [--db PATH] [--host H] [--port P] [--load SCRIPT]    the live server
justicar scene new|invite|tokens|revoke …       scenes and who may join them (scene new --game NIGHT: a night's scene)
justicar game new|move|show|close …             game nights: losses carried from scene to scene, one link per player
justicar audit --db PATH --game NIGHT           a night's audit: its scenes, each character's ledger, every chain
justicar join LINK                              a player's terminal (LINK: the one serve prints, …#token=…)
justicar join URL --token T                     the same, from the socket's URL and a token
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from clients import admin, history, offline, serve, terminal
from clients.stores import add_snapshot_key
from domain import rules
from server.store import StoreError, is_postgres


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="justicar",
        description="Mind's Eye Theatre challenges on the record: play, serve, join, verify and replay scenes.",
    )
    sub = parser.add_subparsers(dest="verb", required=True, metavar="COMMAND")

    p = sub.add_parser("play", help="apply protocol commands from a JSON-lines script")
    p.add_argument("script", metavar="SCRIPT.jsonl", help="one command per line; '-' reads standard input")
    p.add_argument("--db", metavar="PATH", help="SQLite database (default: in memory, gone at exit)")
    add_snapshot_key(p)
    p.set_defaults(run=offline.play)

    p = sub.add_parser("log", help="print a scene's events as JSON lines")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument(
        "--as",
        dest="viewer",
        metavar="VIEWER",
        default="st",
        help="st (default: every event whole), spectator, or a character id: the events as that viewer was sent "
        "them (what it may not know blanked, named in `redacted`)",
    )
    p.set_defaults(run=offline.log, must_exist=True)

    p = sub.add_parser("verify", help="check every event's hash chain and sequence; print each head hash")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE", nargs="?", help="one scene (default: all)")
    p.add_argument("--expect", metavar="HASH", help="the head hash noted earlier: exit 1 if it is not the head now")
    p.set_defaults(run=offline.verify, must_exist=True)

    p = sub.add_parser("replay", help="replay a scene step by step, with the rules applied")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--from", dest="start", metavar="SEQ", type=int, help="the first step to show")
    p.add_argument("--to", dest="end", metavar="SEQ", type=int, help="the last step to show")
    p.add_argument(
        "--as",
        dest="viewer",
        metavar="VIEWER",
        default="st",
        help="st (default), spectator, or a character id: exactly what that viewer saw",
    )
    p.add_argument("--step", action="store_true", help="pause after each step: Enter next, b back, q quit")
    p.add_argument("--json", action="store_true", help="one JSON step per line")
    p.set_defaults(run=offline.replay_scene, must_exist=True)

    history.add_parsers(sub)
    serve.add_parser(sub)
    admin.add_parsers(sub)
    terminal.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    rules.load(os.environ.get("JUSTICAR_RULESETS", ""))  # rulesets kept outside domain/rules/
    args = _parser().parse_args(argv)
    verb = " ".join(filter(None, [args.verb, getattr(args, "scene_verb", None)]))
    if getattr(args, "must_exist", False) and not is_postgres(args.db) and not Path(args.db).exists():
        print(f"justicar {verb}: no database at {args.db}", file=sys.stderr)
        return 2
    try:
        with contextlib.ExitStack() as args.closing:  # the stores the verb opened, closed when it is done
            return int(args.run(args, sys.stdout))
    except StoreError as err:
        print(f"justicar {verb}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
