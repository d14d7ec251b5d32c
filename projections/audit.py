"""The post-game audit of a scene, as data: who took part (their sheets as added, without the ST's
notes), the timeline,
every challenge in full with the rules' words, disputes and rulings, and the hash-chain check.

Built from the log as stored (``Wire`` records), so the chain is checked on exactly what was
kept; ``projections.audit_render`` turns it into Markdown or one self-contained HTML page.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.commands import Source
from domain.effects import Effect
from domain.events import (
    CharacterAdded,
    ConditionCleared,
    ConditionSet,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    RoundStarted,
)
from domain.evolve import fold
from domain.log import Recorded, Wire, check_chain, from_wire
from domain.rules.texts import RULES
from domain.sheets import Sheet
from domain.state import NARRATOR, Call, Challenge, DisputeRecord, Outcome, RulingRecord, Scene
from projections.narrate import narrate
from projections.replay import Step, links_of, replay


class Participant(msgspec.Struct, frozen=True):
    id: str
    name: str
    npc: bool
    joined: int
    """The seq of the event that added them."""
    sheet: Sheet


class Words(msgspec.Struct, frozen=True):
    rule: str
    words: str
    source: str


class TestAudit(msgspec.Struct, frozen=True):
    __test__ = False  # not a pytest test class

    number: int
    signs: dict[str, str]
    result: str | None
    leader: str | None
    why: str
    compared: dict[str, int]
    rule: Words | None


class RetestAudit(msgspec.Struct, frozen=True):
    by: str
    source: Source
    after_test: int
    status: str
    cancelled_by: Source | None


class OutcomeAudit(msgspec.Struct, frozen=True):
    winner: str
    why: str
    rule: Words | None


class ChallengeAudit(msgspec.Struct, frozen=True):
    id: str
    kind: str
    category: str
    challenger: str
    targets: list[str]
    victory: str
    defender_victory: str
    effect: Effect | None
    difficulty: int | None
    power: str | None
    status: str
    bids: dict[str, list[str]]
    calls: list[Call]
    tests: list[TestAudit]
    retests: list[RetestAudit]
    outcome: OutcomeAudit | None
    original_outcome: OutcomeAudit | None
    consequences: list[str]
    rulings: list[int]
    round: int | None = None
    mob: list[str] = []


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
    challenges: list[ChallengeAudit]
    disputes: list[DisputeRecord]
    rulings: list[RulingRecord]
    names: dict[str, str]
    markers: list[Marker] = []


def words(rule_id: str | None) -> Words | None:
    rule = RULES.get(rule_id) if rule_id else None
    return Words(rule.id, rule.words, rule.source) if rule else None


def _outcome(outcome: Outcome | None) -> OutcomeAudit | None:
    return OutcomeAudit(outcome.winner, outcome.why, words(outcome.rule)) if outcome else None


def _challenge(state: Scene, ch: Challenge) -> ChallengeAudit:
    sides = (ch.challenger, ch.defender)
    return ChallengeAudit(
        id=ch.id,
        kind=ch.kind,
        category=ch.category,
        challenger=ch.challenger.who,
        targets=list(ch.targets),
        victory=ch.victory,
        defender_victory=ch.defender.victory,
        effect=ch.effect,
        difficulty=ch.difficulty,
        power=ch.power,
        status=ch.status,
        bids={side.who: list(side.bids) for side in sides if side.who != NARRATOR},
        calls=list(ch.calls),
        tests=[
            TestAudit(t.number, dict(t.signs), t.result, t.leader, t.why, dict(t.compared), words(t.rule))
            for t in ch.tests
        ],
        retests=[RetestAudit(r.by, r.source, r.test, r.status, r.cancelled_by) for r in ch.retests],
        outcome=_outcome(ch.outcome),
        original_outcome=_outcome(ch.original_outcome),
        consequences=[narrate(state, event) for event in ch.consequences],
        rulings=list(ch.rulings),
        round=ch.round,
        mob=[h.who for h in ch.challenger.helpers],
    )


def audit(wires: Sequence[Wire]) -> Audit:
    """The audit of one scene's stored records, in order."""
    problem = check_chain(wires)
    head = wires[-1].hash if wires else "0" * 64
    good = [w for w in wires if problem is None or w.seq < problem.seq]
    records = [from_wire(w) for w in good]
    steps = list(replay(records, NARRATOR, links=links_of(records)))
    state = fold(records)
    participants = [  # the ST's notes are not for the table
        Participant(sheet.id, sheet.name, sheet.npc, r.seq, msgspec.structs.replace(sheet, notes=""))
        for r in records
        if isinstance(r.event, CharacterAdded) and (sheet := r.event.character)
    ]
    sections: list[Section] = [Section("The scene", [])]
    for step in steps:
        if step.type == "round_started":
            sections.append(Section(step.summary, []))
        sections[-1].steps.append(step)
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
        challenges=[_challenge(state, ch) for ch in sorted(state.challenges.values(), key=_declared)],
        disputes=list(state.disputes),
        rulings=list(state.rulings),
        names={who: c.name for who, c in state.characters.items()} | {NARRATOR: "the Narrator"},
        markers=markers(records),
    )


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
