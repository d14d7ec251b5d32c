"""Scene verbs: the Storyteller opens and closes the scene, adds, removes and corrects characters."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import msgspec
from msgspec.structs import replace

from domain import sheet_check
from domain.commands import AddCharacter, Adjust, AmendCharacter, Changes, CloseScene, OpenScene, RemoveCharacter
from domain.context import Draft
from domain.errors import Rejected
from domain.events import (
    CharacterAdded,
    CharacterAdjusted,
    CharacterAmended,
    CharacterRemoved,
    ConditionCleared,
    ConditionSet,
    FairEscapeFailed,
    SceneClosed,
    SceneOpened,
)
from domain.night import left
from domain.rules import RULESETS, ruleset_for, title_of
from domain.sheets import Sheet
from domain.state import NARRATOR, Character, Scene


def _storyteller(d: Draft, what: str) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", f"Only the Storyteller can {what}.")


def open_scene(d: Draft, cmd: OpenScene) -> None:
    _storyteller(d, "open a scene")
    rules = ruleset_for(cmd.ruleset)
    others = [name for name in RULESETS if name != cmd.ruleset and cmd.options.get(name) is not None]
    if others:
        raise Rejected(
            "bad_options",
            f"`options.{others[0]}` is for a {title_of(others[0])} scene; this one plays {rules.title}.",
        )
    options = rules.read_options(cmd.options)
    if cmd.game is not None:
        night = d.ctx.night
        if night is None or night.night is None:
            raise Rejected("unknown_game", f"There is no game night {cmd.game}; open it first (`open_game`).")
        if night.status != "open":
            raise Rejected("game_closed", f"{night.title or cmd.game} is over; open a new game night.")
        if cmd.ruleset != night.ruleset:
            raise Rejected(
                "bad_ruleset",
                f"{night.title or cmd.game} plays {ruleset_for(night.ruleset).title}; its scenes play it too.",
            )
        if "deadlines" not in cmd.options:  # the night's, where the scene gives none of its own
            options = replace(options, deadlines=night.options.deadlines)
    d.add(SceneOpened(ruleset=cmd.ruleset, title=cmd.title, options=rules.written(options), game=cmd.game or ""))


def add_character(d: Draft, cmd: AddCharacter) -> None:
    _storyteller(d, "add a character")
    sheet = cmd.character
    if sheet.id == NARRATOR:
        raise Rejected("bad_sheet", f"`character.id`: {NARRATOR!r} is the Storyteller's; pick another id.")
    if (was := d.state.characters.get(sheet.id)) is not None and (was.present or was.entered):
        raise Rejected("character_exists", f"There is already a character {sheet.id!r} in this scene.")
    night = d.ctx.night
    if d.state.game and night is not None and (known := night.characters.get(sheet.id)) is not None:
        raise Rejected(
            "night_character",
            f"{known.name} is a character of {night.title or d.state.game}: send them in from the night (move them),"
            " so that they bring what they carry tonight.",
        )
    sheet_check.check(d.state.ruleset, sheet, cmd.as_written)
    ruleset_for(d.state.ruleset).check_sheet(sheet)
    d.add(CharacterAdded(character=sheet))


def amend_character(d: Draft, cmd: AmendCharacter) -> None:
    _storyteller(d, "amend a sheet")
    character = _character(d, cmd.character)
    if cmd.sheet.id != cmd.character:
        raise Rejected(
            "bad_sheet", f"`sheet.id`: an amended sheet keeps its id ({cmd.character}).", fields={"id": "keeps its id"}
        )
    if character.entered:
        raise Rejected(
            "night_character",
            f"{character.name} came in from the game night with the sheet registered there; correct what they"
            " carry with Adjust.",
        )
    sheet_check.check(d.state.ruleset, cmd.sheet, cmd.as_written)
    ruleset_for(d.state.ruleset).check_sheet(cmd.sheet)
    changed = differences(character.sheet, cmd.sheet)
    if not changed:
        raise Rejected("unchanged", f"The sheet is {character.name}'s as it stands: nothing to amend.")
    d.add(CharacterAmended(character=cmd.sheet, changed=changed, reason=cmd.reason))


def differences(before: Sheet, after: Sheet) -> list[str]:
    """The paths where two sheets differ (``willpower``, ``skills.brawl``, ``traits.physical.Quick``):
    a mapping entry by entry, anything else whole."""
    old, new = msgspec.to_builtins(before), msgspec.to_builtins(after)
    return [path for key in dict.fromkeys([*old, *new]) for path in _paths(key, old.get(key), new.get(key))]


def _paths(path: str, old: object, new: object) -> list[str]:
    if old == new:
        return []
    if isinstance(old, dict | None) and isinstance(new, dict | None) and (old or new):
        a, b = old or {}, new or {}
        return [p for key in dict.fromkeys([*a, *b]) for p in _paths(f"{path}.{key}", a.get(key), b.get(key))]
    return [path]


def _blocked(d: Draft) -> str:
    """The rule by which an escape fails when the Storyteller says so."""
    cites = ruleset_for(d.state.ruleset).cites
    return cites.get("fair_escape_blocked", cites["adjudication"])


def _character(d: Draft, who: str) -> Character:
    character = d.state.characters.get(who)
    if character is None:
        raise Rejected("unknown_character", f"There is no character {who!r} in this scene.")
    return character


def remove_character(d: Draft, cmd: RemoveCharacter) -> None:
    _storyteller(d, "remove a character")
    character = _character(d, cmd.character)
    if not character.present:
        raise Rejected("character_removed", f"{character.name} has already left the scene.")
    busy = [cid for cid in d.state.undecided if (ch := d.state.challenges[cid]).open and ch.role_of(cmd.character)]
    if busy:
        raise Rejected(
            "in_challenge",
            f"{character.name} is in open challenges ({', '.join(busy)}); resolve or withdraw them first.",
        )
    d.add(left(d.state, character) if character.entered else CharacterRemoved(character=cmd.character))


def adjust(d: Draft, cmd: Adjust) -> None:
    _storyteller(d, "adjust a character")
    character = _character(d, cmd.character)
    check_changes(character, cmd.changes)
    lifted = waits_on(d.state, cmd.character, d.ctx.now) if cmd.changes.lift_waits else []
    if cmd.changes.lift_waits and not lifted:
        raise Rejected("bad_adjustment", f"No challenge against {character.name} is waiting to be repeated.")
    d.add(CharacterAdjusted(character=cmd.character, changes=cmd.changes, reason=cmd.reason, lifted=lifted))
    why = f"The Storyteller rules: {cmd.reason}"
    rules = ruleset_for(d.state.ruleset)
    d.add(
        *(
            ConditionSet(
                character=cmd.character, name=name, by=NARRATOR, clears_after=rules.clears_after(name), why=why, rule=""
            )
            for name in cmd.changes.set_conditions
        ),
        *(
            ConditionCleared(character=cmd.character, name=name, why=why, rule="")
            for name in cmd.changes.clear_conditions
        ),
    )
    if cmd.changes.fail_escape:
        d.add(FairEscapeFailed(character=cmd.character, why=f"{why}: the escape fails.", rule=_blocked(d)))


def waits_on(state: Scene, target: str, now: datetime) -> list[str]:
    """The waits still running on challenges against ``target`` (keys ``challenger>targets:…``)."""
    return sorted(
        key
        for key, until in state.failures.items()
        if until > now and target in key.partition(">")[2].partition(":")[0].split(",")
    )


def check_changes(character: Character, changes: Changes) -> None:
    """Refuse a correction that would leave the character impossible, listing every problem."""
    problems: list[str] = []
    if character.willpower + changes.willpower < 0:
        problems.append(f"willpower would fall below 0 (it is {character.willpower})")
    for ability, delta in changes.abilities.items():
        if character.abilities.get(ability, 0) + delta < 0:
            problems.append(f"{ability} would fall below 0")
    for kind, delta in changes.damage.items():
        if getattr(character.wounds, kind) + delta < 0:
            problems.append(f"{kind} damage would fall below 0")
    lost = Counter(character.lost_names)
    for trait, n in Counter(changes.restore_traits).items():
        if lost[trait] < n:
            problems.append(f"{trait} is not lost, so it cannot be restored")
    for trait, n in Counter(changes.lose_traits).items():
        category = character.category_of(trait)
        if category is None:
            problems.append(f"{character.name} has no Trait called {trait}")
        elif character.left(trait, category) < n:
            problems.append(f"{trait} is already lost")
    flags = {"prone": character.conditions.prone, "escaped": character.conditions.fair_escape == "escaped"}
    held = {m.name for m in character.conditions.marks} | {name for name, on in flags.items() if on}
    for name in changes.set_conditions:
        if name == "escaped":
            problems.append(
                f"{character.name} is not set escaped by hand: a fair escape is declared by the character "
                "(declare_action); the Storyteller only clears it, to bring them back"
            )
        elif name in held:
            problems.append(f"{character.name} is already {name.replace('_', ' ')}")
    for name in changes.clear_conditions:
        if name not in held:
            problems.append(f"{character.name} is not {name.replace('_', ' ')}")
    if changes.fail_escape and character.conditions.fair_escape not in ("declared", "held"):
        problems.append(f"{character.name} is not trying to fair escape")
    if problems:
        raise Rejected("bad_adjustment", f"Cannot adjust {character.name}: {'; '.join(problems)}.")


def close_scene(d: Draft, cmd: CloseScene) -> None:
    _storyteller(d, "close the scene")
    busy = [cid for cid in d.state.undecided if d.state.challenges[cid].open]
    if busy:
        raise Rejected(
            "open_challenges",
            f"Challenges are still open ({', '.join(busy)}); resolve or withdraw them first.",
        )
    d.add(*(left(d.state, c) for c in d.state.roster() if c.present and c.entered), SceneClosed())
