"""A rule's own words, and the document they come from (``docs/rules/``)."""

from __future__ import annotations

import msgspec


class Rule(msgspec.Struct, frozen=True):
    id: str
    source: str
    words: str
