// Python in the reader's browser: Pyodide, served by the site itself from vendor/pyodide/, with the
// microgpt wheel the site serves for pip installed into it, and the site's own py/ files importable.
// Nothing is fetched before the first getPython() call, and nothing from outside the site, ever.
import { SITE_ROOT } from "./root.js";

const VENDOR = new URL("vendor/pyodide/", SITE_ROOT).href;
const HELPERS = "/home/pyodide/.microgpt-site"; // in the interpreter's own (in-memory) file system

// The module _mg_site, written into each new interpreter. `SitePy` finds <site root>/py/<name>.py when nothing else
// provides <name> (one synchronous same-site request per name, the first time it is imported);
// `run_chain` runs a page's blocks the way the test suite does, and `trace_json` serves the widgets.
const SETUP = `
import contextlib, gc, io, json, linecache, sys, traceback
from importlib.machinery import PathFinder
from pathlib import Path
from js import XMLHttpRequest

class SitePy:
    def __init__(self, url, folder):
        self.url, self.folder, self.tried = url, Path(folder), set()
        self.folder.mkdir(parents=True, exist_ok=True)

    def find_spec(self, name, path=None, target=None):
        # only top-level names that nothing else provides, each asked for once
        if path is not None or name.startswith("_") or name in sys.stdlib_module_names or name in self.tried:
            return None
        self.tried.add(name)
        request = XMLHttpRequest.new()
        request.open("GET", f"{self.url}{name}.py", False)
        try:
            request.send(None)
        except Exception:
            return None
        if request.status != 200:
            return None
        (self.folder / f"{name}.py").write_text(request.responseText, encoding="utf-8")
        return PathFinder.find_spec(name, [str(self.folder)])

def install(url, folder):
    sys.meta_path.append(SitePy(url, folder))

def run_chain(sources, names):
    """Run the blocks of one chain in one fresh namespace, as pytest-codeblocks does; (stdout, stderr, ok)."""
    out, err = io.StringIO(), io.StringIO()
    namespace = {"__MODULE__": "__main__"}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            for source, name in zip(sources, names):
                linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # lines in tracebacks
                try:
                    exec(compile(source, name, "exec"), namespace)
                except BaseException as e:  # SystemExit and KeyboardInterrupt too: the page must survive them
                    tb = e.__traceback__.tb_next if e.__traceback__ else None  # hide this function's frame
                    traceback.print_exception(type(e), e, tb)
                    return out.getvalue(), err.getvalue(), False
        return out.getvalue(), err.getvalue(), True
    finally:
        unlink_graphs()  # before the namespace lets go of them
        namespace.clear()
        gc.collect()

def unlink_graphs():
    # Freeing a Value frees its children, recursively, and in WebAssembly those nested calls use the
    # browser's own call stack, which CPython's guard cannot see: dropping a chain of a few thousand
    # Values would crash the interpreter. So once a run is over, every Value lets go of its children
    # first, and each is then freed on its own.
    engine = sys.modules.get("microgpt.engine")
    if engine is not None:
        for value in [o for o in gc.get_objects() if isinstance(o, engine.Value)]:
            value._children = ()

def trace_json(preset, leaves_json):
    from autograd_trace import trace_preset
    return json.dumps(trace_preset(preset, json.loads(leaves_json)))
`;

let loading = null; // Promise<pyodide>, shared by every caller
const listeners = new Set();

function report(message, fraction) {
  for (const listener of listeners) listener(message, fraction);
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

async function fetchWheel() {
  const latest = await (await fetchOk(new URL("dist/latest.json", SITE_ROOT))).json();
  const response = await fetchOk(new URL(`dist/${latest.wheel}`, SITE_ROOT));
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  report("Downloading Python (about 12 MB, once per visit)…", null);
  const { loadPyodide } = await import(`${VENDOR}pyodide.mjs`);
  // packageBaseUrl: even a stray loadPackage() must not reach Pyodide's default CDN
  const [pyodide, wheel] = await Promise.all([
    loadPyodide({ indexURL: VENDOR, packageBaseUrl: VENDOR }),
    fetchWheel(),
  ]);
  report("Installing microgpt…", 0.8);
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.FS.mkdirTree(HELPERS);
  pyodide.FS.writeFile(`${HELPERS}/_mg_site.py`, SETUP);
  pyodide.pyimport("sys").path.append(HELPERS);
  pyodide.pyimport("_mg_site").install(new URL("py/", SITE_ROOT).href, `${HELPERS}/py`);
  pyodide.runPython("import microgpt"); // the first run should not pay for it
  report("Python is ready.", 1);
  return pyodide;
}

/** Pyodide with microgpt installed, loaded on the first call; onProgress(message, fraction | null). */
export function getPython(onProgress) {
  if (onProgress) listeners.add(onProgress);
  loading ??= start().catch((err) => {
    loading = null; // a later call tries again
    throw err;
  });
  return loading.finally(() => listeners.delete(onProgress));
}

/** Forget a broken interpreter: the next getPython() starts a new one. */
export function resetPython() {
  loading = null;
}
