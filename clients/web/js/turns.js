// Rounds in which each character acts on its own turn with a standard and a simple action (the
// view's `actions`): what is left, the actions a character may take now, fair escapes and the
// intents that hold them, help offered, shielding a defender, the maneuvers that go with an
// action, and the marks a character carries. The phone uses them for the player's character, the
// console for NPCs. What the rules allow is the server's to say: a refusal shows its reason.
import { animalForm, maneuverCost } from "./declare.js";
import { confirmButton } from "./moves.js";
import { field, h, select, uid } from "./dom.js";
import { nameOf, refusal, title } from "./words.js";

const CLEARABLE = ["blinded", "hamstrung", "armor_mangled"];
const BENEFITS = { plus_one: "+1 on an attack", maneuver: "a free maneuver" };
/** The names of the maneuvers that go with an action (not an attack); their cost is the view's. */
const WITH_ACTION = {
  quick_draw: "Quick Draw",
  snap_shot: "Snap Shot",
  burst_of_speed: "Burst of Speed",
  dart_behind: "Dart Behind",
  feral_dash: "Feral Dash",
};
const FERAL_DASH_STEPS = 9;
const STEPS = [
  ["3", "3 steps"],
  ["2", "2 steps"],
  ["1", "1 step"],
];

/** "Quick Draw (free)", "Snap Shot: nock (1 Willpower)": a button's words, with the cost as the
 * declare form shows it (the server makes it good, or refuses). */
function withCost(c, maneuver, text) {
  const name = WITH_ACTION[maneuver];
  return [`${name}${text ? `: ${text}` : ""} `, h("span", { class: "cost" }, `(${maneuverCost(c, maneuver)})`)];
}

/** Whether the round gives each character a standard and a simple action (no declarations). */
export function budgeted(view) {
  return Object.values(view.characters || {}).some((c) => c.actions);
}

/** "1 standard, 1 simple" (null outside such a round). */
export function actionsLeft(c) {
  const a = c?.actions;
  return a ? `${a.standard ?? 0} standard, ${a.simple ?? 0} simple` : null;
}

/** "2 Rage rounds" after the universal round (null: none). */
export function rageRounds(c) {
  return c?.rage ? `${c.rage} Rage round${c.rage === 1 ? "" : "s"}` : null;
}

/** A mark's name in words: "armor mangled". */
export function markName(name) {
  return name.replaceAll("_", " ");
}

/** A character's fair escape in words, the same for everyone at the table (null: none) — but in
 * the second person on that character's own page, and on the page of whoever holds it. */
export function escapeLine(view, c) {
  const k = c.conditions || {};
  const me = view.viewer;
  const by = (k.escape_held_by || []).map((w) => (w === me ? "you" : nameOf(view, w))).join(", ");
  const mine = c.id === me;
  switch (k.fair_escape) {
    case "declared":
      return `${mine ? "You are" : `${c.name} is`} trying to escape${by ? `; ${by} will attack` : ""}.`;
    case "held":
      return `${mine ? "Your" : `${c.name}'s`} escape is held by ${by || "an attacker"}.`;
    case "escaped":
      return `${mine ? "You" : c.name} escaped.`;
    case "failed":
      return `${mine ? "Your" : `${c.name}'s`} escape failed.`;
    default:
      return null;
  }
}

/** What a character carries (prone, grappled, blinded …), as words. */
export function markWords(view, c) {
  const k = c.conditions || {};
  return [
    k.prone && "prone",
    k.grappled_by && `grappled by ${nameOf(view, k.grappled_by)}`,
    k.grappling?.length && `holding ${k.grappling.map((w) => nameOf(view, w)).join(", ")}`,
    k.surprised && "surprised",
    ...(k.marks || []).map((m) => `${markName(m.name)}${m.clears_after ? ` (${m.clears_after} to clear)` : ""}`),
  ].filter(Boolean);
}

/** The marks as small badges (null: none). */
export function markBadges(view, c) {
  const words = markWords(view, c);
  if (!words.length) return null;
  return h(
    "span",
    { class: "marks", role: "list", "aria-label": `${c.name}'s conditions` },
    words.map((w) => h("span", { class: "mark", role: "listitem" }, w)),
  );
}

