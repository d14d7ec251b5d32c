"""kony at the terminal (``justicar join``): a fair escape offered before anyone declares, the
expenditures phase (``done``), a roll naming Brawl with dice rolled by hand (``values=``, where
the scene lets players enter their own), the other side seeing only that Sam rolled, both sides'
dice once both are in, and feeding on the one held (kony:d3-test, kony:expenditures,
kony:feeding)."""

from __future__ import annotations

import sys

import anyio
import msgspec
import pytest

from clients.terminal import Unclear, parse, parse_effect, parse_source, source_word
from domain.commands import parse_command
from server.app import running
from server.backend import open_backend
from server.service import SceneService

pytestmark = pytest.mark.anyio

SAM = {
    "id": "sam",
    "name": "Sam",
    "traits": {"physical": {"Brawny": 3, "Quick": 2}},
    "abilities": {"Brawl": 2, "Blind Fighting": 1},
    "powers": ["Potence"],
    "blood": 10,
}
JUAN = {"id": "juan", "name": "Juan", "traits": {"physical": {"Strong": 4}}, "blood": 10, "armor": 2}


def test_sources_and_verbs_parse() -> None:
    throwing = {"status": "throwing", "challenger": "sam", "targets": ["juan"]}
    view = {"characters": {"juan": {"name": "Juan"}}, "challenges": {"g": throwing}}
    assert parse_source("ability:Blind_Fighting") == {"category": "ability", "name": "Blind Fighting"}
    assert parse_source("sheet") == {"category": "sheet"}
    assert source_word({"category": "ability", "name": "Blind Fighting"}) == "ability:Blind_Fighting"
    assert parse("roll ability:Brawl values=1,3", view, "sam") == {
        "type": "roll",
        "challenge": "g",
        "retests": [{"category": "ability", "name": "Brawl"}],
        "values": [1, 3],
    }
    answering = {"status": "awaiting_response", "challenger": "sam", "targets": ["juan"]}
    asked = {"characters": {"sam": {"name": "Sam"}}, "challenges": {"g": answering}}
    assert parse("bid Strong effect=damage:2:lethal : I break his arm", asked, "juan") == {
        "type": "bid",
        "challenge": "g",
        "bid": ["Strong"],
        "victory": "I break his arm",
        "effect": {"kind": "damage", "amount": 2, "type": "lethal"},
    }
    assert parse("bid g Strong effect=grapple", asked, "juan")["effect"] == {"kind": "grapple"}
    assert parse("declare c juan physical Brawny effect=knock_down down he goes", asked, "sam")["effect"] == {
        "kind": "knock_down"
    }
    assert parse_effect("damage") == {"kind": "damage", "amount": 1, "type": "bashing"}
    with pytest.raises(Unclear):
        parse_effect("damage:1:wet")
    assert parse("feed Juan 2", view, "sam") == {"type": "feed", "target": "juan", "blood": 2}
    assert parse("done", view, "sam") == {"type": "expenditures_done"}
    assert parse("escape", view, "sam") == {"type": "declare_action", "action": {"kind": "fair_escape"}}


async def test_a_kony_roll_at_the_terminal() -> None:
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "kony", "options": {"kony": {"dice": "players"}}}]
    setup += [{"type": "add_character", "character": c} for c in (SAM, JUAN)]
    setup += [{"type": "adjust", "character": "juan", "changes": {"down_traits": 1}, "reason": "smoke"}]
    setup += [{"type": "start_round"}]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "k", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("k", "player", who)[0] for who in ("sam", "juan")}

    async with running(backend) as live:

        async def terminal(who: str, moves: str) -> str:
            with anyio.fail_after(20):
                done = await anyio.run_process(
                    [sys.executable, "-m", "clients.cli", "join", live.url, "--token", tokens[who]],
                    input=moves.encode(),
                    check=False,
                )
            assert done.returncode == 0, done.stderr.decode()
            return str(done.stdout.decode())

        out = await terminal("sam", "help\nview\nact other grab him\nquit\n")
        assert "  roll [#N] [SOURCE…] [values=1,3]   roll your d3s" in out
        assert "feed TARGET [N]        feed on the one you hold in a grapple" in out
        assert "done                   your expenditures are declared" in out
        assert "you may: escape" in out  # nobody has declared yet
        assert "ok (declare_action)" in out

        out = await terminal("juan", "view\nact other hit him\ndone\nquit\n")
        assert "you may: escape" not in out  # Sam has declared: too late
        assert "Expenditures: waiting for Sam, Juan" in out
        assert "you may: done" in out
        assert "ok (expenditures_done)" in out and "Expenditures: waiting for Sam" in out

        out = await terminal("sam", "done\ndeclare g juan physical Brawny effect=knock_down I hold him\nquit\n")
        assert "ok (expenditures_done)" in out and "ok (declare)" in out
        out = await terminal("juan", "view\nbid Strong effect=damage:2:lethal : I break his arm\nquit\n")
        assert "you may: bid TRAIT [effect=EFFECT] [: victory…], or relent" in out and "ok (bid)" in out
        stakes = (
            "    If Sam wins: you lose Strong; you are knocked prone\n"
            "    If you win: Sam loses Brawny; Sam takes 2 lethal damage"
        )
        assert stakes in out  # Juan reads what winning does, as the ruleset will apply it
        assert "Armour 2 left" in out and "down 1 Trait(s)" in out

        moves = "view\nroll ability:Occult\nroll ability:Brawl values=1\nroll ability:Brawl values=1,1\nquit\n"
        out = await terminal("sam", moves)
        assert "Your Trait Pool (for ties): 5 Traits (Physical 5; at most 30)" in out
        offer = "(1 d3 as it stands; sources, one more die each: ability:Blind_Fighting ability:Brawl power:Potence)"
        assert f"you may: roll [SOURCE…] [values=…] {offer}" in out
        assert "refused: You have no Occult left to spend" in out
        assert "refused: You roll 2 d3s (1 + 1 retest = 2 d3); enter 2 values.\n" in out
        assert "ok (roll)" in out and "your sealed dice: 1, 1, naming ability:Brawl" in out
        assert "you may: wait for Juan to roll" in out

        out = await terminal("juan", "view\nroll values=3\nquit\n")
        assert (
            "rolled (sealed): Sam" in out
            and "Sam's sealed dice" not in out
            and "1, 1" not in out.split("Just resolved")[0]
        )
        assert "ok (roll)" in out
        assert (
            "Just resolved: Sam challenges you (Physical)\n"
            "    Test 1: Sam rolled 1, 1, you rolled 3: 2 successes against 0; Sam has more and wins the test.\n"
            "    You lost: you lose Strong; you are knocked prone\n"
        ) in out  # Juan's own terminal: "you"
        assert "» Result: Sam challenges you (Physical): You lost: you lose Strong; you are knocked prone." in out
        assert (
            "» Sam wins the challenge. Sam rolled 1, 1, you rolled 3: 2 successes against 0; Sam has more and wins"
            in out
        )
        assert "lost tonight: Strong" in out

        out = await terminal("sam", "view\nend\nquit\n")
        assert (
            "Just resolved: You challenge Juan (Physical)\n"
            "    Test 1: You rolled 1, 1, Juan rolled 3: 2 successes against 0; you have more and win the test.\n"
            "    You won: Juan loses Strong; Juan is knocked prone\n"
        ) in out
        assert "Abilities: Blind Fighting 1, Brawl 1" in out  # the level named is spent
