"""The terminal says what each live commit did once its view holds it (commands committed together
arrive as commits back to back, only the last with the view patch, and a result named from a view
that has not yet merged its challenge would name nobody); and what it says of a challenge is its
account's words (``projections.account``, carried on the view), never its own: each Trait counted
once, the armour said once, a ruling's reason, no ids unless ``--ids`` asks for them."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients.offline import play_script
from clients.terminal import News, challenge_lines, status, told
from domain.evolve import fold
from domain.log import Recorded
from domain.state import Scene
from projections.account_text import verdict_line
from projections.views import view
from server.backend import open_backend
from server.service import SceneService
from tests.table import Table

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def wire(record: Recorded) -> dict[str, Any]:
    """An event as a commit carries it."""
    event: dict[str, Any] = msgspec.to_builtins(record.event)
    return {"seq": record.seq, "type": record.type, "data": event}


def seen(state: Scene, who: str) -> dict[str, Any]:
    """The view ``who`` is sent, as the terminal holds it (JSON)."""
    return msgspec.json.decode(msgspec.json.encode(view(state, who)))


def commit(version: int, events: list[dict[str, Any]], view: dict[str, Any] | None = None) -> dict[str, Any]:
    words = [f"event {event['type']}" for event in events]
    message: dict[str, Any] = {"type": "commit", "version": version, "events": events, "summaries": words}
    if view is not None:
        message["view"] = view
    return message


@pytest.fixture
def brawl() -> Table:
    """Sam bids Brawny, calls a Negative Trait Juan does not have and owes a second Brawny
    (lotn:negative-traits), and loses the test: he loses Brawny twice."""
    t = Table()
    t.add("sam", {"Brawny": 2, "Quick": 1})
    t.add("juan", {"Quick": 2, "Nimble": 1})
    t.contest("c", "sam", "juan", "Brawny", "Quick")
    t.do("sam", "call_negative", challenge="c", trait="Lazy")
    t.do("sam", "bid", challenge="c", bid=["Brawny"])
    t.test("c", "rock", "paper")
    t.do("sam", "pass", challenge="c")
    assert t.lost("sam") == ["Brawny", "Brawny"]
    return t


def test_a_commit_without_its_view_waits_for_its_groups_last(brawl: Table) -> None:
    resolved = brawl.seq_of("challenge_resolved", "c")
    events = [wire(r) for r in brawl.log[resolved - 1 :]]
    after = seen(brawl.state, "sam")
    news = News("sam")
    assert news.take(commit(resolved, events), seen(fold(brawl.log[: resolved - 1]), "sam")) == []  # view next
    said = news.take(commit(resolved + 5, [{"type": "character_adjusted", "data": {}}], view=after), after)
    result = "» Result: You challenge Juan (Physical): You lost: you lose Brawny ×2."
    assert said == [*(f"» event {e['type']}" for e in events), result, "» event character_adjusted"]
    alone = News("juan").take(commit(resolved, events, view=after), seen(brawl.state, "juan"))
    assert alone[-1] == "» Result: Sam challenges you (Physical): You won: Sam loses Brawny ×2."


def test_a_catch_up_after_a_reconnect_is_said_once_its_whole_view_has_come(brawl: Table) -> None:
    resolved = brawl.seq_of("challenge_resolved", "c")
    news, after = News("juan"), seen(brawl.state, "juan")
    assert news.take(commit(resolved, [wire(r) for r in brawl.log[resolved - 1 :]]), {}) == []
    said = news.take({"type": "view", "full": True, "view": after}, after)
    assert said[-1] == "» Result: Sam challenges you (Physical): You won: Sam loses Brawny ×2."
    assert news.take({"type": "view", "full": True, "view": after}, after) == []


def test_each_trait_and_the_armour_are_said_once() -> None:
    """kony: Enzo's swing in the dark costs Sal a Trait, his armour and a lethal: said once each, in
    the account's words, to Sal as "you"; the terminal's old sentences are gone."""
    records = played(EXAMPLES / "kony.jsonl")
    state = fold(records)
    cid = next(c for c, ch in state.challenges.items() if ch.challenger.who == "enzo" and ch.defender.who == "sal")
    resolved = next(r for r in records if r.type == "challenge_resolved" and r.event.challenge == cid)  # type: ignore[attr-defined]
    after = fold([r for r in records if r.seq <= resolved.seq + 3])
    events = [wire(r) for r in records if resolved.seq <= r.seq <= resolved.seq + 3]
    now = seen(after, "sal")
    (said,) = [line for line in News("sal").take(commit(1, events, view=now), now) if "Result" in line]
    cost = "you lose Tough; your armour takes 2; you take 1 lethal damage"
    assert said == f"» Result: Enzo challenges you (Physical): You lost: {cost}."
    assert "gone for the night" not in said and said.count("armour") == 1


def played(script: Path) -> list[Recorded]:
    """An example played through the real command path, its log."""
    service = SceneService(open_backend(None).store)
    _, scenes = play_script(service, script.open(encoding="utf-8"), io.StringIO())
    return list(service.store.read(scenes[-1]))


def terminal_of(state: Scene, who: str, ids: bool = False) -> str:
    welcome = {"character": None if who == "st" else who, "role": "st" if who == "st" else "player", "scene": "s"}
    return status(seen(state, who), welcome, ids)


@pytest.mark.parametrize("example", ["demo", "bns-fight"])
def test_the_terminal_says_what_the_account_says(example: str) -> None:
    """Each example, at each step of each challenge and for each side and the Storyteller: every
    line the terminal prints of a challenge is the account's own sentence (what each side put up,
    the powers and maneuvers in play, each test, once, and retest, what winning will do, the
    verdict with what it cost), with no id in it unless ``--ids`` asks."""
    records = played(EXAMPLES / f"{example}.jsonl")
    for n in range(1, len(records) + 1):
        state = fold(records[:n])
        cid = getattr(records[n - 1].event, "challenge", None)
        ch = state.challenges.get(cid) if isinstance(cid, str) else None
        if ch is None:
            continue
        for who in ("st", ch.challenger.who, ch.defender.who):
            sent = seen(state, who)["challenges"].get(cid)
            a = told(sent) if sent else None
            if a is None:
                continue
            out = terminal_of(state, who)
            if ch.open:
                assert f"{a.title} · " in out
                said = [*(s.words for s in a.sides), *(r.words for r in a.retests), *(s.words for s in a.stakes)]
                assert not [sentence for sentence in said if f"    {sentence}" not in out], (n, who)
                assert not [t for t in a.tests if out.count(f"    Test {t.number}: {t.words}") != 1], (n, who)
                assert not a.in_play or f"    In play: {'; '.join(a.in_play)}" in out
            elif ch.outcome is not None and ch.tests:
                assert a.verdict is not None and f"    {verdict_line(a.verdict)}" in out
            assert f"[{cid}]" not in out and not re.search(r"\[(lotn|bns):", out)
            assert a.title not in out or f"[{cid}] {a.title}" in terminal_of(state, who, ids=True)


def test_the_overbid_says_the_trait_bid_and_the_trait_risked() -> None:
    records = played(EXAMPLES / "demo.jsonl")
    overbid = next(r.seq for r in records if r.type == "retest_invoked" and r.event.challenge == "flattery")  # type: ignore[attr-defined]
    state = fold(records[:overbid])
    assert "    You bid Beguiling; on the overbid, you risk Seductive" in terminal_of(state, "favian")
    assert "    Favian bids Beguiling; on the overbid, Favian risks Seductive" in terminal_of(state, "st")


def test_a_ruling_s_reason_reaches_the_terminal() -> None:
    """The demo's first result overturned with a reason: the terminal of the side it touches says
    the new verdict with the Storyteller's own words, as the account does, once."""
    records = played(EXAMPLES / "demo.jsonl")
    resolved = next(r.seq for r in records if r.type == "challenge_resolved")
    service = SceneService(open_backend(None).store)
    script = "\n".join(
        [
            *(line for line in (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8").splitlines()),
            f'{{"id": "r1", "scene": "demo", "actor": "juan", "type": "dispute", "event": {resolved}, '
            '"reason": "late"}',
            f'{{"id": "r2", "scene": "demo", "actor": "st", "type": "rule", "event": {resolved}, '
            '"decision": "overturn", "reason": "Sam threw late"}',
        ]
    )
    _, scenes = play_script(service, io.StringIO(script), io.StringIO())
    records = list(service.store.read(scenes[-1]))
    ruling = next(r for r in records if r.type == "ruling_issued")
    state = fold(records)
    cid = ruling.event.challenge  # type: ignore[attr-defined]
    a = told(seen(state, "sam")["challenges"][cid])
    assert (
        a is not None and a.verdict is not None and a.verdict.ruled == "overturned by the Storyteller: Sam threw late"
    )
    events = [wire(r) for r in records if r.seq >= ruling.seq]
    now = seen(state, "sam")
    said = [line for line in News("sam").take(commit(1, events, view=now), now) if "»" in line[:1]]
    ruled = [line for line in said if line.startswith("» Ruling")]
    assert ruled == [f"» Ruling: You challenge Juan (Physical): {verdict_line(a.verdict)}."]
    assert (
        "You lost: you lose Ferocious (overturned by the Storyteller: Sam threw late. First given: You won)" in ruled[0]
    )
    lines = challenge_lines(seen(state, "sam"), "sam")
    assert f"    {verdict_line(a.verdict)}" in lines
    with_ids = News("sam", ids=True).take(commit(1, events, view=now), now)
    assert f"» Ruling: [{cid}] You challenge Juan (Physical): You lost" in "\n".join(with_ids)
    assert "[lotn:adjudication]" in "\n".join(with_ids)