/** Escapes and marks of everyone in the scene: one line each, for whoever has any. */
export function fightLines(view) {
  const lines = Object.values(view.characters)
    .filter((c) => c.present)
    .flatMap((c) => {
      const escapeWords = escapeLine(view, c);
      const badges = markBadges(view, c);
      const out = [];
      if (escapeWords) out.push(h("p", { class: `escape ${c.conditions.fair_escape}` }, escapeWords));
      if (badges) out.push(h("p", { class: "marked" }, `${c.id === view.viewer ? "You" : c.name}: `, badges));
      return out;
    });
  return lines.length ? h("div", { class: "fight" }, lines) : null;
}

/** Whether `who` acts now: on its turn, or right after its held escape failed (with actions left). */
export function actsNow(view, who) {
  const r = view.round;
  const c = view.characters[who];
  if (!r || r.phase !== "acting" || !c?.actions) return false;
  const left = (c.actions.standard || 0) + (c.actions.simple || 0);
  return (r.turn.includes(who) && !c.turn_done) || (c.conditions?.fair_escape === "failed" && left > 0);
}

/** Whether `who` may say it will attack the one escaping now: it has not acted this round. */
export function mayIntend(view, who) {
  const r = view.round;
  const c = view.characters[who];
  const escaper = r?.escape_window && view.characters[r.escape_window];
  if (!escaper || escaper.id === who || !c?.actions || c.turn_done || r.turn.includes(who)) return false;
  return (c.actions.standard || 0) > 0 && !(escaper.conditions?.escape_held_by || []).includes(who);
}

/** The button that says it: "I will attack Edward" (the console: "Mook will attack Edward"). */
export function intendButton(view, who, send, { forCharacter = false } = {}) {
  const target = view.round.escape_window;
  const text = forCharacter
    ? `${nameOf(view, who)} will attack ${nameOf(view, target)}`
    : `I will attack ${nameOf(view, target)}`;
  return h(
    "button",
    {
      type: "button",
      class: "primary",
      onclick: () => send({ type: "intend_attack", target, ...(forCharacter ? { character: who } : {}) }),
    },
    text,
  );
}

/** The actions `who` may take now, as buttons: escape, move, prone / crawl / stand, draw, clear,
 * pick up, trade, end the turn. `send(body)` sends a command; `forCharacter` names the character
 * (the ST for an NPC: the console ends turns in its own table). */
export function turnControls(view, who, send, { forCharacter = false } = {}) {
  const c = view.characters[who];
  const r = view.round;
  const a = c.actions || {};
  const k = c.conditions || {};
  const me = forCharacter ? { character: who } : {};
  const act = (action) => send({ type: "declare_action", ...me, action });
  const button = (text, action, cls = "") =>
    h("button", { type: "button", class: cls, onclick: () => act(action) }, text);
  const onTurn = r.turn.includes(who) && !c.turn_done;
  const escaping = ["declared", "held"].includes(k.fair_escape);
  const hints = [];
  const parts = [];
  const buttons = [];
  if (onTurn && !k.fair_escape && a.standard && a.simple)
    buttons.push(button("Escape", { kind: "fair_escape" }, "primary"));
  if (!onTurn && k.fair_escape === "failed")
    hints.push(
      h("p", { class: "hint" }, `${forCharacter ? `${c.name} acts` : "Act"} now, out of turn, with the actions left.`),
    );
  if (escaping && onTurn)
    hints.push(
      h(
        "p",
        { class: "hint" },
        `${forCharacter ? `${c.name} is` : "You are"} escaping: end the turn. If nobody said they will attack, the escape succeeds.`,
      ),
    );
  if (!escaping && (a.standard || a.simple)) {
    if (k.prone && a.simple)
      buttons.push(button("Crawl a step", { kind: "crawl", steps: 1 }), button("Stand up", { kind: "stand" }));
    else if (a.simple) buttons.push(button("Drop prone", { kind: "prone" }));
    for (const m of (k.marks || []).filter((m) => CLEARABLE.includes(m.name) && m.clears_after > 0)) {
      if (a.simple) buttons.push(button(`Clear ${markName(m.name)}`, { kind: "clear", clears: m.name }));
    }
    if (a.standard) buttons.push(button("Trade standard for simple", { kind: "trade" }, "quiet"));
    if (a.standard && (k.marks || []).some((m) => m.name === "disarmed"))
      buttons.push(button("Pick up the weapon", { kind: "pick_up" }));
    if (!k.prone) parts.push(moveForm(c, a, act));
    parts.push(drawForm(c, a, act));
  }
  const end = onTurn && !forCharacter && endMyTurn(escaping ? {} : a, send); // the console has its own; escaping, ending is the move
  return h(
    "div",
    { class: "turn-actions" },
    hints,
    buttons.length > 0 && h("div", { class: "choices" }, buttons),
    parts,
    end,
  );
}

