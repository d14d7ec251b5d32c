"""What each viewer is told of a ruling (``projections.ruled``): the players it touches, each in the
second person with what it gave or took from them; another player and a spectator nothing; the
Storyteller every ruling whole, by names. Made from the ruling's own events, kept on its record
(``RulingRecord.did``), so a replay of the log tells the same."""

from __future__ import annotations

import msgspec

from domain.events import CharacterAdjusted, TraitLost, TraitRestored
from domain.state import NARRATOR
from projections.replay import replay
from projections.ruled import ruled, ruled_elsewhere, tonight, was_in
from projections.views import SPECTATOR, view
from server import snapshots
from tests.table import Table


def fight() -> Table:
    """Sam beats Juan (Juan loses Quick); Ana watches from the same scene."""
    t = Table()
    t.add("sam", {"Brawny": 2})
    t.add("juan", {"Quick": 2})
    t.add("ana", {"Wiry": 1}, willpower=2)
    t.contest("hit", "sam", "juan", "Brawny", "Quick")
    t.test("hit", "rock", "scissors")
    t.do("juan", "pass", challenge="hit")
    assert t.lost("juan") == ["Quick"]
    return t


def test_an_overturn_tells_each_side_what_it_got_back_and_lost() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("juan", "dispute", event=result, reason="Sam was still prone")
    t.do("st", "rule", event=result, decision="overturn", reason="Sam was prone: Juan wins")
    assert t.lost("juan") == [] and t.lost("sam") == ["Brawny"]

    (juan,) = ruled(t.state, "juan")
    assert juan.decision == "overturn" and juan.reason == "Sam was prone: Juan wins"
    assert juan.words == "The Storyteller overturned the result of “Sam challenges you (Physical)”: you get Quick back."
    assert juan.changed == ["you get Quick back"]
    assert juan.also == ["Sam loses Brawny"]  # a Trait lost is told to the table, as the account tells it

    (sam,) = ruled(t.state, "sam")
    assert sam.words == "The Storyteller overturned the result of “You challenge Juan (Physical)”: you lose Brawny."
    assert sam.changed == ["you lose Brawny"] and sam.also == ["Juan gets Quick back"]
    assert sam.about == "the result of “You challenge Juan (Physical)”"  # a quoted title begins as a sentence

    assert ruled(t.state, "ana") == []  # not in it, disputed nothing, nothing of hers changed
    assert ruled(t.state, SPECTATOR) == []
    (st,) = ruled(t.state, NARRATOR)
    assert st.changed == ["Juan gets Quick back", "Sam loses Brawny"] and st.also == []
    assert "you" not in st.words.lower().split()


def test_the_view_carries_it_to_the_touched_player_only() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("st", "rule", event=result, decision="overturn", reason="Sam was prone")
    assert [r.changed for r in view(t.state, "juan").ruled] == [["you get Quick back"]]
    assert view(t.state, "juan").characters["juan"].traits_lost == []  # the sheet says so too
    assert view(t.state, "sam").characters["sam"].traits_lost == ["Brawny"]
    assert view(t.state, "ana").ruled == [] and view(t.state, SPECTATOR).ruled == []
    patch = view(t.state, "juan", only=(["juan"], []))
    assert patch.ruled == view(t.state, "juan").ruled  # a patch carries it whole


def test_an_amend_that_takes_a_trait_tells_that_player_and_keeps_it_from_the_others() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do(
        "st",
        "rule",
        event=result,
        decision="amend",
        correction={"character": "sam", "changes": {"lose_traits": ["Brawny"]}},
        reason="Sam's Brawny was already spent tonight",
    )
    assert t.lost("sam") == ["Brawny"]
    (sam,) = ruled(t.state, "sam")
    assert sam.changed == ["you lose Brawny"]
    assert sam.words == "The Storyteller amended the result of “You challenge Juan (Physical)”: you lose Brawny."
    assert sam.reason == "Sam's Brawny was already spent tonight"
    (juan,) = ruled(t.state, "juan")  # in the challenge: told of the ruling, not of Sam's sheet
    assert juan.changed == [] and juan.also == [] and "nothing of yours changes" in juan.words
    assert ruled(t.state, "ana") == []
    (st,) = ruled(t.state, NARRATOR)
    assert st.changed == ["Sam loses Brawny"]


