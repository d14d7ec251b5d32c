// The Storyteller's console, what its parts share: each control's outcome line (kept across
// redraws), a command sent with its outcome said in the timeline's words, a button that asks before
// it acts, and a table cell that names itself on a phone.
import { h, fill } from "./dom.js";
import { refusal } from "./words.js";

export const notes = new Map(); // what a control last said, by key: kept when its section is redrawn

/** An outcome line for `key`, showing what it last said. */
export function outcome(key) {
  const out = h("div", { class: "outcome", "aria-live": "polite", dataset: { key } });
  const last = notes.get(key);
  if (last && Date.now() - last.at < FRESH) out.append(last.error ? refusal(last.error) : done(last.ok));
  return out;
}

const FRESH = 60000; // ms a confirmation or refusal is still shown when its section is drawn anew

/** A command's confirmation: what it did, in the timeline's words. */
export function done(text) {
  return text ? h("p", { class: "done", role: "status" }, h("strong", {}, "✓ "), text) : "";
}

/** What the events of a command's result were, in the timeline's words (the commit carrying them
 * may come a moment after the result: wait for it, briefly). */
export async function said(live, reply) {
  const seqs = (reply.events || []).map((e) => e.seq).filter(Boolean);
  const missing = () => seqs.some((seq) => !live.timeline.some((t) => t.seq === seq));
  for (let i = 0; i < 40 && missing(); i++) await new Promise((r) => setTimeout(r, 25));
  return seqs
    .map((seq) => live.timeline.find((t) => t.seq === seq)?.summary)
    .filter(Boolean)
    .join(" ");
}

/** The replay viewer with this console's key (and a step to open at). */
export function replayLink(live, step, scene = live.scene) {
  return `/replay${scene ? `?scene=${encodeURIComponent(scene)}` : ""}#token=${encodeURIComponent(live.token)}${step ? `&step=${step}` : ""}`;
}

/** Send a command and show the outcome in `out` (kept by its key across redraws): a refusal, or a
 * confirmation that says what it did (`ok` first, then the events it made, in words). */
export function sender(live, out, ok = "") {
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
export function echo(out, key) {
  const text = notes.get(out.dataset.key)?.ok;
  notes.set(key, { ok: text, at: Date.now() });
  document.querySelector(`.outcome[data-key="${key}"]`)?.replaceChildren(done(text));
}

/** A button for what cannot be undone: the first tap asks, with what it will do; "Confirm …" acts,
 * "Cancel" puts the button back and nothing is sent. */
export function confirmButton(label, confirmLabel, act, warning = "") {
  const box = h("div", { class: "confirm" });
  const first = h("button", { type: "button", class: "quiet" }, label);
  const back = () => {
    fill(box, first);
    first.focus();
  };
  first.addEventListener("click", () => {
    const yes = h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: () => {
          fill(box, first);
          act();
        },
      },
      confirmLabel,
    );
    fill(
      box,
      h("p", { class: "warn" }, warning || `${label}?`),
      h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")),
    );
    yes.focus();
  });
  return fill(box, first);
}

/** A table cell that says what it is when the table is stacked on a phone. */
export function cell(label, ...children) {
  return h("td", { "data-label": label }, ...children);
}
