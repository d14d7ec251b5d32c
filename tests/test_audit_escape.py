"""Player text in the Markdown audit and on the terminal (adversarial review, findings 5 and 6):
victory conditions, dispute reasons, names and titles are literal text. No heading, list, emphasis,
link or raw HTML of their own; control characters shown as codes, never written as they are. And
the protocol refuses control characters in names and titles (and bidi overrides), and in victory
conditions and reasons (which may keep bidi marks), in words a player understands."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from clients.cli import main
from domain.commands import COMMANDS
from domain.events import CharacterRegistered
from domain.log import to_wire
from domain.sheets import Sheet, sheet_problems
from projections.audit import audit
from projections.audit_render import html, markdown, md, visible
from server.backend import open_backend
from server.connection import _plainly
from server.service import SceneService
from server.sheet_words import in_words
from tests.table import Table

INJECTED = "x ### Storyteller ruling: Juan wins - **Ruling #99** upheld <img src=x onerror=alert(1)> [win](http://evil)"
CONTROLS = "\x1b[2J\x1b]0;pwned\x07\r\n\n### Storyteller ruling: Juan wins\n- **Ruling #99** upheld\x85\u202e"


def lines_of(text: str) -> list[str]:
    return text.split("\n")


def test_player_text_in_the_markdown_audit_is_literal() -> None:
    """A victory condition and a dispute reason full of markup come out escaped: no line of the
    audit is a heading or list item the players wrote, no raw HTML, no emphasis or link."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.add("juan", {"Wiry": 2})
    t.contest("c1", "sam", "juan", "Brawny", "Wiry", victory=INJECTED)
    t.test("c1", "rock", "scissors")
    resolved = next(r.seq for r in t.log if r.type == "test_resolved")
    t.do("juan", "dispute", event=resolved, reason=INJECTED)
    out = markdown(audit([to_wire(r) for r in t.log]))
    assert not re.search(r"(?<!\\)<img", out) and "\\<img src=x onerror=alert(1)\\>" in out
    assert "**Ruling #99**" not in out and "\\*\\*Ruling #99\\*\\* upheld" in out
    assert "[win](http://evil)" not in out and "\\[win\\](http://evil)" in out
    victory = next(line for line in lines_of(out) if line.startswith("- Sam bids Brawny. Victory:"))
    assert "Storyteller ruling" in victory  # on Sam's own line, not a heading of its own
    assert not any(line.startswith("### Storyteller ruling") for line in lines_of(out))
    disputed = next(line for line in lines_of(out) if "disputes" in line)
    assert disputed.startswith("- #") and "Ruling #99" in disputed


def test_player_text_in_the_html_audit_is_escaped() -> None:
    """The same victory condition and reason in the HTML audit: text, never markup."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.add("juan", {"Wiry": 2})
    t.contest("c1", "sam", "juan", "Brawny", "Wiry", victory=INJECTED)
    t.test("c1", "rock", "scissors")
    resolved = next(r.seq for r in t.log if r.type == "test_resolved")
    t.do("juan", "dispute", event=resolved, reason=INJECTED)
    page = html(audit([to_wire(r) for r in t.log]))
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "Victory: “x ### Storyteller ruling: Juan wins - **Ruling #99** upheld &lt;img" in page


def test_control_characters_are_shown_not_written() -> None:
    """ESC, BEL, CR, LF, C1 and a right-to-left override in a title, a name and a victory condition:
    each shown as its code; the text stays on its line."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.add("juan", {"Wiry": 2})
    t.contest("c1", "sam", "juan", "Brawny", "Wiry", victory="win")
    report = audit([to_wire(r) for r in t.log])
    sam = report.participants[0]
    report = msgspec.structs.replace(
        report,
        title=CONTROLS,
        challenges=[
            msgspec.structs.replace(
                report.challenges[0],
                sides=[msgspec.structs.replace(report.challenges[0].sides[0], victory=CONTROLS)],
            )
        ],
        participants=[msgspec.structs.replace(sam, name=f"Sam{CONTROLS}"), *report.participants[1:]],
    )
    out = markdown(report)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out)
    assert "⟨U+001B⟩\\[2J⟨U+001B⟩\\]0;pwned⟨U+0007⟩⟨U+000D⟩⟨U+000A⟩⟨U+000A⟩### Storyteller" in out
    assert "⟨U+0085⟩⟨U+202E⟩" in out
    assert not any(line.startswith(("### Storyteller", "- \\*\\*Ruling", "- **Ruling")) for line in lines_of(out))
    assert "- Sam⟨U+001B⟩\\[2J" not in out  # the name is the participant's, the sides' words the account's
    assert lines_of(out)[0].startswith("# Audit: ⟨U+001B⟩")


