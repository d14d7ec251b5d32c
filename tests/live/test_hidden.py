"""Over random games, no player's stream ever carries another side's sealed sign: not in events,
not in views, not in catch-up; nor the Storyteller's, while it still has to throw for the other
side (an NPC, the Narrator: ``projections.redact.blind``). The frames checked are the ones the room
writes to the socket."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings

from domain.state import NARRATOR, Scene
from projections.redact import Blind, blind
from server.wire import after_commit, commit_frames, joined_frames
from tests.test_properties import AT0, PEOPLE, Move, _apply, _new_service, game

_decode = msgspec.json.Decoder()


def leaks(frames: list[bytes], viewer: str) -> list[str]:
    """Every sign of someone else's sealed throw in these frames."""
    found = []
    for frame in frames:
        message: dict[str, Any] = _decode.decode(frame)
        for event in message.get("events") or []:
            data = event["data"] if event["type"] == "throw_sealed" else {}
            if data and data["character"] != viewer and data["sign"] is not None:
                found.append(f"event {event['seq']}: {data['sign']}")
        if message.get("view"):
            for cid, ch in message["view"]["challenges"].items():
                for who, sign in ch.get("sealed", {}).items():
                    if who != viewer:
                        found.append(f"view of {cid}: {who} {sign}")
    return found


def blind_leaks(frames: list[bytes], hidden: Blind) -> list[str]:
    """Every sign in these frames of a sealed throw ``hidden`` keeps from the Storyteller."""
    found = []
    sides = {(cid, who) for cid, _, who in hidden}
    for frame in frames:
        message: dict[str, Any] = _decode.decode(frame)
        for event in message.get("events") or []:
            data = event["data"] if event["type"] == "throw_sealed" else {}
            if data and (data["challenge"], data["test"], data["character"]) in hidden and data["sign"] is not None:
                found.append(f"event {event['seq']}: {data['sign']}")
        for cid, ch in (message.get("view") or {}).get("challenges", {}).items():
            found += [
                f"view of {cid}: {who} {sign}" for who, sign in ch.get("sealed", {}).items() if (cid, who) in sides
            ]
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game())
def test_no_player_sees_another_sides_sealed_sign(moves: list[Move]) -> None:
    service = _new_service()
    sealed_seen = 0
    for n, (body, _, entropy) in enumerate(moves, start=1):
        handled_before = service.store.head("s")[0]
        _apply(service, n, body, entropy, AT0 + timedelta(seconds=n))
        records = list(service.store.read("s", after=handled_before))
        if not records:
            continue
        state = service.state("s")
        sealed_seen += sum(r.type == "throw_sealed" and r.event.character != NARRATOR for r in records)  # type: ignore[union-attr]
        for viewer in [*PEOPLE, "*"]:
            assert leaks(after_commit(state, records, viewer), viewer) == []
        assert blind_leaks(after_commit(state, records, NARRATOR), blind(state, NARRATOR)) == []
    everything = list(service.store.read("s"))
    final = service.state("s")
    for viewer in [*PEOPLE, "*"]:
        frames, _ = commit_frames(everything, viewer, Scene())
        assert leaks([*frames, *joined_frames(final, 0, viewer)], viewer) == []
    st_frames = after_commit(final, everything, NARRATOR)
    hidden = blind(final, NARRATOR)
    assert blind_leaks(st_frames, hidden) == []
    # the ST sees every other sealed sign: once both are in, or where it only watches
    assert len(leaks(st_frames, NARRATOR)) >= sealed_seen - len(hidden)
