"""``justicar export|import|fork|audit``: the log leaves the database, comes back, branches, and
is laid out for an audit."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from projections.audit import audit
from projections.audit_render import render
from server.history import ImportRefused, export_text, fork, import_scene
from server.service import utc_now
from server.store import StoreError, open_store


def _write(text: str, output: str | None, out: TextIO) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        out.write(text)


def export(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db, readonly=True)
    if not store.head(args.scene)[0]:
        print(f"justicar export: there is no scene {args.scene!r}", file=sys.stderr)
        return 1
    _write(export_text(store, args.scene), args.output, out)
    return 0


def import_(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db)
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as err:
        print(f"justicar import: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    try:
        with source:
            scene, count = import_scene(store, source, args.expect)
    except ImportRefused as refused:
        print(f"justicar import: refused, nothing written: {refused}", file=sys.stderr)
        return 1
    except StoreError as err:
        print(f"justicar import: {err}", file=sys.stderr)
        return 1
    head = store.head(scene)[1]
    print(f"imported scene {scene!r}: {count} events, head {head}", file=out)
    return 0


def fork_(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db)
    new_scene = args.new_scene or f"{args.scene}-at-{args.at}"
    try:
        version = fork(store, args.scene, args.at, new_scene, utc_now)
    except StoreError as err:
        print(f"justicar fork: {err}", file=sys.stderr)
        return 1
    print(f"scene {new_scene!r}: events 1-{args.at} of {args.scene!r}, then the fork ({version} events)", file=out)
    return 0


def audit_(args: argparse.Namespace, out: TextIO) -> int:
    store = open_store(args.db, readonly=True)
    wires = list(store.read_wire(args.scene))
    if not wires:
        print(f"justicar audit: there is no scene {args.scene!r}", file=sys.stderr)
        return 1
    report = audit(wires)
    _write(render(report, args.format), args.output, out)
    if args.output:
        print(f"wrote the {args.format} audit of {args.scene!r} to {args.output}", file=sys.stderr)
    return 0 if report.chain.ok else 1


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="a scene's log as portable JSON lines (seq, times, hashes kept)")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    p.set_defaults(run=export, must_exist=True)

    p = sub.add_parser("import", help="import an exported scene; a broken chain or gap is refused whole")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("file", metavar="SCENE.jsonl", help="an export; '-' reads standard input")
    p.add_argument("--expect", metavar="HASH", help="the head hash noted at export: refuse a file that ends elsewhere")
    p.set_defaults(run=import_)

    p = sub.add_parser("fork", help="a what-if: a new scene starting as a copy of events 1..SEQ")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--at", metavar="SEQ", type=int, required=True, help="the last event to copy")
    p.add_argument("--as", dest="new_scene", metavar="NEW_SCENE", help="the new scene's id (default: SCENE-at-SEQ)")
    p.set_defaults(run=fork_, must_exist=True)

    p = sub.add_parser("audit", help="the post-game audit: participants, challenges in full, rulings, the chain")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--format", choices=["html", "md", "json"], default="md")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    p.set_defaults(run=audit_, must_exist=True)
