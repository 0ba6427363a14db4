// The Train widget is built only when the reader scrolls near it: loading the page fetches and runs
// this file alone, so the page's blocking time does not grow (benchmarks/bench_train.py measures it).
// Until then the element shows the command line that runs the same training.
const NEAR = "800px"; // how far below (or above) the viewport the widget starts being built

export function mountWhenNear(el) {
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      import("./widget.js")
        .then((m) => m.mountTrain(el))
        .catch((err) => console.error("microgpt train widget:", err));
    },
    { rootMargin: `${NEAR} 0px` },
  );
  observer.observe(el);
}
