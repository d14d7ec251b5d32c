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


def test_a_field_that_does_not_decode_hides_no_other_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review round 2: a weapon of kind "knife" was refused alone, as "Kind: Invalid enum value
    'knife'", naming no weapon; the same file's "strenght", Strength 12, "Brwal" and "dodge two"
    appeared only once it was fixed. Now every problem comes at once, each by its field, in a
    table's words."""
    rosa = {
        "id": "rosa",
        "name": "Rosa",
        "attributes": {**NINE, "strenght": 3, "strength": 12},
        "skills": {"Brwal": 2, "dodge two": 1},
        "weapons": [{"name": "Knife", "kind": "knife"}],
    }
    files = [written(tmp_path, "rosa", rosa)]
    code = main(["game", "new", "--db", str(tmp_path / "t.db"), "--ruleset", "bns", *files])
    err = capsys.readouterr().err
    assert code == 1
    said = (
        f"{files[0]}: weapons[0].kind: Weapon 1 (Knife): kind must be melee, thrown, archery or firearms"
        " (you wrote “knife”)."
    )
    assert said in err
    assert "Invalid enum" not in err
    assert f"{files[0]}: attributes.strenght: “strenght” is not an attribute" in err
    assert f"{files[0]}: attributes.strength: Strength 12" in err
    assert f"{files[0]}: skills.Brwal: “Brwal” is not a name the rules use: did you mean brawl?" in err
    assert f"{files[0]}: skills.dodge two: “dodge two”: write how many as a number" in err


def test_the_console_s_refusal_names_every_problem_at_once() -> None:
    """The same, as the server words a refused ``add_character`` (``server.sheet_words``)."""
    from server.sheet_words import every_problem

    weapons = [{"name": "Knife", "kind": "knife"}, {"name": "Bow", "kind": "archery", "bonus": "two"}]
    attributes = {**NINE, "strength": 12}
    rosa = {"id": "rosa", "name": "Rosa", "attributes": attributes, "skills": {"Brwal": 2}, "weapons": weapons}
    said = every_problem(rosa, "bns")
    assert said["weapons.0.kind"] == (
        "Weapon 1 (Knife): kind must be melee, thrown, archery or firearms (you wrote “knife”)."
    )
    assert said["weapons.1.bonus"] == "Weapon 2 (Bow): bonus must be a number (you wrote “two”)."
    assert said["attributes.strength"].startswith("Strength 12")
    assert said["skills.Brwal"].endswith("did you mean brawl?")
