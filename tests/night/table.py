"""A game night at a table: the night and its scenes as streams of one store, every command
through the service (``server.service.SceneService.handle``), which carries what a command asks
of the other streams before it answers."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import count
from typing import Any

import msgspec

from domain.commands import parse_command
from domain.log import Recorded
from domain.state import Character, Scene
from server.service import Handled, SceneService
from server.store import EventStore, MemoryStore
from tests.table import T0, sheet

SAM = sheet("sam", {"Brawny": 2, "Quick": 1}, name="Sam", traits={"social": {"Charming": 2}})
JUAN = sheet("juan", {"Wiry": 2, "Quick": 1}, name="Juan", traits={"social": {"Dignified": 2}})
ROSA = sheet("rosa", {"Nimble": 2}, name="Rosa", traits={"social": {"Witty": 2}})


class NightTable:
    def __init__(self, store: EventStore | None = None, *, ruleset: str = "lotn") -> None:
        self.now = T0
        self.store = store or MemoryStore()
        self.service = SceneService(self.store, clock=lambda: self.now, entropy=lambda: 0)
        self._ids = count(1)
        self.ruleset = ruleset

    def do(self, stream: str, actor: str, verb: str, **fields: Any) -> Handled:
        self.now += timedelta(seconds=1)
        body = {"id": f"c{next(self._ids)}", "scene": stream, "actor": actor, "type": verb, **fields}
        return self.service.handle(parse_command(msgspec.json.encode(body)))

    def ok(self, stream: str, actor: str, verb: str, **fields: Any) -> Handled:
        done = self.do(stream, actor, verb, **fields)
        assert done.error is None, done.error
        return done

    def refused(self, stream: str, actor: str, verb: str, *, code: str, **fields: Any) -> str:
        """Assert the command is refused with ``code`` and no stream changed."""
        heads = {s: self.store.head(s) for s in self.store.scenes()}
        done = self.do(stream, actor, verb, **fields)
        assert done.error is not None and done.error.code == code, done.error
        assert {s: self.store.head(s) for s in self.store.scenes()} == heads
        return done.error.message

    # -- shortcuts ----------------------------------------------------------------------------

    def open_game(self, game: str = "g1", *sheets: dict[str, Any]) -> None:
        self.ok(game, "st", "open_game", ruleset=self.ruleset, title=f"Night {game}")
        for character in sheets:
            self.ok(game, "st", "register_character", character=character)

    def open_scene(self, scene: str, game: str = "g1", *, title: str = "") -> None:
        self.ok(scene, "st", "open_scene", ruleset=self.ruleset, title=title or scene.title(), game=game)

    def move(self, who: str, to: str, game: str = "g1") -> None:
        self.ok(game, "st", "move_character", character=who, to=to)

    def fight(
        self, scene: str, cid: str, challenger: str, target: str, bid: str, answer: str, signs: tuple[str, str]
    ) -> None:
        """A Physical challenge thrown to its end (no retests)."""
        self.ok(
            scene,
            challenger,
            "declare",
            challenge=cid,
            kind="contested",
            targets=[target],
            category="physical",
            bid=[bid],
        )
        self.ok(scene, target, "bid", challenge=cid, bid=[answer])
        self.ok(scene, challenger, "throw", challenge=cid, sign=signs[0])
        self.ok(scene, target, "throw", challenge=cid, sign=signs[1])
        state = self.state(scene)
        for who in (challenger, target):
            if state.challenges[cid].open and state.challenges[cid].status == "retest_window":
                self.do(scene, who, "pass", challenge=cid)

    def state(self, stream: str) -> Scene:
        self.service.forget(stream)
        return self.service.state(stream)

    def character(self, stream: str, who: str) -> Character:
        return self.state(stream).characters[who]

    def log(self, stream: str) -> list[Recorded]:
        return list(self.store.read(stream))

    def types(self, stream: str) -> list[str]:
        return [r.type for r in self.log(stream)]

    def tick(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    @property
    def at(self) -> datetime:
        return self.now
