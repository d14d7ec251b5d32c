// Rulings and disputes reach the player. A ruling that touches my character raises a banner with
// the Storyteller's decision, its reason and what it gave or took, in the server's words (the
// view's `ruled`, made in projections/ruled.py); it sits in the page's flow, above what it points
// at, never over it; it buzzes and marks the tab's title like a move due, and once dismissed it
// is remembered (per ruling) and does not come back. In a game night, my results from the night's
// other scenes are listed with a Dispute control: the dispute names that scene (protocol.md).
import { field, fill, h } from "./dom.js";
import { isQuiet, markRuling } from "./notice.js";
import { refusal } from "./words.js";

/** The form that sends a dispute of step `seq` (the ST rules on it later), saying what the step was;
 * `scene`: another scene of the night, where the step is. */
export function disputeForm(live, seq, what, label, scene = null) {
  const reason = h("input", {
    name: "reason",
    autocomplete: "off",
    required: true,
    maxlength: 500,
    placeholder: "I had Dodge left",
  });
  const out = h("div", { class: "outcome" });
  return h(
    "form",
    {
      class: "stack dispute-form",
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { type: "dispute", event: seq, reason: reason.value.trim() };
        if (scene) body.scene = scene;
        const reply = await live.send(body);
        out.replaceChildren(reply.ok ? h("p", {}, "Sent to the Storyteller.") : refusal(reply.error));
        if (reply.ok) reason.value = "";
      },
    },
    what && h("p", { class: "disputed" }, what),
    field(label, reason),
    h("button", { type: "submit" }, "Send the dispute"),
    out,
  );
}

/** The rulings this browser has been told were seen, for one scene and viewer. */
function seenStore(scene, who) {
  const key = `justicar:ruled:${scene}:${who}`;
  const read = () => {
    try {
      return new Set(JSON.parse(localStorage.getItem(key) || "[]"));
    } catch {
      return new Set();
    }
  };
  const add = (id) => {
    const seen = read();
    seen.add(id);
    try {
      localStorage.setItem(key, JSON.stringify([...seen]));
    } catch {
      /* private mode: remembered for this page only */
    }
  };
  return { read, add };
}

/** The ruling banners (in `main`, first) and, on a game night's scene, my results elsewhere tonight
 * and the rulings there that touch me (a ruling made after I left sends only its change here). */
export function ruledNotice(live, main) {
  const area = h("div", { class: "ruled-area", role: "status", "aria-live": "polite" });
  main.prepend(area);
  const dismissed = new Set(); // "scene:id", this page's, where localStorage is not kept
  let buzzed = new Set();
  let there = []; // rulings in the night's other scenes that touch me (`tonight`)
  let drawn = "";
  let corrections = null; // carried corrections on this page: a new one asks `tonight` again
  const elsewhere = live.scene
    ? tonightList(live, main, (ruled) => {
        there = ruled;
        draw();
      })
    : null;

  const draw = () => {
    const view = live.view;
    const who = live.viewer;
    if (!view || !who || who === "*" || who === "st") return;
    const carried = live.timeline.filter((s) => s.type === "carried_corrected").length;
    if (corrections !== null && carried > corrections) elsewhere?.ask();
    corrections = carried;
    const here = (view.ruled || []).map((r) => ({ ...r, scene: view.scene }));
    const key = (r) => `${r.scene}:${r.id}`;
    const unseen = [...there, ...here].filter(
      (r) => !seenStore(r.scene, who).read().has(r.id) && !dismissed.has(key(r)),
    );
    markRuling(unseen.length > 0); // notice.js writes the title: a move due first, then a ruling
    const fresh = unseen.filter((r) => !buzzed.has(key(r)));
    buzzed = new Set(unseen.map(key));
    const shown = JSON.stringify(unseen);
    if (shown !== drawn) {
      drawn = shown;
      const dismiss = (r) => {
        dismissed.add(key(r));
        seenStore(r.scene, who).add(r.id);
        draw();
      };
      fill(
        area,
        unseen.map((r) => banner(r, dismiss)),
      );
    }
    if (!fresh.length) return;
    if (!typing()) area.querySelector(`[data-ruling="${key(fresh[0])}"]`)?.scrollIntoView({ block: "start" });
    if (isQuiet()) return;
    try {
      navigator.vibrate?.([200, 80, 200]);
    } catch {
      /* not here */
    }
  };
  // after the page's own listeners (added once its start is done)
  queueMicrotask(() => {
    live.addEventListener("change", draw);
    live.addEventListener("status", () => {
      draw();
      if (live.status === "live") elsewhere?.ask();
    });
    draw();
  });
}

