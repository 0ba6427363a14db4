// Entry point, loaded on every page (about 1 KB). The Run buttons (blocks.js) are fetched only on a page
// whose build marked runnable blocks; Python itself only when a reader first asks for it.
import "./root.js"; // resolve the site root now, on the page that loaded this script (see root.js)

let blocksLoaded = false; // once they are, every page is told of a run still going on a page left behind

// Once the page's blocks have their buttons, its article says so (data-mg-blocks): the signal a test
// waits for instead of a quiet network.
function mountBlocks() {
  const article = document.querySelector("article");
  const ready = () => article?.setAttribute("data-mg-blocks", "ready");
  if (!blocksLoaded && !document.querySelector("[data-mg-run]")) return ready();
  blocksLoaded = true;
  import("./blocks.js")
    .then((m) => m.mountBlocks(document))
    .catch((err) => console.error("microgpt run buttons:", err))
    .finally(ready);
}

// The widgets ask for traces with the reader's leaf values (see leaves.js).
document.addEventListener("mg:leaves", (event) => {
  const widget = event.target;
  import("./leaves.js")
    .then((m) => m.onLeaves(widget, event.detail))
    .catch((err) => widget.mgSetError?.(`Python could not start: ${err.message}`));
});

if (window.document$) window.document$.subscribe(mountBlocks);
else mountBlocks(); // module scripts run after parsing, so the page is there
