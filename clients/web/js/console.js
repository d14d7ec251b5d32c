// The Storyteller's console: the scene and its invitations, characters from sheet files, rounds,
// every challenge with its hidden parts, throws seen at the table, disputes and rulings, forks,
// and the audit and export to download. With a game night's link: the night's view (its scenes,
// who is where, each character's ledger for the night, moves, new scenes, invitations, closing the
// night); each scene of the night opens in this same console (`/st?scene=…`, the night's key), and
// a what-if of one of its scenes shows how the night's ledger would stand.
import { challengeCard } from "./cards.js";
import { declareForm } from "./declare.js";
import { download, field, fill, h, keyed, regions as redraws, select } from "./dom.js";
import { Live, tokenFromPage } from "./live.js";
import { amendForm, sheetForm } from "./sheetform.js";
import { actionsLeft, actsNow, assistForm, budgeted, escapeLine, intendButton, markBadges, markWords, mayIntend, mayShield, offers, rageRounds, roundMoves, shieldControls, turnControls } from "./turns.js";
import { CATEGORIES, SIGN_LABELS, connection, defenderOf, grow, nameOf, refusal, ruleNote, rulesetName, rulesetTable, sourceLabel, timeline, title } from "./words.js";

// module state, declared before the first draw below uses it
let ofNight = false; // this console is of a scene of a game night (opened from the night's console)
const forks = new Map(); // a what-if the other way, by its control's key -> the fork's Storyteller token
let ruleOn = null; // the step the Storyteller chose to rule on from the timeline ("Rule on this step")
const movedTo = new Map(); // character -> the scene a move sent them into (its confirmation holds while they are there)
const LEDGER_SETTLE = 400; // ms after a scene of the night moves before its ledger is asked again
const app = document.getElementById("app");
const sceneOfNight = new URLSearchParams(location.search).get("scene"); // a scene of the token's night
const token = tokenFromPage("/st");
if (sceneOfNight) history.replaceState(null, "", `${location.pathname}?scene=${encodeURIComponent(sceneOfNight)}`);
if (!token) {
  fill(app, h("h1", {}, "Justicar"), h("p", {}, "Open the console link from ", h("code", {}, "justicar serve"), " or ", h("a", { href: "/" }, "paste your Storyteller token"), "."));
} else if (sceneOfNight) {
  start(new Live(token, { scene: sceneOfNight }), { night: true });
} else {
  boot(new Live(token));
}

/** A scene's key draws the scene's console; a game night's, the night's (the first view says). */
function boot(live) {
  fill(app, h("p", {}, "Loading…"));
  const decide = () => {
    if (!live.view && live.status !== "refused") return;
    live.removeEventListener("change", decide);
    live.removeEventListener("status", decide);
    if (live.view?.night) startNight(live);
    else start(live);
  };
  live.addEventListener("change", decide);
  live.addEventListener("status", decide);
}

function start(live, { night = false } = {}) {
  ofNight = night;
  const header = h("header", { class: "top" });
  const regions = {
    scene: h("section", { id: "scene", "aria-labelledby": "scene-h" }),
    invitations: h("section", { id: "invitations", "aria-labelledby": "inv-h" }),
    characters: h("section", { id: "characters", "aria-labelledby": "chars-h" }),
    round: h("section", { id: "round", "aria-labelledby": "round-h" }),
    challenges: h("section", { id: "challenges", "aria-labelledby": "chal-h" }),
    disputes: h("section", { id: "disputes", "aria-labelledby": "disp-h" }),
    tools: h("section", { id: "tools", "aria-labelledby": "tools-h" }),
    tonight: h("section", { id: "tonight", "aria-labelledby": "tonight-h", hidden: true }),
    timeline: h("section", { id: "timeline", "aria-labelledby": "tl-h" }),
  };
  const links = Object.fromEntries(
    Object.entries({ scene: "Scene", invitations: "Invitations", characters: "Characters", round: "Round", challenges: "Challenges", disputes: "Disputes", tools: "What-if & downloads", timeline: "Timeline" }).map(([id, text]) => [id, h("a", { href: `#${id}` }, text)]),
  );
  const nav = h("nav", { class: "sections", "aria-label": "Console sections" }, Object.values(links));
  const banner = h("div", { class: "what-if-banner", role: "note", hidden: true });
  const problems = h("div", { class: "problems" });
  const back = night && h("p", { class: "night-link" }, "A scene of tonight's game: ", h("a", { href: `/st#token=${encodeURIComponent(live.token)}` }, "back to the night's console"));
  fill(app, banner, header, back, nav, problems, h("main", {}, Object.values(regions)));
  const region = redraws(); // what changed, never under the Storyteller's fingers
  const tonight = whatIfLedger(live, regions.tonight);
  live.addEventListener("problem", (e) => fill(problems, refusal(e.error)));
  const openCards = h("div", { class: "cards" });
  const doneCards = h("div", { class: "cards" });
  const rows = h("tbody", {});
  let built = false;

  const draw = () => {
    const view = live.view;
    fill(
      header,
      h("h1", {}, "Storyteller"),
      h("p", { class: "scene" }, view ? `${view.title || "Untitled scene"} · ${rulesetName(view)}${view.status === "closed" ? " · closed" : ""}` : ""),
      connection(live),
    );
    if (!view) return;
    whatIf(banner, view);
    tonight(view);
    const disputed = view.disputes.filter((d) => d.status === "open").length;
    fill(links.disputes, "Disputes", disputed > 0 && h("span", { class: "count" }, ` (${disputed} open)`));
    links.disputes.classList.toggle("waiting", disputed > 0);
    if (!built) {
      built = true;
      fill(regions.invitations, h("h2", { id: "inv-h" }, "Invitations"), invitations(live));
      fill(regions.tools, h("h2", { id: "tools-h" }, "What-if, new scenes & downloads"), tools(live, view), newScene(live));
      fill(regions.timeline, h("h2", { id: "tl-h" }, "Timeline"), h("p", {}, h("a", { href: replayLink(live), target: "_blank" }, "Step through it in the replay viewer")), h("p", { class: "hint" }, "Tap a step's number to rule on it (any step, disputed or not)."), timeline([], ruleControl(live), live));
      fill(regions.challenges, h("h2", { id: "chal-h" }, "Challenges"), h("div", { class: "npc-declare" }), outcome("challenges"), h("p", { class: "none" }, "No open challenge."), openCards, h("details", { class: "done" }, h("summary", {}, ""), doneCards, h("button", { type: "button", class: "quiet older", onclick: () => live.olderChallenges() }, "Show older challenges")));
    }
    regions.tools.querySelector("input[name=at]").max = view.version; // a fork keeps events that exist
    const players = Object.values(view.characters).filter((c) => !c.npc && c.present).map((c) => [c.id, c.name]);
    region(regions.invitations.querySelector("select[name=character]"), JSON.stringify(players), () => {
      const choice = regions.invitations.querySelector("select[name=character]");
      const kept = choice.value;
      fill(choice, h("option", { value: "" }, players.length ? "Choose a character" : "Add a character first"), players.map(([id, name]) => h("option", { value: id }, name)));
      choice.value = players.some(([id]) => id === kept) ? kept : "";
      choice.dispatchEvent(new Event("filled")); // Invite waits for a choice
    });
    region(regions.scene, JSON.stringify([view.status, view.title, live.presence, openChallenges(view)]), () => fill(regions.scene, h("h2", { id: "scene-h" }, "Scene"), scenePanel(live, view)));
    if (!regions.characters.firstChild) {
      const columns = view.rules?.family === "pools" ? ["Character", "Attributes", "Skills", "Health", "Willpower", "Conditions", "Adjust"] : ["Character", "Traits left", "Lost tonight", "Health", "Willpower", "Conditions", "Adjust"];
      const head = h("tr", {}, columns.map((t) => h("th", { scope: "col" }, t)));
      fill(regions.characters, h("h2", { id: "chars-h" }, "Characters"), h("div", { class: "scroll" }, h("table", { class: "stacked" }, h("thead", {}, head), rows)), h("div", { class: "adding" }, sheetForm(live), sheetFiles(live)), h("p", { class: "closed-note hint" }, "The scene is closed: nobody joins it now."));
    }
    regions.characters.querySelector(".adding").hidden = view.status !== "open"; // add_character takes an open scene only
    regions.characters.querySelector(".closed-note").hidden = view.status !== "closed";
    keyed(rows, Object.values(view.characters).map((c) => [JSON.stringify([c, removable(view, c), view.status]), () => characterRow(live, view, c)]));
    region(regions.round, JSON.stringify([view.status, view.round, openChallenges(view), Object.values(view.characters).map((c) => [c.id, c.present, c.action, c.actions_left, c.actions, c.turn_done, c.conditions, c.aids, c.maneuvers, c.expended, c.round_moves])]), () =>
      fill(regions.round, h("h2", { id: "round-h" }, "Round"), roundPanel(live, view)),
    );
    const npcs = Object.values(view.characters).filter((c) => c.npc && c.present);
    const assists = (c) => (c.aids || []).filter((a) => a.benefit === "maneuver" && a.status === "accepted").length; // a second maneuver
    region(regions.challenges.querySelector(".npc-declare"), JSON.stringify([view.status, npcs.map((c) => [c.id, c.sheet, assists(c), c.maneuvers]), people(view)]), () =>
      fill(regions.challenges.querySelector(".npc-declare"), view.status === "open" && npcs.length > 0 && npcDeclare(live, view, npcs)),
    );
    const all = Object.values(view.challenges);
    const open = all.filter((ch) => !ch.outcome && ch.status !== "withdrawn");
    const done = [...all.filter((ch) => !open.includes(ch)).reverse(), ...Object.values(live.older).filter((ch) => !view.challenges[ch.id])];
    const names = Object.values(view.characters).map((c) => c.name);
    const shielders = (ch) => npcs.filter((c) => mayShield(view, ch, c.id)).map((c) => c.id); // NPCs who may take the attack
    keyed(openCards, open.map((ch) => [JSON.stringify([ch, names, shielders(ch)]), () => challengeCard(live, view, ch, { forCharacter: true, extra: [stControls(live, view, ch), shieldControls(live, view, ch, shielders(ch), { forCharacter: true })] })]));
    keyed(doneCards, done.map((ch) => [JSON.stringify([ch, names]), () => challengeCard(live, view, ch, { forCharacter: true })]));
    regions.challenges.querySelector(".none").hidden = open.length > 0;
    regions.challenges.querySelector("details.done").hidden = done.length === 0;
    const older = (view.older || 0) - Object.keys(live.older).length;
    regions.challenges.querySelector("details.done summary").textContent = `${done.length + Math.max(0, older)} resolved or withdrawn`;
    regions.challenges.querySelector("button.older").hidden = older <= 0 || live.olderNext === null;
    const context = view.disputes.filter((d) => d.status === "open").map((d) => [disputedStep(live, d.event)?.summary, challengeOf(live, view, disputedStep(live, d.event))?.outcome]);
    const chosen = ruleOn !== null ? [ruleOn, disputedStep(live, ruleOn)?.summary, challengeOf(live, view, disputedStep(live, ruleOn))?.outcome] : null;
    const ruled = view.rulings.map((r) => challengeOf(live, view, disputedStep(live, r.event))?.outcome);
    region(regions.disputes, JSON.stringify([view.disputes, view.rulings, context, chosen, ruled, view.version]), () => fill(regions.disputes, h("h2", { id: "disp-h" }, "Disputes and rulings"), disputes(live, view), outcome("disputes")));
    grow(regions.timeline.querySelector("ol"), live.timeline);
  };
  live.addEventListener("change", draw);
  live.addEventListener("status", draw);
  draw();
}

