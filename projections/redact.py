"""Each viewer's copy of an event: what that viewer may not know is blanked.

Viewers: ``"st"`` (the Storyteller, sees everything but what ``blind`` says), a character id (a
player), ``"*"`` (a spectator). What an event hides, from whom, is declared beside it
(``FACTS.secret`` in ``domain/events.py``, ``domain.facts.Secret``); ``hidden_fields`` reads that.
Hidden from a viewer:

- ``throw_sealed``: the sign, unless it is the viewer's own throw (the reveal, ``test_revealed``,
  is public); ``dice_rolled`` likewise: the dice, the retests named and how many dice and why;
  from the Storyteller too while it still has to throw or roll for a side of that test (``blind``);
- ``character_added``: another character's sheet beyond id, name and NPC; the ST's ``notes`` even
  from the character's own player; so too a game night's ``character_registered`` and
  ``character_entered`` (and the latter's ``carried``: what another character has lost tonight);
- a game night's ``character_left``, ``character_returned`` (``carried``) and ``carried_corrected``
  (``changes``, ``why``): except to the ST and that character; where another character goes or
  comes back from (``character_moved.to``, ``character_returned.scene``): hidden from players,
  shown to spectators (who see who is where);
- ``character_adjusted``: the changes and the reason, except to the ST and that character;
- ``challenge_declared``, ``bid_placed``, ``mob_joined``: a side's test pool, except to the ST and
  that side (the first ``test_revealed`` shows every pool; a relent's pool is shown as it ends the
  challenge);
- a game night's ``scene_added`` and ``scene_ended`` (``scene``, ``title``): from players, whose
  night view and words name only the scene their character is in (``projections.night_view``);
  shown to spectators. A record cannot be dropped (the chain has no gaps), so it stays, blanked:
  "a new scene opens tonight";
- the ``command`` of the server's follow-ups (ids starting with ``~``: ``~back-park-rosa-9``,
  ``~arrive-…``, ``~correct-park-…``), which name the scenes they come from: from everyone but the
  ST, as ``"~"`` (still telling a follow-up from a client's command).

A blanked field of the event is ``null`` (the command: ``"~"``) and is named in the record's
``redacted`` list (the command as ``command``). Hashes are the original's, so a redacted record still
says where it sits in the chain; but the hash covers the command and the data, so only a copy with
nothing in ``redacted`` (the ST's always) can be re-hashed.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.events import DiceRolled, ThrowSealed
from domain.facts import Secret
from domain.log import Recorded, Wire, to_wire
from domain.rules import ruleset_for
from domain.sheets import Sheet
from domain.state import NARRATOR, Challenge, Scene, Side

_encoder = msgspec.json.Encoder(order="sorted")
SPECTATOR = "*"


def knows(viewer: str, who: str) -> bool:
    """Whether ``viewer`` may know what only ``who`` (and the ST) may know."""
    return viewer in (NARRATOR, who)


Blind = frozenset[tuple[str, int, str]]
"""Sealed throws and rolls hidden from a viewer who knows whose they are: (challenge, test number,
character), as ``throw_sealed`` and ``dice_rolled`` name them."""
SEES_ALL: Blind = frozenset()


def blind(state: Scene, viewer: str) -> Blind:
    """The sealed throws and rolls the Storyteller may not know now: while it still has to throw or
    roll for a side of a test (an NPC, or the Narrator of a static test where signs are thrown), the
    other side's, until both are in (ARCHITECTURE, invariant 6: sealed from everyone who still has
    to act in that test). A Storyteller who only watches two players sees their sealed signs, as
    ever; a player or a spectator knows no sealed throw but its own anyway (``knows``).

    The one rule for every path a viewer reads a sealed throw by: its view (``sealed``, ``rolls``),
    and its copy of the events (``redact``) and their words (``narrate``) in a live push, a
    catch-up, a history page or a replay, each given the state of the scene *now*: a throw hidden
    while the Storyteller was due is shown once both are in, as the reveal shows it."""
    if viewer != NARRATOR or not state.undecided:
        return SEES_ALL
    signs = ruleset_for(state.ruleset).die is None
    hidden: set[tuple[str, int, str]] = set()
    for cid in state.undecided:
        ch = state.challenges[cid]
        if ch.status == "throwing":
            hidden.update((cid, len(ch.tests) + 1, who) for who in _blind_to(state, ch, signs))
    return frozenset(hidden) if hidden else SEES_ALL


def _blind_to(state: Scene, ch: Challenge, signs: bool) -> list[str]:
    """The players whose throw or roll is sealed in ``ch`` while a side the Storyteller acts for
    still has to throw or roll (none: nothing is due of it)."""
    sides = (ch.challenger, ch.defender)
    if not any(_storytellers(state, side, signs) and not _in(side) for side in sides):
        return []
    return [side.who for side in sides if _in(side) and not _storytellers(state, side, signs)]


def _in(side: Side) -> bool:
    """Whether the side's throw (or its dice) for the current test is in."""
    return side.throw is not None or side.rolled is not None


