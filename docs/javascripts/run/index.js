// The Run buttons, mounted by the site's entry (site.js) on each page it shows. Their code (blocks.js) is
// fetched only on a page whose build marked runnable blocks; Python itself only when a reader first asks.

let blocksLoaded = false; // once they are, every page is told of a run still going on a page left behind

/** Give this page's blocks their buttons. The article then says so (data-mg-blocks): the signal a test
 * waits for instead of a quiet network. */
export function mountRuns() {
  const article = document.querySelector("article");
  const ready = () => article?.setAttribute("data-mg-blocks", "ready");
  if (!blocksLoaded && !document.querySelector("[data-mg-run]")) return ready();
  blocksLoaded = true;
  import("./blocks.js")
    .then((m) => m.mountBlocks(document))
    .catch((err) => console.error("microgpt run buttons:", err))
    .finally(ready);
}

/** The widgets ask for traces with the reader's leaf values (widgets/leaves.js; answered by leaves.js). */
export function answerLeafRequests() {
  document.addEventListener("mg:leaves", (event) => {
    const request = /** @type {CustomEvent<import("../widgets/leaves.js").LeavesRequest>} */ (event).detail;
    import("./leaves.js")
      .then((m) => m.onLeaves(request))
      .catch((err) => request.error(`Python could not start: ${err.message}`));
  });
}
