// Run buttons for the code blocks the build marked (tools/mgsite/mgsite/runnable.py: data-mg-run, data-mg-cont,
// data-mg-needs, and data-mg-expected on a checked output): run in the reader's browser, edit, reset.
// A block's state lives in this module (a WeakMap from its box), not on the element; the box carries
// data-mg-state (idle, loading, running, done, error; needs for a block that cannot run here) and
// data-mg-edited for styles and tests.
import { h } from "../dom.js";
import { foldChecked } from "./checked.js";
import { copyButton } from "./copy.js";
import { closeEditor, openEditor, restoreDraft } from "./editing.js";
import { keptPieces, rememberPieces } from "./pieces.js";
import { expectStops, getPython, pythonReady, pythonStartedBefore, stopPython } from "./python.js";
import { setStatus, showResult, showStale, showStopped } from "./result.js";
import { describe, enqueue, noteRunLeftBehind } from "./runs.js";
import { wrapLines } from "./wrap.js";

/**
 * @typedef {object} UI
 * @property {HTMLButtonElement} run
 * @property {HTMLButtonElement} stop
 * @property {HTMLButtonElement} edit
 * @property {HTMLButtonElement} reset
 * @property {HTMLElement} message    the status line's words
 * @property {HTMLProgressElement} progress
 * @property {HTMLElement} spoken     the verdict, again, inside the status region (screen readers only)
 * @property {HTMLElement} verdict
 * @property {HTMLElement} verdictIcon
 * @property {HTMLElement} verdictText
 * @property {HTMLOutputElement} output
 * @property {HTMLElement} stdout
 * @property {HTMLElement} stderr
 *
 * @typedef {object} Block
 * @property {HTMLElement} el        its box (div.mg-run), with the page's highlighted code in it
 * @property {string} n              its data-mg-run
 * @property {string} page           the path of its page
 * @property {string} original       the page's code (without the newline that ends it)
 * @property {Block[]} chain         the blocks a Run here runs: its chain, from the first block to this one
 * @property {UI} ui
 * @property {import("../editor/index.js").Editor | null} editor   once the reader has pressed Edit
 * @property {boolean} editing       the editor is shown (and what it holds is what runs)
 * @property {boolean} judged        a checker has judged a run of it (since the last Reset)
 */

/** @type {WeakMap<Element, Block>} */
const mounted = new WeakMap();

export const highlightOf = (/** @type {Element} */ el) => /** @type {HTMLElement} */ (el.querySelector(".highlight"));
const codeOf = (/** @type {Element} */ el) =>
  /** @type {HTMLElement} */ (el.querySelector("td.code code") ?? el.querySelector("code"));

/** The code a block shows now: the reader's edit while the editor is shown, else the page's code.
 * @param {Block} block */
const textOf = (block) => (block.editing && block.editor ? block.editor.text() : block.original);

/** What a block runs: its code as a file holds it, ending with a newline (Python's inspect reads a function's
 * source from these lines; microgpt.course.capstone tells the page's solution by it).
 * @param {Block} block */
const sourceOf = (block) => `${textOf(block)}\n`;

/** @param {Block} block */
const isEdited = (block) => textOf(block) !== block.original;

/** Fold away, or show again, the checked output of each block whose run runs this one (checked.js): it is the
 * page's code's, so it is folded once a block of that run is edited or a checker has judged it.
 * @param {Block} block */
function showChecked(block) {
  for (const output of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-mg-expected]"))) {
    const box = document.querySelector(`[data-mg-run="${output.dataset.mgExpected}"]`);
    const owner = box && mounted.get(box);
    if (owner?.chain.includes(block)) foldChecked(owner, owner.judged || owner.chain.some(isEdited));
  }
}

/** The text of a heading or title without its permalink. @param {Element} el */
function titleOf(el) {
  const copy = /** @type {Element} */ (el.cloneNode(true));
  for (const a of copy.querySelectorAll(".headerlink")) a.remove();
  return (copy.textContent ?? "").trim();
}

/** Where the block is, in the reader's words: the admonition it is in, else the section.
 * @param {Block} block  @returns {import("./runs.js").Place} */
function placeOf(block) {
  const box = block.el.closest(".admonition, details");
  const title = box?.querySelector(":scope > .admonition-title, :scope > summary");
  const headings = [...document.querySelectorAll("article h2[id], article h3[id]")].filter(
    (heading) => heading.compareDocumentPosition(block.el) & Node.DOCUMENT_POSITION_FOLLOWING,
  );
  const heading = headings.at(-1);
  const h1 = document.querySelector("article h1");
  const url = new URL(location.href);
  url.hash = heading ? heading.id : "";
  const where = title
    ? `the example in “${titleOf(title)}”`
    : heading
      ? `the example under “${titleOf(heading)}”`
      : "the example at the top of the page";
  return { page: h1 ? titleOf(h1) : document.title, url: url.href, where, box: block.el };
}

