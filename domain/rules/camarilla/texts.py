"""The camarilla rule table: each rule id with the document's own words (docs/rules/)."""

from __future__ import annotations

from domain.rules.words import Rule

CAM = "camarilla-combat-guide.txt"

RULES = [
    Rule(
        "camarilla:contested",
        CAM,
        "Once you’ve both bid, you throw RPS to see who is successful. The winner’s victory condition "
        "happens, and the loser’s victory condition does not happen. If you tie the RPS, you must compare "
        "traits. The character with the most traits wins. If you both have equal traits neither victory "
        "condition occurs (no one wins).",
    ),
    Rule(
        "camarilla:mental-social",
        CAM,
        "Contested mental and social challenges use the same rules as you would for a Contested Physical "
        "challenge but Mental and social challenges are resolved individually.",
    ),
    Rule(
        "camarilla:one-per-round",
        CAM,
        "A given character can only be targeted by one Physical, one Social and one Mental challenge per round.",
    ),
    Rule(
        "camarilla:willpower",
        CAM,
        "Willpower: You may spend a point of Willpower to retest any time you’re targeted with a Mental or "
        "Social action. Only the defender may use Willpower to retest. You may not use Willpower to retest a "
        "Static or Simple test.",
    ),
    Rule(
        "camarilla:five-minute-wait",
        CAM,
        "If you target another character with a mental or social challenge and fail you must wait at least "
        "five real-time minutes before repeating the failed challenge. If your challenge is successful but "
        "the target resists in some other way this limitation doesn’t apply.",
    ),
    Rule(
        "camarilla:lead-trait",
        CAM,
        "When biding traits in a challenge of any sort, the first trait you bid determines the type of "
        "challenge you are attempting, as well as what powers and merits you may use during the challenge. "
        "If you bid more than one trait in a challenge, only the first trait matters for these purposes.",
    ),
    Rule(
        "camarilla:static",
        CAM,
        "When making a Static Test, bid a trait and RPS against the ST or a nearby player. If you win, you "
        "are successful in your action. If you tie, you must compare your traits to the test’s difficulty. "
        "If you have more traits that the test is difficult, you succeed.",
    ),
    Rule(
        "camarilla:simple",
        CAM,
        "When making a Simple Test, you don’t need to bid a trait, and your action will succeed if you win "
        "or tie – no matter how many traits you have. You may not retest if you lose a Simple Test.",
    ),
    Rule(
        "camarilla:retests",
        CAM,
        "Each of these retests are resolved one at a time, although retests may be “blocked” by canceling "
        "with opposing retest from the same category; in this case, no new test is thrown for the challenge. "
        "The character who initiates a Static Test may retest with an applicable Ability Trait. Static Tests "
        "do not receive defensive retests against you but the ST may choose to Overbid if applicable. It is "
        "not possible to retest a Simple Test.",
    ),
    Rule(
        "camarilla:retest-categories",
        CAM,
        "In a given test you may call on one retest from each applicable category (Ability, Power, and "
        "Merit). You may not retest with two Abilities but you may retest with one Ability, one Power, and "
        "one Merit.",
    ),
    Rule(
        "camarilla:final-retest",
        CAM,
        "Note that some retests, like Might, specify that they are the last retest used in a challenge. "
        "After you use ‘Might’, you may not use other retests, even if you have not yet attempted ability "
        "retests or overbids.",
    ),
    Rule(
        "camarilla:miscellaneous-retests",
        CAM,
        "Unlike other categories of retests, you may use any number of miscellaneous retests as long as "
        "they’re applicable. For example, a single challenge may benefit from both an Overbid and a "
        "Willpower retest.",
    ),
    Rule(
        "camarilla:darkness",
        CAM,
        "If you attempt a physical challenge against a target that you can’t see, resolve the test normally. "
        "If you win the challenge you must make one more test (a Darkness retest). You may expend one level "
        "of the Blindfighting Ability to negate this forced retest. If both you and your target are equally "
        "affected by the darkness, you may use your opponents forced retest to cancel your own.",
    ),
    Rule(
        "camarilla:overbid",
        CAM,
        "If you have twice as many traits as your opponent (or more) you may retest. If you don’t, your "
        "attempt to Overbid fails and you lose the trait you bid (even if you later win the challenge). You "
        "may also attempt to overbid the Static Test’s difficulty rating (as it is given in traits). You may "
        "not overbid a Simple test.",
    ),
    Rule(
        "camarilla:surprise",
        CAM,
        "If you’ve surprised your opponent you get a free retest to affect him (a Miscellaneous retest). You "
        "may only be surprised on the first round of combat.",
    ),
    Rule(
        "camarilla:range",
        CAM,
        "If you make a physical attack against an opponent who can’t respond he is considered Surprised even "
        "if he knew the attack was coming. This is an exception to the rule that you may only use the "
        "surprise retest on the first round of combat.",
    ),
    Rule(
        "camarilla:taking-actions",
        CAM,
        "Attempt one action that requires a test • Take up to three steps (approximately three yards) • Take "
        "any number of actions that do not require tests, so long as you can fulfill their other costs.",
    ),
    Rule(
        "camarilla:passive-defense",
        CAM,
        "If another character uses a power or takes an action that requires you to make a test it doesn’t "
        "count towards your action limit unless you actively participate. [...] If you don’t have an "
        "available action, or you don’t have a way to counter attack your opponent, you must use passive "
        "resistance (or relent).",
    ),
    Rule(
        "camarilla:relent",
        CAM,
        "If you relent you don’t have to bid a trait and your opponent automatically wins (inflicting his "
        "victory condition). If you target a character with an action that requires a test and he relents "
        "you’ve still used your action for the turn.",
    ),
    Rule(
        "camarilla:movement",
        CAM,
        "On your turn, you may take up to three steps. If you aren’t attempting an action that requires a "
        "test you may take up to six steps and your physical traits will determine your initiative for the "
        "purposes of movement (see Order of Actions, below). If you move (or intend to move) more than one "
        "step, you are down one trait in all Physical Challenges for that round. Standing up form a prone "
        "position reduces the number of steps you can take by one.",
    ),
    Rule(
        "camarilla:full-round",
        CAM,
        "When using Thaumaturgy (or another action that requires your full turn) you cannot move, talk, or "
        "take other actions that require the use of your hands. Additionally, your initiative is not "
        "increased by Alacrity.",
    ),
    Rule(
        "camarilla:order-of-actions",
        CAM,
        "When determining who goes first, compare only a character’s base traits. With the exception of "
        "Alacrity, traits gained from powers, specialties, merits or weapons do not add to the initiative "
        "total. If two characters have the same number of traits, their actions happen simultaneously, and "
        "the ST must choose which one resolves first.",
    ),
    Rule(
        "camarilla:initiative-exceptions",
        CAM,
        "Some actions say they can be used (or activated) “Immediately” or “At any time”. These can be used "
        "anytime you wish (even before your initiative). Some actions always happen at the end of the turn. "
        "These actions are resolved after everyone’s initiative but before extra actions (from Celerity or "
        "Black Metamorphosis).",
    ),
    Rule(
        "camarilla:multiple-participants",
        CAM,
        "When characters with different initiatives participate in the same Physical challenge, the test is "
        "resolved based on the fastest character’s initiative.",
    ),
    Rule(
        "camarilla:multiple-tests",
        CAM,
        "If a single action requires multiple tests from different trait categories, it is resolved based on "
        "the traits in the lowest of your trait categories.",
    ),
    Rule(
        "camarilla:multiple-tests-turn",
        CAM,
        "Actions that require multiple tests don’t necessarily take multiple turns. For example, you might need "
        "to make a Social Challenge to defeat someone’s Majesty before you can punch them. Even though this "
        "action will require two tests (one Social – to defeat his Majesty, and one Physical – to perform the "
        "punch) doing so will only require one turn of action. Similarly, powers that require you to touch your "
        "opponent before using them often involve two challenges; one to touch your opponent, and one to "
        "activate the power. These do not take multiple turns to perform, unless you are attempting to get more "
        "than one benefit.",
    ),
    Rule(
        "camarilla:multiple-tests-type",
        CAM,
        "When an action requires multiple tests its type is determined by the test that causes an effect. "
        "[...] Attempting to punch someone using Majesty will require a social challenge but it is still a "
        "physical action since the effect will be coming from the punch and not the social test. The punch can "
        "be combined into a mob challenge and it won’t count towards the number of social actions that can "
        "target your victim.",
    ),
    Rule(
        "camarilla:multiple-actions",
        CAM,
        "When you take a Celerity action you may move up to three steps and perform one physical action (or "
        "six steps if you don’t make a test). You may not activate mental or social powers using a Celerity "
        "action (you may only take physical actions). [...] When resolving additional actions, count the "
        "number of extra actions each character can take and resolve them in order. Everyone who has one "
        "extra action will get to act at the same time, regardless of the extra action’s source.",
    ),
    Rule(
        "camarilla:grapple",
        CAM,
        "If successful, the victim becomes incapable of physically attacking anyone but you, and may not move "
        "away from you until the grapple is broken. Your grapple is broken if you let go, move away, take a "
        "physical action targeting anyone but the character you’re grappling, or if your victim beats you in "
        "a physical challenge.",
    ),
    Rule(
        "camarilla:dragging",
        CAM,
        "If you have more Physical Traits than the character you are grappling, you may move one step per "
        "round and drag him with you. If you have more Potence than your victim, you may drag him two steps "
        "per round. If you have both, you may drag your victim a total of three steps per round.",
    ),
    Rule(
        "camarilla:blood",
        CAM,
        "When you spend a point of blood to get a bonus Physical Trait, you must decide if the temporary "
        "Physical Trait is Strength, Stamina, or Agility related at the moment you gain it. If the Physical "
        "Trait doesn’t bring you over your generational maximum it lasts for the scene. Otherwise, it lasts "
        "for one challenge.",
    ),
    Rule(
        "camarilla:stacking",
        CAM,
        "Powers or effects that cause additional damage can be stacked without restriction. [...] You may "
        "stack multiple effects that modify an attack but you cannot benefit from two different effects that "
        "modify an attack in the same way. [...] You may not combine a special attack with a normal attack "
        "unless the power in questions specifically says it can.",
    ),
    Rule(
        "camarilla:mob-mental-social",
        CAM,
        "If two or more characters target the same person with a Mental or Social Challenge, the character "
        "with the highest initiative goes first and may resolve their challenge. If, when your initiative "
        "occurs, your target has already been affected by the category of challenge you intended, you may "
        "select a different target (with the ST’s permission).",
    ),
    Rule(
        "camarilla:mob",
        CAM,
        "If two or more characters target the same person with a Physical Challenge, each must each declare a "
        "victory condition and bid an appropriate trait(s). Thereafter, the group must choose one person to "
        "act as the champion for the combined challenge. If the group can’t decide on a leader in a "
        "reasonable amount of time, the ST may choose someone to lead the challenge.",
    ),
    Rule(
        "camarilla:mob-champion",
        CAM,
        "The champion of a mob runs a challenge as normal, but receives 1 bonus trait for every other "
        "character helping him (up to a maximum of +4). Characters assisting (or “lending to”) the leader bid "
        "their Physical Trait normally plus any additional bids required by Negative Traits, weapon Negative "
        "Traits, or being wounded. The target of the mob’s physical action must risk one trait for each "
        "person in the opposing group (up to a maximum of 5).",
    ),
    Rule(
        "camarilla:mob-victory",
        CAM,
        "If the mob leader wins the Physical Challenge, he may choose his own victory condition or the "
        "victory condition of anyone who loaned him a trait. Only the chosen victory condition affects the "
        "target.",
    ),
    Rule(
        "camarilla:opposing-mobs",
        CAM,
        "When two opposing groups attack each other, the combat should be resolved using as few challenges as "
        "possible. The challenges should be resolved in the appropriate initiative order as needed.",
    ),
    Rule(
        "camarilla:mixed",
        CAM,
        "When participating in a mixed challenge each character should bid an appropriate trait and may use "
        "powers and abilities based on the trait they’ve bid. [...] When using a mixed challenge in mass "
        "combat the defender’s trait category determines the challenge’s type.",
    ),
]
