"""Response deadlines: how long a player's move may wait, and what its lapse does.

A scene's options may give each kind of move a time (``Options.deadlines``): a defender
answering a challenge (``answer``), a side throwing or rolling (``throw``), the side behind
retesting or passing (``retest``), a character's turn in a round (``turn``), an attacker answering
an offer of assistance (``assist``), a fair escape's window (``escape``). Only players' moves are
timed: the Storyteller answers for the Narrator and the NPCs.

Each move due is a ``Due``, named by a key that holds its step (the challenge and its test, the
round and its turn), so a later step is another deadline. Its clock starts when the step began
(``Challenge.step_at``, ``RoundState.step_at``, ``Aid.at``: times of the log), or when the deadlines
were last set, or when the Storyteller gave it more time, whichever is latest: replay, a fork and
the audit read the same clocks without one of their own.

The shell owns the clock. When a deadline runs out it submits ``lapse`` (``lapses``); ``decide``
refuses it unless the deadline still runs and its time has passed at the command's time, so a move
committed first, or a second process firing the same deadline, appends nothing. What follows is
the option's: the Storyteller is told (``tell``), or the server makes the move itself (``act``:
each kind's move: ``move_for``), both as ``deadline_passed`` naming the deadline, the time given
and the option.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from domain.commands import (
    Action,
    AnswerAssist,
    AnyCommand,
    Deadline,
    Deadlines,
    DeclareAction,
    DeclareTraits,
    EndTurn,
    ExpendituresDone,
    ExtendDeadline,
    Lapse,
    Pass,
    Relent,
    Roll,
    SetDeadlines,
    Throw,
    Withdraw,
)
from domain.context import Draft
from domain.errors import Rejected
from domain.events import DeadlineExtended, DeadlinePassed, DeadlinesSet, LapseKind
from domain.kept import ByObject
from domain.pools import PoolSpec
from domain.rules import ruleset_for
from domain.state import NARRATOR, Challenge, Clocks, Scene

KINDS: tuple[LapseKind, ...] = ("answer", "throw", "retest", "turn", "assist", "escape")
RULE = "justicar:deadlines"
"""Not a rule of any book: the table's own option (``options.deadlines``), cited as such."""


