"""``justicar join LINK`` (or ``justicar join URL --token T``): a player's terminal at the table.

LINK is the page link ``justicar serve`` prints (``http://HOST:PORT/play#token=…``): the socket
and the token are read from it. The terminal shows your sheet and the challenges you are in, with
the moves the rules allow you now, and reads one move per line (``help`` lists this scene's moves,
``help VERB`` one). ``sheet`` lists each of your Traits, abilities, powers and merits (in a pool
ruleset the attributes, skills, weapons and maneuvers) and who else is here, and a challenge that
asks you for a bid lists the Traits it may take: all as the view sends them. At a terminal, Tab
completes verbs, challenge numbers, Traits, targets, powers and the like (readline); piped input is
read line by line. What happens at the table is printed as it happens, in the server's words (``»
Juan throws (sealed until both are in).``), and a challenge you are in ends with its result said to
you (``» Result: You challenge Juan (Physical): Juan won: you lose Brawny.``). Every challenge and
result is its account's words (``projections.account``, carried on the view): the terminal lays
them out and says nothing of its own. Challenges go by number (``#1``; ``bid 2 Quick``); ``--ids``
adds, for the record, the scene's and each challenge's id and the rule id beside each test, verdict
and refusal. Lines break between words at the terminal's width (``--width N``). The connection
reconnects by itself and catches up, and says so. The running response deadlines are printed
in the view's words with the time left (``⏱ You have 2 minutes to throw: 1:34 left.``), and the
Storyteller takes a lapse's choice by its number (``choose 2``).
"""

from __future__ import annotations

import argparse
import queue
import re
import secrets
import shutil
import sys
import textwrap
import threading
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, TextIO
from urllib.parse import parse_qs, urlsplit, urlunsplit

import anyio
import anyio.lowlevel
import msgspec

from clients.client import Client, ClientError, routed
from projections.account import Account
from projections.account_text import account_lines, verdict_line
from projections.audit_render import visible

ATTACKS = ("unarmed", "melee", "thrown", "archery", "firearms", "bite", "claw", "mental", "social")
DEFENSES = ("dodge", "parry", "soak", "mental", "social")
ACTS = ("move", "advanced_move", "prone", "crawl", "stand", "draw", "nock", "clear", "pick_up", "trade", "other")
BENEFITS = {"plus_one": "+1 on an attack", "maneuver": "a free maneuver"}


class Move(NamedTuple):
    """One line of ``help``: how a move is typed, what it does, examples, and the scenes it is for
    (the ruleset's family as the view's ``rules`` says it, and whether it plays rounds)."""

    usage: str
    words: str
    families: tuple[str, ...] = ("traits", "pools", "dice")
    rounds: bool = False
    examples: tuple[str, ...] = ()

    @property
    def verb(self) -> str:
        return self.usage.split()[0]


BIDS = ("traits", "dice")
EFFECT_WORDS = (
    "EFFECT: damage[:N[:TYPE]] (TYPE: bashing, lethal, aggravated), grapple, escape_grapple, knock_down or narrative"
)
MOVES = (
    Move(
        "declare TARGET CATEGORY TRAIT [effect=EFFECT] [victory…]",
        f"challenge someone; CATEGORY: physical, social or mental; {EFFECT_WORDS}",
        BIDS,
        examples=("declare juan physical Brawny effect=damage:2:lethal down you go",),
    ),
    Move(
        "declare TARGET ATTACK[/ATTRIBUTE][@WEAPON] [SKILL] [±N REASON…] [: victory…]",
        "attack someone; ATTACK: " + ", ".join(ATTACKS),
        ("pools",),
        examples=("declare hunter social intimidation : he flees", "declare vincent firearms +2 shotgun : I shoot him"),
    ),
    Move(
        "declare … range=N maneuver=NAME",
        "from N steps; a maneuver (1 Willpower, or free)",
        ("pools",),
        examples=("declare rosa unarmed range=1 maneuver=knock_down : down she goes",),
    ),
    Move(
        "declare … maneuver=FIRST,SECOND",
        "two maneuvers on one attack, with an accepted free maneuver from an assist: it pays for the first, "
        "1 Willpower for the second",
        ("pools",),
        examples=("declare rosa melee maneuver=hamstring,targeted_attack : her leg",),
    ),
    Move("bid [#N] TRAIT…", "answer a challenge, or bid what a Negative Trait call made you owe", ("traits",)),
    Move(
        "bid [#N] TRAIT… [effect=EFFECT] [: victory…]",
        "answer with your own victory condition, applied to the challenger if you win",
        ("dice",),
        examples=("bid Strong effect=grapple : I pin him",),
    ),
    Move("defend [#N] DEFENSE [±N REASON…]", "answer with " + ", ".join(DEFENSES), ("pools",)),
    Move("relent [#N]", "give in without risking a Trait", BIDS),
    Move("relent [#N] [DEFENSE]", "give in (say the defence you would have used: it grades the relent)", ("pools",)),
    Move("withdraw [#N]", "take back your challenge"),
    Move("call [#N] TRAIT", "call a Negative Trait on your opponent", BIDS),
    Move("throw [#N] SIGN", "rock, paper, scissors or random (or a gesture your sheet grants)", ("traits",)),
    Move(
        "roll [#N] [SOURCE…] [values=1,3]",
        "roll your {dice}: one, plus one for each retest source named; SOURCE: ability:NAME, power:NAME, "
        "merit:NAME (a space in a name: _) or sheet (a combat sheet's retest); values= the dice you rolled by "
        "hand, where allowed",
        ("dice",),
        examples=("roll ability:Brawl power:Potence",),
    ),
    Move("traits [#N] COUNT", "declare your Traits on a tie or an overbid", ("traits",)),
    Move("retest [#N] ability|power|merit NAME", "retest with an ability, a power or a merit", ("traits",)),
    Move("retest [#N] overbid TRAIT", "retest by overbidding, risking TRAIT", ("traits",)),
    Move("retest [#N] overbid TRAIT", "after losing the dice, with a Trait Pool double the other's", ("dice",)),
    Move("retest [#N] willpower|overbid", "retest with Willpower, or by overbidding", ("pools",)),
    Move("cancel [#N] ability|power|merit NAME", "block the other side's retest", ("traits",)),
    Move("pass [#N]", "no (further) retest, or let the other side's retest stand"),
    Move("escape", "a fair escape: first thing on your turn", ("pools",), True),
    Move("escape", "a fair escape, before anyone declares this round", ("dice",), True),
    Move("intend TARGET", "say you will attack the one escaping (only if you have not acted yet)", ("pools",), True),
    Move(
        "act KIND [STEPS] [WHAT…] [using=standard] [maneuver=NAME]",
        "KIND: move (up to 3 steps), "
        + ", ".join(ACTS[1:])
        + "; maneuvers with an action: quick_draw (draw, no action spent), snap_shot "
        "(nock, no action spent), burst_of_speed (a simple action before your turn), dart_behind and feral_dash "
        "(move; lupus or hispo form)",
        ("pools",),
        True,
        ("act move 3 · act draw knife · act clear blinded", "act draw knife maneuver=quick_draw"),
    ),
    Move("act other [WHAT…]", "say what you do this round", ("dice",), True, ("act other grab him",)),
    Move("done", "your expenditures are declared (the expenditures phase)", ("dice",), True),
    Move("feed TARGET [N]", "feed on the one you hold in a grapple: N blood Traits (1 to 3)", ("dice",), True),
    Move("end", "end your turn", rounds=True),
    Move(
        "assist TO plus_one|maneuver [how…]",
        "help another's attack (your standard action, once accepted)",
        ("pools",),
        True,
    ),
    Move(
        "shield #N [how…]",
        "take a Physical attack in its defender's place before the first throw: you become its target and "
        "answer it (your simple action, once a round)",
        ("pools",),
        True,
    ),
    Move("accept OFFER", "take help offered to you (OFFER: the number shown)", ("pools",), True),
    Move("refuse OFFER", "turn down help offered to you", ("pools",), True),
    Move("choose N", "the Storyteller, on a lapsed deadline: take the choice numbered [N] under it"),
    Move("sheet", "your Traits, abilities, powers and merits (or attributes and skills), and who you may challenge"),
    Move("view", "the scene again: your sheet in short, the round, your challenges"),
    Move("help [VERB]", "these moves; help VERB: that one's"),
    Move("quit", "leave (the scene goes on)"),
)


