// Response deadlines on the pages: the time left on the card whose move is due, the player's
// warning a short while before it runs out, the Storyteller's list and its choices when told, and
// the fields that set them. What each deadline is, whose it is, what its lapse does and what the
// Storyteller may do about it are the view's (`view.deadlines`, made once in projections/): this
// module only counts the seconds down, from `due_at` on the server's clock (live.now(), the local
// clock corrected by the time of the last event pushed live). One timer a page, whatever the
// number of countdowns on it, stopped when none is left.
import { field, h, select } from "./dom.js";
import { isQuiet, markHurry } from "./notice.js";

const TICK = 250; // ms between repaints: a second's digit never lags by more than this

/** "1:05", "0:30": the time left, in minutes and seconds (never below 0:00). */
export function clockWords(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// -- the one timer ---------------------------------------------------------------------------------

const countdowns = new Map(); // a countdown's time element -> {live, due}
const watchers = new Set(); // functions run each tick (a page's warning); each says whether it still waits
let timer = null;

function tick() {
  for (const [el, { live, due }] of countdowns) {
    if (!el.isConnected) {
      countdowns.delete(el);
      continue;
    }
    const words = clockWords(due - live.now());
    if (el.textContent !== words) el.textContent = words;
  }
  let waiting = false;
  for (const watch of watchers) waiting = watch() || waiting;
  if (!countdowns.size && !waiting) {
    clearInterval(timer);
    timer = null;
  }
}

function wake() {
  if (timer === null) timer = setInterval(tick, TICK);
}

/** A time-left element counting down to `due` (ms, on the server's clock) while it is on the page. */
function counter(live, due, attrs = {}) {
  const el = h("span", { class: "time-left", ...attrs }, clockWords(due - live.now()));
  countdowns.set(el, { live, due });
  wake();
  return el;
}

/** Whether the page counts anything down now (for the tests: the one timer is gone when nothing runs). */
export function ticking() {
  return timer !== null;
}

// -- the player's page -----------------------------------------------------------------------------

/** The deadlines of `view` on the cards they belong to: a challenge's on its card (an `article`
 * with `data-challenge`), a round's (a turn, help offered, an escape's window) on the round's
 * section `round`. Prominent for the viewer's own move, quiet for another's; kept as they are
 * while unchanged (the time ticks in place). Call after each draw. */
export function placeDeadlines(live, view, root, round) {
  const list = view?.deadlines || [];
  const placed = new Set();
  for (const d of list) {
    const host = d.challenge
      ? root.querySelector(`article[data-challenge="${CSS.escape(d.challenge)}"]`)
      : round && !round.hidden
        ? round.querySelector(":scope > div") || round
        : null;
    if (!host) continue;
    placed.add(d.key);
    const sig = JSON.stringify(d);
    const there = [...host.querySelectorAll(":scope > .deadline")].find((el) => el.dataset.key === d.key);
    if (there?.dataset.sig === sig) continue;
    const box = deadlineBox(live, d);
    box.dataset.sig = sig;
    if (there) there.replaceWith(box);
    else {
      const heading = host.querySelector(":scope > h2, :scope > h3"); // under the card's heading
      host.insertBefore(box, heading ? heading.nextSibling : host.firstChild);
    }
  }
  for (const el of root.querySelectorAll(".deadline")) if (!placed.has(el.dataset.key)) el.remove();
}

/** One deadline on its card: the time left, what it is to this viewer ("You have 2 minutes to
 * throw"), what a lapse does; told, that the Storyteller was told. */
function deadlineBox(live, d) {
  const due = Date.parse(d.due_at);
  return h(
    "div",
    { class: `deadline ${d.mine ? "mine" : "theirs"}${d.told ? " told" : ""}`, dataset: { key: d.key } },
    d.told
      ? h("p", { class: "clock" }, h("span", { class: "time-left" }, "0:00"), " · time is up")
      : h(
          "p",
          { class: "clock", role: "timer", "aria-label": `Time left: ${d.said}` },
          counter(live, due),
          d.mine ? " left" : ` left for ${d.name}`,
        ),
    h("p", { class: "said" }, `${d.said}.`.replace(/\.\.$/, ".")),
    h("p", { class: d.told ? "told-note" : "then" }, d.then),
  );
}

/** "30 seconds left to throw", "1:30 left to answer Ana's challenge": the move in the view's words
 * (`to_do`), the time as the countdown reads it. */
function hurryWords(d, ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s === 0) return `Your time to ${d.to_do} is up`;
  const left = s <= 60 ? `${s} second${s === 1 ? "" : "s"}` : clockWords(ms);
  return `${left} left to ${d.to_do}`;
}

/** The player's warning: from the `warn_at` of a move of theirs, a banner ("30 seconds left to
 * throw"), a buzz (unless Quiet) and the tab's title counting down ("⏳ 0:30 · …"); all gone once
 * the move is made, the time given again, or the deadline lapsed. Returns the banner. */
