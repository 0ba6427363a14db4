// A worker running worker.js, and its messages: each call(op, args) gets back the message with its id,
// {id, result} or {id, error, fatal}; {progress, fraction} messages go to onProgress. The page's shared
// Python (python.js) and the Train widget's own (../train/runtime.js) both talk to their worker so.

/** Start a worker; {call(op, args) -> Promise, stop(error)}. A call that fails rejects with {error, fatal};
 * when the worker itself fails, every call under way rejects with an Error, and then onFailed(error) runs.
 * @param {(message: string, fraction: number | null) => void} onProgress
 * @param {(error: Error) => void} [onFailed] */
export function connect(onProgress, onFailed) {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  /** @type {Map<number, { resolve: (value: any) => void, reject: (reason: unknown) => void }>} */
  const pending = new Map();
  let nextId = 0;
  /** @type {Error | null} */
  let stopped = null;
  const stop = (/** @type {Error} */ error) => {
    stopped ??= error;
    worker.terminate();
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.onmessage = ({ data }) => {
    if ("progress" in data) return onProgress(data.progress, data.fraction);
    const { resolve, reject } = /** @type {{ resolve: (value: any) => void, reject: (reason: unknown) => void }} */ (
      pending.get(data.id)
    );
    pending.delete(data.id);
    if ("error" in data) reject({ error: data.error, fatal: Boolean(data.fatal) });
    else resolve(data.result);
  };
  worker.onerror = (event) => {
    const error = new Error(`Python could not start: ${event.message || "the worker failed"}`);
    stop(error);
    onFailed?.(error);
  };
  const call = (/** @type {string} */ op, /** @type {object} */ args) =>
    stopped
      ? Promise.reject(stopped)
      : new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, op, args });
        });
  return { call, stop };
}
