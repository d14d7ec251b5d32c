// The moves one character has in one challenge, as controls: only what the server says the rules
// allow now (`challenge.moves[who]`), each sent as a protocol command; a refusal shows the
// server's reason and the rule.
import { effectFields } from "./declare.js";
import { field, h, select, uid } from "./dom.js";
import {
  SIGN_LABELS,
  answerParts,
  describePool,
  diceCount,
  dieOf,
  facesPattern,
  nameOf,
  refusal,
  sourceLabel,
  title,
} from "./words.js";

const outcomes = new Map(); // challenge id + who -> the last refusal, kept across re-renders

/** Controls for `who`'s `moves` in `ch`; `forCharacter` sends `character` (the ST for an NPC). */
export function movesPanel(live, view, ch, who, moves, { forCharacter = false } = {}) {
  const key = `${ch.id}/${who}`;
  const note = h("div", { class: "outcome" }, outcomes.get(key) ? refusal(outcomes.get(key)) : null);
  const act =
    (type, fields = {}, words = null) =>
    async (event) => {
      event?.preventDefault?.();
      const body = { type, challenge: ch.id, ...fields, ...(forCharacter ? { character: who } : {}) };
      const reply = await live.send(body, words);
      if (reply.ok) outcomes.delete(key);
      else outcomes.set(key, reply.error);
      note.replaceChildren(reply.ok ? "" : refusal(reply.error));
    };
  const verbs = new Set(moves.verbs);
  const defending = Object.keys(moves.defenses || {}).length > 0; // a pool ruleset: answer with a defence
  const pending = ch.retests.find((r) => r.status === "pending");
  const parts = [];

  if (verbs.has("throw")) {
    parts.push(
      h(
        "div",
        { class: "signs", role: "group", "aria-label": "Throw" },
        moves.signs.map((sign) =>
          h(
            "button",
            { class: `sign ${sign}`, type: "button", onclick: act("throw", { sign }) },
            SIGN_LABELS[sign] || sign,
          ),
        ),
      ),
    );
  }
  if (verbs.has("roll")) parts.push(rollForm(moves, dieOf(view), forCharacter, act));
  if (defending)
    parts.push(
      defenseForm(moves, verbs.has("relent"), act, {
        parts: answerParts(view),
        skills: Object.keys(view.characters[who]?.sheet?.skills || {}),
        ask: poolAsker(live, ch, who, forCharacter),
      }),
    );
  else if (verbs.has("bid") || verbs.has("join"))
    parts.push(
      bidForm(moves, verbs.has("join"), moves.effect, (fields) => act(verbs.has("join") ? "join" : "bid", fields)),
    );
  if (verbs.has("declare_traits")) {
    const count = h("input", {
      type: "number",
      name: "count",
      min: 0,
      max: moves.most,
      value: moves.most,
      inputmode: "numeric",
    });
    parts.push(
      h(
        "form",
        { class: "row", onsubmit: (e) => act("declare_traits", { count: Number(count.value) })(e) },
        field(`Traits to declare (at most ${moves.most}; fewer keeps your strength secret)`, count),
        h("button", { type: "submit" }, "Declare"),
      ),
    );
  }
  if (verbs.has("retest")) {
    parts.push(
      h(
        "div",
        { class: "choices", role: "group", "aria-label": "Retest with" },
        moves.retest.map((source) =>
          h("button", { type: "button", onclick: act("retest", { source }) }, `Retest: ${sourceLabel(source)}`),
        ),
      ),
      moves.overbid ? h("p", { class: "hint overbid-odds" }, moves.overbid) : null, // what the overbid risks and needs
    );
  }
  if (verbs.has("cancel_retest")) {
    parts.push(
      h(
        "div",
        { class: "choices", role: "group", "aria-label": "Cancel the retest with" },
        moves.cancel.map((source) =>
          h(
            "button",
            { type: "button", onclick: act("cancel_retest", { source }) },
            `Cancel with ${sourceLabel(source)}`,
          ),
        ),
      ),
    );
  }
  const standing = pending && pending.by !== who;
  const buttons = [];
  if (verbs.has("pass"))
    buttons.push(
      h(
        "button",
        { type: "button", onclick: act("pass", {}, standing ? "You let the retest stand." : null) },
        standing ? "Let the retest stand" : "Pass: no retest",
      ),
    );
  // what cannot be undone asks first; the console withdraws with its own control, which asks too
  if (verbs.has("relent") && !defending)
    buttons.push(
      confirmButton(
        "Relent (lose without a test)",
        "Confirm: relent and lose",
        act("relent"),
        "Relent? You lose the challenge without a test.",
      ),
    );
  if (verbs.has("withdraw") && !forCharacter)
    buttons.push(
      confirmButton(
        "Withdraw the challenge",
        "Confirm: withdraw",
        act("withdraw"),
        "Withdraw the challenge? It ends with no winner.",
      ),
    );
  if (buttons.length) parts.push(h("div", { class: "choices" }, buttons));
  if (verbs.has("call_negative")) parts.push(negativeCalls(view, ch, who, moves, act));
  if (verbs.has("choose_victory")) {
    parts.push(
      h(
        "div",
        { class: "choices", role: "group", "aria-label": "Whose victory condition applies" },
        moves.victory_of.map((of) =>
          h(
            "button",
            { type: "button", onclick: act("choose_victory", { of }) },
            `Apply ${nameOf(view, of)}'s victory condition`,
          ),
        ),
      ),
    );
  }
  return h("div", { class: "moves" }, parts, note);
}

