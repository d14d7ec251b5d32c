"""The table's web pages, served by the websocket server itself: a plain HTTP GET that is not a
websocket upgrade gets a static file from ``clients/web`` (or the rule table as JSON), through
websockets' ``process_request``. Nothing is built: the pages are plain modules and CSS.

Pages: ``/`` (join with a link or token), ``/play`` (a player's phone), ``/st`` (the Storyteller's
console), ``/replay`` (the replay viewer). Tokens travel in the link's fragment (``#token=…``),
which browsers never send to a server. ``/static/manifest.webmanifest`` and its icons
(``/static/icons/``) let a phone add the player's page to its home screen.
"""

from __future__ import annotations

import dataclasses
import mimetypes
from functools import cache
from http import HTTPStatus
from pathlib import Path

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from domain.rules import RULES
from projections.rules import rulesets

ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
PAGES = {"/": "page.html", "/play": "page.html", "/st": "page.html", "/replay": "page.html"}
"""One document for every page: its module (``js/main.js``) draws the page the path names."""
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}
"""What each file is; ``.webmanifest`` by name, since Python's own table may not know it."""
UNSERVED = frozenset({".py"})
"""The repository's tools kept beside the pages (``icons/make.py`` draws the icons): not pages."""
POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
"""Only the page's own files and its own server's socket."""


def process_request(connection: ServerConnection, request: Request) -> Response | None:
    """A websocket upgrade goes on to the handshake, whatever its path and query (``/?scene=ID``
    routes it through a proxy, docs/deploy.md; the token decides the scene); any other GET is a
    page, a file, or 404."""
    if "websocket" in request.headers.get("Upgrade", "").lower():
        return None
    path = request.path.split("?", 1)[0]
    if "\x00" in path or "%00" in path or not path.startswith("/"):
        return _respond(connection, HTTPStatus.BAD_REQUEST, b"Bad request.\n", "text/plain")
    if path == "/rules.json":
        return _respond(connection, HTTPStatus.OK, rules_json(), "application/json")
    if path == "/rulesets.json":
        return _respond(connection, HTTPStatus.OK, rulesets_json(), "application/json")
    file = _file(path)
    if file is None:
        return _respond(connection, HTTPStatus.NOT_FOUND, b"Not found.\n", "text/plain")
    kind = TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return _respond(connection, HTTPStatus.OK, file.read_bytes(), kind)


def _file(path: str) -> Path | None:
    """The file a path names, never outside ``ROOT``."""
    name = PAGES.get(path) or (path.removeprefix("/static/") if path.startswith("/static/") else None)
    if name is None:
        return None
    try:
        file = (ROOT / name).resolve()
        served = file.is_relative_to(ROOT) and file.is_file() and file.suffix not in UNSERVED
        return file if served else None
    except (OSError, ValueError):  # a name the file system cannot hold: there is no such file
        return None


def _respond(connection: ServerConnection, status: HTTPStatus, body: bytes, kind: str) -> Response:
    """websockets' own response (Date, Server, Connection: close: it answers one request per
    connection), with this file's body and headers."""
    response = connection.respond(status, "")
    headers = response.headers
    del headers["Content-Type"], headers["Content-Length"]
    headers["Content-Type"] = f"{kind}; charset=utf-8" if kind.startswith("text/") or "json" in kind else kind
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["Content-Security-Policy"] = POLICY
    return dataclasses.replace(response, body=body)


@cache
def rulesets_json() -> bytes:
    """Every ruleset the server plays, as the pages choose and fill it (the first: the default):
    ``projections.rules.RulesetView``."""
    return msgspec.json.encode(rulesets())


@cache
def rules_json() -> bytes:
    """Every rule id with its words and document, for the pages to quote beside each step."""
    return msgspec.json.encode({rule_id: {"source": r.source, "words": r.words} for rule_id, r in RULES.items()})
