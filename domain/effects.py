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