/** Each step's number in the timeline is its "Rule on this step" control: it opens the ruling
 * form for that step in the disputes section (any step, disputed or not). */
function ruleControl(live) {
  return (step) => {
    const open = () => {
      ruleOn = step.seq;
      // once the press is over (a region is not redrawn under a finger), draw the form and go to it
      setTimeout(() => {
        live.changed();
        const heading = document.getElementById("rule-any-h");
        heading?.scrollIntoView({ block: "start" });
        heading?.focus({ preventScroll: true });
      }, 20);
    };
    return h("button", { type: "button", class: "step-no", "aria-label": `#${step.seq}: rule on this step`, title: "Rule on this step", onclick: open }, `#${step.seq}`);
  };
}

/** Each ruleset's name, as a table knows it. */

const notes = new Map(); // what a control last said, by key: kept when its section is redrawn

/** An outcome line for `key`, showing what it last said. */
function outcome(key) {
  const out = h("div", { class: "outcome", "aria-live": "polite", dataset: { key } });
  const last = notes.get(key);
  if (last && Date.now() - last.at < FRESH) out.append(last.error ? refusal(last.error) : done(last.ok));
  return out;
}

const FRESH = 60000; // ms a confirmation or refusal is still shown when its section is drawn anew

/** A command's confirmation: what it did, in the timeline's words. */
function done(text) {
  return text ? h("p", { class: "done", role: "status" }, h("strong", {}, "✓ "), text) : "";
}

/** What the events of a command's result were, in the timeline's words (the commit carrying them
 * may come a moment after the result: wait for it, briefly). */
async function said(live, reply) {
  const seqs = (reply.events || []).map((e) => e.seq).filter(Boolean);
  const missing = () => seqs.some((seq) => !live.timeline.some((t) => t.seq === seq));
  for (let i = 0; i < 40 && missing(); i++) await new Promise((r) => setTimeout(r, 25));
  return seqs.map((seq) => live.timeline.find((t) => t.seq === seq)?.summary).filter(Boolean).join(" ");
}

/** The replay viewer with this console's key (and a step to open at). */
function replayLink(live, step, scene = live.scene) {
  return `/replay${scene ? `?scene=${encodeURIComponent(scene)}` : ""}#token=${encodeURIComponent(live.token)}${step ? `&step=${step}` : ""}`;
}

/** Send a command and show the outcome in `out` (kept by its key across redraws): a refusal, or a
 * confirmation that says what it did (`ok` first, then the events it made, in words). */
function sender(live, out, ok = "") {
  return async (body) => {
    const reply = await live.send(body);
    const text = reply.ok ? [ok, await said(live, reply)].filter(Boolean).join(" ") || "Done." : "";
    notes.set(out.dataset.key, reply.ok ? { ok: text, at: Date.now() } : { error: reply.error, at: Date.now() });
    // the section may have been redrawn meanwhile: write to the outcome line on the page now
    const current = document.querySelector(`.outcome[data-key="${CSS.escape(out.dataset.key)}"]`) || out;
    current.replaceChildren(reply.ok ? done(text) : refusal(reply.error));
    return reply;
  };
}

/** Say what `out` last confirmed on the outcome line `key` too (one that outlasts `out`'s section). */
function echo(out, key) {
  const text = notes.get(out.dataset.key)?.ok;
  notes.set(key, { ok: text, at: Date.now() });
  document.querySelector(`.outcome[data-key="${key}"]`)?.replaceChildren(done(text));
}

/** A button for what cannot be undone: the first tap asks, with what it will do; "Confirm …" acts,
 * "Cancel" puts the button back and nothing is sent. */
function confirmButton(label, confirmLabel, act, warning = "") {
  const box = h("div", { class: "confirm" });
  const first = h("button", { type: "button", class: "quiet" }, label);
  const back = () => (fill(box, first), first.focus());
  first.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger", onclick: () => (fill(box, first), act()) }, confirmLabel);
    fill(box, h("p", { class: "warn" }, warning || `${label}?`), h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")));
    yes.focus();
  });
  return fill(box, first);
}

/** A what-if looks unlike the live scene: a banner naming where it was forked, another accent. */
function whatIf(banner, view) {
  const origin = view.forked_from;
  document.body.classList.toggle("what-if", Boolean(origin));
  banner.hidden = !origin;
  if (!origin) return;
  document.title = `What-if · ${view.title || view.scene} · Justicar`;
  fill(banner, h("strong", {}, "What-if"), ` of ${view.title ? `“${view.title}”` : "an untitled scene"}, from step ${origin.seq} — nothing here changes the real scene.`);
}

/** How many challenges are open (the scene closes only when none is). */
function openChallenges(view) {
  return Object.values(view.challenges).filter((ch) => !["resolved", "withdrawn"].includes(ch.status)).length;
}

function scenePanel(live, view) {
  const out = outcome("scene");
  const send = sender(live, out);
  const present = live.presence.map((p) => `${p.role === "player" ? nameOf(view, p.character) : p.role === "st" ? "Storyteller" : "spectators"}${p.connections > 1 ? ` ×${p.connections}` : ""}`);
  return h(
    "div",
    {},
    h("p", {}, `Connected: ${present.join(", ") || "nobody yet"}`),
    h("p", { class: "scene-id hint" }, "Scene id (for the command line and the server's log): ", h("code", {}, view.scene)),
    view.status === "open" && openChallenges(view) === 0 && confirmButton("Close the scene", "Confirm: close the scene", () => send({ type: "close_scene" }), "Close the scene? Nothing more can be played in it; only disputes and rulings go on."),
    view.status === "open" && openChallenges(view) > 0 && h("p", { class: "hint" }, "The scene can be closed once no challenge is open."),
    out,
  );
}

/** Open another scene; its console link holds its own Storyteller key. */
function newScene(live) {
  const ruleset = select("ruleset", []);
  const konyLegend = h("legend", {}, "House rules (the first choice of each is the usual one)");
  const bnsLegend = h("legend", {}, "House rules");
  rulesetTable().then((titles) => {
    // the server's titles for its rulesets, in its order (the first is the default)
    ruleset.replaceChildren(...Object.entries(titles).map(([id, name]) => h("option", { value: id }, `${name}${{ bns: " (test pools)", kony: " (three-sided dice)" }[id] || ""}`)));
    if (titles.kony) konyLegend.textContent = `House rules for ${titles.kony} (the first choice of each is the usual one)`;
    if (titles.bns) bnsLegend.textContent = `House rules for ${titles.bns}`;
    ruleset.dispatchEvent(new Event("change"));
  });
  const konyChoices = Object.entries(KONY_OPTIONS).map(([option, [label, choices, help]]) => [option, select(option, choices), label, help]);
  const konyRules = h("fieldset", { class: "house-rules", hidden: true }, konyLegend, konyChoices.map(([, choice, label, help]) => field(label, choice, help)));
  ruleset.addEventListener("change", () => (konyRules.hidden = ruleset.value !== "kony"));
  const houseRules = Object.entries(BNS_OPTIONS).map(([option, [text, on]]) => [option, h("input", { type: "checkbox", name: option, checked: on }), text]);
  const bnsRules = h("fieldset", { class: "house-rules", hidden: true }, bnsLegend, houseRules.map(([, box, text]) => h("label", { class: "check" }, box, ` ${text}`)));
  ruleset.addEventListener("change", () => (bnsRules.hidden = ruleset.value !== "bns"));
  const newTitle = h("input", { name: "title", autocomplete: "off", placeholder: "Elysium, interrupted" });
  const created = h("div", { class: "outcome" });
  return h(
    "details",
    {},
    h("summary", {}, "Start a new scene"),
    h(
      "form",
      {
        class: "row",
        onsubmit: async (e) => {
          e.preventDefault();
          const body = { type: "create_scene", ruleset: ruleset.value, title: newTitle.value.trim() };
          if (ruleset.value === "bns") body.options = { bns: Object.fromEntries(houseRules.map(([option, box]) => [option, box.checked])) };
          if (ruleset.value === "kony") body.options = { kony: Object.fromEntries(konyChoices.map(([option, choice]) => [option, choice.value])) };
          const reply = await live.request(body, "scene_created");
          if (reply.type === "error") return created.replaceChildren(refusal(reply));
          const link = `${location.origin}/st#token=${reply.token}`;
          created.replaceChildren(h("p", {}, `${body.title ? `“${body.title}”` : "The new scene"} is open: `, h("a", { href: link, target: "_blank" }, "open its console"), " (in a new tab; the link holds its Storyteller key: keep it)."));
        },
      },
      field("Rules", ruleset),
      bnsRules,
      konyRules,
      field("Title", newTitle),
      h("button", { type: "submit" }, "Create"),
    ),
    created,
  );
}

