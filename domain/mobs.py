"""Physical mobs (camarilla): several attackers against one target run one challenge.

``join`` adds an attacker (its Trait bid and victory condition) before the target answers;
``champion`` names who tests for the mob (the declarer until then); when the mob wins,
``choose_victory`` picks whose victory condition applies. The ruleset checks each step and counts
the champion's bonus Traits and the Traits the target must risk.
"""

from __future__ import annotations

from domain.challenge import effects, may_act, no_challenge, open_challenge, present, thrown
from domain.commands import Champion, ChooseVictory, Join
from domain.context import Draft
from domain.errors import Rejected
from domain.events import ChampionChosen, MobJoined, VictoryChosen
from domain.rules import ruleset_for
from domain.state import NARRATOR, challenge_words


def _cite(d: Draft, step: str) -> str:
    cites = ruleset_for(d.state.ruleset).cites
    return cites.get(step, cites["adjudication"])


def join(d: Draft, cmd: Join) -> None:
    ch = open_challenge(d.state, cmd.challenge)
    who = cmd.character or d.actor
    if who == NARRATOR:
        raise Rejected("which_character", 'The Storyteller joins for a character: add "character".')
    may_act(d, who)
    present(d.state, who)
    if who in ch.targets:
        words = challenge_words(d.state, ch)
        raise Rejected(
            "already_in", f"{d.state.name_of(who)} is the target of {words}: the mob is against them.", _cite(d, "mob")
        )
    if who in ch.challenger.members:
        raise Rejected(
            "already_in", f"{d.state.name_of(who)} is already part of {challenge_words(d.state, ch)}.", _cite(d, "mob")
        )
    if ch.status != "awaiting_response":
        raise Rejected("too_late", "A mob forms before its target answers.", _cite(d, "mob"))
    joined = ruleset_for(d.state.ruleset).check_join(d.state, ch, who, cmd)
    d.add(
        MobJoined(
            challenge=ch.id,
            character=who,
            traits=cmd.bid,
            victory=cmd.victory,
            effect=cmd.effect,
            lead=joined.lead,
            power=cmd.power,
            uses_action=joined.uses_action,
            pool=joined.pool,
        ),
        *joined.then,
    )


def champion(d: Draft, cmd: Champion) -> None:
    ch = open_challenge(d.state, cmd.challenge)
    members = ch.challenger.members
    new = cmd.character
    if d.actor != NARRATOR and d.actor not in members:
        raise Rejected("forbidden", "The mob, or the Storyteller, chooses its champion.", _cite(d, "mob"))
    if new is None or new not in members:
        names = ", ".join(d.state.name_of(m) for m in members)
        raise Rejected("not_in_mob", f'Name the champion, one of the mob: {names} ("character").', _cite(d, "mob"))
    if thrown(ch):
        raise Rejected("too_late", "The champion is chosen before the test.", _cite(d, "mob"))
    d.add(ChampionChosen(challenge=ch.id, character=new, by=d.actor))


def choose_victory(d: Draft, cmd: ChooseVictory) -> None:
    ch = d.state.challenges.get(cmd.challenge)
    if ch is None:
        raise no_challenge(cmd.challenge)
    rule = _cite(d, "mob_victory")
    waiting = (
        ch.status == "resolved"
        and ch.outcome is not None
        and ch.outcome.winner == "challenger"
        and ch.challenger.helpers
        and ch.chosen is None
    )
    if not waiting:
        raise Rejected("nothing_to_choose", "Only a mob that won waits to choose a victory condition.", rule)
    if d.actor not in (NARRATOR, ch.challenger.who):
        raise Rejected("forbidden", f"{d.state.name_of(ch.challenger.who)}, the champion, chooses.", rule)
    if cmd.of not in ch.challenger.members:
        raise Rejected("not_in_mob", "Choose the victory condition of the champion or of one who lent a Trait.", rule)
    d.add(VictoryChosen(challenge=ch.id, of=cmd.of, by=d.actor))
    d.add(*effects(d.state, d.state.challenges[ch.id], "challenger"))
