"""The event store in PostgreSQL, for many ``justicar serve`` processes on one log (psycopg 3).

``--db postgresql://user:password@host:port/dbname`` (or ``postgres://…``) picks it; every other
``--db`` is a SQLite file. Two settings of ours ride in the URL's query and are taken out of it
before it reaches libpq (every other parameter is libpq's own, ``sslmode``, ``connect_timeout``…):

- ``pool_size``: the most connections this store opens (default ``POOL_SIZE``); a server uses
  one for its writer, one for its worker and one for token checks at a time, so 3 is the least
  that never waits (the feed of other processes' commits, ``server.notify``, listens, sweeps and takes
  turns on connections of its own).
- ``statement_timeout``: how long one statement may run before the server cancels it
  (PostgreSQL's own units: ``5000`` is milliseconds, ``5s``, ``1min``; default
  ``STATEMENT_TIMEOUT``); a cancelled statement is ``StorageUnavailable``, nothing written.

The guarantees are SQLite's (``server.store.sqlite``): ``events`` holds every record with
``PRIMARY KEY (scene, seq)``, the records' exact bytes (``at`` and ``data`` as text, as sealed by
``domain.log``, so a scene's head hash is the same in every backend); ``commands`` holds each
accepted command id per scene and actor, with the digest of its body and the events it appended.
An append is one transaction: check the version and that the log does not hold the command, insert
the events and the command, announce it, commit. Two processes appending to one scene race on the
primary key or on the command's: the loser's unique violation is ``ConcurrencyConflict`` and it
wrote nothing (``append_batch`` writes a group commit in one statement, so a loser there fails it
whole; the group is then written again command by command, each in a savepoint of its own, so one
loser leaves the others in). Each commit is announced, inside its transaction (so only once it is
committed), by ``NOTIFY`` on the channel of the scene's group (``server.store.channels``) with
``"SEQ SCENE"`` per scene written (its last seq; ``server.notify`` listens): the events themselves
are read from the table. A commit whose answer was lost (the connection dropped during ``COMMIT``)
is ``StorageUnavailable`` though it may have landed: a command sent again
with its id finds its first result (``command``).
``alarms`` holds when each scene next needs waking (``Append.due``), written in the append's own
transaction, as in SQLite; every process reads it (``server.alarms``) to take over the deadlines of
a process that died.
``unfinished`` names each scene being copied in steps (a fork, an import: ``server.history``) and
who copies it, as in SQLite: until its last step the scene has no events for any read (each read
adds ``_WHOLE``) and an append to it conflicts; each step locks its row (``FOR UPDATE``), so a copy
taking it over waits for the step in progress.

The interface is synchronous, as every store's is: the server calls it from its writer and worker
threads (``server.writer``), so this module uses psycopg's sync API over a
``psycopg_pool.ConnectionPool`` (each call takes a connection, checked first, and gives it back)
rather than its async one, which would need the event loop the interface keeps stores out of.
Reads go in pages of ``PAGE`` events, each on a connection taken for that page only, so a reader
that stops half-way holds nothing.

On start the store checks the server (``MIN_SERVER``), creates its tables when they are missing
(under an advisory lock, so processes starting together do not race) or checks them, and names a
missing privilege or a schema written by a newer Justicar in its error. Tokens
(``server.tokens.PostgresTokens``) and snapshots (``server.snapshots``) live in the same database,
in tables this module creates with the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import msgspec
import psycopg
import psycopg_pool
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from domain.log import GENESIS, Recorded, Row, Wire, decode_event, format_at
from server.store.base import (
    Append,
    Batched,
    CommandRecord,
    ConcurrencyConflict,
    Repeated,
    Step,
    StorageUnavailable,
    StoreError,
    as_logged,
    chain,
    claimable,
    from_micros,
    resumed,
    to_micros,
)
from server.store.channels import channel

MIN_SERVER = 130000
"""PostgreSQL 13 or newer (nothing newer is needed; the tests run against 15)."""
SCHEMA_VERSION = 1
POOL_SIZE = 8
STATEMENT_TIMEOUT = "30s"
CONNECT_TIMEOUT = 10
POOL_WAIT = 2.0
"""Seconds a call waits for a connection of the pool: while the database is away, how soon a read or
a write is ``StorageUnavailable`` (nothing written) rather than left waiting."""
RECONNECT = 2.0
"""Seconds the pool keeps trying to connect on its own, its waits doubling (1 s, 2 s, …); then it
tries again as soon as a call needs a connection. So while the database is away, tries are made
about once a second, and the first call after it is back connects (not one up to minutes later)."""
PAGE = 2000
_LOCK = 0x4A55_5354  # the advisory lock held while the schema is created ("JUST")

_COLUMNS = "seq, scene, type, at, actor, command, prev, hash, data"
_WHOLE = " AND NOT EXISTS (SELECT 1 FROM unfinished WHERE scene = %s)"
"""What every read of a scene adds (the scene once more): not a scene still being copied in."""

TABLES: dict[str, str] = {
    "justicar_schema": "CREATE TABLE IF NOT EXISTS justicar_schema (version integer NOT NULL)",
    "events": (
        "CREATE TABLE IF NOT EXISTS events (scene text NOT NULL, seq bigint NOT NULL, type text NOT NULL, "
        "at text NOT NULL, actor text NOT NULL, command text NOT NULL, prev text NOT NULL, hash text NOT NULL, "
        "data text NOT NULL, pos bigint GENERATED ALWAYS AS IDENTITY, PRIMARY KEY (scene, seq))"
    ),
    "commands": (
        "CREATE TABLE IF NOT EXISTS commands (scene text NOT NULL, actor text NOT NULL, id text NOT NULL, "
        "digest text NOT NULL, first_seq bigint NOT NULL, last_seq bigint NOT NULL, PRIMARY KEY (scene, actor, id))"
    ),
    "tokens": (
        "CREATE TABLE IF NOT EXISTS tokens (token_id text PRIMARY KEY, hash text UNIQUE NOT NULL, "
        "scene text NOT NULL, role text NOT NULL, character text, created_at text NOT NULL, "
        "expires_at text, revoked_at text, issued_by text)"
    ),
    # a scene being copied in steps (a fork, an import) and who copies it: until its last step it
    # does not exist for readers and refuses appends
    "unfinished": "CREATE TABLE IF NOT EXISTS unfinished (scene text PRIMARY KEY, owner text NOT NULL)",
    "snapshots": (
        "CREATE TABLE IF NOT EXISTS snapshots (scene text NOT NULL, version bigint NOT NULL, hash text NOT NULL, "
        "format integer NOT NULL, digest text NOT NULL, state bytea NOT NULL, PRIMARY KEY (scene, version))"
    ),
    # when each scene next needs waking (``Append.due``, in microseconds since 1970): made, with the
    # others missing, in a database of an older version as a server opens it
    "alarms": "CREATE TABLE IF NOT EXISTS alarms (scene text PRIMARY KEY, due bigint NOT NULL)",
}
OPTIONAL = frozenset({"alarms"})
"""Tables a read-only store does without in a database of an older version (it reads none of them)."""
INDEXES = (
    "CREATE INDEX IF NOT EXISTS events_by_command ON events (scene, actor, command)",
    "CREATE INDEX IF NOT EXISTS events_first ON events (at, pos) WHERE seq = 1",  # scenes(), in the order they began
    "CREATE INDEX IF NOT EXISTS commands_by_seq ON commands (scene, last_seq)",  # acknowledged()
    "CREATE INDEX IF NOT EXISTS tokens_by_scene ON tokens (scene, created_at)",
    "CREATE INDEX IF NOT EXISTS tokens_by_issuer ON tokens (issued_by)",  # a revocation's cascade
    "CREATE INDEX IF NOT EXISTS alarms_by_due ON alarms (due)",  # the alarm's look at the rows due soon
)
ADDED = {("tokens", "issued_by"): ("text", "CREATE INDEX IF NOT EXISTS tokens_by_issuer ON tokens (issued_by)")}
"""Columns added to a table since it was first made (with what they need), added at start to a
database that lacks them."""
# what the server does to each table; a read-only store (log, verify, replay, export) needs SELECT
WRITES = {
    "events": "INSERT",
    "commands": "INSERT, DELETE",
    "tokens": "INSERT, UPDATE",
    "unfinished": "INSERT, UPDATE, DELETE",
    "snapshots": "INSERT, UPDATE, DELETE",
    "alarms": "INSERT, UPDATE, DELETE",
}


@dataclass(frozen=True)
class Settings:
    """A ``--db`` URL read: what libpq gets, and our two settings."""

    conninfo: str = field(repr=False)  # it may hold the password
    pool_size: int = POOL_SIZE
    statement_timeout: str = STATEMENT_TIMEOUT

    @classmethod
    def from_url(cls, url: str) -> Settings:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        ours = {k: v for k, v in query if k in ("pool_size", "statement_timeout")}
        rest = [(k, v) for k, v in query if k not in ours]
        if not any(k == "connect_timeout" for k, _ in rest):
            rest.append(("connect_timeout", str(CONNECT_TIMEOUT)))
        try:
            pool_size = int(ours.get("pool_size", POOL_SIZE))
        except ValueError:
            raise StoreError(f"pool_size must be a number, not {ours['pool_size']!r}") from None
        if pool_size < 1:
            raise StoreError("pool_size must be at least 1")
        conninfo = urlunsplit(parts._replace(query=urlencode(rest, quote_via=quote)))  # a space as %20: libpq's
        try:
            conninfo_to_dict(conninfo)
        except psycopg.ProgrammingError as err:
            raise StoreError(f"{describe(url)} is not a PostgreSQL URL libpq understands: {err}") from None
        return cls(conninfo, pool_size, ours.get("statement_timeout", STATEMENT_TIMEOUT))


def _checked(item: Append, version: int, copying: bool, logged: Sequence[Any]) -> bool:
    """Whether ``item`` may go in on its scene's head (``version``) and what the log holds of its
    command (``logged``, as ``_as_logged`` reads it): ``ConcurrencyConflict`` if the scene moved or
    is being copied in, ``Repeated`` if the command is in already; else whether an index row of it
    must go first (one for a command the log does not hold)."""
    scene = item.scene
    if version != item.expected_version:
        raise ConcurrencyConflict(f"scene {scene!r} is at version {version}, not {item.expected_version}")
    if copying:
        raise ConcurrencyConflict(f"scene {scene!r} is being copied in (a fork or an import)")
    prior, indexed = _as_logged(scene, item.actor, item.command, logged)
    if prior is not None:
        raise Repeated(prior)
    return indexed


def _as_logged(scene: str, actor: str, command_id: str, row: Sequence[Any]) -> tuple[CommandRecord | None, bool]:
    """``as_logged`` from a row of (first, last, count of the command's events, and its index row's
    digest, first and last seq); and whether the index has a row for it."""
    first, last, count, digest, first_seq, last_seq = row
    indexed = (digest, first_seq, last_seq) if digest is not None else None
    return as_logged(scene, actor, command_id, (first, last, count) if count else None, indexed), indexed is not None


def describe(url: str) -> str:
    """The URL without its password or query (for logs and errors)."""
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"postgresql://{user}{parts.hostname or ''}{port}{parts.path}"


def configurer(statement_timeout: str, readonly: bool) -> Callable[[psycopg.Connection[Any]], None]:
    """What each new connection is set to: the statement timeout, and read-only transactions for a
    read-only store. A function of its own, not a method: a pool holding the store would keep a
    store nobody holds alive, and its pool trying to connect, until the garbage collector ran."""

    def configure(conn: psycopg.Connection[Any]) -> None:
        conn.execute("SELECT set_config('statement_timeout', %s, false)", [statement_timeout])
        if readonly:
            conn.execute("SET default_transaction_read_only = on")

    return configure


def unavailable(err: psycopg.Error, where: str = "") -> StorageUnavailable:
    """A driver error as the store's: the server, not the caller, is at fault."""
    at = f" ({where})" if where else ""
    text = str(err).strip() or type(err).__name__
    return StorageUnavailable(f"the PostgreSQL database{at} could not be written or read: {text}")


