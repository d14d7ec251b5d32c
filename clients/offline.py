"""The offline commands: play a script, print a log, verify a chain, replay a scene."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import msgspec

from clients.stores import opened, snapshots_of
from domain.commands import parse_command
from domain.events import CharacterAdded, CharacterEntered, CharacterRegistered
from domain.evolve import fold_rows
from domain.log import decode_event
from domain.state import NARRATOR
from projections.redact import redact
from projections.replay import Step, links_of_rows, render, replay
from projections.views import view
from server.backend import busy
from server.service import Result, SceneService
from server.store import EventStore
from server.store.base import first_problem

_json = msgspec.json.Encoder()
_generic = msgspec.json.Decoder()


def _line(out: TextIO, value: Any) -> None:
    out.write(_json.encode(value).decode())
    out.write("\n")


def _script_lines(source: TextIO) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(source, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def _id_of(text: str) -> str | None:
    try:
        value = _generic.decode(text)
    except msgspec.DecodeError:
        return None
    command_id = value.get("id") if isinstance(value, dict) else None
    return command_id if isinstance(command_id, str) else None


def play_script(service: SceneService, source: TextIO, out: TextIO) -> tuple[bool, list[str]]:
    """Apply each command of a script and print its result: ``(any line malformed, scenes)``."""
    malformed = False
    scenes: list[str] = []
    for number, text in _script_lines(source):
        try:
            command = parse_command(text)
        except msgspec.DecodeError as err:  # also ValidationError: the message names the path
            malformed = True
            result = Result.refused(_id_of(text), "malformed", f"line {number}: {err}")
            _line(out, {"line": number, **msgspec.to_builtins(result)})
            continue
        if command.scene not in scenes:
            scenes.append(command.scene)
        _line(out, service.handle(command).result())
    return malformed, scenes


def play(args: argparse.Namespace, out: TextIO) -> int:
    """Apply a script's commands in order; refusals are results, malformed lines are errors."""
    try:
        source = sys.stdin if args.script == "-" else open(args.script, encoding="utf-8")  # noqa: SIM115
    except OSError as err:
        print(f"justicar play: cannot read {args.script}: {err.strerror}", file=sys.stderr)
        return 2
    holder = busy(args.db) if args.db else None
    if holder:
        print(f"justicar play: {args.db} is served by {holder}; send commands through it", file=sys.stderr)
        return 2
    store = opened(args)
    snapshots = snapshots_of(store, args)
    service = SceneService(store, honour_at=True)
    with source:
        malformed, scenes = play_script(service, source, out)
    service.snapshot_long(scenes, snapshots)  # a long scene's first join after it folds no long log
    for scene in scenes:
        state = service.state(scene)
        if state.status != "new":
            _line(out, {"state": view(state, NARRATOR)})
    store.close()
    return 1 if malformed else 0


def log(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args, readonly=True)
    if not store.head(args.scene)[0]:
        return _no_scene(args.scene)
    viewer = _viewer(store, args.scene, args.viewer, "log")
    if viewer is None:
        return 2
    if viewer == NARRATOR:
        wires = store.read_wire(args.scene)
    else:  # what that viewer was sent: another's sealed sign, sheet or pool blanked
        wires = (redact(record, viewer) for record in store.read(args.scene))
    for wire in wires:
        out.write(_json.encode(wire).decode() + "\n")
    return 0


_JOINING = ("character_added", "character_entered", "character_registered")
_JOINED = (CharacterAdded, CharacterEntered, CharacterRegistered)


def _viewer(store: EventStore, scene: str, asked: str, command: str) -> str | None:
    """The viewer ``--as`` names (``st``, ``spectator`` or a character of the scene), or None
    after saying what it may be."""
    viewer = "*" if asked in ("spectator", "*") else asked
    people = {  # added to a scene, entering it from a game night, or registered in the night
        event.character.id
        for _, _, type_, data in store.rows(scene)
        if type_ in _JOINING and isinstance(event := decode_event(type_, data), _JOINED)
    }
    if viewer not in (NARRATOR, "*", *people):
        known = ", ".join(sorted(people))
        print(f"justicar {command}: --as st, spectator, or a character of the scene ({known})", file=sys.stderr)
        return None
    return viewer


def verify(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args, readonly=True)
    if args.expect and not args.scene:
        print("justicar verify: --expect needs the SCENE whose head it is", file=sys.stderr)
        return 2
    scenes = [args.scene] if args.scene else store.scenes()
    if args.scene and not store.head(args.scene)[0]:
        return _no_scene(args.scene)
    bad = 0
    for scene in scenes:
        problem = first_problem(store, scene)
        version, head = store.head(scene)
        if problem is not None:
            bad += 1
            print(f"{scene}: event {problem.seq} ({problem.type}): {problem.problem}", file=out)
        elif args.expect and head != args.expect:
            bad += 1
            print(f"{scene}: head is {head}, not the expected {args.expect}: the log changed since", file=out)
        else:
            noted = " (as expected: nothing changed)" if args.expect else ""
            print(f"{scene}: ok, {version} events, head {head}{noted}", file=out)
    store.close()
    return 1 if bad else 0


def replay_scene(args: argparse.Namespace, out: TextIO) -> int:
    store = opened(args, readonly=True)
    version, _ = store.head(args.scene)
    if not version:
        return _no_scene(args.scene)
    first, last = max(1, args.start or 1), min(version, args.end or version)
    viewer = _viewer(store, args.scene, args.viewer, "replay")
    if viewer is None:
        return 2
    before = fold_rows(args.scene, store.rows(args.scene, upto=first - 1))
    steps = replay(
        store.read(args.scene, after=first - 1, upto=last), viewer, before, links_of_rows(store.rows(args.scene))
    )
    if args.step:
        return _page(steps, out)
    for step in steps:
        if args.json:
            _line(out, step)
        else:
            out.write(render(step) + "\n\n")
    return 0


def _page(steps: Iterator[Step], out: TextIO) -> int:
    """One step at a time: Enter for the next, b to go back, q to quit."""
    seen: list[Step] = []
    at = -1
    while True:
        if at + 1 >= len(seen):
            step = next(steps, None)
            if step is None:
                out.write("(the end)\n")
                return 0
            seen.append(step)
        at += 1
        out.write(render(seen[at]) + "\n")
        while True:
            out.write("[Enter] next · b back · q quit > ")
            out.flush()
            answer = sys.stdin.readline()
            if not answer or answer.strip() == "q":
                return 0
            if answer.strip() == "b":
                if at > 0:
                    at -= 2
                    break
                out.write("(this is the first step)\n")
                continue
            break


def _no_scene(scene: str) -> int:
    print(f"justicar: there is no scene {scene!r} in this database", file=sys.stderr)
    return 1
