// The Storyteller's console of a game night: the night's own view (its scenes, who is where, each
// character's ledger for the night, moves, new scenes, invitations, closing the night), and each
// scene of the night in a tab of the same page.
import { fill, h, regions as redraws, select, field } from "./dom.js";
import { Live } from "./live.js";
import { grow, nameOf, refusal, ruleNote, rulesetName, connection, timeline } from "./words.js";
import { confirmButton, done, notes, outcome, replayLink, sender } from "./console_common.js";
import { invitations } from "./console_invite.js";
import { currentDeadlines, deadlineFields } from "./deadlines.js";
import { bringCard, bringLate, disputeAlert, lateMoves, npcMoves, openDisputes } from "./console_alert.js";
import { NIGHT_VIEWS, forTheRecord, place, viewBar, viewPanes } from "./console_views.js";

const app = document.getElementById("app");
const movedTo = new Map(); // character -> the scene a move sent them into (its confirmation holds while they are there)
const LEDGER_SETTLE = 400; // ms after a scene of the night moves before its ledger is asked again

// -- a game night -------------------------------------------------------------------------------

/** A scene of the night's tab, in this same console. */
function sceneTab(scene) {
  return address(scene, "now");
}

/** The night's ledger (`ledger`: a JSON document), or {error}. */
async function fetchLedger(live) {
  const doc = await live.request({ type: "ledger" }, "document");
  if (doc.type === "error") return { error: doc };
  try {
    return JSON.parse(doc.text);
  } catch {
    return { error: { message: "The ledger could not be read; try again." } };
  }
}

/** Ask for the ledger again after each new step, at most one request at a time. */
export function ledgerKeeper(live, draw) {
  let asked = -1;
  let busy = false;
  const refresh = async (force = false) => {
    if (busy || live.status !== "live" || (!force && asked === live.lastSeq)) return;
    busy = true;
    asked = live.lastSeq;
    const book = await fetchLedger(live);
    busy = false;
    draw(book);
    if (asked !== live.lastSeq) refresh();
  };
  return refresh;
}

/** The night's console: one page, one Storyteller link for the whole night. Its tabs: the night's
 * own (its scenes and who is where, the ledgers, invitations — one link a player for the whole
 * night — and the night's timeline, each a view), then one tab a scene of the night, holding that
 * scene's console (`sceneConsole`: console.js's `start`). The address says the tab and its view
 * ("#night/ledgers", "#elysium/now"); a dispute in any scene raises the banner and the title. */
