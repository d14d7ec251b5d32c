// The replay viewer: a slider over the log; at each step the event in words, its challenge as it
// stood then (the step's account, in its own words: bids, tests, retests, verdict), what it changed
// in the characters, the rule's own words, the disputes and rulings linked to it, and the state then. The
// Storyteller may watch as any player saw it, and download the audit and the export.
import { download, field, fill, h, select } from "./dom.js";
import { Live, tokenFromPage } from "./live.js";
import { pageTitle } from "./notice.js";
import { CATEGORIES, defenderOf, nameOf, refusal, rulesetName, title } from "./words.js";

const app = document.getElementById("app");
const wanted = Number(new URLSearchParams(location.hash.slice(1)).get("step")) || null;
const sceneOfNight = new URLSearchParams(location.search).get("scene"); // a scene of the token's game night
const token =
  tokenFromPage("/replay") || localStorage.getItem("justicar:/st") || localStorage.getItem("justicar:/play");
if (sceneOfNight) history.replaceState(null, "", `${location.pathname}?scene=${encodeURIComponent(sceneOfNight)}`);

if (!token) {
  fill(
    app,
    h("h1", {}, "Replay"),
    h("p", {}, "Open the replay from the Storyteller's console, or from your player's page once the scene is closed."),
  );
} else {
  // a scene of a night is reached by subscribing to it (the night's key opens it): its view is not drawn
  start(new Live(token, sceneOfNight ? { scene: sceneOfNight } : { subscribe: false }));
}