export function hurry(live) {
  const said = h("span", { class: "sr-only", role: "alert" });
  const shown = h("span", { class: "hurry-words", "aria-hidden": "true" });
  const banner = h("p", { class: "hurry", hidden: true }, shown, said);
  const buzzed = new Set();
  const watch = () => {
    if (live.closed) {
      watchers.delete(watch); // the character left the scene (a night's page): its clocks are not mine now
      markHurry(null);
      return false;
    }
    const now = live.now();
    const mine = (live.view?.deadlines || []).filter((d) => d.mine && !d.told);
    const first = mine.sort((a, b) => Date.parse(a.due_at) - Date.parse(b.due_at))[0];
    const warned = first && now >= Date.parse(first.warn_at);
    banner.hidden = !warned;
    if (!warned) {
      said.textContent = "";
      markHurry(null);
      return Boolean(first); // a move of mine runs: keep watching for its warning
    }
    const ms = Date.parse(first.due_at) - now;
    shown.textContent = hurryWords(first, ms);
    if (!buzzed.has(first.key)) {
      buzzed.add(first.key);
      said.textContent = hurryWords(first, ms); // said aloud once, not each second
      if (!isQuiet()) {
        try {
          navigator.vibrate?.([300, 100, 300]);
        } catch {
          /* no vibration here */
        }
      }
    }
    markHurry(`⏳ ${clockWords(ms)}`);
    return true;
  };
  watchers.add(watch);
  const update = () => {
    if (watch()) wake(); // no timer while no move of mine runs
  };
  live.addEventListener("change", update);
  return { banner, update };
}

// -- the Storyteller's console ---------------------------------------------------------------------

/** Every running deadline, one line each (who, what, time left); a told one says it waits on the
 * Storyteller. */
export function deadlineList(live, view) {
  const list = view?.deadlines || [];
  if (!list.length) return h("p", { class: "none" }, "No move is timed now.");
  return h(
    "ul",
    { class: "deadlines" },
    list.map((d) =>
      h(
        "li",
        { class: d.told ? "told" : null, dataset: { key: d.key } },
        `${d.said} `,
        d.told
          ? h("span", { class: "late" }, "Time is up: it waits on you.")
          : [
              h("strong", {}, counter(live, Date.parse(d.due_at)), " left."),
              h("small", { class: "then" }, ` ${d.then}`),
            ],
      ),
    ),
  );
}

/** A told deadline's banner: what is late and the Storyteller's choices, each a button sending its
 * command as the view gives it (`send`: the console's sender, which adds the id and says the outcome). */
export function lateBanner(d, send) {
  return h(
    "div",
    { class: "late-banner", role: "group", "aria-label": `${d.name} is late`, dataset: { key: d.key } },
    h("p", {}, h("strong", {}, "Time is up. "), `${d.said}.`.replace(/\.\.$/, ".")),
    h(
      "div",
      { class: "choices" },
      (d.choices || []).map((c) =>
        h("button", { type: "button", class: "primary", onclick: () => send(c.command) }, c.label),
      ),
    ),
  );
}

// -- setting them ----------------------------------------------------------------------------------

/** The kinds of move a deadline may time, and what `act` does for each. */
export const KINDS = [
  ["answer", "Answering a challenge", "relent for them", ""],
  ["throw", "Throwing or rolling", "throw or roll at random for them", "Declaring Traits on a tie too."],
  ["retest", "Retesting or passing", "pass for them", ""],
  ["turn", "Acting on one's turn", "end their turn", "Declaring an action in a round too."],
  ["assist", "Answering an offer of help", "refuse the help", "By Night Studios."],
  ["escape", "A fair escape's window", "close the window", "By Night Studios: attacks announced on an escape."],
];

/** The deadlines as a form's fields: for each kind, on or off (off by default), its seconds, and
 * what its lapse does. `current`: the deadlines to show ({kind: {seconds, lapse}}). Returns
 * {fieldset, read()}: read() gives the deadlines set ({} when none is on). */
export function deadlineFields(current = {}, legend = "Response deadlines (none unless set)") {
  const rows = KINDS.map(([kind, words, act, note]) => {
    const now = current?.[kind];
    const on = h("input", { type: "checkbox", name: `${kind}-on`, checked: Boolean(now) });
    const seconds = h("input", {
      type: "number",
      name: `${kind}-seconds`,
      min: 1,
      max: 86400,
      value: String(now?.seconds ?? 120),
      inputmode: "numeric",
      disabled: !now,
    });
    const lapse = select(
      `${kind}-lapse`,
      [
        ["tell", "Tell the Storyteller"],
        ["act", `Act: ${act}`],
      ],
      { disabled: !now },
    );
    lapse.value = now?.lapse || "tell";
    const fields = h(
      "div",
      { class: "row", hidden: !now },
      field(["Seconds", h("span", { class: "sr-only" }, ` (${words})`)], seconds),
      field(["When time is up", h("span", { class: "sr-only" }, ` (${words})`)], lapse),
    );
    on.addEventListener("change", () => {
      seconds.disabled = !on.checked;
      lapse.disabled = !on.checked;
      fields.hidden = !on.checked; // an off kind is one line
    });
    const row = h(
      "div",
      { class: "deadline-kind", dataset: { kind } },
      h("label", { class: "check" }, on, ` ${words}`),
      note && h("small", { class: "hint" }, note),
      fields,
    );
    return { kind, on, seconds, lapse, row };
  });
  const fieldset = h(
    "fieldset",
    { class: "deadline-fields" },
    h("legend", {}, legend),
    rows.map((r) => r.row),
  );
  const read = () =>
    Object.fromEntries(
      rows
        .filter((r) => r.on.checked)
        .map((r) => [r.kind, { seconds: Number(r.seconds.value) || 120, lapse: r.lapse.value }]),
    );
  return { fieldset, read };
}

/** The scene's deadlines as the latest step that set them says (`deadlines_set`, else the options
 * it opened with), from the timeline the page holds; else what the running ones show of them. */
export function currentDeadlines(live, view) {
  for (const step of [...live.timeline].reverse()) {
    if (step.type === "deadlines_set") return step.data?.deadlines || {};
    if (step.type === "scene_opened" || step.type === "game_opened")
      return step.data?.options?.deadlines || step.data?.deadlines || {};
  }
  const out = {};
  for (const d of view?.deadlines || []) out[d.kind] ??= { seconds: d.seconds, lapse: d.lapse };
  return out;
}
