"""Reducers of the scene itself, its characters, and the corrections of disputes and rulings;
and of what a challenge does to characters (kept on the resolved challenge, for a ruling to undo)."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.carried import Lost
from domain.change import Change, name, on
from domain.commands import Changes
from domain.events import (
    ArmorDamaged,
    ArmorRestored,
    CharacterAdded,
    CharacterAdjusted,
    CharacterAmended,
    CharacterRemoved,
    ConditionSet,
    DamageHealed,
    DamageTaken,
    DisputeOpened,
    GrappleBroken,
    GrappleStarted,
    KnockedDown,
    OutcomeCorrected,
    ProneCleared,
    Relented,
    RulingIssued,
    SceneClosed,
    SceneForked,
    SceneOpened,
    TraitLost,
    TraitRestored,
)
from domain.log import Place
from domain.rules import recorded_options
from domain.sheets import CATEGORIES, Sheet
from domain.state import (
    Challenge,
    Character,
    Conditions,
    Consequence,
    Corrected,
    DisputeRecord,
    Origin,
    Outcome,
    RulingRecord,
)

# -- the scene ---------------------------------------------------------------------------------


@on(SceneOpened)
def _opened(s: Change, e: SceneOpened, r: Place) -> None:
    s.id, s.ruleset, s.title, s.status = r.scene, e.ruleset, e.title, "open"
    s.options = recorded_options(e.ruleset, e.options)
    s.game = e.game


@on(CharacterAdded)
def _added(s: Change, e: CharacterAdded, r: Place) -> None:
    sheet = e.character
    was: Character | None = s.characters.get(sheet.id)
    if was is not None:  # one who left comes back: the one character, with what the scene did to it
        s.character(sheet.id, lambda c: replace(resheet(c, sheet), present=True, conditions=Conditions(), action=None))
        return
    s.characters[sheet.id] = Character(
        sheet=sheet, seq=r.seq, abilities=dict(sheet.abilities), willpower=sheet.willpower
    )


@on(CharacterAmended)
def _amended(s: Change, e: CharacterAmended, r: Place) -> None:
    s.character(e.character.id, lambda c: resheet(c, e.character))


def resheet(c: Character, sheet: Sheet) -> Character:
    """``c`` with a corrected ``sheet``: what the scene spent or took stays spent or taken
    (Willpower and Ability levels move by the sheet's difference, never below 0; a lost Trait stays
    lost while the sheet still has it)."""
    old = c.sheet
    abilities = {
        name: max(0, c.abilities.get(name, old.abilities.get(name, 0)) + level - old.abilities.get(name, 0))
        for name, level in sheet.abilities.items()
    }
    held: dict[tuple[str, str], int] = {}
    if sheet.traits is not None:
        held = {(t, cat): n for cat in CATEGORIES for t, n in sheet.traits.of(cat).items()}
    lost: list[Lost] = []
    for item in c.lost:
        key = (item.trait, item.category)
        if held.get(key, 0) > 0:
            held[key] -= 1
            lost.append(item)
    willpower = max(0, c.willpower + sheet.willpower - old.willpower)
    return replace(c, sheet=sheet, abilities=abilities, willpower=willpower, lost=tuple(lost))


@on(CharacterRemoved)
def _removed(s: Change, e: CharacterRemoved, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, present=False))


@on(CharacterAdjusted)
def _adjusted_(s: Change, e: CharacterAdjusted, r: Place) -> None:
    s.character(e.character, lambda c: _adjusted(c, e.changes))
    if e.changes.down_traits:  # Trait penalties are the ruleset's to keep (kony)
        s.slot(e.character, e)
    if e.ruling:
        ruled(s, e, e.ruling)
    for key in e.lifted:
        s.failures.pop(key, None)


@on(SceneClosed)
def _closed(s: Change, e: SceneClosed, r: Place) -> None:
    s.status = "closed"


@on(SceneForked)
def _forked(s: Change, e: SceneForked, r: Place) -> None:
    s.forked_from = Origin(e.scene, e.seq, e.hash)


@on(Relented)
def _relented(s: Change, e: Relented, r: Place) -> None:
    """The events that follow say what a relent did; a pool it names is the relenting side's."""
    if e.pool is not None:
        s.side(e.challenge, e.character, lambda ch, side: replace(side, pool=e.pool))


