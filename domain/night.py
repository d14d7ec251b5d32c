"""Game nights: a stream of their own that carries characters from scene to scene.

A night is opened (``open_game``), its characters registered once from their sheets
(``register_character``), and its scenes opened with ``game`` naming it. The Storyteller sends a
character into an open scene of the night (``move_character``); the character enters that scene
with what it carries tonight (``character_entered``), and when it leaves, or the scene closes, it
takes back what it carries then (``character_left``, and ``character_returned`` in the night).
A ruling in a scene a character has left changes what it carries: the correction is appended to
the night and to the scene the character is in now (``carried_corrected``); nothing is rewritten.

Every command touches one stream. What one stream's events ask of another is a follow-up command
from the server (``follow_ups``), with an id made from the event that asked for it (``~…``), so
that sending it twice appends it once: a crash between the two appends is mended by sending the
follow-ups again (``pending``).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain import deadlines, sheet_check
from domain.carried import Carried, changed
from domain.commands import (
    AnyCommand,
    Arrive,
    CarryCorrection,
    Changes,
    CloseGame,
    ComeBack,
    MoveCharacter,
    NoteScene,
    OpenGame,
    RegisterCharacter,
)
from domain.context import Draft
from domain.errors import Rejected
from domain.events import (
    CarriedCorrected,
    CharacterEntered,
    CharacterLeft,
    CharacterMoved,
    CharacterRegistered,
    CharacterReturned,
    GameClosed,
    GameOpened,
    RulingIssued,
    SceneAdded,
    SceneClosed,
    SceneEnded,
    SceneOpened,
)
from domain.log import Recorded
from domain.rules import ruleset_for
from domain.state import NARRATOR, Character, Night, Scene

SERVER = NARRATOR
"""Whom the server's own follow-ups are sent as."""


def _storyteller(d: Draft, what: str) -> None:
    if d.actor != NARRATOR:
        raise Rejected("forbidden", f"Only the Storyteller can {what}.")


def _night(d: Draft) -> Night:
    if d.state.night is None:
        raise Rejected("not_a_game", f"{d.state.title or d.state.id} is a scene, not a game night.")
    return d.state.night


def _from_server(d: Draft, cmd: AnyCommand) -> None:
    if not cmd.id.startswith("~"):
        raise Rejected("forbidden", f"`{cmd.verb}` is sent by the server alone, between a night and its scenes.")


# -- the night's verbs -------------------------------------------------------------------------


def open_game(d: Draft, cmd: OpenGame) -> None:
    _storyteller(d, "open a game night")
    ruleset_for(cmd.ruleset)
    d.add(GameOpened(ruleset=cmd.ruleset, title=cmd.title, deadlines=deadlines.read(cmd.deadlines)))


def close_game(d: Draft, cmd: CloseGame) -> None:
    _storyteller(d, "close the game night")
    night = _night(d)
    if still := [s.title or s.id for s in night.scenes if s.open]:
        raise Rejected("open_scenes", f"Scenes of tonight are still open ({', '.join(still)}); close them first.")
    d.add(GameClosed())


def register_character(d: Draft, cmd: RegisterCharacter) -> None:
    _storyteller(d, "register a character")
    _night(d)
    sheet = cmd.character
    if sheet.id == NARRATOR:
        raise Rejected("bad_sheet", f"`character.id`: {NARRATOR!r} is the Storyteller's; pick another id.")
    if (known := d.state.characters.get(sheet.id)) is not None:
        raise Rejected("character_exists", f"{known.name} is already registered tonight (as {sheet.id}).")
    for scene in d.ctx.scenes:  # added there by hand: registered, the night would send them elsewhere too
        if (there := scene.characters.get(sheet.id)) is not None and there.present:
            raise Rejected(
                "in_a_scene",
                f"{there.name} is in {scene.title or scene.id} already, added there by hand: remove them from it"
                " first, then register them and send them in.",
            )
    sheet_check.check(d.state.ruleset, sheet, cmd.as_written)
    ruleset_for(d.state.ruleset).check_sheet(sheet)
    d.add(CharacterRegistered(character=sheet))


