// One live connection to a scene (docs/protocol.md, section 8): hello with the token, subscribe
// from the last event seen, keep the view patched and the timeline in words, reconnect by itself
// with backoff, and re-send any command still waiting for its result (the server answers a
// repeated id from its log, so nothing is done twice). A move made again while it waits unsent
// (Scissors, then Paper) replaces the one queued: only the newer goes. Control requests (replay,
// invite, audit…) carry no id, so they go one at a time: each reply, or error, answers the one in
// flight.

const REVOKED = 4003;
const PATIENCE = 20000; // ms a control request waits for its answer
const AGAIN = new Set(["rate_limited", "conflict", "shutting_down"]); // refusals a command is sent again for
// moves a newer one of the same kind replaces while both wait offline (a second would be refused)
const REPLACEABLE = new Set(["throw", "roll", "bid", "declare_traits"]);

/** The socket's address, naming the scene (or night) it follows in its query when it is known:
 * a proxy hashing on it sends a table's sockets to one process (docs/deploy.md); the server
 * ignores it (the token decides the scene). */
export function socketUrl(scene = null) {
  const base = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
  return scene ? `${base}?scene=${encodeURIComponent(scene)}` : base;
}

/** The scene a token's socket last followed in this browser, so that even the first socket of a
 * page opened again is routed (the welcome says it; storage may be off: then it is not kept). */
const ROUTE = "justicar:scene-of:";
const routes = new Map(); // this page's own, where storage is off
function remembered(token) {
  try {
    return localStorage.getItem(ROUTE + token) || routes.get(token) || null;
  } catch {
    return routes.get(token) || null;
  }
}
function remember(token, scene) {
  routes.set(token, scene);
  try {
    localStorage.setItem(ROUTE + token, scene);
  } catch {
    /* not kept: the next page's first socket goes to any process */
  }
}

/** A page's path for a token: the key and the scene (or night) it follows, both in the fragment,
 * which no server sees; the page's very first socket names that scene to a proxy. */
export function pagePath(page, token, scene = null, more = {}) {
  const fragment = new URLSearchParams({ token, ...(scene ? { scene } : {}), ...more });
  return `/${page}#${fragment}`;
}

/** The same as a whole link, to share or print as a QR code. */
export function pageLink(page, token, scene = null, more = {}) {
  return `${location.origin}${pagePath(page, token, scene, more)}`;
}

