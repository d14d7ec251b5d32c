"""The replay: the log folded one event at a time, each step with what happened, what it changed
in the state, and the rule it applied in the rule's own words. A step of a challenge carries the
challenge as it stood after it, in words (its ``account``: the bids, the tests, the retests, the
verdict), never a diff of the fields the state keeps; a step's ``changes`` are the characters', the
round's and the scene's.

Replay is a fold of a prefix of the log, so step N shows exactly the state the table had after
event N.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from domain.events import DeadlinePassed, DisputeOpened, RulingIssued
from domain.evolve import evolve
from domain.log import Recorded, Row, decode_event, format_at
from domain.pools import Pool
from domain.rules import RULES
from domain.state import NARRATOR, Scene
from projections.account import Account, for_viewer
from projections.account_text import account_lines
from projections.deadline_words import lapse_of
from projections.narrate import narrate
from projections.redact import SEES_ALL, Blind
from projections.ruled import public_rulings
from projections.views import character_view, round_view, touched

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


class Change(msgspec.Struct, frozen=True, gc=False):
    path: str
    before: Any
    after: Any


class Step(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
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
    account: Account | None = None
    """The step's challenge as it stood after the step, in words, as the viewer may know it
    (``projections.account.for_viewer``, by names): what each side put up, the powers in play, the
    tests and retests, the verdict with what it cost and how a ruling changed it. Without its
    stakes (what winning would do): the page of a live challenge says those."""


def replay(
    records: Iterable[Recorded],
    viewer: str = NARRATOR,
    state: Scene | None = None,
    links: dict[int, list[int]] | None = None,
    blind: Blind = SEES_ALL,
    *,
    accounts: bool = True,
) -> Iterator[Step]:
    """Every record as a step, as ``viewer`` may see it, starting from ``state`` (the fold of the
    records before them). ``links`` (from ``links_of``) ties events to the disputes and rulings on
    them. ``blind``: the sealed throws and rolls kept from whoever asks, by the scene *now*
    (``projections.redact.blind``): a Storyteller still to throw for an NPC replays no step that
    shows the player's sealed sign, as whoever it replays."""
    state = state if state is not None else Scene()
    views: Views = {}  # each entity's view after a step is its view before the next
    previous: Recorded | None = None
    for record in records:
        before, state = state, evolve(state, record)
        lapse = lapse_of(before, record, previous)
        linked = (links or {}).get(record.seq, [])
        yield explain(before, state, record, viewer, linked, views, blind, accounts=accounts, lapse=lapse)
        previous = record


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


_LINKING = {cls.type_name(): cls for cls in (DisputeOpened, RulingIssued)}


def links_of_rows(rows: Iterable[Row]) -> dict[int, list[int]]:
    """``links_of`` from stored rows, decoding only the disputes and rulings."""
    links: dict[int, list[int]] = {}
    for seq, _, type_, data in rows:
        if type_ in _LINKING:
            event = decode_event(type_, data)
            assert isinstance(event, DisputeOpened | RulingIssued)
            links.setdefault(event.event, []).append(seq)
            links.setdefault(seq, []).append(event.event)
    return links


Views = dict[str, tuple[object, object]]
"""Views already made, by path: the entity they were made of, and the view."""


def explain(
    before: Scene,
    after: Scene,
    record: Recorded,
    viewer: str = NARRATOR,
    linked: list[int] | None = None,
    views: Views | None = None,
    blind: Blind = SEES_ALL,
    *,
    accounts: bool = True,
    lapse: DeadlinePassed | None = None,
) -> Step:
    """One step in words. ``accounts``: a challenge's step carries the challenge as it then stood
    (the audit, which tells each challenge whole in its own section, asks without). ``lapse``: the
    acting ``deadline_passed`` whose move the step is (``projections.deadline_words.lapse_of``;
    found from the scene before it when not given), said as the deadline's move."""
    if lapse is None:
        lapse = lapse_of(before, record)
    event = record.event
    cid = getattr(event, "challenge", None)
    rule_id = getattr(event, "rule", None)
    rule = RULES.get(rule_id) if rule_id else None
    compared = getattr(event, "compared", None)
    challenge = after.challenges.get(cid) if isinstance(cid, str) else None
    told = for_viewer(after, challenge, viewer, None, staked=False) if challenge is not None and accounts else None
    return Step(
        seq=record.seq,
        at=format_at(record.at),
        actor=record.actor,
        type=record.type,
        summary=narrate(before, event, viewer, second_person=False, blind=blind, lapse=lapse),  # by name
        changes=_changes(before, after, event, viewer, {} if views is None else views, challenge is not None),
        challenge=cid if isinstance(cid, str) else None,
        rule=rule_id,
        words=rule.words if rule else None,
        source=rule.source if rule else None,
        compared=dict(compared) if compared else None,
        linked=linked or [],
        account=told,
    )


