"""What a game night's stream shows each viewer (PROTOCOL section 8, "Following a character
through a night").

A night's view is a scene's view (``projections.views.StateView``: its header and its characters as
the night holds them, each a ``CharacterView``) with ``night`` beside them: the night's scenes,
open or closed, and where its characters are now.

- The Storyteller sees every character whole, every scene and who is in each.
- A player sees their own character as it stands tonight (Traits lost, abilities, Willpower and
  blood left, damage) and the scene it is in now, if any; no other character (the night's events
  name them, as a scene's ``character_added`` does: ``projections.redact``) and no other scene.
- A spectator sees every scene and who is where, by name, and no sheet.

The night holds a character as it was when it last came back (or was registered, or corrected):
while it is in a scene, that scene's view is the live one, and the night's copy is what it took in.
"""

from __future__ import annotations

import msgspec

from domain.state import NARRATOR, Scene
from projections.views import SPECTATOR, StateView, view


class Whereabouts(msgspec.Struct, frozen=True):
    """The scene a character of the night is in now."""

    scene: str
    title: str
    since: int
    """The night's event (its seq) that sent the character there (``character_moved``)."""


class NightSceneView(msgspec.Struct, frozen=True):
    id: str
    title: str
    open: bool
    characters: list[str]
    """Who of the night is in it now, as this viewer may know it."""


class NightView(msgspec.Struct, frozen=True):
    scenes: list[NightSceneView]
    """The night's scenes in the order they opened (a player: only the one its character is in)."""
    where: dict[str, Whereabouts]
    """Where each character is now, as this viewer may know it; a character in no scene (between
    scenes) is not in it."""


class NightStateView(StateView, frozen=True):
    """A game night's stream as a viewer sees it: a scene's view, and the night beside it."""

    night: NightView | None = None


def _sees(viewer: str, who: str) -> bool:
    """Whether ``viewer`` may know where ``who`` is, and that ``who`` is at the game at all."""
    return viewer in (NARRATOR, SPECTATOR, who)


def night_part(state: Scene, viewer: str = NARRATOR) -> NightView:
    """The night's scenes and whereabouts as ``viewer`` may know them."""
    night = state.night
    if night is None:
        return NightView(scenes=[], where={})
    titles = {s.id: s.title for s in night.scenes}
    where = {
        who: Whereabouts(scene=visit.scene, title=titles.get(visit.scene, ""), since=visit.seq)
        for who, visit in sorted(night.where.items(), key=lambda item: item[1].seq)
        if _sees(viewer, who)
    }
    scenes = [
        NightSceneView(
            id=s.id, title=s.title, open=s.open, characters=[who for who, at in where.items() if at.scene == s.id]
        )
        for s in night.scenes
        if viewer in (NARRATOR, SPECTATOR) or any(at.scene == s.id for at in where.values())
    ]
    return NightView(scenes=scenes, where=where)


def night_view(
    state: Scene, viewer: str = NARRATOR, *, only: tuple[list[str] | None, list[str]] | None = None
) -> NightStateView:
    """The night as ``viewer`` may see it; with ``only`` (characters or None for all, challenges),
    a patch: just those characters, and the night part whole (it is small: a row a scene and a
    character)."""
    base = view(state, viewer, only=only)
    characters = {who: c for who, c in base.characters.items() if _sees(viewer, who)}
    fields = {name: getattr(base, name) for name in base.__struct_fields__}
    return NightStateView(**{**fields, "characters": characters}, night=night_part(state, viewer))
