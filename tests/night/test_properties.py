"""Properties over random game nights (issue 15): nights of several scenes, with characters moved
in and out, lotn challenges won, lost and retested (some with damage), removals, closings, NPCs of
a scene alone, corrections by hand, and rulings that overturn earlier challenges or amend a
character, some in scenes their characters have left. Every command goes through the offline
service (``tests.night.table.NightTable``), which carries each commit's follow-ups to the other
streams before it answers.

- each character enters a scene with what the night had for it at the ``character_moved`` that
  sent it (the fold of the night up to that event, waits included);
- every stream folds on its own to the service's state of it;
- a character of the night is in at most one open scene at a time, the one the night says;
- what the night has for a character is what its last scene handed back, plus the corrections
  that came after from other scenes; a Trait lost anywhere tonight and not restored is lost in the
  night, and the Ability levels spent anywhere are spent in it;
- in every stream a character calls on what is left of each of its Traits, and no Willpower,
  Ability or damage falls below zero (a correction may come after it was spent or healed);
- a refused command appends nothing in any stream (moving into a closed scene, moving a character
  already in a scene, a client sending ``arrive`` or ``come_back``, registering twice, adding a
  character of the night to a scene by its sheet, and every random command the night turns down).

The plain tests at the end keep what the properties found."""

from __future__ import annotations

from collections import Counter
from functools import reduce
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.carried import Carried
from domain.events import (
    AbilitySpent,
    CarriedCorrected,
    ChallengeResolved,
    CharacterEntered,
    CharacterMoved,
    CharacterReturned,
    TraitLost,
    TraitRestored,
)
from domain.evolve import fold
from domain.reducers.night import corrected
from domain.sheets import CATEGORIES
from domain.state import Character, Scene, Visit
from tests.night.table import NightTable
from tests.table import sheet

GAME = "g1"
SCENES = ("s1", "s2", "s3", "s4")
SIGNS = ("rock", "paper", "scissors")
SHEETS = {
    "sam": sheet(
        "sam",
        {"Brawny": 2, "Quick": 1},
        name="Sam",
        traits={"social": {"Charming": 2}},
        abilities={"Brawl": 2},
        willpower=1,
    ),
    "juan": sheet(
        "juan",
        {"Wiry": 1, "Quick": 1},
        name="Juan",
        traits={"social": {"Dignified": 2}},
        abilities={"Dodge": 1},
    ),
    "rosa": sheet("rosa", {"Nimble": 2}, name="Rosa", traits={"social": {"Witty": 1}}, abilities={"Brawl": 1}),
}
CHARACTERS = tuple(SHEETS)
NPC = sheet("npc", {"Brawny": 1, "Wiry": 1}, name="The bouncer", npc=True, traits={"social": {"Dignified": 1}})
EVERYONE = {**SHEETS, "npc": NPC}
EFFECTS = (None, None, {"kind": "damage", "amount": 1}, {"kind": "damage", "amount": 1, "type": "lethal"})
STEPS = ("open", "open", "move", "move", "move", "fight", "fight", "fight", "fight", "remove", "close", "rule")
STEPS += ("rule", "withdraw", "tick", "invalid", "invalid", "add", "adjust", "amend")


