// Keyboard access to everything that scrolls sideways, on every page.
//
// A box whose content is wider than itself (a display equation, a table, a row of tab labels, a
// code block; Material does this for code blocks only, and only on devices with a mouse) gets
// tabindex="0", so a keyboard can reach it and scroll it with the arrow keys; it loses it again
// when it fits.
// Other scripts can opt a box in with the attribute data-scroll-region.
// Material's per-block toolbar (the copy button) is a <nav> without a name; twenty of them would
// fill a screen reader's list of landmarks, so it is marked as plain grouping instead.
// The line numbers of an embedded block are links to their lines, one per line: they stay links
// for a pointer but leave the tab order, where forty stops per block would bury the page's own
// links. (Their size is set by the code's line height, the case WCAG 2.5.8 exempts from its 24 px
// target size; axe, as Lighthouse runs it, checks the targets in the tab order.)
// Each kind of box, and what one this script makes focusable is called, so a screen reader says what
// the stop is; a box that opted in (data-scroll-region), or has a role of its own, is named by its owner.
const KINDS = [
  [".md-typeset div.arithmatex", "Formula, scrolls sideways"],
  [".md-typeset .md-typeset__scrollwrap", "Table, scrolls sideways"],
  [".md-typeset .tabbed-labels", "Tab labels, scroll sideways"],
  [".md-typeset pre > code", "Code, scrolls sideways"],
  ["[data-scroll-region]", undefined],
];
const SCROLLERS = KINDS.map(([selector]) => selector).join(",");
const nameOf = (el) => KINDS.find(([selector]) => el.matches(selector))?.[1];

const TOOLBAR = "nav.md-code__nav:not([role])";

// root itself (when it matches) and everything under it that matches; does root hold any?
const within = (root, selector) => [...(root.matches?.(selector) ? [root] : []), ...root.querySelectorAll(selector)];
const holds = (root, selector) => root.matches(selector) || root.querySelector(selector) !== null;

function unnameToolbars(root) {
  for (const nav of within(root, TOOLBAR)) nav.setAttribute("role", "none");
}

// Is the box on the page for a reader to see? One in a closed <details> or a hidden tab is not: the
// browser has not laid it out, and measuring it would make it lay out that hidden content there and
// then (on a page with closed notes, most of the work after the first paint). Such a box keeps what
// it has; the observer reports it once it is shown and laid out, and it is measured then.
const shown = (el) => el.checkVisibility?.() ?? true;

function update() {
  // measure every shown box first, then change attributes: interleaving them would lay the page out
  // again for each box
  const boxes = [...document.querySelectorAll(SCROLLERS)].filter(shown);
  const scrolls = boxes.map((el) => el.scrollWidth > el.clientWidth + 1);
  boxes.forEach((el, k) => {
    if (scrolls[k] && !el.hasAttribute("tabindex")) {
      el.tabIndex = 0;
      el.dataset.mgScroll = "";
      const name = el.hasAttribute("role") ? undefined : nameOf(el);
      if (name) {
        el.setAttribute("role", "group");
        el.setAttribute("aria-label", name);
        el.dataset.mgScroll = "named";
      }
    } else if (!scrolls[k] && "mgScroll" in el.dataset) {
      el.removeAttribute("tabindex");
      if (el.dataset.mgScroll === "named") ["role", "aria-label"].forEach((a) => el.removeAttribute(a));
      delete el.dataset.mgScroll;
    }
  });
  unnameToolbars(document);
  for (const a of document.querySelectorAll(".linenodiv a[href]:not([tabindex])")) a.tabIndex = -1;
}

// Measure when a box or its content changes size (a font arriving, a graph a widget redraws at another
// width), in the ResizeObserver's callback: the browser calls it right after laying the page out, so
// measuring there lays nothing out again, and a box is marked before it is painted, however slow the
// machine. A newly watched box is reported once it is laid out, so watching is all a new box needs.
const sizes = new ResizeObserver(update);
function watch(root, on = true) {
  const what = on ? (el) => sizes.observe(el) : (el) => sizes.unobserve(el);
  for (const box of within(root, SCROLLERS)) [box, ...box.children].forEach(what);
}

unnameToolbars(document);
watch(document);
if (window.document$) window.document$.subscribe(() => watch(document));
// only for added elements that are (or hold, or sit in) a toolbar or a scroll box, not for every
// widget redraw
const relevant = (n) => n.nodeType === 1 && (holds(n, `nav.md-code__nav, ${SCROLLERS}`) || n.parentElement?.matches(SCROLLERS));
new MutationObserver((records) => {
  // let go of what was removed (an observer holds on to what it watches): a box's content, or boxes
  for (const r of records) {
    for (const n of r.removedNodes) {
      if (n.nodeType !== 1) continue;
      if (r.target.matches(SCROLLERS)) sizes.unobserve(n);
      if (holds(n, SCROLLERS)) watch(n, false);
    }
  }
  const added = records.flatMap((r) => [...r.addedNodes]).filter(relevant);
  if (!added.length) return;
  for (const n of added) {
    unnameToolbars(n); // at once, before anything can see it; measuring waits for the layout
    watch(n.parentElement?.matches(SCROLLERS) ? n.parentElement : n);
  }
}).observe(document.body, { childList: true, subtree: true });
