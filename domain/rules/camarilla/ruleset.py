"""The Camarilla combat guide (docs/rules/camarilla-combat-guide.txt), on top of Laws of the Night.

What it adds: the first Trait bid fixes the kind of the challenge (and so which powers apply);
retests by category (one Ability, one Power, one Merit per side per test; miscellaneous ones as
applicable: overbid, Willpower for the target of a Mental or Social challenge, surprise, the
forced darkness retest); mixed challenges; physical mobs with a champion; combat rounds with
initiative, actions and movement; actions that need several tests (a gate test, then the one
that causes the effect, in one action); grapples and dragging; blood for Physical Traits; damage
powers that stack or modify an attack.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import ClassVar, Literal

from domain.commands import (
    AbilitySource,
    Action,
    DarknessSource,
    Declare,
    Join,
    PowerSource,
    Source,
    SurpriseSource,
    WillpowerSource,
)
from domain.effects import Damage, Dealt
from domain.errors import Rejected
from domain.events import (
    AbilitySpent,
    BloodSpent,
    BonusExpired,
    DeclarationsOpened,
    GrappleBroken,
    Leader,
    RetestInvoked,
    Role,
    SceneEvent,
    TestResolved,
    WillpowerSpent,
)
from domain.rules.base import Declaration
from domain.rules.camarilla import named, texts
from domain.rules.camarilla.powers import PHYSICAL_KINDS, POWERS, Kind, power
from domain.rules.lotn.ruleset import Lotn
from domain.rules.sheets import trait_sheet
from domain.sheets import Category
from domain.state import NARRATOR, Challenge, Character, Helper, RetestEntry, Scene, challenge_words

TURN = "camarilla:multiple-tests-turn"
TYPE = "camarilla:multiple-tests-type"
MOB_BONUS_MAX = 4
MOB_RISK_MAX = 5
_A = {"ability": "an Ability", "power": "a Power", "merit": "a Merit"}
SPECIAL_ATTACKS = frozenset({"Gentle Rebuke", "Acidic Touch", "Atrophy"})
"""Powers that replace the normal attack: they do not combine with a damaging one."""


def kind_of(character: Character, trait: str, category: Category) -> Kind:
    """The kind of a Trait: social and mental are their own; Physical ones from the sheet or catalog."""
    if category != "physical":
        return category
    bonus = next((b for b in character.bonuses if b.trait == trait), None)
    if bonus is not None:
        return bonus.kind  # type: ignore[return-value]
    return character.sheet.trait_kinds.get(trait) or PHYSICAL_KINDS.get(trait, "strength")


def has(character: Character, name: str) -> bool:
    return character.sheet.has_power(name)


class Camarilla(Lotn):
    name = "camarilla"
    listed = 2
    title = "Camarilla combat"
    rules = texts.RULES
    books: ClassVar[Mapping[str, str]] = {texts.CAM: "The Camarilla Combat Guide"}
    named = named.NAMED
    sheet_fields = trait_sheet(
        traits=("Brawny 2, Quick", "Charismatic 2", "Alert, Clever"),
        negative="Clumsy",
        abilities="Brawl 2, Dodge",
        powers="Might, Puissance",
        merits="a merit's name",
    )
    has_rounds = True
    has_mobs = True
    has_blood = True
    flags: ClassVar[tuple[str, ...]] = ("surprise", "ranged", "darkness", "defense", "immediate")
    surprise_any_round: ClassVar[bool] = False
    """Surprise in any round, not only the first (kony:surprise)."""
    one_per_target: ClassVar[bool] = True
    """One challenge of each type against a target a round (camarilla:one-per-round; kony has no
    such rule)."""
    cites: ClassVar[Mapping[str, str]] = {
        **Lotn.cites,
        "relent": "camarilla:relent",
        "retest": "camarilla:retests",
        "cancel": "camarilla:retests",
        "wait": "camarilla:five-minute-wait",
    }

    # -- declarations -----------------------------------------------------------------------

    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        me = state.characters[who]
        kind = cmd.defense or cmd.category  # a mixed challenge is of the defender's type
        target = cmd.targets[0] if cmd.targets else None
        physical_attack = cmd.kind == "contested" and kind == "physical"
        if cmd.defense is not None and cmd.kind != "contested":
            raise Rejected("no_defense", "Only a contested challenge is mixed.", "camarilla:mixed")
        if (cmd.ranged or cmd.darkness) and not physical_attack:
            raise Rejected("physical_only", "Range and darkness are for physical attacks.", "camarilla:range")
        if cmd.surprise and cmd.kind != "contested":
            raise Rejected(
                "contested_only",
                "Surprise is a retest against an opponent who could not answer: only in a contested challenge.",
                "camarilla:surprise",
            )
        if cmd.immediate and cmd.actor != NARRATOR and cmd.power not in me.sheet.immediate_powers:
            usable = ", ".join(me.sheet.immediate_powers) or "none"
            raise Rejected(
                "not_immediate",
                f'Only a power usable "immediately" or "at any time" goes before its initiative: name it as '
                f'"power" ({me.name}\'s sheet lists {usable}); or the Storyteller declares it.',
                "camarilla:initiative-exceptions",
            )
        if cmd.power in SPECIAL_ATTACKS and isinstance(cmd.effect, Damage):
            raise Rejected(
                "special_attack",
                f"{cmd.power} replaces the normal attack; it does not combine with damage.",
                "camarilla:stacking",
            )
        grappler = me.conditions.grappled_by
        if physical_attack and grappler is not None and target != grappler:
            raise Rejected(
                "grappled",
                f"{me.name} is grappled by {state.name_of(grappler)} and can attack only them.",
                "camarilla:grapple",
            )
        then = _holds_broken(me, target) if physical_attack else []
        declaration = Declaration(then=then, lead=kind_of(me, cmd.bid[0], cmd.category) if cmd.bid else None)
        r = state.round
        if r is not None and r.phase != "over":
            declaration = self._check_turn(state, cmd, who, kind, declaration)
        self._check_kind(state, cmd, who, now)
        return declaration

    def _check_turn(self, state: Scene, cmd: Declare, who: str, kind: Category, d: Declaration) -> Declaration:
        """In a round: the initiative order, actions left, one challenge of each type per target.

        An action declared with several ``categories`` takes its tests in that order, in one turn,
        against one target: the first spends the action, the rest are covered by it; every test
        but the last is a gate, and only the last (the effect) counts as a challenge of its type."""
        r = state.round
        assert r is not None
        me = state.characters[who]
        target = cmd.targets[0] if cmd.targets else None
        if cmd.surprise and not r.first and not cmd.ranged and not self.surprise_any_round:
            raise Rejected(
                "not_first_round",
                "Surprise is only in the first round of combat; a ranged attack the target cannot answer is the "
                "exception.",
                "camarilla:surprise",
            )
        # answering a physical attack with one's own: resolved on the attacker's initiative
        counter = (
            cmd.kind == "contested"
            and kind == "physical"
            and target is not None
            and any(
                ch.open
                and target in ch.challenger.members
                and who in ch.targets
                and (ch.defense or ch.category) == "physical"
                for ch in (state.challenges[cid] for cid in state.undecided)
            )
        )
        action = me.action
        gate = state.challenges.get(me.gate) if me.gate and not cmd.immediate else None
        if gate is not None:  # the action's next test, after its gate: covered by the action
            is_gate = self._next_test(state, me, gate, cmd.category, target)
        else:
            self._check_action_left(state, cmd, me, counter)
            is_gate = (
                action is not None
                and action.kind == "challenge"
                and len(action.categories) > 1
                and cmd.category == action.categories[0]
                and cmd.kind == "contested"
                and r.turn_phase == "initiative"
                and who in r.turn
                and not cmd.immediate
            )
        if r.turn_phase == "extra" and who in r.turn and kind != "physical":
            raise Rejected(
                "physical_only", "An extra action takes only physical actions.", "camarilla:multiple-actions"
            )
        if (
            r.turn_phase == "initiative"  # extra actions are not the declared one
            and action is not None
            and action.target
            and target
            and target != action.target
            and not counter
            and cmd.actor != NARRATOR
        ):
            raise Rejected(
                "not_declared",
                f"{me.name} declared an action against {state.name_of(action.target)}; another target needs the "
                "Storyteller's leave (the ST may declare it for them).",
                "camarilla:mob-mental-social",
            )
        if cmd.power and power(cmd.power).full_round and (action is None or action.kind != "full_round"):
            raise Rejected(
                "full_round", f"{cmd.power} takes the full turn: declare a full-round action.", "camarilla:full-round"
            )
        if (
            target is not None and cmd.kind == "contested" and not is_gate and self.one_per_target
        ):  # (a gate is not of its category)
            taken = [
                ch
                for ch in state.in_order()
                if ch.round == r.number
                and ch.status != "withdrawn"
                and not ch.gate
                and target in ch.targets
                and (ch.defense or ch.category) == kind
            ]
            if taken:
                hint = "join it as a mob" if kind == "physical" else "choose another target, with the ST's leave"
                raise Rejected(
                    "already_targeted",
                    f"{state.name_of(target)} is already the target of a {kind.capitalize()} challenge this round "
                    f"({challenge_words(state, taken[0])}): {hint}.",
                    "camarilla:one-per-round",
                )
        return Declaration(lead=d.lead, round=r.number, uses_action=gate is None, gate=is_gate, then=d.then)

    def _check_action_left(self, state: Scene, cmd: Declare, me: Character, counter: bool) -> None:
        """An action left, and this turn's (or an immediate power, or a counterattack)."""
        r = state.round
        assert r is not None
        who = me.id
        if (me.actions_left or 0) < 1:
            raise Rejected(
                "no_action_left",
                f"{me.name} has no action left this round: defend passively, or relent.",
                "camarilla:passive-defense",
            )
        spent = self.round_actions(state, who) - (me.actions_left or 0)
        if not cmd.immediate and spent > (r.extra if r.turn_phase == "extra" else 0):
            raise Rejected(
                "one_test_action",
                f"{me.name} has already taken this round's action that needs a test"
                + (" (extra actions come after everyone's initiative)." if r.turn_phase != "extra" else "."),
                "camarilla:taking-actions",
            )
        if not (cmd.immediate or counter):
            if r.phase == "declaring":
                raise Rejected(
                    "not_your_turn",
                    "Everyone declares an action first; then the order begins.",
                    "camarilla:order-of-actions",
                )
            if who not in r.turn:
                now = ", ".join(f"{state.name_of(w)} ({r.values.get(w, '-')})" for w in r.turn) or "nobody"
                raise Rejected(
                    "not_your_turn",
                    f"It is not {me.name}'s turn: now acting {now}; {me.name} acts on {r.values.get(who, '-')}.",
                    "camarilla:order-of-actions",
                )
            if me.acted:
                raise Rejected(
                    "one_test_action",
                    f"{me.name} has used this turn's action that needs a test.",
                    "camarilla:taking-actions",
                )

    def _next_test(self, state: Scene, me: Character, gate: Challenge, category: Category, target: str | None) -> bool:
        """The next test of a multi-test action, after its gate: won first, then the next category
        of the action against the same target. Whether it is a gate too."""
        r = state.round
        assert r is not None and me.action is not None
        categories = me.action.categories
        done = sum(
            1 for ch in state.challenges.values() if ch.gate and ch.round == r.number and ch.challenger.who == me.id
        )
        whom = state.name_of(gate.targets[0])
        test = f"{gate.category.capitalize()} test against {whom}"
        if gate.open:
            raise Rejected(
                "gate_open", f"{me.name}'s {test} is not decided yet: the action's next test comes after it.", TURN
            )
        if gate.outcome is None or gate.outcome.winner != "challenger":
            raise Rejected(
                "gate_failed",
                f"{me.name} did not win the {test}: the action ends there, and it was this turn's action.",
                TURN,
            )
        expected = categories[done]
        if category != expected or target != gate.targets[0]:
            raise Rejected(
                "next_test",
                f"{me.name}'s action goes on with its {expected.capitalize()} test against {whom} (its tests, in "
                f"order: {', '.join(categories)}).",
                TURN,
            )
        return done + 1 < len(categories)

    def check_response(self, state: Scene, ch: Challenge, who: str, bid: list[str]) -> str | None:
        attackers = len(ch.challenger.members)
        needed = min(attackers, MOB_RISK_MAX)
        category = ch.defense or ch.category
        if len(bid) != needed:
            rule = "camarilla:mob-champion" if attackers > 1 else "lotn:initial-bid"
            raise Rejected(
                "one_bid",
                f"Bid {needed} Trait(s): one for each attacker (at most {MOB_RISK_MAX}).",
                rule,
            )
        self._check_bid(state, who, category, bid)
        return kind_of(state.characters[who], bid[0], category)

    def check_join(self, state: Scene, ch: Challenge, who: str, cmd: Join) -> Declaration:
        if ch.gate:
            raise Rejected(
                "gate_test",
                f"{challenge_words(state, ch)} is a {ch.category.capitalize()} test before the effect of "
                f"{state.name_of(ch.challenger.who)}'s action: the action's type is that of its effect, "
                "and no mob forms on the test before it.",
                TYPE,
            )
        if ch.kind != "contested" or (ch.defense or ch.category) != "physical":
            raise Rejected(
                "no_mob",
                "Only physical attacks form mobs; Mental and Social challenges are resolved one by one.",
                "camarilla:mental-social",
            )
        me = state.characters[who]
        target = ch.targets[0]
        if me.conditions.grappled_by not in (None, target):
            raise Rejected("grappled", f"{me.name} can attack only their grappler.", "camarilla:grapple")
        if cmd.power is not None and not me.sheet.has_power(cmd.power):
            raise Rejected("unknown_power", f"{me.name} does not have the power {cmd.power}.")
        then = _holds_broken(me, target)
        if len(ch.challenger.members) >= 1 + MOB_BONUS_MAX + 5:
            raise Rejected("mob_full", "This mob is as large as a table can run.", "camarilla:mob-champion")
        if len(cmd.bid) != 1:
            raise Rejected("one_bid", "Bid one Trait to join the mob.", "camarilla:mob")
        self._check_bid(state, who, "physical", cmd.bid)
        lead = kind_of(me, cmd.bid[0], "physical")
        r = state.round
        if r is None or r.phase == "over":
            return Declaration(lead=lead, then=then)
        gate = state.challenges.get(me.gate) if me.gate else None
        if gate is not None:  # the effect of a multi-test action joins the mob: covered by the action
            if self._next_test(state, me, gate, "physical", target):
                raise Rejected(
                    "gate_test", f"{me.name}'s next test is before the action's effect: it forms no mob.", TYPE
                )
            return Declaration(lead=lead, round=r.number, then=then)
        if (me.actions_left or 0) < 1:
            raise Rejected("no_action_left", f"{me.name} has no action left this round.", "camarilla:passive-defense")
        return Declaration(lead=lead, round=r.number, uses_action=True, then=then)  # on the fastest one's initiative

    # -- tests ------------------------------------------------------------------------------

    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        test = ch.test
        assert test is not None
        if test.result == "tie":
            roles: tuple[Role, Role] = ("challenger", "defender")
            fleet = [role for role in roles if self._fleet(state, ch, role)]
            if len(fleet) == 1:
                who = ch.side(fleet[0]).who
                return TestResolved(
                    challenge=ch.id,
                    test=test.number,
                    leader=fleet[0],
                    why=f"A tie, and {state.name_of(who)} led with a dexterity Trait: Fleetness wins all ties.",
                    rule="camarilla:lead-trait",
                )
        return super().after_reveal(state, ch)

    def _fleet(self, state: Scene, ch: Challenge, role: Role) -> bool:
        side = ch.side(role)
        c = state.characters.get(side.who)
        return c is not None and has(c, "Fleetness") and side.lead == "dexterity"

    def max_declare(self, state: Scene, ch: Challenge, role: Role) -> int:
        most = super().max_declare(state, ch, role)
        side = ch.side(role)
        c = state.characters.get(side.who)
        if c is not None and (side.category or ch.category) == "physical" and c.conditions.moved_steps > 1:
            most -= 1  # more than one step this round: down one Physical Trait
        return max(0, most)

    def _bonus(self, ch: Challenge, role: Role) -> int:
        helpers = len(ch.side(role).helpers)
        return super()._bonus(ch, role) + min(helpers, MOB_BONUS_MAX)

    def _described(self, state: Scene, ch: Challenge, role: Role) -> str:
        text = super()._described(state, ch, role)
        helpers = len(ch.side(role).helpers)
        return text + (f" (+{min(helpers, MOB_BONUS_MAX)} from the mob)" if helpers else "")

    # -- retests ----------------------------------------------------------------------------

    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        side = ch.side(role)
        if any(
            isinstance(e.source, PowerSource) and power(e.source.name).final and e.status != "cancelled"
            for e in ch.retests
        ):
            raise Rejected("final_retest", "Might was the last retest of this challenge.", "camarilla:final-retest")
        if source.category in ("ability", "power", "merit") and any(
            e.role == role and e.source.category == source.category for e in ch.retests
        ):
            raise Rejected(
                "category_used",
                f"{state.name_of(side.who)} has already retested with {_A[source.category]} in this challenge "
                "(a cancelled one counts): one Ability, one Power and one Merit.",
                "camarilla:retest-categories",
            )
        if ch.kind == "static" and side.who != NARRATOR and source.category in ("power", "merit", "surprise"):
            raise Rejected(
                "ability_only",
                "The initiator of a static test retests with an Ability (or overbids).",
                "camarilla:retests",
            )
        match source:
            case PowerSource(name=name):
                self._check_power_retest(state, ch, role, name)
            case DarknessSource():
                raise Rejected(
                    "forced_only", "The darkness retest is forced by the rules, not called.", "camarilla:darkness"
                )
        return super().check_retest(state, ch, role, source)

    def _fitting(self, ch: Challenge, role: Role) -> Category:
        """Each side of a mixed challenge uses the Abilities of the Trait it bid."""
        return ch.side(role).category or ch.category

    def _spend(self, state: Scene, ch: Challenge, role: Role, source: Source, rule: str) -> list[SceneEvent]:
        match source:
            case WillpowerSource():
                return self._willpower(state, ch, role)
            case SurpriseSource():
                if role != "challenger" or not (ch.surprise or ch.ranged):
                    raise Rejected(
                        "no_surprise",
                        "The surprise retest belongs to a challenger whose target was surprised or could not answer.",
                        "camarilla:surprise",
                    )
                return []
        return super()._spend(state, ch, role, source, rule)

    def _check_power_retest(self, state: Scene, ch: Challenge, role: Role, name: str) -> None:
        side = ch.side(role)
        known = power(name)
        if name in POWERS and not known.retest:
            raise Rejected("no_retest", f"{name} does not grant a retest.", "camarilla:retests")
        if known.lead is not None and side.lead != known.lead:
            raise Rejected(
                "needs_lead",
                f"{name} works only when leading with a {known.lead} Trait ({state.name_of(side.who)} led with "
                f"{side.lead or 'no Trait'}).",
                "camarilla:lead-trait",
            )

    def _willpower(self, state: Scene, ch: Challenge, role: Role) -> list[SceneEvent]:
        side = ch.side(role)
        if ch.kind != "contested" or role != "defender" or (side.category or ch.category) not in ("social", "mental"):
            raise Rejected(
                "no_willpower",
                "Only the target of a Mental or Social challenge, resisting with a Social or Mental Trait, retests "
                "with Willpower; never on a static or simple test.",
                "camarilla:willpower",
            )
        c = state.characters[side.who]
        if c.willpower < 1:
            raise Rejected("no_willpower_left", f"{c.name} has no Willpower left.", "camarilla:willpower")
        return [WillpowerSpent(character=side.who, challenge=ch.id)]

    def check_cancel(
        self, state: Scene, ch: Challenge, role: Role, pending: RetestEntry, source: Source
    ) -> list[SceneEvent]:
        side = ch.side(role)
        if isinstance(pending.source, DarknessSource):
            if not (isinstance(source, AbilitySource) and source.name == "Blindfighting"):
                raise Rejected(
                    "blindfighting", "Only a level of Blindfighting negates the darkness retest.", "camarilla:darkness"
                )
            c = state.characters[side.who]
            if c.abilities.get("Blindfighting", 0) < 1:
                raise Rejected("no_ability", f"{c.name} has no Blindfighting left to spend.", "camarilla:darkness")
            return [AbilitySpent(character=side.who, ability="Blindfighting", challenge=ch.id)]
        if pending.source.category in ("overbid", "willpower", "surprise"):
            raise Rejected(
                "cannot_cancel",
                f"A {pending.source.category} retest cannot be cancelled.",
                "camarilla:miscellaneous-retests",
            )
        if isinstance(source, PowerSource):
            self._check_power_retest(state, ch, role, source.name)
        return super().check_cancel(state, ch, role, pending, source)

    def before_resolution(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        """Winning a physical challenge against a target the challenger cannot see forces one more test;
        when both are equally blind, the forced retests cancel each other."""
        test = ch.test
        if (
            ch.darkness != "challenger"
            or test is None
            or test.leader != "challenger"
            or any(isinstance(e.source, DarknessSource) for e in ch.retests)
        ):
            return []
        return [
            RetestInvoked(
                challenge=ch.id, character=ch.defender.who, source=DarknessSource(), rule="camarilla:darkness"
            )
        ]

    # -- resolution -------------------------------------------------------------------------

    def losses(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        """The Lotn losses, and each mob member's lent Traits too."""
        events = super().losses(state, ch, winner)
        losers: tuple[Role, ...] = ("challenger", "defender") if winner == "none" else (ch.other(winner),)
        why = "a draw: both sides lose the Traits they bid" if winner == "none" else "the mob lost what it lent"
        rule = "lotn:draw" if winner == "none" else "camarilla:mob-champion"
        for role in losers:
            if not self._safe(ch, role):
                for helper in ch.side(role).helpers:
                    events += self._lose_traits(state, ch, helper.who, "physical", helper.bids, why, rule)
        return events

    def settled(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        """A grapple the victim broke by winning (a relent included), and blood Traits that lasted
        one challenge."""
        events: list[SceneEvent] = []
        if (ch.defense or ch.category) == "physical" and winner != "none":
            winning, losing = ch.side(winner), ch.side(ch.other(winner))
            for victim in winning.members:
                holder = state.characters[victim].conditions.grappled_by if victim in state.characters else None
                if holder is not None and holder in losing.members:
                    why_free = f"{state.name_of(victim)} beats the grappler in a physical challenge."
                    events.append(GrappleBroken(grappler=holder, victim=victim, challenge=ch.id, why=why_free))
        for who in (*ch.challenger.members, *ch.defender.members):
            c = state.characters.get(who)
            for bonus in c.bonuses if c else ():
                if bonus.lasts == "challenge":
                    events.append(BonusExpired(character=who, trait=bonus.trait, challenge=ch.id))
        return events

    def damage(self, state: Scene, ch: Challenge, attacker: Helper, effect: Damage) -> Dealt:
        """A power used in the attack may change its type (Feral Claws); each power of the sheet that
        adds damage and fits the lead adds its own (camarilla:stacking)."""
        dealt = Dealt.of(effect)
        c = state.characters.get(attacker.who)
        if c is None:
            return dealt
        kind = power(attacker.power).damage_type if attacker.power else None
        if kind:
            dealt = dealt.then(f"{attacker.power} makes it {kind}", "camarilla:stacking", type=kind)
        for name in c.sheet.powers:
            extra = power(name).extra_damage
            if extra and power(name).lead in (None, attacker.lead):
                dealt = dealt.then(f"{name} adds {extra}", "camarilla:stacking", amount=dealt.amount + extra)
        return dealt

    def blood(self, state: Scene, who: str, kind: str) -> BloodSpent:
        c = state.characters[who]
        if c.sheet.blood - c.blood_spent < 1:
            raise Rejected("no_blood", f"{c.name} has no blood left to spend.", "camarilla:blood")
        ceiling = c.sheet.trait_max
        lasts: Literal["scene", "challenge"] = (
            "scene" if ceiling is None or c.available("physical") + 1 <= ceiling else "challenge"
        )
        trait = f"Blood{kind.capitalize()}"
        why = (
            f"{c.name} spends blood for {trait}, a {kind} Physical Trait, for the scene."
            if lasts == "scene"
            else f"{c.name} spends blood for {trait}, over the generational maximum of {ceiling}: "
            "it lasts one challenge."
        )
        return BloodSpent(character=who, trait=trait, kind=kind, lasts=lasts, why=why, rule="camarilla:blood")

    # -- rounds -----------------------------------------------------------------------------

    def round_actions(self, state: Scene, who: str) -> int:
        c = state.characters[who]
        names = list(c.sheet.powers)
        celerity = max((power(n).extra_actions for n in names if power(n).celerity), default=0)
        others = sum(power(n).extra_actions for n in names if not power(n).celerity)
        return 1 + celerity + others

    def extra_actions(self, state: Scene, who: str) -> int:
        return self.round_actions(state, who) - 1

    def initiative(self, state: Scene, who: str, action: Action) -> int:
        c = state.characters[who]
        categories: list[Category] = list(action.categories)
        if not categories:  # one test, or none (movement): Physical Traits
            categories = [action.category] if action.category and action.kind != "move" else ["physical"]
        bonus = {b.trait for b in c.bonuses}  # blood is not a base Trait: neither is losing it
        base = min(
            c.total(cat) - sum(1 for lost in c.lost if lost.category == cat and lost.trait not in bonus)
            for cat in categories
        )
        alacrity = 0 if action.kind == "full_round" else sum(power(n).initiative for n in c.sheet.powers)
        return base + alacrity

    def check_action(self, state: Scene, who: str, action: Action) -> list[SceneEvent]:
        c = state.characters[who]
        tested = action.kind in ("challenge", "end_of_turn")
        limit = 0 if action.kind == "full_round" else 3 if tested else 6
        used = action.steps + (1 if action.stand else 0)
        if used > limit:
            why = {
                0: "a full-round action allows no movement",
                3: "an action with a test allows three steps",
                6: "six steps without a test",
            }[limit]
            raise Rejected(
                "too_far",
                f"{c.name} can move at most {limit} step(s): {why}"
                + (" (standing up costs one)." if action.stand else "."),
                "camarilla:full-round" if limit == 0 else "camarilla:movement",
            )
        if action.stand and not c.conditions.prone:
            raise Rejected("not_prone", f"{c.name} is not prone.", "camarilla:movement")
        if c.conditions.prone and action.steps and not action.stand:
            raise Rejected("prone", f"{c.name} is prone: stand up first (stand, one step).", "camarilla:movement")
        if c.conditions.grappled_by and action.steps:
            raise Rejected(
                "grappled",
                f"{c.name} cannot move away from {state.name_of(c.conditions.grappled_by)}.",
                "camarilla:grapple",
            )
        if action.drag:
            if action.drag not in c.conditions.grappling:
                raise Rejected(
                    "not_grappling", f"{c.name} does not hold {state.name_of(action.drag)}.", "camarilla:dragging"
                )
            victim = state.characters[action.drag]
            stronger = c.available("physical") > victim.available("physical")
            potent = _level(c, "Potence") > _level(victim, "Potence")
            allowed = int(stronger) + 2 * int(potent) if not (stronger and potent) else 3
            if action.steps > allowed:
                raise Rejected(
                    "too_heavy",
                    f"{c.name} can drag {victim.name} {allowed} step(s) this round (more Physical Traits: one; more "
                    "Potence: two; both: three).",
                    "camarilla:dragging",
                )
            return []
        if action.steps and c.conditions.grappling:
            return [GrappleBroken(grappler=who, victim=v, why=f"{c.name} moves away.") for v in c.conditions.grappling]
        return []


def _holds_broken(me: Character, target: str | None) -> list[SceneEvent]:
    """A grappler who attacks anyone else lets the victim go."""
    return [
        GrappleBroken(grappler=me.id, victim=victim, why=f"{me.name} attacks someone else.")
        for victim in me.conditions.grappling
        if victim != target
    ]


def _level(c: Character, name: str) -> int:
    powers = c.sheet.powers
    if isinstance(powers, dict):
        return powers.get(name, 0)
    return 1 if name in powers else 0
