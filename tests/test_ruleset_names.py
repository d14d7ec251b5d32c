"""No ruleset is named outside domain/rules/ in code: everything else reads the registry
(``domain.rules``), so a ruleset plugs in without touching the lifecycle, the projections, the
server or the pages. Docstrings and comments may name one (they explain); a string or an identifier
may not: no list of ruleset names, no ruleset name in a condition, no rule id of one written
outside its package."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from domain.rules import RULESETS

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(rf"(?<![A-Za-z0-9])({'|'.join(RULESETS)})(?![a-z0-9])", re.IGNORECASE)
"""A ruleset's name as a word of its own: ``kony``, ``"bns:relent"``, ``kony_dice``, ``BnsOptions``."""
CODE = ("domain", "projections", "server", "clients")


def _python(path: Path) -> list[str]:
    """Each string (not a docstring) and identifier of ``path`` that names a ruleset."""
    found = []
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    for i, token in enumerate(tokens):
        if token.type == tokenize.STRING:
            before = next((t for t in reversed(tokens[:i]) if t.type not in (tokenize.NL, tokenize.COMMENT)), None)
            after = next((t for t in tokens[i + 1 :] if t.type not in (tokenize.NL, tokenize.COMMENT)), None)
            alone = (before is None or before.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)) and (
                after is None or after.type in (tokenize.NEWLINE, tokenize.ENDMARKER)
            )
            if alone:
                continue  # a docstring: words about the code
        elif token.type != tokenize.NAME:
            continue
        if NAME.search(token.string):
            found.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {token.string[:80]}")
    return found


_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\"'`\\])//[^\n]*", re.DOTALL)


def _javascript(path: Path) -> list[str]:
    """Each line of ``path``'s code (its comments taken out) that names a ruleset."""
    code = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
        for n, line in enumerate(code.splitlines(), 1)
        if NAME.search(line)
    ]


def _named() -> list[str]:
    found: list[str] = []
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*.py")):
            if not path.is_relative_to(ROOT / "domain" / "rules"):
                found += _python(path)
        for path in sorted((ROOT / top).rglob("*.js")):
            found += _javascript(path)
    return found


def test_no_ruleset_is_named_outside_its_package() -> None:
    assert _named() == []


def test_the_check_finds_a_name_in_a_condition_a_list_and_a_rule_id(tmp_path: Path) -> None:
    """The check itself: it would catch each way a name has crept in before, and pass the words."""
    sample = ROOT / "domain" / "_sample_for_the_names_test.py"
    sample.write_text(
        '"""The bns and kony rulesets are named here: a docstring."""\n'
        "# a comment about lotn\n"
        'NAMES = ["lotn", "camarilla"]\n'
        'if ruleset == "kony":\n    rule = "bns:relent"\n'
        "from domain.rules.kony import dice as kony_dice\n",
        encoding="utf-8",
    )
    try:
        said = [line.split(": ", 1)[1] for line in _python(sample)]
    finally:
        sample.unlink()
    assert said == ['"lotn"', '"camarilla"', '"kony"', '"bns:relent"', "kony", "kony_dice"]
