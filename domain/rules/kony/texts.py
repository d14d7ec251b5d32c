"""The kony rule table: each rule id with the document's own words
(docs/rules/kings-of-new-york-combat.txt)."""

from __future__ import annotations

from domain.rules.words import Rule

KONY_DOC = "kings-of-new-york-combat.txt"

RULES = [
    Rule(
        "kony:actions",
        KONY_DOC,
        "When it comes to a characters turn, they will take all their actions one after the other "
        "immediately during their turn.",
    ),
    Rule(
        "kony:blind-fighting",
        KONY_DOC,
        "Those fighting in darkness are down 2 traits in all challenges and lose one of their "
        "retests from their test pool. This effect may be negated with Auspex 1, Protean 1, and Use "
        "of the Blind Fighting ability.",
    ),
    Rule(
        "kony:carrier-attacks",
        KONY_DOC,
        "A Carrier Attacks is defined as any power or ability that has detrimental effect against "
        "another character. A Character may only use 1 Carrier Attack per action they have.",
    ),
    Rule(
        "kony:d3-test",
        KONY_DOC,
        "The Challenger rolls a number of d3s equal to 1+ the Number of Retests they would have in "
        "the challenge. The Challenged Rolls a number of d3s equal to 1+ the number of retests they "
        "would have in the challenge.",
    ),
    Rule(
        "kony:damage-order",
        KONY_DOC,
        "is always to armor (including supernatural forms) first, prior to being resisted with "
        "Fortitude or similar powers. You may not use powers to protect armor.",
    ),
    Rule(
        "kony:declaration",
        KONY_DOC,
        "Challenger declares his action and bids a Trait. Defender either relents, or declares her "
        "response and bids a Trait",
    ),
    Rule(
        "kony:dodging",
        KONY_DOC,
        "Does not require a full action. A character may always Dodge an attack.",
    ),
    Rule(
        "kony:down-traits",
        KONY_DOC,
        "This math is done before the 30 trait cap rule. Once the math is done, apply the cap of 30 "
        "traits in regards to bidding traits on ties.",
    ),
    Rule(
        "kony:draw",
        KONY_DOC,
        "In the case of any true ties in this number; the challenge is considered a draw and nothing happens.",
    ),
    Rule(
        "kony:end-of-round",
        KONY_DOC,
        "The end of the round is after the end of everyone’s normal actions. Thus, all powers that "
        "activate at “the end of the round” happen at the end of normal actions, not at the end of "
        "all actions (including Celerity).",
    ),
    Rule(
        "kony:environment",
        KONY_DOC,
        "A Storyteller may introduce any Penalties or Negative traits for acting in an environment to a character.",
    ),
    Rule(
        "kony:expenditures",
        KONY_DOC,
        "The Challengers and Defenders declare any Trait Expenditures such as blood etc",
    ),
    Rule(
        "kony:fair-escape",
        KONY_DOC,
        "Before any Declaration is made, a character may declare the fair escape condition and "
        "leave the scene. [...] Powers or abilities that allow the character leave the scene.",
    ),
    Rule(
        "kony:fair-escape-condition",
        KONY_DOC,
        "Characters with the Fair Escape Condition are allowed to leave the combat scene.",
    ),
    Rule(
        "kony:feeding",
        KONY_DOC,
        "You must establish a Grapple on a character with a contested Physical Challenge retested "
        "with Brawl. On your next action you may start to feed. A character may only take up to 3 "
        "blood traits a round in combat from a target.",
    ),
    Rule(
        "kony:grapple",
        KONY_DOC,
        "If a target is immobilized but still struggling, he must bid an additional Trait to enter "
        "a Physical Challenge.",
    ),
    Rule(
        "kony:initiative",
        KONY_DOC,
        "A Character Initiative is determined by the Character takes their Attribute Total (Named "
        "traits Only) for their declared action + Their level of the Celerity Discipline (1-5).",
    ),
    Rule(
        "kony:initiative-ties",
        KONY_DOC,
        "In the case of a numerical tie, the Players roll 1 d10. Whoever gets the highest will go "
        "first. You may not contest actions.",
    ),
    Rule(
        "kony:line-of-sight",
        KONY_DOC,
        "Unless a power or ability specifies otherwise in it, it requires Line of Sight to use on another character.",
    ),
    Rule(
        "kony:narrative",
        KONY_DOC,
        "For the ease of play and Discord combat the storyteller may invoke the Narrative combat "
        "rule. This rule is only ever be used in PVE situations.",
    ),
    Rule(
        "kony:narrative-actions",
        KONY_DOC,
        "When it’s your turn in the Initiative order you will take all your actions immediately one after another.",
    ),
    Rule(
        "kony:narrative-initiative",
        KONY_DOC,
        "This equals your Total Traits bid in the challenge you intend to throw and your levels of "
        "celerity 1-5 to gain a number total.",
    ),
    Rule(
        "kony:narrative-rerolls",
        KONY_DOC,
        "This is a number of D3s you must reroll upon a success. This represents the NPC using "
        "their retests or canceling yours.",
    ),
    Rule(
        "kony:narrative-retests",
        KONY_DOC,
        "When rolling for Challenge resolution roll a number of D3s equal to 1+ your number of "
        "retests. Keep track of wins/tie/loses. This retests are still lost as normal",
    ),
    Rule(
        "kony:narrative-test",
        KONY_DOC,
        "You will roll 1d3 in Discord. A 1 means a win, 2 means a tie, 3 means a loss [...] The "
        "Storyteller will tell you the difficulty of the Challenge, this in case you roll a 2 in "
        "which case you must compare your trait totals for your action to the difficulty number set "
        "by the Storyteller.",
    ),
    Rule(
        "kony:negative-traits",
        KONY_DOC,
        "If a negative trait is called against a character in a challenge and they lose that "
        "challenge; they will lose 1 additional trait from the their bids.",
    ),
    Rule(
        "kony:npc-sheets",
        KONY_DOC,
        "These sheets do not have things like Aegis and instead have a large number of Health "
        "Levels. [...] NPC Combat Sheets may also have multiple actions which the Storyteller can "
        "take at varying points of the combat outside the normal flow of Combat.",
    ),
    Rule(
        "kony:overbid",
        KONY_DOC,
        "The loser of the test can attempt to overbid, depending on the characters’ relative Traits "
        "(They must be bidding double what the other character is bidding). This creates a New "
        "Test. Repeat Step 5. This may be done once.",
    ),
    Rule(
        "kony:ranged",
        KONY_DOC,
        "Characters who make ranged attacks against others gains one Retest for the purposes of the "
        "number of d3s they roll IF the Challenged does not have a means of making a ranged attack "
        "in return.",
    ),
    Rule(
        "kony:resolution",
        KONY_DOC,
        "If the Challenger wins their victory condition is met. If the Challenged Wins their Victory condition is met.",
    ),
    Rule(
        "kony:round",
        KONY_DOC,
        "A Round is defined in combat as the collective total of all characters actions (including extra actions).",
    ),
    Rule(
        "kony:successes",
        KONY_DOC,
        "The players compare these two scores. 1 Equals a Success, 2 Equals a Tie, and 3 Equals a "
        "failure. Compare total number of Success to determine who won the challenge. The person "
        "with the most successes wins.",
    ),
    Rule(
        "kony:surprise",
        KONY_DOC,
        "Characters who gain the surprised condition on those the Challenged gain 1 Retest for their pool.",
    ),
    Rule(
        "kony:trait-loss",
        KONY_DOC,
        "The character currently in the losing position loses the Trait(s) they initially bid (in "
        "the case of a draw, both lose their bid Traits) or any traits lost from negative traits.",
    ),
    Rule(
        "kony:trait-pool",
        KONY_DOC,
        "This is the total of the Character’s Base Attributes for the Challenge they are engaging "
        "in + Any Bonus Traits or Named Traits from powers then – Any Trait Penalties or Down "
        "Traits. After this Math is complete, the total max regardless is 30.",
    ),
    Rule(
        "kony:turn",
        KONY_DOC,
        "A turn in Combat is defined as an individual character’s first action. The end of a "
        "character’s turn is the end of their first normal “every man” action.",
    ),
]