function start(live) {
  const header = h("header", { class: "top" });
  const controls = h("section", { "aria-label": "Replay controls" });
  const detail = h("section", { class: "step-detail", "aria-live": "polite", "aria-label": "This step" });
  const state = h("section", {}); // named by its heading once it has one (an empty labelled section is no region)
  fill(app, header, h("main", {}, controls, h("div", { class: "columns" }, detail, state)));
  let steps = [];
  let viewer = null;
  let names = {};
  let scene = null; // the scene's title and ruleset, from the last step's view
  let sides = {}; // each challenge's challenger and defender, to say "Sam" for "challenger"
  let timer = null;
  let loaded = false;

  const drawHeader = () => {
    if (scene) pageTitle("Replay", scene.title || "Untitled scene"); // "Replay · The alley · Justicar"
    fill(
      header,
      h("h1", {}, "Replay"),
      h(
        "p",
        { class: "scene" },
        scene ? [scene.title || "Untitled scene", rulesetName(scene)].filter(Boolean).join(" · ") : "",
      ),
      badge(live),
    );
  };

  let loading = 0; // a newer load makes an older one's answers moot
  const load = async (as) => {
    const mine = ++loading;
    const got = [];
    let from = 1;
    let seen = null;
    for (;;) {
      const reply = await live.request({ type: "replay", from, ...(as ? { as } : {}) }, "replay");
      if (mine !== loading) return;
      if (reply.type === "error") return fill(controls, refusal(reply));
      got.push(...reply.steps);
      seen = reply.viewer;
      if (reply.to >= reply.version) break;
      from = reply.to + 1;
      fill(controls, h("p", { role: "status" }, `Loading… ${reply.to} of ${reply.version} steps`));
    }
    const last = await live.request(
      { type: "replay", from: got.length, to: got.length, view: true, ...(as ? { as } : {}) },
      "replay",
    );
    if (mine !== loading) return;
    steps = got;
    viewer = seen;
    names = Object.fromEntries(Object.values(last.view?.characters || {}).map((c) => [c.id, c.name]));
    sides = Object.fromEntries(
      Object.values(last.view?.challenges || {}).map((ch) => [
        ch.id,
        { challenger: ch.challenger, defender: defenderOf(ch) },
      ]),
    );
    scene = last.view ? { title: last.view.title, ruleset_title: last.view.ruleset_title } : null;
    drawHeader();
    const current = Number(controls.querySelector("input[type=range]")?.value); // stay where the viewer was
    drawControls(Math.min(current || wanted || steps.length, steps.length));
  };

  const drawControls = (at) => {
    const slider = h("input", { type: "range", min: 1, max: steps.length, value: at, "aria-label": "Step" });
    const counter = h("output", {}, "");
    const go = (n) => {
      const step = Math.max(1, Math.min(steps.length, n));
      slider.value = step;
      const eyes =
        viewer === "st"
          ? "as the Storyteller saw it"
          : viewer === "*"
            ? "as a spectator saw it"
            : `as ${names[viewer] || viewer} saw it`;
      counter.value = `Step ${step} of ${steps.length}, ${eyes}`;
      show(step);
    };
    slider.addEventListener("input", () => go(Number(slider.value)));
    const parts = [
      h(
        "div",
        { class: "replay-controls" },
        h(
          "button",
          { type: "button", onclick: () => go(Number(slider.value) - 1), "aria-label": "Previous step" },
          "◀",
        ),
        slider,
        h("button", { type: "button", onclick: () => go(Number(slider.value) + 1), "aria-label": "Next step" }, "▶"),
      ),
      counter,
    ];
    if (live.welcome.role === "st") {
      const as = select("viewer", [
        ["st", "the Storyteller (everything)"],
        ["*", "a spectator"],
        ...Object.entries(names).map(([id, name]) => [id, name]),
      ]);
      as.value = viewer;
      as.addEventListener("change", () => load(as.value));
      parts.push(
        field("See it as", as, "A player's eye: only what they could see at the time."),
        h(
          "div",
          { class: "choices" },
          h(
            "button",
            { type: "button", onclick: () => save({ type: "audit", format: "html" }) },
            "Download the audit (HTML)",
          ),
          h("button", { type: "button", onclick: () => save({ type: "export" }) }, "Download the export"),
        ),
      );
    }
    fill(controls, parts);
    go(at);
  };

  const save = async (body) => {
    const doc = await live.request(body, "document");
    if (doc.type === "error") return controls.append(refusal(doc));
    download(doc.name, doc.media_type, doc.text);
  };

  const show = (n) => {
    const step = steps[n - 1];
    const who = (id) => names[id] || nameOf(null, id);
    const said = (value, path) =>
      STEP_FIELDS.test(path) && typeof value === "number"
        ? `step ${value}`
        : valueWords(value, who, sides[step.challenge]);
    fill(
      detail,
      h("h2", {}, `Step ${step.seq}`),
      skipped(steps[n - 2], step),
      h("p", { class: "step-summary" }, step.summary),
      h("p", { class: "scene" }, `${step.at.slice(11, 19)} · ${causeOf(steps, n - 1, who, sides)}`),
      step.compared &&
        h(
          "p",
          {},
          "Compared: ",
          Object.entries(step.compared)
            .map(([w, n]) => `${who(w)} ${n}`)
            .join(" against "),
        ),
      step.rule &&
        h(
          "figure",
          {},
          step.words && h("blockquote", {}, step.words),
          h("figcaption", { dataset: { rule: step.rule } }, `— ${step.source || "the rules"}`),
        ),
      step.account && told(step.account),
      step.linked?.length > 0 &&
        h(
          "p",
          {},
          "See also: ",
          step.linked.map((seq) =>
            h("button", { type: "button", class: "quiet", onclick: () => drawControls(seq) }, `Step ${seq}`),
          ),
        ),
      step.changes.length > 0 &&
        h(
          "details",
          { open: true },
          h("summary", {}, `What it changed (${step.changes.length})`),
          h(
            "ul",
            { class: "changes" },
            step.changes.map((c) =>
              h(
                "li",
                {},
                `${pathWords(c.path, who)}: ${c.path === "ruleset" ? rulesetName(scene) || c.after : `${said(c.before, c.path)} → ${said(c.after, c.path)}`}`,
              ),
            ),
          ),
        ),
    );
    clearTimeout(timer);
    timer = setTimeout(() => stateAt(n), 120);
  };

  const stateAt = async (n) => {
    const reply = await live.request({ type: "replay", from: n, to: n, view: true, as: viewer }, "replay");
    const at = Number(controls.querySelector("input[type=range]")?.value);
    if (reply.type === "error" || !reply.view || at !== n || reply.viewer !== viewer) return; // moved on
    const v = reply.view;
    fill(
      state,
      h("h2", { id: "state-h" }, `The scene after step ${n}`),
      v.round &&
        h(
          "p",
          {},
          `Round ${v.round.number} · ${words(v.round.phase)}${v.round.turn.length ? ` · acting: ${v.round.turn.map((w) => nameOf(v, w)).join(", ")}` : ""}`,
        ),
      h(
        "div",
        { class: "scroll", tabindex: 0, role: "region", "aria-label": "The characters then" },
        h(
          "table",
          {},
          h(
            "tr",
            {},
            ["Who", "Traits", "Health", "Conditions"].map((t) => h("th", { scope: "col" }, t)),
          ),
          Object.values(v.characters).map((c) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, c.name),
              h(
                "td",
                { class: "step-traits" },
                c.traits ? CATEGORIES.map((cat) => h("div", {}, `${c.traits[cat]} ${title(cat)}`)) : "hidden",
              ),
              h("td", {}, c.health ?? "hidden"),
              h(
                "td",
                {},
                [
                  c.conditions.grappled_by && `held by ${nameOf(v, c.conditions.grappled_by)}`,
                  c.conditions.prone && "prone",
                ]
                  .filter(Boolean)
                  .join(", ") || "—",
              ),
            ),
          ),
        ),
      ),
      h(
        "ul",
        {},
        Object.values(v.challenges)
          .filter((ch) => ch.account)
          .map((ch) => h("li", {}, `${ch.account.title} — ${ch.account.verdict?.words || ch.account.now}`)),
      ),
    );
    state.setAttribute("aria-labelledby", "state-h");
  };

  live.addEventListener("status", () => {
    drawHeader();
    if (live.status === "live" && !loaded) {
      loaded = true;
      load(null);
    }
  });
  drawHeader();
}

