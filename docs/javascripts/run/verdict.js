// One verdict per run, read from the run's result as data (microgpt.course.runner): never two that
// contradict each other. In order:
//   an error stopped the run        -> where (the line, and which block of the chain if not this one)
//   a checker judged the reader     -> which verdict, accepted or not yet (its message is in the output), and
//                                      when the reader's function raised, where, as above;
//                                      what the block printed is not compared with the page's output
//   the page shows a checked output -> the same; or, with a reason and no ✗, different because the reader
//                                      changed the code, or because the reader's own pieces were used;
//                                      ✗ only when the page's own code printed something else
// The words carry the meaning (the icon is decoration, hidden from screen readers), and the page shows
// and announces the same words.

/**
 * @typedef {import("./python.js").RunResult} RunResult
 * @typedef {import("./python.js").RunError} RunError
 * @typedef {import("./python.js").CheckerVerdict} CheckerVerdict
 * @typedef {"error" | "accepted" | "not-yet" | "same" | "edited" | "yours" | "mismatch" | "pieces"} VerdictKind
 * @typedef {object} Verdict
 * @property {VerdictKind} kind
 * @property {string} icon     ✓, ✗, ⚠, ✎ or ⓘ: decoration (the words say it all)
 * @property {string} lead     the verdict in a few words, shown in bold ("Not yet:"), or ""
 * @property {string} words    the whole verdict, lead first: what is shown and what screen readers hear
 * @typedef {{ part: number, line: number, message: string }} LineMark  a line of block `part` of the chain
 *
 * @typedef {object} RunContext
 * @property {number} part        this block's index in its chain (a Run runs the chain up to it)
 * @property {number} parts       how many blocks that is
 * @property {boolean} edited     some block of it runs the reader's code, not the page's
 * @property {string | null} expected   the checked output the page shows under this block, if any
 * @property {(part: number, line: number) => number} shownLine   the number the reader sees beside that line
 */

const trimNewlines = (/** @type {string} */ s) => s.replace(/^\n+|\n+$/g, "");
const names = (/** @type {string[]} */ pieces) => pieces.join(", ");

/** The error as Python names it: "ZeroDivisionError: division by zero".
 * @param {import("./python.js").Raised} error */
export const errorText = (error) => (error.message ? `${error.type}: ${error.message}` : error.type);

/** A verdict from its parts. @param {VerdictKind} kind  @param {string} icon  @param {string} lead  @param {string} rest
 * @returns {Verdict} */
const verdict = (kind, icon, lead, rest) => ({ kind, icon, lead, words: [lead, rest].filter(Boolean).join(" ") });

/** A line of the chain as the reader sees it: "line 9", or which block above it is in.
 * @param {number | null} at  the block (null: this one)  @param {number} line  @param {RunContext} context */
function lineOf(at, line, { part, parts, shownLine }) {
  return at === null || at === part
    ? `line ${shownLine(part, line)}`
    : `line ${shownLine(at, line)} of part ${at + 1} of ${parts}, a block above that this one continues`;
}

/** @param {RunError} error  @param {RunContext} context */
function stopped(error, context) {
  if (error.line === null) return verdict("error", "⚠", "Stopped with an error:", errorText(error));
  return verdict(
    "error",
    "⚠",
    "Stopped with an error",
    `at ${lineOf(error.part, error.line, context)}: ${errorText(error)}`,
  );
}

/** The reader's function raised inside its checker: the last line of theirs it went through (the checker's
 * message below names the error, the case and the whole way there).
 * @param {CheckerVerdict} checker  @param {RunContext} context */
function raisedInside(checker, context) {
  const inner = checker.frames.filter((f) => f.part !== null).at(-1); // the line the page marks
  const at = inner ? ` at ${lineOf(inner.part, inner.line, context)}` : "";
  const name = checker.frames[0]?.function ?? checker.piece; // the function the checker called
  return verdict("not-yet", "✗", "Not yet:", `${name} raised an error${at}: see the output below.`);
}

/** The verdict on a run, or null when there is nothing to judge it by.
 * @param {RunResult} result  @param {RunContext} context  @returns {Verdict | null} */
export function verdictOf(result, context) {
  if (result.error) return stopped(result.error, context);
  const checker = result.verdicts.at(-1);
  // a checker's verdict is printed in the output below: the status says only which it is
  if (checker?.ok) return verdict("accepted", "✓", "Accepted", "");
  if (checker?.error) return raisedInside(checker, context);
  if (checker) return verdict("not-yet", "✗", "Not yet:", "see the output below.");
  const pieces = result.yours.length ? `Your own pieces were used: ${names(result.yours)}.` : "";
  if (context.expected === null) return pieces ? verdict("pieces", "ⓘ", "", pieces) : null;
  if (trimNewlines(result.stdout) === trimNewlines(context.expected)) {
    const lead = context.edited
      ? "Same as the checked output below, with your edits."
      : "Same as the checked output below.";
    return verdict("same", "✓", lead, pieces);
  }
  if (context.edited) {
    return verdict(
      "edited",
      "✎",
      "",
      `Differs from the checked output below, because you changed the code. ${pieces}`.trim(),
    );
  }
  if (pieces) {
    return verdict(
      "yours",
      "ⓘ",
      "",
      `${pieces} The checked output below is what a fresh Python prints with the page's solutions.`,
    );
  }
  return verdict("mismatch", "✗", "Not the same as the checked output below.", "");
}

/** The lines to mark in the chain's blocks: the last line of the reader's code an uncaught error went
 * through, and the line of the reader's function that raised inside a checker.
 * @param {RunResult} result  @returns {LineMark[]} */
export function marksOf(result) {
  /** @type {LineMark[]} */
  const marks = [];
  const { error } = result;
  if (error && error.part !== null && error.line !== null) {
    marks.push({ part: error.part, line: error.line, message: errorText(error) });
  }
  for (const verdict of result.verdicts) {
    const frame = verdict.frames.filter((f) => f.part !== null).at(-1); // the innermost in the reader's blocks
    if (verdict.ok || !frame || frame.part === null) continue;
    const message = verdict.error
      ? errorText(verdict.error)
      : `${frame.function} raised an error here (the checker's message below says which)`;
    marks.push({ part: frame.part, line: frame.line, message });
  }
  return marks;
}
