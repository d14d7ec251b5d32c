"""The audit renders each challenge's account (``projections.account``) and composes nothing of its
own (issue 26): the JSON audit's challenges ARE the accounts; the Markdown and the HTML say the
account's sentences, each once: what each side put up (the first bid apart from a Trait risked on
an overbid; a pool with its make-up), each test (the dice where dice were rolled), the verdict with
its grade and the ruling's reason beside the result it changed, each effect with how it came. Ids,
hashes and rule ids are kept for the record, out of the sentences."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import msgspec
import pytest

from clients.cli import main
from domain.evolve import fold
from domain.log import to_wire
from projections.account import Account, account
from projections.audit import audit
from projections.audit_render import html, markdown
from server.store import SqliteStore
from tests.table import Table

ROOT = Path(__file__).resolve().parent.parent
SCENES = {"demo": "demo", "bns-fight": "alley", "kony": "docks"}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each example played once into a database of its own."""
    out = {}
    for example in SCENES:
        db = tmp_path_factory.mktemp(example) / "x.db"
        assert main(["play", str(ROOT / "examples" / f"{example}.jsonl"), "--db", str(db)]) == 0
        out[example] = db
    return out


def audited(capsys: pytest.CaptureFixture[str], db: Path, scene: str, fmt: str) -> str:
    capsys.readouterr()
    assert main(["audit", "--db", str(db), scene, "--format", fmt]) == 0
    return capsys.readouterr().out


def challenges(md: str) -> str:
    """The Markdown's challenges: what people read, before the disputes, the timeline and the record."""
    return md[md.index("## Challenges") : md.index("## Timeline")].split("## Disputes and rulings")[0]


def card(page: str, cid: str) -> str:
    at = page.index(f'<section class="card" id="challenge-{cid}">')
    return page[at : page.index("</section>", at)]


