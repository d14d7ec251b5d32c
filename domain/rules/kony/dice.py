"""kony's test: trait pools with their cap, how many d3s a side rolls, and what the dice say
(kings-of-new-york-combat.txt, steps 4 and 5, and the narrative test). Pure functions over the
scene; ``domain.rules.kony`` asks them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.commands import AbilitySource, MeritSource, PowerSource, SheetSource, Source
from domain.errors import Rejected
from domain.events import Leader, Result, Role, TestResolved, TestRevealed
from domain.rules.base import Dice, Die
from domain.rules.catalog import ability_fits
from domain.rules.kony.options import KonyOptions
from domain.rules.kony.state import kept
from domain.sheets import Category
from domain.state import NARRATOR, Challenge, Character, Scene

POOL_CAP = 30
"""The most Traits a pool counts, whatever the math (kony:trait-pool)."""
DARKNESS_PENALTY = 2
"""Traits down for fighting in darkness (kony:blind-fighting)."""
SEES_IN_DARKNESS = ("Auspex", "Protean")
"""Powers whose first level negates darkness (kony:blind-fighting)."""
BLIND_FIGHTING = ("Blind Fighting", "Blindfighting")
"""The Ability that negates darkness, as sheets spell it."""
RANGED_WEAPONS = frozenset({"firearms", "archery", "thrown"})
"""Weapons that let a target shoot back (kony:ranged)."""
SUCCESS, TIE = 1, 2
"""What a d3 shows (kony:successes): 1 a success, 2 a tie, 3 a failure."""
DIE = Die(size=3, faces=((SUCCESS, "a success"), (TIE, "a tie"), (3, "a failure")), successes=(SUCCESS,))
"""A d3, and what each face counts as (kony:successes), as the pages explain the dice shown."""


def options(state: Scene) -> KonyOptions:
    return state.options  # type: ignore[return-value]  # a kony scene's are its own (Kony.options)


def level(c: Character, name: str) -> int:
    powers = c.sheet.powers
    if isinstance(powers, dict):
        return powers.get(name, 0)
    return 1 if name in powers else 0


def can_shoot(c: Character) -> bool:
    """Whether a character has a means of making a ranged attack (kony:ranged)."""
    return any(w.kind in RANGED_WEAPONS for w in c.sheet.weapons)


def blind(state: Scene, ch: Challenge, role: Role) -> bool:
    """Whether this side fights in darkness (kony:blind-fighting)."""
    if ch.darkness is None:
        return False
    return ch.darkness == "both" or role == "challenger"


def sees(state: Scene, c: Character, named: Sequence[str] = ()) -> bool:
    """Whether darkness is negated: Auspex 1, Protean 1, or the Blind Fighting ability (held; or,
    with ``blind_fighting=spend``, a level named in this challenge's dice: ``named`` are the keys of
    the sources named, ``ability:Blind Fighting``)."""
    if any(level(c, power) >= 1 for power in SEES_IN_DARKNESS):
        return True
    if options(state).blind_fighting == "hold":
        return any(c.sheet.abilities.get(a, 0) >= 1 for a in BLIND_FIGHTING)
    return any(f"ability:{a}" in named for a in BLIND_FIGHTING)


def trait_pool(state: Scene, ch: Challenge, role: Role) -> tuple[int, str]:
    """A side's Trait Pool for ties: base Traits of the challenge's category, plus bonus Traits,
    less penalties and down Traits, then capped at 30 (kony:trait-pool, kony:down-traits); the
    Narrator's is the difficulty. With the words that say how: "Sam's pool of 3 (Physical 3)"."""
    pool, counted = pool_counted(state, ch, role)
    side = ch.side(role)
    if side.who == NARRATOR:
        return pool, f"the difficulty of {pool}"
    return pool, f"{state.name_of(side.who)}'s pool of {pool} ({counted})"


def pool_counted(state: Scene, ch: Challenge, role: Role) -> tuple[int, str]:
    """A side's Trait Pool (``trait_pool``) and how it is counted: "Physical 3 + 1 bonus - 1 down,
    capped at 30"; the Narrator's: "the difficulty"."""
    side = ch.side(role)
    if side.who == NARRATOR:
        return ch.difficulty or 0, "the difficulty"
    c = state.characters[side.who]
    category: Category = side.category or ch.category
    bonus = {b.trait for b in c.bonuses}
    base = c.total(category) - sum(1 for lost in c.lost if lost.category == category and lost.trait not in bonus)
    extra = len(c.bonuses) if category == "physical" else 0
    down = kept(c).down_traits + (DARKNESS_PENALTY if blind(state, ch, role) and not sees(state, c, side.named) else 0)
    total = base + extra - down
    pool = max(0, min(POOL_CAP, total))
    parts = [f"{category.capitalize()} {base}"]
    if extra:
        parts.append(f"+ {extra} bonus")
    if down:
        parts.append(f"- {down} down")
    capped = f", capped at {POOL_CAP}" if total > POOL_CAP else ""
    return pool, f"{' '.join(parts)}{capped}"


def successes(n: int) -> str:
    """ "1 success", "0 successes", "3 successes"."""
    return f"{n} success" if n == 1 else f"{n} successes"


