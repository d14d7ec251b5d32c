// Declaring a challenge, for a player's own character or (the console) for an NPC: the target,
// the category, the victory condition, and what the side puts in: a Trait bid, or a test pool the
// server computes from the sheet and shows before anything is sent (`pool` request). The ruleset
// is read from `view.rules`, never from its name.
import { field, fill, h, select, uid } from "./dom.js";
import { newId } from "./live.js";
import { CATEGORIES, describePool, nameOf, poolParts, refusal, stakesPools, title } from "./words.js";

const FLAGS = {
  surprise: "Surprise (they did not see it coming)",
  ranged: "Ranged (they cannot answer)",
  immediate: "Immediate (a power usable at any time)",
  unseen: "I cannot see the target",
};
const ATTACKS = [
  ["unarmed", "Unarmed"],
  ["melee", "Melee weapon"],
  ["thrown", "Thrown weapon"],
  ["archery", "Archery"],
  ["firearms", "Firearms"],
  ["bite", "Bite"],
  ["claw", "Claws"],
  ["mental", "A Mental attack"],
  ["social", "A Social attack"],
];
const ATTACK_CATEGORY = { mental: "mental", social: "social" };
/** What a maneuver would cost, as the server says in the character's view (`maneuvers`). */
const COSTS = { assist: "free: assisted", free: "free", willpower: "1 Willpower" };
/** The forms in which feral maneuvers can be used (bns:feral-maneuvers). */
export const ANIMAL_FORMS = ["lupus", "hispo"];

/** Whether the character is a werewolf in an animal form (its sheet's `form`). */
export function animalForm(c) {
  return ANIMAL_FORMS.includes((c?.sheet?.form || "").toLowerCase());
}

/** Others present in the scene, as [id, name]. */
export function others(view, who) {
  return Object.values(view.characters)
    .filter((c) => c.id !== who && c.present)
    .map((c) => [c.id, c.name]);
}

/** Traits a character could bid in a category: names from the sheet, less those lost tonight. */
function traitsLeft(c, category) {
  const lost = [...(c.traits_lost || [])];
  return Object.entries(c.sheet?.traits?.[category] || {}).flatMap(([trait, count]) => {
    let left = count;
    while (left > 0 && lost.includes(trait)) {
      lost.splice(lost.indexOf(trait), 1);
      left -= 1;
    }
    return left > 0 ? [[trait, `${trait}${left > 1 ? ` ×${left}` : ""}`]] : [];
  });
}

const said = new Map(); // who -> what the last declaration came to, kept when the form is drawn anew

/** Forget what `who`'s last declaration came to: the situation it answered has moved on (a new
 * round phase or turn), so an old refusal no longer stands under the form. */
export function forgetDeclared(who) {
  said.delete(who);
}

/** The declare form for `who`; `forCharacter` sends `character` (the ST for an NPC). `preset`
 * fills it from an entry of the sheet tapped: `{category, bid}` (a Trait), `{skill}`, `{power}`. */