def test_md_and_visible() -> None:
    assert visible("a\u202eb\x1bc\u2066") == "a⟨U+202E⟩b⟨U+001B⟩c⟨U+2066⟩"
    assert md("a_b *c* `d` <e> ~f~ \\") == "a\\_b \\*c\\* \\`d\\` \\<e\\> \\~f\\~ \\\\"
    assert md("Sam challenges Juan (Physical) — #12") == "Sam challenges Juan (Physical) — #12"  # plain words stay


BAD_NAMES = ["Esc\x1b[2J", "Bell\x07", "Two\nlines", "Trailing\n", "Tab\there", "C1\x85", "\u202eRosa", "Iso\u2066late"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_names_and_titles_refuse_control_and_bidi_characters(name: str) -> None:
    """A sheet's name, a scene's or a night's title: refused at the protocol boundary, in words."""
    problems = sheet_problems({"id": "rosa", "name": name})
    assert set(problems) == {"name"}
    said = in_words(problems, {"id": "rosa", "name": name})["name"]
    assert said == "Name cannot hold control characters (line breaks, tabs, escape codes) or text-direction overrides."
    sheet = {"id": "rosa", "name": name, "traits": {"physical": {"Nimble": 1}}}
    for verb in ("add_character", "register_character"):
        with pytest.raises(msgspec.ValidationError) as refused:
            msgspec.convert({"type": verb, "id": "a", "scene": "s", "actor": "st", "character": sheet}, COMMANDS[verb])
        assert _plainly(refused.value) == (
            "The character's name cannot hold control characters (line breaks, tabs, escape codes) "
            "or text-direction overrides."
        )
    for verb in ("open_scene", "open_game"):
        body = {"type": verb, "id": "a", "scene": "s", "actor": "st", "ruleset": "lotn", "title": name}
        with pytest.raises(msgspec.ValidationError) as refused:
            msgspec.convert(body, COMMANDS[verb])
        assert _plainly(refused.value) == (
            "The title cannot hold control characters (line breaks, tabs, escape codes) or text-direction overrides."
        )


def test_names_keep_every_other_character() -> None:
    for name in ("Rosa", "Ana María", "جوان", "Zoë-Chloé O'Neil", "玉", "Sam \u200f(RLM)"):
        assert sheet_problems({"id": "x", "name": name}) == {}


def test_victory_conditions_and_reasons_refuse_controls_but_keep_bidi_marks() -> None:
    declare = {"type": "declare", "id": "d", "scene": "s", "actor": "sam", "challenge": "c1", "targets": ["juan"]}
    declare |= {"kind": "contested", "category": "physical", "bid": ["Brawny"]}
    assert msgspec.convert({**declare, "victory": "he yields \u202bשלום\u202c \u200f"}, COMMANDS["declare"])
    with pytest.raises(msgspec.ValidationError) as refused:
        msgspec.convert({**declare, "victory": "x\n\n### ruling"}, COMMANDS["declare"])
    assert _plainly(refused.value) == "The victory cannot hold control characters (line breaks, tabs, escape codes)."
    dispute = {"type": "dispute", "id": "d", "scene": "s", "actor": "sam", "event": 3}
    with pytest.raises(msgspec.ValidationError) as refused:
        msgspec.convert({**dispute, "reason": "late\x1b[2J"}, COMMANDS["dispute"])
    assert _plainly(refused.value) == "The reason cannot hold control characters (line breaks, tabs, escape codes)."


def test_game_show_never_prints_a_control_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name stored before names refused them (here: a sheet built without the protocol's check)
    is printed with its control characters shown as codes."""
    db = tmp_path / "n.db"
    backend = open_backend(str(db))
    service = SceneService(backend.store)
    opened = msgspec.convert(
        {"type": "open_game", "id": "g", "scene": "fri", "actor": "st", "ruleset": "lotn", "title": "Friday"},
        COMMANDS["open_game"],
    )
    assert service.handle(opened).error is None
    # a name stored before names refused control characters (no command takes it now): still read
    sheet = msgspec.convert({"id": "esc", "name": "Esc", "traits": {"physical": {"Brawny": 1}}}, Sheet)
    old = CharacterRegistered(character=msgspec.structs.replace(sheet, name="Esc\x1b[2J\x1b]0;pwned\x07"))
    version = backend.store.head("fri")[0]
    backend.store.append("fri", version, [old], command="old", digest="old", actor="st", at=datetime.now(UTC))
    backend.close()
    capsys.readouterr()
    assert main(["game", "show", "--db", str(db), "fri"]) == 0
    out = capsys.readouterr().out
    assert "Esc⟨U+001B⟩[2J⟨U+001B⟩]0;pwned⟨U+0007⟩" in out
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", out)
