"""What the server does by itself: an NPC marked ``auto`` throws at random whenever a test waits on
it. A pure policy over the state; the shell submits the commands it names, as the Storyteller.

Each command's id names the test it answers, so asking twice never throws twice; it starts with
``~``, which no client's id may, so no one can take it first.
"""

from __future__ import annotations

from domain.commands import Throw
from domain.rules import ruleset_for
from domain.state import NARRATOR, Scene


def automatic(state: Scene) -> list[Throw]:
    """The throws owed now by NPCs the server answers for (where the ruleset throws at random)."""
    if state.status != "open" or not ruleset_for(state.ruleset).random_signs():
        return []
    throws = []
    for ch in (state.challenges[cid] for cid in state.undecided):
        if ch.status not in ("bidding", "throwing"):
            continue
        for side in (ch.challenger, ch.defender):
            c = state.characters.get(side.who)
            if c is None or not (c.sheet.npc and c.sheet.auto) or side.throw is not None or side.owed:
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