/** A fresh command id (crypto.getRandomValues works on a LAN page served over plain http). */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class Live extends EventTarget {
  constructor(token, { subscribe = true, scene = null } = {}) {
    super();
    this.token = token;
    this.subscribe = subscribe;
    this.scene = scene; // a scene of the token's game night (a second socket, protocol.md "Following a character")
    this.status = "connecting"; // connecting | live | reconnecting | refused
    this.reason = "";
    this.welcome = null;
    this.view = null;
    this.timeline = []; // {seq, type, at, actor, data, summary}, oldest first
    this.older = {}; // decided challenges a whole view leaves out, as asked for (id -> view)
    this.olderNext = undefined; // where the next page of them starts (null: no more)
    this.lastSeq = 0;
    this.skew = 0; // ms the server's clock is ahead of this one (from the last event pushed live)
    this.presence = [];
    this.pending = new Map(); // command id -> {body, resolve}
    this.requests = []; // control requests, in order: {body, reply, resolve, timer}; the first is in flight
    this.authed = false; // this socket has been welcomed
    this.backoff = 500;
    this.ws = null;
    this.retry = null; // the reconnect waiting its turn
    this.open();
    // a phone going offline: drop the socket at once (commands wait, and say so); back online:
    // reconnect now rather than at the end of the backoff
    this.offline = () => this.drop("You are offline; commands wait until you're back.");
    this.online = () => this.again();
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
  }

  /** Let this connection go for good (the character has left its scene): no reconnect, nothing
   * more drawn from it. */
  close() {
    this.status = "refused";
    this.closed = true;
    clearTimeout(this.retry);
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    for (const r of this.requests) clearTimeout(r.timer);
    this.requests = [];
    const ws = this.ws;
    this.ws = null;
    this.authed = false;
    try {
      ws?.close();
    } catch {
      /* already gone */
    }
  }

  /** Whether a command sent now goes out at once. */
  get ready() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.authed);
  }

  get viewer() {
    const w = this.welcome;
    if (!w) return null;
    return w.role === "st" ? "st" : w.role === "player" ? w.character : "*";
  }

  setStatus(status, reason = "") {
    if (this.closed) return;
    this.status = status;
    this.reason = reason;
    this.dispatchEvent(new Event("status"));
  }

  open() {
    clearTimeout(this.retry);
    this.retry = null;
    const ws = new WebSocket(socketUrl(this.scene || this.welcome?.scene || remembered(this.token)));
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token: this.token }));
    ws.onmessage = (e) => this.receive(JSON.parse(e.data));
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.authed = false;
      if (this.status === "refused") return;
      if (e.code === REVOKED) return this.setStatus("refused", "Your invitation has been revoked.");
      if (navigator.onLine === false) return this.later("You are offline; commands wait until you're back."); // still off
      this.later(`Connection lost; trying again in ${Math.round(this.backoff / 100) / 10} s.`);
    };
  }

  /** Try again after the backoff. */
  later(reason) {
    this.setStatus("reconnecting", reason);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.open(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, 10000);
  }

  /** Let the socket go now (the network is gone): its close is not waited for. */
  drop(reason) {
    const ws = this.ws;
    if (!ws || this.status === "refused") return;
    this.ws = null;
    this.authed = false;
    try {
      ws.close();
    } catch {
      /* already gone */
    }
    this.later(reason);
  }

  /** Back online: connect now if not connected. */
  again() {
    if (this.ws || this.status === "refused") return;
    this.backoff = 500;
    this.open();
  }

  /** A command: resolves with its result ({ok, events} or {ok: false, error}). Sent while the
   * connection is down, it waits (a "queued" event says so) and goes when it is back; its result
   * is also dispatched as a "result" event ({body, reply, words}), so a page can confirm every
   * command; `words` says what it did where its type alone does not ("You let the retest stand."). */
  send(body, words = null) {
    const command = { id: newId(), ...body };
    return new Promise((resolve) => {
      const earlier = this.ready ? null : this.queuedLike(command); // a changed mind while offline
      const answers = [...(earlier?.answers || []), resolve]; // the moves it replaced end as it does
      const done = (reply) => {
        for (const answer of answers) answer(reply);
        this.dispatchEvent(Object.assign(new Event("result"), { body: command, reply, words }));
      };
      if (earlier) this.pending.delete(earlier.body.id);
      const sent = this.raw(command);
      this.pending.set(command.id, { body: command, resolve: done, answers, sent });
      if (!sent)
        this.dispatchEvent(Object.assign(new Event("queued"), { body: command, replaced: earlier?.body || null }));
    });
  }

  /** The command waiting unsent for `command`'s own move (the same type, challenge and character):
   * a throw, a roll, a bid or a count of Traits queued while offline, which `command` replaces. A
   * command already sent is never replaced (it may have been done). */
  queuedLike(command) {
    if (!REPLACEABLE.has(command.type)) return null;
    const same = (b) =>
      b.type === command.type && b.challenge === command.challenge && b.character === command.character;
    return [...this.pending.values()].find((p) => !p.sent && same(p.body)) || null;
  }

  /** The commands waiting, unsent, for the connection, oldest first (what the page says is queued). */
  get queued() {
    return [...this.pending.values()].filter((p) => !p.sent).map((p) => p.body);
  }

  /** A control message: resolves with the reply of type `reply`, or the error it got (also when
   * no answer comes in time). Sent when the connection is up, one at a time. */
  request(body, reply) {
    return new Promise((resolve) => {
      this.requests.push({ body, reply, resolve, sentOn: null, timer: null });
      this.pump();
    });
  }

  /** Send the request in flight, unless this connection already has it (after a reconnect its
   * answer may have been lost with the old one: it goes again). */
  pump() {
    const head = this.requests[0];
    if (!head || head.sentOn === this.ws || !this.authed) return;
    head.sentOn = this.ws;
    head.timer ??= setTimeout(
      () => this.answer({ type: "error", code: "no_answer", message: "The server did not answer in time; try again." }),
      PATIENCE,
    );
    this.raw(head.body);
  }

  /** The answer to the request in flight; then the next goes. */
  answer(message) {
    const head = this.requests.shift();
    if (!head) return false;
    clearTimeout(head.timer);
    head.resolve(message);
    this.pump();
    return true;
  }

  /** Put `body` on the socket if it is up; whether it went. */
  raw(body) {
    if (!this.ready) return false;
    this.ws.send(JSON.stringify(body));
    return true;
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.welcome = message;
        if (remembered(this.token) !== message.scene) remember(this.token, message.scene);
        this.authed = true;
        this.backoff = 500;
        // the first time, the latest events only (older ones on request); after a reconnect, all since
        if (this.subscribe)
          this.raw({
            type: "subscribe",
            scene: this.scene || undefined,
            since: this.lastSeq || undefined,
            summaries: true,
          });
        else this.setStatus("live");
        for (const waiting of this.pending.values()) waiting.sent = this.raw(waiting.body) || waiting.sent; // answered from the log if done
        this.dispatchEvent(new Event("sent")); // nothing is queued now
        this.pump();
        break;
      case "subscribed":
        this.setStatus("live");
        break;
      case "commit":
        this.commit(message);
        break;
      case "view":
        this.view = message.full || !this.view ? message.view : merge(this.view, message.view);
        this.changed();
        break;
      case "presence":
        this.presence = message.connected;
        this.changed();
        break;
      case "result": {
        const waiting = this.pending.get(message.id);
        const code = message.error?.code;
        if (code === "bad_token") return this.error(message.error);
        if (waiting && AGAIN.has(code)) return setTimeout(() => this.raw(waiting.body), 200); // same id, a moment later
        if (waiting) {
          this.pending.delete(message.id);
          waiting.resolve(message);
        }
        break;
      }
      case "error":
        this.error(message);
        break;
      case "goodbye":
        this.setStatus("reconnecting", "The server is restarting; reconnecting.");
        break;
      default:
        if (this.requests[0]?.reply === message.type) this.answer(message);
    }
  }

  commit(message) {
    const summaries = message.summaries || [];
    let fresh = false;
    message.events.forEach((event, i) => {
      if (event.seq <= this.lastSeq) return; // seen before a reconnect
      fresh = true;
      this.lastSeq = event.seq;
      this.timeline.push({ ...event, summary: summaries[i] || event.type });
    });
    // a push carries its view (a catch-up does not): its last event's time is the server's now, as
    // near as this page can tell; the deadlines' countdowns read the server's clock through it
    const last = message.events.at(-1);
    if (message.view && last?.at) this.skew = Date.parse(last.at) - Date.now() || 0;
    if (fresh && message.view) this.view = merge(this.view || {}, message.view);
    if (fresh) this.changed();
  }

  error(message) {
    if (message.code === "bad_token") {
      this.setStatus("refused", "That invitation is unknown, revoked or expired. Ask the Storyteller for a new link.");
      for (const { resolve } of this.pending.values()) resolve({ type: "result", ok: false, error: message });
      this.pending.clear();
      this.ws?.close();
      return;
    }
    if (!message.id && this.requests[0]?.sentOn) {
      if (message.code === "rate_limited") return setTimeout(() => this.raw(this.requests[0].body), 200);
      if (message.code === "work_limited") return setTimeout(() => this.raw(this.requests[0].body), 1000); // its link has asked a lot: later
      return this.answer(message);
    }
    this.dispatchEvent(Object.assign(new Event("problem"), { error: message }));
  }

  /** The server's time now, as near as this page can tell (ms since the epoch). */
  now() {
    return Date.now() + this.skew;
  }

  /** A page of the events before the earliest this page holds, in words; false when there are none
   * before them. */
  async earlier(limit = 200) {
    const first = this.timeline.length ? this.timeline[0].seq : this.lastSeq + 1;
    if (first <= 1) return false;
    const page = await this.request({ type: "history", before: first, limit }, "history");
    if (page.type !== "history") return true;
    this.timeline = [...page.events.map((e, i) => ({ ...e, summary: page.summaries[i] || e.type })), ...this.timeline];
    this.changed();
    return page.from > 1;
  }

  /** The next page of the decided challenges a whole view leaves out (newest first). */
  async olderChallenges(limit = 50) {
    if (this.olderNext === null) return;
    const page = await this.request({ type: "challenges", before: this.olderNext, limit }, "challenges");
    if (page.type !== "challenges") return;
    Object.assign(this.older, page.challenges);
    this.olderNext = page.next ?? null;
    this.changed();
  }

  changed() {
    if (this.closed) return;
    this.dispatchEvent(new Event("change"));
  }
}