/** Run the block's chain and show the result.  @param {Block} block */
async function execute(block) {
  const { el, ui } = block;
  if (!pythonReady()) setStatus(ui, pythonStartedBefore() ? "Starting a fresh Python…" : "Starting Python…", null);
  el.dataset.mgState = "loading";
  const python = await getPython((message, fraction) => setStatus(ui, message, fraction));
  el.dataset.mgState = "running";
  setStatus(ui, "Running…", null);
  const sources = block.chain.map(sourceOf);
  const started = performance.now();
  const long = setTimeout(expectStops, 1000); // the run itself (not Python's start) took a second: a Stop may come
  const running = python.runChain(sources, keptPieces()); // the reader's pieces, for the capstone
  const result = await running.finally(() => clearTimeout(long));
  const ms = performance.now() - started;
  rememberPieces(sources, result);
  el.dataset.mgMs = String(Math.round(ms));
  showResult(block, result, { seconds: ms / 1000, edited: block.chain.some(isEdited) });
  if (result.verdicts.length) block.judged = true;
  showChecked(block);
}

/** @param {Block} block */
export function run(block) {
  const { el, ui } = block;
  if (el.hasAttribute("aria-busy")) return;
  // aria-disabled, not disabled: a disabled button would drop the keyboard focus
  ui.run.setAttribute("aria-disabled", "true");
  el.setAttribute("aria-busy", "true");
  const offerStop = setTimeout(() => (ui.stop.hidden = false), 1000); // only for a run that takes a while
  const onWait = (/** @type {import("./runs.js").Place | null} */ ahead) => {
    ui.stop.hidden = false; // its Stop ends the run ahead, and this one goes on with a fresh Python
    ui.stop.textContent = "Stop it";
    setStatus(ui, ahead ? `Waiting for ${describe(ahead)}, still running.` : "Waiting for the examples run before it.");
  };
  const start = () => {
    ui.stop.textContent = "Stop";
    return execute(block);
  };
  enqueue(placeOf(block), start, onWait)
    .catch((/** @type {Error} */ err) => {
      el.dataset.mgState = "error";
      if (err.message.startsWith("Python was stopped")) return showStopped(block, pythonReady());
      setStatus(ui, err.message.startsWith("Python") ? err.message : `Python could not start: ${err.message}`);
      console.error("microgpt run:", err);
    })
    .finally(() => {
      clearTimeout(offerStop);
      const stopHadFocus = document.activeElement === ui.stop;
      ui.stop.hidden = true;
      ui.run.removeAttribute("aria-disabled");
      el.removeAttribute("aria-busy");
      if (stopHadFocus) ui.run.focus(); // the keyboard stays where it was
    });
}

/** @param {Block} block */
function onEdited(block) {
  block.el.dataset.mgEdited = String(block.chain.some(isEdited));
  showStale(block);
  showChecked(block);
}

/** The editor, as blocks open it: a reader who edits may write a loop that never ends, so Stop is expected.
 * @param {Block} block  @param {{ focus: boolean, text?: string }} how */
function edit(block, how) {
  expectStops();
  return openEditor(block, { ...how, onRun: () => run(block), onChange: () => onEdited(block) });
}

/** @param {Block} block */
function reset(block) {
  const { el, ui } = block;
  closeEditor(block);
  el.dataset.mgEdited = String(block.chain.some(isEdited));
  showStale(block, false);
  ui.output.hidden = true; // it came from code that is gone
  block.judged = false;
  showChecked(block);
  setStatus(ui, "Back to the page's code.");
  ui.edit.focus();
}

/** A block that needs a package the browser's Python lacks: the label above it says so (the build writes
 * it); a block that continues others keeps its Copy button. @param {Block} block */
function mountNeeds(block) {
  block.el.dataset.mgState = "needs";
  if (block.chain.length === 1) return;
  const message = h("span", { class: "mg-run__message" });
  const say = (/** @type {string} */ text) => (message.textContent = text);
  const status = h("span", { class: "mg-run__status", role: "status" }, message);
  highlightOf(block.el).after(h("div", { class: "mg-run__bar" }, copyButton(block.chain, say), status));
}