export function startNight(live, { sceneConsole }) {
  const header = h("header", { class: "top" });
  const alert = disputeAlert((d) => {
    location.hash = address(d.scene, d.kind === "npc" || d.kind === "late" ? "now" : "disputes");
    if (d.kind === "npc") bringCard(d.challenge);
    if (d.kind === "late") bringLate();
  });
  const tabList = h("ul", {});
  const tabs = h("nav", { class: "console-bar tabs", "aria-label": "Tonight's scenes" }, tabList);
  const problems = h("div", { class: "problems" });
  const slot = h("div", { class: "tab-body" });
  fill(app, alert.banner, header, tabs, problems, slot);
  live.addEventListener("problem", (e) => fill(problems, refusal(e.error)));
  const nightPane = nightView(live);
  const scenePane = h("div", { class: "scene-tab" });
  const lives = new Map(); // scene -> its Live (the night's key opens each scene of the night)
  let mounted = null; // {scene, console}: the scene console shown
  let tab = null;
  const sceneOf = (id) => (live.view?.night?.scenes || []).find((s) => s.id === id);
  const here = (d) => tab === d.scene && mounted?.console.current() === "disputes";
  const alerts = () => {
    const view = live.view;
    if (!view) return;
    const where = (id) => `“${sceneOf(id)?.title || id}”`;
    const all = [...lives].flatMap(([id, scene]) => [
      ...lateMoves(scene.view, id, where(id)),
      ...npcMoves(scene.view, id, where(id)),
      ...openDisputes(scene.view, id, where(id)),
    ]);
    const shown = tab && tab !== "night" ? `${sceneOf(tab)?.title || "A scene"} · ` : "";
    alert.update(all, `Storyteller · ${shown}${view.title || "Game night"} · Justicar`, here);
    drawTabs(all);
  };
  const drawTabs = (all) => {
    const scenes = live.view?.night?.scenes || [];
    const count = (id) => waiting(all.filter((d) => d.scene === id));
    const entries = [
      ["night", "Whole night", ""],
      ...scenes.map((s) => [s.id, `${s.title || "Untitled scene"}${s.open ? "" : " (closed)"}`, count(s.id)]),
    ];
    const key = JSON.stringify([entries, tab]);
    if (tabList.dataset.key === key) return;
    tabList.dataset.key = key;
    fill(
      tabList,
      entries.map(([id, words, n]) =>
        h(
          "li",
          {},
          h(
            "a",
            {
              href: address(id, id === "night" ? "tonight" : "now"),
              "aria-current": id === tab ? "page" : null,
              class: n ? "waiting" : null,
              dataset: { tab: id },
            },
            words,
            n ? h("span", { class: "count" }, ` (${n})`) : "",
          ),
        ),
      ),
    );
  };
  const route = () => {
    const [want = "night", view] = place();
    const next = lives.has(want) ? want : "night";
    if (next === "night") {
      mounted?.console.stop();
      mounted = null;
      if (slot.firstChild !== nightPane.root) fill(slot, nightPane.root);
      nightPane.show(view);
    } else {
      if (mounted?.scene !== next) {
        mounted?.console.stop();
        const hashOf = (v) => address(next, v);
        mounted = {
          scene: next,
          console: sceneConsole(lives.get(next), {
            night: true,
            back: false,
            tab: true,
            into: scenePane,
            hashOf,
            onDraw: alerts,
          }),
        };
      }
      if (slot.firstChild !== scenePane) fill(slot, scenePane);
      mounted.console.show(view);
    }
    const moved = tab !== next;
    tab = next;
    if (moved) window.scrollTo(0, 0);
    alerts();
  };
  window.addEventListener("hashchange", route);
  const follow = sceneWatch(live, () => nightPane.refresh(true), lives, alerts);

  const draw = () => {
    const view = live.view;
    fill(
      header,
      h("h1", {}, "Storyteller"),
      h(
        "p",
        { class: "scene" },
        view
          ? `“${view.title || "Tonight's game"}” · game night · ${rulesetName(view)}${view.status === "closed" ? " · over" : ""}`
          : "",
      ),
      connection(live),
    );
    if (!view) return;
    nightPane.draw(view);
    follow((view.night?.scenes || []).map((s) => s.id));
    const [want] = place();
    if (tab === null || (want && want !== tab && lives.has(want)))
      route(); // a scene named by the address, known now
    else alerts();
  };
  live.addEventListener("change", draw);
  live.addEventListener("status", draw);
  draw();
}

/** The address of a tab's view: "#night/ledgers", "#elysium/now". */
/** "1 dispute, 2 NPC moves": what waits in a scene ("" : nothing). */
function waiting(items) {
  const npc = items.filter((d) => d.kind === "npc").length;
  const disputes = items.length - npc;
  const words = (n, one) => n > 0 && `${n} ${one}${n === 1 ? "" : "s"}`;
  return [words(disputes, "dispute"), words(npc, "NPC move")].filter(Boolean).join(", ");
}

function address(tab, view) {
  return `#${encodeURIComponent(tab)}/${view}`;
}

/** The night's own tab: its views (tonight's scenes and who is where, ledgers, invitations, the
 * night's timeline). Returns {root, draw(view), show(view), refresh(force)}. */
