"""The words of the response deadlines (``domain.deadlines``), by names: what a deadline waits
for ("Juan has 2 minutes to throw."), what its lapse does or did ("a sign was thrown at random for
Juan"), the option it cites, the deadlines set. The views (``projections.deadlines``) and the
events' sentences (``projections.narrate``) both say them, so the countdown and the log agree;
each is addressed to a player afterwards (``projections.narrate.addressed``)."""

from __future__ import annotations

from domain.commands import Deadlines
from domain.deadlines import Due, move_for, running
from domain.events import DeadlineExtended, DeadlinePassed, DeadlinesSet
from domain.log import Recorded
from domain.state import Scene


def duration(seconds: int) -> str:
    """ "2 minutes", "90 seconds", "1 minute", "2 minutes 30 seconds", "1 hour"."""
    if seconds % 3600 == 0 and seconds >= 3600:
        hours = seconds // 3600
        return f"{hours} hour{'s' if hours != 1 else ''}"
    if seconds < 120 and seconds % 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes, rest = divmod(seconds, 60)
    said = f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{said} {rest} seconds" if rest else said


def to_do(state: Scene, step: str, who: str, challenge: str = "", offer: int = 0) -> str:
    """The move a deadline waits for, as what follows "has 2 minutes to" ("throw", "answer Ana's
    challenge"), by names."""
    name = state.name_of
    ch = state.challenges.get(challenge) if challenge else None
    match step:
        case "answer":
            return f"answer {name(ch.challenger.who)}'s challenge" if ch else "answer a challenge"
        case "owed":
            return "bid the Trait owed for a Negative Trait call"
        case "throw" | "roll":
            return step
        case "declare_traits":
            return "declare Traits on the tie"
        case "retest":
            return "retest or pass"
        case "cancel_or_let_stand":
            pending = ch.pending_retest if ch else None
            whose = f"{name(pending.by)}'s retest" if pending else "the retest"
            return f"cancel {whose} or let it stand"
        case "declare":
            return "declare an action"
        case "expenditures":
            return "say the expenditures are done"
        case "assist":
            c = state.characters.get(who)
            aid = next((a for a in c.aids if a.offer == offer), None) if c else None
            return f"answer {name(aid.by)}'s offer of assistance" if aid else "answer an offer of assistance"
    return "act this turn"


def waits(state: Scene, due: Due) -> str:
    """What a running deadline gives, by names: "Juan has 2 minutes to throw."."""
    who, time = state.name_of(due.who), duration(due.seconds)
    if due.kind == "escape":
        return f"Attacks on {who}'s fair escape may be announced for {time}."
    return f"{who} has {time} to {to_do(state, due.step, due.who, due.challenge, due.offer)}."


def missed(state: Scene, step: str, kind: str, who: str, seconds: int, challenge: str = "", offer: int = 0) -> str:
    """A lapse, by names, without its full stop: "Juan did not throw in 2 minutes"."""
    name, time = state.name_of(who), duration(seconds)
    if kind == "escape":
        return f"{name}'s fair escape was open to attacks for {time}"
    return f"{name} did not {to_do(state, step, who, challenge, offer)} in {time}"


_MADE: dict[str, tuple[str, str]] = {
    "relent": ("a relent is made for {n}", "a relent was made for {n}"),
    "throw": ("a sign is thrown at random for {n}", "a sign was thrown at random for {n}"),
    "roll": ("the dice are rolled for {n}", "the dice were rolled for {n}"),
    "declare_traits": (
        "as many Traits as {n} may are declared for {n}",
        "as many Traits as {n} could were declared for {n}",
    ),
    "pass": ("a pass is made for {n}", "a pass was made for {n}"),
    "let_stand": ("the retest is let stand for {n}", "the retest was let stand for {n}"),
    "answer_assist": ("the offer is refused for {n}", "the offer was refused for {n}"),
    "declare_action": ("no action is declared for {n}", "no action was declared for {n}"),
    "expenditures_done": ("{n}'s expenditures are closed", "{n}'s expenditures were closed"),
    "end_turn": ("{n}'s turn ends", "{n}'s turn was ended"),
    "escape": ("the window closes and {n}'s turn ends", "the window was closed and {n}'s turn ended"),
}
"""What a lapse that acts does, by the verb of its move: as it will be, and as it was."""


def made(verb: str, step: str, kind: str, name: str, *, past: bool = False) -> str:
    """The move a lapse makes for ``name``, in words: "a sign is thrown at random for Juan"."""
    if kind == "escape":
        verb = "escape"
    elif verb == "pass" and step == "cancel_or_let_stand":
        verb = "let_stand"
    found = _MADE.get(verb)
    if found is None:
        return f"{verb.replace('_', ' ')} is made for {name}"
    return found[past].format(n=name)


_KIND_WORDS: dict[str, str] = {
    "answer": "an answer",
    "throw": "a throw",
    "retest": "a retest",
    "turn": "a turn",
    "assist": "an answer to an offer of assistance",
    "escape": "a fair escape's window",
}


