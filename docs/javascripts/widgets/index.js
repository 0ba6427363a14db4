// The widgets the build placed on a page (tools/mgsite/mgsite/shortcodes.py, graphs.py), mounted by the site's
// entry (site.js) on each page it shows. A widget's module is fetched only on a page that has one.
//
// The step-through graphs and the playgrounds draw a graph when they are built, which takes the main thread
// for long enough to hold up a phone (a playground: 0.2 s on this machine, four times that on a slow phone):
// each is built when the reader comes near it, not as the page loads. The self-checks and the build's
// diagrams only gain their handlers, and are mounted at once; the Train widget builds itself when near
// (../train/mount.js).
import { addStylesheet } from "../stylesheets.js";

/** @typedef {(el: HTMLElement) => void} Mount */
/** @type {[string, () => Promise<Mount>][]} */
const MOUNTS = [
  [".autograd-widget", () => import("./stepper.js").then((m) => m.mountStepper)],
  [".autograd-playground", () => import("./playground.js").then((m) => m.mountPlayground)],
  ["form.autograd-check", () => import("./check.js").then((m) => /** @type {Mount} */ (m.mountCheck))],
  [".autograd-diagram .autograd-scroll", () => import("./format.js").then((m) => m.watchScroll)],
  [".mg-train[data-mg-train]", () => loadTrain().then((m) => m.mountWhenNear)],
];
/** The widgets built only when the reader comes near them: a screen ahead, so each is there by the time it is
 * in view (and the page moves, as it grows, out of sight). */
const WHEN_NEAR = new Set([".autograd-widget", ".autograd-playground"]);
const NEAR = "100% 0px";

/** The Train widget's module, with its stylesheet, once a page had one. @type {Promise<typeof import("../train/mount.js")> | null} */
let train = null;
const loadTrain = () => {
  train ??= Promise.all([import("../train/mount.js"), addStylesheet("train.css")]).then(([m]) => m);
  return train;
};

/** The elements mounted already (or being mounted, or waiting for the reader to come near). @type {WeakSet<Element>} */
const mounted = new WeakSet();
/** What watches the shown page's widgets until the reader comes near; let go of when the page changes.
 * @type {IntersectionObserver[]} */
let watching = [];

/** Mount `found` with its module; settles when each has mounted (or failed to: the element then says so,
 * data-mounted="error", which the tests look for). @param {HTMLElement[]} found  @param {() => Promise<Mount>} load */
function mountNow(found, load) {
  return load().then((mount) => {
    for (const el of found) {
      try {
        mount(el);
      } catch (err) {
        el.dataset.mounted = "error";
        console.error("autograd widget failed", err);
      }
    }
  });
}

/** Mount `found` as the reader comes near each; settles once the ones near the viewport now have mounted.
 * @param {HTMLElement[]} found  @param {() => Promise<Mount>} load  @returns {Promise<unknown>} */
function mountWhenNear(found, load) {
  return new Promise((settle) => {
    let first = true;
    const observer = new IntersectionObserver(
      (entries) => {
        const near = entries
          .filter((entry) => entry.isIntersecting)
          .map((entry) => /** @type {HTMLElement} */ (entry.target));
        for (const el of near) observer.unobserve(el);
        const mounting = near.length ? mountNow(near, load) : Promise.resolve();
        if (first) mounting.finally(() => settle(undefined)); // the first report covers every element watched
        first = false;
      },
      { rootMargin: NEAR },
    );
    for (const el of found) observer.observe(el);
    watching.push(observer);
  });
}

/** Mount what is not mounted yet; settles when every widget found has mounted, but those built when near,
 * of which those near the viewport now. */
export function mountAll() {
  const loads = [];
  for (const [selector, load] of MOUNTS) {
    const found = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(selector))].filter(
      (el) => !mounted.has(el),
    );
    if (!found.length) continue;
    for (const el of found) mounted.add(el);
    loads.push(WHEN_NEAR.has(selector) ? mountWhenNear(found, load) : mountNow(found, load));
  }
  return Promise.allSettled(loads);
}

/** A page is shown: a Train widget left behind stops, what watched the page before stops, and this page's
 * widgets mount. The page's article then says its widgets are ready (data-mg-widgets), the signal a test waits
 * for instead of a quiet network. */
export function mountWidgets() {
  train?.then((m) => m.stopGone());
  for (const observer of watching) observer.disconnect();
  watching = [];
  const article = document.querySelector("article");
  return mountAll().then(() => article?.setAttribute("data-mg-widgets", "ready"));
}
