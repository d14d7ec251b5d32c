"""Tens (tens.txt): a small d10 pool system kept in the tests. Each side rolls its pool (attribute
plus one skill) of d10s; 8, 9 and 10 are successes; more successes win, equal successes go to the
larger pool, then to the defender. No retests, no Traits lost. One option (``double_tens``) and one
round hook (``order_round``: Physical plus Mental). Everything else is the base's default."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar, Literal

from domain.commands import BidTraits, Declare, Options, Relent, Source
from domain.errors import Rejected
from domain.events import (
    DeclarationsOpened,
    InitiativeSet,
    Leader,
    Result,
    Role,
    SceneEvent,
    TestResolved,
    TestRevealed,
)
from domain.pools import DefenseKind, Modifier, Pool, PoolSpec
from domain.rules.base import Answer, Declaration, Dice, Die, Ruleset, Verdict
from domain.rules.fields import SheetField
from domain.rules.sheets import Problem
from domain.rules.words import OptionWords
from domain.sheets import CATEGORIES, Category, Sheet
from domain.state import NARRATOR, Challenge, Scene
from tests.rulesets.d10 import texts

TOP = 5
"""Attributes and skills run 1 to 5 (d10:sheet)."""
MOST = 10
"""A pool holds at most ten dice, and at least one (d10:pool)."""
DEFENSES: Mapping[Category, DefenseKind] = {"physical": "dodge", "social": "social", "mental": "mental"}
"""The defence a page asks for, by the challenge's category: the same attribute (d10:pool)."""