def test_an_upheld_dispute_tells_the_disputant_it_stands() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("ana", "dispute", event=result, reason="I saw Juan dodge")
    t.do("st", "rule", event=result, decision="uphold", reason="The throw stands")
    (ana,) = ruled(t.state, "ana")  # she disputed it: she is told
    assert ana.words == "The Storyteller upheld the result of “Sam challenges Juan (Physical)”: it stands."
    assert ana.changed == [] and ana.reason == "The throw stands"


def test_the_ruling_keeps_its_own_events_and_a_replay_tells_the_same() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("st", "rule", event=result, decision="overturn", reason="Sam was prone")
    t.do("st", "adjust", character="juan", changes={"lose_traits": ["Quick"]}, reason="a bruise")  # not the ruling's
    (record,) = t.state.rulings
    assert [type(e) for e in record.did] == [TraitRestored, TraitLost]
    assert record.did[1].character == "sam"
    replayed = t.replayed()
    assert replayed.rulings == t.state.rulings
    for who in ("sam", "juan", "ana", SPECTATOR, NARRATOR):
        assert ruled(replayed, who) == ruled(t.state, who)
    tired = {"character": "ana", "changes": {"willpower": -1}}
    amend = t.do("st", "rule", event=result, decision="amend", correction=tired, reason="x")
    adjusted = [e for e in amend if isinstance(e, CharacterAdjusted)]
    assert adjusted and adjusted[0].ruling == t.state.rulings[-1].id
    assert t.state.rulings[-1].did == tuple(adjusted)
    (ana,) = ruled(t.state, "ana")
    assert ana.changed == ["you lose a Willpower Trait"]


def test_tonight_lists_a_player_s_results_from_other_scenes_with_the_step_to_dispute() -> None:
    t = fight()
    resolved = t.state.challenges["hit"].resolved_seq
    (juan,) = tonight([t.state], "juan", here="elsewhere")
    assert juan.step == resolved and juan.challenge == "hit"
    assert juan.title == "Sam challenges you (Physical)" and juan.words.startswith("You lost")
    assert tonight([t.state], "juan", here=t.state.id) == []  # the scene it is in shows its own
    assert tonight([t.state], "ana", here="elsewhere") == []  # she was in no challenge there
    assert was_in(t.state, "juan", resolved) and not was_in(t.state, "ana", resolved)
    assert not was_in(t.state, "juan", resolved + 50)


def test_what_a_ruling_did_reaches_nobody_through_the_rulings_list() -> None:
    """The view's ``rulings`` (everyone's) and a replay's changes leave out the ruling's events: an
    amend's adjusted sheet is its player's (and the Storyteller's) to read, in ``ruled``."""
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    secret = {"character": "ana", "changes": {"willpower": -1}}
    t.do("st", "rule", event=result, decision="amend", correction=secret, reason="x")
    assert t.state.rulings[-1].did
    listed = msgspec.json.encode(view(t.state, "sam").rulings).decode()
    assert "willpower" not in listed and '"did"' not in listed and '"character_adjusted"' not in listed
    for step in replay(t.log, "sam"):
        assert all("did" not in c.path for c in step.changes)
    assert ruled(t.state, "ana")[0].changed == ["you lose a Willpower Trait"]


def test_a_ruling_in_another_scene_is_told_with_its_scene() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("st", "rule", event=result, decision="overturn", reason="Sam was prone")
    (juan,) = ruled_elsewhere([t.state], "juan", here="elsewhere")
    assert (juan.scene, juan.scene_title) == (t.state.id, "test")
    assert juan.changed == ["you get Quick back"] and juan.reason == "Sam was prone"
    assert ruled_elsewhere([t.state], "juan", here=t.state.id) == []  # the view there tells it
    assert ruled_elsewhere([t.state], "ana", here="elsewhere") == []


def test_a_snapshot_keeps_what_each_ruling_did() -> None:
    t = fight()
    result = t.state.challenges["hit"].resolved_seq
    t.do("st", "rule", event=result, decision="overturn", reason="Sam was prone")
    tired = {"character": "ana", "changes": {"willpower": -1}}
    t.do("st", "rule", event=result, decision="amend", correction=tired, reason="x")
    again = snapshots.decode(snapshots.encode(t.state))
    assert again.rulings == t.state.rulings and all(r.did for r in again.rulings)
    assert ruled(again, "ana") == ruled(t.state, "ana")
