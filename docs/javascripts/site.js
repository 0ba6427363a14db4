// The site's one script, on every page (mkdocs.yml's extra_javascript, a module, so deferred): it starts
// what the site adds to Material's pages, and subscribes once to Material's documented document$, which
// emits this page and then each page instant navigation shows. What a page needs beyond this (the widgets,
// the Run buttons, Python) is fetched only on a page that has it.
import { improveHeader } from "./header-buttons.js";
import { answerLeafRequests, mountRuns } from "./run/index.js";
import { watchScrollRegions } from "./scroll-regions.js";
import { mountWidgets } from "./widgets/index.js";

// once: the header stays when the page changes, and these watch the document for what each page adds
improveHeader();
watchScrollRegions();
answerLeafRequests();

window.document$.subscribe(() => {
  mountWidgets();
  mountRuns();
});
