"""What everyone reads of the response deadlines (``domain.deadlines``), made once for every surface.

Each running deadline is a ``DeadlineView`` said to its viewer: the player whose move it is reads
"You have 2 minutes to throw", the others "Juan has 2 minutes to throw", each with what its lapse
will do ("Then a sign is thrown at random for you."). The times are the log's (``since``,
``due_at``, ``warn_at``): a page counts down ``due_at`` less its clock, and works out no rule.

A lapse the Storyteller was told of (``told``) waits on the Storyteller: its view offers them the
move the option would have made for the character, a relent where the challenge allows one, and
more time, each put to ``decide`` first (as ``projections.moves`` does), so a choice offered is a
command the server accepts. The words of the deadline events (``projections.narrate``) are made
from the same phrases, so the countdown, the banner and the log say one thing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec

from domain.commands import AnyCommand, ExtendDeadline, Relent
from domain.deadlines import Due, move_for, running
from domain.events import LapseKind
from domain.kept import ByObject
from domain.state import NARRATOR, Scene
from projections.deadline_words import duration, made, missed, to_do, waits
from projections.moves import accepted
from projections.narrate import said_to

WARN = 30
"""Seconds before its time runs out that a player is warned (a quarter of a shorter time)."""


class Choice(msgspec.Struct, frozen=True):
    """One thing the Storyteller may do about a lapse it was told of: a label and the command to
    send (``type`` and its fields; the page adds ``id``, ``scene`` and ``actor``)."""

    label: str
    command: dict[str, Any]


class DeadlineView(msgspec.Struct, frozen=True):
    """A running deadline (or one whose lapse the Storyteller was told of), said to one viewer."""

    key: str
    kind: LapseKind
    character: str
    name: str
    since: datetime
    due_at: datetime
    warn_at: datetime
    """When the player is warned: ``WARN`` seconds (or a quarter of the time given) before ``due_at``."""
    seconds: int
    lapse: Literal["tell", "act"]
    said: str
    """To this viewer: "You have 2 minutes to throw." / "Juan has 2 minutes to throw."; once told,
    "Juan did not throw in 2 minutes.\""""
    then: str
    """What the lapse does: "Then a sign is thrown at random for you." / "Then the Storyteller is told."."""
    to_do: str = ""
    """The move waited for, as what follows "left to" in the player's warning ("throw", "answer
    Ana's challenge"); empty for a fair escape's window (it waits on the others)."""
    challenge: str = ""
    mine: bool = False
    """The viewer's own move (a player's character)."""
    told: bool = False
    """It lapsed and the Storyteller was told: it waits on the Storyteller now."""
    choices: list[Choice] = []
    """The Storyteller's only, when ``told``: the move for the character, a relent where legal,
    more time; each accepted by ``decide`` now."""


# -- the views ---------------------------------------------------------------------------------


def deadline_views(state: Scene, viewer: str) -> list[DeadlineView]:
    """Every running deadline of the scene (and every lapse waiting on the Storyteller), said to
    ``viewer`` (``"st"``, a character id, or a spectator), in ``domain.deadlines.running``'s order.

    Made once for anyone they do not name (a spectator's list), and told again only where a viewer
    reads them otherwise: a player's own move or a sentence with its name in it, the Storyteller's
    choices about a lapse it was told of. Most viewers of a commit share one list, and most commits
    (an adjust, a bid in another challenge) leave the lists as the scene's last state had them."""
    made = _SEEN.get(state)  # another viewer of the same commit asked
    if made is None:
        dues = running(state)
        if not dues:
            return []
        made = _made(state, dues)
    found = made.get(viewer)
    if found is None:
        found = made[viewer] = _for(state, running(state), made[""], viewer)
    return found


_SEEN: ByObject[Scene, dict[str, list[DeadlineView]]] = ByObject()
"""The views of the states asked about lately, by viewer (``""``: anyone they do not name): a
commit's viewers all ask of the same state."""
_KEPT: dict[str, tuple[list[Due], list[str], list[tuple[str, str]], dict[str, list[DeadlineView]]]] = {}
"""By scene: the deadlines of its last state asked about, their sentences, the characters' names,
and the views made of them (no state is kept here: a scene unloaded leaves a few views, not its
state)."""


def _made(state: Scene, dues: list[Due]) -> dict[str, list[DeadlineView]]:
    """The views made of ``state`` so far, by viewer: those of the scene's last state where what
    they say is the same (the same deadlines, the same sentences, the same names), but for the
    Storyteller's choices about a lapse it was told of, which follow the challenge. The very same
    deadlines (``domain.deadlines`` keeps those of a challenge left alone) say the same sentences."""
    names = [(who, c.name) for who, c in state.characters.items()]
    kept = _KEPT.get(state.id)
    if kept is not None and kept[2] == names and _very(kept[0], dues):
        said, found = kept[1], _handed_on(kept[3], dues)
    else:
        said = [_said(state, due) for due in dues]
        if kept is not None and kept[2] == names and kept[0] == dues and kept[1] == said:
            found = _handed_on(kept[3], dues)
        else:
            found = {"": [_view(state, due, words) for due, words in zip(dues, said, strict=True)]}
    if len(_KEPT) >= 1024 and state.id not in _KEPT:
        _KEPT.clear()
    _KEPT[state.id] = (dues, said, names, found)
    return _SEEN.put(state, found)


