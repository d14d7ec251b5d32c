"""Announcements heard per process per commit, with commits announced by group of scenes.

    .venv/bin/python -m benchmarks.announcements [--db URL] [--scenes 100] [--processes 2] [--rounds 10]

``--processes`` feeds (``server.notify.Listener``, as many ``serve`` processes have, here in one
process) on one fresh database; the scenes are dealt among them, each feed holding its share (as a
scene-affine proxy would leave them). A ``PostgresStore`` then commits ``--rounds`` commands to
every scene in turn; each feed counts the announcements it received (``Listener.heard``) and those
of scenes it does not hold (``.foreign``). Before the groups every process listened to the one
channel and heard every commit: 1.0 per process per commit. Measured with the number of groups
``server.store.channels.GROUPS`` has, and with 64 for comparison (both the store and the feeds
take it from there). The counts are exact, not timings: one run says it all.

``--server-cost`` (only with the server on this machine: it reads the CPU time of its sessions in
``/proc``) then measures what groups do not save: the CPU the database spends, per commit, in an
idle session that listens to none of the commit's channel, as it listens to 1, 64, 1024 and 4096
channels (PostgreSQL wakes every listening session for each commit and checks its channels by a
list scan). ``--runs`` alternates the channel counts that many times; the 10 ms ticks of ``/proc``
make each figure good to a few microseconds at the default ``--commits``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import anyio
import psycopg

from benchmarks.common import header, parser, pg_database, pg_url, spread, table
from domain.events import SceneOpened
from server.notify import Listener
from server.store import channels
from server.store.postgres import PostgresStore

AT = datetime(2026, 1, 1, tzinfo=UTC)


@contextmanager
def database(admin: str) -> Iterator[str]:
    with pg_database(admin, "notify") as name:
        yield pg_url(admin, name)


async def one(url: str, scenes: list[str], processes: int, rounds: int) -> list[tuple[int, int, int]]:
    """Per feed: the scenes it held, the announcements it heard, those of scenes it did not hold."""
    store = PostgresStore(url)
    feeds = [Listener(url, speak=False) for _ in range(processes)]
    held = [scenes[n::processes] for n in range(processes)]
    reached: list[dict[str, int]] = [{} for _ in feeds]

    def hearing(n: int) -> Callable[[str, int | None], None]:
        def heard(scene: str, seq: int | None) -> None:
            if seq is not None:
                reached[n][scene] = max(seq, reached[n].get(scene, 0))

        return heard

    def commit(scene: str, seq: int) -> None:
        store.append(scene, seq - 1, [SceneOpened(ruleset="lotn")], command=f"c{seq}", digest="", actor="st", at=AT)

    try:
        async with anyio.create_task_group() as tg:
            for n, feed in enumerate(feeds):
                for scene in held[n]:
                    feed.watch(scene)
                tg.start_soon(feed.run, lambda n=n: held[n], hearing(n))
            with anyio.fail_after(30):
                for feed in feeds:
                    await feed.listening.wait()
            for seq in range(1, rounds + 1):
                for scene in scenes:
                    await anyio.to_thread.run_sync(commit, scene, seq)
            with anyio.fail_after(30):  # every feed heard the last commit of each scene it holds
                while any(reached[n].get(s) != rounds for n in range(processes) for s in held[n]):
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    finally:
        store.close()
    return [(len(held[n]), feed.heard, feed.foreign) for n, feed in enumerate(feeds)]


def cpu(pid: int) -> float:
    """The CPU seconds a process (here a session of the database server) has used."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_cost(url: str, channels_on: int, commits: int) -> tuple[float, float]:
    """Microseconds of CPU per commit of the listening session (on ``channels_on`` channels, none
    of them the commits') and of the committing one."""
    with psycopg.connect(url, autocommit=True) as listening, psycopg.connect(url, autocommit=True) as saying:
        listening.execute("; ".join(f"LISTEN {channels.channel_of(g)}" for g in range(channels_on)))
        pids = [conn.execute("SELECT pg_backend_pid()").fetchone()[0] for conn in (listening, saying)]  # type: ignore[index]
        before = [cpu(pid) for pid in pids]
        for _ in range(commits):
            saying.execute("SELECT pg_notify('justicar_commits_elsewhere', '1 s')")
        time.sleep(0.5)  # the listening session drains the queue on its own time
        after = [cpu(pid) for pid in pids]
    return ((after[0] - before[0]) * 1e6 / commits, (after[1] - before[1]) * 1e6 / commits)


def main() -> None:
    p = parser(__doc__.splitlines()[0], runs=1)
    p.add_argument(
        "--db", default="postgresql://postgres@127.0.0.1:5432/postgres", help="a server to make databases on"
    )
    p.add_argument("--server-cost", action="store_true", help="also the database's CPU per commit (a local server)")
    p.add_argument("--commits", type=int, default=10_000, help="commits per channel count for --server-cost")
    p.add_argument("--scenes", type=int, default=100, help="scenes, dealt among the processes (default 100)")
    p.add_argument("--processes", type=int, default=2, help="feeds, one per process served (default 2)")
    p.add_argument("--rounds", type=int, default=10, help="commits to each scene (default 10)")
    args = p.parse_args()
    header(
        f"announcements: {args.scenes} scenes dealt among {args.processes} processes, {args.rounds} commits each,"
        " announcements each process's feed received"
    )
    scenes = [f"scene-{n}" for n in range(args.scenes)]
    commits = args.scenes * args.rounds
    rows = [["1 channel (before)", "-", f"{commits}", "1.00", "-"]]
    for groups in (channels.GROUPS, 64):
        channels.GROUPS = groups
        with database(args.db) as url:
            for n, (count, heard, foreign) in enumerate(anyio.run(one, url, scenes, args.processes, args.rounds)):
                per = f"{heard / commits:.2f}"
                rows.append([f"{groups} groups, process {n + 1}", f"{count}", f"{heard}", per, f"{foreign}"])
    table(["channels", "scenes held", "heard", "per commit", "of scenes not held"], rows)
    if not args.server_cost:
        return
    counts = (1, 64, 1024, 4096)
    costs: dict[int, list[tuple[float, float]]] = {n: [] for n in counts}
    with database(args.db) as url:
        for _ in range(args.runs):
            for n in counts:
                costs[n].append(server_cost(url, n, args.commits))
    print(f"\n## the database's CPU per commit, {args.commits} commits, {args.runs} runs alternated: median (min-max)")
    table(
        ["channels the session listens to", "listening session, µs/commit", "committing session, µs/commit"],
        [[f"{n}", spread([c[0] for c in costs[n]], ".1f"), spread([c[1] for c in costs[n]], ".1f")] for n in counts],
    )


if __name__ == "__main__":
    main()
