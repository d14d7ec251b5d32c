"""``justicar``: the command line.

justicar play SCRIPT.jsonl [--db PATH]    apply protocol commands, one per line
justicar log --db PATH SCENE              the scene's events as JSON lines
justicar verify --db PATH [SCENE]         walk the hash chain; exit 1 at the first bad event
justicar replay --db PATH SCENE           every step: what happened, what changed, which rule
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import msgspec

from domain.commands import parse_command
from domain.log import check_chain
from domain.state import NARRATOR
from projections.replay import render, replay
from projections.views import view
from server.service import Result, SceneService
from server.store import StoreError, open_store

_json = msgspec.json.Encoder()
_generic = msgspec.json.Decoder()


def _line(out: TextIO, value: Any) -> None:
    out.write(_json.encode(value).decode())
    out.write("\n")


def _script_lines(source: TextIO) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(source, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def _id_of(text: str) -> str | None:
    try:
        value = _generic.decode(text)
    except msgspec.DecodeError:
        return None
    command_id = value.get("id") if isinstance(value, dict) else None
    return command_id if isinstance(command_id, str) else None


def play(args: argparse.Namespace, out: TextIO) -> int:
    """Apply a script's commands in order; refusals are results, malformed lines are errors."""
    try:
        source = sys.stdin if args.script == "-" else open(args.script, encoding="utf-8")  # noqa: SIM115
    except OSError as err:
        print(f"justicar play: cannot read {args.script}: {err.strerror}", file=sys.stderr)
        return 2
    store = open_store(args.db)
    service = SceneService(store, honour_at=True)
    malformed = False
    scenes: list[str] = []
    with source:
        for number, text in _script_lines(source):
            try:
                command = parse_command(text)
            except msgspec.DecodeError as err:  # also ValidationError: the message names the path
                malformed = True
                result = Result.refused(_id_of(text), "malformed", f"line {number}: {err}")
                _line(out, {"line": number, **msgspec.to_builtins(result)})
                continue
            if command.scene not in scenes:
                scenes.append(command.scene)
            _line(out, service.handle(command).result())
    for scene in scenes:
        state = service.state(scene)
        if state.status != "new":
            _line(out, {"state": view(state, NARRATOR)})
    store.close()
    return 1 if malformed else 0


def log(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db)
    for wire in store.read_wire(args.scene):
        out.write(_json.encode(wire).decode() + "\n")
    return 0 if store.head(args.scene)[0] else _no_scene(args.scene)


def verify(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db)
    scenes = [args.scene] if args.scene else store.scenes()
    if args.scene and not store.head(args.scene)[0]:
        return _no_scene(args.scene)
    bad = 0
    for scene in scenes:
        problem = check_chain(store.read_wire(scene))
        version, head = store.head(scene)
        if problem is None:
            print(f"{scene}: ok, {version} events, head {head}", file=out)
        else:
            bad += 1
            print(f"{scene}: event {problem.seq} ({problem.type}): {problem.problem}", file=out)
    return 1 if bad else 0


def replay_cmd(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db)
    if not store.head(args.scene)[0]:
        return _no_scene(args.scene)
    for step in replay(store.read(args.scene)):
        if args.json:
            _line(out, step)
        else:
            out.write(render(step) + "\n\n")
    return 0


def _no_scene(scene: str) -> int:
    print(f"justicar: there is no scene {scene!r} in this database", file=sys.stderr)
    return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="justicar",
        description="Mind's Eye Theatre challenges on the record: play, log, verify and replay scenes.",
    )
    sub = parser.add_subparsers(dest="verb", required=True, metavar="COMMAND")

    p = sub.add_parser("play", help="apply protocol commands from a JSON-lines script")
    p.add_argument("script", metavar="SCRIPT.jsonl", help="one command per line; '-' reads standard input")
    p.add_argument("--db", metavar="PATH", help="SQLite database (default: in memory, gone at exit)")
    p.set_defaults(run=play)

    p = sub.add_parser("log", help="print a scene's events as JSON lines")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.set_defaults(run=log)

    p = sub.add_parser("verify", help="check every event's hash chain and sequence")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE", nargs="?", help="one scene (default: all)")
    p.set_defaults(run=verify)

    p = sub.add_parser("replay", help="replay a scene step by step, with the rules applied")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--json", action="store_true", help="one JSON step per line")
    p.set_defaults(run=replay_cmd)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if getattr(args, "db", None) and args.verb != "play" and not Path(args.db).exists():
        print(f"justicar {args.verb}: no database at {args.db}", file=sys.stderr)
        return 2
    try:
        return int(args.run(args, sys.stdout))
    except StoreError as err:
        print(f"justicar {args.verb}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
