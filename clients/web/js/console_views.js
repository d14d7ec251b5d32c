// The Storyteller's console in views that fit a phone: a bar of links (the one shown marked with
// aria-current), the view named in the address's fragment so a reload keeps it ("#people", or in a
// game night's console "#elysium/now": the tab, then its view), and the one fold per view where
// ids are kept ("For the record"), so that everything else is said in words.
import { h } from "./dom.js";

/** A scene's views, in the order of the bar: what needs the Storyteller now comes first. */
export const SCENE_VIEWS = [
  ["now", "Now"],
  ["people", "People"],
  ["disputes", "Disputes"],
  ["invitations", "Invitations"],
  ["log", "Log"],
  ["settings", "Settings"],
];

/** A game night's own views (its scenes have theirs, in their tabs). */
export const NIGHT_VIEWS = [
  ["tonight", "Who is where"],
  ["ledgers", "Ledgers"],
  ["invitations", "Invitations"],
  ["log", "Log"],
];

/** The fragment's parts: "#people" -> ["people"], "#elysium/now" -> ["elysium", "now"]. */
export function place() {
  const text = location.hash.slice(1);
  if (text.includes("=")) return []; // "#token=…" is not a place
  const decoded = (part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part; // a fragment typed by hand: read as it is
    }
  };
  return text.split("/").filter(Boolean).map(decoded);
}

/** A bar of links, one a view: `entries` [[key, words]], `hrefOf(key)`. `mark(key)` marks the one
 * shown (aria-current="page"); `links` by key, to add a count to. */
export function viewBar(label, entries, hrefOf, kind = "views") {
  const links = new Map(
    entries.map(([key, words]) => [key, h("a", { href: hrefOf(key), dataset: { view: key } }, words)]),
  );
  const nav = h(
    "nav",
    { class: `console-bar ${kind}`, "aria-label": label },
    h(
      "ul",
      {},
      [...links.values()].map((a) => h("li", {}, a)),
    ),
  );
  const mark = (key) => {
    for (const [k, a] of links) {
      if (k === key) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
  };
  return { nav, links, mark };
}

/** One container a view, holding its sections; `show(key)` shows one and hides the rest. */
export function viewPanes(entries) {
  const panes = new Map(
    entries.map(([key, words]) => [
      key,
      h("div", { class: "view", dataset: { view: key }, "aria-label": words, role: "region", hidden: true }),
    ]),
  );
  const show = (key) => {
    for (const [k, pane] of panes) pane.hidden = k !== key;
  };
  return { panes, show };
}

/** The fold that keeps ids, hashes and rule ids: closed, "For the record", each line a label and
 * its value in code. `rows`: [label, value] (a row with no value is left out). */
export function forTheRecord(rows, why = "for the command line and the server's log") {
  const kept = rows.filter(([, value]) => value !== undefined && value !== null && value !== "");
  return h(
    "details",
    { class: "record" },
    h("summary", {}, "For the record"),
    h("p", { class: "hint" }, `Ids ${why}.`),
    h(
      "dl",
      {},
      kept.map(([label, value]) => [h("dt", {}, label), h("dd", {}, h("code", {}, String(value)))]),
    ),
  );
}
