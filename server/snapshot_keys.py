"""The keys that sign snapshots (``server.snapshots``): kept outside the database, so that whoever
can write to the database cannot make a snapshot the server will use.

A key file holds one key a line, 64 hex digits (32 random bytes); blank lines and lines starting
with ``#`` are ignored. The first key signs; every key verifies. Which file: ``--snapshot-key FILE``,
else the path in ``$JUSTICAR_SNAPSHOT_KEY``, else ``$XDG_STATE_HOME/justicar/snapshot.key`` (or
``~/.local/state/justicar/snapshot.key``). A file that does not exist yet is made on first use,
readable by its owner only, with one new key; two processes making it at once end up with the same
one (it is written aside, then linked into place, and the loser reads the winner's). Every process
serving one PostgreSQL database needs the same file (``docs/deploy.md``: how to set and rotate it).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from server.store.base import StoreError

ENV = "JUSTICAR_SNAPSHOT_KEY"


class KeyFileError(StoreError):
    """The snapshot key file cannot be read, made, or holds no key."""


@dataclass(frozen=True)
class Keys:
    """The keys of one file: ``signing`` signs, each of ``by_id`` verifies what its id names."""

    path: str
    signing: str
    """The id of the key that signs."""
    by_id: dict[str, bytes]

    def sign(self, header: bytes, blob: bytes | memoryview) -> str:
        """The MAC of ``header`` then ``blob``, as ``id:hex`` (the id names the key)."""
        return f"{self.signing}:{_mac(self.by_id[self.signing], header, blob)}"

    def verify(self, header: bytes, blob: bytes | memoryview, signed: str) -> bool:
        """Whether ``signed`` is the MAC of ``header`` then ``blob`` under one of these keys."""
        key_id, _, mac = signed.partition(":")
        key = self.by_id.get(key_id)
        return key is not None and hmac.compare_digest(_mac(key, header, blob), mac)

    def knows(self, signed: str) -> bool:
        """Whether ``signed`` names one of these keys (whether it could verify at all)."""
        return signed.partition(":")[0] in self.by_id


def _mac(key: bytes, header: bytes, blob: bytes | memoryview) -> str:
    mac = hmac.new(key, header, hashlib.sha256)
    mac.update(blob)  # OpenSSL's HMAC: the interpreter is let go while a long blob is hashed
    return mac.hexdigest()


def key_id(key: bytes) -> str:
    """A short name for a key, stored beside what it signed (it tells nothing of the key)."""
    return hashlib.sha256(b"justicar snapshot key " + key).hexdigest()[:16]


def default_path() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "justicar", "snapshot.key")


def key_path(asked: str | None = None) -> str:
    """The key file to use: ``asked``, else ``$JUSTICAR_SNAPSHOT_KEY``, else the per-user default."""
    return asked or os.environ.get(ENV) or default_path()


def read_keys(asked: str | None = None) -> Keys:
    """The keys of the file (``key_path``), made with one new key if it does not exist."""
    path = key_path(asked)
    if not os.path.exists(path):
        _make(path)
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as err:
        raise KeyFileError(f"cannot read the snapshot key file {path}: {err}") from None
    keys: list[bytes] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            key = bytes.fromhex(line)
        except ValueError:
            key = b""
        if len(key) < 16:
            raise KeyFileError(f"the snapshot key file {path}, line {number}: not a key (64 hex digits)")
        keys.append(key)
    if not keys:
        raise KeyFileError(f"the snapshot key file {path} holds no key (64 hex digits a line)")
    return Keys(path, key_id(keys[0]), {key_id(key): key for key in keys})


def new_key() -> str:
    return secrets.token_hex(32)


def _make(path: str) -> None:
    """Make the key file, owner-only, with one new key: written aside, then linked into place (a
    file made by another process meanwhile wins, and is the one read)."""
    folder = os.path.dirname(path) or "."
    aside = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(new_key() + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)
    except OSError as err:
        raise KeyFileError(f"cannot make the snapshot key file {path}: {err.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(aside)
