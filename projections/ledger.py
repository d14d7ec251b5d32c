"""A game night's ledger: each character's losses and gains across the night's scenes.

For every character registered in the night, in the order it was registered, the ledger lists
what it lost and got back tonight, in the order it happened to that character: Traits lost and
restored, damage taken and healed, Willpower, ability levels and blood spent (and blood fed on),
lasting conditions set and cleared, the Storyteller's adjustments, and the corrections a ruling
sent after the character had left the scene it was made in. Each entry names the step (the stream,
its title, the seq), says what changed in words, why, and the rule applied, signed by its book.

The order is the night's: a character's entries are those of each visit (its ``character_entered``
in a scene to its ``character_left``), visit after visit as the night sent it, so it holds however
the scenes' clocks compare. A scene's events for a character who has left it are not counted there:
what they change of what it carries comes back as a correction (``carried_corrected``), which is
counted once: in the scene the character is in when it arrives, or in the night between scenes.

Pure: the night's records and each scene's records in, the ledgers out (``ledgers``). A what-if
passes a fork's records under the id of the scene it branches from.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Literal

import msgspec

from domain.carried import Carried
from domain.commands import CarryCorrection
from domain.events import (
    AbilitySpent,
    BloodSpent,
    CarriedCorrected,
    CharacterAdjusted,
    CharacterEntered,
    CharacterLeft,
    CharacterMoved,
    CharacterReturned,
    ConditionCleared,
    ConditionSet,
    DamageHealed,
    DamageTaken,
    Fed,
    RetestInvoked,
    RulingIssued,
    SceneForked,
    TraitLost,
    TraitRestored,
    WillpowerSpent,
)
from domain.evolve import fold
from domain.log import Recorded
from domain.night import travelling
from domain.rules import RULES, RULESETS, title_of
from domain.state import Scene
from projections.account import reason
from projections.changes import Kind, changes, condition_words
from projections.narrate import source_label

By = Literal["play", "ruling", "storyteller", "correction"]


class Ref(msgspec.Struct, frozen=True):
    """A step of a stream: the scene (or the night), its title, the seq."""

    scene: str
    title: str
    seq: int


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One loss or gain of one character."""

    scene: str
    """The stream the step is in: a scene of the night, or the night itself (a correction that came
    while the character was in no scene)."""
    title: str
    seq: int
    at: datetime
    kind: Kind
    item: str
    """The Trait, the damage type, the ability, the condition; ``Willpower`` or ``blood``."""
    amount: int
    loss: bool
    """True for a loss (lost, taken, spent, set), False for a gain (restored, healed, cleared)."""
    what: str
    """In words: "Sam loses Brawny (Physical)"."""
    why: str = ""
    rule: str = ""
    book: str = ""
    """The book the rule is quoted from ("Laws of the Night")."""
    by: By = "play"
    """What made the change: play, a ruling in the same scene, the Storyteller's adjustment, or a
    correction carried from a ruling in a scene the character had left."""
    ruling: Ref | None = None
    """The ruling behind it (``by`` ruling or correction)."""