/** Every kony option (docs/rulesets.md): its label, its choices (the default first), one line of help. */
const KONY_OPTIONS = {
  dice: ["Dice", [["server", "The server rolls"], ["players", "Players may enter their own"]], "Who may enter dice rolled by hand: the Storyteller always may"],
  ties: ["Equal successes", [["draw", "A draw: both lose their bids"], ["traits", "The larger Trait Pool wins"], ["per_die", "Each 2 to the larger pool"]], "What equal numbers of 1s do; per die: each 2 counts as a 1 for the larger Trait Pool"],
  extra_actions: ["Extra actions", [["after_everyman", "After everyone's first action"], ["on_turn", "All on one's own turn"]], "When Celerity's and combat sheets' extra actions come (narrative rounds: on one's turn)"],
  narrative_equal: ["Narrative test, equal pool", [["loss", "A loss"], ["win", "A win"]], "A narrative test that comes down to a 2 with the Trait Pool equal to the difficulty"],
  blind_fighting: ["Blind Fighting in darkness", [["hold", "Holding it negates darkness"], ["spend", "Spent when named"]], "How the Ability negates darkness; spent: named in the roll, it adds no die"],
  escape: ["Fair escape", [["round", "Each round, first"], ["fight", "Only as the fight starts"]], "When a character may leave without a test: before any declaration of the round, or of the fight"],
};

const BNS_OPTIONS = {
  static_tests: ["Static challenges against a difficulty", true],
  unskilled_critical: ["An unskilled loss is a critical failure", true],
  critical_defenders: ["Defenders can fail critically too", false],
  relent_exceptional: ["Relenting with the lower pool gives an exceptional success", true],
  retry_immunity: ["Ten minutes' immunity after a failed Mental or Social challenge", true],
  soak_overbid: ["A soaking defender may overbid", false],
};

/** When a token was issued, as a clock reads: "at 23:40" today, "on 30 Nov at 23:40" before. */
function issuedAt(iso) {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  const clock = t.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return t.toDateString() === new Date().toDateString() ? `at ${clock}` : `on ${t.toLocaleDateString([], { day: "numeric", month: "short" })} at ${clock}`;
}

/** When a token expires, from now: "in 5 h", "in 20 min", "already", "never". */
function expires(iso) {
  if (!iso) return "never";
  const left = (new Date(iso).getTime() - Date.now()) / 60000;
  if (!(left > 0)) return "already";
  return left < 90 ? `in ${Math.ceil(left)} min` : left < 48 * 60 ? `in ${Math.round(left / 60)} h` : `in ${Math.round(left / 1440)} days`;
}

/** The same as a phrase: "expires in 5 h", "never expires", "expired". */
function expiry(iso) {
  const when = expires(iso);
  return when === "never" ? "never expires" : when === "already" ? "expired" : `expires ${when}`;
}

/** Copy a link; where the browser has no clipboard for this page (plain http on a LAN address),
 * select the link's text and say so, for the Storyteller to copy by hand. */
async function copyLink(shown, said) {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(shown.value);
    said.replaceChildren(done("Copied: paste it to the player."));
  } catch {
    shown.focus();
    shown.select();
    said.replaceChildren(h("p", { class: "done", role: "status" }, "Selected: copy it (this page may not use the clipboard)."));
  }
}

/** Invitations: a link and a QR code per player's character, revocable; and spectators. */
function invitations(live) { // built once: the invitations made stay on the page
  const list = h("div", {});
  const tokens = h("div", {});
  const said = h("div", { class: "outcome", "aria-live": "polite" }); // the last attempt's refusal, cleared by the next
  const character = select("character", []); // filled, and kept current, by the console's draw
  const inviteButton = h("button", { type: "submit", disabled: true }, "Invite");
  const chosen = () => (inviteButton.disabled = !character.value); // nobody chosen: nothing to invite
  character.addEventListener("change", chosen);
  character.addEventListener("filled", chosen);
  const whose = (g) => (g.role === "player" ? `${nameOf(live.view, g.character)}'s` : `the ${g.role === "st" ? "Storyteller" : g.role}'s`);
  const who = (g) => `${whose(g)} link ${issuedAt(g.created_at)}`;
  const revoke = async (g) => {
    const reply = await live.request({ type: "revoke", token_id: g.token_id }, "revoked");
    await showTokens();
    const gave = reply.cascaded?.length ?? 0; // the links that link had given, revoked with it
    const also = gave === 0 ? ": that page has stopped." : ` and the ${gave === 1 ? "link" : `${gave} links`} it gave: those pages have stopped.`;
    said.replaceChildren(reply.type === "error" ? refusal(reply) : done(`Revoked ${who(g)}${also}`));
  };
  const showTokens = async () => {
    const reply = await live.request({ type: "tokens" }, "tokens");
    if (reply.type === "error") return said.replaceChildren(refusal(reply));
    fill(
      tokens,
      h(
        "table",
        { class: "stacked tokens" },
        h("caption", { class: "label" }, live.view?.night ? "Links to tonight's game" : "Links to this scene"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "For"), h("th", { scope: "col" }, "Issued"), h("th", { scope: "col" }, "Expires"), h("th", { scope: "col" }, "Revoke"))),
        h(
          "tbody",
          {},
          reply.tokens.map((g) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, g.role === "player" ? nameOf(live.view, g.character) : g.role === "st" ? "Storyteller" : "Spectators"),
              cell("Issued", issuedAt(g.created_at)),
              cell("Expires", g.revoked ? "revoked" : expires(g.expires_at)),
              h(
                "td",
                { class: "controls" },
                g.revoked
                  ? ""
                  : g.token_id === live.welcome?.token_id
                    ? "this console"
                    : confirmButton(`Revoke ${who(g)}`, `Confirm: revoke ${who(g)}`, () => revoke(g), `Revoke ${who(g)}? Their page stops at once and the link never works again.`),
              ),
            ),
          ),
        ),
      ),
    );
  };
  const invite = async (body) => {
    const reply = await live.request({ type: "invite", ...body }, "invited");
    if (reply.type === "error") return said.replaceChildren(refusal(reply));
    said.replaceChildren();
    const link = `${location.origin}/play#token=${encodeURIComponent(reply.token)}`;
    const qr = await live.request({ type: "qr", text: link }, "qr");
    const who = reply.grant.role === "player" ? nameOf(live.view, reply.grant.character) : "Spectators";
    const box = h("div", { class: "qr", role: "img", "aria-label": `QR code of ${who}'s link` });
    const svg = qr.svg && new DOMParser().parseFromString(qr.svg, "image/svg+xml").querySelector("svg");
    if (svg) box.append(document.importNode(svg, true));
    const shown = h("input", { readonly: true, value: link, "aria-label": `${who}'s link` });
    const copied = h("div", { class: "outcome", "aria-live": "polite" });
    list.prepend(
      h(
        "div",
        { class: "invite" },
        box,
        h("div", { class: "invite-link" }, h("strong", {}, who), shown, h("button", { type: "button", onclick: () => copyLink(shown, copied) }, "Copy link"), copied, h("p", { class: "hint" }, `Issued ${issuedAt(reply.grant.created_at)}, ${expiry(reply.grant.expires_at)}.`)),
      ),
    );
    showTokens();
  };
  return h(
    "div",
    {},
    h(
      "form",
      { class: "row", onsubmit: (e) => (e.preventDefault(), character.value && invite({ role: "player", character: character.value })) },
      field("Invite the player of", character),
      inviteButton,
      h("button", { type: "button", class: "quiet", onclick: () => invite({ role: "spectator" }) }, "Invite spectators"),
      h("button", { type: "button", class: "quiet", onclick: showTokens }, "List links"),
    ),
    said,
    list,
    tokens,
  );
}

/** Add characters from sheet files: each file's outcome, a bad sheet's problems field by field. */
function sheetFiles(live) {
  const results = h("div", { class: "outcome", "aria-live": "polite" });
  const files = h("input", { type: "file", name: "sheets", accept: ".json,application/json", multiple: true });
  const add = async (e) => {
    e.preventDefault();
    results.replaceChildren();
    for (const file of files.files) {
      let sheets;
      try {
        const parsed = JSON.parse(await file.text());
        sheets = Array.isArray(parsed) ? parsed : [parsed];
      } catch (err) {
        results.append(h("div", {}, h("strong", {}, file.name), refusal({ message: `not JSON: ${err.message}` })));
        continue;
      }
      for (const sheet of sheets) {
        const reply = await live.send({ type: "add_character", character: sheet });
        const label = `${file.name}${sheets.length > 1 ? ` · ${sheet?.name || sheet?.id || "?"}` : ""}`;
        results.append(h("div", {}, h("strong", {}, label), reply.ok ? " added." : sheetRefusal(reply.error)));
      }
    }
  };
  return h("div", {}, h("form", { class: "row", onsubmit: add }, field("Add characters from sheet files (JSON: one sheet or a list)", files), h("button", { type: "submit" }, "Add")), results);
}

/** A refused sheet: each problem as the server words it for a player, one a line (no field paths). */
function sheetRefusal(error) {
  const problems = Object.values(error.fields || {});
  if (!problems.length) return refusal(error);
  const count = `${problems.length} ${problems.length === 1 ? "problem" : "problems"}`;
  return h("div", { class: "refusal", role: "alert" }, h("strong", {}, "Refused: "), `the sheet has ${count}:`, h("ul", { class: "fields" }, problems.map((what) => h("li", {}, what))));
}

function people(view) {
  return Object.values(view.characters).map((c) => [c.id, c.name, c.present]);
}

let npcChosen = null; // the NPC the declare form was last for, kept when it is drawn anew
let npcOpen = false; // and whether it was open

/** Declare a challenge for an NPC: the same form a player has, sent with `character`. */
function npcDeclare(live, view, npcs) {
  const who = select("npc", npcs.map((c) => [c.id, c.name]));
  if (npcs.some((c) => c.id === npcChosen)) who.value = npcChosen;
  const form = h("div", {}, declareForm(live, view, who.value, { forCharacter: true }));
  who.addEventListener("change", () => ((npcChosen = who.value), fill(form, declareForm(live, view, who.value, { forCharacter: true }))));
  const details = h("details", { open: npcOpen }, h("summary", {}, "Declare a challenge for an NPC"), field("For", who), form);
  details.addEventListener("toggle", () => (npcOpen = details.open));
  return details;
}

