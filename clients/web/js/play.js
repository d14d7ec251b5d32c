// The player's page: my character, the challenges in front of me with only the moves the rules
// allow now, declaring a challenge, the round, and the timeline as I saw it. With a game night's
// link it follows the character: one socket on the night, a second on the scene it is in now
// (this same page, drawn for that scene), switched when the Storyteller moves it; between scenes,
// its sheet as it stands tonight.
import { challengeCard } from "./cards.js";
import { sheetCard } from "./sheet.js";
import { declareForm, forgetDeclared, others } from "./declare.js";
import { field, fill, h, keyed, regions, select } from "./dom.js";
import { Live, tokenFromPage } from "./live.js";
import {
  actionsLeft,
  actsNow,
  assistForm,
  budgeted,
  burstForm,
  fightLines,
  intendButton,
  mayBurst,
  mayIntend,
  mayShield,
  offers,
  rageRounds,
  roundMoves,
  shieldControls,
  turnControls,
} from "./turns.js";
import { confirmButton } from "./moves.js";
import { hurry, placeDeadlines } from "./deadlines.js";
import { bring, busy, confirmations, fighting, keepClear, pageTitle, quietSwitch, yourMove } from "./notice.js";
import { carriedLine, lostWhere, sceneTitles } from "./night.js";
import { disputeForm, ruledNotice } from "./ruling_notice.js";
import { CATEGORIES, connection, grow, nameOf, refusal, rulesetName, rulesetTable, timeline, title } from "./words.js";

const app = document.getElementById("app");
const RECENT = 2; // resolved challenges still shown, newest first
const token = tokenFromPage("/play");

if (!token) {
  fill(
    app,
    h("h1", {}, "Justicar"),
    h("p", {}, "Open the invitation link your Storyteller gave you, or "),
    h("a", { href: "/" }, "paste your invitation here"),
  );
} else {
  // the challenge forms ask for the parts of a pool the ruleset table names: it comes first
  rulesetTable().then(() => boot(new Live(token)));
}

/** A scene's link draws the scene; a game night's follows its character (the first view says). */
function boot(live) {
  fill(app, h("p", {}, "Loading…"));
  const decide = () => {
    if (!live.view && live.status !== "refused") return;
    live.removeEventListener("change", decide);
    live.removeEventListener("status", decide);
    if (live.view?.night) followNight(live);
    else start(live);
  };
  live.addEventListener("change", decide);
  live.addEventListener("status", decide);
}

/** The night's page: where the character is, said where the eye is; the scene it is in (this
 * page, on a second socket, closed when it leaves); between scenes, its sheet as it stands tonight. */
function followNight(night) {
  const bar = h("section", { class: "night-bar", "aria-label": "Tonight" });
  const stage = h("div", { class: "stage" });
  fill(app, bar, stage);
  let here; // {id, live} of the scene followed now; null: between scenes; undefined: not drawn yet
  let betweenDraw = null;
  const follow = () => {
    const view = night.view;
    const who = night.viewer;
    if (!view || !who) return;
    const at = view.night?.where?.[who] || null;
    const titles = sceneTitles(night.timeline, view);
    const lost = lostWhere(night.timeline, who, titles);
    const mine = view.characters?.[who];
    if (!at) pageTitle(mine?.name || (who === "*" ? "Spectator" : null), view.title || "Tonight's game"); // in a scene: the scene's page titles it
    fill(
      bar,
      h(
        "p",
        { class: "night-title" },
        `${view.title || "Tonight's game"} · ${rulesetName(view)}${view.status === "closed" ? " · over" : ""}`,
      ),
      h(
        "p",
        { class: "where", role: "status" },
        at ? ["You are in ", h("strong", {}, `“${at.title || at.scene}”`), "."] : "You are between scenes.",
      ),
      at && mine && carriedLine(mine, lost),
    );
    // drawn the first time too: a link opened before the first scene shows the sheet at once
    if (here === undefined || (at?.scene || null) !== (here?.id || null)) {
      here?.live.close();
      here = null;
      betweenDraw = null;
      if (at) {
        const live = new Live(night.token, { scene: at.scene });
        here = { id: at.scene, live };
        start(live, stage);
      } else {
        betweenDraw = between(night, stage);
      }
    }
    betweenDraw?.(lost);
  };
  night.addEventListener("change", follow);
  night.addEventListener("status", follow);
  follow();
}

