// The player's character sheet, laid out like a paper one: name, Traits by category (lost ones
// struck through), Negative Traits, abilities, powers, merits and gestures, then the boxes a player
// ticks at the table: Willpower, blood, health by type of damage, armour, and the conditions now.
import { h } from "./dom.js";
import { markName } from "./turns.js";
import { CATEGORIES, nameOf, stakesPools, title } from "./words.js";

const DAMAGE = [
  ["aggravated", "A"],
  ["lethal", "L"],
  ["bashing", "B"],
];

/** A character's sheet as the viewer may see it (their own, or for the ST an NPC's). With
 * `start`, each Trait, skill and power is a button that starts a challenge with it: `start` gets
 * `{category, bid}`, `{skill}` or `{power}` (the challenge form, filled in). `named: false` leaves
 * the naming to the page around it (the player's page names its fold, which stays in reach). */
export function sheetCard(view, who, { start = null, named = true } = {}) {
  const c = view.characters[who];
  if (!c) return h("p", {}, "Your character is not in the scene yet.");
  const sheet = c.sheet || {};
  const pools = stakesPools(view); // a challenge starts with a skill's test pool, not a bid
  const rated = c.sheet ? !sheet.traits && Object.keys(sheet.attributes || {}).length > 0 : pools; // the sheet says which it holds
  return h(
    "section",
    { class: "sheet paper", "aria-label": named ? `${c.name}'s sheet` : null },
    h("p", { class: "sheet-name" }, h("strong", {}, c.name), kindLine(sheet)),
    start && h("p", { class: "hint" }, `Tap a ${pools ? "skill" : "Trait"} or power to start a challenge with it.`),
    rated ? poolTraits(c, sheet, start) : traitBlock(c, sheet, start),
    h("div", { class: "sheet-vitals" }, willpower(c, sheet), blood(c, sheet), health(c, sheet), armour(c)),
    conditions(view, c),
    c.actions_left !== undefined && c.actions_left !== null && h("p", {}, `Actions left this round: ${c.actions_left}`),
  );
}

/** "Werewolf · Crinos form", under the name, when the sheet says (NPC, creature, form). */
function kindLine(sheet) {
  const parts = [
    sheet.npc && "NPC",
    sheet.creature && title(sheet.creature),
    sheet.form && `${title(sheet.form)} form`,
  ].filter(Boolean);
  return parts.length ? h("span", { class: "sheet-kind" }, ` · ${parts.join(" · ")}`) : null;
}

/** Traits, Negative Traits, abilities, powers, merits, gestures (trait rulesets). */
function traitBlock(c, sheet, start) {
  const lost = [...(c.traits_lost || [])];
  const negative = CATEGORIES.map((cat) => [cat, sheet.negative_traits?.[cat] || []]).filter(
    ([, names]) => names.length,
  );
  return [
    h("h3", {}, "Traits"),
    h(
      "dl",
      { class: "traits sheet-traits" },
      CATEGORIES.map((cat) => [
        h("dt", {}, `${title(cat)} `, h("strong", { class: "count" }, String(c.traits?.[cat] ?? 0))),
        h(
          "dd",
          {},
          traitItems(sheet.traits?.[cat] || {}, lost, start && ((trait) => start({ category: cat, bid: trait }))),
        ),
      ]),
    ),
    lostLine(c),
    h("h3", {}, "Negative Traits"),
    negative.length
      ? h(
          "dl",
          { class: "traits negative" },
          negative.map(([cat, names]) => [h("dt", {}, title(cat)), h("dd", {}, names.join(", "))]),
        )
      : h("p", { class: "none" }, "None"),
    h("h3", {}, "Abilities"),
    abilities(c, sheet),
    h("h3", {}, "Powers"),
    named(sheet.powers, start && ((power) => start({ power }))),
    h("h3", {}, "Merits"),
    named(sheet.merits),
    (sheet.gestures || []).length > 0 && [h("h3", {}, "Gestures"), h("p", {}, sheet.gestures.map(title).join(", "))],
  ];
}

