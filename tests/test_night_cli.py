"""``justicar`` and a game night, as a user runs it: examples/night.jsonl played (two scenes, a
Trait lost in the first carried into the second, a ruling in the first after the character left
that restores it in the second), audited as a night, exported and imported whole; and
``justicar game new|move|show|close`` with ``scene new --game``."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest

from clients.cli import main
from server.documents import audit_frame, audit_text, export_frame
from server.store import SqliteStore
from server.tokens import SqliteTokens

ROOT = Path(__file__).resolve().parent.parent
NIGHT = ROOT / "examples" / "night.jsonl"
STREAMS = ("friday", "elysium", "parking")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[dict]]:
    db = tmp_path / "night.db"
    code, out, _ = run(capsys, "play", str(NIGHT), "--db", str(db))
    assert code == 0
    return db, [json.loads(line) for line in out.splitlines()]


def events(db: Path, stream: str) -> list[dict]:
    """A stream's events as stored: seq, type and data."""
    store = SqliteStore(db, readonly=True)
    try:
        return [
            {"seq": w.seq, "type": w.type, "at": w.at, "data": json.loads(bytes(w.data))}
            for w in store.read_wire(stream)
        ]
    finally:
        store.close()


def tamper(db: Path, sql: str) -> None:
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", str(db), sql], check=True)
    else:
        with sqlite3.connect(db) as conn:
            conn.execute(sql)


