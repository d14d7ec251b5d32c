"""What an event type is, said once beside it (``FACTS`` on each class in ``domain.events``): whom
it touches, what of it is secret from whom, whether a ruling can undo it, and what of it outlives
its scene in a game night. Views, redaction, rulings and the night read these declarations instead
of keeping lists of their own; ``problems`` finds an event type without one (tests/test_event_facts.py).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec


class Secret(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """Fields of an event that only the Storyteller and one character may know (and, where
    ``spectators``, those who only watch). A viewer who may not know them reads them as ``null``
    (named in the record's ``redacted``); a field holding ``null`` already hides nothing."""

    fields: tuple[str, ...]
    known_to: str = ""
    """The field naming the character (or its sheet) who may know them; empty: the Storyteller alone."""
    spectators: bool = False
    """Spectators may know them too (where people are, not what they carry)."""
    shown: tuple[str, ...] = ()
    """Of a hidden sheet, the parts still shown to everyone (its id, name, NPC flag) in place of null."""
    parts: tuple[str, ...] = ()
    """Only these parts of the field are hidden (a sheet's ``notes``), and only when they hold something."""
    blind: bool = False
    """Hidden from the Storyteller too while it still has to throw or roll in that test
    (``projections.redact.blind``)."""
    until: str = ""
    """The event that later shows it to everyone (the sealed copy itself stays sealed), if any."""


class Facts(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """What one event type is (``FACTS`` on its class)."""

    people: tuple[str, ...] = ()
    """The fields naming characters it touches (an id, a list of ids, or a sheet)."""
    everyone: bool = False
    """It touches every character (their actions, declared actions, movement)."""
    turns: bool = False
    """Anyone may act differently after it (whose turn it is, whether the scene is open)."""
    secret: tuple[Secret, ...] = ()
    """What of it some viewers may not know (empty: it is public)."""
    undone_by: str = ""
    """A consequence of a challenge's resolution that a ruling undoes: the type of the event that
    undoes it (``trait_restored`` for ``trait_lost``); empty: not such a consequence."""
    carried: bool = False
    """What it changes in a character outlives the scene: a game night carries it to the
    character's next scene (``domain.carried.Carried``)."""
    sends: bool = False
    """A commit with it asks something of another stream of its night (``domain.night.follow_ups``)."""


SHEET_SHOWN = ("id", "name", "npc")
"""What everyone may know of a character's sheet."""

A_SHEET = (
    Secret(fields=("character",), known_to="character", shown=SHEET_SHOWN),
    Secret(fields=("character",), parts=("notes",)),
)
"""A sheet: its player's and the Storyteller's; its notes the Storyteller's alone."""


def facts_of(kind: type) -> Facts | None:
    """The declaration on ``kind`` itself (None: it has none)."""
    found = vars(kind).get("FACTS")
    return found if isinstance(found, Facts) else None


def problems(kinds: Iterable[type]) -> list[str]:
    """What is wrong with these event types' declarations, in words (empty: nothing): a type
    without one, or one naming a field the type does not have, or an undoing type that is not an
    event of ``kinds``."""
    kinds = list(kinds)
    names = {getattr(getattr(kind, "__struct_config__", None), "tag", None) for kind in kinds}
    out: list[str] = []
    for kind in kinds:
        facts = facts_of(kind)
        if facts is None:
            out.append(f"{kind.__name__} declares no FACTS")
            continue
        fields = set(getattr(kind, "__struct_fields__", ()))
        named = [*facts.people, *(f for s in facts.secret for f in (*s.fields, *filter(None, [s.known_to])))]
        out.extend(f"{kind.__name__}: no field {f!r}" for f in dict.fromkeys(named) if f not in fields)
        if facts.undone_by and facts.undone_by not in names:
            out.append(f"{kind.__name__}: undone by {facts.undone_by!r}, which is no event")
    return out
