"""What a viewer sees of a scene (PROTOCOL section 5): the ST sees everything; a player sees the
same shape with what they may not know removed; a spectator sees only public facts.

Hidden from a player: other characters' sheets, Traits, Abilities, attributes, skills, Willpower
and health; the ST's notes, even on their own sheet; a sealed throw that is not theirs; the other
side's test pool until the first test is revealed. Bids, declared counts, revealed tests and
outcomes are public, as at the table, where they are spoken aloud. Hidden from the Storyteller: a
player's sealed throw or dice while it still has to throw or roll for the other side (an NPC, the
Narrator: ``projections.redact.blind``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import msgspec

from domain.carried import Mark
from domain.commands import Action, Source
from domain.effects import Effect
from domain.facts import Facts
from domain.pools import Pool
from domain.rules import ruleset_for
from domain.rules.base import ManeuverOffer, TraitPool
from domain.sheets import CATEGORIES, Sheet, in_order
from domain.state import (
    NARRATOR,
    Aid,
    Call,
    Challenge,
    Character,
    DisputeRecord,
    Origin,
    Outcome,
    RetestEntry,
    RoundState,
    RulingRecord,
    Scene,
    TestRecord,
    undecided,
)
from projections.account import Account, for_viewer
from projections.deadlines import DeadlineView, deadline_views
from projections.moves import Moves, RollOffer, RoundMoves, moves, roll_offer, round_moves
from projections.narrate import addressed
from projections.redact import SEES_ALL, Blind, blind, knows
from projections.ruled import Ruled, public_rulings, ruled
from projections.rules import RulesView, rules_view

SPECTATOR = "*"
"""The viewer id of someone who only watches."""
NONE: list[Any] = []
"""The empty list the views share for an absent bns field (never changed: left out when encoded)."""


class ConditionsView(msgspec.Struct, frozen=True, omit_defaults=True):
    grappled_by: str | None
    grappling: list[str]
    prone: bool
    surprised: bool
    fair_escape: str | None
    moved_steps: int = 0
    escape_held_by: list[str] = []
    """Who declared intent to attack one whose fair escape is declared or held (bns)."""
    marks: list[Mark] = []
    """Conditions by name, who set them, until when or how many simple actions clear them (bns)."""


class RoundView(msgspec.Struct, frozen=True):
    number: int
    first: bool
    """The first round of a fight: the only one with surprise."""
    phase: str
    order: list[list[str]]
    """Groups acting at the same time, fastest first."""
    initiative: dict[str, int]
    turn: list[str]
    """Who acts now."""
    turn_phase: str
    extra: int
    escape_window: str | None = None
    """Whose fair escape is open to ``intend_attack`` now (bns)."""
    narrative: bool = False
    """A narrative round (kony:narrative): players roll against the Storyteller's difficulty."""
    normal_over: bool = False
    """Everyone's normal action is done: "end of the round" has come (kony:end-of-round)."""
    ordered: list[list[str]] = []
    """Ties the Storyteller ordered that still act as one group (they act in this order)."""