def _storytellers(state: Scene, side: Side, signs: bool) -> bool:
    """Whether the Storyteller throws or rolls for this side: an NPC, or the Narrator (who throws
    signs, and rolls no dice: its side is the difficulty)."""
    if side.who == NARRATOR:
        return signs
    c = state.characters.get(side.who)
    return c is not None and c.sheet.npc


def sealed_from(event: ThrowSealed | DiceRolled, blind: Blind) -> bool:
    """Whether this sealed throw or roll is one ``blind`` hides."""
    return bool(blind) and (event.challenge, event.test, event.character) in blind


def hidden_fields(record: Recorded, viewer: str, blind: Blind = SEES_ALL) -> dict[str, Any]:
    """The fields of the event's data to replace for this viewer (empty: the event is public), as
    its type declares them secret (``FACTS.secret``, ``domain.facts.Secret``); ``blind``: the sealed
    throws and rolls hidden from it now, though it knows whose they are."""
    event = record.event
    secrets = type(event).FACTS.secret
    if not secrets:
        return {}
    if blind and any(secret.blind for secret in secrets) and sealed_from(event, blind):  # type: ignore[arg-type]
        return {field: None for secret in secrets if secret.blind for field in secret.fields}
    if viewer == NARRATOR:
        return {}
    hidden: dict[str, Any] = {}
    for secret in secrets:
        if (secret.spectators and viewer == SPECTATOR) or (secret.known_to and _whose(event, secret) == viewer):
            continue
        for field in secret.fields:
            value = getattr(event, field)
            if field in hidden or value is None:  # hidden already, or nothing in it to hide
                continue
            if secret.parts:
                if any(getattr(value, part) for part in secret.parts):
                    hidden[field] = {**msgspec.to_builtins(value), **dict.fromkeys(secret.parts)}
            elif secret.shown:
                hidden[field] = {part: getattr(value, part) for part in secret.shown}
            else:
                hidden[field] = None
    return hidden


def may_know(event: object, field: str, viewer: str, blind: Blind = SEES_ALL) -> bool:
    """Whether ``viewer`` may know the whole of ``field`` of ``event``, as its type declares
    (``FACTS.secret``): what narration says of a secret field (a sheet's notes, hidden part by part,
    aside). ``blind``: as ``hidden_fields``."""
    for secret in type(event).FACTS.secret:  # type: ignore[attr-defined]
        if field not in secret.fields or secret.parts:
            continue
        if secret.blind and blind and sealed_from(event, blind):  # type: ignore[arg-type]
            return False
        if viewer == NARRATOR:
            continue
        if (secret.spectators and viewer == SPECTATOR) or (secret.known_to and _whose(event, secret) == viewer):
            continue
        return False
    return True


def _whose(event: object, secret: Secret) -> object:
    """The character who may know ``secret`` (a sheet by its id)."""
    who = getattr(event, secret.known_to)
    return who.id if isinstance(who, Sheet) else who


FOLLOW_UP = "~"
"""What a viewer other than the ST sees of a server follow-up's command id."""


def hidden_command(record: Recorded, viewer: str) -> bool:
    """Whether ``viewer`` sees the record's command as ``FOLLOW_UP``: a server follow-up's id (it
    starts with ``~``) names the scene it comes from."""
    return viewer != NARRATOR and record.command.startswith(FOLLOW_UP) and record.command != FOLLOW_UP


def redact(record: Recorded, viewer: str, blind: Blind = SEES_ALL) -> Wire:
    """The record as ``viewer`` may see it, in its JSON form (``blind``: as ``hidden_fields``)."""
    hidden = hidden_fields(record, viewer, blind)
    command = hidden_command(record, viewer)
    if not hidden and not command:
        return to_wire(record)
    if hidden:
        data = {**msgspec.to_builtins(record.event), **hidden}
        data.pop("type", None)
        wire = to_wire(record, _encoder.encode(data))
    else:
        wire = to_wire(record)
    if command:
        return msgspec.structs.replace(wire, command=FOLLOW_UP, redacted=sorted([*hidden, "command"]))
    return msgspec.structs.replace(wire, redacted=sorted(hidden))
