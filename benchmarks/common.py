"""Shared bits of the benchmark scripts: where the databases go, and how figures are printed."""

from __future__ import annotations

import argparse
import platform
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def workdir(args: argparse.Namespace) -> Path:
    """A fresh directory on the project's disk (not tmpfs), so fsync costs what it costs."""
    base = Path(args.dir) if args.dir else ROOT / ".justicar" / "bench"
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(dir=base))
    return path


def cleanup(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--dir", help="where to put the benchmark databases (default: .justicar/bench)")
    return p


def header(title: str) -> None:
    print(f"# {title}")
    print(
        f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d %H:%M:%S')}"
    )


def row(label: str, count: int, seconds: float, unit: str = "events") -> float:
    rate = count / seconds if seconds else float("inf")
    print(f"{label:<58} {count:>8} {unit} in {seconds:7.3f} s  = {rate:>10,.0f} {unit}/s")
    return rate
