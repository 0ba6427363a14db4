// The Python of the page, in a worker of its own: starting Python and running a long example never
// freeze the page, and a runaway example can be stopped by ending the worker (python.js).
// Messages in: {id, op, args}; out: {id, result} | {id, error, fatal} | {progress, fraction}.

/** @type {import("pyodide").PyodideInterface | null} */
let pyodide = null;
/** @type {any} microgpt.course.runner, a Python module (its functions are typed in Python) */
let runner = null; // microgpt.course.runner, once Python is up: it runs the blocks and says how it went

const progress = (/** @type {string} */ message, /** @type {number | null} */ fraction) =>
  postMessage({ progress: message, fraction });

/** @param {URL} url */
async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/** @param {string} root */
async function fetchWheel(root) {
  const latest = await (await fetchOk(new URL("dist/latest.json", root))).json();
  return new Uint8Array(await (await fetchOk(new URL(`dist/${latest.wheel}`, root))).arrayBuffer());
}

/** @param {{ root: string, again?: boolean }} args */
async function start({ root, again }) {
  const vendor = new URL("vendor/pyodide/", root).href;
  // after a Stop the files come from the browser's cache: only starting takes time
  progress(again ? "Starting a fresh Python…" : "Downloading and starting Python (about 14 MB, once per visit)…", null);
  /** @type {typeof import("pyodide")} */
  const { loadPyodide } = await import(`${vendor}pyodide.mjs`);
  // packageBaseUrl: even a stray loadPackage() must not reach Pyodide's default CDN
  const [py, wheel] = await Promise.all([loadPyodide({ indexURL: vendor, packageBaseUrl: vendor }), fetchWheel(root)]);
  progress("Installing microgpt…", 0.9);
  const sitePackages = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  py.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  runner = py.pyimport("microgpt.course.runner"); // and microgpt with it: the first run should not pay for that
  pyodide = py;
  progress("Python is ready.", 1);
}

/** @type {Record<string, (args: any) => unknown>} */
const OPS = {
  start,
  runChain: ({ sources, offered }) => {
    const py = /** @type {import("pyodide").PyodideInterface} */ (pyodide);
    const args = [py.toPy(sources), py.toPy(offered)];
    try {
      return JSON.parse(runner.run_chain(...args));
    } finally {
      for (const arg of args) arg.destroy();
    }
  },
  // the checkers' cases this Python made, pickled by piece ({name: Uint8Array}), and those another one made
  casesMade: ({ known }) => {
    const py = /** @type {import("pyodide").PyodideInterface} */ (pyodide);
    const names = py.toPy(known);
    const made = runner.cases_made(names);
    try {
      return made.toJs({ dict_converter: Object.fromEntries });
    } finally {
      names.destroy();
      made.destroy();
    }
  },
  takeCases: ({ cases }) => {
    const made = /** @type {import("pyodide").PyodideInterface} */ (pyodide).toPy(cases);
    try {
      runner.take_cases(made);
    } finally {
      made.destroy();
    }
  },
  traceJson: ({ preset, leaves }) => runner.trace_json(preset, leaves),
  // the Train widget's run (train/runtime.js): JSON text, or a checkpoint's text
  liveStart: ({ values }) => runner.live_start(JSON.stringify(values)),
  liveTick: () => runner.live_tick(),
  liveCheckpoint: () => runner.live_checkpoint(),
  liveEnd: () => runner.live_end(),
};

self.onmessage = async (
  /** @type {MessageEvent<{ id: number, op: string, args: object }>} */ { data: { id, op, args } },
) => {
  try {
    postMessage({ id, result: await OPS[op](args) });
  } catch (err) {
    // a Python exception keeps the interpreter usable; anything else (a crash) does not
    const fatal = !(pyodide && err instanceof pyodide.ffi.PythonError);
    postMessage({ id, error: String(/** @type {Error} */ (err)?.message ?? err), fatal });
  }
};
