"""A correction or an adjustment (``Changes``) in words, change by change: what the night's
ledger lists and what narration says of a ``carried_corrected``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from domain.commands import Changes

Kind = Literal["trait", "damage", "willpower", "ability", "blood", "condition"]
"""What a ledger entry is about."""


def changes(c: Changes, name: str) -> Iterator[tuple[Kind, str, int, bool, str]]:
    """A correction or an adjustment, change by change: kind, item, amount, loss, what."""
    if c.willpower:
        yield (
            "willpower",
            "Willpower",
            abs(c.willpower),
            c.willpower < 0,
            f"{name} {'loses' if c.willpower < 0 else 'gets back'} {count_words(abs(c.willpower), 'Willpower Trait')}",
        )
    for ability, delta in c.abilities.items():
        if delta:
            verb = "loses" if delta < 0 else "gets back"
            yield (
                "ability",
                ability,
                abs(delta),
                delta < 0,
                f"{name} {verb} {count_words(abs(delta), 'level')} of {ability}",
            )
    for kind, delta in c.damage.items():
        if delta:
            verb = "takes" if delta > 0 else "heals"
            yield "damage", kind, abs(delta), delta > 0, f"{name} {verb} {abs(delta)} {kind} damage"
    for trait in c.lose_traits:
        yield "trait", trait, 1, True, f"{name} loses {trait}"
    for trait in c.restore_traits:
        yield "trait", trait, 1, False, f"{name} gets {trait} back"
    for condition in c.set_conditions:
        if condition != "prone":
            yield "condition", condition, 1, True, f"{name} is {condition_words(condition)}"
    for condition in c.clear_conditions:
        if condition != "prone":
            yield "condition", condition, 1, False, f"{name} is no longer {condition_words(condition)}"


def condition_words(name: str) -> str:
    return name.replace("_", " ")


def count_words(n: int, noun: str) -> str:
    return f"{'a' if n == 1 else n} {noun}{'' if n == 1 else 's'}"
