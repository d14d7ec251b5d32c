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
    .map((d) => ({
      key: `${scene ?? view.scene}:${d.id}`,
      scene,
      text: `${name(d.by)} disputes a result${where ? ` in ${where}` : ""}: “${d.reason}”`,
    }));
}

let audio = null;

/** A short tone, two notes (where the browser lets the page sound: after a tap). */
function tone() {
  try {
    audio ??= new AudioContext();
    if (audio.state !== "running") return audio.resume().catch(() => {});
    for (const [at, pitch] of [
      [0, 520],
      [0.18, 780],
    ]) {
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

/** What the Storyteller must do now for its NPCs, as the server's view offers it (each open
 * challenge's `moves`, by the NPC it acts for): {key, text, scene, kind: "npc", challenge}. A player
 * waits on each of these; nothing is worked out here beyond reading the verbs the view gives. */
export function npcMoves(view, scene = null, where = "") {
  const chars = view?.characters || {};
  const name = (w) => chars[w]?.name || w;
  const open = Object.values(view?.challenges || {}).filter(
    (ch) => !ch.outcome && !["resolved", "withdrawn"].includes(ch.status),
  );
  return open.flatMap((ch) =>
    Object.entries(ch.moves || {})
      .filter(([who]) => chars[who]?.npc)
      .map(([who, moves]) => {
        const todo = npcTodo(view, ch, who, moves);
        if (!todo) return null;
        const against = [ch.challenger, ...(ch.targets || [])]
          .filter((w) => w !== who && chars[w] && !chars[w].npc)
          .map(name);
        const waits = against.length ? `${against.join(" and ")} waits: ` : "";
        const verbs = [...(moves.verbs || [])].sort().join(",");
        const key = `${scene ?? view.scene}:npc:${ch.id}:${who}:${ch.status}:${(ch.tests || []).length}:${(ch.retests || []).length}:${verbs}`;
        return { key, scene, kind: "npc", challenge: ch.id, text: `${waits}${todo}${where ? ` in ${where}` : ""}` };
      })
      .filter(Boolean),
  );
}

/** The timed moves whose time is up and the Storyteller was told (`view.deadlines`, `told`): each
 * waits on the Storyteller's choice, in the Now view: {key, text, scene, kind: "late"}. */
export function lateMoves(view, scene = null, where = "") {
  return (view?.deadlines || [])
    .filter((d) => d.told)
    .map((d) => ({
      key: `${scene ?? view.scene}:late:${d.key}`,
      scene,
      kind: "late",
      text: `Time is up for ${d.name}${where ? ` in ${where}` : ""}.`,
    }));
}

/** What is due from the NPC `who` in `ch`, in words ("throw for Goon"), from the verbs offered. */
function npcTodo(view, ch, who, moves) {
  const verbs = new Set(moves.verbs || []);
  const npc = view.characters[who]?.name || who;
  const by = view.characters[ch.challenger]?.name || ch.challenger;
  const pending = (ch.retests || []).find((r) => r.status === "pending");
  if (Object.keys(moves.defenses || {}).length) return `choose ${npc}'s defence against ${by}`;
  if (verbs.has("bid") && ch.challenger !== who) return `bid for ${npc} against ${by}`;
  if (verbs.has("throw")) return `throw for ${npc}`;
  if (verbs.has("roll")) return `roll for ${npc}`;
  if (verbs.has("declare_traits")) return `declare ${npc}'s Traits`;
  if (verbs.has("cancel_retest") && pending) return `answer the retest for ${npc}`;
  if (verbs.has("retest")) return `retest or pass for ${npc}`;
  if (verbs.has("pass") && pending) return `let the retest stand for ${npc}`;
  if (verbs.has("choose_victory")) return `choose the victory condition for ${npc}`;
  return null;
}

/** The banner (a button: `go(item)` opens what it names) and `update(items, title, here)`: `items`
 * as `npcMoves` and `openDisputes` give them (NPC moves first: a player waits on them), `title` the
 * page's own, `here(item)` whether the Storyteller is looking at that dispute now (then no banner
 * for it). The title is marked while any waits; fresh ones buzz. */
export function disputeAlert(go) {
  const text = h("span", { class: "due-text" }, "A dispute");
  const more = h("span", { class: "due-more" }, "");
  const banner = h("button", { type: "button", class: "due st-due", hidden: true }, text, more);
  let first = null;
  let seen = new Set();
  banner.addEventListener("click", () => first && go(first));
  const update = (items, title, here = () => false) => {
    const late = items.filter((d) => d.kind === "late"); // a table waits on the Storyteller's choice
    const npc = items.filter((d) => d.kind === "npc");
    const mark = late.length ? "● Late move · " : npc.length ? "● NPC move · " : items.length ? "● Dispute · " : "";
    document.title = `${mark}${title}`;
    const disputes = items.filter((d) => d.kind !== "npc" && d.kind !== "late");
    const away = [...late, ...npc, ...disputes.filter((d) => !here(d))];
    first = away[0] || null;
    banner.hidden = !first;
    if (first) {
      text.textContent = sentence(first.text);
      more.textContent =
        away.length > 1
          ? ` (and ${away.length - 1} more)`
          : first.kind === "late"
            ? " Tap to choose."
            : first.kind === "npc"
              ? " Tap to see it."
              : " Tap to rule on it.";
    }
    const fresh = items.filter((d) => !seen.has(d.key));
    seen = new Set(items.map((d) => d.key));
    if (fresh.length) buzz();
  };
  return { banner, update };
}

/** The first letter up. */
function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Bring the Now view's late moves into view (once the view holding them is shown). */
export function bringLate() {
  requestAnimationFrame(() => document.getElementById("deadlines")?.scrollIntoView({ block: "start" }));
}

/** Bring a challenge's card into view (once the view holding it is shown). */
export function bringCard(id) {
  requestAnimationFrame(() =>
    document.getElementById(`ch-${id}`)?.closest("article")?.scrollIntoView({ block: "start" }),
  );
}
