// Python in the reader's browser: Pyodide, served by the site itself from vendor/pyodide/, running in a
// worker (worker.js) with the microgpt wheel the site serves installed. Nothing is fetched before the
// first getPython() call, and nothing from outside the site, ever.
//
// Stop ends the worker: Python cannot be interrupted from outside without cross-origin isolation, which a
// static host cannot turn on, and starting a new one takes as long as the first start (the download is
// the small part; benchmarks/bench_run.py measures both). So once a Stop may come (the reader has edited
// code, where a runaway comes from, or a run has itself taken a second, as a checker's first run does) and
// the page's Python is up, a spare one starts in the background; Stop hands the next Run to it at once, and
// a new spare starts. A reader whose runs are quick and who edits nothing pays for no spare. The reader's pieces come with
// every run (pieces.js), so the spare has them too; and so do the checkers' cases, which most of a checker's
// first run in a Python goes to making: after each run the page takes the cases that Python made, and every
// Python it starts gets them before its first run (microgpt.course.runner.cases_made and take_cases).
import { connect } from "./connection.js";
import { SITE_ROOT } from "./root.js";

/**
 * What microgpt.course.runner.run_chain returns (see its docstring).
 * @typedef {{ file: string, line: number, function: string, source: string, part: number | null }} Frame
 * @typedef {{ type: string, message: string }} Raised  an exception, as Python names it
 * @typedef {{ piece: string, ok: boolean, text: string, kept: boolean, frames: Frame[], error: Raised | null }} CheckerVerdict
 * @typedef {Raised & { part: number | null, line: number | null }} RunError
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
 * @typedef {object} Interpreter  one worker's Python
 * @property {Connection} connection
 * @property {Promise<void>} ready   started, and given the cases the page had by then
 * @property {boolean} isReady
 * @property {Set<string>} cases     the pieces whose cases it holds (made, or given)
 */

/** @type {Interpreter | null} */
let current = null; // the Python runs go to
/** @type {Interpreter | null} */
let spare = null; // started in the background, for the run after a Stop
let starts = 0; // Pythons started in this document: the first downloads, the next ones read the cache
let spareWanted = false; // a Stop may come
/** @type {Record<string, Uint8Array>} */
const cases = {}; // the checkers' cases a Python of this page made, pickled, by piece: every new one gets them
/** @type {Set<OnProgress>} */
const listeners = new Set();

/** An exception raised by the Python code itself; the interpreter is still fine. */
export class PythonError extends Error {}

/** A new worker with Python starting in it; only the current one's progress reaches the listeners. */
function launch() {
  starts += 1;
  /** @type {Interpreter} */
  const interpreter = {
    connection: /** @type {any} */ (null),
    ready: Promise.resolve(),
    isReady: false,
    cases: new Set(),
  };
  /** @type {OnProgress} */
  const progress = (message, fraction) => {
    if (interpreter === current) for (const listener of listeners) listener(message, fraction);
  };
  interpreter.connection = connect(progress, () => forget(interpreter));
  interpreter.ready = send(interpreter, "start", { root: SITE_ROOT, again: starts > 1 }).then(() => {
    interpreter.isReady = true;
    giveCases(interpreter); // sent before any run: a worker takes its messages in order
    if (interpreter === current) keepASpare(); // while the first run goes on: a Stop after it finds the spare up
  });
  interpreter.ready.catch(() => forget(interpreter));
  return interpreter;
}

/** End a worker (stopped, failed or crashed); if runs went to it, they go to the spare from now on.
 * @param {Interpreter} interpreter */
function forget(interpreter) {
  interpreter.connection.stop(new Error("Python was stopped. Run starts it again."));
  if (interpreter === current) [current, spare] = [spare, null];
  if (interpreter === spare) spare = null;
}

/** @param {Interpreter} interpreter  @param {string} op  @param {object} args */
async function send(interpreter, op, args) {
  try {
    return await interpreter.connection.call(op, args);
  } catch (caught) {
    if (caught instanceof Error) throw caught; // the worker was stopped, or failed
    const failure = /** @type {{ error: string, fatal: boolean }} */ (caught); // Python raised, or crashed
    if (!failure.fatal) throw new PythonError(failure.error);
    forget(interpreter); // the interpreter crashed
    throw new Error(`Python in this page stopped (${failure.error.split("\n")[0]}); Run starts it again.`);
  }
}

/** Send a started Python the cases the page has and it lacks. @param {Interpreter} interpreter */
function giveCases(interpreter) {
  const missing = Object.keys(cases).filter((name) => !interpreter.cases.has(name));
  if (!interpreter.isReady || !missing.length) return;
  for (const name of missing) interpreter.cases.add(name);
  const given = Object.fromEntries(missing.map((name) => [name, cases[name]]));
  send(interpreter, "takeCases", { cases: given }).catch(() => {}); // a Python stopped meanwhile needs none
}

/** After a run: keep the cases it made (a checker's first run in this Python), and give them to the other one.
 * @param {Interpreter} interpreter */
async function collectCases(interpreter) {
  /** @type {Record<string, Uint8Array>} */
  const made = await send(interpreter, "casesMade", { known: Object.keys(cases) }).catch(() => ({}));
  for (const [name, blob] of Object.entries(made)) {
    cases[name] = blob;
    interpreter.cases.add(name);
  }
  for (const other of [current, spare]) if (other) giveCases(other);
}

/** Once a Stop may come and the current Python is up, a spare starts, so that a Stop costs no new start. */
function keepASpare() {
  if (spareWanted && !spare && current?.isReady) spare = launch();
}

/** A Stop may come from now on: the reader has edited code, or a run has taken a second. */
export function expectStops() {
  spareWanted = true;
  keepASpare();
}

/** @param {string} op  @param {object} args */
async function call(op, args) {
  const interpreter = /** @type {Interpreter} */ (current);
  try {
    return await send(interpreter, op, args);
  } finally {
    if (op === "runChain") collectCases(interpreter);
    if (interpreter === current) keepASpare();
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

/** Whether the Python runs go to is up (a Run would not wait for it to start). */
export const pythonReady = () => Boolean(current?.isReady);

/** Whether this document has started a Python before (a new one then reads its files from the cache). */
export const pythonStartedBefore = () => starts > 0;

/** The site's Python with microgpt installed, started on the first call.
 * @param {OnProgress} [onProgress]  @returns {Promise<typeof python>} */
export function getPython(onProgress) {
  if (onProgress) listeners.add(onProgress);
  current ??= launch();
  return current.ready.then(() => python).finally(() => onProgress && listeners.delete(onProgress));
}

/** Stop the run under way: its Python ends, and the spare (ready, or as far as it got) takes the next run;
 * once that one is up, a new spare starts. */
export function stopPython() {
  if (current) forget(current);
  current ??= launch();
  current.ready.then(keepASpare, () => {});
}
