// What a block shows: its status line (also what screen readers hear), the verdict on its last run
// (verdict.js), what the run printed, and the lines an error went through, marked in the code.
import { h } from "../dom.js";
import { marksOf, verdictOf } from "./verdict.js";

/** @typedef {import("./blocks.js").Block} Block  @typedef {import("./blocks.js").UI} UI */

/** The status line: words, and a progress bar when fraction is given (null: no measure of how far).
 * @param {UI} ui  @param {string} message  @param {number | null} [fraction] */
export function setStatus(ui, message, fraction) {
  ui.message.textContent = message;
  ui.spoken.textContent = "";
  ui.progress.hidden = fraction === undefined;
  if (fraction === null)
    ui.progress.removeAttribute("value"); // indeterminate
  else if (fraction !== undefined) ui.progress.value = fraction;
}

/** Lines of the page's highlighted code (pymdownx.highlight's line spans), 1-based by index + 1.
 * @param {Block} block */
const codeLines = (block) => [...block.el.querySelectorAll(".highlight code > span[id^='__span-']")];

/** Mark the lines errors went through, in each block of the chain: in its editor when it is shown, else
 * in its highlighted code. @param {Block} block  @param {import("./verdict.js").LineMark[]} marks */
function markLines(block, marks) {
  block.chain.forEach((part, k) => {
    const mine = marks.filter((mark) => mark.part === k);
    part.editor?.markErrors(part.editing ? mine : []);
    const lines = codeLines(part);
    for (const line of lines) line.classList.remove("mg-run__line--error");
    if (!part.editing) for (const { line } of mine) lines[line - 1]?.classList.add("mg-run__line--error");
  });
}

/** The number a reader sees beside line `line` (1-based) of a block: its editor counts from 1, and the
 * page's code may show the file's own numbers (an excerpt embedded from microgpt/).
 * @param {Block} block  @param {number} line */
function shownLine(block, line) {
  if (block.editing) return line;
  const numbers = block.el.querySelectorAll(".highlight .linenos pre > span:not(:empty)"); // Pygments opens with an empty one
  return Number(numbers[line - 1]?.textContent) || line;
}

/**
 * After a run: the status line, the verdict (shown, and said in the status region in the same words),
 * the output, and the error marks.
 * @param {Block} block
 * @param {import("./python.js").RunResult} result
 * @param {{ seconds: number, edited: boolean }} how
 */
export function showResult(block, result, { seconds, edited }) {
  const { el, ui, chain } = block;
  ui.stdout.textContent = result.stdout;
  ui.stderr.textContent = result.stderr;
  ui.output.hidden = false;
  ui.output.dataset.stale = "false";
  ui.output.dataset.empty = String(!result.stdout && !result.stderr);
  const others = chain.length - 1;
  const together = others ? ` with the ${others === 1 ? "block" : `${others} blocks`} it continues` : "";
  const time = `${seconds.toFixed(seconds < 1 ? 2 : 1)} s`;
  // an excerpt of microgpt that only defines names (data-mg-defines, tools/mgsite/mgsite/runnable.py) says so
  const defines = el.dataset.mgDefines ? `: it defines ${el.dataset.mgDefines}, so there is nothing to print.` : "";
  const printed = result.stdout || result.stderr ? "." : defines || ", printing nothing.";
  setStatus(ui, result.ok ? `Ran${together} in ${time}${printed}` : `Ran${together} for ${time}${printed}`);
  el.dataset.mgState = result.ok ? "done" : "error";

  const expected = document.querySelector(`[data-mg-expected="${block.n}"]`);
  const verdict = verdictOf(result, {
    part: chain.length - 1,
    parts: chain.length,
    edited,
    expected: expected ? (expected.querySelector("code")?.textContent ?? "") : null,
    shownLine: (part, line) => shownLine(chain[part], line),
  });
  ui.verdict.hidden = !verdict;
  ui.verdict.dataset.verdict = verdict?.kind ?? "";
  ui.verdictIcon.textContent = verdict?.icon ?? "";
  const lead = verdict?.lead ?? "";
  ui.verdictText.replaceChildren(
    ...(lead ? [h("strong", {}, lead), " "] : []),
    (verdict?.words ?? "").slice(lead.length).trim(),
  );
  ui.spoken.textContent = verdict ? ` ${verdict.words}` : ""; // the status region says what the verdict shows
  markLines(block, marksOf(result));
}

/** After an edit: what is shown came from the code before it.
 * @param {Block} block  @param {boolean} [say]  say so in the status line */
export function showStale(block, say = true) {
  const { ui } = block;
  markLines(block, []);
  if (ui.output.hidden || ui.output.dataset.stale === "true") return;
  ui.output.dataset.stale = "true";
  ui.verdict.hidden = true;
  if (say) setStatus(ui, "Edited: the output shown is from before the edit. Run to see the new one.");
}

/** After Stop: the run ended with its Python; the next Run goes to a fresh one.
 * @param {Block} block  @param {boolean} ready  the fresh one is up already */
export function showStopped(block, ready) {
  const { ui } = block;
  markLines(block, []);
  ui.verdict.hidden = true;
  if (!ui.output.hidden) ui.output.dataset.stale = "true";
  setStatus(
    ui,
    ready
      ? "Stopped. A fresh Python is ready for the next Run."
      : "Stopped. A fresh Python is starting for the next Run.",
  );
}