def moves_here(view: dict[str, Any]) -> list[Move]:
    """The moves of this scene's ruleset (its family, and rounds if it plays them); all of them
    before the view has come."""
    rules = view.get("rules") or {}
    family = rules.get("family")
    if family is None:
        return list(MOVES)
    return [m for m in MOVES if family in m.families and (not m.rounds or rules.get("rounds"))]


def help_lines(view: dict[str, Any], verb: str | None = None) -> list[str]:
    """``help``: this scene's moves, one entry each, the description in a column; ``help VERB``: that
    verb's entries."""
    shown = [m for m in moves_here(view) if verb is None or m.verb == verb]
    dice = f"{die_word(view)}s" if die_word(view) != "die" else "dice"
    if verb is not None and not shown:
        return [f"{verb!r} is not a move in this scene; type help for the moves you have here."]
    lines = ["moves (#N: the challenge's number, needed only when you are in more than one):"] if verb is None else []
    for m in shown:
        usage = f"  {m.usage}"
        words = m.words.replace("{dice}", dice)
        lines.append(f"{usage:<{COLUMN}}{words}" if len(usage) < COLUMN - 1 else f"{usage}   {words}")
        lines += [f"{'':<{COLUMN}}e.g. {e}" for e in m.examples]
    return lines


COLUMN = 25
"""Where help's descriptions start (and their wrapped lines)."""


def _names(view: dict[str, Any]) -> dict[str, str]:
    names = {who: c.get("name", who) for who, c in view.get("characters", {}).items()}
    return names | {"st": "the Narrator", "*": "a spectator"}


def viewer(welcome: dict[str, Any]) -> str:
    """Who this connection sees as: a character, ``st``, or ``*`` (a spectator)."""
    return str(welcome.get("character") or ("st" if welcome.get("role") == "st" else "*"))


def _pools(view: dict[str, Any]) -> bool:
    """Whether a side stakes a test pool (the view's ``rules``: ``stakes`` where dice are rolled)."""
    rules = view.get("rules") or {}
    return bool((rules.get("stakes") or rules.get("family")) == "pools")


def die_word(view: dict[str, Any]) -> str:
    """The die this scene rolls as the view's ``rules.die`` says it ("d3"); "die" before it says."""
    die = (view.get("rules") or {}).get("die") or {}
    return f"d{die['size']}" if die.get("size") else "die"


def _dice(view: dict[str, Any]) -> bool:
    return bool((view.get("rules") or {}).get("family") == "dice")


def source_word(source: dict[str, Any]) -> str:
    """A retest source as the terminal types it: ``ability:Brawl``, ``sheet``."""
    name = str(source.get("name") or "").replace(" ", "_")
    return f"{source['category']}:{name}" if name else str(source["category"])


def parse_source(word: str) -> dict[str, Any]:
    """``ability:Brawl`` (or ``sheet``) as a retest source named for a die."""
    category, _, name = word.partition(":")
    if category == "sheet" and not name:
        return {"category": "sheet"}
    if category not in ("ability", "power", "merit") or not name:
        raise Unclear(f"{word!r}: a source is ability:NAME, power:NAME, merit:NAME or sheet.")
    return {"category": category, "name": name.replace("_", " ")}


EFFECTS = ("damage", "grapple", "escape_grapple", "knock_down", "narrative")
DAMAGE_TYPES = ("bashing", "lethal", "aggravated")


def parse_effect(word: str) -> dict[str, Any]:
    """``damage:2:lethal`` (``damage`` alone: 1 bashing), ``grapple``, ``knock_down``, ``narrative``:
    a victory condition's effect (protocol section 4)."""
    kind, *rest = word.split(":")
    if kind not in EFFECTS or (rest and kind != "damage") or len(rest) > 2:
        raise Unclear(f"effect={word}: damage[:N[:TYPE]], grapple, escape_grapple, knock_down or narrative.")
    if kind != "damage":
        return {"kind": kind}
    amount, kind_of = [*rest, "1", "bashing"][: len(rest)] + ["1", "bashing"][len(rest) :]
    if not amount.isdigit() or kind_of not in DAMAGE_TYPES:
        raise Unclear(f"effect={word}: damage:N:TYPE, N a number, TYPE bashing, lethal or aggravated.")
    return {"kind": "damage", "amount": int(amount), "type": kind_of}


def _faces(dice: list[int]) -> str:
    return ", ".join(str(v) for v in dice) or "nothing"


def sheet_lines(view: dict[str, Any], me: str) -> list[str]:
    mine = view.get("characters", {}).get(me)
    if mine and _pools(view) and mine.get("attributes") is not None:
        ratings = ", ".join(f"{a.capitalize()} {n}" for a, n in mine["attributes"].items())
        skills = ", ".join(f"{k.capitalize()} {n}" for k, n in (mine.get("skills") or {}).items()) or "none"
        damage = ", ".join(f"{n} {kind}" for kind, n in (mine.get("damage") or {}).items() if n) or "none"
        marks = ", ".join(mark_words(view, mine))
        return [
            f"Attributes: {ratings} · Skills: {skills}",
            f"Willpower {mine.get('willpower')} · Health {mine.get('health')} (damage: {damage})"
            + (f" · Conditions: {marks}" if marks else ""),
        ]
    if not mine or mine.get("traits") is None:
        return []
    traits = ", ".join(f"{cat.capitalize()} {n}" for cat, n in mine["traits"].items())
    lost = ", ".join(mine.get("traits_lost") or []) or "none"
    abilities = ", ".join(f"{a} {n}" for a, n in (mine.get("abilities") or {}).items()) or "none"
    damage = ", ".join(f"{n} {kind}" for kind, n in (mine.get("damage") or {}).items() if n) or "none"
    conditions = mine.get("conditions", {})
    held = [f"grappled by {conditions['grappled_by']}"] if conditions.get("grappled_by") else []
    held += ["prone"] if conditions.get("prone") else []
    armor = f" · Armour {mine['armor']} left" if mine.get("armor") is not None else ""
    down = f" · down {mine['down_traits']} Trait(s)" if mine.get("down_traits") else ""
    return [
        f"Traits: {traits} (lost tonight: {lost}){down}",
        f"Abilities: {abilities} · Willpower {mine.get('willpower')} · Health {mine.get('health')} "
        f"(damage: {damage}){armor} · Conditions: {', '.join(held) or 'none'}",
    ]


CATEGORIES = ("physical", "social", "mental")
COSTS = {"willpower": "1 Willpower", "free": "free", "assist": "the assist's"}


def _counted(name: str, n: int) -> str:
    return f"{name} ×{n}" if n > 1 else name


def _listed(things: Any) -> str:
    """A sheet's powers or merits: a list of names, or names with levels."""
    if isinstance(things, dict):
        return ", ".join(f"{name} {n}" for name, n in things.items()) or "none"
    return ", ".join(things or []) or "none"


def trait_words(view: dict[str, Any], me: str, category: str) -> str:
    """The Traits of a category on ``me``'s sheet as the view sends it, each with how many times the
    sheet has it and how many of those the view's ``traits_lost`` names: ``Brawny ×2 (1 lost), Quick``."""
    mine = view.get("characters", {}).get(me) or {}
    have = ((mine.get("sheet") or {}).get("traits") or {}).get(category) or {}
    lost = mine.get("traits_lost") or []
    said = [_counted(name, n) + (f" ({lost.count(name)} lost)" if name in lost else "") for name, n in have.items()]
    return ", ".join(said) or "none"


def trait_names(view: dict[str, Any], me: str, category: str | None = None) -> list[str]:
    """The names of ``me``'s Traits (of one category, or all), as its sheet in the view has them."""
    traits = ((view.get("characters", {}).get(me) or {}).get("sheet") or {}).get("traits") or {}
    chosen = (category,) if category else CATEGORIES
    return list(dict.fromkeys(name for cat in chosen for name in traits.get(cat) or {}))


def target_word(c: dict[str, Any]) -> str:
    """How a move names a character: its name, or its id when the name is not one word."""
    name = str(c.get("name") or c["id"])
    return name if len(name.split()) == 1 else str(c["id"])


def targets(view: dict[str, Any], me: str) -> list[dict[str, Any]]:
    """The others present in the scene, whom a move may name."""
    return [c for who, c in view.get("characters", {}).items() if who != me and c.get("present", True)]


