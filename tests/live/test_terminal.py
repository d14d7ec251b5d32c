"""``justicar join``: a player's terminal, driven through its standard input."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import msgspec
import pytest
from anyio.abc import Process

from clients.client import Client, page_link
from clients.terminal import Unclear, address
from domain.commands import parse_command
from server.app import Running, running
from server.backend import open_backend
from server.service import SceneService
from tests.domain.test_bns import BRUTE, HUNTER, VINCENT
from tests.live.conftest import at_version
from tests.live.test_bns_fight_web import EDWARD, JULIAN, ROSA

pytestmark = pytest.mark.anyio


async def test_a_player_answers_a_challenge_from_the_terminal(live: Running, tokens: dict[str, str]) -> None:
    """Juan sees his sheet and Sam's challenge, in its account's words, with the moves he has, bids,
    throws; a refused move shows the reason, and with ``--ids`` the rule and the challenge's id."""
    async with Client(live.url, tokens["sam"]) as sam:
        await sam.subscribe()
        await sam.send(
            {
                "type": "declare",
                "challenge": "c",
                "kind": "contested",
                "targets": ["juan"],
                "category": "physical",
                "bid": ["Brawny"],
                "victory": "down you go",
            }
        )
        moves = "help\nthrow rock\nbid Brutal\ncall Lazy\nthrow paper\nbid Quick\nthrow scissors\nview\nquit\n"
        with anyio.fail_after(20):
            done = await anyio.run_process(
                [sys.executable, "-m", "clients.cli", "join", live.url, "--token", tokens["juan"], "--ids"],
                input=moves.encode(),
                check=False,
            )
        out = done.stdout.decode()
        assert done.returncode == 0, done.stderr.decode()
        assert "Connected to" in out and "── Juan (player) · The alley · scene s1 · step" in out
        assert "Traits: Physical 5, Social 0, Mental 0 (lost tonight: none)" in out
        assert "[c] Sam challenges you (Physical) · your answer is due\n    Sam bids Brawny\n" in out
        assert "    If Sam wins: “down you go”" in out  # what winning does, as the ruleset will apply it
        assert "you may: bid TRAIT, or relent" in out
        assert "refused: This is not the moment for a throw: the defender has not answered yet." in out
        assert "ok (bid)" in out
        assert "you may: bid 1 more Trait(s)" in out  # Lazy was a wrong call: Juan owes a Trait
        assert "refused: You must first bid 1 more Trait(s) for the Negative Trait call. [lotn:negative-traits]" in out
        assert "ok (throw)" in out and "your sealed throw: scissors" in out
        view = await at_version(sam, 9)
        assert view["challenges"]["c"]["calls"][0]["trait"] == "Lazy"
        assert "sealed" not in view["challenges"]["c"]  # Sam never sees Juan's sign before his own throw


async def test_a_bad_token_is_a_clear_error(live: Running) -> None:
    """A wrong token ends ``join`` with the server's reason, exit 1."""
    done = await anyio.run_process(
        [sys.executable, "-m", "clients.cli", "join", live.url, "--token", "jt_wrong"], input=b"", check=False
    )
    assert done.returncode == 1 and "unknown, revoked or expired" in done.stderr.decode()


async def test_a_player_declares_and_defends_with_pools(tmp_path: Path) -> None:
    """bns at the terminal: Vincent stares the hunter down with a Social pool, Brute defends a
    punch with a dodge; each sees the pools once the test shows them (bns:attack-pool)."""
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "bns"}] + [
        {"type": "add_character", "character": sheet} for sheet in (HUNTER, VINCENT, BRUTE)
    ]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "c", "actor": "st", **body}))
        assert service.handle(command).error is None
    vincent = backend.tokens.issue("c", "player", "vincent")[0]
    brute = backend.tokens.issue("c", "player", "brute")[0]
    async with running(backend) as live:
        moves = "declare gaze brute social intimidation +1 glare : he backs off\nview\nquit\n"
        with anyio.fail_after(20):
            done = await anyio.run_process(
                [sys.executable, "-m", "clients.cli", "join", live.url, "--token", vincent],
                input=moves.encode(),
                check=False,
            )
        out = done.stdout.decode()
        assert done.returncode == 0, done.stderr.decode()
        assert "Attributes: Physical 3, Social 10, Mental 5 · Skills: Dodge 2, Intimidation 5" in out
        assert "ok (declare)" in out
        assert "    Your social pool: Social 10 + Intimidation 5 + 1 (glare) = 16" in out
        moves = "view\ndefend dodge\ndefend social -1 rattled\nthrow rock\nview\nquit\n"
        with anyio.fail_after(20):
            done = await anyio.run_process(
                [sys.executable, "-m", "clients.cli", "join", live.url, "--token", brute],
                input=moves.encode(),
                check=False,
            )
        out = done.stdout.decode()
        assert done.returncode == 0, done.stderr.decode()
        assert "you may: defend DEFENSE [±N REASON] (social 5), or relent DEFENSE" in out
        assert "Vincent's social pool" not in out and "Vincent's pool is kept secret until the test" in out
        assert "refused: A Social challenge is resisted with social, not dodge.\n" in out  # no rule id: see --ids
        assert "ok (bid)" in out and "Your social pool: Composure 2 + Willpower 3 - 1 (rattled) = 4" in out


