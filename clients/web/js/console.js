// The Storyteller's console of a scene, in views that fit a phone (console_views.js): Now (what
// needs the Storyteller now: open disputes, challenges with their hidden parts and throws seen at
// the table, the round's turn, NPC moves), People (characters, from a sheet form or files),
// Disputes (and rulings, with their what-ifs), Invitations, Log (the timeline) and Settings (closing
// the scene, forks, new scenes, downloads, ids for the record). A game night's link opens the
// night's console (console_night.js), where each scene of the night is a tab holding this console;
// `/st?scene=…` with the night's key still opens one scene's alone.
import { challengeCard } from "./cards.js";
import { declareForm } from "./declare.js";
import { download, field, fill, h, keyed, regions as redraws, select } from "./dom.js";
import { Live, pageLink, pagePath, tokenFromPage } from "./live.js";
import { amendForm, sheetForm } from "./sheetform.js";
import {
  actionsLeft,
  actsNow,
  assistForm,
  budgeted,
  escapeLine,
  intendButton,
  markBadges,
  markWords,
  mayIntend,
  mayShield,
  offers,
  rageRounds,
  roundMoves,
  shieldControls,
  turnControls,
} from "./turns.js";
import {
  CATEGORIES,
  SIGN_LABELS,
  connection,
  defenderOf,
  diceCount,
  dieOf,
  dieWord,
  facesPattern,
  grow,
  nameOf,
  refusal,
  rulesetName,
  rulesetTable,
  sheetFields,
  sourceLabel,
  stakesPools,
  timeline,
  title,
} from "./words.js";
import { quietSwitch } from "./notice.js";
import { currentDeadlines, deadlineFields, deadlineList, lateBanner } from "./deadlines.js";
import { cell, confirmButton, echo, notes, outcome, replayLink, sender } from "./console_common.js";
import { bringCard, bringLate, disputeAlert, lateMoves, npcMoves, openDisputes } from "./console_alert.js";
import { invitations } from "./console_invite.js";
import { entryItem, ledgerKeeper, startNight } from "./console_night.js";
import { SCENE_VIEWS, forTheRecord, place, viewBar, viewPanes } from "./console_views.js";

// module state of the scene console shown (one at a time: a night's console mounts the scene of
// the tab shown), declared before the first draw below uses it and cleared when a console mounts
let ofNight = false; // this console is of a scene of a game night (opened from the night's console)
const forks = new Map(); // a what-if the other way, by its control's key -> the fork's Storyteller token
let ruleOn = null; // the step the Storyteller chose to rule on from the timeline ("Rule on this step")
const app = document.getElementById("app");
const sceneOfNight = new URLSearchParams(location.search).get("scene"); // a scene of the token's night
const tabOfLink = new URLSearchParams(location.hash.slice(1)).get("tab"); // "#token=…&tab=ely": the night's console, on a scene's tab
const token = tokenFromPage("/st");
if (tabOfLink)
  history.replaceState(null, "", `${location.pathname}${location.search}#${encodeURIComponent(tabOfLink)}/now`);
if (sceneOfNight)
  history.replaceState(null, "", `${location.pathname}?scene=${encodeURIComponent(sceneOfNight)}${location.hash}`);

/** A scene's key draws the scene's console; a game night's, the night's (the first view says). */
function boot(live) {
  fill(app, h("p", {}, "Loading…"));
  const decide = () => {
    if (!live.view && live.status !== "refused") return;
    live.removeEventListener("change", decide);
    live.removeEventListener("status", decide);
    if (live.view?.night) startNight(live, { sceneConsole: start });
    else alone(live);
  };
  live.addEventListener("change", decide);
  live.addEventListener("status", decide);
}

/** A scene's console alone on its page: its view follows the address; an open dispute raises the
 * banner, marks the title and buzzes. */
function alone(live, { night = false } = {}) {
  const mount = h("div", {});
  let shown = null;
  const alert = disputeAlert((item) => {
    location.hash = item.kind === "npc" || item.kind === "late" ? "#now" : "#disputes";
    if (item.kind === "npc") bringCard(item.challenge);
    if (item.kind === "late") bringLate();
  });
  fill(app, alert.banner, mount);
  shown = start(live, {
    night,
    into: mount,
    onDraw: (view, current) =>
      alert.update(
        [...lateMoves(view), ...npcMoves(view), ...openDisputes(view)],
        consoleTitle(view),
        () => current === "disputes",
      ),
  });
  const follow = () => shown.show(place()[0]);
  window.addEventListener("hashchange", follow);
  follow();
}

/** The page's title: "Storyteller · The alley · Justicar" (a what-if says so first). */
function consoleTitle(view) {
  if (view.forked_from) return `What-if · ${view.title || "Untitled scene"} · Justicar`;
  return `Storyteller · ${view.title || "Untitled scene"} · Justicar`;
}

/** Where each section of a scene's console is: the view that holds it. */
const VIEW_OF = {
  alerts: "now",
  deadlines: "now",
  table: "now",
  challenges: "now",
  round: "now",
  characters: "people",
  disputes: "disputes",
  invitations: "invitations",
  timeline: "log",
  tonight: "now", // a what-if of a scene of a night: how the night would stand (what a what-if is for)
  scene: "settings",
  timing: "settings",
  tools: "settings",
};

/** The console of one scene, drawn into `into`, in views (`hashOf(view)`: a view's address).
 * `onDraw(view, current)` after each draw. Returns {show(view), stop()}: stop leaves the scene's
 * connection open (a night's console keeps one a scene) and draws no more. */