/** A challenge as it stood after a step, in its account's own words (projections/account.py):
 * each side's stake, the powers in play, each test and the retests after it, the verdict with its
 * grade and the ruling's reason, how each effect came. Laid out only: nothing said here. */
function told(a) {
  const tests = a.tests || [];
  const retests = a.retests || [];
  const after = (n) => retests.filter((r) => r.after_test === n).map((r) => h("li", {}, r.words));
  const v = a.verdict;
  const how = [...new Set((a.effects || []).filter((e) => e.why).map((e) => `${e.words}: ${e.why}`))];
  return h(
    "section",
    { class: "account", "aria-label": "The challenge then" },
    h("h3", {}, a.title),
    h("p", { class: "scene" }, a.now),
    h(
      "ul",
      { class: "told" },
      (a.sides || []).map((s) => h("li", {}, s.words)),
      a.in_play?.length > 0 && h("li", {}, `In play: ${a.in_play.join("; ")}`),
      (a.calls || []).map((c) => h("li", {}, c)),
      (a.late || []).map((l) => h("li", {}, l)),
      tests.map((t) => [h("li", {}, `Test ${t.number}: ${t.words}`), after(t.number)]),
      retests.filter((r) => !tests.some((t) => t.number === r.after_test)).map((r) => h("li", {}, r.words)),
    ),
    v &&
      h(
        "p",
        { class: "verdict" },
        h("strong", {}, v.words),
        v.grade && `. ${v.grade}`,
        v.ruled && ` (${v.ruled}${v.before ? `. First given: ${v.before}` : ""})`,
      ),
    how.length > 0 &&
      h(
        "ul",
        { class: "told" },
        how.map((line) => h("li", {}, line)),
      ),
    (a.rulings || []).filter((r) => !(v?.ruled && r.decision !== "uphold")).map((r) => h("p", {}, r.words)),
    (a.rulings || [])
      .filter((r) => r.stand?.length)
      .map((r) => h("p", {}, `Standing as played: ${r.stand.join("; ")}`)),
  );
}

/** Where the steps the server sent skip numbers before `step` (a step not replayed to this
 * viewer), a line says so: "Steps 12–14 are not shown to you." (null: none skipped). */
function skipped(before, step) {
  if (!before || step.seq - before.seq <= 1) return null;
  const [from, to] = [before.seq + 1, step.seq - 1];
  return h(
    "p",
    { class: "gap" },
    from === to ? `Step ${from} is not shown to you.` : `Steps ${from}–${to} are not shown to you.`,
  );
}

/** The connection, in words: a replay is not live play, so a connected socket says "Connected". */
function badge(live) {
  const text = {
    connecting: "Connecting…",
    live: "Connected",
    reconnecting: live.reason || "Reconnecting…",
    refused: live.reason || "Refused",
  }[live.status];
  return h("span", { class: `badge ${live.status}`, role: "status", "aria-live": "polite" }, text);
}