def test_the_overbid_reads_the_first_bid_and_the_trait_risked(
    played: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Favian bid Beguiling and, on the overbid, risked Seductive: said so in every format, never
    "Favian bids Seductive"."""
    db = played["demo"]
    data = json.loads(audited(capsys, db, "demo", "json"))
    favian = next(s for a in data["challenges"] for s in a["sides"] if s["who"] == "favian")
    assert (favian["bid"], favian["risked"]) == (["Beguiling"], ["Seductive"])
    said = "Favian bids Beguiling (lost on the overbid); on the overbid, Favian risks Seductive"
    assert favian["words"] == said
    md, page = audited(capsys, db, "demo", "md"), audited(capsys, db, "demo", "html")
    for out in (md, page, json.dumps(data)):
        assert said in out and "Favian bids Seductive" not in out
    assert f"- {said}. Victory: “You tell me what I want to know”" in md
    flattery = card(page, "flattery")
    assert f'<li>{said}. <span class="victory">' in flattery
    # the test said once, the retest after the test it answered, each rule's words once
    assert flattery.count("Favian threw rock, Endora threw paper") == 1
    assert "Test 1 Favian rock" not in flattery and "Favian rock, Endora paper" not in challenges(md)
    assert challenges(md).count("Rock crushes Scissors.") == 3  # once for each of the three rps challenges
    assert flattery.count("Rock crushes Scissors.") == 1
    lines = [line for line in challenges(md).splitlines() if line.startswith("- ")]
    start = lines.index(f"- {said}. Victory: “You tell me what I want to know”")
    assert lines[start + 2 : start + 6] == [
        "- Test 1: Favian threw rock, Endora threw paper: Endora wins the test.",
        "- After test 1, Favian retests with an overbid, risking Seductive: it stands, and the test is thrown again.",
        "- Test 2: Favian threw scissors, Endora threw paper: Favian wins the test.",
        "- **Favian won: Endora loses Dignified.**",
    ]


def test_a_pool_fight_shows_the_pools_the_maneuvers_the_grade_and_the_damage_explained(
    played: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/bns-fight.jsonl: each pool with its make-up, Grapple and Knock Down in the headings,
    the exceptional grade and how it came (pools compared), a damage with its reason."""
    db = played["bns-fight"]
    md, page = audited(capsys, db, "alley", "md"), audited(capsys, db, "alley", "html")
    told = challenges(md)
    assert "- Edward's unarmed pool: Strength 3 + Brawl 2 = 5. Victory: “I knock the wind out of him”" in told
    assert "- The mook's dodge pool: Dexterity 1 + Dodge 0 = 1." in told
    assert "- The ghoul's dodge pool: Dexterity 2 + Dodge 1 + 2 (prone, out of reach of the attack) = 5." in told
    assert "### The mook challenges Edward (Physical · Grapple) — The mook won" in told
    assert "### Julian challenges The ghoul (Physical · Knock Down) — Julian won" in told
    assert (
        "- **Edward won: The mook takes 2 bashing damage.** Edward succeeds, an exceptional success: "
        "a pool of 5 against 1 and every test won." in told
    )
    assert "  - The mook takes 2 bashing damage: 1 bashing declared; an exceptional success adds 1." in told
    assert (
        "Julian relented: The ghoul wins; Julian's pool of 5 is not less than The ghoul's 5: a normal success." in told
    )
    assert "bns:" not in told
    punch = card(page, "punch")
    assert (
        'Edward&#x27;s unarmed pool: <span class="pool"><span>Strength 3</span> + <span>Brawl 2</span> = '
        "<b>5</b></span>" in punch
    )
    assert '<span class="grade">An exceptional success</span>' in punch
    assert "<li>The mook takes 2 bashing damage: 1 bashing declared; an exceptional success adds 1.</li>" in punch
    assert "<h3>The mook challenges Edward (Physical · Grapple) — The mook won</h3>" in page
    assert "<li>Attributes: Strength 3, Dexterity 3, Stamina 2" in page  # the sheet to check a pool against


def test_dice_are_shown(played: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """examples/kony.jsonl: each test says the dice each side rolled; a static test its own."""
    db = played["kony"]
    data = json.loads(audited(capsys, db, "docks", "json"))
    first = data["challenges"][0]["tests"][0]
    assert first["dice"] == {"vito": [1, 2], "enzo": [3]}
    md, page = audited(capsys, db, "docks", "md"), audited(capsys, db, "docks", "html")
    said = "Vito rolled 1, 2, Enzo rolled 3: 1 success against 0; Vito has more and wins the test."
    assert f"- Test 1: {said}" in md and f'<span class="n">Test 1</span> {escape(said)}' in page
    assert "- Test 1: Rosa rolled 1, 3, 1, 2, Enzo rolled 1, 3: 2 successes against 1;" in md
    assert "- Test 1: Vito's dice show 3, 1: a 1, a win." in md


def ruled() -> Table:
    """Sam beats Juan twice; Juan disputes the first and the Storyteller overturns it."""
    t = Table()
    t.add("sam", {"Ferocious": 2, "Brawny": 2})
    t.add("juan", {"Brutal": 2, "Wiry": 2})
    t.contest("hit", "sam", "juan", "Ferocious", "Brutal", victory="down he goes")
    t.test("hit", "rock", "scissors")
    t.do("juan", "pass", challenge="hit")
    t.contest("again", "sam", "juan", "Brawny", "Wiry")
    t.test("again", "paper", "rock")
    t.do("juan", "pass", challenge="again")
    resolved = t.seq_of("challenge_resolved", "hit")
    t.do("juan", "dispute", event=resolved, reason="I was behind the pillar")
    t.do("st", "rule", event=resolved, decision="overturn", reason="Juan had cover behind the pillar")
    return t


def test_a_ruling_is_said_beside_the_result_it_changed() -> None:
    """The overturned result reads with the Storyteller's reason and what was first given; the
    challenge fought since stands, said so; the ruling's number is kept for the record."""
    report = audit([to_wire(r) for r in ruled().log])
    md, page = markdown(report), html(report)
    told = challenges(md)
    assert "### Sam challenges Juan (Physical) — Juan won" in told
    assert (
        "- **Juan won: Sam loses Ferocious.** Overturned by the Storyteller: Juan had cover behind the pillar "
        "(first given: Sam won)." in told
    )
    assert "- Stands as played: Sam challenges Juan (Physical): Sam won." in told
    assert told.count("Juan had cover behind the pillar") == 1  # the reason once, beside the result
    assert not re.search(r"#\d|step \d", told)  # no ruling number, no step number in the sentences
    hit = card(page, "hit")
    assert (
        '<p class="verdict"><b>Juan won: Sam loses Ferocious.</b> <span class="ruled">Overturned by the '
        "Storyteller: Juan had cover behind the pillar (first given: Sam won).</span></p>" in hit
    )
    assert "Stands as played: Sam challenges Juan (Physical): Sam won." in hit
    assert re.search(r"<li>ruling \(overturn\): <code>#\d+</code></li>", hit)
    assert "lotn:adjudication" in hit.split('<details class="record">')[1]
    assert '<circle cx="' in page and 'r="11"' in page  # the picture rings the corrected outcome


def test_the_json_audit_is_the_account(played: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Every example's JSON audit decodes as accounts, and they are the accounts
    ``projections.account.account`` gives of the folded log: the audit computes none of its own;
    and the Markdown says every sentence of them."""
    for example, scene in SCENES.items():
        data = json.loads(audited(capsys, played[example], scene, "json"))
        decoded = msgspec.json.decode(json.dumps(data["challenges"]), type=list[Account])
        state = fold(list(SqliteStore(played[example], readonly=True).read(scene)))
        assert decoded == [account(state, ch) for ch in sorted(state.challenges.values(), key=_declared)]
        told = challenges(audited(capsys, played[example], scene, "md"))
        for a in decoded:
            assert f"### {a.title} — {a.result}" in told
            assert a.verdict is not None and f"**{a.verdict.words}.**" in told
            for said in [*(s.words for s in a.sides), *(t.words for t in a.tests), *(r.words for r in a.retests)]:
                assert said in told, said
            assert all(e.why.rstrip(".") in told for e in a.effects if e.why)
    report = audit([to_wire(r) for r in ruled().log])
    again = msgspec.json.decode(msgspec.json.encode(report.challenges), type=list[Account])
    assert again == report.challenges and again[0].rulings[0].reason == "Juan had cover behind the pillar"


def _declared(ch: object) -> tuple[object, str]:
    return (ch.declared_at, ch.id)  # type: ignore[attr-defined]