class CharacterView(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    name: str
    npc: bool
    present: bool
    conditions: ConditionsView
    traits: dict[str, int] | None = None
    traits_lost: list[str] | None = None
    abilities: dict[str, int] | None = None
    attributes: dict[str, int] | None = None
    skills: dict[str, int] | None = None
    willpower: int | None = None
    health: int | None = None
    damage: dict[str, int] | None = None
    blood: int | None = None
    """Blood left, of the sheet's ``blood`` (its player and the ST; only when the sheet has blood)."""
    actions_left: int | None = None
    actions: dict[str, int] | None = None
    """Actions left this round by kind, ``{"standard": 1, "simple": 1}`` (bns)."""
    rage: int | None = None
    """Rage rounds this turn (bns)."""
    aids: list[Aid] | None = None
    """Assistance offered to this character this round: offer, by whom, what, answered how (bns)."""
    action: Action | None = None
    turn_done: bool | None = None
    free_used: list[str] | None = None
    """The lists of free maneuvers used this fight (bns; its player and the ST)."""
    maneuvers: list[ManeuverOffer] | None = None
    """The combat maneuvers it could use now, each with its cost (bns; its player and the ST)."""
    maneuver_round: int | None = None
    armor: int | None = None
    """Armour left (kony:damage-order): to its player and the ST."""
    down_traits: int | None = None
    """Trait penalties the ST set (kony:down-traits)."""
    expended: bool | None = None
    """Whether the character has said its expenditures are done this round (kony:expenditures);
    public, so the table sees who the round waits for."""
    round_moves: RoundMoves | None = None
    """What it may do in the round outside a challenge now (kony; its player and the ST)."""
    sheet: Sheet | None = None


class SealedRoll(msgspec.Struct, frozen=True, omit_defaults=True):
    """A side's own dice, before the reveal (kony): only its player and the ST see them."""

    dice: list[int]
    retests: list[Source] = []


class ChallengeView(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    kind: str
    challenger: str
    targets: list[str]
    category: str
    status: str
    victory: str
    bids: dict[str, list[str]]
    thrown: list[str]
    tests: list[TestRecord]
    retests: list[RetestEntry]
    calls: list[Call]
    effect: Effect | None = None
    difficulty: int | None = None
    require_win: bool = False
    power: str | None = None
    defense: str | None = None
    round: int | None = None
    range: int | None = None
    """Steps to the target, as declared (bns)."""
    maneuver: str | None = None
    """The combat maneuver the attack uses (bns), the first of two."""
    maneuvers: list[str] = []
    """Both, when an attack uses two (bns:assist-attacker)."""
    leads: dict[str, str] = {}
    mob: dict[str, list[str]] = {}
    """A mob's members other than the champion, with the Traits each lent."""
    chosen: str | None = None
    defender_victory: str = ""
    owed: dict[str, int] = {}
    sealed: dict[str, str] = {}
    declared: dict[str, int] = {}
    passed: list[str] = []
    declaring: str | None = None
    outcome: Outcome | None = None
    pools: dict[str, Pool] = {}
    """Each side's test pool the viewer may see: its own; both once the first test is revealed."""
    moves: dict[str, Moves] = {}
    """What each character the viewer acts for may do in it now: a player's own moves; for the
    Storyteller, those of the NPCs in it."""
    rolled: list[str] = []
    """Who has rolled for the current test (dice rulesets): public, the dice are not."""
    rolls: dict[str, SealedRoll] = {}
    """The sealed dice the viewer may see: its own (the ST: all), until the reveal."""
    trait_pools: dict[str, TraitPool] = {}
    """Each side's Trait Pool the viewer may know: its own (the ST: both) (kony:trait-pool)."""
    defender_effect: Effect | None = None
    """The defender's own victory condition (kony:resolution)."""
    to_roll: dict[str, RollOffer] = {}
    """The Storyteller's view (dice rulesets): each side still to roll, with its dice and the
    retest sources it may name, for entering dice rolled by hand at the table."""
    account: Account | None = None
    """The challenge told once (``projections.account``): what each side put up, the tests and
    retests, the verdict with what it cost, what winning will do while it is open, the rulings and
    their reasons; redacted and said to this viewer. The pages render it and compose nothing."""
    blind: str = ""
    """The Storyteller's view, while it still has to throw or roll for a side (an NPC, the Narrator)
    against a player's sealed throw or dice, which ``sealed`` and ``rolls`` leave out: that it acts
    blind, in words ("You throw for Dockside Thug blind: Marco Reyes's sign stays sealed until both
    are in.")."""


class StateView(msgspec.Struct, frozen=True):
    scene: str
    title: str
    version: int
    ruleset: str
    rules: RulesView
    status: str
    viewer: str
    round: RoundView | None
    characters: dict[str, CharacterView]
    challenges: dict[str, ChallengeView]
    """A whole view: the undecided challenges and the last ``RECENT`` decided; a patch: those the
    commit touched (and the viewer's open ones, whose moves it may have changed)."""
    disputes: list[DisputeRecord]
    rulings: list[RulingRecord]
    older: int = 0
    """Decided challenges a whole view leaves out (the oldest): ask for them with ``challenges``."""
    forked_from: Origin | None = None
    """A what-if: the scene and the event it was forked after, so that its pages say so."""
    ruleset_title: str = ""
    """What players call the ruleset ("Laws of the Night"): the pages say this, never ``ruleset``."""
    ruled: list[Ruled] = []
    """The rulings told to this viewer (``projections.ruled``): a player's, those that touch its
    character, each said to it with what it gave or took; the Storyteller's, every one; always
    whole, in a patch too."""
    deadlines: list[DeadlineView] | msgspec.UnsetType = msgspec.UNSET
    """The running response deadlines, and the lapses waiting on the Storyteller
    (``projections.deadlines``), said to this viewer: always in a whole view; in a patch, whole
    where this viewer's list differs from the one it has (a commit that only starts, lapses or
    extends a clock touches nothing else), left out where it does not (an ``adjust``, a bid in
    another challenge: the viewer keeps its list)."""


def character_view(
    c: Character,
    viewer: str = NARRATOR,
    offers: list[ManeuverOffer] | None = None,
    round_offers: RoundMoves | None = None,
) -> CharacterView:
    held = c.conditions
    conditions = ConditionsView(
        grappled_by=held.grappled_by,
        grappling=list(held.grappling),
        prone=held.prone,
        surprised=held.surprised,
        fair_escape=held.fair_escape,
        moved_steps=held.moved_steps,
        escape_held_by=list(held.escape_held_by) if held.escape_held_by else NONE,
        marks=list(held.marks) if held.marks else NONE,
    )
    k = c.kept()
    public = CharacterView(
        id=c.id,
        name=c.name,
        npc=c.sheet.npc,
        present=c.present,
        conditions=conditions,
        actions_left=c.actions_left,
        actions=dict(k["budget"]) if k["budget"] else None,
        rage=k["rage"] or None,
        aids=list(k["aids"]) if k["aids"] else None,
        action=c.action,
        turn_done=c.turn_done if c.actions_left is not None or k["budget"] else None,
        expended=k["expended"] or None,
    )
    if not knows(viewer, c.id):
        return public
    return msgspec.structs.replace(
        public,
        traits={category: c.available(category) for category in CATEGORIES},
        traits_lost=c.lost_names,
        abilities=dict(c.abilities),
        attributes=in_order(c.sheet.attributes) or None,
        skills=dict(c.sheet.skills) if c.sheet.attributes else None,
        willpower=c.willpower,
        health=max(0, c.sheet.health - c.wounds.total),
        damage={
            "bashing": c.wounds.bashing,
            "lethal": c.wounds.lethal,
            "aggravated": c.wounds.aggravated,
        },
        blood=c.sheet.blood - c.blood_spent if c.sheet.blood else None,
        free_used=list(k["free_used"]) or None,
        maneuvers=offers or None,
        maneuver_round=k["maneuver_round"] or None,
        armor=c.sheet.armor - k["armor_lost"] if c.sheet.armor else None,
        down_traits=k["down_traits"] or None,
        round_moves=round_offers,
        sheet=c.sheet if viewer == NARRATOR else msgspec.structs.replace(c.sheet, notes=""),
    )


NOBODY: list[str] = []
NO_ROLLS: dict[str, SealedRoll] = {}
NO_POOLS: dict[str, TraitPool] = {}
NO_OFFERS: dict[str, RollOffer] = {}
NO_MOB: dict[str, list[str]] = {}
NO_POOL: dict[str, Pool] = {}
"""Shared empty values for what a challenge has none of (never changed)."""


def challenge_view(
    ch: Challenge,
    viewer: str = NARRATOR,
    moves: dict[str, Moves] | None = None,
    state: Scene | None = None,
    reader: Reader | None = None,
    hidden: Blind = SEES_ALL,
    blind_words: str = "",
    told: Account | None = None,
) -> ChallengeView:
    """``state`` (the scene the challenge is in, given where the ruleset rolls dice) adds each side's
    Trait Pool, and for the Storyteller what each side still to roll may roll. ``reader`` (a
    player's own character's name, and the others') has each test's and the outcome's sentence
    said to that player: their own character as "you" ("A tie: your 5 Physical Traits against
    Rosa's 5"), as the timeline's sentences are. ``hidden``: the sealed throws and rolls kept from
    the viewer though it knows whose they are (``projections.redact.blind``), ``blind_words`` saying
    so."""
    sides = (ch.challenger, ch.defender)
    test = len(ch.tests) + 1
    shown = bool(ch.tests) or not ch.open
    rolling = ch.challenger.rolled is not None or ch.defender.rolled is not None
    dice = state is not None and ch.open
    helpers = ch.challenger.helpers
    pooled = ch.challenger.pool is not None or ch.defender.pool is not None or helpers
    maneuvers = ch.maneuvers
    return ChallengeView(
        to_roll=_to_roll(state, ch) if dice and state is not None and viewer == NARRATOR else NO_OFFERS,
        rolled=[side.who for side in sides if side.rolled is not None] if rolling else NOBODY,
        rolls={
            side.who: SealedRoll(dice=list(side.rolled.dice), retests=list(side.rolled.retests))
            for side in sides
            if side.rolled is not None and knows(viewer, side.who) and (ch.id, test, side.who) not in hidden
        }
        if rolling
        else NO_ROLLS,
        trait_pools=_trait_pools(state, ch, viewer) if dice and state is not None else NO_POOLS,
        defender_effect=ch.defender.effect,
        moves=moves or {},
        id=ch.id,
        kind=ch.kind,
        challenger=ch.challenger.who,
        targets=list(ch.targets),
        category=ch.category,
        status=ch.status,
        victory=ch.victory,
        defender_victory=ch.defender.victory,
        bids={side.who: list(side.bids) for side in sides if side.who != NARRATOR},
        owed={side.who: side.owed for side in sides if side.owed},
        thrown=[side.who for side in sides if side.throw is not None],
        sealed={
            side.who: side.throw
            for side in sides
            if side.throw is not None and knows(viewer, side.who) and (ch.id, test, side.who) not in hidden
        },
        blind=blind_words,
        account=told,
        declared={side.who: side.declared for side in sides if side.declared is not None},
        passed=[side.who for side in sides if side.passed],
        declaring=ch.declaring,
        tests=_tests_for(ch.tests, reader) if reader else list(ch.tests),
        retests=list(ch.retests),
        calls=list(ch.calls),
        effect=ch.effect,
        difficulty=ch.difficulty,
        require_win=ch.require_win,
        power=ch.power,
        defense=ch.defense,
        round=ch.round,
        range=ch.range,
        maneuver=maneuvers[0] if maneuvers else None,
        maneuvers=list(maneuvers) if len(maneuvers) > 1 else NONE,
        leads={side.who: side.lead for side in sides if side.lead},
        mob={h.who: list(h.bids) for h in helpers} if helpers else NO_MOB,
        chosen=ch.chosen,
        outcome=_outcome_for(ch.outcome, reader) if reader and ch.outcome else ch.outcome,
        pools={
            who: pool
            for who, pool in [*((s.who, s.pool) for s in sides), *((h.who, h.pool) for h in helpers)]
            if pool is not None and (shown or knows(viewer, who))
        }
        if pooled
        else NO_POOL,
    )


Reader = tuple[str, tuple[str, ...]]
"""A player's own character's name, and the other characters' names (``_reader``)."""


@lru_cache(maxsize=4096)
def _said_to(text: str, me: str, others: tuple[str, ...]) -> str:
    """``addressed``, once per sentence and reader (the same why goes out with every patch)."""
    return addressed(text, me, others)


def _tests_for(tests: tuple[TestRecord, ...], reader: Reader) -> list[TestRecord]:
    me, others = reader
    return [msgspec.structs.replace(t, why=_said_to(t.why, me, others)) if me in t.why else t for t in tests]


def _outcome_for(outcome: Outcome, reader: Reader) -> Outcome:
    me, others = reader
    return msgspec.structs.replace(outcome, why=_said_to(outcome.why, me, others)) if me in outcome.why else outcome


def _reader(state: Scene, viewer: str) -> Reader | None:
    """A player's own character's name and the others' (None: the viewer has no character here)."""
    mine = state.characters.get(viewer)
    if mine is None:
        return None
    return mine.name, tuple(c.name for who, c in state.characters.items() if who != viewer)


def _trait_pools(state: Scene, ch: Challenge, viewer: str) -> dict[str, TraitPool]:
    """The Trait Pools of the sides the viewer knows, where the ruleset computes them (kony)."""
    rules = ruleset_for(state.ruleset)
    out: dict[str, TraitPool] = {}
    for role in ("challenger", "defender"):
        who = ch.side(role).who
        if who != NARRATOR and who in state.characters and knows(viewer, who):
            pool = rules.trait_pool(state, ch, role)
            if pool is None:
                return {}
            out[who] = pool
    return out


def _facts(event: object) -> Facts:
    """What an event declares of itself (``domain.facts``)."""
    return type(event).FACTS  # type: ignore[attr-defined,no-any-return]


def turned(events: Iterable[object]) -> bool:
    """Whether these events change who may act, for everyone (their ``FACTS.turns``)."""
    return any(_facts(event).turns for event in events)


def touched(events: Iterable[object]) -> tuple[list[str] | None, list[str]]:
    """The characters and challenges some events name, in order of first mention (None: every
    character): the characters as each event type declares them (``FACTS.people``, ``everyone``)."""
    people: dict[str, None] | None = {}
    challenges: dict[str, None] = {}
    for event in events:
        facts = _facts(event)
        if facts.everyone:
            people = None
        cid = getattr(event, "challenge", None)
        if isinstance(cid, str):
            challenges[cid] = None
        for field in facts.people if people is not None else ():
            value = getattr(event, field)
            if isinstance(value, Sheet):
                value = value.id
            for who in value if isinstance(value, list) else [value]:
                if isinstance(who, str) and who != NARRATOR and people is not None:
                    people[who] = None
    return (list(people) if people is not None else None), list(challenges)


def round_view(r: RoundState | None) -> RoundView | None:
    if r is None:
        return None
    k = r.kept()
    return RoundView(
        number=r.number,
        first=r.first,
        phase=r.phase,
        order=[list(group) for group in r.order],
        initiative=dict(r.values),
        turn=list(r.turn),
        turn_phase=r.turn_phase,
        extra=r.extra,
        escape_window=k["escape_window"],
        narrative=k["narrative"],
        normal_over=k["normal_over"],
        ordered=[list(group) for group in r.ordered],
    )


def _acting_in(state: Scene, viewer: str, around: set[str] | None = None) -> list[str]:
    """The undecided challenges in which ``viewer`` may have moves: its own (the ST: its NPCs'),
    and (where the ruleset has mobs) any a character could still join; with ``around``, only
    those with one of these characters in them (whose moves a commit may have changed)."""
    if viewer != NARRATOR and viewer not in state.characters:
        return []
    joinable = ruleset_for(state.ruleset).has_mobs
    out = []
    for cid in state.undecided:
        ch = state.challenges[cid]
        people = (*ch.challenger.members, *ch.targets)
        if around is not None and around.isdisjoint(people) and (viewer not in around or not joinable):
            continue
        if viewer == NARRATOR:
            mine = any((c := state.characters.get(who)) is not None and c.sheet.npc for who in people)
        else:
            mine = viewer in people or (joinable and ch.status == "awaiting_response")
        if mine:
            out.append(cid)
    return out


def _staked(state: Scene, people: list[str] | None, viewer: str) -> list[str]:
    """The undecided challenges with one of these characters in them, whose stakes ``viewer`` reads
    (the Storyteller, and those in the challenge: ``projections.account.for_viewer``): what winning
    will do reads the characters (armour left, powers, grapples), so it may have changed. Events
    that touch everyone (a round's start or end) change who may act, not that."""
    if people is None:
        return []
    around = set(people)
    return [
        cid
        for cid in state.undecided
        if not around.isdisjoint(members := (*(ch := state.challenges[cid]).challenger.members, *ch.targets))
        and (viewer == NARRATOR or viewer in members)
    ]


def _blind_words(state: Scene, ch: Challenge, hidden: Blind) -> str:
    """What the Storyteller reads of a test it throws or rolls for blind ("" : it is not)."""
    test = len(ch.tests) + 1
    sides = (ch.challenger, ch.defender)
    theirs = [side.who for side in sides if (ch.id, test, side.who) in hidden]
    if not theirs:
        return ""
    due = next((side.who for side in sides if side.throw is None and side.rolled is None), NARRATOR)
    player = state.name_of(theirs[0])
    if ruleset_for(state.ruleset).die is not None:
        return f"You roll for {state.name_of(due)} blind: {player}'s dice stay sealed until both are in."
    return f"You throw for {state.name_of(due)} blind: {player}'s sign stays sealed until both are in."


def blind_export(state: Scene) -> str:
    """Why the Storyteller may not export the scene's log now ("": it may): an export holds every
    event whole, and so the sealed throw or dice it still throws or rolls against (``blind``)."""
    hidden = blind(state, NARRATOR)
    said = next((words for cid in state.undecided if (words := _blind_words(state, state.challenges[cid], hidden))), "")
    return f"{said} An export holds every event whole: export once both are in." if said else ""


def _to_roll(state: Scene, ch: Challenge) -> dict[str, RollOffer]:
    """Each side of ``ch`` still to roll, with what it may roll (dice rulesets)."""
    if ruleset_for(state.ruleset).die is None or ch.status not in ("bidding", "throwing"):
        return {}
    sides = (ch.challenger.who, ch.defender.who)
    return {who: found for who in sides if who != NARRATOR and (found := roll_offer(state, ch, who)) is not None}


def _acts_for(state: Scene, viewer: str, who: str) -> bool:
    """Whether ``viewer`` acts for ``who``: its own character, or the ST for an NPC."""
    c = state.characters.get(who)
    return c is not None and (viewer == who or (viewer == NARRATOR and c.sheet.npc))


def _moves(state: Scene, ch: Challenge, viewer: str) -> dict[str, Moves]:
    """The moves of whoever ``viewer`` acts for in ``ch``: a player, or the ST's NPCs."""
    if viewer == NARRATOR:
        npcs = [
            who
            for who in (*ch.challenger.members, *ch.targets)
            if (c := state.characters.get(who)) is not None and c.sheet.npc
        ]
        return {who: found for who in npcs if (found := moves(state, ch, who)) is not None}
    if viewer not in state.characters:
        return {}
    found = moves(state, ch, viewer)
    return {viewer: found} if found is not None else {}


def _character(
    state: Scene, c: Character, viewer: str, dice: bool, public: dict[str, CharacterView] | None
) -> CharacterView:
    """One character in a viewer's view; its public part (``character_view`` for a viewer who does
    not know it: no offers, nothing but what anyone sees) made once for all such viewers."""
    who = c.id
    if knows(viewer, who):
        offers = ruleset_for(state.ruleset).maneuvers(state, who)
        return character_view(
            c, viewer, offers, round_moves(state, who) if dice and _acts_for(state, viewer, who) else None
        )
    if public is None:
        return character_view(c, viewer)
    found = public.get(who)
    if found is None:
        found = public[who] = character_view(c, viewer)
    return found


def view(
    state: Scene,
    viewer: str = NARRATOR,
    *,
    only: tuple[list[str] | None, list[str]] | None = None,
    turned: bool = False,
    public: dict[str, CharacterView] | None = None,
    hidden: Blind | None = None,
    sent: list[DeadlineView] | None = None,
) -> StateView:
    """The scene as ``viewer`` may see it: ``"st"``, a character id, or ``SPECTATOR``. With
    ``only`` (characters or None for all, challenges), just those entries: a patch on an earlier
    view. A player's view of a challenge carries the moves open to it there. A patch offers afresh
    the moves of the challenges it touches and of those with a character it touches (what a move
    depends on: the challenge, the characters in it, the round); of every challenge when the turn
    or the round ``turned``. ``public`` keeps the public part of each character (what a viewer who
    does not know it sees, the same for all of them) for the next viewer of the same state.
    ``hidden``: the sealed throws and rolls kept from the viewer (default: ``blind`` of this state:
    a replay's view of a step is given those of the scene now). ``sent``: in a patch, the deadlines
    the viewer has (those of the state it was last sent): the patch leaves them out if they are
    still the same."""
    hidden = blind(state, viewer) if hidden is None else hidden
    if only is None:  # a whole view: what is undecided, and a page of recent history
        people, cids = None, sorted({*state.undecided, *state.recent}, key=lambda cid: state.challenges[cid].seq)
    else:
        people = only[0]
        around = None if turned or people is None else set(people)
        cids = list(dict.fromkeys([*only[1], *_acting_in(state, viewer, around), *_staked(state, people, viewer)]))
    rules = ruleset_for(state.ruleset)
    dice = rules.die is not None
    reader = _reader(state, viewer)
    if dice and turned:  # what one may do in the round (escape, feed, expenditures) moved for everyone
        people = None
    timing = deadline_views(state, viewer)
    return StateView(
        scene=state.id,
        title=state.title,
        version=state.version,
        ruleset=state.ruleset,
        rules=rules_view(state.ruleset),
        status=state.status,
        viewer=viewer,
        round=round_view(state.round),
        characters={
            who: _character(state, c, viewer, dice, public)
            for who in (people if people is not None else [c.id for c in state.roster()])
            if (c := state.characters.get(who))
        },
        challenges={
            cid: challenge_view(
                ch,
                viewer,
                _moves(state, ch, viewer),
                state if dice else None,
                reader,
                hidden,
                _blind_words(state, ch, hidden) if hidden else "",
                for_viewer(state, ch, viewer, reader),
            )
            for cid in cids
            if (ch := state.challenges.get(cid))
        },
        disputes=list(state.disputes),
        rulings=public_rulings(state.rulings),
        older=state.decided - len(state.recent),
        forked_from=state.forked_from,
        ruleset_title=ruleset_for(state.ruleset).title,
        ruled=_ruled(state, viewer),
        deadlines=msgspec.UNSET if only is not None and sent is not None and sent == timing else timing,
    )


_RULED: dict[tuple[int, int, str], tuple[object, object, list[Ruled]]] = {}


def _ruled(state: Scene, viewer: str) -> list[Ruled]:
    """``ruled``, made again only when the rulings or the disputes have changed (a patch carries it
    whole, and most commits leave both alone)."""
    if not state.rulings:
        return NONE
    key = (id(state.rulings), id(state.disputes), viewer)
    found = _RULED.get(key)
    if found is not None and found[0] is state.rulings and found[1] is state.disputes:
        return found[2]
    if len(_RULED) >= 1024:
        _RULED.clear()
    made = _RULED[key] = (state.rulings, state.disputes, ruled(state, viewer))
    return made[2]


def older_challenges(
    state: Scene, viewer: str, before: int | None, limit: int
) -> tuple[dict[str, ChallengeView], int | None]:
    """A page of the decided challenges a whole view leaves out, newest first: up to ``limit``
    declared before event ``before`` (None: from the newest), and where the next page starts
    (None: no more)."""
    shown = set(state.recent)
    older = [
        ch
        for ch in state.challenges.values()
        if ch.id not in shown and not undecided(ch) and (before is None or ch.seq < before)
    ]
    older.sort(key=lambda ch: ch.seq, reverse=True)
    page = older[:limit]
    more = page[-1].seq if len(older) > limit else None
    reader = _reader(state, viewer)
    return {
        ch.id: challenge_view(ch, viewer, reader=reader, told=for_viewer(state, ch, viewer, reader)) for ch in page
    }, more
