"""What was worked out of an immutable object, kept by the very object (``ByObject``).

A commit's state is asked the same questions many times (its wake-up time, each viewer's view,
the next commit's "before"); a challenge left alone by a commit is the same object in the next
state. Frozen objects always give the same answer, so the answer is kept beside the object it was
made of: an entry holds its object, so its ``id`` is never reused while the entry lives, and the
identity check makes a stale entry impossible. The whole table is let go when full (cheaper than
an order of use, and what is asked again is made again once).
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByObject(Generic[K, V]):
    """Values by the very object they were made of, at most ``size`` of them."""

    __slots__ = ("_held", "size")

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._held: dict[int, tuple[K, V]] = {}

    def get(self, of: K) -> V | None:
        held = self._held.get(id(of))
        return held[1] if held is not None and held[0] is of else None

    def put(self, of: K, value: V) -> V:
        if len(self._held) >= self.size:
            self._held.clear()
        self._held[id(of)] = (of, value)
        return value

    def clear(self) -> None:
        self._held.clear()
