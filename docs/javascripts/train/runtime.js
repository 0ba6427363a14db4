// The Train widget's Python: Pyodide with microgpt, in a worker of its own, started from the very script
// the Run buttons use (../run/worker.js, through ../run/connection.js). Its own worker, not the Run buttons'
// shared one: a training run keeps its model in the interpreter between messages for as long as the reader
// likes, while the Run buttons queue their examples on one interpreter and their Stop ends it. Sharing would
// make every example wait behind the run, and every Stop kill it. The second interpreter costs memory,
// not a second download: its files come from the browser's cache.
import { connect } from "../run/connection.js";
import { SITE_ROOT } from "../run/root.js";

/** A failed call as an Error: the worker's own Error, or one with Python's message. */
const asError = (failure) => (failure instanceof Error ? failure : new Error(failure.error));

/** Start Python; {ready: Promise (resolves when microgpt is importable), run(code) -> Promise, stop()}. */
export function startPython(onProgress) {
  const connection = connect((message, fraction) => onProgress?.(message, fraction));
  const python = {
    run: (code) =>
      connection.call("runPython", { code }).catch((failure) => {
        throw asError(failure);
      }),
    stop: () => connection.stop(new Error("Python was stopped.")),
  };
  python.ready = connection.call("start", { root: SITE_ROOT }).catch((failure) => {
    python.stop();
    throw asError(failure);
  });
  return python;
}

/** The last line of a Python traceback ("InputError: ..."), or the error's message. */
export function lastLine(err) {
  const lines = String(err?.message ?? err).trim().split("\n");
  return lines[lines.length - 1];
}
