"""The snapshot key file (``server.snapshot_keys``): made on first use, its owner's alone; its first
key signs and every key verifies; a file that holds no key, or a line that is not one, is refused
by name, and ``serve`` does not start on it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from server.snapshot_keys import ENV, KeyFileError, default_path, key_path, read_keys
from tests.live.faults import cli


def test_made_on_first_use_for_its_owner_alone(tmp_path: Path) -> None:
    path = tmp_path / "state" / "justicar" / "snapshot.key"
    made = read_keys(str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (line,) = path.read_text().splitlines()
    assert len(bytes.fromhex(line)) == 32
    again = read_keys(str(path))
    assert again.signing == made.signing and again.by_id == made.by_id
    assert made.verify(b"h", b"blob", made.sign(b"h", b"blob"))
    assert not made.verify(b"h", b"blob!", made.sign(b"h", b"blob"))
    assert not made.verify(b"other header", b"blob", made.sign(b"h", b"blob"))


def test_the_first_key_signs_and_every_key_verifies(tmp_path: Path) -> None:
    old, new = read_keys(str(tmp_path / "old.key")), read_keys(str(tmp_path / "new.key"))
    both = tmp_path / "both.key"
    both.write_text(f"# rotated\n{(tmp_path / 'new.key').read_text()}\n{(tmp_path / 'old.key').read_text()}")
    keys = read_keys(str(both))
    assert keys.signing == new.signing
    assert keys.verify(b"h", b"b", old.sign(b"h", b"b")) and keys.verify(b"h", b"b", new.sign(b"h", b"b"))
    assert not new.verify(b"h", b"b", old.sign(b"h", b"b"))


def test_where_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "env.key"))
    assert key_path("asked.key") == "asked.key" and key_path() == str(tmp_path / "env.key")
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert key_path() == default_path() == str(tmp_path / "xdg" / "justicar" / "snapshot.key")


@pytest.mark.parametrize(("text", "said"), [("", "holds no key"), ("# nothing\n\nnot-hex\n", "line 3: not a key")])
def test_a_file_without_a_key_is_refused(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "bad.key"
    path.write_text(text)
    with pytest.raises(KeyFileError, match=said):
        read_keys(str(path))


def test_serve_does_not_start_on_a_bad_key_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.key"
    bad.write_text("0123\n")
    done = cli("serve", "--db", str(tmp_path / "j.db"), "--port", "0", "--snapshot-key", str(bad))
    assert done.returncode == 2
    assert f"the snapshot key file {bad}, line 1: not a key" in done.stderr
