"""The reducers: one small function per event type, each applying its fact to a ``Change``
(``domain.change``). Importing this package registers them all."""

from domain.reducers import challenge, deadlines, night, rounds, scene

__all__ = ["challenge", "deadlines", "night", "rounds", "scene"]
