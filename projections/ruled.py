"""What a ruling did, told to each person it touches: the Storyteller's decision on a step, the
reason in its own words, and what it gave or took, made once here from the ruling's own events
(``RulingRecord.did``: the undoing of the outcome first given, then what the corrected outcome did,
or an amend's adjustment of a sheet).

A player reads the rulings that touch their character: those that changed it, those on a challenge
it was in, and those that closed a dispute of theirs; each said to them ("The Storyteller overturned
the result of “Sam challenges you (Physical)”: you get Brawny back."), with what the ruling did to
the others in words only where the table knows it (a Trait lost or given back, damage: what the
challenge's account tells everyone), never another's adjusted sheet or armour. A spectator reads
none (no ruling touches a watcher); the Storyteller reads every ruling whole, by names.

``tonight`` lists, for a game night's player, the results of theirs from the night's other scenes,
each with the step a dispute names: the night's page offers to dispute them from wherever the
character is now; ``ruled_elsewhere`` the rulings there that touch them (a ruling made after the
character left sends it only the change, ``carried_corrected``: this tells it why).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import msgspec
from msgspec.structs import replace

from domain.events import (
    ArmorDamaged,
    ArmorRestored,
    CharacterAdjusted,
    ConditionCleared,
    DamageHealed,
    GrappleBroken,
    GrappleStarted,
    ProneCleared,
    TraitRestored,
)
from domain.state import NARRATOR, Challenge, Corrected, RulingRecord, Scene
from projections.account import effect_line, for_viewer, reader_of, title
from projections.changes import changes, condition_words
from projections.narrate import addressed
from projections.redact import knows

DONE = {"uphold": "upheld", "overturn": "overturned", "amend": "amended"}


class Ruled(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One ruling as one viewer reads it."""

    id: int
    """The seq of its ``ruling_issued``: the page remembers per ruling that it was seen."""
    event: int
    """The step it rules on."""
    decision: str
    words: str
    """All of it in one sentence, said to the viewer: "The Storyteller overturned the result of
    “Sam challenges you (Physical)”: you get Brawny back.", "… upheld …: it stands."."""
    reason: str
    """The Storyteller's own words."""
    changed: list[str] = []
    """What it gave or took from the viewer's character, one change a line ("you get Brawny
    back"); the Storyteller: from every character, by names."""
    also: list[str] = []
    """What it did to others that the viewer may know ("Sam loses Quick")."""
    challenge: str = ""
    """The challenge it ruled on, if any."""
    about: str = ""
    """What it ruled on, said to the viewer: "the result of “Sam challenges you (Physical)”"."""


def public_rulings(rulings: Iterable[RulingRecord]) -> list[RulingRecord]:
    """The rulings as every viewer's view lists them: without their events (``did``), which hold
    what is not everyone's to know (an adjusted sheet, armour); ``ruled`` tells each what it may."""
    return [replace(r, did=()) if r.did else r for r in rulings]


def ruled(state: Scene, viewer: str) -> list[Ruled]:
    """The rulings of ``state`` that ``viewer`` is told of, oldest first (see the module)."""
    if not state.rulings or (viewer != NARRATOR and viewer not in state.characters):
        return []
    return [told for r in state.rulings if (told := ruling_for(state, r, viewer)) is not None]


def touched(state: Scene, r: RulingRecord) -> set[str]:
    """The characters a ruling touches: those it changed, those in the challenge it ruled on, and
    those whose disputes it closed."""
    people = {who for e in r.did for who in _people(e)}
    ch = state.challenges.get(r.challenge) if r.challenge else _challenge_at(state, r.event)
    if ch is not None:
        people |= {*ch.challenger.members, *ch.targets, ch.defender.who}
    people |= {d.by for d in state.disputes if d.ruling == r.id}
    return people - {NARRATOR}


def ruling_for(state: Scene, r: RulingRecord, viewer: str) -> Ruled | None:
    """``r`` as ``viewer`` reads it (None: it does not touch them)."""
    if viewer != NARRATOR and viewer not in touched(state, r):
        return None
    ch = state.challenges.get(r.challenge) if r.challenge else _challenge_at(state, r.event)
    about = _about(state, r, ch)
    done = DONE.get(r.decision, r.decision)
    mine: list[str] = []
    also: list[str] = []
    for e in r.did:
        people = _people(e)
        for said in _words(state, e):
            if viewer == NARRATOR or viewer in people:
                mine.append(said)
            elif _public(e):
                also.append(said)
    if r.decision == "uphold":
        tail = ": it stands."
    elif mine:
        tail = f": {'; '.join(mine)}."
    else:
        tail = ": nothing of yours changes." if viewer != NARRATOR else "."
    words = f"The Storyteller {done} {about}{tail}"
    reader = reader_of(state, viewer) if viewer != NARRATOR else None
    if reader is not None:
        me, others = reader
        words, about = _quoted(addressed(words, me, others)), _quoted(addressed(about, me, others))
        mine = [_lower(addressed(x, me, others)) for x in mine]
        also = [addressed(x, me, others) for x in also]
    return Ruled(
        id=r.id,
        event=r.event,
        decision=r.decision,
        words=words,
        reason=r.reason.strip(),
        changed=mine,
        also=also,
        challenge=ch.id if ch is not None else "",
        about=about,
    )


