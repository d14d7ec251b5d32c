"""Snapshots: a scene's folded state saved every ``every`` events, so a long scene loads (and a
replay reaches a step) from a snapshot plus a short stretch of its log.

They are derived, and used only when they are the server's own: each records the seq and hash of
the event it was taken at, and a MAC (HMAC-SHA256) over its format, scene, seq, that hash and its
bytes, made with a key kept outside the database (``server.snapshot_keys``), so whoever can write
to the database cannot make one the server will use. One is used only when its MAC holds and the
log still holds that event with that hash; otherwise it is discarded (and logged) and the scene
folded from further back, and never stopped for it. Dropping the table loses nothing; so does
changing the key (the snapshots it signed are passed over, and rebuilt).

Which are kept: the latest ``LATEST`` and the first of every ``SPACING`` events, so any step of a
long scene is at most ``SPACING`` events past a snapshot. A state is stored in parts (its scalar
fields, then its maps ``PART`` entries at a time), laid end to end behind an index of their
lengths, each decoded by msgspec straight into typed Structs, so reading one never holds the
interpreter for long. A thread of its own checks the snapshot's MAC (HMAC-SHA256 lets go of the
interpreter) while the loading thread decodes it: on a second core the check costs a load nothing.
Nothing decoded is used unless the MAC holds. (Reading and digesting part by part on that
thread made the first join slower and held the event loop longer: three threads then took turns
at the interpreter.) A scene shorter than ``WORTH`` events is folded from its log instead: as fast, and
its state shares its repeated names.
"""

from __future__ import annotations

import struct
import typing
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import immutables
import msgspec
import structlog

from domain.evolve import fold_rows
from domain.rules import stored_options, stored_slots
from domain.state import Scene
from server.snapshot_keys import Keys, read_keys
from server.store.base import Checked, SceneCorrupt, is_postgres
from server.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from server.store.postgres import PostgresStore

FORMAT = 10
"""How snapshots are written now, and the only format read: the parts end to end behind an index
(``decode``), signed (``Keys.sign``); since 9 a scene's options are its ruleset's own; since 10 what
a ruleset keeps on each character and on the round is its own (``Character.slot``,
``RoundState.slot``), read back by it. 5 and 6 were not signed: ignored, dropped, rebuilt. When the
state's shape changes, bump it: the older ones are then ignored and rebuilt."""
LATEST = 5
SPACING = 5000
PART = 256
WORTH = 5000
"""Events a snapshot must save folding before it is used to load a scene."""

log = structlog.get_logger("justicar.snapshots")


def _stored_type() -> type[msgspec.Struct]:
    """``Scene`` with plain dicts where it has maps: what a snapshot's head decodes into."""
    hints = typing.get_type_hints(Scene)
    fields = []
    for f in msgspec.structs.fields(Scene):
        kind = hints[f.name]
        if typing.get_origin(kind) is immutables.Map:
            kind = dict[typing.get_args(kind)]  # type: ignore[misc]
        default = f.default if f.default is not msgspec.NODEFAULT else msgspec.field(default_factory=dict)
        if f.name == "options":  # the ruleset's own (``Ruleset.options``): read back by it
            kind, default = dict[str, Any], msgspec.field(default_factory=dict)
        fields.append((f.name, kind, default))
    return msgspec.defstruct("StoredScene", fields, kw_only=True, gc=False)


_MAPS = {
    f.name: typing.get_args(typing.get_type_hints(Scene)[f.name])
    for f in msgspec.structs.fields(Scene)
    if f.default_factory is immutables.Map
}
_head_decoder = msgspec.msgpack.Decoder(_stored_type())
_part_decoders = {name: msgspec.msgpack.Decoder(dict[kinds]) for name, kinds in _MAPS.items()}  # type: ignore[misc,valid-type]
_encoder = msgspec.msgpack.Encoder()
_index_decoder = msgspec.msgpack.Decoder(list[tuple[str, int]])
_INDEX = struct.Struct(">I")
"""A snapshot begins with the size of its index: the name and size of each part."""
_readers = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot-mac")
"""Where a snapshot's MAC is checked while it is decoded (HMAC-SHA256 lets go of the interpreter: on
a second core it costs a load nothing, about 4 ms for 7 MiB)."""


