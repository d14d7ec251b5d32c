"""Access tokens, the same on every backend: issued once and kept only as a hash, checked,
revoked, expired, listed per scene or night, and ended for every process that shares the database;
a token issued by another revoked with it (and with the tokens above it), never issued under an
ended one, never outliving its issuer, even while a revocation lands."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from server import tokens as tokens_module
from server.backend import Backend
from server.tokens import IssuerEnded
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
        assert revoked is not None and revoked.grant.revoked and revoked.grant.token_id == grant.token_id
        assert revoked.cascaded == []
        assert backend.tokens.check(token) is None and backend.tokens.check(other) is not None
        assert backend.tokens.ended() == {grant.token_id}
        again = backend.tokens.revoke(grant.token_id)
        assert again is not None and again.grant.revoked
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


@every_backend
class TestIssuedTokens:
    """Tokens a token issued (a console's invitations, its forks' and new scenes' Storyteller
    tokens): revoked with it, refused under it once it has ended, never outliving it."""

    def test_a_revocation_cascades_to_every_token_below(self, backend: Backend) -> None:
        """The Storyteller's link issued a fork's Storyteller token, which invited a player: revoking
        the link revokes both (the grandchild too), ends them, and leaves other tokens alone."""
        tokens = backend.tokens
        st, st_grant = tokens.issue("s1", "st")
        spectator, spectator_grant = tokens.issue("s1", "spectator", by=st_grant.token_id)
        fork_st, fork_grant = tokens.issue("s1-at-4", "st", by=st_grant.token_id)
        sam, sam_grant = tokens.issue("s1-at-4", "player", "sam", by=fork_grant.token_id)
        other, other_grant = tokens.issue("s1", "st")
        juan, _ = tokens.issue("s1", "player", "juan", by=other_grant.token_id)
        assert (sam_grant.issued_by, fork_grant.issued_by, st_grant.issued_by) == (
            fork_grant.token_id,
            st_grant.token_id,
            None,
        )
        revocation = tokens.revoke(st_grant.token_id)
        assert revocation is not None and revocation.grant.revoked
        below = {spectator_grant.token_id, fork_grant.token_id, sam_grant.token_id}
        assert {g.token_id for g in revocation.cascaded} == below and all(g.revoked for g in revocation.cascaded)
        assert [tokens.check(t) for t in (st, spectator, fork_st, sam)] == [None] * 4
        assert tokens.check(other) is not None and tokens.check(juan) is not None
        assert tokens.ended() == below | {st_grant.token_id}
        assert {g.token_id for g in tokens.list("s1-at-4") if g.revoked} == {fork_grant.token_id, sam_grant.token_id}

    def test_a_revocation_counts_only_what_it_ended(self, backend: Backend) -> None:
        """Revoking a token whose invitation was revoked already names only the others; again, none."""
        _, st = backend.tokens.issue("s1", "st")
        _, sam = backend.tokens.issue("s1", "player", "sam", by=st.token_id)
        _, juan = backend.tokens.issue("s1", "player", "juan", by=st.token_id)
        first = backend.tokens.revoke(sam.token_id)
        assert first is not None and first.cascaded == []
        second = backend.tokens.revoke(st.token_id)
        assert second is not None and [g.token_id for g in second.cascaded] == [juan.token_id]
        third = backend.tokens.revoke(st.token_id)
        assert third is not None and third.grant.revoked and third.cascaded == []

    def test_nothing_is_issued_under_an_ended_token(self, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
        """A revoked, expired or unknown issuer, or one below a revoked token, issues nothing."""
        _, st = backend.tokens.issue("s1", "st")
        _, fork = backend.tokens.issue("s2", "st", by=st.token_id)
        backend.tokens.revoke(st.token_id)
        for issuer in (st.token_id, fork.token_id, "t-0000000000"):
            with pytest.raises(IssuerEnded):
                backend.tokens.issue("s1", "spectator", by=issuer)
        _, brief = backend.tokens.issue("s3", "st", expires=timedelta(hours=1))
        later = datetime.now(UTC) + timedelta(hours=2)
        monkeypatch.setattr(tokens_module, "_now", lambda: later)
        with pytest.raises(IssuerEnded):
            backend.tokens.issue("s3", "player", "sam", by=brief.token_id)
        listed = [g.token_id for scene in ("s1", "s2", "s3") for g in backend.tokens.list(scene)]
        assert sorted(listed) == sorted([st.token_id, fork.token_id, brief.token_id])

    def test_an_issued_token_never_outlives_its_issuer(self, backend: Backend) -> None:
        """Under a link that lasts an hour, an invitation for ten minutes lasts ten minutes; one for
        a day, or for ever, lasts the hour."""
        _, st = backend.tokens.issue("s1", "st", expires=timedelta(hours=1))
        _, short = backend.tokens.issue("s1", "spectator", expires=timedelta(minutes=10), by=st.token_id)
        _, long = backend.tokens.issue("s1", "spectator", expires=timedelta(days=1), by=st.token_id)
        _, endless = backend.tokens.issue("s1", "player", "sam", by=st.token_id)
        _, below = backend.tokens.issue("s2", "st", by=endless.token_id)
        assert short.expires_at is not None and st.expires_at is not None and short.expires_at < st.expires_at
        assert long.expires_at == endless.expires_at == below.expires_at == st.expires_at
        _, forever = backend.tokens.issue("s1", "st")
        _, theirs = backend.tokens.issue("s1", "spectator", by=forever.token_id)
        assert theirs.expires_at is None


@pytest.mark.parametrize("where", ON_DISK, indirect=True)
class TestSharedIssuedTokens:
    def test_a_cascade_reaches_every_process(self, where: str, opened: Callable[..., Backend]) -> None:
        """Tokens issued through one process, their issuer revoked through another: ended for both."""
        one, two = opened(where), opened(where)
        _, st = one.tokens.issue("s1", "st")
        sam, sam_grant = one.tokens.issue("s1", "player", "sam", by=st.token_id)
        two.tokens.revoke(st.token_id)
        assert one.tokens.check(sam) is None and one.tokens.ended() == {st.token_id, sam_grant.token_id}
        with pytest.raises(IssuerEnded):
            one.tokens.issue("s1", "spectator", by=st.token_id)

    def test_an_old_tokens_table_is_migrated(self, where: str, opened: Callable[..., Backend]) -> None:
        """A database written before tokens recorded their issuer gets the column when opened: its
        tokens still work (issued by nobody), and issue and cascade as new ones do."""
        old, old_grant = opened(where).tokens.issue("s1", "st")
        raw(where, "DROP INDEX tokens_by_issuer")
        raw(where, "ALTER TABLE tokens DROP COLUMN issued_by")
        assert "issued_by" not in columns(where)
        backend = opened(where)
        assert "issued_by" in columns(where)
        assert backend.tokens.check(old) == old_grant and old_grant.issued_by is None
        sam, _ = backend.tokens.issue("s1", "player", "sam", by=old_grant.token_id)
        revocation = backend.tokens.revoke(old_grant.token_id)
        assert revocation is not None and len(revocation.cascaded) == 1 and backend.tokens.check(sam) is None

    def test_an_invitation_racing_its_issuers_revocation_never_works(
        self, where: str, opened: Callable[..., Backend]
    ) -> None:
        """Two processes: one keeps issuing under the Storyteller's link (and under what it issued)
        while the other revokes the link. Whatever was issued is refused afterwards, and the rest
        were refused when issued."""
        one, two = opened(where), opened(where)
        for round_ in range(4):
            st, st_grant = one.tokens.issue("s1", "st")
            issued: list[str] = []
            five, stop = threading.Event(), threading.Event()
            inviting = threading.Thread(target=invite_until_refused, args=(one, st_grant.token_id, issued, five, stop))
            inviting.start()
            try:
                assert five.wait(30)
                two.tokens.revoke(st_grant.token_id)
                inviting.join(30)
                assert not inviting.is_alive(), f"round {round_}: issuing went on after the revocation"
            finally:  # never leave the thread on a connection the test is about to close
                stop.set()
                inviting.join()
            working = [token for token in issued if one.tokens.check(token) is not None]
            assert working == [] and two.tokens.check(st) is None, f"round {round_}: {len(working)} still work"


def invite_until_refused(
    backend: Backend, issuer: str, issued: list[str], five: threading.Event, stop: threading.Event
) -> None:
    """Issue under ``issuer``, then under what it issued, and so on, into ``issued`` until refused
    (or ``stop``); ``five`` is set at the fifth. A millisecond between two, as between a console's
    invitations (back to back, SQLite's writer lock could keep the revocation waiting past its
    timeout)."""
    while not stop.is_set():
        try:
            token, grant = backend.tokens.issue("s1", "spectator", by=issuer)
        except IssuerEnded:
            return
        issued.append(token)
        issuer = grant.token_id  # the next one a grandchild, and so on
        if len(issued) == 5:
            five.set()
        time.sleep(0.001)


def columns(where: str) -> set[str]:
    """The columns of the ``tokens`` table."""
    if where.startswith("postgresql://"):
        rows = raw(where, "SELECT column_name FROM information_schema.columns WHERE table_name = 'tokens'")
        return {str(row[0]) for row in rows}
    return {str(row[1]) for row in raw(where, "PRAGMA table_info(tokens)")}
