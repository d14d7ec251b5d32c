"""What the pages read of a ruleset beyond its family (projections/rules.py): where dice are rolled,
what a side stakes (``stakes``); whether rounds may be narrative; which parts of a pool a challenger
and a defender name (``pool_parts``, ``answer_parts``, in /rulesets.json)."""

from __future__ import annotations

import msgspec

from domain.pools import PoolSpec
from domain.rules import RULESETS
from projections.rules import rules_view, rulesets

SPEC = {f.name for f in msgspec.structs.fields(PoolSpec)}


def test_stakes_is_said_where_dice_are_rolled() -> None:
    """kony rolls dice and bids Traits, Tens rolls dice and stakes pools; elsewhere ``family`` says
    it and ``stakes`` is left out (nothing new in their views)."""
    assert (rules_view("kony").family, rules_view("kony").stakes) == ("dice", "traits")
    assert (rules_view("d10").family, rules_view("d10").stakes) == ("dice", "pools")
    for name in ("lotn", "camarilla", "bns"):
        assert rules_view(name).stakes is None
        assert "stakes" not in msgspec.to_builtins(rules_view(name))


def test_only_kony_has_narrative_rounds() -> None:
    assert [name for name in RULESETS if rules_view(name).narrative] == ["kony"]
    assert "narrative" not in msgspec.to_builtins(rules_view("bns"))


def test_the_parts_of_a_pool_each_ruleset_asks_for() -> None:
    """bns names an attack kind, attribute, skill, weapon and wild card, and answers with a defence
    and a wild card; Tens names a skill (the attribute is the category's) and answers with a defence
    and a skill; Trait rulesets name none. Every part is a ``PoolSpec`` field."""
    table = {r.name: r for r in rulesets()}
    assert table["bns"].pool_parts == ["attack", "attribute", "skill", "weapon", "wildcard"]
    assert table["bns"].answer_parts == ["defense", "wildcard"]
    assert table["d10"].pool_parts == ["skill"]
    assert table["d10"].answer_parts == ["defense", "skill"]
    for name in ("lotn", "camarilla", "kony"):
        assert table[name].pool_parts == [] and table[name].answer_parts == []
    for ruleset in table.values():
        assert set(ruleset.pool_parts) <= SPEC and set(ruleset.answer_parts) <= SPEC