class Night:
    """A night at a table where every command is checked: one refused appends nothing anywhere."""

    def __init__(self, data: st.DataObject) -> None:
        self.t = NightTable()
        self.draw = data.draw
        self.opened: list[str] = []
        self.t.open_game(GAME, *SHEETS.values())

    def heads(self) -> dict[str, tuple[int, str]]:
        return {s: self.t.store.head(s) for s in self.t.store.scenes()}

    def do(self, stream: str, actor: str, verb: str, **fields: Any) -> bool:
        before = self.heads()
        done = self.t.do(stream, actor, verb, **fields)
        if done.error is not None:
            assert self.heads() == before, f"{verb} was refused ({done.error.code}) yet a stream changed"
        return done.error is None

    def refused(self, stream: str, actor: str, verb: str, code: str, **fields: Any) -> None:
        self.t.refused(stream, actor, verb, code=code, **fields)  # asserts the code and every head

    def state(self, stream: str) -> Scene:
        """The service's live state of a stream (kept by applying each commit, not read again)."""
        return self.t.service.state(stream)

    @property
    def night(self) -> Scene:
        return self.state(GAME)

    def open_scenes(self) -> list[str]:
        return [s for s in self.opened if self.state(s).status == "open"]

    @property
    def where(self) -> dict[str, Visit]:
        return self.night.night.where if self.night.night else {}

    def present(self, scene: str) -> list[str]:
        return [c.id for c in self.state(scene).roster() if c.present]

    def sensible(self) -> bool:
        """Mostly a move that fits the night so far; now and then anything."""
        return self.draw(st.integers(0, 3)) > 0

    def pick(self, options: list[str] | tuple[str, ...]) -> str:
        return self.draw(st.sampled_from(options))

    # -- one random step --------------------------------------------------------------------

    def step(self, n: int) -> None:
        kind = self.pick(STEPS)
        if kind == "open":
            fresh = [s for s in SCENES if s not in self.opened]
            if fresh:
                self.t.open_scene(fresh[0], GAME)
                self.opened.append(fresh[0])
        elif kind == "move":
            free = [c for c in CHARACTERS if c not in self.where]
            if free and self.open_scenes() and self.sensible():
                self.do(GAME, "st", "move_character", character=self.pick(free), to=self.pick(self.open_scenes()))
            else:
                self.do(GAME, "st", "move_character", character=self.pick(CHARACTERS), to=self.pick(SCENES))
        elif kind == "fight" and self.opened:
            busy = [s for s in self.open_scenes() if len(self.present(s)) >= 2]
            scene = self.pick(busy) if busy and self.sensible() else self.pick(self.opened)
            self.fight(scene, f"c{n}")
        elif kind == "remove" and self.opened:
            if self.where and self.sensible():
                who = self.pick(sorted(self.where))
                self.do(self.where[who].scene, "st", "remove_character", character=who)
            else:
                self.do(self.pick(self.opened), "st", "remove_character", character=self.pick(CHARACTERS))
        elif kind == "close" and self.opened:
            self.do(self.pick(self.opened), "st", "close_scene")
        elif kind == "rule":
            self.rule()
        elif kind == "withdraw" and self.opened:
            self.withdraw(self.pick(self.opened))
        elif kind == "tick":
            self.t.tick(minutes=self.draw(st.integers(1, 6)))
        elif kind == "invalid":
            self.invalid()
        elif kind == "add" and self.opened:
            who = self.pick((*CHARACTERS, "npc", "npc"))  # a character of the night is refused
            self.do(self.pick(self.opened), "st", "add_character", character=EVERYONE[who])
        elif kind == "adjust" and self.where:
            who = self.pick(sorted(self.where))
            self.do(self.where[who].scene, "st", "adjust", character=who, changes=self.changes(), reason="by hand")
        elif kind == "amend":
            self.amend()

    def fight(self, scene: str, cid: str) -> None:
        """A contested challenge as far as it goes: sometimes left waiting for its answer."""
        here = self.present(scene)
        people = here if len(here) >= 2 and self.sensible() else list(CHARACTERS)
        challenger, target = self.draw(st.permutations(people))[:2]
        category = self.pick(("physical", "physical", "social"))
        bid = self.pick(sorted(EVERYONE[challenger]["traits"].get(category, {"Nope": 1})))
        fields = {"kind": "contested", "targets": [target], "category": category, "bid": [bid]}
        if category == "physical" and (effect := self.draw(st.sampled_from(EFFECTS))):
            fields["effect"] = effect
        if not self.do(scene, challenger, "declare", challenge=cid, **fields):
            return
        if self.draw(st.integers(0, 5)) == 0:
            return  # left open: removing or closing is refused until it is withdrawn
        answer = self.pick(sorted(EVERYONE[target]["traits"].get(category, {"Nope": 1})))
        if not self.do(scene, target, "bid", challenge=cid, bid=[answer]):
            return
        for _ in range(12):
            ch = self.state(scene).challenges[cid]
            if not ch.open:
                return
            sides = {"challenger": ch.challenger.who, "defender": ch.defender.who}
            if ch.status in ("bidding", "throwing"):
                for who in sides.values():
                    self.do(scene, who, "throw", challenge=cid, sign=self.pick(SIGNS))
            elif ch.status == "tie_declaring":
                first = ch.declaring_first or "challenger"
                for role in (first, ch.other(first)):
                    self.do(scene, sides[role], "declare_traits", challenge=cid, count=self.draw(st.integers(0, 3)))
            elif ch.status == "retest_window":
                pending = ch.pending_retest
                if pending is not None:
                    self.do(scene, sides[ch.other(pending.role)], "pass", challenge=cid)
                    continue
                for role in ch.losing_roles():
                    who = sides[role]
                    ability = next(iter(EVERYONE[who].get("abilities", {"Brawl": 0})))
                    if self.draw(st.booleans()):
                        source = {"category": "ability", "name": ability}
                        self.do(scene, who, "retest", challenge=cid, source=source)
                    else:
                        self.do(scene, who, "pass", challenge=cid)
            else:
                return

    def rule(self) -> None:
        """Overturn a resolved challenge of any scene of tonight, open or closed."""
        resolved = [
            (scene, r.seq)
            for scene in self.opened
            for r in self.t.store.read(scene)
            if isinstance(r.event, ChallengeResolved)
        ]
        if resolved:
            scene, seq = self.draw(st.sampled_from(resolved))
            self.do(scene, "st", "rule", event=seq, decision="overturn", reason="seen again")

    def changes(self) -> dict[str, Any]:
        """A correction by hand of a character's damage or Willpower (its Traits and Abilities
        change only by challenges and rulings on them, for the ledgers)."""
        kind = self.pick(("bashing", "lethal"))
        return self.pick([{"damage": {kind: -1}}, {"damage": {kind: 1}}, {"willpower": -1}, {"willpower": 1}])

    def amend(self) -> None:
        """A ruling, in any scene of tonight, that corrects a character by hand."""
        scenes = [s for s in self.opened if any(c.entered for c in self.state(s).characters.values())]
        if scenes:
            scene = self.pick(scenes)
            who = self.pick(sorted(c.id for c in self.state(scene).characters.values() if c.entered))
            event = self.draw(st.integers(1, self.state(scene).version))
            correction = {"character": who, "changes": self.changes()}
            self.do(scene, "st", "rule", event=event, decision="amend", correction=correction, reason="seen again")

    def withdraw(self, scene: str) -> None:
        for cid in self.state(scene).undecided:
            self.do(scene, "st", "withdraw", challenge=cid)

    def invalid(self) -> None:
        """A command the night must turn down, and does without a trace."""
        closed = [s for s in self.opened if s not in self.open_scenes()]
        where = self.night.night.where if self.night.night else {}
        kind = self.pick(("closed", "twice", "arrive", "come_back", "register", "sheet"))
        who = self.pick(CHARACTERS)
        if kind == "closed" and closed:
            self.refused(GAME, "st", "move_character", "scene_closed", character=who, to=self.pick(closed))
        elif kind == "twice" and where and self.open_scenes():
            inside = self.pick(sorted(where))
            to = self.pick(self.open_scenes())
            self.refused(GAME, "st", "move_character", "in_another_scene", character=inside, to=to)
        elif kind == "arrive" and self.open_scenes():
            arrival = {"game": GAME, "character": SHEETS[who], "carried": {}, "seq": 1, "hash": "x"}
            self.refused(self.pick(self.open_scenes()), "st", "arrive", "forbidden", **arrival)
        elif kind == "come_back":
            origin = self.pick(self.opened or SCENES)
            self.refused(GAME, "st", "come_back", "forbidden", character=who, origin=origin, carried={})
        elif kind == "register":
            self.refused(GAME, "st", "register_character", "character_exists", character=SHEETS[who])
        elif kind == "sheet" and (never := [s for s in self.open_scenes() if who not in self.state(s).characters]):
            self.refused(self.pick(never), "st", "add_character", "night_character", character=SHEETS[who])

    def end(self) -> None:
        """Stop what is open and close every scene: everyone goes back to the night."""
        for scene in self.open_scenes():
            self.withdraw(scene)
            assert self.do(scene, "st", "close_scene")

    # -- the properties ---------------------------------------------------------------------

    def one_scene_at_a_time(self) -> None:
        where = self.night.night.where if self.night.night else {}
        for who in CHARACTERS:
            inside = [s for s in self.opened if (c := self.state(s).characters.get(who)) is not None and c.present]
            assert all(self.state(s).status == "open" for s in inside), f"{who} is present in a closed scene"
            assert len(inside) <= 1, f"{who} is in {inside} at once"
            assert inside == ([where[who].scene] if who in where else []), f"{who}: the night says {where.get(who)}"

    def calls_on_what_is_left(self) -> None:
        """In every stream a character calls on the copies of its Traits it has left, whatever it
        lost (a Trait may be lost twice tonight: in one scene, and by a ruling in a scene it left)."""
        for stream in [GAME, *self.opened]:
            for c in self.state(stream).characters.values():
                for category in CATEGORIES:
                    left = sum(max(0, c.left(t, category)) for t in EVERYONE[c.id]["traits"].get(category, {}))
                    assert c.available(category) == left, f"{c.name} in {stream}: {category} {c.lost_names}"
                numbers = [c.willpower, *c.abilities.values(), c.wounds.bashing, c.wounds.lethal, c.wounds.aggravated]
                assert min(numbers) >= 0, f"{c.name} in {stream}: {c.willpower}, {c.abilities}, {c.wounds}"

    def streams_fold_alone(self) -> None:
        for stream in self.t.store.scenes():
            assert fold(list(self.t.store.read(stream))) == self.state(stream), f"{stream} folds otherwise"

    def entering_carries_the_night(self) -> None:
        night = list(self.t.store.read(GAME))
        for scene in self.opened:
            for r in self.t.store.read(scene):
                if not isinstance(r.event, CharacterEntered):
                    continue
                e = r.event
                who = e.character.id
                sent = night[e.seq - 1]
                assert (e.game, e.hash) == (GAME, sent.hash)
                assert sent.event == CharacterMoved(character=who, to=scene)
                then = fold(night[: e.seq])
                expected = then.characters[who].carried(then.waits_of(who, then.last_at) if then.last_at else {})
                assert e.carried == expected, f"{who} entered {scene} with another state than the night's"
                assert self.state(scene).characters[who].entered >= e.seq

    def ledgers(self) -> None:
        """For every character in no scene now: the night holds every loss and spending of tonight."""
        night = self.night
        where = night.night.where if night.night else {}
        events = [r.event for scene in self.opened for r in self.t.store.read(scene)]
        for who in CHARACTERS:
            if who in where:
                continue
            lost = Counter(e.trait for e in events if isinstance(e, TraitLost) and e.character == who)
            lost.subtract(e.trait for e in events if isinstance(e, TraitRestored) and e.character == who)
            now = night.characters[who]
            assert +lost == Counter(now.lost_names) and not -lost, f"{who}: {dict(lost)} against {now.lost_names}"
            spent = Counter(e.ability for e in events if isinstance(e, AbilitySpent) and e.character == who)
            sheet_abilities = SHEETS[who].get("abilities", {})
            assert now.abilities == {a: n - spent[a] for a, n in sheet_abilities.items()}, f"{who}'s abilities"

    def handed_back_plus_corrections(self) -> None:
        """What the night has for a character is what its last scene has for it (what it handed
        back, and the rulings there since), plus the corrections that came from other scenes."""
        log = list(self.t.store.read(GAME))
        night = self.night
        for who in CHARACTERS:
            if night.night and who in night.night.where:
                continue
            now = night.characters[who]
            back = [r for r in log if isinstance(r.event, CharacterReturned) and r.event.character == who]
            if not back:
                assert now.carried() == Character.from_sheet(now.sheet, 0).carried()
                continue
            last = back[-1]
            assert isinstance(last.event, CharacterReturned)
            origin = last.event.scene
            there = self.state(origin).characters[who]
            after = [
                r.event
                for r in log[last.seq :]
                if isinstance(r.event, CarriedCorrected) and r.event.character == who and r.event.scene != origin
            ]
            expected = reduce(lambda c, e: corrected(c, e.changes), after, there)
            assert _same(now.carried(), expected.carried()), f"{who}: night {now.carried()} against {expected}"