def signed_header(scene: str, version: int, at_hash: str) -> bytes:
    """What a snapshot's MAC covers before its bytes: its format, scene, seq and the hash of the
    event it was taken at (so that no snapshot passes for another scene's, event's or format's)."""
    return _encoder.encode(["justicar snapshot", FORMAT, scene, version, at_hash])


def encode(state: Scene) -> bytes:
    """A state in parts: its head (every field, the maps empty), then each map ``PART`` entries a
    part; behind the index of their names and sizes."""
    parts: list[tuple[str, bytes]] = [("head", _encoder.encode(_without_maps(state)))]
    for name in _MAPS:
        items = list(getattr(state, name).items())
        parts += [(name, _encoder.encode(dict(items[n : n + PART]))) for n in range(0, len(items), PART)]
    index = _encoder.encode([(name, len(part)) for name, part in parts])
    return b"".join([_INDEX.pack(len(index)), index, *(part for _, part in parts)])


def _without_maps(state: Scene) -> dict[str, Any]:
    fields = msgspec.structs.asdict(state)
    for name in _MAPS:
        fields[name] = {}
    return fields


class _Assembly:
    """A state put together from its parts, decoded one at a time as they come."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] | None = None
        self.entries: dict[str, dict[Any, Any]] = {name: {} for name in _MAPS}

    def add(self, name: str, part: bytes | memoryview) -> None:
        if name == "head":
            self.fields = msgspec.structs.asdict(_head_decoder.decode(part))
        else:
            self.entries[name].update(_part_decoders[name].decode(part))

    def state(self) -> Scene:
        if self.fields is None:
            raise KeyError("head")
        ruleset = self.fields["ruleset"]
        self.entries["characters"], self.fields["round"] = stored_slots(
            ruleset, self.entries["characters"], self.fields["round"]
        )
        for name, entries in self.entries.items():
            self.fields[name] = immutables.Map(entries)
        self.fields["options"] = stored_options(ruleset, self.fields["options"])
        return Scene(**self.fields)


def _parts(blob: bytes | memoryview) -> Iterator[tuple[str, memoryview]]:
    """The named parts of a snapshot in memory."""
    view = memoryview(blob)
    if len(view) < _INDEX.size:
        raise msgspec.DecodeError("too short for its index")
    (size,) = _INDEX.unpack_from(view)
    at = _INDEX.size + size
    for name, length in _index_decoder.decode(view[_INDEX.size : at]):
        if length < 0 or at + length > len(view):
            raise msgspec.DecodeError(f"its part {name!r} runs past its end")
        yield name, view[at : at + length]
        at += length
    if at != len(view):
        raise msgspec.DecodeError("bytes past its last part")


def decode(blob: bytes | memoryview) -> Scene:
    """A state from its parts, one part at a time."""
    assembly = _Assembly()
    for name, part in _parts(blob):
        assembly.add(name, part)
    return assembly.state()


_Read = tuple[bool, "Scene | None", "Exception | None"]
"""What reading a snapshot gave: whether its MAC holds, its state, or why it could not be read."""


class Snapshot(msgspec.Struct, frozen=True, gc=False):
    """A checked snapshot: the state, and the hash of the event it was taken at."""

    state: Scene
    hash: str


class Snapshots:
    """Snapshots kept beside the events (table ``snapshots``): in the SQLite file, written through
    the store's writing connection (the server's writer thread) and read through the calling
    thread's own; or in the PostgreSQL database, through the store's pool (its table created with
    the store's). Signed and checked with ``keys`` (default: the key file ``read_keys`` finds,
    read on first use). Its ``digest`` column holds the MAC, named by its key's id."""

    def __init__(self, store: SqliteStore | PostgresStore, every: int = 1000, keys: Keys | None = None) -> None:
        self.store = store
        self.every = every
        self._keys = keys
        if store.readonly or not isinstance(store, SqliteStore):
            return
        conn = store.db.conn
        columns = {row[1]: row[5] for row in conn.execute("PRAGMA table_info(snapshots)")}
        if columns and columns.get("version") != 2:  # one snapshot a scene, or unchecked: derived, so dropped
            conn.execute("DROP TABLE snapshots")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS snapshots (scene TEXT NOT NULL, version INTEGER NOT NULL, "
            "hash TEXT NOT NULL, format INTEGER NOT NULL, digest TEXT NOT NULL, state BLOB NOT NULL, "
            "PRIMARY KEY (scene, version))"
        )

    @property
    def keys(self) -> Keys:
        if self._keys is None:
            self._keys = read_keys()
        return self._keys

    def _read(self, sql: str, params: list[object]) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` (``?`` placeholders), read on this thread's connection or the pool's."""
        if isinstance(self.store, SqliteStore):
            return self.store.reads.execute(sql, params).fetchall()
        return self.store.query(sql.replace("?", "%s"), params)

    def _write(self, sql: str, params: list[object]) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` (``?`` placeholders), on the writing connection or the pool's."""
        if isinstance(self.store, SqliteStore):
            return self.store.db.conn.execute(sql, params).fetchall()
        return self.store.query(sql.replace("?", "%s"), params)

    def load(self, scene: str, *, at_most: int | None = None, worth: int = 0) -> Snapshot | None:
        """The latest sound snapshot of ``scene`` (at or before event ``at_most``), if it saves
        folding at least ``worth`` events."""
        versions = self._read(
            "SELECT version, digest FROM snapshots WHERE scene = ? AND format = ? AND version <= ? AND version >= ? "
            "ORDER BY version DESC",
            [scene, FORMAT, at_most if at_most is not None else 2**62, max(worth, 1)],
        )
        for version, signed in versions:  # each read whole only when its turn comes: most loads use the first
            if not self.keys.knows(signed):
                self._discarded(scene, version, "it was signed with a key this server does not hold")
                continue
            found = self._checked(scene, version)
            if found is not None:
                return found
        return None

    def _checked(self, scene: str, version: int) -> Snapshot | None:
        read = self._whole(scene, version)
        if read is None:
            return None
        at_hash, (sound, state, unreadable) = read
        if not sound:
            return self._discarded(scene, version, "its MAC does not hold: the server did not write it so")
        if state is None:
            return self._discarded(scene, version, f"it cannot be read: {unreadable}")
        if state.id != scene or state.version != version:
            return self._discarded(scene, version, "it is of another scene or version")
        return Snapshot(state, at_hash)

    def _logged(self, scene: str, version: int, at_hash: str) -> bool:
        logged = self._read("SELECT hash FROM events WHERE scene = ? AND seq = ?", [scene, version])
        if logged and logged[0][0] == at_hash:
            return True
        self._discarded(scene, version, "the log no longer holds the event it was taken at")
        return False

    def _whole(self, scene: str, version: int) -> tuple[str, _Read] | None:
        """The snapshot read whole, then its MAC checked (on its own thread) while it is decoded."""
        rows = self._read("SELECT hash, digest, state FROM snapshots WHERE scene = ? AND version = ?", [scene, version])
        if not rows or not self._logged(scene, version, rows[0][0]):
            return None
        at_hash, signed, blob = rows[0][0], rows[0][1], bytes(rows[0][2])
        sound = _readers.submit(self.keys.verify, signed_header(scene, version, at_hash), blob, signed)
        state: Scene | None = None
        unreadable: Exception | None = None
        try:
            state = decode(blob)
        except (msgspec.DecodeError, KeyError, IndexError) as err:
            unreadable = err
        return at_hash, (sound.result(), state, unreadable)

    @staticmethod
    def _discarded(scene: str, version: int, why: str) -> None:
        log.warning("snapshot discarded", scene=scene, version=version, why=why)
        return None

    def versions(self, scene: str) -> list[int]:
        """The events a snapshot of ``scene`` is kept at, in order."""
        return [row[0] for row in self._read("SELECT version FROM snapshots WHERE scene = ? ORDER BY version", [scene])]

    def discard_all(self, scene: str) -> None:
        """Drop every snapshot of ``scene`` (its log failed a check): the next load folds the log
        from its first event, checked all the way."""
        self._write("DELETE FROM snapshots WHERE scene = ?", [scene])
        log.warning("snapshots discarded", scene=scene)

    def due(self, state: Scene, appended: int) -> bool:
        """Whether the append that brought ``state`` crossed a multiple of ``every``."""
        return state.version // self.every != (state.version - appended) // self.every

    def save(self, state: Scene, at_hash: str) -> None:
        """Keep ``state``, taken at its last event, whose hash is ``at_hash``, signed; keep the latest
        few and one every ``SPACING`` events, drop the rest (and any this server could not use: of an
        older format, or signed with a key it no longer holds)."""
        blob = encode(state)
        signed = self.keys.sign(signed_header(state.id, state.version, at_hash), blob)
        self._write(
            "INSERT INTO snapshots (scene, version, hash, format, digest, state) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (scene, version) DO UPDATE SET hash = excluded.hash, format = excluded.format, "
            "digest = excluded.digest, state = excluded.state",
            [state.id, state.version, at_hash, FORMAT, signed, blob],
        )
        rows = self._write("SELECT version, format, digest FROM snapshots WHERE scene = ?", [state.id])
        usable = sorted(version for version, form, mac in rows if form == FORMAT and self.keys.knows(mac))
        kept = set(usable[-LATEST:])
        first_of_span: dict[int, int] = {}
        for version in usable:
            first_of_span.setdefault(version // SPACING, version)
        kept |= set(first_of_span.values())
        for version in {row[0] for row in rows} - kept:
            self._write("DELETE FROM snapshots WHERE scene = ? AND version = ?", [state.id, version])


def distrust(db: str, scene: str, version: int, at_hash: str) -> str | None:
    """What a load from ``scene``'s snapshot at event ``version`` (taken at the event whose hash is
    ``at_hash``) took on trust, checked: the log before it, every link and hash and every event
    readable and folded, up to that event with that hash. The problem, in words, or None. Run by
    the room as a process of its own, under ``nice``, that opens the database read-only
    (``server.room``): a long scene's check takes a core at a lower priority, never the server's
    loop. ``db`` is a SQLite path or a PostgreSQL URL. (The snapshot itself needs no check: its MAC
    says the server wrote it, from the fold of that log.)"""
    store: SqliteStore | PostgresStore
    if is_postgres(db):
        from server.store.postgres import PostgresStore

        store = PostgresStore(db, readonly=True, notify=False)
    else:
        store = SqliteStore(db, readonly=True)
    wires = store.read_wire(scene, upto=version)
    try:
        rows = Checked(scene, wires)
        try:
            folded = fold_rows(scene, rows)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            return str(rows.unreadable(err))
        except SceneCorrupt as err:
            return str(err)
        if folded.version != version or rows.last is None or rows.last.hash != at_hash:
            return f"scene {scene!r}: its log no longer holds event {version} as its snapshot was taken at"
        return None
    finally:
        getattr(wires, "close", lambda: None)()  # a reader stopped at a bad event, closed before its store
        store.close()


class Verdict(msgspec.Struct, frozen=True):
    """The last line a check process prints (``python -m server.snapshots``): its finding, or None.
    Its own log lines go to standard error, never taken for it."""

    problem: str | None


if __name__ == "__main__":
    # the room's check, in a process of its own: ``python -m server.snapshots DB SCENE VERSION HASH``,
    # where DB is a SQLite file, or ``-`` for the database in $JUSTICAR_DB (a PostgreSQL URL: its
    # password kept out of the process list)
    import os
    import sys

    from server.logs import configure

    configure(json=True)  # to standard error: standard output holds the verdict alone
    db = os.environ["JUSTICAR_DB"] if sys.argv[1] == "-" else sys.argv[1]
    verdict = Verdict(distrust(db, sys.argv[2], int(sys.argv[3]), sys.argv[4]))
    sys.stdout.write(msgspec.json.encode(verdict).decode() + "\n")
