// What the pages say: names, sources, whom a challenge waits for, the timeline, refusals with the
// rule's words. A challenge's own facts are its account's words (cards.js), never made here.
import { h } from "./dom.js";
import { ruleTable } from "./live.js";

export const CATEGORIES = ["physical", "social", "mental"];
export const SIGN_LABELS = { rock: "Rock", paper: "Paper", scissors: "Scissors", bomb: "Bomb", random: "At random" };

export function nameOf(view, who) {
  if (who === "st") return "the Storyteller";
  if (who === "*") return "a spectator";
  return view?.characters?.[who]?.name || who;
}

/** The side opposing whoever called `retest` in `ch` (who may cancel it). */
export function otherSide(ch, retest) {
  return retest.role === "challenger" || (!retest.role && retest.by === ch.challenger) ? defenderOf(ch) : ch.challenger;
}

export function title(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : "";
}

export function sourceLabel(source) {
  if (source.category === "overbid")
    return source.bid?.length ? `Overbid (risking ${source.bid.join(", ")})` : "Overbid (free)";
  if (source.name) return `${source.name} (${source.category})`;
  if (source.category === "sheet") return "Combat sheet retest";
  return title(source.category);
}

/** A test pool as recorded, part by part: "Physical 7 + Firearms 3 + 2 (shotgun) - 3 (Targeted Attack) = 9",
 * as `Pool.describe` says it. */
export function describePool(pool) {
  const parts = [];
  if (pool.attribute) parts.push([title(pool.attribute), pool.attribute_rating || 0]);
  if (pool.skill) parts.push([title(pool.skill), pool.skill_rating || 0]);
  if (pool.willpower) parts.push(["Willpower", pool.willpower]);
  if (pool.weapon) parts.push([pool.weapon, pool.weapon_bonus || 0]);
  if (pool.wildcard) parts.push([pool.why ? `(${pool.why})` : "", pool.wildcard]);
  for (const m of pool.modifiers || []) parts.push([`(${m.why})`, m.value]); // a maneuver's -3, an assist's +1
  const text = parts
    .map(([what, n], i) => {
      const sign = i === 0 ? (n < 0 ? "- " : "") : n < 0 ? " - " : " + ";
      return sign + (what.startsWith("(") || !what ? `${Math.abs(n)} ${what}` : `${what} ${Math.abs(n)}`).trim();
    })
    .join("");
  return `${text || "0"} = ${pool.total}`;
}

export function defenderOf(ch) {
  return ch.targets[0] || "st";
}

/** A scene's ruleset as a table says it ("Laws of the Night"), from its view (the server's words,
 * never the id a file uses). */
export function rulesetName(view) {
  return view?.ruleset_title || "";
}

/** The die the scene rolls, as its view's rules say it (`{size, faces, successes}`); null where
 * signs are thrown. */
export function dieOf(view) {
  return view?.rules?.die || null;
}

/** Whether a side stakes a test pool (not a bid of Traits) in the scene's ruleset, whether or
 * not it rolls dice (`dieOf` says that). */
export function stakesPools(view) {
  const rules = view?.rules;
  return (rules?.stakes || rules?.family) === "pools";
}

/** What a page offers for a test pool when the ruleset table does not say: every part it knows. */
const EVERY_PART = ["attack", "attribute", "skill", "weapon", "wildcard"];
const EVERY_ANSWER = ["defense", "wildcard"];

/** The parts of a test pool the scene's ruleset has a challenger name (`PoolSpec` fields:
 * `attack`, `attribute`, `skill`, `weapon`, `wildcard`), from the ruleset table. */
export function poolParts(view) {
  return rulesetOf(view)?.pool_parts || EVERY_PART;
}

/** The parts of a defence pool the scene's ruleset has a defender name (`defense`, `skill`,
 * `wildcard`), from the ruleset table. */
export function answerParts(view) {
  return rulesetOf(view)?.answer_parts || EVERY_ANSWER;
}

/** "d3": the scene's die in words ("die" where the view names none). */
export function dieWord(die) {
  return die?.size ? `d${die.size}` : "die";
}

/** "3 d3s": `n` of the die. */
export function diceCount(n, die) {
  return `${n} ${dieWord(die)}${n === 1 ? "" : "s"}`;
}

/** The input pattern of faces typed by hand on `die` (1 to its size), separated by spaces or
 * commas; `more` "+" when at least one is needed. */