async def test_a_fair_escape_held_and_failed_at_the_terminal() -> None:
    """bns rounds at the terminal: Edward escapes on his turn, Rosa (who has not acted) says she
    will attack, Edward ends his turn and the escape is held; Rosa's Knock Down, from a step, fails
    it; Edward, prone, stands up out of turn and offers Rosa his help, which she accepts
    (bns:fair-escape-hold, bns:assist-attacker)."""
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "bns"}] + [
        {"type": "add_character", "character": sheet} for sheet in (JULIAN, EDWARD, ROSA)
    ]
    setup += [{"type": "start_round"}, {"type": "end_turn", "character": "julian"}]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "w", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("w", "player", who)[0] for who in ("julian", "edward", "rosa")}

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

        out = await terminal("edward", "help\nact fly\nescape\nquit\n")
        assert "escape                 a fair escape: first thing on your turn" in out
        assert "act KIND [STEPS] [WHAT…]: KIND is one of move, advanced_move" in out
        assert "Round 1: Julian 8 → Edward 6 → Rosa 5 · now acting: Edward (your turn)" in out
        assert "Actions left: 1 standard, 1 simple" in out
        assert "ok (declare_action)" in out and "Edward is trying to escape." in out

        out = await terminal("julian", "intend edward\nquit\n")
        assert "refused: You cannot announce an attack: only those who have not acted yet" in out
        out = await terminal("rosa", "view\nintend Edward\nquit\n")
        assert "Edward is escaping: intend edward to say you will attack" in out
        assert "ok (intend_attack)" in out and "Edward is trying to escape; Rosa will attack." in out

        out = await terminal("edward", "act draw knife\nend\nquit\n")
        assert "refused: You are trying to fair escape: no other action until the attempt fails." in out
        assert "ok (end_turn)" in out and "Edward's escape is held by Rosa." in out

        out = await terminal("rosa", "declare trip edward unarmed range=1 maneuver=knock_down : down he goes\nquit\n")
        assert "ok (declare)" in out and "Edward's escape failed." in out
        assert "Actions left: 0 standard, 1 simple" in out

        moves = "relent dodge\nact move 4\nact move 2\nact stand\nassist rosa plus_one I hold him\nquit\n"
        out = await terminal("edward", moves)
        assert "ok (relent)" in out and "Conditions: prone" in out and "Edward: prone" in out
        assert "refused: A move goes at most 3 steps.\n" in out
        assert "refused: You are prone: crawl a step, or stand and move one.\n" in out
        assert "ok (declare_action)" in out and "Actions left: 1 standard, 0 simple" in out
        assert "ok (assist)" in out

        out = await terminal("rosa", "view\nquit\n")
        offer = re.search(r"\[(\d+)\] Edward offers you \+1 on an attack: accept \1 or refuse \1", out)
        assert offer is not None, out
        out = await terminal("rosa", f"accept {offer[1]}\nquit\n")
        assert "ok (answer_assist)" in out and "Edward's help (+1 on an attack): accepted" in out


