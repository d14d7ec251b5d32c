"""Access tokens, the same on every backend: issued once and kept only as a hash, checked,
revoked, expired, listed per scene or night, and ended for every process that shares the database."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from server import tokens as tokens_module
from server.backend import Backend
from tests.store.conftest import KINDS, ON_DISK, raw

every_backend = pytest.mark.parametrize("where", KINDS, indirect=True)


@every_backend
class TestTokens:
    def test_issue_and_check(self, backend: Backend) -> None:
        """A token grants its role in its scene (a player's, as its character); an unknown one nothing."""
        st, st_grant = backend.tokens.issue("s1", "st")
        sam, _ = backend.tokens.issue("s1", "player", "sam")
        assert st.startswith("jt_") and st != sam
        assert backend.tokens.check(st) == st_grant and st_grant.viewer == "st"
        checked = backend.tokens.check(sam)
        assert checked is not None and (checked.role, checked.character, checked.viewer) == ("player", "sam", "sam")
        assert checked.token_id == "t-" + hashlib.sha256(sam.encode()).hexdigest()[:10]
        assert backend.tokens.check("jt_" + "x" * 32) is None

    def test_revoke(self, backend: Backend) -> None:
        """A revoked token is refused and listed as ended; revoking it again changes nothing;
        revoking an unknown id finds nothing."""
        token, grant = backend.tokens.issue("s1", "spectator")
        other, _ = backend.tokens.issue("s1", "st")
        revoked = backend.tokens.revoke(grant.token_id)
        assert revoked is not None and revoked.revoked and revoked.token_id == grant.token_id
        assert backend.tokens.check(token) is None and backend.tokens.check(other) is not None
        assert backend.tokens.ended() == {grant.token_id}
        again = backend.tokens.revoke(grant.token_id)
        assert again is not None and again.revoked
        assert backend.tokens.revoke("t-0000000000") is None

    def test_expiry(self, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
        """A token with an expiry works until then, and is refused and ended after."""
        lasting, _ = backend.tokens.issue("s1", "st")
        brief, grant = backend.tokens.issue("s1", "player", "sam", expires=timedelta(hours=6))
        assert grant.expires_at is not None and backend.tokens.check(brief) is not None
        assert backend.tokens.ended() == set()
        later = datetime.now(UTC) + timedelta(hours=7)
        monkeypatch.setattr(tokens_module, "_now", lambda: later)
        assert backend.tokens.check(brief) is None and backend.tokens.check(lasting) is not None
        assert backend.tokens.ended() == {grant.token_id}

    def test_list_by_scene(self, backend: Backend) -> None:
        """A scene's (or a night's) tokens, by when they were issued (then by id), revoked ones marked."""
        _, a = backend.tokens.issue("night", "st")
        _, b = backend.tokens.issue("night", "player", "sam")
        backend.tokens.issue("other", "st")
        backend.tokens.revoke(b.token_id)
        listed = backend.tokens.list("night")
        assert {g.token_id for g in listed} == {a.token_id, b.token_id}
        assert listed == sorted(listed, key=lambda g: (g.created_at, g.token_id))
        assert {g.token_id: g.revoked for g in listed} == {a.token_id: False, b.token_id: True}
        assert backend.tokens.list("nowhere") == []


@pytest.mark.parametrize("where", ON_DISK, indirect=True)
class TestSharedTokens:
    def test_only_the_hash_is_kept(self, where: str, backend: Backend) -> None:
        """The database holds the token's SHA-256, never the token."""
        token, grant = backend.tokens.issue("s1", "st")
        rows = raw(where, "SELECT token_id, hash FROM tokens")
        assert rows == [(grant.token_id, hashlib.sha256(token.encode()).hexdigest())]
        assert token not in repr(raw(where, "SELECT * FROM tokens"))

    def test_a_revocation_reaches_every_process(self, where: str, opened: Callable[..., Backend]) -> None:
        """A token revoked through one backend (one process) is refused by another on the same database."""
        one, two = opened(where), opened(where)
        token, grant = one.tokens.issue("s1", "player", "sam")
        assert two.tokens.check(token) == grant
        two.tokens.revoke(grant.token_id)
        assert one.tokens.check(token) is None and one.tokens.ended() == {grant.token_id}