def move_character(d: Draft, cmd: MoveCharacter) -> None:
    _storyteller(d, "move a character")
    night = _night(d)
    character = d.state.characters.get(cmd.character)
    if character is None:
        raise Rejected("unknown_character", f"No character {cmd.character} is registered tonight.")
    to = night.scene(cmd.to)
    if to is None:
        raise Rejected("unknown_scene", f"There is no scene {cmd.to} in tonight's game.")
    if not to.open:
        raise Rejected("scene_closed", f"{to.title or to.id} is closed.")
    if (visit := night.where.get(cmd.character)) is not None:
        here = night.scene(visit.scene)
        where = here.title or here.id if here else visit.scene
        raise Rejected(
            "in_another_scene",
            f"{character.name} is in {where} now; they leave it first (remove them from it, or close it).",
        )
    d.add(CharacterMoved(character=cmd.character, to=cmd.to))


# -- what the server sends between a night and its scenes --------------------------------------


def arrive(d: Draft, cmd: Arrive) -> None:
    _from_server(d, cmd)
    if d.state.game != cmd.game:
        raise Rejected("not_in_a_game", f"{d.state.title or d.state.id} is not a scene of that game night.")
    known = d.state.characters.get(cmd.character.id)
    if known is not None and known.present:
        raise Rejected("character_exists", f"{known.name} is already in this scene.")
    d.add(CharacterEntered(character=cmd.character, carried=cmd.carried, game=cmd.game, seq=cmd.seq, hash=cmd.hash))


def come_back(d: Draft, cmd: ComeBack) -> None:
    _from_server(d, cmd)
    _night(d)
    d.add(
        CharacterReturned(
            character=cmd.character, scene=cmd.origin, seq=cmd.seq, hash=cmd.hash, carried=cmd.carried, why=cmd.why
        )
    )


def note_scene(d: Draft, cmd: NoteScene) -> None:
    _from_server(d, cmd)
    _night(d)
    d.add(SceneEnded(scene=cmd.origin) if cmd.closed else SceneAdded(scene=cmd.origin, title=cmd.title))


def carry_correction(d: Draft, cmd: CarryCorrection) -> None:
    _from_server(d, cmd)
    if cmd.character not in d.state.characters:
        raise Rejected("unknown_character", f"No character {cmd.character} is here.")
    d.add(
        CarriedCorrected(character=cmd.character, scene=cmd.origin, ruling=cmd.ruling, changes=cmd.changes, why=cmd.why)
    )


# -- a scene's side: leaving takes what the character carries ----------------------------------


def left(state: Scene, character: Character) -> CharacterLeft:
    """A character of the night leaving ``state``'s scene, with what it carries."""
    waits = state.waits_of(character.id, state.last_at) if state.last_at else {}
    return CharacterLeft(character=character.id, carried=character.carried(waits))


# -- follow-ups: what one stream's new events ask of another -----------------------------------


def follow_ups(before: Scene, after: Scene, records: Sequence[Recorded]) -> list[AnyCommand]:
    """The commands that carry a commit's consequences to the other streams of its night, from the
    events whose type declares it sends something (``FACTS.sends``). A what-if (a fork) carries
    nothing: the real night never hears of it."""
    out: list[AnyCommand] = []
    if after.forked_from is not None:
        return out
    for record in records:
        event, here = record.event, record.scene
        if not type(event).FACTS.sends:  # what most events declare: they ask nothing of another stream
            continue
        match event:
            case SceneOpened(game=game) if game:
                out.append(NoteScene(id=f"~opened-{here}", scene=game, actor=SERVER, origin=here, title=event.title))
            case SceneClosed() if after.game:
                out.append(NoteScene(id=f"~closed-{here}", scene=after.game, actor=SERVER, origin=here, closed=True))
            case CharacterMoved(character=who, to=to):
                out.append(sending(after, who, to, record.seq, record.hash))
            case CharacterLeft(character=who, carried=carried) if after.game:
                out.append(_back(after, after.characters[who], record.seq, record.hash, carried))
            case RulingIssued() if after.game:
                out.extend(travelling(before, after, record))
            case CarriedCorrected() if after.night is not None:
                visit = after.night.where.get(event.character)
                if visit is not None and visit.scene != event.scene:
                    out.append(
                        CarryCorrection(
                            id=f"~correct-{here}-{record.seq}",
                            scene=visit.scene,
                            actor=SERVER,
                            character=event.character,
                            origin=event.scene,
                            ruling=event.ruling,
                            changes=event.changes,
                            why=event.why,
                        )
                    )
    return out