async def test_a_shield_and_a_quick_draw_at_the_terminal() -> None:
    """Julian attacks Edward; Rosa, not in it, sees she may shield him, does, and the attack is hers
    to answer (her simple action, bns:assist-defender); Julian Quick Draws his knife: free with
    Dexterity 4, and no action spent (bns:quick-draw)."""
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "bns"}] + [
        {"type": "add_character", "character": sheet} for sheet in (JULIAN, EDWARD, ROSA)
    ]
    punch = {"type": "declare", "character": "julian", "challenge": "punch", "kind": "contested"}
    punch |= {"targets": ["edward"], "category": "physical", "pool": {"attack": "unarmed"}, "victory": "ribs"}
    setup += [{"type": "start_round"}, punch]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "w", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("w", "player", who)[0] for who in ("julian", "edward", "rosa")}

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

        out = await terminal("rosa", "help\nshield\nshield 1 I step between them\nshield punch\nquit\n")
        assert "  shield #N [how…]       take a Physical attack in its defender's place" in out
        assert "act draw knife maneuver=quick_draw" in out  # the maneuvers that go with an action
        assert "#1 Julian challenges Edward (Physical) · waiting for Edward to answer" in out  # its number, no id
        assert "you may: shield 1 [how…] (take it for Edward: your simple action)" in out
        assert "shield #N [how…]: the number of the attack whose defender you shield." in out
        assert "punch" not in out.split("refused")[0]
        assert "ok (assist)" in out and "\nJulian challenges you (Physical) · your answer is due" in out
        assert "you may: defend DEFENSE [±N REASON] (dodge 2, parry 2, soak 3), or relent DEFENSE" in out
        assert "Actions left: 1 standard, 0 simple" in out
        assert "refused: You are already in that challenge.\n" in out

        out = await terminal("edward", "view\nquit\n")
        assert "you may: shield 1 [how…] (take it for Rosa: your simple action)" in out  # he is out of it

        out = await terminal("julian", "act draw knife maneuver=quick_draw\nview\nquit\n")
        assert "ok (declare_action)" in out and "Willpower 3" in out
        assert "Actions left: 0 standard, 1 simple" in out  # the attack took the standard; the draw nothing
        assert "0 standard, 0 simple" not in out


async def test_two_maneuvers_on_one_attack_at_the_terminal() -> None:
    """Julian offers Rosa a free maneuver and she accepts; Edward, with no such help, is refused a
    second maneuver; on her turn Rosa declares an attack with two, ``maneuver=hamstring,
    targeted_attack``: the assist pays for the first, a Willpower for the second, and her challenge
    line names both (bns:assist-attacker)."""
    backend = open_backend(None)
    service = SceneService(backend.store)
    setup = [{"type": "open_scene", "ruleset": "bns"}] + [
        {"type": "add_character", "character": sheet} for sheet in (JULIAN, EDWARD, ROSA)
    ]
    setup += [
        {"type": "start_round"},
        {"type": "assist", "character": "julian", "kind": "attacker", "to": "rosa", "benefit": "maneuver"},
    ]
    for n, body in enumerate(setup):
        command = parse_command(msgspec.json.encode({"id": f"s{n}", "scene": "w", "actor": "st", **body}))
        assert service.handle(command).error is None
    tokens = {who: backend.tokens.issue("w", "player", who)[0] for who in ("julian", "edward", "rosa")}

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

        out = await terminal("rosa", "view\nquit\n")
        offer = re.search(r"\[(\d+)\] Julian offers you a free maneuver: accept \1 or refuse \1", out)
        assert offer is not None, out
        out = await terminal("rosa", f"accept {offer[1]}\nquit\n")
        assert "ok (answer_assist)" in out and "Julian's help (a free maneuver): accepted" in out
        out = await terminal("julian", "end\nquit\n")
        assert "ok (end_turn)" in out

        two = "maneuver=hamstring,targeted_attack"
        out = await terminal("edward", f"declare jab rosa unarmed {two} : ribs\nend\nquit\n")
        assert (
            "refused: You may use a second maneuver on one attack only with an Assist Attacker's free one.\n"
        ) in out
        assert "ok (end_turn)" in out

        moves = (
            "help\n"
            "declare cut edward unarmed maneuver=hamstring,targeted_attack,disarm : no\n"
            "declare cut edward unarmed maneuver=hamstring,hamstring : no\n"
            f"declare cut edward unarmed range=1 {two} : his leg\n"
            "view\nquit\n"
        )
        out = await terminal("rosa", moves)
        assert "  declare … maneuver=FIRST,SECOND   two maneuvers on one attack" in out
        assert "maneuver=NAME, or maneuver=FIRST,SECOND (two, with an assist's free maneuver)." in out
        assert "refused: Two maneuvers on one attack must be two different ones.\n" in out
        assert "ok (declare)" in out
        assert "You challenge Edward (Physical · Hamstring · Targeted Attack) · waiting for Edward to answer" in out
        assert "(Physical · Hamstring · Targeted Attack)" in out  # the maneuvers, in its heading
        assert "    In play: from 1 step" in out
        assert "    If you win: Edward is hamstrung" in out  # what winning does, as the ruleset applies it
        assert "Willpower 2 · Health" in out  # 3, less the second maneuver's; the assist paid the first
        assert "Julian's help (a free maneuver)" not in out.rpartition("ok (declare)")[2]  # spent


