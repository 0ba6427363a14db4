// Run buttons for the code blocks the build marked (data-mg-run, data-mg-cont, data-mg-needs,
// data-mg-expected): run in the reader's browser, edit, reset, and compare with the checked output.
import { keptPieces, rememberPieces } from "./pieces.js";
import { copyButton } from "./copy.js";
import { getPython, resetPython } from "./python.js";
import { SITE_ROOT } from "./root.js";

const NEEDS = { torch: "PyTorch", numpy: "NumPy" };
let queue = Promise.resolve(); // one interpreter, so one run at a time, in click order

/** An element: props are properties, except "aria-*" and "role", which are attributes. */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith("aria-") || key === "role") el.setAttribute(key, value);
    else el[key] = value;
  }
  el.append(...children);
  return el;
}

const highlightOf = (el) => el.querySelector(".highlight");
const codeOf = (el) => el.querySelector("td.code code") ?? el.querySelector("code");
const trimNewlines = (s) => s.replace(/^\n+|\n+$/g, "");

/** The source a block runs now: the reader's edit if there is one, else the page's code. */
function sourceOf(el) {
  return el.mgRun.editor && !el.mgRun.editor.hidden ? el.mgRun.editor.value : el.mgRun.original;
}

/** The blocks to run for el: its chain from the head (each data-mg-cont continues the previous block). */
function chainOf(el, blocks) {
  let i = blocks.indexOf(el);
  const end = i;
  while (i > 0 && blocks[i].hasAttribute("data-mg-cont")) i -= 1;
  return blocks.slice(i, end + 1);
}

function setStatus(ui, message, fraction) {
  ui.message.textContent = message;
  ui.spoken.textContent = "";
  ui.progress.hidden = fraction === undefined;
  if (fraction === null) ui.progress.removeAttribute("value"); // indeterminate
  else if (fraction !== undefined) ui.progress.value = fraction;
}

function showResult(el, { stdout, stderr, ok }, chain, seconds) {
  const ui = el.mgRun;
  ui.stdout.textContent = stdout;
  ui.stderr.textContent = stderr;
  ui.output.hidden = false;
  ui.output.dataset.stale = "false";
  ui.output.dataset.empty = String(!stdout && !stderr);
  const others = chain.length - 1;
  const together = others ? ` with the ${others === 1 ? "block" : `${others} blocks`} it continues` : "";
  const time = `${seconds.toFixed(seconds < 1 ? 2 : 1)} s`;
  if (!ok) setStatus(ui, `Stopped with an error${together}, after ${time}.`);
  else setStatus(ui, `Ran${together} in ${time}${stdout || stderr ? "." : ", printing nothing."}`);
  el.dataset.mgState = ok ? "done" : "error";

  const expected = document.querySelector(`[data-mg-expected="${el.dataset.mgRun}"]`);
  ui.verdict.hidden = !expected;
  if (!expected) return;
  const same = trimNewlines(stdout) === trimNewlines(codeOf(expected).textContent);
  const edited = el.dataset.mgEdited === "true" ? " (you edited the code)" : "";
  ui.verdict.dataset.verdict = same ? "match" : "mismatch";
  ui.verdictIcon.textContent = same ? "✓" : "✗";
  ui.verdictText.textContent = same
    ? `Same as the checked output below${edited}.`
    : `Not the same as the checked output below${edited}.`;
  ui.spoken.textContent = ` ${ui.verdictText.textContent}`; // the status region says it too
}

async function execute(el, blocks) {
  const ui = el.mgRun;
  el.dataset.mgState = "loading";
  const python = await getPython((message, fraction) => setStatus(ui, message, fraction));
  el.dataset.mgState = "running";
  setStatus(ui, "Running…", null);
  const chain = chainOf(el, blocks);
  const sources = chain.map(sourceOf);
  const started = performance.now();
  const result = await python.runChain(sources, keptPieces()); // the reader's pieces, for the capstone
  const ms = performance.now() - started;
  rememberPieces(sources, result);
  el.dataset.mgMs = String(Math.round(ms));
  showResult(el, result, chain, ms / 1000);
}

