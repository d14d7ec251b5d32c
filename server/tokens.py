"""Access tokens: who may connect to a scene, and as what.

A token is random (``jt_`` and 32 url-safe characters), shown once when issued, and stored only as
its SHA-256. Its public ``token_id`` (``t-`` and the first 10 hex digits of that hash) names it for
listing and revoking. Each token grants one role in one scene: ``st``, ``player`` (bound to one
character) or ``spectator``.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from datetime import UTC, datetime
from typing import Literal, Protocol

import msgspec

Role = Literal["st", "player", "spectator"]


class Grant(msgspec.Struct, frozen=True, kw_only=True):
    """What a token allows (never the token itself)."""

    token_id: str
    scene: str
    role: Role
    character: str | None = None
    created_at: str = ""
    revoked: bool = False

    @property
    def viewer(self) -> str:
        """The viewer id projections use: ``st``, the character, or ``*``."""
        if self.role == "st":
            return "st"
        return self.character if self.role == "player" and self.character else "*"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str, str]:
    """A fresh token, its hash, and its public id."""
    token = "jt_" + secrets.token_urlsafe(24)
    digest = _hash(token)
    return token, digest, "t-" + digest[:10]


class Tokens(Protocol):
    def issue(self, scene: str, role: Role, character: str | None = None) -> tuple[str, Grant]:
        """A new token for ``role`` in ``scene``: ``(token, grant)``; the token is not kept."""
        ...

    def check(self, token: str) -> Grant | None:
        """The grant of a live token, or None (unknown or revoked)."""
        ...

    def revoke(self, token_id: str) -> Grant | None: ...

    def list(self, scene: str) -> list[Grant]: ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SqliteTokens:
    """Tokens in the SQLite file beside the events (table ``tokens``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, hash TEXT UNIQUE NOT NULL, "
            "scene TEXT NOT NULL, role TEXT NOT NULL, character TEXT, created_at TEXT NOT NULL, "
            "revoked_at TEXT)"
        )

    def issue(self, scene: str, role: Role, character: str | None = None) -> tuple[str, Grant]:
        token, digest, token_id = new_token()
        grant = Grant(token_id=token_id, scene=scene, role=role, character=character, created_at=_now())
        with self.conn:
            self.conn.execute(
                "INSERT INTO tokens (token_id, hash, scene, role, character, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [token_id, digest, scene, role, character, grant.created_at],
            )
        return token, grant

    def _grant(self, row: tuple[object, ...] | None) -> Grant | None:
        if row is None:
            return None
        token_id, scene, role, character, created_at, revoked_at = row
        return msgspec.convert(
            {
                "token_id": token_id,
                "scene": scene,
                "role": role,
                "character": character,
                "created_at": created_at,
                "revoked": revoked_at is not None,
            },
            Grant,
        )

    _SELECT = "SELECT token_id, scene, role, character, created_at, revoked_at FROM tokens"

    def check(self, token: str) -> Grant | None:
        grant = self._grant(self.conn.execute(f"{self._SELECT} WHERE hash = ?", [_hash(token)]).fetchone())
        return grant if grant and not grant.revoked else None

    def revoke(self, token_id: str) -> Grant | None:
        with self.conn:
            self.conn.execute(
                "UPDATE tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
                [_now(), token_id],
            )
        return self._grant(self.conn.execute(f"{self._SELECT} WHERE token_id = ?", [token_id]).fetchone())

    def list(self, scene: str) -> list[Grant]:
        rows = self.conn.execute(f"{self._SELECT} WHERE scene = ? ORDER BY created_at, token_id", [scene])
        return [grant for row in rows if (grant := self._grant(row))]


class MemoryTokens:
    """Tokens in memory (a server without a database, and tests)."""

    def __init__(self) -> None:
        self._by_hash: dict[str, Grant] = {}

    def issue(self, scene: str, role: Role, character: str | None = None) -> tuple[str, Grant]:
        token, digest, token_id = new_token()
        grant = Grant(token_id=token_id, scene=scene, role=role, character=character, created_at=_now())
        self._by_hash[digest] = grant
        return token, grant

    def check(self, token: str) -> Grant | None:
        grant = self._by_hash.get(_hash(token))
        return grant if grant and not grant.revoked else None

    def revoke(self, token_id: str) -> Grant | None:
        for digest, grant in self._by_hash.items():
            if grant.token_id == token_id:
                self._by_hash[digest] = msgspec.structs.replace(grant, revoked=True)
                return self._by_hash[digest]
        return None

    def list(self, scene: str) -> list[Grant]:
        return [grant for grant in self._by_hash.values() if grant.scene == scene]
