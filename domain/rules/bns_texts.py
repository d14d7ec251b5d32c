"""The bns rule table: each rule id with the document's own words (docs/rules/bns-*.txt)."""

from __future__ import annotations

from domain.rules.words import Rule

OPPOSED = "bns-opposed-challenges.txt"
COMBAT = "bns-complex-scenarios-combat.txt"

BNS = [
    Rule(
        "bns:opposed",
        OPPOSED,
        "An opposed challenge occurs whenever the target of a challenge is another character or an "
        "object within another character’s immediate control.",
    ),
    Rule(
        "bns:victory-condition",
        OPPOSED,
        "All victory conditions must be approved by the target player or the Storyteller. (If there "
        "is some disagreement, the Storyteller makes the final decision about whether or not a "
        "victory condition is acceptable.)",
    ),
    Rule(
        "bns:attack-pool",
        OPPOSED,
        "Attribute + Skill + Wild Card = Test Pool [...] The attribute and skill should reflect the "
        "type of attack; for example, challenges involving shooting a gun use Physical traits and the"
        " Firearms skill.",
    ),
    Rule(
        "bns:physical-defense",
        OPPOSED,
        "Physical Attribute + Skill + Wild Card = Test Pool [...] Again, the skill should reflect the"
        " appropriate type of defense against the attacker’s skill. For example, avoiding a knife "
        "attack requires Dodge.",
    ),
    Rule(
        "bns:mental-social-defense",
        OPPOSED,
        "Social or Mental Attribute + Willpower + Wild Card = Test Pool [...] Note that defense test "
        "pools use your character’s current Willpower, not your character’s total permanent "
        "Willpower.",
    ),
    Rule(
        "bns:rps",
        OPPOSED,
        "Next, play rock, paper, scissors with the target player.",
    ),
    Rule(
        "bns:static",
        OPPOSED,
        "The following simple formula determines all attack test pools, identical to the formula used"
        " for static challenges:",
    ),
    Rule(
        "bns:line-of-sight",
        OPPOSED,
        "To attack a character, you must be able to see her. If you can’t see your target, you must "
        "use the Fighting Blind combat maneuver.",
    ),
    Rule(
        "bns:unarmed",
        COMBAT,
        "Successful unarmed attacks inflict 1 point of damage. To inflict an unarmed attack, you need"
        " to be within two steps of your target.",
    ),
    Rule(
        "bns:melee",
        COMBAT,
        "When attacking someone with a melee weapon (such as a knife, sword, or club), use your "
        "Strength Attribute + Melee ability against your opponent's physical defense test pool. "
        "Successful melee attacks inflict 1 point of damage. To inflict a melee attack, you need to "
        "be within two steps of your target.",
    ),
    Rule(
        "bns:thrown",
        COMBAT,
        "use your Dexterity Attribute + Athletics ability against your opponent's physical defense "
        "test pool, thrown attacks may not be parried. By default, successful thrown attacks inflict "
        "2 point of damage. To use a thrown attack, you need to be within 10 steps of your target, "
        "and you must use a weapon with a quality that allows it to be thrown.",
    ),
    Rule(
        "bns:archery",
        COMBAT,
        "When firing arrows at your target, use your Dexterity Attribute + Archery ability against "
        "your opponents physical defense test pool, archery attacks may not be parried. Successful "
        "archery attacks inflict 2 points of damage by default. The range of an Archery attack "
        "depends on the weapon used. Please note, knocking an arrow takes a Simple Action, though "
        "Combat Maneuvers can bypass this.",
    ),
    Rule(
        "bns:tooth-and-claw",
        COMBAT,
        "A werewolf in Crinos, Hispo, or Lupus form can use her mouth during her standard action to "
        "bite an opponent, inflicting lethal damage. [...] A werewolf in Crinos or Hispo form can use"
        " her claws during her standard action to claw an opponent, inflicting lethal damage.",
    ),
    Rule(
        "bns:fighting-finesse",
        COMBAT,
        "Without this merit, you must use Strength as the attribute for your close range attacks.",
    ),
    Rule(
        "bns:mental-attack",
        COMBAT,
        "When attempting a Mental attack, use your appropriate Mental Attribute + appropriate ability"
        " against your opponent's Resolve + Willpower.",
    ),
    Rule(
        "bns:social-attack",
        COMBAT,
        "When attempting a Social attack, use your appropriate Social Attribute + appropriate ability"
        " against your opponent's Composure + Willpower.",
    ),
    Rule(
        "bns:dodge",
        COMBAT,
        "If you wish to dodge, your test pool is your Dexterity Attribute + dodge ability.",
    ),
    Rule(
        "bns:parry",
        COMBAT,
        "So long as you have a weapon in your hand, you may try to parry an close range attack "
        "(thrown and archery attacks cannot be parried). If you wish to parry, your test pool is your"
        " Dexterity Attribute + melee ability.",
    ),
    Rule(
        "bns:soak",
        COMBAT,
        "If you wish to soak an attack, your test pool is your Stamina attribute by itself. You may "
        "not use any retest except your general retest if you are attempting to soak an attack. [...]"
        " general retest",
    ),
    Rule(
        "bns:losing",
        OPPOSED,
        "If you lose the rock, paper, scissors test, you fail, and your target is unaffected.",
    ),
    Rule(
        "bns:ties",
        OPPOSED,
        "If you tie, compare your attack test pool to the target’s defense test pool. If your pool is"
        " greater than the defender’s, you achieve a normal success. Otherwise, you fail in your "
        "challenge. It is not possible to score an exceptional success if you tie",
    ),
    Rule(
        "bns:exceptional-success",
        OPPOSED,
        "If your attack test pool is greater than your opponent’s defense test pool and you have won "
        "every test involved in the challenge, including all retests, you score an exceptional "
        "success. If you lost or tied one of the retests involved in this challenge, or if your test "
        "pool is equal to or lower than your opponent’s, you score a normal success.",
    ),
    Rule(
        "bns:attacker-only",
        OPPOSED,
        "Note that only the attacker can score an exceptional success.",
    ),
    Rule(
        "bns:exceptional-damage",
        OPPOSED,
        "Damaging attacks that score an exceptional success inflict an additional point of damage.",
    ),
    Rule(
        "bns:unskilled",
        OPPOSED,
        "Remember that you only critically fail if you don’t have the appropriate skill and you lose "
        "the test. If you have the correct skill or if you tie the test, you do not critically fail "
        "(even if you lose the overall challenge).",
    ),
    Rule(
        "bns:complications",
        OPPOSED,
        "Simple variations add complexity to opposed challenges at the Storyteller’s discretion.",
    ),
    Rule(
        "bns:willpower-retest",
        OPPOSED,
        "The loser of an opposed challenge may spend a point of Willpower to retest the challenge. "
        "Only the loser may retest, and the results of the second test are final. For the retest, "
        "both characters should use the same test pools that they used for the initial challenge.",
    ),
    Rule(
        "bns:willpower-pools",
        OPPOSED,
        "Spending a Willpower to retest will reduce your ability to resist future Mental/Social "
        "challenges, but will not reduce the players’ pools in the challenge they are currently "
        "retesting.",
    ),
    Rule(
        "bns:overbid",
        OPPOSED,
        "If your test pool is equal to or greater than double your opponent’s test pool, you gain a "
        "free retest. This is an exception to the rule limiting opposed challenges to a single "
        "retest. The overbid retest and the Willpower retest can be used in any order.",
    ),
    Rule(
        "bns:relent",
        OPPOSED,
        "At any time before the actual test is performed, a player may choose to acquiesce and admit "
        "defeat. Characters who relent lose the challenge automatically. If the relenting character’s"
        " test pool is less than the attacker’s, then the attacker scores an exceptional success; "
        "otherwise, the attacker scores a normal success.",
    ),
    Rule(
        "bns:retry-physical",
        OPPOSED,
        "If you target someone with a Physical opposed challenge and fail, you may try again on your next initiative.",
    ),
    Rule(
        "bns:retry-immunity",
        OPPOSED,
        "If you target a character with a Mental or Social opposed challenge and fail, the target is "
        "immune to your power or action for the next 10 minutes. Note that this immunity only extends"
        " to the power or action used and not an entire discipline. [...] and for the situation to "
        "change significantly",
    ),
]
