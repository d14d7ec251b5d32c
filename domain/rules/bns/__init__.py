"""By Night Studios' opposed challenges: test pools from attributes and skills, graded results,
turns of standard and simple actions, maneuvers, fair escapes and mass combat
(bns-opposed-challenges.txt, bns-complex-scenarios-combat.txt)."""

from domain.rules.bns import evolve as evolve  # registers the reducers of its own events
from domain.rules.bns.ruleset import Bns

RULESET = Bns()