def _quoted(text: str) -> str:
    """A quoted title begins as a sentence does, once said to the viewer: "“You challenge Guard
    (Physical)”", not "“you challenge …”"."""
    return re.sub(r"“([a-z])", lambda m: "“" + m.group(1).upper(), text)


def _about(state: Scene, r: RulingRecord, ch: Challenge | None) -> str:
    if ch is None:
        return f"step {r.event}"
    named = f"“{title(state, ch)}”"
    return named if r.event == ch.seq and not r.challenge else f"the result of {named}"


def _challenge_at(state: Scene, seq: int) -> Challenge | None:
    """The challenge a step declared or decided (None: the step is neither)."""
    return next((ch for ch in state.challenges.values() if seq in (ch.seq, ch.resolved_seq)), None)


def _people(e: Corrected) -> tuple[str, ...]:
    match e:
        case GrappleStarted() | GrappleBroken():
            return (e.grappler, e.victim)
    return (e.character,)


def _public(e: Corrected) -> bool:
    """Whether what ``e`` did is known to the whole table (as a challenge's effects are): not an
    adjusted sheet, nor armour (its player's and the Storyteller's)."""
    return not isinstance(e, CharacterAdjusted | ArmorDamaged | ArmorRestored)


def _words(state: Scene, e: Corrected) -> Iterator[str]:
    """What one of a ruling's events did, in words, by names."""
    name = state.name_of
    match e:
        case TraitRestored():
            yield f"{name(e.character)} gets {e.trait} back"
        case DamageHealed():
            yield f"{name(e.character)} is healed of {e.amount} {e.damage} damage"
        case ArmorRestored():
            yield f"{name(e.character)}'s armour is restored by {e.amount}"
        case ProneCleared():
            yield f"{name(e.character)} is no longer prone"
        case ConditionCleared():
            yield f"{name(e.character)} is no longer {condition_words(e.name)}"
        case CharacterAdjusted():
            yield from (what for *_, what in changes(e.changes, name(e.character)))
        case _:
            yield effect_line(state, e).words


def _lower(text: str) -> str:
    """A change said to the player, as part of a sentence: "you get Brawny back"."""
    return text[:1].lower() + text[1:] if text.startswith(("You ", "Your ")) else text


# -- a game night: the results of a player's character in the night's other scenes ------------


class Result(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A result of the viewer's from another scene of the night, with the step a dispute names."""

    scene: str
    scene_title: str
    challenge: str
    title: str
    """"Sam challenges you (Physical)"."""
    words: str
    """How it ended, said to the viewer: "You lost: you lose Brawny"."""
    step: int
    """The step that decided it, in its scene (what a dispute of it names)."""
    ruled: str = ""
    """How a ruling changed it, if one did: "overturned by the Storyteller: Sam had cover"."""


def tonight(scenes: Iterable[Scene], viewer: str, here: str | None = None) -> list[Result]:
    """The decided challenges ``viewer``'s character was in, in the night's scenes other than
    ``here`` (where it is now, whose page shows its own), in the order the scenes are given."""
    out: list[Result] = []
    for scene in scenes:
        if scene.id == here or viewer not in scene.characters or not knows(viewer, viewer):
            continue
        reader = reader_of(scene, viewer)
        for ch in sorted(scene.challenges.values(), key=lambda c: c.seq):
            if ch.status != "resolved" or ch.resolved_seq is None or viewer not in _in(ch):
                continue
            told = for_viewer(scene, ch, viewer, reader, staked=False)
            verdict = told.verdict
            out.append(
                Result(
                    scene=scene.id,
                    scene_title=scene.title or scene.id,
                    challenge=ch.id,
                    title=told.title,
                    words=verdict.words if verdict else told.result,
                    step=ch.resolved_seq,
                    ruled=verdict.ruled if verdict else "",
                )
            )
    return out


class RuledThere(Ruled, frozen=True, kw_only=True, omit_defaults=True):
    """A ruling in another scene of the night that touches the viewer's character (what it gave or
    took came to it as a ``carried_corrected`` where it is now, without the reason)."""

    scene: str
    scene_title: str


def ruled_elsewhere(scenes: Iterable[Scene], viewer: str, here: str | None = None) -> list[RuledThere]:
    """The rulings that touch ``viewer``'s character in the night's scenes other than ``here``, each
    as ``ruled`` tells it, with its scene."""
    out: list[RuledThere] = []
    for scene in scenes:
        if scene.id == here or viewer not in scene.characters:
            continue
        for r in ruled(scene, viewer):
            fields = {f: getattr(r, f) for f in r.__struct_fields__}
            out.append(RuledThere(**fields, scene=scene.id, scene_title=scene.title or scene.id))
    return out


def _in(ch: Challenge) -> set[str]:
    return {*ch.challenger.members, *ch.targets, ch.defender.who}


def was_in(scene: Scene, who: str, seq: int) -> bool:
    """Whether step ``seq`` of ``scene`` is a step of a challenge ``who`` was in: its declaration,
    its result, or a ruling on it (what a player may dispute of a scene it has left)."""
    for ch in scene.challenges.values():
        if who in _in(ch) and (seq in (ch.seq, ch.resolved_seq) or seq in ch.rulings):
            return True
    return False
