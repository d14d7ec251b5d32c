// Small DOM helpers: build elements from data, never from HTML strings.

/** An element: h("button", {class: "big", onclick: f}, "Rock"). Attributes starting with "on"
 * are listeners; `false`/`null` attributes and children are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === false || child === null || child === undefined) continue;
    el.append(child instanceof Node ? child : contained(String(child)));
  }
}

const DIRECTION = /[\u202A-\u202E\u2066-\u2069]/;
/** Text with each direction control (an override, an embedding, an isolate: old text from before
 * names refused them) held to its word: the run from the control to the next space goes inside an
 * isolate (FSI…PDI), which ends whatever it opened (UAX #9, X6a). A name in a sentence never turns
 * the rest of the sentence around. */
export function contained(text) {
  if (!DIRECTION.test(text)) return text;
  return text.replace(/[\u202A-\u202E\u2066-\u2069]\S*/g, (run) => `\u2068${run}\u2069`);
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A labelled form control: a <label for> names it (its hint describes it). */
export function field(label, control, hint) {
  if (!control.id) control.id = uid("f");
  const note = hint && h("small", { id: `${control.id}-hint` }, hint);
  if (note) control.setAttribute("aria-describedby", note.id);
  return h("div", { class: "field" }, h("label", { class: "label", for: control.id }, label), control, note);
}

/** A <select> of [value, text] pairs. */
export function select(name, options, attrs = {}) {
  return h(
    "select",
    { name, ...attrs },
    options.map(([value, text]) => h("option", { value }, text ?? value)),
  );
}

let ids = 0;
/** A unique element id. */
export function uid(prefix = "j") {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** Save text as a file. */
export function download(name, mediaType, text) {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// -- drawing without pulling the rug ---------------------------------------------------------------

let pointerDown = false;
document.addEventListener(
  "pointerdown",
  () => {
    pointerDown = true;
  },
  true,
);
document.addEventListener(
  "pointerup",
  () =>
    setTimeout(() => {
      pointerDown = false;
    }, 0),
  true,
);

function busy(el) {
  const active = document.activeElement;
  return pointerDown || (active && el.contains(active) && active.matches("input, select, textarea"));
}

/** Redraws page regions when what they show changes — but never under someone's fingers: while a
 * field in the region is being filled in (or a press is under way), the redraw waits until they
 * leave it. `region(el, key, render)`. */
export function regions() {
  const shown = new Map();
  const waiting = new Map();
  const watched = new WeakSet();
  const settle = (el) => {
    const next = waiting.get(el);
    if (!next || busy(el)) return;
    waiting.delete(el);
    shown.set(el, next.key);
    next.render();
  };
  return (el, key, render) => {
    if (shown.get(el) === key) return waiting.delete(el);
    if (!busy(el)) {
      waiting.delete(el);
      shown.set(el, key);
      return render();
    }
    if (!watched.has(el)) {
      watched.add(el);
      el.addEventListener("focusout", () => setTimeout(() => settle(el), 250));
    }
    waiting.set(el, { key, render });
  };
}

/** Keep `parent`'s children in step with `items` ([key, make] pairs): a child whose key is
 * unchanged stays as it is (with whatever is typed or chosen in it); only changed ones are made
 * anew. */
export function keyed(parent, items) {
  const old = new Map([...parent.children].map((el) => [el.dataset.key, el]));
  const next = items.map(([key, make]) => {
    const kept = old.get(key);
    if (kept) return kept;
    const el = make();
    el.dataset.key = key;
    return el;
  });
  if (next.length === parent.children.length && next.every((el, i) => el === parent.children[i])) return;
  next.forEach((el, i) => {
    if (parent.children[i] !== el) parent.insertBefore(el, parent.children[i] || null);
  });
  while (parent.children.length > next.length) parent.lastElementChild.remove();
}