@contextlib.contextmanager
def on_server(where: str = "") -> Iterator[None]:
    """The server's errors (unreachable, cancelled, full, read-only, refused) as
    ``StorageUnavailable``; a unique violation as ``ConcurrencyConflict``."""
    try:
        yield
    except pg_errors.UniqueViolation as err:
        raise ConcurrencyConflict(f"changed under this write: {err}") from err
    except psycopg.Error as err:
        raise unavailable(err, where) from err


class _Apart(Exception):
    """A group to write item by item, each in a savepoint (``PostgresStore._group``)."""


class PostgresStore(Batched):
    concurrent = True
    """Appends may run side by side, each on a connection of the pool (``server.writer.FLIGHTS``)."""

    def __init__(self, url: str, *, readonly: bool = False, notify: bool = True) -> None:
        self.url = url
        """As given (with our settings in its query): what ``open_store`` opens again."""
        self.where = describe(url)
        self.readonly = readonly
        self.notify = notify
        self.settings = Settings.from_url(url)
        try:
            with psycopg.connect(self.settings.conninfo, autocommit=True) as conn:
                self._check_server(conn)
                configurer(self.settings.statement_timeout, readonly)(conn)
                if not readonly:
                    self._create(conn)
                self._check_schema(conn)
        except pg_errors.InsufficientPrivilege as err:
            raise StoreError(f"{self.where}: {err}".strip()) from err
        except psycopg.OperationalError as err:
            raise StorageUnavailable(f"cannot reach PostgreSQL at {self.where}: {str(err).strip()}") from err
        except psycopg.Error as err:
            raise StoreError(f"{self.where}: {str(err).strip()}") from err
        self.pool = psycopg_pool.ConnectionPool(
            self.settings.conninfo,
            min_size=1,
            max_size=self.settings.pool_size,
            kwargs={"autocommit": True},
            configure=configurer(self.settings.statement_timeout, readonly),  # no reference back to the store
            check=psycopg_pool.ConnectionPool.check_connection,
            timeout=POOL_WAIT,
            reconnect_timeout=RECONNECT,
            name="justicar",
            open=True,
        )

    @property
    def conninfo(self) -> str:
        """The URL for libpq (``psycopg.connect``): without our settings, which libpq refuses."""
        return self.settings.conninfo

    # -- start-up ------------------------------------------------------------------------------

    def _check_server(self, conn: psycopg.Connection[Any]) -> None:
        version = conn.info.server_version
        if version < MIN_SERVER:
            have = f"{version // 10000}.{version % 10000}"
            raise StoreError(
                f"{self.where} runs PostgreSQL {have}; Justicar needs PostgreSQL {MIN_SERVER // 10000} or newer"
            )

    def _missing(self, conn: psycopg.Connection[Any]) -> list[str]:
        found = {
            row[0]
            for row in conn.execute(
                "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relname = ANY(%s) "
                "AND pg_table_is_visible(c.oid)",
                [list(TABLES)],
            )
        }
        return [name for name in TABLES if name not in found]

    def _create(self, conn: psycopg.Connection[Any]) -> None:
        missing = self._missing(conn)
        if missing:
            row = conn.execute(
                "SELECT current_user, current_schema(), has_schema_privilege(current_schema(), 'CREATE')"
            ).fetchone()
            assert row is not None
            user, schema, may_create = row
            if schema is None:
                raise StoreError(f"{self.where}: no schema to create the tables in (check the role's search_path)")
            if not may_create:
                raise StoreError(
                    f"{self.where}: the tables {', '.join(missing)} are missing and role {user!r} lacks the CREATE "
                    f"privilege on schema {schema!r} to create them (GRANT CREATE ON SCHEMA {schema} TO {user}, "
                    "or start once as a role that has it)"
                )
        with conn.transaction():
            if missing:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
                for sql in TABLES.values():
                    conn.execute(sql)
                for sql in INDEXES:
                    conn.execute(sql)
                if not conn.execute("SELECT 1 FROM justicar_schema").fetchone():
                    conn.execute("INSERT INTO justicar_schema (version) VALUES (%s)", [SCHEMA_VERSION])
        self._add_columns(conn)

    def _add_columns(self, conn: psycopg.Connection[Any]) -> None:
        """Add the columns of ``ADDED`` a database made by an older Justicar lacks (the tables'
        owner may: a role that may not is told to start once as the owner)."""
        for (table, column), (kind, also) in ADDED.items():
            has = "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attname = %s AND NOT attisdropped"
            if conn.execute(has, [table, column]).fetchone():
                continue
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
                    conn.execute(also)
            except pg_errors.InsufficientPrivilege as err:
                raise StoreError(
                    f"{self.where}: the table {table} lacks the column {column} (added by this version) and this "
                    f"role may not add it: start once as the tables' owner ({str(err).strip()})"
                ) from err

    def _check_schema(self, conn: psycopg.Connection[Any]) -> None:
        missing = absent = self._missing(conn)
        self.alarmed = "alarms" not in absent
        if self.readonly:
            missing = [name for name in missing if name not in OPTIONAL]
        if missing:
            if len(absent) == len(TABLES):
                raise StoreError(f"{self.where} is not a Justicar database: it has none of its tables")
            raise StoreError(f"{self.where} is not a Justicar database: it lacks the tables {', '.join(missing)}")
        row = conn.execute("SELECT max(version) FROM justicar_schema").fetchone()
        version = row[0] if row else None
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{self.where} was written by a newer Justicar (schema {version}); upgrade to use it")
        needed = {name: "SELECT" for name in TABLES if name not in OPTIONAL or name not in absent}
        if not self.readonly:
            for name, writes in WRITES.items():
                needed[name] += ", " + writes
        lacking = []
        for name, privileges in needed.items():
            for privilege in privileges.split(", "):
                held = conn.execute("SELECT has_table_privilege(%s, %s)", [name, privilege]).fetchone()
                if not (held and held[0]):
                    lacking.append(f"{privilege} on {name}")
        if lacking:
            user = conn.execute("SELECT current_user").fetchone()
            raise StoreError(
                f"{self.where}: role {user[0] if user else '?'!r} lacks the privilege {'; '.join(lacking)}"
                " (GRANT it, or connect as a role that has it)"
            )

    # -- writing -------------------------------------------------------------------------------

    def append_batch(self, items: Sequence[Append]) -> list[list[Recorded] | ConcurrencyConflict]:
        self._writable()
        if not items:
            return []
        try:
            with self.pool.connection() as conn:
                try:
                    return self._together(conn, items)
                except pg_errors.UniqueViolation as err:  # another process wrote first
                    if len(items) == 1:
                        return [ConcurrencyConflict(f"scene {items[0].scene!r} changed under this write: {err}")]
                    return self._group(conn, items)  # item by item: the others of the group go in
                except _Apart:
                    return self._group(conn, items)
        except psycopg.Error as err:
            raise unavailable(err, self.where) from err

    def _together(
        self, conn: psycopg.Connection[Any], items: Sequence[Append]
    ) -> list[list[Recorded] | ConcurrencyConflict]:
        """The whole group in two statements, whatever its size: one look at every item's scene
        and command (``_LOOK``), then one statement that writes them all (``_WRITE``: the events,
        the ``commands`` rows, the ``alarms`` rows and the ``NOTIFY``), which is its transaction,
        so all of it commits or none. An item whose look finds its scene moved, or being copied in,
        or the command there already, is answered so and left out (and the items of its scene
        after it conflict: they were decided on it). A race lost on a key meanwhile (another
        process appended between the look and the write) fails the whole statement, nothing
        written: the caller then writes the group item by item (``_group``), each in a savepoint.
        So does a group the look cannot settle alone: a command id twice in it, or an index row to
        delete."""
        keys = [(item.scene, item.actor, item.command) for item in items]
        if len(set(keys)) < len(keys):
            raise _Apart
        look = {"s": [k[0] for k in keys], "a": [k[1] for k in keys], "c": [k[2] for k in keys]}
        rows = conn.execute(self._LOOK, look, prepare=True).fetchall()
        out: list[list[Recorded] | ConcurrencyConflict] = []
        heads: dict[str, tuple[int, str]] = {}
        stale: set[str] = set()
        written: list[tuple[Recorded, bytes]] = []
        commands: list[tuple[Append, int, int]] = []
        due: dict[str, datetime | None] = {}
        for item, row in zip(items, rows, strict=True):
            scene = item.scene
            if scene in stale:
                out.append(ConcurrencyConflict(f"scene {scene!r}: an earlier item of this batch conflicted"))
                continue
            version, prev = heads.get(scene) or (row[1] or 0, row[2] or GENESIS)
            try:
                indexed = _checked(item, version, bool(row[9]), row[3:9])
            except ConcurrencyConflict as err:
                out.append(err)
                stale.add(scene)
                continue
            if indexed:  # a row for a command the log does not hold (reported by ``as_logged``)
                raise _Apart
            sealed = chain(scene, version, prev, item.events, command=item.command, actor=item.actor, at=item.at)
            out.append([record for record, _ in sealed])
            if sealed:
                written += sealed
                heads[scene] = (sealed[-1][0].seq, sealed[-1][0].hash)
                commands.append((item, sealed[0][0].seq, sealed[-1][0].seq))
                if item.due is None or isinstance(item.due, datetime):
                    due[scene] = item.due
        if written:
            records = [r for r, _ in written]
            kept = {scene: when for scene, when in due.items() if when is not None}
            conn.execute(
                self._WRITE,
                [
                    [r.seq for r in records],
                    [r.scene for r in records],
                    [r.type for r in records],
                    [format_at(r.at) for r in records],
                    [r.actor for r in records],
                    [r.command for r in records],
                    [r.prev for r in records],
                    [r.hash for r in records],
                    [data.decode() for _, data in written],
                    [item.scene for item, _, _ in commands],
                    [item.actor for item, _, _ in commands],
                    [item.command for item, _, _ in commands],
                    [item.digest for item, _, _ in commands],
                    [first for _, first, _ in commands],
                    [last for _, _, last in commands],
                    [scene for scene, when in due.items() if when is None],
                    list(kept),
                    [to_micros(when) for when in kept.values()],
                    *self._announced({scene: seq for scene, (seq, _) in heads.items()}),
                ],
                prepare=True,
            )
        return out

    _WRITE = (
        f"WITH written AS (INSERT INTO events ({_COLUMNS}) SELECT * FROM unnest(%b::bigint[], %b::text[], "
        "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[])), "
        "indexed AS (INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) SELECT * FROM "
        "unnest(%b::text[], %b::text[], %b::text[], %b::text[], %b::bigint[], %b::bigint[])), "
        "quiet AS (DELETE FROM alarms WHERE scene = ANY(%b::text[])), "
        "timed AS (INSERT INTO alarms (scene, due) SELECT * FROM unnest(%b::text[], %b::bigint[]) "
        "ON CONFLICT (scene) DO UPDATE SET due = EXCLUDED.due) "
        "SELECT pg_notify(c, p) FROM unnest(%b::text[], %b::text[]) AS n(c, p)"
    )
    """A group's records, its commands' index rows, its scenes' alarms (deleted, set) and its
    announcements (one per scene, its last seq), in one statement: one transaction."""

    def _announced(self, heads: dict[str, int]) -> tuple[list[str], list[str]]:
        """The channels and payloads of a group's announcements: one per scene written, its last
        seq (none when this store does not announce)."""
        if not self.notify:
            return [], []
        return [channel(scene) for scene in heads], [f"{seq} {scene}" for scene, seq in heads.items()]

    _LOOK = (
        "SELECT i.n, h.seq, h.hash, e.first, e.last, e.n, c.digest, c.first_seq, c.last_seq, "
        "EXISTS (SELECT 1 FROM unfinished u WHERE u.scene = i.s) "
        "FROM unnest(%(s)s::text[], %(a)s::text[], %(c)s::text[]) WITH ORDINALITY AS i(s, a, c, n) "
        "CROSS JOIN LATERAL (SELECT min(seq) AS first, max(seq) AS last, count(*) AS n FROM events "
        "WHERE scene = i.s AND actor = i.a AND command = i.c) AS e "
        "LEFT JOIN commands c ON c.scene = i.s AND c.actor = i.a AND c.id = i.c "
        "LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE scene = i.s ORDER BY seq DESC LIMIT 1) AS h ON true "
        "ORDER BY i.n"
    )
    """Each item's scene's head, and its command as the log holds it (its events) beside its index
    row, in the items' order (``_CHECK`` for a whole group)."""

    def _group(
        self, conn: psycopg.Connection[Any], items: Sequence[Append]
    ) -> list[list[Recorded] | ConcurrencyConflict]:
        """Several commands in one transaction, each in a savepoint: a race lost rolls back that
        command only; the commands after a conflicted one of the same scene conflict too (they
        were decided on it). One ``NOTIFY`` per scene written, its last seq."""
        out: list[list[Recorded] | ConcurrencyConflict] = []
        with conn.transaction():
            heads: dict[str, int] = {}
            stale: set[str] = set()  # a scene whose item conflicted: the items after it were decided on it
            for item in items:
                if item.scene in stale:
                    out.append(ConcurrencyConflict(f"scene {item.scene!r}: an earlier item of this batch conflicted"))
                    continue
                try:
                    with conn.transaction():  # a savepoint
                        records = self._insert(conn, item)
                except ConcurrencyConflict as err:
                    out.append(err)
                    stale.add(item.scene)
                    continue
                except pg_errors.UniqueViolation as err:
                    out.append(ConcurrencyConflict(f"scene {item.scene!r} changed under this write: {err}"))
                    stale.add(item.scene)
                    continue
                out.append(records)
                if records:
                    heads[item.scene] = records[-1].seq
            if heads and self.notify:
                conn.execute(
                    "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS t(c, p)", self._announced(heads)
                )
        return out

    _CHECK = (
        "SELECT h.seq, h.hash, e.first, e.last, e.n, c.digest, c.first_seq, c.last_seq, "
        "EXISTS (SELECT 1 FROM unfinished WHERE scene = %(s)s) "
        "FROM (SELECT min(seq) AS first, max(seq) AS last, count(*) AS n FROM events "
        "WHERE scene = %(s)s AND actor = %(a)s AND command = %(c)s) AS e "
        "LEFT JOIN commands c ON c.scene = %(s)s AND c.actor = %(a)s AND c.id = %(c)s "
        "LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE scene = %(s)s ORDER BY seq DESC LIMIT 1) AS h ON true"
    )
    """The scene's head, and the command as the log holds it (its events) beside its index row."""
    _INSERT = (
        "WITH written AS (INSERT INTO events (seq, scene, type, at, actor, command, prev, hash, data) "
        "SELECT * FROM unnest(%(seq)b::bigint[], %(scene)b::text[], %(type)b::text[], %(at)b::text[], "
        "%(actor)b::text[], %(command)b::text[], %(prev)b::text[], %(hash)b::text[], %(data)b::text[]) "
        "RETURNING seq) "
        "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) "
        "SELECT %(s)s, %(a)s, %(c)s, %(d)s, min(seq), max(seq) FROM written HAVING count(*) > 0"
    )

    def _insert(self, conn: psycopg.Connection[Any], item: Append) -> list[Recorded]:
        scene = item.scene
        row = conn.execute(self._CHECK, {"s": scene, "a": item.actor, "c": item.command}).fetchone()
        assert row is not None
        version, prev = row[0] or 0, row[1] or GENESIS
        if _checked(item, version, bool(row[8]), row[2:8]):  # an index row for a command the log does not hold
            conn.execute(
                "DELETE FROM commands WHERE scene = %s AND actor = %s AND id = %s", [scene, item.actor, item.command]
            )
        sealed = chain(scene, version, prev, item.events, command=item.command, actor=item.actor, at=item.at)
        if sealed:
            records = [r for r, _ in sealed]
            conn.execute(
                self._INSERT,
                {
                    "seq": [r.seq for r in records],
                    "scene": [scene] * len(records),
                    "type": [r.type for r in records],
                    "at": [format_at(r.at) for r in records],
                    "actor": [r.actor for r in records],
                    "command": [r.command for r in records],
                    "prev": [r.prev for r in records],
                    "hash": [r.hash for r in records],
                    "data": [data.decode() for _, data in sealed],
                    "s": scene,
                    "a": item.actor,
                    "c": item.command,
                    "d": item.digest,
                },
            )
            if item.due is None:
                conn.execute("DELETE FROM alarms WHERE scene = %s", [scene])
            elif isinstance(item.due, datetime):
                conn.execute(
                    "INSERT INTO alarms (scene, due) VALUES (%s, %s) "
                    "ON CONFLICT (scene) DO UPDATE SET due = EXCLUDED.due",
                    [scene, to_micros(item.due)],
                )
        return [record for record, _ in sealed]

    _HOLDER = "SELECT owner FROM unfinished WHERE scene = %s"
    _RAW_HEAD = "SELECT seq, hash FROM events WHERE scene = %s ORDER BY seq DESC LIMIT 1"

    def resume(self, scene: str, wires: Sequence[Wire]) -> int:
        head = self.query(self._RAW_HEAD, [scene])
        holder = self.query(self._HOLDER, [scene])
        return resumed(scene, wires, (head[0][0], head[0][1]) if head else (0, GENESIS), bool(holder))

    def write_step(self, scene: str, owner: str, step: Step) -> None:
        """One step, in one transaction: the scene's ``unfinished`` row locked (``FOR UPDATE``: a
        copy taking it over waits for this step), its head checked, the records and commands
        inserted a statement each (``unnest``), and on the last step the row deleted and the scene
        announced. Only the last step waits for the disk (``synchronous_commit`` is off for the
        others): its commit flushes the write-ahead log up to it, the earlier steps with it, and a
        crash before then loses only the latest steps, leaving a prefix its retry completes."""
        self._writable()
        try:
            with self.pool.connection() as conn, conn.transaction():
                if not step.last:  # made durable by the last step's commit (or any other's before it)
                    conn.execute("SET LOCAL synchronous_commit = off")
                holder = conn.execute(self._HOLDER + " FOR UPDATE", [scene]).fetchone()
                head = conn.execute(self._RAW_HEAD, [scene]).fetchone()
                raw = (head[0], head[1]) if head else (0, GENESIS)
                claimable(scene, step, raw, holder[0] if holder else None, owner)
                if step.first:
                    conn.execute(
                        "INSERT INTO unfinished (scene, owner) VALUES (%s, %s) "
                        "ON CONFLICT (scene) DO UPDATE SET owner = EXCLUDED.owner",
                        [scene, owner],
                    )
                wires = step.wires
                conn.execute(
                    f"INSERT INTO events ({_COLUMNS}) SELECT * FROM unnest(%b::bigint[], %b::text[], %b::text[], "
                    "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[])",
                    [
                        [w.seq for w in wires],
                        [scene] * len(wires),
                        [w.type for w in wires],
                        [w.at for w in wires],
                        [w.actor for w in wires],
                        [w.command for w in wires],
                        [w.prev for w in wires],
                        [w.hash for w in wires],
                        [bytes(w.data).decode() for w in wires],
                    ],
                )
                commands = step.commands
                if commands:
                    conn.execute(
                        "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) SELECT %s, * FROM "
                        "unnest(%b::text[], %b::text[], %b::text[], %b::bigint[], %b::bigint[])",
                        [
                            scene,
                            [c.actor for c in commands],
                            [c.id for c in commands],
                            [c.digest for c in commands],
                            [c.first_seq for c in commands],
                            [c.last_seq for c in commands],
                        ],
                    )
                if step.last:
                    conn.execute("DELETE FROM unfinished WHERE scene = %s", [scene])
                    if self.notify:
                        conn.execute("SELECT pg_notify(%s, %s)", [channel(scene), f"{wires[-1].seq} {scene}"])
        except pg_errors.UniqueViolation as err:
            raise ConcurrencyConflict(f"scene {scene!r} was written during the copy: {err}") from err
        except psycopg.Error as err:
            raise unavailable(err, self.where) from err

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"{self.where} is open read-only")

    # -- reading -------------------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> list[tuple[Any, ...]]:
        """The rows of one statement, on a connection of the pool (autocommit)."""
        try:
            with self.pool.connection() as conn:
                cursor = conn.execute(sql, params)
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as err:
            raise unavailable(err, self.where) from err

    def _pages(self, columns: str, scene: str, after: int, upto: int | None) -> Iterator[tuple[Any, ...]]:
        last = upto if upto is not None else 2**62
        sql = f"SELECT {columns} FROM events WHERE scene = %s AND seq > %s AND seq <= %s{_WHOLE} ORDER BY seq LIMIT %s"
        while True:
            rows = self.query(sql, [scene, after, last, scene, PAGE])
            yield from rows
            if len(rows) < PAGE:
                return
            after = rows[-1][0]

    def read(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        for seq, scene_, type_, at, actor, command, prev, hash_, data in self._pages(_COLUMNS, scene, after, upto):
            yield Recorded(
                seq=seq,
                scene=scene_,
                at=msgspec.convert(at, datetime),
                actor=actor,
                command=command,
                event=decode_event(type_, data),
                prev=prev,
                hash=hash_,
            )

    def read_wire(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Wire]:
        for seq, scene_, type_, at, actor, command, prev, hash_, data in self._pages(_COLUMNS, scene, after, upto):
            yield Wire(
                seq=seq,
                scene=scene_,
                type=type_,
                at=at,
                actor=actor,
                command=command,
                prev=prev,
                hash=hash_,
                data=msgspec.Raw(data.encode()),
            )

    def rows(self, scene: str, *, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        for row in self._pages("seq, at, type, data", scene, after, upto):
            yield row[0], row[1], row[2], row[3]

    def head(self, scene: str) -> tuple[int, str]:
        sql = f"SELECT seq, hash FROM events WHERE scene = %s{_WHOLE} ORDER BY seq DESC LIMIT 1"
        rows = self.query(sql, [scene, scene])
        return (rows[0][0], rows[0][1]) if rows else (0, GENESIS)

    def acknowledged(self, scene: str) -> int:
        rows = self.query(f"SELECT max(last_seq) FROM commands WHERE scene = %s{_WHOLE}", [scene, scene])
        return int(rows[0][0] or 0) if rows else 0

    def command(self, scene: str, actor: str, command_id: str) -> CommandRecord | None:
        rows = self.query(
            "SELECT min(e.seq), max(e.seq), count(e.seq), c.digest, c.first_seq, c.last_seq "
            "FROM (SELECT 1) AS one LEFT JOIN events e ON e.scene = %(s)s AND e.actor = %(a)s AND e.command = %(c)s "
            "LEFT JOIN commands c ON c.scene = %(s)s AND c.actor = %(a)s AND c.id = %(c)s "
            "WHERE NOT EXISTS (SELECT 1 FROM unfinished WHERE scene = %(s)s) "
            "GROUP BY c.digest, c.first_seq, c.last_seq",
            {"s": scene, "a": actor, "c": command_id},
        )
        return _as_logged(scene, actor, command_id, rows[0])[0] if rows else None

    def command_rows(self, scene: str) -> list[CommandRecord]:
        rows = self.query(
            "SELECT actor, id, digest, first_seq, last_seq FROM commands WHERE scene = %s ORDER BY first_seq", [scene]
        )
        return [CommandRecord(scene, *row) for row in rows]

    def digests(self, scene: str, upto: int) -> dict[tuple[str, str], str]:
        rows = self.query(
            f"SELECT actor, id, digest FROM commands WHERE scene = %s AND first_seq <= %s{_WHOLE}", [scene, upto, scene]
        )
        return {(actor, command_id): digest for actor, command_id, digest in rows}

    def scenes(self) -> list[str]:
        return [
            row[0]
            for row in self.query(
                "SELECT scene FROM events WHERE seq = 1 AND scene NOT IN (SELECT scene FROM unfinished) "
                "ORDER BY at, pos"
            )
        ]

    def alarms(self, before: datetime | None = None) -> list[tuple[str, datetime]]:
        if not self.alarmed:
            return []
        if before is None:
            rows = self.query("SELECT scene, due FROM alarms ORDER BY due, scene")
        else:
            rows = self.query("SELECT scene, due FROM alarms WHERE due < %s ORDER BY due, scene", [to_micros(before)])
        return [(scene, from_micros(due)) for scene, due in rows]

    def alarm(self, scene: str) -> datetime | None:
        if not self.alarmed:
            return None
        rows = self.query("SELECT due FROM alarms WHERE scene = %s", [scene])
        return from_micros(rows[0][0]) if rows else None

    def close(self) -> None:
        self.pool.close()
