"""Lists in a sentence (``domain.state.and_list``): a Trait named twice is counted, not repeated
(review 15: "you lose Brawny and Brawny", "Nimble and Nimble are gone for the night")."""

from __future__ import annotations

from domain.state import and_list


def test_names_are_joined_with_and() -> None:
    assert [and_list([]), and_list(["Ana"]), and_list(["Ana", "Bob"]), and_list(["Ana", "Bob", "Cy"])] == [
        "",
        "Ana",
        "Ana and Bob",
        "Ana, Bob and Cy",
    ]


def test_a_repeated_trait_is_counted() -> None:
    assert and_list(["Brawny", "Brawny"]) == "Brawny ×2"
    assert and_list(["Nimble", "Quick", "Nimble"]) == "Nimble ×2 and Quick"
    assert and_list(iter(["Wiry", "Wiry", "Wiry", "Tough"])) == "Wiry ×3 and Tough"
