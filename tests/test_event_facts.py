"""Each event type says once what it is (``FACTS``, ``domain.facts``), beside its fields: whom it
touches, what of it is secret from whom, what a ruling undoes, what a game night carries. These
tests fail for an event type without its declaration, or without words of its own in
``projections.narrate``; and they hold the declarations to what the code that reads them does."""

from __future__ import annotations

import ast
import contextlib
import gc
import inspect
import json
import typing
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

from domain import night, rulings
from domain.errors import Rejected
from domain.events import CharacterMoved, Event, RoundStarted, SceneEvent, ThrowSealed, TurnEnded
from domain.evolve import evolve
from domain.facts import Facts, problems
from domain.log import Recorded
from domain.pools import Pool
from domain.sheets import Sheet
from domain.state import Consequence, Scene
from projections.narrate import _kind, narrate
from projections.redact import SPECTATOR, hidden_fields, may_know
from projections.views import touched, turned
from tests.table import Table

ROOT = Path(__file__).resolve().parent.parent


def concrete(kind: type = Event) -> Iterator[type]:
    """Every event type there is: the subclasses of ``Event``, at any depth."""
    for sub in kind.__subclasses__():
        yield sub
        yield from concrete(sub)


EVENTS = typing.get_args(SceneEvent)


def facts(kind: type) -> Facts:
    found = vars(kind)["FACTS"]
    assert isinstance(found, Facts)
    return found


# -- a sample of each event type, from its fields' types --------------------------------------


def _value(t: Any) -> Any:
    match t:
        case mi.Metadata():
            return _value(t.type)
        case mi.StrType():
            return "sam"
        case mi.IntType():
            return 1
        case mi.BoolType():
            return False
        case mi.DateTimeType():
            return "2026-11-29T20:00:00Z"
        case mi.LiteralType():
            return t.values[0]
        case mi.ListType() | mi.VarTupleType():
            return [_value(t.item_type)]
        case mi.DictType():
            return {}
        case mi.UnionType():
            return _value(next(x for x in t.types if not isinstance(x, mi.NoneType)))
        case mi.StructType():
            data = {f.encode_name: _value(f.type) for f in t.fields if f.required}
            return {t.tag_field: t.tag, **data} if t.tag_field else data
    raise TypeError(f"no sample for {t!r}")


SAMPLED: dict[str, dict[str, Any]] = {"test_revealed": {"signs": {"sam": "rock", "juan": "paper"}}}
"""Fields a sample needs beyond its types' first values to be an event that could happen."""


def sample(kind: type) -> Any:
    """An event of ``kind`` with every required field filled: texts "sam", numbers 1, lists of one,
    the first of each choice."""
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    data = {f.encode_name: _value(f.type) for f in info.fields if f.required}
    return msgspec.convert({**data, **SAMPLED.get(str(info.tag), {}), str(info.tag_field): info.tag}, kind)


def said_generically(kinds: typing.Iterable[type]) -> list[str]:
    """The event types ``narrate`` has no words of its own for (the generic "Scene closed." sentence),
    for the Storyteller, a player or a spectator."""
    before = Scene()
    out = []
    for kind in kinds:
        event = sample(kind)
        if any(narrate(before, event, viewer) == _kind(event) for viewer in ("st", "sam", "juan", SPECTATOR)):
            out.append(kind.__name__)
    return out


# -- every event type declares what it is --------------------------------------------------------


def test_every_event_type_declares_what_it_is() -> None:
    """Every concrete ``Event`` has its ``FACTS``, naming only fields it has; every one is in the
    tagged union the log decodes."""
    kinds = list(concrete())
    assert kinds and problems(kinds) == []
    assert set(kinds) == set(EVENTS)


def test_every_event_type_has_words_of_its_own() -> None:
    """``narrate`` never falls back to an event's kind in words ("Character moved.") for any type."""
    assert said_generically(EVENTS) == []