# -- what a challenge does to characters (kept on a resolved challenge, for rulings to undo) ----


def consequence(s: Change, e: Consequence) -> None:
    """Keep ``e`` on the resolved challenge it follows from, for a ruling to undo."""
    ruled(s, e)
    ch: Challenge | None = s.challenges.get(e.challenge)
    if ch is not None and ch.status == "resolved":
        s.put(replace(ch, consequences=(*ch.consequences, _kept(e))))
    elif ch is not None and isinstance(e, TraitLost):  # a loss on the way (an overbid's): not the outcome's
        s.put(replace(ch, spent=(*ch.spent, _kept(e))))


def _kept(e: Consequence) -> Consequence:
    """What a ruling needs of a consequence to undo it: its names (one copy each), not its words
    (the log has those)."""
    match e:
        case TraitLost():
            kept = {"character": name(e.character), "trait": name(e.trait), "rule": name(e.rule), "why": ""}
            return replace(e, challenge=name(e.challenge), **kept)
        case DamageTaken():  # its words are few ("1 lethal, as declared."): one copy each
            return replace(e, character=name(e.character), challenge=name(e.challenge), why=name(e.why))
        case KnockedDown() | ArmorDamaged():
            return replace(e, character=name(e.character), challenge=name(e.challenge))
        case GrappleStarted():
            return replace(e, grappler=name(e.grappler), victim=name(e.victim), challenge=name(e.challenge))
        case GrappleBroken():
            return replace(e, grappler=name(e.grappler), victim=name(e.victim), challenge=name(e.challenge), why="")
        case ConditionSet():
            return replace(e, character=name(e.character), challenge=name(e.challenge), why="")


@on(TraitLost)
def _trait_lost(s: Change, e: TraitLost, r: Place) -> None:
    lost = Lost(name(e.trait), e.category)
    s.character(e.character, lambda c: replace(c, lost=(*c.lost, lost)))
    consequence(s, e)


@on(DamageTaken)
def _damage_taken(s: Change, e: DamageTaken, r: Place) -> None:
    s.character(e.character, lambda c: replace(c, wounds=_wounded(c, e.damage, e.amount)))
    consequence(s, e)


@on(ArmorDamaged)
def _armor_damaged(s: Change, e: ArmorDamaged, r: Place) -> None:
    s.slot(e.character, e)  # armour is the ruleset's to keep (kony)
    consequence(s, e)


@on(ArmorRestored)
def _armor_restored(s: Change, e: ArmorRestored, r: Place) -> None:
    ruled(s, e)
    s.slot(e.character, e)


@on(GrappleStarted)
def _grapple_started(s: Change, e: GrappleStarted, r: Place) -> None:
    s.character(
        e.grappler,
        lambda c: replace(c, conditions=replace(c.conditions, grappling=(*c.conditions.grappling, e.victim))),
    )
    s.conditions(e.victim, grappled_by=e.grappler)
    consequence(s, e)


@on(GrappleBroken)
def _grapple_broken(s: Change, e: GrappleBroken, r: Place) -> None:
    s.character(
        e.grappler,
        lambda c: replace(
            c, conditions=replace(c.conditions, grappling=tuple(v for v in c.conditions.grappling if v != e.victim))
        ),
    )
    victim: Character | None = s.characters.get(e.victim)
    if victim is not None and victim.conditions.grappled_by == e.grappler:  # another may hold it too
        ids = [who for who in s.base.characters if who != e.grappler]
        still = next((w for w in ids if e.victim in s.characters[w].conditions.grappling), None)
        s.conditions(e.victim, grappled_by=still)
    consequence(s, e)


@on(KnockedDown)
def _knocked_down(s: Change, e: KnockedDown, r: Place) -> None:
    s.conditions(e.character, prone=True)
    consequence(s, e)


