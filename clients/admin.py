"""``justicar scene …`` and ``justicar game …``: create scenes and game nights, and manage who may
join them, on a database."""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from datetime import timedelta
from pathlib import Path
from typing import TextIO

import msgspec

from clients.client import page_link
from domain import sheet_check
from domain.commands import AnyCommand, CloseGame, MoveCharacter, OpenGame, OpenScene, RegisterCharacter
from domain.errors import Rejected
from domain.rules import DEFAULT, RULESETS, ruleset_for, title_of
from domain.sheets import Sheet, sheet_problems
from domain.state import NARRATOR
from projections.audit_render import carried_words, entry_words, visible
from projections.ledger import ledgers
from server.backend import open_backend
from server.nights import is_night, scenes_of
from server.service import SceneService
from server.sheet_words import every_problem
from server.tokens import Role

SERVE_DEFAULT = "http://127.0.0.1:8765"
"""Where `justicar serve` listens with its defaults (--host 127.0.0.1 --port 8765)."""


def site(args: argparse.Namespace, out: TextIO) -> str:
    """The server's address for the links printed: --url (or $JUSTICAR_URL) when given; else
    serve's default on this machine, said as such, with how to get a link the phones can open."""
    given = getattr(args, "url", None) or os.environ.get("JUSTICAR_URL")
    if given:
        return given.rstrip("/")
    print(
        f"Links below are for `justicar serve` with its defaults on this machine ({SERVE_DEFAULT}). For phones at the "
        "table, run `justicar serve --host 0.0.0.0` and give this machine's address with --url "
        "(e.g. --url http://192.168.1.20:8765) or in $JUSTICAR_URL.",
        file=out,
    )
    return SERVE_DEFAULT


