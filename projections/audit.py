"""The post-game audit of a scene, as data: who took part (their sheets as added, without the ST's
notes), the timeline, every challenge as its account (``projections.account``, the Storyteller's
reading, composed there and nowhere here) with the words of the rules it cites, disputes and
rulings, and the hash-chain check.

Built from the log as stored (``Wire`` records), so the chain is checked on exactly what was
kept; ``projections.audit_render`` turns it into Markdown or one self-contained HTML page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Literal

import msgspec

from domain.carried import Carried
from domain.events import (
    CharacterAdded,
    CharacterEntered,
    ConditionCleared,
    ConditionSet,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    RoundStarted,
    SceneClosed,
)
from domain.evolve import fold
from domain.log import ChainProblem, Recorded, Wire, check_chain, from_wire
from domain.rules import RULES, title_of
from domain.rulings import step_words
from domain.sheets import Sheet
from domain.state import NARRATOR, Challenge, DisputeRecord, RulingRecord, Scene
from projections.account import Account, account, result, title
from projections.ledger import Ledger, ledgers
from projections.redact import blind
from projections.replay import Step, links_of, replay
from projections.ruled import public_rulings


class Participant(msgspec.Struct, frozen=True):
    id: str
    name: str
    npc: bool
    joined: int
    """The seq of the event that added them."""
    sheet: Sheet
    carried: Carried | None = None
    """A character of a game night: what it carried when it came in (its ``character_entered``)."""


class Words(msgspec.Struct, frozen=True):
    rule: str
    words: str
    source: str


class Section(msgspec.Struct, frozen=True):
    title: str
    steps: list[Step]


class ChainAudit(msgspec.Struct, frozen=True):
    ok: bool
    events: int
    head: str
    problem: str | None = None


class Marker(msgspec.Struct, frozen=True):
    """An escape or a condition on a character, in the round it happened (for the picture)."""

    seq: int
    round: int | None
    who: str
    kind: str
    """``escape`` or ``condition``."""
    label: str


class Audit(msgspec.Struct, frozen=True):
    scene: str
    title: str
    ruleset: str
    status: str
    chain: ChainAudit
    participants: list[Participant]
    timeline: list[Section]
    challenges: list[Account]
    """Each challenge told once (``projections.account``: the JSON audit's challenges are the
    accounts), in the order declared."""
    disputes: list[DisputeRecord]
    rulings: list[RulingRecord]
    names: dict[str, str]
    markers: list[Marker] = []
    ruleset_title: str = ""
    steps: dict[int, str] = {}
    """The steps disputed or ruled on, in words ("the result of Sam's challenge to Juan (step 30)")."""
    rules: dict[str, Words] = {}
    """The words of every rule the challenges cite, by rule id (each quoted once per challenge)."""


def words(rule_id: str | None) -> Words | None:
    rule = RULES.get(rule_id) if rule_id else None
    return Words(rule.id, rule.words, rule.source) if rule else None


def audit(wires: Sequence[Wire]) -> Audit:
    """The audit of one scene's stored records, in order."""
    problem = check_chain(wires)
    head = wires[-1].hash if wires else "0" * 64
    good = [w for w in wires if problem is None or w.seq < problem.seq]
    records = [from_wire(w) for w in good]
    state = fold(records)
    hidden = blind(state, NARRATOR)  # asked mid-test: a sealed throw the ST still throws against stays sealed
    steps = list(replay(records, NARRATOR, links=links_of(records), blind=hidden, accounts=False))  # told below
    participants: list[Participant] = []
    for r in records:  # added to the scene, or come in from its game night (the first time)
        if isinstance(r.event, CharacterAdded | CharacterEntered) and all(
            p.id != r.event.character.id for p in participants
        ):
            sheet = msgspec.structs.replace(r.event.character, notes="")  # the ST's notes are not for the table
            carried = r.event.carried if isinstance(r.event, CharacterEntered) else None
            participants.append(Participant(sheet.id, sheet.name, sheet.npc, r.seq, sheet, carried))
    sections: list[Section] = [Section("The scene", [])]
    for step in steps:
        if step.type == "round_started":
            sections.append(Section(step.summary, []))
        sections[-1].steps.append(step)
    asked = {d.event for d in state.disputes} | {r.event for r in state.rulings}
    told = [account(state, ch) for ch in sorted(state.challenges.values(), key=_declared)]
    return Audit(
        scene=state.id,
        title=state.title,
        ruleset=state.ruleset,
        status=state.status,
        chain=ChainAudit(
            ok=problem is None,
            events=len(wires),
            head=head,
            problem=f"event {problem.seq} ({problem.type}): {problem.problem}" if problem else None,
        ),
        participants=participants,
        timeline=[s for s in sections if s.steps],
        challenges=told,
        disputes=list(state.disputes),
        rulings=public_rulings(state.rulings),
        names={who: c.name for who, c in state.characters.items()} | {NARRATOR: "the Narrator"},
        markers=markers(records),
        ruleset_title=title_of(state.ruleset),
        steps={seq: step_words(state, seq) for seq in sorted(asked)},
        rules={rule: w for rule in sorted(cited(told)) if (w := words(rule)) is not None},
    )


def cited(accounts: Sequence[Account]) -> set[str]:
    """Every rule the accounts cite: their tests', verdicts' and effects'."""
    found = {t.rule for a in accounts for t in a.tests} | {e.rule for a in accounts for e in a.effects}
    return (found | {a.verdict.rule for a in accounts if a.verdict}) - {""}


_ESCAPES = {FairEscapeHeld: "escape held", FairEscapeFailed: "escape failed", FairEscapeSucceeded: "escaped"}


