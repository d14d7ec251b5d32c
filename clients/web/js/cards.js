// Cards both pages show: a challenge as far as the viewer may see it. What the challenge is and
// did is its account (`ch.account`, projections/account.py), made once on the server, redacted and
// said to this viewer: the cards render it and compose nothing of their own about its facts. What
// is the viewer's own (its sealed throw or dice, its Trait Pool) and its moves are drawn here.
import { h } from "./dom.js";
import { movesPanel } from "./moves.js";
import { SIGN_LABELS, dieOf, nameOf, ruleWords, sourceLabel, title, waitingFor } from "./words.js";

/** A challenge, with the moves of each character the viewer acts for (`actFor`: the ST's NPCs).
 * Open, it says what each side put up and what each way of ending it will do (`account.stakes`);
 * decided, its verdict reads at arm's length, said once, with how it was decided and the rule's
 * words one tap away; `dispute` (a player's page) adds a way to dispute the result. */
export function challengeCard(live, view, ch, { forCharacter = false, extra = null, dispute = null } = {}) {
  const a = ch.account;
  const moves = Object.entries(ch.moves || {}).map(([who, found]) =>
    movesSection(live, view, ch, who, found, forCharacter),
  );
  const head = [
    h("h3", { id: `ch-${ch.id}` }, a.title),
    a.in_play?.length > 0 && h("p", { class: "in-play" }, a.in_play.join(" · ")),
  ];
  const card = (state, ...children) =>
    h(
      "article",
      { class: `challenge ${state}`, "aria-labelledby": `ch-${ch.id}`, dataset: { challenge: ch.id } },
      head,
      ...children,
    );
  if (a.verdict) {
    const v = a.verdict;
    return card(
      "resolved",
      h("p", { class: `verdict ${v.tone}` }, v.words),
      diceShown(view, ch),
      v.grade && h("p", { class: "grade" }, h("strong", {}, v.grade)),
      v.ruled &&
        h(
          "p",
          { class: "ruled" },
          title(v.ruled),
          v.before && h("span", { class: "before" }, ` (first given: ${v.before})`),
        ),
      h(
        "details",
        { class: "how" },
        h("summary", {}, "How it was decided, and the rule"),
        story(a),
        v.why && h("p", { class: "why" }, v.why),
        a.effects?.length > 0 &&
          h(
            "ul",
            { class: "effects", "aria-label": "What it did" },
            a.effects.map((e) => h("li", {}, e.words, e.why && h("span", { class: "why" }, ` — ${e.why}`))),
          ),
        a.rulings?.length > 0 && h("ul", { class: "rulings", "aria-label": "Rulings" }, a.rulings.map(rulingItem)),
        rules(a),
      ),
      moves,
      dispute?.(ch),
      extra,
    );
  }
  return card(
    "open",
    victories(a),
    sides(a),
    a.stakes?.length > 0 &&
      h(
        "ul",
        { class: "stakes", "aria-label": "What winning does" },
        a.stakes.map((s) => h("li", {}, s.words)),
      ),
    own(view, ch),
    diceShown(view, ch),
    steps(a),
    queuedNow(live, view, ch, h("p", { class: "waiting" }, h("strong", {}, "Now: "), waitingFor(view, ch))),
    moves,
    extra,
  );
}

/** The dice of the latest test that showed any, in sight (not only in how it was decided): each
 * side's as a list a screen reader reads as dice ("Your dice: 1, 2", not "12"), each die with what
 * its face counts as, and the faces explained, as the account says them (`account.faces`). */