export function declareForm(live, view, who, { forCharacter = false, preset = null, short = false } = {}) {
  const c = view.characters[who];
  const pools = stakesPools(view);
  const out = h("div", { class: "outcome", dataset: { declare: who } }, ...(said.get(who)?.() || []));
  const kinds = [
    ["contested", "Against someone"],
    ["static", "Static (against a difficulty)"],
    ...(pools ? [] : [["simple", "Simple test"]]),
  ];
  const kind = select("kind", kinds);
  const target = select("target", others(view, who));
  const category = select(
    "category",
    CATEGORIES.map((cat) => [cat, title(cat)]),
  );
  const bid = select("bid", traitsLeft(c, "physical"));
  const intent = roundIntent(view, c);
  if (intent?.target && [...target.options].some((o) => o.value === intent.target)) target.value = intent.target;
  if (intent?.category) category.value = intent.category;
  const victory = h("input", { name: "victory", autocomplete: "off", required: true });
  const effect = victoryFields(
    live,
    victory,
    () => (pools ? attack.fields().category : category.value),
    () => declaration(),
  );
  const offerCategories = () => {
    // a category with no Trait left to bid is not offered for a test that needs a bid
    for (const option of category.options) {
      const empty = !pools && kind.value !== "simple" && traitsLeft(c, option.value).length === 0;
      option.disabled = empty;
      option.textContent = empty ? `${title(option.value)} (no Traits left to bid)` : title(option.value);
    }
    if (category.selectedOptions[0]?.disabled)
      category.value = [...category.options].find((o) => !o.disabled)?.value ?? category.value;
    fill(
      bid,
      traitsLeft(c, category.value).map(([v, t]) => h("option", { value: v }, t)),
    );
    effect.categoryChanged();
  };
  category.addEventListener("change", offerCategories);
  kind.addEventListener("change", offerCategories);
  target.addEventListener("change", () => effect.sayIt());
  const fight = fightFields(view, c);
  const attack = attackFields(
    live,
    view,
    who,
    forCharacter,
    () => fight.fields().maneuver,
    () => effect.categoryChanged(),
    category,
  );
  if (preset?.category && !pools) category.value = preset.category;
  offerCategories();
  if (preset?.bid && [...bid.options].some((o) => o.value === preset.bid)) bid.value = preset.bid;
  if (preset?.skill && pools) attack.useSkill(preset.skill);
  const powers = Array.isArray(c.sheet?.powers) ? c.sheet.powers : Object.keys(c.sheet?.powers || {});
  const power = select("power", [["", "No power"], ...powers.map((p) => [p, p])]);
  if (preset?.power && powers.includes(preset.power)) power.value = preset.power;
  for (const control of [bid, power, category, victory]) control.addEventListener("change", () => effect.sayIt()); // what is at stake moves with them
  const difficulty = h("input", {
    type: "number",
    name: "difficulty",
    min: 0,
    max: 99,
    value: 3,
    inputmode: "numeric",
  });
  const flags = (view.rules?.flags || [])
    .filter((f) => f in FLAGS)
    .map((f) => [f, h("input", { type: "checkbox", name: f })]);
  // what is being declared, as the `declare` command carries it (less its id)
  const declaration = () => {
    const body = { type: "declare", kind: kind.value, victory: victory.value.trim() };
    if (forCharacter) body.character = who;
    if (kind.value === "contested") body.targets = [target.value];
    if (pools) Object.assign(body, attack.fields());
    else {
      body.category = category.value;
      if (kind.value !== "simple" && bid.value) body.bid = [bid.value];
    }
    if (kind.value === "static") body.difficulty = Number(difficulty.value);
    const chosen = effect.value();
    if (chosen) body.effect = chosen;
    if (power.value) body.power = power.value;
    for (const [flag, box] of flags) if (box.checked) body[flag] = true;
    return Object.assign(body, fight.fields());
  };
  const submit = async (e) => {
    e.preventDefault();
    const body = { ...declaration(), challenge: `c-${newId().slice(0, 6)}` };
    const reply = await live.send(body);
    // a player's page confirms every command at its foot (notice.js); the console, declaring for
    // an NPC, says it here
    const note = () =>
      reply.ok ? (forCharacter ? [h("p", { role: "status" }, "Declared.")] : []) : [refusal(reply.error)];
    said.set(who, note);
    // what it declared may have drawn the form anew meanwhile (a free maneuver used): say it there
    for (const box of document.querySelectorAll(`.outcome[data-declare="${CSS.escape(who)}"]`))
      box.replaceChildren(...note());
    if (reply.ok) victory.value = "";
  };
  // a player's attack in a pool ruleset: what most attacks need in sight (the target, the
  // maneuver, the attack, its skill, the weapon if the sheet has one), the rest under "More"; so
  // is an NPC's on its turn (`short`); the console's other forms keep every field in sight
  const tucked = pools && (!forCharacter || short);
  const kindField = field("Kind", kind);
  const more = [
    tucked && [kindField, fight.more, attack.more],
    field("Power", power),
    field("Difficulty (static)", difficulty),
    flags.map(([flag, box]) => h("label", { class: "check" }, box, ` ${FLAGS[flag]}`)),
  ];
  const parts = poolParts(view);
  const tuckedWords = [
    "kind",
    view.rules?.flags?.includes("range") && "range",
    parts.includes("attribute") && "attribute",
    parts.includes("wildcard") && "wild card",
    "power",
  ];
  const moreWords = tucked ? `More: ${tuckedWords.filter(Boolean).join(", ")}` : "More: power, difficulty";
  return h(
    "form",
    {
      class: "stack declare-form",
      onsubmit: submit,
      onchange: (e) => ["maneuver", "second_maneuver"].includes(e.target.name) && attack.refresh?.(),
    },
    intent &&
      h(
        "p",
        { class: "intent" },
        `From ${forCharacter ? "their" : "your"} action this round: ${title(intent.category || "")}${intent.target ? ` against ${nameOf(view, intent.target)}` : ""}.`,
      ),
    !tucked && kindField,
    field("Target", target),
    tucked ? fight.main : [fight.main, fight.more],
    pools
      ? tucked
        ? attack.main
        : [attack.main, attack.more]
      : [field("Category", category), field("Trait to bid", bid)],
    field("Victory condition", victory, "In words, what happens when you win"),
    effect.controls,
    h(
      "details",
      { open: Boolean(preset?.power) },
      h("summary", {}, moreWords, flags.length ? `, ${flags.map(([f]) => f).join(", ")}` : ""),
      more,
    ),
    // in reach wherever the thumb is in the form: it stays at the foot of the screen
    h("button", { type: "submit", class: "primary declare-submit" }, "Declare"),
    out,
  );
}