/** Between scenes: the character as it stands tonight (what it lost and where, Willpower,
 * abilities and blood left, damage), and the night's timeline. */
function between(night, stage) {
  const header = h("header", { class: "top" });
  const me = h("section", { id: "me", "aria-labelledby": "me-h" });
  const steps = h(
    "section",
    { id: "timeline", "aria-labelledby": "tl-h" },
    h("h2", { id: "tl-h" }, "Tonight"),
    timeline([], null, night),
  );
  fill(stage, header, h("main", {}, me, steps));
  const region = regions();
  return (lost) => {
    const view = night.view;
    const who = night.viewer;
    const mine = view?.characters?.[who];
    const watching = who === "*";
    fill(
      header,
      h("h1", {}, mine ? mine.name : watching ? "Spectator" : "Justicar"),
      h(
        "p",
        { class: "scene" },
        view?.status === "closed"
          ? "The game night is over."
          : watching
            ? "Tonight's scenes and who is in each."
            : "Between scenes: the Storyteller sends you into the next one.",
      ),
      connection(night),
    );
    if (view && watching) {
      const scenes = view.night?.scenes || [];
      region(me, JSON.stringify(scenes), () =>
        fill(
          me,
          h("h2", { id: "me-h" }, "Scenes tonight"),
          scenes.length
            ? h(
                "ul",
                { class: "night-scenes" },
                scenes.map((s) =>
                  h(
                    "li",
                    {},
                    h("strong", {}, `“${s.title || s.id}”`),
                    s.open ? " · open" : " · closed",
                    h(
                      "p",
                      {},
                      s.characters.length
                        ? `In it: ${s.characters.map((w) => nameOf(view, w)).join(", ")}`
                        : "Nobody in it now.",
                    ),
                  ),
                ),
              )
            : h("p", { class: "none" }, "No scene yet."),
        ),
      );
    } else if (view) {
      region(me, JSON.stringify([mine, [...lost]]), () =>
        fill(
          me,
          h("h2", { id: "me-h" }, "My character tonight"),
          mine
            ? [lostList(mine, lost), sheetCard(view, who)]
            : h("p", {}, "Your character is not at the game tonight."),
        ),
      );
    }
    grow(steps.querySelector("ol"), night.timeline);
  };
}

/** "Lost tonight: Brawny (in “Elysium”)", one line a Trait. */
function lostList(mine, lost) {
  const traits = mine.traits_lost || [];
  if (!traits.length) return h("p", { class: "lost none" }, "Nothing lost tonight so far.");
  const counts = new Map();
  for (const t of traits) counts.set(t, (counts.get(t) || 0) + 1);
  const line = ([t, n]) =>
    h("li", {}, h("s", {}, t), n > 1 ? ` ×${n}` : "", lost.get(t) ? ` in “${lost.get(t)}”` : " earlier tonight");
  return h("div", { class: "lost-where" }, h("h3", {}, "Lost tonight"), h("ul", {}, [...counts].map(line))); // "Brawny ×2", not Brawny twice
}