def target_line(view: dict[str, Any], me: str) -> str:
    """``Others here: Juan, Guard (NPC), Dockside Thug (type thug)``."""
    said = []
    for c in targets(view, me):
        word, name = target_word(c), str(c.get("name") or c["id"])
        said.append(name + (" (NPC)" if c.get("npc") else "") + (f" (type {word})" if word != name else ""))
    return f"Others here: {', '.join(said) or 'nobody'}"


def sheet_command(view: dict[str, Any], me: str) -> list[str]:
    """``sheet``: everything on ``me``'s sheet a move names (each Trait by name, the abilities and
    powers left, the merits, the gestures; in a pool ruleset the attributes, skills, weapons and the
    maneuvers it could use now), from the view, and the others here."""
    mine = view.get("characters", {}).get(me)
    if not mine or mine.get("sheet") is None:
        return ["You have no sheet in this scene.", target_line(view, me)]
    sheet = mine["sheet"]
    lines = [f"{mine.get('name', me)}'s sheet:"]
    if _pools(view):
        lines.append(
            "  Attributes: " + (", ".join(f"{a} {n}" for a, n in (mine.get("attributes") or {}).items()) or "none")
        )
        lines.append("  Skills: " + (", ".join(f"{k} {n}" for k, n in (mine.get("skills") or {}).items()) or "none"))
        weapons = [
            w["name"] + f" ({w['kind']}" + (f", {w['bonus']:+d})" if w.get("bonus") else ")")
            for w in sheet.get("weapons") or []
        ]
        lines.append("  Weapons: " + (", ".join(weapons) or "none"))
        offers = [f"{m['name']} ({COSTS.get(m['cost'], m['cost'])})" for m in mine.get("maneuvers") or []]
        if offers:
            lines.append("  Maneuvers now: " + ", ".join(offers))
    else:
        lines += [f"  {cat.capitalize()} Traits: {trait_words(view, me, cat)}" for cat in CATEGORIES]
        negative = sheet.get("negative_traits") or {}
        lines.append(
            "  Negative Traits: " + (", ".join(n for cat in CATEGORIES for n in negative.get(cat) or []) or "none")
        )
        lines.append(
            "  Abilities: " + (", ".join(f"{a} {n}" for a, n in (mine.get("abilities") or {}).items()) or "none")
        )
    lines.append(f"  Powers: {_listed(sheet.get('powers'))} · Merits: {_listed(sheet.get('merits'))}")
    if sheet.get("gestures"):
        lines.append(f"  Gestures: {', '.join(sheet['gestures'])}")
    blood = f" · Blood {mine['blood']}" if mine.get("blood") is not None else ""
    lines.append(f"  Willpower {mine.get('willpower')} · Health {mine.get('health')}{blood}")
    return [*lines, target_line(view, me)]


def mark_words(view: dict[str, Any], c: dict[str, Any]) -> list[str]:
    """What a character carries: prone, grappled, blinded (2 to clear) …"""
    names = _names(view)
    k = c.get("conditions") or {}
    words = ["prone"] if k.get("prone") else []
    if k.get("grappled_by"):
        words.append(f"grappled by {names.get(k['grappled_by'], k['grappled_by'])}")
    if k.get("grappling"):
        words.append("holding " + ", ".join(names.get(w, w) for w in k["grappling"]))
    for mark in k.get("marks") or []:
        clears = f" ({mark['clears_after']} to clear)" if mark.get("clears_after") else ""
        words.append(mark["name"].replace("_", " ") + clears)
    return words


def escape_line(view: dict[str, Any], c: dict[str, Any]) -> str | None:
    """A fair escape in words, as every page says it."""
    names = _names(view)
    k = c.get("conditions") or {}
    by = ", ".join(names.get(w, w) for w in k.get("escape_held_by") or [])
    name = c.get("name", c.get("id"))
    return {
        "declared": f"{name} is trying to escape" + (f"; {by} will attack." if by else "."),
        "held": f"{name}'s escape is held by {by or 'an attacker'}.",
        "escaped": f"{name} escaped.",
        "failed": f"{name}'s escape failed.",
    }.get(k.get("fair_escape") or "")


def left_words(seconds: float) -> str:
    """Time left on a clock, as a countdown reads it: "1:34", "0:05", "1:02:00"; "time is up"."""
    if seconds <= 0:
        return "time is up"
    whole = int(seconds + 0.999)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02} left" if hours else f"{minutes}:{secs:02} left"


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def deadline_lines(view: dict[str, Any], me: str, now: datetime | None = None) -> list[str]:
    """The running deadlines, in the view's words, with the time left (``due_at`` less ``now``, the
    server's time as this terminal reckons it: ``ServerClock``): "⏱ You have 2 minutes to throw: 1:34
    left. Then a sign is thrown at random for you."; a player's own marked once it is warned
    (``warn_at``). One that lapsed and was told says so, and to the Storyteller its choices, each
    numbered for ``choose N``."""
    found = view.get("deadlines") or []
    now = now or datetime.now(UTC)
    lines, n = [], 0
    for d in found:
        said = str(d.get("said", "")).rstrip(".")
        if d.get("told"):
            lines.append(f"⏱ {said}. {d.get('then', '')}".rstrip())
            for choice in d.get("choices") or []:
                n += 1
                lines.append(f"    [{n}] {choice['label']}: choose {n}")
            continue
        left = (_at(d["due_at"]) - now).total_seconds()
        hurry = "Hurry! " if d.get("mine") and now >= _at(d["warn_at"]) else ""
        lines.append(f"⏱ {hurry}{said}: {left_words(left)}. {d.get('then', '')}".rstrip())
    return lines


def chosen(view: dict[str, Any], word: str) -> dict[str, Any]:
    """The command of the Storyteller's choice numbered ``word`` under a lapsed deadline, as the
    view gives it (``deadline_lines`` numbers them)."""
    choices = [c for d in view.get("deadlines") or [] if d.get("told") for c in d.get("choices") or []]
    if not choices:
        raise Unclear("No deadline waits on a choice now.")
    if not word.isdigit() or not 1 <= int(word) <= len(choices):
        raise Unclear(f"choose N: N is one of 1 to {len(choices)}, as numbered under the lapsed deadlines.")
    return dict(choices[int(word) - 1]["command"])


