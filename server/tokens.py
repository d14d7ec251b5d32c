"""Access tokens: who may connect to a scene, and as what, and until when.

A token is random (``jt_`` and 32 url-safe characters), shown once when issued, and stored only as
its SHA-256. Its public ``token_id`` (``t-`` and the first 10 hex digits of that hash) names it for
listing and revoking. Each token grants one role in one stream: ``st``, ``player`` (bound to one
character) or ``spectator``; it may carry an expiry. ``ended()`` lists the tokens that may no
longer be used (revoked or expired, by any process), so a server can close their connections.

A stream is a scene or a game night (whose id the ``scene`` column holds, as the event store's
does): a night's token is one link per player per night, good for the night and for every scene
of it (``server.connection``: the Storyteller's and a spectator's in each scene of the night, a
player's in the scenes its character is or has been in, acting as that character). ``list(night)``
lists a night's tokens, as ``list(scene)`` a scene's.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from server.store.sqlite import connect, on_disk

if TYPE_CHECKING:
    from server.store.postgres import PostgresStore

Role = Literal["st", "player", "spectator"]


class Grant(msgspec.Struct, frozen=True, kw_only=True):
    """What a token allows (never the token itself)."""

    token_id: str
    scene: str
    """The scene, or the game night, the token is for."""
    role: Role
    character: str | None = None
    created_at: str = ""
    expires_at: str | None = None
    revoked: bool = False

    @property
    def viewer(self) -> str:
        """The viewer id projections use: ``st``, the character, or ``*``."""
        if self.role == "st":
            return "st"
        return self.character if self.role == "player" and self.character else "*"

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= _stamp(now)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _stamp(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="seconds")


def _now() -> datetime:
    return datetime.now(UTC)


def new_token() -> tuple[str, str, str]:
    """A fresh token, its hash, and its public id."""
    token = "jt_" + secrets.token_urlsafe(24)
    digest = _hash(token)
    return token, digest, "t-" + digest[:10]


def _granted(scene: str, role: Role, character: str | None, expires: timedelta | None) -> tuple[str, str, Grant]:
    """A fresh token, its hash, and what it grants from now (for ``expires``, or until revoked)."""
    token, digest, token_id = new_token()
    now = _now()
    grant = Grant(
        token_id=token_id,
        scene=scene,
        role=role,
        character=character,
        created_at=_stamp(now),
        expires_at=_stamp(now + expires) if expires else None,
    )
    return token, digest, grant


class Tokens(Protocol):
    def issue(
        self, scene: str, role: Role, character: str | None = None, *, expires: timedelta | None = None
    ) -> tuple[str, Grant]:
        """A new token for ``role`` in ``scene`` (valid for ``expires``, or until revoked):
        ``(token, grant)``; the token is not kept."""
        ...

    def check(self, token: str) -> Grant | None:
        """The grant of a live token, or None (unknown, revoked or expired)."""
        ...

    def revoke(self, token_id: str) -> Grant | None: ...

    def list(self, scene: str) -> list[Grant]: ...

    def ended(self) -> set[str]:
        """The ids of every token revoked or expired, now."""
        ...

    def close(self) -> None: ...


class SqliteTokens:
    """Tokens in the SQLite file beside the events (table ``tokens``), on a connection of their own."""

    def __init__(self, path: str) -> None:
        self.conn: sqlite3.Connection = connect(path)
        self._rows(
            "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, hash TEXT UNIQUE NOT NULL, "
            "scene TEXT NOT NULL, role TEXT NOT NULL, character TEXT, created_at TEXT NOT NULL, "
            "revoked_at TEXT)"
        )
        if "expires_at" not in {row[1] for row in self._rows("PRAGMA table_info(tokens)")}:
            self._rows("ALTER TABLE tokens ADD COLUMN expires_at TEXT")
        # a scene's or a night's tokens, listed by the console: one night's links among many nights'
        self._rows("CREATE INDEX IF NOT EXISTS tokens_by_scene ON tokens (scene, created_at)")

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with on_disk():
            return self.conn.execute(sql, params).fetchall()

    def issue(
        self, scene: str, role: Role, character: str | None = None, *, expires: timedelta | None = None
    ) -> tuple[str, Grant]:
        token, digest, grant = _granted(scene, role, character, expires)
        self._rows(
            "INSERT INTO tokens (token_id, hash, scene, role, character, created_at, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [grant.token_id, digest, scene, role, character, grant.created_at, grant.expires_at],
        )
        return token, grant

    @staticmethod
    def _grant(row: tuple[object, ...]) -> Grant:
        token_id, scene, role, character, created_at, expires_at, revoked_at = row
        return msgspec.convert(
            {
                "token_id": token_id,
                "scene": scene,
                "role": role,
                "character": character,
                "created_at": created_at,
                "expires_at": expires_at,
                "revoked": revoked_at is not None,
            },
            Grant,
        )

    _SELECT = "SELECT token_id, scene, role, character, created_at, expires_at, revoked_at FROM tokens"

    def check(self, token: str) -> Grant | None:
        rows = self._rows(f"{self._SELECT} WHERE hash = ?", [_hash(token)])
        grant = self._grant(rows[0]) if rows else None
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Grant | None:
        self._rows(
            "UPDATE tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL", [_stamp(_now()), token_id]
        )
        rows = self._rows(f"{self._SELECT} WHERE token_id = ?", [token_id])
        return self._grant(rows[0]) if rows else None

    def list(self, scene: str) -> list[Grant]:
        return [
            self._grant(row)
            for row in self._rows(f"{self._SELECT} WHERE scene = ? ORDER BY created_at, token_id", [scene])
        ]

    def ended(self) -> set[str]:
        rows = self._rows(
            "SELECT token_id FROM tokens WHERE revoked_at IS NOT NULL OR expires_at <= ?", [_stamp(_now())]
        )
        return {row[0] for row in rows}

    def close(self) -> None:
        self.conn.close()


class PostgresTokens:
    """Tokens in the PostgreSQL database beside the events (table ``tokens``, created with the
    store's), through the store's pool: a token revoked by one process is refused by every one."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def issue(
        self, scene: str, role: Role, character: str | None = None, *, expires: timedelta | None = None
    ) -> tuple[str, Grant]:
        token, digest, grant = _granted(scene, role, character, expires)
        self.store.query(
            "INSERT INTO tokens (token_id, hash, scene, role, character, created_at, expires_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [grant.token_id, digest, scene, role, character, grant.created_at, grant.expires_at],
        )
        return token, grant

    _SELECT = SqliteTokens._SELECT

    def check(self, token: str) -> Grant | None:
        rows = self.store.query(f"{self._SELECT} WHERE hash = %s", [_hash(token)])
        grant = SqliteTokens._grant(rows[0]) if rows else None
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Grant | None:
        rows = self.store.query(
            "UPDATE tokens SET revoked_at = coalesce(revoked_at, %s) WHERE token_id = %s "
            "RETURNING token_id, scene, role, character, created_at, expires_at, revoked_at",
            [_stamp(_now()), token_id],
        )
        return SqliteTokens._grant(rows[0]) if rows else None

    def list(self, scene: str) -> list[Grant]:
        return [
            SqliteTokens._grant(row)
            for row in self.store.query(f"{self._SELECT} WHERE scene = %s ORDER BY created_at, token_id", [scene])
        ]

    def ended(self) -> set[str]:
        rows = self.store.query(
            "SELECT token_id FROM tokens WHERE revoked_at IS NOT NULL OR expires_at <= %s", [_stamp(_now())]
        )
        return {row[0] for row in rows}

    def close(self) -> None:
        pass  # the store's pool, closed with the store


class MemoryTokens:
    """Tokens in memory (a server without a database, and tests)."""

    def __init__(self) -> None:
        self._by_hash: dict[str, Grant] = {}

    def issue(
        self, scene: str, role: Role, character: str | None = None, *, expires: timedelta | None = None
    ) -> tuple[str, Grant]:
        token, digest, grant = _granted(scene, role, character, expires)
        self._by_hash[digest] = grant
        return token, grant

    def check(self, token: str) -> Grant | None:
        grant = self._by_hash.get(_hash(token))
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Grant | None:
        for digest, grant in self._by_hash.items():
            if grant.token_id == token_id:
                self._by_hash[digest] = msgspec.structs.replace(grant, revoked=True)
                return self._by_hash[digest]
        return None

    def list(self, scene: str) -> list[Grant]:
        return sorted(
            (grant for grant in self._by_hash.values() if grant.scene == scene),
            key=lambda g: (g.created_at, g.token_id),
        )

    def ended(self) -> set[str]:
        now = _now()
        return {g.token_id for g in self._by_hash.values() if g.revoked or g.expired(now)}

    def close(self) -> None:
        pass
