// A worker running worker.js, and its messages: each call(op, args) gets back the message with its id,
// {id, result} or {id, error, fatal}; {progress, fraction} messages go to onProgress. The page's shared
// Python (python.js) and the Train widget's own (../train/runtime.js) both talk to their worker so.

/** Start a worker; {call(op, args) -> Promise, stop(error)}. A call that fails rejects with {error, fatal};
 * when the worker itself fails, every call under way rejects with an Error, and then onFailed(error) runs. */
export function connect(onProgress, onFailed) {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  const pending = new Map(); // id -> {resolve, reject}
  let nextId = 0;
  let stopped = null;
  const stop = (error) => {
    stopped ??= error;
    worker.terminate();
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.onmessage = ({ data }) => {
    if ("progress" in data) return onProgress(data.progress, data.fraction);
    const { resolve, reject } = pending.get(data.id);
    pending.delete(data.id);
    if ("error" in data) reject({ error: data.error, fatal: Boolean(data.fatal) });
    else resolve(data.result);
  };
  worker.onerror = (event) => {
    stop(new Error(`Python could not start: ${event.message || "the worker failed"}`));
    onFailed?.(stopped);
  };
  const call = (op, args) =>
    stopped
      ? Promise.reject(stopped)
      : new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, op, args });
        });
  return { call, stop };
}
