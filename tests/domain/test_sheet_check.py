"""Sheets checked against their ruleset (``domain.sheet_check``): every problem at once, each at its
field's path, with "did you mean"; what the rules close refused, what they leave open questioned
until the Storyteller keeps it ``as_written``. A sheet amended after it is added
(``amend_character``), and a character removed and added again: one character with a history."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.evolve import fold
from domain.log import to_wire
from domain.sheets import Sheet
from projections.audit import audit
from projections.audit_render import markdown
from projections.narrate import narrate
from projections.redact import SPECTATOR, hidden_fields
from server.snapshots import decode, encode
from tests.table import Table, sheet, types

NINE = {a: 2 for a in ("strength", "dexterity", "stamina", "charisma", "manipulation", "composure")}
NINE |= {"intelligence": 2, "wits": 2, "resolve": 2}


def bns(**fields: Any) -> dict[str, Any]:
    return {"id": "sam", "name": "Sam", "attributes": dict(NINE), **fields}


class TestRulesets:
    def test_bns_names_every_problem_beside_its_field(self) -> None:
        """Strength 12, "Brawl two" at 1, "Brwal 2" and an attribute "strenght": all four at once,
        each by its path; the closed ones (a level in words, an attribute that is none) refuse the
        sheet even as written."""
        t = Table("bns")
        attributes = {**NINE, "strength": 12, "strenght": 3}
        wrong = bns(attributes=attributes, skills={"Brawl two": 1, "Brwal": 2})
        refused = t.refused("st", "add_character", character=wrong, code="bad_sheet", as_written=True)
        assert set(refused.fields) == {"attributes.strength", "attributes.strenght", "skills.Brawl two", "skills.Brwal"}
        assert "1 to 5 dots" in refused.fields["attributes.strength"]
        assert "Did you mean Strength?" in refused.fields["attributes.strenght"]
        assert "“Brawl 2”" in refused.fields["skills.Brawl two"]
        assert "did you mean brawl?" in refused.fields["skills.Brwal"]

    def test_bns_what_the_rules_leave_open_is_kept_as_written(self) -> None:
        """A rating beyond the documents' scale, a near miss of a skill they name: refused as
        ``unusual_sheet`` until the Storyteller keeps it as written."""
        t = Table("bns")
        odd = bns(attributes={**NINE, "strength": 7}, skills={"Brwal": 2, "occult": 3})
        refused = t.refused("st", "add_character", character=odd, code="unusual_sheet")
        assert set(refused.fields) == {"attributes.strength", "skills.Brwal"}  # occult: the chronicle's own
        assert types(t.do("st", "add_character", character=odd, as_written=True)) == ["character_added"]

    @pytest.mark.parametrize("ruleset", ["lotn", "camarilla", "kony"])
    def test_trait_rulesets_ask_about_near_misses_and_take_their_own_names(self, ruleset: str) -> None:
        """Traits, Abilities, powers and merits are open lists (a chronicle has its own: "Cunning",
        "Occult"), so only a near miss of a name the document uses is questioned; a Trait in two
        categories and a level written as a word are refused."""
        t = Table(ruleset)
        own = sheet("sam", {"Brawny": 2}, traits={"mental": {"Cunning": 1}}, abilities={"Occult": 1, "Brawl": 2})
        assert types(t.do("st", "add_character", character=own)) == ["character_added"]
        slip = sheet("juan", {"Tough": 1}, abilities={"Brwal": 2, "Dodge three": 1}, traits={"social": {"Tough": 1}})
        refused = t.refused("st", "add_character", character=slip, code="bad_sheet")
        assert set(refused.fields) == {"abilities.Brwal", "abilities.Dodge three", "traits.social.Tough"}
        assert refused.fields["abilities.Brwal"].endswith("did you mean Brawl?")
        near = sheet("juan", {"Tough": 1}, abilities={"brawl": 2})
        refused = t.refused("st", "add_character", character=near, code="unusual_sheet")
        assert refused.fields == {"abilities.brawl": "“brawl” is not a name the rules use: did you mean Brawl?"}

    def test_kony_celerity_runs_one_to_five(self) -> None:
        t = Table("kony")
        fast = sheet("sam", {"Quick": 2}, powers={"Celerity": 7})
        refused = t.refused("st", "add_character", character=fast, code="unusual_sheet")
        assert "1 to 5 (kony:initiative)" in refused.fields["powers.Celerity"]

    def test_camarilla_powers_are_the_guides(self) -> None:
        t = Table("camarilla")
        refused = t.refused(
            "st", "add_character", character=sheet("sam", {"Brawny": 1}, powers=["Mihgt"]), code="unusual_sheet"
        )
        assert refused.fields == {"powers.Mihgt": "“Mihgt” is not a name the rules use: did you mean Might?"}


class TestAmend:
    def table(self) -> Table:
        t = Table("lotn")
        t.do(
            "st",
            "add_character",
            character=sheet("sam", {"Brawny": 2, "Quick": 1}, abilities={"Brawl": 1}, willpower=3),
        )
        t.do("st", "add_character", character=sheet("juan", {"Tough": 2}))
        return t

    def test_an_amended_sheet_is_the_characters_with_what_the_scene_did_kept(self) -> None:
        """The Storyteller amends Sam's sheet with a reason: the new sheet is Sam's, a lost Trait the
        sheet still has stays lost, Willpower spent stays spent; the timeline says each change and
        why to the ST and Sam, and only that it happened to Juan."""
        t = self.table()
        t.do("st", "adjust", character="sam", changes={"willpower": -1, "lose_traits": ["Brawny"]}, reason="a test")
        amended = sheet("sam", {"Brawny": 2, "Quick": 2}, abilities={"Brawl": 3}, willpower=4)
        before = t.state
        events = t.do("st", "amend_character", character="sam", sheet=amended, reason="Quick 2 on the paper sheet")
        assert types(events) == ["character_amended"]
        assert events[0].changed == ["willpower", "traits.physical.Quick", "abilities.Brawl"]
        sam = t.state.characters["sam"]
        assert sam.sheet.traits is not None and sam.sheet.traits.physical == {"Brawny": 2, "Quick": 2}
        assert sam.willpower == 3 and sam.abilities == {"Brawl": 3} and sam.lost_names == ["Brawny"]
        said = narrate(before, events[0], "st")
        assert said == (
            "The Storyteller amends Sam's sheet (Willpower 3 → 4; Quick 1 → 2; Brawl 1 → 3): Quick 2 on the paper sheet"
        )
        assert narrate(before, events[0], "sam").startswith("The Storyteller amends your sheet (Willpower 3 → 4")
        assert narrate(before, events[0], "juan") == "The Storyteller amends Sam's sheet."
        record = t.log[-1]
        assert set(hidden_fields(record, "juan")) == {"character", "changed", "reason"}
        assert set(hidden_fields(record, SPECTATOR)) == {"character", "changed", "reason"}
        assert hidden_fields(record, "sam") == {}
        secret = sheet("sam", {"Brawny": 2, "Quick": 2}, abilities={"Brawl": 3}, willpower=4, notes="owes the Prince")
        before = t.state
        noted = t.do("st", "amend_character", character="sam", sheet=secret, reason="a note")
        assert narrate(before, noted[0], "sam") == (
            "The Storyteller amends your sheet (the Storyteller's notes): a note"
        )
        assert "(Notes none → owes the Prince)" in narrate(before, noted[0], "st")

    def test_amend_replays_identically_through_fold_and_snapshots(self) -> None:
        t = self.table()
        amended = sheet("sam", {"Brawny": 3}, abilities={"Brawl": 1}, willpower=3, notes="owes the Prince")
        t.do("st", "amend_character", character="sam", sheet=amended, reason="one Trait, written thrice")
        assert fold(t.log) == t.state
        assert decode(encode(t.state)) == t.state
        assert fold(t.log).characters["sam"].sheet == msgspec.convert(amended, Sheet)

    def test_an_amendment_is_checked_like_a_new_sheet(self) -> None:
        t = self.table()
        slip = sheet("sam", {"Brawny": 2}, abilities={"Brwal": 1})
        refused = t.refused("st", "amend_character", character="sam", sheet=slip, reason="r", code="unusual_sheet")
        assert "abilities.Brwal" in refused.fields
        t.refused("st", "amend_character", character="sam", sheet={**slip, "id": "x"}, reason="r", code="bad_sheet")
        same = sheet("sam", {"Brawny": 2, "Quick": 1}, abilities={"Brawl": 1}, willpower=3)
        t.refused("st", "amend_character", character="sam", sheet=same, reason="r", code="unchanged")
        t.refused("sam", "amend_character", character="sam", sheet=slip, reason="r", code="forbidden")


class TestReturn:
    def test_removed_and_added_again_is_one_character_with_its_history(self) -> None:
        """Removing Sam and adding a sheet with Sam's id again continues the one character: one
        entry in the scene, in the order it first came, what it lost still lost, the leaving and
        the return in the timeline."""
        t = Table("lotn")
        t.do("st", "add_character", character=sheet("sam", {"Brawny": 2}))
        t.do("st", "add_character", character=sheet("juan", {"Tough": 2}))
        t.do("st", "adjust", character="sam", changes={"lose_traits": ["Brawny"]}, reason="lost earlier")
        t.do("st", "remove_character", character="sam")
        before = t.state
        events = t.do("st", "add_character", character=sheet("sam", {"Brawny": 2, "Quick": 1}))
        assert len(t.state.characters) == 2 and [c.id for c in t.state.roster()] == ["sam", "juan"]
        sam = t.state.characters["sam"]
        assert sam.present and sam.seq == 2 and sam.lost_names == ["Brawny"]
        assert narrate(before, events[0], "st") == "Sam returns to the scene: the same character, gone since they left."
        assert fold(t.log) == t.state and decode(encode(t.state)) == t.state
        t.refused("st", "add_character", character=sheet("sam", {"Brawny": 1}), code="character_exists")


def test_the_audit_tells_each_amendment_with_its_reason_and_one_participant_per_return() -> None:
    """The audit (``projections.audit``) lists Sam once though he left and came back, and its
    Markdown says the amendment's changes and reason, the leaving and the return, in words."""
    t = Table("lotn")
    t.do("st", "add_character", character=sheet("sam", {"Brawny": 2}, abilities={"Brawl": 1}))
    t.do("st", "add_character", character=sheet("juan", {"Tough": 2}))
    amended = sheet("sam", {"Brawny": 2}, abilities={"Brawl": 2})
    t.do("st", "amend_character", character="sam", sheet=amended, reason="Brawl 2 on the paper sheet")
    t.do("st", "remove_character", character="sam")
    t.do("st", "add_character", character=amended)
    report = audit([to_wire(r) for r in t.log])
    assert [p.name for p in report.participants] == ["Sam", "Juan"]
    said = markdown(report)
    assert "The Storyteller amends Sam's sheet (Brawl 1 → 2): Brawl 2 on the paper sheet" in said
    assert "Sam leaves the scene." in said
    assert "Sam returns to the scene: the same character, gone since they left." in said
