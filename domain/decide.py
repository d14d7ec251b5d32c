"""``decide``: one command against the current state, to the events it causes or ``Rejected``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import challenge, combat, deadlines, mobs, night, rulings, scene
from domain.commands import (
    AddCharacter,
    Adjust,
    AmendCharacter,
    AnswerAssist,
    AnyCommand,
    Arrive,
    Assist,
    BidTraits,
    CallNegative,
    CancelRetest,
    CarryCorrection,
    Champion,
    ChooseVictory,
    CloseGame,
    CloseScene,
    ComeBack,
    Declare,
    DeclareAction,
    DeclareTraits,
    Dispute,
    EndRound,
    EndTurn,
    ExpendituresDone,
    ExtendDeadline,
    Feed,
    IntendAttack,
    Join,
    Lapse,
    LetGo,
    MoveCharacter,
    NoteScene,
    OpenGame,
    OpenScene,
    Order,
    Pass,
    RecordTest,
    RegisterCharacter,
    Relent,
    RemoveCharacter,
    Retest,
    Roll,
    Rule,
    SetDeadlines,
    SpendBlood,
    StartRound,
    Throw,
    Withdraw,
)
from domain.context import Context, Draft
from domain.errors import Rejected
from domain.events import SceneEvent
from domain.log import format_at
from domain.state import Scene

_HANDLERS: dict[type[Any], Callable[[Draft, Any], None]] = {
    OpenScene: scene.open_scene,
    AddCharacter: scene.add_character,
    RemoveCharacter: scene.remove_character,
    AmendCharacter: scene.amend_character,
    Adjust: scene.adjust,
    CloseScene: scene.close_scene,
    Declare: challenge.declare,
    BidTraits: challenge.bid,
    Relent: challenge.relent,
    Withdraw: challenge.withdraw,
    CallNegative: challenge.call_negative,
    Throw: challenge.throw,
    Roll: challenge.roll,
    RecordTest: challenge.record_test,
    DeclareTraits: challenge.declare_traits,
    Retest: challenge.retest,
    CancelRetest: challenge.cancel_retest,
    Pass: challenge.pass_,
    Dispute: rulings.dispute,
    Rule: rulings.rule,
    Join: mobs.join,
    Champion: mobs.champion,
    ChooseVictory: mobs.choose_victory,
    StartRound: combat.start_round,
    EndRound: combat.end_round,
    Order: combat.order,
    DeclareAction: combat.declare_action,
    EndTurn: combat.end_turn,
    SpendBlood: combat.spend_blood,
    LetGo: combat.let_go,
    ExpendituresDone: combat.expenditures_done,
    Feed: combat.feed,
    IntendAttack: combat.intend_attack,
    Assist: combat.assist,
    AnswerAssist: combat.answer_assist,
    OpenGame: night.open_game,
    CloseGame: night.close_game,
    RegisterCharacter: night.register_character,
    MoveCharacter: night.move_character,
    Arrive: night.arrive,
    ComeBack: night.come_back,
    NoteScene: night.note_scene,
    CarryCorrection: night.carry_correction,
    SetDeadlines: deadlines.set_deadlines,
    ExtendDeadline: deadlines.extend_deadline,
    Lapse: deadlines.lapse,
}
OPENING = (OpenScene, OpenGame)
NIGHT_VERBS = (CloseGame, RegisterCharacter, MoveCharacter, ComeBack, NoteScene, CarryCorrection, SetDeadlines)
"""What a game night's stream takes."""
AFTER_CLOSING = (Dispute, Rule, ComeBack, NoteScene, CarryCorrection)
"""What a closed scene or night still takes: disputes and rulings, and the server's follow-ups."""


def decide(state: Scene, command: AnyCommand, ctx: Context) -> list[SceneEvent]:
    """The events ``command`` causes in ``state``; raises ``Rejected`` and nothing else."""
    if isinstance(command, OPENING):
        if state.status != "new":
            what = "game night" if state.night is not None else "scene"
            raise Rejected("scene_exists", f"There is already a {what} {command.scene!r}.")
    elif state.status == "new":
        raise Rejected("unknown_scene", f"There is no scene {command.scene!r}; open it first.")
    elif state.status == "closed" and not isinstance(command, AFTER_CLOSING):
        raise Rejected("scene_closed", f"{state.title or command.scene} is closed; only disputes and rulings go on.")
    elif state.night is not None and not isinstance(command, NIGHT_VERBS):
        raise Rejected(
            "not_a_scene", f"{state.title or command.scene} is a game night: `{command.verb}` belongs in its scenes."
        )
    if state.last_at is not None and ctx.now < state.last_at:
        raise Rejected(
            "time_out_of_order",
            f"This command is dated {format_at(ctx.now)}, before the scene's last event ({format_at(state.last_at)}).",
        )
    if state.status == "new":
        state = Scene(id=command.scene)
    draft = Draft(state, ctx, actor=command.actor, command=command.id)
    handle(draft, command)
    return draft.events


def handle(draft: Draft, command: AnyCommand) -> None:
    """Add to ``draft`` the events ``command`` causes (a lapse makes its move this way)."""
    _HANDLERS[type(command)](draft, command)
