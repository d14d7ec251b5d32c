"""``justicar export|import|fork|audit``: the log leaves the database, comes back, branches, and
is laid out for an audit; a game night's export and audit take its scenes with it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from clients.stores import add_snapshot_key, opened, snapshots_of
from projections.audit import audit
from projections.audit_render import render
from server.history import ImportRefused, fork
from server.nights import audit_of_night, export_all, import_all, is_night
from server.service import SceneService, utc_now
from server.store import StoreError


def _write(text: str, output: str | None, out: TextIO) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        out.write(text)


def export(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args, readonly=True)
    if not store.head(args.scene)[0]:
        print(f"justicar export: there is no scene {args.scene!r}", file=sys.stderr)
        return 1
    _write(export_all(store, args.scene), args.output, out)
    return 0


def import_(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args)
    snapshots = snapshots_of(store, args)
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as err:
        print(f"justicar import: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    try:
        with source:
            streams = import_all(store, source, args.expect)
    except ImportRefused as refused:
        print(f"justicar import: refused, nothing written: {refused}", file=sys.stderr)
        return 1
    except StoreError as err:
        print(f"justicar import: {err}", file=sys.stderr)
        return 1
    for n, (stream, count) in enumerate(streams):
        what = "game night" if n == 0 and len(streams) > 1 else "scene"
        print(f"imported {what} {stream!r}: {count} events, head {store.head(stream)[1]}", file=out)
    SceneService(store).snapshot_long([stream for stream, _ in streams], snapshots)  # a first join folds no long log
    return 0


def fork_(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args)
    new_scene = args.new_scene or f"{args.scene}-at-{args.at}"
    try:
        version = fork(store, args.scene, args.at, new_scene, utc_now)
    except StoreError as err:
        print(f"justicar fork: {err}", file=sys.stderr)
        return 1
    print(f"scene {new_scene!r}: events 1-{args.at} of {args.scene!r}, then the fork ({version} events)", file=out)
    return 0


def audit_(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args, readonly=True)
    if bool(args.scene) == bool(args.game):
        print("justicar audit: name a SCENE, or a game night with --game NIGHT", file=sys.stderr)
        return 2
    stream = args.game or args.scene
    if not store.head(stream)[0]:
        print(f"justicar audit: there is no {'game night' if args.game else 'scene'} {stream!r}", file=sys.stderr)
        return 1
    if args.game and not is_night(store, stream):
        print(f"justicar audit: {stream!r} is a scene, not a game night; audit it without --game", file=sys.stderr)
        return 1
    if is_night(store, stream):
        night = audit_of_night(store, stream)
        _write(render(night, args.format), args.output, out)
        ok = night.ok
    else:
        report = audit(list(store.read_wire(stream)))
        _write(render(report, args.format), args.output, out)
        ok = report.chain.ok
    if args.output:
        print(f"wrote the {args.format} audit of {stream!r} to {args.output}", file=sys.stderr)
    return 0 if ok else 1


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="a scene's log as portable JSON lines (seq, times, hashes kept); a game night's carries its scenes",
    )
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE", help="a scene, or a game night (its scenes follow it in the file)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    p.set_defaults(run=export, must_exist=True)

    p = sub.add_parser(
        "import",
        help="import an exported scene, or a game night with its scenes; a broken chain or gap is refused whole",
    )
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("file", metavar="SCENE.jsonl", help="an export; '-' reads standard input")
    p.add_argument(
        "--expect",
        metavar="HASH",
        help="the head hash noted at export (a game night's: the night's own): refuse a file that ends elsewhere",
    )
    add_snapshot_key(p)
    p.set_defaults(run=import_)

    p = sub.add_parser("fork", help="a what-if: a new scene starting as a copy of events 1..SEQ")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--at", metavar="SEQ", type=int, required=True, help="the last event to copy")
    p.add_argument("--as", dest="new_scene", metavar="NEW_SCENE", help="the new scene's id (default: SCENE-at-SEQ)")
    p.set_defaults(run=fork_, must_exist=True)

    p = sub.add_parser(
        "audit",
        help="the post-game audit: participants, challenges in full, rulings, the chain; "
        "of a game night (--game): its scenes in time order, each character's ledger, every stream's chain",
    )
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE", nargs="?", help="the scene to audit")
    p.add_argument(
        "--game",
        metavar="NIGHT",
        help="audit a game night instead: its scenes in time order, what each character lost and got back "
        "across them with the rule for every loss, and the chain check of the night and each scene",
    )
    p.add_argument("--format", choices=["html", "md", "json"], default="md")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    p.set_defaults(run=audit_, must_exist=True)
