// Keyboard access to everything that scrolls sideways.
//
// A box whose content is wider than itself (a display equation, a table, a row of tab labels, a
// code block; Material does this for code blocks only, and only on devices with a mouse) gets
// tabindex="0", so a keyboard can reach it and scroll it with the arrow keys; it loses it again
// when it fits. Other scripts can opt a box in with the attribute data-scroll-region.
// Material's per-block toolbar (the copy button) is a <nav> without a name; twenty of them would
// fill a screen reader's list of landmarks, so it is marked as plain grouping instead.
// The line numbers of an embedded block are links to their lines, one per line: they stay links
// for a pointer but leave the tab order, where forty stops per block would bury the page's own
// links. (Their size is set by the code's line height, the case WCAG 2.5.8 exempts from its 24 px
// target size; axe, as Lighthouse runs it, checks the targets in the tab order.)
//
// None of this is on the page's critical path, and none of it makes a long task: the observers' callbacks
// only measure and queue, and the work is done in slices of at most 10 ms of tasks of our own
// (slices.js), so no task of ours at load grows with the page. Boxes near the viewport are taken up as
// they come near (an IntersectionObserver), the rest a few at a time while the browser is idle. A box
// taken up is measured by a ResizeObserver, whose callback the browser calls right after laying the page
// out (measuring there lays nothing out again), and again whenever it or its content changes size (a
// font arriving, a window turned, a closed note opened).

import { Slices } from "./slices.js";

/** Each kind of box, and what one this script makes focusable is called, so a screen reader says what the
 * stop is; a box that opted in (data-scroll-region), or has a role of its own, is named by its owner.
 * @type {[string, string | undefined][]} */
const KINDS = [
  [".md-typeset div.arithmatex", "Formula, scrolls sideways"],
  [".md-typeset .md-typeset__scrollwrap", "Table, scrolls sideways"],
  [".md-typeset .tabbed-labels", "Tab labels, scroll sideways"],
  [".md-typeset pre > code", "Code, scrolls sideways"],
  ["[data-scroll-region]", undefined],
];
const SCROLLERS = KINDS.map(([selector]) => selector).join(",");
const CODE = ".md-typeset pre > code";
const TOOLBAR = "nav.md-code__nav:not([role])";
const LINE_LINKS = ".linenodiv a[href]:not([tabindex])";

/** @param {Element} el */
const nameOf = (el) => KINDS.find(([selector]) => el.matches(selector))?.[1];

/** Boxes this script marked: "plain" (focusable) or "named" (also given a role and a name). */
/** @type {WeakMap<HTMLElement, "plain" | "named">} */
const marked = new WeakMap();
/** Boxes taken up (watched for their size), and the boxes still waiting for an idle moment. */
/** @type {WeakSet<HTMLElement>} */
const taken = new WeakSet();
/** @type {HTMLElement[]} */
let waiting = [];

/** root itself (when it matches) and everything under it that matches.
 * @param {ParentNode} root  @param {string} selector  @returns {HTMLElement[]} */
