// The Train widget's Python: Pyodide with microgpt, in a worker of its own, started from the very script
// the Run buttons use (../run/worker.js, same messages). Its own worker, not the Run buttons' shared one:
// a training run keeps its model in the interpreter between messages for as long as the reader likes,
// while the Run buttons queue their examples on one interpreter and their Stop ends it. Sharing would
// make every example wait behind the run, and every Stop kill it. The second interpreter costs memory,
// not a second download: its files come from the browser's cache.
import { SITE_ROOT } from "../run/root.js";

/** Start Python; {ready: Promise (resolves when microgpt is importable), run(code) -> Promise, stop()}. */
export function startPython(onProgress) {
  const worker = new Worker(new URL("../run/worker.js", import.meta.url), { type: "module" });
  const pending = new Map();
  let nextId = 0;
  let dead = null;
  const fail = (err) => {
    dead ??= err;
    for (const { reject } of pending.values()) reject(dead);
    pending.clear();
  };
  worker.onmessage = ({ data }) => {
    if ("progress" in data) return onProgress?.(data.progress, data.fraction);
    const { resolve, reject } = pending.get(data.id);
    pending.delete(data.id);
    if ("error" in data) reject(new Error(data.error));
    else resolve(data.result);
  };
  worker.onerror = (event) => fail(new Error(event.message || "the worker failed"));
  const call = (op, args) =>
    dead
      ? Promise.reject(dead)
      : new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, op, args });
        });
  const python = {
    run: (code) => call("runPython", { code }),
    stop() {
      worker.terminate();
      fail(new Error("Python was stopped."));
    },
  };
  python.ready = call("start", { root: SITE_ROOT }).catch((err) => {
    python.stop();
    throw err;
  });
  return python;
}

/** The last line of a Python traceback ("InputError: ..."), or the error's message. */
export function lastLine(err) {
  const lines = String(err?.message ?? err).trim().split("\n");
  return lines[lines.length - 1];
}