/** One character's row, hidden parts included, with its adjust form. */
function characterRow(live, view, c) {
  const pools = view.rules?.family === "pools";
  const ratings = (levels) => Object.entries(levels || {}).map(([name, n]) => `${title(name)} ${n}`).join(" · ") || "—";
  return h(
    "tr",
    { class: c.present ? "" : "gone" },
    h("th", { scope: "row" }, c.name, c.npc ? ` (NPC${c.sheet?.auto ? ", auto" : ""})` : ""),
    pools ? cell("Attributes", ratings(c.attributes)) : cell("Traits left", CATEGORIES.map((cat) => `${title(cat)} ${c.traits?.[cat] ?? 0}`).join(" · ")),
    pools ? cell("Skills", ratings(c.skills)) : cell("Lost tonight", (c.traits_lost || []).join(", ") || "—"),
    cell("Health", `${c.health ?? "–"} (${Object.entries(c.damage || {}).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ") || "unhurt"})`),
    cell("Willpower", String(c.willpower ?? "–")),
    cell("Conditions", conditionText(view, c)),
    h("td", { class: "controls" }, view.status === "open" && adjustForm(live, c), view.status === "open" && amendForm(live, c), view.status === "open" && removable(view, c) && removeButton(live, view, c)),
  );
}

/** Whether `remove_character` would take the character: present, and in no open challenge. */
function removable(view, c) {
  const open = Object.values(view.challenges).filter((ch) => !["resolved", "withdrawn"].includes(ch.status));
  return c.present && !open.some((ch) => [ch.challenger, ...(ch.targets || []), ...Object.keys(ch.mob || {})].includes(c.id));
}

function removeButton(live, view, c) {
  const out = outcome(`remove-${c.id}`);
  const send = () => sender(live, out)({ type: "remove_character", character: c.id });
  const here = view.title ? `“${view.title}”` : "this scene";
  if (ofNight && !c.npc) {
    // a character of the night goes back to the night with what it carries, to be sent on from there
    const label = `Take ${c.name} out of ${here} (back to the night, with what they carry)`;
    return h("div", {}, confirmButton(label, `Confirm: take ${c.name} out of ${here}`, send, `Take ${c.name} out of ${here}? They go back to the night between scenes, carrying what they lost and spent here; from the night's console you send them into another scene. What they did here stays in the log.`), out);
  }
  return h("div", {}, confirmButton(`Remove ${c.name}`, `Confirm: remove ${c.name}`, send, `Remove ${c.name} from the scene? They leave it for good; what they did stays in the log.`), out);
}

/** A table cell that says what it is when the table is stacked on a phone. */
function cell(label, ...children) {
  return h("td", { "data-label": label }, ...children);
}

function conditionText(view, c) {
  const k = c.conditions || {};
  return [
    ...markWords(view, c),
    escapeLine(view, c),
    k.moved_steps > 1 && `moved ${k.moved_steps}`,
    !c.present && "left the scene",
  ]
    .filter(Boolean)
    .map((part) => part.replace(/\.$/, "")) // "Sal escaped." reads "Sal escaped, left the scene" in a list
    .join(", ") || "—";
}

/** The conditions the Storyteller sets or clears by hand (`adjust`); `escaped` is only cleared (back in the fight). */
const CONDITIONS = ["no_exit", "incapacitated", "prone", "blinded", "hamstrung", "unconscious", "armor_mangled", "disarmed", "staked", "escaped"];

function adjustForm(live, c) {
  const out = outcome(`adjust-${c.id}`);
  const willpower = h("input", { type: "number", name: "willpower", value: 0, inputmode: "numeric" });
  const damage = h("input", { type: "number", name: "damage", value: 0, inputmode: "numeric" });
  const kind = select("damage_type", [["bashing", "bashing"], ["lethal", "lethal"], ["aggravated", "aggravated"]]);
  const restore = h("input", { name: "restore", autocomplete: "off", placeholder: "Brawny, Quick" });
  const reason = h("input", { name: "reason", autocomplete: "off", required: true, placeholder: "why" });
  const condition = select("condition", [["", "—"], ...CONDITIONS.map((n) => [n, n.replaceAll("_", " ")])]);
  const change = select("condition_change", [["set", "Set it"], ["clear", "Clear it"]]);
  const list = (text) => text.split(",").map((t) => t.trim()).filter(Boolean);
  return h(
    "div",
    {},
    h(
    "details",
    {},
    h("summary", {}, `Adjust ${c.name}`),
    h(
      "form",
      {
        class: "stack",
        onsubmit: (e) => {
          e.preventDefault();
          const changes = { willpower: Number(willpower.value) };
          if (Number(damage.value)) changes.damage = { [kind.value]: Number(damage.value) };
          if (restore.value.trim()) changes.restore_traits = list(restore.value);
          if (condition.value) changes[change.value === "set" ? "set_conditions" : "clear_conditions"] = [condition.value];
          sender(live, out, "Adjusted.")({ type: "adjust", character: c.id, changes, reason: reason.value.trim() });
        },
      },
      field("Willpower (+/-)", willpower),
      field("Damage (+ hurts, - heals)", damage),
      field("Damage type", kind),
      field("Restore lost Traits", restore),
      field("Condition", condition, "No exit, incapacitated, blinded …"),
      field("Set or clear the condition", change),
      field("Reason (kept in the log)", reason),
      h("button", { type: "submit" }, "Adjust"),
    ),
    ),
    out,
  );
}

/** Rounds: start and end, the order with ties to break, who has acted, extra action rounds; where
 * each acts on its own turn, the actions left, escapes, marks, and what the acting NPC may do. */
function roundPanel(live, view) {
  const out = outcome("round");
  const send = sender(live, out);
  const r = view.round;
  if (view.status === "closed") return h("p", {}, "The scene is closed: no more rounds; only disputes and rulings go on.");
  if (!view.rules?.rounds) return h("p", {}, `${rulesetName(view)} has no combat rounds here: challenges are declared as they come.`);
  if (!r || r.phase === "over") return startRound(view, r, send, out);
  const place = new Map(r.order.flat().map((w, i) => [w, i])); // the rows in the order they act
  const who = Object.values(view.characters).filter((c) => c.present).sort((a, b) => (place.get(a.id) ?? 1e9) - (place.get(b.id) ?? 1e9));
  const acting = r.turn.filter((w) => !view.characters[w]?.turn_done).map((w) => nameOf(view, w));
  const turns = budgeted(view); // a standard and a simple action each, on one's turn: no declarations
  const rows = who.map((c) => (turns ? [turnRow(view, c, send), failEscape(live, view, c)] : actionRow(view, c, send)));
  const columns = turns ? ["Character", "Actions left", "Turn"] : ["Character", "Action", "Initiative", "Actions left", "Turn", ""];
  const ordered = new Set((r.ordered || []).map(tieKey)); // ties the Storyteller ordered: they act in that order
  const ties = r.order.filter((group) => group.length > 1);
  const undeclared = who.filter((c) => !c.action);
  const spending = r.phase === "expending" ? who.filter((c) => !c.expended && c.conditions?.fair_escape !== "escaped") : [];
  const phase = r.phase === "declaring" ? "declaring actions" : r.phase === "expending" ? "expenditures" : r.turn_phase === "extra" ? (turns ? `Rage round ${r.extra}` : `extra action ${r.extra}`) : r.turn_phase === "end_of_turn" ? "end of turn" : "initiative";
  return h(
    "div",
    {},
    h("p", {}, `Round ${r.number}${r.first ? " (first of the fight)" : ""}${r.narrative ? " (narrative)" : ""}: ${phase}.${acting.length ? ` Now acting: ${acting.join(", ")}.` : r.phase === "declaring" ? "" : " Nobody is acting now."}`),
    r.order.length > 0 && h("p", {}, `Order: ${r.order.map((g) => g.map((w) => `${nameOf(view, w)} ${r.initiative[w]}`).join(ordered.has(tieKey(g)) ? ", then " : " = ")).join(" → ")}`),
    ties.map((group) =>
      ordered.has(tieKey(group))
        ? h("details", { class: "reorder" }, h("summary", {}, `You ordered the tie at ${r.initiative[group[0]]}: change it`), tieForm(view, group, send))
        : tieForm(view, group, send),
    ),
    r.phase === "declaring" && undeclared.length > 0 && actionFor(view, undeclared, send),
    r.phase === "expending" &&
      h(
        "div",
        { class: "expenditures" },
        h("p", {}, `Expenditures: waiting for ${spending.map((c) => c.name).join(", ") || "nobody"}; then initiative.`),
        h("div", { class: "choices" }, spending.map((c) => h("button", { type: "button", class: "quiet", onclick: () => send({ type: "expenditures_done", character: c.id }) }, `${c.name} is done`))),
      ),
    npcRoundMoves(view, send),
    h("div", { class: "scroll" }, h("table", { class: "stacked" }, h("tr", { class: "head" }, columns.map((t) => h("th", { scope: "col" }, t))), rows)),
    turns && npcTurns(view, send),
    confirmButton(`End round ${r.number}`, `Confirm: end round ${r.number}`, () => send({ type: "end_round" }), endingWords(view, who)),
    out,
  );
}

/** What ending the round now cuts short: who has not finished. */
function endingWords(view, who) {
  const r = view.round;
  const left = who.filter((c) => !c.turn_done && c.conditions?.fair_escape !== "escaped" && (r.phase !== "declaring" || !c.action)).map((c) => c.name);
  const open = openChallenges(view);
  return [`End round ${r.number} for everyone?`, left.length && `Not done yet: ${left.join(", ")}.`, open && `${open} challenge${open === 1 ? " is" : "s are"} still open.`].filter(Boolean).join(" ");
}

/** A tie's members, however ordered. */
function tieKey(group) {
  return [...group].sort().join(" ");
}

/** What the NPCs may do in the round outside a challenge, as the server offers it (dice rulesets):
 * a fair escape, feeding on the one held (their expenditures are done through the list above). */
function npcRoundMoves(view, send) {
  const found = Object.values(view.characters)
    .filter((c) => c.npc && c.present)
    .map((c) => [c, roundMoves(view, c.id, send, { forCharacter: true })])
    .filter(([, moves]) => moves);
  return found.length ? h("div", { class: "npc-round-moves" }, found.map(([c, moves]) => h("section", { "aria-label": `${c.name}'s round moves` }, h("h3", {}, `${c.name} may`), moves))) : null;
}

const ACTION_WORDS = { none: "nothing (defends)", challenge: "a test", move: "moves", full_round: "a full-round action", end_of_turn: "an end-of-turn action" };

