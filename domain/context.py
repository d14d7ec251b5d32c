"""What the shell hands ``decide``: the time and the random draws it made, and the draft of
events being decided (each applied at once, so later steps see the state earlier ones made)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime
from itertools import count

import msgspec

from domain.events import SceneEvent
from domain.evolve import fold
from domain.log import Recorded
from domain.state import Scene

ENTROPY_BITS = 256
"""The one random value the shell draws for every command, however many draws it needs."""


def draws(entropy: int) -> Iterator[int]:
    """As many draws as a command asks for, each uniform in [0, 2**64): SHA-256 of the command's
    entropy and a counter, four draws per block. The values live in the events, so a replay never
    draws; and there is no per-scene seed that a reader of the log could use to predict a roll."""
    seed = entropy.to_bytes(ENTROPY_BITS // 8, "big")
    for block in count():
        digest = hashlib.sha256(seed + block.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(digest[i : i + 8], "big")


class Context(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    now: datetime
    entropy: int = 0
    """The command's random value, in [0, 2**256)."""
    verdict: bool = False
    """Only whether the command is accepted is wanted (a page probing which moves to offer): what
    then happens by itself (reveal, compare, resolve) is not worked out where the ruleset says it
    refuses nothing (``Ruleset.settling_refuses``)."""
    subject: Recorded | None = None
    """The event a ``dispute`` or ``rule`` names, read from the log by the shell."""
    night: Scene | None = None
    """The game night an ``open_scene`` with ``game`` names, or (``add_character``) the night of the
    scene, as the shell holds it."""
    scenes: tuple[Scene, ...] = ()
    """The night's open scenes (``register_character``), as the shell holds them."""


class Draft:
    """The events a command produces so far, and the state they lead to (folded when a later step
    reads it: a command's last events, which nothing in ``decide`` reads, are never folded here;
    the shell folds what it appends, and a probe of what a page may offer needs only the verdict)."""

    def __init__(self, state: Scene, ctx: Context, *, actor: str, command: str) -> None:
        self._state = state
        self._pending: list[Recorded] = []
        self.ctx = ctx
        self.actor = actor
        self.command = command
        self.events: list[SceneEvent] = []
        self._draws: Iterator[int] | None = None  # made on the first draw: most commands draw nothing

    @property
    def state(self) -> Scene:
        """The scene with every event added so far."""
        if self._pending:
            self._state, self._pending = fold(self._pending, self._state), []
        return self._state

    @property
    def ruleset(self) -> str:
        """The scene's ruleset, read without folding what was added (only opening a scene sets it)."""
        return self._state.ruleset

    def add(self, *events: SceneEvent) -> None:
        base = self._state
        for event in events:
            self._pending.append(
                Recorded(
                    seq=base.version + len(self._pending) + 1,
                    scene=base.id,
                    at=self.ctx.now,
                    actor=self.actor,
                    command=self.command,
                    event=event,
                )
            )
            self.events.append(event)

    def draw(self) -> int:
        """The command's next draw, uniform in [0, 2**64)."""
        if self._draws is None:
            self._draws = draws(self.ctx.entropy)
        return next(self._draws)

    def choose(self, options: tuple[str, ...]) -> str:
        """One of ``options``, uniformly (to within 2**-60), from the command's draws."""
        return options[self.draw() % len(options)]

    def die(self, sides: int) -> int:
        """One roll of a ``sides``-sided die, 1 to ``sides``."""
        return 1 + self.draw() % sides
