"""What a page knows of a ruleset, so that it never switches on its name: the short descriptor
every scene's view carries (``RulesView``), and the whole one the new-scene form and the sheet
forms read (``RulesetView``, served as ``/rulesets.json``), both made from the registry."""

from __future__ import annotations

import typing
from functools import cache
from typing import Any

import msgspec

from domain.rules import DEFAULT, RULESETS, ruleset_for
from domain.rules.base import Ruleset
from domain.rules.fields import SheetField


class FaceView(msgspec.Struct, frozen=True):
    face: int
    means: str
    """What it counts as ("a success")."""


class DieView(msgspec.Struct, frozen=True):
    """The die a dice ruleset rolls: the dice forms' faces, and what each counts as."""

    size: int
    faces: list[FaceView]
    successes: list[int]


class RulesView(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a page needs to know of the scene's ruleset, so that it never switches on its name."""

    family: str
    """What a side puts in: ``traits`` (bids), ``pools`` (test pools), ``dice``."""
    rounds: bool
    """Combat rounds (``start_round`` …)."""
    mobs: bool
    """Other attackers may ``join`` a challenge."""
    blood: bool
    """Blood buys Physical Traits (``spend_blood``)."""
    flags: list[str]
    """The flags a declaration may carry."""
    die: DieView | None = None
    """The die rolled (dice rulesets); none where signs are thrown."""
    stakes: str | None = None
    """Where a die is rolled (``family`` reads ``dice``): what a side puts in, ``traits`` (bids)
    or ``pools`` (test pools). Left out otherwise: ``family`` says it."""
    narrative: bool = False
    """A round may be narrative (``start_round`` with ``narrative``)."""


class OptionView(msgspec.Struct, frozen=True, omit_defaults=True):
    """One option of the new-scene form: a yes or no (``default`` a bool), or one of ``choices``."""

    name: str
    label: str
    default: bool | str | int
    help: str = ""
    choices: list[tuple[str, str]] = []
    """Each value with its words, the default first."""


class RulesetView(msgspec.Struct, frozen=True, omit_defaults=True):
    """A ruleset as the pages choose and fill it: its title, its options, its sheet."""

    name: str
    title: str
    rules: RulesView
    summary: str = ""
    default: bool = False
    """The one a new scene plays unless the Storyteller chooses."""
    options: list[OptionView] = []
    """Its own options (the common ones every ruleset has are not listed)."""
    sheet: list[SheetField] = []
    """The sheet's fields it plays, in the form's order."""
    pool_parts: list[str] = []
    """The parts of a test pool a challenger names (``PoolSpec`` fields): the declare form asks
    for these and no others."""
    answer_parts: list[str] = []
    """The parts of a defence pool a defender names (``PoolSpec`` fields)."""


def _die(rules: Ruleset) -> DieView | None:
    die = rules.die
    if die is None:
        return None
    return DieView(size=die.size, faces=[FaceView(f, means) for f, means in die.faces], successes=list(die.successes))


@cache
def rules_view(ruleset: str) -> RulesView:
    rules = ruleset_for(ruleset)
    return RulesView(
        family=rules.family,
        rounds=rules.has_rounds,
        mobs=rules.has_mobs,
        blood=rules.has_blood,
        flags=list(rules.flags),
        die=_die(rules),
        stakes=rules.stakes if rules.family == "dice" else None,
        narrative=rules.has_narrative,
    )


def _options(rules: Ruleset) -> list[OptionView]:
    hints = typing.get_type_hints(rules.options)
    found = []
    for field in msgspec.structs.fields(rules.options):
        words = rules.option_words.get(field.name)
        if words is None:
            continue  # a common option, or one the form leaves to the API
        default: Any = field.default
        choices = list(words.choices) or [(v, v) for v in typing.get_args(hints[field.name])]
        found.append(
            OptionView(
                name=field.name,
                label=words.label,
                default=default,
                help=words.help,
                choices=[] if isinstance(default, bool) else choices,
            )
        )
    return found


def ruleset_view(name: str) -> RulesetView:
    rules = ruleset_for(name)
    return RulesetView(
        name=name,
        title=rules.title,
        summary=rules.summary,
        default=name == DEFAULT,
        rules=rules_view(name),
        options=_options(rules),
        sheet=list(rules.sheet_fields),
        pool_parts=list(rules.pool_parts),
        answer_parts=list(rules.answer_parts),
    )


def rulesets() -> list[RulesetView]:
    """Every ruleset played here, the default first, the others as the registry lists them."""
    names = sorted(RULESETS, key=lambda name: name != DEFAULT)
    return [ruleset_view(name) for name in names]
