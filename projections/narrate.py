"""One sentence per event, in the table's words, from the state just before it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import msgspec

from domain.carried import Carried
from domain.commands import Action, Source
from domain.events import (
    AbilitySpent,
    ActionDeclared,
    ActionTaken,
    ArmorDamaged,
    ArmorRestored,
    AssistAnswered,
    AssistOffered,
    AttackIntended,
    BidPlaced,
    BloodSpent,
    BonusExpired,
    CarriedCorrected,
    ChallengeDeclared,
    ChallengeResolved,
    ChallengeWithdrawn,
    ChampionChosen,
    CharacterAdded,
    CharacterAdjusted,
    CharacterAmended,
    CharacterEntered,
    CharacterLeft,
    CharacterMoved,
    CharacterRegistered,
    CharacterRemoved,
    CharacterReturned,
    ConditionCleared,
    ConditionSet,
    DamageHealed,
    DamageTaken,
    DeadlineExtended,
    DeadlinePassed,
    DeadlinesSet,
    DeclarationsOpened,
    DiceRolled,
    DisputeOpened,
    ExpendituresDone,
    ExpendituresOpened,
    FairEscapeDeclared,
    FairEscapeFailed,
    FairEscapeHeld,
    FairEscapeSucceeded,
    Fed,
    GameClosed,
    GameOpened,
    GrappleBroken,
    GrappleStarted,
    InitiativeSet,
    KnockedDown,
    ManeuverUsed,
    MobJoined,
    NegativeTraitCalled,
    NormalActionsEnded,
    OutcomeCorrected,
    OverbidFailed,
    OverbidSucceeded,
    Passed,
    ProneCleared,
    Relented,
    RetestCancelled,
    RetestInvoked,
    RetestStood,
    RoundEnded,
    RoundStarted,
    RulingIssued,
    SceneAdded,
    SceneClosed,
    SceneEnded,
    SceneEvent,
    SceneForked,
    SceneOpened,
    TestResolved,
    TestRevealed,
    ThrowSealed,
    TraitLost,
    TraitRestored,
    TraitsDeclared,
    TurnEnded,
    TurnStarted,
    VictoryChosen,
    WillpowerSpent,
)
from domain.log import Recorded
from domain.pools import Pool
from domain.rules import RULESETS, ruleset_for, title_of
from domain.rulings import challenge_words, step_words
from domain.sheets import CATEGORIES, Sheet
from domain.state import NARRATOR, Scene
from projections.changes import changes
from projections.deadline_words import deadline_for, extended_said, lapse_of, lapse_said, made, set_said
from projections.redact import SEES_ALL, SPECTATOR, Blind, may_know


def source_label(source: Source) -> str:
    """A retest's source as the pages name it: "Dodge (ability)", not "ability Dodge"."""
    name = getattr(source, "name", None)
    if name:
        return f"{name} ({source.category})"
    bid = getattr(source, "bid", None)
    if bid:
        return f"an overbid, risking {', '.join(bid)}"
    return f"a {source.category} retest" if source.category != "overbid" else "an overbid"


FREE = "\x1f"
"""Around someone's own words in a sentence (a victory condition, a reason): never rewritten."""


def narrate(
    before: Scene,
    event: SceneEvent,
    viewer: str = NARRATOR,
    *,
    second_person: bool = True,
    blind: Blind = SEES_ALL,
    lapse: DeadlinePassed | None = None,
) -> str:
    """What happened, as ``viewer`` may know it (``before`` names the people). A player reads their
    own character in the second person ("You challenge Juan", "Juan's challenge to you", "your
    pool of 8"); the Storyteller and spectators read everyone by name, and so does anyone reading
    a player's knowledge on their behalf (a replay "as Sam saw it": ``second_person=False``).
    ``blind``: the sealed throws and rolls kept from the viewer now (``projections.redact.blind``),
    said as to one who does not know them. ``lapse``: the acting ``deadline_passed`` whose move
    this event is (``projections.deadline_words.lapse_of``): said as the deadline's move, not the player's own."""
    you = None if viewer in (NARRATOR, SPECTATOR) else _viewer_name(before, event, viewer)
    if lapse is not None:
        said = _by_lapse(before, event, lapse, viewer, you, blind)
    else:
        said = _said(before, event, viewer, you, blind)
    me = you if second_person else None
    if me is None:
        return said.replace(FREE, "")
    others = [c.name for who, c in before.characters.items() if who != viewer]
    if isinstance(event, CharacterAdded | CharacterEntered | CharacterRegistered) and event.character.id != viewer:
        others.append(event.character.name)
    return addressed(said, me, others)