class ServerClock:
    """The server's time as this terminal reckons it: the local clock corrected by the offset between
    the ``at`` of the last event pushed live and the local clock when it came."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def heard(self, message: dict[str, Any]) -> None:
        events = message.get("events") or []
        at = events[-1].get("at") if events else None
        if at:
            self.offset = _at(str(at)) - datetime.now(UTC)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset


def round_lines(view: dict[str, Any], me: str) -> list[str]:
    """The round: the order, who acts, my actions left, escapes, marks, and help offered to me."""
    r = view.get("round")
    if not r:
        return []
    names = _names(view)
    if r["phase"] == "over":
        head = f"Round {r['number']} is over."
    else:
        value = r["initiative"]
        order = " → ".join(" = ".join(f"{names.get(w, w)} {value.get(w, '-')}" for w in g) for g in r["order"])
        acting = ", ".join(names.get(w, w) for w in r["turn"]) or "nobody"
        head = f"Round {r['number']}: {order or r['phase']} · now acting: {acting}" + (
            " (your turn)" if me in r["turn"] else ""
        )
    lines = [head]
    people = view.get("characters", {})
    mine = people.get(me) or {}
    if mine.get("actions"):
        left = mine["actions"]
        lines.append(f"Actions left: {left.get('standard', 0)} standard, {left.get('simple', 0)} simple")
    for c in people.values():
        if not c.get("present", True):
            continue
        if escape := escape_line(view, c):
            lines.append(escape)
        if marks := mark_words(view, c):
            lines.append(f"{c['name']}: {', '.join(marks)}")
    if r["phase"] == "expending":
        waiting = [c["name"] for c in people.values() if c.get("present", True) and not c.get("expended")]
        lines.append(f"Expenditures: waiting for {', '.join(waiting) or 'nobody'}")
    offered = mine.get("round_moves") or {}
    if offered:
        words = {"expenditures_done": "done", "fair_escape": "escape"}
        found = [words[v] for v in offered.get("verbs", []) if v in words]
        found += [f"feed {t} [1-{n}]" for t, n in (offered.get("feed") or {}).items()]
        lines.append(f"you may: {' · '.join(found)}")
    escaper = r.get("escape_window")
    if escaper and escaper != me and mine.get("actions") and not mine.get("turn_done"):
        lines.append(f"{names.get(escaper, escaper)} is escaping: intend {escaper} to say you will attack")
    for aid in mine.get("aids") or []:
        helper = names.get(aid["by"], aid["by"])
        what = BENEFITS.get(aid["benefit"], aid["benefit"])
        if aid["status"] == "offered":
            lines.append(f"[{aid['offer']}] {helper} offers you {what}: accept {aid['offer']} or refuse {aid['offer']}")
        else:
            lines.append(f"{helper}'s help ({what}): {aid['status']}")
    return lines


def moves(ch: dict[str, Any], me: str, names: dict[str, str], die: str = "die") -> str:
    """What ``me`` may do now in a challenge, in words."""
    challenger = ch["challenger"]
    defender = ch["targets"][0] if ch["targets"] else "st"
    mine = "challenger" if me == challenger else "defender" if me == defender else None
    other = names.get(defender if mine == "challenger" else challenger, "the other side")
    status = ch["status"]
    defenses = (ch.get("moves", {}).get(me) or {}).get("defenses") or {}
    if defenses:
        offered = ", ".join(f"{kind} {pool['total']}" for kind, pool in defenses.items())
        return f"defend DEFENSE [±N REASON] ({offered}), or relent DEFENSE"
    if status == "awaiting_response":
        if mine != "defender":
            return f"wait for {other} (or withdraw)"
        own = (ch.get("moves", {}).get(me) or {}).get("effect")
        return "bid TRAIT [effect=EFFECT] [: victory…], or relent" if own else "bid TRAIT, or relent"
    if ch.get("owed", {}).get(me):
        return f"bid {ch['owed'][me]} more Trait(s)"
    offer = ch.get("moves", {}).get(me) or {}
    if "roll" in offer.get("verbs", []):
        sources = " ".join(source_word(x) for x in offer.get("roll_sources") or [])
        n = offer.get("dice", 1)
        extra = f"; sources, one more die each: {sources}" if sources else ""
        enter = " [values=…]" if offer.get("enter") else ""
        call = " (or call TRAIT)" if "call_negative" in offer.get("verbs", []) else ""
        return f"roll [SOURCE…]{enter} ({n} {die} as it stands{extra}){call}"
    if status in ("bidding", "throwing") and me in ch.get("rolled", []):
        return f"wait for {other} to roll"
    if status in ("bidding", "throwing"):
        if me in ch.get("thrown", []):
            return f"wait for {other} to throw"
        return "throw SIGN" + (" (or call TRAIT, relent)" if status == "bidding" and mine == "defender" else "")
    if status == "tie_declaring":
        return f"wait for {other}" if me in ch.get("declared", {}) else "traits COUNT"
    if status == "retest_window":
        leader = ch["tests"][-1].get("leader") if ch["tests"] else None
        pending = next((r for r in ch.get("retests", []) if r["status"] == "pending"), None)
        if pending:
            return f"wait for {other}" if pending["by"] == me else "cancel CATEGORY NAME, or pass (let it stand)"
        behind = leader == "none" or (leader is not None and leader != mine)
        if "retest" in offer.get("verbs", []) and offer.get("retest"):
            trait = (offer["retest"][0].get("bid") or ["TRAIT"])[0]
            return f"retest overbid {trait}, or pass"
        return "retest …, or pass" if behind else f"wait for {other} to retest or pass"
    return str(status)


def shieldable(view: dict[str, Any], ch: dict[str, Any], me: str) -> bool:
    """Whether ``me`` may shield the defender of ``ch`` (bns:assist-defender): an open Physical
    attack before its first throw, in which ``me`` is not a side, while a round is under way and
    ``me`` has a simple action left (once a round: the server refuses a second)."""
    r = view.get("round") or {}
    mine = view.get("characters", {}).get(me) or {}
    if r.get("phase") != "acting" or not mine.get("present", True) or (mine.get("actions") or {}).get("simple", 0) < 1:
        return False
    if (mine.get("conditions") or {}).get("fair_escape") in ("declared", "held", "escaped"):
        return False
    if ch.get("outcome") or ch["status"] == "withdrawn" or ch["kind"] != "contested" or ch["category"] != "physical":
        return False
    if not ch["targets"] or ch.get("thrown") or ch.get("tests"):
        return False
    return me not in (ch["challenger"], *ch["targets"])


def status_words(view: dict[str, Any], ch: dict[str, Any], me: str) -> str:
    """What the challenge waits for, in words, to ``me`` in the second person: ``your answer is
    due``, ``waiting for Juan to throw``."""
    names = _names(view)
    sides = [str(ch["challenger"]), str((ch.get("targets") or ["st"])[0])]
    roll = _dice(view)

    def waiting(whos: list[str], verb: str) -> str:
        if whos == [me]:
            return f"your {verb} is due"
        return f"waiting for {' and '.join('you' if w == me else names.get(w, w) for w in whos)} to {verb}"

    match ch["status"]:
        case "awaiting_response":
            return waiting(sides[1:], "answer")
        case "bidding" | "throwing":
            done = ch.get("rolled" if roll else "thrown") or []
            missing = [w for w in sides if w != "st" and w not in done]
            return waiting(missing, "roll" if roll else "throw") if missing else "throwing"
        case "tie_declaring":
            return "a tie: " + waiting([w for w in sides if w not in (ch.get("declared") or {})], "declare Traits")
        case "retest_window":
            return "a retest, or pass"
    return str(ch["status"]).replace("_", " ")


def told(ch: dict[str, Any]) -> Account | None:
    """A challenge's account as the view carries it (``projections.account``): its sentences are
    the server's, said to this viewer."""
    a = ch.get("account")
    return msgspec.convert(a, Account) if a else None


def _tag(cid: str, shown: bool) -> str:
    return f"[{cid}] " if shown else ""


def _in_sight(view: dict[str, Any], ch: dict[str, Any], me: str) -> bool:
    """Whether the terminal lists this challenge to ``me``: an open one it is in (the Storyteller and a
    spectator: every open one), or one it may shield."""
    if ch["status"] in ("resolved", "withdrawn"):
        return False
    return me in ("st", "*", ch["challenger"], *ch["targets"]) or shieldable(view, ch, me)