def markers(records: Sequence[Recorded]) -> list[Marker]:
    """Each escape's hold, failure or success and each condition set or cleared, with its round."""
    found: list[Marker] = []
    number: int | None = None
    for r in records:
        event = r.event
        if isinstance(event, RoundStarted):
            number = event.number
        elif isinstance(event, FairEscapeHeld | FairEscapeFailed | FairEscapeSucceeded):
            found.append(Marker(r.seq, number, event.character, "escape", _ESCAPES[type(event)]))
        elif isinstance(event, ConditionSet | ConditionCleared):
            label = event.name.replace("_", " ") + (" cleared" if isinstance(event, ConditionCleared) else "")
            found.append(Marker(r.seq, number, event.character, "condition", label))
    return found


def _declared(ch: Challenge) -> tuple[object, str]:
    return (ch.declared_at, ch.id)


# -- a game night --------------------------------------------------------------------------------


class StreamChain(msgspec.Struct, frozen=True):
    """The chain check of one stream of a night: the night's own, or a scene's."""

    stream: str
    title: str
    kind: Literal["night", "scene"]
    chain: ChainAudit


class NightSceneAudit(msgspec.Struct, frozen=True, kw_only=True):
    """One scene of the night: when it opened and closed, who of the night came, what was fought."""

    scene: str
    title: str
    status: str
    opened: datetime | None
    closed: datetime | None
    events: int
    characters: list[str]
    """The night's characters who came, by name, in the order they arrived."""
    others: list[str]
    """Characters of this scene alone (NPCs, walk-ons), by name."""
    challenges: list[str]
    """Each challenge by its people and how it ended: "Juan challenges Sam (Physical) — Sam won"."""
    rulings: list[str]
    """Each ruling in words: "Ruling #14 on the result of Juan's challenge to Sam: overturn (Sam had cover)"."""


class NightAudit(msgspec.Struct, frozen=True, kw_only=True):
    night: str
    title: str
    ruleset: str
    ruleset_title: str
    status: str
    chains: list[StreamChain]
    """The night's stream first, then each scene's, in the order the scenes opened."""
    scenes: list[NightSceneAudit]
    """In the order they opened."""
    ledgers: list[Ledger]
    """Each character's losses and gains across the scenes (``projections.ledger``)."""
    where: dict[str, str]
    """The scene each character is in now, by character id."""
    rules: dict[str, Words]
    """The words of every rule the ledgers cite, by rule id."""

    @property
    def ok(self) -> bool:
        return all(c.chain.ok for c in self.chains)


def chain_audit(wires: Sequence[Wire], problem: ChainProblem | None) -> ChainAudit:
    return ChainAudit(
        ok=problem is None,
        events=len(wires),
        head=wires[-1].hash if wires else "0" * 64,
        problem=f"event {problem.seq} ({problem.type}): {problem.problem}" if problem else None,
    )


def night_audit(
    night: Sequence[Wire],
    scenes: Mapping[str, Sequence[Wire]],
    problems: Mapping[str, ChainProblem | None] | None = None,
) -> NightAudit:
    """The audit of a game night: its stream's records, and each of its scenes' by id. ``problems``
    are the chain checks the shell made (``server.store.base.first_problem``, which also knows an
    acknowledged end that went missing); a stream it leaves out is checked here."""
    here = night[0].scene if night else ""
    streams: dict[str, Sequence[Wire]] = {here: night, **scenes}
    checked = {stream: (problems or {}).get(stream) or check_chain(wires) for stream, wires in streams.items()}
    sound = {  # what each stream holds up to its first problem
        stream: [from_wire(w) for w in wires if (p := checked[stream]) is None or w.seq < p.seq]
        for stream, wires in streams.items()
    }
    state = fold(sound[here])
    folded = {scene: fold(sound[scene]) for scene in scenes}
    order = sorted(scenes, key=lambda s: (sound[s][0].at if sound[s] else state.last_at or _EPOCH, s))
    book = ledgers(sound[here], {s: sound[s] for s in scenes})
    used = sorted({e.rule for ledger in book for e in ledger.entries if e.rule})
    registered = set(state.characters)
    return NightAudit(
        night=state.id,
        title=state.title,
        ruleset=state.ruleset,
        ruleset_title=title_of(state.ruleset),
        status=state.status,
        chains=[
            StreamChain(state.id, state.title or state.id, "night", chain_audit(night, checked[here])),
            *(StreamChain(s, folded[s].title or s, "scene", chain_audit(scenes[s], checked[s])) for s in order),
        ],
        scenes=[_night_scene(s, sound[s], folded[s], registered) for s in order],
        ledgers=book,
        where={who: visit.scene for who, visit in state.night.where.items()} if state.night else {},
        rules={rule: w for rule in used if (w := words(rule)) is not None},
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _night_scene(scene: str, records: Sequence[Recorded], state: Scene, registered: set[str]) -> NightSceneAudit:
    came = [
        r.event.character.id
        for r in records
        if isinstance(r.event, CharacterEntered) and r.event.character.id in registered
    ]
    return NightSceneAudit(
        scene=scene,
        title=state.title or scene,
        status=state.status,
        opened=records[0].at if records else None,
        closed=next((r.at for r in records if isinstance(r.event, SceneClosed)), None),
        events=len(records),
        characters=[state.name_of(who) for who in dict.fromkeys(came)],
        others=[c.name for c in state.roster() if c.id not in registered],
        challenges=[f"{title(state, ch)} — {result(state, ch)}" for ch in state.in_order()],
        rulings=[f"Ruling #{r.id} on {step_words(state, r.event)}: {r.decision} ({r.reason})" for r in state.rulings],
    )
