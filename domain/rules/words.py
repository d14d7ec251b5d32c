"""A rule's own words, and the document they come from (``docs/rules/``)."""

from __future__ import annotations

import msgspec

BOOKS: dict[str, str] = {}
"""Each document's title as a player knows the book: a quote is signed with it, not a file name
(each ruleset's ``books``, gathered as it registers)."""


class Rule(msgspec.Struct, frozen=True):
    id: str
    document: str
    """The file in ``docs/rules/`` the words are checked against."""
    words: str

    @property
    def source(self) -> str:
        """Where the words come from, as a page or the audit signs the quote."""
        return BOOKS.get(self.document, self.document)


class OptionWords(msgspec.Struct, frozen=True, kw_only=True):
    """What the Storyteller reads of one option in the new-scene form."""

    label: str
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    """Each choice of a ``Literal`` option with its words, the default first."""
