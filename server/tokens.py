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

A token issued by another (``issue(…, by=token_id)``: an invitation, or the Storyteller token of a
scene created or forked from a console) records its issuer (``issued_by``); one made from the
command line has none. Revoking a token revokes every token it issued, and every token those
issued, in the same transaction, so ``ended()`` lists them all on every process. Issuing checks,
in its own transaction, that the issuer and each token above it is live, and refuses
(``IssuerEnded``) otherwise; the two transactions are ordered (SQLite's writer lock, a PostgreSQL
advisory lock), so a token is never issued on a grant being revoked. An issued token never
outlives its issuer: its expiry is at the latest its issuer's (asked for longer, or for no
expiry, it gets the issuer's).
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from server.store.sqlite import connect, on_disk

if TYPE_CHECKING:
    import psycopg

    from server.store.postgres import PostgresStore

TOKENS_LOCK = 0x4A55_544B
"""The PostgreSQL advisory lock (``"JUTK"``) held by every issue on a token and every revocation,
until its transaction ends: one never interleaves with another."""

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
    issued_by: str | None = None
    """The ``token_id`` of the token that issued this one (its invitation, or a scene it created
    or forked), or None (the command line)."""

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


class IssuerEnded(Exception):
    """The token asked to issue another (or one above it) is unknown, revoked or expired: nothing
    was issued."""


class Revocation(msgspec.Struct, frozen=True, kw_only=True):
    """A token revoked, and those revoked with it."""

    grant: Grant
    """The token, as it is now (revoked)."""
    cascaded: list[Grant] = []
    """The tokens it issued, and those they issued, that this revocation revoked (not those
    revoked before), by when they were issued."""


def _granted(
    scene: str,
    role: Role,
    character: str | None,
    expires: timedelta | None,
    issuer: tuple[str, str | None] | None = None,
) -> tuple[str, str, Grant]:
    """A fresh token, its hash, and what it grants from now (for ``expires``, or until revoked),
    issued by ``issuer`` (its ``token_id`` and expiry, which caps the new token's)."""
    token, digest, token_id = new_token()
    now = _now()
    expires_at = _stamp(now + expires) if expires else None
    by, cap = issuer or (None, None)
    if cap is not None and (expires_at is None or cap < expires_at):
        expires_at = cap
    grant = Grant(
        token_id=token_id,
        scene=scene,
        role=role,
        character=character,
        created_at=_stamp(now),
        expires_at=expires_at,
        issued_by=by,
    )
    return token, digest, grant


def _issuer(token_id: str, chain: Sequence[tuple[object, ...]]) -> tuple[str, str | None]:
    """The issuer ``token_id`` and the expiry it passes on, from ``chain``: its row and those of the
    tokens above it, each ``(expires_at, revoked_at)``; ``IssuerEnded`` if any of them has ended
    (or there are none: an unknown token)."""
    now = _stamp(_now())
    if not chain:
        raise IssuerEnded(f"no token {token_id!r}")
    expiries = [str(expires_at) for expires_at, _ in chain if expires_at is not None]
    if any(revoked_at is not None for _, revoked_at in chain) or any(at <= now for at in expiries):
        raise IssuerEnded(f"token {token_id!r}, or one that issued it, is revoked or expired")
    return token_id, min(expiries, default=None)


_CHAIN = (
    "WITH RECURSIVE up(token_id, issued_by, expires_at, revoked_at) AS ("
    "SELECT token_id, issued_by, expires_at, revoked_at FROM tokens WHERE token_id = {p} UNION "
    "SELECT t.token_id, t.issued_by, t.expires_at, t.revoked_at FROM tokens t JOIN up ON t.token_id = up.issued_by) "
    "SELECT expires_at, revoked_at FROM up"
)
"""A token's row and those of every token above it (``{p}``: the placeholder)."""
_CASCADE = (
    "WITH RECURSIVE down(token_id) AS (SELECT {p} UNION "
    "SELECT t.token_id FROM tokens t JOIN down ON t.issued_by = down.token_id) "
    "UPDATE tokens SET revoked_at = {p} WHERE token_id IN (SELECT token_id FROM down) AND revoked_at IS NULL "
    "RETURNING token_id, scene, role, character, created_at, expires_at, revoked_at, issued_by"
)
"""Revoke a token and every token below it (those still live): their rows, revoked."""


