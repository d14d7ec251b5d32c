"""``justicar join LINK`` (or ``justicar join URL --token T``): a player's terminal at the table.

LINK is the page link ``justicar serve`` prints (``http://HOST:PORT/play#token=…``): the socket
and the token are read from it. The terminal shows your sheet and the challenges you are in, with
the moves the rules allow you now, and reads one move per line (``help`` lists them). What happens
at the table is printed as it happens, in the server's words (``» Juan throws (sealed until both
are in).``), and a challenge you are in ends with its result said to you (``» Result: You
challenge Juan (Physical): Juan won: you lose Brawny.``). Every challenge and result is its
account's words (``projections.account``, carried on the view): the terminal lays them out and
says nothing of its own. A refused move prints the server's reason. ``--ids`` adds, for the record,
each challenge's id and the rule id beside each test, verdict and refusal. The connection
reconnects by itself and catches up.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit, urlunsplit

import anyio
import msgspec

from clients.client import Client, ClientError
from projections.account import Account
from projections.account_text import account_lines, verdict_line
from projections.audit_render import visible

HELP = """moves (the challenge id may be left out when you are in only one open challenge):
  declare ID TARGET CATEGORY TRAIT [effect=EFFECT] [victory…]   challenge someone (category:
                         physical/social/mental); EFFECT: damage[:N[:TYPE]] grapple knock_down narrative
                         (TYPE: bashing lethal aggravated), e.g. declare c juan physical Brawny effect=damage:2:lethal
  bid [ID] TRAIT…        answer a challenge, or bid what a Negative Trait call made you owe
  relent [ID]            give in without risking a Trait      withdraw [ID]   take back your challenge
  call [ID] TRAIT        call a Negative Trait on your opponent
  throw [ID] SIGN        rock, paper, scissors, random (or a gesture your sheet grants)
  traits [ID] COUNT      declare your Traits on a tie or an overbid
  retest [ID] ability|power|merit NAME   or   retest [ID] overbid TRAIT
  cancel [ID] ability|power|merit NAME   block the other side's retest
  pass [ID]              no (further) retest, or let the other side's retest stand
  view · help · quit
where the scene plays test pools (bns):
  declare ID TARGET ATTACK[/ATTRIBUTE][@WEAPON] [SKILL] [±N REASON…] [: victory…]
                         ATTACK: unarmed melee thrown archery firearms bite claw mental social
                         e.g. declare gaze hunter social intimidation : he flees
                              declare shot vincent firearms +2 shotgun : I shoot him
  defend [ID] DEFENSE [±N REASON…]   answer with dodge, parry, soak, mental or social
  relent [ID] [DEFENSE]  give in (say the defence you would have used: it grades the relent)
  retest [ID] willpower   or   retest [ID] overbid
  declare … range=N maneuver=NAME [: victory…]   from N steps; a maneuver (1 Willpower, or free)
                         e.g. declare trip rosa unarmed range=1 maneuver=knock_down : down she goes
  declare … maneuver=FIRST,SECOND   two maneuvers on one attack, with an accepted free maneuver
                         from an assist: it pays for the first, 1 Willpower for the second
                         e.g. declare cut rosa melee maneuver=hamstring,targeted_attack : her leg
in a round where each acts on their own turn (bns):
  escape                 a fair escape: first thing on your turn
  intend TARGET          say you will attack the one escaping (only if you have not acted yet)
  act KIND [STEPS] [WHAT…] [using=standard] [maneuver=NAME]
                         KIND: move (up to 3 steps), advanced_move, prone, crawl, stand, draw,
                         nock, clear, pick_up, trade, other
                         e.g. act move 3 · act draw knife · act clear blinded · act trade
                         maneuvers with an action: quick_draw (draw, no action spent), snap_shot
                         (nock, no action spent), burst_of_speed (a simple action before your turn),
                         dart_behind and feral_dash (move; lupus or hispo form)
                         e.g. act draw knife maneuver=quick_draw · act move 2 maneuver=burst_of_speed
  end                    end your turn
  assist TO plus_one|maneuver [how…]   help another's attack (your standard action, once accepted)
  shield CHALLENGE [how…]   take a Physical attack in its defender's place before the first throw:
                         you become its target and answer it (your simple action, once a round)
  accept OFFER · refuse OFFER          answer help offered to you (OFFER: the number shown)
