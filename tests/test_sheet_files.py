"""Sheet files (``justicar game new``) name every problem at once, each with its file and field,
closed and open alike; what the rules leave open is kept with ``--as-written``, what they close never."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.cli import main
from server.store.sqlite import SqliteStore


def written(tmp_path: Path, name: str, sheet: dict[str, object]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(sheet))
    return str(path)


NINE = dict.fromkeys(["dexterity", "stamina", "charisma", "manipulation", "composure", "intelligence", "wits"], 2)
NINE |= {"resolve": 2}


def test_every_problem_of_every_file_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vincent = {"id": "vincent", "name": "Vincent", "attributes": {**NINE, "strenght": 3}, "skills": {"Brwal": 2}}
    hunter = {"id": "hunter", "name": "Hunter", "attributes": {**NINE, "strength": 8}, "skills": {"firearms": 3}}
    files = [written(tmp_path, "vincent", vincent), written(tmp_path, "hunter", hunter)]
    db = tmp_path / "t.db"
    code = main(["game", "new", "--db", str(db), "--ruleset", "bns", *files])
    err = capsys.readouterr().err
    assert code == 1 and "nothing opened" in err
    assert f"{files[0]}: attributes.strenght: “strenght” is not an attribute" in err and "Did you mean Strength?" in err
    assert f"{files[0]}: skills.Brwal: “Brwal” is not a name the rules use: did you mean brawl?" in err
    assert f"{files[1]}: attributes.strength: Strength 8: attributes run 1 to 5 dots" in err
    assert "--as-written" in err
    assert not db.exists() or SqliteStore(db).scenes() == []

    # the hunter's Strength 8 is kept as written; Vincent's "strenght" is no attribute, as written or not
    code = main(["game", "new", "--db", str(db), "--ruleset", "bns", "--as-written", *files])
    err = capsys.readouterr().err
    assert code == 1 and "attributes.strenght" in err and "attributes.strength" not in err
    code = main(["game", "new", "--db", str(db), "--ruleset", "bns", "--as-written", "--game", "fri", files[1]])
    assert code == 0, capsys.readouterr().err