/** A challenge's stage, a side, a test's result, in the table's words (the meanings words.js
 * gives them on the play pages), never the value the log stores. */
const VALUES = {
  awaiting_response: "waiting for the answer",
  bidding: "both sides in, to throw",
  throwing: "throwing",
  tie_declaring: "a tie: declaring Traits",
  retest_window: "open to retests",
  resolved: "over",
  withdrawn: "withdrawn",
  tie: "a tie",
  win: "a win",
  loss: "a loss",
  none: "nobody (a draw)",
  added: "joins",
  removed: "leaves",
  true: "yes",
  false: "no",
};

/** The fields of disputes and rulings that hold a step's number (the dispute's, the ruling's, the
 * disputed step's): said as "step 12". */
const STEP_FIELDS = /^(rulings|disputes)\[\d+\]\.(id|event|ruling)$/;

/** Words for any key or value: "traits_lost" as "traits lost". */
function words(text) {
  return String(text).replaceAll("_", " ");
}

/** "characters.mark.actions_left" as "Mark › actions left", "challenges.c-3febd8.sealed.sam" as
 * "the challenge › sealed › Sam", "tests[0]" as "test 1": names and words, never ids or paths. */
function pathWords(path, who) {
  const parts = path.split(".").flatMap((part, i, all) => {
    const [, key, index] = part.match(/^(.*?)\[(\d+)\]$/) || [null, part, null];
    if (index !== null) return [`${words(key.replace(/s$/, ""))} ${Number(index) + 1}`];
    if (all[i - 1] === "challenges") return ["the challenge"];
    if (part === "characters" || part === "challenges") return [];
    return [who(part) === part ? words(part) : who(part)];
  });
  return parts.join(" › ") || "the scene";
}

/** A value as a player reads it: names for character ids (alone or in a list), "the challenge"
 * for a challenge's id, "Sam" for "challenger" where the step's challenge is known, words for stages. */
function valueWords(value, who, side) {
  if (value === null || value === undefined) return "–";
  if (Array.isArray(value)) return value.length ? value.map((v) => valueWords(v, who, side)).join(", ") : "none";
  if (typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${pathWords(k, who)} ${valueWords(v, who, side)}`)
      .join(", ");
  if (typeof value !== "string") return VALUES[String(value)] || String(value);
  if ((value === "challenger" || value === "defender") && side) return who(side[value]);
  if (/^c-[0-9a-f]+$/.test(value)) return "the challenge";
  if (who(value) !== value) return who(value);
  return VALUES[value] || words(value);
}

/** What a move is called, by the event it starts with ("Juan's throw", "Sam's pass"). */
const MOVE_NOUNS = {
  challenge_declared: "challenge",
  bid_placed: "bid",
  relented: "relent",
  throw_sealed: "throw",
  test_revealed: "throw",
  dice_rolled: "roll",
  traits_declared: "declaration of Traits",
  retest_invoked: "retest",
  retest_cancelled: "cancelled retest",
  passed: "pass (no retest)",
  challenge_withdrawn: "withdrawal",
  victory_chosen: "choice of victory",
  ruling_issued: "ruling",
  dispute_opened: "dispute",
  action_declared: "declared action",
  turn_ended: "end of turn",
  character_adjusted: "adjustment",
  character_amended: "amendment of the sheet",
  character_removed: "taking them out",
  character_left: "taking them out",
};

/** Who a step is owed to: "by Sam" for the first step of Sam's own move; for a step that follows
 * from a move (a Trait lost after a pass, damage after a throw), whose challenge it is and whose
 * move it followed: "Juan's challenge, after Sam's pass (no retest)", never "by Sam" for Sam's own loss. */
function causeOf(steps, i, who, sides) {
  const step = steps[i];
  let first = i;
  while (
    first > 0 &&
    steps[first - 1].actor === step.actor &&
    steps[first - 1].at === step.at &&
    steps[first - 1].seq === steps[first].seq - 1
  )
    first--;
  if (first === i) return `by ${who(step.actor)}`;
  const start = steps[first];
  const move = `${who(start.actor)}'s ${MOVE_NOUNS[start.type] || "move"}`;
  const side = step.challenge && sides[step.challenge]?.challenger;
  return side && start.type !== "challenge_declared" ? `${who(side)}'s challenge, after ${move}` : `after ${move}`;
}