def narrate_records(
    befores: Sequence[Scene], records: Sequence[Recorded], viewer: str = NARRATOR, *, blind: Blind = SEES_ALL
) -> list[str]:
    """``narrate`` of each record of a commit (or a page of the log), ``befores`` the scene just
    before each: the move an acting lapse made said as the deadline's (``lapse_of``)."""
    said, previous = [], None
    for before, record in zip(befores, records, strict=True):
        said.append(narrate(before, record.event, viewer, blind=blind, lapse=lapse_of(before, record, previous)))
        previous = record
    return said


_MOVES: dict[str, type] = {
    "relent": Relented,
    "throw": ThrowSealed,
    "roll": DiceRolled,
    "declare_traits": TraitsDeclared,
    "pass": Passed,
    "answer_assist": AssistAnswered,
    "declare_action": ActionDeclared,
    "expenditures_done": ExpendituresDone,
    "end_turn": TurnEnded,
}
"""The event a lapse's move begins with, by the move's verb."""


def _by_lapse(
    before: Scene, event: SceneEvent, lapse: DeadlinePassed, viewer: str, you: str | None, blind: Blind
) -> str:
    """The move a lapse made, as the deadline's ("A sign is thrown at random for Juan, by the
    table's deadline for a throw (sealed until both are in)."), never as the player's own."""
    name = before.name_of(lapse.character)
    option = deadline_for(lapse.kind, lapse.did)
    if not isinstance(event, _MOVES.get(lapse.did, ())):  # something else came first: say it, and whose
        said = _said(before, event, viewer, you, blind).rstrip(".")
        return f"{said} (the move {option} made for {name})."

    def shown(field: str) -> bool:
        return may_know(event, field, viewer, blind)

    step = ""
    if isinstance(event, Passed):
        ch = before.challenges.get(event.challenge)
        pending = ch.pending_retest if ch else None
        step = "cancel_or_let_stand" if pending is not None and pending.by != event.character else ""
    said, extra, tail = made(lapse.did, step, lapse.kind, name), "", ""
    match event:
        case ThrowSealed():
            extra, tail = (f": {event.sign}" if shown("sign") else ""), " (sealed until both are in)"
        case DiceRolled():
            extra, tail = (f": {_faces(event.dice)}" if shown("dice") else ""), " (sealed until both are in)"
        case TraitsDeclared():
            said = f"{event.count} Traits are declared for {name}"
    return f"{said[:1].upper()}{said[1:]}{extra}, by {option}{tail}."


def _viewer_name(before: Scene, event: SceneEvent, viewer: str) -> str | None:
    """The name of the viewer's own character, if the viewer is a player with one in the scene."""
    if viewer in before.characters:
        return before.name_of(viewer)
    if isinstance(event, CharacterAdded | CharacterEntered | CharacterRegistered) and event.character.id == viewer:
        return event.character.name
    return None


_KEPT = "threw may must can cannot will would could did had lost won rolled declared"
_REGULAR = """win lose lead take challenge make bid answer relent withdraw call throw declare retest cancel spend
let fail grapple join dispute leave roll end announce act use get keep hold escape break feed move stand need
lend assist regain heal suffer choose drop attack want gain become fall owe risk name draw receive deal hit
shoot stay remain say reroll tie beat decline defend offer refuse accept see acquire burn bring land enter
come carry send shield succeed"""
_SECOND = {
    **{v: v for v in _KEPT.split()},
    **{f"{v}s": v for v in _REGULAR.split()},
    **{"is": "are", "was": "were", "has": "have", "does": "do", "goes": "go", "passes": "pass"},
    **{"matches": "match", "misses": "miss", "reaches": "reach", "tries": "try", "applies": "apply"},
}
"""A verb after a name, as it reads after "you" ("loses" -> "lose"); a modal or a past stays."""


