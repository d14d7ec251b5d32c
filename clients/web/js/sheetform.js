// The Storyteller's sheet form: a character written field by field instead of a JSON file by hand
// (docs/protocol.md, section 3), sent with `add_character`; the same form, filled from the sheet,
// amends a character already in the scene (`amend_character`, with a reason). The server judges
// the sheet against its ruleset: a refusal names every problem by its field's path, and each is
// shown beside its field ("did you mean Brawl?"). What the rules leave open can be kept as written.
import { field, h, select } from "./dom.js";
import { CATEGORIES, refusal, title } from "./words.js";

/** The nine bns attributes, by category (bns:attack-pool). */
const ATTRIBUTES = {
  physical: ["strength", "dexterity", "stamina"],
  social: ["charisma", "manipulation", "composure"],
  mental: ["intelligence", "wits", "resolve"],
};

/** Each ruleset's examples, in its own words (names its document uses). */
const HINTS = {
  lotn: {
    traits: "Ferocious 2, Quick",
    physical: "e.g. Ferocious 2, Quick",
    social: "e.g. Dignified 2",
    mental: "e.g. Wily",
    negative: "e.g. Lethargic",
    abilities: "e.g. Brawl 2, Dodge",
    powers: "e.g. Dominate 1",
    merits: "e.g. Lucky",
  },
  camarilla: {
    traits: "Brawny 2, Quick",
    physical: "e.g. Brawny 2, Quick",
    social: "e.g. Charismatic 2",
    mental: "e.g. Alert, Clever",
    negative: "e.g. Clumsy",
    abilities: "e.g. Brawl 2, Dodge",
    powers: "e.g. Might, Puissance",
    merits: "e.g. a merit's name",
  },
  kony: {
    traits: "Brawny 2, Tough",
    physical: "e.g. Brawny 2, Tough",
    social: "e.g. Intimidating 2",
    mental: "e.g. Alert",
    negative: "e.g. Clumsy",
    abilities: "e.g. Brawl 2, Blind Fighting",
    powers: "e.g. Celerity 2, Fortitude 1",
    merits: "e.g. a merit's name",
  },
  bns: {
    traits: "brawl 2, dodge 1",
    skills: "e.g. brawl 2, dodge 1, firearms 3",
    powers: "e.g. Dread Gaze",
    merits: "e.g. Fighting Finesse",
  },
};

const WEAPON_KINDS = ["melee", "thrown", "archery", "firearms"];

/** "Brawny 2, Quick, Tough ×3" → {Brawny: 2, Quick: 1, Tough: 3}: names with how many (1 unless
 * said), as a player reads them off a paper sheet. */
