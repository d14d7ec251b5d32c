"""Laws of the Night: Traits bid, Rock-Paper-Scissors thrown, Traits compared on a tie
(laws-of-the-night-challenges.txt)."""

from domain.rules.lotn.ruleset import Lotn

RULESET = Lotn()
