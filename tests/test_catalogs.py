"""A test per catalog: every name a sheet may be checked against, and every name the engine reads
off a sheet, appears in its ruleset's own document (docs/rules/*.txt), so "did you mean …?" never
suggests a name the rules do not use."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from domain.rules import RULESETS
from domain.rules.bns.catalog import ATTACKS, ATTRIBUTES, DEFENSES, FIGHTING_FINESSE, FORMS, RATINGS, SHAPESHIFTERS
from domain.rules.bns.combat import MANEUVERS
from domain.rules.camarilla.powers import POWERS
from domain.rules.catalog import GESTURES, SIGNS
from domain.sheets import Sheet

ROOT = Path(__file__).resolve().parent.parent


def document(ruleset: str) -> str:
    """The ruleset's document(s), words only, lower case ("Acidic touch" is "acidic touch")."""
    books = RULESETS[ruleset].books
    text = " ".join((ROOT / "docs" / "rules" / name).read_text(encoding="utf-8") for name in books)
    return re.sub(r"\s+", " ", text).lower()


def missing(ruleset: str, names: set[str]) -> list[str]:
    """The names that do not start a word of the document ("Quick" is in "Quickly")."""
    text = document(ruleset)
    return sorted(n for n in names if not re.search(rf"(?<![a-z]){re.escape(n.lower())}", text))


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_name_a_sheet_is_checked_against_is_the_documents(ruleset: str) -> None:
    """Each ruleset's ``named``: the Traits, Abilities, skills, powers, merits and forms its document uses."""
    for kind, names in RULESETS[ruleset].named.items():
        assert missing(ruleset, set(names)) == [], (ruleset, kind)


def test_the_bns_catalog_is_the_documents() -> None:
    """The three ratings, the skills of each attack and defence, the merit, the forms and
    creatures, and every combat maneuver's name. Of the nine attributes the documents name six
    (Strength, Dexterity, Stamina, Composure, Wits, Resolve) and speak of "your appropriate Mental
    Attribute" and "appropriate Social Attribute": the three they leave unnamed are the nine's
    others, and only those (docs/protocol.md says so)."""
    skills = {a.skill for a in ATTACKS.values() if a.skill} | {d.skill for d in DEFENSES.values() if d.skill}
    forms = {form for held in FORMS.values() for form in held}
    names = {*RATINGS, *skills, FIGHTING_FINESSE, *forms, *SHAPESHIFTERS}
    assert missing("bns", names) == []
    assert missing("bns", set(ATTRIBUTES)) == ["charisma", "intelligence", "manipulation"]
    assert "appropriate mental attribute" in document("bns") and "appropriate social attribute" in document("bns")
    assert missing("bns", {m.title for m in MANEUVERS.values()}) == []


def test_the_camarilla_powers_are_the_guides() -> None:
    """What the engine knows a power does (``domain.rules.camarilla.powers``), for the powers the guide names."""
    assert missing("camarilla", set(POWERS)) == []


def test_the_gestures_are_the_documents_and_the_bomb_is_the_one_it_leaves_to_powers() -> None:
    """Rock, paper and scissors are lotn's; "Certain advanced powers allow some characters to use
    gestures other than Rock, Paper and Scissors": the bomb is the one such gesture the engine
    knows, and the only name here the document does not spell (docs/protocol.md says so)."""
    assert missing("lotn", {*SIGNS, *GESTURES}) == ["bomb"]
    assert "gestures other than rock, paper and scissors" in document("lotn")


def test_a_near_miss_of_a_name_another_document_uses_is_caught() -> None:
    """Review round 2: the bns documents name three powers, so "Potnce 2" passed silently. A near
    miss is checked against every document's names of the same kind (a bns skill is an Ability),
    each of which its document uses; an exact name from another document is taken as written."""
    from domain import sheet_check
    from domain.rules.named import nearby

    bns = msgspec.convert(
        {"id": "v", "name": "V", "attributes": {"physical": 3, "social": 2, "mental": 2},
         "powers": {"Potnce": 2, "Celerity": 1}},
        Sheet,
    )  # fmt: skip
    said = {p.path: p.text for p in sheet_check.problems("bns", bns)}
    assert said == {"powers.Potnce": "“Potnce” is not a name the rules use: did you mean Potence?"}
    lotn = msgspec.convert(
        {"id": "j", "name": "J", "traits": {"physical": {"Brawy": 2, "Tough": 1}}, "abilities": {"Athletcs": 1}}, Sheet
    )
    said = {p.path: p.text for p in sheet_check.problems("lotn", lotn)}
    assert said == {
        "traits.physical.Brawy": "“Brawy” is not a name the rules use: did you mean Brawny?",
        "abilities.Athletcs": "“Athletcs” is not a name the rules use: did you mean Athletics?",
    }
    assert {"Potence", "Celerity", "Dread Gaze"} <= nearby(RULESETS["bns"], "powers")