export function counts(text) {
  const out = {};
  for (const part of text
    .split(/[,;\n]+/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = part.match(/^(.*?)\s*(?:[x×]\s*)?(-?\d+)$/);
    const [name, n] = m?.[1] ? [m[1].trim(), Number(m[2])] : [part, 1];
    out[name] = (out[name] || 0) + n;
  }
  return out;
}

/** "Clumsy, Bestial" → ["Clumsy", "Bestial"]. */
export function names(text) {
  return text
    .split(/[,;\n]+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Powers or merits: a list of names, or {name: level} once any has a level. */
function leveled(text) {
  const parts = names(text);
  return parts.some((p) => /\d$/.test(p)) ? counts(text) : parts;
}

/** {Brawny: 2, Quick: 1} → "Brawny 2, Quick"; ["Lucky"] → "Lucky": a sheet's names back as text. */
function written(value) {
  if (Array.isArray(value)) return value.join(", ");
  return Object.entries(value || {})
    .map(([name, n]) => (n === 1 ? name : `${name} ${n}`))
    .join(", ");
}

/** An id for a name, unique in the scene: "Old Tom" → "old-tom" (then "old-tom-2" …). */
export function idFor(name, taken) {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "character";
  let id = base;
  for (let i = 2; taken.has(id) || id === "st"; i++) id = `${base}-${i}`;
  return id;
}

/** The id a new sheet of this name takes: a character of that name who left the scene comes back
 * as the one character (its id); else a fresh one. */
export function idOf(name, characters) {
  const gone = Object.values(characters).find((c) => !c.present && c.name.trim().toLowerCase() === name.toLowerCase());
  return gone ? gone.id : idFor(name, new Set(Object.keys(characters)));
}

/** The fields a refusal names: the `fields` of a bad_sheet (msgspec's paths), else the
 * `character.…` paths quoted in its message (the ruleset's own checks). */
function namedFields(error) {
  const paths = Object.keys(error.fields || {});
  if (!paths.length)
    for (const m of (error.message || "").matchAll(/`(?:\$\.)?(?:character|sheet)\.([\w.[\]-]+)`/g)) paths.push(m[1]);
  return paths.map((p) => p.replace(/^\$\./, "").replace(/^(character|sheet)\./, ""));
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
  const exact = Object.entries(error.fields || {}).find(
    ([p]) => p.replace(/^\$\.|^character\.|^sheet\./g, "") === path,
  );
  if (exact) return /^[A-Z“]/.test(exact[1]) ? exact[1] : `${path}: ${plain(exact[1])}`; // the server's own sentence, else the decoder's words
  const sentence = (error.message || "").split(/;\s+/).find((s) => s.includes(path));
  return (sentence || error.message || "").replace(/`/g, "");
}

/** The fields of a sheet for the scene's ruleset, filled from `initial` (a sheet) if given: what
 * they hold as a sheet (`read`), and where each refusal goes (`show`). */
function sheetEditor(live, initial) {
  const view = live.view;
  const family = view.rules?.family || "traits"; // traits | pools | dice
  const hint = HINTS[view.ruleset] || HINTS.lotn;
  const s0 = initial || {};
  const slots = new Map(); // a sheet field's path ("traits.physical", "willpower") -> where its refusal goes
  const slot = (path, control, label, note) => {
    const f = field(label, control, note);
    const problem = h("div", { class: "problem" });
    f.append(problem);
    slots.set(path, problem);
    return f;
  };
  const text = (name, placeholder, value = "") => h("input", { name, autocomplete: "off", placeholder, value });
  const number = (name, value) => h("input", { type: "number", name, value, inputmode: "numeric" });
  const box = (name, checked = false) => h("input", { type: "checkbox", name, checked });

  const name = h("input", {
    name: "name",
    autocomplete: "off",
    required: true,
    placeholder: "e.g. Old Tom",
    value: s0.name || "",
  });
  const npc = box("npc", !!s0.npc);
  const auto = box("auto", !!s0.auto);
  const willpower = number("willpower", s0.willpower ?? 3);
  const health = number("health", s0.health ?? (family === "pools" ? 6 : 7));
  const blood = number("blood", s0.blood ?? 0);
  const traits = Object.fromEntries(CATEGORIES.map((c) => [c, text(`traits-${c}`, hint[c], written(s0.traits?.[c]))]));
  const negative = Object.fromEntries(
    CATEGORIES.map((c) => [c, text(`negative-${c}`, hint.negative, written(s0.negative_traits?.[c]))]),
  );
  const abilities = text("abilities", hint.abilities, written(s0.abilities));
  const powers = text("powers", hint.powers, written(s0.powers));
  const merits = text("merits", hint.merits, written(s0.merits));
  const bomb = box("bomb", (s0.gestures || []).includes("bomb"));
  const three = Object.keys(s0.attributes || {}).some((a) => a.toLowerCase() in ATTRIBUTES); // the three ratings, not the nine
  const layout = three ? Object.fromEntries(Object.keys(ATTRIBUTES).map((cat) => [cat, [cat]])) : ATTRIBUTES;
  const attributes = Object.fromEntries(
    Object.values(layout)
      .flat()
      .map((a) => [a, number(`attr-${a}`, s0.attributes?.[a] ?? 2)]),
  );
  const skills = text("skills", hint.skills, written(s0.skills));
  const creature = text("creature", "e.g. vampire, werewolf, human", s0.creature || "");
  const form = text("form", "e.g. crinos, hispo, lupus", s0.form || "");
  const weapons = weaponRows(s0.weapons || []);
  const armor = number("armor", s0.armor ?? 0);
  const extra = number("extra_actions", s0.extra_actions ?? 0);
  const retests = number("retests", s0.retests ?? 0);
  const rerolls = number("rerolls", s0.rerolls ?? 0);
  const combat = box("combat_sheet", !!s0.combat_sheet);
  const escapes = text("escape_powers", "e.g. Obfuscate", written(s0.escape_powers));
  const notes = h("textarea", { name: "notes", rows: 2, placeholder: "What only you see" }, s0.notes || "");
  const npcOnly = h("div", { class: "npc-only", hidden: !npc.checked }, npcParts());
  npc.addEventListener("change", () => {
    npcOnly.hidden = !npc.checked;
  });

  const read = () => {
    const s = {
      name: name.value.trim(),
      npc: npc.checked,
      willpower: Number(willpower.value),
      health: Number(health.value),
    };
    if (npc.checked && auto.checked) s.auto = true;
    if (family === "pools") {
      s.attributes = Object.fromEntries(Object.entries(attributes).map(([a, input]) => [a, Number(input.value)]));
      const sk = counts(skills.value);
      if (Object.keys(sk).length) s.skills = sk;
      if (creature.value.trim()) s.creature = creature.value.trim();
      if (form.value.trim()) s.form = form.value.trim();
      const held = weapons.read();
      if (held.length) s.weapons = held;
    } else {
      s.traits = Object.fromEntries(
        CATEGORIES.map((c) => [c, counts(traits[c].value)]).filter(([, t]) => Object.keys(t).length),
      );
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
      for (const [key, input] of [
        ["armor", armor],
        ["extra_actions", extra],
      ])
        if (Number(input.value)) s[key] = Number(input.value);
      if (names(escapes.value).length) s.escape_powers = names(escapes.value);
      if (npc.checked) {
        if (combat.checked) s.combat_sheet = true;
        for (const [key, input] of [
          ["retests", retests],
          ["rerolls", rerolls],
        ])
          if (Number(input.value)) s[key] = Number(input.value);
      }
    }
    // what this form does not draw stays as the sheet had it (an amendment changes only what it shows)
    for (const key of ["trait_max", "trait_kinds", "immediate_powers", "rage_rounds"])
      if (s0[key] !== undefined) s[key] = s0[key];
    if (notes.value.trim()) s.notes = notes.value.trim();
    return s;
  };

  /** Each problem beside the field it names (the closest slot up its path); returns the paths it
   * could not place. */
  const show = (error) => {
    const unplaced = [];
    for (const path of new Set(namedFields(error))) {
      let key = path.replace(/\[\d+\]$/, "");
      while (key && !slots.has(key)) key = key.includes(".") ? key.slice(0, key.lastIndexOf(".")) : "";
      if (!key && path === "id") key = "name";
      const place = slots.get(key);
      const word = error.code === "unusual_sheet" ? "Check: " : "Refused: ";
      if (place) {
        place.append(h("p", { class: "refusal", role: "alert" }, h("strong", {}, word), wordsFor(error, path)));
        controlOf(place)?.setAttribute("aria-invalid", "true");
      } else unplaced.push(path);
    }
    return unplaced;
  };
  const clear = () => {
    for (const place of slots.values()) {
      place.replaceChildren();
      controlOf(place)?.removeAttribute("aria-invalid");
    }
  };
  /** The first field marked with a problem, in the form's order (null: none). */
  const firstMarked = () => {
    const marked = [...slots.values()].filter((place) => place.childElementCount > 0);
    return marked.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0] || null;
  };

  const categoryFields = (inputs, label, path) =>
    CATEGORIES.map((c) => slot(`${path}.${c}`, inputs[c], `${title(c)} ${label}`));
  const parts = [
    slot("name", name, "Name"),
    h("label", { class: "check" }, npc, " An NPC (you play them)"),
    npcOnly,
    h(
      "div",
      { class: "pair" },
      slot("willpower", willpower, "Willpower"),
      slot("health", health, "Health levels"),
      family !== "pools" && slot("blood", blood, "Blood"),
    ),
    family === "pools"
      ? [
          h(
            "fieldset",
            { class: "attributes" },
            h("legend", {}, "Attributes (dots)"),
            Object.entries(layout).map(([cat, list]) =>
              h(
                "div",
                { class: "pair", role: "group", "aria-label": title(cat) },
                list.map((a) => slot(`attributes.${a}`, attributes[a], title(a))),
              ),
            ),
          ),
          slot("skills", skills, "Skills", "Missing skills count as 0: unskilled"),
          h("div", { class: "pair" }, slot("creature", creature, "Creature"), slot("form", form, "Form now")),
          h("fieldset", { class: "weapons" }, h("legend", {}, "Weapons"), weapons.rows, weapons.more),
        ]
      : [
          h("fieldset", { class: "traits" }, h("legend", {}, "Traits"), categoryFields(traits, "Traits", "traits")),
          h(
            "fieldset",
            { class: "traits" },
            h("legend", {}, "Negative Traits"),
            categoryFields(negative, "Negative Traits", "negative_traits"),
          ),
          slot("abilities", abilities, "Abilities"),
        ],
    slot("powers", powers, "Powers (with levels)"),
    slot("merits", merits, "Merits"),
    family === "traits" && h("label", { class: "check" }, bomb, " Has the Bomb gesture"),
    family === "dice" &&
      h(
        "div",
        { class: "pair" },
        slot("armor", armor, "Armour"),
        slot("extra_actions", extra, "Extra actions each round"),
      ),
    family === "dice" && slot("escape_powers", escapes, "Powers to leave the scene at any time"),
    slot("notes", notes, "Notes (only you see them)"),
  ];
  const controls = [
    name,
    npc,
    auto,
    willpower,
    health,
    blood,
    ...Object.values(traits),
    ...Object.values(negative),
    abilities,
    powers,
    merits,
    bomb,
    ...Object.values(attributes),
    skills,
    creature,
    form,
    armor,
    extra,
    retests,
    rerolls,
    combat,
    escapes,
    notes,
  ];
  const fresh = controls.map((control) => [control, control.type === "checkbox" ? control.checked : control.value]);
  /** Every field back to what it held when the form was drawn, the NPC part as it was. */
  const reset = () => {
    for (const [control, was] of fresh) {
      if (control.type === "checkbox") control.checked = was;
      else control.value = was;
    }
    weapons.reset();
    npcOnly.hidden = !npc.checked;
  };
  return { parts, read, show, clear, reset, name, hint, family, firstMarked };

  function npcParts() {
    return [
      h("label", { class: "check" }, auto, " Throws by itself (the server throws at random for it)"),
      family === "dice" && h("label", { class: "check" }, combat, " A combat sheet (you declare for it at any time)"),
      family === "dice" &&
        h(
          "div",
          { class: "pair" },
          slot("retests", retests, "Retests on its sheet"),
          slot("rerolls", rerolls, "Rerolls in a narrative test"),
        ),
    ];
  }

  /** A row per weapon (bns): name, kind, bonus, damage, and whether it has reach or can be thrown. */
  function weaponRows(held) {
    const rows = h("div", { class: "weapon-rows" });
    const list = [];
    const add = (w = {}) => {
      const i = list.length;
      const row = {
        name: text(`weapon-${i}-name`, "e.g. Knife", w.name || ""),
        kind: select(
          `weapon-${i}-kind`,
          WEAPON_KINDS.map((k) => [k, title(k)]),
        ),
        bonus: number(`weapon-${i}-bonus`, w.bonus ?? 0),
        damage: number(`weapon-${i}-damage`, w.damage ?? ""),
        reach: box(`weapon-${i}-reach`, !!w.reach),
        throwable: box(`weapon-${i}-throwable`, !!w.throwable),
      };
      row.kind.value = w.kind || "melee";
      list.push(row);
      rows.append(
        h(
          "div",
          { class: "weapon", role: "group", "aria-label": `Weapon ${i + 1}` },
          h("div", { class: "pair" }, slot(`weapons.${i}`, row.name, "Weapon"), field("Kind", row.kind)),
          h(
            "div",
            { class: "pair" },
            field("Bonus to the pool", row.bonus),
            field("Damage (blank: the attack's)", row.damage),
          ),
          h("label", { class: "check" }, row.reach, " Reach"),
          h("label", { class: "check" }, row.throwable, " Can be thrown"),
        ),
      );
    };
    for (const w of held) add(w);
    if (!held.length) add();
    const more = h("button", { type: "button", onclick: () => add() }, "Another weapon");
    const read = () =>
      list
        .filter((r) => r.name.value.trim())
        .map((r) => {
          const w = { name: r.name.value.trim(), kind: r.kind.value };
          if (Number(r.bonus.value)) w.bonus = Number(r.bonus.value);
          if (r.damage.value !== "") w.damage = Number(r.damage.value);
          if (r.reach.checked) w.reach = true;
          if (r.throwable.checked) w.throwable = true;
          return w;
        });
    const reset = () => {
      rows.replaceChildren();
      list.length = 0;
      for (const w of held) add(w);
      if (!held.length) add();
    };
    return { rows, more, read, reset };
  }
}

/** The control a field's problem slot sits beside (its input, select or text area). */
function controlOf(place) {
  return place.parentElement?.querySelector("input, select, textarea") || null;
}

/** Take the Storyteller to the first field marked: focus its control, with the field in view (the
 * refusal below the form says "see the fields marked above", which may be screens away). */
function goToFirst(editor) {
  const place = editor.firstMarked();
  if (!place) return;
  controlOf(place)?.focus({ preventScroll: true });
  place.parentElement.scrollIntoView({ block: "center" });
}

/** Where a refusal goes: each problem beside its field, the rest below; for what the rules leave
 * open, a button that sends the same sheet again, kept as written. The first field marked gets
 * the focus. */
function answer(editor, general, error, again) {
  const unplaced = editor.show(error);
  goToFirst(editor);
  const keep =
    error.code === "unusual_sheet" &&
    h("button", { type: "button", class: "keep", onclick: again }, "Keep it as written");
  if (unplaced.length || !namedFields(error).length) return general.replaceChildren(refusal(error), keep || "");
  const said =
    error.code === "unusual_sheet"
      ? "some of these are not what the rules use: see the fields marked above; correct them, or keep the sheet as written."
      : "see the fields marked above.";
  general.replaceChildren(
    h(
      "p",
      { class: "refusal", role: "alert" },
      h("strong", {}, error.code === "unusual_sheet" ? "Check: " : "Refused: "),
      said,
    ),
    keep || "",
  );
}

/** The sheet form for the scene's ruleset, with its template to download. */
export function sheetForm(live) {
  const view = live.view;
  const editor = sheetEditor(live);
  const general = h("div", { class: "outcome", "aria-live": "polite" });

  const submit = async (e, asWritten = false) => {
    e?.preventDefault();
    editor.clear();
    general.replaceChildren();
    const body = { id: idOf(editor.name.value.trim(), live.view.characters), ...editor.read() };
    const back = live.view.characters[body.id];
    const reply = await live.send({
      type: "add_character",
      character: body,
      ...(asWritten ? { as_written: true } : {}),
    });
    if (!reply.ok) return answer(editor, general, reply.error, () => submit(null, true));
    const joins = back
      ? `${body.name} is back in the scene (the same character: what happened to them stays)`
      : `${body.name} joins the scene`;
    general.replaceChildren(
      h(
        "p",
        { class: "done", role: "status" },
        `✓ ${joins}${body.npc ? " as an NPC" : " (a player's character: invite their player above)"}.`,
      ),
    );
    editor.reset(); // the next character starts from an empty form, not from this one's Traits
    editor.name.focus();
  };

  const template = h(
    "a",
    { href: `/static/templates/${view.ruleset}.json`, download: `${view.ruleset}-sheet.json` },
    "Download a template sheet",
  );
  const said =
    editor.family === "pools"
      ? "Skills with their dots, separated by commas: "
      : "Names with how many, separated by commas: ";
  return h(
    "details",
    { class: "sheet-form" },
    h("summary", {}, "Add a character with a sheet form"),
    h(
      "form",
      { class: "stack", novalidate: true, onsubmit: (e) => submit(e), "aria-label": "A new character's sheet" },
      h(
        "p",
        { class: "hint" },
        said,
        h("q", {}, editor.hint.traits),
        ". ",
        template,
        " to write one as a file instead.",
      ),
      editor.parts,
      h("button", { type: "submit", class: "primary" }, "Add the character"),
    ),
    general,
  );
}

const drawn = new Map(); // a character's id -> its amend form as last drawn, and the sheet it was drawn from
const outcomes = new Map(); // a character's id -> where its amendment's answer shows, kept when its form is drawn anew

/** Amend a character's sheet (the Storyteller's, with a reason): the sheet form filled from the
 * sheet as it stands, sent with `amend_character`. The row it sits in is drawn anew as the scene
 * changes: the same form is given back (what is typed in it, and whether it is open, kept) until
 * the sheet itself changes, and then a fresh one, closed, filled from the new sheet. */
export function amendForm(live, c) {
  if (!c.sheet || !c.present) return null;
  const key = JSON.stringify(c.sheet);
  const kept = drawn.get(c.id);
  if (kept?.key === key) return kept.element;
  const editor = sheetEditor(live, c.sheet);
  const reason = h("input", {
    name: "reason",
    autocomplete: "off",
    required: true,
    placeholder: "e.g. Brawl 3 on the paper sheet",
  });
  const reasonProblem = h("div", { class: "problem" });
  if (!outcomes.has(c.id)) outcomes.set(c.id, h("div", { class: "outcome", "aria-live": "polite" }));
  const general = outcomes.get(c.id);
  if (kept) general.replaceChildren(); // drawn anew for a new sheet: an older answer is not this one's
  const submit = async (e, asWritten = false) => {
    e?.preventDefault();
    editor.clear();
    reasonProblem.replaceChildren();
    general.replaceChildren();
    if (!reason.value.trim())
      return reasonProblem.replaceChildren(
        h(
          "p",
          { class: "refusal", role: "alert" },
          h("strong", {}, "Needed: "),
          "why the sheet changes, for the record.",
        ),
      );
    const sheet = { id: c.id, ...editor.read() };
    const reply = await live.send({
      type: "amend_character",
      character: c.id,
      sheet,
      reason: reason.value.trim(),
      ...(asWritten ? { as_written: true } : {}),
    });
    if (!reply.ok) return answer(editor, general, reply.error, () => submit(null, true));
    general.replaceChildren(
      h(
        "p",
        { class: "done", role: "status" },
        `✓ ${sheet.name}'s sheet is amended; the record keeps each change and why.`,
      ),
    );
  };
  const details = h(
    "details",
    { class: "amend-form" },
    h("summary", {}, `Amend ${c.name}'s sheet`),
    h(
      "form",
      { class: "stack", novalidate: true, onsubmit: (e) => submit(e), "aria-label": `${c.name}'s sheet, amended` },
      editor.parts,
      field("Why (for the record; the player reads it)", reason),
      reasonProblem,
      h("button", { type: "submit", class: "primary" }, "Amend the sheet"),
    ),
  );
  const element = h("div", { class: "amend" }, details, general);
  drawn.set(c.id, { key, element });
  return element;
}
