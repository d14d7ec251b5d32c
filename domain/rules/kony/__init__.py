"""Kings of New York: Traits bid as in Laws of the Night, d3s rolled for the test, Trait Pools on
ties, initiative by d10s, narrative rounds (kings-of-new-york-combat.txt)."""

from domain.rules.kony import evolve as evolve  # registers the reducers of its own events
from domain.rules.kony.ruleset import Kony

RULESET = Kony()