/** "Lost tonight: Brawny, Quick": every Trait lost, in the order lost. */
function lostLine(c) {
  const lost = c.traits_lost || [];
  return lost.length ? h("p", { class: "lost" }, "Lost tonight: ", lost.join(", ")) : null;
}

/** A sheet's entry that starts a challenge with it: "Brawny ×2", read "Challenge with Brawny ×2". */
function starter(words, act) {
  return h(
    "button",
    { type: "button", class: "sheet-start", onclick: act },
    h("span", { class: "sr-only" }, "Challenge with "),
    words,
  );
}

/** Each Trait of a category, kept ones first; those lost tonight struck through, saying so. With
 * `pick`, a Trait left is a button that starts a challenge bidding it. */
function traitItems(traits, lost, pick = null) {
  const items = [];
  for (const [trait, count] of Object.entries(traits)) {
    let gone = 0;
    while (gone < count && lost.includes(trait)) {
      lost.splice(lost.indexOf(trait), 1);
      gone += 1;
    }
    const left = count - gone;
    const words = left > 1 ? `${trait} ×${left}` : trait;
    if (left) items.push(h("li", {}, pick ? starter(words, () => pick(trait)) : words));
    if (gone)
      items.push(h("li", { class: "lost-trait" }, h("s", {}, gone > 1 ? `${trait} ×${gone}` : trait), " lost tonight"));
  }
  return items.length ? h("ul", { class: "trait-items" }, items) : h("span", { class: "none" }, "none");
}

/** "Brawl 1 of 2 (1 spent)": the sheet's levels and what is left of them tonight. */
function abilities(c, sheet) {
  const max = sheet.abilities || {};
  const names = [...new Set([...Object.keys(max), ...Object.keys(c.abilities || {})])];
  if (!names.length) return h("p", { class: "none" }, "None");
  return h(
    "ul",
    { class: "trait-items" },
    names.map((name) => {
      const of = max[name] ?? c.abilities?.[name] ?? 0;
      const left = c.abilities?.[name] ?? of;
      return h(
        "li",
        { class: left < of ? "spent" : "" },
        left < of ? `${name} ${left} of ${of} (${of - left} spent)` : `${name} ${of}`,
      );
    }),
  );
}

/** Powers or merits: a list of names, or names with levels ("Potence 2"); with `pick`, each a
 * button that starts a challenge with it. */
function named(list, pick = null) {
  const entries = Array.isArray(list) ? list.map((n) => [n, null]) : Object.entries(list || {});
  if (!entries.length) return h("p", { class: "none" }, "None");
  const words = (name, level) => (level ? `${name} ${level}` : name);
  return h(
    "ul",
    { class: "trait-items" },
    entries.map(([name, level]) =>
      h("li", {}, pick ? starter(words(name, level), () => pick(name)) : words(name, level)),
    ),
  );
}

/** Attributes, skills and weapons (pool rulesets). */
function poolTraits(c, sheet, start) {
  const skills = Object.entries(c.skills || {});
  const skillList = start
    ? h(
        "p",
        {},
        h(
          "span",
          { class: "trait-items" },
          skills.map(([s, n]) => starter(`${title(s)} ${n}`, () => start({ skill: s }))),
        ),
        " (a skill not listed: unskilled)",
      )
    : h("p", {}, `${skills.map(([s, n]) => `${title(s)} ${n}`).join(", ") || "none"} (a skill not listed: unskilled)`);
  return [
    h("h3", {}, "Attributes"),
    h(
      "dl",
      { class: "traits" },
      Object.entries(c.attributes || {}).map(([name, n]) => [
        h("dt", {}, title(name)),
        h("dd", {}, h("strong", {}, String(n))),
      ]),
    ),
    h("h3", {}, "Skills"),
    skillList,
    (sheet.weapons || []).length > 0 && [
      h("h3", {}, "Weapons"),
      h(
        "p",
        {},
        sheet.weapons
          .map((w) => `${w.name} (${w.kind}${w.bonus ? `, ${w.bonus > 0 ? "+" : ""}${w.bonus}` : ""})`)
          .join(", "),
      ),
    ],
    named(sheet.powers).textContent !== "None" && [
      h("h3", {}, "Powers"),
      named(sheet.powers, start && ((power) => start({ power }))),
    ],
    named(sheet.merits).textContent !== "None" && [h("h3", {}, "Merits"), named(sheet.merits)],
  ];
}

