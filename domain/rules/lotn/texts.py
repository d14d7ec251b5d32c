"""The lotn rule table: each rule id with the document's own words (docs/rules/)."""

from __future__ import annotations

from domain.rules.words import Rule

LOTN = "laws-of-the-night-challenges.txt"

RULES = [
    Rule(
        "lotn:categories",
        LOTN,
        "When players bid Traits against one another, they may only use Traits that could sensibly "
        "be used in that situation. Essentially, this restriction means that a player can usually "
        "use only those Traits from the same category as her opponent’s Traits. Most challenges are "
        "categorized as Physical, Social or Mental, and all Traits used in a challenge must be from "
        "the same category. Experienced players may offer each other more creative leeway, but only "
        "by mutual agreement.",
    ),
    Rule(
        "lotn:initial-bid",
        LOTN,
        "A challenge begins with a player “bidding” one of her Traits against her opponent. At the "
        "same time, she must declare what the conditions of the challenge are — like firing a gun, "
        "attacking with a knife or using Dominate. The defender must then decide how she will "
        "respond. She can either relent immediately or bid one of her own Traits in response.",
    ),
    Rule(
        "lotn:relent",
        LOTN,
        "If the defender relents, she loses the challenge automatically. For example, if she were "
        "being attacked, she would suffer a wound.",
    ),
    Rule(
        "lotn:test",
        LOTN,
        "Once both parties involved in a challenge have bid a Trait, they engage in a test immediately.",
    ),
    Rule(
        "lotn:rps",
        LOTN,
        "Rock crushes Scissors. Scissors cuts Paper. Paper covers Rock. Identical signs indicate a tie.",
    ),
    Rule(
        "lotn:gestures",
        LOTN,
        "Certain advanced powers allow some characters to use gestures other than Rock, Paper and "
        "Scissors. Before players can use the gestures in a test, however, they must explain what "
        "they are and how they are used.",
    ),
    Rule(
        "lotn:trait-loss",
        LOTN,
        "Those Traits bid are put at risk, as the loser of the test not only loses the challenge, "
        "but the Trait she bid as well for the rest of the evening.",
    ),
    Rule(
        "lotn:ties",
        LOTN,
        "In the case of a tie, the players must then reveal the number of Traits that they "
        "currently have available in the category used (Physical, Social or Mental). The player "
        "with the least number of Traits loses the test and therefore loses the challenge. Note "
        "that the number of Traits you’ve lost in previous challenges, or lost for any other "
        "reason, reduces the maximum number of Traits you can bid in ties.",
    ),
    Rule(
        "lotn:declare-fewer",
        LOTN,
        "You may lie about the number of Traits you possess, but only by declaring fewer Traits "
        "than you actually have — you may never say that you have more Traits than you actually "
        "do.",
    ),
    Rule(
        "lotn:challenger-declares-first",
        LOTN,
        "The challenger is always the first to declare his number of Traits.",
    ),
    Rule(
        "lotn:draw",
        LOTN,
        "If both players declare the same number of Traits, then the challenge is a draw, and both "
        "players lose the Traits they bid.",
    ),
    Rule(
        "lotn:five-minute-wait",
        LOTN,
        "It should be noted that a challenger who fails on a Social or Mental Challenge must wait "
        "at least five real-time minutes (and not spend them arguing over the results of the "
        "previous challenge — you can’t protest a ruling with a Narrator for 4:58, then drop your "
        "argument and say, “Oh look, time’s up,”) before repeating the failed challenge. [...] "
        "This stricture does not include trials that are failed but then redeemed through retests "
        "or overbids.",
    ),
    Rule(
        "lotn:negative-traits",
        LOTN,
        "During the initial bid of any challenge, after you have each bid one Trait, you can call "
        "out a Negative Trait that you believe your opponent possesses. If he does indeed possess "
        "the Negative Trait, your opponent is forced to bid an additional Trait, although you must "
        "still risk your one Trait as usual. If he does not possess that Negative Trait, you must "
        "risk an additional Trait. You may call out as many Negative Traits as you wish during the "
        "initial bid phase of a challenge, as long as you can pay the price for being wrong.",
    ),
    Rule(
        "lotn:negative-traits-unmatched",
        LOTN,
        "If your opponent does not have additional Traits to bid, then your Trait is not at risk during the challenge.",
    ),
    Rule(
        "lotn:negative-traits-bonus",
        LOTN,
        "Additionally if you guess more than one Negative Trait that your opponent cannot match, "
        "you gain that many additional Traits in the case of a tie or an overbid (see below). The "
        "same works in reverse, favoring your opponent if you do not have additional Traits "
        "remaining to match incorrect Negative Trait guesses.",
    ),
    Rule(
        "lotn:overbid",
        LOTN,
        "Once a test has been made, the loser has the option of calling for an “overbid.” In order "
        "to call an overbid, you must risk a new Trait; the original one has already been lost.",
    ),
    Rule(
        "lotn:overbid-double",
        LOTN,
        "At this point, the two players must reveal the number of applicable Traits they possess "
        "in the appropriate category, starting with the player who called for the overbid. If you "
        "have double the number of Traits as your opponent in that category, you may attempt "
        "another test. As with a tie, you may state a number of Traits less than the actual number "
        "you have and keep your true power secret.",
    ),
    Rule(
        "lotn:static",
        LOTN,
        "In such circumstances, you bid a Trait that would be appropriate, then perform a test "
        "against the Narrator. Before the test is made, the Narrator decides on the difficulty of "
        "the task which you are attempting — this is the number of Traits you are bidding against, "
        "which is used to compare in the event of a tie. The test proceeds exactly as it would if "
        "you were testing against another character.",
    ),
    Rule(
        "lotn:static-overbid",
        LOTN,
        "Of course, you may attempt to overbid in a Static Challenge, but beware, because the "
        "Narrator can overbid as well.",
    ),
    Rule(
        "lotn:simple",
        LOTN,
        "Most Simple Tests do not require you to risk or bid Traits, though some may. When a "
        "Simple Test is called, a test (Rock-Paper-Scissors) is performed against a Narrator. In "
        "most cases, the player succeeds on a win or a tie, although in some cases, it may be "
        "necessary for the player to win for him to receive any benefit from the challenge.",
    ),
    Rule(
        "lotn:retests",
        LOTN,
        "Generally, expending one level of an appropriate Ability allows for one retest. Multiple "
        "retests are possible on a single challenge, but each retest must come from a different "
        "source.",
    ),
    Rule(
        "lotn:retest-cancel",
        LOTN,
        "Retests may be canceled (“blocked”) by a character who is capable of matching the "
        "conditions of the retest. Thus, if a player uses Firearms to retest when firing a gun, "
        "the opponent may expend a level of Dodge to block the retest and force the attacker to "
        "accept the results of the original test.",
    ),
    Rule(
        "lotn:adjudication",
        LOTN,
        "If you have question or argument about the rules or the conditions of a challenge, you "
        "need to find a Narrator to make a judgment.",
    ),
]
