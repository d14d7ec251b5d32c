"""Rulesets kept in the tests, outside ``domain/rules/``: each joins the registry the way a
chronicle's own would (``domain.rules.load``; tests/conftest.py loads them)."""