class Handles:
    """The short handle a player types for a challenge: its number, ``1``, ``2`` …, in the order this
    terminal first lists it, kept for the session (a number never moves to another challenge).
    Challenge ids are shown only with ``--ids``; a move takes the number (``#1`` too) or the id."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def see(self, view: dict[str, Any], me: str) -> None:
        for cid, ch in view.get("challenges", {}).items():
            if cid not in self.numbers and _in_sight(view, ch, me):
                self.numbers[cid] = len(self.numbers) + 1

    def of(self, cid: str) -> str:
        return f"#{self.numbers[cid]}" if cid in self.numbers else cid

    def find(self, word: str, view: dict[str, Any], ids: bool = False) -> str | None:
        """The challenge a word names: a handle (``1``, ``#1``) or, before it (with ``--ids``) or
        after it, a challenge id in the view."""
        known = view.get("challenges", {})
        if ids and word in known:
            return word
        number = word.removeprefix("#")
        if number.isdigit():
            found = next((cid for cid, n in self.numbers.items() if n == int(number) and cid in known), None)
            if found is not None:
                return found
        return word if word in known else None


def challenge_lines(view: dict[str, Any], me: str, ids: bool = False, handles: Handles | None = None) -> list[str]:
    """Each open challenge ``me`` is in (the Storyteller and a spectator: all), in its account's
    words: who challenges whom and what it waits for, what each side put up, the powers in play,
    the tests and retests, what winning will do; then what only this viewer may see (its own sealed
    throw or dice, its Trait Pool) and the moves it has, with its Traits where a bid is asked for.
    The challenge's number (what a move names) is shown where a move must name it (more than one
    open challenge, or a shield); its id only with ``ids``, for the record."""
    names = _names(view)
    handles = handles or Handles()
    handles.see(view, me)
    numbered = len(_open_challenges(view, me)) > 1
    lines = []
    for cid, ch in view.get("challenges", {}).items():
        if not _in_sight(view, ch, me):
            continue
        shield = me not in ("st", "*", ch["challenger"], *ch["targets"])
        a = told(ch)
        if a is None:
            continue
        tag = _tag(cid, ids) if ids else f"{handles.of(cid)} " if numbered or shield else ""
        lines.append(f"{tag}{a.title} · {status_words(view, ch, me)}")
        lines += [f"    {line}" for line in account_lines(a, ids=ids, head=False)]
        lines += [f"    {side.trait_pool}" for side in a.sides if side.trait_pool]  # the account's words, as the page's
        rolled = [w for w in ch.get("rolled", []) if w not in ch.get("rolls", {})]
        if rolled:
            lines.append(f"    rolled (sealed): {', '.join(names.get(w, w) for w in rolled)}")
        for who, roll in ch.get("rolls", {}).items():
            named = f", naming {' '.join(source_word(x) for x in roll['retests'])}" if roll.get("retests") else ""
            whose = "your" if who == me else names.get(who, who) + "'s"
            lines.append(f"    {whose} sealed dice: {_faces(roll['dice'])}{named}")
        for who, sign in ch.get("sealed", {}).items():
            lines.append(f"    {'your' if who == me else names.get(who, who) + chr(39) + 's'} sealed throw: {sign}")
        if hidden := [names.get(w, w) for w in ch.get("thrown", []) if w != me and w not in ch.get("sealed", {})]:
            lines.append(
                f"    {' and '.join(hidden)} {'has' if len(hidden) == 1 else 'have'} thrown (sealed until both are in)"
            )
        if ch.get("blind"):  # the Storyteller throwing for an NPC against a sealed throw it may not see
            lines.append(f"    {ch['blind']}")
        if shield:
            defender = names.get(ch["targets"][0], ch["targets"][0])
            handle = cid if ids else handles.of(cid).removeprefix("#")
            lines.append(f"    you may: shield {handle} [how…] (take it for {defender}: your simple action)")
        elif me not in ("st", "*"):
            may = moves(ch, me, names, die_word(view))
            lines.append(f"    you may: {may}")
            if may.startswith("bid ") and not _pools(view):
                lines.append(f"    your {ch['category'].capitalize()} Traits: {trait_words(view, me, ch['category'])}")
    if not lines and me not in ("st", "*"):
        lines = ["No open challenge involves you.", target_line(view, me)]
    lines = lines or ["No open challenge."]
    return lines + _last_outcome(view, me, ids)


def _last_outcome(view: dict[str, Any], me: str, ids: bool = False) -> list[str]:
    """The newest resolved challenge ``me`` was in, so that a terminal joining after it still reads
    how it ended, in its account's words: the last test, the verdict with what it cost and a
    ruling's reason."""
    done = [
        (cid, ch)
        for cid, ch in view.get("challenges", {}).items()
        if ch["status"] == "resolved"
        and ch.get("tests")
        and (me in ("st", "*") or me in (ch["challenger"], *ch["targets"]))
    ]
    a = told(done[-1][1]) if done else None
    if a is None:
        return []
    last = [f"Test {t.number}: {t.words}" for t in a.tests[-1:]]
    said = [*last, verdict_line(a.verdict, ids=ids)] if a.verdict is not None else last
    return [f"Just resolved: {_tag(a.id, ids)}{a.title}", *(f"    {line}" for line in said)]


def result_lines(view: dict[str, Any], events: list[dict[str, Any]], me: str, ids: bool = False) -> list[str]:
    """Each challenge these events resolve or a ruling changes, once, in its account's words: how
    it ended, what it cost whom (each Trait counted once), a ruling's reason; on a player's own
    terminal said to them (``» Result: You challenge Juan (Physical): Juan won: you lose Brawny.``).
    The view is the one after the events (it holds their challenge's account)."""
    lines = []
    for event in events:
        data = event.get("data") or {}
        kind, cid = event.get("type"), data.get("challenge")
        if kind not in ("challenge_resolved", "ruling_issued") or not cid:
            continue
        a = told(view.get("challenges", {}).get(cid) or {})
        if a is None or a.verdict is None:
            continue
        said = verdict_line(a.verdict, ids=ids)
        if kind == "ruling_issued":
            ruling = next((r for r in a.rulings if r.id == event.get("seq")), None)
            if ruling is not None and ruling.decision == "uphold":
                said = f"{ruling.words}: {said}"
            lines.append(f"» Ruling: {_tag(cid, ids)}{a.title}: {said}.")
        else:
            lines.append(f"» Result: {_tag(cid, ids)}{a.title}: {said}.")
    return lines


def news_lines(message: dict[str, Any], view: dict[str, Any], me: str, ids: bool = False) -> list[str]:
    """What a live commit did, as this viewer may know it: the server's words for each event (a
    sealed throw says only that it is in), then each result said to the viewer."""
    said = [f"» {text}" for text in message.get("summaries") or []]
    return said + result_lines(view, message.get("events") or [], me, ids)


class News:
    """Live commits put into words once the view holds what they did. Commands committed together
    come as commits back to back, only the last with the view patch (``docs/protocol.md``): the
    others wait for it (or for the whole view a catch-up ends with), so a result names its sides
    even when its challenge was declared in the same group."""

    def __init__(self, me: str, ids: bool = False) -> None:
        self.me = me
        self.ids = ids
        self.waiting: list[dict[str, Any]] = []

    def take(self, message: dict[str, Any], view: dict[str, Any]) -> list[str]:
        """The lines to say on ``message`` (a ``commit`` or a ``view``), ``view`` merged with it."""
        if message.get("type") == "commit":
            self.waiting.append(message)
            if not message.get("view"):
                return []
        said = [line for waiting in self.waiting for line in news_lines(waiting, view, self.me, self.ids)]
        self.waiting.clear()
        return said


def status(
    view: dict[str, Any],
    welcome: dict[str, Any],
    ids: bool = False,
    handles: Handles | None = None,
    now: datetime | None = None,
) -> str:
    """The scene as this viewer stands in it: who and where (the scene's title; its id with ``ids``)
    and at which step, the sheet in short, the round, the running deadlines with the time left at
    ``now`` (the server's time), the challenges."""
    me = viewer(welcome)
    who = _names(view).get(me, me)
    title = view.get("title") or view.get("ruleset_title") or ""
    where = " · ".join(w for w in (title, f"scene {welcome.get('scene')}" if ids else "") if w)
    head = f"── {who} ({welcome.get('role')}){f' · {where}' if where else ''} · step {view.get('version')} ──"
    lines = [head, *sheet_lines(view, me), *round_lines(view, me), *deadline_lines(view, me, now)]
    lines += challenge_lines(view, me, ids, handles)
    return "\n".join(lines)


def _open_challenges(view: dict[str, Any], me: str) -> list[str]:
    return [
        cid
        for cid, ch in view.get("challenges", {}).items()
        if ch["status"] not in ("resolved", "withdrawn")
        and (me in ("st", "*") or me in (ch["challenger"], *ch["targets"]))
    ]


class Unclear(Exception):
    """A line the terminal cannot turn into a move."""


def which(view: dict[str, Any], me: str, open_ids: list[str], handles: Handles, ids: bool) -> str:
    """A move that must name its challenge, asked which, in words: each open one by its number (its
    id with ``--ids``), title and what it waits for."""
    if not open_ids:
        return "Which challenge? You are in none."
    said = []
    for cid in open_ids:
        ch = view["challenges"][cid]
        a = told(ch)
        title = a.title if a is not None else cid
        said.append(f"{cid if ids else handles.of(cid)} {title} · {status_words(view, ch, me)}")
    return "Which challenge? Name it by its number: " + "; ".join(said) + "."


