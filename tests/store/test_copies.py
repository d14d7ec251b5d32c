"""Forks and imports written in steps (``server.store.base.copy_steps``), the same on every
backend: the copy is exactly what one transaction wrote before (every record, hash and command
id); a copy cut off half-way leaves a scene nobody can read, list or append to, and a retry with
the same name completes it; a name held by a dead copy of something else is refused."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from benchmarks.scenes import brawl
from domain.events import SceneOpened
from domain.log import GENESIS, Wire, check_chain
from server.backend import Backend
from server.history import fork, fork_wires
from server.store import ConcurrencyConflict, EventStore, StorageUnavailable, StoreError
from server.store.base import STEP, command_spans, copy_steps, first_problem
from tests.store.conftest import KINDS

AT = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)
every_backend = pytest.mark.parametrize("where", KINDS, indirect=True)


def clock() -> datetime:
    return AT


@pytest.fixture(scope="module")
def long_scene() -> list[Wire]:
    """A brawl of more than two steps' records, as stored."""
    memory, _ = brawl(2 * STEP + 60, scene="long")
    return list(memory.read_wire("long"))


@pytest.fixture
def store(backend: Backend, long_scene: list[Wire]) -> EventStore:
    """The backend's store holding the long scene (imported: itself in steps)."""
    backend.store.import_wires("long", long_scene)
    return backend.store


def commands_of(store: EventStore, scene: str, wires: list[Wire]) -> list[tuple[str, str, str, int, int] | None]:
    """Each command of ``wires`` as the store keeps it: digest, first and last seq."""
    found = []
    for actor, command, _, _ in command_spans(wires):
        kept = store.command(scene, actor, command)
        found.append(kept and (kept.actor, kept.id, kept.digest, kept.first_seq, kept.last_seq))
    return found


def written_whole(store: EventStore, scene: str, wires: list[Wire], digests: dict[tuple[str, str], str]) -> None:
    """What one transaction wrote before: every record as given, each command once with its span
    and digest (``command_spans``)."""
    assert list(store.read_wire(scene)) == wires
    assert store.head(scene) == (wires[-1].seq, wires[-1].hash)
    expected = [
        (actor, command, digests.get((actor, command), ""), first, last)
        for actor, command, first, last in command_spans(wires)
    ]
    assert commands_of(store, scene, wires) == expected
    assert store.acknowledged(scene) == wires[-1].seq
    assert first_problem(store, scene) is None and check_chain(store.read_wire(scene)) is None


def absent(store: EventStore, scene: str, wires: list[Wire]) -> None:
    """Nobody sees the scene: no head, no records, no commands, not listed."""
    assert store.head(scene) == (0, GENESIS)
    assert list(store.read_wire(scene)) == [] and list(store.read(scene)) == [] and list(store.rows(scene)) == []
    assert scene not in store.scenes()
    assert set(commands_of(store, scene, wires)) == {None}
    assert store.acknowledged(scene) == 0 and store.digests(scene, 10**9) == {}


def cut_after(store: EventStore, steps: int) -> Callable[[], None]:
    """Make the store's writes of copies fail (a full disk) after ``steps`` more steps; returns the
    undo."""
    real = store.write_step
    left = [steps]

    def failing(scene: str, owner: str, step: object) -> None:
        if left[0] == 0:
            raise StorageUnavailable("the database could not be written or read: database or disk is full")
        left[0] -= 1
        real(scene, owner, step)  # type: ignore[arg-type]

    store.write_step = failing  # type: ignore[method-assign]
    return lambda: setattr(store, "write_step", real)


