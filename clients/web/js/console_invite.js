// The Storyteller's invitations: a link and a QR code per player's character, revocable; spectators;
// every link issued, with when it expires.
import { field, fill, h, select } from "./dom.js";
import { nameOf, refusal } from "./words.js";
import { cell, confirmButton, done } from "./console_common.js";
import { pageLink } from "./live.js";

/** When a token was issued, as a clock reads: "at 23:40" today, "on 30 Nov at 23:40" before. */
function issuedAt(iso) {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  const clock = t.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return t.toDateString() === new Date().toDateString()
    ? `at ${clock}`
    : `on ${t.toLocaleDateString([], { day: "numeric", month: "short" })} at ${clock}`;
}

/** When a token expires, from now: "in 5 h", "in 20 min", "already", "never". */
function expires(iso) {
  if (!iso) return "never";
  const left = (new Date(iso).getTime() - Date.now()) / 60000;
  if (!(left > 0)) return "already";
  return left < 90
    ? `in ${Math.ceil(left)} min`
    : left < 48 * 60
      ? `in ${Math.round(left / 60)} h`
      : `in ${Math.round(left / 1440)} days`;
}

/** The same as a phrase: "expires in 5 h", "never expires", "expired". */
function expiry(iso) {
  const when = expires(iso);
  return when === "never" ? "never expires" : when === "already" ? "expired" : `expires ${when}`;
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/i;

/** Whether this console was opened at a name for this computer only (127.0.0.1, localhost, ::1):
 * links made from this page's address open on this computer alone. */
function loopback() {
  return LOOPBACK.test(location.hostname);
}

/** Said plainly above the invitations, when the links they make would point at this computer. */
function loopbackWarning() {
  if (!loopback()) return null;
  const port = location.port ? `:${location.port}` : "";
  return h(
    "div",
    { class: "loopback-warning", role: "note" },
    h(
      "p",
      {},
      h("strong", {}, `Phones cannot open ${location.hostname}.`),
      ` This console is open at ${location.origin}, a name for this computer only: the links and QR codes made here open on this computer alone.`,
    ),
    h(
      "p",
      {},
      "For phones at the table: run ",
      h("code", {}, "justicar serve --host 0.0.0.0"),
      ` (it prints this computer's network addresses), then open this console from one of them, e.g. http://192.168.1.20${port}/st, and invite from there.`,
    ),
  );
}

/** Copy a link; where the browser has no clipboard for this page (plain http on a LAN address),
 * select the link's text and say so, for the Storyteller to copy by hand. */
async function copyLink(shown, said) {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(shown.value);
    said.replaceChildren(done("Copied: paste it to the player."));
  } catch {
    shown.focus();
    shown.select();
    said.replaceChildren(
      h("p", { class: "done", role: "status" }, "Selected: copy it (this page may not use the clipboard)."),
    );
  }
}

/** Invitations: a link and a QR code per player's character, revocable; and spectators. */
export function invitations(live) {
  // built once: the invitations made stay on the page
  const list = h("div", {});
  const tokens = h("div", {});
  const said = h("div", { class: "outcome", "aria-live": "polite" }); // the last attempt's refusal, cleared by the next
  const character = select("character", []); // filled, and kept current, by the console's draw
  const inviteButton = h("button", { type: "submit", disabled: true }, "Invite");
  const chosen = () => {
    inviteButton.disabled = !character.value; // nobody chosen: nothing to invite
  };
  character.addEventListener("change", chosen);
  character.addEventListener("filled", chosen);
  const whose = (g) =>
    g.role === "player" ? `${nameOf(live.view, g.character)}'s` : `the ${g.role === "st" ? "Storyteller" : g.role}'s`;
  const who = (g) => `${whose(g)} link ${issuedAt(g.created_at)}`;
  const revoke = async (g) => {
    const reply = await live.request({ type: "revoke", token_id: g.token_id }, "revoked");
    await showTokens();
    const gave = reply.cascaded?.length ?? 0; // the links that link had given, revoked with it
    const also =
      gave === 0
        ? ": that page has stopped."
        : ` and the ${gave === 1 ? "link" : `${gave} links`} it gave: those pages have stopped.`;
    said.replaceChildren(reply.type === "error" ? refusal(reply) : done(`Revoked ${who(g)}${also}`));
  };
  const showTokens = async () => {
    const reply = await live.request({ type: "tokens" }, "tokens");
    if (reply.type === "error") return said.replaceChildren(refusal(reply));
    fill(
      tokens,
      h(
        "table",
        { class: "stacked tokens" },
        h("caption", { class: "label" }, live.view?.night ? "Links to tonight's game" : "Links to this scene"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "For"),
            h("th", { scope: "col" }, "Issued"),
            h("th", { scope: "col" }, "Expires"),
            h("th", { scope: "col" }, "Revoke"),
          ),
        ),
        h(
          "tbody",
          {},
          reply.tokens.map((g) =>
            h(
              "tr",
              {},
              h(
                "th",
                { scope: "row" },
                g.role === "player" ? nameOf(live.view, g.character) : g.role === "st" ? "Storyteller" : "Spectators",
              ),
              cell("Issued", issuedAt(g.created_at)),
              cell("Expires", g.revoked ? "revoked" : expires(g.expires_at)),
              h(
                "td",
                { class: "controls" },
                g.revoked
                  ? ""
                  : g.token_id === live.welcome?.token_id
                    ? "this console"
                    : confirmButton(
                        `Revoke ${who(g)}`,
                        `Confirm: revoke ${who(g)}`,
                        () => revoke(g),
                        `Revoke ${who(g)}? Their page stops at once and the link never works again.`,
                      ),
              ),
            ),
          ),
        ),
      ),
    );
  };
  const invite = async (body) => {
    const reply = await live.request({ type: "invite", ...body }, "invited");
    if (reply.type === "error") return said.replaceChildren(refusal(reply));
    said.replaceChildren();
    const link = pageLink("play", reply.token, reply.grant.scene);
    const qr = await live.request({ type: "qr", text: link }, "qr");
    const who = reply.grant.role === "player" ? nameOf(live.view, reply.grant.character) : "Spectators";
    const box = h("div", { class: "qr", role: "img", "aria-label": `QR code of ${who}'s link` });
    const svg = qr.svg && new DOMParser().parseFromString(qr.svg, "image/svg+xml").querySelector("svg");
    if (svg) box.append(document.importNode(svg, true));
    const shown = h("input", { readonly: true, value: link, "aria-label": `${who}'s link` });
    const copied = h("div", { class: "outcome", "aria-live": "polite" });
    list.prepend(
      h(
        "div",
        { class: "invite" },
        box,
        h(
          "div",
          { class: "invite-link" },
          h("strong", {}, who),
          shown,
          h("button", { type: "button", onclick: () => copyLink(shown, copied) }, "Copy link"),
          copied,
          h("p", { class: "hint" }, `Issued ${issuedAt(reply.grant.created_at)}, ${expiry(reply.grant.expires_at)}.`),
          loopback() && h("p", { class: "hint" }, `Opens on this computer only (${location.hostname}).`),
        ),
      ),
    );
    showTokens();
  };
  return h(
    "div",
    {},
    loopbackWarning(),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          if (character.value) invite({ role: "player", character: character.value });
        },
      },
      field("Invite the player of", character),
      inviteButton,
      h(
        "button",
        { type: "button", class: "quiet", onclick: () => invite({ role: "spectator" }) },
        "Invite spectators",
      ),
      h("button", { type: "button", class: "quiet", onclick: showTokens }, "List links"),
    ),
    said,
    list,
    tokens,
  );
}
