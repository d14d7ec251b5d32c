// A dispute finds the Storyteller: a banner naming who disputes what (a tap opens the dispute), the
// tab's title marked "● Dispute · …", and a buzz and a short tone the first time it is seen
// (unless the page's Quiet switch is on, the player's page's own: notice.js).
import { h } from "./dom.js";
import { isQuiet } from "./notice.js";

/** The open disputes of a scene's view, each {key, text, scene}: `where` names the scene in a night. */
export function openDisputes(view, scene = null, where = "") {
  const name = (w) => view?.characters?.[w]?.name || "A player";
  return (view?.disputes || [])
    .filter((d) => d.status === "open")
    .map((d) => ({ key: `${scene ?? view.scene}:${d.id}`, scene, text: `${name(d.by)} disputes a result${where ? ` in ${where}` : ""}: “${d.reason}”` }));
}

let audio = null;

/** A short tone, two notes (where the browser lets the page sound: after a tap). */
function tone() {
  try {
    audio ??= new AudioContext();
    if (audio.state !== "running") return audio.resume().catch(() => {});
    for (const [at, pitch] of [[0, 520], [0.18, 780]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = pitch;
      gain.gain.setValueAtTime(0.15, audio.currentTime + at);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + at + 0.2);
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + at);
      osc.stop(audio.currentTime + at + 0.2);
    }
  } catch {
    /* no sound here */
  }
}

/** A buzz and a tone, unless Quiet. */
export function buzz() {
  if (isQuiet()) return;
  try {
    navigator.vibrate?.([200, 80, 200]);
  } catch {
    /* no vibration here */
  }
  tone();
}

/** The banner (a button: `go(dispute)` opens it) and `update(disputes, title, here)`: `disputes`
 * as `openDisputes` gives them, `title` the page's own, `here(d)` whether the Storyteller is
 * looking at that dispute now (then no banner for it). Fresh disputes buzz. */
export function disputeAlert(go) {
  const text = h("span", { class: "due-text" }, "A dispute");
  const more = h("span", { class: "due-more" }, "");
  const banner = h("button", { type: "button", class: "due st-due", hidden: true }, text, more);
  let first = null;
  let seen = new Set();
  banner.addEventListener("click", () => first && go(first));
  const update = (disputes, title, here = () => false) => {
    document.title = disputes.length ? `● Dispute · ${title}` : title;
    const away = disputes.filter((d) => !here(d));
    first = away[0] || null;
    banner.hidden = !first;
    if (first) {
      text.textContent = first.text;
      more.textContent = away.length > 1 ? ` (and ${away.length - 1} more)` : " Tap to rule on it.";
    }
    const fresh = disputes.filter((d) => !seen.has(d.key));
    seen = new Set(disputes.map((d) => d.key));
    if (fresh.length) buzz();
  };
  return { banner, update };
}