function nightView(live) {
  const bar = viewBar("Tonight's views", NIGHT_VIEWS, (v) => address("night", v));
  const { panes, show: showPane } = viewPanes(NIGHT_VIEWS);
  const regions = {
    scenes: h("section", { id: "scenes", "aria-labelledby": "scenes-h" }),
    where: h("section", { id: "where", "aria-labelledby": "where-h" }),
    ledger: h("section", { id: "ledger", "aria-labelledby": "ledger-h" }),
    invitations: h("section", { id: "invitations", "aria-labelledby": "inv-h" }),
    timeline: h("section", { id: "timeline", "aria-labelledby": "tl-h" }),
  };
  const placed = {
    scenes: "tonight",
    where: "tonight",
    ledger: "ledgers",
    invitations: "invitations",
    timeline: "log",
  };
  for (const [key, section] of Object.entries(regions)) panes.get(placed[key]).append(section);
  const record = h("div", { class: "night-record" });
  panes.get("tonight").append(record);
  const root = h("div", { class: "night-view" }, bar.nav, h("main", {}, [...panes.values()]));
  const region = redraws();
  const sceneList = h("div", {});
  const whereList = h("div", {});
  const books = h("div", { class: "ledgers" });
  const bookSaid = h("div", { class: "outcome", "aria-live": "polite" });
  let book = null;
  const drawBooks = (got) => {
    if (got?.error) return fill(bookSaid, refusal(got.error));
    book = got;
    bookSaid.replaceChildren();
    region(books, JSON.stringify(got), () => fill(books, ledgers(live, got)));
  };
  const refresh = ledgerKeeper(live, drawBooks);
  fill(regions.scenes, h("h2", { id: "scenes-h" }, "Scenes tonight"), sceneList, h("div", { class: "night-actions" }));
  fill(regions.where, h("h2", { id: "where-h" }, "Who is where"), whereList);
  fill(
    regions.ledger,
    h("h2", { id: "ledger-h" }, "Ledgers: what each character lost tonight, and where"),
    h("button", { type: "button", class: "quiet", onclick: () => refresh(true) }, "Bring the ledgers up to date"),
    bookSaid,
    books,
  );
  fill(
    regions.invitations,
    h("h2", { id: "inv-h" }, "Invitations"),
    h("p", { class: "hint" }, "One link a player for the whole night: it follows their character from scene to scene."),
    invitations(live),
  );
  fill(regions.timeline, h("h2", { id: "tl-h" }, "Tonight's timeline"), timeline([], null, live));
  let actionsBuilt = null;
  const draw = (view) => {
    const scenes = view.night?.scenes || [];
    const where = view.night?.where || {};
    const people = Object.values(view.characters);
    region(sceneList, JSON.stringify([scenes, people.map((c) => [c.id, c.name])]), () =>
      fill(sceneList, sceneCards(view, scenes)),
    );
    const open = scenes.filter((s) => s.open);
    region(
      whereList,
      JSON.stringify([
        where,
        open,
        people.map((c) => [c.id, c.name, c.npc]),
        view.status,
        book?.ledgers?.map((b) => [b.character, b.now]),
      ]),
      () => fill(whereList, whoIsWhere(live, view, open, book)),
    );
    const key = JSON.stringify([view.status, open.length]);
    if (actionsBuilt !== key) {
      actionsBuilt = key;
      fill(regions.scenes.querySelector(".night-actions"), nightActions(live, view, open));
    }
    const players = people.filter((c) => !c.npc).map((c) => [c.id, c.name]);
    region(regions.invitations.querySelector("select[name=character]"), JSON.stringify(players), () => {
      const choice = regions.invitations.querySelector("select[name=character]");
      const kept = choice.value;
      fill(
        choice,
        h("option", { value: "" }, players.length ? "Choose a character" : "No character registered yet"),
        players.map(([id, name]) => h("option", { value: id }, name)),
      );
      choice.value = players.some(([id]) => id === kept) ? kept : "";
      choice.dispatchEvent(new Event("filled"));
    });
    const ids = [
      ["The night's id", view.scene],
      ...scenes.map((s) => [`“${s.title || "Untitled"}”'s id`, s.id]),
      ...people.map((c) => [`${c.name}'s id`, c.id]),
    ];
    region(record, JSON.stringify(ids), () => fill(record, forTheRecord(ids)));
    grow(regions.timeline.querySelector("ol"), live.timeline);
    refresh();
  };
  const show = (view) => {
    const next = panes.has(view) ? view : "tonight";
    showPane(next);
    bar.mark(next);
  };
  return { root, draw, show, refresh };
}

