// Cards both pages show: a challenge as far as the viewer may see it, and a character sheet.
import { h } from "./dom.js";
import { movesPanel } from "./moves.js";
import { markName } from "./turns.js";
import { SIGN_LABELS, andList, challengeLine, defenderOf, describePool, damageWords, effectWords, gradeLine, nameOf, retestWords, ruleWords, sourceLabel, title, waitingFor } from "./words.js";

/** "you win" on the viewer's own page, "Juan wins" on any other. */
function wins(view, who) {
  return who === view.viewer && view.characters?.[who] ? "you win" : `${nameOf(view, who)} wins`;
}

/** A challenge, with the moves of each character the viewer acts for (`actFor`: the ST's NPCs).
 * Once decided, its outcome reads at arm's length: "You lost: Brawny is gone for the night" for a
 * side, said once, with how it was decided and the rule's words one tap away; `dispute` (a player's
 * page) adds a way to dispute the result. */
export function challengeCard(live, view, ch, { forCharacter = false, extra = null, dispute = null } = {}) {
  const moves = Object.entries(ch.moves || {});
  const grade = gradeLine(view, ch);
  const decided = Boolean(ch.outcome) || ch.status === "withdrawn";
  const story = [
    ch.victory && h("p", { class: "victory" }, `“${ch.victory}”`, ch.defender_victory && ` — answered: “${ch.defender_victory}”`),
    ((ch.effect && ch.effect.kind !== "narrative") || ch.defender_effect) && effectsLine(view, ch),
  ];
  const head = h("h3", { id: `ch-${ch.id}` }, challengeLine(view, ch));
  if (decided) {
    return h(
      "article",
      { class: "challenge resolved", "aria-labelledby": `ch-${ch.id}`, dataset: { challenge: ch.id } },
      head,
      verdict(live, view, ch),
      grade && h("p", { class: "grade" }, h("strong", {}, title(grade))),
      h(
        "details",
        { class: "how" },
        h("summary", {}, "How it was decided, and the rule"),
        attackDetails(ch),
        story,
        progress(view, ch),
        ch.outcome && h("p", { class: "why" }, ch.outcome.why),
        ch.outcome && ruleWords(ch.outcome.rule),
      ),
      moves.map(([who, found]) => movesSection(live, view, ch, who, found, forCharacter)),
      dispute && dispute(ch),
      extra,
    );
  }
  return h(
    "article",
    { class: "challenge open", "aria-labelledby": `ch-${ch.id}`, dataset: { challenge: ch.id } },
    head,
    attackDetails(ch),
    story,
    progress(view, ch),
    h("p", { class: "waiting" }, h("strong", {}, "Now: "), waitingFor(view, ch)),
    moves.map(([who, found]) => movesSection(live, view, ch, who, found, forCharacter)),
    extra,
  );
}

/** "If Sam wins: you take 1 bashing damage · If you win: Sam is knocked down": what winning does,
 * said of the loser, so a defender answers knowing what a loss costs. */
function effectsLine(view, ch) {
  const defender = defenderOf(ch);
  const parts = [
    ch.effect && [`If ${wins(view, ch.challenger)}: `, h("strong", {}, effectOn(view, ch.effect, ch.challenger, defender))],
    ch.defender_effect && [`If ${wins(view, defender)}: `, h("strong", {}, effectOn(view, ch.defender_effect, defender, ch.challenger))],
  ].filter(Boolean);
  return h("p", { class: "effects" }, parts.map((p, i) => [i > 0 && " · ", p]));
}

/** An effect as it lands: "you take 1 bashing damage", "Juan is knocked down", "you grapple Sam". */
function effectOn(view, effect, winner, loser) {
  const you = (w) => w === view.viewer && view.characters?.[w];
  const name = (w) => (you(w) ? "you" : nameOf(view, w));
  const verb = (w, plain, third) => `${name(w)} ${you(w) ? plain : third}`;
  if (loser === "st" && effect.kind !== "narrative" && effect.kind !== "escape_grapple") return effectWords(effect);
  switch (effect.kind) {
    case "damage":
      return verb(loser, "take", "takes") + ` ${effectWords(effect)}`;
    case "grapple":
      return `${verb(winner, "grapple", "grapples")} ${name(loser)}`;
    case "escape_grapple":
      return verb(winner, "break free", "breaks free");
    case "knock_down":
      return verb(loser, "are knocked down", "is knocked down");
    default:
      return effectWords(effect);
  }
}

