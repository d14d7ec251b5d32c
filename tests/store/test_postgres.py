"""What only the PostgreSQL store has: its settings in the URL, its start-up checks (the server's
version, the schema's, each privilege it needs), the server's refusals as ``StorageUnavailable``,
a race lost on the primary key, and each commit announced by ``NOTIFY``."""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from clients.cli import main
from domain.events import SceneClosed, SceneEvent, SceneOpened
from domain.log import check_chain
from server.store import Append, ConcurrencyConflict, StorageUnavailable, StoreError, postgres
from server.store.channels import channel
from server.store.postgres import PostgresStore, Settings, describe
from tests.postgres import server

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


@pytest.fixture
def stores(postgres_db: str) -> Iterator[list[PostgresStore]]:
    """Stores this test opens, closed after it."""
    opened: list[PostgresStore] = []
    yield opened
    for store in opened:
        store.close()


def open_(stores: list[PostgresStore], url: str, **options: bool) -> PostgresStore:
    store = PostgresStore(url, **options)
    stores.append(store)
    return store


def opening(store: PostgresStore, command: str = "c1", scene: str = "s1") -> None:
    store.append(scene, 0, [SceneOpened(ruleset="lotn")], command=command, digest="", actor="st", at=AT)


def item(scene: str, expected: int, command: str, *events: SceneEvent) -> Append:
    """One command of the Storyteller's, to append after event ``expected``."""
    return Append(scene=scene, expected_version=expected, events=events, command=command, digest="", actor="st", at=AT)


def as_user(url: str, user: str, password: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}:{password}@{host}"))