/** The scenes of the night change the ledgers (and who lost what) without a step in the night's own
 * stream: a socket on each scene of the night (as a player's page follows its scene: it is also
 * the scene's tab, and says when a dispute comes), and the ledger asked again when one of them
 * moves, once things settle (never more than one request at a time: `ledgerKeeper`). `follow(ids)`
 * keeps a socket on each of `ids` in `lives`; `moved()` after each change of one. */
function sceneWatch(live, changed, lives, moved) {
  let timer = null;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(changed, LEDGER_SETTLE);
  };
  return (ids) => {
    for (const id of ids) {
      if (lives.has(id)) continue;
      const scene = new Live(live.token, { scene: id });
      scene.addEventListener("change", soon);
      scene.addEventListener("change", moved);
      lives.set(id, scene);
    }
  };
}

/** The night's scenes, in the order they opened: open or closed, who is in each, its console. */
function sceneCards(view, scenes) {
  if (!scenes.length) return h("p", { class: "none" }, "No scene yet: open the first one below.");
  return h(
    "ul",
    { class: "night-scenes" },
    scenes.map((s) =>
      h(
        "li",
        { class: s.open ? "open" : "closed", dataset: { scene: s.id } },
        h("strong", {}, `“${s.title || "Untitled scene"}”`),
        h("span", { class: `state ${s.open ? "open" : "closed"}` }, s.open ? " · open" : " · closed"),
        h(
          "p",
          { class: "in" },
          s.characters.length
            ? `In it: ${s.characters.map((w) => nameOf(view, w)).join(", ")}`
            : s.open
              ? "Nobody in it now."
              : "Over.",
        ),
        h("a", { href: sceneTab(s.id) }, `Open “${s.title || "the scene"}”`),
      ),
    ),
  );
}

/** Who is where; a character between scenes may be sent into an open scene (confirmed). */
function whoIsWhere(live, view, open, book) {
  const where = view.night?.where || {};
  const people = Object.values(view.characters);
  if (!people.length) return h("p", { class: "none" }, "Nobody is registered tonight.");
  for (const c of people) {
    // a confirmation is true while the character is where it sent them: once they are elsewhere, it goes
    const now = where[c.id]?.scene ?? null;
    if (movedTo.has(c.id) && movedTo.get(c.id) !== now) {
      notes.delete(`move-${c.id}`);
      movedTo.delete(c.id);
    }
  }
  return h(
    "ul",
    { class: "night-people" },
    people.map((c) => {
      const at = where[c.id];
      const mine = book?.ledgers?.find((b) => b.character === c.id);
      const lost = (mine?.now?.lost || c.traits_lost?.map((t) => ({ trait: t })) || []).map((l) => l.trait);
      return h(
        "li",
        { dataset: { character: c.id } },
        h("strong", {}, c.name, c.npc ? " (NPC)" : ""),
        h("span", { class: "at" }, at ? ` · in “${at.title || "an untitled scene"}”` : " · between scenes"),
        lost.length ? h("p", { class: "lost" }, `Lost tonight: ${lost.join(", ")}`) : null,
        view.status === "open" && moveForm(live, c, open, at),
      );
    }),
  );
}

/** Send a character into an open scene: "Move…" asks which and says what it will do first. A
 * character in a scene now is first taken out of it (`remove_character` on that scene: they go
 * back to the night with what they carry), then sent on once the night has them back: one
 * confirmation naming both scenes. No scene is chosen to begin with (never the one just left). */