function movesSection(live, view, ch, who, found, forCharacter) {
  return h(
    "section",
    { class: "your-moves", "aria-label": `${nameOf(view, who)}'s moves` },
    forCharacter && h("h4", {}, `Acting for ${nameOf(view, who)}`),
    movesPanel(live, view, ch, who, found, { forCharacter }),
  );
}

/** Bids, pools, sealed throws and dice, the tests and the retests so far. */
function progress(view, ch) {
  const me = view.viewer;
  const bids = Object.entries(ch.bids || {}).filter(([, traits]) => traits.length);
  const sealed = Object.entries(ch.sealed || {});
  const pools = Object.entries(ch.pools || {});
  const traitPools = Object.entries(ch.trait_pools || {});
  const rolls = Object.entries(ch.rolls || {});
  const rolledOnly = (ch.rolled || []).filter((w) => !(w in (ch.rolls || {})));
  const whose = (who) => (who === me ? "Your" : `${nameOf(view, who)}'s`);
  const said = (why) => (ch.outcome?.why || "").includes(why); // the outcome says it: not twice
  return [
    bids.length > 0 && h("p", {}, "Bids: ", bids.map(([who, traits]) => `${who === me ? "You" : nameOf(view, who)}: ${traits.join(", ")}`).join(" · ")),
    pools.length > 0 &&
      h(
        "ul",
        { class: "pools", "aria-label": "Test pools" },
        pools.map(([who, pool]) => h("li", {}, `${whose(who)} ${pool.attack || pool.defense || ""} pool: `, h("strong", {}, describePool(pool)))),
      ),
    traitPools.length > 0 &&
      h(
        "ul",
        { class: "pools trait-pools", "aria-label": "Trait pools" },
        // "Your Trait Pool: 8 (8 physical; at most 30)": how it is counted, without its owner's name again
        traitPools.map(([who, pool]) => {
          const how = pool.why.match(/pool of \d+ \((.+)\)$/)?.[1];
          return h("li", {}, `${whose(who)} Trait Pool: `, h("strong", {}, `${pool.total}`), how ? ` (${how}; at most ${pool.cap})` : ` (at most ${pool.cap}) — ${pool.why}`);
        }),
      ),
    (rolls.length > 0 || rolledOnly.length > 0) &&
      h(
        "p",
        { class: "sealed rolled" },
        [
          ...rolls.map(([who, roll]) => `${whose(who)} sealed dice: ${roll.dice.join(", ")}${roll.retests?.length ? ` (naming ${roll.retests.map(sourceLabel).join(", ")})` : ""}`),
          ...rolledOnly.map((who) => `${nameOf(view, who)} has rolled (sealed)`),
        ].join(" · "),
      ),
    Object.keys(ch.mob || {}).length > 0 && h("p", {}, "Mob: ", Object.entries(ch.mob).map(([who, traits]) => `${nameOf(view, who)} lends ${traits.join(", ")}`).join(" · ")),
    sealed.length > 0 && h("p", { class: "sealed" }, sealed.map(([who, sign]) => `${whose(who)} sealed throw: ${SIGN_LABELS[sign] || sign}`).join(" · ")),
    ch.blind && h("p", { class: "sealed blind" }, ch.blind),
    ch.tests.length > 0 &&
      h(
        "ol",
        { class: "tests", "aria-label": "Tests" },
        ch.tests.map((t) => h("li", {}, `Test ${t.number}: `, throwLine(view, ch, t), diceLine(view, t), t.why && !said(t.why) && (t.compared || !Object.keys(t.signs || {}).length) ? ` — ${t.why}` : "")),
      ),
    ch.retests.length > 0 && h("ul", { class: "retests", "aria-label": "Retests" }, ch.retests.map((r) => h("li", {}, retestWords(view, ch, r)))),
  ];
}