function diceShown(view, ch) {
  const a = ch.account;
  const test = [...(a.tests || [])].reverse().find((t) => Object.keys(t.dice || {}).length > 0);
  if (!test) return null;
  const die = dieOf(view); // the scene's die: which faces are successes, and each face's words where the account has none
  const faces = a.faces?.length ? a.faces : die?.faces || [];
  const means = new Map(faces.map((f) => [f.face, f.means]));
  const successes = new Set(die?.successes || []);
  const whose = (who) => (who === view.viewer ? "Your" : `${nameOf(view, who)}'s`);
  const order = a.sides.map((s) => s.who).filter((who) => who in test.dice);
  const which = a.tests.length > 1 ? ` (test ${test.number})` : "";
  const side = (who) => {
    const dice = test.dice[who];
    const label = `${whose(who)} dice${which}: ${dice.join(", ")}`;
    return h(
      "div",
      { class: "dice-side" },
      h("p", { class: "dice-who", "aria-hidden": "true" }, `${whose(who)} dice${which}`),
      h(
        "ul",
        { class: "dice", "aria-label": label },
        dice.map((d) =>
          h(
            "li",
            { class: successes.has(d) ? "die success" : "die" },
            h("span", { class: "face" }, String(d)),
            means.has(d) && h("span", { class: "means" }, ` ${means.get(d)}`),
          ),
        ),
      ),
    );
  };
  return h(
    "div",
    { class: "dice-shown" },
    [...order, ...Object.keys(test.dice).filter((who) => !order.includes(who))].map(side),
    means.size > 0 &&
      h("p", { class: "faces" }, `Each die: ${faces.map((f) => `${f.face} is ${f.means}`).join(", ")}.`),
  );
}

/** What this page holds queued for `ch` while the connection is down ("Queued: Paper — goes when
 * you are back online"), in place of whom the challenge waits for (the move is made, only not yet
 * sent); kept current as moves are queued, replaced and sent, without the card being drawn anew. */
function queuedNow(live, view, ch, waiting) {
  const note = h("p", { class: "queued", role: "status", hidden: true });
  let placed = false; // the card has had its turn to be put on the page: once the note is off it, stop
  const kinds = ["queued", "sent", "result", "status"];
  const update = () => {
    if (!note.isConnected && placed) {
      for (const kind of kinds) live.removeEventListener(kind, update);
      return;
    }
    const mine = (live.queued || []).filter((body) => body.challenge === ch.id);
    note.hidden = mine.length === 0;
    waiting.hidden = mine.length > 0;
    note.textContent = mine.length
      ? `Queued: ${mine.map((body) => queuedWords(view, body)).join("; ")} — goes when you are back online`
      : "";
  };
  for (const kind of kinds) live.addEventListener(kind, update);
  update();
  setTimeout(() => {
    placed = true; // a card is drawn and placed in one go: a note not on the page by now never will be
    update();
  });
  return [waiting, note];
}

/** A queued move in a few words: "Paper", "bid Brawny", "Guard: Rock" (the Storyteller's, for an NPC). */
function queuedWords(view, body) {
  const what = QUEUED[body.type]?.(body) || body.type.replaceAll("_", " ");
  return body.character ? `${nameOf(view, body.character)}: ${what}` : what;
}

const QUEUED = {
  throw: (b) => SIGN_LABELS[b.sign] || b.sign,
  roll: (b) =>
    `your roll${b.retests?.length ? ` naming ${b.retests.map(sourceLabel).join(", ")}` : ""}${b.values?.length ? ` (${b.values.join(", ")})` : ""}`,
  bid: (b) => (b.pool ? `defend with ${b.pool.defense}` : `bid ${(b.bid || []).join(", ")}`),
  declare_traits: (b) => `declare ${b.count} Traits`,
  retest: (b) => `retest with ${sourceLabel(b.source)}`,
  cancel_retest: (b) => `cancel with ${sourceLabel(b.source)}`,
  call_negative: (b) => `call ${b.trait}`,
  choose_victory: () => "your choice of victory condition",
};

function movesSection(live, view, ch, who, found, forCharacter) {
  return h(
    "section",
    { class: "your-moves", "aria-label": `${nameOf(view, who)}'s moves` },
    forCharacter && h("h4", {}, `Acting for ${nameOf(view, who)}`),
    movesPanel(live, view, ch, who, found, { forCharacter }),
  );
}

