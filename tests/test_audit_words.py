"""The audit in words a player understands (issue 14): a challenge headed by its people and what it
was, its id only a small reference under the heading; retests said in words, not by their status;
disputes naming the step they are about; the ruleset by its title. JSON keeps the machine fields
and adds the words."""

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
    "guitar" is only a reference under the heading (and the HTML anchor)."""
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
    assert "### Sam challenges Juan (Physical) — Sam won\n\n*Declared at step #8; challenge id `guitar`.*" in md
    assert "### Michael challenges Daron (Physical) — Daron won" in md
    assert "### guitar" not in md and "won by the challenger" not in md
    assert "Laws of the Night rules" in md and "ruleset `lotn`" not in md
    page = audited(capsys, demo, "html")
    assert '<section class="card" id="challenge-guitar"><h3>Sam challenges Juan (Physical) — Sam won</h3>' in page
    assert "challenge id <code>guitar</code>" in page
    assert "<g><title>Sam challenges Juan (Physical): Sam won</title>" in page  # the picture's hover


def test_retests_are_said_in_words(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Favian's overbid went ahead; Michael's Brawl was cancelled with Dodge: said so, not "stood"
    or "cancelled" as a status; JSON keeps the status beside the words."""
    data = json.loads(audited(capsys, demo, "json"))
    retests = {(r["by"], r["status"]): r["words"] for ch in data["challenges"] for r in ch["retests"]}
    assert retests == {
        ("favian", "stood"): "it went ahead, and the test was thrown again",
        ("daron", "stood"): "it went ahead, and the test was thrown again",
        ("michael", "cancelled"): "cancelled with Dodge (ability)",
    }
    for fmt in ("md", "html"):
        out = audited(capsys, demo, fmt)
        assert "Michael retests with Brawl (ability): cancelled with Dodge (ability)." in out
        assert "Daron retests with Firearms (ability): it went ahead, and the test was thrown again." in out
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
        "not decided: waiting for an answer",
    )
    assert (by_id["s-1"].title, by_id["s-1"].result) == (
        "Hacker's static Mental test against the Narrator (difficulty 5)",
        "withdrawn",
    )
    assert by_id["s-2"].title == "Hacker's simple Mental test"
    md, page = markdown(report), html(report)
    assert "### Andrew and Bob challenge Zach (Physical) — not decided: waiting for an answer" in md
    assert "awaiting response" not in md and "awaiting_response" not in page
    assert "<h3>Hacker&#x27;s static Mental test against the Narrator (difficulty 5) — withdrawn</h3>" in page
    assert json.loads(render(report, "json"))["challenges"][0]["status"] == "awaiting_response"  # kept for machines
