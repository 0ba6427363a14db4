// The Train widget's Python: Pyodide with microgpt, in a worker of its own, started from the very script
// the Run buttons use (../run/worker.js, through ../run/connection.js). Its own worker, not the Run buttons'
// shared one: a training run keeps its model in the interpreter between messages for as long as the reader
// likes, while the Run buttons queue their examples on one interpreter and their Stop ends it. Sharing would
// make every example wait behind the run, and every Stop kill it. The second interpreter costs memory,
// not a second download: its files come from the browser's cache. The run itself is
// microgpt.course.runner's (live_start, live_tick, ...): no Python is written here.
import { connect } from "../run/connection.js";
import { SITE_ROOT } from "../run/root.js";

/**
 * What microgpt.course.live's LiveRun says of itself (info_json) and of each tick (tick_json).
 * @typedef {{ names: string[], vocab_size: number, uniform: number, mean_window: number }} RunInfo
 * @typedef {{ step: number, loss: number, mean: number, norms: number[] }} Step
 * @typedef {{ step: number, held_out: number, samples: string[] }} Report
 * @typedef {{ steps: Step[], reports: Report[], finished: boolean }} Tick
 *
 * @typedef {object} TrainPython
 * @property {Promise<unknown>} ready                      resolves when microgpt is importable
 * @property {(values: Record<string, number>) => Promise<RunInfo>} start   a new run with these settings
 * @property {() => Promise<Tick>} tick                     about 50 ms of the run's work
 * @property {() => Promise<string>} checkpoint             the run's model, as a checkpoint file's text
 * @property {() => Promise<void>} end                      let the run go
 * @property {() => void} stop                              end the worker
 */

/** A failed call as an Error: the worker's own Error, or one with Python's message. @param {unknown} failure */
const asError = (failure) =>
  failure instanceof Error ? failure : new Error(/** @type {{ error: string }} */ (failure).error);

/** Start Python. @param {(message: string, fraction: number | null) => void} [onProgress]  @returns {TrainPython} */
export function startPython(onProgress) {
  const connection = connect((message, fraction) => onProgress?.(message, fraction));
  /** @param {string} op  @param {object} [args] */
  const call = (op, args = {}) =>
    connection.call(op, args).catch((/** @type {unknown} */ failure) => {
      throw asError(failure);
    });
  const stop = () => connection.stop(new Error("Python was stopped."));
  const ready = connection.call("start", { root: SITE_ROOT }).catch((/** @type {unknown} */ failure) => {
    stop();
    throw asError(failure);
  });
  return {
    ready,
    start: async (values) => JSON.parse(await call("liveStart", { values })),
    tick: async () => JSON.parse(await call("liveTick")),
    checkpoint: () => call("liveCheckpoint"),
    end: () => call("liveEnd"),
    stop,
  };
}

/** The last line of a Python traceback ("InputError: ..."), or the error's message. @param {unknown} err */
export function lastLine(err) {
  const lines = String(/** @type {{ message?: string }} */ (err)?.message ?? err)
    .trim()
    .split("\n");
  return lines[lines.length - 1];
}
