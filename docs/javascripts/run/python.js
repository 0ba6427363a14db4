// Python in the reader's browser: Pyodide, served by the site itself from vendor/pyodide/, running in a
// worker (worker.js) with the microgpt wheel the site serves installed. Nothing is fetched before the
// first getPython() call, and nothing from outside the site, ever.
//
// Stop ends the worker (Python cannot be interrupted from outside without cross-origin isolation, which a
// static host cannot turn on), and at once starts a fresh one: its files come from the browser's cache, so
// by the time the reader presses Run again it is ready, or nearly (benchmarks/bench_run.py measures it).
import { connect } from "./connection.js";
import { SITE_ROOT } from "./root.js";

/**
 * What microgpt.course.runner.run_chain returns (see its docstring).
 * @typedef {{ file: string, line: number, function: string, source: string, part: number | null }} Frame
 * @typedef {{ piece: string, ok: boolean, text: string, kept: boolean, frames: Frame[] }} CheckerVerdict
 * @typedef {{ type: string, message: string, part: number | null, line: number | null }} RunError
 * @typedef {object} RunResult
 * @property {string} stdout
 * @property {string} stderr
 * @property {boolean} ok
 * @property {RunError | null} error
 * @property {CheckerVerdict[]} verdicts
 * @property {string[]} yours
 *
 * @typedef {(message: string, fraction: number | null) => void} OnProgress
 * @typedef {{ call: (op: string, args: object) => Promise<any>, stop: (error: Error) => void }} Connection
 */

/** @type {Connection | null} */
let connection = null; // the worker's connection (connection.js), while it runs
/** @type {Promise<typeof python> | null} */
let ready = null; // shared by every caller
let starts = 0; // Pythons started in this document: the first downloads, the next ones read the cache
/** @type {Set<OnProgress>} */
const listeners = new Set();

/** An exception raised by the Python code itself; the interpreter is still fine. */
export class PythonError extends Error {}

/** @param {string} op  @param {object} args */
async function call(op, args) {
  const mine = /** @type {Connection} */ (connection);
  try {
    return await mine.call(op, args);
  } catch (failure) {
    if (failure instanceof Error) throw failure; // the worker was stopped, or failed
    if (!failure.fatal) throw new PythonError(failure.error);
    if (connection === mine) resetPython(); // the interpreter crashed: the next call starts a new one
    throw new Error(`Python in this page stopped (${failure.error.split("\n")[0]}); Run starts it again.`);
  }
}

/** What callers get: the site's Python, one call at a time (each returns a Promise). */
const python = {
  /** Run a chain of blocks in one fresh namespace; offered: {name: sources} of the reader's earlier pieces.
   * @param {string[]} sources  @param {Record<string, string[]>} offered  @returns {Promise<RunResult>} */
  runChain: (sources, offered) => call("runChain", { sources, offered }),
  /** trace_preset(preset, leaves) from microgpt.course.trace (in the wheel), as JSON text.
   * @param {string} preset  @param {string} leavesJson  @returns {Promise<string>} */
  traceJson: (preset, leavesJson) => call("traceJson", { preset, leaves: leavesJson }),
};

/** Whether a Python is up or starting in this document (a Run would not wait for a download). */
export const pythonStarted = () => ready !== null;

/** The site's Python with microgpt installed, started on the first call.
 * @param {OnProgress} [onProgress] */
export function getPython(onProgress) {
  if (onProgress) listeners.add(onProgress);
  if (!ready) {
    /** @type {OnProgress} */
    const progress = (message, fraction) => {
      for (const listener of listeners) listener(message, fraction);
    };
    const mine = (connection = connect(progress, () => connection === mine && resetPython()));
    starts += 1;
    ready = call("start", { root: SITE_ROOT, again: starts > 1 }).then(() => python);
    ready.catch(() => connection === mine && resetPython());
  }
  return ready.finally(() => onProgress && listeners.delete(onProgress));
}

/** End Python now (a crash): calls under way fail, the next getPython() starts afresh. */
export function resetPython() {
  connection?.stop(new Error("Python was stopped. Run starts it again."));
  connection = ready = null;
}

/** Stop the run under way, and start a fresh Python for the next one at once. */
export function stopPython() {
  resetPython();
  getPython().catch(() => {}); // a failure shows on the next Run, which tries again
}
