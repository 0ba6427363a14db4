// The site's entry, on every page: overrides/main.html imports it once the page has been painted and has
// loaded, so none of this is on the way to a reader's first sight of the text. It is bundled with the rest
// by esbuild (tools/mgsite/mgsite/vendor.py): each import() below and in the modules it names is a file of
// its own, fetched only on a page that has that feature. It subscribes once to Material's documented
// document$, which emits this page and then each page instant navigation shows.
import { improveHeader } from "./header-buttons.js";
import { answerLeafRequests, mountRuns } from "./run/index.js";
import { watchScrollRegions } from "./scroll-regions.js";
import { Slices } from "./slices.js";
import { addStylesheet } from "./stylesheets.js";
import { mountWidgets } from "./widgets/index.js";

// Widgets put into a page after it was shown are mounted by this (the browser tests' widgets that no page uses
// yet): the page's own module, whose record of what is mounted it shares.
export { mountAll } from "./widgets/index.js";

// How near a runnable block the reader must come for the Run buttons to be fetched: a screen ahead, so they
// are there by the time it is in view, and the page moves (each block gains its Run bar) out of sight.
const NEAR = "100% 0px";

/** The shown page's runnable blocks, watched until the reader comes near one. @type {IntersectionObserver | null} */
let waiting = null;
let runsFetched = false;

/** The Run buttons and their stylesheet are fetched when the reader first comes near a runnable block; from
 * then on each page mounts them as it is shown. A page without one mounts at once: mountRuns then says
 * the page is ready, or names a run still going on a page left behind. */
function mountRunsWhenNear() {
  waiting?.disconnect();
  const blocks = document.querySelectorAll("[data-mg-run]");
  if (runsFetched || !blocks.length) return mountRuns();
  waiting = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      waiting?.disconnect();
      runsFetched = true;
      addStylesheet("run.css").then(mountRuns);
    },
    { rootMargin: NEAR },
  );
  for (const block of blocks) waiting.observe(block);
}

// Once, in tasks of our own (slices.js) rather than all in the one that evaluated this module: the header stays
// when the page changes, and these watch the document for what each page adds.
new Slices((/** @type {() => void} */ start) => start()).add(
  improveHeader,
  watchScrollRegions,
  answerLeafRequests,
  () =>
    window.document$.subscribe(() => {
      mountWidgets();
      mountRunsWhenNear();
    }),
);