def parse(
    line: str, view: dict[str, Any], me: str, handles: Handles | None = None, ids: bool = False
) -> dict[str, Any]:
    """One typed line to a protocol command."""
    verb, *args = line.split()
    open_ids = _open_challenges(view, me)
    handles = handles or Handles()
    handles.see(view, me)

    def challenge() -> str:
        lone = verb == "traits" and len(args) == 1 and not args[0].startswith("#")  # traits COUNT
        cid = handles.find(args[0], view, ids) if args and not lone else None
        if cid is not None:
            args.pop(0)
            return cid
        if len(open_ids) == 1:
            return open_ids[0]
        raise Unclear(which(view, me, open_ids, handles, ids))

    def source() -> dict[str, Any]:
        if not args:
            raise Unclear("Name the source: ability NAME, power NAME, merit NAME, or overbid TRAIT.")
        category = args.pop(0)
        if category == "overbid":
            return {"category": "overbid", "bid": args}
        if category in ("willpower", "surprise", "darkness"):
            return {"category": category}
        return {"category": category, "name": " ".join(args)}

    if verb == "choose":
        return chosen(view, args[0] if args else "")
    if verb == "declare":
        args = _named(args, view, ATTACKS if _pools(view) else CATEGORIES)
    if verb == "declare" and _pools(view):
        return _declare_pool(args)
    if verb == "shield" and args:
        args[0] = handles.find(args[0], view, ids) or args[0]
    if verb in ROUND_VERBS:
        return _round_move(verb, args, view)
    if verb == "defend" or (verb == "relent" and _pools(view)):
        cid = challenge()
        if verb == "relent" and not args:
            return {"type": "relent", "challenge": cid}
        if not args or args[0] not in DEFENSES:
            raise Unclear(f"{verb} [#N] DEFENSE: one of {', '.join(DEFENSES)}.")
        pool = {"defense": args.pop(0), **_wildcard(args)}
        return {"type": "bid" if verb == "defend" else "relent", "challenge": cid, "pool": pool}
    if verb == "declare":
        args, settings = _settings(args, ("effect",))
        if len(args) < 4:
            raise Unclear("declare TARGET CATEGORY TRAIT [effect=EFFECT] [victory…] (type help declare)")
        cid, target, category, trait, *victory = args
        declared = {
            "type": "declare",
            "challenge": cid,
            "kind": "contested",
            "targets": [target],
            "category": category,
            "bid": [trait],
            "victory": " ".join(victory),
        }
        return declared | ({"effect": parse_effect(settings["effect"])} if "effect" in settings else {})
    if verb in ("relent", "withdraw", "pass"):
        return {"type": verb, "challenge": challenge()}
    if verb == "bid":
        cid = challenge()
        at = next((i for i, word in enumerate(args) if word.startswith(":")), len(args))
        traits, settings = _settings(args[:at], ("effect",))
        answer: dict[str, Any] = {"type": "bid", "challenge": cid, "bid": traits}
        if at < len(args):
            answer["victory"] = " ".join(args[at:])[1:].strip()
        return answer | ({"effect": parse_effect(settings["effect"])} if "effect" in settings else {})
    if verb == "call":
        cid = challenge()
        return {"type": "call_negative", "challenge": cid, "trait": " ".join(args)}
    if verb == "roll":
        cid = challenge()
        words, settings = _settings(args, ("values", "rerolls"))
        body: dict[str, Any] = {"type": "roll", "challenge": cid, "retests": [parse_source(w) for w in words]}
        for key, value in settings.items():
            try:
                body[key] = [int(v) for v in value.split(",") if v]
            except ValueError:
                raise Unclear(f"{key}=1,3: the faces of the {die_word(view)}s rolled by hand.") from None
        return body
    if verb == "throw":
        cid = challenge()
        return {"type": "throw", "challenge": cid, "sign": args[0] if args else "random"}
    if verb == "traits":
        cid = challenge()
        if not args or not args[0].isdigit():
            raise Unclear("traits [#N] COUNT")
        return {"type": "declare_traits", "challenge": cid, "count": int(args[0])}
    if verb in ("retest", "cancel"):
        cid = challenge()
        return {
            "type": "retest" if verb == "retest" else "cancel_retest",
            "challenge": cid,
            "source": source(),
        }
    raise Unclear(f"Unknown move {verb!r}; type help.")


def _named(args: list[str], view: dict[str, Any], kinds: tuple[str, ...]) -> list[str]:
    """A declaration's words with its challenge id first (one made up when the player left it out:
    ``declare juan physical Brawny``) and its target as the character's id (named by name or id)."""
    if len(args) >= 2 and re.split("[/@]", args[1])[0].lower() in kinds:
        args = [f"c-{secrets.token_hex(3)}", *args]
    if len(args) >= 2:
        args[1] = _who(view, args[1])
    return args


def _who(view: dict[str, Any], word: str) -> str:
    """The character a word names (by id or name, any case); the word itself otherwise, for the
    server to refuse in its own words."""
    try:
        return _character(view, word)
    except Unclear:
        return word


ROUND_VERBS = ("escape", "intend", "act", "end", "assist", "shield", "accept", "refuse", "done", "feed")


def _character(view: dict[str, Any], word: str) -> str:
    """A character named by id or by name (any case)."""
    for who, c in view.get("characters", {}).items():
        if word.lower() in (who.lower(), str(c.get("name", "")).lower()):
            return str(who)
    raise Unclear(f"Nobody here is called {word!r}.")


def _settings(words: list[str], keys: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """``range=1 maneuver=knock_down`` (words ``KEY=VALUE`` for these keys) taken out of the words."""
    rest, found = [], {}
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in keys:
            found[key] = value
        else:
            rest.append(word)
    return rest, found


def _round_move(verb: str, args: list[str], view: dict[str, Any]) -> dict[str, Any]:
    """The verbs of a round of turns: escape, intend, act, end, assist, shield, accept, refuse."""
    if verb == "escape":
        return {"type": "declare_action", "action": {"kind": "fair_escape"}}
    if verb == "end":
        return {"type": "end_turn"}
    if verb == "done":
        return {"type": "expenditures_done"}
    if verb == "feed":
        if not args or len(args) > 2 or (len(args) == 2 and not args[1].isdigit()):
            raise Unclear("feed TARGET [N]: the one you hold, and 1 to 3 blood Traits.")
        return {"type": "feed", "target": _character(view, args[0]), "blood": int(args[1]) if len(args) == 2 else 1}
    if verb == "intend":
        if len(args) != 1:
            raise Unclear("intend TARGET: the one trying to escape.")
        return {"type": "intend_attack", "target": _character(view, args[0])}
    if verb in ("accept", "refuse"):
        if len(args) != 1 or not args[0].isdigit():
            raise Unclear(f"{verb} OFFER: the number of the offer (shown as [N]).")
        return {"type": "answer_assist", "offer": int(args[0]), "accept": verb == "accept"}
    if verb == "assist":
        if len(args) < 2 or args[1] not in BENEFITS:
            raise Unclear("assist TO plus_one|maneuver [how…]")
        body: dict[str, Any] = {"type": "assist", "kind": "attacker", "to": _character(view, args[0])}
        body["benefit"] = args[1]
        if args[2:]:
            body["how"] = " ".join(args[2:])
        return body
    if verb == "shield":
        if not args:
            raise Unclear("shield #N [how…]: the number of the attack whose defender you shield.")
        body = {"type": "assist", "kind": "defender", "challenge": args[0]}
        if args[1:]:
            body["how"] = " ".join(args[1:])
        return body
    words, settings = _settings(args, ("using", "maneuver"))
    if not words or words[0] not in ACTS:
        raise Unclear(f"act KIND [STEPS] [WHAT…]: KIND is one of {', '.join(ACTS)}.")
    kind, *rest = words
    action: dict[str, Any] = {"kind": kind}
    if rest and rest[0].isdigit():
        action["steps"] = int(rest.pop(0))
    if kind == "clear":
        if not rest:
            raise Unclear("act clear blinded|hamstrung|armor_mangled")
        action["clears"] = rest.pop(0)
    what = " ".join(rest)
    if what and kind in ("draw", "pick_up"):
        action["item"] = what
    elif what:
        action["what"] = what
    if "using" in settings:
        action["using"] = settings["using"]
    if "maneuver" in settings:
        action["maneuver"] = settings["maneuver"]
    return {"type": "declare_action", "action": action}


def _wildcard(words: list[str]) -> dict[str, Any]:
    """``+2 shotgun`` as a pool's wild card and its reason; nothing when there is none."""
    if not words:
        return {}
    try:
        wildcard = int(words[0])
    except ValueError:
        raise Unclear(f"A wild card is a number, like +2 or -1, then why: not {words[0]!r}.") from None
    return {"wildcard": wildcard, "why": " ".join(words[1:])}


def _declare_pool(args: list[str]) -> dict[str, Any]:
    """``declare ID TARGET ATTACK[/ATTRIBUTE][@WEAPON] [SKILL] [±N REASON…] [: victory…]``."""
    words, _, victory = " ".join(args).partition(":")
    parts, settings = _settings(words.split(), ("range", "maneuver"))
    if len(parts) < 3:
        raise Unclear("declare TARGET ATTACK [SKILL] [±N REASON…] [: victory…] (type help declare)")
    cid, target, attack, *rest = parts
    attack, _, weapon = attack.partition("@")
    attack, _, attribute = attack.partition("/")
    if attack not in ATTACKS:
        raise Unclear(f"The attack is one of {', '.join(ATTACKS)}: not {attack!r}.")
    pool: dict[str, Any] = {"attack": attack}
    if attribute:
        pool["attribute"] = attribute
    if weapon:
        pool["weapon"] = weapon
    if rest and not rest[0].lstrip("+-").isdigit():
        pool["skill"] = rest.pop(0).lower()
    pool |= _wildcard(rest)
    body: dict[str, Any] = {
        "type": "declare",
        "challenge": cid,
        "kind": "contested",
        "targets": [target],
        "category": {"mental": "mental", "social": "social"}.get(attack, "physical"),
        "pool": pool,
        "victory": victory.strip(),
    }
    if "range" in settings:
        if not settings["range"].isdigit():
            raise Unclear(f"range=N: a number of steps, not {settings['range']!r}.")
        body["range"] = int(settings["range"])
    if "maneuver" in settings:
        chosen = [name for name in settings["maneuver"].split(",") if name]
        if not 1 <= len(chosen) <= 2:
            raise Unclear("maneuver=NAME, or maneuver=FIRST,SECOND (two, with an assist's free maneuver).")
        body["maneuver"] = chosen if len(chosen) == 2 else chosen[0]
    return body


def wrap(text: str, width: int | None, hang: int | None = None) -> list[str]:
    """Each line of ``text`` broken at word boundaries to fit ``width`` columns (none: as it is),
    its continuation indented two past the line's own indent, or, an indented line, to ``hang``
    (help's column) where that leaves room; less, where a long word would not fit so."""
    lines = text.split("\n")
    if not width:
        return lines
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip(" "))
        tries = [(indent, hang)] if hang is not None and indent and width - hang >= 30 else []
        tries += [(indent, indent + 2), (min(indent, 2), min(indent, 2) + 2)]
        for first, under in tries:
            wrapped = textwrap.wrap(
                line.lstrip(" "),
                width,
                initial_indent=" " * first,
                subsequent_indent=" " * under,
                break_long_words=False,
                break_on_hyphens=False,
            )
            if all(len(each) <= width for each in wrapped):
                break
        out += wrapped
    return out


