// The widgets the build placed on a page (tools/mgsite/mgsite/shortcodes.py, graphs.py), mounted by the site's
// entry (site.js) on each page it shows. A widget's module is fetched only on a page that has one.
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

/** The Train widget's module, with its stylesheet, once a page had one. @type {Promise<typeof import("../train/mount.js")> | null} */
let train = null;
const loadTrain = () => {
  train ??= Promise.all([import("../train/mount.js"), addStylesheet("train.css")]).then(([m]) => m);
  return train;
};

/** The elements mounted already (or being mounted). @type {WeakSet<Element>} */
const mounted = new WeakSet();

/** Mount what is not mounted yet; settles when every widget found has mounted (or failed to: the element
 * then says so, data-mounted="error", which the tests look for). */
export function mountAll() {
  const loads = [];
  for (const [selector, load] of MOUNTS) {
    const found = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(selector))].filter(
      (el) => !mounted.has(el),
    );
    if (!found.length) continue;
    for (const el of found) mounted.add(el);
    const mounting = load().then((mount) => {
      for (const el of found) {
        try {
          mount(el);
        } catch (err) {
          el.dataset.mounted = "error";
          console.error("autograd widget failed", err);
        }
      }
    });
    loads.push(mounting);
  }
  return Promise.allSettled(loads);
}

/** A page is shown: a Train widget left behind stops, and this page's widgets mount. The page's article then
 * says its widgets are ready (data-mg-widgets), the signal a test waits for instead of a quiet network. */
export function mountWidgets() {
  train?.then((m) => m.stopGone());
  const article = document.querySelector("article");
  return mountAll().then(() => article?.setAttribute("data-mg-widgets", "ready"));
}
