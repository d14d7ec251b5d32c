"""Replay, verify, export/import, fork and the audit, as a user runs them on a database."""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest

from clients.cli import main
from domain.evolve import fold
from domain.rules import RULES
from projections.account import account
from server.store import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "d.db"
    assert main(["play", str(DEMO), "--db", str(path)]) == 0
    capsys.readouterr()
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def tamper(db: Path, sql: str) -> None:
    """Change the database outside the project's code: the sqlite3 shell when there is one."""
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", str(db), sql], check=True)
    else:
        with sqlite3.connect(db) as conn:
            conn.execute(sql)


class TestReplay:
    def test_a_range_as_a_player_saw_it(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--from/--to limit the steps; --as shows what that player saw: not another's sealed sign."""
        code, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--from", "38", "--to", "41", "--as", "endora")
        assert code == 0
        assert [line.split()[0] for line in out.splitlines() if line.startswith("#")] == ["#38", "#39", "#40", "#41"]
        assert "Daron throws (sealed until both are in)." in out
        assert "sealed.daron" not in out
        assert "Daron scissors, Michael rock" in out  # the reveal is public
        code, st_out, _ = run(capsys, "replay", "--db", str(db), "demo", "--from", "38", "--to", "38")
        assert "Daron throws scissors" in st_out and "the challenge then:" in st_out

    def test_each_step_of_a_challenge_tells_it_as_it_stood(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A challenge's step carries the challenge as it stood after it, in the account's words
        (the bids, the Trait risked on the overbid, the tests, the retests, the verdict), never a
        diff of its fields ("the challenge › outcome › rule"); the characters' changes stay."""
        code, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--json")
        steps = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and not [c for s in steps for c in s["changes"] if c["path"].startswith("challenges.")]
        overbid = next(s for s in steps if s["type"] == "retest_invoked" and s["challenge"] == "flattery")
        (favian,) = [put for put in overbid["account"]["sides"] if put["who"] == "favian"]
        assert favian["bid"] == ["Beguiling"] and favian["risked"] == ["Seductive"]
        state = fold(SqliteStore(db).read("demo", upto=overbid["seq"]))
        assert overbid["account"] == json.loads(
            json.dumps(msgspec.to_builtins(account(state, state.challenges["flattery"], staked=False)))
        )
        assert all(s["account"]["id"] == s["challenge"] for s in steps if s.get("challenge"))
        _, text, _ = run(capsys, "replay", "--db", str(db), "demo")
        block = text.split(f"#{overbid['seq']} ", 1)[1].split("\n\n", 1)[0]
        assert "    Favian bids Beguiling; on the overbid, Favian risks Seductive" in block
        assert "    After test 1, Favian retests with an overbid, risking Seductive: not yet answered" in block
        assert "› outcome › rule" not in text and "outcome.rule" not in text and "challenges." not in text
        last = max(s["seq"] for s in steps if s.get("challenge") == "flattery")  # Endora's loss, after the result
        assert "    Favian won: Endora loses Dignified" in text.split(f"#{last} ", 1)[1].split("\n\n", 1)[0]
        assert 'characters.juan.traits_lost: – → ["Brutal"]' in text  # a character's change, as it was

    def test_a_player_s_replay_keeps_the_other_pool_until_the_test(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """bns: replayed as Vincent, the hunter's pool is kept secret in the challenge's account
        until the first test shows it; as the Storyteller, it is there from the declaration."""
        db = str(tmp_path / "b.db")
        run(capsys, "play", str(ROOT / "examples" / "bns-duel.jsonl"), "--db", db)
        for viewer, shown in (("vincent", False), ("st", True)):
            _, out, _ = run(capsys, "replay", "--db", db, "church", "--to", "7", "--json", "--as", viewer)
            steps = [json.loads(line) for line in out.splitlines()]
            declared = next(s for s in steps if s["type"] == "challenge_declared")
            (hunter,) = [put for put in declared["account"]["sides"] if put["who"] == "hunter"]
            assert ("pool" in hunter) == shown, viewer
            revealed = next(s for s in steps if s["type"] == "test_revealed")
            assert all("pool" in put for put in revealed["account"]["sides"])

    def test_a_player_does_not_see_another_sheet(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Replayed as Sam, Juan joins without his Traits; as the ST, with them."""
        _, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--to", "3", "--as", "sam")
        assert "Juan (NPC) joins the scene." in out and "Sam joins the scene with 9 Physical" in out
        _, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--to", "3", "--as", "spectator")
        assert "Sam joins the scene." in out
        code, _, err = run(capsys, "replay", "--db", str(db), "demo", "--as", "nobody")
        assert code == 2 and "--as st, spectator, or a character" in err

    def test_step_by_step(self, db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        """--step pauses: Enter goes on, b goes back, q quits."""
        monkeypatch.setattr("sys.stdin", io.StringIO("\nb\n\n\nq\n"))
        code, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--step")
        shown = re.findall(r"#(\d+) 2026-", out)
        assert code == 0 and shown == ["1", "2", "1", "2", "3"]


class TestVerify:
    def test_one_changed_byte_is_named(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A byte changed with the sqlite3 shell: verify names that event and exits 1."""
        tamper(db, "UPDATE events SET data = replace(data, 'Brutal', 'Brutak') WHERE seq = 9")
        code, out, _ = run(capsys, "verify", "--db", str(db))
        assert code == 1 and out.strip() == "demo: event 9 (bid_placed): its hash does not match its contents"

    def test_expect_the_head_noted_at_the_end_of_the_night(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """verify --expect HASH passes while nothing changed, and fails once anything is appended."""
        _, out, _ = run(capsys, "verify", "--db", str(db), "demo")
        head = out.split()[-1]
        code, out, _ = run(capsys, "verify", "--db", str(db), "demo", "--expect", head)
        assert code == 0 and "as expected" in out
        script = db.parent / "more.jsonl"
        script.write_text('{"id": "late", "scene": "demo", "actor": "st", "type": "close_scene"}\n')
        run(capsys, "play", str(script), "--db", str(db))
        code, out, _ = run(capsys, "verify", "--db", str(db), "demo", "--expect", head)
        assert code == 1 and "the log changed since" in out


class TestExportImport:
    def test_round_trip_keeps_every_hash(self, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """An export imported elsewhere has the same events, times and hashes, and verifies."""
        export = tmp_path / "demo.jsonl"
        assert run(capsys, "export", "--db", str(db), "demo", "-o", str(export))[0] == 0
        other = tmp_path / "other.db"
        code, out, _ = run(capsys, "import", "--db", str(other), str(export))
        assert code == 0 and "imported scene 'demo': 61 events" in out
        original, copy = list(SqliteStore(db).read_wire("demo")), list(SqliteStore(other).read_wire("demo"))
        assert [(w.seq, w.at, w.hash, bytes(w.data)) for w in copy] == [
            (w.seq, w.at, w.hash, bytes(w.data)) for w in original
        ]
        assert run(capsys, "verify", "--db", str(other))[0] == 0
        assert fold(SqliteStore(other).read("demo")) == fold(SqliteStore(db).read("demo"))
        code, _, err = run(capsys, "import", "--db", str(other), str(export))
        assert code == 1 and "already has events" in err

    @pytest.mark.parametrize(
        ("edit", "named"),
        [
            (lambda lines: lines[:20] + lines[21:], "event 22 (bid_placed): expected event 21 here, found 22"),
            (lambda lines: [*lines[:7], lines[7].replace("Ferocious", "Feroci0us"), *lines[8:]], "event 8"),
            (lambda lines: [*lines[:5], "{not json", *lines[6:]], "line 6 is not an event record"),
        ],
    )
    def test_a_tampered_export_is_refused_whole(
        self, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, named: str
    ) -> None:
        """A gap, a changed byte or a broken line: refused, naming the first bad event; nothing written."""
        _, out, _ = run(capsys, "export", "--db", str(db), "demo")
        lines = out.splitlines()
        tampered = tmp_path / "tampered.jsonl"
        tampered.write_text("\n".join(edit(lines)) + "\n")  # type: ignore[operator]
        other = tmp_path / "other.db"
        code, _, err = run(capsys, "import", "--db", str(other), str(tampered))
        assert code == 1 and "refused, nothing written" in err and named in err
        assert SqliteStore(other).head("demo")[0] == 0 and SqliteStore(other).scenes() == []


class TestFork:
    def test_a_what_if_copies_the_prefix_and_leaves_the_original(
        self, db: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """fork --at 20: events 1..20 copied, then a scene_forked naming the origin and its hash;
        the original's head is unchanged; the fork plays on by itself."""
        _, out, _ = run(capsys, "verify", "--db", str(db), "demo")
        head = out.split()[-1]
        code, out, _ = run(capsys, "fork", "--db", str(db), "demo", "--at", "20", "--as", "whatif")
        assert code == 0 and "events 1-20 of 'demo'" in out
        store = SqliteStore(db)
        original, fork = list(store.read_wire("demo")), list(store.read_wire("whatif"))
        assert [(w.type, w.at, w.actor, w.command, bytes(w.data)) for w in fork[:20]] == [
            (w.type, w.at, w.actor, w.command, bytes(w.data)) for w in original[:20]
        ]
        last = json.loads(bytes(fork[20].data))
        assert fork[20].type == "scene_forked" and last == {"hash": original[19].hash, "scene": "demo", "seq": 20}
        assert run(capsys, "verify", "--db", str(db), "demo", "--expect", head)[0] == 0
        script = db.parent / "whatif.jsonl"
        script.write_text(
            '{"id": "w1", "scene": "whatif", "actor": "st", "type": "remove_character", "character": "sam"}\n'
        )
        assert run(capsys, "play", str(script), "--db", str(db))[0] == 0
        assert fold(store.read("whatif")).forked_from is not None
        assert fold(store.read("demo")).characters["sam"].present
        assert run(capsys, "fork", "--db", str(db), "demo", "--at", "99")[0] == 1


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs += attrs
        if tag not in ("meta", "br", "img", "input", "link"):
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs += attrs  # <line …/>: opened and closed at once

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()


class TestAudit:
    def test_the_audit_holds_every_test_and_the_rules_words(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Markdown: every challenge, every test with its explanation and the rule's words, the
        participants' sheets, the chain check and head hash."""
        code, out, _ = run(capsys, "audit", "--db", str(db), "demo", "--format", "md")
        assert code == 0
        state = fold(SqliteStore(db).read("demo"))
        for ch in state.challenges.values():
            assert f"challenge id `{ch.id}`" in out  # a small reference under the heading, which names people
            for test in ch.tests:
                assert test.why in out
                assert RULES[test.rule].words in out
        assert "Test 1: Sam rock, Juan rock" in out  # the challenger named first
        assert "### Sam challenges Juan (Physical) — Sam won" in out
        assert "Favian bids Beguiling (lost on the overbid); on the overbid, Favian risks Seductive." in out
        assert (
            "After test 1, Favian retests with an overbid, risking Seductive: it stands, and the test is thrown" in out
        )
        assert "After test 1, Michael retests with Brawl (ability): Daron cancels it with Dodge (ability)." in out
        assert "(stood)" not in out
        assert "**Sam**, joined at #2: physical 9" in out
        _, verified, _ = run(capsys, "verify", "--db", str(db), "demo")
        assert f"head `{verified.split()[-1]}`" in out

    def test_the_html_is_one_self_contained_page(
        self, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """HTML: balanced tags, no external reference, the picture of the fight, readable on a phone."""
        page = tmp_path / "audit.html"
        assert run(capsys, "audit", "--db", str(db), "demo", "--format", "html", "-o", str(page))[0] == 0
        text = page.read_text()
        for reference in ("http:", "https:", "//", "<link", "@import", "url(", "<script"):
            assert reference not in text, reference
        tags = _Tags()
        tags.feed(text)
        assert tags.open == []
        assert not any(name in ("src", "href") for name, _ in tags.attrs)
        assert '<meta name="viewport"' in text and "<svg" in text and text.count("<g><title>") == 4
        assert "Hash chain intact: 61 events" in text

    def test_json_and_a_broken_chain(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """JSON is the same audit as data; a broken chain is reported, exit 1."""
        code, out, _ = run(capsys, "audit", "--db", str(db), "demo", "--format", "json")
        data = json.loads(out)
        assert code == 0 and data["chain"]["ok"] and len(data["challenges"]) == 4
        tamper(db, "UPDATE events SET actor = 'sam' WHERE seq = 30")
        code, out, _ = run(capsys, "audit", "--db", str(db), "demo", "--format", "md")
        assert code == 1 and "**Hash chain broken** at event 30" in out


def test_rulings_show_in_the_replay_and_the_audit(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A dispute and an overturn, replayed: the original step and the ruling point at each other;
    the audit shows the correction, its reason and the first outcome."""
    resolved = next(r.seq for r in SqliteStore(db).read("demo") if r.type == "challenge_resolved")
    script = db.parent / "ruling.jsonl"
    script.write_text(
        f'{{"id": "r1", "scene": "demo", "actor": "juan", "type": "dispute", "event": {resolved}, "reason": "late"}}\n'
        f'{{"id": "r2", "scene": "demo", "actor": "st", "type": "rule", "event": {resolved}, '
        '"decision": "overturn", "reason": "Sam threw late"}\n'
    )
    code, out, _ = run(capsys, "play", str(script), "--db", str(db))
    assert code == 0 and all(json.loads(line).get("ok", True) for line in out.splitlines())
    _, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--from", str(resolved), "--to", str(resolved))
    assert "see also: #62, #63" in out
    _, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--from", "63", "--to", "63")
    assert "The Storyteller overturns the result of " in out and f"(step {resolved}): Sam threw late." in out
    assert f"see also: #{resolved}" in out
    _, out, _ = run(capsys, "replay", "--db", str(db), "demo", "--from", "66", "--to", "66")  # the outcome corrected
    assert "    Juan won (overturned by the Storyteller: Sam threw late. First given: Sam won)" in out
    _, out, _ = run(capsys, "audit", "--db", str(db), "demo")
    assert (
        "**Juan won: Sam loses Ferocious.** Overturned by the Storyteller: Sam threw late (first given: Sam won)."
        in out
    )
    assert "ruling (overturn) `#63`" in out  # for the record
    assert "Juan wins instead of Sam" in out


def test_the_audit_keeps_the_storytellers_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sheets in the audit are as added, less the ST's notes."""
    script = tmp_path / "notes.jsonl"
    script.write_text(
        '{"id": "1", "scene": "n", "actor": "st", "type": "open_scene", "ruleset": "lotn"}\n'
        '{"id": "2", "scene": "n", "actor": "st", "type": "add_character", "character": {"id": "g", "name": "Guard", '
        '"npc": true, "traits": {"physical": {"Tough": 2}}, "notes": "takes bribes"}}\n'
    )
    db = tmp_path / "n.db"
    assert run(capsys, "play", str(script), "--db", str(db))[0] == 0
    for fmt in ("json", "md", "html"):
        _, out, _ = run(capsys, "audit", "--db", str(db), "n", "--format", fmt)
        assert "takes bribes" not in out and "Guard" in out
