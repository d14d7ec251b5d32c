"""``justicar`` as a user runs it: play, log, verify and replay."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clients.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"
KONY = ROOT / "examples" / "kony.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = main(list(argv))
    return code, capsys.readouterr().out.splitlines()


def play_demo(capsys: pytest.CaptureFixture[str], db: Path) -> list[dict]:
    code, lines = run(capsys, "play", str(DEMO), "--db", str(db))
    assert code == 0
    return [json.loads(line) for line in lines]


class TestPlay:
    def test_demo_plays_and_ends_with_the_st_view(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """Every demo line gets one result; the only refusal is the deliberate over-declaration;
        the last line is the ST's state."""
        results = play_demo(capsys, tmp_path / "d.db")
        *commands, last = results
        refused = [r for r in commands if not r["ok"]]
        assert [(r["id"], r["error"]["code"], r["error"]["rule"]) for r in refused] == [
            ("d-14b", "over_declared", "lotn:declare-fewer")
        ]
        state = last["state"]
        assert state["ruleset"] == "lotn" and state["version"] == commands[-1]["version"]
        juan = state["characters"]["juan"]
        assert juan["traits"]["physical"] == 7 and juan["traits_lost"] == ["Brutal"] and juan["health"] == 6
        assert state["characters"]["favian"]["traits_lost"] == ["Beguiling"]
        assert state["characters"]["endora"]["traits_lost"] == ["Dignified"]
        assert state["challenges"]["grab"]["outcome"]["winner"] == "defender"
        assert state["challenges"]["shot"]["retests"][0]["source"] == {
            "category": "ability",
            "name": "Firearms",
        }

    def test_the_camarilla_example_plays_to_its_outcome(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The Camarilla example: Jimmy resists the gaze, his surprise-retested claws with Puissance deal
        two aggravated, Maria's grapple holds Fred until his punch frees him."""
        code, lines = run(capsys, "play", str(ROOT / "examples" / "camarilla.jsonl"), "--db", str(tmp_path / "c.db"))
        *results, last = [json.loads(line) for line in lines]
        assert code == 0 and all(r["ok"] for r in results)
        people = last["state"]["characters"]
        assert people["frank"]["damage"] == {"bashing": 0, "lethal": 0, "aggravated": 2}
        assert people["frank"]["traits_lost"] == ["Charming", "Wiry"]
        assert people["fred"]["conditions"]["grappled_by"] is None and people["maria"]["damage"]["bashing"] == 1
        assert last["state"]["round"]["initiative"] == {"jimmy": 9, "maria": 5, "fred": 4, "frank": 2}

    def test_the_bns_duel_plays_the_documents_examples(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The bns example: the hunter's shotgun wins by an overbid, a normal success (two lethal);
        Vincent's Dread Gaze wins on Willpower after an overbid he may not make; a failed, unskilled
        Entrancement leaves the officer immune to it but not to Dread Gaze (bns:retry-immunity)."""
        code, lines = run(capsys, "play", str(ROOT / "examples" / "bns-duel.jsonl"), "--db", str(tmp_path / "b.db"))
        *results, last = [json.loads(line) for line in lines]
        assert code == 0
        refused = [(r["id"], r["error"]["code"], r["error"]["rule"]) for r in results if not r["ok"]]
        assert refused == [("b-15", "no_overbid", "bns:overbid"), ("b-22", "immune", "bns:retry-immunity")]
        state = last["state"]
        assert state["rules"]["family"] == "pools"
        shot, gaze = state["challenges"]["shot"], state["challenges"]["gaze"]
        assert shot["outcome"]["winner"] == "challenger" and not shot["outcome"]["exceptional"]
        assert [t["result"] for t in shot["tests"]] == ["tie", "lose", "win"]
        assert {who: p["total"] for who, p in shot["pools"].items()} == {"hunter": 12, "vincent": 6}
        assert gaze["outcome"]["winner"] == "challenger" and len(gaze["tests"]) == 2
        assert state["challenges"]["charm"]["outcome"]["critical"] == "vincent"
        assert state["challenges"]["stare"]["outcome"]["exceptional"]
        vincent = state["characters"]["vincent"]
        assert vincent["damage"]["lethal"] == 2 and vincent["willpower"] == 2

    def test_the_bns_fight_plays_three_rounds(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """examples/bns-fight.jsonl: a Wits tie, an escape held then failed, an exceptional hit, a free
        Grapple and its escape, Knock Down and the prone modifier, an escape held to the round's end;
        the replay tells each in words with its rule, and the audit verifies."""
        db = str(tmp_path / "f.db")
        code, lines = run(capsys, "play", str(ROOT / "examples" / "bns-fight.jsonl"), "--db", db)
        *results, last = [json.loads(line) for line in lines]
        assert code == 0
        assert [(r["id"], r["error"]["code"]) for r in results if not r["ok"]] == [("f-48", "escaped")]
        state = last["state"]
        challenges, people = state["challenges"], state["characters"]
        assert challenges["punch"]["outcome"]["exceptional"] and people["mook"]["damage"]["bashing"] == 2
        assert challenges["grab"]["maneuver"] == "grapple" and challenges["free"]["outcome"]["winner"] == "challenger"
        assert people["edward"]["conditions"]["grappled_by"] is None
        prone = challenges["arrow"]["pools"]["ghoul"]
        assert prone["total"] == 5 and prone["modifiers"][0]["rule"] == "bns:prone-defense"
        assert people["julian"]["conditions"]["fair_escape"] == "escaped" and people["julian"]["willpower"] == 2
        code, words = run(capsys, "replay", "--db", db, "alley")
        text = "\n".join(words)
        assert code == 0
        assert "Julian's escape is held by The ghoul" in text and "the fair escape fails" in text
        assert "bns:initiative-ties" in text and "bns:fair-escape-hold" in text
        assert "The mook uses Grapple, free once this fight (Strength 4 or more)." in text
        assert "after everyone acted, Julian escapes" in text
        code, _ = run(capsys, "verify", "--db", db)
        assert code == 0
        out = tmp_path / "alley.html"
        code, _ = run(capsys, "audit", "--db", db, "alley", "--format", "html", "-o", str(out))
        page = out.read_text(encoding="utf-8")
        for mark in ("Julian: escape held", "Julian: escape failed", "Julian: escaped", "The ghoul: prone"):
            assert f"<g><title>{mark}" in page, mark
        assert code == 0 and ">round 3</text>" in page  # a round with escapes and no challenge has its column

    def test_the_kony_example_plays_two_rounds_and_a_narrative_one(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """examples/kony.jsonl: every line accepted; Vito's grapple won with Brawl named, then his
        feeding; Rosa's four dice (Firearms, range, surprise); Enzo's swing in the dark, two Traits
        bid while held and one more for Clumsy, Sal's armour taking the first two; Sal's escape before
        declarations; Rosa's overbid; the Don's reroll in the narrative round; each tie on initiative
        split by the d10s recorded."""
        db = str(tmp_path / "k.db")
        code, lines = run(capsys, "play", str(KONY), "--db", db)
        *results, last = [json.loads(line) for line in lines]
        assert code == 0 and [(r["id"], r["error"]) for r in results if not r["ok"]] == []
        state = last["state"]
        assert state["ruleset"] == "kony" and state["rules"]["family"] == "dice"
        people, challenges = state["characters"], state["challenges"]
        winners = {cid: ch["outcome"]["winner"] for cid, ch in challenges.items()}
        assert winners == {
            "grab": "challenger",
            "shot": "challenger",
            "swing": "challenger",
            "club": "challenger",
            "uppercut": "challenger",
            "bullet": "defender",
        }
        assert challenges["grab"]["tests"][0]["dice"] == {"vito": [1, 2], "enzo": [3]}
        assert [t["dice"] for t in challenges["club"]["tests"]] == [
            {"rosa": [3], "tony": [1]},
            {"rosa": [1, 2], "tony": [2]},
        ]
        assert challenges["uppercut"]["tests"][0]["dice"] == {"vito": [3, 1]}  # one 1 rerolled by the Don
        assert "equal to the difficulty of 7: a loss" in challenges["bullet"]["tests"][0]["why"]
        # what was lost: the losers' bids, Rosa's first bid to her overbid and her bid on the Don
        assert people["enzo"]["traits_lost"] == ["Tough", "Brutal", "Wiry"]
        assert people["rosa"]["traits_lost"] == ["Nimble", "Quick"]
        assert people["sal"]["traits_lost"] == ["Tough"] and people["tony"]["traits_lost"] == ["Wiry"]
        assert people["vito"]["traits_lost"] == [] and people["vito"]["abilities"]["Brawl"] == 0
        assert people["rosa"]["abilities"]["Firearms"] == 0  # one level for each of three rolls
        # armour first: two of Enzo's three lethal on Sal's armour, one on Sal
        assert people["sal"]["armor"] == 0 and people["sal"]["damage"]["lethal"] == 1
        assert people["sal"]["conditions"]["fair_escape"] == "escaped"
        assert people["don"]["damage"]["lethal"] == 2 and people["tony"]["damage"]["bashing"] == 1
        assert people["enzo"]["conditions"]["grappled_by"] is None  # let go after the feeding

        code, logged = run(capsys, "log", "--db", db, "docks")
        events = [json.loads(line) for line in logged]
        assert code == 0
        of = lambda kind: [e["data"] for e in events if e["type"] == kind]  # noqa: E731
        assert [(f["character"], f["target"], f["blood"]) for f in of("fed")] == [("vito", "enzo", 3)]
        assert [(a["character"], a["amount"]) for a in of("armor_damaged")] == [("sal", 2)]
        rolled = {(d["challenge"], d["character"], d["test"]): d for d in of("dice_rolled")}
        assert rolled[("shot", "rosa", 1)]["why"].endswith("= 4 d3") and "ranged" in rolled[("shot", "rosa", 1)]["why"]
        assert "surprise" in rolled[("shot", "rosa", 1)]["why"]
        assert all("darkness" in rolled[("swing", who, 1)]["why"] for who in ("enzo", "sal"))
        assert all(d["entered_by"] == "st" for d in rolled.values())
        assert rolled[("grab", "vito", 1)]["retests"] == [{"category": "ability", "name": "Brawl"}]
        call = of("negative_trait_called")[0]
        assert call["trait"] == "Clumsy" and call["correct"]
        assert [o["character"] for o in of("overbid_succeeded")] == ["rosa"]
        assert [b["traits"] for b in of("bid_placed") if b["challenge"] == "swing"] == [
            ["Tough"],
            ["Tough"],
        ]  # Sal's answer, then what Enzo owed for Clumsy (his two held-but-struggling Traits are declared)
        assert [x["character"] for x in of("fair_escape_succeeded")] == ["sal"]
        assert of("test_revealed")[-1]["rerolled"] == [2, 3]
        # the d10s: Sal and Tony tie on 4 in round 1, Enzo and Tony on 4 in round 2; none in round 3
        ties = of("initiative_set")
        assert [sorted(t["rolls"]) for t in ties] == [["sal", "tony"], ["enzo", "tony"], []]
        for tie in ties[:2]:
            order = [w for (w,) in tie["order"]]
            assert all(1 <= v <= 10 for rolls in tie["rolls"].values() for v in rolls)
            tied = [w for w in order if w in tie["rolls"]]
            assert order.index(tied[0]) + 1 == order.index(tied[1])  # the tied pair stays together
            a, b = (tie["rolls"][w] for w in tied)
            assert len(a) == len(b) and a[:-1] == b[:-1] and a[-1] > b[-1]  # equal d10s rolled again
        assert ties[0]["values"] == {"vito": 9, "rosa": 8, "enzo": 7, "sal": 4, "tony": 4}
        assert ties[2]["values"] == {"don": 12, "vito": 10, "rosa": 7, "enzo": 4, "tony": 3}
        code, _ = run(capsys, "verify", "--db", db)
        assert code == 0

    def test_the_kony_example_replays_and_audits(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """The replay tells the kony fight in words with its rules (Sal's fair escape among them), and
        the audit verifies it."""
        db = str(tmp_path / "k.db")
        run(capsys, "play", str(KONY), "--db", db)
        code, words = run(capsys, "replay", "--db", db, "docks")
        text = "\n".join(words)
        assert code == 0
        assert "Sal declares a fair escape" in text and "kony:fair-escape" in text
        assert "kony:initiative-ties" in text and "Vito feeds on Enzo: 3 blood Trait(s)" in text
        assert "Sal's armour takes 2 of the 3 first (0 left)." in text and "kony:overbid" in text
        assert "after the rerolls 3, 1" in text
        out = tmp_path / "docks.html"
        code, _ = run(capsys, "audit", "--db", db, "docks", "--format", "html", "-o", str(out))
        assert code == 0 and ">round 3</text>" in out.read_text(encoding="utf-8")

    def test_log_as_a_player_is_what_the_player_was_sent(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """``log --as`` prints the events as that viewer was sent them: the hunter's pool blanked for
        Vincent, his own whole; the hashes kept; an unknown viewer refused."""
        db = str(tmp_path / "b.db")
        run(capsys, "play", str(ROOT / "examples" / "bns-duel.jsonl"), "--db", db)
        code, lines = run(capsys, "log", "--db", db, "church", "--as", "vincent")
        events = {(e["type"], e["data"].get("challenge")): e for e in map(json.loads, lines)}
        declared, answered = events[("challenge_declared", "shot")], events[("bid_placed", "shot")]
        assert code == 0 and declared["data"]["pool"] is None and declared["redacted"] == ["pool"]
        assert answered["data"]["pool"]["total"] == 6 and "redacted" not in answered
        _, whole = run(capsys, "log", "--db", db, "church")
        assert [json.loads(line)["hash"] for line in whole] == [e["hash"] for e in map(json.loads, lines)]
        assert json.loads(whole[4])["data"]["pool"]["total"] == 12
        code, _ = run(capsys, "log", "--db", db, "church", "--as", "nobody")
        assert code == 2

    def test_playing_again_is_idempotent(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """Re-playing a script into the same database returns the first results of accepted commands
        and appends nothing (a refused command was never recorded, so it is judged again)."""
        first = play_demo(capsys, tmp_path / "d.db")
        again = play_demo(capsys, tmp_path / "d.db")
        assert [r for r in again if r.get("ok")] == [r for r in first if r.get("ok")]
        assert again[-1] == first[-1]

    def test_bad_lines_are_named_and_the_rest_runs(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """Malformed JSON, unknown verbs or fields, wrong types: an error naming the line and the
        problem; later lines still run; exit 1."""
        script = tmp_path / "bad.jsonl"
        script.write_text(
            "# a comment\n\n"
            '{"id": "1", "scene": "s", "actor": "st", "type": "open_scene", "ruleset": "lotn"}\n'
            '{"id": "2", "scene": "s", "actor": "st", "type": "open_scene"\n'
            '{"id": "3", "scene": "s", "actor": "st", "type": "summon_demon"}\n'
            '{"id": "4", "scene": "s", "actor": "st", "type": "close_scene", "urgent": true}\n'
            '{"id": "5", "scene": "s", "actor": "st", "type": "add_character", "character": '
            '{"id": "a", "name": "A", "traits": {"physical": {"Brawny": "two"}}}}\n'
            '{"id": "6", "scene": "s", "actor": "st", "type": "add_character", "character": {"id": "a"}}\n'
            '{"id": "7", "scene": "s", "actor": "st", "type": "close_scene"}\n'
        )
        code, lines = run(capsys, "play", str(script))
        results = [json.loads(line) for line in lines]
        assert code == 1
        by_id = {r.get("id"): r for r in results if "id" in r}
        assert by_id["1"]["ok"] and by_id["7"]["ok"]
        truncated = results[1]
        assert truncated["line"] == 4 and truncated["id"] is None and truncated["error"]["code"] == "malformed"
        assert "summon_demon" in by_id["3"]["error"]["message"] and "$.type" in by_id["3"]["error"]["message"]
        assert "unknown field `urgent`" in by_id["4"]["error"]["message"]
        assert "Expected `int`, got `str` - at `$.character.traits.physical" in by_id["5"]["error"]["message"]
        assert "`name`" in by_id["6"]["error"]["message"] and "line 8" in by_id["6"]["error"]["message"]
        assert results[-1]["state"]["status"] == "closed"

    def test_refusals_are_results_not_failures(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A refused command is a result (exit 0), with a code, a message and the rule."""
        script = tmp_path / "refused.jsonl"
        script.write_text(
            '{"id": "1", "scene": "s", "actor": "st", "type": "open_scene", "ruleset": "lotn"}\n'
            '{"id": "2", "scene": "s", "actor": "sam", "type": "close_scene"}\n'
        )
        code, lines = run(capsys, "play", str(script))
        assert code == 0
        assert json.loads(lines[1])["error"] == {
            "code": "forbidden",
            "message": "Only the Storyteller can close the scene.",
        }

    def test_missing_script(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A script that is not there is a clear error, exit 2."""
        assert main(["play", str(tmp_path / "nope.jsonl")]) == 2
        assert "cannot read" in capsys.readouterr().err


class TestLogVerifyReplay:
    def test_log_prints_the_events(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """``log`` prints every event with seq, time, actor, command and hashes."""
        db = tmp_path / "d.db"
        results = play_demo(capsys, db)
        code, lines = run(capsys, "log", "--db", str(db), "demo")
        events = [json.loads(line) for line in lines]
        assert code == 0 and [e["seq"] for e in events] == list(range(1, len(events) + 1))
        played = [e for r in results if r.get("ok") for e in r["events"]]
        assert events == played

    def test_verify_ok_and_tampered(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """``verify`` reports the head hash; after a byte is changed it names that event, exit 1."""
        db = tmp_path / "d.db"
        play_demo(capsys, db)
        code, lines = run(capsys, "verify", "--db", str(db))
        assert code == 0 and lines[0].startswith("demo: ok, 61 events, head ")
        conn = sqlite3.connect(db)
        conn.execute("UPDATE events SET data = replace(data, '\"count\":8', '\"count\":9') WHERE seq = 15")
        conn.commit()
        code, lines = run(capsys, "verify", "--db", str(db), "demo")
        assert code == 1 and lines == ["demo: event 15 (traits_declared): its hash does not match its contents"]

    def test_verify_finds_a_gap(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A deleted event is a gap, named at the event after it."""
        db = tmp_path / "d.db"
        play_demo(capsys, db)
        conn = sqlite3.connect(db)
        conn.execute("DELETE FROM events WHERE seq = 30")
        conn.commit()
        code, lines = run(capsys, "verify", "--db", str(db))
        assert code == 1 and lines == ["demo: event 31 (test_revealed): expected event 30 here, found 31"]

    def test_replay_explains_each_step(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """``replay`` shows each event, what it changed and the rule's words."""
        db = tmp_path / "d.db"
        play_demo(capsys, db)
        code, lines = run(capsys, "replay", "--db", str(db), "demo")
        text = "\n".join(lines)
        assert code == 0
        assert "#16 2026-11-28T20:01:25Z st · test_resolved [guitar]" in text
        assert "A tie: Sam's 9 Physical Traits against Juan's 8; Sam has more and wins the test." in text
        assert 'characters.juan.traits_lost: – → ["Brutal"]' in text
        assert "rule lotn:draw" not in text
        assert "“If you lose the test, you lose" not in text
        assert "rule lotn:ties (Laws of the Night): “In the case of a tie" in text
        code, lines = run(capsys, "replay", "--db", str(db), "demo", "--json")
        steps = [json.loads(line) for line in lines]
        assert len(steps) == 61 and steps[15]["rule"] == "lotn:ties" and steps[15]["compared"] == {"sam": 9, "juan": 8}

    def test_unknown_scene_or_database(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A missing database or scene is a clear error, not a traceback."""
        assert main(["replay", "--db", str(tmp_path / "none.db"), "demo"]) == 2
        db = tmp_path / "d.db"
        play_demo(capsys, db)
        assert main(["log", "--db", str(db), "nope"]) == 1
        assert "no scene 'nope'" in capsys.readouterr().err


def test_console_script_runs(tmp_path: Path) -> None:
    """The installed ``justicar`` entry point plays a script from standard input."""
    script = '{"id": "1", "scene": "s", "actor": "st", "type": "open_scene", "ruleset": "lotn"}\n'
    out = subprocess.run(
        [sys.executable, "-m", "clients.cli", "play", "-"],
        input=script,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    first, state = (json.loads(line) for line in out.stdout.splitlines())
    assert first["ok"] and state["state"]["status"] == "open"
