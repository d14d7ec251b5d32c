"""``decide``: one command against the current state, to the events it causes or ``Rejected``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import challenge, combat, mobs, rulings, scene
from domain.commands import (
    AddCharacter,
    Adjust,
    AnswerAssist,
    AnyCommand,
    Assist,
    BidTraits,
    CallNegative,
    CancelRetest,
    Champion,
    ChooseVictory,
    CloseScene,
    Declare,
    DeclareAction,
    DeclareTraits,
    Dispute,
    EndRound,
    EndTurn,
    ExpendituresDone,
    Feed,
    IntendAttack,
    Join,
    LetGo,
    OpenScene,
    Order,
    Pass,
    RecordTest,
    Relent,
    RemoveCharacter,
    Retest,
    Roll,
    Rule,
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
}


def decide(state: Scene, command: AnyCommand, ctx: Context) -> list[SceneEvent]:
    """The events ``command`` causes in ``state``; raises ``Rejected`` and nothing else."""
    if isinstance(command, OpenScene):
        if state.status != "new":
            raise Rejected("scene_exists", f"Scene {command.scene!r} is already open.")
    elif state.status == "new":
        raise Rejected("unknown_scene", f"There is no scene {command.scene!r}; open it first.")
    elif state.status == "closed" and not isinstance(command, Dispute | Rule):
        raise Rejected("scene_closed", f"Scene {command.scene!r} is closed; only disputes and rulings go on.")
    if state.last_at is not None and ctx.now < state.last_at:
        raise Rejected(
            "time_out_of_order",
            f"This command is dated {format_at(ctx.now)}, before the scene's last event ({format_at(state.last_at)}).",
        )
    if state.status == "new":
        state = Scene(id=command.scene)
    draft = Draft(state, ctx, actor=command.actor, command=command.id)
    _HANDLERS[type(command)](draft, command)
    return draft.events