export function start(
  live,
  { night = false, into = app, hashOf = (key) => `#${key}`, onDraw = null, back = night, tab = false } = {},
) {
  ofNight = night;
  ruleOn = null;
  forks.clear();
  steps.clear();
  notes.clear();
  npcChosen = null;
  npcOpen = false;
  const header = h("header", { class: tab ? "scene-top" : "top" });
  const regions = {
    alerts: h("section", { id: "now-disputes", "aria-labelledby": "now-disp-h", hidden: true }),
    deadlines: h("section", { id: "deadlines", "aria-labelledby": "deadlines-h", hidden: true }),
    table: h("p", { class: "present hint" }),
    challenges: h("section", { id: "challenges", "aria-labelledby": "chal-h" }),
    round: h("section", { id: "round", "aria-labelledby": "round-h" }),
    tonight: h("section", { id: "tonight", "aria-labelledby": "tonight-h", hidden: true }),
    characters: h("section", { id: "characters", "aria-labelledby": "chars-h" }),
    disputes: h("section", { id: "disputes", "aria-labelledby": "disp-h" }),
    invitations: h("section", { id: "invitations", "aria-labelledby": "inv-h" }),
    timeline: h("section", { id: "timeline", "aria-labelledby": "tl-h" }),
    scene: h("section", { id: "scene", "aria-labelledby": "scene-h" }),
    timing: h("section", { id: "timing", "aria-labelledby": "timing-h" }),
    tools: h("section", { id: "tools", "aria-labelledby": "tools-h" }),
  };
  const bar = viewBar("Console views", SCENE_VIEWS, hashOf);
  const { panes, show: showPane } = viewPanes(SCENE_VIEWS);
  for (const [key, section] of Object.entries(regions)) panes.get(VIEW_OF[key]).append(section);
  const quiet = quietSwitch();
  quiet.hidden = false;
  panes.get("settings").append(h("section", { class: "quiet-settings", "aria-label": "Sound and vibration" }, quiet));
  const banner = h("div", { class: "what-if-banner", role: "note", hidden: true });
  const problems = h("div", { class: "problems" });
  const backLink =
    back &&
    h(
      "p",
      { class: "night-link" },
      "A scene of tonight's game: ",
      h("a", { href: pagePath("st", live.token, live.welcome?.scene) }, "back to the night's console"),
    );
  fill(into, banner, header, backLink, bar.nav, problems, h("main", {}, [...panes.values()]));
  const region = redraws(); // what changed, never under the Storyteller's fingers
  const tonight = whatIfLedger(live, regions.tonight);
  const onProblem = (e) => fill(problems, refusal(e.error));
  live.addEventListener("problem", onProblem);
  const openCards = h("div", { class: "cards" });
  const doneCards = h("div", { class: "cards" });
  const rows = h("tbody", {});
  let built = false;
  let current = "now";
  const go = (key) => {
    location.hash = hashOf(key);
  };

  const draw = () => {
    const view = live.view;
    const named = view
      ? `${view.title || "Untitled scene"} · ${rulesetName(view)}${view.status === "closed" ? " · closed" : ""}`
      : "";
    // in a night's tab the night's header holds the one connection badge: the scene's shows only
    // when its own connection is not live (reconnecting, refused)
    if (tab) fill(header, h("h2", { class: "scene" }, named), live.status !== "live" && connection(live));
    else fill(header, h("h1", {}, "Storyteller"), h("p", { class: "scene" }, named), connection(live));
    if (!view) return;
    whatIf(banner, view);
    tonight(view);
    const disputed = view.disputes.filter((d) => d.status === "open");
    fill(
      bar.links.get("disputes"),
      "Disputes",
      disputed.length > 0 && h("span", { class: "count" }, ` (${disputed.length} open)`),
    );
    bar.links.get("disputes").classList.toggle("waiting", disputed.length > 0);
    const due = npcMoves(view).length; // a player waits on the Storyteller's move for an NPC
    fill(
      bar.links.get("now"),
      "Now",
      due > 0 && h("span", { class: "count" }, ` (${due} NPC move${due === 1 ? "" : "s"})`),
    );
    bar.links.get("now").classList.toggle("waiting", due > 0);
    region(regions.alerts, JSON.stringify([disputed, people(view)]), () => {
      regions.alerts.hidden = disputed.length === 0;
      fill(regions.alerts, nowDisputes(view, disputed, hashOf("disputes")));
    });
    const timed = view.deadlines || [];
    const setNow = currentDeadlines(live, view);
    const timing = Object.keys(setNow).length > 0; // the scene times moves: the section stays, to say none runs now
    region(regions.deadlines, JSON.stringify([timed, view.status, timing]), () => {
      regions.deadlines.hidden = timed.length === 0 && !timing;
      fill(regions.deadlines, timedMoves(live, view));
    });
    region(regions.timing, JSON.stringify([setNow, view.status]), () =>
      fill(regions.timing, h("h2", { id: "timing-h" }, "Response deadlines"), setDeadlines(live, view, setNow)),
    );
    region(regions.table, JSON.stringify([live.presence, people(view)]), () =>
      fill(regions.table, presence(live, view)),
    );
    if (!built) {
      built = true;
      fill(regions.invitations, h("h2", { id: "inv-h" }, "Invitations"), invitations(live));
      fill(
        regions.tools,
        h("h2", { id: "tools-h" }, "What-if, new scenes & downloads"),
        tools(live, view),
        newScene(live),
      );
      fill(
        regions.timeline,
        h("h2", { id: "tl-h" }, "Timeline"),
        h("p", {}, h("a", { href: replayLink(live), target: "_blank" }, "Step through it in the replay viewer")),
        h("p", { class: "hint" }, "Tap a step's number to rule on it (any step, disputed or not)."),
        timeline([], ruleControl(live, go), live),
      );
      fill(
        regions.challenges,
        h("h2", { id: "chal-h" }, "Challenges"),
        outcome("challenges"),
        h("p", { class: "none" }, "No open challenge."),
        openCards,
        h("div", { class: "npc-declare" }),
        h(
          "details",
          { class: "done" },
          h("summary", {}, ""),
          doneCards,
          h(
            "button",
            { type: "button", class: "quiet older", onclick: () => live.olderChallenges() },
            "Show older challenges",
          ),
        ),
      );
    }
    regions.tools.querySelector("input[name=at]").max = view.version; // a fork keeps events that exist
    const players = Object.values(view.characters)
      .filter((c) => !c.npc && c.present)
      .map((c) => [c.id, c.name]);
    region(regions.invitations.querySelector("select[name=character]"), JSON.stringify(players), () => {
      const choice = regions.invitations.querySelector("select[name=character]");
      const kept = choice.value;
      fill(
        choice,
        h("option", { value: "" }, players.length ? "Choose a character" : "Add a character first"),
        players.map(([id, name]) => h("option", { value: id }, name)),
      );
      choice.value = players.some(([id]) => id === kept) ? kept : "";
      choice.dispatchEvent(new Event("filled")); // Invite waits for a choice
    });
    region(regions.scene, JSON.stringify([view.status, view.title, live.presence, openChallenges(view)]), () =>
      fill(regions.scene, h("h2", { id: "scene-h" }, "Scene"), scenePanel(live, view)),
    );
    drawPeople(live, view, regions.characters, rows);
    const everyone = Object.values(view.characters);
    const roundKey = everyone.map((c) => [
      c.id,
      c.present,
      c.action,
      c.actions_left,
      c.actions,
      c.turn_done,
      c.conditions,
      c.aids,
      c.maneuvers,
      c.expended,
      c.round_moves,
    ]);
    const npcSheets = everyone.filter((c) => c.npc).map((c) => [c.sheet, c.traits, c.traits_lost, c.free_used]); // the acting NPC's form
    region(
      regions.round,
      JSON.stringify([view.status, view.round, openChallenges(view), roundKey, npcSheets, people(view)]),
      () => fill(regions.round, h("h2", { id: "round-h" }, "Round"), roundPanel(live, view)),
    );
    regions.round.hidden = !view.rules?.rounds; // a ruleset with no rounds: nothing to show in Now
    const npcs = Object.values(view.characters).filter((c) => c.npc && c.present);
    const assists = (c) => (c.aids || []).filter((a) => a.benefit === "maneuver" && a.status === "accepted").length; // a second maneuver
    // an NPC on its turn has its form in its turn's block (Now, the round): not here as well
    const actingNpc = npcs.find((c) => actsNow(view, c.id));
    const inTurn = budgeted(view) && actingNpc?.actions?.standard > 0;
    const npcForm = regions.challenges.querySelector(".npc-declare");
    const npcKey = JSON.stringify([
      view.status,
      npcs.map((c) => [c.id, c.sheet, assists(c), c.maneuvers]),
      people(view),
      actingNpc?.id,
      inTurn,
    ]);
    region(npcForm, npcKey, () =>
      fill(npcForm, view.status === "open" && npcs.length > 0 && !inTurn && npcDeclare(live, view, npcs, actingNpc)),
    );
    drawChallenges(live, view, regions.challenges, openCards, doneCards, npcs);
    const context = disputed.map((d) => [
      disputedStep(live, d.event)?.summary,
      challengeOf(live, view, disputedStep(live, d.event))?.outcome,
    ]);
    const chosen =
      ruleOn !== null
        ? [ruleOn, disputedStep(live, ruleOn)?.summary, challengeOf(live, view, disputedStep(live, ruleOn))?.outcome]
        : null;
    const ruled = view.rulings.map((r) => challengeOf(live, view, disputedStep(live, r.event))?.outcome);
    region(regions.disputes, JSON.stringify([view.disputes, view.rulings, context, chosen, ruled, view.version]), () =>
      fill(
        regions.disputes,
        h("h2", { id: "disp-h" }, "Disputes and rulings"),
        disputes(live, view),
        outcome("disputes"),
      ),
    );
    grow(regions.timeline.querySelector("ol"), live.timeline);
    onDraw?.(view, current);
  };
  const show = (key) => {
    const next = panes.has(key) ? key : "now";
    const moved = next !== current;
    current = next;
    showPane(next);
    bar.mark(next);
    if (moved) window.scrollTo(0, 0);
    if (live.view) onDraw?.(live.view, current);
  };
  live.addEventListener("change", draw);
  live.addEventListener("status", draw);
  draw();
  show(current);
  const stop = () => {
    live.removeEventListener("change", draw);
    live.removeEventListener("status", draw);
    live.removeEventListener("problem", onProblem);
  };
  return { show, stop, current: () => current };
}

