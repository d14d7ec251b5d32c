"""Snapshots a server can trust, on SQLite and PostgreSQL alike, and one for every long scene.

A long scene loads from its latest snapshot the server signed (``server.snapshot_keys``) and the
events after it. A snapshot rewritten in the database (Willpower 5 to 99, its digest recomputed, or
signed with another key) or with a byte flipped is passed over for an older one, or the log: never
served, and never a reason to stop its scene, so a Storyteller spending Willpower gets only what
the log allows and the log holds nothing illegal. What a load from a snapshot took on trust (the log
before it) is still checked beside the room: an event edited there stops the scene, naming it, as a
load from the log would. And a long scene written without snapshots (``justicar play``,
``import``, an older version) gets one: at the end of ``play`` or ``import``, else at its first
load, so that the first join after a restart folds no long log.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from benchmarks.scenes import brawl
from domain.commands import AnyCommand
from domain.evolve import fold_rows
from domain.log import Wire
from server import snapshots
from server.app import running
from server.backend import Backend, open_backend
from server.room import Room
from server.service import Loaded, SceneService
from server.snapshot_keys import read_keys
from server.snapshots import WORTH
from server.store import MemoryStore
from server.wire import Limits
from tests.live.faults import adjust, cli, peer
from tests.store.conftest import raw

pytestmark = pytest.mark.anyio

UNLIMITED = Limits(rate=10_000, burst=10_000)
SCENE = "long"


@dataclass
class Played:
    """A long brawl played in memory: its log, and the commands that made it (a script)."""

    wires: list[Wire]
    script: list[bytes]


class _Recording(SceneService):
    """A service that keeps every command it is given, as a script line."""

    script: list[bytes]

    def handle(self, command: AnyCommand) -> Any:
        self.script.append(msgspec.json.encode(command))
        return super().handle(command)


@pytest.fixture(scope="module")
def played() -> Played:
    service = _Recording(MemoryStore(), honour_at=True)
    service.script = []
    brawl(WORTH + 600, scene=SCENE, service=service)
    return Played(list(service.store.read_wire(SCENE)), service.script)


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "j.db")
    return str(request.getfixturevalue("postgres_db"))


@pytest.fixture
def backend(where: str) -> Iterator[Backend]:
    opened = open_backend(where)
    yield opened
    opened.close()


def command_ends(wires: list[Wire]) -> list[int]:
    """The events that end a command (where the server takes its snapshots)."""
    return [
        w.seq for w, after in zip(wires, [*wires[1:], None], strict=True) if after is None or after.command != w.command
    ]


@dataclass
class Long:
    """The long scene in a database: its snapshots (an older and the latest), and a character."""

    older: int
    latest: int
    who: str


def with_snapshots(backend: Backend, played: Played) -> Long:
    """The long scene imported, with two snapshots the server signed, both worth loading from."""
    backend.store.import_wires(SCENE, played.wires)
    ends = command_ends(played.wires)
    older = max(e for e in ends if e <= WORTH + 100)
    latest = max(e for e in ends if e <= len(played.wires) - 50)
    assert backend.snapshots is not None
    for version in (older, latest):
        backend.snapshots.save(
            fold_rows(SCENE, backend.store.rows(SCENE, upto=version)), played.wires[version - 1].hash
        )
    who = next(iter(fold_rows(SCENE, backend.store.rows(SCENE)).characters))
    return Long(older, latest, who)


def forge(where: str, long: Long, fault: str, keys: Path) -> None:
    """Rewrite the latest snapshot in the database as an attacker who cannot read the key file."""
    ((at_hash, blob),) = raw(
        where, "SELECT hash, state FROM snapshots WHERE scene = ? AND version = ?", (SCENE, long.latest)
    )
    blob = bytes(blob)  # type: ignore[call-overload]
    if fault == "a byte flipped":
        middle = len(blob) // 2
        raw(
            where,
            "UPDATE snapshots SET state = ? WHERE scene = ? AND version = ?",
            (blob[:middle] + bytes([blob[middle] ^ 0x20]) + blob[middle + 1 :], SCENE, long.latest),
        )
        return
    state = snapshots.decode(blob)
    c = state.characters[long.who]
    forged = snapshots.encode(
        msgspec.structs.replace(
            state, characters=state.characters.set(long.who, msgspec.structs.replace(c, willpower=99))
        )
    )
    if fault == "forged, its digest recomputed":
        signed = hashlib.sha256(forged).hexdigest()
    else:  # signed with a key of the forger's own
        elsewhere = read_keys(str(keys / "elsewhere.key"))
        signed = elsewhere.sign(snapshots.signed_header(SCENE, long.latest, str(at_hash)), forged)
    raw(
        where,
        "UPDATE snapshots SET state = ?, digest = ? WHERE scene = ? AND version = ?",
        (forged, signed, SCENE, long.latest),
    )


def spend(command_id: str, who: str) -> dict[str, Any]:
    """The Storyteller takes one Willpower from ``who`` (refused below 0)."""
    return {"type": "adjust", "id": command_id, "character": who, "changes": {"willpower": -1}, "reason": command_id}


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Loaded]:
    """What each load of a scene by a room started from (``SceneService.loaded``)."""
    seen: list[Loaded] = []
    loaded = SceneService.loaded

    def recorded(self: SceneService, scene: str) -> Loaded:
        seen.append(loaded(self, scene))
        return seen[-1]

    monkeypatch.setattr(SceneService, "loaded", recorded)
    return seen


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> anyio.Event:
    """Set once a room's check of what its load took on trust has ended (``Room._distrust``)."""
    ended = anyio.Event()
    distrust = Room._distrust

    async def watched(self: Room, *args: Any) -> None:
        try:
            await distrust(self, *args)
        finally:
            ended.set()

    monkeypatch.setattr(Room, "_distrust", watched)
    return ended