/** "You threw rock, Juan threw scissors: you win the test": a test's throws said once, from its
 * data, with the viewer in the second person (the server's sentence names everyone in the third). */
function throwLine(view, ch, t) {
  const signs = Object.entries(t.signs || {});
  if (!signs.length) return "";
  const me = view.viewer;
  const thrown = signs.map(([who, sign], i) => `${who === me ? (i ? "you" : "You") : nameOf(view, who)} threw ${sign}`).join(", ");
  const leader = t.leader === "challenger" ? ch.challenger : t.leader === "defender" ? defenderOf(ch) : null;
  const mine = t.leader && sideOf(ch, me) === t.leader;
  const result = mine ? "you win the test" : leader ? `${nameOf(view, leader)} wins the test` : t.leader === "none" ? "nobody wins the test" : t.result === "tie" ? "a tie" : "";
  return result ? `${thrown}: ${result}` : thrown;
}

/** Which side `who` is on in `ch` (null: neither). */
export function sideOf(ch, who) {
  if (!who || who === "*" || who === "st") return null;
  if (ch.challenger === who || who in (ch.mob || {})) return "challenger";
  if (ch.targets.includes(who)) return "defender";
  return null;
}

/** What the challenge still costs each character, from the timeline: {who: {traits: ["Brawny"],
 * hurt: ["2 lethal damage"], fates: ["knocked prone"]}}. A ruling's corrections (`trait_restored`,
 * `damage_healed`, `prone_cleared`, `grapple_broken`) take their loss back: only what stands is
 * counted, so a draw amended to a win does not show both sides' bids lost twice. */
function costs(live, ch) {
  const out = {};
  const of = (who) => (out[who] ??= { traits: [], hurt: [], fates: [] });
  const drop = (list, item) => {
    const at = list.indexOf(item);
    if (at >= 0) list.splice(at, 1);
  };
  for (const step of live?.timeline || []) {
    const d = step.data || {};
    if (d.challenge !== ch.id) continue;
    if (step.type === "trait_lost") of(d.character).traits.push(d.trait);
    if (step.type === "trait_restored") drop(of(d.character).traits, d.trait);
    if (step.type === "damage_taken") of(d.character).hurt.push({ key: `${d.amount} ${d.damage}`, words: damageWords(d) });
    if (step.type === "damage_healed") {
      const hurt = of(d.character).hurt;
      const at = hurt.findIndex((x) => x.key === `${d.amount} ${d.damage}`);
      if (at >= 0) hurt.splice(at, 1);
    }
    if (step.type === "knocked_down") of(d.character).fates.push("knocked prone");
    if (step.type === "prone_cleared") drop(of(d.character).fates, "knocked prone");
    if (step.type === "grapple_started") of(d.victim).fates.push(`held by ${d.grappler}`);
    if (step.type === "grapple_broken") drop(of(d.victim).fates, `held by ${d.grappler}`);
  }
  for (const c of Object.values(out)) c.hurt = c.hurt.map((x) => x.words);
  return Object.fromEntries(Object.entries(out).filter(([, c]) => c.traits.length || c.hurt.length || c.fates.length));
}

/** How the Storyteller changed this challenge's outcome by a ruling (its outcome is then the
 * corrected one): "overturned", "amended", or null (not changed). */
function amended(live, view, ch) {
  const ruling = (view.rulings || []).filter((r) => r.challenge === ch.id && r.decision !== "uphold" && r.winner).at(-1);
  if (ruling) return ruling.decision === "overturn" ? "overturned" : "amended";
  return (live?.timeline || []).some((s) => s.type === "outcome_corrected" && s.data?.challenge === ch.id) ? "amended" : null;
}

/** "You won: Juan loses Quick", "A draw: you lose Nimble; Alice loses Brawny", "Juan won": the
 * outcome once, large, in the second person for a side, counting only the losses that stand, and
 * saying so when a ruling amended it. */
