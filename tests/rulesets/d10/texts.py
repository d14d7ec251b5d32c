"""The d10 rule table: each rule id with the words of its document (tens.txt, beside this file)."""

from __future__ import annotations

from domain.rules.words import Rule

DOC = "tens.txt"

RULES = [
    Rule(
        "d10:sheet",
        DOC,
        "A character has three attributes, Physical, Social and Mental, each rated 1 to 5, and any skills, "
        "each rated 1 to 5. A skill the sheet does not list counts as 0.",
    ),
    Rule(
        "d10:kinds",
        DOC,
        "A challenge is contested, against another character, or static, against a difficulty the Storyteller "
        "sets. There are no simple tests.",
    ),
    Rule("d10:relent", DOC, "The defender may relent before any die is rolled: the challenger wins without a roll."),
    Rule(
        "d10:pool",
        DOC,
        "A side's pool is its attribute for the challenge's category plus one skill it names. A pool holds at "
        "least one die and at most ten.",
    ),
    Rule(
        "d10:dice",
        DOC,
        "Each side rolls its pool of ten-sided dice. The server rolls them, or the Storyteller enters dice "
        "rolled at the table.",
    ),
    Rule("d10:successes", DOC, "Every 8, 9 or 10 is a success. The side with more successes wins."),
    Rule(
        "d10:ties",
        DOC,
        "On equal successes the larger pool wins; if the pools are equal too, the defender holds and the "
        "challenger fails.",
    ),
    Rule(
        "d10:static",
        DOC,
        "In a static challenge the challenger needs at least as many successes as the difficulty.",
    ),
    Rule("d10:no-retests", DOC, "There are no retests: the dice stand."),
    Rule("d10:double-tens", DOC, "With the house option double tens, every 10 counts as two successes."),
    Rule(
        "d10:order",
        DOC,
        "In a fight, characters act in order of Physical plus Mental, highest first; equals act at once, unless "
        "the Storyteller orders them.",
    ),
    Rule(
        "d10:turns",
        DOC,
        "A character declares a challenge only on its own turn, and one challenge a round.",
    ),
    Rule("d10:adjudication", DOC, "Anything these rules do not say, the Storyteller decides."),
]
