// Python in the reader's browser: Pyodide, served by the site itself from vendor/pyodide/, running in a
// worker (worker.js) with the microgpt wheel the site serves installed. Nothing is fetched before the
// first getPython() call, and nothing from outside the site, ever.
import { connect } from "./connection.js";
import { SITE_ROOT } from "./root.js";

let connection = null; // the worker's connection (connection.js), while it runs
let ready = null; // Promise<python>, shared by every caller
const listeners = new Set();

/** An exception raised by the Python code itself; the interpreter is still fine. */
export class PythonError extends Error {}

async function call(op, args) {
  const mine = connection;
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
   * The result is microgpt.course.runner's: {stdout, stderr, ok, error, verdicts, yours}. */
  runChain: (sources, offered) => call("runChain", { sources, offered }),
  /** trace_preset(preset, leaves) from microgpt.course.trace (in the wheel), as JSON text. */
  traceJson: (preset, leavesJson) => call("traceJson", { preset, leaves: leavesJson }),
  /** Any Python source; its value converted to JavaScript. */
  runPython: (code) => call("runPython", { code }),
};

/** The site's Python with microgpt installed, started on the first call; onProgress(message, fraction|null). */
export function getPython(onProgress) {
  if (onProgress) listeners.add(onProgress);
  if (!ready) {
    const progress = (message, fraction) => {
      for (const listener of listeners) listener(message, fraction);
    };
    const mine = (connection = connect(progress, () => connection === mine && resetPython()));
    ready = call("start", { root: SITE_ROOT }).then(() => python);
    ready.catch(() => connection === mine && resetPython());
  }
  return ready.finally(() => listeners.delete(onProgress));
}

/** Stop Python now (a runaway example, a crash): calls under way fail, the next getPython() starts afresh. */
export function resetPython() {
  connection?.stop(new Error("Python was stopped. Run starts it again."));
  connection = ready = null;
}