FORGERIES = ["forged, its digest recomputed", "forged, signed with another key", "a byte flipped"]


@pytest.mark.parametrize("fault", FORGERIES)
async def test_a_forged_snapshot_is_never_served(
    where: str, backend: Backend, played: Played, fault: str, loads: list[Loaded], checked: anyio.Event, tmp_path: Path
) -> None:
    """The Storyteller takes Willpower from a character one point at a time, past what she has:
    exactly what the log allows is accepted, the rest refused; the scene is still served once the
    check beside the room is done; the log ends with her Willpower at 0, never below."""
    long = with_snapshots(backend, played)
    forge(where, long, fault, tmp_path)
    real = fold_rows(SCENE, backend.store.rows(SCENE)).characters[long.who].willpower
    token = backend.tokens.issue(SCENE, "st")[0]
    async with running(backend, limits=UNLIMITED) as live, peer(live.url, token) as st:
        results = [await st.command(spend(f"spend-{n}", long.who)) for n in range(real + 5)]
        assert [r["ok"] for r in results] == [True] * real + [False] * 5, results
        assert {r["error"]["code"] for r in results[real:]} == {"bad_adjustment"}
        assert "willpower would fall below 0 (it is 0)" in results[-1]["error"]["message"]
        await st.send({"type": "subscribe", "since": len(played.wires) + real})
        await st.wait(lambda m: m["type"] == "subscribed", "the subscription", 60)  # told if the scene stops
        with anyio.fail_after(60):
            await checked.wait()  # what the load took on trust has been checked beside the room
        again = await st.command(adjust("still-served", long.who))
        assert again["ok"], again
        assert st.errors() == [] and not st.closed.is_set()
        assert [load.start for load in loads] == [long.older]  # the older snapshot, signed and sound
    state = fold_rows(SCENE, backend.store.rows(SCENE))
    assert state.characters[long.who].willpower == 1
    assert state.version == len(played.wires) + real + 1  # nothing else was appended


async def test_a_log_edited_before_the_snapshot_stops_its_scene(where: str, backend: Backend, played: Played) -> None:
    """An event edited before the snapshot the scene was loaded from: the check beside the room
    finds it and stops the scene naming it (as a load from the log would), the scene's snapshots are
    dropped, and the next load, from the log, is refused naming the same event."""
    long = with_snapshots(backend, played)
    raw(where, "UPDATE events SET data = replace(data, 'Brawny', 'Brawnie') WHERE scene = ? AND seq = 3", (SCENE,))
    token = backend.tokens.issue(SCENE, "st")[0]
    async with running(backend, limits=UNLIMITED) as live:
        async with peer(live.url, token) as st:
            served = await st.command(adjust("served-on-trust", long.who))  # loaded from a snapshot: served
            assert served["ok"], served
            await st.send({"type": "subscribe", "since": served["version"]})  # no catch-up to check
            stopped = await st.wait(lambda m: m["type"] == "error", "the check's verdict", seconds=30)
            assert stopped["code"] == "scene_unavailable" and "event 3" in stopped["message"], stopped
            with anyio.fail_after(5):
                await st.closed.wait()
        assert raw(where, "SELECT count(*) FROM snapshots WHERE scene = ?", (SCENE,)) == [(0,)]
        async with peer(live.url, token) as again:
            answer = await again.subscribe()
            assert answer["type"] == "error" and "event 3" in answer["message"], answer


