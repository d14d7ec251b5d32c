// Your move finds you: what the player must do now, named in the second person in a banner that
// stays in sight, the card brought into view, a buzz and a short tone (unless Quiet), the tab's
// title marked, and the screen kept awake during a fight. And every command's fate, said once in
// a toast: queued while offline, then done ("Thrown.") or refused.
import { h } from "./dom.js";
import { actsNow, budgeted, mayIntend } from "./turns.js";
import { nameOf, title } from "./words.js";

const QUIET = "justicar:quiet";
const MARK = "● Your move · ";
const RULED = "● A ruling · ";

/** Whether the player asked for no sound and no vibration (kept in this browser). */
export function isQuiet() {
  try {
    return localStorage.getItem(QUIET) === "1";
  } catch {
    return false;
  }
}

let tappedOnce = false; // the player has tapped (or typed in) this page since it loaded

/** The Quiet switch: a labelled checkbox kept in localStorage; under it, until the first tap,
 * "Tap the page once…": the browser lets a page buzz and beep only after a tap. That first tap
 * also wakes the sound, so the first move's tone is heard. */
export function quietSwitch() {
  const box = h("input", { type: "checkbox", name: "quiet", checked: isQuiet() });
  const hint = h("p", { class: "tap-hint" }, "Tap the page once so it can buzz and beep when it's your move.");
  const show = () => {
    hint.hidden = tappedOnce || box.checked;
  };
  box.addEventListener("change", () => {
    try {
      localStorage.setItem(QUIET, box.checked ? "1" : "0");
    } catch {
      /* private mode: the switch holds for this page only */
    }
    show();
  });
  const tapped = () => {
    tappedOnce = true;
    wake();
    hint.hidden = true;
    for (const kind of ["click", "keydown"]) document.removeEventListener(kind, tapped, true);
  };
  // on the click, not the press: the hint leaving moves the page, never between a press and its release
  for (const kind of ["click", "keydown"]) document.addEventListener(kind, tapped, true);
  show();
  return h(
    "div",
    { class: "quiet-area", hidden: true },
    h("label", { class: "check quiet-switch" }, box, " Quiet (no sound or vibration)"),
    hint,
  );
}

let measureSticky = () => {};

/** Keep the page's top clear for the sticky banner: `--sticky-h` on the root is its height, which
 * the scroll margins of cards and headings and the page's scroll padding add, so neither a card
 * brought into view nor a field being filled is ever under the banner. Measured again right
 * before the page scrolls (the banner may have just appeared), not only when a resize is seen.
 * When it grows while stuck to the top (a banner or the offline note appears, its words take a
 * second line), the page moves down by as much: what was just under it stays in sight. */
export function keepClear(sticky) {
  let last = null;
  const set = () => {
    const height = Math.ceil(sticky.getBoundingClientRect().height);
    document.documentElement.style.setProperty("--sticky-h", `${height}px`);
    const grown = last === null ? 0 : height - last;
    last = height;
    return grown;
  };
  const stuck = () => scrollY > 0 && sticky.getBoundingClientRect().top <= 0.5;
  const resized = () => {
    const grown = set();
    if (grown > 0 && stuck()) window.scrollBy(0, -grown);
  };
  if (typeof ResizeObserver === "function") new ResizeObserver(resized).observe(sticky);
  measureSticky = set;
  set();
}

let titleBase = null; // what the tab is, without the mark of a move due
let marked = false; // a move is due: the title says so first
let ruled = false; // a ruling I have not seen: the title says so, after a move due
let hurried = null; // "⏳ 0:30": a move of mine is about to run out of time (deadlines.js): said first

/** The tab's title: its base, counting down ("⏳ 0:30 · …") while a move of mine is about to run
 * out of time, else marked "● Your move · …" while a move is due, else "● A ruling · …" while a
 * ruling that touches me is unseen (one writer for the title: they never overwrite each other). */
function showTitle() {
  const base = titleBase ?? "Justicar";
  document.title = hurried ? `${hurried} · ${base}` : marked ? `${MARK}${base}` : ruled ? `${RULED}${base}` : base;
}

/** Count the tab's title down while a move of mine is about to run out of time ("⏳ 0:30 · …"),
 * or take the count away (null). */