function start(live, root = app) {
  const header = h("header", { class: "top" });
  // the sheet folds: closed during a fight (the fight comes first), open otherwise
  const sheetBody = h("div", { class: "sheet-body" });
  const fold = h(
    "details",
    { class: "sheet-fold", open: true },
    h("summary", {}, h("h2", { id: "me-h" }, "My character")),
    sheetBody,
  );
  // named as the sheet it holds, so the sheet is found (and read) even while folded
  const me = h("section", { id: "me", "aria-label": "My character's sheet" }, fold);
  const round = h("section", { id: "round", "aria-label": "Round" });
  const challenges = h("section", { id: "challenges", "aria-labelledby": "ch-h" });
  const declare = h("section", { id: "declare", "aria-labelledby": "declare-h", hidden: true });
  const steps = h("section", { id: "timeline", "aria-labelledby": "tl-h" });
  const openList = h("div", { class: "cards" });
  const none = h("p", {}, "No open challenge involves you.");
  const recentHeading = h("h3", {}, "Just resolved");
  const recentList = h("div", { class: "cards" });
  const problems = h("div", { class: "problems", hidden: true });
  const notice = yourMove();
  // the connection lost, said where the eye is (under the sticky banner), not only in the header
  const offline = h("p", { class: "offline-note", hidden: true }); // the header's badge is the one read aloud
  const late = hurry(live); // a move of mine about to run out of time: a banner, a buzz, the title
  const sticky = h("div", { class: "sticky-top" }, notice.banner, late.banner, offline);
  const quiet = quietSwitch(); // outside the header, which is drawn anew: a focused switch stays focused
  fill(challenges, h("h2", { id: "ch-h" }, "Challenges in front of me"), openList, none, recentHeading, recentList);
  // the fight above the sheet: the round (the turn card), the challenges, the challenge form, then
  // the sheet (folded during a fight) and the timeline
  const main = h("main", {}, round, challenges, declare, me, steps);
  fill(root, header, quiet, sticky, problems, main, confirmations(live));
  keepClear(sticky);
  ruledNotice(live, root.querySelector("main")); // a ruling that touches me; my results elsewhere tonight
  const region = regions(); // redraws what changed, never under someone's fingers
  live.addEventListener("problem", (e) => {
    fill(problems, refusal(e.error));
    problems.hidden = false;
  });
  // a refusal under the declare form is old news once a later command of this page goes through
  live.addEventListener("result", (e) => {
    if (!e.reply?.ok || e.body.type === "declare") return; // a declaration says its own outcome there
    forgetDeclared(live.viewer);
    for (const box of document.querySelectorAll(`#declare .outcome[data-declare="${CSS.escape(live.viewer)}"]`))
      box.replaceChildren();
  });
  let known = null; // the open challenges already shown: a new one of mine is brought into view
  let mineBefore = null; // how each challenge of mine stood at the last draw: one that moves on is brought into view
  let lastSituation = null;
  let wasFighting = null; // the fold follows the fight when it starts and ends, not under the player's taps
  let preset = null; // what the sheet's entry tapped puts in the challenge form ({category, bid} / {skill} / {power})
  let presetAt = 0;
  const startWith = (chosen) => {
    preset = chosen;
    presetAt += 1;
    if (declare.contains(document.activeElement)) document.activeElement.blur(); // the form is drawn anew, filled in
    // after the tap's own press is over: the regions do not redraw under a finger (dom.js)
    setTimeout(() => {
      draw();
      declare.scrollIntoView({ block: "start" });
      declare.querySelector("form input[name=victory]")?.focus({ preventScroll: true });
    }, 0);
  };

  const draw = () => {
    const view = live.view;
    const who = live.viewer;
    const mine = view?.characters?.[who];
    if (view) pageTitle(mine ? mine.name : who === "*" ? "Spectator" : "Player", view.title || view.scene);
    fill(
      header,
      h("h1", {}, mine ? mine.name : who === "*" ? "Spectator" : "Justicar"),
      h(
        "p",
        { class: "scene" },
        view ? `${view.title || view.scene} · ${rulesetName(view)}${view.status === "closed" ? " · closed" : ""}` : "",
      ),
      connection(live),
    );
    quiet.hidden = !who || who === "*";
    offline.hidden = live.status === "live" || live.status === "connecting";
    const reason = live.reason || "reconnecting…";
    offline.textContent =
      live.status === "refused" || reason.startsWith("You are offline")
        ? live.reason || "Refused"
        : `Offline: ${reason}`;
    if (!view) return;
    me.hidden = who === "*";
    const inFight = fighting(view);
    if (inFight !== wasFighting) fold.open = !inFight;
    wasFighting = inFight;
    const mayStart = who !== "*" && view.status === "open" && view.round?.phase !== "declaring";
    if (who !== "*") {
      const pick = mayStart ? startWith : null;
      if (mine) me.setAttribute("aria-label", `${mine.name}'s sheet`);
      region(sheetBody, JSON.stringify([mine, mayStart]), () =>
        fill(sheetBody, sheetCard(view, who, { start: pick, named: false }), sheetActions(live, view, who)),
      );
    }
    round.hidden = !view.round;
    const actions = Object.values(view.characters).map((c) => [
      c.id,
      c.action,
      c.actions_left,
      c.actions,
      c.turn_done,
      c.conditions,
      c.aids,
      c.expended,
      c.round_moves,
    ]);
    const leads = who !== "*" && turnLeads(view, who); // the challenge form opens in the turn card
    keepFocus(round, () => {
      region(
        round,
        JSON.stringify([view.round, actions, names(view), mine?.sheet, mine?.free_used, mine?.maneuvers, leads]),
        () => fill(round, roundPanel(live, view, who)),
      );
      const slot = round.querySelector(".turn-slot");
      if (leads && slot && declare.parentElement !== slot) slot.append(declare);
      else if (!leads && declare.parentElement !== main) main.insertBefore(declare, me);
    });
    // an attack on someone else is in front of me too while I may shield its defender
    const shields = (ch) => who !== "*" && mayShield(view, ch, who);
    const all = Object.values(view.challenges).filter(
      (ch) => who === "*" || involves(ch, who) || Object.keys(ch.moves || {}).length || shields(ch),
    );
    const open = all.filter((ch) => (!ch.outcome && ch.status !== "withdrawn") || Object.keys(ch.moves || {}).length);
    const recent = all
      .filter((ch) => !open.includes(ch))
      .slice(-RECENT)
      .reverse();
    const dispute = who === "*" ? null : (ch) => resultDispute(live, ch);
    // a result card is drawn anew when its deciding step arrives (its dispute names that step)
    const card = (ch) => [
      JSON.stringify([ch, names(view), shields(ch), decidingStep(live, ch)?.seq]),
      () => challengeCard(live, view, ch, { extra: shields(ch) && shieldControls(live, view, ch, [who]), dispute }),
    ];
    challenges.querySelector("h2").textContent = who === "*" ? "Challenges" : "Challenges in front of me";
    none.textContent = who === "*" ? "No open challenge." : "No open challenge involves you.";
    keepFocus(challenges, () => {
      keyed(openList, open.map(card)); // each card kept as it is (picks and all) until it changes
      keyed(recentList, recent.map(card));
    });
    none.hidden = open.length > 0;
    recentHeading.hidden = recent.length === 0;
    placeDeadlines(live, view, main, round); // the time left on the card whose move is due
    late.update();
    // the situation the form answers: when it moves on, a refusal under the form is old news
    const situation = JSON.stringify([view.round?.number, view.round?.phase, view.round?.turn, mine?.turn_done]);
    if (situation !== lastSituation) forgetDeclared(who);
    lastSituation = situation;
    if (who !== "*" && view.status === "open" && view.round?.phase === "declaring") {
      // a round's declarations first: a challenge is declared on your turn, not now (it would be refused)
      declare.hidden = false;
      region(declare, `declaring:${situation}`, () =>
        fill(
          declare,
          h("h2", { id: "declare-h" }, "Declare a challenge"),
          h(
            "p",
            { class: "not-yet" },
            "Not yet: first everyone declares an action for the round; you declare your challenge on your turn.",
          ),
        ),
      );
    } else if (who !== "*" && view.status === "open" && !others(view, who).length) {
      declare.hidden = false; // alone in the scene: no empty form
      region(declare, "alone", () =>
        fill(
          declare,
          h("h2", { id: "declare-h" }, "Declare a challenge"),
          h("p", { class: "not-yet" }, "Nobody here to challenge."),
        ),
      );
    } else if (who !== "*" && view.status === "open" && noStandardLeft(view, mine)) {
      // the view says no standard action is left this round: an attack would be refused
      declare.hidden = false;
      region(declare, `spent:${situation}`, () =>
        fill(
          declare,
          h("h2", { id: "declare-h" }, "Declare a challenge"),
          h(
            "p",
            { class: "not-yet" },
            "No standard action left this round: your next attack waits for the next round.",
          ),
        ),
      );
    } else if (who !== "*" && view.status === "open") {
      declare.hidden = false;
      region(
        declare,
        JSON.stringify([
          names(view),
          mine?.traits,
          mine?.traits_lost,
          mine?.sheet,
          mine?.free_used,
          mine?.maneuvers,
          maneuverAids(mine),
          mine?.action,
          !!view.round,
          situation,
          leads,
          presetAt,
        ]),
        () =>
          fill(
            declare,
            h(leads ? "h3" : "h2", { id: "declare-h" }, leads ? "Attack or challenge" : "Declare a challenge"),
            declareForm(live, view, who, { preset }),
          ),
      );
    } else {
      fill(declare);
      declare.hidden = true;
    }
    if (!steps.firstChild) {
      fill(steps, h("h2", { id: "tl-h" }, "Timeline"), timeline([], who === "*" ? null : stepMenu(live), live));
    }
    grow(steps.querySelector("ol"), live.timeline);
    // a challenge of mine that just appeared (I declared it) is brought into view, not left above
    const ids = open.map((ch) => ch.id);
    const fresh = known ? open.filter((ch) => !known.has(ch.id) && ch.challenger === who) : [];
    known = new Set(ids);
    const scrolled = notice.update(view, who, live.queued);
    if (fresh.length && !scrolled)
      document
        .getElementById(`ch-${fresh.at(-1).id}`)
        ?.closest("article")
        ?.scrollIntoView({ block: "start" });
    // a challenge of mine that moved on (resolved, my sealed throw taken, the other side rolled)
    // and is now out of sight is brought into view, its result first; never while I am typing
    const now = new Map(all.filter((ch) => who !== "*" && involves(ch, who)).map((ch) => [ch.id, standing(ch, who)]));
    const moved = mineBefore
      ? all.filter((ch) => mineBefore.has(ch.id) && now.has(ch.id) && mineBefore.get(ch.id) !== now.get(ch.id))
      : [];
    mineBefore = now;
    const shown = moved.find((ch) => ch.outcome) || moved.at(-1);
    const article = shown && document.getElementById(`ch-${shown.id}`)?.closest("article");
    if (!scrolled && !fresh.length && article && !busy() && !inSight(article)) bring(article);
  };
  live.addEventListener("change", draw);
  live.addEventListener("status", draw);
  live.addEventListener("queued", () => notice.update(live.view, live.viewer, live.queued)); // a move made offline is not due again
  draw();
}