def _changes(before: Scene, after: Scene, event: object, viewer: str, views: Views, told: bool) -> list[Change]:
    """What the step changed that its account does not say: the scene's title, ruleset and status,
    the round, the disputes, the rulings on no challenge, and each character it touched. A
    challenge's own fields are not listed: its account says where it stands (``told``: the step
    has one, which says its rulings too)."""
    changes: list[Change] = []
    for key in ("title", "ruleset", "status"):
        if getattr(before, key) != getattr(after, key):
            changes.append(Change(key, getattr(before, key), getattr(after, key)))
    changes += _diff("round", round_view(before.round), round_view(after.round))
    changes += _diff("disputes", list(before.disputes), list(after.disputes))
    if not told:
        changes += _diff("rulings", public_rulings(before.rulings), public_rulings(after.rulings))
    people, _ = touched([event])
    for who in people if people is not None else after.characters:
        path = f"characters.{who}"
        old_c, new_c = before.characters.get(who), after.characters.get(who)
        changes += _diff(path, _view(views, path, old_c, viewer), _view(views, path, new_c, viewer))
    return changes


def _view(views: Views, path: str, entity: Any, viewer: str) -> Any:
    """The view of the character ``entity`` at ``path``, made once for each version of it."""
    if entity is None:
        return None
    made = views.get(path)
    if made is not None and made[0] is entity:
        return made[1]
    shown = character_view(entity, viewer)
    views[path] = (entity, shown)
    return shown


def _diff(prefix: str, old: object | None, new: object | None) -> list[Change]:
    """The leaves that differ between two views, by path (``challenges.c1.tests[0].signs.sam``),
    as their JSON would show them: an empty list or mapping, or a field a view leaves out at its
    default, is absent. Only what differs is walked: equal Structs compare in C."""
    if old is None and new is None:
        return []
    if old is None:
        return [Change(prefix, None, "added")]
    out: list[Change] = []
    _walk(prefix, old, new, out)
    return out


def _walk(path: str, old: Any, new: Any, out: list[Change]) -> None:
    if old == new:
        return
    if isinstance(old, Pool) or isinstance(new, Pool):  # a pool reads as its sum, set at once
        out.append(Change(path, old.describe() if old else None, new.describe() if new else None))
        return
    if isinstance(old, msgspec.Struct) or isinstance(new, msgspec.Struct):
        olds, news = _fields_of(old), _fields_of(new)
        for key in dict.fromkeys([*olds, *news]):
            a, b = olds.get(key), news.get(key)
            if a != b:
                _walk(f"{path}.{key}", a, b, out)
    elif isinstance(old, dict) or isinstance(new, dict):
        old_map: dict[Any, Any] = old if isinstance(old, dict) else {}
        new_map: dict[Any, Any] = new if isinstance(new, dict) else {}
        for key in dict.fromkeys([*old_map, *new_map]):
            _walk(f"{path}.{key}", old_map.get(key), new_map.get(key), out)
    elif _nested(old) or _nested(new):
        old_list, new_list = old or [], new or []
        for i in range(max(len(old_list), len(new_list))):
            a = old_list[i] if i < len(old_list) else None
            _walk(f"{path}[{i}]", a, new_list[i] if i < len(new_list) else None, out)
    else:
        a, b = _leaf(old), _leaf(new)
        if a != b:
            out.append(Change(path, a, b))


def _nested(value: Any) -> bool:
    items = value if isinstance(value, list | tuple) else ()
    return any(isinstance(item, dict | list | tuple | msgspec.Struct) for item in items)


def _leaf(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return msgspec.to_builtins(value) if value else None
    return value if value is None or isinstance(value, str | int | float | bool) else msgspec.to_builtins(value)


_ABSENT = object()
_FIELDS: dict[type, list[tuple[str, str, Any]]] = {}


def _fields_of(value: Any) -> dict[str, Any]:
    """A Struct's JSON keys and values, as its JSON has them (its tag too; a field at the default
    it leaves out, absent); nothing for anything else."""
    if not isinstance(value, msgspec.Struct):
        return {}
    config = value.__struct_config__
    out = {config.tag_field: config.tag} if config.tag_field else {}
    for name, key, default in _fields(type(value)):
        item = getattr(value, name)
        if item is not None and item != default:
            out[key] = item
    return out


def _fields(kind: type) -> list[tuple[str, str, Any]]:
    """Each field of a Struct type: its name, its JSON key, and the default its JSON leaves out."""
    fields = _FIELDS.get(kind)
    if fields is None:
        omitted = kind.__struct_config__.omit_defaults  # type: ignore[attr-defined]
        fields = _FIELDS[kind] = [
            (f.name, f.encode_name, _default(f) if omitted else _ABSENT) for f in msgspec.structs.fields(kind)
        ]
    return fields


def _default(field: msgspec.structs.FieldInfo) -> Any:
    if field.default is not msgspec.NODEFAULT:
        return field.default
    if field.default_factory is not msgspec.NODEFAULT:
        return field.default_factory()
    return _ABSENT


def render(step: Step) -> str:
    """A step as text for a terminal."""
    where = f" [{step.challenge}]" if step.challenge else ""
    lines = [f"#{step.seq} {step.at} {step.actor} · {step.type}{where}", f"  {step.summary}"]
    if step.account is not None:
        lines.append("  the challenge then:")
        lines += [f"    {line}" for line in account_lines(step.account)]
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
