// Python in the reader's browser: Pyodide, served by the site itself from vendor/pyodide/, running in a
// worker (worker.js) with the microgpt wheel the site serves installed. Nothing is fetched before the
// first getPython() call, and nothing from outside the site, ever.
import { SITE_ROOT } from "./root.js";

let worker = null;
let ready = null; // Promise<python>, shared by every caller
let nextId = 0;
const pending = new Map(); // id -> {resolve, reject}
const listeners = new Set();

/** An exception raised by the Python code itself; the interpreter is still fine. */
export class PythonError extends Error {}

function call(op, args) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}

function onMessage({ data }) {
  if ("progress" in data) {
    for (const listener of listeners) listener(data.progress, data.fraction);
    return;
  }
  const { resolve, reject } = pending.get(data.id);
  pending.delete(data.id);
  if (!("error" in data)) return resolve(data.result);
  if (!data.fatal) return reject(new PythonError(data.error));
  resetPython(); // the interpreter crashed: the next call starts a new one
  reject(new Error(`Python in this page stopped (${data.error.split("\n")[0]}); Run starts it again.`));
}

/** What callers get: the site's Python, one call at a time (each returns a Promise). */
const python = {
  /** Run a chain of blocks in one fresh namespace: [stdout, stderr, ok]. */
  runChain: (sources, names) => call("runChain", { sources, names }),
  /** trace_preset(preset, leaves) from microgpt.trace (in the wheel), as JSON text. */
  traceJson: (preset, leavesJson) => call("traceJson", { preset, leaves: leavesJson }),
  /** Any Python source; its value converted to JavaScript. */
  runPython: (code) => call("runPython", { code }),
};

/** The site's Python with microgpt installed, started on the first call; onProgress(message, fraction|null). */
export function getPython(onProgress) {
  if (onProgress) listeners.add(onProgress);
  if (!ready) {
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    worker.onmessage = onMessage;
    worker.onerror = (event) => {
      const error = new Error(`Python could not start: ${event.message ?? "the worker failed"}`);
      for (const { reject } of pending.values()) reject(error);
      resetPython();
    };
    ready = call("start", { root: SITE_ROOT }).then(() => python);
    const mine = worker;
    ready.catch(() => worker === mine && resetPython());
  }
  return ready.finally(() => listeners.delete(onProgress));
}

/** Stop Python now (a runaway example, a crash): calls under way fail, the next getPython() starts afresh. */
export function resetPython() {
  worker?.terminate();
  worker = ready = null;
  const stopped = new Error("Python was stopped. Run starts it again.");
  for (const { reject } of pending.values()) reject(stopped);
  pending.clear();
}
