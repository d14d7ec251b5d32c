"""A scene under change: its maps open for writing (``immutables.Map.mutate``), its other fields
plain attributes, frozen into a new ``Scene`` once; and the table of reducers, one per event type,
that change it (``domain.reducers``). ``Change`` keeps ``Scene.undecided``, the index of
challenges not yet decided, as challenges are put.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

from msgspec.structs import replace

from domain.commands import Options
from domain.events import SceneEvent
from domain.log import Place
from domain.state import (
    DECIDED,
    RECENT,
    Challenge,
    Character,
    CharacterSlot,
    RoundSlot,
    RoundState,
    Scene,
    Side,
    undecided,
)


class Change:
    """A scene being changed: its maps open for writing, its other fields plain attributes."""

    __slots__ = (
        "_options",
        "at",
        "base",
        "challenges",
        "characters",
        "clocks",
        "decided",
        "disputes",
        "failures",
        "forked_from",
        "game",
        "id",
        "night",
        "recent",
        "round",
        "ruleset",
        "rulings",
        "status",
        "timed",
        "title",
        "undecided",
    )

    def __init__(self, base: Scene) -> None:
        self.base = base
        self.id, self.ruleset, self.title, self.options = base.id, base.ruleset, base.title, base.options
        self.status, self.round, self.forked_from = base.status, base.round, base.forked_from
        self.disputes, self.rulings = base.disputes, base.rulings
        self.characters = base.characters.mutate()
        self.challenges = base.challenges.mutate()
        self.failures = base.failures.mutate()
        self.undecided = dict.fromkeys(base.undecided)
        self.recent, self.decided = base.recent, base.decided
        self.game, self.night = base.game, base.night
        self.clocks = base.clocks
        self.at = base.last_at
        """The time of the event being folded (set by ``fold``): when a challenge's step began."""

    def frozen(self, last: Place) -> Scene:
        """The new scene, at ``last`` (its version and time)."""
        challenges = self.challenges.finish()
        return Scene(
            id=self.id,
            version=last.seq,
            ruleset=self.ruleset,
            title=self.title,
            options=self.options,
            status=self.status,
            characters=self.characters.finish(),
            challenges=challenges,
            failures=self.failures.finish(),
            last_at=last.at,
            disputes=self.disputes,
            rulings=self.rulings,
            forked_from=self.forked_from,
            round=self.round,
            undecided=tuple(sorted(self.undecided, key=lambda cid: challenges[cid].seq)),
            recent=self.recent,
            decided=self.decided,
            game=self.game,
            night=self.night,
            clocks=self.clocks,
        )

    @property
    def options(self) -> Options:
        return self._options

    @options.setter
    def options(self, options: Options) -> None:
        self._options = options
        self.timed = options.timed
        """Whether the scene has response deadlines (each put asks; asked once here)."""

    def stamp(self) -> datetime | None:
        """The time a step begins at, kept while the scene has response deadlines (their clocks
        start with the step: ``domain.deadlines``); None otherwise, so that a scene without them
        folds to the very state it always did (and its older snapshots still equal its fold)."""
        return self.at if self.timed else None

    # -- challenges ------------------------------------------------------------------------------

    def put(self, ch: Challenge) -> None:
        cid = ch.id
        if self.timed:  # a response deadline's clock starts with the step
            old: Challenge | None = self.challenges.get(cid)
            if old is None or _step(old) != _step(ch):
                ch = replace(ch, step_at=self.stamp())
        self.challenges[cid] = ch
        if ch.status not in DECIDED or undecided(ch):
            self.undecided[cid] = None
        elif cid in self.undecided:  # decided just now
            del self.undecided[cid]
            self.recent = (*self.recent[1 - RECENT :], cid)
            self.decided += 1

    def challenge(self, cid: str, change: Callable[[Challenge], Challenge]) -> None:
        self.put(change(self.challenges[cid]))

    def side(self, cid: str, who: str, change: Callable[[Challenge, Side], Side]) -> None:
        ch: Challenge = self.challenges[cid]
        self.put(replace_side(ch, ch.role_of(who), lambda s: change(ch, s)))

    # -- characters ------------------------------------------------------------------------------

    def character(self, who: str, change: Callable[[Character], Character]) -> None:
        c: Character | None = self.characters.get(who)
        if c is not None:  # the narrator, or a stale reference: nothing to change
            self.characters[who] = change(c)

    def conditions(self, who: str, **fields: Any) -> None:
        self.character(who, lambda c: replace(c, conditions=replace(c.conditions, **fields)))

    def slot(self, who: str, e: SceneEvent) -> None:
        """Hand the shared event ``e`` to the slot ``who``'s ruleset keeps on it (``CharacterSlot.evolved``)."""
        kind = self.kinds()[0]
        c: Character | None = self.characters.get(who)
        if kind is not None and c is not None:
            slot = slot_after(c, kind, e)
            if slot is not c.slot:
                self.characters[who] = replace(c, slot=slot)

    def round_slot(self, before: RoundState, e: SceneEvent, seq: int) -> None:
        """Hand the shared event ``e`` to the slot the ruleset keeps on the round (``RoundSlot.evolved``);
        ``before``: the round as it stood before ``e``."""
        r = self.round
        if r is not None:
            slot = self.round_slot_after(r, before, e, seq)
            if slot is not r.slot:
                self.round = replace(r, slot=slot)

    def round_slot_after(self, r: RoundState, before: RoundState, e: SceneEvent, seq: int) -> Any:
        """``r.slot`` after the shared event ``e`` (to set with the round's other fields at once)."""
        kind = self.kinds()[1]
        if kind is None or type(e) not in kind.EVENTS:
            return r.slot
        return (r.slot if r.slot is not None else _blank(kind)).evolved(before, e, seq)

    def kinds(self) -> tuple[type[CharacterSlot] | None, type[RoundSlot] | None]:
        """The slot types of the scene's ruleset (none where this server lacks it)."""
        found = _KINDS.get(self.ruleset)
        if found is None:
            from domain.rules import RULESETS  # the registry's rulesets register reducers here: asked late

            ruleset = RULESETS.get(self.ruleset)
            if ruleset is None:
                return (None, None)
            found = _KINDS[self.ruleset] = (ruleset.character_state, ruleset.round_state)
        return found

    def each(self, change: Callable[[Character], Character]) -> None:
        now = self.characters.finish()  # a mutation cannot be walked; a map can, and mutates again
        self.characters = now.mutate()
        for who, c in now.items():
            self.characters[who] = change(c)