/** The action `c` declared for this round with a test (round intents): its category and target,
 * carried into the challenge form (null: none declared, or one without a test). */
function roundIntent(view, c) {
  const action = view.round && c?.action;
  if (!action || !["challenge", "end_of_turn", "full_round"].includes(action.kind)) return null;
  const category = action.category || action.categories?.[0] || null;
  return category || action.target ? { category, target: action.target || null } : null;
}

const EXAMPLES = {
  damage: "I punch him in the jaw",
  grapple: "I grab her and pin her arms",
  knock_down: "I sweep his legs out from under him",
  narrative: "I talk my way past the guard",
};

/** A declared effect in plain words, as declared (damage: its amount and type, from the form). */
const DECLARED = {
  grapple: "a grapple",
  knock_down: "knocking down",
  narrative: "narrative only (no mechanical effect)",
};

/** What winning the challenge being declared would do, as the server's resolution will apply it
 * (the ruleset's powers, armour, a draw's losses): the lines of its stakes ("If Jimmy wins: Frank
 * takes 2 aggravated damage"), from the read-only `stakes` request (the declaration decided on a
 * thrown-away draft). Nothing is worked out here; a declaration the server would refuse as it
 * stands (no target yet) gives no line. */
export async function previewStakes(live, declaration) {
  const { type, ...declare } = declaration;
  void type;
  const reply = await live.request({ type: "stakes", declare }, "stakes");
  if (reply.type !== "stakes" || reply.error) return []; // not a declaration the server would take yet
  return (reply.stakes || []).map((s) => (s.words?.length ? `${s.title}: ${s.words.join(" · ")}` : s.sentence));
}

/** What winning does, asked up front (protocol section 4): damage (how much, of what type), a
 * grapple, knocking down, or narrative only (no mechanical effect), with the victory in words
 * beside it, and what is chosen said back as declared ("Declared: 1 bashing damage") with the
 * server's stakes under it once `previewStakes` gives them. Physical challenges start at 1 bashing damage, the others at narrative only: the
 * choice is always in sight, never a silent none. `value()` is the `effect` to send. */
function victoryFields(live, victory, categoryOf, declaration) {
  const name = uid("effect");
  const choices = [
    ["damage", "Damage"],
    ["grapple", "Grapple"],
    ["knock_down", "Knock down"],
    ["narrative", "Narrative only (no mechanical effect)"],
  ];
  const radios = choices.map(([value]) => h("input", { type: "radio", name, value, class: "effect-choice" }));
  const amount = h("input", { type: "number", name: "amount", min: 0, max: 10, value: 1, inputmode: "numeric" });
  const damageType = select("type", [
    ["bashing", "Bashing"],
    ["lethal", "Lethal"],
    ["aggravated", "Aggravated"],
  ]);
  const damage = h(
    "div",
    { class: "row damage-fields" },
    field("How much", amount),
    field("Type of damage", damageType),
  );
  const sentence = h("p", { class: "victory-sentence", "aria-live": "polite" });
  const stakes = h("ul", { class: "stakes-preview", "aria-label": "What winning would do", hidden: true });
  // the first way of ending in sight (winning); the others a tap away, so the form stays short
  const others = h("ul", { class: "stakes-preview more", "aria-label": "The other ways it can end" });
  const otherWords = h("span", {});
  const rest = h("details", { class: "stakes-more", hidden: true }, h("summary", {}, otherWords), others);
  const chosen = () => radios.find((r) => r.checked)?.value || "narrative";
  let touched = false;
  let asked = 0;
  const sayIt = () => {
    damage.hidden = chosen() !== "damage";
    victory.placeholder = EXAMPLES[chosen()];
    // what is declared, as declared; what it will do to whom (the ruleset's powers, armour, the
    // draw) is the server's to say, here once wired (previewStakes), else on the card once declared
    const declared = chosen() === "damage" ? `${Number(amount.value)} ${damageType.value} damage` : DECLARED[chosen()];
    sentence.replaceChildren("Declared: ", h("strong", {}, declared), ".");
    const mine = ++asked;
    // after the form is built (the declaration reads every control of it)
    Promise.resolve()
      .then(() => previewStakes(live, declaration()))
      .then((lines) => {
        if (mine !== asked) return; // a later change asked again
        stakes.replaceChildren(...lines.slice(0, 1).map((words) => h("li", {}, words)));
        others.replaceChildren(...lines.slice(1).map((words) => h("li", {}, words)));
        otherWords.textContent = `Every other way it can end (${lines.length - 1})`;
        stakes.hidden = lines.length === 0;
        rest.hidden = lines.length < 2;
      });
  };
  const pick = (value) => {
    for (const r of radios) r.checked = r.value === value;
    sayIt();
  };
  for (const r of radios)
    r.addEventListener("change", () => {
      touched = true;
      sayIt();
    });
  for (const control of [amount, damageType]) {
    control.addEventListener("input", sayIt);
    control.addEventListener("change", sayIt);
  }
  const categoryChanged = () => touched || pick(categoryOf() === "physical" ? "damage" : "narrative");
  const value = () => {
    const kindOf = chosen();
    return kindOf === "damage"
      ? { kind: "damage", amount: Number(amount.value), type: damageType.value }
      : { kind: kindOf };
  };
  const controls = h(
    "fieldset",
    { class: "effect-choices" },
    h("legend", {}, "What winning does"),
    choices.map(([, text], i) => h("label", { class: "check" }, radios[i], ` ${text}`)),
    damage,
    sentence,
    stakes,
    rest,
  );
  pick("damage");
  return { controls, value, categoryChanged, sayIt };
}

