"""Scenes no one watches cost no task (``server.room``, ``server.hub``): a room with no subscriber
and no job ends its task after ``LINGER`` and sleeps, its state held; every kind of job wakes it,
and what it then does is what it would have done awake; a room asleep for ``idle_after`` is
unloaded by the hub's one sweep, and loads again on its next job."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from clients.client import Client
from domain.commands import parse_command
from domain.evolve import fold
from server import hub as hub_module
from server.app import Running, running
from server.backend import open_backend
from server.hub import Hub
from server.service import SceneService
from server.store import SqliteStore
from server.wire import Limits
from tests.live.conftest import at_version, seed
from tests.live.test_deadlines_live import lapsed, passed, sound
from tests.live.test_deadlines_live import seed as seed_deadline

pytestmark = pytest.mark.anyio

WAIT = 10.0
"""Seconds any wait for a room to fall asleep or unload may take at most."""
UNLIMITED = Limits(rate=100_000, burst=100_000)


def adjust(n: int | str, scene: str = "s1") -> dict[str, Any]:
    return {"type": "adjust", "character": "sam", "changes": {"willpower": 1}, "reason": str(n), "scene": scene}


def room_tasks(scene: str) -> list[asyncio.Task[Any]]:
    return [task for task in asyncio.all_tasks() if task.get_name() == f"room {scene}"]


async def asleep(live: Running, *scenes: str) -> None:
    """Wait (bounded) until each scene's room is loaded and its task has ended."""
    with anyio.fail_after(WAIT):
        while not all(scene in live.hub.rooms and not live.hub.rooms[scene].running for scene in scenes):
            await anyio.sleep(0.01)
    for scene in scenes:
        assert room_tasks(scene) == []
        assert live.hub.service.cached(scene) is not None  # its state is held


def logged(store: Any, scene: str = "s1") -> list[str]:
    """The reasons of the scene's adjustments, in the log's order."""
    return [record.event.reason for record in store.read(scene) if hasattr(record.event, "reason")]


async def test_idle_loaded_scenes_keep_no_task() -> None:
    """A hundred scenes loaded and left: each room's task ends, their states stay held, and the
    server runs one task more than with none loaded (the sweep that will unload them)."""
    backend = open_backend(None)
    for n in range(100):
        seed(backend, f"s{n}")
    async with running(backend) as live:
        await anyio.sleep(0.1)
        before = len(asyncio.all_tasks())
        for n in range(100):
            await live.hub.state(f"s{n}")
        await asleep(live, *(f"s{n}" for n in range(100)))
        assert len(live.hub.rooms) == 100 and live.hub.awake == 0
        assert len(asyncio.all_tasks()) <= before + 2, "a task per room"  # the sweep (and perhaps a passing job)


async def test_a_watched_scene_keeps_its_task_and_sleeps_when_the_last_leaves(backend: Any) -> None:
    """A room with a subscriber waits for jobs however long; once the last subscriber leaves, it
    sleeps."""
    token, _ = backend.tokens.issue("s1", "st")
    async with running(backend) as live:
        async with Client(live.url, token) as st:
            await st.subscribe()
            await anyio.sleep(1.5)  # past the linger: a watched room stays awake
            assert live.hub.rooms["s1"].running and len(room_tasks("s1")) == 1
        await asleep(live, "s1")


async def test_a_sleeping_scene_wakes_for_each_job_as_if_it_never_slept(backend: Any) -> None:
    """A ``state`` read, a command, a join and a departure each wake the sleeping room; each is
    answered as an awake room would answer it, and the room sleeps again after it."""
    token, _ = backend.tokens.issue("s1", "st")
    async with running(backend) as live:
        state = await live.hub.state("s1")
        await asleep(live, "s1")
        assert (await live.hub.state("s1")) is state  # the same state, held while asleep
        await asleep(live, "s1")
        async with Client(live.url, token) as st:
            result = await st.send(adjust("a"))
            assert result["ok"] and result["version"] == state.version + 1
            await asleep(live, "s1")  # a connection that does not subscribe does not keep it awake
            await st.subscribe(0)
            view = await at_version(st, state.version + 1)
            assert view["characters"]["sam"]["willpower"] == 3
            assert live.hub.rooms["s1"].subscribers
            result = await st.send(adjust("b"))
            assert result["version"] == state.version + 2
            await at_version(st, state.version + 2)
        await asleep(live, "s1")
        assert live.hub.rooms["s1"].subscribers == []
        assert live.hub.service.cached("s1") == fold(list(backend.store.read("s1")))


