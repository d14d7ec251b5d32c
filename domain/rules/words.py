"""A rule's own words, and the document they come from (``docs/rules/``)."""

from __future__ import annotations

import msgspec

BOOKS = {
    "laws-of-the-night-challenges.txt": "Laws of the Night",
    "camarilla-combat-guide.txt": "The Camarilla Combat Guide",
    "bns-opposed-challenges.txt": "By Night Studios, Opposed Challenges",
    "bns-complex-scenarios-combat.txt": "By Night Studios, Complex Scenarios: Combat",
    "kings-of-new-york-combat.txt": "Kings of New York, Combat",
}
"""Each document's title as a player knows the book: a quote is signed with it, not a file name."""


class Rule(msgspec.Struct, frozen=True):
    id: str
    document: str
    """The file in ``docs/rules/`` the words are checked against."""
    words: str

    @property
    def source(self) -> str:
        """Where the words come from, as a page or the audit signs the quote."""
        return BOOKS.get(self.document, self.document)