class Due(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """A move the scene waits for under a deadline."""

    key: str
    kind: LapseKind
    who: str
    """The character whose move it is (for ``escape``: the one escaping)."""
    challenge: str = ""
    step: str = ""
    """What the move is, for the words: ``answer``, ``throw``, ``roll``, ``declare_traits``,
    ``retest``, ``cancel_or_let_stand``, ``declare``, ``expenditures``, ``act``, ``assist``, ``escape``."""
    since: datetime
    seconds: int
    due_at: datetime
    lapse: str = "tell"
    told: int = 0
    """The seq of the ``deadline_passed`` that told the Storyteller (0: still running)."""
    offer: int = 0
    """The offer of assistance it answers (``assist``)."""

    def passed(self, lapse: Literal["tell", "act"] = "tell", did: str = "") -> DeadlinePassed:
        """Its ``deadline_passed``: the Storyteller told, or (``act``) the move ``did`` made."""
        return DeadlinePassed(
            key=self.key,
            kind=self.kind,
            character=self.who,
            challenge=self.challenge,
            since=self.since,
            seconds=self.seconds,
            lapse=lapse,
            option=f"deadlines.{self.kind}",
            did=did,
            step=self.step,
        )


# -- what is due -------------------------------------------------------------------------------


_SEEN: ByObject[Scene, list[Due]] = ByObject()
"""The running deadlines of the states asked about lately: a commit asks of its state several times
(its append's wake-up time, the room's alarm, the patch, each viewer's view), and its next commit
of the state before it, while many scenes commit in between."""
_OF_CHALLENGE: ByObject[Challenge, tuple[tuple[object, ...], list[Due]]] = ByObject()
"""The moves an undecided challenge waits for, by the very challenge, with what else they are made
of (the deadlines set, the clocks, whether each side is a player's): most commits leave most
challenges as they were."""
_NO_CLOCKS = Clocks()
"""The clocks of a scene whose deadlines have done nothing yet: one object, so the moves kept for a
challenge (keyed on the very clocks) hold from one state to the next."""


def running(state: Scene) -> list[Due]:
    """Every move the scene waits for under a deadline, running or already told, in a fixed order
    (the caller must not change the list)."""
    if not state.options.timed or state.status != "open" or state.night is not None:
        return []
    found = _SEEN.get(state)
    return found if found is not None else _SEEN.put(state, _running(state, state.options.deadlines))


def _running(state: Scene, deadlines: Deadlines) -> list[Due]:
    clocks = state.clocks or _NO_CLOCKS
    floor = clocks.set_at
    out: list[Due] = []

    def due(kind: LapseKind, key: str, who: str, step: str, since: datetime | None, **more: object) -> Due | None:
        deadline: Deadline | None = getattr(deadlines, kind)
        if deadline is None or not _player(state, who):
            return None
        starts = [t for t in (since, floor) if t is not None]
        start = max(starts) if starts else state.last_at
        assert start is not None
        seconds = deadline.seconds
        if (extra := clocks.more.get(key)) is not None and extra[0] >= start:  # given during this step
            start, seconds = extra
        told = clocks.told.get(key, 0)
        if told and clocks.told_at.get(key, start) < start:  # told of an earlier step under the same key
            told = 0
        return Due(
            key=key,
            kind=kind,
            who=who,
            step=step,
            since=start,
            seconds=seconds,
            due_at=start + timedelta(seconds=seconds),
            lapse=deadline.lapse,
            told=told,
            **more,  # type: ignore[arg-type]
        )

    def of_challenge(ch: Challenge) -> list[Due]:
        made = [
            due(kind, f"{kind}:{ch.id}:{len(ch.tests)}.{len(ch.retests)}:{who}", who, step, ch.step_at, challenge=ch.id)
            for kind, who, step in _challenge_moves(ch, dice)
        ]
        return [d for d in made if d is not None]

    dice = ruleset_for(state.ruleset).die is not None
    busy: set[str] = set()
    for cid in state.undecided:
        ch = state.challenges[cid]
        busy.update((ch.challenger.who, ch.defender.who))
        if ch.step_at is None and floor is None:  # its clock starts at the log's last time: not kept
            out += of_challenge(ch)
            continue
        inputs = (ch, deadlines, clocks, dice, _player(state, ch.challenger.who), _player(state, ch.defender.who))
        seen = _OF_CHALLENGE.get(ch)
        if seen is None or seen[0] != inputs:
            seen = _OF_CHALLENGE.put(ch, (inputs, of_challenge(ch)))
        out += seen[1]
    r = state.round
    if r is not None and r.phase != "over":
        rkey = f"{r.number}.{r.phase}.{r.group}.{r.turn_phase}.{r.extra}"
        window = r.escape_window
        moves = [due("escape", f"escape:{rkey}:{window}", window, "escape", r.step_at)] if window else []
        for who, step in _round_moves(state, busy):
            if who != window:
                moves.append(due("turn", f"turn:{rkey}:{who}", who, step, _turn_since(state, who, r.step_at)))
        out += [d for d in moves if d is not None]
    # only a bns character holds aids, on its slot (read there: not through the character's fallback)
    if deadlines.assist is not None and any(getattr(c.slot, "aids", ()) for c in state.characters.values()):
        for c in state.roster():
            for aid in c.aids:
                if aid.status == "offered" and (
                    d := due("assist", f"assist:{aid.offer}", c.id, "assist", aid.at, offer=aid.offer)
                ):
                    out.append(d)
    return out


def next_due(state: Scene) -> datetime | None:
    """When the scene's first running deadline runs out (None: none runs; a told one waits on the
    Storyteller, not on the clock)."""
    if not state.options.timed:
        return None
    return min((d.due_at for d in running(state) if not d.told), default=None)


def lapses(state: Scene, now: datetime) -> list[Lapse]:
    """The ``lapse`` commands owed at ``now``, for the shell to submit. Each id names the deadline
    and its time, so two processes firing the same one send the same command."""
    if not state.options.timed:
        return []
    return [
        Lapse(id=f"~lapse-{d.key}@{_micros(d.due_at)}", scene=state.id, actor=NARRATOR, key=d.key, at=now)
        for d in running(state)
        if not d.told and d.due_at <= now
    ]


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(at: datetime) -> int:
    """``at`` in whole microseconds since 1970, exactly (a command id: the same in every process)."""
    return (at - _EPOCH) // timedelta(microseconds=1)


def _player(state: Scene, who: str) -> bool:
    c = state.characters.get(who)
    return c is not None and c.present and not c.sheet.npc


def _challenge_moves(ch: Challenge, dice: bool) -> list[tuple[LapseKind, str, str]]:
    """The moves a challenge waits for now: (kind, who, step)."""
    status = ch.status
    if status == "awaiting_response":
        return [("answer", ch.defender.who, "answer")]
    sides = (ch.challenger, ch.defender)
    if status in ("bidding", "throwing"):
        owed = [("answer", s.who, "owed") for s in sides if s.owed]
        if owed:
            return owed  # type: ignore[return-value]
        if dice:
            return [("throw", s.who, "roll") for s in sides if s.who != NARRATOR and s.rolled is None]
        return [("throw", s.who, "throw") for s in sides if s.who != NARRATOR and s.throw is None]
    if status == "tie_declaring":
        first = ch.declaring_first or "challenger"
        order = (first, Challenge.other(first))
        for role in order:
            side = ch.side(role)
            if side.who != NARRATOR and side.declared is None:
                return [("throw", side.who, "declare_traits")]
        return []
    if status == "retest_window":
        pending = ch.pending_retest
        if pending is not None:
            return [("retest", ch.side(Challenge.other(pending.role)).who, "cancel_or_let_stand")]
        return [("retest", ch.side(role).who, "retest") for role in ch.losing_roles() if not ch.side(role).passed]
    return []


def _round_moves(state: Scene, busy: set[str]) -> list[tuple[str, str]]:
    """Who the round waits for now, and for what: to declare an action (rounds opening with
    declarations), to say its expenditures are done, or to act on its turn (one in a challenge
    waits on the challenge's clocks instead)."""
    r = state.round
    assert r is not None
    fighting = [c for c in state.roster() if c.present and c.conditions.fair_escape != "escaped"]
    if r.phase == "declaring":
        return [(c.id, "declare") for c in fighting if c.action is None]
    if r.phase == "expending":
        return [(c.id, "expenditures") for c in fighting if not c.expended]
    if r.phase == "acting":
        turn = set(r.turn)
        return [(c.id, "act") for c in fighting if c.id in turn and not c.turn_done and c.id not in busy]
    return []


def _turn_since(state: Scene, who: str, start: datetime | None) -> datetime | None:
    """A turn's clock starts with the turn, and again as each challenge of the character's ends."""
    ends = [
        ch.step_at
        for cid in state.recent
        if (ch := state.challenges[cid]).step_at is not None and who in (ch.challenger.who, ch.defender.who)
    ]
    return max([t for t in (start, *ends) if t is not None], default=None)


# -- the commands ------------------------------------------------------------------------------


def _storyteller(d: Draft, what: str) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", f"Only the Storyteller may {what}.", RULE)


def read(given: dict[str, Any]) -> Deadlines:
    """Deadlines as a command gives them, or refused naming the path and what each takes."""
    try:
        return msgspec.convert(given, Deadlines)
    except msgspec.ValidationError as e:
        why, _, where = str(e).partition(" - at `$")
        path = where.rstrip("`")
        said = (
            f"`deadlines{path}`: {why or 'not a deadline'}. Each deadline (answer, throw, retest, "
            'turn, assist, escape) takes {"seconds": 1 to 86400, "lapse": "tell" or "act"}.'
        )
        raise Rejected("bad_options", said, RULE) from None


def set_deadlines(d: Draft, cmd: SetDeadlines) -> None:
    _storyteller(d, "change the response deadlines")
    d.add(DeadlinesSet(deadlines=read(cmd.deadlines)))


def _found(d: Draft, key: str) -> Due:
    found = next((due for due in running(d.state) if due.key == key), None)
    if found is None:
        raise Rejected("no_deadline", "That move is no longer waited for: it was made, or the step is over.", RULE)
    return found


def extend_deadline(d: Draft, cmd: ExtendDeadline) -> None:
    _storyteller(d, "give a move more time")
    due = _found(d, cmd.key)
    given: Deadline = getattr(d.state.options.deadlines, due.kind)  # running: its kind is set
    d.add(DeadlineExtended(key=due.key, character=due.who, seconds=cmd.seconds or given.seconds, step=due.step))


def lapse(d: Draft, cmd: Lapse) -> None:
    """A deadline ran out: tell the Storyteller, or make the move its option says."""
    _storyteller(d, "let a deadline lapse")
    due = _found(d, cmd.key)
    if due.told:
        raise Rejected("told", "The Storyteller was already told that this move is late.", RULE)
    if d.ctx.now < due.due_at:
        left = max(1, math.ceil((due.due_at - d.ctx.now).total_seconds()))
        raise Rejected("not_yet", f"This move has until {due.due_at:%H:%M:%S} UTC ({left} s more).", RULE)
    passed = due.passed()
    if due.lapse == "tell":
        d.add(passed)
        return
    move = move_for(d.state, due)
    made = Draft(d.state, d.ctx, actor=NARRATOR, command=d.command)
    try:
        from domain.decide import handle  # the move is decided as any command is

        handle(made, move)
    except Rejected as refusal:
        d.add(replace(passed, refused=refusal.message))
        return
    d.add(replace(passed, lapse="act", did=move.verb), *made.events)


def move_for(state: Scene, due: Due) -> AnyCommand:
    """The move a lapse makes for ``due.who``, as the Storyteller would send it."""
    common = {"id": "~lapse", "scene": state.id, "actor": NARRATOR}
    if due.challenge:
        ch = state.challenges[due.challenge]
        on = {**common, "challenge": due.challenge, "character": due.who}
        if due.step == "answer" and (offered := ruleset_for(state.ruleset).defenses(state, ch, due.who)):
            # a pool ruleset grades a relent by the defence it would have used: the best one the
            # character has, so that a silent phone never costs more than the player could have lost
            best = max(offered, key=lambda kind: offered[kind].total)
            return Relent(**on, pool=PoolSpec(defense=best))  # type: ignore[arg-type]
        if due.step == "owed" and ch.role_of(due.who) == "challenger":
            # only a defender relents: a challenger who does not pay what a call made it owe gives
            # the challenge up, as the Storyteller would stop it (a withdrawal: nobody wins or loses)
            return Withdraw(**common, challenge=due.challenge)  # type: ignore[arg-type]
        if due.step in ("answer", "owed"):
            return Relent(**on)  # type: ignore[arg-type]
        if due.step == "roll":
            return Roll(**on)  # type: ignore[arg-type]
        if due.step == "throw":
            return Throw(**on, sign="random")  # type: ignore[arg-type]
        if due.step == "declare_traits":
            role = ch.role_of(due.who)
            assert role is not None
            most = ruleset_for(state.ruleset).max_declare(state, ch, role)
            return DeclareTraits(**on, count=most)  # type: ignore[arg-type]
        return Pass(**on)  # type: ignore[arg-type]
    if due.kind == "assist":
        return AnswerAssist(**common, character=due.who, offer=due.offer, accept=False)  # type: ignore[arg-type]
    if due.step == "declare":
        return DeclareAction(**common, character=due.who, action=Action(kind="none"))  # type: ignore[arg-type]
    if due.step == "expenditures":
        return ExpendituresDone(**common, character=due.who)  # type: ignore[arg-type]
    return EndTurn(**common, character=due.who)  # type: ignore[arg-type]
