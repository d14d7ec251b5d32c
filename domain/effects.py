"""Structured victory conditions (PROTOCOL section 4): what the engine applies when a side wins."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

DamageType = Literal["bashing", "lethal", "aggravated"]


class _Effect(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag_field="kind", forbid_unknown_fields=True):
    pass


class Damage(_Effect, frozen=True, tag="damage"):
    """The loser takes ``amount`` health levels of ``type`` damage."""

    amount: Annotated[int, Meta(ge=0, le=20)] = 1
    type: DamageType = "bashing"


class Grapple(_Effect, frozen=True, tag="grapple"):
    """The winner holds the loser."""


class EscapeGrapple(_Effect, frozen=True, tag="escape_grapple"):
    """The winner breaks free of whoever grapples them."""


class KnockDown(_Effect, frozen=True, tag="knock_down"):
    """The loser is knocked prone."""


class Narrative(_Effect, frozen=True, tag="narrative"):
    """Nothing the engine applies: the ST narrates the result."""


Effect = Damage | Grapple | EscapeGrapple | KnockDown | Narrative


class Dealt(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """The damage a won attack deals, with how it came from the ``declared`` damage: each change in
    words and the rule of the first change. Pages and the replay show it on the damage step, so a
    1 lethal claw that lands as 2 aggravated says why (``damage_taken``'s ``why`` and ``rule``)."""

    declared: Damage
    amount: int
    type: DamageType
    changes: tuple[str, ...] = ()
    rule: str = ""

    @classmethod
    def of(cls, declared: Damage) -> Dealt:
        """The damage as declared, nothing changed yet."""
        return cls(declared=declared, amount=declared.amount, type=declared.type)

    def then(self, because: str, rule: str, *, amount: int | None = None, type: DamageType | None = None) -> Dealt:
        """This damage changed (``because``: words, ``rule``: its rule id); unchanged, as it was."""
        new_amount = self.amount if amount is None else amount
        new_type = self.type if type is None else type
        if (new_amount, new_type) == (self.amount, self.type):
            return self
        return msgspec.structs.replace(
            self, amount=new_amount, type=new_type, changes=(*self.changes, because), rule=self.rule or rule
        )

    def why(self) -> str:
        """How it came: "1 lethal declared; Feral Claws makes it aggravated; Puissance adds 1.", or
        "1 lethal, as declared."."""
        declared = f"{self.declared.amount} {self.declared.type}"
        if not self.changes:
            return f"{declared}, as declared."
        return f"{declared} declared; {'; '.join(self.changes)}."
