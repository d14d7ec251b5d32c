"""One account of every fight (issue 26): the Storyteller's view, the replay's step, the audit in
its three formats and the terminal say the same facts of each challenge, because each renders the
one account ``projections.account`` makes; none of them composes a fact of its own."""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path

import msgspec
import pytest

from clients.offline import play_script
from clients.terminal import status
from domain.evolve import fold
from domain.log import Recorded, to_wire
from projections.account import Account, account
from projections.account_text import verdict_line
from projections.audit import audit
from projections.audit_render import html, markdown
from projections.replay import replay
from projections.views import view
from server.backend import open_backend
from server.service import SceneService
from tests.table import Table

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def played(example: str) -> list[Recorded]:
    service = SceneService(open_backend(None).store)
    _, scenes = play_script(service, (EXAMPLES / f"{example}.jsonl").open(encoding="utf-8"), io.StringIO())
    return list(service.store.read(scenes[-1]))


def ruled() -> list[Recorded]:
    """A challenge overturned by a ruling with the Storyteller's reason."""
    t = Table()
    t.add("sam", {"Brawny": 3})
    t.add("juan", {"Wiry": 3})
    t.contest("hit", "sam", "juan", "Brawny", "Wiry", effect={"kind": "damage", "amount": 1, "type": "lethal"})
    t.test("hit", "rock", "scissors")
    t.do("juan", "pass", challenge="hit")
    t.do("st", "rule", event=t.state.challenges["hit"].resolved_seq, decision="overturn", reason="Juan had cover")
    return t.log


def bare(text: str) -> str:
    """Text without its spacing (the HTML lays a pool's parts out on lines of their own)."""
    return re.sub(r"\s+", "", text)


def facts(a: Account) -> list[str]:
    """The sentences a reader must find: what each side put up, each test, the verdict, each effect."""
    return [
        *(s.words for s in a.sides),
        *(t.words for t in a.tests),
        *(r.words for r in a.retests),
        *([a.verdict.words] if a.verdict else []),
        *(e.words for e in a.effects),
        *(r.reason for r in a.rulings),
    ]


@pytest.mark.parametrize("example", ["demo", "bns-fight", "kony", "camarilla", "ruled"])
def test_every_surface_says_the_same_facts(example: str) -> None:
    records = ruled() if example == "ruled" else played(example)
    state = fold(records)
    wires = [to_wire(r) for r in records]
    audited = audit(wires)
    md, text = markdown(audited), bare(unescape(re.sub(r"<[^>]+>", "", html(audited))))
    as_json = msgspec.json.decode(msgspec.json.encode(audited))["challenges"]
    steps = list(replay(records))
    st = view(state, "st")
    terminal = status(msgspec.to_builtins(st), {"character": None, "role": "st", "scene": state.id}, False)
    checked = 0
    for ch in state.in_order():
        told = account(state, ch)
        # the audit's JSON is the account; its Markdown and HTML say each of its sentences
        assert msgspec.convert(next(c for c in as_json if c["id"] == ch.id), Account) == told
        for sentence in facts(told):
            assert sentence in md, (ch.id, sentence)
            assert bare(sentence) in text, (ch.id, sentence)
        # the Storyteller's live view carries the very same account
        shown = st.challenges.get(ch.id)
        assert shown is None or shown.account == told
        # the replay's last step of the challenge tells it as it then stood: the same facts
        last = [s for s in steps if s.challenge == ch.id and s.account is not None][-1]
        assert last.account is not None
        assert facts(last.account) == facts(told), ch.id
        checked += 1
    assert checked >= 1
    # the terminal says the last result in the account's own words
    last = max((ch for ch in state.challenges.values() if ch.outcome), key=lambda ch: ch.resolved_seq or 0)
    told = account(state, last)
    assert told.verdict is not None and f"    {verdict_line(told.verdict)}" in terminal