/** A structured victory condition (protocol section 4): the kind, and for damage how much and of
 * what type; `value()` is the `effect` to send (null: none). The challenger's declaration and,
 * where the ruleset lets a defender win its own way (kony:resolution), the defender's answer. */
export function effectFields() {
  const kind = select("effect", [
    ["", "No mechanical effect"],
    ["damage", "Damage"],
    ["grapple", "Grapple"],
    ["knock_down", "Knock down"],
    ["narrative", "Narrative (the Storyteller applies it)"],
  ]);
  const amount = h("input", { type: "number", name: "amount", min: 0, max: 10, value: 1, inputmode: "numeric" });
  const damageType = select("type", [
    ["bashing", "Bashing"],
    ["lethal", "Lethal"],
    ["aggravated", "Aggravated"],
  ]);
  const value = () =>
    kind.value === "damage"
      ? { kind: "damage", amount: Number(amount.value), type: damageType.value }
      : kind.value
        ? { kind: kind.value }
        : null;
  return { controls: [field("Effect", kind), field("Damage", amount), field("Damage type", damageType)], value };
}

/** An attack pool's controls, and the pool as the server computes it, shown as they change: the
 * parts the ruleset has a challenger name (`poolParts`), no others. Where no kind of attack names
 * the category, `category` (the form's select) does. */