/** A character in a round of declared actions: the action, initiative, actions left, its turn. */
function actionRow(view, c, send) {
  const r = view.round;
  const a = c.action;
  return h(
    "tr",
    { class: c.turn_done ? "turn-done" : r.turn.includes(c.id) ? "your-turn" : "" },
    h("th", { scope: "row" }, c.name),
    cell("Action", a ? `${ACTION_WORDS[a.kind] || a.kind}${a.category ? ` (${a.category})` : ""}${a.target ? ` → ${nameOf(view, a.target)}` : ""}${a.steps ? `, ${a.steps} steps` : ""}` : "not declared"),
    cell("Initiative", String(r.initiative[c.id] ?? "–")),
    cell("Actions left", String(c.actions_left ?? "–")),
    cell("Turn", c.turn_done ? "done" : r.turn.includes(c.id) ? "acting" : "—"),
    h("td", { class: "controls" }, r.turn.includes(c.id) && !c.turn_done ? endTurn(c, send) : ""),
  );
}

/** End a character's turn for them: asked first (a turn ended cannot be taken back, and the button
 * sits in a list of rows a thumb may brush). */
function endTurn(c, send) {
  return confirmButton(`End ${c.name}'s turn`, `Confirm: end ${c.name}'s turn`, () => send({ type: "end_turn", character: c.id }), `End ${c.name}'s turn? It cannot be taken back.`);
}

/** A character in a round of turns: its escape and marks, its actions left, its turn (to end). */
function turnRow(view, c, send) {
  const r = view.round;
  const acting = r.turn.includes(c.id) && !c.turn_done;
  const escape = escapeLine(view, c);
  const escaping = ["declared", "held"].includes(c.conditions?.fair_escape); // the ST's call follows, in the next row
  return h(
    "tr",
    { class: [acting && "your-turn", c.turn_done && "turn-done", escaping && "escaping"].filter(Boolean).join(" ") },
    h("th", { scope: "row" }, c.name, escape && h("div", { class: `escape ${c.conditions.fair_escape}` }, escape), markBadges(view, c)),
    cell("Actions left", actionsLeft(c) || "–", c.rage ? h("div", {}, `then ${rageRounds(c)}`) : ""),
    h(
      "td",
      { "data-label": "Turn", class: "controls" },
      c.conditions?.fair_escape === "escaped" ? "escaped" : c.turn_done ? "done" : acting ? endTurn(c, send) : "—",
    ),
  );
}

/** Under an escaping character's row, the Storyteller's call: the escape fails (`adjust`
 * `fail_escape`), for a Mental or Social challenge won against the escaper's Physical attribute,
 * which the engine cannot tell from the rest (bns:fair-escape-blocked). Null: not escaping. */
function failEscape(live, view, c) {
  if (!["declared", "held"].includes(c.conditions?.fair_escape)) return null;
  const out = outcome(`fail-escape-${c.id}`);
  const reason = h("input", { name: "reason", autocomplete: "off", required: true, maxlength: 200, placeholder: "Dominate: he stays" });
  const submit = (e) => {
    e.preventDefault();
    sender(live, out)({ type: "adjust", character: c.id, changes: { fail_escape: true }, reason: reason.value.trim() });
  };
  return h(
    "tr",
    { class: "escape-call" },
    h(
      "td",
      { colspan: 3 },
      h(
        "form",
        { class: "row compact", "aria-label": `Fail ${c.name}'s escape`, onsubmit: submit },
        field(`Why ${c.name}'s escape fails (kept in the log)`, reason, "A Mental or Social challenge won against their Physical attribute"),
        h("button", { type: "submit" }, `Fail ${c.name}'s escape`),
      ),
      out,
    ),
  );
}

/** Start the next round: a new fight or not, and Rage rounds by character (optional). */
function startRound(view, r, send, out) {
  const newFight = h("input", { type: "checkbox", name: "new_fight" });
  const narrative = view.rules?.family === "dice" && h("input", { type: "checkbox", name: "narrative" });
  const present = Object.values(view.characters).filter((c) => c.present);
  const rage = present.map((c) => [c.id, h("input", { type: "number", name: `rage-${c.id}`, min: 0, max: 5, value: 0, inputmode: "numeric" }), c.name]);
  const submit = (e) => {
    e.preventDefault();
    const body = { type: "start_round", new_fight: newFight.checked };
    const rounds = Object.fromEntries(rage.filter(([, box]) => Number(box.value) > 0).map(([id, box]) => [id, Number(box.value)]));
    if (Object.keys(rounds).length) body.rage = rounds;
    if (narrative?.checked) body.narrative = true;
    send(body);
  };
  return h(
    "div",
    {},
    r && h("p", {}, `Round ${r.number} is over.`),
    h(
      "form",
      { class: "row", onsubmit: submit },
      h("label", { class: "check" }, newFight, " A new fight (surprise possible again)"),
      narrative && h("label", { class: "check" }, narrative, " A narrative round (against NPCs: each rolls against your difficulty)"),
      present.length > 0 && h("details", { class: "rage" }, h("summary", {}, "Rage rounds (optional)"), h("div", { class: "pair" }, rage.map(([, box, name]) => field(`${name}'s Rage rounds`, box)))),
      h("button", { type: "submit" }, `Start round ${(r?.number || 0) + 1}`),
    ),
    out,
  );
}

/** What the NPCs may do now: the acting one's actions, "will attack" one escaping, help offered. */
function npcTurns(view, send) {
  const npcs = Object.values(view.characters).filter((c) => c.npc && c.present);
  const parts = npcs.flatMap((c) => {
    const found = [];
    if (mayIntend(view, c.id)) found.push(intendButton(view, c.id, send, { forCharacter: true }));
    found.push(offers(view, c.id, send, { forCharacter: true }));
    if (actsNow(view, c.id) && (c.actions.standard || c.actions.simple)) {
      found.push(h("h3", {}, `${c.name} acts`), turnControls(view, c.id, send, { forCharacter: true }));
      if (c.actions.standard > 0) found.push(assistForm(view, c.id, send, { forCharacter: true }));
    }
    return found.filter(Boolean);
  });
  return parts.length ? h("div", { class: "npc-turns" }, parts) : null;
}

/** Declare an action for a character (an NPC, or a player away from the table). */
function actionFor(view, undeclared, send) {
  const character = select("character", undeclared.map((c) => [c.id, c.name]));
  const kind = select("kind", [["none", "Nothing (defend)"], ["challenge", "An action with a test"], ["move", "Only move"], ["full_round", "A full-round action"], ["end_of_turn", "An end-of-turn action"]]);
  const category = select("category", CATEGORIES.map((c) => [c, title(c)]));
  const target = select("target", [["", "—"], ...Object.values(view.characters).filter((c) => c.present).map((c) => [c.id, c.name])]);
  const steps = h("input", { type: "number", name: "steps", min: 0, max: 6, value: 0, inputmode: "numeric" });
  return h(
    "form",
    {
      class: "row",
      onsubmit: (e) => {
        e.preventDefault();
        const action = { kind: kind.value, steps: Number(steps.value) };
        if (["challenge", "end_of_turn"].includes(kind.value)) action.category = category.value;
        if (target.value) action.target = target.value;
        send({ type: "declare_action", character: character.value, action });
      },
    },
    field("Declare the action of", character),
    field("Action", kind),
    field("Category", category),
    field("Against", target),
    field("Steps they move this round", steps, "Up to 3 with a test, 6 without one, none with a full-round action"),
    h("button", { type: "submit" }, "Declare their action"),
  );
}

/** Break a tie of initiative: who resolves first. */
function tieForm(view, group, send) {
  const picks = group.map((_, i) => select(`place-${i}`, group.map((w) => [w, nameOf(view, w)])));
  picks.forEach((p, i) => (p.value = group[i]));
  return h(
    "form",
    { class: "row", onsubmit: (e) => (e.preventDefault(), send({ type: "order", characters: picks.map((p) => p.value) })) },
    picks.map((p, i) => field(`${i + 1}${["st", "nd", "rd"][i] || "th"} to resolve`, p)),
    h("button", { type: "submit" }, `Order the tie at ${view.round.initiative[group[0]]}`),
  );
}

/** Record a test seen at the table in one step; withdraw. */
function stControls(live, view, ch) {
  const out = outcome(`challenge-${ch.id}`);
  const send = async (body) => {
    const reply = await sender(live, out)(body);
    if (reply.ok) echo(out, "challenges"); // the card may leave the open ones: say it above them too
    return reply;
  };
  const sides = [ch.challenger, defenderOf(ch)];
  if (ch.status === "resolved" || ch.status === "withdrawn") return null;
  // rock, paper, scissors for everyone; a gesture (Bomb) only for a side whose sheet grants it
  const plain = ["rock", "paper", "scissors"];
  const signs = (w) => [...plain, ...Object.keys(SIGN_LABELS).filter((s) => !plain.includes(s) && s !== "random" && (view.characters[w]?.sheet?.gestures || []).includes(s))];
  const picks = sides.map((w) => select(`sign-${w}`, signs(w).map((s) => [s, SIGN_LABELS[s]])));
  const dice = view.rules?.family === "dice";
  // as record_test accepts it: both have bid, no Trait is owed, and no sealed throw is in yet
  const ready = ["bidding", "throwing"].includes(ch.status) && Object.keys(ch.owed || {}).length === 0;
  const recordable = ready && (dice || (ch.thrown || []).length === 0);
  const pair = `${nameOf(view, ch.challenger)}${ch.targets?.length ? ` → ${ch.targets.map((w) => nameOf(view, w)).join(", ")}` : ""}`;
  return h(
    "section",
    { class: "st-controls", "aria-label": `Storyteller's controls for ${ch.id}` },
    dice && recordable && diceForms(view, ch, send),
    !dice && recordable &&
      h(
        "form",
        {
          class: "row",
          onsubmit: (e) => (e.preventDefault(), send({ type: "record_test", challenge: ch.id, signs: Object.fromEntries(sides.map((w, i) => [w, picks[i].value])) })),
        },
        sides.map((w, i) => field(`${nameOf(view, w)} threw`, picks[i])),
        h("button", { type: "submit" }, "Record the test"),
      ),
    !dice && ready && !recordable && h("p", { class: "hint" }, `A sealed throw is in: ${ch.thrown.map((w) => nameOf(view, w)).join(" and ")} threw on their phone, so the test is thrown there, not recorded here.`),
    confirmButton(`Withdraw ${pair}`, `Confirm: withdraw ${pair}`, () => send({ type: "withdraw", challenge: ch.id }), `Withdraw ${pair}? It stops where it is, and cannot be taken back.`),
    out,
  );
}