/** Run `redraw`; if it took the focused control away (a move's button, once the move is made),
 * put the focus on the same card's first control, or its heading: never lost to <body>. */
function keepFocus(area, redraw) {
  const active = document.activeElement;
  const inside = active && active !== document.body && area.contains(active);
  const card = inside && active.closest("article[data-challenge]")?.dataset.challenge;
  redraw();
  if (!inside || active.isConnected) return;
  const again = (card && area.querySelector(`article[data-challenge="${CSS.escape(card)}"]`)) || area;
  // a button, never a field: a focused field holds the region's redraws back (dom.js, regions)
  const control = again.querySelector("button:not([disabled]), summary");
  const heading = again.querySelector("h2, h3");
  const target = control || heading;
  if (!target) return;
  if (!control) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

/** How a challenge stands for `who`: a change of it (an outcome, a test, a retest, the moves I
 * have) is news to bring into view. */
function standing(ch, who) {
  return JSON.stringify([
    ch.status,
    ch.outcome,
    (ch.tests || []).length,
    (ch.retests || []).length,
    ch.moves?.[who]?.verbs,
  ]);
}

/** Whether a card's heading is on screen, below the sticky banner (and not at the screen's foot). */
function inSight(article) {
  const sticky = document.querySelector(".sticky-top")?.getBoundingClientRect().bottom || 0;
  const top = article.getBoundingClientRect().top;
  return top >= sticky - 1 && top < innerHeight * 0.7;
}

/** The view's actions left this round (bns) say no standard action is left: no attack now. */
function noStandardLeft(view, mine) {
  return view.round?.phase === "acting" && Boolean(mine?.actions) && !(mine.actions.standard > 0);
}

function names(view) {
  return Object.values(view.characters).map((c) => [c.id, c.name, c.present]);
}

/** Accepted assists that pay for a maneuver: the declare form shows that maneuver as free. */
function maneuverAids(c) {
  return (c?.aids || []).filter((a) => a.benefit === "maneuver" && a.status === "accepted").length;
}

function involves(ch, who) {
  return ch.challenger === who || ch.targets.includes(who) || who in (ch.mob || {});
}

/** Blood and letting go: test-free actions on my own sheet. */
function sheetActions(live, view, who) {
  const c = view.characters[who];
  const out = h("div", { class: "outcome" });
  const send = async (body) => {
    const reply = await live.send(body);
    out.replaceChildren(reply.ok ? "" : refusal(reply.error));
  };
  const parts = [];
  if ((c.blood ?? 0) > 0 && view.rules?.blood) {
    // blood left: none, nothing to offer
    const kind = select("kind", [
      ["strength", "Strength"],
      ["dexterity", "Dexterity"],
      ["stamina", "Stamina"],
    ]);
    parts.push(
      h(
        "form",
        { class: "row", onsubmit: (e) => e.preventDefault() },
        field("Spend blood for a Physical Trait", kind),
        confirmButton(
          "Spend blood",
          "Confirm: spend blood",
          () => send({ type: "spend_blood", kind: kind.value }),
          "Spend a blood point? It cannot be taken back.",
        ),
      ),
    );
  }
  if (c.conditions?.grappling?.length) {
    parts.push(h("button", { type: "button", onclick: () => send({ type: "let_go" }) }, "Let go"));
  }
  return h("div", {}, parts, out);
}

/** The round: the order, whose turn, and my action; where each acts on its own turn (no
 * declarations), my actions left and what I may do now, escapes and the marks everyone carries. */
function roundPanel(live, view, who) {
  const r = view.round;
  if (!r) return "";
  if (r.phase === "over") return h("div", {}, h("p", {}, `Round ${r.number} is over.`), fightLines(view));
  const mine = view.characters[who];
  const out = h("div", { class: "outcome" });
  const send = async (body) => {
    const reply = await live.send(body);
    out.replaceChildren(reply.ok ? "" : refusal(reply.error));
  };
  const ordered = new Set((r.ordered || []).map((g) => [...g].sort().join(" "))); // ties the Storyteller ordered
  const order = r.order.map((group) =>
    group
      .map((w) => `${w === who ? "you" : nameOf(view, w)} (${r.initiative[w]})`)
      .join(ordered.has([...group].sort().join(" ")) ? ", then " : " = "),
  ); // "Order: Joe (9) = you (9) → Vi (2)"
  const parts = [h("h2", {}, `Round ${r.number}${r.first ? " (first of the fight)" : ""}`)];
  // not in this round's order (added after it started): the view's order says so, and when I act
  const outside = mine && r.phase !== "declaring" && !(r.order || []).some((group) => group.includes(who));
  if (outside)
    parts.push(h("p", { class: "joins-next" }, "You came in after this round started: you join the fight next round."));
  if (r.phase === "declaring") {
    const waiting = Object.values(view.characters)
      .filter((c) => c.present && !c.action)
      .map((c) => (c.id === who ? "you" : c.name));
    parts.push(h("p", {}, `Everyone declares an action. Waiting for: ${waiting.join(", ") || "nobody"}.`));
    parts.push(roundMoves(view, who, send));
    if (mine && !mine.action) parts.push(actionForm(view, who, send));
  } else if (r.phase === "expending") {
    const waiting = Object.values(view.characters)
      .filter((c) => c.present && !c.expended && c.conditions?.fair_escape !== "escaped")
      .map((c) => (c.id === who ? "you" : c.name));
    parts.push(
      h(
        "p",
        {},
        `Expenditures: each says what they spend, then initiative. Waiting for: ${waiting.join(", ") || "nobody"}.`,
      ),
    );
    parts.push(roundMoves(view, who, send));
  } else if (budgeted(view)) {
    parts.push(h("p", {}, `Order: ${order.join(" → ")}`));
    parts.push(turnLine(view, r, who));
    if (mine?.actions)
      parts.push(
        h(
          "p",
          { class: "actions-left" },
          `Actions left: ${actionsLeft(mine)}.`,
          mine.rage ? ` Then ${rageRounds(mine)}.` : "",
        ),
      );
    parts.push(fightLines(view));
    if (mine && mayIntend(view, who)) parts.push(intendButton(view, who, send));
    if (mine && mayBurst(view, who)) parts.push(burstForm(view, who, send));
    if (mine) parts.push(offers(view, who, send));
    if (mine && actsNow(view, who)) {
      if (turnLeads(view, who)) parts.push(h("div", { class: "turn-slot" })); // attack first: the challenge form
      parts.push(turnControls(view, who, send));
      if (mine.actions.standard > 0) parts.push(assistForm(view, who, send));
    }
  } else {
    parts.push(h("p", {}, `Order: ${order.join(" → ")}`));
    parts.push(turnLine(view, r, who));
    if (turnLeads(view, who)) parts.push(h("div", { class: "turn-slot" })); // the challenge form, first
    parts.push(roundMoves(view, who, send));
    if (r.turn.includes(who) && mine && !mine.turn_done) parts.push(endTurnButton(mine, send));
  }
  return h("div", {}, parts, out);
}

/** Whether the turn card leads to the challenge form now: my turn (or acting out of turn after a
 * failed escape) with an action left that a challenge may take. */
function turnLeads(view, who) {
  const r = view.round;
  const mine = view.characters?.[who];
  if (!r || r.phase !== "acting" || !mine || view.status !== "open") return false;
  if (budgeted(view))
    return (
      actsNow(view, who) &&
      (mine.actions?.standard || 0) > 0 &&
      !["declared", "held"].includes(mine.conditions?.fair_escape)
    );
  return r.turn.includes(who) && !mine.turn_done && mine.actions_left !== 0;
}

/** "End my turn", asked first while an action is left ("1 action left: end your turn?"); not
 * when the action declared for the round was to do nothing (defend): ending is the move then. */
function endTurnButton(mine, send) {
  const end = () => send({ type: "end_turn" });
  const left = mine.action?.kind === "none" ? 0 : (mine.actions_left ?? 0);
  if (left <= 0) return h("button", { type: "button", class: "quiet", onclick: end }, "End my turn");
  const words = `You have ${left} action${left === 1 ? "" : "s"} left. End your turn? It cannot be taken back.`;
  return confirmButton("End my turn", "Confirm: end my turn", end, words);
}

function turnLine(view, r, who) {
  const turn = r.turn.map((w) => nameOf(view, w)).join(", ");
  const extra = budgeted(view) ? `Rage round ${r.extra}` : `extra action ${r.extra}`;
  const phase = r.turn_phase === "extra" ? ` (${extra})` : r.turn_phase === "end_of_turn" ? " (end of turn)" : "";
  const mineNow = r.turn.includes(who) && !view.characters[who]?.turn_done;
  if (r.turn.includes(who) && !mineNow) {
    const still = r.turn.filter((w) => w !== who && !view.characters[w]?.turn_done).map((w) => nameOf(view, w));
    return h("p", {}, `You have ended your turn${phase}.${still.length ? ` Still acting: ${still.join(", ")}.` : ""}`);
  }
  if (!turn) return h("p", {}, "Nobody is acting now.");
  return h("p", { class: mineNow ? "your-turn" : "" }, mineNow ? `Your turn${phase}.` : `Now acting${phase}: ${turn}.`);
}

function actionForm(view, who, send) {
  const kind = select("kind", [
    ["challenge", "An action with a test"],
    ["move", "Only move"],
    ["none", "Nothing (defend)"],
    ["full_round", "A full-round action"],
    ["end_of_turn", "An end-of-turn action"],
  ]);
  const category = select(
    "category",
    CATEGORIES.map((c) => [c, title(c)]),
  );
  const target = select("target", [["", "—"], ...others(view, who)]);
  const steps = h("input", { type: "number", name: "steps", min: 0, max: 6, value: 0, inputmode: "numeric" });
  const stand = h("input", { type: "checkbox", name: "stand" });
  return h(
    "form",
    {
      class: "stack",
      onsubmit: (e) => {
        e.preventDefault();
        const action = { kind: kind.value, steps: Number(steps.value), stand: stand.checked };
        if (kind.value === "challenge" || kind.value === "end_of_turn") action.category = category.value;
        if (target.value) action.target = target.value;
        send({ type: "declare_action", action });
      },
    },
    field("My action this round", kind),
    field("Its category", category),
    field("Against", target),
    field("Steps to move (0: stay where you are)", steps),
    h("label", { class: "check" }, stand, " Stand up first (one step)"),
    h("button", { type: "submit" }, "Declare my action"),
  );
}

/** The step that decided `ch` (its latest outcome), from the timeline this page holds. */
function decidingStep(live, ch) {
  return live.timeline
    .filter((s) => s.data?.challenge === ch.id && (s.type === "challenge_resolved" || s.type === "outcome_corrected"))
    .at(-1);
}

/** "Dispute this result", on the result card of a challenge (null: its deciding step is not on
 * this page). */
function resultDispute(live, ch) {
  const step = decidingStep(live, ch);
  if (!step) return null;
  return h(
    "details",
    { class: "dispute" },
    h("summary", {}, "Dispute this result"),
    disputeForm(live, step.seq, null, "Why the result is wrong"),
  );
}

/** The timeline's steps open a menu: the step number is its button; one menu at a time, under the
 * step, to dispute it. */
function stepMenu(live) {
  let open = null; // {button, menu}
  const close = () => {
    if (!open) return;
    open.button.setAttribute("aria-expanded", "false");
    open.menu.remove();
    open = null;
  };
  return (step) => {
    const button = h(
      "button",
      { type: "button", class: "seq step-menu", "aria-expanded": "false", "aria-label": `Step ${step.seq}: options` },
      `#${step.seq}`,
    );
    button.addEventListener("click", () => {
      const again = open?.button === button;
      close();
      if (again) return;
      const menu = h(
        "div",
        { class: "step-options" },
        disputeForm(live, step.seq, `Step #${step.seq}: ${step.summary}`, "Why this step is wrong"),
      );
      button.closest("li").append(menu);
      button.setAttribute("aria-expanded", "true");
      open = { button, menu };
      menu.querySelector("input")?.focus();
    });
    return button;
  };
}