where the scene rolls d3s (kony):
  roll [ID] [SOURCE…] [values=1,3]   roll your d3s: one, plus one for each retest source named
                         SOURCE: ability:NAME power:NAME merit:NAME (a space in a name: _) or sheet
                         (a combat sheet's retest); values= dice you rolled by hand, where allowed
                         e.g. roll ability:Brawl power:Potence · roll c ability:Blind_Fighting
  bid [ID] TRAIT… [effect=EFFECT] [: victory…]   answer with your own victory condition, applied
                         to the challenger if you win, e.g. bid Strong effect=grapple : I pin him
  retest [ID] overbid TRAIT   after losing the dice, with a Trait Pool double the other's
  escape                 a fair escape, before anyone declares this round
  done                   your expenditures are declared (the expenditures phase)
  feed TARGET [N]        feed on the one you hold in a grapple: N blood Traits (1 to 3)"""

ATTACKS = ("unarmed", "melee", "thrown", "archery", "firearms", "bite", "claw", "mental", "social")
DEFENSES = ("dodge", "parry", "soak", "mental", "social")
ACTS = ("move", "advanced_move", "prone", "crawl", "stand", "draw", "nock", "clear", "pick_up", "trade", "other")
BENEFITS = {"plus_one": "+1 on an attack", "maneuver": "a free maneuver"}


def _names(view: dict[str, Any]) -> dict[str, str]:
    names = {who: c.get("name", who) for who, c in view.get("characters", {}).items()}
    return names | {"st": "the Narrator", "*": "a spectator"}


def viewer(welcome: dict[str, Any]) -> str:
    """Who this connection sees as: a character, ``st``, or ``*`` (a spectator)."""
    return str(welcome.get("character") or ("st" if welcome.get("role") == "st" else "*"))


def _pools(view: dict[str, Any]) -> bool:
    return bool((view.get("rules") or {}).get("family") == "pools")


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


def moves(ch: dict[str, Any], me: str, names: dict[str, str]) -> str:
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
        return f"roll [SOURCE…]{enter} ({n} d3 as it stands{extra}){call}"
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


def challenge_lines(view: dict[str, Any], me: str, ids: bool = False) -> list[str]:
    """Each open challenge ``me`` is in (the Storyteller and a spectator: all), in its account's
    words: who challenges whom and what it waits for, what each side put up, the powers in play,
    the tests and retests, what winning will do; then what only this viewer may see (its own sealed
    throw or dice, its Trait Pool) and the moves it has. The challenge's id (what a move names) is
    shown with ``ids``, or where a move must name it (more than one open challenge)."""
    names = _names(view)
    tagged = ids or len(_open_challenges(view, me)) > 1
    lines = []
    for cid, ch in view.get("challenges", {}).items():
        shield = me not in ("st", "*") and shieldable(view, ch, me)
        if ch["status"] in ("resolved", "withdrawn") or (
            me not in ("st", "*") and me not in (ch["challenger"], *ch["targets"]) and not shield
        ):
            continue
        a = told(ch)
        if a is None:
            continue
        lines.append(f"{_tag(cid, tagged or shield)}{a.title} · {status_words(view, ch, me)}")
        lines += [f"    {line}" for line in account_lines(a, ids=ids, head=False)]
        for who, pool in ch.get("trait_pools", {}).items():
            whose = "your" if who == me else names.get(who, who) + "'s"
            lines.append(f"    {whose} Trait Pool: {pool['total']} (at most {pool['cap']}): {pool['why']}")
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
            lines.append(f"    you may: shield {cid} [how…] (take it for {defender}: your simple action)")
        elif me not in ("st", "*"):
            lines.append(f"    you may: {moves(ch, me, names)}")
    lines = lines or ["No open challenge involves you." if me not in ("st", "*") else "No open challenge."]
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


def status(view: dict[str, Any], welcome: dict[str, Any], ids: bool = False) -> str:
    me = viewer(welcome)
    who = _names(view).get(me, me)
    head = f"── {who} ({welcome.get('role')}) · scene {welcome.get('scene')} · event {view.get('version')} ──"
    return "\n".join([head, *sheet_lines(view, me), *round_lines(view, me), *challenge_lines(view, me, ids)])


def _open_challenges(view: dict[str, Any], me: str) -> list[str]:
    return [
        cid
        for cid, ch in view.get("challenges", {}).items()
        if ch["status"] not in ("resolved", "withdrawn")
        and (me in ("st", "*") or me in (ch["challenger"], *ch["targets"]))
    ]


class Unclear(Exception):
    """A line the terminal cannot turn into a move."""


def parse(line: str, view: dict[str, Any], me: str) -> dict[str, Any]:
    """One typed line to a protocol command."""
    verb, *args = line.split()
    open_ids = _open_challenges(view, me)

    def challenge() -> str:
        if args and args[0] in view.get("challenges", {}):
            return args.pop(0)
        if len(open_ids) == 1:
            return open_ids[0]
        raise Unclear("Which challenge? " + (f"Open: {', '.join(open_ids)}." if open_ids else "You are in none."))

    def source() -> dict[str, Any]:
        if not args:
            raise Unclear("Name the source: ability NAME, power NAME, merit NAME, or overbid TRAIT.")
        category = args.pop(0)
        if category == "overbid":
            return {"category": "overbid", "bid": args}
        if category in ("willpower", "surprise", "darkness"):
            return {"category": category}
        return {"category": category, "name": " ".join(args)}

    if verb == "declare" and _pools(view):
        return _declare_pool(args)
    if verb in ROUND_VERBS:
        return _round_move(verb, args, view)
    if verb == "defend" or (verb == "relent" and _pools(view)):
        cid = challenge()
        if verb == "relent" and not args:
            return {"type": "relent", "challenge": cid}
        if not args or args[0] not in DEFENSES:
            raise Unclear(f"{verb} [ID] DEFENSE: one of {', '.join(DEFENSES)}.")
        pool = {"defense": args.pop(0), **_wildcard(args)}
        return {"type": "bid" if verb == "defend" else "relent", "challenge": cid, "pool": pool}
    if verb == "declare":
        args, settings = _settings(args, ("effect",))
        if len(args) < 4:
            raise Unclear("declare ID TARGET CATEGORY TRAIT [effect=EFFECT] [victory…]")
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
                raise Unclear(f"{key}=1,3: the faces of the d3s rolled by hand.") from None
        return body
    if verb == "throw":
        cid = challenge()
        return {"type": "throw", "challenge": cid, "sign": args[0] if args else "random"}
    if verb == "traits":
        cid = challenge()
        if not args or not args[0].isdigit():
            raise Unclear("traits [ID] COUNT")
        return {"type": "declare_traits", "challenge": cid, "count": int(args[0])}
    if verb in ("retest", "cancel"):
        cid = challenge()
        return {
            "type": "retest" if verb == "retest" else "cancel_retest",
            "challenge": cid,
            "source": source(),
        }
    raise Unclear(f"Unknown move {verb!r}; type help.")


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
            raise Unclear("shield CHALLENGE [how…]: the id of the attack whose defender you shield.")
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
        raise Unclear("declare ID TARGET ATTACK [SKILL] [±N REASON…] [: victory…] (type help)")
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


async def _lines(stdin: TextIO) -> AsyncIterator[str]:
    async for line in anyio.wrap_file(stdin):
        yield line.strip()


async def run(url: str, token: str, stdin: TextIO, out: TextIO, ids: bool = False) -> int:
    def say(text: str) -> None:  # a name's control characters shown as codes, never sent to the terminal
        print("\n".join(visible(line) for line in text.split("\n")), file=out, flush=True)

    try:
        async with Client(url, token, summaries=True) as table:
            me = viewer(table.welcome)
            say(f"Connected to {url} as {table.welcome.get('character') or table.welcome.get('role')}.")
            await table.subscribe()
            say(status(table.view, table.welcome, ids))

            async def follow() -> None:
                shown = table.view.get("version")
                live = False  # the catch-up before the first `subscribed` is the past: the view says it
                news = News(me, ids)
                async for message in table.messages():
                    kind = message.get("type")
                    if kind in ("view", "commit") and table.view.get("version") != shown:
                        shown = table.view.get("version")
                        say(status(table.view, table.welcome, ids))
                    if kind in ("commit", "view") and live:
                        if said := news.take(message, table.view):
                            say("\n".join(said))
                    elif kind == "subscribed":
                        live = True  # from here (and after a reconnect's catch-up too) each commit is news
                    elif kind == "goodbye":
                        say(f"The server says goodbye: {message.get('reason')}")

            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                async for line in _lines(stdin):
                    if not line:
                        continue
                    if line in ("quit", "exit"):
                        break
                    if line == "help":
                        say(HELP)
                        continue
                    if line == "view":
                        say(status(table.view, table.welcome, ids))
                        continue
                    try:
                        command = parse(line, table.view, me)
                    except Unclear as unclear:
                        say(str(unclear))
                        continue
                    result = await table.send(command)
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


def address(link: str, token: str | None = None) -> tuple[str, str]:
    """The socket URL and the token ``join`` was given: the page link ``justicar serve`` prints
    (``http://HOST:PORT/play#token=…``, ``https`` giving ``wss``), whose page path does not matter
    (the socket is the server's root); or a socket URL (``ws://HOST:PORT``) with ``--token``."""
    parts = urlsplit(link.strip())
    found = (parse_qs(parts.fragment).get("token") or [""])[0]
    if parts.scheme in ("http", "https") and parts.netloc:
        url = urlunsplit(("wss" if parts.scheme == "https" else "ws", parts.netloc, "/", "", ""))
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
    return anyio.run(run, url, token, sys.stdin, out, args.ids)


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
    p.set_defaults(run=join)
