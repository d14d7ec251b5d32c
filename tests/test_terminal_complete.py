"""The terminal's words, from the view the server sends: Tab completion offers the verbs of this
scene's ruleset and, by verb, the Traits on the sheet, the targets, the powers, the challenges'
numbers; ``help`` is this ruleset's; a challenge is named by a number, its id only with ``--ids``;
lines break at word boundaries."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from clients.terminal import (
    COLUMN,
    Handles,
    Unclear,
    challenge_lines,
    completions,
    help_lines,
    parse,
    sheet_command,
    wrap,
)
from projections.views import view
from tests.domain.test_bns import BRUTE, VINCENT
from tests.table import Table

SAM = {"abilities": {"Brawl": 2}, "powers": ["Potence", "Celerity"], "merits": ["Lucky"], "gestures": ["bomb"]}


def seen(t: Table, who: str) -> dict[str, Any]:
    """The view ``who`` is sent, as the terminal holds it (JSON)."""
    return msgspec.json.decode(msgspec.json.encode(view(t.state, who)))


def lotn() -> Table:
    """Sam (Brawny ×2, Quick; Potence, Celerity) challenges Juan twice; Thug Two stands by."""
    t = Table()
    t.add("sam", {"Brawny": 2, "Quick": 1}, traits={"social": {"Witty": 1}}, **SAM)
    t.add("juan", {"Brutal": 2, "Quick": 3}, negative_traits={"physical": ["Clumsy"]})
    t.add("thug", {"Tough": 1}, name="Thug Two", npc=True)
    t.do("sam", "declare", challenge="c", kind="contested", targets=["juan"], category="physical", bid=["Brawny"])
    t.do("sam", "declare", challenge="d", kind="contested", targets=["juan"], category="physical", bid=["Quick"])
    return t


def test_tab_completes_verbs_traits_targets_and_powers_from_the_view() -> None:
    t = lotn()
    sam, juan = seen(t, "sam"), seen(t, "juan")
    assert completions("", juan, "juan")[:3] == ["declare", "bid", "relent"]
    assert completions("de", juan, "juan") == ["declare"]
    assert completions("sh", juan, "juan") == ["sheet"]  # no shield: lotn has no rounds of turns
    assert completions("declare ", sam, "sam") == ["Juan", "thug"]  # a name of two words: its id
    assert completions("declare j", sam, "sam") == ["Juan"]
    assert completions("declare juan ", sam, "sam") == ["physical", "social", "mental"]
    assert completions("declare juan social ", sam, "sam") == ["Witty", "effect="]
    assert completions("declare c juan physical B", sam, "sam") == ["Brawny"]  # a chosen id first
    assert completions("bid ", juan, "juan") == ["1", "2", "Brutal", "Quick"]  # two open: their numbers
    assert completions("bid 2 ", juan, "juan") == ["Brutal", "Quick"]
    assert completions("bid 2 q", juan, "juan") == ["Quick"]
    assert completions("throw 1 ", sam, "sam") == ["rock", "paper", "scissors", "random", "bomb"]
    assert completions("retest 1 ", sam, "sam") == ["ability", "power", "merit", "overbid"]
    assert completions("retest 1 power ", sam, "sam") == ["Potence", "Celerity"]
    assert completions("retest 1 power c", sam, "sam") == ["Celerity"]
    assert completions("retest 1 ability ", sam, "sam") == ["Brawl"]
    assert completions("retest 1 overbid ", sam, "sam") == ["Brawny", "Quick"]
    assert completions("help ", juan, "juan")[:2] == ["declare", "bid"]
    assert completions("nonsense ", juan, "juan") == []


def test_tab_completes_what_a_pool_ruleset_asks() -> None:
    t = Table("bns")
    for sheet in (VINCENT, BRUTE):
        t.do("st", "add_character", character=sheet)
    me = seen(t, "vincent")
    assert "defend" in completions("", me, "vincent") and "throw" not in completions("", me, "vincent")
    assert completions("declare brute ", me, "vincent")[:3] == ["unarmed", "melee", "thrown"]
    assert completions("declare brute social ", me, "vincent") == ["dodge", "intimidation"]
    brute = seen(t, "brute")
    assert completions("declare vincent melee@", brute, "brute") == ["melee@Knife", "melee@Hatchet"]
    assert completions("sh", me, "vincent") == ["shield", "sheet"]


def test_help_is_this_rulesets_and_help_verb_is_that_moves() -> None:
    """A lotn scene's help has no pool, dice or round move; ``help VERB`` gives that move alone."""
    said = "\n".join(help_lines(seen(lotn(), "juan")))
    assert "throw [#N] SIGN" in said and "traits [#N] COUNT" in said
    for other in ("defend", "roll", "escape", "shield", "feed", "intend", "act", "assist", "done"):
        assert f"\n  {other} " not in said, other
    assert len(wrap(said, 80, COLUMN)) <= 30  # the old help: 65 lines, every ruleset's
    assert help_lines(seen(lotn(), "juan"), "bid") == [
        "  bid [#N] TRAIT…        answer a challenge, or bid what a Negative Trait call made you owe"
    ]
    assert help_lines(seen(lotn(), "juan"), "roll")[0].startswith("'roll' is not a move in this scene")