function verdict(live, view, ch) {
  const o = ch.outcome;
  if (!o) return h("p", { class: "verdict" }, ch.status === "withdrawn" ? `${ch.challenger === view.viewer ? "You" : nameOf(view, ch.challenger)} withdrew the challenge` : "Decided");
  const side = sideOf(ch, view.viewer);
  const winner = o.winner === "challenger" ? ch.challenger : o.winner === "defender" ? defenderOf(ch) : null;
  const cost = costs(live, ch);
  const mine = cost[view.viewer];
  const theirs = Object.entries(cost).filter(([who]) => who !== view.viewer);
  const held = (fate) => fate.replace(/^held by (.+)$/, (_, by) => `held by ${by === view.viewer ? "you" : nameOf(view, by)}`);
  const lossWords = (c) => [c.traits.length && `${andList(c.traits)} ${c.traits.length === 1 ? "is" : "are"} gone for the night`, ...c.hurt.map((x) => `you take ${x}`), ...c.fates.map((f) => `you are ${held(f)}`)].filter(Boolean).join("; ");
  const loses = (who, c) => {
    const you = who === view.viewer;
    const name = you ? "you" : nameOf(view, who);
    return [c.traits.length && `${name} ${you ? "lose" : "loses"} ${andList(c.traits)}`, ...c.hurt.map((x) => `${name} ${you ? "take" : "takes"} ${x}`), ...c.fates.map((f) => `${name} ${you ? "are" : "is"} ${held(f)}`)].filter(Boolean).join("; ");
  };
  const theirWords = theirs.map(([who, c]) => loses(who, c)).filter(Boolean).join("; ");
  let text;
  let tone;
  if (o.winner === "none") {
    const all = [...(mine ? [[view.viewer, mine]] : []), ...theirs].map(([who, c]) => loses(who, c)).filter(Boolean).join("; ");
    text = `A draw: ${all || "nobody wins"}`;
    tone = "draw";
  } else if (side) {
    const won = side === o.winner;
    tone = won ? "won" : "lost";
    const detail = won ? theirWords : mine ? lossWords(mine) : "";
    text = `${won ? "You won" : "You lost"}${detail ? `: ${detail}` : ""}`;
  } else {
    tone = "other";
    text = `${nameOf(view, winner)} won${theirWords ? `: ${theirWords}` : ""}`;
  }
  const changed = amended(live, view, ch);
  return h("p", { class: `verdict ${tone}` }, text, changed && h("span", { class: "amended" }, ` (${changed} by the Storyteller)`));
}

/** "You ⚀ 1 · 2 (1 success) vs Juan 3 (0)": both sides' dice once shown, with the successes (1s);
 * the viewer's own side as "you", as in throwLine. */
function diceLine(view, t) {
  const sides = Object.entries(t.dice || {});
  if (!sides.length) return null;
  return h(
    "span",
    { class: "dice" },
    sides.map(([who, dice], i) => [
      i > 0 && " vs ",
      `${who === view.viewer ? (i ? "you" : "You") : nameOf(view, who)} `,
      dice.map((d) => h("span", { class: `die d${d}`, "aria-label": `a ${d}` }, String(d))),
      ` (${dice.filter((d) => d === 1).length} success${dice.filter((d) => d === 1).length === 1 ? "" : "es"})`,
    ]),
  );
}

/** "From 1 step · Knock down", "Hamstring + Targeted attack": the range and the maneuvers (one, or
 * two with an assist) an attack was declared with (null: none). */
function attackDetails(ch) {
  const ranged = typeof ch.range === "number";
  const maneuvers = ch.maneuvers?.length ? ch.maneuvers : [ch.maneuver].filter(Boolean);
  const parts = [ranged && `From ${ch.range} step${ch.range === 1 ? "" : "s"}`, maneuvers.map((m) => title(markName(m))).join(" + ")].filter(Boolean);
  return parts.length ? h("p", { class: "attack-details" }, parts.join(" · ")) : null;
}