def _same(a: Carried, b: Carried) -> bool:
    """Carried states alike, whatever the order Traits were lost and restored in."""
    return sorted(a.lost, key=repr) == sorted(b.lost, key=repr) and (
        a.abilities,
        a.willpower,
        a.wounds,
        a.blood_spent,
        a.marks,
    ) == (b.abilities, b.willpower, b.wounds, b.blood_spent, b.marks)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_nights_carry_every_character_faithfully(data: st.DataObject) -> None:
    night = Night(data)
    for n in range(data.draw(st.integers(1, 60), label="steps")):
        night.step(n)
        night.one_scene_at_a_time()
        night.ledgers()
        night.calls_on_what_is_left()
    night.streams_fold_alone()
    night.entering_carries_the_night()
    night.end()
    night.one_scene_at_a_time()
    night.streams_fold_alone()
    night.entering_carries_the_night()
    night.ledgers()
    night.handed_back_plus_corrections()


def _social(
    t: NightTable, scene: str, cid: str, challenger: str, target: str, bids: tuple[str, str], signs: tuple[str, str]
) -> int:
    """A Social challenge thrown to its end, no retests; the seq of its result."""
    fields = {"kind": "contested", "targets": [target], "category": "social", "bid": [bids[0]]}
    t.ok(scene, challenger, "declare", challenge=cid, **fields)
    t.ok(scene, target, "bid", challenge=cid, bid=[bids[1]])
    t.ok(scene, challenger, "throw", challenge=cid, sign=signs[0])
    t.ok(scene, target, "throw", challenge=cid, sign=signs[1])
    for who in (challenger, target):
        t.do(scene, who, "pass", challenge=cid)
    assert not t.state(scene).challenges[cid].open
    return next(r.seq for r in t.log(scene) if isinstance(r.event, ChallengeResolved) and r.event.challenge == cid)


