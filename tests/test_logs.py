"""The server's log under ``--log-json`` is one JSON object a line, what the libraries log through
the standard library (psycopg, its pool) included."""

from __future__ import annotations

import json
import logging

import pytest
import structlog

from server.logs import configure


@pytest.fixture
def restored() -> object:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield None
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def test_library_lines_are_json(restored: object, capsys: pytest.CaptureFixture[str]) -> None:
    configure(json=True)
    logging.getLogger("psycopg").warning("error ignored terminating %r", "<psycopg.Pipeline [IDLE]>")
    try:
        raise ConnectionRefusedError("connection refused")
    except ConnectionRefusedError:
        logging.getLogger("psycopg.pool").error("error connecting in 'justicar'", exc_info=True)
    logging.getLogger("psycopg.pool").info("an info line stays out")
    structlog.get_logger("justicar.test").warning("ours", scene="s1")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(line.get("logger", "ours"), line["level"]) for line in lines] == [
        ("psycopg", "warning"),
        ("psycopg.pool", "error"),
        ("ours", "warning"),
    ]
    assert lines[0]["event"] == "error ignored terminating '<psycopg.Pipeline [IDLE]>'"
    assert "ConnectionRefusedError: connection refused" in lines[1]["exception"]
