"""How long each exercise's checker takes, in CPython and in Pyodide, side by side; not a test.

A checker runs in the reader's browser when they press Run, so its time is the wait between Run and a
verdict. The same code runs in a fresh CPython and in a fresh Pyodide (the site's own, from node_modules/,
run by Node: the same WebAssembly build the page's worker runs, with the wheel the site serves; CPython with
the package as installed):

    recording   the three recorded steps the cases come from (once per Python, by the first checker)
    first       a checker's first run on the solution: its cases made (the engine's answers), then checked
    again       the same check once more: the cases are kept, so this is the wait on every later Run
    all wrong   an answer wrong everywhere by no rule: every case is run, every known slip tried, and
                every miss described (the longest a verdict can take)

Usage: .venv/bin/python benchmarks/bench_checkers.py [SITE_DIR]   (default: $MICROGPT_BUILT_SITE or site/).
Needs Node and the site built after `npm ci`. These machines are shared: read the ratios, beside the load
average printed with them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TIMING = r"""
import json, random, time

started = time.perf_counter()
from microgpt.course import checkers, pieces
from microgpt.course.checking import check
from microgpt.course.recordings import chapters, second, third

imported = time.perf_counter() - started
started = time.perf_counter()
chapters(), second(), third()
recorded = time.perf_counter() - started


def wrong_everywhere(solution):
    rng = random.Random(0)

    def shake(v):
        return [shake(x) for x in v] if isinstance(v, (list, tuple)) else v + rng.uniform(-1e-3, 1e-3)

    def answer(*args):
        out = solution(*args)
        return tuple(shake(part) for part in out) if isinstance(out, tuple) else shake(out)

    return answer


rows = {}
for name, piece in checkers.PIECES.items():
    solution = getattr(pieces, name)
    times = [time.perf_counter()]
    for answer in (solution, solution, wrong_everywhere(solution)):
        check(piece, answer)
        times.append(time.perf_counter())
    rows[name] = [b - a for a, b in zip(times, times[1:])]
print(json.dumps({"imported": imported, "recorded": recorded, "rows": rows}))
"""

NODE = r"""
import { loadPyodide } from "%(pyodide)s";
import { readFileSync } from "node:fs";
const py = await loadPyodide({ indexURL: "%(index)s" });
py.unpackArchive(new Uint8Array(readFileSync("%(wheel)s")), "wheel");
let out = "";
py.setStdout({ batched: (s) => (out += s) });
await py.runPythonAsync(readFileSync("%(code)s", "utf8"));
console.log(out);
"""


def in_cpython(code: Path) -> dict:
    run = [sys.executable, str(code)]
    out = subprocess.run(run, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(out.stdout)


def in_pyodide(code: Path, wheel: Path, work: Path) -> tuple[dict, str]:
    pyodide = ROOT / "node_modules" / "pyodide"
    script = work / "run.mjs"
    script.write_text(
        NODE % {"pyodide": pyodide / "pyodide.mjs", "index": f"{pyodide}/", "wheel": wheel, "code": code},
        encoding="utf-8",
    )
    out = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    return json.loads(out.stdout.strip().splitlines()[-1]), version


def main() -> None:
    site = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MICROGPT_BUILT_SITE", ROOT / "site"))
    (wheel,) = (site / "dist").glob("*.whl")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        code = work / "timing.py"
        code.write_text(TIMING, encoding="utf-8")
        cpython = in_cpython(code)
        pyodide, node = in_pyodide(code, wheel, work)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"CPython {sys.version.split()[0]} beside Pyodide (Node {node}); ms, and Pyodide / CPython")
    print(f"{'':26}{'CPython':>30}{'Pyodide':>30}{'ratio':>8}")
    print(f"{'':26}{'first   again  all wrong':>30}{'first   again  all wrong':>30}")
    for what in ("imported", "recorded"):
        c, p = 1000 * cpython[what], 1000 * pyodide[what]
        print(f"{what:26}{c:8.0f}{'':22}{p:8.0f}{'':22}{p / c:8.2f}")
    for name, c_row in cpython["rows"].items():
        p_row = pyodide["rows"][name]
        c = "".join(f"{1000 * v:8.0f}" for v in c_row)
        p = "".join(f"{1000 * v:8.0f}" for v in p_row)
        print(f"{name:26}{c:>30}{p:>30}{sum(p_row) / sum(c_row):8.2f}")


if __name__ == "__main__":
    main()