_SECOND_AND = re.compile(r"\b([Yy]ou (?:\w+ ){1,2})and (\w+s)\b")
"""A second verb after "you" and one or two words ("you have more and wins")."""


def said_to(state: Scene, viewer: str, text: str) -> str:
    """A sentence about the scene (a refusal of a player's command) as ``viewer`` reads it: their
    own character in the second person ("Mark has no standard action left" -> "You have no
    standard action left"); anyone else's words as they are."""
    me = state.characters.get(viewer)
    if me is None:
        return text
    return addressed(text, me.name, [c.name for who, c in state.characters.items() if who != viewer])


def addressed(text: str, me: str, others: Sequence[str] = ()) -> str:
    """``text`` with the character named ``me`` as "you": "Vito's pool" -> "your pool", "Sam wins"
    -> "you win", "against Sam" -> "against you"; capitalised where a sentence begins. Words in
    :data:`FREE` marks (someone's own) and longer names holding ``me`` ("Sam" in "Sam Wu") are kept."""
    if not me or me not in text:
        return text.replace(FREE, "")
    pieces = text.split(FREE)
    for i in range(0, len(pieces), 2):
        # after someone's own words that end a sentence ("…retest void."), a sentence begins again
        start = i == 0 or pieces[i - 1].rstrip().endswith((".", "!", "?", "…"))
        pieces[i] = _addressed(pieces[i], me, [o for o in others if o != me and me in o], at_start=start)
    return "".join(pieces)


@lru_cache(maxsize=256)
def _name_pattern(me: str) -> re.Pattern[str]:
    """``me`` as a whole name, with what follows it: a possessive, or the next word (its verb)."""
    return re.compile(rf"(?<![\w'’-]){re.escape(me)}(?![\w-])(?:(['’]s\b)|( )(\w+))?")


def _addressed(text: str, me: str, longer: list[str], at_start: bool) -> str:
    kept = {f"\x1e{i}\x1e": other for i, other in enumerate(sorted(longer, key=len, reverse=True))}
    for mark, other in kept.items():
        text = text.replace(other, mark)
    pattern = _name_pattern(me)

    def rewrite(m: re.Match[str]) -> str:
        head = text[: m.start()].rstrip()
        start = (at_start and not head) or head.endswith((".", "!", "?"))
        if m.group(1):
            return "Your" if start else "your"
        you = "You" if start else "you"
        verb = m.group(3)
        if verb is not None and verb in _SECOND:
            return f"{you} {_SECOND[verb]}"
        return f"{you}{m.group(2) or ''}{verb or ''}"

    text = pattern.sub(rewrite, text)
    if _SECOND_AND.search(text):  # "you have more and wins" -> "you have more and win"
        text = _SECOND_AND.sub(lambda m: f"{m.group(1)}and {_SECOND.get(m.group(2), m.group(2))}", text)
    for mark, other in kept.items():
        text = text.replace(mark, other)
    return text


def amendments(before: Sheet, after: Sheet, changed: list[str], *, notes: bool = True) -> str:
    """What an amendment changed, in words: "Strength 12 → 4; Brawl added (2); Brwal gone"; the
    Storyteller's notes said only to the Storyteller (``notes``), else only that they changed."""
    old, new = msgspec.to_builtins(before), msgspec.to_builtins(after)
    said = []
    for path in changed:
        if path == "notes" and not notes:
            said.append("the Storyteller's notes")
            continue
        a, b = _at(old, path), _at(new, path)
        label = path.rsplit(".", 1)[-1].replace("_", " ")
        label = label if label[:1].isupper() else label.capitalize()
        if a is None:
            said.append(f"{label} added ({_shown(b)})")
        elif b is None:
            said.append(f"{label} gone (was {_shown(a)})")
        else:
            said.append(f"{label} {_shown(a)} → {_shown(b)}")
    return "; ".join(said)