@pytest.mark.parametrize("idle_after", [300.0, 0.0], ids=["asleep", "unloaded"])
async def test_a_flood_to_a_scene_that_keeps_falling_asleep_loses_nothing(
    backend: Any, monkeypatch: pytest.MonkeyPatch, idle_after: float
) -> None:
    """With no linger at all (and, unloaded: unloaded as soon as it sleeps), the room's task ends
    whenever its inbox is empty, so jobs keep arriving while it ends: four senders, each sending its
    commands one after another, and a burst of 2,000 posted at once (more than the inbox holds)
    are all committed, each sender's in its order and the burst in its order."""
    monkeypatch.setattr(hub_module, "LINGER", 0.0)
    async with running(backend, idle_after=idle_after, limits=UNLIMITED) as live:
        wakes = 0
        woke = live.hub._woke

        def counted(room: Any) -> None:
            nonlocal wakes
            wakes += 1
            woke(room)

        monkeypatch.setattr(live.hub, "_woke", counted)

        async def sender(k: int) -> None:
            for n in range(50):
                done = await live.hub.submit(command(f"{k}-{n}"))
                assert done.error is None, done.error
                await anyio.sleep(0.001 * (n % 3))

        async def one(n: int) -> None:
            done = await live.hub.submit(command(f"burst-{n}"))
            assert done.error is None, done.error

        with anyio.fail_after(60):  # a job lost in a hand-over leaves its sender waiting for ever
            async with anyio.create_task_group() as tg:
                for k in range(4):
                    tg.start_soon(sender, k)
                await anyio.sleep(0.05)
                for n in range(2000):
                    tg.start_soon(one, n)
    reasons = logged(backend.store)
    assert len(reasons) == len(set(reasons)) == 4 * 50 + 2000
    for prefix in ("0-", "1-", "2-", "3-"):
        assert [r for r in reasons if r.startswith(prefix)] == [f"{prefix}{n}" for n in range(50)]
    assert [r for r in reasons if r.startswith("burst-")] == [f"burst-{n}" for n in range(2000)]
    assert wakes > 10  # the hand-over was exercised, again and again


def command(reason: str) -> Any:
    return parse_command(msgspec.json.encode({"id": reason, "actor": "st", **adjust(reason)}))


async def test_scenes_asleep_for_long_are_unloaded_by_one_sweep_and_load_again(backend: Any) -> None:
    """Rooms asleep past ``idle_after`` are unloaded (their states forgotten) by the hub's one
    sweep, which ends once no room sleeps; the next command loads the scene again and goes on from
    its log's end."""
    for n in range(1, 20):
        seed(backend, f"s{n}")
    scenes = [f"s{n}" for n in range(20)]
    async with running(backend, idle_after=0.3) as live:
        for scene in scenes:
            await live.hub.state(scene)
        with anyio.fail_after(WAIT):
            while live.hub.rooms or live.hub._sweeping:
                await anyio.sleep(0.01)
        assert all(live.hub.service.cached(scene) is None for scene in scenes)
        assert [t for t in asyncio.all_tasks() if t.get_name() == "idle rooms"] == []
        version = backend.store.head("s3")[0]
        done = await live.hub.submit(_adjust_in("s3", "again"))
        assert done.error is None and done.records[0].seq == version + 1
        assert "s3" in live.hub.rooms


def _adjust_in(scene: str, reason: str) -> Any:
    return parse_command(msgspec.json.encode({"id": reason, "actor": "st", **adjust(reason, scene)}))