/** The characters' table, and adding characters (an open scene only). */
function drawPeople(live, view, section, rows) {
  if (!section.firstChild) {
    const columns = rated(view)
      ? ["Character", "Attributes", "Skills", "Health", "Willpower", "Conditions", "Adjust"]
      : ["Character", "Traits left", "Lost tonight", "Health", "Willpower", "Conditions", "Adjust"];
    const head = h(
      "tr",
      {},
      columns.map((t) => h("th", { scope: "col" }, t)),
    );
    fill(
      section,
      h("h2", { id: "chars-h" }, "Characters"),
      h("div", { class: "scroll" }, h("table", { class: "stacked" }, h("thead", {}, head), rows)),
      h("div", { class: "adding" }, sheetForm(live), sheetFiles(live)),
      h("p", { class: "closed-note hint" }, "The scene is closed: nobody joins it now."),
      h("div", { class: "people-record" }),
    );
  }
  section.querySelector(".adding").hidden = view.status !== "open"; // add_character takes an open scene only
  section.querySelector(".closed-note").hidden = view.status !== "closed";
  keyed(
    rows,
    Object.values(view.characters).map((c) => [
      JSON.stringify([c, removable(view, c), view.status]),
      () => characterRow(live, view, c),
    ]),
  );
  const ids = Object.values(view.characters).map((c) => [`${c.name}'s id`, c.id]);
  const record = section.querySelector(".people-record");
  if (record.dataset.ids !== JSON.stringify(ids)) {
    record.dataset.ids = JSON.stringify(ids);
    fill(record, forTheRecord(ids, "of the characters, for the command line and sheet files"));
  }
}

/** The open challenges (each with the Storyteller's controls), the resolved ones folded. */
function drawChallenges(live, view, section, openCards, doneCards, npcs) {
  const all = Object.values(view.challenges);
  const open = all.filter((ch) => !ch.outcome && ch.status !== "withdrawn");
  const done = [
    ...all.filter((ch) => !open.includes(ch)).reverse(),
    ...Object.values(live.older).filter((ch) => !view.challenges[ch.id]),
  ];
  const names = Object.values(view.characters).map((c) => c.name);
  const shielders = (ch) => npcs.filter((c) => mayShield(view, ch, c.id)).map((c) => c.id); // NPCs who may take the attack
  const card = (ch) =>
    challengeCard(live, view, ch, {
      forCharacter: true,
      extra: [stControls(live, view, ch), shieldControls(live, view, ch, shielders(ch), { forCharacter: true })],
    });
  keyed(
    openCards,
    open.map((ch) => [JSON.stringify([ch, names, shielders(ch)]), () => card(ch)]),
  );
  keyed(
    doneCards,
    done.map((ch) => [JSON.stringify([ch, names]), () => challengeCard(live, view, ch, { forCharacter: true })]),
  );
  section.querySelector(".none").hidden = open.length > 0;
  section.querySelector("details.done").hidden = done.length === 0;
  const older = (view.older || 0) - Object.keys(live.older).length;
  section.querySelector("details.done summary").textContent =
    `${done.length + Math.max(0, older)} resolved or withdrawn`;
  section.querySelector("button.older").hidden = older <= 0 || live.olderNext === null;
}

/** Who is connected, in one line. */
function presence(live, view) {
  const present = live.presence.map(
    (p) =>
      `${p.role === "player" ? nameOf(view, p.character) : p.role === "st" ? "Storyteller" : "spectators"}${p.connections > 1 ? ` ×${p.connections}` : ""}`,
  );
  return `Connected: ${present.join(", ") || "nobody yet"}`;
}

/** The moves timed now, first in the Now view: each late one's banner with the Storyteller's
 * choices (as the view offers them), then every running deadline with its time left. */
function timedMoves(live, view) {
  const timed = view.deadlines || [];
  const late = timed.filter((d) => d.told);
  const out = outcome("deadlines");
  const send = sender(live, out);
  return [
    h(
      "h2",
      { id: "deadlines-h" },
      late.length ? `${late.length} late move${late.length === 1 ? "" : "s"}` : "Timed moves",
    ),
    late.map((d) => lateBanner(d, send)),
    out,
    late.length > 0 && h("h3", {}, "Timed moves"),
    deadlineList(live, view),
  ];
}

/** The scene's response deadlines, changed during play (`set_deadlines`: every running clock starts
 * again); none on by default. */
function setDeadlines(live, view, current) {
  if (view.status !== "open") return h("p", { class: "hint" }, "The scene is closed: nothing is timed.");
  const { fieldset, read } = deadlineFields(current, "How long each kind of move may wait");
  const out = outcome("timing");
  const send = sender(live, out);
  return h(
    "form",
    {
      class: "stack deadlines-form",
      onsubmit: (e) => {
        e.preventDefault();
        send({ type: "set_deadlines", deadlines: read() });
      },
    },
    h(
      "p",
      { class: "hint" },
      "A move not made in time: the Storyteller is told (and chooses), or the server acts by itself. Changing them starts every running clock again.",
    ),
    fieldset,
    h("button", { type: "submit" }, "Set the deadlines"),
    out,
  );
}

/** The open disputes, first in the Now view: who disputes what, and a link to rule on it. */
function nowDisputes(view, open, href) {
  return [
    h("h2", { id: "now-disp-h" }, open.length === 1 ? "A dispute to rule on" : `${open.length} disputes to rule on`),
    h(
      "ul",
      { class: "now-disputes" },
      open.map((d) => h("li", {}, `${nameOf(view, d.by)}: “${d.reason}” `, h("a", { href }, "Rule on it"))),
    ),
  ];
}

/** Each step's number in the timeline is its "Rule on this step" control: it opens the ruling
 * form for that step in the disputes section (any step, disputed or not). */
function ruleControl(live, go) {
  return (step) => {
    const open = () => {
      ruleOn = step.seq;
      // once the press is over (a region is not redrawn under a finger), draw the form and go to it
      setTimeout(() => {
        go("disputes");
        live.changed();
        const heading = document.getElementById("rule-any-h");
        heading?.scrollIntoView({ block: "start" });
        heading?.focus({ preventScroll: true });
      }, 20);
    };
    return h(
      "button",
      {
        type: "button",
        class: "step-no",
        "aria-label": `#${step.seq}: rule on this step`,
        title: "Rule on this step",
        onclick: open,
      },
      `#${step.seq}`,
    );
  };
}

