"""What the shell hands ``decide``: the time and the random draws it made, and the draft of
events being decided (each applied at once, so later steps see the state earlier ones made)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.errors import Rejected
from domain.events import SceneEvent
from domain.evolve import evolve
from domain.log import Recorded
from domain.state import Scene

ENTROPY_SIZE = 16
"""Draws the shell makes for every command, each uniform in [0, 2**32)."""


class Context(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    now: datetime
    entropy: tuple[int, ...] = ()
    subject: Recorded | None = None
    """The event a ``dispute`` or ``rule`` names, read from the log by the shell."""


class Draft:
    """The events a command produces so far, and the state they lead to."""

    def __init__(self, state: Scene, ctx: Context, *, actor: str, command: str) -> None:
        self.state = state
        self.ctx = ctx
        self.actor = actor
        self.command = command
        self.events: list[SceneEvent] = []
        self._draws = iter(ctx.entropy)

    def add(self, *events: SceneEvent) -> None:
        for event in events:
            record = Recorded(
                seq=self.state.version + 1,
                scene=self.state.id,
                at=self.ctx.now,
                actor=self.actor,
                command=self.command,
                event=event,
            )
            self.state = evolve(self.state, record)
            self.events.append(event)

    def choose(self, options: tuple[str, ...]) -> str:
        """One of ``options``, uniformly, from the shell's draws."""
        draw = next(self._draws, None)
        if draw is None:
            raise Rejected("no_randomness", "The server made no random draw for this command.")
        return options[draw % len(options)]