# -- disputes and rulings ----------------------------------------------------------------------


def ruled(s: Change, e: Corrected, ruling: int = 0) -> None:
    """Keep ``e`` on the ruling that made it (``RulingRecord.did``): the one it names (``ruling``, an
    amend's adjustment), else the last ruling that corrected the challenge it names: once a
    challenge is resolved, only a ruling's events name it."""
    if not s.rulings:
        return
    cid = getattr(e, "challenge", "") if not ruling else ""
    if not ruling and not cid:
        return
    for i in range(len(s.rulings) - 1, -1, -1):
        it = s.rulings[i]
        if it.id == ruling if ruling else (it.challenge == cid and it.decision != "uphold"):
            s.rulings = (*s.rulings[:i], replace(it, did=(*it.did, e)), *s.rulings[i + 1 :])
            return


@on(DisputeOpened)
def _dispute_opened(s: Change, e: DisputeOpened, r: Place) -> None:
    s.disputes = (*s.disputes, DisputeRecord(id=r.seq, event=e.event, by=e.by, reason=e.reason))


@on(RulingIssued)
def _ruling_issued(s: Change, e: RulingIssued, r: Place) -> None:
    ruling = RulingRecord(
        id=r.seq,
        event=e.event,
        decision=e.decision,
        reason=e.reason,
        why=e.why,
        challenge=e.challenge,
        winner=e.winner,
        later=tuple(e.later),
    )
    s.disputes = tuple(replace(d, status="ruled", ruling=r.seq) if d.id in e.disputes else d for d in s.disputes)
    s.rulings = (*s.rulings, ruling)


@on(OutcomeCorrected)
def _outcome_corrected(s: Change, e: OutcomeCorrected, r: Place) -> None:
    s.challenge(
        e.challenge,
        lambda ch: replace(
            ch,
            original_outcome=ch.original_outcome or ch.outcome,
            outcome=Outcome(winner=e.winner, exceptional=e.exceptional, why=e.why, rule=e.rule),
            rulings=(*ch.rulings, e.ruling),
            consequences=(),  # what follows the correction are its consequences now
        ),
    )


@on(TraitRestored)
def _trait_restored(s: Change, e: TraitRestored, r: Place) -> None:
    ruled(s, e)

    def restored(c: Character) -> Character:
        lost = list(c.lost)
        for i in range(len(lost) - 1, -1, -1):
            if lost[i] == Lost(e.trait, e.category):
                del lost[i]
                break
        return replace(c, lost=tuple(lost))

    s.character(e.character, restored)


@on(DamageHealed)
def _damage_healed(s: Change, e: DamageHealed, r: Place) -> None:
    ruled(s, e)
    s.character(e.character, lambda c: replace(c, wounds=_wounded(c, e.damage, -e.amount)))


@on(ProneCleared)
def _prone_cleared(s: Change, e: ProneCleared, r: Place) -> None:
    ruled(s, e)
    s.conditions(e.character, prone=False)


# -- helpers ---------------------------------------------------------------------------------


def _wounded(c: Character, kind: str, delta: int) -> Any:
    return replace(c.wounds, **{kind: max(0, getattr(c.wounds, kind) + delta)})


def _adjusted(c: Character, changes: Changes) -> Character:
    abilities = dict(c.abilities)
    for ability, delta in changes.abilities.items():
        abilities[ability] = abilities.get(ability, 0) + delta
    wounds = c.wounds
    for kind, delta in changes.damage.items():
        wounds = replace(wounds, **{kind: getattr(wounds, kind) + delta})
    lost = list(c.lost)
    for trait in changes.restore_traits:
        for i in range(len(lost) - 1, -1, -1):
            if lost[i].trait == trait:
                del lost[i]
                break
    for trait in changes.lose_traits:
        category = c.category_of(trait)
        if category:
            lost.append(Lost(trait, category))
    return replace(
        c,
        willpower=c.willpower + changes.willpower,
        abilities=abilities,
        wounds=wounds,
        lost=tuple(lost),
    )