def _many(n: int, noun: str) -> str:
    """ "1 retest", "0 retests"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def count(state: Scene, ch: Challenge, role: Role, retests: Sequence[Source]) -> Dice:
    """How many d3s: 1 + the retests named + ranged + surprise - darkness, never under one
    (kony:d3-test, kony:ranged, kony:surprise, kony:blind-fighting). Refuses a source the side may
    not name."""
    side = ch.side(role)
    c = state.characters[side.who]
    category = side.category or ch.category
    seen: set[str] = set()
    sheet_named = sum(1 for key in side.named if key == "sheet")
    spends_blind = options(state).blind_fighting == "spend"
    named = 0
    for source in retests:
        key = source.key
        if isinstance(source, SheetSource):
            sheet_named += 1
            if sheet_named > c.sheet.retests:
                raise Rejected(
                    "no_retest_left",
                    f"{c.name}'s combat sheet lists {_many(c.sheet.retests, 'retest')} for this challenge.",
                    "kony:npc-sheets",
                )
            named += 1
            continue
        if key in seen or key in side.named:
            raise Rejected(
                "source_used",
                f"{c.name} has already named {_label(source)} in this challenge: each source once.",
                "kony:d3-test",
            )
        seen.add(key)
        match source:
            case AbilitySource(name=ability):
                if c.abilities.get(ability, 0) - sealed_levels(state, c.id, ability) < 1:
                    raise Rejected(
                        "no_ability",
                        f"{c.name} has no {ability} left to spend (levels named in dice still sealed count).",
                        "kony:d3-test",
                    )
                if spends_blind and ability in BLIND_FIGHTING and blind(state, ch, role):
                    continue  # spent to negate darkness, not a die (kony:blind-fighting)
                if not ability_fits(ability, category):
                    raise Rejected(
                        "inappropriate_source", f"{ability} does not fit a {category} challenge.", "kony:d3-test"
                    )
            case PowerSource(name=power):
                if not c.sheet.has_power(power):
                    raise Rejected("unknown_power", f"{c.name} does not have the power {power}.", "kony:d3-test")
            case MeritSource(name=merit):
                if not c.sheet.has_merit(merit):
                    raise Rejected("unknown_merit", f"{c.name} does not have the merit {merit}.", "kony:d3-test")
            case _:
                raise Rejected(
                    "source_not_allowed",
                    f"A roll names Abilities, powers, merits or a combat sheet's retests, not {_label(source)}; "
                    "surprise, range and darkness are counted from the declaration.",
                    "kony:d3-test",
                )
        named += 1
    why = [f"1 + {_many(named, 'retest')}"]
    dice = 1 + named
    if role == "challenger" and ch.ranged:
        dice += 1
        why.append("+ 1 ranged (kony:ranged)")
    if role == "challenger" and ch.surprise:
        dice += 1
        why.append("+ 1 surprise (kony:surprise)")
    if blind(state, ch, role) and not sees(state, c, [*side.named, *(s.key for s in retests)]):
        dice -= 1
        why.append("- 1 darkness (kony:blind-fighting)")
    dice = max(1, dice)
    return Dice(count=dice, why=f"{' '.join(why)} = {dice} d3")


def sealed_levels(state: Scene, who: str, ability: str) -> int:
    """Levels of an Ability named in ``who``'s dice still sealed, in any challenge: spent at the
    reveal, so not to be named twice meanwhile."""
    return sum(
        1
        for ch in (state.challenges[cid] for cid in state.undecided)
        for side in (ch.challenger, ch.defender)
        if side.who == who and side.rolled is not None
        for source in side.rolled.retests
        if isinstance(source, AbilitySource) and source.name == ability
    )


def reveal(
    state: Scene, ch: Challenge, die: Callable[[], int], entered: Sequence[int] | None, test: int
) -> TestRevealed:
    """Both sides' dice shown, or a narrative test's dice after the NPC's rerolls."""
    c_side, d_side = ch.challenger, ch.defender
    assert c_side.rolled is not None
    mine = list(c_side.rolled.dice)
    retests = {c_side.who: list(c_side.rolled.retests)}
    if d_side.who == NARRATOR:
        npc = state.characters.get(ch.targets[0]) if ch.targets else None
        rerolls = min(npc.sheet.rerolls if npc else 0, mine.count(SUCCESS))
        final = list(mine)
        if rerolls:
            if entered is None and c_side.rolled.entered:  # a table that rolls its own dice rolls these too
                raise Rejected(
                    "rerolls_needed",
                    f"{state.name_of(ch.targets[0])} makes you reroll {successes(rerolls)}: enter those dice "
                    'too ("rerolls").',
                    "kony:narrative-rerolls",
                )
            new = list(entered) if entered is not None else [die() for _ in range(rerolls)]
            if len(new) != rerolls:
                raise Rejected("wrong_dice", f"Enter {_many(rerolls, 'reroll')}.", "kony:narrative-rerolls")
            for value in new:
                final[final.index(SUCCESS)] = -value  # marked, so a rerolled 1 is not rerolled again
            final = [abs(v) for v in final]
        result: Result = "win" if SUCCESS in final else "tie" if TIE in final else "lose"
        return TestRevealed(
            challenge=ch.id,
            test=test,
            result=result,
            rule="kony:narrative-test",
            dice={c_side.who: mine},
            rerolled=final if rerolls else [],
            successes={c_side.who: final.count(SUCCESS)},
            retests=retests,
        )
    assert d_side.rolled is not None
    theirs = list(d_side.rolled.dice)
    retests[d_side.who] = list(d_side.rolled.retests)
    ours, others = mine.count(SUCCESS), theirs.count(SUCCESS)
    return TestRevealed(
        challenge=ch.id,
        test=test,
        result="win" if ours > others else "lose" if ours < others else "tie",
        rule="kony:successes",
        dice={c_side.who: mine, d_side.who: theirs},
        successes={c_side.who: ours, d_side.who: others},
        retests=retests,
    )


