// A game night on the pages: the titles of its scenes, where each Trait a character lost tonight
// was lost (from the night's own steps: a character comes back from a scene with what it carries),
// and what a character carries into the scene it is in.
import { h } from "./dom.js";

const seen = new Map(); // scene id -> title, of every scene this page has seen its character in

/** Each scene of the night by id -> its title, from the night's view and its steps, and the scenes
 * this page followed its character into (a player's night steps may name no other scene). */
export function sceneTitles(steps, view) {
  const titles = new Map(seen);
  for (const step of steps)
    if (step.type === "scene_added" && step.data?.scene)
      titles.set(step.data.scene, step.data.title || step.data.scene);
  for (const s of view?.night?.scenes || []) titles.set(s.id, s.title || s.id);
  for (const [, at] of Object.entries(view?.night?.where || {})) {
    titles.set(at.scene, at.title || at.scene);
    if (at.title) seen.set(at.scene, at.title);
  }
  return titles;
}

/** Trait -> the title of the scene `who` lost it in tonight, as the night's steps say (a Trait
 * the steps on this page do not account for is not in it). */
export function lostWhere(steps, who, titles) {
  const where = new Map();
  let before = [];
  for (const step of steps) {
    const d = step.data || {};
    if (step.type !== "character_returned" || d.character !== who || !d.carried) continue;
    const now = (d.carried.lost || []).map((l) => l.trait);
    const left = [...before];
    for (const trait of now) {
      const i = left.indexOf(trait);
      if (i >= 0) left.splice(i, 1);
      else where.set(trait, titles.get(d.scene) || "an earlier scene");
    }
    before = now;
  }
  return where;
}

/** "Carried in from earlier tonight: without Brawny (lost in “Elysium”); 1 lethal damage." (null:
 * nothing carried). `c` is the night's copy of the character: what it took into its scene. */
export function carriedLine(c, where) {
  const lost = (c.traits_lost || []).map((t) => (where.get(t) ? `${t} (lost in “${where.get(t)}”)` : t));
  const hurt = Object.entries(c.damage || {})
    .filter(([, n]) => n)
    .map(([kind, n]) => `${n} ${kind} damage`);
  const parts = [lost.length && `without ${lost.join(", ")}`, ...hurt].filter(Boolean);
  return parts.length ? h("p", { class: "carried" }, `Carried in from earlier tonight: ${parts.join("; ")}.`) : null;
}
