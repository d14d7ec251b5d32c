"""Kings of New York (docs/rules/kings-of-new-york-combat.txt): Traits bid and lost as in Laws of the
Night, d3s rolled instead of signs thrown, one die for each retest named, trait pools capped at 30,
overbids at double, the defender's own victory condition, rounds with an expenditures phase and
d10 ties, armour first, feeding on a grapple, and narrative rounds against NPCs.

What comes from where (docs/rulesets.md): bids, Negative Trait calls and losses are lotn's (with
kony's ids); the turn order (initiative groups, one test action a turn, extra actions after
everyone's first), blood for Physical Traits and grapples are camarilla's. The test, its dice and
everything the document states are here and in ``kony_dice`` and ``kony_rounds``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from msgspec.structs import replace

from domain.commands import AbilitySource, Action, Declare, OverbidSource, Source
from domain.effects import Dealt
from domain.errors import Rejected
from domain.events import (
    AbilitySpent,
    ArmorDamaged,
    BloodSpent,
    DeclarationsOpened,
    InitiativeSet,
    Leader,
    NegativeTraitCalled,
    OverbidSucceeded,
    Result,
    Role,
    SceneEvent,
    TestResolved,
    TestRevealed,
    TurnStarted,
)
from domain.rules.base import Declaration, Dice, TraitPool, Verdict, taken
from domain.rules.camarilla.ruleset import Camarilla
from domain.rules.kony import dice as kony_dice
from domain.rules.kony import named, texts
from domain.rules.kony import rounds as kony_rounds
from domain.rules.kony.options import OPTION_WORDS, KonyOptions
from domain.rules.kony.sheet import DICE_SHEET
from domain.rules.kony.state import KonyCharacter, KonyRound, kept, round_kept
from domain.rules.lotn.ruleset import Lotn
from domain.rules.sheets import Problem
from domain.sheets import Category, Sheet
from domain.state import NARRATOR, Challenge, Character, RetestEntry, Scene


class Kony(Camarilla):
    name = "kony"
    listed = 4
    title = "Kings of New York"
    summary = "three-sided dice"
    die = kony_dice.DIE
    has_narrative = True
    rules = texts.RULES
    books: ClassVar[Mapping[str, str]] = {texts.KONY_DOC: "Kings of New York, Combat"}
    options = KonyOptions
    option_words = OPTION_WORDS
    named = named.NAMED
    levels: ClassVar[Mapping[str, tuple[int, str]]] = {"Celerity": (5, "kony:initiative")}
    sheet_fields = DICE_SHEET
    character_state = KonyCharacter
    round_state = KonyRound

    def sheet_problems(self, sheet: Sheet) -> list[Problem]:
        found = super().sheet_problems(sheet)
        if sheet.combat_sheet and not sheet.npc:
            said = "Only an NPC has a combat sheet (kony:npc-sheets)."
            found.append(Problem("combat_sheet", said, True, "kony:npc-sheets"))
        return found

    settling_refuses = True  # the reveal checks the rerolls entered by hand (kony:narrative-rerolls)
    has_mobs = False
    has_expenditures = True
    defender_victory = True
    surprise_any_round = True
    one_per_target = False
    flags: ClassVar[tuple[str, ...]] = ("surprise", "ranged", "darkness", "immediate")
    cites: ClassVar[Mapping[str, str]] = {
        **Lotn.cites,
        "relent": "kony:declaration",
        "test": "kony:d3-test",
        "retest": "kony:overbid",
        "cancel": "kony:d3-test",
        "negative_traits": "kony:negative-traits",
        "draw": "kony:draw",
        "static": "kony:narrative-test",
        "overbid_failed": "kony:overbid",
        "order": "kony:initiative",
        "ties": "kony:initiative-ties",
        "expenditures": "kony:expenditures",
        "grapple": "camarilla:grapple",
    }

    # -- sheets and declarations ------------------------------------------------------------

    def check_sheet(self, sheet: Sheet) -> None:
        super().check_sheet(sheet)
        if sheet.combat_sheet and not sheet.npc:
            raise Rejected("bad_sheet", "`character.combat_sheet`: only an NPC has a combat sheet.", "kony:npc-sheets")

    def check_declare(self, state: Scene, cmd: Declare, who: str, now: datetime) -> Declaration:
        self.refuse_flags(cmd)
        kony_rounds.check_in_fight(state, who, cmd.targets)
        me = state.characters[who]
        target = cmd.targets[0] if cmd.targets else None
        them = state.characters.get(target) if target else None
        r = state.round
        in_round = r is not None and r.phase != "over"
        narrative = in_round and r is not None and round_kept(r).narrative
        if cmd.defense is not None:
            raise Rejected("no_defense", "kony has no mixed challenges.", "kony:declaration")
        if cmd.kind == "simple":
            raise Rejected(
                "unsupported",
                "kony has no simple tests: declare a contested challenge, or a static one against the "
                "Storyteller's difficulty.",
                "kony:d3-test",
            )
        if narrative and them is not None and not me.sheet.npc and not them.sheet.npc:
            raise Rejected(
                "not_pve",
                f"A narrative round is for fights against NPCs; {them.name} is a player's character.",
                "kony:narrative",
            )
        if narrative and cmd.kind == "contested" and them is not None and not me.sheet.npc:
            raise Rejected(
                "narrative_test",
                f"In a narrative round you roll against the Storyteller's difficulty: declare a static challenge "
                f"against {them.name}, with that difficulty.",
                "kony:narrative-test",
            )
        if cmd.kind == "static" and cmd.targets:
            if not narrative or them is None or not them.sheet.npc or len(cmd.targets) != 1:
                raise Rejected(
                    "no_targets",
                    "A static test names a target only in a narrative round, against one NPC.",
                    "kony:narrative-test",
                )
            self._check_kind(state, replace(cmd, targets=[], effect=None), who, now)
        else:
            self._check_kind(state, cmd, who, now)
        if cmd.ranged:
            if cmd.kind != "contested" or them is None:
                raise Rejected("contested_only", "A ranged attack is made against another character.", "kony:ranged")
            if kony_dice.can_shoot(them):
                raise Rejected(
                    "can_shoot_back",
                    f"{them.name} can make a ranged attack in return: no extra die for range.",
                    "kony:ranged",
                )
        if cmd.surprise and cmd.kind != "contested":
            raise Rejected("contested_only", "Surprise is on those the challenged.", "kony:surprise")
        if cmd.power and cmd.unseen and them is not None and cmd.actor != NARRATOR:
            raise Rejected(
                "line_of_sight",
                f"{cmd.power} needs Line of Sight: {me.name} cannot see {them.name} (the Storyteller may declare "
                "it where the power says otherwise).",
                "kony:line-of-sight",
            )
        if cmd.kind == "contested" and cmd.category == "physical" and me.conditions.grappled_by and len(cmd.bid) != 2:
            raise Rejected(
                "grappled_bid",
                f"{me.name} is held but struggling: bid an additional Trait (two) to enter a Physical Challenge.",
                "kony:grapple",
            )
        if not in_round:
            return Declaration()
        assert r is not None
        if cmd.actor == NARRATOR and me.sheet.combat_sheet:  # an NPC combat sheet acts outside the order
            return Declaration(round=r.number)
        # one Carrier Attack per action holds by construction: a declaration names one power, and
        # every declaration in a round spends an action (kony:carrier-attacks)
        declaration = self._check_turn(state, cmd, who, cmd.category, Declaration())
        return replace(declaration, gate=False)

    def _check_initial(self, state: Scene, who: str, category: Category, bid: list[str], rule: str) -> None:
        me = state.characters[who]
        held = category == "physical" and me.conditions.grappled_by is not None
        if held and len(bid) == 2:
            self._check_bid(state, who, category, bid)
            return
        super()._check_initial(state, who, category, bid, "kony:declaration")

    def check_response(self, state: Scene, ch: Challenge, who: str, bid: list[str]) -> str | None:
        me = state.characters[who]
        category = ch.category
        needed = 2 if category == "physical" and me.conditions.grappled_by is not None else 1
        if len(bid) != needed:
            rule = "kony:grapple" if needed == 2 else "kony:declaration"
            extra = " (held but struggling: an additional Trait)" if needed == 2 else ""
            raise Rejected("one_bid", f"Bid {needed} Trait(s){extra}, or relent.", rule)
        self._check_bid(state, who, category, bid)
        return None

    def call_negative(self, state: Scene, ch: Challenge, role: Role, trait: str) -> NegativeTraitCalled:
        """A correct call makes the called side bid one more Trait, to lose with the rest; a wrong
        call costs nothing (kony:negative-traits)."""
        called = super().call_negative(state, ch, role, trait)
        if not called.correct:
            return replace(called, owed_by="", matched=True, rule="kony:negative-traits")
        return replace(called, rule="kony:negative-traits")

    # -- the test: dice ---------------------------------------------------------------------

    def random_signs(self) -> tuple[str, ...]:
        return ()

    def check_sign(self, state: Scene, who: str, sign: str) -> None:
        raise Rejected("roll_dice", "kony rolls d3s: send a roll.", "kony:d3-test")

    def compare_signs(self, challenger: str, defender: str) -> Result:
        raise Rejected("roll_dice", "kony rolls d3s: send a roll.", "kony:d3-test")

    def dice(self, state: Scene, ch: Challenge, role: Role, retests: Sequence[Source]) -> Dice:
        return kony_dice.count(state, ch, role, retests)

    def check_entered(self, state: Scene, actor: str, who: str) -> None:
        if actor == NARRATOR or (actor == who and kony_dice.options(state).dice == "players"):
            return
        raise Rejected(
            "dice_by_hand",
            "Only the Storyteller enters dice rolled by hand in this scene (option dice=players lets each player "
            "enter their own); or let the server roll.",
            "kony:d3-test",
        )

    def reveal(
        self, state: Scene, ch: Challenge, die: Callable[[], int], rerolls: Sequence[int] | None
    ) -> TestRevealed:
        return kony_dice.reveal(state, ch, die, rerolls, len(ch.tests) + 1)

    def spent(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        """The Ability levels named for the dice just shown are spent (kony:d3-test, "still lost as
        normal"); powers, merits and a combat sheet's retests cost nothing here."""
        return [
            AbilitySpent(character=side.who, ability=source.name, challenge=ch.id)
            for side in (ch.challenger, ch.defender)
            for source in (side.rolled.retests if side.rolled else ())
            if isinstance(source, AbilitySource)
        ]

    def after_reveal(self, state: Scene, ch: Challenge) -> TestResolved | DeclarationsOpened:
        return kony_dice.resolved(state, ch)

    def trait_pool(self, state: Scene, ch: Challenge, role: Role) -> TraitPool:
        total, why = kony_dice.trait_pool(state, ch, role)
        counted = kony_dice.pool_counted(state, ch, role)[1]
        return TraitPool(total=total, why=why, cap=kony_dice.POOL_CAP, counted=counted)

    def max_declare(self, state: Scene, ch: Challenge, role: Role) -> int:
        return kony_dice.trait_pool(state, ch, role)[0]

    def settle_declarations(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        raise Rejected(
            "no_declarations", "kony compares trait pools itself; nobody declares a count.", "kony:trait-pool"
        )

    # -- the overbid (the only retest after the dice) ---------------------------------------

    def may_retest(self, state: Scene, ch: Challenge) -> bool:
        """The loser may overbid once per challenge, with a pool double the other's (kony:overbid)."""
        test = ch.test
        if (
            test is None
            or test.leader not in ("challenger", "defender")
            or any(isinstance(e.source, OverbidSource) for e in ch.retests)
        ):
            return False
        loser: Role = "defender" if test.leader == "challenger" else "challenger"
        if ch.side(loser).who == NARRATOR:
            return False
        mine, theirs = kony_dice.trait_pool(state, ch, loser)[0], kony_dice.trait_pool(state, ch, test.leader)[0]
        return mine >= 2 * theirs

    def check_retest(self, state: Scene, ch: Challenge, role: Role, source: Source) -> list[SceneEvent]:
        if not isinstance(source, OverbidSource):
            raise Rejected(
                "retests_in_roll",
                "In kony every retest is a die: name it in your roll. After the dice, only the loser's overbid is "
                "left.",
                "kony:d3-test",
            )
        side = ch.side(role)
        if len(source.bid) != 1:
            raise Rejected("one_bid", "To overbid, risk exactly one new Trait.", "kony:overbid")
        self._check_bid(state, side.who, side.category or ch.category, source.bid, already=side.bids)
        (mine, mine_text), (theirs, theirs_text) = (
            kony_dice.trait_pool(state, ch, role),
            kony_dice.trait_pool(state, ch, ch.other(role)),
        )
        if not self.may_retest(state, ch):  # (the pools may have changed since the window opened)
            raise Rejected(
                "no_overbid",
                f"An overbid needs double the other's pool, once a challenge: {mine_text} against {theirs_text}.",
                "kony:overbid",
            )
        why = f"{state.name_of(side.who)} lost the test and overbids"
        lost = self._lose(state, ch, role, self._at_risk(ch, role), why, "kony:trait-loss")
        other = ch.side(ch.other(role)).who
        return [
            *lost,
            OverbidSucceeded(
                challenge=ch.id,
                character=side.who,
                compared={side.who: mine, ("difficulty" if other == NARRATOR else other): theirs},
                why=f"Overbid: {mine_text} against {theirs_text}, double or more: a new test, both roll again.",
                rule="kony:overbid",
            ),
        ]

    def check_cancel(
        self, state: Scene, ch: Challenge, role: Role, pending: RetestEntry, source: Source
    ) -> list[SceneEvent]:
        raise Rejected("no_cancel", "kony retests are dice: nothing to cancel.", "kony:d3-test")

    def before_resolution(self, state: Scene, ch: Challenge) -> list[SceneEvent]:
        return []

    # -- resolution -------------------------------------------------------------------------

    def outcome(self, state: Scene, ch: Challenge) -> Verdict:
        verdict = super().outcome(state, ch)
        if verdict.winner == "defender" and ch.kind == "contested" and ch.defender.effect is not None:
            return replace(verdict, why=f"{verdict.why} Its own victory condition is met.", rule="kony:resolution")
        return verdict

    def losses(self, state: Scene, ch: Challenge, winner: Leader) -> list[SceneEvent]:
        """The loser loses the Traits it bid (a correct Negative Trait call's among them); on a draw
        both do (kony:trait-loss, kony:draw)."""
        losers: tuple[Role, ...] = ("challenger", "defender") if winner == "none" else (ch.other(winner),)
        rule = "kony:draw" if winner == "none" else "kony:trait-loss"
        why = "a draw: both sides lose the Traits they bid" if winner == "none" else "the loser loses the Traits bid"
        events: list[SceneEvent] = []
        for role in losers:
            if ch.side(role).who != NARRATOR:
                events += self._lose(state, ch, role, ch.side(role).bids, why, rule)
        return events

    def wait(self, state: Scene, ch: Challenge, winner: Leader, now: datetime) -> tuple[str, datetime] | None:
        return None

    def wounds(self, state: Scene, ch: Challenge, target: str, dealt: Dealt) -> list[SceneEvent]:
        """Armour (supernatural forms included) takes damage first, before any power resists it; no
        power protects armour (kony:damage-order)."""
        c = state.characters[target]
        left = c.sheet.armor - kept(c).armor_lost
        soaked = min(left, dealt.amount)
        events: list[SceneEvent] = []
        if soaked:
            why = f"{c.name}'s armour takes {soaked} of the {dealt.amount} first ({left - soaked} left)."
            events.append(
                ArmorDamaged(character=target, amount=soaked, challenge=ch.id, why=why, rule="kony:damage-order")
            )
        if dealt.amount > soaked:
            rest = dealt.then(f"armour takes {soaked} first", "kony:damage-order", amount=dealt.amount - soaked)
            events.append(taken(target, ch, rest))
        return events

    def blood(self, state: Scene, who: str, kind: str) -> BloodSpent:
        r = state.round
        if r is not None and r.phase not in ("over", "expending"):
            raise Rejected(
                "wrong_phase",
                "Blood is spent in the expenditures phase, after every declaration and before initiative.",
                "kony:expenditures",
            )
        return replace(super().blood(state, who, kind), rule="kony:expenditures")

    # -- rounds -----------------------------------------------------------------------------

    def round_actions(self, state: Scene, who: str) -> int:
        return 1 + state.characters[who].sheet.extra_actions

    def initiative(self, state: Scene, who: str, action: Action) -> int:
        return kony_rounds.initiative(state, who, action)

    def check_action(self, state: Scene, who: str, action: Action) -> list[SceneEvent]:
        kony_rounds.check_in_fight(state, who, (action.target,))
        if action.kind == "fair_escape":
            return kony_rounds.escape(state, who)
        return []

    def break_ties(
        self, state: Scene, groups: list[list[str]], values: Mapping[str, int], d10: Callable[[], int]
    ) -> InitiativeSet:
        return kony_rounds.break_ties(state, groups, values, d10)

    def check_order(self, state: Scene) -> None:
        raise Rejected(
            "dice_decide",
            "Ties on initiative are rolled on a d10 and the order stands: actions may not be contested.",
            "kony:initiative-ties",
        )

    def check_narrative(self, state: Scene) -> None:
        kony_rounds.check_narrative(state)

    def feed(self, state: Scene, who: str, target: str, blood: int) -> list[SceneEvent]:
        return kony_rounds.feed(state, who, target, blood)

    def _on_turn(self, state: Scene) -> bool:
        r = state.round
        return (r is not None and round_kept(r).narrative) or kony_dice.options(state).extra_actions == "on_turn"

    def _check_action_left(self, state: Scene, cmd: Declare, me: Character, counter: bool) -> None:
        """``on_turn`` (and narrative rounds): a character takes all its actions one after the other on
        its turn (kony:actions, kony:narrative-actions)."""
        if not self._on_turn(state):
            super()._check_action_left(state, cmd, me, counter)
            return
        r = state.round
        assert r is not None
        rule = "kony:narrative-actions" if round_kept(r).narrative else "kony:actions"
        if (me.actions_left or 0) < 1:
            raise Rejected("no_action_left", f"{me.name} has no action left this round.", rule)
        if not (cmd.immediate or counter) and me.id not in r.turn:
            raise Rejected("not_your_turn", f"It is not {me.name}'s turn.", rule)

    def extra_turn(self, state: Scene) -> TurnStarted | None:
        if self._on_turn(state):
            return None
        turn = super().extra_turn(state)
        return replace(turn, rule="kony:round") if turn is not None else None

    def turn_ended(self, state: Scene, who: str) -> list[SceneEvent]:
        return []

    def round_ending(self, state: Scene) -> list[SceneEvent]:
        """A round the ST ends before everyone's normal action is done still reaches its end."""
        r = state.round
        return [] if r is None or round_kept(r).normal_over else kony_rounds.normal_actions_ended(state)

    def phase_ended(self, state: Scene) -> list[SceneEvent]:
        r = state.round
        if r is None or r.turn_phase == "extra" or round_kept(r).normal_over:
            return []
        return kony_rounds.normal_actions_ended(state)