/** "End my turn": asked first while a standard or simple action is left that could still be
 * taken, saying what is left (a turn ended cannot be taken back). */
function endMyTurn(a, send) {
  const end = () => send({ type: "end_turn" });
  if (!(a.standard || a.simple))
    return h("div", { class: "choices" }, h("button", { type: "button", class: "quiet", onclick: end }, "End my turn"));
  // only what is left: "1 simple action", "1 standard and 1 simple action"
  const kinds = [
    ["standard", a.standard],
    ["simple", a.simple],
  ].filter(([, n]) => n > 0);
  const left = kinds.map(([kind, n]) => `${n} ${kind}`);
  const plural = kinds.at(-1)[1] > 1 ? "s" : "";
  return confirmButton(
    "End my turn",
    "Confirm: end my turn",
    end,
    `You still have ${left.join(" and ")} action${plural} left. End your turn? It cannot be taken back.`,
  );
}

/** Move up to three steps; a werewolf in lupus or hispo form may Dart Behind (a move through the
 * opponent) or Feral Dash (both actions, nine steps). */
function moveForm(c, a, act) {
  const steps = select("steps", STEPS);
  const using = a.simple ? "simple" : "standard";
  const move = (extra = {}) => act({ kind: "move", steps: Number(steps.value), using, ...extra });
  const feral = animalForm(c) && [
    h(
      "button",
      { type: "button", onclick: () => move({ maneuver: "dart_behind" }) },
      withCost(c, "dart_behind", "move through them"),
    ),
    a.standard > 0 &&
      a.simple > 0 &&
      h(
        "button",
        { type: "button", onclick: () => act({ kind: "move", steps: FERAL_DASH_STEPS, maneuver: "feral_dash" }) },
        withCost(c, "feral_dash", `${FERAL_DASH_STEPS} steps, both actions`),
      ),
  ];
  return h(
    "div",
    { class: "action-group" },
    h(
      "form",
      {
        class: "row compact",
        onsubmit: (e) => {
          e.preventDefault();
          move();
        },
      },
      field(`Move (${using} action)`, steps),
      h("button", { type: "submit" }, "Move"),
    ),
    feral &&
      h("div", { class: "choices maneuvers", role: "group", "aria-label": "Feral maneuvers with a move" }, feral),
  );
}

/** Draw a weapon (a simple action), or Quick Draw it (no action spent); an archer nocks an arrow,
 * or Snap Shots it (no action spent). */
function drawForm(c, a, act) {
  const weapons = (c.sheet?.weapons || []).map((w) => w.name);
  const list = uid("weapons");
  const item = h("input", { name: "item", autocomplete: "off", list, maxlength: 60 }); // a hint under it, not a grey value in it
  const archer = (c.sheet?.weapons || []).some((w) => w.kind === "archery");
  const draw = (extra = {}) => act({ kind: "draw", item: item.value.trim() || weapons[0] || "weapon", ...extra });
  return h(
    "div",
    { class: "action-group" },
    h(
      "form",
      {
        class: "row compact",
        onsubmit: (e) => {
          e.preventDefault();
          if (a.simple) draw();
          else draw({ maneuver: "quick_draw" });
        },
      },
      field("Draw", item, weapons.length ? `Left empty: your ${weapons[0]}` : "What you draw: a knife, a gun…"),
      h(
        "datalist",
        { id: list },
        weapons.map((w) => h("option", { value: w })),
      ),
      a.simple > 0 && h("button", { type: "submit" }, "Draw"),
    ),
    h(
      "div",
      { class: "choices maneuvers", role: "group", "aria-label": "Without an action" },
      h("button", { type: "button", onclick: () => draw({ maneuver: "quick_draw" }) }, withCost(c, "quick_draw")),
      archer && a.simple > 0 && h("button", { type: "button", onclick: () => act({ kind: "nock" }) }, "Nock an arrow"),
      archer &&
        h(
          "button",
          { type: "button", onclick: () => act({ kind: "nock", maneuver: "snap_shot" }) },
          withCost(c, "snap_shot", "nock"),
        ),
    ),
  );
}

/** Whether `who` may take its simple action early with Burst of Speed: a round under way, its
 * turn not come yet, and nothing done this round (bns:burst-of-speed). */