def test_a_ruling_takes_a_trait_lost_since_in_another_scene() -> None:
    """Found by the property above. Rosa, one Witty and one Charming, wins a challenge in the
    gallery and loses her Witty in the bar; a ruling in the gallery has her lose the first one,
    and its Witty. She has lost Witty twice tonight, once each way: that does not take her Charming
    as well (she calls on one Social Trait, not none), and when the bar's loss is overturned the
    gallery's still stands."""
    rosa = sheet("rosa", {"Nimble": 2}, name="Rosa", traits={"social": {"Witty": 1, "Charming": 1}})
    t = NightTable()
    t.open_game(GAME, SHEETS["sam"], SHEETS["juan"], rosa)
    t.open_scene("gallery")
    t.open_scene("bar")
    t.move("juan", "gallery")
    t.move("rosa", "gallery")
    gallery = _social(t, "gallery", "c-1", "juan", "rosa", ("Dignified", "Witty"), ("rock", "paper"))
    t.ok("gallery", "st", "remove_character", character="rosa")
    t.move("sam", "bar")
    t.move("rosa", "bar")
    bar = _social(t, "bar", "c-2", "sam", "rosa", ("Charming", "Witty"), ("rock", "scissors"))
    assert t.character("bar", "rosa").lost_names == ["Witty"]

    t.ok("gallery", "st", "rule", event=gallery, decision="overturn", reason="Juan had the better of it")

    rosa_in_the_bar = t.character("bar", "rosa")
    t.ok("bar", "st", "close_scene")
    for now in (rosa_in_the_bar, t.character(GAME, "rosa")):
        assert now.lost_names == ["Witty", "Witty"]
        assert now.available("social") == 1  # her Charming
    t.ok("bar", "st", "rule", event=bar, decision="overturn", reason="Rosa had the better of it")
    now = t.character(GAME, "rosa")
    assert now.lost_names == ["Witty"]  # the gallery's loss stands
    assert (now.left("Witty", "social"), now.available("social")) == (0, 1)


