"""The audit in words a player understands (issue 14): a challenge headed by its people and what it
was, its id kept for the record; retests said in words, not by their status; disputes naming the
step they are about; the ruleset by its title. JSON keeps the machine fields beside the words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.cli import main
from domain.log import to_wire
from projections.audit import audit
from projections.audit_render import html, markdown, render
from tests.table import Table

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"


@pytest.fixture
def demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "d.db"
    assert main(["play", str(DEMO), "--db", str(path)]) == 0
    capsys.readouterr()
    return path


def audited(capsys: pytest.CaptureFixture[str], db: Path, fmt: str) -> str:
    assert main(["audit", "--db", str(db), "demo", "--format", fmt]) == 0
    return capsys.readouterr().out


def test_headings_name_the_people_and_keep_the_id_small(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sam's swipe at Juan is "Sam challenges Juan (Physical) — Sam won" in every format; the id
    "guitar" is kept for the record (the Markdown's last section, the card's fold, the anchor)."""
    data = json.loads(audited(capsys, demo, "json"))
    first = data["challenges"][0]
    assert (first["id"], first["title"], first["result"], first["status"]) == (
        "guitar",
        "Sam challenges Juan (Physical)",
        "Sam won",
        "resolved",
    )
    assert [ch["title"] for ch in data["challenges"]] == [
        "Sam challenges Juan (Physical)",
        "Favian challenges Endora (Social)",
        "Daron challenges Michael (Physical)",
        "Michael challenges Daron (Physical)",
    ]
    md = audited(capsys, demo, "md")
    assert "### Sam challenges Juan (Physical) — Sam won\n\n- Sam bids Ferocious." in md
    record = md[md.index("## For the record") :]
    assert "- Sam challenges Juan (Physical) — Sam won: challenge id `guitar`; declared at step `#8`;" in record
    assert "`guitar`" not in md[: md.index("## For the record")] and "lotn:" not in md[: md.index("## Timeline")]
    assert "### Michael challenges Daron (Physical) — Daron won" in md
    assert "### guitar" not in md and "won by the challenger" not in md
    assert "Laws of the Night rules" in md and "ruleset `lotn`" not in md
    page = audited(capsys, demo, "html")
    assert '<section class="card" id="challenge-guitar"><h3>Sam challenges Juan (Physical) — Sam won</h3>' in page
    card = page[page.index('id="challenge-guitar"') :]
    card = card[: card.index("</section>")]
    assert '<details class="record"><summary>For the record</summary><ul><li>challenge id: <code>guitar</code>' in card
    assert card.count("lotn:") == card.count("<code>lotn:")  # rule ids only in the fold
    assert "<g><title>Sam challenges Juan (Physical): Sam won</title>" in page  # the picture's hover


