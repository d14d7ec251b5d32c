"""``justicar serve``: the live server on the embedded SQLite default."""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import io
import os
import socket
import sys
from typing import TextIO

import anyio
import msgspec
import structlog

from clients.client import page_link
from clients.offline import play_script
from clients.stores import add_snapshot_key
from server.app import Running, listen, serve_forever
from server.backend import Backend, DatabaseBusy, open_backend
from server.logs import configure
from server.service import SceneService
from server.snapshot_keys import KeyFileError, read_keys
from server.tokens import Role
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


def scripted(backend: Backend, script: str, scenes: list[str]) -> dict[str, str]:
    """For each scene, which of its steps the script played, from the record (each step's command
    id is a line of the script): "Steps 1–61 were played by examples/demo.jsonl: …" (the demo's
    results are not the newcomer's own)."""
    with open(script, encoding="utf-8") as source:
        ids = {_id_of(line) for line in source if line.lstrip().startswith("{")}
    said = {}
    for scene in scenes:
        seqs = [r.seq for r in backend.store.read(scene) if r.command in ids]
        if seqs:
            spans = ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in _runs(seqs))
            steps = "Step" if len(seqs) == 1 else "Steps"
            said[scene] = f"{steps} {spans} were played by {script}: its moves and results, not yours."
    return said


def _id_of(line: str) -> str:
    try:
        return str(msgspec.json.decode(line).get("id", ""))
    except (msgspec.DecodeError, AttributeError):
        return ""


def _runs(seqs: list[int]) -> list[tuple[int, int]]:
    """Consecutive numbers as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], seq)
        else:
            runs.append((seq, seq))
    return runs


Invitation = tuple[str, str, list[tuple[str, str, str]], str]
"""A scene, its heading, a (who, page, token) per person, and which steps a script played ("")."""


def _invitations(
    backend: Backend, scenes: list[str], kept: str | None = None, played: dict[str, str] | None = None
) -> list[Invitation]:
    """For each scene: its heading, and a (who, page, token) per Storyteller, player and spectators.
    With ``kept`` (``links_file``): the links printed at an earlier start that still work are
    printed again, not issued anew (every start used to add a set to the console's list of
    links); only a missing, revoked or expired one is issued, and the file keeps the new set."""
    before = _read_links(kept)
    now: dict[str, dict[str, str]] = {}
    service = SceneService(backend.store)
    out = []
    for scene in scenes:
        state = service.state(scene)
        mine = now.setdefault(scene, {})

        def link(role: Role, character: str | None = None, scene: str = scene, mine: dict[str, str] = mine) -> str:
            key = f"{role}:{character}" if character else role
            token = before.get(scene, {}).get(key)
            grant = backend.tokens.check(token) if token else None
            if token is None or grant is None or (grant.scene, grant.role, grant.character) != (scene, role, character):
                token = backend.tokens.issue(scene, role, character)[0]
            mine[key] = token
            return token

        people = [("Storyteller", "st", link("st"))]
        for character in state.roster():
            if not character.sheet.npc and character.present:
                people.append((character.name, "play", link("player", character.id)))
        people.append(("spectators", "play", link("spectator")))
        heading = f"Scene {scene!r} ({state.ruleset}, “{state.title}”)"
        out.append((scene, heading, people, (played or {}).get(scene, "")))
    if kept is not None and now != {scene: before.get(scene) for scene in now}:
        _write_links(kept, {**before, **now})
    return out


def links_file(backend: Backend) -> str | None:
    """Where ``serve --load`` keeps the links it printed for this database, to print the same ones
    at the next start: a file of the user's own (owner-only, in the per-user state folder beside
    the snapshot key, never in the database, which keeps only the tokens' hashes), named by the
    database; None for a database in memory."""
    if backend.kind == "memory":
        return None
    where = os.path.abspath(backend.where) if backend.kind == "sqlite" else backend.where
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    name = hashlib.sha256(where.encode()).hexdigest()[:16]
    return os.path.join(state, "justicar", "links", f"{name}.json")


def _read_links(path: str | None) -> dict[str, dict[str, str]]:
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as kept:
            return msgspec.json.decode(kept.read(), type=dict[str, dict[str, str]])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}  # none kept, or unreadable: new links are issued (and kept)


def _write_links(path: str, links: dict[str, dict[str, str]]) -> None:
    """Write the links owner-only, aside and then moved into place; a failure only means new links
    at the next start."""
    aside = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(msgspec.json.encode(links))
        os.replace(aside, path)
    except OSError as err:
        log.warning("links_not_kept", path=path, error=err.strerror)
        with contextlib.suppress(OSError):
            os.unlink(aside)


WILDCARDS = ("0.0.0.0", "::", "")
"""Hosts that listen on every interface: no phone can open a link to them."""


def reachable(host: str) -> list[str]:
    """The addresses phones at the table can open, for a server listening on ``host``: the host
    itself when it is one address; on every interface (``0.0.0.0``), this machine's network
    addresses (the one its default route leaves by first, then the others its name resolves to),
    never a loopback one; empty when it has none (no network)."""
    if host not in WILDCARDS:
        return [host]
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        found.append(str(probe.getsockname()[0]))
    with contextlib.suppress(OSError):
        for *_, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(address[0]))
    lan = [a for a in dict.fromkeys(found) if not a.startswith(("127.", "0."))]
    return lan


def announce(host: str, port: int, invitations: list[Invitation], out: TextIO) -> None:
    """What ``serve`` prints once it listens: a link per person (to an address the phones can
    open, never ``0.0.0.0``), then where it listens, as addresses to type in."""
    lan = reachable(host)
    wildcard = host in WILDCARDS
    web = [f"http://{_bracketed(a)}:{port}" for a in lan]
    local = f"http://localhost:{port}"
    first = web[0] if web else local
    for scene, heading, people, played in invitations:
        print(f"\n{heading}. Links (each holds its key; the same at every start):", file=out)
        for who, page, token in people:
            print(f"  {who:<15} {page_link(first, page, token, scene)}", file=out)
        if played:
            print(f"  {played}", file=out)
    if not wildcard:
        print(f"\nJusticar listens on {first} (pages) and ws://{_bracketed(host)}:{port} (socket).", file=out)
    elif web:
        print(f"\nJusticar listens on every network interface, port {port}: phones at the table open", file=out)
        print(f"  {' or '.join(web)}  (this machine: {local})", file=out)
    else:
        print(f"\nJusticar listens on every network interface, port {port}, but this machine has no", file=out)
        print(f"network address yet: join the table's wifi for phones to reach it (this machine: {local})", file=out)
    socket_url = first.replace("http://", "ws://", 1)
    print(f"Open a link in a browser, or from a terminal: justicar join LINK ({socket_url} --token TOKEN)", file=out)
    print("Ctrl-C stops the server.\n", file=out)
    out.flush()


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


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
    played = scripted(backend, args.load, scenes) if args.load else {}
    invitations = _invitations(backend, scenes, links_file(backend), played)

    def ready(live: Running) -> None:
        announce(live.host, live.port, invitations, out)

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
