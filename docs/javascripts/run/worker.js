// The Python of the page, in a worker of its own: starting Python and running a long example never
// freeze the page, and a runaway example can be stopped by ending the worker (python.js).
// Messages in: {id, op, args}; out: {id, result} | {id, error, fatal} | {progress, fraction}.

// The module _mg_site, written into the interpreter: `run_chain` runs a page's blocks the way the test
// suite does; `trace_json` serves the widgets.
const SITE_MODULE = `
import contextlib, gc, io, json, linecache, sys, traceback, types


def run_chain(sources, names):
    """Run the blocks of one chain in one fresh namespace, as pytest-codeblocks does; (stdout, stderr, ok)."""
    out, err = io.StringIO(), io.StringIO()
    namespace = {"__name__": "__main__"}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            for source, name in zip(sources, names):
                linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # lines in tracebacks
                try:
                    exec(compile(source, name, "exec"), namespace)
                except BaseException as e:  # SystemExit and KeyboardInterrupt too: the page must survive them
                    tb = e.__traceback__.tb_next if e.__traceback__ else None  # hide this function's frame
                    traceback.print_exception(type(e), e, tb)
                    return [out.getvalue(), err.getvalue(), False]
        return [out.getvalue(), err.getvalue(), True]
    finally:
        unlink_graphs(namespace)  # before the namespace lets go of them
        namespace.clear()  # no cycle through the globals left: everything goes now, without waiting for gc


def unlink_graphs(namespace):
    # Freeing a Value frees its children, recursively, and in WebAssembly those nested calls use the
    # browser's own call stack, which CPython's guard cannot see: dropping a chain of a few thousand
    # Values would crash the interpreter. So once a run is over, every Value it can still reach lets
    # go of its children, from the roots down, and each is freed on its own.
    engine = sys.modules.get("microgpt.engine")
    if engine is None:
        return
    Value, skip = engine.Value, (type, types.ModuleType, types.BuiltinFunctionType, int, float, str, bytes)
    seen, stack, values = set(), [namespace], []
    while stack:  # the Values the namespace reaches, through lists, dicts, objects, closures
        obj = stack.pop()
        if isinstance(obj, Value):
            values.append(obj)
        elif id(obj) in seen or isinstance(obj, skip):
            continue  # classes, modules and builtins outlive the run; numbers and strings hold nothing
        elif isinstance(obj, types.FunctionType) and obj.__globals__ is not namespace:
            continue  # a function from a module: what it reaches belongs to the module
        else:
            seen.add(id(obj))
            stack.extend(gc.get_referents(obj))
    while values:  # the stack holds each child before its parent lets go of it
        value = values.pop()
        children = value._children
        if children:
            value._children = ()
            values.extend(children)


def trace_json(preset, leaves_json):
    from microgpt.course.trace import trace_preset

    return json.dumps(trace_preset(preset, json.loads(leaves_json)))
`;

const HELPERS = "/home/pyodide/.microgpt-site"; // in the interpreter's own (in-memory) file system
let pyodide = null;
let site = null; // the module above, once Python is up

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

async function start({ root }) {
  const vendor = new URL("vendor/pyodide/", root).href;
  progress("Downloading and starting Python (about 14 MB, once per visit)…", null);
  const { loadPyodide } = await import(`${vendor}pyodide.mjs`);
  // packageBaseUrl: even a stray loadPackage() must not reach Pyodide's default CDN
  const [py, wheel] = await Promise.all([loadPyodide({ indexURL: vendor, packageBaseUrl: vendor }), fetchWheel(root)]);
  progress("Installing microgpt…", 0.9);
  const sitePackages = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  py.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  py.FS.mkdirTree(HELPERS);
  py.FS.writeFile(`${HELPERS}/_mg_site.py`, SITE_MODULE);
  py.pyimport("sys").path.append(HELPERS);
  site = py.pyimport("_mg_site");
  py.runPython("import microgpt"); // the first run should not pay for it
  pyodide = py;
  progress("Python is ready.", 1);
}

const OPS = {
  start,
  runChain: ({ sources, names }) => {
    const result = site.run_chain(sources, names);
    try {
      return result.toJs();
    } finally {
      result.destroy();
    }
  },
  traceJson: ({ preset, leaves }) => site.trace_json(preset, leaves),
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