def test_a_ruling_takes_willpower_spent_since_in_another_scene() -> None:
    """Found by the property above. Sam, one Willpower, leaves the gallery and spends it in the bar;
    a ruling in the gallery then takes a Willpower from him there, and a wound he has had healed
    since is healed again: he has none of either left, not less than none."""
    t = NightTable()
    t.open_game(GAME, *SHEETS.values())
    t.open_scene("gallery")
    t.open_scene("bar")
    t.move("sam", "gallery")
    t.ok("gallery", "st", "adjust", character="sam", changes={"damage": {"lethal": 1}}, reason="a fall")
    t.ok("gallery", "st", "remove_character", character="sam")
    t.move("sam", "bar")
    t.ok("bar", "st", "adjust", character="sam", changes={"willpower": -1, "damage": {"lethal": -1}}, reason="rest")

    amend = {"character": "sam", "changes": {"willpower": -1, "damage": {"lethal": -1}}}
    t.ok("gallery", "st", "rule", event=1, decision="amend", correction=amend, reason="he had spent it there")

    assert [r.type for r in t.log("bar")][-1] == "carried_corrected"
    in_the_bar = t.character("bar", "sam")
    t.ok("bar", "st", "close_scene")
    for sam in (in_the_bar, t.character(GAME, "sam")):
        assert (sam.willpower, sam.wounds.lethal) == (0, 0)