/** Dice rolled by hand at the table (dice rulesets): the faces for each side still to roll, entered
 * for it; a narrative test's difficulty, and the rerolls its NPC makes on a success. */
function diceForms(view, ch, send) {
  const sides = [ch.challenger, defenderOf(ch)].filter((w) => w !== "st" && !(ch.rolled || []).includes(w));
  const npc = ch.kind === "static" && ch.targets[0] ? view.characters[ch.targets[0]] : null;
  const rerolls = npc?.sheet?.rerolls || 0;
  const parse = (text) => text.split(/[\s,]+/).filter(Boolean).map(Number);
  return h(
    "div",
    { class: "dice-entry" },
    ch.difficulty !== undefined && ch.difficulty !== null && h("p", {}, `Difficulty ${ch.difficulty}${npc ? ` (${npc.name}${rerolls ? `: rerolls ${rerolls} success${rerolls === 1 ? "" : "es"}` : ""})` : ""}.`),
    sides.map((w) => {
      const values = h("input", { name: `values-${w}`, autocomplete: "off", inputmode: "numeric", required: true, placeholder: "1 3", pattern: "[1-3 ,]+" });
      const again = rerolls ? h("input", { name: `rerolls-${w}`, autocomplete: "off", inputmode: "numeric", placeholder: "2" }) : null;
      const offer = ch.to_roll?.[w];
      const ticks = (offer?.sources || []).map((source) => ({ source, box: h("input", { type: "checkbox", name: `source-${w}` }) }));
      const count = h("small", { class: "hint" });
      const counted = () => {
        const n = (offer?.dice || 1) + ticks.filter((t) => t.box.checked).length;
        count.textContent = `${n} d3${n === 1 ? "" : "s"} to enter${offer ? ` (${offer.why}; each retest named adds one)` : ""}`;
      };
      ticks.forEach((t) => t.box.addEventListener("change", counted));
      counted();
      const submit = (e) => {
        e.preventDefault();
        const body = { type: "roll", challenge: ch.id, character: w, values: parse(values.value) };
        const retests = ticks.filter((t) => t.box.checked).map((t) => t.source);
        if (retests.length) body.retests = retests;
        if (again && again.value.trim()) body.rerolls = parse(again.value);
        send(body);
      };
      return h(
        "form",
        { class: "row compact", "aria-label": `${nameOf(view, w)}'s dice`, onsubmit: submit },
        ticks.length > 0 &&
          h(
            "fieldset",
            { class: "sources" },
            h("legend", {}, `Retests ${nameOf(view, w)} names (each one more die)`),
            ticks.map((t) => h("label", { class: "check" }, t.box, ` ${sourceLabel(t.source)}`)),
          ),
        field(`${nameOf(view, w)} rolled (d3 faces)`, values, "Rolled by hand at the table"),
        count,
        again && field("Its rerolls", again),
        h("button", { type: "submit" }, `Enter ${nameOf(view, w)}'s dice`),
      );
    }),
  );
}

const steps = new Map(); // event seq -> its step ({seq, type, data, summary}), fetched once for a dispute

/** The step an event was, in the timeline's own words: from the timeline on the page, else asked
 * of the server (`history`), then drawn into every place waiting for it. */
function disputedStep(live, seq) {
  const known = steps.get(seq) || live.timeline.find((t) => t.seq === seq);
  if (known) return known;
  if (!steps.has(seq)) {
    steps.set(seq, null);
    live.request({ type: "history", before: seq + 1, limit: 1 }, "history").then((page) => {
      const i = (page.events || []).findIndex((e) => e.seq === seq);
      steps.set(seq, i < 0 ? { seq, summary: `Step ${seq} could not be fetched: see it in the replay.` } : { ...page.events[i], summary: page.summaries?.[i] || page.events[i].type });
      live.changed();
    });
  }
  return null;
}

/** The challenge an event belongs to, as this console holds it. */
function challengeOf(live, view, step) {
  const cid = step?.data?.challenge;
  return cid ? view.challenges[cid] || live.older[cid] || null : null;
}

/** Open disputes, each with the step in words and a ruling form naming the sides; a ruling on any
 * step chosen in the timeline; the rulings made, each with its what-if the other way. */
function disputes(live, view) {
  const open = view.disputes.filter((d) => d.status === "open");
  const chosen = ruleOn !== null && !open.some((d) => d.event === ruleOn) ? ruleOn : null;
  return h(
    "div",
    {},
    open.length === 0 && chosen === null && h("p", {}, "No open dispute."),
    chosen !== null &&
      h(
        "article",
        { class: "challenge open dispute rule-any", dataset: { step: String(chosen) } },
        h("h3", { id: "rule-any-h", tabindex: -1 }, `Rule on step ${chosen}`),
        stepBox(live, view, chosen),
        rulingForm(live, view, chosen, `rule-any-${chosen}`),
        h("button", { type: "button", class: "quiet", onclick: () => ((ruleOn = null), setTimeout(() => live.changed(), 20)) }, "Put it away"),
      ),
    open.map((d) =>
      h(
        "article",
        { class: "challenge open dispute" },
        h("h3", {}, `${nameOf(view, d.by)} disputes step ${d.event}`),
        stepBox(live, view, d.event),
        h("p", {}, `${nameOf(view, d.by)}: “${d.reason}”`),
        rulingForm(live, view, d.event, `dispute-${d.id}`),
      ),
    ),
    view.rulings.length > 0 &&
      h(
        "ul",
        { class: "rulings" },
        view.rulings.map((r) => h("li", {}, `Ruling on step ${r.event}: `, rulingWords(live, view, r), otherWay(live, view, r.event, `ruling-${r.event}-${r.seq || ""}`))),
      ),
  );
}

/** A ruling in words: its challenge's account's ("The Storyteller overturned the result: Sam had
 * cover", with what it changed), else, a ruling on a step of no challenge, its record's. */
function rulingWords(live, view, r) {
  const ch = r.challenge ? view.challenges[r.challenge] || live.older[r.challenge] : null;
  const told = ch?.account?.rulings?.find((x) => x.id === r.id);
  if (!told) return `${r.decision} — ${r.why || r.reason}`;
  return [told.words, told.changed && ` — ${told.changed}`];
}

/** The step in words, the challenge it belongs to and how it ended, and a link to the replay. */
function stepBox(live, view, seq) {
  const step = disputedStep(live, seq);
  const ch = challengeOf(live, view, step);
  const a = ch?.account;
  return [
    h("blockquote", { class: "step" }, step ? step.summary : "Fetching the step…"),
    a && h("p", { class: "hint" }, "In the challenge ", h("strong", {}, a.title), ": ", a.verdict ? a.verdict.words : a.now),
    h("p", {}, h("a", { href: replayLink(live, seq), target: "_blank" }, "See it in the replay")),
  ];
}

/** Who won a step's challenge now, and who would have won the other way (null: no challenge
 * decided with a winner, so no "other way"). */
function sidesOf(live, view, seq) {
  const ch = challengeOf(live, view, disputedStep(live, seq));
  const decided = ch && ch.status === "resolved";
  const names = ch ? { challenger: nameOf(view, ch.challenger), defender: nameOf(view, defenderOf(ch)) } : null;
  const now = ch?.outcome?.winner;
  const other = decided && now === "challenger" ? "defender" : decided && now === "defender" ? "challenger" : null;
  return { ch, decided, names, other };
}

/** The ruling form for step `seq`: uphold, overturn (naming who would win), amend (naming the
 * sides); "Rule" asks first, saying what it will do; and the what-if the other way. */
