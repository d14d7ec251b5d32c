"""Shared bits of the benchmark scripts: where the databases go, how a run is described, and how
figures are summarised (median and range over runs) and printed."""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import secrets
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def workdir(args: argparse.Namespace) -> Path:
    """A fresh directory on the project's disk (not tmpfs), so fsync costs what it costs."""
    base = Path(args.dir) if args.dir else ROOT / ".justicar" / "bench"
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(dir=base))
    return path


def cleanup(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def copy_db(source: Path, target: Path) -> Path:
    """A copy of a SQLite database with its WAL (the copy is what a run writes to)."""
    for suffix in ("", "-wal", "-shm"):
        found = Path(f"{source}{suffix}")
        if found.exists():
            shutil.copyfile(found, f"{target}{suffix}")
    return target


def parser(description: str, runs: int = 3) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--runs", type=int, default=runs, help=f"independent runs: figures are their median and range ({runs})"
    )
    p.add_argument("--dir", help="where to put the benchmark databases (default: .justicar/bench)")
    return p


def command_line() -> str:
    """The command that started this process, as typed from the project's root."""
    exe = Path(sys.executable)
    shown = str(exe.relative_to(ROOT)) if exe.is_relative_to(ROOT) else str(exe)
    script = Path(sys.argv[0]).resolve()
    if script.is_relative_to(ROOT) and script.suffix == ".py":
        module = ".".join(script.relative_to(ROOT).with_suffix("").parts)
        return shlex.join([shown, "-m", module, *sys.argv[1:]])
    return shlex.join([shown, *sys.argv])


def revision() -> str:
    """The commit the code is at, and whether the tree has changes beside it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("JUSTICAR_REVISION", "unknown")
    changed = sorted({line[3:].split("/")[0] for line in dirty.splitlines()})
    measured = [path for path in changed if path not in ("benchmarks", "docs", "Makefile")]
    if measured:
        return f"{head} with uncommitted changes to {', '.join(measured)}"
    return head + (" with uncommitted benchmarks" if changed else "")


def header(title: str) -> None:
    print(f"# {title}")
    print(f"# command: {command_line()}")
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; {platform.python_implementation()} {platform.python_version()}"
        f" on {platform.machine()}, {os.cpu_count()} cores; code at {revision()}"
    )
    sys.stdout.flush()


def row(label: str, count: int, seconds: float, unit: str = "events") -> float:
    rate = count / seconds if seconds else float("inf")
    print(f"{label:<58} {count:>8} {unit} in {seconds:7.3f} s  = {rate:>10,.0f} {unit}/s")
    return rate


def percentile(samples: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0.5, 0.99) by rank, as the benchmarks have always taken it."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def spread(values: Sequence[float], fmt: str = ".2f") -> str:
    """``median (min-max)`` of one figure over runs."""
    values = [v for v in values if v == v]  # nan: not measured in that run
    if not values:
        return "-"
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:{fmt}}"
    return f"{median:{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def median(values: Sequence[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A plain table, right-aligned but for the first column, in Markdown (pasted into the docs)."""
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        padded = (c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
        return "| " + " | ".join(padded) + " |"

    print(line(head))
    print("|" + "|".join("-" * (w + 1) + ("-" if i == 0 else ":") for i, w in enumerate(widths)) + "|")
    for r in rows:
        print(line(r))
    sys.stdout.flush()


# -- PostgreSQL ------------------------------------------------------------------------------------


def pg_url(admin: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``admin``."""
    return urlunsplit(urlsplit(admin)._replace(path=f"/{name}"))


@contextlib.contextmanager
def pg_database(admin: str, label: str = "bench", *, template: str | None = None) -> Iterator[str]:
    """A new database on the server of ``admin`` (a copy of ``template``): its name; dropped
    afterwards, whoever is still connected to it."""
    import psycopg

    name = f"justicar_{label}_{secrets.token_hex(5)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        yield name
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