class Ledger(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    name: str
    entries: list[Entry]
    scenes: list[str]
    """The scenes the night sent it to, in order."""
    where: str | None
    """The scene it is in now (None: between scenes)."""
    now: Carried
    """What it carries now (without waits)."""

    @property
    def losses(self) -> list[Entry]:
        return [e for e in self.entries if e.loss]


def book(rule: str, ruleset: str = "") -> str:
    """The book a rule's words are quoted from, else the ruleset's title."""
    if not rule:
        return ""
    known = RULES.get(rule)
    if known is not None:
        return known.source
    return title_of(ruleset) if ruleset in RULESETS else ""


def ledgers(night: Sequence[Recorded], scenes: Mapping[str, Sequence[Recorded]]) -> list[Ledger]:
    """Each registered character's ledger for the night, in the order they were registered."""
    state = fold(night)
    titles = {s.id: s.title or s.id for s in state.night.scenes} if state.night else {}
    titles[state.id] = state.title or state.id
    out: dict[str, list[Entry]] = {who: [] for who in state.characters}
    visits: dict[str, list[str]] = {who: [] for who in state.characters}
    inside: dict[str, str] = {}
    for r in night:
        e = r.event
        if isinstance(e, CharacterMoved) and e.character in out:
            inside[e.character] = e.to
            visits[e.character].append(e.to)
            found = _visit(e.to, scenes.get(e.to, ()), e.character, r.seq, state, titles, scenes)
            out[e.character] += found
        elif isinstance(e, CharacterReturned) and inside.get(e.character) == e.scene:
            del inside[e.character]
        elif isinstance(e, CarriedCorrected) and e.character in out and inside.get(e.character) in (None, e.scene):
            out[e.character] += _correction(r, e, state, titles, scenes, state.id)
    folded: dict[str, Scene] = {}
    result = []
    for who, character in sorted(state.characters.items(), key=lambda kv: kv[1].seq):
        now = character.carried()
        where = inside.get(who)
        if where is not None and where in scenes:
            there = folded.get(where) or folded.setdefault(where, fold(scenes[where]))
            if who in there.characters and there.characters[who].present:
                now = there.characters[who].carried()
        result.append(
            Ledger(character=who, name=character.name, entries=out[who], scenes=visits[who], where=where, now=now)
        )
    return result


# -- a visit: the scene's steps for one character, from its arrival to its leaving --------------


def _visit(
    scene: str,
    records: Sequence[Recorded],
    who: str,
    moved: int,
    night: Scene,
    titles: dict[str, str],
    scenes: Mapping[str, Sequence[Recorded]],
) -> list[Entry]:
    start = next(
        (
            i
            for i, r in enumerate(records)
            if isinstance(r.event, CharacterEntered) and r.event.character.id == who and r.event.seq == moved
        ),
        None,
    )
    if start is None:  # never got in (bounced), or the scene's records are not at hand
        return []
    name = night.characters[who].name
    out: list[Entry] = []
    command, retest, cited, ruling = "", "", "", None
    for r in records[start + 1 :]:
        e = r.event
        if r.command != command:
            command, retest, cited, ruling = r.command, "", "", None
        if isinstance(e, RulingIssued):
            ruling, cited = Ref(scene, titles.get(scene, scene), r.seq), e.rule
        if isinstance(e, RetestInvoked):
            retest, cited = f"a retest with {source_label(e.source)}", e.rule
        has_rule = hasattr(e, "rule")
        own = getattr(e, "rule", "") or ""
        if isinstance(e, CharacterLeft) and e.character == who:
            break
        if isinstance(e, CarriedCorrected) and e.character == who:
            out += _correction(r, e, night, titles, scenes, scene)
        else:
            for kind, item, amount, loss, what, why in _changes_of(e, who, name, retest):
                by: By = "storyteller" if isinstance(e, CharacterAdjusted) else "ruling" if ruling else "play"
                # each change by its own rule: an event's own, else the retest it was spent on or
                # the ruling that made it; none rather than the rule of the step before it (damage
                # taken "as declared" cites none, not the test's rule)
                used = own or (cited if ruling or not has_rule else "")
                out.append(
                    Entry(
                        scene=scene,
                        title=titles.get(scene, scene),
                        seq=r.seq,
                        at=r.at,
                        kind=kind,
                        item=item,
                        amount=amount,
                        loss=loss,
                        what=what,
                        why=why,
                        rule=used,
                        book=book(used, night.ruleset),
                        by=by,
                        ruling=ruling if by == "ruling" else None,
                    )
                )
    return out


Change = tuple[Kind, str, int, bool, str, str]
"""kind, item, amount, loss, what, why"""


def _changes_of(e: object, who: str, name: str, retest: str) -> Iterator[Change]:
    """What one event of a scene did to ``who``."""
    spent = f"Spent on {retest}." if retest else ""
    match e:
        case TraitLost(character=c) if c == who:
            lost = f"{name} loses {e.trait}"  # said once: its reason only after it
            yield "trait", e.trait, 1, True, f"{lost} ({e.category.capitalize()})", reason(e.why, lost)
        case TraitRestored(character=c) if c == who:
            back = f"{name} gets {e.trait} back"
            yield "trait", e.trait, 1, False, f"{back} ({e.category.capitalize()})", reason(e.why, back)
        case DamageTaken(character=c) if c == who:
            yield "damage", e.damage, e.amount, True, f"{name} takes {e.amount} {e.damage} damage", e.why
        case DamageHealed(character=c) if c == who:
            yield "damage", e.damage, e.amount, False, f"{name} heals {e.amount} {e.damage} damage", ""
        case WillpowerSpent(character=c) if c == who:
            yield "willpower", "Willpower", 1, True, f"{name} spends a Willpower Trait", spent
        case AbilitySpent(character=c) if c == who:
            yield "ability", e.ability, 1, True, f"{name} spends a level of {e.ability}", spent
        case BloodSpent(character=c) if c == who:
            yield "blood", "blood", 1, True, f"{name} spends a blood for {e.trait}", e.why
        case Fed(character=c) if c == who:
            yield "blood", "blood", e.blood, False, f"{name} feeds: {e.blood} blood", e.why
        case Fed(target=t) if t == who:
            yield "blood", "blood", e.blood, True, f"{name} is fed on: {e.blood} blood", e.why
        case ConditionSet(character=c) if c == who and e.name != "prone":  # prone stays in the scene
            yield "condition", e.name, 1, True, f"{name} is {condition_words(e.name)}", e.why
        case ConditionCleared(character=c) if c == who and e.name != "prone":
            yield "condition", e.name, 1, False, f"{name} is no longer {condition_words(e.name)}", e.why
        case CharacterAdjusted(character=c) if c == who:
            for change in changes(e.changes, name):
                yield (*change, e.reason)
        case _:
            return


def _correction(
    r: Recorded,
    e: CarriedCorrected,
    night: Scene,
    titles: dict[str, str],
    scenes: Mapping[str, Sequence[Recorded]],
    stream: str,
) -> list[Entry]:
    """A correction from a ruling in a scene the character had left, as entries of ``stream``."""
    issued = next(
        (x.event for x in scenes.get(e.scene, ()) if x.seq == e.ruling and isinstance(x.event, RulingIssued)), None
    )
    rule = issued.rule if issued else ""
    why = e.why + (f" The ruling: “{issued.reason}”." if issued and issued.reason else "")
    origin = Ref(e.scene, titles.get(e.scene, e.scene), e.ruling)
    name = night.characters[e.character].name if e.character in night.characters else e.character
    return [
        Entry(
            scene=stream,
            title=titles.get(stream, stream),
            seq=r.seq,
            at=r.at,
            kind=kind,
            item=item,
            amount=amount,
            loss=loss,
            what=what,
            why=why,
            rule=rule,
            book=book(rule, night.ruleset),
            by="correction",
            ruling=origin,
        )
        for kind, item, amount, loss, what in changes(e.changes, name)
    ]


# -- what-if: the night's ledger had a ruling in one of its scenes gone another way ------------


class WhatIf(msgspec.Struct, frozen=True, kw_only=True):
    """One character's ledger for the night had a fork's way been the scene's."""

    character: str
    name: str
    entries: list[Entry]
    """The ledger as it would stand: the real night's, with the fork in place of its scene."""
    new: list[Entry]
    """What would have happened to the character and did not."""
    gone: list[Entry]
    """What happened to the character and would not have."""
    lost: list[str]
    """The Traits it would be without now (the real night's, with ``new`` and ``gone`` counted)."""
    changed: bool


def _key(e: Entry) -> tuple[object, ...]:
    return (e.scene, e.seq, e.kind, e.item, e.loss, e.amount, e.by)


def _minus(these: list[Entry], those: list[Entry]) -> list[Entry]:
    """``these`` without one of each entry of ``those`` (compared by step and change)."""
    left: dict[tuple[object, ...], int] = {}
    for e in those:
        left[_key(e)] = left.get(_key(e), 0) + 1
    out = []
    for e in these:
        if left.get(_key(e), 0):
            left[_key(e)] -= 1
        else:
            out.append(e)
    return out


def _travelled(origin: str, fork: Sequence[Recorded], night: Scene, titles: dict[str, str]) -> dict[str, list[Entry]]:
    """The corrections the fork's own rulings would have sent to the night, for characters who had
    left the scene before them (``domain.night`` sends none from a fork: the real night never hears
    of it), as entries of the origin scene."""
    start = next((i for i, r in enumerate(fork) if isinstance(r.event, SceneForked)), None)
    if start is None:
        return {}
    state = fold(fork[: start + 1])
    out: dict[str, list[Entry]] = {}
    rest = fork[start + 1 :]
    i = 0
    while i < len(rest):
        j = i
        while j + 1 < len(rest) and rest[j + 1].command == rest[i].command:
            j += 1
        group = rest[i : j + 1]
        after = fold(group, state)
        for r in group:
            if not isinstance(r.event, RulingIssued):
                continue
            for cmd in travelling(state, after, r):
                if not isinstance(cmd, CarryCorrection) or cmd.character not in night.characters:
                    continue
                name = night.characters[cmd.character].name
                rule = r.event.rule
                why = cmd.why + (f" The ruling: “{r.event.reason}”." if r.event.reason else "")
                ref = Ref(origin, titles.get(origin, origin), r.seq)
                out.setdefault(cmd.character, []).extend(
                    Entry(
                        scene=origin,
                        title=titles.get(origin, origin),
                        seq=r.seq,
                        at=r.at,
                        kind=kind,
                        item=item,
                        amount=amount,
                        loss=loss,
                        what=what,
                        why=why,
                        rule=rule,
                        book=book(rule, night.ruleset),
                        by="correction",
                        ruling=ref,
                    )
                    for kind, item, amount, loss, what in changes(cmd.changes, name)
                )
        state = after
        i = j + 1
    return out


def what_if(
    night: Sequence[Recorded], scenes: Mapping[str, Sequence[Recorded]], origin: str, fork: Sequence[Recorded]
) -> list[WhatIf]:
    """Each character's ledger had the fork ``fork`` of the night's scene ``origin`` been that
    scene: its steps in place of the scene's, the corrections its rulings would have sent to the
    night for characters who had left it, and none of those the scene's real rulings after the
    fork's branching point sent. Pure: nothing of the real night changes."""
    state = fold(night)
    titles = {s.id: s.title or s.id for s in state.night.scenes} if state.night else {}
    titles[state.id] = state.title or state.id
    branched = next((r.event.seq for r in fork if isinstance(r.event, SceneForked)), 0)
    real = {book_.character: book_ for book_ in ledgers(night, scenes)}
    would = {book_.character: book_ for book_ in ledgers(night, {**scenes, origin: fork})}
    sent = _travelled(origin, fork, state, titles)
    out = []
    for who, was in real.items():
        entries = [
            e
            for e in would[who].entries
            if not (
                e.by == "correction" and e.ruling is not None and e.ruling.scene == origin and e.ruling.seq > branched
            )
        ] + sent.get(who, [])
        new, gone = _minus(entries, was.entries), _minus(was.entries, entries)
        lost = [lost.trait for lost in was.now.lost]
        for e, happens in [*((e, False) for e in gone), *((e, True) for e in new)]:
            if e.kind != "trait":
                continue
            if e.loss == happens:  # a loss that would happen, or a gain that would not
                lost.append(e.item)
            elif e.item in lost:
                lost.remove(e.item)
        out.append(
            WhatIf(
                character=who,
                name=was.name,
                entries=entries,
                new=new,
                gone=gone,
                lost=lost,
                changed=bool(new or gone),
            )
        )
    return out