/** A row of boxes: `full` ticked of `max`, with the count in words for screen readers and eyes. */
function boxes(label, full, max, words) {
  return h(
    "div",
    { class: "track" },
    h("span", { class: "track-label" }, label),
    " ",
    h(
      "span",
      { class: "boxes", "aria-hidden": "true" },
      Array.from({ length: max }, (_, i) => h("span", { class: `box${i < full ? " full" : ""}` })),
    ),
    h("span", { class: "track-words" }, words),
  );
}

function willpower(c, sheet) {
  if (c.willpower === undefined || c.willpower === null) return null;
  const max = Math.max(sheet.willpower ?? c.willpower, c.willpower);
  if (!max) return null; // a sheet without Willpower: no empty track
  return boxes(
    "Willpower",
    c.willpower,
    max,
    `${c.willpower} of ${max}${max > c.willpower ? ` (${max - c.willpower} spent)` : ""}`,
  );
}

function blood(c, sheet) {
  if (!sheet.blood) return null; // no blood pool on this sheet
  const left = c.blood ?? sheet.blood;
  return boxes(
    "Blood",
    left,
    sheet.blood,
    `${left} of ${sheet.blood}${sheet.blood > left ? ` (${sheet.blood - left} spent)` : ""}`,
  );
}

/** Health boxes, worst damage first (A aggravated, L lethal, B bashing), then the levels left. */
function health(c, sheet) {
  if (c.health === undefined || c.health === null) return null;
  const max = sheet.health ?? c.health;
  const taken = DAMAGE.flatMap(([type, mark]) => Array.from({ length: c.damage?.[type] || 0 }, () => [type, mark]));
  const words = DAMAGE.filter(([type]) => c.damage?.[type]).map(([type]) => `${c.damage[type]} ${type}`);
  return h(
    "div",
    { class: "track health" },
    h("span", { class: "track-label" }, "Health"),
    " ",
    h(
      "span",
      { class: "boxes", "aria-hidden": "true" },
      Array.from({ length: Math.max(max, taken.length) }, (_, i) =>
        taken[i]
          ? h("span", { class: `box hurt ${taken[i][0]}`, dataset: { mark: taken[i][1] } })
          : h("span", { class: "box" }),
      ),
    ),
    h(
      "span",
      { class: "track-words" },
      `${c.health} of ${max} left${words.length ? ` · ${words.join(", ")}` : " · unhurt"}`,
    ),
  );
}

function armour(c) {
  if (c.armor === undefined || c.armor === null) return null;
  return h("p", { class: "armor" }, `Armour ${c.armor} left (it takes damage first)`);
}

/** Conditions now: held, holding, knocked down, marks, Traits down; "None" when there are none. */
function conditions(view, c) {
  const held = c.conditions || {};
  const items = [
    held.grappled_by && `Grappled by ${nameOf(view, held.grappled_by)}`,
    held.grappling?.length && `Grappling ${held.grappling.map((w) => nameOf(view, w)).join(", ")}`,
    held.prone && "Knocked down (prone)",
    held.surprised && "Surprised",
    ...(held.marks || []).map(
      (m) => `${title(markName(m.name))}${m.clears_after ? ` (${m.clears_after} to clear)` : ""}`,
    ),
    held.fair_escape && `Fair escape: ${held.fair_escape}`,
    held.moved_steps > 1 && `Moved ${held.moved_steps} steps (one Physical Trait down this round)`,
    c.down_traits && `Down ${c.down_traits} Trait${c.down_traits === 1 ? "" : "s"} (off your Trait Pool)`,
  ].filter(Boolean);
  return [
    h("h3", {}, "Conditions"),
    items.length
      ? h(
          "p",
          { class: "marks" },
          items.map((w) => h("span", { class: "mark" }, w)),
        )
      : h("p", { class: "none" }, "None"),
  ];
}