class TestTheExampleNight:
    def test_the_lost_trait_is_still_lost_in_the_second_scene_until_the_ruling_travels(
        self, played: tuple[Path, list[dict]]
    ) -> None:
        db, lines = played
        results = {r["id"]: r for r in lines if r.get("type") == "result"}
        refused = [(i, r["error"]["code"], r["error"].get("rule")) for i, r in results.items() if not r["ok"]]
        # in the parking lot, before the ruling: Sam has no Brawny to bid
        assert refused == [("n-17", "trait_unavailable", "lotn:trait-loss")]
        assert "Sam has no Brawny left to bid" in results["n-17"]["error"]["message"]
        # the same bid after the ruling in Elysium: accepted
        assert results["n-19"]["ok"] and results["n-19"]["events"][0]["data"]["bid"] == ["Brawny"]

        elysium, parking, night = events(db, "elysium"), events(db, "parking"), events(db, "friday")
        lost = next(e for e in elysium if e["type"] == "trait_lost")
        assert (lost["data"]["character"], lost["data"]["trait"]) == ("sam", "Brawny")
        left = next(e for e in elysium if e["type"] == "character_left")
        assert left["seq"] > lost["seq"] and left["data"]["carried"]["lost"] == [
            {"trait": "Brawny", "category": "physical"}
        ]
        entered = next(e for e in parking if e["type"] == "character_entered")
        assert entered["data"]["character"]["id"] == "sam"
        assert [x["trait"] for x in entered["data"]["carried"]["lost"]] == ["Brawny"]  # carried in
        ruling = next(e for e in elysium if e["type"] == "ruling_issued")
        assert ruling["seq"] > left["seq"] and ruling["data"]["decision"] == "overturn"
        corrected = [e for e in parking if e["type"] == "carried_corrected"]
        assert [
            (c["data"]["character"], c["data"]["ruling"], c["data"]["changes"]["restore_traits"]) for c in corrected
        ] == [("sam", ruling["seq"], ["Brawny"])]
        assert [e["data"]["ruling"] for e in night if e["type"] == "carried_corrected"] == [ruling["seq"]]
        # a dated script's follow-ups bear the time of the command that caused them: replays are exact
        assert [e["at"] for e in night if e["type"] == "carried_corrected"] == [ruling["at"]]
        assert corrected[0]["at"] == ruling["at"]

        states = {line["state"]["scene"]: line["state"] for line in lines if "state" in line}
        assert set(states) == set(STREAMS)
        assert states["parking"]["characters"]["sam"]["traits_lost"] == []
        assert states["friday"]["characters"]["sam"]["traits_lost"] == []
        assert states["elysium"]["characters"]["juan"]["traits_lost"] == ["Wiry"]  # the ruling's new loser

    def test_the_parking_lot_replays_on_its_own_as_sam_saw_it(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Sam came into the parking lot without Brawny (the night's entry), and had it back at the
        correction: the scene replays alone, as Sam's player saw it."""
        db, _ = played
        code, out, err = run(capsys, "replay", "--db", str(db), "parking", "--as", "sam")
        assert code == 0, err
        steps = out.split("\n\n")
        entered = next(s for s in steps if "character_entered" in s.splitlines()[0])
        assert "characters.sam: – → added" in entered
        corrected = next(s for s in steps if "carried_corrected" in s.splitlines()[0])
        assert 'characters.sam.traits_lost: ["Brawny"] → –' in corrected
        assert "characters.sam.traits.physical: 4 → 5" in corrected

    def test_the_night_audit_names_both_scenes_the_ledger_and_its_rules(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        code, md, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "md")
        assert code == 0
        assert md.startswith("# Night audit: Friday at Elysium")
        assert "Laws of the Night rules" in md
        assert md.index("### 1. Elysium (`elysium`)") < md.index("### 2. The parking lot (`parking`)")
        assert "- Juan challenges Sam (Physical) — Sam won" in md
        for stream in STREAMS:
            assert f"(`{stream}`): hash chain intact" in md
        assert "Every stream is intact." in md
        sam = md[md.index("### Sam, in The parking lot now") :]
        sam = sam[: sam.index("### Juan")]
        assert "Now: lost tonight: nothing; Willpower 3; Brawl 1; damage: none." in sam
        lost, back = (line for line in sam.splitlines() if line.startswith("- "))
        assert lost.startswith("- Elysium #12: **Sam loses Brawny (Physical)**.")
        assert back.startswith("- The parking lot #4: **Sam gets Brawny back (carried from ruling #14 in Elysium)**.")
        assert "“Sam was standing on the stair: Juan could not reach”" in back
        assert "— *lotn:trait-loss, Laws of the Night*" in sam and "— *lotn:adjudication, Laws of the Night*" in sam
        juan = md[md.index("### Juan, in Elysium now") :]
        assert "**Juan loses Wiry (Physical) (by ruling #14)**" in juan

    def test_the_night_audit_as_json_and_html(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        code, text, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "json")
        assert code == 0
        report = json.loads(text)
        assert [(c["stream"], c["kind"], c["chain"]["ok"]) for c in report["chains"]] == [
            ("friday", "night", True),
            ("elysium", "scene", True),
            ("parking", "scene", True),
        ]
        store = SqliteStore(db, readonly=True)
        assert [c["chain"]["head"] for c in report["chains"]] == [store.head(s)[1] for s in STREAMS]
        assert [s["scene"] for s in report["scenes"]] == ["elysium", "parking"]
        assert report["scenes"][1]["characters"] == ["Sam"] and report["scenes"][1]["others"] == ["Rat"]
        sam = report["ledgers"][0]
        assert sam["name"] == "Sam" and sam["scenes"] == ["elysium", "parking"] and sam["where"] == "parking"
        assert [(e["scene"], e["item"], e["loss"], e["by"], e["rule"], e["book"]) for e in sam["entries"]] == [
            ("elysium", "Brawny", True, "play", "lotn:trait-loss", "Laws of the Night"),
            ("parking", "Brawny", False, "correction", "lotn:adjudication", "Laws of the Night"),
        ]
        assert sam["entries"][1]["ruling"] == {"scene": "elysium", "title": "Elysium", "seq": 14}
        assert report["rules"]["lotn:trait-loss"]["source"] == "Laws of the Night"

        code, page, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "html")
        assert code == 0
        HTMLParser().feed(page)
        assert "<h1>Night audit: Friday at Elysium</h1>" in page
        assert "1. Elysium · open" in page and "2. The parking lot · open" in page
        assert "Sam loses Brawny (Physical)" in page and "lotn:trait-loss, Laws of the Night" in page
        assert "Every stream is intact." in page

    def test_a_broken_scene_fails_the_night_audit_and_is_named(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        tamper(db, "UPDATE events SET data = replace(data, 'Rat', 'Cat') WHERE scene = 'parking' AND seq = 3")
        code, md, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "md")
        assert code == 1
        assert "- Scene The parking lot (`parking`): **hash chain broken** at event 3 (character_added)" in md
        assert "(`elysium`): hash chain intact" in md and "**A stream of this night is broken.**" in md

    def test_audit_asks_for_a_scene_or_a_night(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        code, _, err = run(capsys, "audit", "--db", str(db), "--game", "elysium")
        assert code == 1 and "'elysium' is a scene, not a game night" in err
        code, _, err = run(capsys, "audit", "--db", str(db))
        assert code == 2 and "--game NIGHT" in err
        code, md, _ = run(capsys, "audit", "--db", str(db), "elysium")  # a scene of the night audits on its own
        assert code == 0 and md.startswith("# Audit: Elysium")
        code, md, _ = run(capsys, "audit", "--db", str(db), "parking")
        assert code == 0
        assert "- **Sam**, came in from the game night at #2 (lost tonight: Brawny; Willpower 3; Brawl 1;" in md


class TestExportImport:
    def test_a_nights_export_carries_its_scenes_and_imports_whole(
        self, played: tuple[Path, list[dict]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        export = tmp_path / "friday.jsonl"
        assert run(capsys, "export", "--db", str(db), "friday", "-o", str(export))[0] == 0
        ends = [json.loads(line)["end"] for line in export.read_text().splitlines() if line.startswith('{"end"')]
        original = SqliteStore(db, readonly=True)
        assert [(e["scene"], e["head"]) for e in ends] == [(s, original.head(s)[1]) for s in STREAMS]

        other = tmp_path / "other.db"
        code, out, _ = run(capsys, "import", "--db", str(other), str(export), "--expect", original.head("friday")[1])
        assert code == 0
        assert out.splitlines()[0].startswith("imported game night 'friday': 10 events, head ")
        assert [line.split()[2] for line in out.splitlines()[1:]] == ["'elysium':", "'parking':"]
        copy = SqliteStore(other, readonly=True)
        for stream in STREAMS:
            assert copy.head(stream) == original.head(stream)
        assert run(capsys, "verify", "--db", str(other))[0] == 0
        code, again, _ = run(capsys, "audit", "--db", str(other), "--game", "friday", "--format", "json")
        _, first, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "json")
        assert code == 0 and again == first

        code, _, err = run(capsys, "import", "--db", str(other), str(export))
        assert code == 1 and "already has events" in err

    def test_a_night_without_one_of_its_scenes_is_refused_whole(
        self, played: tuple[Path, list[dict]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        _, text, _ = run(capsys, "export", "--db", str(db), "friday")
        lines = text.splitlines()
        stream = [(json.loads(line).get("end") or json.loads(line))["scene"] for line in lines]
        kept = [line for line, of in zip(lines, stream, strict=True) if of != "parking"]
        cut = tmp_path / "cut.jsonl"
        cut.write_text("\n".join(kept) + "\n")
        other = tmp_path / "other.db"
        code, _, err = run(capsys, "import", "--db", str(other), str(cut))
        assert code == 1 and "refused, nothing written" in err and "lacks: parking" in err
        assert SqliteStore(other).scenes() == []

        broken = [
            line.replace("Wiry", "W1ry") if of == "elysium" else line for line, of in zip(lines, stream, strict=True)
        ]
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(broken) + "\n")
        code, _, err = run(capsys, "import", "--db", str(other), str(bad))
        assert code == 1 and "refused, nothing written" in err and "'elysium'" in err
        assert SqliteStore(other).scenes() == []


class TestGameCommands:
    def sheets(self, tmp_path: Path) -> list[str]:
        files = {
            "sam": {"id": "sam", "name": "Sam", "willpower": 3, "traits": {"physical": {"Brawny": 1, "Quick": 2}}},
            "juan": {"id": "juan", "name": "Juan", "willpower": 2, "traits": {"physical": {"Wiry": 2}}},
            "rat": {"id": "rat", "name": "Rat", "npc": True, "traits": {"physical": {"Quick": 1}}},
        }
        paths = []
        for name, sheet in files.items():
            path = tmp_path / f"{name}.json"
            path.write_text(json.dumps(sheet))
            paths.append(str(path))
        return paths

    def test_deadlines_from_the_command_line_for_a_night_and_its_scenes(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``--deadline KIND=TIME[,act]``: a night's deadlines go to the scenes opened in it that give
        none; a scene's own replace them; a wrong kind, time or lapse is refused before anything is
        written, saying what each takes."""
        db = str(tmp_path / "t.db")
        argv = ["game", "new", "--db", db, "--game", "fri", "--deadline", "throw=2m,act", "--deadline", "answer=90s"]
        code, _, _ = run(capsys, *argv, *self.sheets(tmp_path))
        assert code == 0
        code, _, _ = run(capsys, "scene", "new", "--db", db, "--scene", "ely", "--game", "fri")
        assert code == 0
        code, _, _ = run(
            capsys, "scene", "new", "--db", db, "--scene", "dock", "--game", "fri", "--deadline", "turn=5m"
        )
        assert code == 0
        store = SqliteStore(db)
        opened = {scene: next(store.read(scene)).event for scene in ("fri", "ely", "dock")}
        store.close()
        given = {"throw": {"seconds": 120, "lapse": "act"}, "answer": {"seconds": 90, "lapse": "tell"}}
        assert msgspec.to_builtins(opened["fri"].deadlines) == given  # type: ignore[union-attr]
        assert opened["ely"].options["deadlines"] == given  # type: ignore[union-attr]
        assert opened["dock"].options["deadlines"] == {"turn": {"seconds": 300, "lapse": "tell"}}  # type: ignore[union-attr]
        for bad, said in [
            ("trow=2m", "'trow' is not a kind of move: answer, throw, retest, turn, assist, escape"),
            ("throw=soon", "'soon' is not a time such as 90s, 2m or 1h"),
            ("throw=2d", "'2d': a deadline is whole seconds, from 1 second to 24 hours"),
            ("throw=2m,now", "'now': after the time, ',act' or ',tell' (the default)"),
        ]:
            with pytest.raises(SystemExit):
                main(["scene", "new", "--db", db, "--scene", "bad", "--deadline", bad])
            assert said in capsys.readouterr().err
        store = SqliteStore(db)
        assert list(store.read("bad")) == []
        store.close()

    def test_a_night_from_sheet_files_with_one_link_per_player(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = str(tmp_path / "t.db")
        code, out, _ = run(
            capsys, "game", "new", "--db", db, "--title", "Friday", "--game", "fri", *self.sheets(tmp_path)
        )
        assert code == 0
        assert out.splitlines()[0] == "game night fri: Laws of the Night, “Friday”"
        links = [line.split() for line in out.splitlines() if "/play#token=" in line]
        assert [link[0] for link in links] == ["Sam", "Juan"]  # the NPC gets none
        tokens = SqliteTokens(db)
        grants = [tokens.check(link[1].split("#token=")[1].split("&")[0]) for link in links]
        assert [(g.scene, g.role, g.character) for g in grants if g] == [
            ("fri", "player", "sam"),
            ("fri", "player", "juan"),
        ]
        st = next(line for line in out.splitlines() if "/st#token=" in line).split("#token=")[1].split("&")[0]
        assert (grant := tokens.check(st)) is not None and (grant.scene, grant.role) == ("fri", "st")

        code, out, _ = run(capsys, "scene", "new", "--db", db, "--title", "Elysium", "--scene", "ely", "--game", "fri")
        assert code == 0 and "players keep their night's links" in out
        # one console for the night: the night's link, opening this scene's tab (no scene-only link)
        link = next(line for line in out.splitlines() if "/st#token=" in line)
        assert link.endswith("&tab=ely (the night's console, on this scene's tab)")
        st = link.split("#token=")[1].split("&")[0]
        assert (grant := tokens.check(st)) is not None and (grant.scene, grant.role) == ("fri", "st")
        code, out, _ = run(capsys, "game", "move", "--db", db, "fri", "sam", "ely")
        assert code == 0 and out == "Sam is in Elysium now\n"
        code, _, err = run(capsys, "game", "move", "--db", db, "fri", "sam", "ely")
        assert code == 1 and "Sam is in Elysium now; they leave it first" in err

        code, out, _ = run(capsys, "game", "show", "--db", db, "fri")
        assert code == 0
        assert out.splitlines()[:4] == [
            "Friday (game night fri): Laws of the Night, open, 6 events",
            "Scenes:",
            "  Elysium (ely), open: Sam",
            "Between scenes: Juan, Rat",
        ]
        assert "  Sam (in Elysium): lost tonight: nothing; Willpower 3; damage: none" in out

        code, _, err = run(capsys, "game", "close", "--db", db, "fri")
        assert code == 1 and "Scenes of tonight are still open (Elysium); close them first." in err

    def test_the_links_printed_are_real_ones(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No link with a HOST:PORT to edit by hand: with --url (or $JUSTICAR_URL) the links are on
        that address; without, on serve's default address here, said as such, with how to get
        links the phones can open."""
        monkeypatch.delenv("JUSTICAR_URL", raising=False)
        db = str(tmp_path / "t.db")
        url = "http://192.168.1.20:8765"
        code, out, _ = run(capsys, "game", "new", "--db", db, "--game", "fri", "--url", url, *self.sheets(tmp_path))
        assert code == 0 and "HOST" not in out
        links = [line.split()[1] for line in out.splitlines() if "/play#token=" in line]
        assert len(links) == 2 and all(link.startswith(f"{url}/play#token=jt_") for link in links)
        assert f"the console is at {url}/st#token=" in out

        code, out, _ = run(capsys, "scene", "new", "--db", db, "--scene", "ely", "--game", "fri")
        assert code == 0 and "HOST" not in out
        assert "the console is at http://127.0.0.1:8765/st#token=jt_" in out
        assert "run `justicar serve --host 0.0.0.0` and give this machine's address with --url" in out

        monkeypatch.setenv("JUSTICAR_URL", "http://10.0.0.7:9000/")
        code, out, _ = run(capsys, "scene", "invite", "--db", db, "ely", "--spectator")
        assert code == 0 and "open http://10.0.0.7:9000/play#token=jt_" in out and "--url" not in out

    def test_bad_sheets_open_nothing(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"id": "bad", "name": "Bad", "traits": {"physical": {"Brawny": "x"}}}))
        db = tmp_path / "t.db"
        code, _, err = run(capsys, "game", "new", "--db", str(db), *self.sheets(tmp_path), str(bad))
        assert code == 1 and "nothing opened" in err and f"{bad}: traits.physical.Brawny" in err
        assert not db.exists() or SqliteStore(db).scenes() == []

    def test_show_and_close_of_the_example_night(
        self, played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
    ) -> None:
        db, _ = played
        code, out, _ = run(capsys, "game", "show", "--db", str(db), "friday")
        assert code == 0
        assert "  Elysium (elysium), open: Juan" in out and "  The parking lot (parking), open: Sam" in out
        assert "    Elysium #12: Sam loses Brawny (Physical)." in out
        assert "    The parking lot #4: Sam gets Brawny back (carried from ruling #14 in Elysium)." in out
        assert "[lotn:trait-loss, Laws of the Night]" in out
        code, _, err = run(capsys, "game", "show", "--db", str(db), "elysium")
        assert code == 1 and "'elysium' is a scene, not a game night" in err

    def test_game_help_names_every_verb(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            main(["game", "--help"])
        out = capsys.readouterr().out
        for verb in ("new", "move", "show", "close"):
            assert f"    {verb} " in out


def test_the_storytellers_downloads_of_a_night_are_the_same_documents(
    played: tuple[Path, list[dict]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Asked of the night's own stream, the console's audit and export (server/documents.py) are
    the night's: its scenes and ledgers, and the night with its scenes."""
    db, _ = played
    store = SqliteStore(db, readonly=True)
    _, md, _ = run(capsys, "audit", "--db", str(db), "--game", "friday", "--format", "md")
    assert audit_text(store, "friday", "md") == md
    frame = json.loads(audit_frame(store, "friday", "md"))
    assert frame["name"] == "friday-audit.md" and frame["text"] == md
    _, exported, _ = run(capsys, "export", "--db", str(db), "friday")
    frame = json.loads(export_frame(store, "friday"))
    assert frame["text"] == exported and frame["text"].count('{"end"') == 3
    assert json.loads(export_frame(store, "parking"))["text"].count('{"end"') == 1  # a scene alone