function within(root, selector) {
  const self = root instanceof Element && root.matches(selector) ? [/** @type {HTMLElement} */ (root)] : [];
  return [...self, .../** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector))];
}

/** @param {ParentNode} root */
function unnameToolbars(root) {
  for (const nav of within(root, TOOLBAR)) nav.setAttribute("role", "none");
}

/** Make a box focusable (and named) while it scrolls, and plain again once it fits.
 * @param {HTMLElement} el  @param {boolean} scrolls */
function mark(el, scrolls) {
  const was = marked.get(el);
  if (scrolls && !was && !el.hasAttribute("tabindex")) {
    el.tabIndex = 0;
    const name = el.hasAttribute("role") ? undefined : nameOf(el);
    if (name) {
      el.setAttribute("role", "group");
      el.setAttribute("aria-label", name);
    }
    el.dataset.mgScroll = name ? "named" : ""; // for the styles and the tests
    marked.set(el, name ? "named" : "plain");
  } else if (!scrolls && was) {
    el.removeAttribute("tabindex");
    if (was === "named") for (const attribute of ["role", "aria-label"]) el.removeAttribute(attribute);
    delete el.dataset.mgScroll;
    marked.delete(el);
  }
}

/** @type {Slices<[HTMLElement, boolean]>} */
const marks = new Slices(([el, scrolls]) => mark(el, scrolls));

// Measure the boxes reported (a child reported stands for its box), all of them before changing any: a
// change made here would lay the page out again for the next box measured, by this observer or another,
// inside the browser's rendering. A box the page does not show (in a closed <details>, a hidden tab)
// keeps what it has; it is reported again once shown and laid out.
const sizes = new ResizeObserver((entries) => {
  const reported = entries.map((entry) => /** @type {HTMLElement} */ (entry.target));
  const boxes = [
    ...new Set(reported.map((el) => (taken.has(el) ? el : /** @type {HTMLElement} */ (el.parentElement)))),
  ];
  const shown = boxes.filter((el) => el.isConnected && (el.checkVisibility?.() ?? true));
  marks.add(...shown.map((el) => /** @type {[HTMLElement, boolean]} */ ([el, el.scrollWidth > el.clientWidth + 1])));
});

/** Watch a box for its size, and its content's (a formula's width changes when the math font arrives; a
 * code block's lines do not, and there are many of them). @param {HTMLElement} box */
function take(box) {
  if (taken.has(box) || !box.isConnected) return;
  taken.add(box);
  sizes.observe(box);
  if (!box.matches(CODE)) for (const child of box.children) sizes.observe(child);
  const table = box.closest(".highlighttable");
  if (table) for (const link of within(table, LINE_LINKS)) link.tabIndex = -1;
}

/** @param {HTMLElement} box */
function release(box) {
  if (!taken.has(box)) return;
  taken.delete(box);
  sizes.unobserve(box);
  for (const child of box.children) sizes.unobserve(child);
}

/** @type {Slices<HTMLElement>} */
const soon = new Slices(take);

// the boxes near the viewport, first
const near = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      near.unobserve(entry.target);
      soon.add(/** @type {HTMLElement} */ (entry.target));
    }
  },
  { rootMargin: "50% 0px" },
);

/** @type {(work: (deadline: { timeRemaining: () => number }) => void) => void} */
const whenIdle =
  "requestIdleCallback" in window
    ? (work) => requestIdleCallback(work, { timeout: 2000 })
    : (work) => setTimeout(() => work({ timeRemaining: () => 8 }), 50);
let scheduled = false;

/** The rest, a few at a time while the browser has nothing else to do. */
function drain(/** @type {{ timeRemaining: () => number }} */ deadline) {
  scheduled = false;
  while (waiting.length && deadline.timeRemaining() > 1) {
    const box = /** @type {HTMLElement} */ (waiting.shift());
    near.unobserve(box);
    take(box);
  }
  if (waiting.length) schedule();
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  whenIdle(drain);
}

/** Take up the boxes under root: soon if near the viewport, else when the browser is idle.
 * @param {ParentNode} root */
function watch(root) {
  const boxes = within(root, SCROLLERS).filter((box) => !taken.has(box));
  for (const box of boxes) near.observe(box);
  waiting.push(...boxes);
  schedule();
}

/** Let go of what a removed subtree held (an observer keeps what it watches). @param {Element} root */
function forget(root) {
  for (const box of within(root, SCROLLERS)) {
    near.unobserve(box);
    release(box);
  }
  waiting = waiting.filter((box) => box.isConnected);
}

/** @param {Node} node  @returns {node is Element} */
const isElement = (node) => node.nodeType === Node.ELEMENT_NODE;

/** What a change to the page's elements calls for. @param {MutationRecord} record */
function follow(record) {
  for (const node of record.removedNodes) {
    if (!isElement(node)) continue;
    if (taken.has(/** @type {HTMLElement} */ (record.target))) sizes.unobserve(node);
    forget(node);
  }
  for (const node of record.addedNodes) {
    if (!isElement(node) || !node.isConnected) continue;
    unnameToolbars(node);
    const parent = node.parentElement;
    if (parent && taken.has(parent) && !parent.matches(CODE)) sizes.observe(node);
    else watch(node);
  }
}
/** @type {Slices<MutationRecord | ParentNode>} */
const changes = new Slices((change) => {
  if (change instanceof MutationRecord) follow(change);
  else {
    unnameToolbars(change);
    watch(change);
  }
});

/** Start watching the document: once, from the site's entry (site.js). The document as it is is looked
 * at in a task of our own, after the theme's start; what is added later, as it comes. */
export function watchScrollRegions() {
  // added elements that are (or hold, or sit in) a toolbar or a scroll box, not every widget redraw
  new MutationObserver((records) => changes.add(...records)).observe(document.body, { childList: true, subtree: true });
  changes.add(document);
}