def _revocation(token_id: str, revoked: Sequence[tuple[object, ...]], now: Sequence[tuple[object, ...]]) -> Revocation:
    """The revocation of ``token_id`` from the rows it ``revoked`` and the token's row ``now``."""
    others = sorted((_grant(row) for row in revoked if row[0] != token_id), key=lambda g: (g.created_at, g.token_id))
    return Revocation(grant=_grant(now[0]), cascaded=others)


def _grant(row: tuple[object, ...]) -> Grant:
    token_id, scene, role, character, created_at, expires_at, revoked_at, issued_by = row
    return msgspec.convert(
        {
            "token_id": token_id,
            "scene": scene,
            "role": role,
            "character": character,
            "created_at": created_at,
            "expires_at": expires_at,
            "revoked": revoked_at is not None,
            "issued_by": issued_by,
        },
        Grant,
    )


_INSERT = (
    "INSERT INTO tokens (token_id, hash, scene, role, character, created_at, expires_at, issued_by) "
    "VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p})"
)


def _values(digest: str, g: Grant) -> list[object]:
    """What ``_INSERT`` writes of a new token."""
    return [g.token_id, digest, g.scene, g.role, g.character, g.created_at, g.expires_at, g.issued_by]


_SELECT = "SELECT token_id, scene, role, character, created_at, expires_at, revoked_at, issued_by FROM tokens"


class Tokens(Protocol):
    def issue(
        self,
        scene: str,
        role: Role,
        character: str | None = None,
        *,
        expires: timedelta | None = None,
        by: str | None = None,
    ) -> tuple[str, Grant]:
        """A new token for ``role`` in ``scene`` (valid for ``expires``, or until revoked):
        ``(token, grant)``; the token is not kept. ``by``: the ``token_id`` of the token issuing
        it, which must be live (and every token above it), else ``IssuerEnded``; the new token's
        expiry is then at the latest the issuer's."""
        ...

    def check(self, token: str) -> Grant | None:
        """The grant of a live token, or None (unknown, revoked or expired)."""
        ...

    def revoke(self, token_id: str) -> Revocation | None:
        """Revoke a token and every token below it (issued by it, or by one it issued), at once;
        None for an unknown id."""
        ...

    def list(self, scene: str) -> list[Grant]: ...

    def ended(self) -> set[str]:
        """The ids of every token revoked or expired, now."""
        ...

    def close(self) -> None: ...