def test_a_character_of_the_night_comes_in_from_the_night_only() -> None:
    """Found by the property above: a sheet added to a scene by hand under the id of a character
    of the night put Sam in two open scenes at once, the second time with nothing lost. Refused;
    a character of the scene alone (an NPC) is still added by its sheet."""
    t = NightTable()
    t.open_game(GAME, *SHEETS.values())
    t.open_scene("gallery")
    t.open_scene("bar")
    t.move("sam", "gallery")
    message = t.refused("bar", "st", "add_character", code="night_character", character=SHEETS["sam"])
    assert message == (
        "Sam is a character of Night g1: send them in from the night (move them), so that they bring what they"
        " carry tonight."
    )
    t.refused("bar", "st", "add_character", code="night_character", character=SHEETS["rosa"])  # in no scene
    t.ok("bar", "st", "add_character", character=NPC)
    assert [c.id for c in t.state("bar").roster() if c.present] == ["npc"]


def test_an_npc_added_by_hand_is_registered_only_once_it_has_left() -> None:
    """The other way round: an NPC added to a scene by hand, then registered in the night, could be
    sent into a second scene while still in the first. Refused while it is there, naming the
    scene; once it has left, it is registered and comes in from the night like any other."""
    t = NightTable()
    t.open_game(GAME, *SHEETS.values())
    t.open_scene("gallery")
    t.open_scene("bar")
    t.ok("bar", "st", "add_character", character=NPC)
    message = t.refused(GAME, "st", "register_character", code="in_a_scene", character=NPC)
    assert message == (
        "The bouncer is in Bar already, added there by hand: remove them from it first, then register them and"
        " send them in."
    )
    t.ok("bar", "st", "remove_character", character="npc")
    t.ok(GAME, "st", "register_character", character=NPC)
    t.move("npc", "gallery")
    assert t.character("gallery", "npc").present and not t.character("bar", "npc").present
    assert t.refused(GAME, "st", "move_character", code="in_another_scene", character="npc", to="bar")