_KINDS: dict[str, tuple[type[CharacterSlot] | None, type[RoundSlot] | None]] = {}
"""The slot types of each ruleset asked for (a ruleset's name is never given to another)."""


def _step(ch: Challenge) -> tuple[object, ...]:
    """The step a challenge is in, as a response deadline's clock counts it (``domain.deadlines``):
    its answer, each test (bidding and throwing are one step: one side's throw or roll does not
    restart the other's clock), Traits owed, each side's turn to declare on a tie, each retest while
    it waits, and the window again once it is cancelled."""
    return (
        "test" if ch.status in ("bidding", "throwing") else ch.status,
        len(ch.tests),
        len(ch.retests),
        ch.pending_retest is not None,
        ch.challenger.owed > 0 or ch.defender.owed > 0,
        ch.challenger.declared is None,
        ch.defender.declared is None,
    )


def slot_after(c: Character, kind: type[CharacterSlot] | None, e: SceneEvent) -> Any:
    """``c.slot`` after the shared event ``e`` (``kind``: its ruleset's slot type); still None while
    the event leaves a slot it did not have at its defaults."""
    slot = c.slot
    if kind is None or type(e) not in kind.EVENTS:
        return slot
    if slot is not None:
        return slot.evolved(c.sheet.id, e)
    slot = _blank(kind)
    after = slot.evolved(c.sheet.id, e)
    return None if after == slot else after


_BLANKS: dict[type, Any] = {}


def _blank(kind: type[CharacterSlot] | type[RoundSlot]) -> Any:
    """A slot of ``kind`` at its defaults (one, shared: slots are frozen)."""
    blank = _BLANKS.get(kind)
    if blank is None:
        blank = _BLANKS[kind] = kind()
    return blank


def names(*texts: str) -> tuple[str, ...]:
    """One copy of each short text the state keeps (ids, Traits, signs, rule ids, victory
    conditions), however many events repeat it: a long scene's state is mostly such texts. A
    single name's tuple (a bid of one Trait, one target) is one copy too."""
    if len(texts) != 1:
        return tuple(sys.intern(text) for text in texts)
    one = _ONE.get(texts[0])
    if one is None:
        one = (sys.intern(texts[0]),)
        if len(_ONE) < 10_000:  # names are few; a flood of new ones only stops being shared
            _ONE[one[0]] = one
    return one


_ONE: dict[str, tuple[str]] = {}


name = sys.intern


Handler = Callable[[Change, Any, Place], None]
APPLY: dict[type[SceneEvent], Handler] = {}


def on(*kinds: type[SceneEvent]) -> Callable[[Handler], Handler]:
    """Register a reducer for these event types."""

    def register(handler: Handler) -> Handler:
        for kind in kinds:
            APPLY[kind] = handler
        return handler

    return register


def replace_side(ch: Challenge, role: str | None, change: Callable[[Side], Side]) -> Challenge:
    if role == "challenger":
        return replace(ch, challenger=change(ch.challenger))
    if role == "defender":
        return replace(ch, defender=change(ch.defender))
    return ch


def sides(ch: Challenge, change: Callable[[Side], Side]) -> Challenge:
    return replace(ch, challenger=change(ch.challenger), defender=change(ch.defender))