function moveForm(live, c, open, at) {
  const out = outcome(`move-${c.id}`);
  const places = open.filter((s) => s.id !== at?.scene);
  const from = at ? `“${at.title || "an untitled scene"}”` : null;
  if (!places.length)
    return h(
      "div",
      {},
      h(
        "p",
        { class: "hint" },
        at
          ? `No other scene is open: open one to move ${c.name} into.`
          : "No scene is open: open one to send them into.",
      ),
      out,
    );
  const to = select("to", [["", "Choose a scene"], ...places.map((s) => [s.id, `“${s.title || "Untitled scene"}”`])]);
  const box = h("div", { class: "confirm" });
  const first = h("button", { type: "button", disabled: true }, `Move ${c.name}`);
  to.addEventListener("change", () => {
    first.disabled = !to.value;
  });
  const back = () => {
    fill(box, first);
    first.focus();
  };
  const say = sender(live, out);
  const move = async (dest) => {
    if (at) {
      const left = await sender(live, out)({ type: "remove_character", character: c.id, scene: at.scene });
      if (!left.ok) return;
      if (!(await backInTheNight(live, c.id)))
        return out.replaceChildren(
          refusal({
            message: `${c.name} left ${from}, but the night has not had them back yet: send them on in a moment.`,
          }),
        );
    }
    movedTo.set(c.id, dest); // once they are back in the night: the confirmation to come holds while they are there
    const moved = await say({ type: "move_character", character: c.id, to: dest });
    if (!moved.ok) movedTo.delete(c.id);
  };
  first.addEventListener("click", () => {
    if (!to.value) return;
    const title = to.selectedOptions[0]?.textContent || to.value;
    const dest = to.value;
    const yes = h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: () => {
          fill(box, first);
          move(dest);
        },
      },
      at ? `Confirm: move ${c.name} from ${from} into ${title}` : `Confirm: move ${c.name} into ${title}`,
    );
    const words = at
      ? `Take ${c.name} out of ${from} and send them into ${title}? They carry what they lost and spent tonight; their player's page follows.`
      : `Send ${c.name} into ${title}? They take with them what they carry tonight; their player's page follows.`;
    fill(
      box,
      h("p", { class: "warn" }, words),
      h("div", { class: "choices" }, yes, h("button", { type: "button", class: "quiet", onclick: back }, "Cancel")),
    );
    yes.focus();
  });
  fill(box, first);
  return h(
    "div",
    { class: "move" },
    field(at ? `Move ${c.name} from ${from} to` : `Send ${c.name} into`, to),
    box,
    out,
  );
}

/** Wait (at most 10 s) until the night's view has the character between scenes. */
function backInTheNight(live, who) {
  const free = () => !live.view?.night?.where?.[who];
  if (free()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = () => free() && finish(true);
    const timer = setTimeout(() => finish(false), 10000);
    const finish = (ok) => {
      clearTimeout(timer);
      live.removeEventListener("change", check);
      resolve(ok);
    };
    live.addEventListener("change", check);
  });
}

/** A new scene of the night; closing the night (confirmed). */
function nightActions(live, view, open) {
  const out = outcome("night");
  const newTitle = h("input", { name: "title", autocomplete: "off", placeholder: "The parking lot" });
  const timing = deadlineFields({}, "Response deadlines of this scene (none set here: the night's)");
  const created = h("div", { class: "outcome", "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "row",
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { type: "create_scene", ruleset: view.ruleset, title: newTitle.value.trim() };
        const deadlines = timing.read();
        if (Object.keys(deadlines).length) body.options = { deadlines };
        const reply = await live.request(body, "scene_created");
        if (reply.type === "error") return created.replaceChildren(refusal(reply));
        const name = newTitle.value.trim() ? `“${newTitle.value.trim()}”` : "The new scene";
        newTitle.value = "";
        created.replaceChildren(
          done(`${name} is open tonight.`),
          h("a", { href: sceneTab(reply.scene) }, `Open ${name}`),
        );
      },
    },
    field("Title of a new scene", newTitle),
    timing.fieldset,
    h("button", { type: "submit" }, "Open a new scene"),
  );
  if (view.status !== "open") return h("p", { class: "hint" }, "The night is over: nothing more happens in it.");
  return h(
    "div",
    {},
    form,
    created,
    nightDeadlines(live, view),
    open.length
      ? h(
          "p",
          { class: "hint" },
          `The night closes once every scene of it is closed (open: ${open.map((s) => `“${s.title || "Untitled scene"}”`).join(", ")}).`,
        )
      : confirmButton(
          "Close the night",
          "Confirm: close the night",
          () => sender(live, out)({ type: "close_game" }),
          "Close the night? What was lost tonight is back at the next game; nothing more happens in this one.",
        ),
    out,
  );
}

