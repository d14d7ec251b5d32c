"""The audit as Markdown, or as one self-contained HTML page (no network: inline CSS and SVG),
readable on a phone, with a picture of the fight: rounds (or, without rounds, challenges in the
order declared) across, characters down, each challenge drawn between its sides and marked by
its outcome."""

from __future__ import annotations

import re
from datetime import datetime
from html import escape
from typing import Literal

import msgspec

from domain.carried import Carried
from domain.pools import Pool
from domain.sheets import Sheet, in_order
from projections.account import Account, RetestLine, RulingLine, TestLine, Verdict
from projections.audit import Audit, Marker, NightAudit, Participant, StreamChain, Words
from projections.ledger import Entry, Ledger


def _name(audit: Audit, who: str) -> str:
    return audit.names.get(who, who)


# -- player text in Markdown ----------------------------------------------------------------------

_UNSEEN = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (C0, DEL, C1) and the bidi embeddings, overrides and isolates: never written
as they are (an ESC would drive a terminal, a line break start a heading, an override turn the
sentence around it)."""
_MARKUP = re.compile(r"([\\`*_\[\]<>~])")
"""What Markdown (CommonMark, GitHub's) reads as markup inside a line: emphasis, code, links and
images, raw HTML, strike-through. (A heading, a list, a quote or a table starts a line: player text
never does, its line breaks shown.)"""


def visible(text: str) -> str:
    """``text`` with each control character and bidi control shown as its code (``⟨U+001B⟩``):
    safe to print on a terminal or in a line of Markdown, and what was there still readable."""
    return _UNSEEN.sub(lambda m: f"⟨U+{ord(m[0]):04X}⟩", text)


def md(text: object) -> str:
    """Player text (names, titles, victory conditions, reasons, notes) as literal Markdown: its
    control characters shown (``visible``; so it stays on its line: no heading or list of its
    own), and every character Markdown reads as markup escaped with a backslash (no raw HTML, no
    emphasis, link or image)."""
    return _MARKUP.sub(r"\\\1", visible(str(text)))


def _step(audit: Audit, seq: int) -> str:
    """A disputed or ruled step in words where the audit knows what it was."""
    return audit.steps.get(seq, f"step {seq}")


# -- one challenge, laid out from its account (every sentence is the account's) -------------------


def _heading(a: Account) -> str:
    """A challenge's heading: its people and what it was, then how it ended ("Sam challenges Juan
    (Physical) — Juan won")."""
    return f"{a.title} — {a.result or a.now}"


def _sentence(text: str) -> str:
    """A line of the account as a sentence: its full stop, once."""
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else f"{text}."


def _in_order(a: Account) -> list[TestLine | RetestLine]:
    """The tests, each retest right after the test it answered (one not yet placed, last)."""
    out: list[TestLine | RetestLine] = []
    for test in a.tests:
        out.append(test)
        out += [r for r in a.retests if r.after_test == test.number]
    numbers = {t.number for t in a.tests}
    return out + [r for r in a.retests if r.after_test not in numbers]


def _ruling(a: Account, r: RulingLine) -> list[str]:
    """A ruling's lines. The one the verdict names beside the result it changed (with its reason
    and the result first given) adds only what stands as played since; another says itself, what
    it changed (which names what stands), or what stands."""
    v = a.verdict
    stand = [f"Stands as played: {'; '.join(r.stand)}"] if r.stand else []
    if v is not None and v.ruled and r.decision != "uphold" and v.ruled.endswith(r.reason.strip()):
        return stand
    return [r.words, r.changed] if r.changed else [r.words, *stand]


def _explains(v: Verdict) -> bool:
    """Whether the verdict's ``why`` says how it was decided beyond who won ("Julian relented: …",
    "Edward succeeds, an exceptional success: a pool of 5 against 1 …"), rather than only the
    result again ("Favian wins the challenge."). A ruled verdict is explained by its ruling."""
    return bool(v.why) and not v.ruled and any(mark in v.why.rstrip(".") for mark in (":", ";"))


def _effect_why(words: str, why: str) -> str:
    """An effect with how it came, the effect said once ("Sal's armour takes 2 of the 3 first")."""
    return why if why.startswith(words) else f"{words}: {why}"


def _rules_of(a: Account) -> list[str]:
    """The rules the challenge cites, each once, in the order they came up."""
    found = [t.rule for t in a.tests] + ([a.verdict.rule] if a.verdict else []) + [e.rule for e in a.effects]
    return [rule for rule in dict.fromkeys(found) if rule]


def _record(a: Account) -> list[tuple[str, str]]:
    """The challenge for the record, as (what, id) pairs: its id, the step that declared it, the
    rule each line cites, the rulings' numbers."""
    out = [("challenge id", a.id), ("declared at step", f"#{a.seq}")]
    out += [(f"test {t.number}", t.rule) for t in a.tests if t.rule]
    if a.verdict and a.verdict.rule:
        out.append(("outcome", a.verdict.rule))
    out += [(e.words, e.rule) for e in a.effects if e.rule]
    out += [(f"ruling ({r.decision})", f"#{r.id}") for r in a.rulings]
    return out


# -- Markdown -------------------------------------------------------------------------------------


Format = Literal["html", "md", "json"]
MEDIA_TYPES: dict[str, str] = {"html": "text/html", "md": "text/markdown", "json": "application/json"}


def render(audit: Audit | NightAudit, format: Format | str) -> str:
    """The audit (of a scene, or of a game night) as an HTML page, Markdown, or JSON."""
    if format == "json":
        return msgspec.json.encode(audit).decode() + "\n"
    if isinstance(audit, NightAudit):
        return night_markdown(audit) if format == "md" else night_html(audit)
    return markdown(audit) if format == "md" else html(audit)


def markdown(audit: Audit) -> str:
    out = [f"# Audit: {md(audit.title or audit.scene)}", ""]
    rules = md(audit.ruleset_title or audit.ruleset)
    out += [f"{rules} rules, {audit.status}, {audit.chain.events} events.", ""]
    out += ["## Verification", "", _chain_text(audit), ""]
    out += ["## Participants", ""]
    for p in audit.participants:
        traits = p.sheet.traits
        counts = (
            ", ".join(
                f"{cat} {sum(traits.of(cat).values())} ({md(', '.join(traits.of(cat)))})"
                for cat in ("physical", "social", "mental")
                if traits.of(cat)
            )
            if traits
            else md("; ".join(f"{what.lower()} {listed}" for what, listed in _ratings(p.sheet)) or "no Traits")
        )
        extra = (
            f"; abilities {md(', '.join(f'{a} {n}' for a, n in p.sheet.abilities.items()))}"
            if p.sheet.abilities
            else ""
        )
        out.append(f"- **{md(p.name)}**{' (NPC)' if p.npc else ''}, {md(_joined(p))}: {counts}{extra}")
    out += ["", "## Challenges", ""]
    for ch in audit.challenges:
        out += _challenge_md(audit, ch)
    if audit.disputes or audit.rulings:
        out += ["## Disputes and rulings", ""]
        for d in audit.disputes:
            ruled = f" → ruling #{d.ruling}" if d.ruling else " (open)"
            said = f"{md(_name(audit, d.by))} disputes {md(_step(audit, d.event))}: {md(d.reason)}"
            out.append(f"- #{d.id} {said}{ruled}")
        for r in audit.rulings:
            said = f"{md(_step(audit, r.event))}: **{md(r.decision)}** ({md(r.reason)}). {md(r.why)}"
            out.append(f"- Ruling #{r.id} on {said}")
        out.append("")
    out += ["## Timeline", ""]
    for section in audit.timeline:
        out += [f"### {md(section.title)}", ""]
        for step in section.steps:
            rule = f" *[{md(step.rule)}]*" if step.rule else ""
            out.append(f"- #{step.seq} `{step.at}` {md(step.summary)}{rule}")
        out.append("")
    out += _record_md(audit)
    return "\n".join(out)


def _joined(p: Participant, event: str = "") -> str:
    """When a participant came in, and with what from its game night."""
    if p.carried is None:
        return f"joined at {event}#{p.joined}"
    return f"came in from the game night at {event}#{p.joined} ({carried_words(p.carried)})"


def _chain_text(audit: Audit) -> str:
    if audit.chain.ok:
        return f"Hash chain intact: {audit.chain.events} events (its head is given for the record, below)."
    return f"**Hash chain broken** at {audit.chain.problem} (the stored head is given for the record, below)."


def _words_md(words: Words | None) -> list[str]:
    return [f"  > {md(words.words)} — *{md(words.rule)}, {md(words.source)}*"] if words else []


def _challenge_md(audit: Audit, a: Account) -> list[str]:
    out = [f"### {md(_heading(a))}", ""]
    for side in a.sides:
        victory = f" Victory: “{md(side.victory)}”" if side.victory else ""
        out.append(f"- {md(_sentence(side.words))}{victory}")
    if a.in_play:
        out.append(f"- In play: {md(_sentence('; '.join(a.in_play)))}")
    out += [f"- {md(_sentence(call))}" for call in [*a.calls, *a.late]]
    for line in _in_order(a):
        told = f"Test {line.number}: {line.words}" if isinstance(line, TestLine) else line.words
        out.append(f"- {md(_sentence(told))}")
    if a.verdict is not None:
        out += _verdict_md(a.verdict)
        out += [f"  - {md(_sentence(_effect_why(e.words, e.why)))}" for e in a.effects if e.why]
    else:
        out.append(f"- Not decided: {md(a.now)}.")
    out += [f"- {md(_sentence(stake.words))}" for stake in a.stakes]
    for r in a.rulings:
        said = _ruling(a, r)
        if said:
            out.append(f"- {md(' '.join(_sentence(x) for x in said))}")
    quoted = [audit.rules[rule] for rule in _rules_of(a) if rule in audit.rules]
    if quoted:
        out.append("")
        for n, w in enumerate(quoted):
            out += [*([">"] if n else []), f"> {md(w.words)} — *{md(w.source)}*"]
    out.append("")
    return out


def _verdict_md(v: Verdict) -> list[str]:
    line = f"- **{md(_sentence(v.words))}**"
    if v.grade and not (_explains(v) and v.grade.lower() in v.why.lower()):  # the why says it
        line += f" {md(_sentence(v.grade))}"
    if v.ruled:
        first = f" (first given: {v.before})" if v.before else ""
        line += f" {md(_sentence(v.ruled[:1].upper() + v.ruled[1:] + first))}"
    if _explains(v):
        line += f" {md(_sentence(v.why))}"
    return [line]


def _record_md(audit: Audit) -> list[str]:
    """The final section: the chain's head, and each challenge's ids and rule ids."""
    head = "Hash chain head" if audit.chain.ok else "Stored head of the broken chain"
    out = ["## For the record", "", f"Scene `{audit.scene}`. {head} `{audit.chain.head}`.", ""]
    for a in audit.challenges:
        ids = "; ".join(f"{md(what)} `{ident}`" for what, ident in _record(a))
        out.append(f"- {md(_heading(a))}: {ids}")
    out.append("")
    return out


# -- HTML -------------------------------------------------------------------------------------------

_CSS = """
:root { color-scheme: dark; --bg: #121417; --fg: #e8e6e3; --muted: #9aa0a6; --card: #1c1f24;
  --line: #2c3138; --win: #66bb6a; --lose: #ef6f6c; --draw: #9aa0a6; --open: #e0b64a; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0; } h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 0 0 .5rem; }
section.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem;
  margin: .75rem 0; }
.muted { color: var(--muted); } .small { font-size: .8em; margin: 0 0 .5rem; }
code { font-size: .85em; word-break: break-all; }
blockquote { margin: .25rem 0 .5rem; padding-left: .75rem; border-left: 3px solid var(--line);
  color: var(--muted); font-size: .9em; }
.ok { color: var(--win); } .bad { color: var(--lose); }
.picture { overflow-x: auto; background: var(--card); border-radius: 8px; padding: .5rem; }
svg text { fill: var(--fg); font: 12px system-ui, sans-serif; }
ol.timeline { padding-left: 1.5rem; } ol.timeline li { margin: .25rem 0; }
details summary { cursor: pointer; color: var(--muted); }
section.card ul { padding-left: 1.25rem; margin: .25rem 0 .5rem; } section.card li { margin: .2rem 0; }
ul.sides li { font-variant-numeric: tabular-nums; } .victory { display: block; color: var(--muted); }
ul.tests { list-style: none; padding-left: 0; }
ul.tests li.retest { padding-left: 1rem; color: var(--muted); }
p.verdict { margin: .5rem 0; } p.verdict.open { color: var(--open); }
.grade { display: inline-block; padding: 0 .4rem; border-radius: 4px; background: var(--line); font-size: .85em; }
.ruled { display: block; color: var(--open); } .why { display: block; color: var(--muted); }
p.ruling { border-left: 3px solid var(--open); padding-left: .75rem; }
cite { font-style: normal; } cite::before { content: "— "; }
.pool { display: block; } .pool span { white-space: nowrap; }
.n { font-weight: 600; margin-right: .25rem; } details.rules { margin: .25rem 0; }
details.record { font-size: .85em; } details.record ul { color: var(--muted); }
"""

_COLOURS = {"challenger": "var(--win)", "defender": "var(--lose)", "none": "var(--draw)"}


def html(audit: Audit) -> str:
    e = escape
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Audit: {e(audit.title or audit.scene)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>Audit: {e(audit.title or audit.scene)}</h1>",
        f'<p class="muted">{e(audit.ruleset_title or audit.ruleset)} rules'
        f" · {e(audit.status)}"
        f" · {audit.chain.events} events</p>",
        f'<div class="{"ok" if audit.chain.ok else "bad"}">{_chain_html(audit)}</div>',
        "<h2>The fight</h2>",
        f'<div class="picture">{picture(audit)}</div>',
        '<p class="muted">Rounds across (without rounds, challenges in the order declared), characters down. '
        "A big dot is the challenger (a mob's champion), the line runs to the target; thin lines join the "
        "rest of a mob. Green: the challenger won; red: the defender; grey: a draw; yellow dashes: not "
        "resolved; a ring: corrected by a ruling. After a round's challenges, a diamond is a fair escape (yellow: "
        "held, red: failed, green: escaped) and a square a condition (hollow: cleared), each listed below.</p>",
        _marks_html(audit),
        "<h2>Participants</h2>",
    ]
    for p in audit.participants:
        traits = p.sheet.traits
        rows = "".join(
            f"<li>{cat.capitalize()} {sum(traits.of(cat).values())}: {e(_trait_list(traits.of(cat)))}</li>"
            for cat in ("physical", "social", "mental")
            if traits and traits.of(cat)
        )
        rows += "".join(f"<li>{e(what)}: {e(listed)}</li>" for what, listed in _ratings(p.sheet))
        abilities = ", ".join(f"{a} {n}" for a, n in p.sheet.abilities.items())
        negative = ", ".join(t for cat in ("physical", "social", "mental") for t in p.sheet.negative_traits.of(cat))
        parts.append(
            f'<section class="card"><h3>{e(p.name)}{" (NPC)" if p.npc else ""}</h3><ul>{rows}'
            + (f"<li>Abilities: {e(abilities)}</li>" if abilities else "")
            + (f"<li>Negative Traits: {e(negative)}</li>" if negative else "")
            + f"<li>Willpower {p.sheet.willpower}, health {p.sheet.health}</li></ul>"
            f'<p class="muted">{escape(_joined(p, "event "))}</p></section>'
        )
    parts.append("<h2>Challenges</h2>")
    parts += [_challenge_html(audit, ch) for ch in audit.challenges]
    if audit.disputes or audit.rulings:
        parts.append("<h2>Disputes and rulings</h2><section class=card><ul>")
        for d in audit.disputes:
            ruled = f" → ruling #{d.ruling}" if d.ruling else " (open)"
            parts.append(
                f"<li>#{d.id} {e(_name(audit, d.by))} disputes {e(_step(audit, d.event))}: {e(d.reason)}{ruled}</li>"
            )
        for r in audit.rulings:
            parts.append(
                f"<li>Ruling #{r.id} on {e(_step(audit, r.event))}: <b>{e(r.decision)}</b> ({e(r.reason)}). "
                f"{e(r.why)}</li>"
            )
        parts.append("</ul></section>")
    parts.append("<h2>Timeline</h2>")
    for section in audit.timeline:
        parts.append(f'<h3>{e(section.title)}</h3><ol class="timeline">')
        for step in section.steps:
            changes = "".join(
                f"<li><code>{e(c.path)}</code>: {e(str(c.before))} → {e(str(c.after))}</li>" for c in step.changes
            )
            detail = f"<details><summary>what changed</summary><ul>{changes}</ul></details>" if changes else ""
            rule = f' <span class="muted">[{e(step.rule)}]</span>' if step.rule else ""
            parts.append(f'<li value="{step.seq}">{e(step.summary)}{rule}{detail}</li>')
        parts.append("</ol>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _ratings(sheet: Sheet) -> list[tuple[str, str]]:
    """A pool sheet's ratings, the pools' parts to check against: attributes in the books' order,
    skills, weapons with their bonus."""
    out = []
    if sheet.attributes:
        out.append(("Attributes", ", ".join(f"{a.capitalize()} {n}" for a, n in in_order(sheet.attributes).items())))
    if sheet.skills:
        out.append(("Skills", ", ".join(f"{k.capitalize()} {n}" for k, n in sheet.skills.items())))
    if sheet.weapons:
        out.append(("Weapons", ", ".join(f"{w.name} ({w.kind}, {w.bonus:+d})" for w in sheet.weapons)))
    return out


def _trait_list(traits: dict[str, int]) -> str:
    return ", ".join(f"{t} ×{n}" if n > 1 else t for t, n in traits.items())


def _chain_html(audit: Audit) -> str:
    said = (
        f"Hash chain intact: {audit.chain.events} events."
        if audit.chain.ok
        else f"Hash chain broken at {escape(audit.chain.problem or '')}."
    )
    head = "Head" if audit.chain.ok else "Stored head"
    record = (
        f"<summary>For the record</summary>Scene <code>{escape(audit.scene)}</code>. "
        f"{head} <code>{audit.chain.head}</code>"
    )
    return f'{said}<details class="record">{record}</details>'


def _words_html(words: Words | None) -> str:
    if words is None:
        return ""
    return f"<blockquote>“{escape(words.words)}” — {escape(words.rule)}, {escape(words.source)}</blockquote>"


def _challenge_html(audit: Audit, a: Account) -> str:
    e = escape
    sides = "".join(
        f"<li>{_put_html(side.words, side.pool)}"
        + (f' <span class="victory">Victory: “{e(side.victory)}”</span>' if side.victory else "")
        + "</li>"
        for side in a.sides
    )
    items = [f'<ul class="sides">{sides}</ul>']
    facts = ([f"In play: {'; '.join(a.in_play)}"] if a.in_play else []) + a.calls + a.late
    if facts:
        items.append(f'<ul class="facts">{"".join(f"<li>{e(_sentence(x))}</li>" for x in facts)}</ul>')
    lines = [
        f'<li><span class="n">Test {line.number}</span> {e(_sentence(line.words))}</li>'
        if isinstance(line, TestLine)
        else f'<li class="retest">{e(_sentence(line.words))}</li>'
        for line in _in_order(a)
    ]
    if lines:
        items.append(f'<ul class="tests">{"".join(lines)}</ul>')
    if a.verdict is not None:
        items.append(_verdict_html(a))
    else:
        items.append(f'<p class="verdict open">Not decided: {e(a.now)}.</p>')
    if a.stakes:
        items.append(f'<ul class="stakes">{"".join(f"<li>{e(_sentence(x.words))}</li>" for x in a.stakes)}</ul>')
    for r in a.rulings:
        said = _ruling(a, r)
        if said:
            items.append(f'<p class="ruling">{e(" ".join(_sentence(x) for x in said))}</p>')
    quoted = [w for rule in _rules_of(a) if (w := audit.rules.get(rule)) is not None]
    if quoted:
        quotes = "".join(f"<blockquote>“{e(w.words)}” <cite>{e(w.source)}</cite></blockquote>" for w in quoted)
        items.append(f'<details class="rules"><summary>The rules, in their own words</summary>{quotes}</details>')
    record = "".join(f"<li>{e(what)}: <code>{e(ident)}</code></li>" for what, ident in _record(a))
    items.append(f'<details class="record"><summary>For the record</summary><ul>{record}</ul></details>')
    return f'<section class="card" id="challenge-{e(a.id)}"><h3>{e(_heading(a))}</h3>{"".join(items)}</section>'


def _put_html(words: str, pool: Pool | None) -> str:
    """A side's words, its pool's make-up set on a line of its own, each part kept whole ("Strength
    3 + Brawl 2 = 5" never broken inside a part): the text is the account's, unchanged."""
    made = pool.describe() if pool is not None else ""
    if not made or made not in words:
        return escape(_sentence(words))
    before, _, after = words.partition(made)
    parts, _, total = made.rpartition(" = ")
    laid = " + ".join(f"<span>{escape(part)}</span>" for part in parts.split(" + "))
    rest = escape(_sentence(after)) if after.strip() else ""
    return f'{escape(before)}<span class="pool">{laid} = <b>{escape(total)}</b></span>{rest}'


def _verdict_html(a: Account) -> str:
    e = escape
    v = a.verdict
    assert v is not None
    parts = [f"<b>{e(_sentence(v.words))}</b>"]
    if v.grade:
        parts.append(f'<span class="grade">{e(v.grade)}</span>')
    if v.ruled:
        first = f" (first given: {v.before})" if v.before else ""
        parts.append(f'<span class="ruled">{e(_sentence(v.ruled[:1].upper() + v.ruled[1:] + first))}</span>')
    if _explains(v):
        parts.append(f'<span class="why">{e(_sentence(v.why))}</span>')
    why = "".join(f"<li>{e(_sentence(_effect_why(x.words, x.why)))}</li>" for x in a.effects if x.why)
    return f'<p class="verdict">{" ".join(parts)}</p>' + (f'<ul class="how">{why}</ul>' if why else "")


def picture(audit: Audit) -> str:
    """An SVG: rounds across (without rounds, challenges in the order declared), characters down; a
    line from challenger to target coloured by the outcome (green: the challenger won, red: the
    defender, grey: a draw, yellow dashes: not resolved); thin lines from a mob's other members; a
    ring marks an outcome a ruling corrected. After a round's challenges, its escapes (diamonds) and
    conditions (squares) on the characters' rows."""
    people = [p.id for p in audit.participants]
    row = {who: i for i, who in enumerate(people)}
    columns: list[tuple[str, list[Account]]] = []
    for n, ch in enumerate(audit.challenges, start=1):
        label = f"round {ch.round}" if ch.round else str(n)
        if ch.round and columns and columns[-1][0] == label:
            columns[-1][1].append(ch)
        else:
            columns.append((label, [ch]))
    for mark in audit.markers:  # a round with escapes or conditions and no challenge still gets its column
        label = f"round {mark.round}" if mark.round else ""
        if label and all(c[0] != label for c in columns):
            columns.append((label, []))
    columns.sort(key=lambda c: int(c[0].split()[1]) if c[0].startswith("round ") else 0)
    marks: dict[str, list[Marker]] = {}
    for mark in audit.markers:
        marks.setdefault(f"round {mark.round}" if mark.round else "", []).append(mark)
    left, top, dy, step, gap = 110, 34, 36, 18, 30
    width = left + sum(step * (len(chs) + len(marks.get(label, []))) + gap for label, chs in columns) + 20
    height = top + dy * max(1, len(people)) + 10
    e = escape
    shapes = [
        f'<svg width="{width}" height="{height}" role="img" '
        f'aria-label="The challenges of the scene, round by round, between the characters">'
    ]
    for who, i in row.items():
        y = top + i * dy
        shapes.append(f'<text x="4" y="{y + 4}">{e(_name(audit, who))}</text>')
        shapes.append(f'<line x1="{left - 10}" y1="{y}" x2="{width - 10}" y2="{y}" stroke="#2c3138"/>')
    x0 = left
    for label, chs in columns:
        shapes.append(f'<text x="{x0 - 4}" y="14" font-size="10">{e(label)}</text>')
        for i, ch in enumerate(chs):
            shapes.append(_challenge_mark(audit, ch, x0 + i * step, row, top, dy))
        x = x0 + step * len(chs)
        for mark in marks.get(label, []):
            shapes.append(_marker(audit, mark, x, top + row.get(mark.who, 0) * dy))
            x += step
        x0 = x + gap
    shapes.append("</svg>")
    return "".join(shapes)


def _marks_html(audit: Audit) -> str:
    """The picture's diamonds and squares in words, for a phone that cannot hover: "Round 2: Rosa:
    escape held"; "" when there are none."""
    if not audit.markers:
        return ""
    items = "".join(
        f"<li>{'Round ' + str(m.round) + ': ' if m.round else ''}{escape(_name(audit, m.who))}: {escape(m.label)}</li>"
        for m in audit.markers
    )
    return f'<ul class="marks" aria-label="The escapes and conditions in the picture">{items}</ul>'


def _marker(audit: Audit, mark: Marker, x: int, y: int) -> str:
    """An escape (a diamond: green escaped, red failed, yellow held) or a condition (a square)."""
    tip = escape(f"{_name(audit, mark.who)}: {mark.label} (event {mark.seq})")
    if mark.kind == "escape":
        colour = {"escaped": "var(--win)", "escape failed": "var(--lose)"}.get(mark.label, "var(--open)")
        shape = f'<polygon points="{x},{y - 7} {x + 7},{y} {x},{y + 7} {x - 7},{y}" fill="{colour}"/>'
    else:
        fill = "none" if mark.label.endswith("cleared") else "#9aa4b1"
        shape = f'<rect x="{x - 5}" y="{y - 5}" width="10" height="10" fill="{fill}" stroke="#9aa4b1"/>'
    return f"<g><title>{tip}</title>{shape}</g>"


def _challenge_mark(audit: Audit, a: Account, x: int, row: dict[str, int], top: int, dy: int) -> str:
    decided = a.verdict is not None and a.verdict.winner in _COLOURS
    colour = _COLOURS[a.verdict.winner] if a.verdict is not None and decided else "var(--open)"
    dash = "" if decided else ' stroke-dasharray="4 3"'
    challenger = next((s.who for s in a.sides if s.role == "challenger"), "")
    targets = [s.who for s in a.sides if s.role == "defender"] or [challenger]
    helpers = [s.who for s in a.sides if s.role == "helper"]
    y1 = top + row.get(challenger, 0) * dy
    tip = f"{a.title}: {a.result or a.now}"
    parts = [f"<g><title>{escape(tip)}</title>"]
    for target in targets:
        y2 = top + row.get(target, 0) * dy
        parts.append(f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}" stroke="{colour}" stroke-width="3"{dash}/>')
        if target != challenger:
            parts.append(f'<circle cx="{x}" cy="{y2}" r="4" fill="{colour}"/>')
        for helper in helpers:
            yh = top + row.get(helper, 0) * dy
            parts.append(f'<line x1="{x}" y1="{yh}" x2="{x}" y2="{y2}" stroke="{colour}" stroke-width="1"/>')
            parts.append(f'<circle cx="{x}" cy="{yh}" r="4" fill="{colour}"/>')
    parts.append(f'<circle cx="{x}" cy="{y1}" r="7" fill="{colour}"/>')
    if a.verdict is not None and a.verdict.ruled:
        parts.append(f'<circle cx="{x}" cy="{y1}" r="11" fill="none" stroke="{colour}" stroke-width="2"/>')
    parts.append("</g>")
    return "".join(parts)


# -- a game night ---------------------------------------------------------------------------------


def carried_words(now: Carried) -> str:
    """What a character carries, in words: "lost tonight: Brawny; Willpower 2; Brawl 0; 1 lethal"."""
    parts = [f"lost tonight: {', '.join(lost.trait for lost in now.lost) or 'nothing'}", f"Willpower {now.willpower}"]
    parts += [f"{ability} {left}" for ability, left in now.abilities.items()]
    wounds = [f"{n} {kind}" for kind in ("bashing", "lethal", "aggravated") if (n := getattr(now.wounds, kind))]
    parts.append(f"damage: {', '.join(wounds) or 'none'}")
    if now.blood_spent:
        parts.append(f"blood spent {now.blood_spent}")
    if now.marks:
        parts.append(f"conditions: {', '.join(m.name.replace('_', ' ') for m in now.marks)}")
    return "; ".join(parts)


def entry_words(entry: Entry) -> str:
    """An entry's change and where it came from: "Sam gets Brawny back (a correction from ruling
    #14 in Elysium)"."""
    if entry.by == "correction" and entry.ruling:
        return f"{entry.what} (carried from ruling #{entry.ruling.seq} in {entry.ruling.title})"
    if entry.by == "ruling" and entry.ruling:
        return f"{entry.what} (by ruling #{entry.ruling.seq})"
    if entry.by == "storyteller":
        return f"{entry.what} (the Storyteller's adjustment)"
    return entry.what


def _where(audit: NightAudit, ledger: Ledger) -> str:
    scene = audit.where.get(ledger.character)
    titles = {s.scene: s.title for s in audit.scenes}
    return f"in {titles.get(scene, scene)} now" if scene else "between scenes"


def _stream_md(c: StreamChain) -> str:
    what = "Game night" if c.kind == "night" else "Scene"
    if c.chain.ok:
        text = f"hash chain intact: {c.chain.events} events, head `{c.chain.head}`"
    else:
        text = f"**hash chain broken** at {c.chain.problem}; stored head `{c.chain.head}`"
    return f"- {what} {md(c.title)} (`{c.stream}`): {text}."


def night_markdown(audit: NightAudit) -> str:
    out = [f"# Night audit: {md(audit.title or audit.night)}", ""]
    out += [
        f"Game night `{audit.night}`, {md(audit.ruleset_title)} rules, {audit.status}; "
        f"{len(audit.scenes)} scene{'s' if len(audit.scenes) != 1 else ''}.",
        "",
        "## Verification",
        "",
        *(_stream_md(c) for c in audit.chains),
        "",
        "Every stream is intact." if audit.ok else "**A stream of this night is broken.**",
        "",
        "## Scenes",
        "",
    ]
    for n, scene in enumerate(audit.scenes, start=1):
        closed = f", closed {_time(scene.closed)}" if scene.closed else ""
        out += [f"### {n}. {md(scene.title)} (`{scene.scene}`), {scene.status}", ""]
        out.append(f"Opened {_time(scene.opened)}{closed}; {scene.events} events.")
        out.append("")
        out.append(f"- Characters of the night: {md(', '.join(scene.characters) or 'none')}")
        if scene.others:
            out.append(f"- Also in the scene: {md(', '.join(scene.others))}")
        out += [f"- {md(line)}" for line in scene.challenges]
        out += [f"- {md(line)}" for line in scene.rulings]
        out.append("")
    out += ["## Ledgers", ""]
    for ledger in audit.ledgers:
        out += [f"### {md(ledger.name)}, {md(_where(audit, ledger))}", "", f"Now: {md(carried_words(ledger.now))}.", ""]
        if not ledger.entries:
            out += ["Nothing lost or gained tonight.", ""]
        for entry in ledger.entries:
            why = f" {md(entry.why)}" if entry.why else ""
            out.append(f"- {md(entry.title)} #{entry.seq}: **{md(entry_words(entry))}**.{why}")
            words = audit.rules.get(entry.rule)
            if words is not None:
                out += _words_md(words)
            elif entry.rule:
                out.append(f"  > *{md(entry.rule)}, {md(entry.book)}*")
        out.append("")
    return "\n".join(out)


def _time(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%SZ") if at else "—"


def night_html(audit: NightAudit) -> str:
    e = escape
    heading = e(audit.title or audit.night)
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Night audit: {heading}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>Night audit: {heading}</h1>",
        f'<p class="muted">Game night <code>{e(audit.night)}</code> · {e(audit.ruleset_title)} rules'
        f" · {e(audit.status)} · {len(audit.scenes)} scenes</p>",
        "<h2>Verification</h2><section class=card><ul>",
    ]
    for c in audit.chains:
        what = "Game night" if c.kind == "night" else "Scene"
        if c.chain.ok:
            text = (
                f'<span class="ok">hash chain intact</span>: {c.chain.events} events, head <code>{c.chain.head}</code>'
            )
        else:
            text = (
                f'<span class="bad">hash chain broken</span> at {e(c.chain.problem or "")}; '
                f"stored head <code>{c.chain.head}</code>"
            )
        parts.append(f"<li>{what} {e(c.title)} (<code>{e(c.stream)}</code>): {text}</li>")
    verdict = "Every stream is intact." if audit.ok else "A stream of this night is broken."
    parts.append(f'</ul><p class="{"ok" if audit.ok else "bad"}">{verdict}</p></section>')
    parts.append("<h2>Scenes</h2>")
    for n, scene in enumerate(audit.scenes, start=1):
        closed = f", closed {_time(scene.closed)}" if scene.closed else ""
        items = [f"<li>Characters of the night: {e(', '.join(scene.characters) or 'none')}</li>"]
        if scene.others:
            items.append(f"<li>Also in the scene: {e(', '.join(scene.others))}</li>")
        items += [f"<li>{e(line)}</li>" for line in (*scene.challenges, *scene.rulings)]
        parts.append(
            f'<section class="card" id="scene-{e(scene.scene)}"><h3>{n}. {e(scene.title)} · {e(scene.status)}</h3>'
            f'<p class="muted small">Opened {_time(scene.opened)}{closed}'
            f" · {scene.events} events</p><ul>{''.join(items)}</ul>"
            f'<details class="record"><summary>For the record</summary>Scene <code>{e(scene.scene)}</code></details>'
            "</section>"
        )
    parts.append("<h2>Ledgers</h2>")
    for ledger in audit.ledgers:
        rows = []
        for entry in ledger.entries:
            why = f" {e(entry.why)}" if entry.why else ""
            words = audit.rules.get(entry.rule)
            quote = (
                _words_html(words)
                if words
                else (f"<blockquote>{e(entry.rule)}, {e(entry.book)}</blockquote>" if entry.rule else "")
            )
            mark = "bad" if entry.loss else "ok"
            rows.append(
                f'<li><span class="muted">{e(entry.title)} #{entry.seq}</span> '
                f'<b class="{mark}">{e(entry_words(entry))}</b>.{why}{quote}</li>'
            )
        body = f"<ul>{''.join(rows)}</ul>" if rows else '<p class="muted">Nothing lost or gained tonight.</p>'
        parts.append(
            f'<section class="card" id="ledger-{e(ledger.character)}"><h3>{e(ledger.name)}</h3>'
            f'<p class="muted small">{e(_where(audit, ledger))} · now: {e(carried_words(ledger.now))}</p>'
            f"{body}</section>"
        )
    parts.append("</main></body></html>")
    return "\n".join(parts)