def deadline_for(kind: str, did: str = "") -> str:
    """The option cited, in words: "the table's deadline for a throw" (a roll, where dice are rolled)."""
    what = "a roll" if kind == "throw" and did == "roll" else _KIND_WORDS.get(kind, kind)
    return f"the table's deadline for {what}"


_SET_WORDS: dict[str, tuple[str, str]] = {
    "answer": ("to answer a challenge", "then a relent"),
    "throw": ("to throw or roll", "then at random"),
    "retest": ("to retest or pass", "then a pass"),
    "turn": ("for a turn", "then the turn ends"),
    "assist": ("to answer an offer of assistance", "then a refusal"),
    "escape": ("for a fair escape's window", "then the window closes"),
}


def deadlines_words(deadlines: Deadlines) -> str:
    """The deadlines set, in words: "2 minutes to throw or roll (then at random), 5 minutes to answer
    a challenge (then the Storyteller is told)"; "none" when every one is off."""
    said = []
    for kind, (what, act) in _SET_WORDS.items():
        given = getattr(deadlines, kind)
        if given is not None:
            then = act if given.lapse == "act" else "then the Storyteller is told"
            said.append(f"{duration(given.seconds)} {what} ({then})")
    return ", ".join(said) or "none"


# -- the events ----------------------------------------------------------------------------------

_STEPS: dict[str, str] = {
    "answer": "answer",
    "retest": "retest",
    "assist": "assist",
    "escape": "escape",
    "roll": "roll",
    "declare_traits": "declare_traits",
    "declare_action": "declare",
    "expenditures_done": "expenditures",
}
"""The step a lapse's kind or move names, where the scene before it no longer says (a lone event)."""


def step_of(state: Scene, key: str, kind: str, did: str = "", step: str = "") -> tuple[str, str, int]:
    """The step the deadline ``key`` waited for in ``state`` (the scene just before its event), the
    challenge and the offer: from ``running``, or else from the step the event names (older
    events: from its kind and the move made)."""
    due = next((d for d in running(state) if d.key == key), None) if state.options.timed else None
    if due is not None:
        return due.step, due.challenge, due.offer
    if step:
        return step, "", int(key.split(":")[1]) if step == "assist" else 0
    step = _STEPS.get(did) or _STEPS.get(kind) or ("throw" if kind == "throw" else "act")
    return step, "", 0


def lapse_said(state: Scene, event: DeadlinePassed) -> str:
    """A ``deadline_passed`` by names: "Juan did not throw in 2 minutes: a sign was thrown at random
    for Juan (the table's deadline for a throw)."."""
    step, challenge, offer = step_of(state, event.key, event.kind, event.did, event.step)
    lapsed = missed(state, step, event.kind, event.character, event.seconds, challenge or event.challenge, offer)
    option = deadline_for(event.kind, event.did)
    if event.lapse == "act":
        return f"{lapsed}: {made(event.did, step, event.kind, state.name_of(event.character), past=True)} ({option})."
    if event.refused:
        refused = event.refused.strip().rstrip(".")
        return f"{lapsed} ({option}): the move could not be made ({refused}); the Storyteller is told."
    return f"{lapsed}: the Storyteller is told ({option})."


def extended_said(state: Scene, event: DeadlineExtended) -> str:
    """A ``deadline_extended`` by names: "The Storyteller gives Juan 1 minute more to throw."."""
    kind = event.key.split(":", 1)[0]
    time, name = duration(event.seconds), state.name_of(event.character)
    if kind == "escape":
        return f"The Storyteller keeps {name}'s fair escape open to attacks {time} more."
    step, challenge, offer = step_of(state, event.key, kind, step=event.step)
    return f"The Storyteller gives {name} {time} more to {to_do(state, step, event.character, challenge, offer)}."


def set_said(event: DeadlinesSet) -> str:
    """A ``deadlines_set`` in words: "The Storyteller sets the deadlines: 2 minutes to throw or roll
    (then at random)."; or turns them off."""
    if not event.deadlines:
        return "The Storyteller turns the response deadlines off."
    return f"The Storyteller sets the response deadlines: {deadlines_words(event.deadlines)}."


def lapse_of(before: Scene, record: Recorded, previous: Recorded | None = None) -> DeadlinePassed | None:
    """The acting ``deadline_passed`` whose move ``record`` is (None: it is no lapse's move), for
    its words to say so: the record right after it in the same command. Without ``previous`` (a
    page of the log that starts at ``record``), from the scene just before it: a lapse was told at
    the step before, and ``record`` belongs to the lapse's command (``domain.deadlines.lapses``
    names it ``~lapse-``)."""
    if previous is not None:
        passed = previous.event
        if isinstance(passed, DeadlinePassed) and passed.lapse == "act" and previous.command == record.command:
            return passed
        return None
    clocks = before.clocks
    if clocks is None or not record.command.startswith("~lapse-") or isinstance(record.event, DeadlinePassed):
        return None
    key = next((k for k, seq in clocks.told.items() if seq == before.version), None)
    due = next((d for d in running(before) if d.key == key), None) if key is not None else None
    if due is None or due.lapse != "act":
        return None
    return due.passed("act", move_for(before, due).verb)