/** A what-if looks unlike the live scene: a banner naming where it was forked, another accent. */
function whatIf(banner, view) {
  const origin = view.forked_from;
  document.body.classList.toggle("what-if", Boolean(origin));
  banner.hidden = !origin;
  if (!origin) return;
  fill(
    banner,
    h("strong", {}, "What-if"),
    ` of ${view.title ? `“${view.title}”` : "an untitled scene"}, from step ${origin.seq} — nothing here changes the real scene.`,
  );
}

/** How many challenges are open (the scene closes only when none is). */
function openChallenges(view) {
  return Object.values(view.challenges).filter((ch) => !["resolved", "withdrawn"].includes(ch.status)).length;
}

function scenePanel(live, view) {
  const out = outcome("scene");
  const send = sender(live, out);
  return h(
    "div",
    {},
    h("p", {}, presence(live, view)),
    view.status === "open" &&
      openChallenges(view) === 0 &&
      confirmButton(
        "Close the scene",
        "Confirm: close the scene",
        () => send({ type: "close_scene" }),
        "Close the scene? Nothing more can be played in it; only disputes and rulings go on.",
      ),
    view.status === "open" &&
      openChallenges(view) > 0 &&
      h("p", { class: "hint" }, "The scene can be closed once no challenge is open."),
    out,
    forTheRecord([
      ["Scene id", view.scene],
      ["Ruleset id", view.ruleset],
      ["Events in its log", view.version],
    ]),
  );
}

/** Open another scene; its console link holds its own Storyteller key. Its rulesets and each one's
 * house rules come from the server's descriptor (`/rulesets.json`), the default first. */
function newScene(live) {
  const ruleset = select("ruleset", []);
  const houseRules = h("div", {});
  let forms = []; // [ruleset name, fieldset, read()] for each ruleset with options of its own
  rulesetTable().then((table) => {
    ruleset.replaceChildren(
      ...table.map((r) => h("option", { value: r.name }, r.summary ? `${r.title} (${r.summary})` : r.title)),
    );
    forms = table.filter((r) => r.options?.length).map((r) => houseRuleForm(r));
    houseRules.replaceChildren(...forms.map(([, fieldset]) => fieldset));
    ruleset.dispatchEvent(new Event("change"));
  });
  ruleset.addEventListener("change", () => {
    for (const [name, fieldset] of forms) fieldset.hidden = ruleset.value !== name;
  });
  const newTitle = h("input", { name: "title", autocomplete: "off", placeholder: "Elysium, interrupted" });
  const timing = deadlineFields();
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
          const own = forms.find(([name]) => name === ruleset.value);
          const deadlines = timing.read();
          if (own || Object.keys(deadlines).length)
            body.options = {
              ...(own ? { [ruleset.value]: own[2]() } : {}),
              ...(Object.keys(deadlines).length ? { deadlines } : {}),
            };
          const reply = await live.request(body, "scene_created");
          if (reply.type === "error") return created.replaceChildren(refusal(reply));
          const link = pageLink("st", reply.token, reply.scene);
          created.replaceChildren(
            h(
              "p",
              {},
              `${body.title ? `“${body.title}”` : "The new scene"} is open: `,
              h("a", { href: link, target: "_blank" }, "open its console"),
              " (in a new tab; the link holds its Storyteller key: keep it).",
            ),
          );
        },
      },
      field("Rules", ruleset),
      houseRules,
      timing.fieldset,
      field("Title", newTitle),
      h("button", { type: "submit" }, "Create"),
    ),
    created,
  );
}

/** A ruleset's house rules as the descriptor gives them: a box for each yes-or-no, a choice for
 * each other (the usual one first); returns [its name, the fieldset, what it holds]. */
function houseRuleForm(rules) {
  const choices = rules.options.some((o) => o.choices?.length);
  const legend = h(
    "legend",
    {},
    `House rules for ${rules.title}${choices ? " (the first choice of each is the usual one)" : ""}`,
  );
  const controls = rules.options.map((o) => [
    o,
    o.choices?.length
      ? select(o.name, o.choices)
      : h("input", { type: "checkbox", name: o.name, checked: !!o.default }),
  ]);
  const fieldset = h(
    "fieldset",
    { class: "house-rules", hidden: true },
    legend,
    controls.map(([o, control]) =>
      control.type === "checkbox"
        ? h("label", { class: "check" }, control, ` ${o.label}`)
        : field(o.label, control, o.help),
    ),
  );
  const read = () =>
    Object.fromEntries(
      controls.map(([o, control]) => [o.name, control.type === "checkbox" ? control.checked : control.value]),
    );
  return [rules.name, fieldset, read];
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
        const label = `${file.name}${sheets.length > 1 ? ` · ${sheet?.name || sheet?.id || "?"}` : ""}`;
        const line = h("div", {}, h("strong", {}, label));
        const send = async (asWritten = false) => {
          const reply = await live.send({
            type: "add_character",
            character: sheet,
            ...(asWritten ? { as_written: true } : {}),
          });
          line.replaceChildren(line.firstChild, reply.ok ? " added." : sheetRefusal(reply.error, () => send(true)));
        };
        results.append(line);
        await send();
      }
    }
  };
  return h(
    "div",
    {},
    h(
      "form",
      { class: "row", onsubmit: add },
      field("Add characters from sheet files (JSON: one sheet or a list)", files),
      h("button", { type: "submit" }, "Add"),
    ),
    results,
  );
}

/** A refused sheet: each problem as the server words it for a player, one a line (no field paths);
 * what the rules leave open (`unusual_sheet`) may be kept as written (`keep` sends it so). */
function sheetRefusal(error, keep) {
  const problems = Object.values(error.fields || {});
  if (!problems.length) return refusal(error);
  const count = `${problems.length} ${problems.length === 1 ? "problem" : "problems"}`;
  const open = error.code === "unusual_sheet";
  const button = open && h("button", { type: "button", class: "keep", onclick: keep }, "Keep it as written");
  const word = open ? "Check: " : "Refused: ";
  return h(
    "div",
    { class: "refusal", role: "alert" },
    h("strong", {}, word),
    `the sheet has ${count}:`,
    h(
      "ul",
      { class: "fields" },
      problems.map((what) => h("li", {}, what)),
    ),
    button || "",
  );
}

function people(view) {
  return Object.values(view.characters).map((c) => [c.id, c.name, c.present]);
}

let npcChosen = null; // the NPC the declare form was last for, kept when it is drawn anew
let npcOpen = false; // and whether it was open

/** Declare a challenge for an NPC: the same form a player has, sent with `character`. */
function npcDeclare(live, view, npcs, acting = null) {
  const who = select(
    "npc",
    npcs.map((c) => [c.id, c.name]),
  );
  if (acting)
    who.value = acting.id; // the NPC whose turn it is, first
  else if (npcs.some((c) => c.id === npcChosen)) who.value = npcChosen;
  const form = h("div", {}, declareForm(live, view, who.value, { forCharacter: true }));
  who.addEventListener("change", () => {
    npcChosen = who.value;
    fill(form, declareForm(live, view, who.value, { forCharacter: true }));
  });
  const details = h(
    "details",
    { open: npcOpen },
    h("summary", {}, "Declare a challenge for an NPC"),
    field("For", who),
    form,
  );
  details.addEventListener("toggle", () => {
    npcOpen = details.open;
  });
  return details;
}

/** Whether the ruleset's sheet rates attributes rather than counting Traits (its descriptor's
 * fields say, whatever way the attributes are written: the table's columns follow them). */
