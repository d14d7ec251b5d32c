"""What the web pages ask of the socket: events in words, moves, the ST's replay as anyone with
the view at a step, audit and export documents, forks, QR codes, sheets checked field by field,
and NPCs that throw by themselves."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from benchmarks.scenes import brawl
from clients.client import Client
from server.app import Running, running
from server.backend import open_backend
from server.history import export_text
from server.service import SceneService
from tests.live.conftest import at_version, until

pytestmark = pytest.mark.anyio

DECLARE = {"type": "declare", "challenge": "c", "kind": "contested", "targets": ["juan"], "category": "physical"}


def get(live: Running, path: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(live.web + path, timeout=5) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read()


async def test_the_pages_and_the_rule_table_are_served_beside_the_socket(live: Running) -> None:
    for path in ("/", "/play", "/st", "/replay"):
        status, kind, body = await anyio.to_thread.run_sync(get, live, path)
        assert status == 200 and kind == "text/html; charset=utf-8" and b"<html" in body, path
    status, kind, body = await anyio.to_thread.run_sync(get, live, "/rules.json")
    assert status == 200 and kind == "application/json; charset=utf-8"
    assert msgspec.json.decode(body)["lotn:rps"]["source"] == "Laws of the Night"
    for path in ("/nowhere", "/static/../../server/app.py", "/static/%2e%2e/%2e%2e/pyproject.toml"):
        status, _, _ = await anyio.to_thread.run_sync(get, live, path)
        assert status == 404, path


async def test_commits_carry_each_event_in_words_for_who_asked(live: Running, tokens: dict[str, str]) -> None:
    async with (
        Client(live.url, tokens["sam"], summaries=True) as sam,
        Client(live.url, tokens["juan"], summaries=True) as juan,
        Client(live.url, tokens["spectator"]) as plain,
    ):
        sam.received, juan.received, plain.received = [], [], []
        for client in (sam, juan, plain):
            await client.subscribe()
        catch_up = [m for m in juan.received if m["type"] == "commit"]
        assert catch_up[1]["summaries"][0].startswith("Sam joins the scene")
        await sam.send({**DECLARE, "bid": ["Brawny"]})
        await juan.send({"type": "bid", "challenge": "c", "bid": ["Quick"]})
        await sam.send({"type": "throw", "challenge": "c", "sign": "paper"})
        await at_version(juan, 7)
        await at_version(plain, 7)

        def said(client: Client) -> list[str]:
            return [s for m in client.received if m["type"] == "commit" for s in m.get("summaries", [])]

        assert "You throw paper (sealed until both are in)." in said(sam)  # his own, in the second person
        assert "Sam throws (sealed until both are in)." in said(juan)  # not the sign
        assert said(plain) == []  # only for subscribers that asked
        moves = juan.view["challenges"]["c"]["moves"]["juan"]
        assert moves["verbs"] == ["throw"] and "sam" not in juan.view["challenges"]["c"].get("sealed", {})


async def test_the_st_replays_as_a_player_with_the_view_at_a_step(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st, Client(live.url, tokens["sam"]) as sam:
        await sam.send({**DECLARE, "bid": ["Brawny"]})
        await st.send({"type": "bid", "challenge": "c", "character": "juan", "bid": ["Quick"]})
        await st.send({"type": "throw", "challenge": "c", "character": "juan", "sign": "scissors"})
        as_sam = await st.request({"type": "replay", "from": 7, "to": 7, "as": "sam", "view": True}, "replay")
        assert as_sam["viewer"] == "sam" and as_sam["steps"][0]["summary"] == "Juan throws (sealed until both are in)."
        at_seven = as_sam["view"]
        assert at_seven["version"] == 7 and at_seven["challenges"]["c"]["thrown"] == ["juan"]
        assert "sealed" not in at_seven["challenges"]["c"] and "traits" not in at_seven["characters"]["juan"]
        refused = await sam.request({"type": "replay", "as": "juan"}, "error")
        assert refused["code"] == "forbidden"
        unknown = await st.request({"type": "replay", "as": "nobody"}, "error")
        assert unknown["code"] == "unknown_character"


async def test_the_st_downloads_the_audit_and_the_export_and_forks(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st, Client(live.url, tokens["sam"]) as sam:
        page = await st.request({"type": "audit", "format": "html"}, "document")
        assert page["name"] == "s1-audit.html" and page["media_type"] == "text/html"
        assert page["text"].startswith("<!doctype html>") and "The alley" in page["text"]
        export = await st.request({"type": "export"}, "document")
        lines = export["text"].splitlines()
        assert len(lines) == 5 and msgspec.json.decode(lines[0])["type"] == "scene_opened"
        end = msgspec.json.decode(lines[-1])["end"]
        assert end["events"] == 4 and end["head"] == msgspec.json.decode(lines[3])["hash"]
        assert (await sam.request({"type": "export"}, "error"))["code"] == "forbidden"
        forked = await st.request({"type": "fork", "at": 2, "scene": "what-if"}, "forked")
        assert forked["scene"] == "what-if" and forked["version"] == 3 and forked["grant"]["role"] == "st"
        async with Client(live.url, forked["token"]) as branch:
            await branch.subscribe()
            assert sorted(branch.view["characters"]) == ["sam"]  # events 1-2: the scene and Sam
        again = await st.request({"type": "fork", "at": 99}, "error")
        assert again["code"] == "bad_fork" and "events 1 to 4" in again["message"]


async def test_a_qr_code_for_an_invitation(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st:
        code = await st.request({"type": "qr", "text": "http://192.168.1.5:8765/play#token=jt_x"}, "qr")
        assert code["svg"].startswith('<svg xmlns="http://www.w3.org/2000/svg"') and code["text"].endswith("jt_x")


async def test_a_bad_sheet_names_every_wrong_field(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st:
        sheet: dict[str, Any] = {
            "id": "new one",
            "name": "Nova",
            "willpower": -1,
            "traits": {"physical": {"Brawny": "two", "Quick": 2}},
            "colour": "red",
        }
        reply = await st.send({"type": "add_character", "character": sheet})
        error = reply["error"]
        assert error["code"] == "bad_sheet"
        assert set(error["fields"]) == {"id", "willpower", "traits.physical.Brawny", "colour"}
        # each a sentence a player understands, with what was written
        fields = error["fields"]
        assert fields["traits.physical.Brawny"] == "Brawny (Physical Traits) must be a number (you wrote “two”)."
        assert fields["willpower"] == "Willpower must be at least 0 (you wrote “-1”)."
        assert fields["id"] == "The id takes letters, digits, dots, dashes and underscores only (you wrote “new one”)."
        assert fields["colour"].startswith("“colour” is not something a sheet holds (known: id, name,")


async def test_an_auto_npc_throws_by_itself(live: Running, tokens: dict[str, str]) -> None:
    async with Client(live.url, tokens["st"]) as st, Client(live.url, tokens["sam"]) as sam:
        rat = {"id": "rat", "name": "Rat", "npc": True, "auto": True, "traits": {"physical": {"Wiry": 1}}}
        await st.send({"type": "add_character", "character": rat})
        await sam.subscribe()
        await sam.send({**DECLARE, "targets": ["rat"], "bid": ["Quick"]})
        await st.send({"type": "bid", "challenge": "c", "character": "rat", "bid": ["Wiry"]})
        await until(sam, lambda c: c.view["challenges"]["c"]["thrown"] == ["rat"])
        await sam.send({"type": "throw", "challenge": "c", "sign": "rock"})
        await until(sam, lambda c: len(c.view["challenges"]["c"]["tests"]) == 1)
        test = sam.view["challenges"]["c"]["tests"][0]
        assert test["signs"]["rat"] in ("rock", "paper", "scissors")


async def test_documents_of_a_scene_on_disk_come_whole(tmp_path: Path) -> None:
    """With a SQLite file the audit and the export are made in a process of their own (they read
    the file read-only) and arrive whole, however many fragments they travel in."""
    backend = open_backend(str(tmp_path / "j.db"))
    brawl(3_000, scene="s1", service=SceneService(backend.store, honour_at=True))
    token, _ = backend.tokens.issue("s1", "st")
    async with running(backend) as live, Client(live.url, token) as st:
        page = await st.request({"type": "audit", "format": "md"}, "document")
        export = await st.request({"type": "export"}, "document")
    assert page["name"] == "s1-audit.md" and len(page["text"]) > 64 * 1024  # more than one fragment
    lines = export["text"].splitlines()
    assert len(lines) == 3_001 and msgspec.json.decode(lines[-1])["end"]["events"] == 3_000
    assert lines[:-1] == [line for line in export_text(backend.store, "s1").splitlines()[:-1]]