export function facesPattern(die, more = "*") {
  const size = die?.size || 9;
  if (size <= 9) return `[1-${size} ,]${more}`;
  const faces = Array.from({ length: size }, (_, i) => String(size - i)).join("|"); // the longer first
  const one = `(?:${faces})`;
  return more === "+" ? `[ ,]*${one}(?:[ ,]+${one})*[ ,]*` : `[ ,]*(?:${one}(?:[ ,]+${one})*[ ,]*)?`;
}

let rulesets = null;
let loaded = null; // the table once it has come

/** Every ruleset the server plays as the pages choose and fill it (the default first): its name,
 * title, house rules and sheet fields (`projections.rules.RulesetView`). */
export async function rulesetTable() {
  if (!rulesets)
    rulesets = fetch("/rulesets.json")
      .then((r) => r.json())
      .catch(() => [])
      .then((table) => {
        loaded = table;
        return table;
      });
  return rulesets;
}

/** The scene's ruleset as the table says it (`RulesetView`: its sheet's fields …); null until
 * `rulesetTable()` has come. */
export function rulesetOf(view) {
  return (loaded || []).find((r) => r.name === view?.ruleset) || null;
}

/** The fields of the scene's ruleset's sheet, in the form's order (`SheetField`s). */
export function sheetFields(view) {
  return rulesetOf(view)?.sheet || [];
}

/** "you and Juan", "Sam and Juan": the viewer in the second person on their own page. */
function whoWords(v, whos) {
  return whos.map((w) => (w === v.viewer ? "you" : nameOf(v, w))).join(" and ");
}

/** "Your throw is due" when only the viewer is awaited, else "waiting for you and Juan to throw". */
function awaiting(v, whos, verb, noun) {
  if (whos.length === 1 && whos[0] === v.viewer) return `Your ${noun} is due`;
  return `waiting for ${whoWords(v, whos)} to ${verb}`;
}

const WAITING = {
  awaiting_response: (v, ch) => awaiting(v, [defenderOf(ch)], "answer", "answer"),
  bidding: (v, ch) => (dieOf(v) ? WAITING.throwing(v, ch) : "both sides are in: throw"),
  throwing: (v, ch) => {
    const dice = Boolean(dieOf(v));
    const done = dice ? ch.rolled || [] : ch.thrown;
    const missing = [ch.challenger, defenderOf(ch)].filter((w) => w !== "st" && !done.includes(w));
    const verb = dice ? "roll" : "throw";
    return missing.length ? awaiting(v, missing, verb, verb) : `${verb}ing`;
  },
  tie_declaring: (v, ch) => {
    const what = ch.declaring === "overbid" ? `${overbidder(v, ch)} overbid` : "a tie";
    const missing = [ch.challenger, defenderOf(ch)].filter((w) => w !== "st" && !(w in (ch.declared || {})));
    if (missing.length < 2)
      return `${what}: ${awaiting(v, missing, "declare Traits", "count of Traits").replace(/^Your/, "your")}`;
    // one side declares first (the overbid's caller, else the challenger); the viewer's own moves
    // say whether it is theirs: both lines agree on who it is
    const mayNow = (ch.moves?.[v.viewer]?.verbs || []).includes("declare_traits");
    const first = missing.includes(v.viewer)
      ? mayNow
        ? v.viewer
        : missing.find((w) => w !== v.viewer)
      : overbidCaller(ch) || ch.challenger;
    const then = whoWords(
      v,
      missing.filter((w) => w !== first),
    );
    if (first === v.viewer) return `${what}: your count of Traits is due first; then ${then}`;
    return `${what}: waiting for ${whoWords(v, [first])} to declare Traits first; then ${then}`;
  },
  retest_window: (v, ch) => {
    const pending = ch.retests.find((r) => r.status === "pending");
    if (pending) {
      const other = otherSide(ch, pending);
      const them = other === v.viewer ? "you" : nameOf(v, other);
      if (pending.by === v.viewer)
        return `You retest with ${sourceLabel(pending.source)}: waiting for ${them}, who may cancel it or let it stand`;
      const may = other === v.viewer ? "cancel it or let it stand" : `waiting for ${them} to cancel it or let it stand`;
      return `${nameOf(v, pending.by)} retests with ${sourceLabel(pending.source)}: ${may}`;
    }
    const leader = ch.tests.at(-1)?.leader;
    const behind = leader === "challenger" ? defenderOf(ch) : leader === "defender" ? ch.challenger : null;
    if (behind === v.viewer) return "You may retest, or pass";
    return behind ? `${nameOf(v, behind)} may retest, or pass` : "either side may retest, or pass";
  },
};