export function mayBurst(view, who) {
  const r = view.round;
  const c = view.characters[who];
  if (!r || r.phase !== "acting" || !c?.actions || !c.present) return false;
  if (r.turn.includes(who) || c.turn_done || c.conditions?.fair_escape) return false;
  return (c.actions.standard || 0) > 0 && (c.actions.simple || 0) > 0;
}

/** "Burst of Speed: move now": the simple action, before one's initiative. */
export function burstForm(view, who, send, { forCharacter = false } = {}) {
  const c = view.characters[who];
  const steps = select("steps", STEPS);
  const action = () => ({ kind: "move", steps: Number(steps.value), using: "simple", maneuver: "burst_of_speed" });
  return h(
    "form",
    {
      class: "row compact burst",
      onsubmit: (e) => {
        e.preventDefault();
        send({ type: "declare_action", ...(forCharacter ? { character: who } : {}), action: action() });
      },
    },
    field(`Before ${forCharacter ? `${c.name}'s` : "your"} turn (simple action)`, steps),
    h("button", { type: "submit" }, withCost(c, "burst_of_speed", "move now")),
  );
}

/** Whether `who` may shield the defender of `ch` (bns:assist-defender): an open Physical attack
 * before its first throw, in which `who` is not a side, while a round is under way and `who` has
 * a simple action left. Once a round: the server refuses a second. */
export function mayShield(view, ch, who) {
  const r = view.round;
  const c = view.characters?.[who];
  if (!r || r.phase !== "acting" || !c?.present || !((c.actions?.simple || 0) > 0)) return false;
  if (["declared", "held", "escaped"].includes(c.conditions?.fair_escape)) return false;
  if (
    ch.outcome ||
    ch.status === "withdrawn" ||
    ch.kind !== "contested" ||
    ch.category !== "physical" ||
    !ch.targets.length
  )
    return false;
  if ((ch.thrown || []).length || (ch.tests || []).length) return false;
  return ch.challenger !== who && !ch.targets.includes(who);
}

const shieldNotes = new Map(); // challenge id -> the last refusal, kept while the card is drawn anew

/** "Shield Edward" on an attack's card (the console: "Mook shields Edward", one button for each
 * NPC `whos` that may): the helper becomes the attack's target, for its simple action. */
export function shieldControls(live, view, ch, whos, { forCharacter = false } = {}) {
  if (!whos.length) return null;
  const defender = nameOf(view, ch.targets[0]);
  const attacker = nameOf(view, ch.challenger);
  const out = h("div", { class: "outcome" }, shieldNotes.has(ch.id) ? refusal(shieldNotes.get(ch.id)) : null);
  const how = h("input", { name: "how", autocomplete: "off", placeholder: "I step in front", maxlength: 200 });
  const shield = async (who) => {
    const body = { type: "assist", kind: "defender", challenge: ch.id, ...(forCharacter ? { character: who } : {}) };
    if (how.value.trim()) body.how = how.value.trim();
    const reply = await live.send(body);
    if (reply.ok) shieldNotes.delete(ch.id);
    else shieldNotes.set(ch.id, reply.error);
    out.replaceChildren(reply.ok ? "" : refusal(reply.error));
  };
  const hint = forCharacter
    ? `An NPC may take ${attacker}'s attack in ${defender}'s place: it becomes the target and answers it (its simple action, once a round).`
    : `Take ${attacker}'s attack in ${defender}'s place: you become the target and answer it (your simple action, once a round).`;
  return h(
    "section",
    { class: "shield", "aria-label": `Shield ${defender}` },
    h("p", { class: "hint" }, `${hint} ${attacker} may withdraw instead.`),
    field("How (optional)", how),
    h(
      "div",
      { class: "choices" },
      whos.map((who) =>
        h(
          "button",
          { type: "button", class: "primary", onclick: () => shield(who) },
          forCharacter ? `${nameOf(view, who)} shields ${defender}` : `Shield ${defender}`,
        ),
      ),
    ),
    out,
  );
}

/** Offer help to another character's attack: +1, or a free maneuver (one's standard action once
 * accepted). */
export function assistForm(view, who, send, { forCharacter = false } = {}) {
  const others = Object.values(view.characters).filter(
    (c) => c.id !== who && c.present && c.conditions?.fair_escape !== "escaped",
  );
  if (!others.length) return null;
  const to = select(
    "to",
    others.map((c) => [c.id, c.name]),
  );
  const benefit = select(
    "benefit",
    Object.entries(BENEFITS).map(([v, t]) => [v, title(t)]),
  );
  const how = h("input", { name: "how", autocomplete: "off", placeholder: "I hold him still", maxlength: 200 });
  const submit = (e) => {
    e.preventDefault();
    const body = {
      type: "assist",
      kind: "attacker",
      to: to.value,
      benefit: benefit.value,
      ...(forCharacter ? { character: who } : {}),
    };
    if (how.value.trim()) body.how = how.value.trim();
    send(body);
  };
  return h(
    "details",
    { class: "assist" },
    h("summary", {}, forCharacter ? `Assist (for ${nameOf(view, who)})` : "Assist another's attack"),
    h(
      "form",
      { class: "stack", onsubmit: submit },
      field("Whose attack", to),
      field("With", benefit),
      field("How (optional)", how),
      h("button", { type: "submit" }, "Offer help"),
    ),
  );
}

/** Help offered to `who` this round: Accept / Refuse for each offer waiting; the answered ones. */
export function offers(view, who, send, { forCharacter = false } = {}) {
  const aids = view.characters[who]?.aids || [];
  if (!aids.length) return null;
  const me = forCharacter ? { character: who } : {};
  const answer = (aid, accept) => send({ type: "answer_assist", offer: aid.offer, accept, ...me });
  return h(
    "div",
    { class: "offers" },
    aids.map((aid) => {
      const helper = nameOf(view, aid.by);
      const what = BENEFITS[aid.benefit] || aid.benefit;
      if (aid.status !== "offered") return h("p", {}, `${helper}'s help (${what}): ${aid.status}.`);
      const to = forCharacter ? nameOf(view, who) : "you";
      return h(
        "div",
        { class: "offer" },
        h("p", {}, `${helper} offers ${to} ${what}.`),
        h(
          "div",
          { class: "choices" },
          h(
            "button",
            { type: "button", class: "primary", onclick: () => answer(aid, true) },
            `Accept ${helper}'s help`,
          ),
          h("button", { type: "button", class: "quiet", onclick: () => answer(aid, false) }, `Refuse ${helper}'s help`),
        ),
      );
    }),
  );
}

/** What the server says `who` may do in the round outside a challenge (dice rulesets): a fair
 * escape before anyone declares, "done" with the expenditures, feeding on the one held. The phone
 * shows its player's; the console its NPCs' (`forCharacter` sends `character`, and leaves "done"
 * to the console's own list of who the expenditures wait for). */
export function roundMoves(view, who, send, { forCharacter = false } = {}) {
  const offered = view.characters[who]?.round_moves;
  if (!offered) return null;
  const name = nameOf(view, who);
  const mine = forCharacter ? { character: who } : {};
  const verbs = new Set(offered.verbs || []);
  const parts = [];
  const buttons = [];
  if (verbs.has("fair_escape"))
    buttons.push(
      h(
        "button",
        {
          type: "button",
          class: "primary",
          onclick: () => send({ type: "declare_action", ...mine, action: { kind: "fair_escape" } }),
        },
        forCharacter ? `${name} escapes` : "Escape",
      ),
    );
  if (verbs.has("expenditures_done") && !forCharacter)
    buttons.push(
      h(
        "button",
        { type: "button", class: "primary", onclick: () => send({ type: "expenditures_done" }) },
        "Done with my expenditures",
      ),
    );
  if (buttons.length) parts.push(h("div", { class: "choices" }, buttons));
  for (const [target, most] of Object.entries(offered.feed || {})) {
    const blood = select(
      "blood",
      Array.from({ length: most }, (_, i) => [String(i + 1), `${i + 1} blood`]),
    );
    const feeding = forCharacter ? `${name} feeds on ${nameOf(view, target)}` : `Feed on ${nameOf(view, target)}`;
    parts.push(
      h(
        "form",
        {
          class: "row compact feed",
          onsubmit: (e) => {
            e.preventDefault();
            send({ type: "feed", ...mine, target, blood: Number(blood.value) });
          },
        },
        field(
          forCharacter ? `Blood ${name} takes from ${nameOf(view, target)}` : `Feed on ${nameOf(view, target)}`,
          blood,
        ),
        h("button", { type: "submit" }, feeding),
      ),
    );
  }
  return parts.length ? h("div", { class: "round-moves" }, parts) : null;
}
