"""Character sheets (PROTOCOL section 3), as the ST submits them in ``add_character``.

One ``Sheet`` carries both families: trait rulesets read ``traits`` and ``negative_traits``,
pool rulesets read ``attributes`` and ``skills``. The ruleset checks that its family is there.
"""

from __future__ import annotations

import re
import typing
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

Category = Literal["physical", "social", "mental"]
CATEGORIES: tuple[Category, ...] = ("physical", "social", "mental")

PLAIN = r"^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*\Z"
r"""A name or a title: no control character (C0, DEL, C1: a line break, a tab, an ESC that would
drive a terminal) and no bidi embedding, override or isolate (U+202A-U+202E, U+2066-U+2069: one
would turn a sentence around the name). ``\Z``, not ``$``: ``$`` lets a last line break through."""
UNCONTROLLED = r"^[^\x00-\x1f\x7f-\x9f]*\Z"
"""Free text (a victory condition, a reason): no control character; bidi marks are kept (a
right-to-left sentence may need them)."""
UNPLAIN = "cannot hold control characters (line breaks, tabs, escape codes) or text-direction overrides"
"""What is wrong with a name that does not match ``PLAIN``, in a player's words."""
Name = Annotated[str, Meta(min_length=1, max_length=64)]
"""A name as stored: events written before names refused control characters still decode. A sheet
that comes in (``add_character``, ``register_character``) is checked against ``PLAIN``
(``plain_names``)."""
Ident = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
Count = Annotated[int, Meta(ge=1, le=99)]
Level = Annotated[int, Meta(ge=0, le=99)]
MANY = 200
"""Entries a sheet's list or mapping may hold."""
Names = Annotated[list[Name], Meta(max_length=MANY)]
Counts = Annotated[dict[Name, Count], Meta(max_length=MANY)]
Levels = Annotated[dict[Name, Level], Meta(max_length=MANY)]
Notes = Annotated[str, Meta(max_length=8000)]