function rated(view) {
  const names = sheetFields(view).map((f) => f.name);
  return names.length ? names.includes("attributes") && !names.includes("traits") : stakesPools(view);
}

/** One character's row, hidden parts included, with its adjust form. */
function characterRow(live, view, c) {
  const pools = rated(view);
  const ratings = (levels) =>
    Object.entries(levels || {})
      .map(([name, n]) => `${title(name)} ${n}`)
      .join(" · ") || "—";
  return h(
    "tr",
    { class: c.present ? "" : "gone" },
    h("th", { scope: "row" }, c.name, c.npc ? ` (NPC${c.sheet?.auto ? ", auto" : ""})` : "", sheetExtras(c)),
    pools
      ? cell("Attributes", ratings(c.attributes))
      : cell("Traits left", CATEGORIES.map((cat) => `${title(cat)} ${c.traits?.[cat] ?? 0}`).join(" · ")),
    pools ? cell("Skills", ratings(c.skills)) : cell("Lost tonight", (c.traits_lost || []).join(", ") || "—"),
    cell(
      "Health",
      `${c.health ?? "–"} (${
        Object.entries(c.damage || {})
          .filter(([, n]) => n)
          .map(([k, n]) => `${n} ${k}`)
          .join(", ") || "unhurt"
      })`,
    ),
    cell("Willpower", String(c.willpower ?? "–")),
    cell("Conditions", conditionText(view, c)),
    h(
      "td",
      { class: "controls" },
      view.status === "open" && adjustForm(live, c),
      view.status === "open" && amendForm(live, c),
      view.status === "open" && removable(view, c) && removeButton(live, view, c),
    ),
  );
}

/** "Weapons: Knife (melee, +1) · Powers: Potence 2": what the sheet carries besides its ratings,
 * as the player's own sheet says it (none: nothing shown). */
function sheetExtras(c) {
  const sheet = c.sheet || {};
  const levels = (list) =>
    (Array.isArray(list) ? list.map((n) => [n, null]) : Object.entries(list || {})).map(([n, l]) =>
      l ? `${n} ${l}` : n,
    );
  const weapons = (sheet.weapons || []).map(
    (w) => `${w.name} (${w.kind}${w.bonus ? `, ${w.bonus > 0 ? "+" : ""}${w.bonus}` : ""})`,
  );
  const parts = [
    ["Weapons", weapons],
    ["Powers", levels(sheet.powers)],
    ["Merits", levels(sheet.merits)],
  ].filter(([, items]) => items.length);
  if (!parts.length) return null;
  const line = ([label, items]) =>
    h("span", { class: "extra" }, `${label}: `, h("span", { class: "value" }, items.join(", ")));
  return h("span", { class: "sheet-extras hint" }, parts.map(line));
}

/** Whether `remove_character` would take the character: present, and in no open challenge. */
function removable(view, c) {
  const open = Object.values(view.challenges).filter((ch) => !["resolved", "withdrawn"].includes(ch.status));
  return (
    c.present && !open.some((ch) => [ch.challenger, ...(ch.targets || []), ...Object.keys(ch.mob || {})].includes(c.id))
  );
}

function removeButton(live, view, c) {
  const out = outcome(`remove-${c.id}`);
  const send = () => sender(live, out)({ type: "remove_character", character: c.id });
  const here = view.title ? `“${view.title}”` : "this scene";
  if (ofNight && !c.npc) {
    // a character of the night goes back to the night with what it carries, to be sent on from there
    const label = `Take ${c.name} out of ${here} (back to the night, with what they carry)`;
    return h(
      "div",
      {},
      confirmButton(
        label,
        `Confirm: take ${c.name} out of ${here}`,
        send,
        `Take ${c.name} out of ${here}? They go back to the night between scenes, carrying what they lost and spent here; from the night's console you send them into another scene. What they did here stays in the log.`,
      ),
      out,
    );
  }
  return h(
    "div",
    {},
    confirmButton(
      `Remove ${c.name}`,
      `Confirm: remove ${c.name}`,
      send,
      `Remove ${c.name} from the scene? What they did stays in the log; adding the same character again brings them back.`,
    ),
    out,
  );
}

function conditionText(view, c) {
  const k = c.conditions || {};
  return (
    [
      ...markWords(view, c),
      escapeLine(view, c),
      k.moved_steps > 1 && `moved ${k.moved_steps}`,
      !c.present && "left the scene",
    ]
      .filter(Boolean)
      .map((part) => part.replace(/\.$/, "")) // "Sal escaped." reads "Sal escaped, left the scene" in a list
      .join(", ") || "—"
  );
}

/** The conditions the Storyteller sets or clears by hand (`adjust`); `escaped` is only cleared (back in the fight). */
const CONDITIONS = [
  "no_exit",
  "incapacitated",
  "prone",
  "blinded",
  "hamstrung",
  "unconscious",
  "armor_mangled",
  "disarmed",
  "staked",
  "escaped",
];

function adjustForm(live, c) {
  const out = outcome(`adjust-${c.id}`);
  const willpower = h("input", { type: "number", name: "willpower", value: 0, inputmode: "numeric" });
  const damage = h("input", { type: "number", name: "damage", value: 0, inputmode: "numeric" });
  const kind = select("damage_type", [
    ["bashing", "bashing"],
    ["lethal", "lethal"],
    ["aggravated", "aggravated"],
  ]);
  const restore = h("input", { name: "restore", autocomplete: "off", placeholder: "Brawny, Quick" });
  const reason = h("input", { name: "reason", autocomplete: "off", required: true, placeholder: "why" });
  const condition = select("condition", [["", "—"], ...CONDITIONS.map((n) => [n, n.replaceAll("_", " ")])]);
  const change = select("condition_change", [
    ["set", "Set it"],
    ["clear", "Clear it"],
  ]);
  const list = (text) =>
    text
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
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
            if (condition.value)
              changes[change.value === "set" ? "set_conditions" : "clear_conditions"] = [condition.value];
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
  if (view.status === "closed")
    return h("p", {}, "The scene is closed: no more rounds; only disputes and rulings go on.");
  if (!view.rules?.rounds)
    return h("p", {}, `${rulesetName(view)} has no combat rounds here: challenges are declared as they come.`);
  if (!r || r.phase === "over") return startRound(view, r, send, out);
  const place = new Map(r.order.flat().map((w, i) => [w, i])); // the rows in the order they act
  const who = Object.values(view.characters)
    .filter((c) => c.present)
    .sort((a, b) => (place.get(a.id) ?? 1e9) - (place.get(b.id) ?? 1e9));
  const acting = r.turn.filter((w) => !view.characters[w]?.turn_done).map((w) => nameOf(view, w));
  const turns = budgeted(view); // a standard and a simple action each, on one's turn: no declarations
  const rows = who.map((c) => (turns ? [turnRow(view, c, send), failEscape(live, c)] : actionRow(view, c, send)));
  const columns = turns
    ? ["Character", "Actions left", "Turn"]
    : ["Character", "Action", "Initiative", "Actions left", "Turn", ""];
  const ordered = new Set((r.ordered || []).map(tieKey)); // ties the Storyteller ordered: they act in that order
  const ties = r.order.filter((group) => group.length > 1);
  const undeclared = who.filter((c) => !c.action);
  const spending =
    r.phase === "expending" ? who.filter((c) => !c.expended && c.conditions?.fair_escape !== "escaped") : [];
  const phase =
    r.phase === "declaring"
      ? "declaring actions"
      : r.phase === "expending"
        ? "expenditures"
        : r.turn_phase === "extra"
          ? turns
            ? `Rage round ${r.extra}`
            : `extra action ${r.extra}`
          : r.turn_phase === "end_of_turn"
            ? "end of turn"
            : "initiative";
  return h(
    "div",
    {},
    h(
      "p",
      {},
      `Round ${r.number}${r.first ? " (first of the fight)" : ""}${r.narrative ? " (narrative)" : ""}: ${phase}.${acting.length ? ` Now acting: ${acting.join(", ")}.` : r.phase === "declaring" ? "" : " Nobody is acting now."}`,
    ),
    r.order.length > 0 &&
      h(
        "p",
        {},
        `Order: ${r.order.map((g) => g.map((w) => `${nameOf(view, w)} ${r.initiative[w]}`).join(ordered.has(tieKey(g)) ? ", then " : " = ")).join(" → ")}`,
      ),
    ties.map((group) =>
      ordered.has(tieKey(group))
        ? h(
            "details",
            { class: "reorder" },
            h("summary", {}, `You ordered the tie at ${r.initiative[group[0]]}: change it`),
            tieForm(view, group, send),
          )
        : tieForm(view, group, send),
    ),
    r.phase === "declaring" && undeclared.length > 0 && actionFor(view, undeclared, send),
    r.phase === "expending" &&
      h(
        "div",
        { class: "expenditures" },
        h("p", {}, `Expenditures: waiting for ${spending.map((c) => c.name).join(", ") || "nobody"}; then initiative.`),
        h(
          "div",
          { class: "choices" },
          spending.map((c) =>
            h(
              "button",
              { type: "button", class: "quiet", onclick: () => send({ type: "expenditures_done", character: c.id }) },
              `${c.name} is done`,
            ),
          ),
        ),
      ),
    npcRoundMoves(view, send),
    turns && npcTurns(live, view, send),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "stacked" },
        h(
          "tr",
          { class: "head" },
          columns.map((t) => h("th", { scope: "col" }, t)),
        ),
        rows,
      ),
    ),
    confirmButton(
      `End round ${r.number}`,
      `Confirm: end round ${r.number}`,
      () => send({ type: "end_round" }),
      endingWords(view, who),
    ),
    out,
  );
}

