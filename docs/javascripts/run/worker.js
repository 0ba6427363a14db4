// The Python of the page, in a worker of its own: starting Python and running a long example never
// freeze the page, and a runaway example can be stopped by ending the worker (python.js).
// Messages in: {id, op, args}; out: {id, result} | {id, error, fatal} | {progress, fraction}.

let pyodide = null;
let runner = null; // microgpt.course.runner, once Python is up: it runs the blocks and says how it went

const progress = (message, fraction) => postMessage({ progress: message, fraction });

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

async function fetchWheel(root) {
  const latest = await (await fetchOk(new URL("dist/latest.json", root))).json();
  return new Uint8Array(await (await fetchOk(new URL(`dist/${latest.wheel}`, root))).arrayBuffer());
}

async function start({ root, again }) {
  const vendor = new URL("vendor/pyodide/", root).href;
  // after a Stop the files come from the browser's cache: only starting takes time
  progress(again ? "Starting a fresh Python…" : "Downloading and starting Python (about 14 MB, once per visit)…", null);
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

const OPS = {
  start,
  runChain: ({ sources, offered }) => {
    const args = [pyodide.toPy(sources), pyodide.toPy(offered)];
    try {
      return JSON.parse(runner.run_chain(...args));
    } finally {
      for (const arg of args) arg.destroy();
    }
  },
  traceJson: ({ preset, leaves }) => runner.trace_json(preset, leaves),
  runPython: ({ code }) => {
    const result = pyodide.runPython(code);
    return result?.toJs ? result.toJs() : result;
  },
};

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    postMessage({ id, result: await OPS[op](args) });
  } catch (err) {
    // a Python exception keeps the interpreter usable; anything else (a crash) does not
    const fatal = !(pyodide && err instanceof pyodide.ffi.PythonError);
    postMessage({ id, error: String(err?.message ?? err), fatal });
  }
};