def test_a_new_event_without_a_declaration_fails() -> None:
    """An event type added without ``FACTS`` is reported, and so is one naming a field it lacks or
    an undoing that is no event; a new type without words of its own is reported too."""

    class Stray(Event, frozen=True, kw_only=True, tag="stray"):
        character: str

    class Misnamed(Event, frozen=True, kw_only=True, tag="misnamed"):
        FACTS: typing.ClassVar[Facts] = Facts(people=("victim",), undone_by="nothing_at_all")

        character: str

    try:
        assert Stray in set(concrete())
        assert problems([*EVENTS, Stray, Misnamed]) == [
            "Stray declares no FACTS",
            "Misnamed: no field 'victim'",
            "Misnamed: undone by 'nothing_at_all', which is no event",
        ]
        assert said_generically([Stray]) == ["Stray"]
    finally:
        del Stray, Misnamed
        gc.collect()
    assert set(concrete()) == set(EVENTS)  # gone again: the other tests see only the real events


# -- whom it touches (projections.views.touched, turned) -----------------------------------------


def test_touched_and_turned_read_the_declarations() -> None:
    """The characters an event touches are its declared fields' (a sheet by its id, a list each);
    every character for those that touch everyone; who may act changes after those that say so. A
    scene a character is sent into is no character."""
    sent = CharacterMoved(character="sam", to="docks")
    assert touched([sent]) == (["sam"], [])
    assert touched([sample(RoundStarted), sent]) == (None, [])
    assert turned([sample(TurnEnded)]) and not turned([sent])
    for kind in EVENTS:
        event, declared = sample(kind), facts(kind)
        named = {f: "sam" for f in declared.people if isinstance(getattr(event, f), str)}
        people, _ = touched([msgspec.structs.replace(event, **named)])
        assert (people is None) == declared.everyone, kind
        if not declared.everyone:
            assert people == (["sam"] if declared.people else []), kind
        assert turned([event]) == declared.turns, kind


# -- its secrecy (projections.redact) -------------------------------------------------------------


def test_redaction_hides_what_each_type_declares_secret() -> None:
    """For another player, an event hides exactly the fields its type declares secret (a sheet
    keeps what everyone may know of it); an event that declares nothing secret hides nothing from
    anyone; the Storyteller and the one it names read it whole."""
    sheet = Sheet(id="sam", name="Sam", notes="owes the Prince")
    for kind in EVENTS:
        event = sample(kind)
        if "character" in kind.__struct_fields__ and isinstance(event.character, Sheet):
            event = msgspec.structs.replace(event, character=sheet)
        record = Recorded(seq=1, scene="s", at=datetime(2026, 11, 29), actor="st", command="c", event=event)
        declared = facts(kind).secret
        secret = {f for s in declared if not s.parts for f in s.fields if getattr(event, f) is not None}
        assert set(hidden_fields(record, "juan")) == secret, kind
        assert hidden_fields(record, "st") == {}, kind
        owner = {s.known_to for s in declared if s.known_to}
        if owner:  # the character it names reads all but the Storyteller's own notes
            assert set(hidden_fields(record, "sam")) <= {f for s in declared if s.parts for f in s.fields}, kind
        if not declared:
            assert hidden_fields(record, SPECTATOR) == {}, kind


def test_a_sealed_throw_is_sealed_from_the_storyteller_while_it_must_throw() -> None:
    """``blind`` secrets: hidden from the Storyteller too while it still has to throw in that test."""
    throw = ThrowSealed(challenge="c1", test=1, character="sam", sign="rock")
    record = Recorded(seq=1, scene="s", at=datetime(2026, 11, 29), actor="sam", command="c", event=throw)
    assert hidden_fields(record, "st", frozenset({("c1", 1, "sam")})) == {"sign": None}
    assert hidden_fields(record, "st") == {} and hidden_fields(record, "sam") == {}


# -- what a ruling undoes (domain.rulings, the resolved challenge's consequences) ----------------


def test_the_consequences_a_ruling_undoes_are_those_declared() -> None:
    """``Consequence`` (what a resolved challenge keeps) is the declared consequences; ``rulings``
    has one undoing for each, and it gives the event the consequence declares."""
    declared = {kind for kind in EVENTS if facts(kind).undone_by}
    assert set(typing.get_args(Consequence)) == declared
    assert set(rulings.UNDO) == declared
    by_name = {kind.type_name(): kind for kind in EVENTS}
    for kind, undo in rulings.UNDO.items():
        returns = typing.get_type_hints(undo, vars(rulings))["return"]
        assert set(typing.get_args(returns)) == {by_name[facts(kind).undone_by], type(None)}, kind