class SqliteTokens:
    """Tokens in the SQLite file beside the events (table ``tokens``), on a connection of their own;
    an issue on a token and a revocation are each one ``BEGIN IMMEDIATE`` transaction, which
    SQLite's writer lock orders with every other process's."""

    def __init__(self, path: str) -> None:
        self.conn: sqlite3.Connection = connect(path)
        self._rows(
            "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, hash TEXT UNIQUE NOT NULL, "
            "scene TEXT NOT NULL, role TEXT NOT NULL, character TEXT, created_at TEXT NOT NULL, "
            "revoked_at TEXT)"
        )
        columns = {row[1] for row in self._rows("PRAGMA table_info(tokens)")}
        for column in ("expires_at", "issued_by"):  # added since the table was first made
            if column not in columns:
                self._rows(f"ALTER TABLE tokens ADD COLUMN {column} TEXT")
        # a scene's or a night's tokens, listed by the console: one night's links among many nights'
        self._rows("CREATE INDEX IF NOT EXISTS tokens_by_scene ON tokens (scene, created_at)")
        self._rows("CREATE INDEX IF NOT EXISTS tokens_by_issuer ON tokens (issued_by)")  # a revocation's cascade

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with on_disk():
            return self.conn.execute(sql, params).fetchall()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error."""
        self._rows("BEGIN IMMEDIATE")
        try:
            yield
            self._rows("COMMIT")
        finally:
            if self.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")

    def issue(
        self,
        scene: str,
        role: Role,
        character: str | None = None,
        *,
        expires: timedelta | None = None,
        by: str | None = None,
    ) -> tuple[str, Grant]:
        with self._transaction():
            issuer = _issuer(by, self._rows(_CHAIN.format(p="?"), [by])) if by else None
            token, digest, grant = _granted(scene, role, character, expires, issuer)
            self._rows(_INSERT.format(p="?"), _values(digest, grant))
        return token, grant

    def check(self, token: str) -> Grant | None:
        rows = self._rows(f"{_SELECT} WHERE hash = ?", [_hash(token)])
        grant = _grant(rows[0]) if rows else None
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Revocation | None:
        with self._transaction():
            revoked = self._rows(_CASCADE.format(p="?"), [token_id, _stamp(_now())])
            now = self._rows(f"{_SELECT} WHERE token_id = ?", [token_id])
        return _revocation(token_id, revoked, now) if now else None

    def list(self, scene: str) -> list[Grant]:
        return [_grant(row) for row in self._rows(f"{_SELECT} WHERE scene = ? ORDER BY created_at, token_id", [scene])]

    def ended(self) -> set[str]:
        rows = self._rows(
            "SELECT token_id FROM tokens WHERE revoked_at IS NOT NULL OR expires_at <= ?", [_stamp(_now())]
        )
        return {row[0] for row in rows}

    def close(self) -> None:
        self.conn.close()


class PostgresTokens:
    """Tokens in the PostgreSQL database beside the events (table ``tokens``, created with the
    store's), through the store's pool: a token revoked by one process is refused by every one. An
    issue on a token and a revocation each hold ``TOKENS_LOCK`` for their transaction."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    @contextlib.contextmanager
    def _locked(self) -> Iterator[psycopg.Connection[Any]]:
        """A transaction on a connection of the pool, holding ``TOKENS_LOCK``."""
        import psycopg

        from server.store.postgres import unavailable

        try:
            with self.store.pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [TOKENS_LOCK])
                yield conn
        except psycopg.Error as err:
            raise unavailable(err, self.store.where) from err

    def issue(
        self,
        scene: str,
        role: Role,
        character: str | None = None,
        *,
        expires: timedelta | None = None,
        by: str | None = None,
    ) -> tuple[str, Grant]:
        if by is None:
            token, digest, grant = _granted(scene, role, character, expires)
            self.store.query(_INSERT.format(p="%s"), _values(digest, grant))
            return token, grant
        with self._locked() as conn:
            issuer = _issuer(by, conn.execute(_CHAIN.format(p="%s"), [by]).fetchall())
            token, digest, grant = _granted(scene, role, character, expires, issuer)
            conn.execute(_INSERT.format(p="%s"), _values(digest, grant))
        return token, grant

    def check(self, token: str) -> Grant | None:
        rows = self.store.query(f"{_SELECT} WHERE hash = %s", [_hash(token)])
        grant = _grant(rows[0]) if rows else None
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Revocation | None:
        with self._locked() as conn:
            revoked = conn.execute(_CASCADE.format(p="%s"), [token_id, _stamp(_now())]).fetchall()
            now = conn.execute(f"{_SELECT} WHERE token_id = %s", [token_id]).fetchall()
        return _revocation(token_id, revoked, now) if now else None

    def list(self, scene: str) -> list[Grant]:
        rows = self.store.query(f"{_SELECT} WHERE scene = %s ORDER BY created_at, token_id", [scene])
        return [_grant(row) for row in rows]

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

    def _by_id(self, token_id: str | None) -> Grant | None:
        return next((g for g in self._by_hash.values() if g.token_id == token_id), None)

    def issue(
        self,
        scene: str,
        role: Role,
        character: str | None = None,
        *,
        expires: timedelta | None = None,
        by: str | None = None,
    ) -> tuple[str, Grant]:
        issuer = None
        if by is not None:
            chain, above = [], self._by_id(by)
            while above is not None:
                chain.append((above.expires_at, "revoked" if above.revoked else None))
                above = self._by_id(above.issued_by)
            issuer = _issuer(by, chain)
        token, digest, grant = _granted(scene, role, character, expires, issuer)
        self._by_hash[digest] = grant
        return token, grant

    def check(self, token: str) -> Grant | None:
        grant = self._by_hash.get(_hash(token))
        return grant if grant and not grant.revoked and not grant.expired(_now()) else None

    def revoke(self, token_id: str) -> Revocation | None:
        if self._by_id(token_id) is None:
            return None
        below, more = {token_id}, {token_id}
        while more:
            more = {g.token_id for g in self._by_hash.values() if g.issued_by in more} - below
            below |= more
        cascaded = []
        for digest, grant in self._by_hash.items():
            if grant.token_id in below and not grant.revoked:
                self._by_hash[digest] = msgspec.structs.replace(grant, revoked=True)
                if grant.token_id != token_id:
                    cascaded.append(self._by_hash[digest])
        cascaded.sort(key=lambda g: (g.created_at, g.token_id))
        revoked = self._by_id(token_id)
        assert revoked is not None
        return Revocation(grant=revoked, cascaded=cascaded)

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
