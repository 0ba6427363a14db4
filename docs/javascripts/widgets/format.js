// Numbers as every widget shows them; microgpt/course/diagrams.py's fmt() is the same rule, except on
// an exact tie at the fourth decimal (0.03125: Python rounds half to even, 0.0312; toFixed up, 0.0313).
export function fmt(x) {
  if (Number.isInteger(x)) return String(x);
  const s = x.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}

// A number as a reader types it: digits, an optional point, an optional - or − sign. Nothing else:
// no 0x0A, no 1e1, no 1,0. docs/hooks/traces.py's PLAIN_DECIMAL is the same pattern.
const PLAIN_DECIMAL = /^[-−]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
export const DECIMAL_HELP = "Type a number in plain decimal notation: digits, an optional minus sign and decimal point, such as 2.5 or −3.";

export function parseDecimal(text) {
  const s = String(text).trim();
  return PLAIN_DECIMAL.test(s) ? Number(s.replace("−", "-")) : null;
}

// Why a text is not accepted, quoting it as typed (callers put this in textContent, never in HTML).
export function decimalProblem(text) {
  const s = String(text).trim();
  return s === "" ? `Nothing typed yet. ${DECIMAL_HELP}` : `“${s}” is not a plain decimal number. ${DECIMAL_HELP}`;
}

// Parse the data-* JSON the build embedded; the browser never computes a gradient of its own.
export function readJSON(el, name) {
  return JSON.parse(el.dataset[name]);
}

const SVG_TAGS = ["svg", "g", "rect", "text", "line", "path", "defs", "marker", "title", "tspan"];

export function h(tag, attrs = {}, ...kids) {
  const el = SVG_TAGS.includes(tag) ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) el.append(kid);
  return el;
}

// After an action disables the focused button (Run all, Reset, Clear, a place button that disappears),
// focus moves to the first enabled control of `preferred` instead of falling to <body>.
export function keepFocus(root, preferred) {
  const a = document.activeElement;
  if (a && a !== document.body && !(root.contains(a) && a.disabled)) return;
  const next = preferred.find((b) => b && b.isConnected && !b.disabled);
  if (next) next.focus();
}

// A scroll container for a graph drawn at its natural size: focusable and labelled only while it
// really overflows, with a visible "scroll sideways" note under it.
//
// Boxes are measured only in a ResizeObserver's callback, which the browser calls right after it has
// laid the page out, and all of them before any is changed: measuring a box right after changing
// another would make the browser lay the whole page out again, once per box, while the page loads.
const notes = new Map(); // each watched box -> its "scroll sideways" note

function mark(box, over) {
  box.toggleAttribute("data-overflow", over);
  notes.get(box).hidden = !over;
  if (over) {
    box.tabIndex = 0;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Graph, wider than the page: scroll sideways");
  } else {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
}

const sizes = new ResizeObserver(() => {
  for (const box of notes.keys()) if (!box.isConnected) notes.delete(box);
  const boxes = [...notes.keys()];
  const over = boxes.map((box) => box.scrollWidth > box.clientWidth + 1);
  boxes.forEach((box, k) => mark(box, over[k]));
});

// Scroll a box that scrolls sideways (never the page) just far enough to show els: all of them if they
// fit, else the last (a step's changed node comes last, after the node it came from).
const REVEAL_MARGIN = 8; // px of graph left beside a revealed node
export function revealInside(box, els) {
  if (!els.length || box.scrollWidth <= box.clientWidth + 1) return;
  const b = box.getBoundingClientRect();
  const rects = els.map((el) => el.getBoundingClientRect());
  let [lo, hi] = [Math.min(...rects.map((r) => r.left)), Math.max(...rects.map((r) => r.right))];
  if (hi - lo > b.width - 2 * REVEAL_MARGIN) [lo, hi] = [rects.at(-1).left, rects.at(-1).right];
  if (lo < b.left + REVEAL_MARGIN) box.scrollLeft -= b.left + REVEAL_MARGIN - lo;
  else if (hi > b.right - REVEAL_MARGIN) box.scrollLeft += hi - (b.right - REVEAL_MARGIN);
}

export function watchScroll(box) {
  if (notes.has(box)) return;
  const note = h("p", { class: "autograd-scroll-hint", hidden: true }, "⇆ Scroll sideways (or focus the graph and use the arrow keys) to see all of it.");
  box.after(note);
  notes.set(box, note);
  // the box keeps its width while a redraw makes the graph inside it wider or narrower: watch both.
  // A newly watched element is reported once it is laid out, so a redraw is measured then; a graph
  // the redraw removed is let go (an observer holds on to what it watches).
  const watchContent = () => [box, ...box.children].forEach((el) => sizes.observe(el));
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.removedNodes) if (n.nodeType === 1) sizes.unobserve(n);
    watchContent();
  }).observe(box, { childList: true });
  watchContent();
}
