import { h } from "../dom.js";
import { Slices } from "../slices.js";

// Numbers as every widget shows them; microgpt/course/diagrams.py's fmt() is the same rule, except on
// an exact tie at the fourth decimal (0.03125: Python rounds half to even, 0.0312; toFixed up, 0.0313).
/** @param {number} x */
export function fmt(x) {
  if (Number.isInteger(x)) return String(x);
  const s = x.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}

// A number as a reader types it: digits, an optional point, an optional - or − sign. Nothing else:
// no 0x0A, no 1e1, no 1,0. tools/mgsite/mgsite/graphs.py's PLAIN_DECIMAL is the same pattern.
const PLAIN_DECIMAL = /^[-−]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
export const DECIMAL_HELP =
  "Type a number in plain decimal notation: digits, an optional minus sign and decimal point, such as 2.5 or −3.";

/** @param {string} text */
export function parseDecimal(text) {
  const s = String(text).trim();
  return PLAIN_DECIMAL.test(s) ? Number(s.replace("−", "-")) : null;
}

// Why a text is not accepted, quoting it as typed (callers put this in textContent, never in HTML).
/** @param {string} text */
export function decimalProblem(text) {
  const s = String(text).trim();
  return s === "" ? `Nothing typed yet. ${DECIMAL_HELP}` : `“${s}” is not a plain decimal number. ${DECIMAL_HELP}`;
}

// Parse the data-* JSON the build embedded; the browser never computes a gradient of its own.
/** @param {HTMLElement} el  @param {string} name  @returns {any} */
export function readJSON(el, name) {
  return JSON.parse(el.dataset[name] ?? "null");
}

// After an action disables the focused button (Run all, Reset, Clear, a place button that disappears),
// focus moves to the first enabled control of `preferred` instead of falling to <body>.
/** @param {Element} root  @param {(HTMLButtonElement | null | undefined)[]} preferred */
export function keepFocus(root, preferred) {
  const a = document.activeElement;
  if (a && a !== document.body && !(root.contains(a) && /** @type {HTMLButtonElement} */ (a).disabled)) return;
  const next = preferred.find((b) => b?.isConnected && !b.disabled);
  if (next) next.focus();
}

// A scroll container for a graph drawn at its natural size: focusable and labelled only while it
// really overflows, with a visible "scroll sideways" note under it.
//
// Boxes are measured only in a ResizeObserver's callback, which the browser calls right after it has
// laid the page out, so reading a size there lays nothing out again; and only the boxes it reports (a
// graph reported stands for its box). What the sizes call for is done afterwards, in slices of a task of
// their own (slices.js): changed in the callback, the next box measured, by this observer or another,
// would make the browser lay the whole page out again inside its rendering, while the page loads.
/** @type {Map<HTMLElement, HTMLElement>} */
const notes = new Map(); // each watched box -> its "scroll sideways" note

/** @param {[HTMLElement, boolean]} measured  a box, and whether it overflows */
function mark([box, over]) {
  if (!box.isConnected) {
    notes.delete(box);
    return;
  }
  box.toggleAttribute("data-overflow", over);
  const note = notes.get(box);
  if (note) note.hidden = !over;
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
/** @type {Slices<[HTMLElement, boolean]>} */
const marks = new Slices(mark);

const sizes = new ResizeObserver((entries) => {
  const reported = entries.map((entry) => /** @type {HTMLElement} */ (entry.target));
  const boxes = new Set(reported.map((el) => (notes.has(el) ? el : /** @type {HTMLElement} */ (el.parentElement))));
  marks.add(
    ...[...boxes]
      .filter((box) => notes.has(box))
      .map((box) => /** @type {[HTMLElement, boolean]} */ ([box, box.scrollWidth > box.clientWidth + 1])),
  );
});

// Scroll a box that scrolls sideways (never the page) just far enough to show els: all of them if they
// fit, else the last (a step's changed node comes last, after the node it came from).
const REVEAL_MARGIN = 8; // px of graph left beside a revealed node
/** @param {HTMLElement} box  @param {Element[]} els */
export function revealInside(box, els) {
  if (!els.length || box.scrollWidth <= box.clientWidth + 1) return;
  const b = box.getBoundingClientRect();
  const rects = els.map((el) => el.getBoundingClientRect());
  let [lo, hi] = [Math.min(...rects.map((r) => r.left)), Math.max(...rects.map((r) => r.right))];
  const last = rects[rects.length - 1];
  if (hi - lo > b.width - 2 * REVEAL_MARGIN) [lo, hi] = [last.left, last.right];
  if (lo < b.left + REVEAL_MARGIN) box.scrollLeft -= b.left + REVEAL_MARGIN - lo;
  else if (hi > b.right - REVEAL_MARGIN) box.scrollLeft += hi - (b.right - REVEAL_MARGIN);
}

/** @param {HTMLElement} box */
export function watchScroll(box) {
  if (notes.has(box)) return;
  const note = h(
    "p",
    { class: "autograd-scroll-hint", hidden: true },
    "⇆ Scroll sideways (or focus the graph and use the arrow keys) to see all of it.",
  );
  box.after(note);
  notes.set(box, note);
  // the box keeps its width while a redraw makes the graph inside it wider or narrower: watch both.
  // A newly watched element is reported once it is laid out, so a redraw is measured then; a graph
  // the redraw removed is let go (an observer holds on to what it watches).
  const watchContent = () => {
    for (const el of [box, ...box.children]) sizes.observe(el);
  };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.removedNodes) if (n instanceof Element) sizes.unobserve(n);
    watchContent();
  }).observe(box, { childList: true });
  watchContent();
}