def test_retests_are_said_in_words(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Favian's overbid went ahead; Michael's Brawl was cancelled with Dodge: said so, not "stood"
    or "cancelled" as a status; JSON keeps the status beside the words (the account's)."""
    data = json.loads(audited(capsys, demo, "json"))
    retests = {(r["by"], r["status"]): r["words"] for ch in data["challenges"] for r in ch.get("retests", [])}
    assert retests == {
        ("favian", "stood"): "After test 1, Favian retests with an overbid, risking Seductive: it stands, "
        "and the test is thrown again",
        (
            "daron",
            "stood",
        ): "After test 1, Daron retests with Firearms (ability): it stands, and the test is thrown again",
        ("michael", "cancelled"): "After test 1, Michael retests with Brawl (ability): Daron cancels it with Dodge "
        "(ability)",
    }
    for fmt in ("md", "html"):
        out = audited(capsys, demo, fmt)
        assert "After test 1, Michael retests with Brawl (ability): Daron cancels it with Dodge (ability)." in out
        assert "After test 1, Daron retests with Firearms (ability): it stands, and the test is thrown again." in out
        assert "(stood" not in out and "(cancelled" not in out


def test_a_dispute_and_its_ruling_name_the_step_they_are_about(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Juan disputes the result of Sam's swipe and the ST overturns it: the audit says which
    challenge's result, not only "#12"."""
    data = json.loads(audited(capsys, demo, "json"))
    resolved = next(
        step["seq"] for section in data["timeline"] for step in section["steps"] if step["type"] == "challenge_resolved"
    )
    script = demo.parent / "ruling.jsonl"
    script.write_text(
        f'{{"id": "r1", "scene": "demo", "actor": "juan", "type": "dispute", "event": {resolved}, "reason": "late"}}\n'
        f'{{"id": "r2", "scene": "demo", "actor": "st", "type": "rule", "event": {resolved}, '
        '"decision": "overturn", "reason": "Sam threw late"}\n'
    )
    assert main(["play", str(script), "--db", str(demo)]) == 0
    capsys.readouterr()
    about = f"the result of Sam's challenge to Juan (step {resolved})"
    md = audited(capsys, demo, "md")
    assert f"Juan disputes {about}: late" in md and f"Ruling #63 on {about}:" in md
    assert "### Sam challenges Juan (Physical) — Juan won" in md  # the heading follows the ruling
    assert (
        "- **Juan won: Sam loses Ferocious.** Overturned by the Storyteller: Sam threw late (first given: Sam won)."
        in md
    )
    assert json.loads(audited(capsys, demo, "json"))["steps"] == {str(resolved): about}


def test_a_mob_a_static_test_a_simple_one_and_what_is_not_decided() -> None:
    """A mob is headed by all its attackers; a static test by its difficulty; an open challenge
    says where it stands and a withdrawn one that it was withdrawn, in words."""
    t = Table(ruleset="camarilla")
    t.add("andrew", {"Ferocious": 3})
    t.add("bob", {"Brawny": 3})
    t.add("zach", {"Tough": 3})
    t.add("hacker", traits={"mental": {"Clever": 4}})
    attack = {"kind": "contested", "targets": ["zach"], "category": "physical"}
    t.do("andrew", "declare", challenge="m-1", bid=["Ferocious"], **attack)
    t.do("bob", "join", challenge="m-1", bid=["Brawny"])
    t.do("hacker", "declare", challenge="s-1", kind="static", category="mental", bid=["Clever"], difficulty=5)
    t.do("st", "withdraw", challenge="s-1")  # the Narrator stops it
    t.do("hacker", "declare", challenge="s-2", kind="simple", category="mental")
    report = audit([to_wire(r) for r in t.log])
    by_id = {ch.id: ch for ch in report.challenges}
    assert (by_id["m-1"].title, by_id["m-1"].result) == (
        "Andrew and Bob challenge Zach (Physical)",
        "waiting for an answer",
    )
    assert (by_id["s-1"].title, by_id["s-1"].result) == (
        "Hacker's static test against the Narrator (Mental, difficulty 5)",
        "withdrawn",
    )
    assert by_id["s-2"].title == "Hacker's simple test (Mental)"
    md, page = markdown(report), html(report)
    assert "### Andrew and Bob challenge Zach (Physical) — waiting for an answer" in md
    assert "- Andrew bids Ferocious.\n- Bob lends Brawny.\n- Zach has put nothing up yet.\n- Not decided: waiting" in md
    assert "- If Zach wins: Andrew loses Ferocious; Bob loses Brawny." in md  # the stakes, while it is open
    assert "awaiting response" not in md and "awaiting_response" not in page
    assert "<h3>Hacker&#x27;s static test against the Narrator (Mental, difficulty 5) — withdrawn</h3>" in page
    assert "<b>Hacker withdrew the challenge.</b>" in page
    assert json.loads(render(report, "json"))["challenges"][0]["status"] == "awaiting_response"  # kept for machines


def test_the_audit_keeps_ids_in_the_record_and_lists_the_picture_s_marks() -> None:
    """Review round 2: the downloaded audit showed "Scene `ely`" (an id) above the fold, and the
    fight picture said "hover for which", which a phone cannot do. The scene id is in "For the
    record" only; each diamond and square of the picture is listed in words under it."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.do("st", "adjust", character="sam", changes={"set_conditions": ["prone"]}, reason="He tripped")
    found = audit([to_wire(r) for r in t.log])
    page = html(found)
    record = page.index("For the record")
    assert f"<code>{found.scene}</code>" in page[record:]
    assert f"<code>{found.scene}</code>" not in page[:record]
    assert "hover" not in page
    assert "<li>Sam: prone</li>" in page[page.index('class="marks"') :]
    text = markdown(found)
    assert f"`{found.scene}`" in text[text.index("## For the record") :]
    assert f"`{found.scene}`" not in text[: text.index("## For the record")]
