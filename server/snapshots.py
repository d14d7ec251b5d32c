"""Snapshots: a scene's folded state saved every ``every`` events, so a long scene loads from the
latest snapshot plus the tail of its log. They are derived: a snapshot whose format or code is not
this one's is ignored, and dropping the table loses nothing.
"""

from __future__ import annotations

import sqlite3
import typing
from typing import Any

import immutables
import msgspec

from domain.state import Scene

FORMAT = 1
"""Bump when the state's shape changes: older snapshots are then ignored and rebuilt."""


# msgspec's hook protocol: a hook raises NotImplementedError for a type it does not handle.


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, immutables.Map):
        return dict(obj)
    raise NotImplementedError(f"cannot snapshot {type(obj).__name__}")


def _dec_hook(type_: Any, obj: Any) -> Any:
    if typing.get_origin(type_) is immutables.Map:
        key, value = typing.get_args(type_)
        return immutables.Map(msgspec.convert(obj, dict[key, value], dec_hook=_dec_hook))  # type: ignore[valid-type]
    raise NotImplementedError(f"cannot restore {type_}")


_encoder = msgspec.msgpack.Encoder(enc_hook=_enc_hook)
_decoder = msgspec.msgpack.Decoder(Scene, dec_hook=_dec_hook)


def encode(state: Scene) -> bytes:
    return _encoder.encode(state)


def decode(blob: bytes) -> Scene:
    return _decoder.decode(blob)


class Snapshots:
    """Snapshots kept in the SQLite file beside the events (table ``snapshots``)."""

    def __init__(self, conn: sqlite3.Connection, every: int = 1000) -> None:
        self.conn = conn
        self.every = every
        conn.execute(
            "CREATE TABLE IF NOT EXISTS snapshots (scene TEXT PRIMARY KEY, version INTEGER NOT NULL, "
            "format INTEGER NOT NULL, state BLOB NOT NULL)"
        )

    def load(self, scene: str) -> Scene | None:
        row = self.conn.execute(
            "SELECT state FROM snapshots WHERE scene = ? AND format = ?", [scene, FORMAT]
        ).fetchone()
        if row is None:
            return None
        try:
            return decode(row[0])
        except (msgspec.DecodeError, NotImplementedError):
            return None  # an unreadable snapshot is only a lost shortcut

    def maybe_save(self, state: Scene, appended: int) -> bool:
        """Save when this append crossed a multiple of ``every``."""
        if state.version // self.every == (state.version - appended) // self.every:
            return False
        self.save(state)
        return True

    def save(self, state: Scene) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO snapshots (scene, version, format, state) VALUES (?, ?, ?, ?)",
                [state.id, state.version, FORMAT, encode(state)],
            )