/** The response deadlines of the night's scenes opened from now on, where one gives none of its own
 * (`set_deadlines` on the night); a scene already open keeps its own (its console's Settings). */
function nightDeadlines(live, view) {
  const out = outcome("night-deadlines");
  const { fieldset, read } = deadlineFields(currentDeadlines(live, view), "How long each kind of move may wait");
  return h(
    "details",
    { class: "night-deadlines" },
    h("summary", {}, "Response deadlines of tonight's next scenes"),
    h(
      "form",
      {
        class: "stack",
        onsubmit: (e) => {
          e.preventDefault();
          sender(live, out)({ type: "set_deadlines", deadlines: read() });
        },
      },
      fieldset,
      h("button", { type: "submit" }, "Set tonight's deadlines"),
    ),
    out,
  );
}

/** Each character's ledger: what it carries now, then each loss and gain where it happened,
 * linked to the step (the replay of that scene at that step), with the rule and its book. */
function ledgers(live, book) {
  if (!book.ledgers?.length) return h("p", { class: "none" }, "Nobody is registered tonight.");
  return book.ledgers.map((l) =>
    h(
      "details",
      { class: "ledger", dataset: { character: l.character }, open: l.entries.length > 0 },
      h("summary", {}, h("strong", {}, l.name), ` · ${carriedWords(l.now)}`),
      l.entries.length
        ? h(
            "ol",
            { class: "entries" },
            l.entries.map((e) => entryItem(live, book, e)),
          )
        : h("p", { class: "none" }, "Nothing lost or gained tonight."),
    ),
  );
}

/** "without Brawny; 1 lethal damage; 1 Willpower spent" (what a ledger's `now` says). */
function carriedWords(now) {
  const parts = [];
  if (now?.lost?.length) parts.push(`without ${now.lost.map((l) => l.trait).join(", ")}`);
  for (const [kind, n] of Object.entries(now?.wounds || {})) if (n) parts.push(`${n} ${kind} damage`);
  if (now?.blood_spent) parts.push(`${now.blood_spent} blood spent`);
  return parts.join("; ") || "nothing lost";
}

/** One entry, its step a link to the replay at that step (`link(e)`: the address, or null where
 * this console's key does not open that scene). */
export function entryItem(
  live,
  book,
  e,
  mark = "",
  link = (x) => replayLink(live, x.seq, x.scene === book.night ? null : x.scene),
) {
  const where = e.scene === book.night ? "between scenes" : `in “${e.title}”`;
  const href = link(e);
  return h(
    "li",
    { class: `${e.loss ? "loss" : "gain"}${mark ? ` ${mark}` : ""}` },
    href
      ? h("a", { class: "step-link", href, target: "_blank" }, `Step ${e.seq} ${where}`)
      : h("span", { class: "step-link" }, `Step ${e.seq} ${where}`),
    ": ",
    e.what,
    e.why ? h("span", { class: "why" }, ` — ${e.why}`) : "", // the reason only: the ledger does not say the loss twice
    e.ruling && e.by === "correction"
      ? h("span", { class: "by" }, ` (a ruling in “${e.ruling.title}”, step ${e.ruling.seq})`)
      : "",
    e.book ? h("span", { class: "book" }, ` · ${e.book}`) : "",
    ruleNote(e.rule),
  );
}
