// The Storyteller's sheet form: a character written field by field instead of a JSON file by hand
// (docs/protocol.md, section 3), sent with `add_character`. The server judges the sheet; a refusal
// is shown beside the field it names. A template sheet per ruleset is there to download.
import { field, h, select } from "./dom.js";
import { CATEGORIES, refusal, title } from "./words.js";

/** The nine bns attributes, by category (bns:attack-pool). */
const ATTRIBUTES = {
  physical: ["strength", "dexterity", "stamina"],
  social: ["charisma", "manipulation", "composure"],
  mental: ["intelligence", "wits", "resolve"],
};

/** "Brawny 2, Quick, Tough ×3" → {Brawny: 2, Quick: 1, Tough: 3}: names with how many (1 unless
 * said), as a player reads them off a paper sheet. */
export function counts(text) {
  const out = {};
  for (const part of text.split(/[,;\n]+/).map((p) => p.trim()).filter(Boolean)) {
    const m = part.match(/^(.*?)\s*(?:[x×]\s*)?(-?\d+)$/);
    const [name, n] = m && m[1] ? [m[1].trim(), Number(m[2])] : [part, 1];
    out[name] = (out[name] || 0) + n;
  }
  return out;
}

/** "Clumsy, Bestial" → ["Clumsy", "Bestial"]. */
export function names(text) {
  return text.split(/[,;\n]+/).map((p) => p.trim()).filter(Boolean);
}

/** Powers or merits: a list of names, or {name: level} once any has a level. */
function leveled(text) {
  const parts = names(text);
  return parts.some((p) => /\d$/.test(p)) ? counts(text) : parts;
}

/** An id for a name, unique in the scene: "Old Tom" → "old-tom" (then "old-tom-2" …). */
export function idFor(name, taken) {
  const base = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48) || "character";
  let id = base;
  for (let i = 2; taken.has(id) || id === "st"; i++) id = `${base}-${i}`;
  return id;
}

/** The fields a refusal names: the `fields` of a bad_sheet (msgspec's paths), else the
 * `character.…` paths quoted in its message (the ruleset's own checks). */
function namedFields(error) {
  const paths = Object.keys(error.fields || {});
  if (!paths.length) for (const m of (error.message || "").matchAll(/`(?:\$\.)?character\.([\w.[\]-]+)`/g)) paths.push(m[1]);
  return paths.map((p) => p.replace(/^\$\./, "").replace(/^character\./, ""));
}

/** A decoder's complaint in plain words ("Expected `int` <= 99" → "at most 99"). */
export function plain(what) {
  const rules = [
    [/Expected `int` <= (\d+)/, (m) => `at most ${m[1]}`],
    [/Expected `int` >= (\d+)/, (m) => `at least ${m[1]}`],
    [/Expected `int`, got `str`/, () => "a whole number, not words"],
    [/Expected `int`, got `float`/, () => "a whole number"],
    [/Expected `str` of length >= 1/, () => "cannot be empty"],
    [/Expected `str` of length <= (\d+)/, (m) => `at most ${m[1]} characters`],
    [/Expected `str` matching regex/, () => "letters, digits, dots, dashes and underscores only"],
  ];
  for (const [pattern, say] of rules) {
    const m = what.match(pattern);
    if (m) return say(m);
  }
  return what.replace(/`/g, "");
}

/** What the refusal says of one field: its `fields` entry, or the sentence of the message naming it. */
function wordsFor(error, path) {
  const exact = Object.entries(error.fields || {}).find(([p]) => p.replace(/^\$\.|^character\./g, "") === path);
  if (exact) return /^[A-Z“]/.test(exact[1]) ? exact[1] : `${path}: ${plain(exact[1])}`; // the server's own sentence, else the decoder's words
  const sentence = (error.message || "").split(/;\s+/).find((s) => s.includes(path));
  return (sentence || error.message || "").replace(/`/g, "");
}

