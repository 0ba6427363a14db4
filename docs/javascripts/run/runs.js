// One Python, so one run at a time, in click order. The run under way is known by its page and its place
// on it, because instant navigation (mkdocs.yml) keeps the document, the worker and the run when the reader
// moves to another page: that page names the run still going, with a Stop for it.
import { h } from "../dom.js";
import { stopPython } from "./python.js";

/**
 * @typedef {object} Place  where a run was started, in words a reader recognises
 * @property {string} page     the page's title
 * @property {string} url      the page, at the block's section
 * @property {string} where    the block's place on it: "the example in “Exercise: ReLU”"
 * @property {Element} box     the block's box: once the reader has left its page, no longer in the document
 */

/** @type {Place | null} */
let current = null; // the run under way
let waiting = 0; // runs queued behind it
let queue = Promise.resolve();
/** @type {Set<() => void>} */
const watchers = new Set(); // told when the run under way ends or another starts

const changed = () => {
  for (const watcher of watchers) watcher();
};

/** Run job after the runs clicked before it. If it has to wait, onWait(place of the run ahead, or null
 * when that one is itself still queued) says so first; nothing is said when it need not wait.
 * @template T
 * @param {Place} place  @param {() => Promise<T>} job  @param {(ahead: Place | null) => void} onWait
 * @returns {Promise<T>} */
export function enqueue(place, job, onWait) {
  if (current || waiting) onWait(current);
  waiting += 1;
  const run = queue.then(async () => {
    waiting -= 1;
    current = place;
    changed();
    try {
      return await job();
    } finally {
      current = null;
      changed();
    }
  });
  queue = run.then(
    () => {},
    () => {},
  );
  return run;
}

/** The run under way, if any. */
export const runningNow = () => current;

/** Call watcher whenever the run under way changes; returns the function that stops the calls.
 * @param {() => void} watcher */
export function watchRuns(watcher) {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** The words for a place: "the example in “Exercise: ReLU” on The block". @param {Place} place */
export const describe = (place) => `${place.where} on “${place.page}”`;

/** On a page just shown: while a run started on a page the reader has left is still going, a note at the top
 * of the article names it, links back to it and offers a Stop. @param {Element} article */
export function noteRunLeftBehind(article) {
  const place = current;
  if (!place || place.box.isConnected) return;
  const stop = h("button", { type: "button", class: "md-button mg-run-away__stop" }, "Stop it");
  const note = h(
    "p",
    { class: "mg-run-away", role: "status" },
    "Still running: ",
    h("a", { href: place.url }, place.where),
    ` on “${place.page}”, a page you left. `,
    stop,
  );
  stop.addEventListener("click", () => stopPython());
  article.prepend(note);
  const unwatch = watchRuns(() => {
    if (current === place) return;
    note.remove(); // it ended, or was stopped
    unwatch();
  });
}
