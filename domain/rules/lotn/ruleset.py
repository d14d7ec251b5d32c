"""Laws of the Night challenges (docs/rules/laws-of-the-night-challenges.txt).

Trait bids of one category, Rock-Paper-Scissors, ties settled by declared Trait counts (challenger
first, never more than available), Negative Trait calls, overbids at double, static challenges
against a difficulty, simple tests, and retests from different sources, cancelled in kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import ClassVar

from domain.commands import (
    AbilitySource,
    Declare,
    MeritSource,
    OverbidSource,
    PowerSource,
    Source,
)
from domain.effects import Narrative
from domain.errors import Rejected
from domain.events import (
    AbilitySpent,
    DeclarationsOpened,
    Leader,
    NegativeTraitCalled,
    OverbidFailed,
    OverbidSucceeded,
    Result,
    Role,
    SceneEvent,
    TestResolved,
    TraitLost,
)
from domain.rules.base import Declaration, Ruleset, Verdict
from domain.rules.catalog import BEATS, GESTURES, SIGNS, ability_fits
from domain.rules.lotn import named, texts
from domain.rules.sheets import TRAIT_SHEET, Problem, power_problems, trait_problems
from domain.sheets import CATEGORIES, Category, Sheet
from domain.state import NARRATOR, Challenge, RetestEntry, Scene

WAIT = timedelta(minutes=5)
WAIT_CATEGORIES: frozenset[Category] = frozenset({"social", "mental"})


def repeat_key(challenger: str, targets: list[str] | tuple[str, ...], category: str, power: str | None) -> str:
    """What counts as repeating a challenge: same challenger, targets, category and power."""
    return f"{challenger}>{','.join(sorted(targets))}:{category}:{power or ''}"


def _title(category: str) -> str:
    return category.capitalize()


class Lotn(Ruleset):
    name = "lotn"
    listed = 1
    title = "Laws of the Night"
    rules = texts.RULES
    books: ClassVar[Mapping[str, str]] = {texts.LOTN: "Laws of the Night"}
    repeat_wait = "five minutes"
    named = named.NAMED
    sheet_fields = TRAIT_SHEET

    def sheet_problems(self, sheet: Sheet) -> list[Problem]:
        return trait_problems(self, sheet) + power_problems(self, sheet)

    cites: ClassVar[Mapping[str, str]] = {
        "relent": "lotn:relent",
        "test": "lotn:rps",
        "retest": "lotn:retests",
        "cancel": "lotn:retest-cancel",
        "negative_traits": "lotn:negative-traits",
        "declare_first": "lotn:challenger-declares-first",
        "overbid_first": "lotn:overbid-double",
        "declare_fewer": "lotn:declare-fewer",
        "adjudication": "lotn:adjudication",
        "wait": "lotn:five-minute-wait",
        "ties": "lotn:ties",
        "draw": "lotn:draw",
        "static": "lotn:static",
        "simple": "lotn:simple",
        "overbid_failed": "lotn:overbid",
        # the shared lifecycle's steps, cited as they always were
        "ruling": "lotn:adjudication",
        "order_of_actions": "camarilla:order-of-actions",
        "initiative_exceptions": "camarilla:initiative-exceptions",
        "grapple": "camarilla:grapple",
        "mob": "camarilla:mob",
        "mob_victory": "camarilla:mob-victory",
        "attacker_only": "bns:attacker-only",
        "fair_escape_blocked": "bns:fair-escape-blocked",
    }

    # -- sheets and declarations ------------------------------------------------------------

    def check_sheet(self, sheet: Sheet) -> None:
        if sheet.traits is None:
            raise Rejected(
                "bad_sheet",
                f"`character.traits` is missing: a {self.name} sheet lists Physical, Social and Mental Traits.",
                "lotn:categories",
            )
        seen: dict[str, str] = {}
        for category in CATEGORIES:
            for trait in sheet.traits.of(category):
                if trait in seen:
                    raise Rejected(
                        "bad_sheet",
                        f"`character.traits.{category}.{trait}`: {trait} is already a "
                        f"{_title(seen[trait])} Trait; a Trait belongs to one category.",
                        "lotn:categories",
                    )
                seen[trait] = category
        for i, gesture in enumerate(sheet.gestures):
            if gesture not in GESTURES:
                raise Rejected(
                    "bad_sheet",
                    f"`character.gestures[{i}]`: “{gesture}” is not a known gesture "
                    f"(known: {', '.join(sorted(GESTURES))}).",
                    "lotn:gestures",
                )

    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        self.refuse_flags(cmd)
        self._check_kind(state, cmd, who, now)
        return Declaration()

    def _check_kind(self, state: Scene, cmd: Declare, who: str, now: datetime) -> None:
        """The declaration's kind, targets, bid, difficulty, effect, power and wait."""
        name = state.name_of(who)
        if cmd.kind == "contested":
            if len(cmd.targets) != 1:
                raise Rejected(
                    "one_target",
                    "A challenge has exactly one target here; declare one challenge per target.",
                    "lotn:initial-bid",
                )
            if cmd.targets[0] == who:
                raise Rejected("self_target", f"{name} cannot challenge themself.", "lotn:initial-bid")
            if cmd.difficulty is not None:
                raise Rejected("no_difficulty", "Only a static challenge has a difficulty.", self.cites["static"])
            self._check_initial(state, who, cmd.category, cmd.bid, "lotn:initial-bid")
        else:
            rule = self.cites["static" if cmd.kind == "static" else "simple"]
            if cmd.targets:
                raise Rejected(
                    "no_targets",
                    f"A {cmd.kind} test is against the Narrator, not a character; declare a "
                    "contested challenge to act against someone.",
                    rule,
                )
            if cmd.kind == "static":
                if cmd.difficulty is None:
                    raise Rejected(
                        "difficulty_required",
                        "A static challenge needs the difficulty the Narrator set, in Traits.",
                        rule,
                    )
                self._check_initial(state, who, cmd.category, cmd.bid, rule)
            else:
                if cmd.difficulty is not None:
                    raise Rejected(
                        "no_difficulty",
                        "A simple test has no difficulty: it needs a win or a tie.",
                        rule,
                    )
                if len(cmd.bid) > 1:
                    raise Rejected("one_bid", "A simple test risks one Trait at most.", rule)
                self._check_bid(state, who, cmd.category, cmd.bid)
        if cmd.require_win and cmd.kind != "simple":
            raise Rejected("require_win_simple", "Only a simple test can require a win.", self.cites["simple"])
        if cmd.effect is not None and not isinstance(cmd.effect, Narrative) and not cmd.targets:
            raise Rejected(
                "effect_needs_target",
                f"A {cmd.effect.__struct_config__.tag} effect needs a target; use a narrative "
                "effect for a test against the Narrator.",
            )
        character = state.characters[who]
        if cmd.power is not None and not character.sheet.has_power(cmd.power):
            raise Rejected("unknown_power", f"{name} does not have the power {cmd.power}.")
        if cmd.category in WAIT_CATEGORIES:
            until = state.failures.get(repeat_key(who, cmd.targets, cmd.category, cmd.power))
            if until is not None and now < until:
                left = int((until - now).total_seconds())
                raise Rejected(
                    "wait_required",
                    f"{name} failed this {_title(cmd.category)} challenge and must wait five "
                    f"real-time minutes before repeating it: {left // 60}:{left % 60:02d} to go "
                    f"(from {until:%H:%M:%S} UTC).",
                    self.cites["wait"],
                )

    def check_response(self, state: Scene, ch: Challenge, who: str, bid: list[str]) -> str | None:
        self._check_initial(state, who, ch.category, bid, "lotn:initial-bid")
        return None

    def check_owed_bid(self, state: Scene, ch: Challenge, role: Role, bid: list[str]) -> None:
        side = ch.side(role)
        if not bid:
            raise Rejected("one_bid", f"Bid the Trait(s) {state.name_of(side.who)} owes.", "lotn:negative-traits")
        if len(bid) > side.owed:
            raise Rejected(
                "too_many_traits",
                f"{state.name_of(side.who)} owes {side.owed} more Trait(s), not {len(bid)}.",
                "lotn:negative-traits",
            )
        self._check_bid(state, side.who, side.category or ch.category, bid, already=side.bids)

    def call_negative(self, state: Scene, ch: Challenge, role: Role, trait: str) -> NegativeTraitCalled:
        caller, opponent = ch.side(role), ch.side(ch.other(role))
        if ch.kind != "contested":
            raise Rejected(
                "no_opponent",
                "Negative Traits are called against an opponent; this test has none.",
                "lotn:negative-traits",
            )
        if any(call.by == caller.who and call.trait == trait for call in ch.calls):
            raise Rejected(
                "already_called",
                f"{state.name_of(caller.who)} has already called {trait} in this challenge.",
                "lotn:negative-traits",
            )
        if self._spare(state, ch, role) + caller.owed < 1:  # owed bids not yet made still count as Traits in hand
            raise Rejected(
                "cannot_pay",
                f"{state.name_of(caller.who)} has no Trait left to risk if the call is wrong; "
                "you may call Negative Traits only while you can pay for being wrong.",
                "lotn:negative-traits",
            )
        target = state.characters[opponent.who].sheet.negative_traits
        correct = any(trait in target.of(category) for category in CATEGORIES)
        owed_role = ch.other(role) if correct else role
        matched = self._spare(state, ch, owed_role) >= 1
        return NegativeTraitCalled(
            challenge=ch.id,
            by=caller.who,
            against=opponent.who,
            trait=trait,
            correct=correct,
            owed_by=ch.side(owed_role).who,
            matched=matched,
            rule="lotn:negative-traits" if matched else "lotn:negative-traits-unmatched",
        )

    # -- tests ------------------------------------------------------------------------------

    def random_signs(self) -> tuple[str, ...]:
        return SIGNS

    def check_sign(self, state: Scene, who: str, sign: str) -> None:
        if sign in SIGNS:
            return
        character = state.characters.get(who)
        if sign in GESTURES:
            if character is None or sign not in character.sheet.gestures:
                raise Rejected(
                    "gesture_not_granted",
                    f"{state.name_of(who)}'s sheet does not grant the {sign} gesture.",
                    "lotn:gestures",
                )
            return
        extra = [g for g in character.sheet.gestures if g in GESTURES] if character else []
        allowed = ", ".join([*SIGNS, *extra, "random"])
        raise Rejected("unknown_sign", f"“{sign}” is not a sign; throw one of: {allowed}.", "lotn:rps")

    def compare_signs(self, challenger: str, defender: str) -> Result:
        if defender in BEATS.get(challenger, ()):
            return "win"
        if challenger in BEATS.get(defender, ()):
            return "lose"
        return "tie"

    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        test = ch.test
        assert test is not None and test.result is not None
        c, d = state.name_of(ch.challenger.who), state.name_of(ch.defender.who)
        signs = f"{c} threw {test.signs[ch.challenger.who]}, {d} threw {test.signs[ch.defender.who]}"
        if ch.kind == "simple":
            success = test.result == "win" or (test.result == "tie" and not ch.require_win)
            needs = "a win" if ch.require_win else "a win or a tie"
            return TestResolved(
                challenge=ch.id,
                test=test.number,
                leader="challenger" if success else "defender",
                why=f"{signs}: a {test.result}; the simple test needs {needs}, so it "
                f"{'succeeds' if success else 'fails'}.",
                rule=self.cites["simple"],
            )
        if test.result == "tie":
            return DeclarationsOpened(
                challenge=ch.id,
                test=test.number,
                purpose="tie",
                first=ch.challenger.who,
                rule="lotn:challenger-declares-first",
            )
        leader: Leader = "challenger" if test.result == "win" else "defender"
        winner = c if leader == "challenger" else d
        return TestResolved(
            challenge=ch.id,
            test=test.number,
            leader=leader,
            why=f"{signs}: {winner} wins the test.",
            rule="lotn:rps",
        )

    def max_declare(self, state: Scene, ch: Challenge, role: Role) -> int:
        side = ch.side(role)
        if side.who == NARRATOR:
            return ch.difficulty or 0
        return state.characters[side.who].available(side.category or ch.category)

    def settle_declarations(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        if ch.declaring == "overbid":
            return self._settle_overbid(state, ch)
        return [self._settle_tie(state, ch)]

    # -- retests ----------------------------------------------------------------------------

    def may_retest(self, state: Scene, ch: Challenge) -> bool:
        return ch.kind != "simple"

    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        side = ch.side(role)
        if any(entry.role == role and entry.source.key == source.key for entry in ch.retests):
            raise Rejected(
                "source_used",
                f"{state.name_of(side.who)} has already retested with {_label(source)} in this challenge; each "
                "retest must come from a different source.",
                "lotn:retests",
            )
        if isinstance(source, OverbidSource):
            return self._overbid(state, ch, role, source)
        if side.who == NARRATOR:
            raise Rejected(
                "narrator_retest",
                "The Narrator's only retest in a static challenge is an overbid.",
                "lotn:static-overbid",
            )
        return self._spend(state, ch, role, source, "lotn:retests")

    def check_cancel(
        self, state: Scene, ch: Challenge, role: Role, pending: RetestEntry, source: Source
    ) -> list[SceneEvent]:
        side = ch.side(role)
        if side.who == NARRATOR:
            raise Rejected(
                "narrator_cancel",
                "The Narrator does not cancel retests in a static challenge.",
                "lotn:retest-cancel",
            )
        if source.category != pending.source.category:
            raise Rejected(
                "category_mismatch",
                f"A {_label(pending.source)} retest is cancelled only by a matching "
                f"{pending.source.category} (as Dodge blocks Firearms), not by {_label(source)}.",
                "lotn:retest-cancel",
            )
        return self._spend(state, ch, role, source, "lotn:retest-cancel")

    # -- resolution -------------------------------------------------------------------------

    def outcome(self, state: Scene, ch: Challenge) -> Verdict:
        test = ch.test
        assert test is not None and test.leader is not None
        c = state.name_of(ch.challenger.who)
        if test.leader == "none":
            why = f"The last test was a draw: neither side wins. {test.why}"
            return Verdict(winner="none", why=why, rule=self.cites["draw"])
        if ch.kind != "contested":
            done = "succeeds" if test.leader == "challenger" else "fails"
            return Verdict(winner=test.leader, why=f"{c}'s {ch.kind} test {done}. {test.why}", rule=test.rule)
        winner = state.name_of(ch.side(test.leader).who)
        return Verdict(winner=test.leader, why=f"{winner} wins the challenge. {test.why}", rule=test.rule)

    def losses(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        losers: tuple[Role, ...] = ("challenger", "defender") if winner == "none" else (ch.other(winner),)
        rule = self.cites["draw"] if winner == "none" else "lotn:trait-loss"
        events: list[SceneEvent] = []
        for role in losers:
            side = ch.side(role)
            if side.who == NARRATOR:
                continue
            why = (
                "the challenge was a draw: both sides lose the Traits they bid"
                if winner == "none"
                else "the loser loses the Traits bid, for the rest of the session"
            )
            events += self._lose(state, ch, role, self._at_risk(ch, role), why, rule)
        return events

    def wait(self, state: Scene, ch: Challenge, winner: Leader, now: datetime) -> tuple[str, datetime] | None:
        if ch.category not in WAIT_CATEGORIES or winner == "challenger":
            return None
        return repeat_key(ch.challenger.who, ch.targets, ch.category, ch.power), now + WAIT

    # -- the policies behind the answers ----------------------------------------------------

    def _check_initial(self, state: Scene, who: str, category: Category, bid: list[str], rule: str) -> None:
        if len(bid) != 1:
            raise Rejected(
                "one_bid",
                f"Bid exactly one Trait to begin (you bid {len(bid)}); more are bid only when a "
                "Negative Trait call or an overbid asks for them.",
                rule,
            )
        self._check_bid(state, who, category, bid)

    def _check_bid(
        self,
        state: Scene,
        who: str,
        category: Category,
        bid: list[str],
        already: tuple[str, ...] = (),
    ) -> None:
        character = state.characters[who]
        used = Counter(already)
        for trait in bid:
            found = character.category_of(trait, category)
            if found is None:
                raise Rejected("unknown_trait", f"{character.name} has no Trait called {trait}.")
            if found != category and not state.options.cross_category_bids:
                raise Rejected(
                    "wrong_category",
                    f"{trait} is a {_title(found)} Trait and this is a {_title(category)} "
                    f"challenge; bid a {_title(category)} Trait (other categories only if the "
                    "scene's options allow it by agreement).",
                    "lotn:categories",
                )
            used[trait] += 1
            if used[trait] > character.left(trait, found):
                raise Rejected(
                    "trait_unavailable",
                    f"{character.name} has no {trait} left to bid: it is lost tonight or already "
                    "bid in this challenge.",
                    "lotn:trait-loss",
                )

    def _spare(self, state: Scene, ch: Challenge, role: Role) -> int:
        """Traits a side could still add to its bid."""
        side = ch.side(role)
        character = state.characters.get(side.who)
        if character is None:
            return 0
        if state.options.cross_category_bids:
            pool = sum(character.available(category) for category in CATEGORIES)
        else:
            pool = character.available(side.category or ch.category)
        return pool - len(side.bids) - side.owed

    def _safe(self, ch: Challenge, role: Role) -> bool:
        """Whether a correct call the other side could not match took this side's bid off risk."""
        other = ch.side(ch.other(role)).who
        return any(not call.matched and call.owed_by == other for call in ch.calls)

    def _at_risk(self, ch: Challenge, role: Role) -> tuple[str, ...]:
        return () if self._safe(ch, role) else ch.side(role).bids

    def _bonus(self, ch: Challenge, role: Role) -> int:
        """Extra Traits a side counts on ties and overbids."""
        return self._call_bonus(ch, role)

    def _call_bonus(self, ch: Challenge, role: Role) -> int:
        """Every unmatched Negative Trait call, once there is more than one."""
        other = ch.side(ch.other(role)).who
        unmatched = sum(1 for call in ch.calls if not call.matched and call.owed_by == other)
        return unmatched if unmatched > 1 else 0

    def _count(self, ch: Challenge, role: Role) -> int:
        side = ch.side(role)
        if side.who == NARRATOR:
            return ch.difficulty or 0
        return (side.declared or 0) + self._bonus(ch, role)

    def _lose(
        self, state: Scene, ch: Challenge, role: Role, traits: tuple[str, ...], why: str, rule: str
    ) -> list[SceneEvent]:
        side = ch.side(role)
        return self._lose_traits(state, ch, side.who, side.category or ch.category, traits, why, rule)

    def _lose_traits(
        self, state: Scene, ch: Challenge, who: str, lead: Category, traits: tuple[str, ...], why: str, rule: str
    ) -> list[SceneEvent]:
        """The Traits lost, never more copies than are left (the same Trait may have been at risk
        in two open challenges at once, and lost in the first)."""
        character = state.characters[who]
        taken: Counter[str] = Counter()
        events: list[SceneEvent] = []
        for trait in traits:
            category = character.category_of(trait, lead) or lead
            taken[trait] += 1
            if taken[trait] > character.left(trait, category):
                continue
            events.append(
                TraitLost(
                    character=who,
                    trait=trait,
                    category=category,
                    challenge=ch.id,
                    why=f"{character.name} loses {trait}: {why}.",
                    rule=rule,
                )
            )
        return events

    def _described(self, state: Scene, ch: Challenge, role: Role) -> str:
        side = ch.side(role)
        if side.who == NARRATOR:
            return f"the difficulty of {ch.difficulty}"
        bonus = self._call_bonus(ch, role)
        extra = f" (+{bonus} for unmatched Negative Trait calls)" if bonus else ""
        return f"{state.name_of(side.who)}'s {side.declared}{extra}"

    def _settle_tie(self, state: Scene, ch: Challenge) -> TestResolved:
        test = ch.test
        assert test is not None
        c, d = self._count(ch, "challenger"), self._count(ch, "defender")
        leader: Leader = "challenger" if c > d else "defender" if c < d else "none"
        category = _title(ch.challenger.category or ch.category)
        compared_text = (
            f"{self._described(state, ch, 'challenger')} {category} Traits against "
            f"{self._described(state, ch, 'defender')}"
        )
        if ch.kind == "static":
            leader = "challenger" if c > d else "defender"
            verdict = "more than the difficulty: success" if c > d else "not more than the difficulty: failure"
            rule = self.cites["static"]
        elif leader == "none":
            verdict = "equal counts: a draw"
            rule = self.cites["draw"]
        else:
            verdict = f"{state.name_of(ch.side(leader).who)} has more and wins the test"
            rule = self.cites["ties"]
        compared = {ch.challenger.who: c}
        compared["difficulty" if ch.defender.who == NARRATOR else ch.defender.who] = d
        return TestResolved(
            challenge=ch.id,
            test=test.number,
            leader=leader,
            why=f"A tie: {compared_text}; {verdict}.",
            rule=rule,
            compared=compared,
        )

    def _overbid(self, state: Scene, ch: Challenge, role: Role, source: OverbidSource) -> list[SceneEvent]:
        side = ch.side(role)
        test = ch.test
        assert test is not None
        opened = DeclarationsOpened(
            challenge=ch.id,
            test=test.number,
            purpose="overbid",
            first=side.who,
            rule="lotn:overbid-double",
        )
        if side.who == NARRATOR:
            if source.bid:
                raise Rejected("narrator_bid", "The Narrator risks no Trait to overbid.", "lotn:static-overbid")
            return [opened]
        if len(source.bid) != 1:
            raise Rejected("one_bid", "To overbid, risk exactly one new Trait.", "lotn:overbid")
        self._check_bid(state, side.who, side.category or ch.category, source.bid, already=side.bids)
        lost = self._lose(
            state,
            ch,
            role,
            self._at_risk(ch, role),
            f"{state.name_of(side.who)} lost the test, and an overbid risks a new Trait",
            "lotn:overbid",
        )
        return [*lost, opened]

    def _settle_overbid(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        entry = ch.pending_retest
        assert entry is not None
        role, other = entry.role, ch.other(entry.role)
        mine, theirs = self._count(ch, role), self._count(ch, other)
        who = ch.side(role).who
        compared = {
            ("difficulty" if who == NARRATOR else who): mine,
            ("difficulty" if ch.side(other).who == NARRATOR else ch.side(other).who): theirs,
        }
        text = f"{self._described(state, ch, role)} against {self._described(state, ch, other)}"
        if mine >= 2 * theirs:
            return [
                OverbidSucceeded(
                    challenge=ch.id,
                    character=who,
                    compared=compared,
                    why=f"Overbid: {text}; double or more, so a new test.",
                    rule="lotn:overbid-double",
                )
            ]
        failed: list[SceneEvent] = [
            OverbidFailed(
                challenge=ch.id,
                character=who,
                compared=compared,
                why=f"Overbid: {text}; {mine} is less than double {theirs}, so the result stands.",
                rule="lotn:overbid-double",
            )
        ]
        if who != NARRATOR:
            failed += self._lose(
                state,
                ch,
                role,
                ch.side(role).bids,
                "the overbid failed and its Trait is lost",
                self.cites["overbid_failed"],
            )
        return failed

    def _fitting(self, ch: Challenge, role: Role) -> Category:
        """The category a side's Abilities must fit: what the action is (a gunshot is Physical)."""
        return ch.category

    def _spend(self, state: Scene, ch: Challenge, role: Role, source: Source, rule: str) -> list[SceneEvent]:
        who = ch.side(role).who
        character = state.characters[who]
        category = self._fitting(ch, role)
        match source:
            case AbilitySource(name=ability):
                if character.abilities.get(ability, 0) < 1:
                    have = "has no levels of" if ability in character.abilities else "does not have"
                    raise Rejected("no_ability", f"{character.name} {have} {ability} left to spend.", rule)
                if not ability_fits(ability, category):
                    raise Rejected(
                        "inappropriate_source",
                        f"{ability} does not fit a {_title(category)} challenge.",
                        rule,
                    )
                return [AbilitySpent(character=who, ability=ability, challenge=ch.id)]
            case PowerSource(name=power):
                if not character.sheet.has_power(power):
                    raise Rejected("unknown_power", f"{character.name} does not have the power {power}.", rule)
                return []
            case MeritSource(name=merit):
                if not character.sheet.has_merit(merit):
                    raise Rejected("unknown_merit", f"{character.name} does not have the merit {merit}.", rule)
                return []
            case _:
                raise Rejected(
                    "source_not_allowed",
                    f"{self.name} has no {source.category} retest: retest with an Ability level, a "
                    "Power or Merit that grants one, or an overbid.",
                    rule,
                )


def _label(source: Source) -> str:
    name = getattr(source, "name", None)
    return f"{source.category} {name}" if name else f"a {source.category}"
