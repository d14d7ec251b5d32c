"""The terminal says what each live commit did once its view holds it: commands committed together
arrive as commits back to back, only the last with the view patch, and a result named from a view
that has not yet merged its challenge would name nobody."""

from __future__ import annotations

from typing import Any

from clients.terminal import News


def commit(version: int, events: list[dict[str, Any]], view: dict[str, Any] | None = None) -> dict[str, Any]:
    words = [f"event {event['type']}" for event in events]
    message: dict[str, Any] = {"type": "commit", "version": version, "events": events, "summaries": words}
    if view is not None:
        message["view"] = view
    return message


PEOPLE = {"sam": {"name": "Sam"}, "juan": {"name": "Juan"}}
DECLARED = {"type": "challenge_declared", "data": {"challenge": "c"}}
RESOLVED = {"type": "challenge_resolved", "data": {"challenge": "c", "winner": "defender"}}
AFTER = {"characters": PEOPLE, "challenges": {"c": {"challenger": "sam", "targets": ["juan"], "status": "resolved"}}}


def test_a_commit_without_its_view_waits_for_its_groups_last() -> None:
    news, before = News("sam"), {"characters": PEOPLE, "challenges": {}}
    assert news.take(commit(5, [DECLARED, RESOLVED]), before) == []  # its view comes with the next
    said = news.take(commit(6, [{"type": "character_adjusted", "data": {}}], view=AFTER), AFTER)
    assert said == [
        "» event challenge_declared",
        "» event challenge_resolved",
        "» Result [c]: you lost to Juan.",
        "» event character_adjusted",
    ]
    alone = news.take(commit(7, [RESOLVED], view=AFTER), AFTER)  # a commit on its own is said at once
    assert alone == ["» event challenge_resolved", "» Result [c]: you lost to Juan."]


def test_a_catch_up_after_a_reconnect_is_said_once_its_whole_view_has_come() -> None:
    news = News("juan")
    assert news.take(commit(5, [DECLARED, RESOLVED]), {}) == []
    assert news.take({"type": "view", "full": True, "view": AFTER}, AFTER)[-1] == "» Result [c]: you won against Sam."
    assert news.take({"type": "view", "full": True, "view": AFTER}, AFTER) == []