@every_backend
class TestCopies:
    def test_a_fork_in_steps_is_the_fork_of_one_transaction(self, store: EventStore, long_scene: list[Wire]) -> None:
        """A fork of 2xx events (three steps) holds every record fork_wires made, byte for byte,
        each command once with its whole span and digest, then scene_forked; the original is as it
        was."""
        at = len(long_scene) - 5
        wires, digests = fork_wires(store, "long", at, "what-if", clock)
        version = fork(store, "long", at, "what-if", clock)
        assert version == at + 1 and wires[-1].type == "scene_forked"
        written_whole(store, "what-if", wires, digests)
        assert list(store.read_wire("long")) == long_scene
        assert store.scenes() == ["long", "what-if"]

    def test_small_steps_split_commands_and_still_write_each_once(
        self, store: EventStore, long_scene: list[Wire]
    ) -> None:
        """Steps of 7 records cut commands of several events in two: each is still kept once, with
        its first and last seq."""
        wires, digests = fork_wires(store, "long", 250, "small", clock)
        steps = list(copy_steps("small", wires, digests, size=7))
        assert len(steps) == 36 and any(
            step.wires[0].command == steps[n - 1].wires[-1].command for n, step in enumerate(steps) if n
        )
        for step in steps:
            store.write_step("small", "me", step)
        written_whole(store, "small", wires, digests)

    def test_a_copy_cut_off_half_way_is_absent_and_a_retry_completes_it(
        self, store: EventStore, long_scene: list[Wire]
    ) -> None:
        """The disk fills after two steps of a fork: the fork fails and its scene is nowhere (no
        head, records, commands; not listed) and refuses an append opening it; the same fork again
        completes it (the same records as a fork never cut off)."""
        at = len(long_scene)
        wires, digests = fork_wires(store, "long", at, "cut", clock)
        undo = cut_after(store, 2)
        with pytest.raises(StorageUnavailable):
            fork(store, "long", at, "cut", clock)
        undo()
        absent(store, "cut", wires)
        with pytest.raises(ConcurrencyConflict):
            store.append("cut", 0, [SceneOpened(ruleset="lotn")], command="o", digest="", actor="st", at=AT)
        absent(store, "cut", wires)
        assert fork(store, "long", at, "cut", clock) == at + 1
        written_whole(store, "cut", wires, digests)
        assert list(store.read_wire("long")) == long_scene

    def test_an_import_cut_off_is_absent_and_completed_by_importing_again(
        self, backend: Backend, long_scene: list[Wire]
    ) -> None:
        """The same for an import: the file imported again goes on where the first stopped."""
        store = backend.store
        undo = cut_after(store, 1)
        with pytest.raises(StorageUnavailable):
            store.import_wires("long", long_scene)
        undo()
        absent(store, "long", long_scene)
        store.import_wires("long", long_scene)
        written_whole(store, "long", long_scene, {})

    def test_a_name_held_by_an_unfinished_copy_of_other_events_is_refused(
        self, store: EventStore, long_scene: list[Wire]
    ) -> None:
        """A fork of another point past the cut one's records, into the name a dead fork holds, is
        refused naming why, and writes nothing; the dead fork's own retry still completes."""
        wires, digests = fork_wires(store, "long", 2 * STEP, "held", clock)
        undo = cut_after(store, 1)
        with pytest.raises(StorageUnavailable):
            fork(store, "long", 2 * STEP, "held", clock)
        undo()
        with pytest.raises(StoreError, match="unfinished copy of other events"):
            fork(store, "long", 20, "held", clock)
        absent(store, "held", wires)
        fork(store, "long", 2 * STEP, "held", clock)
        written_whole(store, "held", wires, digests)

    def test_a_copy_taken_over_fails_at_its_next_step(self, store: EventStore, long_scene: list[Wire]) -> None:
        """Two copies into one name: the later takes the unfinished copy over and completes it;
        the earlier's next step is refused and writes nothing."""
        wires, digests = fork_wires(store, "long", len(long_scene), "twice", clock)
        earlier = list(copy_steps("twice", wires, digests))
        store.write_step("twice", "earlier", earlier[0])
        later = secrets.token_hex(4)
        for step in copy_steps("twice", wires, digests, store.resume("twice", wires)):
            store.write_step("twice", later, step)
        with pytest.raises(ConcurrencyConflict):
            store.write_step("twice", "earlier", earlier[1])
        written_whole(store, "twice", wires, digests)

    def test_a_copy_into_a_scene_with_events_is_refused(self, store: EventStore, long_scene: list[Wire]) -> None:
        """A scene that exists is never written by a copy, even one whose records begin as it does."""
        with pytest.raises(StoreError, match="already has events"):
            store.import_wires("long", long_scene)
        (step,) = copy_steps("long", long_scene[:40], size=40)
        with pytest.raises(StoreError, match="already has events"):
            store.write_step("long", "me", step)
        assert list(store.read_wire("long")) == long_scene


@pytest.mark.parametrize("where", ["sqlite", "postgres"], indirect=True)
def test_another_process_sees_no_half_fork_and_completes_it(
    where: str, store: EventStore, opened: Callable[..., Backend], long_scene: list[Wire]
) -> None:
    """A fork cut off in one process: the database opened anew (another process, or the server
    restarted) shows no trace of it, and the fork made there completes it."""
    at = len(long_scene) - 1
    wires, digests = fork_wires(store, "long", at, "cut", clock)
    undo = cut_after(store, 2)
    with pytest.raises(StorageUnavailable):
        fork(store, "long", at, "cut", clock)
    undo()
    other = opened(where).store
    absent(other, "cut", wires)
    assert other.scenes() == ["long"]
    fork(other, "long", at, "cut", clock)
    written_whole(other, "cut", wires, digests)
    written_whole(store, "cut", wires, digests)
