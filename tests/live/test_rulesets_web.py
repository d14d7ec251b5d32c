"""``/rulesets.json``, served beside the pages: every ruleset the server plays with what its pages
build from it (they never switch on a ruleset's name): the rules a scene's view also carries, the
die of a dice ruleset (its faces and successes, for the dice forms), and the sheet's fields in the
form's order, each a field of the shared sheet with a label, a kind the form draws, and its
examples in the ruleset's own words."""

from __future__ import annotations

import typing

import anyio
import msgspec
import pytest

from domain.rules import DEFAULT, RULESETS, ruleset_for
from domain.rules.fields import SheetField
from domain.sheets import CATEGORIES, Sheet
from projections.rules import rules_view
from server.app import Running
from tests.live.test_console_socket import get

pytestmark = pytest.mark.anyio

KINDS = set(typing.get_args(typing.get_type_hints(SheetField)["kind"]))


async def test_every_ruleset_is_served_with_what_its_pages_need(live: Running) -> None:
    status, kind, body = await anyio.to_thread.run_sync(get, live, "/rulesets.json")
    assert status == 200 and kind == "application/json; charset=utf-8"
    table = msgspec.json.decode(body)
    assert table[0]["name"] == DEFAULT and sorted(r["name"] for r in table) == sorted(RULESETS)
    assert [r["name"] for r in table if r.get("default")] == [DEFAULT]
    sheet_fields = {f.name for f in msgspec.structs.fields(Sheet)}
    for entry in table:
        ruleset = ruleset_for(entry["name"])
        assert entry["title"] == ruleset.title
        assert entry["rules"] == msgspec.to_builtins(rules_view(entry["name"])), entry["name"]
        die = entry["rules"].get("die")
        if ruleset.die is None:
            assert die is None
        else:  # the dice forms: the faces 1 to its size, what each counts as, the successes among them
            assert die["size"] == ruleset.die.size >= 2
            assert set(die["successes"]) <= set(range(1, die["size"] + 1)) and die["successes"]
            assert {f["face"] for f in die["faces"]} <= set(range(1, die["size"] + 1))
        fields = [msgspec.convert(f, SheetField) for f in entry["sheet"]]
        assert fields == list(ruleset.sheet_fields) and fields, entry["name"]
        names = [f.name for f in fields]
        assert len(set(names)) == len(names) and set(names) <= sheet_fields - {"id", "name", "npc", "auto", "notes"}
        assert all(f.kind in KINDS and f.label for f in fields)
        leads = [f.lead for f in fields if f.lead]
        assert len(leads) <= 1 and all(len(lead) == 2 and all(lead) for lead in leads), entry["name"]
        for f in fields:
            if f.kind in ("traits", "trait_names"):
                assert len(f.examples) in (1, len(CATEGORIES)), f
            if f.kind == "ratings":
                assert f.names and set(f.names.values()) <= set(CATEGORIES), f
            if f.kind == "check" and f.means:
                assert f.name in sheet_fields


async def test_the_four_rulesets_sheets_are_as_their_forms_were(live: Running) -> None:
    """What the sheet forms drew for each ruleset by its family before the descriptor: the same
    fields, in the same order, with the same defaults."""
    _, _, body = await anyio.to_thread.run_sync(get, live, "/rulesets.json")
    sheets = {r["name"]: [(f["name"], f.get("default")) for f in r["sheet"]] for r in msgspec.json.decode(body)}
    traits = [("willpower", 3), ("health", 7), ("blood", 0), ("traits", None), ("negative_traits", None)]
    traits += [("abilities", None), ("powers", None), ("merits", None)]
    assert all(sheets[r] for r in RULESETS)  # the form has fields to draw for each, whoever wrote it
    assert sheets["lotn"] == sheets["camarilla"] == [*traits, ("gestures", None)]
    assert sheets["kony"] == [
        *traits,
        ("armor", 0),
        ("extra_actions", 0),
        ("escape_powers", None),
        ("combat_sheet", None),
        ("retests", 0),
        ("rerolls", 0),
    ]
    assert sheets["bns"] == [
        ("willpower", 3),
        ("health", 6),
        ("attributes", 2),
        ("skills", None),
        ("creature", None),
        ("form", None),
        ("weapons", None),
        ("powers", None),
        ("merits", None),
    ]