/** Whether the player is typing or choosing: the page is not scrolled from under them. */
function typing() {
  const active = document.activeElement;
  return Boolean(active?.matches?.("input:not([type=checkbox]):not([type=radio]), select, textarea"));
}

/** One ruling, told to me: what the Storyteller decided and did, the reason, what it did to others
 * that I may know; a tap shows what it is about (the challenge's card, else my sheet), another
 * dismisses it for good. */
function banner(r, dismiss) {
  const heading = `ruling-${r.scene}-${r.id}-h`;
  const away = Boolean(r.scene_title); // a ruling in another scene of the night
  const card = away
    ? document.querySelector(
        `#elsewhere li[data-scene="${CSS.escape(r.scene)}"][data-challenge="${CSS.escape(r.challenge || "")}"]`,
      )
    : r.challenge && document.getElementById(`ch-${r.challenge}`)?.closest("article");
  const show = () =>
    (card?.isConnected ? card : document.getElementById("me"))?.scrollIntoView({ block: "start", behavior: "smooth" });
  return h(
    "article",
    { class: "ruled-banner", "aria-labelledby": heading, dataset: { ruling: `${r.scene}:${r.id}` } },
    h("h2", { id: heading }, away ? `The Storyteller has ruled in “${r.scene_title}”` : "The Storyteller has ruled"),
    h("p", { class: "ruled-words" }, r.words),
    r.reason && h("p", { class: "ruled-reason" }, "Reason: ", h("q", {}, r.reason)),
    r.also?.length ? h("p", { class: "ruled-also" }, `Also: ${r.also.join("; ")}.`) : null,
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", class: "quiet", onclick: show }, card ? "Show the challenge" : "Show my sheet"),
      h("button", { type: "button", onclick: () => dismiss(r) }, "Got it"),
    ),
  );
}

/** A game night: my results from the night's other scenes (`tonight`), each with a Dispute control
 * that names its scene; the rulings there that touch me go to `told`. Asked when the page connects
 * and when a correction from another scene arrives. */
function tonightList(live, main, told) {
  const list = h("ul", { class: "elsewhere-list" });
  const section = h(
    "section",
    { id: "elsewhere", "aria-labelledby": "elsewhere-h", hidden: true },
    h("h2", { id: "elsewhere-h" }, "Tonight in other scenes"),
    list,
  );
  const after = main.querySelector("#challenges");
  if (after) after.after(section);
  else main.append(section);
  let asked = false;
  const ask = async () => {
    if (asked || !live.viewer || live.viewer === "*" || live.viewer === "st") return; // a player's own results
    asked = true;
    const page = await live.request({ type: "tonight" }, "tonight");
    asked = false;
    if (page.type !== "tonight") return;
    section.hidden = page.results.length === 0;
    fill(
      list,
      page.results.map((r) => resultItem(live, r)),
    );
    told(page.ruled || []);
  };
  return { ask };
}

function resultItem(live, r) {
  return h(
    "li",
    { class: "elsewhere-result", dataset: { scene: r.scene, challenge: r.challenge } },
    h("p", { class: "elsewhere-scene" }, "In ", h("strong", {}, `“${r.scene_title}”`), `: ${r.title}`),
    h("p", { class: "verdict-line" }, r.words),
    r.ruled && h("p", { class: "ruled" }, r.ruled),
    h(
      "details",
      { class: "dispute" },
      h("summary", {}, "Dispute this result"),
      disputeForm(live, r.step, null, "Why the result is wrong", r.scene),
    ),
  );
}
