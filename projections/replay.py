"""The replay: the log folded one event at a time, each step with what happened, what it changed
in the state, and the rule it applied in the rule's own words.

Replay is a fold of a prefix of the log, so step N shows exactly the state the table had after
event N.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from domain.events import DisputeOpened, RulingIssued
from domain.evolve import evolve
from domain.log import Recorded, format_at
from domain.rules.texts import RULES
from domain.state import NARRATOR, Scene
from projections.narrate import narrate
from projections.views import challenge_view, character_view, round_view, touched

_ENTITY_FIELDS = (
    "character",
    "challenger",
    "targets",
    "grappler",
    "victim",
    "by",
    "against",
    "owed_by",
)


class Change(msgspec.Struct, frozen=True):
    path: str
    before: Any
    after: Any


class Step(msgspec.Struct, frozen=True, omit_defaults=True):
    seq: int
    at: str
    actor: str
    type: str
    summary: str
    changes: list[Change]
    challenge: str | None = None
    rule: str | None = None
    words: str | None = None
    source: str | None = None
    compared: dict[str, int] | None = None
    linked: list[int] = []
    """The disputes and rulings that name this event (their seqs), or, for those, the event."""


def replay(
    records: Iterable[Recorded],
    viewer: str = NARRATOR,
    state: Scene | None = None,
    links: dict[int, list[int]] | None = None,
) -> Iterator[Step]:
    """Every record as a step, as ``viewer`` may see it, starting from ``state`` (the fold of the
    records before them). ``links`` (from ``links_of``) ties events to the disputes and rulings on
    them."""
    state = state if state is not None else Scene()
    for record in records:
        before, state = state, evolve(state, record)
        yield explain(before, state, record, viewer, (links or {}).get(record.seq, []))


def states(records: Iterable[Recorded], state: Scene | None = None) -> Iterator[Scene]:
    """The state after each record: what the table had after that event."""
    state = state if state is not None else Scene()
    for record in records:
        state = evolve(state, record)
        yield state


def links_of(records: Iterable[Recorded]) -> dict[int, list[int]]:
    """Event seq to the seqs of the disputes and rulings naming it, and each of those to it."""
    links: dict[int, list[int]] = {}
    for record in records:
        if isinstance(record.event, DisputeOpened | RulingIssued):
            links.setdefault(record.event.event, []).append(record.seq)
            links.setdefault(record.seq, []).append(record.event.event)
    return links


def explain(
    before: Scene, after: Scene, record: Recorded, viewer: str = NARRATOR, linked: list[int] | None = None
) -> Step:
    event = record.event
    cid = getattr(event, "challenge", None)
    rule_id = getattr(event, "rule", None)
    rule = RULES.get(rule_id) if rule_id else None
    compared = getattr(event, "compared", None)
    return Step(
        seq=record.seq,
        at=format_at(record.at),
        actor=record.actor,
        type=record.type,
        summary=narrate(before, event, viewer),
        changes=_changes(before, after, event, viewer),
        challenge=cid if isinstance(cid, str) else None,
        rule=rule_id,
        words=rule.words if rule else None,
        source=rule.source if rule else None,
        compared=dict(compared) if compared else None,
        linked=linked or [],
    )


def _changes(before: Scene, after: Scene, event: object, viewer: str) -> list[Change]:
    changes: list[Change] = []
    for key in ("title", "ruleset", "status"):
        if getattr(before, key) != getattr(after, key):
            changes.append(Change(key, getattr(before, key), getattr(after, key)))
    changes += _diff("round", round_view(before.round), round_view(after.round))
    for key in ("disputes", "rulings"):
        changes += _diff(key, list(getattr(before, key)), list(getattr(after, key)))
    people, challenges = touched([event])
    for cid in challenges:
        old, new = before.challenges.get(cid), after.challenges.get(cid)
        changes += _diff(
            f"challenges.{cid}",
            challenge_view(old, viewer) if old else None,
            challenge_view(new, viewer) if new else None,
        )
    for who in people if people is not None else after.characters:
        old_c, new_c = before.characters.get(who), after.characters.get(who)
        changes += _diff(
            f"characters.{who}",
            character_view(old_c, viewer) if old_c else None,
            character_view(new_c, viewer) if new_c else None,
        )
    return changes


def _diff(prefix: str, old: object | None, new: object | None) -> list[Change]:
    if old is None and new is None:
        return []
    if old is None:
        return [Change(prefix, None, "added")]
    flat_old, flat_new = (
        _flatten(prefix, msgspec.to_builtins(old)),
        _flatten(prefix, msgspec.to_builtins(new)),
    )
    return [
        Change(path, flat_old.get(path), flat_new.get(path))
        for path in dict.fromkeys([*flat_old, *flat_new])
        if flat_old.get(path) != flat_new.get(path)
    ]


def _flatten(prefix: str, value: Any, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Leaf paths to values; an empty list or mapping is simply absent."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, out)
    elif isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        for i, item in enumerate(value):
            _flatten(f"{prefix}[{i}]", item, out)
    elif value != []:
        out[prefix] = value
    return out


def render(step: Step) -> str:
    """A step as text for a terminal."""
    where = f" [{step.challenge}]" if step.challenge else ""
    lines = [f"#{step.seq} {step.at} {step.actor} · {step.type}{where}", f"  {step.summary}"]
    for change in step.changes:
        lines.append(f"  · {change.path}: {_show(change.before)} → {_show(change.after)}")
    if step.rule:
        lines.append(f"  rule {step.rule} ({step.source}): “{step.words}”" if step.words else f"  rule {step.rule}")
    if step.linked:
        lines.append(f"  see also: {', '.join(f'#{seq}' for seq in step.linked)}")
    return "\n".join(lines)


def _show(value: Any) -> str:
    if value is None:
        return "–"
    return value if isinstance(value, str) and value else msgspec.json.encode(value).decode()
