"""What the server does by itself: an NPC marked ``auto`` throws at random (or rolls its dice,
naming no retest) whenever a test waits on it. A pure policy over the state; the shell submits the
commands it names, as the Storyteller.

Each command's id names the test it answers, so asking twice never throws twice; it starts with
``~``, which no client's id may, so no one can take it first.
"""

from __future__ import annotations

from domain.commands import Roll, Throw
from domain.rules import ruleset_for
from domain.state import NARRATOR, Scene


def automatic(state: Scene) -> list[Throw | Roll]:
    """The throws (or rolls) owed now by NPCs the server answers for."""
    if state.status != "open":
        return []
    rules = ruleset_for(state.ruleset)
    dice = rules.die is not None
    if not dice and not rules.random_signs():
        return []
    throws: list[Throw | Roll] = []
    for ch in (state.challenges[cid] for cid in state.undecided):
        if ch.status not in ("bidding", "throwing"):
            continue
        for side in (ch.challenger, ch.defender):
            c = state.characters.get(side.who)
            if c is None or not (c.sheet.npc and c.sheet.auto) or side.throw is not None or side.owed:
                continue
            if dice:
                if side.rolled is None:
                    key = f"~auto-{ch.id}-{len(ch.tests) + 1}-{side.who}"
                    throws.append(Roll(id=key, scene=state.id, actor=NARRATOR, challenge=ch.id, character=side.who))
                continue
            throws.append(
                Throw(
                    id=f"~auto-{ch.id}-{len(ch.tests) + 1}-{side.who}",
                    scene=state.id,
                    actor=NARRATOR,
                    challenge=ch.id,
                    character=side.who,
                    sign="random",
                )
            )
    return throws
