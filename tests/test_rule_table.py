"""The rule table: every rule id cited anywhere is in it, its words are the document's own, and
every lotn rule has a test that names it."""

from __future__ import annotations

import re
from pathlib import Path

from domain.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"\b(lotn|camarilla|bns|kony):[a-z][a-z0-9-]*[a-z0-9]\b")


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_words_are_quoted_from_their_document() -> None:
    """Each rule's words appear verbatim in its source document ([...] marks an omission)."""
    for rule in RULES.values():
        document = _normal((ROOT / "docs" / "rules" / rule.document).read_text(encoding="utf-8"))
        for part in rule.words.split(" [...] "):
            assert _normal(part) in document, f"{rule.id}: not in {rule.document}: {part[:60]}"


def test_every_cited_rule_is_in_the_table() -> None:
    """No code cites a rule id the table cannot explain."""
    cited = {
        match.group(0)
        for path in [*ROOT.glob("domain/**/*.py"), *ROOT.glob("projections/**/*.py")]
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