/** Each side's own victory condition, in its own words. */
function victories(a) {
  const said = a.sides.filter((s) => s.victory && s.role !== "helper");
  return (
    said.length > 0 &&
    h(
      "p",
      { class: "victory" },
      said.map((s, i) => [i > 0 && " — answered: ", `“${s.victory}”`]),
    )
  );
}

/** What each side put up: its bid, what it risked on an overbid, its pool with its make-up. */
function sides(a) {
  return h(
    "ul",
    { class: "sides", "aria-label": "What each side put up" },
    a.sides.map((s) => h("li", { dataset: { role: s.role } }, s.words)),
  );
}

/** The tests, retests, Negative Trait calls and deadlines run past so far, each said once. */
function steps(a) {
  return [
    a.tests?.length > 0 &&
      h(
        "ol",
        { class: "tests", "aria-label": "Tests" },
        a.tests.map((t) => h("li", {}, `Test ${t.number}: `, t.words)),
      ),
    a.retests?.length > 0 &&
      h(
        "ul",
        { class: "retests", "aria-label": "Retests" },
        a.retests.map((r) => h("li", {}, r.words)),
      ),
    a.calls?.length > 0 &&
      h(
        "ul",
        { class: "calls", "aria-label": "Negative Traits called" },
        a.calls.map((c) => h("li", {}, c)),
      ),
    a.late?.length > 0 &&
      h(
        "ul",
        { class: "late", "aria-label": "Deadlines run past" },
        a.late.map((l) => h("li", {}, l)),
      ),
  ];
}

/** How a decided challenge went: the victories, what each side put up, the tests and retests. */
function story(a) {
  return [victories(a), sides(a), steps(a)];
}

/** A ruling on the challenge: the Storyteller's words and reason, what it changed, and the
 * challenges since that stand as played. */
function rulingItem(r) {
  return h(
    "li",
    {},
    r.words,
    r.changed && h("span", { class: "changed" }, r.changed),
    r.stand?.length > 0 && h("span", { class: "stand" }, ` Standing as played: ${r.stand.join("; ")}.`),
  );
}

/** The rules the account cites (the verdict's, the tests', the effects'), each rule's words once. */
function rules(a) {
  const ids = [a.verdict?.rule, ...(a.tests || []).map((t) => t.rule), ...(a.effects || []).map((e) => e.rule)].filter(
    Boolean,
  );
  return [...new Set(ids)].map((id) => ruleWords(id));
}

/** What only this viewer sees of its own side while it is open: its Trait Pool (from the account),
 * its sealed throw or dice; the Storyteller's blind throws. */
function own(view, ch) {
  const me = view.viewer;
  const whose = (who) => (who === me ? "Your" : `${nameOf(view, who)}'s`);
  const sealed = Object.entries(ch.sealed || {});
  const traitPools = ch.account.sides.filter((s) => s.trait_pool); // the viewer's own (the ST: every side's)
  const rolls = Object.entries(ch.rolls || {});
  const rolledOnly = (ch.rolled || []).filter((w) => !(w in (ch.rolls || {})));
  return [
    traitPools.length > 0 &&
      h(
        "ul",
        { class: "pools trait-pools", "aria-label": "Trait pools" },
        traitPools.map((s) => h("li", {}, s.trait_pool)),
      ),
    (rolls.length > 0 || rolledOnly.length > 0) &&
      h(
        "p",
        { class: "sealed rolled" },
        [
          ...rolls.map(
            ([who, roll]) =>
              `${whose(who)} sealed dice: ${roll.dice.join(", ")}${roll.retests?.length ? ` (naming ${roll.retests.map(sourceLabel).join(", ")})` : ""}`,
          ),
          ...rolledOnly.map((who) => `${nameOf(view, who)} has rolled (sealed)`),
        ].join(" · "),
      ),
    sealed.length > 0 &&
      h(
        "p",
        { class: "sealed" },
        sealed.map(([who, sign]) => `${whose(who)} sealed throw: ${SIGN_LABELS[sign] || sign}`).join(" · "),
      ),
    ch.blind && h("p", { class: "sealed blind" }, ch.blind),
  ];
}