function rulingForm(live, view, seq, key) {
  const out = outcome(key);
  const { decided, names, other } = sidesOf(live, view, seq);
  const decisions = [["uphold", "Uphold: it stands"]];
  if (other) decisions.push(["overturn", `Overturn: ${names[other]} wins instead`]);
  if (decided) decisions.push(["amend", "Amend: name the winner"]);
  const decision = select("decision", decisions);
  const winner = decided && select("winner", [["challenger", `${names.challenger} wins`], ["defender", `${names.defender} wins`], ["none", "Nobody (a draw)"]]);
  const winnerField = winner && field("Winner", winner);
  if (winnerField) {
    winnerField.hidden = true;
    decision.addEventListener("change", () => (winnerField.hidden = decision.value !== "amend"));
  }
  const reason = h("input", { name: "reason", autocomplete: "off", required: true, placeholder: "The throw stands" });
  const asking = h("div", { class: "confirm" });
  const submit = h("button", { type: "submit" }, "Rule");
  const form = h(
    "form",
    {
      class: "row",
      onsubmit: (e) => {
        e.preventDefault();
        const body = { type: "rule", event: seq, decision: decision.value, reason: reason.value.trim() };
        if (decision.value === "amend") body.correction = { winner: winner.value };
        const what = decision.selectedOptions[0]?.textContent || decision.value;
        const amended = decision.value === "amend" ? ` (${winner.selectedOptions[0]?.textContent})` : "";
        const back = () => (asking.replaceChildren(), (submit.hidden = false), submit.focus());
        const yes = h("button", { type: "button", class: "danger", onclick: () => (back(), sender(live, out, "Ruled.")(body).then((reply) => reply.ok && !key.startsWith("rule-any") && echo(out, "disputes"))) }, `Confirm: rule on step ${seq}`);
        submit.hidden = true;
        fill(asking, h("p", { class: "warn" }, `Rule on step ${seq}: ${what}${amended}? Reason: “${body.reason}”. The ruling goes into the log for everyone, and cannot be taken back.`), h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")));
        yes.focus();
      },
    },
    field("Ruling", decision),
    winnerField,
    field("Reason (kept in the log)", reason),
    submit,
  );
  return h("div", {}, form, asking, out, otherWay(live, view, seq, `${key}-what-if`));
}

/** "What if this had gone the other way": fork the scene at its head (every step kept) and, in the
 * fork, overturn the step's challenge; then a link to the fork's console. Only for a step of a
 * challenge decided with a winner. */
function otherWay(live, view, seq, key) {
  const { other, names } = sidesOf(live, view, seq);
  if (!other || view.forked_from) return null;
  const out = h("div", { class: "outcome", "aria-live": "polite" });
  const made = (token) =>
    h("p", { class: "done", role: "status" }, `A what-if of ${view.title ? `“${view.title}”` : "this scene"} with every step so far, where ${names[other]} wins step ${seq} instead (nothing here changes the real scene): `, h("a", { href: `/st#token=${encodeURIComponent(token)}`, target: "_blank" }, "open its console"));
  if (forks.has(key)) out.append(made(forks.get(key)));
  const go = async (button) => {
    button.disabled = true;
    out.replaceChildren(h("p", { role: "status" }, "Forking…"));
    const reply = await live.request({ type: "fork", at: view.version }, "forked");
    if (reply.type === "error") return (button.disabled = false), out.replaceChildren(refusal(reply));
    const fork = new Live(reply.token, { subscribe: false });
    const ruled = await new Promise((resolve) => {
      const tryIt = async () => {
        if (fork.status !== "live") return;
        fork.removeEventListener("status", tryIt);
        resolve(await fork.send({ type: "rule", event: seq, decision: "overturn", reason: `What if: ${names[other]} had won step ${seq}` }));
      };
      fork.addEventListener("status", tryIt);
      tryIt();
    });
    fork.close();
    button.disabled = false;
    if (!ruled.ok) return out.replaceChildren(refusal(ruled.error));
    forks.set(key, reply.token);
    document.querySelector(`.other-way[data-key="${CSS.escape(key)}"] .outcome`)?.replaceChildren(made(reply.token));
    out.replaceChildren(made(reply.token));
  };
  const button = h("button", { type: "button", class: "quiet", onclick: () => go(button) }, "What if this had gone the other way");
  return h("div", { class: "other-way", dataset: { key } }, button, out);
}

/** Fork a what-if; download the audit and the export. */
function tools(live, view) {
  const out = h("div", { class: "outcome" });
  const at = h("input", { type: "number", name: "at", min: 1, required: true, placeholder: "the last event to keep", inputmode: "numeric" });
  const fetchDoc = async (body) => {
    const doc = await live.request(body, "document");
    if (doc.type === "error") return out.replaceChildren(refusal(doc));
    download(doc.name, doc.media_type, doc.text);
    out.replaceChildren(h("p", { role: "status" }, `Downloaded ${doc.name}.`));
  };
  return h(
    "div",
    {},
    h(
      "form",
      {
        class: "row",
        onsubmit: async (e) => {
          e.preventDefault();
          const reply = await live.request({ type: "fork", at: Number(at.value) }, "forked");
          if (reply.type === "error") return out.replaceChildren(refusal(reply));
          out.replaceChildren(h("p", {}, `What-if of ${view.title ? `“${view.title}”` : "this scene"}, from step ${at.value}: steps 1–${at.value}, then its own way. `, h("a", { href: `/st#token=${encodeURIComponent(reply.token)}`, target: "_blank" }, "Open its console")));
        },
      },
      field("Fork a what-if after event #", at),
      h("button", { type: "submit" }, "Fork"),
    ),
    h(
      "div",
      { class: "choices" },
      h("button", { type: "button", onclick: () => fetchDoc({ type: "audit", format: "html" }) }, "Download the audit (HTML)"),
      h("button", { type: "button", onclick: () => fetchDoc({ type: "export" }) }, "Download the export (JSON lines)"),
      h("a", { href: replayLink(live), target: "_blank" }, "Open the replay viewer"),
    ),
    out,
  );
}


// -- a game night -------------------------------------------------------------------------------

/** The console of a scene of the night, with the night's key. */
function sceneConsole(live, scene) {
  return `/st?scene=${encodeURIComponent(scene)}#token=${encodeURIComponent(live.token)}`;
}

/** The night's ledger (`ledger`: a JSON document), or {error}. */
async function fetchLedger(live) {
  const doc = await live.request({ type: "ledger" }, "document");
  if (doc.type === "error") return { error: doc };
  try {
    return JSON.parse(doc.text);
  } catch {
    return { error: { message: "The ledger could not be read; try again." } };
  }
}

/** Ask for the ledger again after each new step, at most one request at a time. */
function ledgerKeeper(live, draw) {
  let asked = -1;
  let busy = false;
  const refresh = async (force = false) => {
    if (busy || live.status !== "live" || (!force && asked === live.lastSeq)) return;
    busy = true;
    asked = live.lastSeq;
    const book = await fetchLedger(live);
    busy = false;
    draw(book);
    if (asked !== live.lastSeq) refresh();
  };
  return refresh;
}

/** The night's console: its scenes, who is where (and moving them), each character's ledger,
 * invitations (one link a player for the whole night) and the night's timeline. */
function startNight(live) {
  const header = h("header", { class: "top" });
  const regions = {
    scenes: h("section", { id: "scenes", "aria-labelledby": "scenes-h" }),
    where: h("section", { id: "where", "aria-labelledby": "where-h" }),
    ledger: h("section", { id: "ledger", "aria-labelledby": "ledger-h" }),
    invitations: h("section", { id: "invitations", "aria-labelledby": "inv-h" }),
    timeline: h("section", { id: "timeline", "aria-labelledby": "tl-h" }),
  };
  const titles = { scenes: "Scenes", where: "Who is where", ledger: "Ledgers", invitations: "Invitations", timeline: "Timeline" };
  const nav = h("nav", { class: "sections", "aria-label": "Console sections" }, Object.entries(titles).map(([id, text]) => h("a", { href: `#${id}` }, text)));
  const problems = h("div", { class: "problems" });
  fill(app, header, nav, problems, h("main", {}, Object.values(regions)));
  live.addEventListener("problem", (e) => fill(problems, refusal(e.error)));
  const region = redraws();
  const sceneList = h("div", {});
  const whereList = h("div", {});
  const books = h("div", { class: "ledgers" });
  const bookSaid = h("div", { class: "outcome", "aria-live": "polite" });
  let book = null;
  const drawBooks = (got) => {
    if (got?.error) return fill(bookSaid, refusal(got.error));
    book = got;
    bookSaid.replaceChildren();
    region(books, JSON.stringify(got), () => fill(books, ledgers(live, got)));
  };
  const refresh = ledgerKeeper(live, drawBooks);
  const follow = sceneWatch(live, () => refresh(true));
  fill(regions.scenes, h("h2", { id: "scenes-h" }, "Scenes tonight"), sceneList, h("div", { class: "night-actions" }));
  fill(regions.where, h("h2", { id: "where-h" }, "Who is where"), whereList);
  fill(
    regions.ledger,
    h("h2", { id: "ledger-h" }, "Ledgers: what each character lost tonight, and where"),
    h("button", { type: "button", class: "quiet", onclick: () => refresh(true) }, "Bring the ledgers up to date"),
    bookSaid,
    books,
  );
  fill(regions.invitations, h("h2", { id: "inv-h" }, "Invitations"), h("p", { class: "hint" }, "One link a player for the whole night: it follows their character from scene to scene."), invitations(live));
  fill(regions.timeline, h("h2", { id: "tl-h" }, "Tonight's timeline"), timeline([], null, live));
  let actionsBuilt = null;

  const draw = () => {
    const view = live.view;
    fill(
      header,
      h("h1", {}, "Storyteller"),
      h("p", { class: "scene" }, view ? `“${view.title || "Tonight's game"}” · game night · ${rulesetName(view)}${view.status === "closed" ? " · over" : ""}` : ""),
      connection(live),
    );
    if (!view) return;
    document.title = `${view.title || "Game night"} · Storyteller · Justicar`;
    const scenes = view.night?.scenes || [];
    const where = view.night?.where || {};
    const people = Object.values(view.characters);
    region(sceneList, JSON.stringify([scenes, people.map((c) => [c.id, c.name])]), () => fill(sceneList, sceneCards(live, view, scenes)));
    const open = scenes.filter((s) => s.open);
    region(whereList, JSON.stringify([where, open, people.map((c) => [c.id, c.name, c.npc]), view.status, book?.ledgers?.map((b) => [b.character, b.now])]), () => fill(whereList, whoIsWhere(live, view, open, book)));
    const key = JSON.stringify([view.status, open.length]);
    if (actionsBuilt !== key) {
      actionsBuilt = key;
      fill(regions.scenes.querySelector(".night-actions"), nightActions(live, view, open));
    }
    const players = people.filter((c) => !c.npc).map((c) => [c.id, c.name]);
    region(regions.invitations.querySelector("select[name=character]"), JSON.stringify(players), () => {
      const choice = regions.invitations.querySelector("select[name=character]");
      const kept = choice.value;
      fill(choice, h("option", { value: "" }, players.length ? "Choose a character" : "No character registered yet"), players.map(([id, name]) => h("option", { value: id }, name)));
      choice.value = players.some(([id]) => id === kept) ? kept : "";
      choice.dispatchEvent(new Event("filled"));
    });
    grow(regions.timeline.querySelector("ol"), live.timeline);
    follow(open.map((s) => s.id));
    refresh();
  };
  live.addEventListener("change", draw);
  live.addEventListener("status", draw);
  draw();
}

/** The scenes of the night change the ledgers (and who lost what) without a step in the night's own
 * stream: a socket on each open scene of the night (as a player's page follows its scene), and the
 * ledger asked again when one of them moves, once things settle (never more than one request at a
 * time: `ledgerKeeper`). Idle scenes cost nothing. `follow(ids)` keeps a socket on each of `ids`. */
function sceneWatch(live, changed) {
  const watching = new Map(); // scene -> its Live
  let timer = null;
  const soon = () => (clearTimeout(timer), (timer = setTimeout(changed, LEDGER_SETTLE)));
  return (ids) => {
    for (const [id, scene] of watching) if (!ids.includes(id)) (scene.close(), watching.delete(id));
    for (const id of ids) {
      if (watching.has(id)) continue;
      const scene = new Live(live.token, { scene: id });
      scene.addEventListener("change", soon);
      watching.set(id, scene);
    }
  };
}

/** The night's scenes, in the order they opened: open or closed, who is in each, its console. */
function sceneCards(live, view, scenes) {
  if (!scenes.length) return h("p", { class: "none" }, "No scene yet: open the first one below.");
  return h(
    "ul",
    { class: "night-scenes" },
    scenes.map((s) =>
      h(
        "li",
        { class: s.open ? "open" : "closed", dataset: { scene: s.id } },
        h("strong", {}, `“${s.title || s.id}”`),
        h("span", { class: `state ${s.open ? "open" : "closed"}` }, s.open ? " · open" : " · closed"),
        h("p", { class: "in" }, s.characters.length ? `In it: ${s.characters.map((w) => nameOf(view, w)).join(", ")}` : s.open ? "Nobody in it now." : "Over."),
        h("a", { href: sceneConsole(live, s.id), target: "_blank" }, `Open the console of “${s.title || s.id}”`),
      ),
    ),
  );
}

/** Who is where; a character between scenes may be sent into an open scene (confirmed). */
function whoIsWhere(live, view, open, book) {
  const where = view.night?.where || {};
  const people = Object.values(view.characters);
  if (!people.length) return h("p", { class: "none" }, "Nobody is registered tonight.");
  for (const c of people) {
    // a confirmation is true while the character is where it sent them: once they are elsewhere, it goes
    const now = where[c.id]?.scene ?? null;
    if (movedTo.has(c.id) && movedTo.get(c.id) !== now) (notes.delete(`move-${c.id}`), movedTo.delete(c.id));
  }
  return h(
    "ul",
    { class: "night-people" },
    people.map((c) => {
      const at = where[c.id];
      const mine = book?.ledgers?.find((b) => b.character === c.id);
      const lost = (mine?.now?.lost || c.traits_lost?.map((t) => ({ trait: t })) || []).map((l) => l.trait);
      return h(
        "li",
        { dataset: { character: c.id } },
        h("strong", {}, c.name, c.npc ? " (NPC)" : ""),
        h("span", { class: "at" }, at ? ` · in “${at.title || at.scene}”` : " · between scenes"),
        lost.length ? h("p", { class: "lost" }, `Lost tonight: ${lost.join(", ")}`) : null,
        view.status === "open" && moveForm(live, view, c, open, at),
      );
    }),
  );
}

/** Send a character into an open scene: "Move…" asks which and says what it will do first. A
 * character in a scene now is first taken out of it (`remove_character` on that scene: they go
 * back to the night with what they carry), then sent on once the night has them back: one
 * confirmation naming both scenes. No scene is chosen to begin with (never the one just left). */
function moveForm(live, view, c, open, at) {
  const out = outcome(`move-${c.id}`);
  const places = open.filter((s) => s.id !== at?.scene);
  const from = at ? `“${at.title || at.scene}”` : null;
  if (!places.length) return h("div", {}, h("p", { class: "hint" }, at ? `No other scene is open: open one to move ${c.name} into.` : "No scene is open: open one to send them into."), out);
  const to = select("to", [["", "Choose a scene"], ...places.map((s) => [s.id, `“${s.title || s.id}”`])]);
  const box = h("div", { class: "confirm" });
  const first = h("button", { type: "button", disabled: true }, `Move ${c.name}`);
  to.addEventListener("change", () => (first.disabled = !to.value));
  const back = () => (fill(box, first), first.focus());
  const say = sender(live, out);
  const move = async (dest) => {
    if (at) {
      const left = await sender(live, out)({ type: "remove_character", character: c.id, scene: at.scene });
      if (!left.ok) return;
      if (!(await backInTheNight(live, c.id))) return out.replaceChildren(refusal({ message: `${c.name} left ${from}, but the night has not had them back yet: send them on in a moment.` }));
    }
    movedTo.set(c.id, dest); // once they are back in the night: the confirmation to come holds while they are there
    const moved = await say({ type: "move_character", character: c.id, to: dest });
    if (!moved.ok) movedTo.delete(c.id);
  };
  first.addEventListener("click", () => {
    if (!to.value) return;
    const title = to.selectedOptions[0]?.textContent || to.value;
    const dest = to.value;
    const yes = h("button", { type: "button", class: "danger", onclick: () => (fill(box, first), move(dest)) }, at ? `Confirm: move ${c.name} from ${from} into ${title}` : `Confirm: move ${c.name} into ${title}`);
    const words = at
      ? `Take ${c.name} out of ${from} and send them into ${title}? They carry what they lost and spent tonight; their player's page follows.`
      : `Send ${c.name} into ${title}? They take with them what they carry tonight; their player's page follows.`;
    fill(box, h("p", { class: "warn" }, words), h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")));
    yes.focus();
  });
  fill(box, first);
  return h("div", { class: "move" }, field(at ? `Move ${c.name} from ${from} to` : `Send ${c.name} into`, to), box, out);
}

/** Wait (at most 10 s) until the night's view has the character between scenes. */
function backInTheNight(live, who) {
  const free = () => !live.view?.night?.where?.[who];
  if (free()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = () => free() && finish(true);
    const timer = setTimeout(() => finish(false), 10000);
    const finish = (ok) => (clearTimeout(timer), live.removeEventListener("change", check), resolve(ok));
    live.addEventListener("change", check);
  });
}

/** A new scene of the night; closing the night (confirmed). */
function nightActions(live, view, open) {
  const out = outcome("night");
  const newTitle = h("input", { name: "title", autocomplete: "off", placeholder: "The parking lot" });
  const created = h("div", { class: "outcome", "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "row",
      onsubmit: async (e) => {
        e.preventDefault();
        const reply = await live.request({ type: "create_scene", ruleset: view.ruleset, title: newTitle.value.trim() }, "scene_created");
        if (reply.type === "error") return created.replaceChildren(refusal(reply));
        const name = newTitle.value.trim() ? `“${newTitle.value.trim()}”` : "The new scene";
        newTitle.value = "";
        created.replaceChildren(done(`${name} is open tonight.`), h("a", { href: sceneConsole(live, reply.scene), target: "_blank" }, `Open the console of ${name}`));
      },
    },
    field("Title of a new scene", newTitle),
    h("button", { type: "submit" }, "Open a new scene"),
  );
  if (view.status !== "open") return h("p", { class: "hint" }, "The night is over: nothing more happens in it.");
  return h(
    "div",
    {},
    form,
    created,
    open.length
      ? h("p", { class: "hint" }, `The night closes once every scene of it is closed (open: ${open.map((s) => `“${s.title || s.id}”`).join(", ")}).`)
      : confirmButton("Close the night", "Confirm: close the night", () => sender(live, out)({ type: "close_game" }), "Close the night? What was lost tonight is back at the next game; nothing more happens in this one."),
    out,
  );
}

/** Each character's ledger: what it carries now, then each loss and gain where it happened,
 * linked to the step (the replay of that scene at that step), with the rule and its book. */
function ledgers(live, book) {
  if (!book.ledgers?.length) return h("p", { class: "none" }, "Nobody is registered tonight.");
  return book.ledgers.map((l) =>
    h(
      "details",
      { class: "ledger", dataset: { character: l.character }, open: l.entries.length > 0 },
      h("summary", {}, h("strong", {}, l.name), ` · ${carriedWords(l.now)}`),
      l.entries.length ? h("ol", { class: "entries" }, l.entries.map((e) => entryItem(live, book, e))) : h("p", { class: "none" }, "Nothing lost or gained tonight."),
    ),
  );
}

/** "without Brawny; 1 lethal damage; 1 Willpower spent" (what a ledger's `now` says). */
function carriedWords(now) {
  const parts = [];
  if (now?.lost?.length) parts.push(`without ${now.lost.map((l) => l.trait).join(", ")}`);
  for (const [kind, n] of Object.entries(now?.wounds || {})) if (n) parts.push(`${n} ${kind} damage`);
  if (now?.blood_spent) parts.push(`${now.blood_spent} blood spent`);
  return parts.join("; ") || "nothing lost";
}

/** One entry, its step a link to the replay at that step (`link(e)`: the address, or null where
 * this console's key does not open that scene). */
function entryItem(live, book, e, mark = "", link = (x) => replayLink(live, x.seq, x.scene === book.night ? null : x.scene)) {
  const where = e.scene === book.night ? "between scenes" : `in “${e.title}”`;
  const href = link(e);
  return h(
    "li",
    { class: `${e.loss ? "loss" : "gain"}${mark ? ` ${mark}` : ""}` },
    href ? h("a", { class: "step-link", href, target: "_blank" }, `Step ${e.seq} ${where}`) : h("span", { class: "step-link" }, `Step ${e.seq} ${where}`),
    ": ",
    e.what,
    e.why ? h("span", { class: "why" }, ` — ${e.why}`) : "", // the reason only: the ledger does not say the loss twice
    e.ruling && e.by === "correction" ? h("span", { class: "by" }, ` (a ruling in “${e.ruling.title}”, step ${e.ruling.seq})`) : "",
    e.book ? h("span", { class: "book" }, ` · ${e.book}`) : "",
    ruleNote(e.rule),
  );
}

/** A what-if of a scene of a night: how the night's ledger would stand had this fork been the
 * scene (nothing of the real night changes). Drawn only in a fork whose scene is of a night. */
function whatIfLedger(live, section) {
  let refresh = null;
  const body = h("div", {});
  return (view) => {
    if (!view.forked_from) return;
    if (!refresh) {
      fill(section, h("h2", { id: "tonight-h" }, "Tonight's ledger, had it gone this way"), h("button", { type: "button", class: "quiet", onclick: () => refresh(true) }, "Work it out again"), body);
      refresh = ledgerKeeper(live, (book) => {
        if (book?.error) {
          section.hidden = book.error.code === "not_a_game";
          return fill(body, refusal(book.error));
        }
        section.hidden = !book.what_if;
        if (book.what_if) fill(body, whatIfBody(live, book));
      });
    }
    refresh();
  };
}

function whatIfBody(live, book) {
  const w = book.what_if;
  const link = (e) => (e.scene === w.scene ? replayLink(live, e.seq, null) : null); // this what-if's own steps
  return [
    h("p", { class: "hint" }, `The night “${book.title}” as it would stand had “${w.title}” gone as this what-if goes (from its step ${w.at}). The real night does not change.`),
    w.characters.map((c) => {
      const real = book.ledgers.find((l) => l.character === c.character);
      const now = real ? (real.now?.lost || []).map((l) => l.trait) : [];
      return h(
        "div",
        { class: `what-if-ledger${c.changed ? " changed" : ""}`, dataset: { character: c.character } },
        h("h3", {}, c.name),
        c.changed
          ? [
              h("p", { class: "would-lost" }, `Would be without: ${c.lost.join(", ") || "nothing"} (really: ${now.join(", ") || "nothing"}).`),
              c.new.length > 0 && h("p", {}, "Would happen:"),
              c.new.length > 0 && h("ul", {}, c.new.map((e) => entryItem(live, book, e, "would", link))),
              c.gone.length > 0 && h("p", {}, "Would not happen:"),
              c.gone.length > 0 && h("ul", {}, c.gone.map((e) => entryItem(live, book, e, "gone", () => null))),
            ]
          : h("p", { class: "none" }, "No change to their night."),
      );
    }),
  ];
}