def _very(kept: list[Due], dues: list[Due]) -> bool:
    """Whether ``dues`` are the very deadlines kept, in order."""
    return len(kept) == len(dues) and all(a is b for a, b in zip(kept, dues, strict=True))


def _handed_on(views: dict[str, list[DeadlineView]], dues: list[Due]) -> dict[str, list[DeadlineView]]:
    """The views of the last state for this one: all but the Storyteller's while a lapse waits on
    it (its choices follow the challenge)."""
    told = any(due.told for due in dues)
    return {viewer: found for viewer, found in views.items() if viewer != NARRATOR or not told}


def _for(state: Scene, dues: list[Due], anyone: list[DeadlineView], viewer: str) -> list[DeadlineView]:
    """``anyone``'s list as ``viewer`` reads it: the same list where nothing in it differs."""
    if viewer == NARRATOR:
        if not any(due.told for due in dues):
            return anyone
        return [
            msgspec.structs.replace(seen, then="You were told: choose what happens.", choices=_choices(state, due))
            if due.told
            else seen
            for due, seen in zip(dues, anyone, strict=True)
        ]
    me = state.characters.get(viewer)
    if me is None:
        return anyone
    name = me.name
    own = [
        due.who == viewer or name in seen.said or name in seen.then or name in seen.to_do
        for due, seen in zip(dues, anyone, strict=True)
    ]
    if not any(own):
        return anyone
    return [
        msgspec.structs.replace(
            seen,
            mine=viewer == due.who and due.kind != "escape",  # an escape's window waits on the others
            said=said_to(state, viewer, seen.said),
            then=said_to(state, viewer, seen.then),
            to_do=said_to(state, viewer, seen.to_do),
        )
        if mine
        else seen
        for due, seen, mine in zip(dues, anyone, own, strict=True)
    ]


def _said(state: Scene, due: Due) -> str:
    """What a deadline waits for ("Juan has 2 minutes to throw."), or once told what was missed."""
    if due.told:
        return f"{missed(state, due.step, due.kind, due.who, due.seconds, due.challenge, due.offer)}."
    return waits(state, due)


def _view(state: Scene, due: Due, said: str) -> DeadlineView:
    """A running deadline as anyone it does not name reads it (a spectator); what it waits for is
    ``said`` (``_said``). What its lapse does follows from the deadline and the name alone."""
    name = state.name_of(due.who)
    told = bool(due.told)
    if told:
        then = "The Storyteller chooses what happens."
    else:
        if due.lapse == "act":
            then = f"Then {made(move_for(state, due).verb, due.step, due.kind, name)}."
        else:
            then = "Then the Storyteller is told."
    warn = min(WARN, due.seconds / 4)
    return DeadlineView(
        key=due.key,
        kind=due.kind,
        character=due.who,
        name=name,
        challenge=due.challenge,
        since=due.since,
        due_at=due.due_at,
        warn_at=due.due_at - timedelta(seconds=warn),
        seconds=due.seconds,
        lapse="act" if due.lapse == "act" else "tell",
        said=said,
        then=then,
        to_do="" if due.kind == "escape" else to_do(state, due.step, due.who, due.challenge, due.offer),
        told=told,
    )


_LABELS: dict[str, str] = {
    "relent": "Relent for {n}",
    "throw": "Throw at random for {n}",
    "roll": "Roll for {n}",
    "declare_traits": "Declare {count} Traits for {n}",
    "pass": "Pass for {n}",
    "let_stand": "Let the retest stand for {n}",
    "answer_assist": "Refuse the offer for {n}",
    "declare_action": "Declare no action for {n}",
    "expenditures_done": "Close {n}'s expenditures",
    "end_turn": "End {n}'s turn",
    "escape": "Close the window: end {n}'s turn",
}


def _choices(state: Scene, due: Due) -> list[Choice]:
    """What the Storyteller may do about a lapse it was told of, each accepted by ``decide`` now."""
    name = state.name_of(due.who)
    move = move_for(state, due)
    label = "escape" if due.kind == "escape" else move.verb
    if move.verb == "pass" and due.step == "cancel_or_let_stand":
        label = "let_stand"
    candidates: list[tuple[str, AnyCommand]] = [
        (_LABELS.get(label, move.verb).format(n=name, count=getattr(move, "count", "")), move)
    ]
    if due.challenge and move.verb != "relent":
        relent = Relent(id="~choice", scene=state.id, actor=NARRATOR, challenge=due.challenge, character=due.who)
        candidates.append((f"Relent for {name}", relent))
    more = ExtendDeadline(id="~choice", scene=state.id, actor=NARRATOR, key=due.key)
    candidates.append((f"Give {name} {duration(due.seconds)} more", more))
    return [Choice(label=text, command=_fields(command)) for text, command in candidates if _accepted(state, command)]


def _fields(command: AnyCommand) -> dict[str, Any]:
    """A command as a page sends it, less what the page adds (``id``, ``scene``, ``actor``)."""
    body: dict[str, Any] = msgspec.to_builtins(command)
    return {k: v for k, v in body.items() if v is not None and k not in ("id", "scene", "actor", "at")}


def _accepted(state: Scene, command: AnyCommand) -> bool:
    """Whether ``decide`` would accept ``command`` now (appending nothing)."""
    return accepted(state, msgspec.structs.replace(command, id="probe"))