class D10Options(Options, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """The one house option of Tens."""

    double_tens: bool = False
    """Every 10 counts as two successes (d10:double-tens)."""


class D10(Ruleset):
    name = "d10"
    title = "Tens"
    summary = "d10 pools, a house system"
    rules = texts.RULES
    books: ClassVar[Mapping[str, str]] = {texts.DOC: "Tens, a house system"}
    options = D10Options
    option_words: ClassVar[Mapping[str, OptionWords]] = {
        "double_tens": OptionWords(label="Double tens", help="Every 10 rolled counts as two successes"),
    }
    die = Die(size=10, faces=((8, "a success"), (9, "a success"), (10, "a success")), successes=(8, 9, 10))
    stakes: ClassVar[Literal["traits", "pools"]] = "pools"
    pool_parts = ("skill",)
    """The attribute is the challenge's category's (d10:pool): a challenger names one skill."""
    answer_parts = ("defense", "skill")
    sheet_fields = (
        SheetField(name="health", label="Health levels", default=7),
        SheetField(name="attributes", label="Attributes", kind="named", default=2, hint="Physical, Social, Mental"),
        SheetField(name="skills", label="Skills", kind="named", hint="Missing skills count as 0"),
    )
    has_rounds = True
    declares_actions = False
    cites: ClassVar[Mapping[str, str]] = {
        "relent": "d10:relent",
        "test": "d10:dice",
        "retest": "d10:no-retests",
        "cancel": "d10:no-retests",
        "negative_traits": "d10:sheet",
        "declare_first": "d10:ties",
        "overbid_first": "d10:no-retests",
        "declare_fewer": "d10:ties",
        "adjudication": "d10:adjudication",
        "pools": "d10:pool",
        "order": "d10:order",
        "ties": "d10:order",
    }

    # -- the sheet --------------------------------------------------------------------------

    def sheet_problems(self, sheet: Sheet) -> list[Problem]:
        found = super().sheet_problems(sheet)
        if sheet.traits is not None:
            found.append(Problem("traits", "A Tens sheet has attributes and skills, not Traits.", True, "d10:sheet"))
        rated = {name.lower(): name for name in sheet.attributes}
        for category in CATEGORIES:
            if category not in rated:
                said = f"Give the {category.capitalize()} attribute (1 to {TOP})."
                found.append(Problem(f"attributes.{category}", said, True, "d10:sheet"))
        for key, name in rated.items():
            if key not in CATEGORIES:
                said = f"“{name}” is not an attribute: Physical, Social or Mental."
                found.append(Problem(f"attributes.{name}", said, True, "d10:sheet"))
        for field in ("attributes", "skills"):
            for name, level in getattr(sheet, field).items():
                if not 1 <= level <= TOP:
                    said = f"{name.capitalize()} {level}: {field} run 1 to {TOP}."
                    found.append(Problem(f"{field}.{name}", said, False))
        return found

    # -- declarations and pools -------------------------------------------------------------

    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        self.refuse_flags(cmd)
        if cmd.maneuvers:
            raise Rejected("unsupported", "Tens has no combat maneuvers.", "d10:adjudication")
        if cmd.kind == "simple":
            raise Rejected("unsupported", "Tens has no simple tests: declare a contested or a static one.", "d10:kinds")
        if cmd.kind == "static" and (cmd.targets or cmd.difficulty is None):
            raise Rejected(
                "difficulty_required", "A static challenge is against a difficulty, not a character.", "d10:kinds"
            )
        if cmd.kind == "contested" and (len(cmd.targets) != 1 or cmd.targets[0] == who or cmd.difficulty):
            raise Rejected("one_target", "A contested challenge is against one other character.", "d10:kinds")
        r = state.round
        if r is not None and r.phase != "over":
            me = state.characters[who]
            if who not in r.turn or me.turn_done:
                raise Rejected("not_your_turn", f"It is not {me.name}'s turn.", "d10:turns")
            if any(ch.round == r.number and ch.challenger.who == who for ch in state.challenges.values()):
                raise Rejected("one_a_round", f"{me.name} has declared a challenge this round.", "d10:turns")
        pool = self.pool(state, who, cmd.pool or PoolSpec(), cmd.category, None)
        return Declaration(pool=pool, round=r.number if r is not None and r.phase != "over" else None)

    def pool(
        self,
        state: Scene,
        who: str,
        spec: PoolSpec,
        category: Category,
        ch: Challenge | None,
        maneuvers: Sequence[str] = (),
    ) -> Pool:
        """Attribute of the challenge's category + one skill (0 when missing), 1 to 10 (d10:pool)."""
        me = state.characters[who]
        if spec.attack or spec.weapon or spec.wildcard:
            raise Rejected("bad_pool", "A Tens pool is an attribute and one skill, nothing else.", "d10:pool")
        if spec.attribute is not None and spec.attribute.lower() != category:
            raise Rejected(
                "wrong_attribute",
                f"A {category} challenge rolls {category.capitalize()}, not {spec.attribute}.",
                "d10:pool",
            )
        if spec.defense is not None and spec.defense != DEFENSES[category]:
            raise Rejected("wrong_defense", f"Against a {category} challenge, defend with {category.capitalize()}.")
        attribute = next((v for k, v in me.sheet.attributes.items() if k.lower() == category), 0)
        skill = spec.skill
        level = next((v for k, v in me.sheet.skills.items() if skill and k.lower() == skill.lower()), 0)
        total, modifiers = attribute + level, ()
        if total > MOST:
            modifiers = (Modifier(value=MOST - total, why="at most ten dice", rule="d10:pool"),)
        elif total < 1:
            modifiers = (Modifier(value=1 - total, why="at least one die", rule="d10:pool"),)
        return Pool(
            total=min(MOST, max(1, total)),
            defense=spec.defense,
            attribute=category,
            attribute_rating=attribute,
            skill=skill,
            skill_rating=level,
            modifiers=modifiers,
        )

    def answer(self, state: Scene, ch: Challenge, who: str, cmd: BidTraits) -> Answer:
        return Answer(pool=self.pool(state, who, cmd.pool or PoolSpec(), ch.category, ch))

    def defenses(self, state: Scene, ch: Challenge, who: str) -> dict[DefenseKind, Pool]:
        kind = DEFENSES[ch.category]
        return {kind: self.pool(state, who, PoolSpec(defense=kind), ch.category, ch)}

    def relented(self, state: Scene, ch: Challenge, who: str, cmd: Relent) -> Verdict:
        c, t = state.name_of(ch.challenger.who), state.name_of(who)
        return Verdict(winner="challenger", why=f"{t} relented: {c} wins without a roll.", rule="d10:relent")

    # -- the roll ---------------------------------------------------------------------------

    def dice(self, state: Scene, ch: Challenge, role: Role, retests: Sequence[Source]) -> Dice:
        if retests:
            raise Rejected("no_retests", "Tens has no retests: roll your pool as it is.", "d10:no-retests")
        pool = ch.side(role).pool
        assert pool is not None  # every side's pool is set as it declares or answers
        return Dice(count=pool.total, why=f"{pool.describe()} d10")

    def check_entered(self, state: Scene, actor: str, who: str) -> None:
        if actor != NARRATOR:
            raise Rejected(
                "dice_by_hand",
                "Only the Storyteller enters dice rolled at the table; or let the server roll.",
                "d10:dice",
            )

    def successes(self, state: Scene, dice: Sequence[int]) -> int:
        """8, 9 and 10 (d10:successes); a 10 twice with ``double_tens`` (d10:double-tens)."""
        double = state.options.double_tens  # type: ignore[attr-defined]  # a d10 scene's options are D10Options
        return sum(2 if face == 10 and double else 1 for face in dice if face >= 8)

    def reveal(
        self, state: Scene, ch: Challenge, die: Callable[[], int], rerolls: Sequence[int] | None
    ) -> TestRevealed:
        if rerolls:
            raise Rejected("no_retests", "Tens has no rerolls: the dice stand.", "d10:no-retests")
        c, d = ch.challenger, ch.defender
        assert c.rolled is not None
        dice = {c.who: list(c.rolled.dice)}
        if d.who != NARRATOR:
            assert d.rolled is not None
            dice[d.who] = list(d.rolled.dice)
        counted = {who: self.successes(state, rolled) for who, rolled in dice.items()}
        ours = counted[c.who]
        theirs = counted[d.who] if d.who != NARRATOR else ch.difficulty or 0
        result: Result = "win" if ours > theirs else "lose" if ours < theirs else "tie"
        pools = {side.who: side.pool for side in (c, d) if side.pool is not None} if not ch.tests else {}
        rule = "d10:static" if d.who == NARRATOR else "d10:successes"
        return TestRevealed(
            challenge=ch.id, test=len(ch.tests) + 1, result=result, rule=rule, dice=dice, successes=counted, pools=pools
        )

    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        test = ch.test
        assert test is not None
        c, d = ch.challenger.who, ch.defender.who
        ours = self.successes(state, test.dice[c])
        tens = " (tens count twice)" if state.options.double_tens else ""  # type: ignore[attr-defined]
        leader: Leader
        if d == NARRATOR:
            need = ch.difficulty or 0
            leader = "challenger" if ours >= need else "defender"
            verdict = "enough" if leader == "challenger" else "not enough"
            why = f"{state.name_of(c)} rolled {_faces(test.dice[c])}: {_many(ours)}{tens} against a difficulty of "
            return TestResolved(
                challenge=ch.id,
                test=test.number,
                leader=leader,
                why=f"{why}{need}, {verdict}.",
                rule="d10:static",
                compared={c: ours, "difficulty": need},
            )
        theirs = self.successes(state, test.dice[d])
        cn, dn = state.name_of(c), state.name_of(d)
        shown = f"{cn} rolled {_faces(test.dice[c])}, {dn} rolled {_faces(test.dice[d])}: {ours} against {theirs}{tens}"
        if ours != theirs:
            leader = "challenger" if ours > theirs else "defender"
            why, rule = f"{shown}; {state.name_of(ch.side(leader).who)} has more and wins.", "d10:successes"
            compared = {c: ours, d: theirs}
        else:
            mine = ch.challenger.pool.total if ch.challenger.pool else 0
            other = ch.defender.pool.total if ch.defender.pool else 0
            leader = "challenger" if mine > other else "defender"
            how = "the larger pool wins" if mine != other else "the pools are equal too: the defender holds"
            why = f"{shown}; equal successes, pools of {mine} against {other}: {how}."
            rule, compared = "d10:ties", {c: ours, d: theirs, f"{c} pool": mine, f"{d} pool": other}
        return TestResolved(challenge=ch.id, test=test.number, leader=leader, why=why, rule=rule, compared=compared)

    # -- no retests ---------------------------------------------------------------------------

    def may_retest(self, state: Scene, ch: Challenge) -> bool:
        return False

    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        raise Rejected("no_retests", "Tens has no retests: the dice stand.", "d10:no-retests")

    def outcome(self, state: Scene, ch: Challenge) -> Verdict:
        test = ch.test
        assert test is not None and test.leader is not None
        return Verdict(winner=test.leader, why=test.why or "", rule=test.rule or "d10:successes")

    # -- the round hook: the order of a fight -----------------------------------------------

    def order_round(self, state: Scene, choose: Callable[[tuple[str, ...]], str]) -> InitiativeSet:
        """Physical plus Mental, highest first; equals at once (d10:order)."""
        values = {
            c.id: sum(v for k, v in c.sheet.attributes.items() if k.lower() in ("physical", "mental"))
            for c in state.roster()
            if c.present and c.conditions.fair_escape != "escaped"
        }
        groups: list[list[str]] = []
        for who in sorted(values, key=lambda w: (-values[w], w)):
            if groups and values[groups[-1][0]] == values[who]:
                groups[-1].append(who)
            else:
                groups.append([who])
        said = ", then ".join(" and ".join(f"{state.name_of(w)} {values[w]}" for w in g) for g in groups)
        return InitiativeSet(order=groups, values=values, why=f"Physical plus Mental: {said}.", rule="d10:order")


def _faces(dice: Sequence[int]) -> str:
    return ", ".join(str(v) for v in dice) or "nothing"


def _many(n: int) -> str:
    return f"{n} success" if n == 1 else f"{n} successes"