class Terminal:
    """``justicar join`` left running, typed into line by line, its output read as it comes."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self.raw = b""

    @property
    def out(self) -> str:
        return self.raw.decode(errors="replace")

    async def type(self, line: str) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(f"{line}\n".encode())

    async def expect(self, text: str, seconds: float = 30) -> str:
        """Read until ``text`` shows; return what came after it."""
        assert self.process.stdout is not None
        with anyio.fail_after(seconds):
            while text not in self.out:
                self.raw += await self.process.stdout.receive()
        return self.out.split(text, 1)[1]


async def terminal(*args: str) -> Terminal:
    return Terminal(await anyio.open_process([sys.executable, "-m", "clients.cli", "join", *args]))


async def test_the_other_side_s_throw_and_the_result_show_at_the_terminal(
    live: Running, tokens: dict[str, str]
) -> None:
    """Sam joins with the link ``serve`` prints, the Storyteller with the console's link, Juan the old
    way: Sam reads that Juan has thrown, never what, until he throws himself; when the challenge
    resolves each terminal says who won and what was lost, to Sam in the second person."""
    sam = await terminal(f"{live.web}/play#token={tokens['sam']}")
    st = await terminal(f"{live.web}/st#token={tokens['st']}")
    juan = await terminal(live.url, "--token", tokens["juan"])
    try:
        await sam.expect("── Sam (player) · The alley · step")
        await st.expect("── the Narrator (st) · The alley · step")
        await juan.expect("── Juan (player) · The alley · step")
        await sam.type("declare c juan physical Brawny down you go")
        await juan.expect("Sam challenges you (Physical)")
        await juan.type("bid Quick")
        await juan.type("throw rock")
        await juan.expect("your sealed throw: rock")
        await sam.expect("» Juan throws (sealed until both are in).")
        await sam.expect("    Juan has thrown (sealed until both are in)")
        assert "· your throw is due" in sam.out.rpartition("You challenge Juan (Physical)")[2]
        await st.expect("Juan's sealed throw: rock")
        assert "rock" not in sam.out  # that Juan threw, never what
        await sam.type("throw scissors")
        await sam.expect("» Test 1: you threw scissors, Juan threw rock: Juan wins.")  # Sam's own terminal
        await sam.type("pass")
        after = await sam.expect("» Result: You challenge Juan (Physical): You lost: you lose Brawny.")
        assert "Just resolved: You challenge Juan (Physical)\n" in sam.out
        assert "    You lost: you lose Brawny\n" in sam.out  # the account's verdict
        assert "» Result" not in after and "gone for the night" not in sam.out  # said once, in the account's words
        await juan.expect("» Result: Sam challenges you (Physical): You won: Sam loses Brawny.")
        await st.expect("» Result: Sam challenges Juan (Physical): Juan won: Sam loses Brawny.")
        for side in (sam, st, juan):
            await side.type("quit")
            with anyio.fail_after(10):
                assert await side.process.wait() == 0
    finally:
        for side in (sam, st, juan):
            if side.process.returncode is None:
                side.process.kill()
            await side.process.aclose()


def test_join_reads_the_link_serve_prints() -> None:
    """The page link gives the socket (the server's root) and the token; https gives wss; the old
    socket URL with --token still works; a link without a token, or two tokens, is refused; a
    link's scene names it in the socket URL (a proxy routes the first socket on it)."""
    assert address("http://192.168.1.20:8765/play#token=jt_abc") == ("ws://192.168.1.20:8765/", "jt_abc")
    assert address("https://table.example/st#token=jt_st") == ("wss://table.example/", "jt_st")
    assert address("ws://127.0.0.1:8765", "jt_x") == ("ws://127.0.0.1:8765", "jt_x")
    assert address("http://h:1/play#token=jt_a", "jt_a") == ("ws://h:1/", "jt_a")
    link = page_link("http://h:1", "play", "jt_a", "a scene")  # as serve prints it: routed from the first socket
    assert link == "http://h:1/play#token=jt_a&scene=a+scene"
    assert address(link) == ("ws://h:1/?scene=a+scene", "jt_a")
    for link, token in (("http://h:1/play", None), ("http://h:1/play#token=jt_a", "jt_b"), ("h:1", "jt_a")):
        with pytest.raises(Unclear):
            address(link, token)


async def test_a_link_without_a_token_is_a_clear_error() -> None:
    done = await anyio.run_process(
        [sys.executable, "-m", "clients.cli", "join", "http://127.0.0.1:9/play"], check=False
    )
    assert done.returncode == 2
    assert "No token: give the whole link (…#token=…)" in done.stderr.decode()