/** Calling a Negative Trait: the opponent's ones the caller knows (`moves.negatives`, the
 * server's to say), one tap each; and a name of one's own, since the rules make a call a guess. */
function negativeCalls(view, ch, who, moves, act) {
  const known = moves.negatives || [];
  const opponent = nameOf(view, ch.challenger === who ? ch.targets[0] : ch.challenger);
  const trait = h("input", { name: "trait", autocomplete: "off", required: true, placeholder: "Lethargic" });
  return h(
    "div",
    { class: "negative-calls" },
    known.length > 0 &&
      h(
        "div",
        { class: "choices", role: "group", "aria-label": `${opponent}'s Negative Traits you know` },
        known.map((name) =>
          h(
            "button",
            { type: "button", class: "quiet", onclick: act("call_negative", { trait: name }) },
            `Call ${name}`,
          ),
        ),
      ),
    h(
      "form",
      { class: "row", onsubmit: (e) => act("call_negative", { trait: trait.value.trim() })(e) },
      field(known.length ? "Call another Negative Trait (a guess)" : "Call a Negative Trait (a guess)", trait),
      h("button", { type: "submit", class: "quiet" }, "Call it"),
    ),
  );
}

/** A button for what cannot be undone: the first tap asks, saying what it will do; "Confirm: …"
 * acts (`act(event)`), "Cancel" puts the button back and nothing is sent. */
export function confirmButton(label, confirmLabel, act, warning = "") {
  const box = h("div", { class: "confirm" });
  const first = h("button", { type: "button", class: "quiet" }, label);
  const back = () => {
    box.replaceChildren(first);
    first.focus();
  };
  first.addEventListener("click", () => {
    const yes = h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: (e) => {
          act(e); // first: it may read the form the button is in
          box.replaceChildren(first);
        },
      },
      confirmLabel,
    );
    box.replaceChildren(
      h("p", { class: "warn" }, warning || `${label}?`),
      h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")),
    );
    yes.focus();
  });
  box.replaceChildren(first);
  return box;
}

/** "You roll 2 dice: 1 for the test + 1 retest." — the server's count with no retest (`base`,
 * and its reasons when more than the one die), then the retests ticked. */
