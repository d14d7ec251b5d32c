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
from projections.audit import (
    Audit,
    ChallengeAudit,
    Marker,
    NightAudit,
    OutcomeAudit,
    Participant,
    RetestAudit,
    StreamChain,
    TestAudit,
    Words,
)
from projections.ledger import Entry, Ledger
from projections.narrate import source_label


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


def _heading(ch: ChallengeAudit) -> str:
    """A challenge's heading: its people and what it was, then how it ended ("Sam challenges Juan
    (Physical) — Juan won"); the id is left to a small line under it."""
    return f"{ch.title} — {ch.result}"


def _step(audit: Audit, seq: int) -> str:
    """A disputed or ruled step in words where the audit knows what it was."""
    return audit.steps.get(seq, f"step {seq}")


def _retest(audit: Audit, r: RetestAudit) -> str:
    return f"{_name(audit, r.by)} retests with {source_label(r.source)}: {r.words}."


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
    out += [f"Scene `{audit.scene}`, {rules} rules, {audit.status}, {audit.chain.events} events.", ""]
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
            else "no Traits"
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
    return "\n".join(out)


def _joined(p: Participant, event: str = "") -> str:
    """When a participant came in, and with what from its game night."""
    if p.carried is None:
        return f"joined at {event}#{p.joined}"
    return f"came in from the game night at {event}#{p.joined} ({carried_words(p.carried)})"


def _chain_text(audit: Audit) -> str:
    if audit.chain.ok:
        return f"Hash chain intact: {audit.chain.events} events, head `{audit.chain.head}`."
    return f"**Hash chain broken** at {audit.chain.problem}. Stored head `{audit.chain.head}`."


def _words_md(words: Words | None) -> list[str]:
    return [f"  > {md(words.words)} — *{md(words.rule)}, {md(words.source)}*"] if words else []


def _challenge_md(audit: Audit, ch: ChallengeAudit) -> list[str]:
    out = [f"### {md(_heading(ch))}", "", f"*Declared at step #{ch.seq}; challenge id `{ch.id}`.*", ""]
    if ch.victory:
        out.append(f"- Victory: “{md(ch.victory)}”")
    for who, bid in ch.bids.items():
        out.append(f"- {md(_name(audit, who))} bids {md(', '.join(bid) or 'nothing')}")
    for call in ch.calls:
        verdict = "right" if call.correct else "wrong"
        said = f"{md(_name(audit, call.by))} calls {md(call.trait)} on {md(_name(audit, call.against))}"
        out.append(f"- {said}: {verdict}")
    for test in ch.tests:
        out.append(f"- Test {test.number}: {md(_signs(audit, ch, test))} — {md(test.why)}")
        out += _words_md(test.rule)
    out += [f"- {md(_retest(audit, r))}" for r in ch.retests]
    if ch.original_outcome:
        out.append(
            f"- First outcome: {md(ch.original_outcome.why)} "
            f"(corrected by ruling {', '.join(f'#{n}' for n in ch.rulings)})"
        )
    if ch.outcome:
        out.append(f"- **Outcome**: {md(ch.outcome.why)}")
        out += _words_md(ch.outcome.rule)
    out += [f"- {md(line)}" for line in ch.consequences]
    out.append("")
    return out


def _signs(audit: Audit, ch: ChallengeAudit, test: TestAudit) -> str:
    order = [ch.challenger, *ch.targets, *test.signs]  # the challenger first, as at the table
    return ", ".join(f"{_name(audit, who)} {test.signs[who]}" for who in dict.fromkeys(order) if who in test.signs)


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
        f'<p class="muted">Scene <code>{e(audit.scene)}</code> · {e(audit.ruleset_title or audit.ruleset)} rules'
        f" · {e(audit.status)}"
        f" · {audit.chain.events} events</p>",
        f'<p class="{"ok" if audit.chain.ok else "bad"}">{_chain_html(audit)}</p>',
        "<h2>The fight</h2>",
        f'<div class="picture">{picture(audit)}</div>',
        '<p class="muted">Rounds across (without rounds, challenges in the order declared), characters down. '
        "A big dot is the challenger (a mob's champion), the line runs to the target; thin lines join the "
        "rest of a mob. Green: the challenger won; red: the defender; grey: a draw; yellow dashes: not "
        "resolved; a ring: corrected by a ruling. After a round's challenges, a diamond is a fair escape (yellow: "
        "held, red: failed, green: escaped) and a square a condition (hollow: cleared); hover for which.</p>",
        "<h2>Participants</h2>",
    ]
    for p in audit.participants:
        traits = p.sheet.traits
        rows = "".join(
            f"<li>{cat.capitalize()} {sum(traits.of(cat).values())}: {e(_trait_list(traits.of(cat)))}</li>"
            for cat in ("physical", "social", "mental")
            if traits and traits.of(cat)
        )
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


