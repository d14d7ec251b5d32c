"""The command path: idempotency by command id, refusals that append nothing, the shell's dice."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from domain.commands import parse_command
from domain.deadlines import running
from domain.evolve import fold
from server.service import Result, SceneService
from server.store import ConcurrencyConflict, MemoryStore, SqliteStore


def cmd(cid: str, actor: str, verb: str, **fields: Any) -> Any:
    return parse_command(msgspec.json.encode({"id": cid, "scene": "s1", "actor": actor, "type": verb, **fields}))


def handle(service: SceneService, command: Any) -> Result:
    return service.handle(command).result()


@pytest.fixture
def service() -> SceneService:
    s = SceneService(MemoryStore(), clock=lambda: datetime(2026, 11, 29, 20, 0, tzinfo=UTC), entropy=lambda: 1)
    assert handle(s, cmd("o", "st", "open_scene", ruleset="lotn")).ok
    for who in ("a", "b"):
        sheet = {"id": who, "name": who.upper(), "traits": {"physical": {"Brawny": 2}}}
        assert handle(s, cmd(f"add-{who}", "st", "add_character", character=sheet)).ok
    return s


class TestIdempotency:
    def test_same_id_same_body_returns_the_first_result(self, service: SceneService) -> None:
        """A command re-sent with its id gets its first result and appends nothing."""
        declare = cmd(
            "x1",
            "a",
            "declare",
            challenge="c",
            kind="contested",
            targets=["b"],
            category="physical",
            bid=["Brawny"],
        )
        first = handle(service, declare)
        again = handle(service, declare)
        assert first.ok and again == first
        assert service.store.head("s1")[0] == 4

    def test_same_id_other_body_is_refused(self, service: SceneService) -> None:
        """The same id with another body is ``id_reused`` and appends nothing."""
        handle(
            service,
            cmd(
                "x1",
                "a",
                "declare",
                challenge="c",
                kind="contested",
                targets=["b"],
                category="physical",
                bid=["Brawny"],
            ),
        )
        result = handle(service, cmd("x1", "a", "remove_character", character="b"))
        assert not result.ok and result.error is not None and result.error.code == "id_reused"
        assert service.store.head("s1")[0] == 4

    def test_ids_are_kept_per_actor(self, service: SceneService) -> None:
        """Another actor's command with the same id is its own command: ids are scoped by actor,
        so no one can take another's id first (and make its command fail)."""
        declare = {"challenge": "c", "kind": "contested", "category": "physical", "bid": ["Brawny"]}
        first = handle(service, cmd("x1", "a", "declare", targets=["b"], **declare))
        other = handle(service, cmd("x1", "b", "declare", **{**declare, "challenge": "d"}, targets=["a"]))
        assert first.ok and other.ok and other.version == 5
        assert handle(service, cmd("x1", "a", "declare", targets=["b"], **declare)) == first

    def test_server_ids_cannot_be_taken(self) -> None:
        """An id starting with ``~`` is the server's own (its automatic throws): a client's is malformed."""
        with pytest.raises(msgspec.ValidationError, match="regex"):
            cmd("~auto-c-1-guard", "st", "throw", challenge="c", sign="rock")

    def test_a_lost_command_row_cannot_double_a_command(self, tmp_path: Path) -> None:
        """The events' own hash-chained ``command`` field is checked when the commands table has no
        row: a re-sent id whose row was deleted gets its first result, and nothing is appended twice."""
        store = SqliteStore(tmp_path / "j.db")
        sheet = {"id": "a", "name": "A", "traits": {"physical": {"Brawny": 2}}}
        service = SceneService(store, clock=lambda: datetime(2026, 11, 29, 20, 0, tzinfo=UTC), entropy=lambda: 1)
        assert handle(service, cmd("o", "st", "open_scene", ruleset="lotn")).ok
        added = handle(service, cmd("a1", "st", "add_character", character=sheet))
        store.db.conn.execute("DELETE FROM commands WHERE id = 'a1'")
        again = handle(service, cmd("a1", "st", "add_character", character=sheet))
        assert again == added and store.head("s1")[0] == 2
        with pytest.raises(ConcurrencyConflict):
            store.append("s1", 2, [], command="a1", digest="", actor="st", at=datetime(2026, 11, 29, 21, 0, tzinfo=UTC))

    def test_refused_command_appends_nothing(self, service: SceneService) -> None:
        """A refusal says why, cites the rule, and leaves the log as it was."""
        result = handle(
            service,
            cmd(
                "x1",
                "a",
                "declare",
                challenge="c",
                kind="contested",
                targets=["b"],
                category="physical",
                bid=["Brawny", "Brawny"],
            ),
        )
        assert result.error is not None and (result.error.code, result.error.rule) == (
            "one_bid",
            "lotn:initial-bid",
        )
        assert service.store.head("s1")[0] == 3
        assert service.store.command("s1", "a", "x1") is None

    def test_random_throws_use_the_shells_draws(self, service: SceneService) -> None:
        """``random`` is drawn by the shell and kept in the event."""
        handle(
            service,
            cmd(
                "x1",
                "a",
                "declare",
                challenge="c",
                kind="contested",
                targets=["b"],
                category="physical",
                bid=["Brawny"],
            ),
        )
        handle(service, cmd("x2", "b", "bid", challenge="c", bid=["Brawny"]))
        result = handle(service, cmd("x3", "a", "throw", challenge="c", sign="random"))
        assert result.events is not None
        data = msgspec.json.decode(bytes(result.events[0].data))
        assert data["sign"] == "paper" and data["random"] is True

    def test_live_clock_ignores_at(self, service: SceneService) -> None:
        """Live, the server's clock stamps events; ``at`` counts only offline."""
        result = handle(service, cmd("x1", "st", "remove_character", character="a", at="2030-01-01T00:00:00Z"))
        assert result.events is not None and result.events[0].at == "2026-11-29T20:00:00Z"