/** What ending the round now cuts short: who has not finished. */
function endingWords(view, who) {
  const r = view.round;
  const left = who
    .filter((c) => !c.turn_done && c.conditions?.fair_escape !== "escaped" && (r.phase !== "declaring" || !c.action))
    .map((c) => c.name);
  const open = openChallenges(view);
  return [
    `End round ${r.number} for everyone?`,
    left.length && `Not done yet: ${left.join(", ")}.`,
    open && `${open} challenge${open === 1 ? " is" : "s are"} still open.`,
  ]
    .filter(Boolean)
    .join(" ");
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
  return found.length
    ? h(
        "div",
        { class: "npc-round-moves" },
        found.map(([c, moves]) =>
          h("section", { "aria-label": `${c.name}'s round moves` }, h("h3", {}, `${c.name} may`), moves),
        ),
      )
    : null;
}

const ACTION_WORDS = {
  none: "nothing (defends)",
  challenge: "a test",
  move: "moves",
  full_round: "a full-round action",
  end_of_turn: "an end-of-turn action",
};

/** A character in a round of declared actions: the action, initiative, actions left, its turn. */
function actionRow(view, c, send) {
  const r = view.round;
  const a = c.action;
  return h(
    "tr",
    { class: c.turn_done ? "turn-done" : r.turn.includes(c.id) ? "your-turn" : "" },
    h("th", { scope: "row" }, c.name),
    cell(
      "Action",
      a
        ? `${ACTION_WORDS[a.kind] || a.kind}${a.category ? ` (${a.category})` : ""}${a.target ? ` → ${nameOf(view, a.target)}` : ""}${a.steps ? `, ${a.steps} steps` : ""}`
        : "not declared",
    ),
    cell("Initiative", String(r.initiative[c.id] ?? "–")),
    cell("Actions left", String(c.actions_left ?? "–")),
    cell("Turn", c.turn_done ? "done" : r.turn.includes(c.id) ? "acting" : "—"),
    h("td", { class: "controls" }, r.turn.includes(c.id) && !c.turn_done ? endTurn(c, send) : ""),
  );
}

/** End a character's turn for them: asked first (a turn ended cannot be taken back, and the button
 * sits in a list of rows a thumb may brush). */
function endTurn(c, send) {
  return confirmButton(
    `End ${c.name}'s turn`,
    `Confirm: end ${c.name}'s turn`,
    () => send({ type: "end_turn", character: c.id }),
    `End ${c.name}'s turn? It cannot be taken back.`,
  );
}

/** A character in a round of turns: its escape and marks, its actions left, its turn (to end). */
function turnRow(view, c, send) {
  const r = view.round;
  const acting = r.turn.includes(c.id) && !c.turn_done;
  const escapeWords = escapeLine(view, c);
  const escaping = ["declared", "held"].includes(c.conditions?.fair_escape); // the ST's call follows, in the next row
  return h(
    "tr",
    { class: [acting && "your-turn", c.turn_done && "turn-done", escaping && "escaping"].filter(Boolean).join(" ") },
    h(
      "th",
      { scope: "row" },
      c.name,
      escapeWords && h("div", { class: `escape ${c.conditions.fair_escape}` }, escapeWords),
      markBadges(view, c),
    ),
    cell("Actions left", actionsLeft(c) || "–", c.rage ? h("div", {}, `then ${rageRounds(c)}`) : ""),
    h(
      "td",
      {
        "data-label": "Turn",
        class: acting || c.turn_done || c.conditions?.fair_escape === "escaped" ? "controls" : "controls waiting",
      },
      c.conditions?.fair_escape === "escaped" ? "escaped" : c.turn_done ? "done" : acting ? endTurn(c, send) : "—",
    ),
  );
}

/** Under an escaping character's row, the Storyteller's call: the escape fails (`adjust`
 * `fail_escape`), for a Mental or Social challenge won against the escaper's Physical attribute,
 * which the engine cannot tell from the rest (bns:fair-escape-blocked). Null: not escaping. */
function failEscape(live, c) {
  if (!["declared", "held"].includes(c.conditions?.fair_escape)) return null;
  const out = outcome(`fail-escape-${c.id}`);
  const reason = h("input", {
    name: "reason",
    autocomplete: "off",
    required: true,
    maxlength: 200,
    placeholder: "Dominate: he stays",
  });
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
        field(
          `Why ${c.name}'s escape fails (kept in the log)`,
          reason,
          "A Mental or Social challenge won against their Physical attribute",
        ),
        h("button", { type: "submit" }, `Fail ${c.name}'s escape`),
      ),
      out,
    ),
  );
}