class Traits(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """Trait name to how many times the character has it, per category."""

    physical: Counts = {}
    social: Counts = {}
    mental: Counts = {}

    def of(self, category: Category) -> dict[str, int]:
        return getattr(self, category)  # type: ignore[no-any-return]


class NegativeTraits(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    physical: Names = []
    social: Names = []
    mental: Names = []

    def of(self, category: Category) -> list[str]:
        return getattr(self, category)  # type: ignore[no-any-return]


ATTRIBUTE_ORDER = (
    "physical",
    "social",
    "mental",
    "strength",
    "dexterity",
    "stamina",
    "charisma",
    "manipulation",
    "composure",
    "intelligence",
    "wits",
    "resolve",
)
"""How a sheet's attributes are shown: the three ratings, or the nine, in the books' order."""


def in_order(attributes: dict[str, int]) -> dict[str, int]:
    """A sheet's attributes in the books' order (others after, as given)."""
    rank = {name: i for i, name in enumerate(ATTRIBUTE_ORDER)}
    return dict(sorted(attributes.items(), key=lambda item: rank.get(item[0].lower(), len(rank))))


class Weapon(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A weapon on a pool sheet (bns): the attack it serves, its bonus to the pool, its damage."""

    name: Name
    kind: Literal["melee", "thrown", "archery", "firearms"]
    bonus: Annotated[int, Meta(ge=-20, le=20)] = 0
    damage: Annotated[int, Meta(ge=0, le=20)] | None = None
    range: Annotated[int, Meta(ge=0, le=999)] | None = None
    """In steps (archery, firearms, thrown)."""
    reach: bool = False
    throwable: bool = False


class Sheet(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A character as the ST enters it. ``id`` is how commands name the character."""

    id: Ident
    name: Name
    npc: bool = False
    auto: bool = False
    """An NPC the server answers for: it throws at random whenever a test waits on it."""
    willpower: Level = 0
    health: Level = 7
    # trait rulesets (lotn, camarilla)
    traits: Traits | None = None
    negative_traits: NegativeTraits = NegativeTraits()
    abilities: Counts = {}
    powers: Names | Counts = []
    merits: Names | Counts = []
    gestures: Names = []
    immediate_powers: Names = []
    """Powers usable "immediately" or "at any time", before the character's initiative (camarilla)."""
    trait_kinds: Annotated[dict[Name, Literal["strength", "dexterity", "stamina"]], Meta(max_length=MANY)] = {}
    """Overrides the catalog's kind of a Physical Trait (camarilla)."""
    blood: Level = 0
    trait_max: Level | None = None
    """The generational maximum of Physical Traits: blood beyond it lasts one challenge (camarilla)."""
    armor: Level = 0
    """Armour (supernatural forms included): it takes damage first (kony:damage-order)."""
    extra_actions: Level = 0
    """Extra actions each round (kony: Celerity's, or an NPC combat sheet's)."""
    escape_powers: Names = []
    """Powers that let the character leave the scene at any time (kony:fair-escape)."""
    combat_sheet: bool = False
    """An NPC combat sheet (kony:npc-sheets): the ST acts for it outside the order."""
    retests: Level = 0
    """Retests an NPC combat sheet lists, each named ``{"category": "sheet"}`` in a roll (kony)."""
    rerolls: Level = 0
    """Dice a narrative test against this NPC rerolls upon a success (kony:narrative-rerolls)."""
    # pool rulesets (bns)
    attributes: Levels = {}
    """The nine (``strength`` … ``resolve``) or the three category ratings (``physical`` …)."""
    skills: Levels = {}
    """Missing: unskilled (``bns:unskilled``)."""
    creature: Name | None = None
    """``vampire``, ``werewolf``, ``human``, … where the rules ask (``bns:tooth-and-claw``)."""
    form: Name | None = None
    """A shapeshifter's form now (``crinos``, ``hispo``, ``lupus``, …)."""
    weapons: Annotated[list[Weapon], Meta(max_length=MANY)] = []
    rage_rounds: Annotated[int, Meta(ge=0, le=5)] = 0
    """Rage rounds each turn, after the universal round (``bns:rage-rounds``)."""
    # what only the ST may read
    notes: Notes = ""

    def has_power(self, name: str) -> bool:
        return name in self.powers

    def has_merit(self, name: str) -> bool:
        return name in self.merits


_PLAIN = re.compile(PLAIN)


def _unplain(text: object) -> bool:
    return isinstance(text, str) and not _PLAIN.match(text)


def plain_names(raw: object) -> dict[str, str]:
    """The names of a submitted sheet (its name; its Traits', abilities' and the like) that hold a
    control character or a bidi control, by path (``name``, ``traits.physical``), each with what
    is wrong (``Expected `str` matching regex …``, as msgspec says it)."""
    if not isinstance(raw, dict):
        return {}
    wrong = f"Expected `str` matching regex {PLAIN!r}"
    found = {}
    if _unplain(raw.get("name")):
        found["name"] = wrong
    for field, value in raw.items():
        if field in ("traits", "negative_traits") and isinstance(value, dict):
            for part, holder in value.items():
                if isinstance(holder, dict) and any(map(_unplain, holder)):
                    found[f"{field}.{part}"] = wrong
        elif isinstance(value, dict | list) and any(map(_unplain, value)):
            found[field] = wrong
    return found


def plain_sheet(sheet: Sheet) -> None:
    """Refuse (``ValueError``, which msgspec reports as a ``ValidationError``) a submitted sheet whose
    name or whose Traits' names hold control characters or bidi controls."""
    wrong = plain_names(msgspec.to_builtins(sheet))
    if wrong:
        where = "name" if "name" in wrong else "Trait names"
        raise ValueError(f"The character's {where} {UNPLAIN}.")


def sheet_problems(raw: object) -> dict[str, str]:
    """Every field of a submitted sheet that is wrong, by its path (``traits.physical.Brawny``), with
    what is wrong; empty when the sheet decodes. For showing a bad sheet file field by field."""
    if not isinstance(raw, dict):
        return {"": "A sheet is a JSON object."}
    fields = {f.encode_name: f for f in msgspec.structs.fields(Sheet)}
    problems = {key: f"not a sheet field (known: {', '.join(fields)})" for key in raw if key not in fields}
    for name, info in fields.items():
        if name not in raw:
            if info.required:
                problems[name] = "required"
            continue
        value = raw[name]
        entry = _entry_type(info.type) if isinstance(value, list) else None
        if entry is not None and isinstance(value, list) and not _problems(name, value, info.type).get(name):
            for n, item in enumerate(value):  # each entry of a list alone: every weapon named
                problems.update(_problems(f"{name}.{n}", item, entry))
        else:
            problems.update(_problems(name, value, info.type))
    return {**plain_names(raw), **problems}


def _entry_type(type_: Any) -> Any:
    """The type of a list field's entries (``list[Weapon]`` → ``Weapon``), or None."""
    args = [a for a in typing.get_args(type_) if a is not type(None)]
    if typing.get_origin(type_) is list and args:
        return args[0]
    for a in args:  # Annotated[list[Weapon], Meta(...)]
        if typing.get_origin(a) is list:
            return typing.get_args(a)[0]
    return None


def partial_sheet(raw: object, problems: dict[str, str]) -> Sheet | None:
    """What of ``raw`` decodes once the fields named in ``problems`` are left out (a list's bad
    entry dropped, a missing id or name filled), so the catalog can check the rest and every
    problem is named at once; None when even that does not decode."""
    if not isinstance(raw, dict):
        return None
    kept: Any = msgspec.json.decode(msgspec.json.encode(raw))
    cut: set[tuple[str, ...]] = set()
    for path in problems:  # a list's bad entry goes whole
        parts = [x for x in path.split(".") if x]
        first = next((n for n, x in enumerate(parts) if x.isdigit()), len(parts) - 1)
        cut.add(tuple(parts[: first + 1]))
    for steps in sorted(cut, key=lambda p: [int(x) if x.isdigit() else -1 for x in p], reverse=True):
        holder = kept
        for step in steps[:-1]:
            holder = holder[int(step)] if isinstance(holder, list) and step.isdigit() else holder.get(step, {})
        last = steps[-1] if steps else ""
        if isinstance(holder, list) and last.isdigit() and int(last) < len(holder):
            holder.pop(int(last))
        elif isinstance(holder, dict):
            holder.pop(last, None)
    kept.setdefault("id", "sheet")
    kept.setdefault("name", "?")
    try:
        return msgspec.convert(kept, Sheet)
    except msgspec.ValidationError:
        return None


def _problems(path: str, value: Any, type_: Any) -> dict[str, str]:
    """The problems with one field's value, each at the entry it lies in (msgspec names a mapping's
    entry ``[...]``; each entry is then tried alone to name its key)."""
    text, steps = _first_problem(value, type_)
    if text is None:
        return {}
    if "*" in steps:
        inner = steps[: steps.index("*")]
        holder = value
        for step in inner:
            holder = holder.get(step) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            found = {}
            for key, item in holder.items():
                problem, where = _first_problem(_with(value, inner, {key: item}), type_)
                if problem is not None and where == steps:
                    found[".".join([path, *inner, str(key)])] = problem
            if found:
                return found
    return {".".join([path, *(s for s in steps if s != "*")]): text}


_WHERE = re.compile(r" - at (`key` in )?`\$(?P<path>[^`]*)`$")


def _first_problem(value: Any, type_: Any) -> tuple[str | None, list[str]]:
    """msgspec's first complaint, and where: ``$.physical[...]`` as ``["physical", "*"]`` (an
    entry of a mapping), ``$[2]`` as ``["2"]``."""
    try:
        msgspec.convert(value, type_)
    except msgspec.ValidationError as err:
        found = _WHERE.search(str(err))
        text = str(err)[: found.start()] if found else str(err)
        where = re.sub(r"\[(\d+)\]", r".\1", found["path"].replace("[...]", ".*")) if found else ""
        if found and found.group(1):
            text = f"a name: {text}"
        return text, [s for s in where.split(".") if s]
    return None, []


def _with(value: Any, steps: list[str], replacement: dict[str, Any]) -> Any:
    """``value`` with the mapping at ``steps`` replaced."""
    if not steps:
        return replacement
    return {**value, steps[0]: _with(value[steps[0]], steps[1:], replacement)}