/** Who called the overbid whose counts are being declared (null: none pending). */
export function overbidCaller(ch) {
  return (ch.retests || []).find((r) => r.status === "pending" && r.source?.category === "overbid")?.by || null;
}

/** "your", "Rosa's", "an": whose overbid is being declared, for the viewer. */
function overbidder(v, ch) {
  const by = overbidCaller(ch);
  return !by ? "an" : by === v.viewer ? "your" : `${nameOf(v, by)}'s`;
}

/** Whom an open challenge waits for, and to do what, for this viewer ("Your throw is due"); where
 * the page has no finer words for its state, the account's (`account.now`). */
export function waitingFor(view, ch) {
  return (WAITING[ch.status] || (() => ch.account.now))(view, ch);
}

/** The first words of a rule, to name it where its whole text is folded away: a short rule whole
 * ("Rock crushes Scissors. Scissors cuts Paper. Paper covers Rock. Identical signs indicate a
 * tie"), a longer one's opening with "…", never one sentence of several as if it were the rule. */
export function ruleOpening(words) {
  if (words.length <= SHORT_RULE) return words.replace(/[.;:]$/, "");
  const first = words.split(/(?<=[.;:!?])\s/)[0];
  const cut = first.length > 70 ? first.slice(0, 70).replace(/\s+\S*$/, "") : first;
  return `${cut.replace(/[.;:,]$/, "")}…`;
}

/** A rule this short is quoted whole where it is folded away. */
const SHORT_RULE = 100;

/** The rule a step or refusal cites, folded: its first words and its book ("The rule: “The loser
 * loses the Traits bid…” (Laws of the Night)"), then its words signed by the book. The id stays
 * in `data-rule` (for the audit and the tests), never in the words. */
export function ruleNote(ruleId) {
  if (!ruleId) return null;
  const summary = h("summary", {}, "The rule");
  const details = h("details", { class: "rule", dataset: { rule: ruleId } }, summary);
  ruleTable().then((table) => {
    const rule = table[ruleId];
    if (!rule) return;
    summary.textContent = `The rule: “${ruleOpening(rule.words)}” (${rule.source})`;
    details.append(h("blockquote", {}, rule.words), h("cite", {}, rule.source));
  });
  return details;
}

/** The rule's own words and its source, shown open (inside a disclosure of their own). */
export function ruleWords(ruleId) {
  if (!ruleId) return null;
  const out = h("div", { class: "rule-words", dataset: { rule: ruleId } });
  ruleTable().then((table) => {
    const rule = table[ruleId];
    if (rule) out.append(h("blockquote", {}, rule.words), h("cite", {}, rule.source));
  });
  return out;
}

/** A refused move: the server's reason, and the rule's own words. */
export function refusal(error) {
  const fields = Object.entries(error.fields || {});
  return h(
    "div",
    { class: "refusal", role: "alert" },
    h("strong", {}, "Refused: "),
    fields.length
      ? `${error.message.split(":")[0]} (${fields.length} ${fields.length > 1 ? "problems" : "problem"}):`
      : error.message,
    fields.length > 0 &&
      h(
        "ul",
        { class: "fields" },
        fields.map(([path, what]) => h("li", {}, h("code", {}, path || "sheet"), `: ${what}`)),
      ),
    ruleNote(error.rule),
  );
}

/** The timeline as this viewer saw it, newest last, growing as steps arrive; `extra(step)` makes
 * the control that stands for a step's number (a menu); with `live`, a button fetches earlier steps a page at a time. Returns the
 * list; `grow(list, steps)` puts in the steps it lacks, in order. */
export function timeline(steps, extra, live) {
  const list = h("ol", { class: "timeline", "aria-label": "Timeline", tabindex: 0 }); // it scrolls: reachable by keyboard
  list.extra = extra;
  grow(list, steps);
  if (!live) return list;
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "Show earlier events");
  list.more = more; // shown only while the list lacks steps before its first (grow says)
  more.onclick = async () => {
    more.disabled = true;
    more.hidden = !(await live.earlier());
    more.disabled = false;
    grow(list, live.timeline);
  };
  return h("div", {}, more, list);
}

