"""A PostgreSQL for the tests, and a database of its own for each test.

The server, found once per test process (``server()``):
1. ``JUSTICAR_TEST_POSTGRES`` when set: a URL of a server where the tests may create databases
   (``postgresql://postgres@db.example:5432/postgres``);
2. else the one answering on 127.0.0.1:5432 as ``postgres`` (trust or ``PGPASSWORD``);
3. else a throwaway cluster: ``initdb`` (on the PATH, or Debian's ``/usr/lib/postgresql/*/bin``;
   ``make test`` installs Debian's ``postgresql`` when there is no ``initdb``: ``Cluster``) in
   a temporary directory, started on a free port of 127.0.0.1, as the ``postgres`` user when the
   tests run as root (PostgreSQL refuses to run as root), stopped and deleted when the process
   ends.

Nothing here skips: no server is a set-up error saying how to get one.

``database()`` creates ``justicar_test_<random>`` on that server and yields its URL, and drops it
afterwards (closing whatever is still connected): each test, and each pytest-xdist worker, has
its own. The ``postgres_db`` fixture (``tests/conftest.py``) is that, per test.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ENV = "JUSTICAR_TEST_POSTGRES"
LOCAL = "postgresql://postgres@127.0.0.1:5432/postgres"
HOW = (
    f"set {ENV}=postgresql://USER@HOST:PORT/postgres (a role that may CREATE DATABASE), start PostgreSQL on "
    "127.0.0.1:5432 with trust for 'postgres', or install Debian's postgresql package (`make test` does: "
    "apt-get install postgresql) so that the tests can start a cluster of their own with initdb"
)


class NoPostgres(RuntimeError):
    """No PostgreSQL for the tests, and no way to start one."""


_server: str | None = None


def server() -> str:
    """The URL of the tests' server (its ``postgres`` database), found or started once a process."""
    global _server
    if _server is None:
        _server = _find()
    return _server


def _answers(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
        return True
    except psycopg.Error:
        return False


def _find() -> str:
    given = os.environ.get(ENV)
    if given:
        try:
            with psycopg.connect(given, connect_timeout=10, autocommit=True) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as err:
            raise NoPostgres(f"{ENV}={_redacted(given)} does not answer: {err}") from err
        return given
    if _answers(LOCAL):
        return LOCAL
    return _throwaway()


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    if len(netloc) == 2 and ":" in netloc[0]:
        return urlunsplit(parts._replace(netloc=netloc[0].split(":", 1)[0] + ":…@" + netloc[1]))
    return url


def _bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    if not candidates:
        raise NoPostgres(f"no PostgreSQL answers and there is no {name} to start one: {HOW}")
    return candidates[-1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A PostgreSQL cluster of the tests' own (``initdb``), on a free port of 127.0.0.1, as the
    ``postgres`` user when the tests run as root (PostgreSQL refuses to run as root): started,
    stopped as a crash stops it (``-m immediate``: every connection cut, as a server killed or a
    host gone) and started again on the same port, and deleted when closed."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _bin("initdb"), _bin("pg_ctl")
        self.where = Path(tempfile.mkdtemp(prefix="justicar-pg-"))
        self.data, self.log = self.where / "data", self.where / "log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise NoPostgres(
                    f"the tests run as root and there is no 'postgres' user to run a cluster as: {HOW}"
                ) from None
            os.chown(self.where, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._run(
            self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"
        )
        self.start()

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self.as_user, *argv], capture_output=True, text=True, check=False)
        if done.returncode:
            raise NoPostgres(f"{' '.join(argv[:2])} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.where} -c fsync=off -c max_connections=200"
        self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")
        if not _answers(self.url):
            raise NoPostgres(f"the throwaway cluster in {self.where} started but does not answer: see {self.log}")

    def stop(self) -> None:
        """Stop it at once, as a crash would (``immediate``)."""
        subprocess.run(
            [*self.as_user, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            check=False,
        )

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.where, ignore_errors=True)


def _throwaway() -> str:
    cluster = Cluster()
    atexit.register(cluster.close)
    return cluster.url


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@contextlib.contextmanager
def database() -> Iterator[str]:
    """A new, empty database on the tests' server (its URL), dropped afterwards."""
    admin = server()
    name = f"justicar_test_{secrets.token_hex(6)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(admin, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