def new(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    scene = args.scene or f"s-{secrets.token_hex(4)}"
    if args.ruleset is None:
        night = SceneService(backend.store).state(args.game) if args.game else None
        args.ruleset = night.ruleset if night and night.night else DEFAULT
    opening = OpenScene(
        id="~open",
        scene=scene,
        actor="st",
        ruleset=args.ruleset,
        title=args.title,
        options={"cross_category_bids": args.cross_category_bids}
        | ({"deadlines": dict(args.deadline)} if args.deadline else {}),
        game=args.game,
    )
    handled = SceneService(backend.store).handle(opening)
    if handled.error is not None:
        print(f"justicar scene new: {handled.error.message}", file=sys.stderr)
        return 1
    print(f"scene {scene}: {args.ruleset}, “{args.title}”", file=out)
    if args.game:
        # one console for the whole night: its link, opening on this scene's tab (the night's key
        # acts in every scene of the night; `/st?scene=…` with it still opens this scene alone)
        token, grant = backend.tokens.issue(args.game, "st")
        print(f"The night's Storyteller token ({grant.token_id}, shown once): {token}", file=out)
        web = site(args, out)
        print(
            f"With `justicar serve` running, the console is at {page_link(web, 'st', token, args.game, tab=scene)} "
            "(the night's console, on this scene's tab)",
            file=out,
        )
    else:
        token, grant = backend.tokens.issue(scene, "st")
        print(f"Storyteller token ({grant.token_id}, shown once): {token}", file=out)
        web = site(args, out)
        print(f"With `justicar serve` running, the console is at {page_link(web, 'st', token, scene)}", file=out)
    if args.game:
        print(
            f"A scene of the game night {args.game!r}: players keep their night's links; "
            f"send characters in with `justicar game move --db {args.db} {args.game} CHARACTER {scene}`",
            file=out,
        )
    backend.close()
    return 0


KINDS = ("answer", "throw", "retest", "turn", "assist", "escape")
DEADLINE_HELP = (
    "a response deadline, KIND=TIME[,act]: KIND one of answer, throw, retest, turn, assist, escape; TIME "
    "as 90s, 2m or 1h; ',act' to have the server make the move when it lapses (a relent, a random throw, a "
    "pass, the turn ended…), else the Storyteller is told. Repeat for each kind (default: none)"
)


def deadline(text: str) -> tuple[str, dict[str, object]]:
    """``throw=2m,act``: a kind of move, its time and what its lapse does, as ``options.deadlines`` takes them."""
    kind, _, rest = text.partition("=")
    time, _, lapse = rest.partition(",")
    if kind not in KINDS:
        raise argparse.ArgumentTypeError(f"{kind!r} is not a kind of move: {', '.join(KINDS)}")
    if lapse not in ("", "tell", "act"):
        raise argparse.ArgumentTypeError(f"{lapse!r}: after the time, ',act' or ',tell' (the default)")
    try:
        seconds = duration(time).total_seconds()
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{time!r} is not a time such as 90s, 2m or 1h") from None
    if not 1 <= seconds <= 86_400 or seconds != int(seconds):
        raise argparse.ArgumentTypeError(f"{time!r}: a deadline is whole seconds, from 1 second to 24 hours")
    return kind, {"seconds": int(seconds), "lapse": lapse or "tell"}


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
    web = site(args, out)
    print(f"With `justicar serve` running, open {page_link(web, page, token, args.scene)}", file=out)
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
    revocation = backend.tokens.revoke(args.token_id)
    backend.close()
    if revocation is None:
        print(f"justicar scene revoke: no token {args.token_id!r}", file=sys.stderr)
        return 1
    grant, cascaded = revocation.grant, revocation.cascaded
    print(f"revoked {grant.token_id} ({grant.role} {grant.character or ''} in {grant.scene})".rstrip(), file=out)
    if cascaded:
        issued = "1 token it had issued" if len(cascaded) == 1 else f"{len(cascaded)} tokens it had issued"
        print(f"and {issued}: {', '.join(g.token_id for g in cascaded)}", file=out)
    return 0


# -- game nights -------------------------------------------------------------------------------


def _sheets(paths: list[str], ruleset: str) -> tuple[list[Sheet], list[str]]:
    """The sheets in the files, and what is wrong with any of them (by file and field): a sheet
    that does not decode has every problem named at once, the catalog's with the rest, in words
    (``server.sheet_words.every_problem``)."""
    sheets: list[Sheet] = []
    wrong: list[str] = []
    for path in paths:
        try:
            raw = msgspec.json.decode(Path(path).read_bytes())
        except OSError as err:
            wrong.append(f"{path}: cannot read it: {err.strerror}")
            continue
        except msgspec.DecodeError as err:
            wrong.append(f"{path}: not JSON: {err}")
            continue
        if sheet_problems(raw):
            wrong += [f"{path}: {_field(field)}: {problem}" for field, problem in every_problem(raw, ruleset).items()]
            continue
        sheets.append(msgspec.convert(raw, Sheet))
    return sheets, wrong


def _field(path: str) -> str:
    """A sheet's field as a file names it: ``weapons.0.kind`` → ``weapons[0].kind``."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", path) or "the sheet"


def game_new(args: argparse.Namespace, out: TextIO) -> int:
    """Open a game night, register its characters from sheet files, print one link per player."""
    sheets, wrong = _sheets(args.sheets, args.ruleset)
    unusual = False
    seen: dict[str, str] = {}
    for path, sheet in zip(args.sheets, sheets, strict=False):
        if sheet.id in seen:
            wrong.append(f"{path}: {sheet.id!r} is also the id of the sheet in {seen[sheet.id]}")
        seen.setdefault(sheet.id, path)
        if sheet.id == NARRATOR:
            wrong.append(f"{path}: id: {NARRATOR!r} is the Storyteller's; pick another id")
        found = sheet_check.problems(args.ruleset, sheet)  # every problem at once, each with its field
        kept = [p for p in found if not p.closed and args.as_written]
        wrong += [f"{path}: {_field(p.path)}: {p.text}" for p in found if p not in kept]
        unusual = unusual or (any(not p.closed for p in found) and not args.as_written)
        if all(p in kept for p in found):
            try:
                ruleset_for(args.ruleset).check_sheet(sheet)
            except Rejected as refused:
                wrong.append(f"{path}: {refused.message}")
    if wrong:
        print("justicar game new: nothing opened; fix these sheets first:", file=sys.stderr)
        for line in wrong:
            print(f"  {line}", file=sys.stderr)
        if unusual:
            print("  (what the rules leave open may be kept as written: --as-written)", file=sys.stderr)
        return 1
    backend = open_backend(args.db)
    night = args.game or f"g-{secrets.token_hex(4)}"
    service = SceneService(backend.store)
    opening = OpenGame(
        id="~open", scene=night, actor="st", ruleset=args.ruleset, title=args.title, deadlines=dict(args.deadline)
    )
    steps: list[AnyCommand] = [opening]
    steps += [
        RegisterCharacter(
            id=f"~register-{sheet.id}", scene=night, actor="st", character=sheet, as_written=args.as_written
        )
        for sheet in sheets
    ]
    for step in steps:
        handled = service.handle(step)
        if handled.error is not None:
            print(f"justicar game new: {handled.error.message}", file=sys.stderr)
            backend.close()
            return 1
    rules = title_of(args.ruleset)
    print(f"game night {night}: {rules}, “{args.title}”", file=out)
    token, grant = backend.tokens.issue(night, "st")
    print(f"Storyteller token ({grant.token_id}, shown once): {token}", file=out)
    web = site(args, out)
    print(f"With `justicar serve` running, the console is at {page_link(web, 'st', token, night)}", file=out)
    players = [sheet for sheet in sheets if not sheet.npc]
    if players:
        print("One link per player for the whole night (each holds its key; shown once):", file=out)
    for sheet in players:
        token, grant = backend.tokens.issue(night, "player", sheet.id, expires=args.expires)
        until = f", until {grant.expires_at}" if grant.expires_at else ""
        print(f"  {sheet.name:<15} {page_link(web, 'play', token, night)}  ({grant.token_id}{until})", file=out)
    print(
        f"Open scenes with `justicar scene new --db {args.db} --game {night} …`, "
        f"then `justicar game move --db {args.db} {night} CHARACTER SCENE`.",
        file=out,
    )
    backend.close()
    return 0


def _night_or_say(service: SceneService, night: str, verb: str) -> bool:
    if not service.store.head(night)[0]:
        print(f"justicar game {verb}: there is no game night {night!r}", file=sys.stderr)
        return False
    if not is_night(service.store, night):
        print(f"justicar game {verb}: {night!r} is a scene, not a game night", file=sys.stderr)
        return False
    return True


def game_close(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    service = SceneService(backend.store)
    try:
        if not _night_or_say(service, args.night, "close"):
            return 1
        handled = service.handle(CloseGame(id="~close", scene=args.night, actor="st"))
        if handled.error is not None:
            print(f"justicar game close: {handled.error.message}", file=sys.stderr)
            return 1
        state = service.state(args.night)
        print(f"game night {args.night} (“{state.title}”) closed: {state.version} events", file=out)
        return 0
    finally:
        backend.close()


def game_move(args: argparse.Namespace, out: TextIO) -> int:
    backend = open_backend(args.db)
    service = SceneService(backend.store)
    try:
        if not _night_or_say(service, args.night, "move"):
            return 1
        command = MoveCharacter(
            id=f"move-{secrets.token_hex(6)}", scene=args.night, actor="st", character=args.character, to=args.scene
        )
        handled = service.handle(command)
        if handled.error is not None:
            print(f"justicar game move: {handled.error.message}", file=sys.stderr)
            return 1
        night = service.state(args.night)
        name = night.name_of(args.character)
        scene = service.state(args.scene)
        there = scene.characters.get(args.character)
        if there is None or not there.present:
            print(f"justicar game move: {name} could not enter {scene.title or args.scene}", file=sys.stderr)
            return 1
        print(f"{name} is in {scene.title or args.scene} now", file=out)
        return 0
    finally:
        backend.close()


class _Shown:
    """Printed text with its control characters and bidi controls shown as codes (``visible``): a
    name never drives the terminal. Each ``print`` writes its line, then its line break alone."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(text if text == "\n" else visible(text))


def game_show(args: argparse.Namespace, out: TextIO) -> int:
    """The night's scenes (open, closed), who is where, and each character's ledger."""
    out = _Shown(out)  # type: ignore[assignment]
    backend = open_backend(args.db)
    store = backend.store
    try:
        service = SceneService(store)
        if not _night_or_say(service, args.night, "show"):
            return 1
        night = service.state(args.night)
        scenes = {scene: list(store.read(scene)) for scene in scenes_of(store, args.night)}
        book = ledgers(list(store.read(args.night)), scenes)
        rules = title_of(night.ruleset)
        listed = night.night.scenes if night.night else ()
        where = night.night.where if night.night else {}
        print(
            f"{night.title or night.id} (game night {night.id}): {rules}, {night.status}, {night.version} events",
            file=out,
        )
        print("Scenes:", file=out)
        if not listed:
            print("  none yet", file=out)
        for scene in listed:
            who = [night.name_of(c) for c, visit in where.items() if visit.scene == scene.id]
            status = "open" if scene.open else "closed"
            print(
                f"  {scene.title or scene.id} ({scene.id}), {status}: {', '.join(who) or 'nobody of the night'}",
                file=out,
            )
        between = [c.name for c in night.roster() if c.id not in where]
        print(f"Between scenes: {', '.join(between) or 'nobody'}", file=out)
        print("Ledgers:", file=out)
        titles = {s.id: s.title or s.id for s in listed}
        for ledger in book:
            place = f"in {titles.get(ledger.where, ledger.where)}" if ledger.where else "between scenes"
            print(f"  {ledger.name} ({place}): {carried_words(ledger.now)}", file=out)
            if not ledger.entries:
                print("    nothing lost or gained tonight", file=out)
            for entry in ledger.entries:
                rule = f" [{entry.rule}, {entry.book}]" if entry.rule else ""
                why = f" {entry.why}" if entry.why else ""
                print(f"    {entry.title} #{entry.seq}: {entry_words(entry)}.{why}{rule}", file=out)
        return 0
    finally:
        backend.close()


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    scene = sub.add_parser("scene", help="create scenes; invite, list and revoke tokens")
    verbs = scene.add_subparsers(dest="scene_verb", required=True, metavar="VERB")

    p = verbs.add_parser("new", help="open a scene and print its Storyteller token")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument(
        "--ruleset",
        choices=list(RULESETS),
        help=f"the rules it plays (default: the game night's with --game, else {DEFAULT})",
    )
    p.add_argument("--title", default="")
    p.add_argument("--scene", metavar="ID", help="the scene id (default: a random one)")
    p.add_argument("--cross-category-bids", action="store_true", help="allow bids across categories")
    p.add_argument("--deadline", metavar="KIND=TIME", type=deadline, action="append", default=[], help=DEADLINE_HELP)
    p.add_argument(
        "--game",
        metavar="NIGHT",
        help="a scene of this game night: its characters come in with what they carry tonight (same ruleset)",
    )
    p.add_argument(
        "--url",
        metavar="URL",
        help="the server's address as the phones reach it, for the links printed "
        "(e.g. http://192.168.1.20:8765; default: $JUSTICAR_URL, else serve's default on this machine)",
    )
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
    p.add_argument(
        "--url",
        metavar="URL",
        help="the server's address as the phones reach it, for the links printed "
        "(e.g. http://192.168.1.20:8765; default: $JUSTICAR_URL, else serve's default on this machine)",
    )
    p.set_defaults(run=invite)

    p = verbs.add_parser("tokens", help="list a scene's tokens (never the tokens themselves)")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("scene", metavar="SCENE")
    p.set_defaults(run=tokens)

    p = verbs.add_parser("revoke", help="revoke a token by its id (t-…), and every token it issued")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("token_id", metavar="TOKEN_ID")
    p.set_defaults(run=revoke)

    game = sub.add_parser(
        "game",
        help="game nights: characters carry what they lose from scene to scene; one link per player per night",
    )
    verbs = game.add_subparsers(dest="scene_verb", required=True, metavar="VERB")

    p = verbs.add_parser(
        "new",
        help="open a game night, register its characters from sheet files, and print the Storyteller's token and "
        "one link per player for the whole night",
    )
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("--ruleset", default=DEFAULT, choices=list(RULESETS))
    p.add_argument("--title", default="")
    p.add_argument("--game", metavar="ID", help="the night's id (default: a random one)")
    p.add_argument("--expires", metavar="DURATION", type=duration, help="how long the players' links last: 90m, 4h, 2d")
    p.add_argument(
        "--deadline",
        metavar="KIND=TIME",
        type=deadline,
        action="append",
        default=[],
        help=DEADLINE_HELP + "; for the night's scenes, where one opened with `scene new --game` gives none",
    )
    p.add_argument("sheets", metavar="SHEET.json", nargs="*", help="a character's sheet (JSON), one file each")
    p.add_argument(
        "--as-written",
        action="store_true",
        help="keep what the rules leave open but looks like a slip (a near miss of a name the rules use, a rating "
        "beyond their scale), once you have looked",
    )
    p.add_argument(
        "--url",
        metavar="URL",
        help="the server's address as the phones reach it, for the links printed "
        "(e.g. http://192.168.1.20:8765; default: $JUSTICAR_URL, else serve's default on this machine)",
    )
    p.set_defaults(run=game_new)

    p = verbs.add_parser("move", help="send a character of the night into an open scene of it")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("night", metavar="NIGHT")
    p.add_argument("character", metavar="CHARACTER")
    p.add_argument("scene", metavar="SCENE")
    p.set_defaults(run=game_move, must_exist=True)

    p = verbs.add_parser(
        "show", help="the night's scenes (open, closed), who is where, and what each character lost and got back"
    )
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("night", metavar="NIGHT")
    p.set_defaults(run=game_show, must_exist=True)

    p = verbs.add_parser("close", help="close the game night (its scenes closed first)")
    p.add_argument("--db", metavar="PATH", required=True)
    p.add_argument("night", metavar="NIGHT")
    p.set_defaults(run=game_close, must_exist=True)
