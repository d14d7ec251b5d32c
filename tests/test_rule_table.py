"""The rule table: every rule id cited anywhere is in it, its words are the document's own, and
every rule of every ruleset the registry holds has a test that names it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from domain.rules import RULES, RULESETS

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(rf"\b({'|'.join(RULESETS)}):[a-z][a-z0-9-]*[a-z0-9]\b")


def document(rule_id: str, name: str) -> Path:
    """A rule's document: in docs/rules/, or beside its ruleset's package (one kept elsewhere)."""
    shipped = ROOT / "docs" / "rules" / name
    if shipped.exists():
        return shipped
    module = sys.modules[type(RULESETS[rule_id.partition(":")[0]]).__module__]
    return Path(module.__file__ or "").parent / name


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_words_are_quoted_from_their_document() -> None:
    """Each rule's words appear verbatim in its source document ([...] marks an omission)."""
    for rule in RULES.values():
        text = _normal(document(rule.id, rule.document).read_text(encoding="utf-8"))
        for part in rule.words.split(" [...] "):
            assert _normal(part) in text, f"{rule.id}: not in {rule.document}: {part[:60]}"


def test_every_cited_rule_is_in_the_table() -> None:
    """No code cites a rule id the table cannot explain."""
    cited = {
        match.group(0)
        for path in [
            *ROOT.glob("domain/**/*.py"),
            *ROOT.glob("projections/**/*.py"),
            *ROOT.glob("tests/rulesets/**/*.py"),
        ]
        for match in RULE_ID.finditer(path.read_text(encoding="utf-8"))
    }
    assert cited, "no rule ids found"
    assert sorted(cited - set(RULES)) == []


def test_every_rule_has_a_test() -> None:
    """Every rule id in the table is named by at least one test."""
    tests = "\n".join(
        path.read_text(encoding="utf-8")
        for path in (ROOT / "tests").rglob("test_*.py")
        if path.name != "test_rule_table.py"
    )
    untested = [rule_id for rule_id in RULES if rule_id not in tests]
    assert untested == []