export function markHurry(words) {
  if (words === hurried) return;
  hurried = words || null;
  showTitle();
}

/** Mark the tab's title for an unseen ruling (ruling_notice.js), or take the mark away. */
export function markRuling(on) {
  ruled = Boolean(on);
  showTitle();
}

/** "Sam · Friday at Elysium · Justicar": what the tab is, from its parts (empty ones left out).
 * Set as the tab's title (marked "● Your move · …" while a move is due on the player's page). */
export function pageTitle(...parts) {
  titleBase = [...parts.filter(Boolean), "Justicar"].join(" · ");
  showTitle();
  return titleBase;
}

/** "a Physical Trait", "2 Social Traits". */
function traitsWanted(ch, moves) {
  const n = moves.bid_count || 1;
  return n > 1 ? `${n} ${title(ch.category)} Traits` : `a ${title(ch.category)} Trait`;
}

/** What `who` must do in one challenge, in the second person (null: nothing due). */
function challengeDue(view, ch, who) {
  const moves = ch.moves?.[who];
  if (!moves) return null;
  const verbs = new Set(moves.verbs || []);
  const by = nameOf(view, ch.challenger);
  const pending = (ch.retests || []).find((r) => r.status === "pending");
  let text = null;
  if (Object.keys(moves.defenses || {}).length) text = `${by} attacks you: choose your defence`;
  else if (verbs.has("bid") && ch.challenger !== who) text = `${by} challenges you: bid ${traitsWanted(ch, moves)}`;
  else if (verbs.has("throw")) text = "Throw now";
  else if (verbs.has("roll")) text = "Roll now";
  else if (verbs.has("declare_traits"))
    text =
      ch.declaring === "overbid"
        ? pending?.by === who
          ? "Your overbid: declare your Traits first"
          : `${pending ? `${nameOf(view, pending.by)}'s overbid` : "An overbid"}: declare your Traits`
        : "A tie: declare your Traits";
  else if (verbs.has("cancel_retest") && pending)
    text = `${nameOf(view, pending.by)} retests: cancel it or let it stand`;
  else if (verbs.has("retest")) text = "Retest or pass";
  else if (verbs.has("pass") && pending) text = `${nameOf(view, pending.by)} retests: let it stand`;
  else if (verbs.has("choose_victory")) text = "Choose whose victory condition applies";
  if (!text) return null;
  const key = `ch:${ch.id}:${ch.status}:${(ch.tests || []).length}:${(ch.retests || []).length}:${[...verbs].sort().join(",")}`;
  return { key, text, target: () => document.getElementById(`ch-${ch.id}`)?.closest("article") };
}

/** What `who` must do in the round, in the second person (null: nothing due). */
function roundDue(view, who) {
  const r = view.round;
  const mine = view.characters?.[who];
  if (!r || !mine || r.phase === "over") return null;
  const target = () => document.getElementById("round");
  const key = (what) => ({
    key: `round:${r.number}:${r.phase}:${(r.turn || []).join(",")}:${r.turn_phase || ""}:${what}`,
    target,
  });
  if (r.phase === "declaring" && mine.present && !mine.action)
    return { ...key("declare"), text: "Declare your action for the round" };
  if (r.phase === "expending" && (mine.round_moves?.verbs || []).includes("expenditures_done"))
    return { ...key("spend"), text: "Say what you spend, then tap Done" };
  if (r.phase !== "acting") return null;
  if (mayIntend(view, who))
    return { ...key("intend"), text: `Out of turn: you may attack ${nameOf(view, r.escape_window)}, who is escaping` };
  if (budgeted(view)) {
    if (!actsNow(view, who)) return null;
    // acting right after a held escape failed is allowed out of turn, and the banner says so
    const onTurn = (r.turn || []).includes(who) && !mine.turn_done;
    if (!onTurn) return { ...key("out"), text: "Out of turn: you may act now with the actions you have left" };
    // what the view says is left (an attack takes a standard action): the banner invites only that
    const { standard = 0, simple = 0 } = mine.actions || {};
    if (standard > 0) return { ...key("act"), text: "Your turn: attack, or choose another action" };
    if (simple > 0)
      return {
        ...key("simple"),
        text: `Your turn: ${simple} simple action${simple === 1 ? "" : "s"} left, or end your turn`,
      };
    return { ...key("end"), text: "Your turn: nothing left to do; tap End my turn" };
  }
  if (!(r.turn || []).includes(who) || mine.turn_done) return null;
  // on my turn: what is offered now. A challenge I declared, still open: nothing (its card says
  // whom it waits for); my action taken: only ending the turn.
  const open = Object.values(view.challenges || {}).some(
    (ch) => ch.challenger === who && !ch.outcome && ch.status !== "withdrawn",
  );
  if (open) return null;
  if (mine.actions_left === 0) return { ...key("end"), text: "Your turn: your action is done; tap End my turn" };
  return { ...key("turn"), text: "Your turn: declare your action" };
}