def _trait_list(traits: dict[str, int]) -> str:
    return ", ".join(f"{t} ×{n}" if n > 1 else t for t, n in traits.items())


def _chain_html(audit: Audit) -> str:
    if audit.chain.ok:
        return f"Hash chain intact: {audit.chain.events} events, head <code>{audit.chain.head}</code>"
    return f"Hash chain broken at {escape(audit.chain.problem or '')}; stored head <code>{audit.chain.head}</code>"


def _words_html(words: Words | None) -> str:
    if words is None:
        return ""
    return f"<blockquote>“{escape(words.words)}” — {escape(words.rule)}, {escape(words.source)}</blockquote>"


def _outcome_html(label: str, outcome: OutcomeAudit | None) -> str:
    if outcome is None:
        return ""
    return f"<p><b>{label}</b>: {escape(outcome.why)}</p>{_words_html(outcome.rule)}"


def _challenge_html(audit: Audit, ch: ChallengeAudit) -> str:
    e = escape
    items = [f"<li>Victory: “{e(ch.victory)}”</li>"] if ch.victory else []
    items += [f"<li>{e(_name(audit, who))} bids {e(', '.join(bid) or 'nothing')}</li>" for who, bid in ch.bids.items()]
    items += [
        f"<li>{e(_name(audit, c.by))} calls {e(c.trait)} on {e(_name(audit, c.against))}: "
        f"{'right' if c.correct else 'wrong'}</li>"
        for c in ch.calls
    ]
    for test in ch.tests:
        items.append(
            f"<li>Test {test.number}: {e(_signs(audit, ch, test))} — {e(test.why)}{_words_html(test.rule)}</li>"
        )
    items += [f"<li>{e(_retest(audit, r))}</li>" for r in ch.retests]
    corrected = ""
    if ch.original_outcome:
        rulings = ", ".join(f"#{n}" for n in ch.rulings)
        corrected = _outcome_html(f"First outcome (corrected by ruling {rulings})", ch.original_outcome)
    consequences = "".join(f"<li>{e(line)}</li>" for line in ch.consequences)
    return (
        f'<section class="card" id="challenge-{e(ch.id)}"><h3>{e(_heading(ch))}</h3>'
        f'<p class="muted small">Declared at step #{ch.seq} · challenge id <code>{e(ch.id)}</code></p>'
        f"<ul>{''.join(items)}</ul>"
        f"{corrected}{_outcome_html('Outcome', ch.outcome)}"
        + (f"<ul>{consequences}</ul>" if consequences else "")
        + "</section>"
    )


def picture(audit: Audit) -> str:
    """An SVG: rounds across (without rounds, challenges in the order declared), characters down; a
    line from challenger to target coloured by the outcome (green: the challenger won, red: the
    defender, grey: a draw, yellow dashes: not resolved); thin lines from a mob's other members; a
    ring marks an outcome a ruling corrected. After a round's challenges, its escapes (diamonds) and
    conditions (squares) on the characters' rows."""
    people = [p.id for p in audit.participants]
    row = {who: i for i, who in enumerate(people)}
    columns: list[tuple[str, list[ChallengeAudit]]] = []
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


def _challenge_mark(audit: Audit, ch: ChallengeAudit, x: int, row: dict[str, int], top: int, dy: int) -> str:
    colour = _COLOURS.get(ch.outcome.winner, "var(--open)") if ch.outcome else "var(--open)"
    dash = "" if ch.outcome else ' stroke-dasharray="4 3"'
    y1 = top + row.get(ch.challenger, 0) * dy
    tip = f"{ch.title}: {ch.result}"
    parts = [f"<g><title>{escape(tip)}</title>"]
    for target in ch.targets or [ch.challenger]:
        y2 = top + row.get(target, 0) * dy
        parts.append(f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}" stroke="{colour}" stroke-width="3"{dash}/>')
        if target != ch.challenger:
            parts.append(f'<circle cx="{x}" cy="{y2}" r="4" fill="{colour}"/>')
        for helper in ch.mob:
            yh = top + row.get(helper, 0) * dy
            parts.append(f'<line x1="{x}" y1="{yh}" x2="{x}" y2="{y2}" stroke="{colour}" stroke-width="1"/>')
            parts.append(f'<circle cx="{x}" cy="{yh}" r="4" fill="{colour}"/>')
    parts.append(f'<circle cx="{x}" cy="{y1}" r="7" fill="{colour}"/>')
    if ch.rulings:
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
            f'<p class="muted small">Scene <code>{e(scene.scene)}</code> · opened {_time(scene.opened)}{closed}'
            f" · {scene.events} events</p><ul>{''.join(items)}</ul></section>"
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
