"""The Camarilla combat guide, on top of Laws of the Night: kinds of Traits, powers, rounds, mobs
and blood (camarilla-combat-guide.txt)."""

from domain.rules.camarilla.ruleset import Camarilla

RULESET = Camarilla()