function attackFields(live, view, who, forCharacter, maneuver = () => undefined, attackChanged = () => {}, category) {
  const sheet = view.characters[who]?.sheet || {};
  const parts = new Set(poolParts(view));
  const kind = parts.has("attack") ? select("attack", ATTACKS) : null;
  const attribute = select("attribute", [
    ["", "The attack's own"],
    ...Object.keys(sheet.attributes || {}).map((a) => [a, title(a)]),
  ]);
  const skills = Object.keys(sheet.skills || {});
  const listId = `skills-${who}`;
  const skill = h("input", { name: "skill", autocomplete: "off", list: listId }); // no placeholder: a grey "intimidation" reads as filled in
  const weapon = select("weapon", [
    ["", "None"],
    ...(sheet.weapons || []).map((w) => [w.name, `${w.name} (${w.kind})`]),
  ]);
  const wildcard = h("input", { type: "number", name: "wildcard", min: -20, max: 20, value: 0, inputmode: "numeric" });
  const why = h("input", { name: "why", autocomplete: "off", placeholder: "shotgun" });
  const shown = h("p", { class: "pool-preview", role: "status", "aria-live": "polite" }, "");
  const spec = () => {
    const pool = kind ? { attack: kind.value } : {};
    if (parts.has("attribute") && attribute.value) pool.attribute = attribute.value;
    if (parts.has("skill") && skill.value.trim()) pool.skill = skill.value.trim().toLowerCase();
    if (parts.has("weapon") && weapon.value) pool.weapon = weapon.value;
    if (parts.has("wildcard") && Number(wildcard.value))
      Object.assign(pool, { wildcard: Number(wildcard.value), why: why.value.trim() });
    return pool;
  };
  const categoryOf = () => (kind ? ATTACK_CATEGORY[kind.value] || "physical" : category.value);
  const fields = () => ({ pool: spec(), category: categoryOf() });
  let asked = 0;
  const preview = async () => {
    const mine = ++asked;
    const chosen = maneuver(); // the maneuvers' penalties count in the pool shown
    const ask = {
      type: "pool",
      ...fields(),
      ...(chosen ? { maneuver: chosen } : {}),
      ...(forCharacter ? { character: who } : {}),
    };
    const reply = await live.request(ask, "pool");
    if (mine !== asked) return; // a later change asked again
    if (reply.pool) shown.replaceChildren("Your pool: ", h("strong", {}, describePool(reply.pool)));
    else shown.replaceChildren(refusal(reply.error || reply));
  };
  let timer = null;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(preview, 150);
  };
  for (const control of [kind || category, attribute, skill, weapon, wildcard, why]) {
    control.addEventListener("input", changed);
    control.addEventListener("change", changed);
  }
  kind?.addEventListener("change", attackChanged); // a Mental or Social attack: narrative to start with
  setTimeout(preview, 0);
  const armed = (sheet.weapons || []).length > 0; // no weapon on the sheet: nothing to choose
  const main = [
    kind ? field("Attack", kind) : field("Category", category, "Its attribute is in the pool"),
    parts.has("skill") &&
      field(
        "Skill",
        skill,
        kind ? "The attack's own unless you name one (Mental and Social attacks name theirs)" : "One of your skills",
      ),
    parts.has("skill") &&
      h(
        "datalist",
        { id: listId },
        skills.map((s) => h("option", { value: s })),
      ),
    parts.has("weapon") && armed && field("Weapon", weapon),
    shown,
  ];
  const more = [
    parts.has("attribute") && field("Attribute", attribute, "Dexterity for a close attack needs Fighting Finesse"),
    parts.has("wildcard") && [field("Wild card (+/-)", wildcard), field("Why the wild card", why)],
  ];
  const useSkill = (name) => {
    skill.value = name;
    changed();
  };
  return { main, more, fields, refresh: changed, useSkill };
}

/** A combat maneuver with its cost, and the range in steps, where the rules' flags have them. The
 * cost shown is a guess the server makes good: free once a fight with 4 dots in the attribute of
 * a list not used yet, or with an assist; else 1 Willpower. With an accepted Assist Attacker's
 * free maneuver, a second maneuver for a Willpower (bns:assist-attacker): `maneuver` is then a
 * list of two, the assisted one first. */
function fightFields(view, c) {
  const flags = view.rules?.flags || [];
  const offered = (c.maneuvers || []).filter((m) => !m.with_action);
  const maneuver =
    flags.includes("maneuver") &&
    select("maneuver", [["", "None"], ...offered.map((m) => [m.name, `${m.title} (${COSTS[m.cost]})`])]);
  const second =
    maneuver && assisted(c) && select("second_maneuver", [["", "None"], ...offered.map((m) => [m.name, m.title])]);
  if (second) {
    // two different ones: the first chosen is not on offer again
    maneuver.addEventListener("change", () => {
      for (const option of second.options) option.disabled = option.value !== "" && option.value === maneuver.value;
      if (second.value === maneuver.value) second.value = "";
    });
  }
  const range =
    flags.includes("range") && h("input", { type: "number", name: "range", min: 0, max: 200, inputmode: "numeric" });
  const fields = () => {
    const out = {};
    const chosen = [maneuver?.value, second?.value].filter(Boolean);
    if (chosen.length) out.maneuver = chosen.length > 1 ? chosen : chosen[0];
    if (range && range.value !== "") out.range = Number(range.value);
    return out;
  };
  const main = [
    maneuver && field("Maneuver", maneuver, second ? "One a round; the assist pays for it" : "One a round"),
    second && field("Second maneuver (1 Willpower)", second, "Only with an assist: a different one on the same attack"),
  ];
  const more = [range && field("Range (steps)", range, "How far the target is; needed when they are prone")];
  return { main, more, fields };
}

/** Whether an accepted Assist Attacker pays for a maneuver of `c`'s this round. */
export function assisted(c) {
  return (c?.aids || []).some((a) => a.benefit === "maneuver" && a.status === "accepted");
}

/** What a maneuver would cost `c` now, as its view says: "free: assisted", "free", "1 Willpower",
 * or "not now" (one already used this round, no Willpower, not in animal form). */
export function maneuverCost(c, name) {
  const offer = (c?.maneuvers || []).find((m) => m.name === name);
  return offer ? COSTS[offer.cost] : "not now";
}
