"""Errors the domain raises.

- ``Rejected``: a command the rules refuse; nothing is appended.
"""

from __future__ import annotations


class Rejected(Exception):
    """A command is refused: ``code`` is a stable word, ``message`` is for the player,
    ``rule`` cites the rule id (``lotn:ties``) when one applies."""

    def __init__(self, code: str, message: str, rule: str | None = None, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.fields = fields or {}
        """What is wrong, by a field's path (a sheet's: ``skills.Brwal``), for a form to show beside it."""

    def __repr__(self) -> str:
        return f"Rejected({self.code!r}, {self.message!r}, {self.rule!r})"
