// The Train widget is built only when the reader scrolls near it: loading the page fetches and runs
// this file alone, so the page's blocking time does not grow (benchmarks/bench_train.py measures it).
// Until then the element shows the command line that runs the same training.
const NEAR = "800px"; // how far below (or above) the viewport the widget starts being built

/** The widget's module, once one was built. @type {Promise<typeof import("./widget.js")> | null} */
let built = null;

/** @param {HTMLElement} el */
export function mountWhenNear(el) {
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      built ??= import("./widget.js");
      built.then((m) => m.mountTrain(el)).catch((err) => console.error("microgpt train widget:", err));
    },
    { rootMargin: `${NEAR} 0px` },
  );
  observer.observe(el);
}

/** Instant navigation swaps the page and keeps the document: a widget no longer in it stops its work. */
export function stopGone() {
  built?.then((m) => m.stopGone());
}
