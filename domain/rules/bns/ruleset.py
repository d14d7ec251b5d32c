"""By Night Studios' opposed challenges (docs/rules/bns-opposed-challenges.txt) with the attack and
defence pools of its combat chapter (docs/rules/bns-complex-scenarios-combat.txt).

Each side puts in a test pool, not Traits: attribute + skill + wild card for an attack; a defence
by its kind (Dodge, Parry, Soak, or attribute + current Willpower against Mental and Social
attacks). One Rock-Paper-Scissors test; a tie goes to the attacker only with the larger pool. The
side behind may retest once with Willpower, and a side with double the other's pool once more for
free (an overbid): both stand at once, so at most three tests. Only the attacker can succeed
exceptionally: a larger pool and every test won outright. No Trait is ever lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import ClassVar

from domain.commands import (
    Action,
    Assist,
    BidTraits,
    Declare,
    OverbidSource,
    Relent,
    Source,
    WillpowerSource,
)
from domain.effects import Damage, Dealt, Narrative
from domain.errors import Rejected
from domain.events import (
    DeclarationsOpened,
    InitiativeSet,
    Leader,
    Role,
    SceneEvent,
    TestResolved,
    TurnStarted,
    WillpowerSpent,
)
from domain.pools import DefenseKind, Modifier, Pool, PoolSpec
from domain.rules.base import Answer, Declaration, ManeuverOffer, Ruleset, Verdict
from domain.rules.bns import escape as escape
from domain.rules.bns import maneuvers as maneuvers
from domain.rules.bns import mass as mass
from domain.rules.bns import named, texts
from domain.rules.bns import rounds as rounds
from domain.rules.bns import turn as turn
from domain.rules.bns.catalog import (
    ATTACKS,
    ATTRIBUTES,
    CLOSE,
    DEFENSES,
    FIGHTING_FINESSE,
    FORMS,
    IMMUNITY_MINUTES,
    LETHAL,
    RATINGS,
    SHAPESHIFTERS,
    UNPARRIED,
    lowered,
    options,
    rating,
    skill_rating,
)
from domain.rules.bns.combat import CLEARS_AFTER, MANEUVERS
from domain.rules.bns.options import OPTION_WORDS, BnsOptions
from domain.rules.bns.sheet import POOL_SHEET, pool_problems
from domain.rules.bns.state import BnsCharacter, BnsRound
from domain.rules.sheets import Problem, power_problems
from domain.sheets import Category, Sheet, Weapon
from domain.state import NARRATOR, Challenge, Character, Helper, Scene

ONLY_RETESTS = (WillpowerSource, OverbidSource)


def _weapon(sheet: Sheet, name: str) -> Weapon | None:
    return next((w for w in sheet.weapons if w.name.lower() == name.lower()), None)


def _has_merit(sheet: Sheet, merit: str) -> bool:
    return any(m.lower() == merit for m in sheet.merits)


def _total(*parts: int) -> int:
    return max(0, sum(parts))  # a negative pool is 0 (reading: the documents do not say)


class Bns(Ruleset):
    name = "bns"
    listed = 3
    title = "By Night Studios"
    summary = "test pools"
    rules = texts.RULES
    books: ClassVar[Mapping[str, str]] = {
        texts.OPPOSED: "By Night Studios, Opposed Challenges",
        texts.COMBAT: "By Night Studios, Complex Scenarios: Combat",
    }
    options = BnsOptions
    option_words = OPTION_WORDS
    named = named.NAMED
    folded = True
    sheet_fields = POOL_SHEET
    character_state = BnsCharacter
    round_state = BnsRound

    def sheet_problems(self, sheet: Sheet) -> list[Problem]:
        return pool_problems(self, sheet) + power_problems(self, sheet)

    stakes = "pools"
    pool_parts = ("attack", "attribute", "skill", "weapon", "wildcard")
    answer_parts = ("defense", "wildcard")
    flags = ("unseen", "range", "maneuver", "surprise")
    has_rounds = True
    declares_actions = False
    cites: ClassVar[Mapping[str, str]] = {
        "relent": "bns:relent",
        "test": "bns:rps",
        "retest": "bns:willpower-retest",
        "cancel": "bns:willpower-retest",
        "negative_traits": "bns:attack-pool",
        "declare_first": "bns:ties",
        "overbid_first": "bns:overbid",
        "declare_fewer": "bns:ties",
        "adjudication": "bns:victory-condition",
        "pools": "bns:attack-pool",
        "order": "bns:round",
        "ties": "bns:initiative-ties",
        # the shared lifecycle's steps, cited as they always were
        "ruling": "lotn:adjudication",
        "order_of_actions": "camarilla:order-of-actions",
        "initiative_exceptions": "camarilla:initiative-exceptions",
        "mob": "camarilla:mob",
        "mob_victory": "camarilla:mob-victory",
        "attacker_only": "bns:attacker-only",
        "fair_escape_blocked": "bns:fair-escape-blocked",
        "grapple": "bns:grapple-release",
    }

    # -- sheets and declarations ------------------------------------------------------------

    def check_sheet(self, sheet: Sheet) -> None:
        """Refuse a sheet bns cannot play, naming every wrong field."""
        problems = []
        if sheet.traits is not None:
            problems.append("`character.traits`: a bns sheet has attributes and skills, not Traits")
        names = set(lowered(sheet.attributes))
        for unknown in sorted(names - set(ATTRIBUTES) - RATINGS):
            problems.append(
                f"`character.attributes.{unknown}`: not an attribute (the nine: {', '.join(ATTRIBUTES)}; or the "
                "three ratings: physical, social, mental)"
            )
        if names & RATINGS and names & set(ATTRIBUTES):
            problems.append("`character.attributes`: give the nine attributes or the three ratings, not both")
        if not names:
            problems.append("`character.attributes` is missing: give the nine attributes or the three ratings")
        seen: set[str] = set()
        for i, weapon in enumerate(sheet.weapons):
            if weapon.name.lower() in seen:
                problems.append(f"`character.weapons[{i}].name`: there is already a weapon called {weapon.name}")
            seen.add(weapon.name.lower())
        if problems:
            raise Rejected("bad_sheet", "; ".join(problems) + ".", "bns:attack-pool")

    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        self.refuse_flags(cmd)
        me = state.characters[who]
        if cmd.surprise and "knock_out" not in cmd.maneuvers:
            raise Rejected(
                "unsupported",
                "bns plays surprise only for Knock Out; otherwise say it in the victory condition or as the wild "
                "card, and let the Storyteller judge.",
                "bns:knock-out",
            )
        blinded = me.conditions.marked("blinded") is not None and bool(cmd.targets)
        if (cmd.unseen or blinded) and "fighting_blind" not in cmd.maneuvers:
            why = "is blinded" if blinded else "cannot see the target"
            raise Rejected(
                "line_of_sight",
                f"{me.name} {why}: to attack one you cannot see, use the Fighting Blind maneuver.",
                "bns:line-of-sight",
            )
        if cmd.kind == "simple":
            raise Rejected("unsupported", "bns has no simple tests: declare an opposed or a static challenge.")
        if cmd.kind == "static":
            if not options(state).static_tests:
                raise Rejected("unsupported", "This scene plays no static challenges.", "bns:static")
            if cmd.targets:
                raise Rejected(
                    "no_targets", "A static challenge is against a difficulty, not a character.", "bns:static"
                )
            if cmd.difficulty is None:
                raise Rejected(
                    "difficulty_required", "A static challenge needs the difficulty the ST set.", "bns:static"
                )
        else:
            if len(cmd.targets) != 1:
                raise Rejected(
                    "one_target", "An opposed challenge has one target; declare one per target.", "bns:opposed"
                )
            if cmd.targets[0] == who:
                raise Rejected("self_target", f"{me.name} cannot challenge themself.", "bns:opposed")
            if cmd.difficulty is not None:
                raise Rejected("no_difficulty", "Only a static challenge has a difficulty.", "bns:static")
        if cmd.power is not None and not me.sheet.has_power(cmd.power):
            raise Rejected("unknown_power", f"{me.name} does not have the power {cmd.power}.")
        if cmd.effect is not None and not isinstance(cmd.effect, Narrative) and not cmd.targets:
            raise Rejected("effect_needs_target", "Only a narrative effect fits a challenge without a target.")
        if cmd.pool is None:
            raise Rejected("pool_required", "Say the attack's test pool (`pool`).", "bns:attack-pool")
        pool = self.attack_pool(me, cmd.category, cmd.pool)
        if cmd.kind == "contested" and cmd.category != "physical" and options(state).retry_immunity:
            self._check_immunity(state, who, cmd.targets[0], cmd.power or pool.skill or pool.attack or "action", now)
        rounds.check_reach(state, cmd, pool.attack)
        then, modifiers = rounds.in_round(state, cmd, who, now)
        if modifiers:
            pool = self.attack_pool(me, cmd.category, cmd.pool, modifiers)
        r = state.round
        return Declaration(pool=pool, then=then, round=r.number if r is not None and r.phase == "acting" else None)

    def _check_immunity(self, state: Scene, who: str, target: str, what: str | None, now: datetime) -> None:
        until = state.failures.get(immunity_key(who, target, what))
        if until is not None and now < until:
            left = int((until - now).total_seconds())
            raise Rejected(
                "immune",
                f"{state.name_of(target)} is immune to {state.name_of(who)}'s {what or 'action'} for "
                f"{left // 60}:{left % 60:02d} more (a failed Mental or Social challenge: ten minutes, and the "
                "situation must change; another power works).",
                "bns:retry-immunity",
            )

    def attack_pool(
        self, me: Character, category: Category, spec: PoolSpec, modifiers: Sequence[Modifier] = ()
    ) -> Pool:
        """The attack pool ``spec`` asks for, from ``me``'s sheet, or refused naming the rule."""
        sheet = me.sheet
        if spec.defense is not None:
            raise Rejected("attack_pool", "Attack with an attack pool, not a defence.", "bns:attack-pool")
        attack = ATTACKS.get(spec.attack) if spec.attack else None
        rule = attack.rule if attack else "bns:attack-pool"
        if attack is not None and attack.category != category:
            raise Rejected(
                "wrong_category",
                f"A {spec.attack} attack is a {attack.category.capitalize()} challenge, not a {category.capitalize()} "
                "one.",
                rule,
            )
        attribute = spec.attribute.lower() if spec.attribute else attack.attribute if attack else None
        if attribute is None and category in lowered(sheet.attributes):
            attribute = category  # a three-rating sheet: the category's rating is the attribute
        skill = spec.skill.lower() if spec.skill else attack.skill if attack else None
        if attribute is None or skill is None:
            raise Rejected(
                "pool_parts",
                "Name the attribute and the skill of this attack (the appropriate ones for what it does).",
                rule,
            )
        finesse = spec.attack in CLOSE and attribute == "dexterity" and _has_merit(sheet, FIGHTING_FINESSE)
        if attack is not None and attack.attribute and attribute != attack.attribute and not finesse:
            raise Rejected(
                "wrong_attribute",
                f"A {spec.attack} attack uses {attack.attribute.capitalize()}"
                + (" (Dexterity only with the Fighting Finesse merit)." if spec.attack in CLOSE else "."),
                "bns:fighting-finesse" if spec.attack in CLOSE else rule,
            )
        if ATTRIBUTES.get(attribute, attribute) != category:
            raise Rejected(
                "wrong_attribute",
                f"{attribute.capitalize()} is not a {category.capitalize()} attribute: the attribute reflects the "
                "type of attack.",
                "bns:attack-pool",
            )
        if spec.attack in FORMS:
            self._check_form(me, spec.attack)
        weapon = self._check_weapon(me, spec, attack.weapon if attack else None)
        return self._pool(me, spec, attribute, skill, attack=spec.attack, weapon=weapon, modifiers=modifiers)

    def _check_form(self, me: Character, attack: str) -> None:
        sheet = me.sheet
        forms = FORMS[attack]
        if (sheet.creature or "").lower() not in SHAPESHIFTERS or (sheet.form or "").lower() not in forms:
            raise Rejected(
                "wrong_form",
                f"{me.name} cannot {attack} like that: a werewolf {'bites' if attack == 'bite' else 'claws'} in "
                f"{' or '.join(sorted(f.capitalize() for f in forms))} form.",
                "bns:tooth-and-claw",
            )

    def _check_weapon(self, me: Character, spec: PoolSpec, needs: str | None) -> Weapon | None:
        weapon = _weapon(me.sheet, spec.weapon) if spec.weapon else None
        if spec.weapon and weapon is None:
            raise Rejected("unknown_weapon", f"{me.name} has no weapon called {spec.weapon}.")
        if needs == "thrown" and (weapon is None or not (weapon.throwable or weapon.kind == "thrown")):
            raise Rejected(
                "not_throwable",
                "A thrown attack needs a weapon with a quality that allows it to be thrown: name it (`weapon`).",
                "bns:thrown",
            )
        if weapon is not None and spec.attack in ("melee", "archery", "firearms") and weapon.kind != spec.attack:
            raise Rejected("wrong_weapon", f"{weapon.name} is a {weapon.kind} weapon, not for a {spec.attack} attack.")
        return weapon

    def defense_pool(self, me: Character, ch: Challenge, spec: PoolSpec) -> Pool:
        """The defence pool ``spec`` asks for against ``ch``, or refused naming the rule."""
        if spec.defense is None:
            raise Rejected("defense_pool", "Answer with a defence: dodge, parry, soak, mental or social.")
        defense = DEFENSES[spec.defense]
        category = ch.category
        if defense.category != category:
            rule = "bns:physical-defense" if category == "physical" else "bns:mental-social-defense"
            allowed = "dodge, parry or soak" if category == "physical" else category
            raise Rejected(
                "wrong_defense",
                f"A {category.capitalize()} challenge is resisted with {allowed}, not {spec.defense}.",
                rule,
            )
        weapon = _weapon(me.sheet, spec.weapon) if spec.weapon else None
        if spec.defense == "parry":
            attack = ch.challenger.pool.attack if ch.challenger.pool else None
            if attack in UNPARRIED:
                raise Rejected("no_parry", f"A {attack} attack cannot be parried.", "bns:parry")
            in_hand = weapon or next((w for w in me.sheet.weapons if w.kind == "melee"), None)
            if in_hand is None:
                raise Rejected("no_parry", f"{me.name} has no weapon to parry with.", "bns:parry")
        willpower = me.willpower if defense.willpower else 0
        prone = rounds.prone_modifier(me, ch)
        return self._pool(
            me,
            spec,
            defense.attribute,
            defense.skill,
            defense=spec.defense,
            willpower=willpower,
            weapon=weapon,
            modifiers=(prone,) if prone else (),
        )

    def pool(
        self,
        state: Scene,
        who: str,
        spec: PoolSpec,
        category: Category,
        ch: Challenge | None,
        maneuvers: Sequence[str] = (),
    ) -> Pool:
        me = state.characters[who]
        if spec.defense is None:
            return self.attack_pool(me, category, spec, rounds.attack_modifiers(state, me, category, maneuvers))
        if ch is None:
            raise Rejected("defense_pool", "A defence is against a challenge: name it (`challenge`).")
        return self.defense_pool(me, ch, spec)

    def defenses(self, state: Scene, ch: Challenge, who: str) -> dict[DefenseKind, Pool]:
        me, found = state.characters[who], dict[DefenseKind, Pool]()
        for kind in DEFENSES:
            try:
                found[kind] = self.defense_pool(me, ch, PoolSpec(defense=kind))
            except Rejected:
                continue
        return found

    def _pool(
        self,
        me: Character,
        spec: PoolSpec,
        attribute: str,
        skill: str | None,
        *,
        attack: str | None = None,
        defense: str | None = None,
        willpower: int = 0,
        weapon: Weapon | None = None,
        modifiers: Sequence[Modifier] = (),
    ) -> Pool:
        if spec.wildcard and not spec.why.strip():
            raise Rejected(
                "wildcard_why",
                "Say why the wild card (a shotgun, cover): the Storyteller judges it like anything else.",
                "bns:attack-pool",
            )
        rated = rating(me.sheet, attribute)
        if rated is None:
            raise Rejected(
                "unknown_attribute",
                f"{me.name}'s sheet has no {attribute.capitalize()} (nor its category's rating).",
                "bns:attack-pool",
            )
        skill_level = skill_rating(me.sheet, skill) if skill else 0
        bonus = weapon.bonus if weapon and defense is None else 0
        return Pool(
            total=_total(rated[1], skill_level, willpower, bonus, spec.wildcard, *(m.value for m in modifiers)),
            attack=attack,
            defense=defense,
            attribute=rated[0],
            attribute_rating=rated[1],
            skill=skill,
            skill_rating=skill_level,
            willpower=willpower,
            weapon=weapon.name if weapon and defense is None else None,
            weapon_bonus=bonus,
            wildcard=spec.wildcard,
            why=spec.why.strip(),
            modifiers=tuple(modifiers),
        )

    def answer(self, state: Scene, ch: Challenge, who: str, cmd: BidTraits) -> Answer:
        if cmd.pool is None:
            raise Rejected("pool_required", "Answer with a defence pool (`pool`).", "bns:physical-defense")
        return Answer(pool=self.defense_pool(state.characters[who], ch, cmd.pool))

    def relented(self, state: Scene, ch: Challenge, who: str, cmd: Relent) -> Verdict:
        side = ch.side(ch.role_of(who) or "defender")
        pool = side.pool
        given = None
        if pool is None:
            if cmd.pool is None:
                raise Rejected(
                    "pool_required",
                    "Say the defence you would have used (`pool`): the grade of a relent hangs on it.",
                    "bns:relent",
                )
            pool = given = self.defense_pool(state.characters[who], ch, cmd.pool)
        attack = ch.challenger.pool.total if ch.challenger.pool else 0
        exceptional = options(state).relent_exceptional and pool.total < attack
        c, t = state.name_of(ch.challenger.who), state.name_of(who)
        grade = (
            f"{t}'s pool of {pool.total} is less than {c}'s {attack}: an exceptional success"
            if exceptional
            else f"{t}'s pool of {pool.total} is not less than {c}'s {attack}: a normal success"
        )
        return Verdict(
            winner="challenger",
            why=f"{t} relented: {c} wins; {grade}.",
            rule="bns:relent",
            exceptional=exceptional,
            pool=given,
        )

    # -- tests ------------------------------------------------------------------------------

    def pools(self, ch: Challenge) -> tuple[int, int]:
        """The attack and defence totals (a static challenge's difficulty is its defence)."""
        attack = ch.challenger.pool.total if ch.challenger.pool else 0
        defense = ch.defender.pool.total if ch.defender.pool else (ch.difficulty or 0)
        return attack, defense

    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        test = ch.test
        assert test is not None and test.result is not None
        c, d = state.name_of(ch.challenger.who), state.name_of(ch.defender.who)
        attack, defense = self.pools(ch)
        signs = f"{c} threw {test.signs[ch.challenger.who]}, {d} threw {test.signs[ch.defender.who]}"
        compared = {
            ch.challenger.who: attack,
            ch.defender.who if ch.defender.who != NARRATOR else "difficulty": defense,
        }
        if test.result == "tie":
            ahead: Role = "challenger" if attack > defense else "defender"
            than = "greater than" if attack > defense else "not greater than"
            lead = state.name_of(ch.side(ahead).who)
            why = f"{signs}: a tie; {c}'s pool of {attack} is {than} {d}'s {defense}, so {lead} leads."
            return TestResolved(
                challenge=ch.id, test=test.number, leader=ahead, why=why, rule="bns:ties", compared=compared
            )
        leader: Role = "challenger" if test.result == "win" else "defender"
        rule = "bns:exceptional-success" if leader == "challenger" else "bns:losing"
        why = f"{signs}: {state.name_of(ch.side(leader).who)} wins the test."
        return TestResolved(challenge=ch.id, test=test.number, leader=leader, why=why, rule=rule, compared=compared)

    # -- retests ----------------------------------------------------------------------------

    def may_retest(self, state: Scene, ch: Challenge) -> bool:
        """Whether the side behind has a retest left (Willpower unspent here and a point of it, or
        an overbid): when not, the result is final at once (bns:willpower-retest)."""
        for role in ch.losing_roles():
            for source in (WillpowerSource(), OverbidSource()):
                try:
                    self.check_retest(state, ch, role, source)
                except Rejected:
                    continue
                return True
        return False

    def stands(self, source: Source) -> bool:
        return isinstance(source, ONLY_RETESTS)

    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        side, other = ch.side(role), ch.side(ch.other(role))
        name = state.name_of(side.who)
        if isinstance(source, WillpowerSource):
            if any(isinstance(r.source, WillpowerSource) for r in ch.retests):
                raise Rejected(
                    "source_used",
                    "This challenge has had its Willpower retest: its result is final.",
                    "bns:willpower-retest",
                )
            if side.who == NARRATOR:
                raise Rejected("narrator_retest", "A difficulty does not spend Willpower.", "bns:willpower-retest")
            if state.characters[side.who].willpower < 1:
                raise Rejected("no_willpower", f"{name} has no Willpower left to spend.", "bns:willpower-retest")
            return [WillpowerSpent(character=side.who, challenge=ch.id)]
        if isinstance(source, OverbidSource):
            if source.bid:
                raise Rejected("no_traits", "A bns overbid risks no Trait: send it without a bid.", "bns:overbid")
            mine, theirs = side.pool.total if side.pool else 0, other.pool.total if other.pool else (ch.difficulty or 0)
            if side.who == NARRATOR:
                raise Rejected("narrator_retest", "A difficulty does not overbid.", "bns:overbid")
            if side.pool is not None and side.pool.defense == "soak" and not options(state).soak_overbid:
                raise Rejected(
                    "source_not_allowed", "Soaking, the only retest is the general one: Willpower.", "bns:soak"
                )
            if any(r.role == role and isinstance(r.source, OverbidSource) for r in ch.retests):
                raise Rejected("source_used", f"{name} has already overbid in this challenge.", "bns:overbid")
            if mine < 1 or mine < 2 * theirs:
                raise Rejected(
                    "no_overbid",
                    f"An overbid needs a pool of at least double the other's: {name}'s {mine} against {theirs}.",
                    "bns:overbid",
                )
            return []
        raise Rejected(
            "source_not_allowed",
            "bns retests only with Willpower (once a challenge, the side behind) or an overbid (double the pool).",
            "bns:willpower-retest",
        )

    # -- resolution -------------------------------------------------------------------------

    def outcome(self, state: Scene, ch: Challenge) -> Verdict:
        test = ch.test
        assert test is not None and test.leader is not None
        winner: Leader = test.leader
        attack, defense = self.pools(ch)
        c = state.name_of(ch.challenger.who)
        won_all = all(t.result == "win" for t in ch.tests)
        if winner == "challenger":
            exceptional = attack > defense and won_all
            if exceptional:
                grade = f"an exceptional success: a pool of {attack} against {defense} and every test won"
            elif attack <= defense:
                grade = f"a normal success: a pool of {attack} is not greater than {defense}"
            else:
                grade = "a normal success: not every test was won outright"
            why = f"{c} succeeds, {grade}. {test.why}"
            return Verdict(
                winner=winner,
                why=why,
                rule="bns:exceptional-success" if won_all else test.rule,
                exceptional=exceptional,
                critical=self._critical(state, ch, winner),
            )
        d = state.name_of(ch.defender.who)
        why = f"{c} fails; {d} is unaffected. {test.why}"
        what = self._immune_to(state, ch)
        if what is not None:
            why += f" {d} is immune to {c}'s {what} for ten minutes."
        return Verdict(winner=winner, why=why, rule=test.rule, critical=self._critical(state, ch, winner))

    def _immune_to(self, state: Scene, ch: Challenge) -> str | None:
        """What a failed challenge makes its target immune to (a Mental or Social one's power or
        action, bns:retry-immunity), or None."""
        if not options(state).retry_immunity or ch.kind != "contested" or ch.category == "physical":
            return None
        pool = ch.challenger.pool
        return ch.power or (pool.skill or pool.attack if pool else None) or "action"

    def _critical(self, state: Scene, ch: Challenge, winner: Leader) -> str | None:
        """An unskilled side that lost the deciding test outright fails critically (never on a tie)."""
        test = ch.test
        rules = options(state)
        if test is None or not rules.unskilled_critical or test.result == "tie":
            return None
        loser = ch.challenger if test.result == "lose" else ch.defender
        if loser.pool is None or not loser.pool.unskilled or (loser is ch.defender and not rules.critical_defenders):
            return None
        return loser.who

    def wait(self, state: Scene, ch: Challenge, winner: Leader, now: datetime) -> tuple[str, datetime] | None:
        what = self._immune_to(state, ch) if winner != "challenger" else None
        if what is None:
            return None  # a failed Physical attack may be tried again next initiative (bns:retry-physical)
        return immunity_key(ch.challenger.who, ch.targets[0], what), now + timedelta(minutes=IMMUNITY_MINUTES)

    def damage(self, state: Scene, ch: Challenge, attacker: Helper, effect: Damage) -> Dealt:
        """A bite or claw is lethal (bns:tooth-and-claw), an exceptional success adds a point
        (bns:exceptional-damage), the maneuvers take theirs away (option ``damage_floor``: the
        reduction floored at 0 before the point, or after)."""
        dealt = Dealt.of(effect)
        pool = ch.challenger.pool
        if pool is not None and pool.attack in LETHAL and effect.type == "bashing":
            dealt = dealt.then(f"a {pool.attack} is lethal", "bns:tooth-and-claw", type="lethal")
        exceptional = ch.outcome is not None and ch.outcome.exceptional
        if options(state).damage_floor == "before":
            dealt = _reduced(state, ch, dealt)
        if exceptional:
            dealt = dealt.then("an exceptional success adds 1", "bns:exceptional-damage", amount=dealt.amount + 1)
        return dealt if options(state).damage_floor == "before" else _reduced(state, ch, dealt)

    def settled(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        return maneuvers.maneuver_effects(state, ch) if winner == "challenger" else []

    # -- rounds -----------------------------------------------------------------------------

    def round_budget(self, state: Scene, who: str) -> dict[str, int]:
        return dict(turn.BUDGET)

    def maneuvers(self, state: Scene, who: str) -> list[ManeuverOffer]:
        return maneuvers.offers(state, state.characters[who])

    def maneuver_title(self, name: str) -> str:
        found = MANEUVERS.get(name)
        return found.title if found else super().maneuver_title(name)

    def clears_after(self, condition: str) -> int:
        return CLEARS_AFTER.get(condition, 0)

    def rage_rounds(self, state: Scene, who: str, ruled: Mapping[str, int]) -> int:
        return ruled.get(who, state.characters[who].sheet.rage_rounds)

    def order_round(self, state: Scene, choose: Callable[[tuple[str, ...]], str]) -> InitiativeSet:
        return rounds.order_round(state, choose)

    def act(self, state: Scene, who: str, action: Action, now: datetime) -> list[SceneEvent]:
        return rounds.act(state, who, action, now)

    def extra_turn(self, state: Scene) -> TurnStarted | None:
        return rounds.extra_turn(state)

    def turn_ended(self, state: Scene, who: str) -> list[SceneEvent]:
        return escape.turn_ended(state, who)

    def phase_ended(self, state: Scene) -> list[SceneEvent]:
        return escape.phase_ended(state)

    def round_ending(self, state: Scene) -> list[SceneEvent]:
        return escape.round_ending(state)

    def intend(self, state: Scene, who: str, target: str) -> list[SceneEvent]:
        return [escape.intend(state, who, target)]

    def assist(self, state: Scene, who: str, cmd: Assist) -> list[SceneEvent]:
        return mass.assist(state, who, cmd)

    def answer_assist(self, state: Scene, who: str, offer: int, accept: bool) -> list[SceneEvent]:
        return mass.answer_assist(state, who, offer, accept)


def immunity_key(challenger: str, target: str, what: str | None) -> str:
    """What a failed Mental or Social challenge makes its target immune to: this power or action
    of this challenger's (bns:retry-immunity)."""
    return f"bns:{challenger}>{target}:{what or ''}"


def _reduced(state: Scene, ch: Challenge, dealt: Dealt) -> Dealt:
    """``dealt`` less what the attack's maneuvers take away, naming them and citing the first."""
    left = maneuvers.reduced(state, ch, dealt.amount)
    if left == dealt.amount:
        return dealt
    used = [MANEUVERS[name] for name in ch.maneuvers]
    names = " and ".join(m.title for m in used)
    rule = next((m.rule for m in used if m.reduction or m.plain_damage), used[0].rule)
    if left > dealt.amount:  # Pierce the Heart on a shapeshifter
        return dealt.then(f"{names} adds {left - dealt.amount}", rule, amount=left)
    return dealt.then(f"{names} {'takes' if len(used) == 1 else 'take'} {dealt.amount - left} away", rule, amount=left)