/** Help offered to `who`, waiting for an answer. */
function offerDue(view, who) {
  const offered = (view.characters?.[who]?.aids || []).filter((a) => a.status === "offered");
  if (!offered.length) return null;
  return {
    key: `aid:${offered.map((a) => a.offer).join(",")}`,
    text: `${nameOf(view, offered[0].by)} offers you help: accept or refuse`,
    target: () => document.getElementById("round"),
  };
}

/** Every move due from `who` now, most pressing first; a challenge whose move is queued (made
 * offline, going when the connection is back) is not due again: its card says what is queued. */
export function dueMoves(view, who, queued = []) {
  if (!view || !who || who === "*" || who === "st") return [];
  const waiting = new Set(queued.filter((body) => (body.character || who) === who).map((body) => body.challenge));
  const open = Object.values(view.challenges || {}).filter((ch) => !waiting.has(ch.id));
  const challenges = open.map((ch) => challengeDue(view, ch, who));
  return [...challenges, roundDue(view, who), offerDue(view, who)].filter(Boolean);
}

/** Whether a fight is on: an open challenge, or a round under way. */
export function fighting(view) {
  if (!view) return false;
  const open = Object.values(view.challenges || {}).some((ch) => !ch.outcome && ch.status !== "withdrawn");
  return open || Boolean(view.round && view.round.phase !== "over");
}

/** Whether the player is typing or choosing: the page is not scrolled from under them. */
export function busy() {
  const active = document.activeElement;
  return Boolean(active?.matches?.("input:not([type=checkbox]):not([type=radio]), select, textarea"));
}

let audio = null;

/** Make the sound ready, from a tap (the only time a browser lets it start). */
function wake() {
  if (isQuiet()) return;
  try {
    audio ??= new AudioContext();
    if (audio.state !== "running") audio.resume().catch(() => {});
  } catch {
    /* no sound here */
  }
}