def completions(line: str, view: dict[str, Any], me: str, handles: Handles | None = None) -> list[str]:
    """What Tab offers for the word being typed at the end of ``line``: a verb of this scene's moves;
    then, by verb, the words it takes, all read from the view: the challenges' numbers, the Traits on
    the sheet, the targets, the categories and attacks, the abilities, powers and merits to retest
    with, the signs, the retest sources offered for a roll, the defences, the actions, the offers."""
    words = line.split()
    text = "" if not words or line[-1:].isspace() else words.pop()
    options = _options(words, view, me, handles or Handles()) if words else _verbs(view)
    return list(dict.fromkeys(o for o in options if o.lower().startswith(text.lower())))


def _verbs(view: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(m.verb for m in moves_here(view)))


def _options(words: list[str], view: dict[str, Any], me: str, handles: Handles) -> list[str]:
    verb, rest = words[0], words[1:]
    handles.see(view, me)
    open_ids = _open_challenges(view, me)
    numbers = [handles.of(cid).removeprefix("#") for cid in open_ids]
    mine = view.get("characters", {}).get(me) or {}
    sheet = mine.get("sheet") or {}
    others = [target_word(c) for c in targets(view, me)]
    if verb == "help":
        return _verbs(view) if not rest else []
    if verb == "declare":
        return _declaring(rest, view, me, others)
    if verb in ("intend", "feed") or (verb == "assist" and not rest):
        return others if not rest else []
    if verb == "assist":
        return list(BENEFITS) if len(rest) == 1 else []
    if verb == "shield":
        shielded = [
            handles.of(c).removeprefix("#") for c, ch in view.get("challenges", {}).items() if shieldable(view, ch, me)
        ]
        return shielded if not rest else []
    if verb in ("accept", "refuse"):
        return [str(a["offer"]) for a in mine.get("aids") or [] if a.get("status") == "offered"] if not rest else []
    if verb == "act":
        return list(ACTS) if not rest else []
    # the moves in a challenge: its number first, when there is more than one
    cid = handles.find(rest[0], view) if rest else None
    if cid is not None:
        rest = rest[1:]
    elif len(open_ids) == 1:
        cid = open_ids[0]
    ch = view.get("challenges", {}).get(cid or "") or {}
    first = numbers if len(open_ids) > 1 and cid is None and not rest else []
    if verb in ("bid", "call") and not _pools(view):
        return first + (trait_names(view, me, ch.get("category")) if verb == "bid" else [])
    if verb in ("defend", "relent") and _pools(view):
        return first + (list(DEFENSES) if not rest else [])
    if verb == "throw":
        return first + (["rock", "paper", "scissors", "random", *(sheet.get("gestures") or [])] if not rest else [])
    if verb == "roll":
        offer = (ch.get("moves") or {}).get(me) or {}
        return first + [source_word(s) for s in offer.get("roll_sources") or []] + ["values="]
    if verb in ("retest", "cancel"):
        return first + _retesting(rest, view, me, ch)
    if verb in ("relent", "withdraw", "pass", "traits"):
        return first
    return []


def _declaring(rest: list[str], view: dict[str, Any], me: str, others: list[str]) -> list[str]:
    """``declare [ID] TARGET CATEGORY TRAIT…`` (pools: ``TARGET ATTACK[@WEAPON] [SKILL]``): the word due next."""
    if rest and rest[0].lower() not in (o.lower() for o in others):
        rest = rest[1:]  # a challenge id the player chose
    if not rest:
        return others
    mine = view.get("characters", {}).get(me) or {}
    if _pools(view):
        if len(rest) == 1:
            weapons = ((mine.get("sheet") or {}).get("weapons")) or []
            return [*ATTACKS, *(f"{w['kind']}@{w['name']}" for w in weapons)]
        return list(mine.get("skills") or {}) if len(rest) == 2 else []
    if len(rest) == 1:
        return list(CATEGORIES)
    return [*trait_names(view, me, rest[1].lower()), "effect="]


def _retesting(rest: list[str], view: dict[str, Any], me: str, ch: dict[str, Any]) -> list[str]:
    """``retest``/``cancel``: the kind of retest, then the name: an ability, power or merit on the sheet,
    or the Trait risked on an overbid."""
    if not rest:
        kinds = {"pools": ["willpower", "overbid"], "dice": ["overbid"]}
        return kinds.get((view.get("rules") or {}).get("family", ""), ["ability", "power", "merit", "overbid"])
    if len(rest) > 1:
        return []
    mine = view.get("characters", {}).get(me) or {}
    sheet = mine.get("sheet") or {}
    return {
        "ability": list(mine.get("abilities") or {}),
        "power": list(sheet.get("powers") or []),
        "merit": list(sheet.get("merits") or []),
        "overbid": trait_names(view, me, ch.get("category")),
    }.get(rest[0], [])


class Screen:
    """Where the terminal writes: each line wrapped at word boundaries to the width (``--width``, else
    the terminal's own as it is now, else none: a pipe or a file takes lines whole), a name's control
    characters shown as codes; at an interactive prompt, what comes in is written above the line being
    typed, which is put back."""

    def __init__(self, out: TextIO, width: int | None = None, prompt: str = "") -> None:
        self.out = out
        self.fixed = width
        self.prompt = prompt
        self.prompting = False
        self.typed: Callable[[], str] = str
        """What is typed at the prompt so far (readline's line)."""

    def width(self) -> int | None:
        if self.fixed:
            return self.fixed
        return shutil.get_terminal_size().columns if _tty(self.out) else None

    def say(self, text: str, hang: int | None = None) -> None:
        lines = wrap("\n".join(visible(line) for line in text.split("\n")), self.width(), hang)
        if self.prompting:  # over the prompt, then the prompt and what is typed so far again
            self.out.write("\r\x1b[K" + "\n".join(lines) + "\n" + self.prompt + self.typed())
        else:
            self.out.write("\n".join(lines) + "\n")
        self.out.flush()