function run(el, blocks) {
  const ui = el.mgRun;
  if (el.hasAttribute("aria-busy")) return;
  // aria-disabled, not disabled: a disabled button would drop the keyboard focus
  ui.run.setAttribute("aria-disabled", "true");
  el.setAttribute("aria-busy", "true");
  const offerStop = setTimeout(() => (ui.stop.hidden = false), 1000); // only for a run that takes a while
  setStatus(ui, "Waiting for the example that is running…");
  const job = queue.then(() => execute(el, blocks));
  queue = job.catch(() => {});
  job
    .catch((err) => {
      el.dataset.mgState = "error";
      setStatus(ui, err.message.startsWith("Python") ? err.message : `Python could not start: ${err.message}`);
      if (!err.message.startsWith("Python was stopped")) console.error("microgpt run:", err);
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

function stop() {
  resetPython(); // ends the worker: the block under way fails with "Python was stopped."
}

function startEditing(el, blocks) {
  const ui = el.mgRun;
  const hl = highlightOf(el);
  ui.editor ??= h("textarea", {
    className: "mg-run__editor",
    spellcheck: false,
    autocapitalize: "off",
    "aria-label": "Code of this example (editable; Ctrl+Enter runs it)",
  });
  ui.editor.value = ui.original.replace(/\n$/, "");
  ui.editor.rows = Math.min(30, ui.editor.value.split("\n").length + 1);
  ui.editor.oninput = () => {
    el.dataset.mgEdited = String(ui.editor.value !== ui.original.replace(/\n$/, ""));
    if (ui.output.hidden || ui.output.dataset.stale === "true") return;
    ui.output.dataset.stale = "true"; // what is shown came from the code before this edit
    ui.verdict.hidden = true;
    setStatus(ui, "Edited: the output shown is from before the edit. Run to see the new one.");
  };
  ui.editor.onkeydown = (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run(el, blocks);
    }
  };
  ui.editor.hidden = false;
  hl.hidden = true;
  hl.after(ui.editor);
  ui.edit.hidden = true;
  ui.reset.hidden = false;
  ui.editor.focus();
}

function reset(el) {
  const ui = el.mgRun;
  ui.editor.hidden = true;
  highlightOf(el).hidden = false;
  el.dataset.mgEdited = "false";
  ui.output.hidden = true;
  ui.verdict.hidden = true;
  ui.reset.hidden = true;
  ui.edit.hidden = false;
  setStatus(ui, "Back to the page's code.");
  ui.edit.focus();
}

function mountNeeds(el, blocks) {
  const what = NEEDS[el.dataset.mgNeeds] ?? el.dataset.mgNeeds;
  const note = h(
    "p",
    { className: "mg-run__needs" },
    h("span", { className: "mg-run__icon", "aria-hidden": "true", textContent: "⊘" }),
    ` Not runnable here: it needs ${what}, which the Python in your browser does not have. Run it on your machine, with `,
    h("a", { href: new URL("#install", SITE_ROOT).href, textContent: "microgpt installed" }),
    ".",
  );
  highlightOf(el).after(note);
  const chain = chainOf(el, blocks);
  if (chain.length === 1) return;
  const message = h("span", { className: "mg-run__message" });
  const say = (text) => (message.textContent = text);
  const status = h("span", { className: "mg-run__status", role: "status" }, message);
  note.after(h("div", { className: "mg-run__bar" }, copyButton(h, chain, say), status));
}

function mount(el, blocks) {
  el.mgRun = { original: codeOf(highlightOf(el)).textContent };
  if (el.dataset.mgNeeds) {
    el.mgRun.needs = true;
    mountNeeds(el, blocks);
    return;
  }
  const ui = el.mgRun;
  ui.run = h(
    "button",
    { type: "button", className: "md-button md-button--primary mg-run__run", "aria-label": "Run this example" },
    h("span", { className: "mg-run__icon", "aria-hidden": "true", textContent: "▶" }),
    " Run",
  );
  ui.stop = h("button", { type: "button", className: "md-button mg-run__stop", textContent: "Stop", hidden: true });
  ui.edit = h("button", { type: "button", className: "md-button mg-run__edit", textContent: "Edit" });
  ui.reset = h("button", { type: "button", className: "md-button mg-run__reset", textContent: "Reset", hidden: true });
  ui.message = h("span", { className: "mg-run__message" });
  ui.progress = h("progress", { className: "mg-run__progress", max: 1, hidden: true, "aria-label": "Starting Python" });
  ui.spoken = h("span", { className: "mg-run__spoken" }); // for screen readers only
  ui.stdout = h("span", { className: "mg-run__stdout" });
  ui.stderr = h("span", { className: "mg-run__stderr" });
  ui.output = h("output", { className: "mg-run__output", hidden: true, "aria-label": "Output" }, ui.stdout, ui.stderr);
  ui.verdictIcon = h("span", { className: "mg-run__icon", "aria-hidden": "true" });
  ui.verdictText = h("span");
  ui.verdict = h("p", { className: "mg-run__verdict", hidden: true }, ui.verdictIcon, " ", ui.verdictText);
  const status = h("span", { className: "mg-run__status", role: "status" }, ui.message, ui.spoken, ui.progress);
  const bar = h("div", { className: "mg-run__bar" }, ui.run, ui.stop, ui.edit, ui.reset, status);
  const chain = chainOf(el, blocks);
  if (chain.length > 1) status.before(copyButton(h, chain, (text) => setStatus(ui, text)));

  ui.run.addEventListener("click", () => run(el, blocks));
  ui.stop.addEventListener("click", stop);
  ui.edit.addEventListener("click", () => startEditing(el, blocks));
  ui.reset.addEventListener("click", () => reset(el));
  highlightOf(el).after(bar, ui.output, ui.verdict);
  el.dataset.mgState = "idle";
}

/**
 * The box a block, its buttons, output and verdict live in: the build marks each block's
 * div.highlight (data-mg-run, docs/hooks/embed.py); the box takes over its data-mg-* attributes.
 */
function boxed(el) {
  if (!el.matches(".highlight")) return el;
  const box = Object.assign(document.createElement("div"), { className: "mg-run" });
  for (const name of el.getAttributeNames().filter((a) => a.startsWith("data-mg-"))) {
    box.setAttribute(name, el.getAttribute(name));
    el.removeAttribute(name);
  }
  el.replaceWith(box);
  box.append(el);
  return box;
}

/** Give every marked block under root its Run button (or its "needs" note); safe to call again. */
export function mountBlocks(root) {
  const blocks = [...root.querySelectorAll("[data-mg-run]")].map(boxed);
  blocks.sort((a, b) => a.dataset.mgRun - b.dataset.mgRun);
  for (const el of blocks) if (!el.mgRun) mount(el, blocks);
}
