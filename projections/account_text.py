"""A challenge's account (``projections.account``) as lines of plain text: what the replay's
command line and the player's terminal print. Only a layout: every sentence is the account's own,
each said once; ids and rule ids are added only ``for the record`` (``ids``)."""

from __future__ import annotations

from projections.account import Account, RulingLine, Verdict


def account_lines(a: Account, *, ids: bool = False, head: bool = True) -> list[str]:
    """The account, one fact a line: the title and where it stands (``head``), what each side put
    up, the powers in play, the calls, each test and the retests after it, the verdict with its
    grade and the ruling's reason, how each effect came, what winning will do while it is open,
    the rulings."""
    out = [f"{a.title} · {a.now}{f' [{a.id}]' if ids else ''}"] if head else []
    out += [put.words for put in a.sides]
    if a.in_play:
        out.append(f"In play: {'; '.join(a.in_play)}")
    out += a.calls
    out += a.late
    for t in a.tests:  # each test, then the retests called after it
        out.append(f"Test {t.number}: {t.words}{_rule(t.rule, ids)}")
        out += [r.words for r in a.retests if r.after_test == t.number]
    out += [r.words for r in a.retests if r.after_test not in {t.number for t in a.tests}]
    if a.verdict is not None:
        out.append(verdict_line(a.verdict, ids=ids))
    whys = dict.fromkeys(f"{e.words}: {e.why}{_rule(e.rule, ids)}" for e in a.effects if e.why)
    out += list(whys)
    out += [s.words for s in a.stakes]
    out += [line for r in a.rulings for line in _ruling(r, a.verdict, ids)]
    return out


def verdict_line(v: Verdict, *, ids: bool = False) -> str:
    """How it ended, with what it cost, its grade, and how a ruling changed it, by the
    Storyteller's own reason: "Juan won: Sam loses Ferocious (overturned by the Storyteller: Sam
    threw late. First given: Sam won)"."""
    said = v.words
    if v.grade:
        said += f". {v.grade}"
    if v.ruled:
        said += f" ({v.ruled}{f'. First given: {v.before}' if v.before else ''})"
    return said + _rule(v.rule, ids)


def _ruling(r: RulingLine, verdict: Verdict | None, ids: bool) -> list[str]:
    """A ruling, unless the verdict already says it (an overturn or an amendment, with its
    reason); the challenges since that stand as played."""
    said = [] if verdict is not None and verdict.ruled and r.decision != "uphold" else [r.words]
    if ids and said:
        said[0] += f" [ruling {r.id}]"
    if r.stand:
        said.append(f"Standing as played: {'; '.join(r.stand)}")
    return said


def _rule(rule: str, ids: bool) -> str:
    return f" [{rule}]" if ids and rule else ""