def test_live_clock_never_runs_behind_the_log(service: SceneService) -> None:
    """A scene whose last event is dated ahead of the clock (a loaded script) still takes live
    commands, stamped no earlier than that event."""
    offline = SceneService(service.store, honour_at=True)
    ahead = cmd("x0", "st", "adjust", character="a", changes={"willpower": 1}, reason="r", at="2026-12-01T00:00:00Z")
    assert offline.handle(ahead).result().ok
    service.forget("s1")
    result = handle(service, cmd("x1", "st", "remove_character", character="b"))
    assert result.ok and result.events is not None and result.events[0].at == "2026-12-01T00:00:00Z"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_a_group_hands_on_the_state_its_log_folds_to(anyio_backend: str) -> None:
    """Commands committed together, in a scene with response deadlines (folded ahead of the append
    for the alarms' index): each result carries the state the log folds to up to its last event,
    which the service then holds (a room pushes from it rather than fold it again); a refused
    command in the group changes none of it."""
    s = SceneService(MemoryStore(), clock=lambda: datetime(2026, 11, 29, 20, 0, tzinfo=UTC), entropy=lambda: 1)
    timed = {"deadlines": {"throw": {"seconds": 60, "lapse": "act"}, "answer": {"seconds": 120}}}
    assert handle(s, cmd("o", "st", "open_scene", ruleset="lotn", options=timed)).ok
    for who in ("a", "b"):
        sheet = {"id": who, "name": who.upper(), "traits": {"physical": {"Brawny": 2}}}
        assert handle(s, cmd(f"add-{who}", "st", "add_character", character=sheet)).ok
    declare = cmd(
        "d", "a", "declare", challenge="c", kind="contested", targets=["b"], category="physical", bid=["Brawny"]
    )
    group = [
        declare,
        cmd("w", "st", "adjust", character="a", changes={"willpower": -99}, reason="refused"),
        cmd("b", "b", "bid", challenge="c", bid=["Brawny"]),
        cmd("t", "a", "throw", challenge="c", sign="rock"),
    ]
    handled = await s.submit_many(group)
    assert [h.fresh for h in handled] == [True, False, True, True]
    log = list(s.store.read("s1"))
    for h in handled:
        if h.fresh:
            assert h.state is not None and h.state == fold(log[: h.records[-1].seq])
    assert handled[-1].state is s.state("s1")
    assert [d.key for d in running(s.state("s1"))] == ["throw:c:0.0:b"]