def test_challenges_go_by_number_and_their_ids_only_with_ids() -> None:
    t = lotn()
    juan = seen(t, "juan")
    handles = Handles()
    lines = challenge_lines(juan, "juan", handles=handles)
    assert lines[0] == "#1 Sam challenges you (Physical) · your answer is due"
    assert "#2 Sam challenges you (Physical) · your answer is due" in lines
    assert "    your Physical Traits: Brutal ×2, Quick ×3" in lines  # where the bid is asked for
    assert not [line for line in lines if "[c]" in line or "[d]" in line]
    assert parse("bid 2 Quick", juan, "juan", handles)["challenge"] == "d"
    assert parse("bid #1 Quick", juan, "juan", handles)["challenge"] == "c"
    assert parse("bid d Quick", juan, "juan", handles)["challenge"] == "d"  # the id still goes
    with pytest.raises(Unclear):
        parse("traits 3", juan, "juan", handles)  # a COUNT alone, never a number: which challenge?
    assert parse("traits 2 3", juan, "juan", handles) == {"type": "declare_traits", "challenge": "d", "count": 3}
    with_ids = challenge_lines(juan, "juan", ids=True)
    assert "[c] Sam challenges you (Physical) · your answer is due" in with_ids


def test_which_challenge_is_asked_in_words() -> None:
    juan = seen(lotn(), "juan")
    with pytest.raises(Unclear) as unclear:
        parse("bid Quick", juan, "juan")
    assert str(unclear.value) == (
        "Which challenge? Name it by its number: #1 Sam challenges you (Physical) · your answer is due; "
        "#2 Sam challenges you (Physical) · your answer is due."
    )


def test_a_declaration_needs_no_id_and_takes_a_name() -> None:
    sam = seen(lotn(), "sam")
    declared = parse("declare Juan physical Brawny down you go", sam, "sam")
    assert declared["targets"] == ["juan"] and declared["bid"] == ["Brawny"] and declared["victory"] == "down you go"
    assert declared["challenge"].startswith("c-")
    assert parse("declare x juan physical Brawny", sam, "sam")["challenge"] == "x"


def test_the_sheet_lists_each_trait_the_powers_and_the_others() -> None:
    t = lotn()
    t.do("sam", "withdraw", challenge="d")
    t.do("juan", "bid", challenge="c", bid=["Brutal"])
    t.test("c", "rock", "paper")
    t.do("sam", "pass", challenge="c")
    sheet = sheet_command(seen(t, "sam"), "sam")
    assert sheet == [
        "Sam's sheet:",
        "  Physical Traits: Brawny ×2 (1 lost), Quick",
        "  Social Traits: Witty",
        "  Mental Traits: none",
        "  Negative Traits: none",
        "  Abilities: Brawl 2",
        "  Powers: Potence, Celerity · Merits: Lucky",
        "  Gestures: bomb",
        "  Willpower 0 · Health 7",
        "Others here: Juan, Thug Two (NPC) (type thug)",
    ]


def test_lines_break_at_word_boundaries() -> None:
    line = "    If Sam wins: you lose Brawny; you are knocked prone and take 2 lethal damage"
    assert wrap(line, 40) == [
        "    If Sam wins: you lose Brawny; you",
        "      are knocked prone and take 2",
        "      lethal damage",
    ]
    assert wrap(line, None) == [line]
    entry = "  bid [#N] TRAIT…        answer a challenge, or bid what a Negative Trait call made you owe"
    assert wrap(entry, 60, COLUMN) == [
        "  bid [#N] TRAIT…        answer a challenge, or bid what a",
        "                         Negative Trait call made you owe",
    ]
