// The front door: paste an invitation link or token; the server says what it is for, and the
// page opens the player's page or the Storyteller's console.
import { field, fill, h } from "./dom.js";
import { Live, pagePath } from "./live.js";
import { refusal } from "./words.js";

const app = document.getElementById("app");
const input = h("input", {
  name: "token",
  autocomplete: "off",
  required: true,
  placeholder: "https://…/play#token=jt_… or jt_…",
});
const out = h("div", { class: "outcome", "aria-live": "polite" });

function tokenOf(text) {
  const hash = text.includes("#") ? text.slice(text.indexOf("#") + 1) : "";
  return new URLSearchParams(hash).get("token") || text.trim();
}

async function join(event) {
  event.preventDefault();
  const token = tokenOf(input.value);
  out.replaceChildren("Checking…");
  const live = new Live(token, { subscribe: false });
  live.addEventListener("status", () => {
    if (live.status === "refused") out.replaceChildren(refusal({ message: live.reason }));
    if (live.status !== "live" || !live.welcome) return;
    const page = live.welcome.role === "st" ? "st" : "play";
    live.ws?.close();
    location.assign(pagePath(page, token, live.welcome.scene));
  });
}

fill(
  app,
  h("header", { class: "top" }, h("h1", {}, "Justicar")),
  h(
    "main",
    {},
    h(
      "section",
      { "aria-labelledby": "join-h" },
      h("h2", { id: "join-h" }, "Join a scene"),
      h("p", {}, "Paste the invitation your Storyteller gave you: a link or a token."),
      h(
        "form",
        { class: "row", onsubmit: join },
        field("Invitation link or token", input),
        h("button", { type: "submit", class: "primary" }, "Join"),
      ),
      out,
    ),
    h(
      "section",
      {},
      h("h2", {}, "Storytellers"),
      h(
        "p",
        {},
        "Start a scene with ",
        h("code", {}, "justicar scene new --db justicar.db"),
        " and open the console link it prints; from the console you invite players, each with a link and a QR code.",
      ),
      h("p", {}, h("a", { href: "/replay" }, "Open the replay viewer")),
    ),
  ),
);
input.focus();
