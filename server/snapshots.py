"""Snapshots: a scene's folded state saved every ``every`` events, so a long scene loads from the
latest snapshot plus the tail of its log. They are derived, and trusted only as far as they can
be checked: each records the seq and hash of the event it was taken at and a digest of its own
bytes, and is used only when the log still holds that event with that hash and the bytes still
match; otherwise it is discarded (and logged) and the scene is folded from its first event.
Dropping the table loses nothing.
"""

from __future__ import annotations

import hashlib
import typing
from typing import Any

import immutables
import msgspec
import structlog

from domain.state import Scene
from server.store.sqlite import SqliteStore

FORMAT = 4
"""Bump when the state's shape changes: older snapshots are then ignored and rebuilt."""

log = structlog.get_logger("justicar.snapshots")


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, immutables.Map):
        return dict(obj)
    raise NotImplementedError(f"cannot snapshot {type(obj).__name__}")  # msgspec's hook protocol


def _stored_type() -> type[msgspec.Struct]:
    """``Scene`` with plain dicts where it has maps: what a snapshot decodes into, typed all the
    way down by msgspec itself (no hook per value), the maps made once at the end."""
    hints = typing.get_type_hints(Scene)
    fields = []
    for f in msgspec.structs.fields(Scene):
        kind = hints[f.name]
        if typing.get_origin(kind) is immutables.Map:
            kind = dict[typing.get_args(kind)]  # type: ignore[misc]
        default = f.default if f.default is not msgspec.NODEFAULT else msgspec.field(default_factory=dict)
        fields.append((f.name, kind, default))
    return msgspec.defstruct("StoredScene", fields, kw_only=True, gc=False)


_MAPS = tuple(f.name for f in msgspec.structs.fields(Scene) if f.default_factory is immutables.Map)
_encoder = msgspec.msgpack.Encoder(enc_hook=_enc_hook)
_decoder = msgspec.msgpack.Decoder(_stored_type())


def encode(state: Scene) -> bytes:
    return _encoder.encode(state)


def decode(blob: bytes) -> Scene:
    stored = _decoder.decode(blob)
    fields = msgspec.structs.asdict(stored)
    for name in _MAPS:
        fields[name] = immutables.Map(fields[name])
    return Scene(**fields)


class Snapshot(msgspec.Struct, frozen=True, gc=False):
    """A checked snapshot: the state, and the hash of the event it was taken at."""

    state: Scene
    hash: str


class Snapshots:
    """Snapshots kept in the SQLite file beside the events (table ``snapshots``). ``save`` writes
    through the store's writing connection (the server's writer thread); ``load`` reads through
    the calling thread's own."""

    def __init__(self, store: SqliteStore, every: int = 1000) -> None:
        self.store = store
        self.every = every
        if store.readonly:
            return
        conn = store.db.conn
        columns = {row[1] for row in conn.execute("PRAGMA table_info(snapshots)")}
        if columns and "digest" not in columns:
            conn.execute("DROP TABLE snapshots")  # unchecked snapshots of an older version: derived, so dropped
        conn.execute(
            "CREATE TABLE IF NOT EXISTS snapshots (scene TEXT PRIMARY KEY, version INTEGER NOT NULL, "
            "hash TEXT NOT NULL, format INTEGER NOT NULL, digest TEXT NOT NULL, state BLOB NOT NULL)"
        )

    def load(self, scene: str) -> Snapshot | None:
        reads = self.store.reads
        row = reads.execute(
            "SELECT version, hash, digest, state FROM snapshots WHERE scene = ? AND format = ?", [scene, FORMAT]
        ).fetchone()
        if row is None:
            return None
        version, at_hash, digest, blob = row
        if hashlib.sha256(blob).hexdigest() != digest:
            return self._discarded(scene, version, "its bytes do not match its digest")
        logged = reads.execute("SELECT hash FROM events WHERE scene = ? AND seq = ?", [scene, version]).fetchone()
        if logged is None or logged[0] != at_hash:
            return self._discarded(scene, version, "the log no longer holds the event it was taken at")
        try:
            state = decode(blob)
        except (msgspec.DecodeError, NotImplementedError) as err:
            return self._discarded(scene, version, f"it cannot be read: {err}")
        if state.id != scene or state.version != version:
            return self._discarded(scene, version, "it is of another scene or version")
        return Snapshot(state, at_hash)

    @staticmethod
    def _discarded(scene: str, version: int, why: str) -> None:
        log.warning("snapshot discarded", scene=scene, version=version, why=why)
        return None

    def due(self, state: Scene, appended: int) -> bool:
        """Whether the append that brought ``state`` crossed a multiple of ``every``."""
        return state.version // self.every != (state.version - appended) // self.every

    def save(self, state: Scene, at_hash: str) -> None:
        """Keep ``state``, taken at its last event, whose hash is ``at_hash``."""
        blob = encode(state)
        conn = self.store.db.conn
        conn.execute(
            "INSERT OR REPLACE INTO snapshots (scene, version, hash, format, digest, state) VALUES (?, ?, ?, ?, ?, ?)",
            [state.id, state.version, at_hash, FORMAT, hashlib.sha256(blob).hexdigest(), blob],
        )
