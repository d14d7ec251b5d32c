"""The bns rule table: each rule id with the document's own words (docs/rules/bns-*.txt)."""

from __future__ import annotations

from domain.rules.words import Rule

OPPOSED = "bns-opposed-challenges.txt"
COMBAT = "bns-complex-scenarios-combat.txt"

RULES = [
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
    Rule(
        "bns:advanced-movement",
        COMBAT,
        "Trying to move by jumping, climbing, swimming, or other unusual means requires a standard "
        "action instead of a simple action and often requires a static challenge.",
    ),
    Rule(
        "bns:assist-attacker",
        COMBAT,
        "When you assist an attacker, you must choose the individual you are going to help and offer to "
        "assist her. The attacker can refuse your assistance, in which case you cannot target her with "
        "this tactic and you do not expend your standard action. [...] The target may use a single "
        "normal combat maneuver this round without needing to expend willpower. A given target may only "
        "benefit from this use of assist attacker once in a given round. [...] The target gains +1 on a "
        "single normal physical attack this round. A given target may benefit from this use of assist "
        "attacker as many times as they are willing in a given round. [...] It is possible for a single "
        "attack to make use of two standard combat maneuvers if the target of an Assist Attacker takes "
        "that benefit and then also spends a willpower point to apply another combat maneuver.",
    ),
    Rule(
        "bns:assist-defender",
        COMBAT,
        "Once per round, when one of your allies is attacked, you can expend your simple action in "
        "order to move up to three steps to the defender and shield her from that attack. Characters "
        "using the Assist Defender tactic become the target of the incoming attack. [...] The attacker "
        "may choose to stop their attack, they lose their action that was spent on the attack, but then "
        "do not have to resolve the challenge against their new target.",
    ),
    Rule(
        "bns:blinding-attack",
        COMBAT,
        "If you succeed with a Blinding Attack, your opponent suffers 3 fewer damage (minimum 0), but "
        "is blinded until she spends two simple actions clearing her eyes.",
    ),
    Rule(
        "bns:blocking",
        COMBAT,
        "Unless the player blocking you is prone or grappled, or you are intangible or otherwise able "
        "to move past her, you cannot continue your movement. The storyteller is the final arbiter of "
        "whether a character is blocked or not.",
    ),
    Rule(
        "bns:burst-of-speed",
        COMBAT,
        "This combat maneuver allows you to take your simple action immediately, out of order, and then "
        "your standard action on your normal initiative. [...] If you try to act at the same time as "
        "another character, the character acting on her natural initiative goes first. If two players "
        "use Bust of Speed at the same time, the character with highest initiative goes first.",
    ),
    Rule(
        "bns:dart-behind",
        COMBAT,
        "When using this maneuver, you can take your movement action directly through your opponent, as "
        "if she wasn't there. You can only use this maneuver if your final step takes you beyond the "
        "physical space your opponent occupies.",
    ),
    Rule(
        "bns:disarm",
        COMBAT,
        "Modify your attack test pool by -2. If you succeed in the challenge, you force your target to "
        "drop one item of your choice. Picking the item up requires a standard action. If you should "
        "have at least 4 dots in dexterity and have a free hand, you may choose to end up holding the "
        "disarmed object.",
    ),
    Rule(
        "bns:fair-escape-automatic",
        COMBAT,
        "If it is not possible for your character to be physically attacked in the current round, then "
        "your attempt to fair escape automatically succeeds.",
    ),
    Rule(
        "bns:fair-escape-blocked",
        COMBAT,
        "To successfully fair escape, you must avoid being involved in any Physical Challenges for one "
        "full round (or Rage round); in addition, Mental and Social Challenges versus your Physical "
        "attribute also block an attempt to fair escape. If you are attacked before your initiative, "
        "your attempt to fair escape automatically fails (even if the attack misses).",
    ),
    Rule(
        "bns:fair-escape-declare",
        COMBAT,
        "To use this rule, wait until the start of your initiative, raise your hand, and announce that "
        "you wish to try and fair escape. You can attempt to fair escape any time you have the "
        "opportunity to expend an action, even during Rage rounds.",
    ),
    Rule(
        "bns:fair-escape-hold",
        COMBAT,
        "If someone declares intent to attack, your fair escape is put on hold. If you are attacked "
        "later in the round, your fair escape fails.  if you are not attacked, then your fair escape "
        "succeeds at the end of the round, after all other characters have acted. If you fail to escape "
        "you can take steps or other actions, but not until after your fair escape attempt fails.",
    ),
    Rule(
        "bns:fair-escape-intent",
        COMBAT,
        "When you declare your intention to fair escape, other players who have not acted yet have the "
        "opportunity to announce that they plan to physically attack you later in the round. If no one "
        "declares intent to attack, you fair escape immediately.",
    ),
    Rule(
        "bns:fair-escape-no-exit",
        COMBAT,
        "Attempts to fair escape automatically fail if there is no logical way to leave the area. For "
        "example, you cannot fair escape while you are grappled or in a locked room with no windows.",
    ),
    Rule(
        "bns:feral-dash",
        COMBAT,
        "This maneuver requires both a simple and a standard action to perform. [...] You can move a "
        "number of steps as though you had spent both actions on movement, plus an additional three "
        "steps.",
    ),
    Rule(
        "bns:feral-maneuvers",
        COMBAT,
        "Feral combat maneuvers can only be used in animal form. For Garou this means Lupus or Hispo form.",
    ),
    Rule(
        "bns:fighting-blind",
        COMBAT,
        "Use this maneuver to attack an opponent you cannot see. Otherwise your attack will automatically miss.",
    ),
    Rule(
        "bns:free-maneuvers",
        COMBAT,
        "If you have at least four dots in Strength, you can perform one of the following combat "
        "maneuvers once per combat without spending willpower: Disarm, Grapple, Knock Down, Knock Out, "
        "or Pierce the Heart. [...] If you have at least four dots in Dexterity, you can perform one of "
        "the following combat maneuvers once per combat without spending willpower: Burst of Speed, "
        "Disarm, Fighting Blind, Quick Draw, or Snap Shot",
    ),
    Rule(
        "bns:grapple",
        COMBAT,
        "If you succeed with a Grapple attack, your opponent takes 3 fewer damage (minimum 0) and is "
        "grappled. While grappled, she can't move and cannot take her standard action to initiate a "
        "Physical challenge unless she has broken free. She can still activate physical powers that do "
        "not call for a challenge, and can initiate Mental and Social challenges normally.",
    ),
    Rule(
        "bns:grapple-escape",
        COMBAT,
        "She can escape from your Grapple by using a simple action and beating you in an opposed "
        "challenge. Upon escaping, the target regains full use of her Standard action (she doesn't have "
        "to wait until the next round to use it).",
    ),
    Rule(
        "bns:grapple-forms",
        COMBAT,
        "If a character who is grappled changes forms, this act does not cause the Grapple to break, "
        "unless the new form cannot be grappled.",
    ),
    Rule(
        "bns:grapple-range",
        COMBAT,
        "With the right equipment or supernatural power, it is possible to grapple from range, but a "
        "grapple combat maneuver cannot be used as a prerequisite for a supernatural attack unless you "
        "grapple with your hands.",
    ),
    Rule(
        "bns:grapple-release",
        COMBAT,
        "You relinquish your grapple if you take any action that targets anyone other than the "
        "character you're grappling, or if you move more than one step a round.",
    ),
    Rule(
        "bns:grapple-several",
        COMBAT,
        "if a single character is being grappled by more than one opponent, she need only best one "
        "opponent to escape. If the grappling characters cannot decide who will resist the attempt to "
        "break out, the Storyteller decides.",
    ),
    Rule(
        "bns:hamstring",
        COMBAT,
        "If you succeed with a Hamstring, your opponent suffers 3 fewer damage (minimum 0), but takes "
        "one less step per turn (before any movement multipliers Negative or Positive) until she spends "
        "2 simple actions to recover from the attack.",
    ),
    Rule(
        "bns:initiative",
        COMBAT,
        "A character's initiative is equal to their Dex + Wits.",
    ),
    Rule(
        "bns:initiative-ties",
        COMBAT,
        "If two characters are tied, the character with the higher Wits goes first, if both character's "
        "Wits are tied, the character with the higher Dex goes first, if that is also tied the two "
        "characters throw a test, retest on ties, to determine who goes first.",
    ),
    Rule(
        "bns:knock-back",
        COMBAT,
        "If you succeed with a Knock Back attack, your opponent takes 2 fewer damage (minimum 0) and is "
        "pushed 2 steps back. A target that possesses more Stamina Dots than you do Strength Dots "
        "cannot be knocked back.",
    ),
    Rule(
        "bns:knock-down",
        COMBAT,
        "If you succeed with a Knock Down attack, your opponent takes 1 fewer damage (minimum 0) and "
        "ends up lying on the ground. [...] A target that possesses more Stamina Dots than you do "
        "Strength Dots cannot be knocked down.",
    ),
    Rule(
        "bns:knock-out",
        COMBAT,
        "If you surprise your target, you can attempt to knock her unconscious. Modify your attack test "
        "pool by -2. If you succeed your target is unconscious for 10 minutes. You can only use this "
        "maneuver during the first round of combat, and you can't use it if your target is expecting an "
        "attack. (Some supernatural creatures, such as vampires, cannot be knocked unconscious). A "
        "target that possesses more Stamina Dots than you do Strength Dots cannot be knocked out.",
    ),
    Rule(
        "bns:lunging-attack",
        COMBAT,
        "When you make a Lunging attack you may may attack an additional 2 steps out. If you succeed "
        "with a lunging attack, your opponent takes 1 fewer damage (minimum 0) (This effect stacks with "
        "the Reach weapon quality)",
    ),
    Rule(
        "bns:maneuver-logic",
        COMBAT,
        "Any character may attempt to use a combat maneuver so long as she has a logical way to "
        "incorporate the specific combat maneuver into her attack.",
    ),
    Rule(
        "bns:maneuvers",
        COMBAT,
        "To use a combat maneuver, you must declare which maneuver your using a spend a point of "
        "Willpower before the test is made. A character can only activate a single combat maneuver per "
        "round.",
    ),
    Rule(
        "bns:maneuvers-physical",
        COMBAT,
        "Most Social and Mental actions can't benefit from combat maneuvers, but there are exceptions. "
        "Fighting Blind can be used in conjunction with any type of action.",
    ),
    Rule(
        "bns:mangle-fur",
        COMBAT,
        "Modify your test pool by -2. If you succeed in an opposed challenge, you are able to pry, "
        "tear, and mangle your opponent such that her armor is compromised. Until she spends a total of "
        "two simple actions readjusting her defenses, any bonuses she receives from mundane armor is "
        "nullified. A target that possesses more Stamina Dots than you do Strength Dots cannot be the "
        "target of Mangle Fur.",
    ),
    Rule(
        "bns:mass-combat",
        COMBAT,
        "Mass combat tactics can only be used to augment or defend against Physical attacks and do not "
        "benefit or hinder Mental or Social attacks.",
    ),
    Rule(
        "bns:movement",
        COMBAT,
        "You can use a simple action or standard action to move up to three steps. If you use both your "
        "standard action and simple action to move, you can move up to six steps on your initiative.",
    ),
    Rule(
        "bns:pierce-the-heart",
        COMBAT,
        "Modify your attack test pool by -3. If your opponent's wounds are in the Incapacitated wound "
        "track, you can use this attack to Pierce the Hear. Vampires who have their hearts pierced with "
        "a wooden weapon fall into torpor until the stake is removed. Humans are instantly killed. "
        "[...] A successful Pierce the Heart maneuver against a Shapeshifter scores an additional point "
        "of damage.",
    ),
    Rule(
        "bns:prone",
        COMBAT,
        "By using a simple action to drop to the ground, lying on your stomach, you gain a little "
        "protection. Lying prone doesn't prevent you from acting on your initiative, but it does limit "
        "your movement. While prone, you can crawl up to one step by taking a simple action. "
        "Alternatively you can use a simple action to stand up and move one step.",
    ),
    Rule(
        "bns:prone-defense",
        COMBAT,
        "If your lying prone on the ground, and an opponent targets you with a Physical ranged attack "
        "from more than three steps away, you get a +2 bonus to your defensive test pool from the "
        "concealment. If an opponent physically attacks you from within three steps while you are "
        "prone, you suffer a -2 penalty to your defense test pool due to lack of mobility.",
    ),
    Rule(
        "bns:quick-draw",
        COMBAT,
        "You can draw one weapon or other small item on your person without using a simple action.",
    ),
    Rule(
        "bns:rage-rounds",
        COMBAT,
        "The additional actions are resolved after the Universal round during special Rage rounds. Once "
        "all Rage rounds have been resolved, the current turn ends and a new turn begins.",
    ),
    Rule(
        "bns:round",
        COMBAT,
        "Each character can take up to two actions, one standard and one simple, per round. The "
        "character with the highest initiative goes first, and characters act in the initiative order "
        "until all players have taken their actions.",
    ),
    Rule(
        "bns:savage-leap",
        COMBAT,
        "This maneuver requires both a simple and a standard action to combine your movement with an "
        "attack. [...] Move up to six steps to leap in one single direction. You can perform a brawl "
        "attack to claw or bite a foe anywhere along this leap.",
    ),
    Rule(
        "bns:simple-action",
        COMBAT,
        "Examples of simple actions include readying/drawing a weapon, knocking an arrow, using a "
        "supernatural power on yourself, or running around a corner.",
    ),
    Rule(
        "bns:snap-shot",
        COMBAT,
        "Rather than taking a simple action to knock an arrow to fire, you are able to knock and ready "
        "an arrow with no action.",
    ),
    Rule(
        "bns:standard-action",
        COMBAT,
        "Actions that require a challenge (static or opposed) are always standard actions, even if the "
        "target doesn't resist your challenge. If you chose to forgo your standard action, you gain an "
        "additional simple action instead. Note that you cannot forgo your simple action to gain "
        "another standard action.",
    ),
    Rule(
        "bns:targeted-attack",
        COMBAT,
        "Modify your attack test pool by -3. This manuver has no additional effect other than targeting "
        "a specific place on the body.",
    ),
]