def _tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


async def _lines(stdin: TextIO) -> AsyncIterator[str]:
    async for line in anyio.wrap_file(stdin):
        yield line.strip()


async def _typed(screen: Screen, complete: Callable[[str], list[str]]) -> AsyncIterator[str]:
    """Lines typed at a terminal, read with readline (editing, history, Tab completing ``complete``'s
    words) by a thread of its own, a daemon, so that leaving never waits on a read; each line read when
    the last one is done with, so that the prompt shows only when a line is wanted."""
    import readline  # only here: editing, history and completion at a terminal

    screen.typed = readline.get_line_buffer
    found: list[str] = []

    def completer(text: str, state: int) -> str | None:
        if state == 0:
            try:
                found[:] = complete(readline.get_line_buffer()[: readline.get_endidx()])
            except Exception:  # the view changing under the read: nothing to offer this time
                found[:] = []
        return found[state] if state < len(found) else None

    readline.set_completer(completer)
    readline.set_completer_delims(" \t\n")
    readline.parse_and_bind("bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete")
    wanted: queue.SimpleQueue[bool] = queue.SimpleQueue()
    send, receive = anyio.create_memory_object_stream[str | None](1)
    token = anyio.lowlevel.current_token()

    def read() -> None:
        while wanted.get():
            screen.prompting = True
            try:
                line: str | None = input(screen.prompt)
            except EOFError:
                line = None
            finally:
                screen.prompting = False
            anyio.from_thread.run(send.send, line, token=token)
            if line is None:
                return

    threading.Thread(target=read, name="terminal input", daemon=True).start()
    while True:
        wanted.put(True)
        line = await receive.receive()
        if line is None:
            return
        yield line.strip()


async def run(url: str, token: str, stdin: TextIO, out: TextIO, ids: bool = False, width: int | None = None) -> int:
    screen = Screen(out, width, prompt="> " if _tty(stdin) and _tty(out) else "")
    say = screen.say
    handles = Handles()
    said_up_to = Step()
    clock = ServerClock()

    try:
        async with Client(url, token, summaries=True) as table:
            me = viewer(table.welcome)
            await table.subscribe()
            say(f"Connected to {url} as {_names(table.view).get(me, me)}.")
            say(status(table.view, table.welcome, ids, handles, clock.now()))

            async def follow() -> None:
                shown = table.view.get("version")
                live = False  # the catch-up before the first `subscribed` is the past: the view says it
                lost: int | None = None  # the step the terminal was at when the connection dropped
                news = News(me, ids)
                async for message in table.messages():
                    kind = message.get("type")
                    if kind == "commit" and live:
                        clock.heard(message)
                    if kind in ("view", "commit") and table.view.get("version") != shown:
                        shown = table.view.get("version")
                        say(status(table.view, table.welcome, ids, handles, clock.now()))
                    if kind in ("commit", "view") and live:
                        if said := news.take(message, table.view):
                            say("\n".join(said))
                    elif kind == "subscribed":
                        live = True  # from here (and after a reconnect's catch-up too) each commit is news
                        if lost is not None:
                            say(back_online(lost, int(message.get("version") or 0)))
                            lost = None
                    elif kind == "connection_lost" and lost is None:
                        lost = int(message.get("seq") or 0)
                        say("Connection lost; trying again…")
                    elif kind == "goodbye":
                        say(f"The server says goodbye: {message.get('reason')}")
                    if kind in ("commit", "view") and not news.waiting:
                        said_up_to.reach(int(message.get("version") or (message.get("view") or {}).get("version") or 0))

            def complete(line: str) -> list[str]:
                return completions(line, table.view, me, handles)

            typed = _typed(screen, complete) if screen.prompt else _lines(stdin)
            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                async for line in typed:
                    if not line:
                        continue
                    verb, _, rest = line.partition(" ")
                    if line in ("quit", "exit"):
                        break
                    if verb == "help":
                        say("\n".join(help_lines(table.view, rest.strip() or None)), hang=COLUMN)
                        continue
                    if line == "view":
                        say(status(table.view, table.welcome, ids, handles, clock.now()))
                        continue
                    if line == "sheet":
                        say("\n".join(sheet_command(table.view, me)))
                        continue
                    try:
                        command = parse(line, table.view, me, handles, ids)
                    except Unclear as unclear:
                        say(str(unclear))
                        continue
                    result = await table.send(command)
                    with anyio.move_on_after(SETTLE):  # what the move did, said before its "ok" (and before a quit)
                        await said_up_to.wait_for(int(result.get("version") or 0) if result.get("ok") else 0)
                    if result.get("ok"):
                        say(f"ok ({command['type']})")
                    else:
                        error = result.get("error") or {}
                        rule = f" [{error['rule']}]" if ids and error.get("rule") else ""
                        say(f"refused: {error.get('message')}{rule}")
                tg.cancel_scope.cancel()
    except ClientError as err:
        print(f"justicar join: {err}", file=sys.stderr)
        return 1
    return 0


class Step:
    """The last step the terminal has put into words: a move's result (which comes after the pushes
    of what it did, docs/protocol.md) waits for them to be said first."""

    def __init__(self) -> None:
        self.version = 0
        self._moved = anyio.Event()

    def reach(self, version: int) -> None:
        if version > self.version:
            self.version = version
            self._moved.set()
            self._moved = anyio.Event()

    async def wait_for(self, version: int) -> None:
        while self.version < version:
            await self._moved.wait()


SETTLE = 2.0
"""The longest a move's "ok" waits for what it did to be said (a lost connection aside, it is there)."""


def back_online(was: int, now: int) -> str:
    """What a reconnect's catch-up came to: the step the terminal is at now, and how many it missed."""
    missed = now - was
    away = f"{missed} step{'s' if missed != 1 else ''} while you were away" if missed > 0 else "nothing new"
    return f"Back online; caught up to step {now} ({away})."


def address(link: str, token: str | None = None) -> tuple[str, str]:
    """The socket URL and the token ``join`` was given: the page link ``justicar serve`` prints
    (``http://HOST:PORT/play#token=…&scene=ID``, ``https`` giving ``wss``), whose page path does not
    matter (the socket is the server's root, naming the link's scene for a proxy); or a socket URL
    (``ws://HOST:PORT``) with ``--token``."""
    parts = urlsplit(link.strip())
    fragment = parse_qs(parts.fragment)
    found = (fragment.get("token") or [""])[0]
    if parts.scheme in ("http", "https") and parts.netloc:
        url = urlunsplit(("wss" if parts.scheme == "https" else "ws", parts.netloc, "/", "", ""))
        if scene := (fragment.get("scene") or [""])[0]:  # the first socket is routed too (``routed``)
            url = routed(url, scene)
    elif parts.scheme in ("ws", "wss") and parts.netloc:
        url = urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))
    else:
        raise Unclear(f"{link!r} is neither a page link (http://HOST:PORT/play#token=…) nor a socket (ws://HOST:PORT).")
    if token and found and token != found:
        raise Unclear("The link holds one token and --token gives another: give one of them.")
    if not (token or found):
        raise Unclear(f"No token: give the whole link (…#token=…), or {link} --token TOKEN.")
    return url, str(token or found)


def join(args: argparse.Namespace, out: TextIO) -> int:
    try:
        url, token = address(args.url, args.token)
    except Unclear as unclear:
        print(f"justicar join: {unclear}", file=sys.stderr)
        return 2
    try:
        return anyio.run(run, url, token, sys.stdin, out, args.ids, args.width)
    except KeyboardInterrupt:  # Ctrl-C: leave as quit does (the line reader is a daemon: nothing waits on it)
        print(file=out)
        return 130


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("join", help="a player's terminal at a live scene")
    p.add_argument(
        "url",
        metavar="LINK",
        help="the link `justicar serve` printed for you (http://HOST:PORT/play#token=…), "
        "or the server's socket, e.g. ws://127.0.0.1:8765, with --token",
    )
    p.add_argument("--token", help="your token (from the Storyteller), when LINK does not hold it")
    p.add_argument(
        "--ids",
        action="store_true",
        help="for the record: each challenge's id, and the rule id beside each test, verdict and refusal",
    )
    p.add_argument(
        "--width",
        type=int,
        metavar="N",
        help="wrap lines at N columns (default: the terminal's width; not at all into a pipe or a file)",
    )
    p.set_defaults(run=join)