export function grow(list, steps) {
  const newest = list.lastElementChild;
  list.seen ??= new Set();
  for (const step of steps) {
    if (list.seen.has(step.seq)) continue;
    list.seen.add(step.seq);
    const item = h(
      "li",
      { id: `step-${step.seq}`, dataset: { seq: String(step.seq) } },
      list.extra ? list.extra(step) : h("span", { class: "seq" }, `#${step.seq}`),
      " ",
      step.summary,
      ruleNote(step.data?.rule),
    );
    if (step.data?.compared && Object.keys(step.data.compared).length) item.dataset.compared = "1";
    const last = list.lastElementChild;
    const after =
      !last || Number(last.dataset.seq) < step.seq
        ? null
        : [...list.children].find((li) => Number(li.dataset.seq) > step.seq);
    list.insertBefore(item, after || null);
    const test = testKey(step);
    if (test) {
      item.dataset.test = test;
      item.dataset.type = step.type;
      oneLineATest(list, item, step);
    }
  }
  markGaps(list);
  if (list.more) list.more.hidden = !(Number(list.firstElementChild?.dataset.seq || 1) > 1); // nothing earlier: no button
  if (list.lastElementChild !== newest) list.scrollTop = list.scrollHeight; // the newest step in sight
}

/** "c-1:1": the challenge and test a thrown test's reveal or resolution is about (null: neither,
 * or dice, whose reveal does not say who won). */
function testKey(step) {
  const d = step.data || {};
  if (step.type !== "test_revealed" && step.type !== "test_resolved") return null;
  if (!d.challenge || d.test === undefined || (d.dice && Object.keys(d.dice).length)) return null;
  return `${d.challenge}:${d.test}`;
}

/** One line a test: a test's resolution straight after its reveal says the throws and the winner
 * again ("Test 1: Sam threw rock, you threw scissors: Sam wins." then "Sam threw rock, you threw
 * scissors: Sam wins the test."), so it is kept in the list (its number, its place) but not shown.
 * A resolution that compares counts (a tie's) says something new and stays. */
function oneLineATest(list, item, step) {
  const revealed =
    step.type === "test_revealed"
      ? item
      : list.querySelector(`li[data-seq="${step.seq - 1}"][data-type="test_revealed"]`);
  const resolved =
    step.type === "test_resolved"
      ? item
      : list.querySelector(`li[data-seq="${step.seq + 1}"][data-type="test_resolved"]`);
  if (!revealed || !resolved || revealed.dataset.test !== resolved.dataset.test || resolved.dataset.compared) return;
  resolved.hidden = true;
  // its number is said with the reveal's ("#23–24"): the numbers never skip with no sign
  if (!revealed.querySelector(".seq-with")) revealed.firstElementChild.after(foldedNumber(resolved.dataset.seq));
}

/** "–24" after a step's number: the step after it, told in the same line. */
function foldedNumber(seq) {
  return h(
    "span",
    { class: "seq seq-with" },
    h("span", { "aria-hidden": "true" }, `–${seq}`),
    h("span", { class: "sr-only" }, ` and step ${seq}, told with it`),
  );
}

/** Where the steps the server sent skip numbers (a step not sent to this viewer), a line says so
 * ("Steps 12–14 are not shown to you"); made anew as steps arrive. */
function markGaps(list) {
  for (const gap of list.querySelectorAll(":scope > li.gap")) gap.remove();
  const items = [...list.children].filter((li) => li.dataset.seq);
  items.forEach((li, i) => {
    const next = items[i + 1];
    if (!next) return;
    const [from, to] = [Number(li.dataset.seq) + 1, Number(next.dataset.seq) - 1];
    if (to < from) return;
    li.after(
      h(
        "li",
        { class: "gap" },
        from === to ? `Step ${from} is not shown to you.` : `Steps ${from}–${to} are not shown to you.`,
      ),
    );
  });
}

/** The connection badge. */
export function connection(live) {
  const text = {
    connecting: "Connecting…",
    live: "Live",
    reconnecting: live.reason || "Reconnecting…",
    refused: live.reason || "Refused",
  }[live.status];
  return h("span", { class: `badge ${live.status}`, role: "status", "aria-live": "polite" }, text);
}