async def test_a_sleeping_scene_fires_its_deadline() -> None:
    """Sam throws and leaves; Juan's time runs on while the room sleeps (its state held, no task):
    the alarm wakes it and the lapse is appended once."""
    backend = open_backend(None)
    seed_deadline(backend, "s1", "act", 6)
    sam_token, _ = backend.tokens.issue("s1", "player", "sam")
    async with running(backend) as live:
        async with Client(live.url, sam_token) as sam:
            assert (await sam.send({"type": "throw", "challenge": "c", "sign": "rock"}))["ok"]
        await asleep(live, "s1")
        assert passed(list(backend.store.read("s1"))) == []  # asleep before its time
        (lapse,) = passed(await lapsed(backend, "s1"))
        assert "s1" in live.hub.rooms  # woken, not loaded again
        await anyio.sleep(0.5)
    assert passed(sound(backend, "s1")) == [lapse]


@pytest.mark.parametrize("heard", [True, False], ids=["announced", "announcement-lost"])
async def test_a_sleeping_scene_sees_another_processs_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, heard: bool
) -> None:
    """Another process appends to a scene whose room sleeps here. Heard (the feed): the room wakes,
    takes what was appended and sleeps again. Not heard (its announcement lost): its state is
    stale while it sleeps. Either way, a subscriber joining sees the other process's commits, and
    a command is decided on the log's end."""
    if not heard:
        monkeypatch.setattr(Hub, "_heard", lambda self, scene, seq: None)
    db = str(tmp_path / "j.db")
    backend = open_backend(db)
    seed(backend)
    token, _ = backend.tokens.issue("s1", "st")
    other = SceneService(SqliteStore(Path(db)))
    try:
        async with running(backend) as live:
            start = (await live.hub.state("s1")).version
            await asleep(live, "s1")
            for n in range(3):
                body = {"id": f"other-{n}", "actor": "st", **adjust(f"other-{n}")}
                assert other.handle(parse_command(msgspec.json.encode(body))).error is None
            if heard:
                with anyio.fail_after(WAIT):
                    while live.hub.service.cached("s1").version < start + 3:  # type: ignore[union-attr]
                        await anyio.sleep(0.01)
                await asleep(live, "s1")
            else:
                await anyio.sleep(0.2)
                assert live.hub.service.cached("s1").version == start  # type: ignore[union-attr]
            async with Client(live.url, token) as st:
                await st.subscribe(start)
                view = await at_version(st, start + 3)
                assert view["characters"]["sam"]["willpower"] == 5
                result = await st.send(adjust("here"))
                assert result["ok"] and result["version"] == start + 4
        assert logged(backend.store)[-4:] == ["other-0", "other-1", "other-2", "here"]
    finally:
        other.store.close()
        backend.close()


async def test_a_sleeping_scene_wakes_for_a_nights_follow_up() -> None:
    """The night sends Sam into the bar while the bar's room sleeps: the night's follow-up (his
    arrival) wakes it, and he is there, once."""
    from tests.night.table import SAM

    backend = open_backend(None)
    token = backend.tokens.issue("g1", "st")[0]
    async with running(backend) as live, Client(live.url, token) as st:
        for scene, verb, fields in [
            ("g1", "open_game", {"ruleset": "lotn", "title": "Friday at Elysium"}),
            ("g1", "register_character", {"character": SAM}),
            ("bar", "open_scene", {"ruleset": "lotn", "title": "The bar", "game": "g1"}),
        ]:
            assert (await st.send({"type": verb, "scene": scene, **fields}))["ok"]
        await asleep(live, "bar")
        before = live.hub.service.cached("bar")
        assert before is not None and "sam" not in before.characters
        assert (await st.send({"type": "move_character", "scene": "g1", "character": "sam", "to": "bar"}))["ok"]
        with anyio.fail_after(WAIT):
            while "sam" not in live.hub.service.cached("bar").characters:  # type: ignore[union-attr]
                await anyio.sleep(0.01)
        await asleep(live, "bar")
        assert live.hub.service.cached("bar") == fold(list(backend.store.read("bar")))
    arrivals = [r for r in backend.store.read("bar") if type(r.event).__name__ == "CharacterEntered"]
    assert len(arrivals) == 1, [type(r.event).__name__ for r in backend.store.read("bar")]