# -- a snapshot for every long scene ----------------------------------------------------------------


def snapshot_versions(db: str) -> list[int]:
    return [row[0] for row in raw(db, "SELECT version FROM snapshots WHERE scene = ? ORDER BY version", (SCENE,))]  # type: ignore[misc]


async def first_join(db: str, loads: list[Loaded]) -> Loaded:
    """A server started on ``db`` (a restart), the scene's first join: how its room loaded it."""
    backend = open_backend(db)
    token = backend.tokens.issue(SCENE, "spectator")[0]
    try:
        async with running(backend) as live, peer(live.url, token) as spectator:
            await spectator.send({"type": "subscribe"})
            answer = await spectator.wait(lambda m: m["type"] in ("subscribed", "error"), "the subscription", 60)
            assert answer["type"] == "subscribed", answer
    finally:
        backend.close()
    return loads[-1]


async def test_a_scene_played_is_joined_from_its_snapshot(tmp_path: Path, played: Played, loads: list[Loaded]) -> None:
    """``justicar play`` of a long scene keeps a snapshot at its end; a server started on it loads
    the scene for its first join from that snapshot, folding nothing."""
    db, script = str(tmp_path / "played.db"), tmp_path / "brawl.jsonl"
    script.write_bytes(b"".join(line + b"\n" for line in played.script))
    done = cli("play", str(script), "--db", db, seconds=600)
    assert done.returncode == 0, done.stderr[-2000:]
    ((head,),) = raw(db, "SELECT max(seq) FROM events WHERE scene = ?", (SCENE,))
    assert isinstance(head, int) and head >= WORTH and snapshot_versions(db) == [head]
    loaded = await first_join(db, loads)
    assert loaded.start == head == loaded.state.version


def test_a_scene_imported_gets_a_snapshot(tmp_path: Path, played: Played) -> None:
    """``justicar import`` of a long scene keeps a snapshot at its end, as the server would use it."""
    source, db = tmp_path / "source.db", str(tmp_path / "imported.db")
    with contextlib.closing(open_backend(str(source))) as written:
        written.store.import_wires(SCENE, played.wires)
    export = tmp_path / "long.jsonl"
    assert cli("export", "--db", str(source), SCENE, "-o", str(export)).returncode == 0
    done = cli("import", "--db", db, str(export))
    assert done.returncode == 0, done.stderr
    assert snapshot_versions(db) == [len(played.wires)]
    with contextlib.closing(open_backend(db)) as imported:
        assert imported.snapshots is not None
        found = imported.snapshots.load(SCENE)
        assert found is not None and found.state == fold_rows(SCENE, imported.store.rows(SCENE))


async def test_a_cold_load_of_a_long_scene_keeps_a_snapshot(where: str, played: Played, loads: list[Loaded]) -> None:
    """A long scene written without snapshots (by an older version, say): its first load folds the
    log, answers, then keeps a snapshot at its end; after a restart, the first join loads from it."""
    with contextlib.closing(open_backend(where)) as written:
        written.store.import_wires(SCENE, played.wires)
    head = len(played.wires)
    backend = open_backend(where)
    token = backend.tokens.issue(SCENE, "spectator")[0]
    try:
        async with running(backend) as live, peer(live.url, token) as spectator:
            await spectator.send({"type": "subscribe"})
            await spectator.wait(lambda m: m["type"] == "subscribed", "the subscription", 60)
            assert loads[-1].start == 0
            with anyio.fail_after(30):
                while snapshot_versions(where) != [head]:
                    await anyio.sleep(0.1)
    finally:
        backend.close()
    loaded = await first_join(where, loads)
    assert loaded.start == head == loaded.state.version
