"""The registry: the rulesets this server plays, by the name ``open_scene`` uses.

Each ruleset is one package here (``domain/rules/<name>/``) whose ``RULESET`` is its one object
(``domain.rules.base.Ruleset``): its steps, options, die, sheet fields, catalog and rule table. The
packages are found, not listed; a ruleset kept elsewhere (a chronicle's own, a test's) joins with
``register`` or by its module's name in ``JUSTICAR_RULESETS`` (``load``). Everything outside this
package reads the rulesets from here: no name of one is written anywhere else.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from domain.commands import Options
from domain.errors import Rejected
from domain.rules.base import Ruleset
from domain.rules.words import BOOKS, Rule
from domain.state import Character, RoundState

RULESETS: dict[str, Ruleset] = {}
"""Every ruleset played here, by name, in the order the pages list them (``Ruleset.listed``)."""

DEFAULT = "lotn"
"""The ruleset a scene plays when nobody says (the CLI's default)."""


def register(ruleset: Ruleset) -> Ruleset:
    """Play ``ruleset`` here from now on (its name must be new)."""
    if not ruleset.name.isidentifier() or not ruleset.name.islower():
        raise ValueError(f"a ruleset's name is lower-case letters, digits and _: {ruleset.name!r}")
    if RULESETS.get(ruleset.name, ruleset) is not ruleset:
        raise ValueError(f"there is already a ruleset called {ruleset.name!r}")
    RULESETS[ruleset.name] = ruleset
    for name in sorted(RULESETS, key=lambda n: (RULESETS[n].listed, n)):
        RULESETS[name] = RULESETS.pop(name)  # in the order the pages list them
    BOOKS.update(ruleset.books)
    return ruleset


def load(modules: str) -> None:
    """Import each module of ``modules`` (comma-separated: ``JUSTICAR_RULESETS``) and register its
    ``RULESET``."""
    for name in filter(None, (m.strip() for m in modules.split(","))):
        register(importlib.import_module(name).RULESET)


def ruleset_for(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise Rejected(
            "ruleset_unavailable",
            f"The {name} ruleset is not available on this server; it plays: {', '.join(sorted(RULESETS))}.",
        ) from None


def recorded_options(name: str, given: Mapping[str, Any]) -> Options:
    """The options a ``scene_opened`` recorded, read by its ruleset (the common ones alone where this
    server lacks it: its log still folds)."""
    ruleset = RULESETS.get(name)
    if ruleset is None:
        common = {f.name for f in msgspec.structs.fields(Options)}
        return msgspec.convert({k: v for k, v in given.items() if k in common}, Options)
    return ruleset.read_options(given)


def stored_options(name: str, stored: Mapping[str, Any]) -> Options:
    """A scene's options as a snapshot keeps them (``msgspec.to_builtins`` of its ruleset's), read
    back by that ruleset."""
    ruleset = RULESETS.get(name)
    kind = ruleset.options if ruleset is not None else Options
    fields = {f.name for f in msgspec.structs.fields(kind)}
    return msgspec.convert({k: v for k, v in stored.items() if k in fields}, kind)


def stored_slots(
    name: str, characters: dict[str, Character], round_: RoundState | None
) -> tuple[dict[str, Character], RoundState | None]:
    """A scene's characters and round as a snapshot keeps them, their slots (plain data: their type
    is the ruleset's) read back by the ruleset ``name`` (left as they are where this server lacks it)."""
    ruleset = RULESETS.get(name)
    if ruleset is None:
        return characters, round_
    kind = ruleset.character_state
    if kind is not None:
        characters = {
            who: c if c.slot is None else msgspec.structs.replace(c, slot=msgspec.convert(c.slot, kind))
            for who, c in characters.items()
        }
    kind_ = ruleset.round_state
    if kind_ is not None and round_ is not None and round_.slot is not None:
        round_ = msgspec.structs.replace(round_, slot=msgspec.convert(round_.slot, kind_))
    return characters, round_


def title_of(name: str) -> str:
    """What players call the ruleset ``name`` (the name itself where this server lacks it)."""
    ruleset = RULESETS.get(name)
    return ruleset.title if ruleset is not None else name


class _Table(Mapping[str, Rule]):
    """Every rule id of every ruleset with its words: a ruleset's ids start with its name."""

    def __getitem__(self, rule_id: str) -> Rule:
        ruleset = RULESETS.get(rule_id.partition(":")[0])
        if ruleset is None:
            raise KeyError(rule_id)
        return ruleset.texts[rule_id]

    def __iter__(self) -> Iterator[str]:
        for ruleset in RULESETS.values():
            yield from ruleset.texts

    def __len__(self) -> int:
        return sum(len(ruleset.texts) for ruleset in RULESETS.values())


RULES: Mapping[str, Rule] = _Table()
"""The rule table: each rule id a ruling or a refusal cites, with its words and document."""


def rule_text(rule_id: str) -> Rule | None:
    return RULES.get(rule_id)


for _found in pkgutil.iter_modules(__path__):
    if _found.ispkg:
        register(importlib.import_module(f"{__name__}.{_found.name}").RULESET)

from domain.rules import moved  # noqa: E402  (the old flat modules' names, once the packages are in)

moved.install(sys.modules[__name__])