function diceWords(n, base, retests, why) {
  const dice = (k) => `${k} ${k === 1 ? "die" : "dice"}`;
  const test = base === 1 ? "1 for the test" : `${dice(base)} for the test (${why})`;
  const more = retests ? ` + ${retests} retest${retests === 1 ? "" : "s"}` : "";
  return `You roll ${dice(n)}: ${test}${more}.`;
}

/** Roll the dice (dice rulesets, `die` as the view's rules say it): tick the retest sources to name, each one more die; the button
 * says how many dice and what they spend. Dice rolled by hand may be entered where allowed (the
 * Storyteller always may, for an NPC). */
function rollForm(moves, die, forCharacter, act) {
  const base = moves.dice || 1;
  const ticks = (moves.roll_sources || []).map((source) => ({
    source,
    box: h("input", { type: "checkbox", name: "source" }),
  }));
  const button = h("button", { type: "submit", class: "primary roll" });
  const handEntered = h("input", {
    name: "values",
    autocomplete: "off",
    inputmode: "numeric",
    placeholder: die ? `1 ${die.size}` : undefined,
    pattern: facesPattern(die),
  });
  const count = h("p", { class: "hint dice-count" }); // the server's count with no retest, then the boxes ticked
  const label = () => {
    const named = ticks.filter((t) => t.box.checked).map((t) => sourceLabel(t.source));
    const n = base + named.length;
    const dice = diceCount(n, die);
    button.textContent = `Roll ${dice}${named.length ? ` · spends ${named.join(", ")}` : ""}`;
    count.textContent = `${diceWords(n, base, named.length, moves.dice_why)} Each retest named adds a die.`;
  };
  for (const t of ticks) t.box.addEventListener("change", label);
  label();
  const send = (e) => {
    const retests = ticks.filter((t) => t.box.checked).map((t) => t.source);
    const values = handEntered.value
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    return act("roll", values.length ? { retests, values } : { retests })(e);
  };
  return h(
    "form",
    { class: "roll stack", onsubmit: send },
    count,
    ticks.length > 0 &&
      h(
        "fieldset",
        { class: "sources" },
        h("legend", {}, "Retests to name (each one more die)"),
        ticks.map((t) => h("label", { class: "check" }, t.box, ` ${sourceLabel(t.source)}`)),
      ),
    (moves.enter || forCharacter) &&
      field("Dice rolled by hand (optional)", handEntered, "Leave empty and the server rolls"),
    button,
  );
}

/** Pick `bid_count` Traits (one select each) and, answering or joining, a victory condition; where
 * the rules let the defender win its own way (`moves.effect`, kony:resolution), its effect too. */
function bidForm(moves, joining, withEffect, send) {
  const options = Object.entries(moves.traits).map(([trait, left]) => [trait, `${trait} (${left} left)`]);
  const pool = Object.entries(moves.traits).flatMap(([trait, left]) => Array(left).fill(trait));
  const picks = Array.from({ length: moves.bid_count }, (_, i) => {
    const choice = select("trait", options, { id: uid("bid") });
    choice.value = pool[i] ?? options[0]?.[0];
    return field(moves.bid_count > 1 ? `Trait ${i + 1} of ${moves.bid_count}` : "Trait to bid", choice);
  });
  const victory = h("input", {
    name: "victory",
    autocomplete: "off",
    placeholder: joining ? "I grab his arm" : "I dodge aside",
  });
  const effect = withEffect && effectFields();
  const chosen = (form) => [...form.querySelectorAll("select[name=trait]")].map((s) => s.value);
  const fields = (form) => {
    const out = { bid: chosen(form), victory: victory.value.trim() };
    const won = effect?.value();
    if (won) out.effect = won;
    return out;
  };
  return h(
    "form",
    { class: "bid", onsubmit: (e) => send(fields(e.currentTarget))(e) },
    picks,
    field(
      joining
        ? "Your victory condition"
        : withEffect
          ? "Your victory condition (if you win)"
          : "Your response (optional)",
      victory,
    ),
    effect &&
      h("details", { class: "defender-effect" }, h("summary", {}, "If you win: an effect on them"), effect.controls),
    h(
      "button",
      { type: "submit" },
      joining ? "Join the attack" : moves.bid_count > 1 ? `Bid ${moves.bid_count} Traits` : "Bid",
    ),
  );
}