@contextlib.contextmanager
def role(postgres_db: str) -> Iterator[tuple[str, str]]:
    """A login role with no privileges (its name and URL to the test's database), dropped after."""
    name, password = f"justicar_role_{secrets.token_hex(4)}", secrets.token_hex(8)
    with psycopg.connect(server(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
    try:
        yield name, as_user(postgres_db, name, password)
    finally:
        with psycopg.connect(postgres_db, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {name}")
        with psycopg.connect(server(), autocommit=True) as admin:
            admin.execute(f"DROP ROLE {name}")


def waiting_on_a_lock(url: str) -> None:
    """Until another session of this database waits on a lock (a commit it must see first)."""
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(2000):
            found = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()
            if found and found[0]:
                return
            time.sleep(0.01)
    pytest.fail("no session ever waited on the lock")


class TestSettings:
    def test_pool_size_and_statement_timeout_come_from_the_url(self, postgres_db: str, stores: list) -> None:
        """``pool_size`` and ``statement_timeout`` are ours, taken out of the query; the rest is libpq's."""
        query = "?pool_size=2&statement_timeout=1500ms&application_name=table&options=-c%20work_mem%3D8MB"
        store = open_(stores, postgres_db + query)
        assert store.pool.max_size == 2
        assert store.query("SHOW statement_timeout") == [("1500ms",)]
        assert store.query("SHOW application_name") == [("table",)] and store.query("SHOW work_mem") == [("8MB",)]
        assert "pool_size" not in store.conninfo and "statement_timeout" not in store.conninfo
        default = open_(stores, postgres_db)
        assert default.pool.max_size == postgres.POOL_SIZE and default.query("SHOW statement_timeout") == [("30s",)]
        with pytest.raises(StoreError, match="pool_size must be a number"):
            Settings.from_url(postgres_db + "?pool_size=many")

    def test_the_password_is_never_shown(self) -> None:
        """What is logged and said names the user, host, port and database, never the password."""
        url = "postgresql://table:s3cr3t@db.example:5433/friday?pool_size=4"
        assert describe(url) == "postgresql://table@db.example:5433/friday"
        assert "s3cr3t" not in repr(Settings.from_url(url))

    def test_an_unreachable_server_is_unavailable(self) -> None:
        """No server at the address: ``StorageUnavailable``, naming where, without the password."""
        with socket_free_port() as port, pytest.raises(StorageUnavailable) as refused:
            PostgresStore(f"postgresql://table:s3cr3t@127.0.0.1:{port}/friday?connect_timeout=3")
        assert f"cannot reach PostgreSQL at postgresql://table@127.0.0.1:{port}/friday" in str(refused.value)
        assert "s3cr3t" not in str(refused.value)


@contextlib.contextmanager
def socket_free_port() -> Iterator[int]:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield probe.getsockname()[1]  # bound, never listening: a connection is refused


class TestStartUp:
    def test_the_schema_is_created_once_by_many_starting_together(self, postgres_db: str, stores: list) -> None:
        """Processes starting at once on an empty database: the tables made once, every one opens."""
        errors: list[BaseException] = []
        lock = threading.Lock()

        def start() -> None:
            try:
                store = PostgresStore(postgres_db)
                with lock:
                    stores.append(store)
            except BaseException as err:
                errors.append(err)

        threads = [threading.Thread(target=start) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [] and len(stores) == 4
        assert stores[0].query("SELECT version FROM justicar_schema") == [(postgres.SCHEMA_VERSION,)]

    def test_a_database_without_the_tables_is_not_read(
        self, postgres_db: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The read-only verbs create nothing: an empty database is said to be no Justicar database."""
        with pytest.raises(StoreError, match="not a Justicar database: it has none of its tables"):
            PostgresStore(postgres_db, readonly=True)
        assert main(["verify", "--db", postgres_db]) == 2
        assert "not a Justicar database" in capsys.readouterr().err

    def test_an_older_server_is_refused(self, postgres_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """A server older than the oldest supported is named, with the version needed."""
        monkeypatch.setattr(postgres, "MIN_SERVER", 990000)
        with pytest.raises(StoreError, match=r"runs PostgreSQL \d+\.\d+; Justicar needs PostgreSQL 99 or newer"):
            PostgresStore(postgres_db)

    def test_a_newer_schema_is_refused(self, postgres_db: str, stores: list) -> None:
        """Tables written by a newer Justicar are not written by this one."""
        open_(stores, postgres_db).query("UPDATE justicar_schema SET version = 99")
        with pytest.raises(StoreError, match=r"newer Justicar \(schema 99\)"):
            PostgresStore(postgres_db)

    def test_a_missing_privilege_is_named(self, postgres_db: str, stores: list) -> None:
        """A role that may not create the tables is told which privilege on which schema; once
        they exist, one that may read but not write is told which privilege on which table, and
        may still open the database read-only."""
        with role(postgres_db) as (name, url):
            with pytest.raises(StoreError, match=rf"role '{name}' lacks the CREATE privilege on schema 'public'"):
                PostgresStore(url)
            open_(stores, postgres_db)  # the owner creates them
            with psycopg.connect(postgres_db, autocommit=True) as conn:
                conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {name}")
            with pytest.raises(StoreError, match=rf"role '{name}' lacks the privilege INSERT on events"):
                PostgresStore(url)
            reader = PostgresStore(url, readonly=True)
            try:
                assert reader.scenes() == []
            finally:
                reader.close()


class TestRefusals:
    def test_a_read_only_server_is_unavailable_and_nothing_is_written(self, postgres_db: str, stores: list) -> None:
        """The server refuses writes (a read-only database, as a standby or a full disk would):
        the append is ``StorageUnavailable`` and wrote nothing; once it takes writes, the same
        store appends again."""
        store = open_(stores, postgres_db)
        opening(store)
        name = postgres_db.rsplit("/", 1)[1]
        with psycopg.connect(server(), autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
        with pytest.raises(StorageUnavailable, match="read-only"):
            store.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT)
        with psycopg.connect(server(), autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
        assert store.head("s1")[0] == 1 and store.command("s1", "st", "c2") is None
        store.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT)
        assert store.head("s1")[0] == 2

    def test_a_statement_past_its_timeout_is_unavailable(self, postgres_db: str, stores: list) -> None:
        """A write that waits past ``statement_timeout`` (here on a lock another session holds) is
        cancelled by the server: ``StorageUnavailable``, nothing written."""
        store = open_(stores, postgres_db + "?statement_timeout=200ms")
        opening(store)
        with psycopg.connect(postgres_db) as holder:
            holder.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(StorageUnavailable, match="statement timeout"):
                store.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT)
            holder.rollback()
        assert store.head("s1")[0] == 1 and store.command("s1", "st", "c2") is None

    def test_a_read_only_store_writes_nothing(self, postgres_db: str, stores: list) -> None:
        """Opened read-only (log, verify, replay, export, audit), the store refuses to append, and
        its connections refuse any write."""
        opening(open_(stores, postgres_db))
        reader = open_(stores, postgres_db, readonly=True)
        with pytest.raises(StoreError, match="read-only"):
            reader.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT)
        with pytest.raises(StorageUnavailable, match="read-only"):
            reader.query("DELETE FROM events")
        assert reader.head("s1")[0] == 1


class TestRaces:
    def test_a_race_lost_on_the_primary_key_conflicts(self, postgres_db: str, stores: list) -> None:
        """Another process's append commits while this one's is inserting the same seq: the
        unique key refuses it, ``ConcurrencyConflict``, and it wrote nothing; in a group commit,
        the other commands of the group still go in."""
        store = open_(stores, postgres_db)
        opening(store)
        with psycopg.connect(postgres_db) as other:  # another process, half-way through its append
            other.execute(
                "INSERT INTO events (scene, seq, type, at, actor, command, prev, hash, data) "
                "SELECT 's1', 2, type, at, actor, 'theirs', hash, 'h', data FROM events WHERE seq = 1"
            )
            outcome: list[object] = []
            mine = threading.Thread(
                target=lambda: outcome.append(
                    store.append_batch(
                        [
                            item("s1", 1, "mine", SceneClosed()),
                            item("s2", 0, "mine", SceneOpened(ruleset="lotn")),
                        ]
                    )
                )
            )
            mine.start()
            waiting_on_a_lock(postgres_db)
            other.commit()
            mine.join()
        (done,) = outcome
        assert isinstance(done, list) and isinstance(done[0], ConcurrencyConflict) and isinstance(done[1], list)
        assert [r[0] for r in store.query("SELECT command FROM events WHERE scene = 's1' ORDER BY seq")] == [
            "c1",
            "theirs",
        ]
        assert store.command("s1", "st", "mine") is None and store.head("s2")[0] == 1

    def test_a_single_append_that_loses_the_race_conflicts(self, postgres_db: str, stores: list) -> None:
        """Another process takes this command id while this append is inserting it: the commands'
        key refuses it, ``ConcurrencyConflict``, and none of its events were written."""
        store = open_(stores, postgres_db)
        opening(store)
        with psycopg.connect(postgres_db) as other:
            other.execute(
                "INSERT INTO commands (scene, actor, id, digest, first_seq, last_seq) "
                "VALUES ('s1', 'st', 'c2', '', 2, 2)"
            )
            raised: list[BaseException] = []

            def append() -> None:
                try:
                    store.append("s1", 1, [SceneClosed()], command="c2", digest="", actor="st", at=AT)
                except BaseException as err:
                    raised.append(err)

            mine = threading.Thread(target=append)
            mine.start()
            waiting_on_a_lock(postgres_db)
            other.commit()
            mine.join()
        assert len(raised) == 1 and isinstance(raised[0], ConcurrencyConflict)
        assert store.head("s1")[0] == 1


class TestNotify:
    def test_each_commit_is_announced_with_its_scenes_last_seq(self, postgres_db: str, stores: list) -> None:
        """``NOTIFY`` on the channel of the scene's group: one ``"SEQ SCENE"`` per scene a commit
        wrote, its last seq; an append that conflicted announces nothing."""
        store = open_(stores, postgres_db)
        assert channel("s1") != channel("s2")
        with psycopg.connect(postgres_db, autocommit=True) as listener:
            listener.execute(f"LISTEN {channel('s1')}; LISTEN {channel('s2')}")
            opening(store)
            with pytest.raises(ConcurrencyConflict):
                store.append("s1", 0, [SceneClosed()], command="late", digest="", actor="st", at=AT)
            store.append_batch(
                [
                    item("s1", 1, "a", SceneClosed()),
                    item("s2", 0, "a", SceneOpened(ruleset="lotn")),
                    item("s1", 2, "b", SceneClosed(), SceneClosed()),
                ]
            )
            heard = [(n.channel, n.payload) for n in listener.notifies(timeout=10, stop_after=3)]
        one, two = channel("s1"), channel("s2")
        assert heard in ([(one, "1 s1"), (one, "4 s1"), (two, "1 s2")], [(one, "1 s1"), (two, "1 s2"), (one, "4 s1")])
        assert check_chain(store.read_wire("s1")) is None


def test_the_url_picks_the_backend(postgres_db: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--db postgresql://…`` opens the store, tokens and snapshots in that database, said by kind
    and where without the password; a path is SQLite, as ever; nothing is memory."""
    from server.backend import open_backend
    from server.store import MemoryStore, SqliteStore, open_store
    from server.tokens import PostgresTokens

    backend = open_backend(postgres_db, lock=True)
    try:
        assert isinstance(backend.store, PostgresStore) and isinstance(backend.tokens, PostgresTokens)
        assert backend.snapshots is not None and backend.kind == "postgresql" and backend.lock is None
        password = urlsplit(postgres_db).password
        assert backend.where == describe(postgres_db) and (password is None or password not in backend.where)
    finally:
        backend.close()
    reader = open_store(postgres_db, readonly=True)
    assert isinstance(reader, PostgresStore) and reader.readonly
    reader.close()
    lite = open_store(str(tmp_path / "j.db"))
    assert isinstance(lite, SqliteStore) and isinstance(open_store(None), MemoryStore)
    lite.close()