/** The sheet form for the scene's ruleset, with its template to download. */
export function sheetForm(live) {
  const view = live.view;
  const family = view.rules?.family || "traits"; // traits | pools | dice
  const slots = new Map(); // a sheet field's path ("traits.physical", "willpower") -> where its refusal goes
  const slot = (path, control, label, hint) => {
    const f = field(label, control, hint);
    const problem = h("div", { class: "problem" });
    f.append(problem);
    slots.set(path, problem);
    return f;
  };
  const text = (name, placeholder) => h("input", { name, autocomplete: "off", placeholder });
  const number = (name, value) => h("input", { type: "number", name, value, inputmode: "numeric" });
  const box = (name) => h("input", { type: "checkbox", name });

  const name = h("input", { name: "name", autocomplete: "off", required: true, placeholder: "e.g. Old Tom" });
  const npc = box("npc");
  const auto = box("auto");
  const willpower = number("willpower", 3);
  const health = number("health", family === "pools" ? 6 : 7);
  const blood = number("blood", 0);
  const traits = Object.fromEntries(CATEGORIES.map((c) => [c, text(`traits-${c}`, { physical: "e.g. Brawny 2, Quick", social: "e.g. Charismatic 2", mental: "e.g. Alert, Clever" }[c])]));
  const negative = Object.fromEntries(CATEGORIES.map((c) => [c, text(`negative-${c}`, { physical: "e.g. Clumsy", social: "e.g. Callous", mental: "e.g. Forgetful" }[c])]));
  const abilities = text("abilities", "e.g. Brawl 2, Dodge");
  const powers = text("powers", "e.g. Celerity 2, Potence 1");
  const merits = text("merits", "e.g. Lucky");
  const bomb = box("bomb");
  const attributes = Object.fromEntries(Object.values(ATTRIBUTES).flat().map((a) => [a, number(`attr-${a}`, 2)]));
  const skills = text("skills", "e.g. brawl 2, dodge 1");
  const armor = number("armor", 0);
  const extra = number("extra_actions", 0);
  const retests = number("retests", 0);
  const rerolls = number("rerolls", 0);
  const combat = box("combat_sheet");
  const escapes = text("escape_powers", "e.g. Obfuscate");
  const notes = h("textarea", { name: "notes", rows: 2, placeholder: "What only you see" });
  const general = h("div", { class: "outcome", "aria-live": "polite" });
  const npcOnly = h("div", { class: "npc-only", hidden: true }, npcParts());
  npc.addEventListener("change", () => (npcOnly.hidden = !npc.checked));

  const sheet = () => {
    const taken = new Set(Object.keys(live.view.characters));
    const s = { id: idFor(name.value.trim(), taken), name: name.value.trim(), npc: npc.checked, willpower: Number(willpower.value), health: Number(health.value) };
    if (npc.checked && auto.checked) s.auto = true;
    if (family === "pools") {
      s.attributes = Object.fromEntries(Object.entries(attributes).map(([a, input]) => [a, Number(input.value)]));
      const sk = counts(skills.value);
      if (Object.keys(sk).length) s.skills = sk;
    } else {
      s.traits = Object.fromEntries(CATEGORIES.map((c) => [c, counts(traits[c].value)]).filter(([, t]) => Object.keys(t).length));
      const neg = Object.fromEntries(CATEGORIES.map((c) => [c, names(negative[c].value)]).filter(([, t]) => t.length));
      if (Object.keys(neg).length) s.negative_traits = neg;
      const ab = counts(abilities.value);
      if (Object.keys(ab).length) s.abilities = ab;
      if (Number(blood.value)) s.blood = Number(blood.value);
      if (family === "traits" && bomb.checked) s.gestures = ["bomb"];
    }
    const pw = leveled(powers.value);
    if (Object.keys(pw).length) s.powers = pw;
    const me = leveled(merits.value);
    if (Object.keys(me).length) s.merits = me;
    if (family === "dice") {
      for (const [key, input] of [["armor", armor], ["extra_actions", extra]]) if (Number(input.value)) s[key] = Number(input.value);
      if (names(escapes.value).length) s.escape_powers = names(escapes.value);
      if (npc.checked) {
        if (combat.checked) s.combat_sheet = true;
        for (const [key, input] of [["retests", retests], ["rerolls", rerolls]]) if (Number(input.value)) s[key] = Number(input.value);
      }
    }
    if (notes.value.trim()) s.notes = notes.value.trim();
    return s;
  };

  /** Each problem beside the field it names (the closest slot up its path); the rest below. */
  const show = (error) => {
    const unplaced = [];
    for (const path of new Set(namedFields(error))) {
      let key = path.replace(/\[\d+\]$/, "");
      while (key && !slots.has(key)) key = key.includes(".") ? key.slice(0, key.lastIndexOf(".")) : "";
      if (!key && path === "id") key = "name";
      const place = slots.get(key);
      if (place) place.append(h("p", { class: "refusal", role: "alert" }, h("strong", {}, "Refused: "), wordsFor(error, path)));
      else unplaced.push(path);
    }
    if (unplaced.length || !namedFields(error).length) general.replaceChildren(refusal(error));
    else general.replaceChildren(h("p", { class: "refusal", role: "alert" }, h("strong", {}, "Refused: "), "see the fields marked above."));
  };

  const submit = async (e) => {
    e.preventDefault();
    for (const place of slots.values()) place.replaceChildren();
    general.replaceChildren();
    const body = sheet();
    const reply = await live.send({ type: "add_character", character: body });
    if (!reply.ok) return show(reply.error);
    general.replaceChildren(h("p", { class: "done", role: "status" }, `✓ ${body.name} joins the scene${body.npc ? " as an NPC" : " (a player's character: invite their player above)"}.`));
    blank(); // the next character starts from an empty form, not from this one's Traits
    name.focus();
  };

  /** Every field back to what it held when the form was drawn (checkboxes unticked, numbers at
   * their usual values), the NPC part hidden again. */
  const blank = () => {
    for (const [control, was] of fresh) {
      if (control.type === "checkbox") control.checked = was;
      else control.value = was;
    }
    npcOnly.hidden = !npc.checked;
  };

  const fresh = [name, npc, auto, willpower, health, blood, ...Object.values(traits), ...Object.values(negative), abilities, powers, merits, bomb, ...Object.values(attributes), skills, armor, extra, retests, rerolls, combat, escapes, notes].map((control) => [control, control.type === "checkbox" ? control.checked : control.value]);
  const categoryFields = (inputs, label, path) => CATEGORIES.map((c) => slot(`${path}.${c}`, inputs[c], `${title(c)} ${label}`));
  return h(
    "details",
    { class: "sheet-form" },
    h("summary", {}, "Add a character with a sheet form"),
    h(
      "form",
      { class: "stack", novalidate: true, onsubmit: submit, "aria-label": "A new character's sheet" },
      h("p", { class: "hint" }, "Names with how many, separated by commas: ", h("q", {}, "Brawny 2, Quick"), ". ", h("a", { href: `/static/templates/${view.ruleset}.json`, download: `${view.ruleset}-sheet.json` }, "Download a template sheet"), " to write one as a file instead."),
      slot("name", name, "Name"),
      h("label", { class: "check" }, npc, " An NPC (you play them)"),
      npcOnly,
      h("div", { class: "pair" }, slot("willpower", willpower, "Willpower"), slot("health", health, "Health levels"), family !== "pools" && slot("blood", blood, "Blood")),
      family === "pools"
        ? [
            h("fieldset", { class: "attributes" }, h("legend", {}, "Attributes"), Object.entries(ATTRIBUTES).map(([cat, list]) => h("div", { class: "pair", role: "group", "aria-label": title(cat) }, list.map((a) => slot(`attributes.${a}`, attributes[a], title(a)))))),
            slot("skills", skills, "Skills", "Missing skills count as 0: unskilled"),
          ]
        : [
            h("fieldset", { class: "traits" }, h("legend", {}, "Traits"), categoryFields(traits, "Traits", "traits")),
            h("fieldset", { class: "traits" }, h("legend", {}, "Negative Traits"), categoryFields(negative, "Negative Traits", "negative_traits")),
            slot("abilities", abilities, "Abilities"),
          ],
      slot("powers", powers, "Powers (with levels)"),
      slot("merits", merits, "Merits"),
      family === "traits" && h("label", { class: "check" }, bomb, " Has the Bomb gesture"),
      family === "dice" && h("div", { class: "pair" }, slot("armor", armor, "Armour"), slot("extra_actions", extra, "Extra actions each round")),
      family === "dice" && slot("escape_powers", escapes, "Powers to leave the scene at any time"),
      slot("notes", notes, "Notes (only you see them)"),
      h("button", { type: "submit", class: "primary" }, "Add the character"),
    ),
    general,
  );

  function npcParts() {
    return [
      h("label", { class: "check" }, auto, " Throws by itself (the server throws at random for it)"),
      family === "dice" && h("label", { class: "check" }, combat, " A combat sheet (you declare for it at any time)"),
      family === "dice" && h("div", { class: "pair" }, slot("retests", retests, "Retests on its sheet"), slot("rerolls", rerolls, "Rerolls in a narrative test")),
    ];
  }
}
