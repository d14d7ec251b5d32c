"""Tens, a small d10 pool system kept in the tests (tens.txt): a ruleset from outside
``domain/rules/``, joined with ``domain.rules.load("tests.rulesets.d10")``."""

from tests.rulesets.d10.ruleset import D10

RULESET = D10()
