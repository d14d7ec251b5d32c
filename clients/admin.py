"""``justicar scene …``: create scenes and manage who may join them, on a database."""

from __future__ import annotations

import argparse
import secrets
import sys
from datetime import timedelta
from typing import TextIO

from domain.commands import OpenScene, Options
from server.backend import open_backend
from server.service import SceneService
from server.tokens import Role


def new(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    scene = args.scene or f"s-{secrets.token_hex(4)}"
    opening = OpenScene(
        id="~open",
        scene=scene,
        actor="st",
        ruleset=args.ruleset,
        title=args.title,
        options=Options(cross_category_bids=args.cross_category_bids),
    )
    handled = SceneService(backend.store).handle(opening)
    if handled.error is not None:
        print(f"justicar scene new: {handled.error.message}", file=sys.stderr)
        return 1
    token, grant = backend.tokens.issue(scene, "st")
    print(f"scene {scene}: {args.ruleset}, “{args.title}”", file=out)
    print(f"Storyteller token ({grant.token_id}, shown once): {token}", file=out)
    print(f"With `justicar serve` running, the console is at http://HOST:PORT/st#token={token}", file=out)
    backend.close()
    return 0


def duration(text: str) -> timedelta:
    """``90m``, ``4h``, ``2d`` or plain seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "s")
    try:
        seconds = float(number) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 90m, 4h or 2d") from None
    if seconds <= 0:
        raise argparse.ArgumentTypeError("a token must last some time")
    return timedelta(seconds=seconds)


def invite(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    version = backend.store.head(args.scene)[0]
    if not version:
        print(f"justicar scene invite: there is no scene {args.scene!r}", file=sys.stderr)
        return 1
    if args.character:
        state = SceneService(backend.store).state(args.scene)
        if args.character not in state.characters:
            known = ", ".join(c.id for c in state.roster()) or "none yet"
            print(f"justicar scene invite: no character {args.character!r} (characters: {known})", file=sys.stderr)
            return 1
    role: Role = "st" if args.st else "player" if args.character else "spectator"
    token, grant = backend.tokens.issue(args.scene, role, args.character, expires=args.expires)
    who = {"st": "the Storyteller", "player": args.character, "spectator": "a spectator"}[role]
    until = f", until {grant.expires_at}" if grant.expires_at else ""
    print(f"token for {who} ({grant.token_id}{until}, shown once): {token}", file=out)
    page = "st" if role == "st" else "play"
    print(f"With `justicar serve` running, open http://HOST:PORT/{page}#token={token}", file=out)
    backend.close()
    return 0


def tokens(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    for grant in backend.tokens.list(args.scene):
        state = "revoked" if grant.revoked else "live"
        print(
            f"{grant.token_id}  {grant.role:<9} {grant.character or '-':<12} {grant.created_at}  {state}",
            file=out,
        )
    backend.close()
    return 0


def revoke(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    grant = backend.tokens.revoke(args.token_id)
    backend.close()
    if grant is None:
        print(f"justicar scene revoke: no token {args.token_id!r}", file=sys.stderr)
        return 1
    print(f"revoked {grant.token_id} ({grant.role} {grant.character or ''} in {grant.scene})".rstrip(), file=out)
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    scene = sub.add_parser("scene", help="create scenes; invite, list and revoke tokens")
    verbs = scene.add_subparsers(dest="scene_verb", required=True, metavar="VERB")

    p = verbs.add_parser("new", help="open a scene and print its Storyteller token")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("--ruleset", default="lotn", choices=["lotn", "camarilla", "bns", "kony"])
    p.add_argument("--title", default="")
    p.add_argument("--scene", metavar="ID", help="the scene id (default: a random one)")
    p.add_argument("--cross-category-bids", action="store_true", help="allow bids across categories")
    p.set_defaults(run=new)

    p = verbs.add_parser("invite", help="a token for a player's character, a spectator or the Storyteller")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--character", metavar="ID", help="the character the player acts for")
    who.add_argument("--spectator", action="store_true", help="a token that only watches")
    who.add_argument("--st", action="store_true", help="a Storyteller token (for a fork or an import made here)")
    p.add_argument(
        "--expires", metavar="DURATION", type=duration, help="how long it lasts: 90m, 4h, 2d (default: until revoked)"
    )
    p.set_defaults(run=invite)

    p = verbs.add_parser("tokens", help="list a scene's tokens (never the tokens themselves)")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.set_defaults(run=tokens)

    p = verbs.add_parser("revoke", help="revoke a token by its id (t-…)")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("token_id", metavar="TOKEN_ID")
    p.set_defaults(run=revoke)
