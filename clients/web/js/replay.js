// The replay viewer: a slider over the log; at each step the event in words, what it changed,
// the rule's own words, the disputes and rulings linked to it, and the state then. The
// Storyteller may watch as any player saw it, and download the audit and the export.
import { download, field, fill, h, select } from "./dom.js";
import { Live, tokenFromPage } from "./live.js";
import { CATEGORIES, challengeLine, connection, nameOf, refusal, title, waitingFor } from "./words.js";

const app = document.getElementById("app");
const wanted = Number(new URLSearchParams(location.hash.slice(1)).get("step")) || null;
const token = tokenFromPage("/replay") || localStorage.getItem("justicar:/st") || localStorage.getItem("justicar:/play");

if (!token) {
  fill(app, h("h1", {}, "Replay"), h("p", {}, "Open the replay from the Storyteller's console, or from your player's page once the scene is closed."));
} else {
  start(new Live(token, { subscribe: false }));
}

function start(live) {
  const header = h("header", { class: "top" });
  const controls = h("section", { "aria-label": "Replay controls" });
  const detail = h("section", { class: "step-detail", "aria-live": "polite", "aria-label": "This step" });
  const state = h("section", { "aria-labelledby": "state-h" });
  fill(app, header, h("main", {}, controls, h("div", { class: "columns" }, detail, state)));
  let steps = [];
  let viewer = null;
  let names = {};
  let timer = null;
  let loaded = false;

  const drawHeader = () => fill(header, h("h1", {}, "Replay"), h("p", { class: "scene" }, live.welcome ? `scene ${live.welcome.scene}` : ""), connection(live));

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
    const last = await live.request({ type: "replay", from: got.length, to: got.length, view: true, ...(as ? { as } : {}) }, "replay");
    if (mine !== loading) return;
    steps = got;
    viewer = seen;
    names = Object.fromEntries(Object.values(last.view?.characters || {}).map((c) => [c.id, c.name]));
    const current = Number(controls.querySelector("input[type=range]")?.value); // stay where the viewer was
    drawControls(Math.min(current || wanted || steps.length, steps.length));
  };

  const drawControls = (at) => {
    const slider = h("input", { type: "range", min: 1, max: steps.length, value: at, "aria-label": "Step" });
    const counter = h("output", {}, "");
    const go = (n) => {
      const step = Math.max(1, Math.min(steps.length, n));
      slider.value = step;
      const eyes = viewer === "st" ? "as the Storyteller saw it" : viewer === "*" ? "as a spectator saw it" : `as ${names[viewer] || viewer} saw it`;
      counter.value = `Step ${step} of ${steps.length}, ${eyes}`;
      show(step);
    };
    slider.addEventListener("input", () => go(Number(slider.value)));
    const parts = [
      h("div", { class: "replay-controls" },
        h("button", { type: "button", onclick: () => go(Number(slider.value) - 1), "aria-label": "Previous step" }, "◀"),
        slider,
        h("button", { type: "button", onclick: () => go(Number(slider.value) + 1), "aria-label": "Next step" }, "▶"),
      ),
      counter,
    ];
    if (live.welcome.role === "st") {
      const as = select("viewer", [["st", "the Storyteller (everything)"], ["*", "a spectator"], ...Object.entries(names).map(([id, name]) => [id, name])]);
      as.value = viewer;
      as.addEventListener("change", () => load(as.value));
      parts.push(
        field("See it as", as, "A player's eye: only what they could see at the time."),
        h("div", { class: "choices" },
          h("button", { type: "button", onclick: () => save({ type: "audit", format: "html" }) }, "Download the audit (HTML)"),
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
    fill(
      detail,
      h("h2", {}, `#${step.seq} ${step.type.replaceAll("_", " ")}`),
      h("p", {}, h("strong", {}, step.summary)),
      h("p", { class: "scene" }, `${step.at.slice(0, 19).replace("T", " ")} · by ${who(step.actor)}`),
      step.compared && h("p", {}, "Compared: ", Object.entries(step.compared).map(([w, n]) => `${who(w)} ${n}`).join(" against ")),
      step.rule && h("figure", {}, h("figcaption", {}, `Rule ${step.rule}${step.source ? ` (${step.source})` : ""}`), step.words && h("blockquote", {}, step.words)),
      step.linked?.length > 0 && h("p", {}, "Linked: ", step.linked.map((seq) => h("button", { type: "button", class: "quiet", onclick: () => drawControls(seq) }, `#${seq}`))),
      step.changes.length > 0 && h("details", { open: true }, h("summary", {}, `What it changed (${step.changes.length})`), h("div", { class: "changes" }, step.changes.map((c) => `${pathWords(c.path, who)}: ${show_(c.before)} → ${show_(c.after)}\n`))),
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
      h("h2", { id: "state-h" }, `The scene after #${n}`),
      v.round && h("p", {}, `Round ${v.round.number} · ${v.round.phase}${v.round.turn.length ? ` · acting: ${v.round.turn.map((w) => nameOf(v, w)).join(", ")}` : ""}`),
      h(
        "div",
        { class: "scroll" },
        h(
          "table",
          {},
          h("tr", {}, ["Character", "Traits", "Health", "Conditions"].map((t) => h("th", { scope: "col" }, t))),
          Object.values(v.characters).map((c) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, c.name),
              h("td", {}, c.traits ? CATEGORIES.map((cat) => `${title(cat)[0]} ${c.traits[cat]}`).join(" · ") : "hidden"),
              h("td", {}, c.health ?? "hidden"),
              h("td", {}, [c.conditions.grappled_by && `held by ${nameOf(v, c.conditions.grappled_by)}`, c.conditions.prone && "prone"].filter(Boolean).join(", ") || "—"),
            ),
          ),
        ),
      ),
      h("ul", {}, Object.values(v.challenges).map((ch) => h("li", {}, `${challengeLine(v, ch)} — ${waitingFor(v, ch)}`))),
    );
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

/** "characters.mark.actions_left" as "Mark › actions left", "challenges.c-3febd8" as "the
 * challenge": names, never ids. */
function pathWords(path, who) {
  const [head, id, ...rest] = path.split(".");
  const subject = head === "characters" && id ? who(id) : head === "challenges" && id ? "the challenge" : null;
  const words = (subject ? rest : [head, id, ...rest].filter((part) => part !== undefined)).map((part) => part.replaceAll("_", " "));
  return [subject, ...words].filter(Boolean).join(" › ");
}

function show_(value) {
  return value === null || value === undefined ? "–" : typeof value === "string" ? value : JSON.stringify(value);
}