def resolved(state: Scene, ch: Challenge) -> TestResolved:
    """Who leads once the dice are shown (kony:successes, kony:draw and its option, the narrative
    test's difficulty)."""
    test = ch.test
    assert test is not None
    c, d = ch.challenger.who, ch.defender.who
    dice = test.dice
    if d == NARRATOR:
        return _narrative(state, ch)
    ours, others = dice[c].count(SUCCESS), dice[d].count(SUCCESS)
    cn, dn = state.name_of(c), state.name_of(d)
    shown = f"{cn} rolled {_faces(dice[c])}, {dn} rolled {_faces(dice[d])}: {successes(ours)} against {others}"
    leader: Leader
    if ours != others:
        leader = "challenger" if ours > others else "defender"
        return TestResolved(
            challenge=ch.id,
            test=test.number,
            leader=leader,
            why=f"{shown}; {state.name_of(ch.side(leader).who)} has more and wins the test.",
            rule="kony:successes",
            compared={c: ours, d: others},
        )
    mode = options(state).ties
    (cp, ctext), (dp, dtext) = trait_pool(state, ch, "challenger"), trait_pool(state, ch, "defender")
    if mode == "draw":
        return TestResolved(
            challenge=ch.id,
            test=test.number,
            leader="none",
            why=f"{shown}; equal successes: a draw, and nothing happens but the bids lost.",
            rule="kony:draw",
            compared={c: ours, d: others},
        )
    if mode == "per_die":
        twos = dice[c].count(TIE) + dice[d].count(TIE)
        if cp != dp:
            ours, others = (ours + twos, others) if cp > dp else (ours, others + twos)
        leader = "challenger" if ours > others else "defender" if others > ours else "none"
        how = f"each of the {twos} 2s counts for the larger pool ({ctext} against {dtext}): {ours} against {others}"
    else:
        leader = "challenger" if cp > dp else "defender" if dp > cp else "none"
        how = f"the pools decide: {ctext} against {dtext}"
    ending = "a draw" if leader == "none" else f"{state.name_of(ch.side(leader).who)} wins the test"
    return TestResolved(
        challenge=ch.id,
        test=test.number,
        leader=leader,
        why=f"{shown}; equal successes, and {how}: {ending}.",
        rule="kony:draw",
        compared={c: ours, d: others, f"{c} pool": cp, f"{d} pool": dp},
    )


def _narrative(state: Scene, ch: Challenge) -> TestResolved:
    """A test against the ST's difficulty: any 1 left after the rerolls wins, else any 2 compares
    the Trait total with the difficulty, else a loss (kony:narrative-test, kony:narrative-retests)."""
    test = ch.test
    assert test is not None
    who = ch.challenger.who
    dice = test.dice[who]
    name = state.name_of(who)
    pool, text = trait_pool(state, ch, "challenger")
    shown = f"{name}'s dice show {_faces(dice)}"
    rule = "kony:narrative-retests" if len(dice) > 1 else "kony:narrative-test"
    if SUCCESS in dice:
        leader: Leader = "challenger"
        why = f"{shown}: a 1, a win."
    elif TIE in dice:
        equal = options(state).narrative_equal
        wins = pool > (ch.difficulty or 0) or (pool == (ch.difficulty or 0) and equal == "win")
        leader = "challenger" if wins else "defender"
        verdict = "more than" if pool > (ch.difficulty or 0) else "equal to" if pool == ch.difficulty else "less than"
        why = f"{shown}: a 2, so the Traits decide: {text}, {verdict} the difficulty of {ch.difficulty}: " + (
            "a win." if wins else "a loss."
        )
        rule = "kony:narrative-test"
    else:
        leader = "defender"
        why = f"{shown}: no 1 and no 2, a loss."
    return TestResolved(
        challenge=ch.id,
        test=test.number,
        leader=leader,
        why=why,
        rule=rule,
        compared={who: pool, "difficulty": ch.difficulty or 0},
    )


def _faces(dice: Sequence[int]) -> str:
    return ", ".join(str(v) for v in dice) or "nothing"


def _label(source: Source) -> str:
    name = getattr(source, "name", None)
    return f"{source.category} {name}" if name else f"a {source.category}"