/** @param {Block} block */
function mount(block) {
  const button = (/** @type {string} */ className, /** @type {string} */ text, hidden = false) =>
    h("button", { type: "button", class: `md-button ${className}`, hidden }, text);
  const ui = /** @type {UI} */ ({
    run: h(
      "button",
      { type: "button", class: "md-button md-button--primary mg-run__run", "aria-label": "Run this example" },
      h("span", { class: "mg-run__icon", "aria-hidden": "true" }, "▶"),
      " Run",
    ),
    stop: button("mg-run__stop", "Stop", true),
    edit: button("mg-run__edit", "Edit"),
    reset: button("mg-run__reset", "Reset", true),
    message: h("span", { class: "mg-run__message" }),
    progress: h("progress", { class: "mg-run__progress", max: 1, hidden: true, "aria-label": "Starting Python" }),
    spoken: h("span", { class: "mg-run__spoken" }),
    stdout: h("span", { class: "mg-run__stdout" }),
    stderr: h("span", { class: "mg-run__stderr" }),
    verdictIcon: h("span", { class: "mg-run__icon", "aria-hidden": "true" }),
    verdictText: h("span"),
  });
  ui.output = h("output", { class: "mg-run__output", hidden: true, "aria-label": "Output" }, ui.stdout, ui.stderr);
  ui.verdict = h("p", { class: "mg-run__verdict", hidden: true }, ui.verdictIcon, " ", ui.verdictText);
  block.ui = ui;
  const status = h("span", { class: "mg-run__status", role: "status" }, ui.message, ui.spoken, ui.progress);
  const bar = h("div", { class: "mg-run__bar" }, ui.run, ui.stop, ui.edit, ui.reset, status);
  if (block.chain.length > 1) status.before(copyButton(block.chain, (text) => setStatus(ui, text)));

  ui.run.addEventListener("click", () => run(block));
  ui.stop.addEventListener("click", () => stopPython());
  ui.edit.addEventListener("click", () => edit(block, { focus: true }));
  ui.reset.addEventListener("click", () => reset(block));
  highlightOf(block.el).after(bar, ui.verdict, ui.output);
  if (block.el.closest(".admonition.question")) wrapLines(highlightOf(block.el)); // an exercise (CONTRIBUTING.md)
  block.el.dataset.mgState = "idle";
  block.el.dataset.mgEdited = "false";
  restoreDraft(block, (text) => {
    edit(block, { focus: false, text });
    setStatus(ui, "Your edit from before is back. Reset brings back the page's code.");
  });
}

/**
 * The box a block, its buttons, output and verdict live in: the build marks each block's
 * div.highlight (data-mg-run, tools/mgsite/mgsite/runnable.py); the box takes over its data-mg-* attributes.
 * @param {HTMLElement} el
 */
function boxed(el) {
  if (!el.matches(".highlight")) return el;
  const box = h("div", { class: "mg-run" });
  for (const name of el.getAttributeNames().filter((a) => a.startsWith("data-mg-"))) {
    box.setAttribute(name, /** @type {string} */ (el.getAttribute(name)));
    el.removeAttribute(name);
  }
  el.replaceWith(box);
  box.append(el);
  return box;
}

/** Give every marked block under root its Run button (a block that needs what the browser lacks, its Copy button
 * if it continues others); safe to call again. @param {ParentNode} root */
export function mountBlocks(root) {
  const boxes = [.../** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-mg-run]"))].map(boxed);
  boxes.sort((a, b) => Number(a.dataset.mgRun) - Number(b.dataset.mgRun));
  const fresh = boxes.filter((el) => !mounted.has(el));
  /** @type {Block[]} */
  const blocks = boxes.map(
    (el) =>
      mounted.get(el) ??
      /** @type {Block} */ (
        /** @type {unknown} */ ({
          el,
          n: /** @type {string} */ (el.dataset.mgRun),
          page: location.pathname,
          original: (codeOf(highlightOf(el)).textContent ?? "").replace(/\n+$/, ""),
          chain: [],
          editor: null,
          editing: false,
          judged: false,
        })
      ),
  );
  blocks.forEach((block, i) => {
    let head = i;
    while (head > 0 && blocks[head].el.hasAttribute("data-mg-cont")) head -= 1;
    block.chain = blocks.slice(head, i + 1);
  });
  for (const block of blocks.filter((b) => fresh.includes(b.el))) {
    mounted.set(block.el, block);
    if (block.el.dataset.mgNeeds) mountNeeds(block);
    else mount(block);
  }
  const article = document.querySelector("article");
  if (article) noteRunLeftBehind(article);
}