# -- what crosses to the night's other streams (domain.night.follow_ups) -------------------------


def test_the_events_that_send_follow_ups_are_those_declared() -> None:
    """``follow_ups`` reads ``FACTS.sends`` and matches exactly the types that declare it."""
    tree = ast.parse(inspect.getsource(night.follow_ups))
    matched = {
        node.cls.id for node in ast.walk(tree) if isinstance(node, ast.MatchClass) and isinstance(node.cls, ast.Name)
    }
    assert matched == {kind.__name__ for kind in EVENTS if facts(kind).sends}


# -- the declarations hold over the examples, played ----------------------------------------------


def played(path: Path) -> Table:
    """An example scene played through ``decide`` and ``evolve`` (refused lines skipped, as the
    examples refuse some on purpose)."""
    t = Table.__new__(Table)
    t.state, t.log, t.entropy, t._n = Scene(), [], 0, 0
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        body = json.loads(line)
        at = datetime.fromisoformat(body.pop("at").replace("Z", "+00:00"))
        t.now = at - timedelta(seconds=1)
        for key in ("id", "scene"):
            body.pop(key)
        with contextlib.suppress(Rejected):
            t.do(body.pop("actor"), body.pop("type"), **body)
    return t


@pytest.mark.parametrize("example", ["demo", "camarilla", "bns-duel", "bns-fight", "kony"])
def test_the_declarations_hold_over_an_example(example: str) -> None:
    """Played from examples/, every event that changed what a character carries to the night's
    next scene declares ``carried``; every one a resolved challenge kept for a ruling to undo
    declares ``undone_by``; every character whose state changed is one it touches."""
    t = played(ROOT / "examples" / f"{example}.jsonl")
    assert len(t.log) > 20
    state = Scene()
    seen: set[str] = set()
    for record in t.log:
        after = evolve(state, record)
        kind, declared = type(record.event), facts(type(record.event))
        seen.add(kind.__name__)
        for who, now in after.characters.items():
            was = state.characters.get(who)
            if was is None:
                continue
            at = record.at
            if was.carried(state.waits_of(who, at)) != now.carried(after.waits_of(who, at)):
                assert declared.carried, f"{kind.__name__} changed what {who} carries"
            if was != now and not declared.everyone:
                assert who in (touched([record.event])[0] or []), f"{kind.__name__} changed {who} unnamed"
        for cid, ch in after.challenges.items():
            kept = state.challenges[cid].consequences if cid in state.challenges else ()
            if len(ch.consequences) > len(kept):
                assert declared.undone_by, f"{kind.__name__} kept as a consequence"
        state = after
    assert "ChallengeResolved" in seen


def test_narration_says_a_secret_only_to_whom_its_type_lets_know_it() -> None:
    """Narration reads the same declarations (``projections.redact.may_know``): each secret field
    of each event type, filled with words nobody else would say, never reaches the words of a
    viewer its type keeps it from, and the Storyteller's words are never the poorer for it."""
    before = Scene()
    checked = 0
    for kind in EVENTS:
        for secret in facts(kind).secret:
            if secret.parts:
                continue
            for field in secret.fields:
                event = sample(kind)
                value = getattr(event, field)
                marker = f"zz{field}zz"
                if isinstance(value, str):
                    event = msgspec.structs.replace(event, **{field: marker})
                elif isinstance(value, Pool):
                    event = msgspec.structs.replace(event, **{field: Pool(total=3, wildcard=1, why=marker)})
                else:
                    continue
                checked += 1
                for viewer in ("juan", SPECTATOR):
                    if not may_know(event, field, viewer):
                        assert marker not in narrate(before, event, viewer), (kind.__name__, field, viewer)
    assert checked >= 6  # signs, reasons, pools, a night's scenes and titles
