// Entry point, loaded on every page: mount every widget the build placed on the page, again after each
// instant navigation. A widget's module is fetched only on a page that has one.
const MOUNTS = [
  [".autograd-widget", () => import("./stepper.js").then((m) => m.mountStepper)],
  [".autograd-playground", () => import("./playground.js").then((m) => m.mountPlayground)],
  ["form.autograd-check", () => import("./check.js").then((m) => m.mountCheck)],
  [".autograd-diagram .autograd-scroll", () => import("./format.js").then((m) => m.watchScroll)],
  [".mg-train[data-mg-train]", () => import("../train/mount.js").then((m) => m.mountWhenNear)],
];

/** Mount what is not mounted yet; settles when every widget found has mounted (or failed to). */
export function mountAll() {
  const loads = [];
  for (const [selector, load] of MOUNTS) {
    const found = [...document.querySelectorAll(selector)].filter((el) => !el.dataset.mounted);
    if (!found.length) continue;
    for (const el of found) el.dataset.mounted = "true";
    const mounted = load().then((mount) => {
      for (const el of found) {
        try {
          mount(el);
        } catch (err) {
          el.dataset.mounted = "error";
          console.error("autograd widget failed", err);
        }
      }
    });
    loads.push(mounted);
  }
  return Promise.allSettled(loads);
}

// Material's observable: this page, then each page instant navigation shows. The page's article then says
// its widgets are ready (data-mg-widgets), the signal a test waits for instead of a quiet network.
window.document$.subscribe(() => {
  const article = document.querySelector("article");
  mountAll().then(() => article?.setAttribute("data-mg-widgets", "ready"));
});