/** Start the next round: a new fight or not, and Rage rounds by character (optional). */
function startRound(view, r, send, out) {
  const newFight = h("input", { type: "checkbox", name: "new_fight" });
  const narrative = Boolean(view.rules?.narrative) && h("input", { type: "checkbox", name: "narrative" });
  const present = Object.values(view.characters).filter((c) => c.present);
  const rage = present.map((c) => [
    c.id,
    h("input", { type: "number", name: `rage-${c.id}`, min: 0, max: 5, value: 0, inputmode: "numeric" }),
    c.name,
  ]);
  const submit = (e) => {
    e.preventDefault();
    const body = { type: "start_round", new_fight: newFight.checked };
    const rounds = Object.fromEntries(
      rage.filter(([, box]) => Number(box.value) > 0).map(([id, box]) => [id, Number(box.value)]),
    );
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
      narrative &&
        h(
          "label",
          { class: "check" },
          narrative,
          " A narrative round (against NPCs: each rolls against your difficulty)",
        ),
      present.length > 0 &&
        h(
          "details",
          { class: "rage" },
          h("summary", {}, "Rage rounds (optional)"),
          h(
            "div",
            { class: "pair" },
            rage.map(([, box, name]) => field(`${name}'s Rage rounds`, box)),
          ),
        ),
      h("button", { type: "submit" }, `Start round ${(r?.number || 0) + 1}`),
    ),
    out,
  );
}

/** What the NPCs may do now: the acting one's turn (its attack first: the challenge form, for it),
 * "will attack" one escaping, help offered. */
function npcTurns(live, view, send) {
  const npcs = Object.values(view.characters).filter((c) => c.npc && c.present);
  const parts = npcs.flatMap((c) => {
    const found = [];
    if (mayIntend(view, c.id)) found.push(intendButton(view, c.id, send, { forCharacter: true }));
    found.push(offers(view, c.id, send, { forCharacter: true }));
    if (actsNow(view, c.id) && (c.actions.standard || c.actions.simple)) found.push(npcActs(live, view, c, send));
    return found.filter(Boolean);
  });
  return parts.length ? h("div", { class: "npc-turns" }, parts) : null;
}

/** The acting NPC's turn: its attack or challenge first (the form a player's turn card opens, for
 * the NPC), then, folded, its other actions (escape, move, draw…) and help to another's attack. */
function npcActs(live, view, c, send) {
  const attack = c.actions.standard > 0 && view.status === "open";
  // with its attack in sight, the rest is a tap away (folded), so the Now view stays short
  const others = [
    turnControls(view, c.id, send, { forCharacter: true }),
    c.actions.standard > 0 && assistForm(view, c.id, send, { forCharacter: true }),
  ];
  return h(
    "section",
    { class: "npc-acts", "aria-labelledby": `acts-${c.id}` },
    h("h3", { id: `acts-${c.id}` }, `${c.name} acts`),
    attack &&
      h(
        "div",
        { class: "npc-attack" },
        h("h4", {}, `${c.name}'s attack or challenge`),
        declareForm(live, view, c.id, { forCharacter: true, short: true }),
      ),
    attack
      ? h(
          "details",
          { class: "npc-other" },
          h("summary", {}, "Or another action (escape, move, draw, help…)"),
          ...others,
        )
      : [h("h4", {}, "Actions left"), ...others],
  );
}

