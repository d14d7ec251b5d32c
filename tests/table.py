"""A table for domain tests: commands go through the pure ``decide``/``evolve`` and the log is
kept as records, so a test reads as given / when / then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from domain.commands import parse_command
from domain.context import Context, draws
from domain.decide import decide
from domain.errors import Rejected
from domain.events import SceneEvent
from domain.evolve import evolve, fold
from domain.log import GENESIS, Recorded, seal
from domain.state import Challenge, Character, Scene

T0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def entropy_for(*picks: int, among: int = 3) -> int:
    """A command entropy whose first draws pick ``picks`` from ``among`` options each (an index, or a
    die's face less one): found by search, so a test names the throws or dice it wants exactly and
    the server's one mechanism (``domain.context.draws``) stays the only one."""
    for entropy in range(among ** (len(picks) + 4)):
        drawn = draws(entropy)
        if all(next(drawn) % among == pick for pick in picks):
            return entropy
    raise AssertionError(f"no entropy below {among ** (len(picks) + 4)} draws {picks}")


def types(events: list[SceneEvent]) -> list[str]:
    return [event.type_name() for event in events]


def sheet(cid: str, physical: dict[str, int] | None = None, **fields: Any) -> dict[str, Any]:
    """A sheet with the given Traits (``physical`` as a shortcut)."""
    traits = fields.pop("traits", {})
    if physical:
        traits = {**traits, "physical": physical}
    return {"id": cid, "name": fields.pop("name", cid.capitalize()), "traits": traits, **fields}


class Table:
    def __init__(self, ruleset: str = "lotn", options: dict[str, Any] | None = None) -> None:
        self.state = Scene()
        self.log: list[Recorded] = []
        self.now = T0
        self.entropy = 0
        self._n = 0
        self.do("st", "open_scene", ruleset=ruleset, title="test", options=options or {})

    # -- commands -----------------------------------------------------------------------------

    def do(self, actor: str, verb: str, **fields: Any) -> list[SceneEvent]:
        """Apply one command; returns its events or raises ``Rejected``."""
        self._n += 1
        self.now += timedelta(seconds=1)
        body = {"id": f"c{self._n}", "scene": "s1", "actor": actor, "type": verb, **fields}
        command = parse_command(msgspec.json.encode(body))
        seq = fields.get("event") if verb in ("dispute", "rule") else None
        subject = self.log[seq - 1] if isinstance(seq, int) and 0 < seq <= len(self.log) else None
        events = decide(self.state, command, Context(now=self.now, entropy=self.entropy, subject=subject))
        for event in events:
            record, _ = seal(
                prev=self.log[-1].hash if self.log else GENESIS,
                seq=self.state.version + 1,
                scene="s1",
                at=self.now,
                actor=actor,
                command=command.id,
                event=event,
            )
            self.state = evolve(self.state, record)
            self.log.append(record)
        return events

    def refused(self, actor: str, verb: str, *, code: str, rule: str | None = None, **fields: Any) -> Rejected:
        """Assert the command is refused with ``code`` (and ``rule``), and nothing changed."""
        before, length = self.state, len(self.log)
        with pytest.raises(Rejected) as caught:
            self.do(actor, verb, **fields)
        assert caught.value.code == code, caught.value
        if rule is not None:
            assert caught.value.rule == rule, caught.value
        assert self.state is before and len(self.log) == length
        return caught.value

    def tick(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    # -- shortcuts ----------------------------------------------------------------------------

    def add(self, cid: str, physical: dict[str, int] | None = None, **fields: Any) -> None:
        self.do("st", "add_character", character=sheet(cid, physical, **fields))

    def contest(
        self,
        cid: str,
        challenger: str,
        target: str,
        bid: str,
        answer: str,
        category: str = "physical",
        **extra: Any,
    ) -> None:
        """Declare a contested challenge and have the target answer."""
        self.do(
            challenger,
            "declare",
            challenge=cid,
            kind="contested",
            targets=[target],
            category=category,
            bid=[bid],
            **extra,
        )
        self.do(target, "bid", challenge=cid, bid=[answer])

    def test(self, cid: str, challenger_sign: str, defender_sign: str) -> list[SceneEvent]:
        """Both sides throw (sealed), challenger first."""
        ch = self.challenge(cid)
        self.do(ch.challenger.who, "throw", challenge=cid, sign=challenger_sign)
        return self.do(ch.defender.who, "throw", challenge=cid, sign=defender_sign)

    def challenge(self, cid: str) -> Challenge:
        return self.state.challenges[cid]

    def character(self, who: str) -> Character:
        return self.state.characters[who]

    def lost(self, who: str) -> list[str]:
        return self.character(who).lost_names

    def seq_of(self, event_type: str, challenge: str | None = None) -> int:
        """The seq of the last event of this type (in this challenge)."""
        return next(
            r.seq
            for r in reversed(self.log)
            if r.type == event_type and (challenge is None or getattr(r.event, "challenge", None) == challenge)
        )

    def replayed(self) -> Scene:
        return fold(self.log)
