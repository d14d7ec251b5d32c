"""structlog for the server: one line per event, readable on a console or JSON (``--log-json``).

Nothing hidden is logged at INFO: command lines carry scene, actor, verb, id, outcome and
latency, never signs, counts or sheets.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure(*, json: bool = False, level: int = logging.INFO) -> None:
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