/** Declare an action for a character (an NPC, or a player away from the table). */
function actionFor(view, undeclared, send) {
  const character = select(
    "character",
    undeclared.map((c) => [c.id, c.name]),
  );
  const kind = select("kind", [
    ["none", "Nothing (defend)"],
    ["challenge", "An action with a test"],
    ["move", "Only move"],
    ["full_round", "A full-round action"],
    ["end_of_turn", "An end-of-turn action"],
  ]);
  const category = select(
    "category",
    CATEGORIES.map((c) => [c, title(c)]),
  );
  const target = select("target", [
    ["", "—"],
    ...Object.values(view.characters)
      .filter((c) => c.present)
      .map((c) => [c.id, c.name]),
  ]);
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
  const picks = group.map((_, i) =>
    select(
      `place-${i}`,
      group.map((w) => [w, nameOf(view, w)]),
    ),
  );
  for (const [i, p] of picks.entries()) p.value = group[i];
  return h(
    "form",
    {
      class: "row tie",
      onsubmit: (e) => {
        e.preventDefault();
        send({ type: "order", characters: picks.map((p) => p.value) });
      },
    },
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
  const signs = (w) => [
    ...plain,
    ...Object.keys(SIGN_LABELS).filter(
      (s) => !plain.includes(s) && s !== "random" && (view.characters[w]?.sheet?.gestures || []).includes(s),
    ),
  ];
  const picks = sides.map((w) =>
    select(
      `sign-${w}`,
      signs(w).map((s) => [s, SIGN_LABELS[s]]),
    ),
  );
  const dice = Boolean(dieOf(view));
  // as record_test accepts it: both have bid, no Trait is owed, and no sealed throw is in yet
  const ready = ["bidding", "throwing"].includes(ch.status) && Object.keys(ch.owed || {}).length === 0;
  const recordable = ready && (dice || (ch.thrown || []).length === 0);
  const pair = `${nameOf(view, ch.challenger)}${ch.targets?.length ? ` → ${ch.targets.map((w) => nameOf(view, w)).join(", ")}` : ""}`;
  return h(
    "section",
    { class: "st-controls", "aria-label": `Storyteller's controls for ${pair}` },
    dice && recordable && diceForms(view, ch, send),
    !dice &&
      recordable &&
      h(
        "form",
        {
          class: "row",
          onsubmit: (e) => {
            e.preventDefault();
            send({
              type: "record_test",
              challenge: ch.id,
              signs: Object.fromEntries(sides.map((w, i) => [w, picks[i].value])),
            });
          },
        },
        sides.map((w, i) => field(`${nameOf(view, w)} threw`, picks[i])),
        h("button", { type: "submit" }, "Record the test"),
      ),
    !dice &&
      ready &&
      !recordable &&
      h(
        "p",
        { class: "hint" },
        `A sealed throw is in: ${ch.thrown.map((w) => nameOf(view, w)).join(" and ")} threw on their phone, so the test is thrown there, not recorded here.`,
      ),
    confirmButton(
      `Withdraw ${pair}`,
      `Confirm: withdraw ${pair}`,
      () => send({ type: "withdraw", challenge: ch.id }),
      `Withdraw ${pair}? It stops where it is, and cannot be taken back.`,
    ),
    out,
  );
}

/** Dice rolled by hand at the table (dice rulesets): the faces for each side still to roll, entered
 * for it; a narrative test's difficulty, and the rerolls its NPC makes on a success. */
function diceForms(view, ch, send) {
  const sides = [ch.challenger, defenderOf(ch)].filter((w) => w !== "st" && !(ch.rolled || []).includes(w));
  const npc = ch.kind === "static" && ch.targets[0] ? view.characters[ch.targets[0]] : null;
  const rerolls = npc?.sheet?.rerolls || 0;
  const die = dieOf(view);
  const parse = (text) =>
    text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
  return h(
    "div",
    { class: "dice-entry" },
    ch.difficulty !== undefined &&
      ch.difficulty !== null &&
      h(
        "p",
        {},
        `Difficulty ${ch.difficulty}${npc ? ` (${npc.name}${rerolls ? `: rerolls ${rerolls} success${rerolls === 1 ? "" : "es"}` : ""})` : ""}.`,
      ),
    sides.map((w) => {
      const values = h("input", {
        name: `values-${w}`,
        autocomplete: "off",
        inputmode: "numeric",
        required: true,
        placeholder: die ? `1 ${die.size}` : undefined,
        pattern: facesPattern(die, "+"),
      });
      const again = rerolls
        ? h("input", { name: `rerolls-${w}`, autocomplete: "off", inputmode: "numeric", placeholder: "2" })
        : null;
      const offer = ch.to_roll?.[w];
      const ticks = (offer?.sources || []).map((source) => ({
        source,
        box: h("input", { type: "checkbox", name: `source-${w}` }),
      }));
      const count = h("small", { class: "hint" });
      const counted = () => {
        const n = (offer?.dice || 1) + ticks.filter((t) => t.box.checked).length;
        count.textContent = `${diceCount(n, die)} to enter${offer ? ` (${offer.why}; each retest named adds one)` : ""}`;
      };
      for (const t of ticks) t.box.addEventListener("change", counted);
      counted();
      const submit = (e) => {
        e.preventDefault();
        const body = { type: "roll", challenge: ch.id, character: w, values: parse(values.value) };
        const retests = ticks.filter((t) => t.box.checked).map((t) => t.source);
        if (retests.length) body.retests = retests;
        if (again?.value.trim()) body.rerolls = parse(again.value);
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
        field(`${nameOf(view, w)} rolled (${dieWord(die)} faces)`, values, "Rolled by hand at the table"),
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
      steps.set(
        seq,
        i < 0
          ? { seq, summary: `Step ${seq} could not be fetched: see it in the replay.` }
          : { ...page.events[i], summary: page.summaries?.[i] || page.events[i].type },
      );
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
        h(
          "button",
          {
            type: "button",
            class: "quiet",
            onclick: () => {
              ruleOn = null;
              setTimeout(() => live.changed(), 20);
            },
          },
          "Put it away",
        ),
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
        view.rulings.map((r) =>
          h(
            "li",
            {},
            `Ruling on step ${r.event}: `,
            rulingWords(live, view, r),
            otherWay(live, view, r.event, `ruling-${r.event}-${r.seq || ""}`),
          ),
        ),
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
    a &&
      h(
        "p",
        { class: "hint" },
        "In the challenge ",
        h("strong", {}, a.title),
        ": ",
        a.verdict ? a.verdict.words : a.now,
      ),
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
  const winner =
    decided &&
    select("winner", [
      ["challenger", `${names.challenger} wins`],
      ["defender", `${names.defender} wins`],
      ["none", "Nobody (a draw)"],
    ]);
  const winnerField = winner && field("Winner", winner);
  if (winnerField) {
    winnerField.hidden = true;
    decision.addEventListener("change", () => {
      winnerField.hidden = decision.value !== "amend";
    });
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
        const back = () => {
          asking.replaceChildren();
          submit.hidden = false;
          submit.focus();
        };
        const yes = h(
          "button",
          {
            type: "button",
            class: "danger",
            onclick: () => {
              back();
              sender(
                live,
                out,
                "Ruled.",
              )(body).then((reply) => reply.ok && !key.startsWith("rule-any") && echo(out, "disputes"));
            },
          },
          `Confirm: rule on step ${seq}`,
        );
        submit.hidden = true;
        fill(
          asking,
          h(
            "p",
            { class: "warn" },
            `Rule on step ${seq}: ${what}${amended}? Reason: “${body.reason}”. The ruling goes into the log for everyone, and cannot be taken back.`,
          ),
          h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")),
        );
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
    h(
      "p",
      { class: "done", role: "status" },
      `A what-if of ${view.title ? `“${view.title}”` : "this scene"} with every step so far, where ${names[other]} wins step ${seq} instead (nothing here changes the real scene): `,
      h("a", { href: `/st#token=${encodeURIComponent(token)}`, target: "_blank" }, "open its console"),
    );
  if (forks.has(key)) out.append(made(forks.get(key)));
  const go = async (button) => {
    button.disabled = true;
    out.replaceChildren(h("p", { role: "status" }, "Forking…"));
    const reply = await live.request({ type: "fork", at: view.version }, "forked");
    if (reply.type === "error") {
      button.disabled = false;
      out.replaceChildren(refusal(reply));
      return;
    }
    const fork = new Live(reply.token, { subscribe: false });
    const ruled = await new Promise((resolve) => {
      const tryIt = async () => {
        if (fork.status !== "live") return;
        fork.removeEventListener("status", tryIt);
        resolve(
          await fork.send({
            type: "rule",
            event: seq,
            decision: "overturn",
            reason: `What if: ${names[other]} had won step ${seq}`,
          }),
        );
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
  const button = h(
    "button",
    { type: "button", class: "quiet", onclick: () => go(button) },
    "What if this had gone the other way",
  );
  return h("div", { class: "other-way", dataset: { key } }, button, out);
}

/** Fork a what-if; download the audit and the export. */
function tools(live, view) {
  const out = h("div", { class: "outcome" });
  const at = h("input", {
    type: "number",
    name: "at",
    min: 1,
    required: true,
    placeholder: "the last event to keep",
    inputmode: "numeric",
  });
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
          out.replaceChildren(
            h(
              "p",
              {},
              `What-if of ${view.title ? `“${view.title}”` : "this scene"}, from step ${at.value}: steps 1–${at.value}, then its own way. `,
              h("a", { href: pagePath("st", reply.token, reply.scene), target: "_blank" }, "Open its console"),
            ),
          );
        },
      },
      field("Fork a what-if after event #", at),
      h("button", { type: "submit" }, "Fork"),
    ),
    h(
      "div",
      { class: "choices" },
      h(
        "button",
        { type: "button", onclick: () => fetchDoc({ type: "audit", format: "html" }) },
        "Download the audit (HTML)",
      ),
      h("button", { type: "button", onclick: () => fetchDoc({ type: "export" }) }, "Download the export (JSON lines)"),
      h("a", { href: replayLink(live), target: "_blank" }, "Open the replay viewer"),
    ),
    out,
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
      fill(
        section,
        h("h2", { id: "tonight-h" }, "Tonight's ledger, had it gone this way"),
        h("button", { type: "button", class: "quiet", onclick: () => refresh(true) }, "Work it out again"),
        body,
      );
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
    h(
      "p",
      { class: "hint" },
      `The night “${book.title}” as it would stand had “${w.title}” gone as this what-if goes (from its step ${w.at}). The real night does not change.`,
    ),
    w.characters.map((c) => {
      const real = book.ledgers.find((l) => l.character === c.character);
      const now = real ? (real.now?.lost || []).map((l) => l.trait) : [];
      return h(
        "div",
        { class: `what-if-ledger${c.changed ? " changed" : ""}`, dataset: { character: c.character } },
        h("h3", {}, c.name),
        c.changed
          ? [
              h(
                "p",
                { class: "would-lost" },
                `Would be without: ${c.lost.join(", ") || "nothing"} (really: ${now.join(", ") || "nothing"}).`,
              ),
              c.new.length > 0 && h("p", {}, "Would happen:"),
              c.new.length > 0 &&
                h(
                  "ul",
                  {},
                  c.new.map((e) => entryItem(live, book, e, "would", link)),
                ),
              c.gone.length > 0 && h("p", {}, "Would not happen:"),
              c.gone.length > 0 &&
                h(
                  "ul",
                  {},
                  c.gone.map((e) => entryItem(live, book, e, "gone", () => null)),
                ),
            ]
          : h("p", { class: "none" }, "No change to their night."),
      );
    }),
  ];
}

// the page: a scene's console, a night's, or where to find the link (last: everything above is defined)
if (!token) {
  fill(
    app,
    h("h1", {}, "Justicar"),
    h(
      "p",
      {},
      "Open the console link from ",
      h("code", {}, "justicar serve"),
      " or ",
      h("a", { href: "/" }, "paste your Storyteller token"),
      ".",
    ),
  );
} else {
  // the sheet forms are drawn from the ruleset table: it comes first
  rulesetTable().then(() => {
    if (sceneOfNight) alone(new Live(token, { scene: sceneOfNight }), { night: true });
    else boot(new Live(token));
  });
}