function tone() {
  try {
    audio ??= new AudioContext();
    if (audio.state !== "running") return audio.resume().catch(() => {});
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch {
    /* no sound here */
  }
}

/** The banner: one, whatever is due; with more than one move due it counts them ("2 moves
 * wait: Throw now"), and a tap goes to the first. `update(view, who, queued)` after each draw
 * and whenever the moves queued offline change (`queued`: the commands waiting, live.queued). */
export function yourMove() {
  const text = h("span", { class: "due-text" }, "Your move");
  const banner = h("button", { type: "button", class: "due", hidden: true }, text);
  let shown = new Set();
  let first = null;
  banner.addEventListener("click", () => {
    const card = first?.target();
    if (card) bring(card, "smooth");
  });
  const lock = wakeLock();

  const update = (view, who, queued = []) => {
    const due = dueMoves(view, who, queued);
    if (titleBase === null) pageTitle(who === "*" ? "Spectator" : "Player"); // the page says what it is to whoever reads it
    lock(fighting(view) && view?.status !== "closed");
    first = due[0] || null;
    banner.hidden = !first;
    marked = Boolean(first);
    showTitle();
    if (!first) {
      shown = new Set();
      return false;
    }
    text.textContent = due.length > 1 ? `${due.length} moves wait: ${first.text}` : first.text;
    const fresh = due.filter((d) => !shown.has(d.key));
    shown = new Set(due.map((d) => d.key));
    if (!fresh.length) return false;
    if (!isQuiet()) {
      try {
        navigator.vibrate?.([120, 60, 120]);
      } catch {
        /* not here */
      }
      tone();
    }
    const card = busy() ? null : fresh[0].target();
    if (card) bring(card);
    return Boolean(card);
  };
  return { banner, update };
}

const GAP = 12; // px between the banner and what it brought into view
const FOOT = 64; // px at the screen's foot the toast may hold

/** Bring a card into view under the banner, its heading first; when the card is taller than the
 * screen, further down until the first of the moves it asks for is in sight (the Bid button, the
 * throw's signs, Roll), never so far that the moves' own top goes under the banner: the heading
 * stays in sight whenever the move fits on the screen with it. */
export function bring(card, behavior = "auto") {
  measureSticky(); // the banner's height now, before the page scrolls under it
  const clear = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--sticky-h")) || 0;
  let y = scrollY + card.getBoundingClientRect().top - clear - GAP;
  const moves = card.querySelector(".moves, .turn-slot, .turn-actions, .round-moves");
  if (moves) {
    const box = moves.getBoundingClientRect();
    const first = [...moves.querySelectorAll("button:not([disabled])")].find((b) => b.getClientRects().length);
    const end = first ? first.getBoundingClientRect().bottom : box.bottom;
    const below = scrollY + end - (y + innerHeight) + GAP + FOOT; // how far the first move is below the screen (and the toast)
    const room = scrollY + box.top - clear - GAP - y; // how far the moves' top may rise
    if (below > 0) y += Math.max(0, Math.min(below, room));
  }
  window.scrollTo({ top: Math.max(0, y), behavior });
}

/** Hold the screen awake while `on` (where the browser allows; failures are ignored), and take it
 * again when the page comes back into sight (the browser lets it go when hidden). */
function wakeLock() {
  let want = false;
  let held = null;
  let asking = false;
  const take = async () => {
    if (held || asking || !want || !navigator.wakeLock || document.visibilityState !== "visible") return;
    asking = true;
    try {
      held = await navigator.wakeLock.request("screen");
      held.addEventListener?.("release", () => {
        held = null;
      });
      if (!want) release();
    } catch {
      held = null;
    } finally {
      asking = false;
    }
  };
  const release = () => {
    const lock = held;
    held = null;
    lock?.release?.().catch?.(() => {});
  };
  document.addEventListener("visibilitychange", () => take());
  return (on) => {
    want = on;
    if (on) take();
    else release();
  };
}

const DONE = {
  declare: "Declared.",
  bid: "Answered.",
  join: "Joined the attack.",
  throw: "Thrown.",
  roll: "Rolled.",
  declare_traits: "Traits declared.",
  retest: "Retest called.",
  cancel_retest: "Retest cancelled.",
  pass: "Passed.",
  relent: "Relented.",
  withdraw: "Challenge withdrawn.",
  call_negative: "Negative Trait called.",
  choose_victory: "Chosen.",
  end_turn: "Turn ended.",
  dispute: "Dispute sent to the Storyteller.",
  spend_blood: "Blood spent.",
  let_go: "Let go.",
  assist: "Help offered.",
  intend_attack: "You will attack.",
  expenditures_done: "Done with your expenditures.",
  feed: "Fed.",
};

/** "Thrown.", "Turn ended.": what a command did, once it is done. */
export function doneWords(body, words = null) {
  if (words) return words;
  if (body.type === "declare_action") return body.action?.kind === "move" ? "Moved." : "Action declared.";
  if (body.type === "answer_assist") return body.accept ? "Help accepted." : "Help refused.";
  return DONE[body.type] || "Done.";
}

/** The toast: every command the page sends, said once — queued while offline, then its result. */
export function confirmations(live) {
  const toast = h("div", { class: "toast", "aria-live": "polite", hidden: true });
  let timer = null;
  const say = (words, tone, stay = false) => {
    clearTimeout(timer);
    toast.className = `toast ${tone}`;
    toast.textContent = words;
    toast.hidden = false;
    if (!stay)
      timer = setTimeout(() => {
        toast.hidden = true;
      }, 6000);
  };
  live.addEventListener("queued", () => say("Queued: will be sent when you're back online", "queued", true));
  live.addEventListener("result", (e) => {
    if (e.reply.ok) say(doneWords(e.body, e.words), "ok");
    else say(`Refused: ${e.reply.error?.message || "the server said no"}`, "bad");
  });
  return toast;
}