def _at(value: Any, path: str) -> Any:
    for step in path.split("."):
        value = value.get(step) if isinstance(value, dict) else None
    return value


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(v.get("name", str(v)) if isinstance(v, dict) else str(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value != "" else "none"


def _said(before: Scene, event: SceneEvent, viewer: str, you: str | None, blind: Blind = SEES_ALL) -> str:
    """What happened, by names; ``you`` is the viewer's own character's name, if any. What of it is
    secret from the viewer is what its type declares (``may_know``), never decided here."""
    name = before.name_of

    def shown(field: str) -> bool:
        return may_know(event, field, viewer, blind)

    match event:
        case SceneOpened():
            title = f" “{event.title}”" if event.title else ""
            rules = title_of(event.ruleset)
            return f"The Storyteller opens the scene{title} under the {rules} rules."
        case CharacterAdded(character=sheet) if sheet.id in before.characters:
            return f"{sheet.name} returns to the scene: the same character, gone since they left."
        case CharacterAmended(character=sheet):
            was = before.characters.get(sheet.id)
            whose = f"{was.name if was else sheet.name}'s"
            reason = f": {FREE}{event.reason}{FREE}" if shown("reason") else "."
            if not shown("changed") or was is None:
                return f"The Storyteller amends {whose} sheet{reason}"
            said = amendments(was.sheet, sheet, event.changed, notes=viewer == NARRATOR)
            return f"The Storyteller amends {whose} sheet ({said}){reason}"
        case CharacterAdded(character=sheet):
            who = f"{sheet.name} (NPC)" if sheet.npc else sheet.name
            if sheet.traits is None or not shown("character"):
                return f"{who} joins the scene."
            counts = ", ".join(f"{sum(sheet.traits.of(c).values())} {c.capitalize()}" for c in CATEGORIES)
            return f"{who} joins the scene with {counts} Traits."
        case CharacterRemoved():
            return f"{name(event.character)} leaves the scene."
        case CharacterAdjusted():
            reason = f": {FREE}{event.reason}{FREE}" if shown("reason") else "."
            return f"The Storyteller adjusts {name(event.character)}{reason}"
        case SceneClosed():
            return "The Storyteller closes the scene."
        case SceneForked() if before.title:  # the copied steps named the scene: its title, not its id
            return f"A what-if of “{before.title}”, from its step {event.seq}: nothing here changes the real scene."
        case SceneForked():
            return f"A what-if: this scene goes on from another scene as it stood at its step {event.seq}."
        case (
            GameOpened()
            | GameClosed()
            | CharacterRegistered()
            | SceneAdded()
            | SceneEnded()
            | CharacterMoved()
            | CharacterReturned()
            | CharacterEntered()
            | CharacterLeft()
            | CarriedCorrected()
        ):
            return _tonight(before, event, viewer, shown)
        case ChallengeDeclared():
            against = (
                f"challenges {', '.join(name(t) for t in event.targets)}"
                if event.targets
                else f"makes a {event.kind} test"
            )
            difficulty = f" at difficulty {event.difficulty}" if event.difficulty is not None else ""
            bid = f", bidding {', '.join(event.bid)}" if event.bid else ""
            victory = f": “{FREE}{event.victory}{FREE}”" if event.victory else ""
            power = f" with {event.power}" if event.power else ""
            kind = f"{event.category} against {event.defense}" if event.defense else event.category
            flags = [
                f
                for f, on in (
                    ("surprise", event.surprise),
                    ("ranged", event.ranged),
                    ("in darkness", bool(event.darkness)),
                    ("unseen", event.unseen),
                    ("a gate test, before the action's effect", event.gate),
                    (f"from {event.range} steps", event.range is not None),
                    (f"maneuver: {_maneuvers(event.maneuver)}", bool(event.maneuver)),
                )
                if on
            ]
            extra = f" [{', '.join(flags)}]" if flags else ""
            if event.pool is not None:
                bid = f", {_pool(event.pool, shown('pool'))}"
            return f"{name(event.challenger)} {against} ({kind}{difficulty}){power}{bid}{victory}{extra}."
        case BidPlaced():
            if event.owed:
                return f"{name(event.character)} bids {', '.join(event.traits)}, owed for a Negative Trait call."
            victory = f": “{FREE}{event.victory}{FREE}”" if event.victory else ""
            if event.pool is not None:
                return f"{name(event.character)} answers, {_pool(event.pool, shown('pool'))}{victory}."
            return f"{name(event.character)} answers, bidding {', '.join(event.traits)}{victory}."
        case Relented():
            if event.pool is not None:
                would = _pool(event.pool, True)  # a relent's pool is said to all (it decides the grade)
                they = "you" if event.character == viewer else "they"
                return f"{name(event.character)} relents ({they} would have defended {would})."
            return f"{name(event.character)} relents."
        case ChallengeWithdrawn():
            ch = before.challenges.get(event.challenge)
            return f"{name(event.by)} withdraws {challenge_words(before, ch) if ch else 'a challenge'}."
        case NegativeTraitCalled():
            verdict = "right" if event.correct else "wrong"
            then = (
                f"{name(event.owed_by)} must risk another Trait"
                if event.matched
                else f"{name(event.owed_by)} has no Trait left to match it"
            )
            return f"{name(event.by)} calls {event.trait} on {name(event.against)}: {verdict}; {then}."
        case ThrowSealed():
            how = "at random" if event.random else ""
            sign = f" {event.sign}" if shown("sign") else ""
            return f"{name(event.character)} throws{sign} {how} (sealed until both are in).".replace("  ", " ")
        case TestRevealed() if event.dice:
            return _dice_shown(before, event)
        case TestRevealed():
            ch = before.challenges.get(event.challenge)
            order = [ch.challenger.who, ch.defender.who] if ch else list(event.signs)
            threw = " threw" if you is not None and viewer in order else ""  # "you threw rock", as the card says
            signs = ", ".join(f"{name(who)}{threw} {event.signs[who]}" for who in order if who in event.signs)
            by = " (recorded by the Storyteller)" if event.recorded_by else ""
            result = "a tie" if event.result == "tie" else f"{name(order[0 if event.result == 'win' else 1])} wins"
            pools = "; ".join(f"{name(who)}'s pool: {pool.describe()}" for who, pool in event.pools.items())
            return f"Test {event.test}{by}: {signs}: {result}." + (f" Pools shown: {pools}." if pools else "")
        case DeclarationsOpened():
            what = "On the tie" if event.purpose == "tie" else "For the overbid"
            return f"{what}, both sides declare their Traits, {name(event.first)} first."
        case TraitsDeclared():
            return f"{name(event.character)} declares {event.count} Traits."
        case TestResolved():
            return event.why
        case RetestInvoked():
            return f"{name(event.character)} retests with {source_label(event.source)}."
        case RetestStood():
            return "Nothing cancels that retest: it stands, and the next test begins."
        case RetestCancelled():
            return f"{name(event.character)} cancels the retest with {source_label(event.source)}."
        case AbilitySpent():
            character = before.characters.get(event.character)
            left = (character.abilities.get(event.ability, 0) - 1) if character else 0
            return f"{name(event.character)} spends a level of {event.ability} ({left} left)."
        case Passed():
            ch = before.challenges.get(event.challenge)
            pending = ch.pending_retest if ch else None
            if pending is not None and pending.by != event.character:
                return f"{name(event.character)} lets the retest stand: a new test."
            return f"{name(event.character)} passes: no further retest."
        case OverbidSucceeded() | OverbidFailed():
            return event.why
        case ChallengeResolved():
            waits = ruleset_for(before.ruleset).repeat_wait if before.ruleset in RULESETS else ""
            wait = (
                f" {name(_challenger(before, event.challenge))} may not repeat it for {waits}."
                if event.wait_until and waits
                else ""
            )
            critical = f" {name(event.critical)} fails critically." if event.critical else ""
            return f"{event.why}{critical}{wait}"
        case TraitLost():  # a consequence kept on its challenge has its names, not its words
            return event.why or f"{name(event.character)} loses {event.trait}."
        case DamageTaken():  # how it came from what was declared, where the log says (a rule: changed)
            how = f": {event.why}" if event.rule else ", as declared." if event.why else "."
            return f"{name(event.character)} takes {event.amount} {event.damage} damage{how}"
        case GrappleStarted():
            return f"{name(event.grappler)} grapples {name(event.victim)}."
        case GrappleBroken():
            how = f" {event.why}" if event.why else ""
            return f"{name(event.grappler)}'s grapple on {name(event.victim)} is broken.{how}"
        case KnockedDown():
            return f"{name(event.character)} is knocked prone."
        case DisputeOpened():
            return f"{name(event.by)} disputes {step_words(before, event.event)}: {FREE}{_sentence(event.reason)}{FREE}"
        case RulingIssued():
            verdict = {"uphold": "upholds", "overturn": "overturns", "amend": "amends"}[event.decision]
            said = f"The Storyteller {verdict} {step_words(before, event.event)}: {FREE}{_sentence(event.reason)}{FREE}"
            return said if event.decision == "uphold" else f"{said} {event.why}"
        case OutcomeCorrected():
            return f"By the ruling at step {event.ruling}: {event.why}"
        case TraitRestored():
            return event.why
        case DamageHealed():
            return f"{name(event.character)} is healed of {event.amount} {event.damage} damage by the ruling."
        case ProneCleared():
            return f"{name(event.character)} is no longer prone."
        case MobJoined():
            lending = f", {_pool(event.pool, shown('pool'))}" if event.pool is not None else ""
            lending = f", lending {', '.join(event.traits)}" if event.traits else lending
            return f"{name(event.character)} joins the attack{lending}" + (
                f": “{FREE}{event.victory}{FREE}”." if event.victory else "."
            )
        case ChampionChosen():
            return f"{name(event.character)} is the mob's champion (chosen by {name(event.by)})."
        case VictoryChosen():
            return f"The winning mob applies {name(event.of)}'s victory condition."
        case WillpowerSpent():
            return f"{name(event.character)} spends a point of Willpower."
        case RoundStarted() if event.budget:
            rage = "; Rage rounds: " + ", ".join(f"{name(w)} {n}" for w, n in event.rage.items()) if event.rage else ""
            return f"Round {event.number} begins: each acts on initiative, a standard and a simple action{rage}."
        case RoundStarted() if event.narrative:
            return f"Round {event.number} begins, a narrative round: each rolls against the Storyteller's difficulty."
        case RoundStarted() if not _declares_actions(before.ruleset):
            return f"Round {event.number} begins: each acts on initiative, in turn."
        case RoundStarted():
            return f"Round {event.number} begins: everyone declares an action."
        case ActionDeclared():
            return f"{name(event.character)} declares {_action(before, event.action)}."
        case InitiativeSet():
            return event.why
        case TurnStarted():
            if event.why:
                return event.why
            if not event.characters:
                return "Nobody acts now."
            return f"Now acting: {', '.join(name(w) for w in event.characters)}."
        case TurnEnded():
            return f"{name(event.character)} ends {_their(event.character, viewer)} turn."
        case RoundEnded():
            return f"Round {event.number} ends."
        case BloodSpent() | ExpendituresOpened() | NormalActionsEnded() | Fed() | ArmorDamaged():
            return event.why
        case ExpendituresDone():
            return f"{name(event.character)} is done with {_their(event.character, viewer)} expenditures."
        case ArmorRestored():
            return f"{name(event.character)}'s armour is restored by {event.amount} by the ruling."
        case BonusExpired():
            return f"{name(event.character)}'s {event.trait} fades after the challenge."
        case AttackIntended():
            return f"{name(event.character)} announces an attack on {name(event.target)} later this round."
        case (
            ActionTaken()
            | ConditionSet()
            | ConditionCleared()
            | ManeuverUsed()
            | FairEscapeDeclared()
            | FairEscapeHeld()
            | FairEscapeSucceeded()
            | FairEscapeFailed()
            | AssistOffered()
            | AssistAnswered()
        ):
            return event.why or _kind(event)
        case DeadlinePassed():
            return lapse_said(before, event)
        case DeadlineExtended():
            return extended_said(before, event)
        case DeadlinesSet():
            return set_said(event)
        case DiceRolled():  # (kony: rare beside the rest, so late in the match)
            if not shown("dice"):
                return f"{name(event.character)} rolls (sealed until both are in)."
            named = f", naming {', '.join(source_label(s) for s in event.retests)}" if event.retests else ""
            by = f" (rolled by hand, entered by {_entered(before, event.entered_by)})" if event.entered_by else ""
            sealed = "sealed until both are in"
            return f"{name(event.character)} rolls {_faces(event.dice)}{by}{named}: {event.why} ({sealed})."
    return _kind(event)


def _their(who: str, viewer: str) -> str:
    return "your" if who == viewer else "their"


def _kind(event: SceneEvent) -> str:
    """An event without a sentence of its own, by its kind in words ("scene closed", not "scene_closed")."""
    return event.type_name().replace("_", " ").capitalize() + "."


def _sentence(text: str) -> str:
    """Someone's free words as a sentence of ours: one full stop at the end."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def _dice_shown(before: Scene, event: TestRevealed) -> str:
    """Both sides' dice, shown (a dice ruleset's test)."""
    name = before.name_of
    ch = before.challenges.get(event.challenge)
    order = [ch.challenger.who, ch.defender.who] if ch else list(event.dice)
    shown = "; ".join(
        f"{name(who)} {_faces(event.dice[who])} ({successes(event.successes.get(who, 0))})"
        for who in order
        if who in event.dice
    )
    rerolled = f", after the rerolls {_faces(event.rerolled)}" if event.rerolled else ""
    return f"Test {event.test}, the dice: {shown}{rerolled}."


def successes(n: int) -> str:
    """ "1 success", "0 successes", "3 successes"."""
    return f"{n} success" if n == 1 else f"{n} successes"


def _faces(dice: list[int]) -> str:
    return ", ".join(str(v) for v in dice) or "nothing"


def _entered(state: Scene, actor: str) -> str:
    return "the Storyteller" if actor == NARRATOR else state.name_of(actor)


def _maneuvers(given: str | list[str] | None) -> str:
    return " + ".join(m.replace("_", " ") for m in ([given] if isinstance(given, str) else given or []))


def _action(state: Scene, action: Action) -> str:
    what = {
        "challenge": f"a {'/'.join(action.categories) or action.category} challenge",
        "move": "to move",
        "none": "no action",
        "full_round": "a full-round action",
        "end_of_turn": "an end-of-turn action",
        "fair_escape": "a fair escape",
    }.get(action.kind) or (
        f"an action: {FREE}{action.what}{FREE}" if action.what else f"an action ({action.kind.replace('_', ' ')})"
    )
    target = f" against {state.name_of(action.target)}" if action.target else ""
    steps = f", {action.steps} step(s)" if action.steps else ""
    drag = f" dragging {state.name_of(action.drag)}" if action.drag else ""
    stand = ", standing up" if action.stand else ""
    return f"{what}{target}{steps}{drag}{stand}"


def _pool(pool: Pool, shown: bool) -> str:
    """A side's pool as a viewer may know it before the test (``shown``): its parts, or only that it is set."""
    what = f"{pool.attack} attack " if pool.attack else f"{pool.defense} defence " if pool.defense else ""
    if not shown:
        return "with a test pool kept secret until the test"
    return f"with a {what}pool of {pool.describe()}"


def _declares_actions(ruleset: str) -> bool:
    """Whether a round of ``ruleset`` opens with everyone declaring an action (so where this
    server lacks the ruleset)."""
    rules = RULESETS.get(ruleset)
    return rules is None or rules.declares_actions


def _challenger(state: Scene, cid: str) -> str:
    ch = state.challenges.get(cid)
    return ch.challenger.who if ch else "?"


# -- a game night: its scenes, and its characters going from one to the next -------------------


def _tonight(before: Scene, event: SceneEvent, viewer: str, shown: Callable[[str], bool]) -> str:
    """A game night's events, in the night's stream and in its scenes; ``shown``: whether the viewer
    may know a field, as the event's type declares."""
    name = before.name_of

    def where(scene: str) -> str:
        found = before.night.scene(scene) if before.night else None
        return f"“{found.title}”" if found and found.title else "a scene of tonight's"

    match event:
        case GameOpened():
            title = f" “{event.title}”" if event.title else ""
            rules = title_of(event.ruleset)
            return f"The Storyteller opens the game night{title} under the {rules} rules."
        case GameClosed():
            return "The Storyteller closes the game night: what was lost tonight comes back for the next one."
        case CharacterRegistered(character=sheet):
            who = f"{sheet.name} (NPC)" if sheet.npc else sheet.name
            return f"{who} is at the game tonight."
        case SceneAdded():  # a player's night names no scene but its character's (projections.redact)
            named = event.title and shown("title")
            return f"“{event.title}” opens tonight." if named else "A new scene opens tonight."
        case SceneEnded():
            found = before.night.scene(event.scene) if before.night else None
            visit = before.night.where.get(viewer) if before.night else None
            named = shown("scene") or (visit is not None and visit.scene == event.scene)
            return f"“{found.title}” ends." if named and found and found.title else "A scene of tonight's game ends."
        case CharacterMoved(character=who) if shown("to"):
            return f"The Storyteller sends {name(who)} into {where(event.to)}."
        case CharacterMoved(character=who):
            return f"The Storyteller sends {name(who)} into a scene."
        case CharacterReturned(character=who) if event.why and shown("why") and shown("carried"):
            return (
                f"{name(who)} could not go into {where(event.scene)} ({FREE}{event.why}{FREE}) and is between scenes."
            )
        case CharacterReturned(character=who) if shown("carried"):
            character = before.characters.get(who)
            fresh = _newly_lost(character.lost_names if character else [], event.carried)
            without = f", now without {_and(fresh)}" if fresh else ""
            return f"{name(who)} comes back from {where(event.scene)}{without}: between scenes."
        case CharacterReturned(character=who) if shown("scene"):
            return f"{name(who)} comes back from {where(event.scene)}: between scenes."
        case CharacterReturned(character=who):
            return f"{name(who)} is between scenes."
        case CharacterEntered(character=sheet):
            here = f"“{before.title}”" if before.title else "the scene"
            if not shown("carried"):
                return f"{sheet.name} enters {here} from tonight's game."
            return f"{sheet.name} enters {here}{_still(event.carried)}."
        case CharacterLeft(character=who):
            still = _still(event.carried, earlier=False) if shown("carried") else ""
            return f"{name(who)} leaves the scene, back to tonight's game{still}."
        case CarriedCorrected(character=who) if shown("changes"):
            said = "; ".join(what for *_, what in changes(event.changes, name(who))) or f"{name(who)} is unchanged"
            ruled = where(event.scene) if before.night else "an earlier scene"
            return f"A ruling in {ruled} after {name(who)} left it: {said}."
        case CarriedCorrected(character=who):
            return f"A ruling in an earlier scene changes what {name(who)} carries tonight."
    return _kind(event)


def _newly_lost(before: list[str], carried: Carried) -> list[str]:
    """The Traits in ``carried`` beyond those ``before`` (each name counted)."""
    left = list(before)
    fresh = []
    for lost in carried.lost:
        if lost.trait in left:
            left.remove(lost.trait)
        else:
            fresh.append(lost.trait)
    return fresh


def _still(carried: Carried, *, earlier: bool = True) -> str:
    """What a character carries into (or out of) a scene, in words: ", still without Brawny (lost
    earlier tonight), with 2 lethal damage"."""
    parts = []
    if carried.lost:
        traits = _and([lost.trait for lost in carried.lost])
        parts.append(f"still without {traits} (lost earlier tonight)" if earlier else f"without {traits}")
    hurt = [f"{n} {kind}" for kind in ("aggravated", "lethal", "bashing") if (n := getattr(carried.wounds, kind))]
    if hurt:
        parts.append(f"with {_and(hurt)} damage")
    return f", {', '.join(parts)}" if parts else ""


def _and(items: Sequence[str]) -> str:
    """ "Brawny ×2 and Quick": a Trait lost twice is counted, not said twice."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    said = [f"{item} ×{n}" if n > 1 else item for item, n in counts.items()]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}" if said else ""
