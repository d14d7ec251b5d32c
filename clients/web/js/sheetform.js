// The Storyteller's sheet form: a character written field by field instead of a JSON file by hand
// (docs/protocol.md, section 3), sent with `add_character`; the same form, filled from the sheet,
// amends a character already in the scene (`amend_character`, with a reason). The server judges
// the sheet against its ruleset: a refusal names every problem by its field's path, and each is
// shown beside its field ("did you mean Brawl?"). What the rules leave open can be kept as written.
import { field, h, select } from "./dom.js";
import { CATEGORIES, refusal, sheetFields, title } from "./words.js";

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

/** The fields of a sheet for the scene's ruleset, as its descriptor lists them (`SheetField`s,
 * from `/rulesets.json`: which fields, their order, labels, defaults and examples), filled from
 * `initial` (a sheet) if given: what they hold as a sheet (`read`), and where each refusal goes
 * (`show`). */
function sheetEditor(live, initial) {
  const view = live.view;
  const fields = sheetFields(view);
  const lead = fields.find((f) => f.lead?.length)?.lead || [];
  const s0 = initial || {};
  const slots = new Map(); // a sheet field's path ("traits.physical", "willpower") -> where its refusal goes
  const slot = (path, control, label, note) => {
    const f = field(label, control, note);
    const problem = h("div", { class: "problem" });
    f.append(problem);
    slots.set(path, problem);
    return f;
  };
  const controls = []; // every control, to put back as it was drawn
  const made = (control) => {
    controls.push(control);
    return control;
  };
  const text = (name, placeholder, value = "") => made(h("input", { name, autocomplete: "off", placeholder, value }));
  const number = (name, value) => made(h("input", { type: "number", name, value, inputmode: "numeric" }));
  const box = (name, checked = false) => made(h("input", { type: "checkbox", name, checked }));
  const example = (f, i = 0) => f.examples?.[i] ?? f.examples?.[0];

  const name = made(
    h("input", {
      name: "name",
      autocomplete: "off",
      required: true,
      placeholder: "e.g. Old Tom",
      value: s0.name || "",
    }),
  );
  const npc = box("npc", !!s0.npc);
  const auto = box("auto", !!s0.auto);
  const notes = made(h("textarea", { name: "notes", rows: 2, placeholder: "What only you see" }, s0.notes || ""));
  const weaponLists = [];

  /** One field drawn: its part of the form, and how it goes into a sheet (`put`). */
  const draw = (field0) => {
    const f = { kind: "number", ...field0 }; // the descriptor leaves out what is its default
    const v0 = s0[f.name];
    if (f.kind === "number") {
      const input = number(f.name, v0 ?? f.default ?? 0);
      const always = Boolean(f.default); // a field with a default of its own is always sent; else only when not 0
      return {
        part: slot(f.name, input, f.label, f.hint),
        pairs: true,
        put: (s) => {
          if (always || Number(input.value)) s[f.name] = Number(input.value);
        },
      };
    }
    if (f.kind === "text") {
      const input = text(f.name, example(f), v0 || "");
      return {
        part: slot(f.name, input, f.label, f.hint),
        pairs: true,
        put: (s) => {
          if (input.value.trim()) s[f.name] = input.value.trim();
        },
      };
    }
    if (f.kind === "check") {
      const checked = f.means ? (v0 || []).includes(f.means) : !!v0;
      const input = box(f.name, checked);
      return {
        part: h("label", { class: "check" }, input, ` ${f.label}`),
        put: (s) => {
          if (input.checked) s[f.name] = f.means ? [f.means] : true;
        },
      };
    }
    if (f.kind === "traits" || f.kind === "trait_names") {
      const counted = f.kind === "traits"; // Traits with how many; else names (Negative Traits)
      const inputs = Object.fromEntries(
        CATEGORIES.map((c, i) => [c, text(`${f.name}-${c}`, example(f, i), written(v0?.[c]))]),
      );
      return {
        part: h(
          "fieldset",
          { class: "traits" },
          h("legend", {}, f.label),
          CATEGORIES.map((c) => slot(`${f.name}.${c}`, inputs[c], `${title(c)} ${f.label}`)),
        ),
        put: (s) => {
          const read = counted ? (c) => Object.keys(counts(inputs[c].value)) : (c) => names(inputs[c].value);
          const held = Object.fromEntries(
            CATEGORIES.map((c) => [c, counted ? counts(inputs[c].value) : names(inputs[c].value)]).filter(
              ([c]) => read(c).length,
            ),
          );
          if (counted || Object.keys(held).length) s[f.name] = held; // a sheet of Traits always has its three categories
        },
      };
    }
    if (f.kind === "ratings") {
      const groups = [...new Set(Object.values(f.names || {}))];
      const own = Object.keys(v0 || {}).some((a) => groups.includes(a.toLowerCase())); // the groups' own ratings
      const layout = Object.fromEntries(
        groups.map((g) => [g, own ? [g] : Object.keys(f.names).filter((a) => f.names[a] === g)]),
      );
      const inputs = Object.fromEntries(
        Object.values(layout)
          .flat()
          .map((a) => [a, number(`${f.name}-${a}`, v0?.[a] ?? f.default ?? 0)]),
      );
      return {
        part: h(
          "fieldset",
          { class: "attributes" },
          h("legend", {}, f.label),
          Object.entries(layout).map(([group, list]) =>
            h(
              "div",
              { class: "pair", role: "group", "aria-label": title(group) },
              list.map((a) => slot(`${f.name}.${a}`, inputs[a], title(a))),
            ),
          ),
        ),
        put: (s) => {
          s[f.name] = Object.fromEntries(Object.entries(inputs).map(([a, input]) => [a, Number(input.value)]));
        },
      };
    }
    if (f.kind === "weapons") {
      const weapons = weaponRows(v0 || []);
      weaponLists.push(weapons);
      return {
        part: h("fieldset", { class: "weapons" }, h("legend", {}, f.label), weapons.rows, weapons.more),
        put: (s) => {
          const held = weapons.read();
          if (held.length) s[f.name] = held;
        },
      };
    }
    // names: with how many (named), with levels if any (leveled), or just names (list)
    const input = text(f.name, example(f), written(v0));
    const parse = { named: counts, leveled }[f.kind] || names;
    return {
      part: slot(f.name, input, f.label, f.hint),
      put: (s) => {
        const held = parse(input.value);
        if (Object.keys(held).length) s[f.name] = held;
      },
    };
  };

  /** The fields' parts in order, a run of numbers or words side by side. */
  const laidOut = (drawn) => {
    const out = [];
    let run = [];
    const close = () => {
      if (run.length) out.push(h("div", { class: "pair" }, run));
      run = [];
    };
    for (const d of drawn) {
      if (d.pairs) run.push(d.part);
      else {
        close();
        out.push(d.part);
      }
    }
    close();
    return out;
  };
  const mine = fields.filter((f) => !f.npc).map(draw);
  const npcs = fields.filter((f) => f.npc).map(draw);
  const npcOnly = h("div", { class: "npc-only", hidden: !npc.checked }, [
    h("label", { class: "check" }, auto, " Throws by itself (the server throws at random for it)"),
    laidOut(npcs),
  ]);
  npc.addEventListener("change", () => {
    npcOnly.hidden = !npc.checked;
  });
  const drawnNames = new Set(["id", "name", "npc", "auto", "notes", ...fields.map((f) => f.name)]);

  const read = () => {
    const s = { name: name.value.trim(), npc: npc.checked };
    if (npc.checked && auto.checked) s.auto = true;
    for (const d of mine) d.put(s);
    if (npc.checked) for (const d of npcs) d.put(s);
    // what this form does not draw stays as the sheet had it (an amendment changes only what it shows)
    for (const [key, value] of Object.entries(s0)) if (!drawnNames.has(key)) s[key] = value;
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

  const parts = [
    slot("name", name, "Name"),
    h("label", { class: "check" }, npc, " An NPC (you play them)"),
    npcOnly,
    laidOut(mine),
    slot("notes", notes, "Notes (only you see them)"),
  ];
  const fresh = controls.map((control) => [control, control.type === "checkbox" ? control.checked : control.value]);
  /** Every field back to what it held when the form was drawn, the NPC part as it was. */
  const reset = () => {
    for (const [control, was] of fresh) {
      if (control.type === "checkbox") control.checked = was;
      else control.value = was;
    }
    for (const weapons of weaponLists) weapons.reset();
    npcOnly.hidden = !npc.checked;
  };
  return { parts, read, show, clear, reset, name, lead, firstMarked };

  /** A row per weapon: name, kind, bonus, damage, and whether it has reach or can be thrown. */
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
        editor.lead.length > 0 && [`${editor.lead[0]}: `, h("q", {}, editor.lead[1]), ". "],
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