/** A view patch on a view: characters and challenges by key, the rest replaced. */
export function merge(view, patch) {
  const out = { ...view };
  for (const [key, value] of Object.entries(patch)) {
    if (key === "characters" || key === "challenges") out[key] = { ...(view[key] || {}), ...value };
    else out[key] = value;
  }
  return out;
}

/** The token for this page: from the link's #token=…, else the one this tab (then this browser)
 * kept for the page. The token is then taken out of the address bar (it is a key, not something
 * to show or share by accident). Each tab keeps its own: a fork opened in a new tab does not take
 * over the console it came from. */
export function tokenFromPage(key = location.pathname) {
  const linked = new URLSearchParams(location.hash.slice(1));
  const fromLink = linked.get("token");
  if (fromLink) {
    if (linked.get("scene")) remember(fromLink, linked.get("scene")); // its first socket is routed
    sessionStorage.setItem(`justicar:${key}`, fromLink);
    localStorage.setItem(`justicar:${key}`, fromLink);
    history.replaceState(null, "", location.pathname);
    return fromLink;
  }
  return sessionStorage.getItem(`justicar:${key}`) || localStorage.getItem(`justicar:${key}`);
}

/** The rule table (id -> {source, words}), fetched once. */
let rules = null;
export async function ruleTable() {
  if (!rules)
    rules = fetch("/rules.json")
      .then((r) => r.json())
      .catch(() => ({}));
  return rules;
}