def sending(night: Scene, who: str, to: str, seq: int, hash_: str) -> Arrive:
    """The arrival in ``to`` of a character the night sent at its event ``seq``."""
    character = night.characters[who]
    return Arrive(
        id=f"~arrive-{night.id}-{seq}",
        scene=to,
        actor=SERVER,
        game=night.id,
        character=character.sheet,
        carried=character.carried(night.waits_of(who, night.last_at) if night.last_at else {}),
        seq=seq,
        hash=hash_,
    )


def bounced(arrival: Arrive, why: str) -> ComeBack:
    """A character the scene would not take, back in the night as it left."""
    return ComeBack(
        id=f"~bounced-{arrival.id}",
        scene=arrival.game,
        actor=SERVER,
        character=arrival.character.id,
        origin=arrival.scene,
        carried=arrival.carried,
        why=why,
    )


def travelling(before: Scene, after: Scene, record: Recorded) -> list[AnyCommand]:
    """A ruling's changes to characters who had already left the scene: to the night."""
    out: list[AnyCommand] = []
    for who, now in after.characters.items():
        was = before.characters.get(who)
        if was is None or now.present or not now.entered:
            continue
        fields = changed(was.carried(), now.carried())
        if fields:
            out.append(
                CarryCorrection(
                    id=f"~correct-{record.scene}-{record.seq}-{who}",
                    scene=after.game,
                    actor=SERVER,
                    character=who,
                    origin=record.scene,
                    ruling=record.seq,
                    changes=Changes(**fields),  # type: ignore[arg-type]
                    why=f"A ruling in {after.title or after.id} after {now.name} left it.",
                )
            )
    return out


def pending(night: Scene, scenes: dict[str, Scene]) -> list[tuple[str, str, int] | ComeBack | NoteScene]:
    """What a crash may have kept from being sent, given the night, the scenes its characters are
    in and those it holds open: ``(character, scene, seq)`` for a character sent at the night's
    event ``seq`` that has not arrived (the shell reads that event's hash to send it again,
    ``sending``), the return of a character a scene let go that the night has not had back, and
    the end of a scene that closed while the night still holds it open. Sent again, a follow-up
    appends nothing twice: its id is the one it had the first time."""
    out: list[tuple[str, str, int] | ComeBack | NoteScene] = []
    for who, visit in night.night.where.items() if night.night else ():
        scene = scenes.get(visit.scene)
        there = scene.characters.get(who) if scene else None
        if scene is None or there is None or there.entered != visit.seq:
            out.append((who, visit.scene, visit.seq))
        elif not there.present:
            out.append(_back(scene, there))
    for held in night.night.scenes if night.night else ():
        scene = scenes.get(held.id)
        if held.open and scene is not None and scene.status == "closed":
            out.append(NoteScene(id=f"~closed-{held.id}", scene=night.id, actor=SERVER, origin=held.id, closed=True))
    return out


def _back(
    scene: Scene, character: Character, seq: int = 0, hash_: str = "", carried: Carried | None = None
) -> ComeBack:
    """The return to the night of a character who left ``scene`` (at its event ``seq``, with what
    it carried then)."""
    if carried is None:
        carried = character.carried(scene.waits_of(character.id, scene.last_at) if scene.last_at else {})
    return ComeBack(
        id=f"~back-{scene.id}-{character.id}-{character.entered}",
        scene=scene.game,
        actor=SERVER,
        character=character.id,
        origin=scene.id,
        seq=seq,
        hash=hash_,
        carried=carried,
    )