/** What the server makes of a defence `who` would answer `ch` with (the `pool` request): the
 * pool, or the refusal. */
function poolAsker(live, ch, who, forCharacter) {
  return (pool) =>
    live.request(
      { type: "pool", pool, challenge: ch.id, category: ch.category, ...(forCharacter ? { character: who } : {}) },
      "pool",
    );
}

/** Answer with a defence pool (pool rulesets): each defence the rules allow, with its parts and
 * total; the parts the ruleset lets a defender add (`answerParts`: a skill, a wild card with its
 * reason), the pool they make shown as they change; or relent, naming the defence that grades the
 * relent. */
function defenseForm(moves, relent, act, { parts: answering, skills: known, ask }) {
  const parts = new Set(answering);
  const group = uid("defense");
  const choices = Object.entries(moves.defenses).map(([kind, pool], i) =>
    h(
      "label",
      { class: "check" },
      h("input", { type: "radio", name: group, value: kind, checked: i === 0 }),
      ` ${title(kind)}: `,
      h("strong", {}, describePool(pool)),
    ),
  );
  const wildcard = h("input", { type: "number", name: "wildcard", min: -20, max: 20, value: 0, inputmode: "numeric" });
  const why = h("input", { name: "why", autocomplete: "off", placeholder: "cover" });
  const victory = h("input", { name: "victory", autocomplete: "off", placeholder: "I dive behind the pews" });
  const skill = h("input", { name: "skill", autocomplete: "off", list: uid("skills") });
  const skills = h(
    "datalist",
    { id: skill.getAttribute("list") },
    known.map((s) => h("option", { value: s })),
  );
  const shown = h("p", { class: "pool-preview", role: "status", "aria-live": "polite" }, "");
  const spec = (form) => {
    const pool = { defense: form.querySelector(`input[name="${group}"]:checked`).value };
    if (parts.has("skill") && skill.value.trim()) pool.skill = skill.value.trim();
    if (parts.has("wildcard") && Number(wildcard.value))
      Object.assign(pool, { wildcard: Number(wildcard.value), why: why.value.trim() });
    return pool;
  };
  let asked = 0;
  const preview = async (form) => {
    const mine = ++asked;
    const reply = await ask(spec(form));
    if (mine !== asked) return; // a later change asked again
    if (reply.pool) shown.replaceChildren("Your pool: ", h("strong", {}, describePool(reply.pool)));
    else shown.replaceChildren(refusal(reply.error || reply));
  };
  return h(
    "form",
    {
      class: "bid",
      onsubmit: (e) => act("bid", { pool: spec(e.currentTarget), victory: victory.value.trim() })(e),
      // a part added to the defence: the pool it makes, as the server computes it
      oninput: (e) => parts.has("skill") && e.target.name !== "victory" && preview(e.currentTarget),
      onchange: (e) => parts.has("skill") && e.target.name !== "victory" && preview(e.currentTarget),
    },
    h("fieldset", { class: "defenses" }, h("legend", {}, "Defend with"), choices),
    parts.has("skill") && [field("Skill", skill, "One of your skills, added to the defence"), skills, shown],
    parts.has("wildcard") && [
      field("Wild card (+/-)", wildcard, "Cover, a shield: the Storyteller may dispute it"),
      field("Why the wild card", why),
    ],
    field("Your response (optional)", victory),
    h(
      "div",
      { class: "choices" },
      h("button", { type: "submit" }, "Defend"),
      relent &&
        confirmButton(
          "Relent (lose without a test)",
          "Confirm: relent and lose",
          (e) => act("relent", { pool: spec(e.currentTarget.form) })(e),
          "Relent? You lose the challenge without a test.",
        ),
    ),
  );
}
