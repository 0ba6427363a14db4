"""Figures for the Run buttons (issues 14 and 43), printed as plain numbers; not a test.

1. Time to first output with a cold start: a fresh browser profile opens the home page, the reader
   clicks Run, and the clock stops when the block's output is on the page (Python downloaded, started,
   microgpt installed, the block run).
2. The same with Python already loaded: every block of one page, run one after the other.
3. Bytes the first run transfers: each file as served (Python's http.server, no compression) and
   gzipped (what a real host such as GitHub Pages sends).
4. The longest time the page's main thread was blocked during the cold start (long tasks).
5. Stop, then a checked answer, as a learner meets it on an exercise (the issue's goal: at most 0.25x the
   cold start). On each page of EXERCISES, in a fresh browser profile: the cold start is the first Run after
   the page loads (its "Write it yourself" block, the blank template, whose checker builds its cases) to the
   first output. Then the learner writes a runaway loop, runs it, presses Stop as soon as it is offered, and
   runs a right answer (the template with the page's solution as its body, a Run that calls the checker): the
   clock runs from Stop to the checker's verdict on the page. Twice over: "at once", Edit pressed right after
   the first answer (the spare Python Stop hands the next run to starts then, so it is still starting), and
   "after reading", THINK_S seconds of editing first (the median of STOP_TRIES). Each beside the cold start,
   as a ratio; and the same right answer run again on a warm Python, for the check's own time.
6. The editor: its bytes as served and gzipped, and the time from the first Edit to the editor in place.

Usage: .venv/bin/python benchmarks/bench_run.py [SITE_DIR] [--busy N]   (default: $MICROGPT_BUILT_SITE, else
a fresh `mkdocs build --strict` into a temporary directory). Needs Chromium and playwright, and `npm ci`.
These machines are shared: read the figures next to the load average printed with them (at the start and
at the end). --busy N adds N processes that keep a core busy for the whole run (a Python loop each), to see
the figures under load.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import inspect
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlparse

from mgsite.vendor import SCRIPTS  # where the build writes the site's scripts (the editor among them)
from playwright.sync_api import sync_playwright

from microgpt.course import pieces

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("MICROGPT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
PREFIX = "/backprop/"
STOP_TRIES = 3
THINK_S = 10
COLD_PAGE, WARM_PAGE = "", "backward-pass/"
# (page, piece): the chapter's first exercise, whose cases are the cheapest to build, and its last in-page one,
# attention whole, whose cases cost the most
EXERCISES = [("gpt-output/", "cross_entropy_backward"), ("gpt-attention/", "attention_backward")]
RUNAWAY = "while True:\n    pass"

# Click Run on the block, resolve when its output is shown: milliseconds, and the run's own time.
CLICK_AND_TIME = """async (n) => {
  const el = document.querySelector(`[data-mg-run="${n}"]`);
  const done = () => el.dataset.mgState === "done" || el.dataset.mgState === "error";
  const started = performance.now();
  el.querySelector(".mg-run__run").click();
  await new Promise((resolve) => {
    const observer = new MutationObserver(() => done() && (observer.disconnect(), resolve()));
    observer.observe(el, { attributes: true, attributeFilter: ["data-mg-state"] });
  });
  return { ms: performance.now() - started, state: el.dataset.mgState, python_ms: Number(el.dataset.mgMs) };
}"""

# A runaway edit is running in block n, and the editor already holds the right answer (typed while it ran: the
# Python is none the wiser): press Stop, then Run at once; ms from Stop until the checker's verdict is shown,
# and how long the run itself took in the worker (the rest is the wait for a Python).
STOP_AND_CHECK = """async (n) => {
  const el = document.querySelector(`[data-mg-run="${n}"]`);
  const until = (ok) => new Promise((resolve) => {
    if (ok()) return resolve();
    const observer = new MutationObserver(() => ok() && (observer.disconnect(), resolve()));
    observer.observe(el, { attributes: true, attributeFilter: ["data-mg-state", "aria-busy"] });
  });
  const idle = () => !el.hasAttribute("aria-busy");
  const started = performance.now();
  el.querySelector(".mg-run__stop").click();
  await until(() => el.dataset.mgState === "error" && idle());
  el.querySelector(".mg-run__run").click();
  await until(() => (el.dataset.mgState === "done" || el.dataset.mgState === "error") && idle());
  const verdict = el.querySelector(".mg-run__verdict");
  return { ms: performance.now() - started, state: el.dataset.mgState, python_ms: Number(el.dataset.mgMs),
           verdict: verdict.hidden ? "" : verdict.dataset.verdict };
}"""

# Press Edit on block n; ms until the editor is in place.
FIRST_EDIT = """async (n) => {
  const el = document.querySelector(`[data-mg-run="${n}"]`);
  const started = performance.now();
  el.querySelector(".mg-run__edit").click();
  while (!el.querySelector(".cm-content")) await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - started;
}"""

LONG_TASKS = """() => {
  window.mgLongTasks = [];
  new PerformanceObserver((list) => window.mgLongTasks.push(...list.getEntries().map((e) => e.duration)))
    .observe({ type: "longtask" });
}"""


def site_dir() -> Path:
    if os.environ.get("MICROGPT_BUILT_SITE"):
        return Path(os.environ["MICROGPT_BUILT_SITE"])
    out = Path(tempfile.mkdtemp(prefix="bench-run-site-"))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, env=env, check=True
    )
    return out


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            return super().translate_path(path[len(PREFIX) - 1 :] if path.startswith(PREFIX) else "/no such file")

        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a file the browser stopped fetching as it closed (a spare Python's, say) is no error of the site

    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"


def file_of(site: Path, url: str) -> Path:
    path = urlparse(url).path[len(PREFIX) :]
    file = site / path
    return file / "index.html" if file.is_dir() or path.endswith("/") or not path else file


def right_answer(blank: str, piece: str) -> str:
    """The exercise's blank template with the page's solution (microgpt/course/pieces.py) as its function."""
    solution = inspect.getsource(getattr(pieces, piece)).rstrip("\n")
    definition = re.compile(rf"^def {piece}\(.*?raise NotImplementedError[^\n]*", re.S | re.M)
    answer, found = definition.subn(lambda _: solution, blank)
    assert found == 1, f"no blank definition of {piece} in {blank!r}"
    return answer


def exercise(browser, base: str, path: str, piece: str) -> dict:
    """Section 5 on one exercise page, in a fresh profile: the cold start, then Stop and a checked answer."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(300_000)
    page.goto(base + path, wait_until="networkidle")
    page.wait_for_selector(".mg-run__run")
    blank = page.locator(".admonition.question .mg-run").filter(has_text=f"def {piece}(").first
    n = int(blank.get_attribute("data-mg-run"))
    right = right_answer(blank.locator("code").first.text_content(), piece)
    cold = page.evaluate(CLICK_AND_TIME, n)
    assert cold["state"] == "done", cold

    def stop_and_check(think_s: float) -> dict:
        if blank.locator(".cm-content").is_hidden():
            blank.locator(".mg-run__edit").click()  # the spare Python starts now
        page.wait_for_timeout(think_s * 1000)  # the reader reads and types
        blank.locator(".cm-content").fill(RUNAWAY)
        blank.locator(".mg-run__run").click()
        blank.locator(".mg-run__stop").wait_for()  # offered once a run has taken a second
        blank.locator(".cm-content").fill(right)  # the fix, typed while the loop runs
        result = page.evaluate(STOP_AND_CHECK, n)
        assert result["verdict"] == "accepted", (path, result)
        return result

    at_once = stop_and_check(0)
    after_reading = [stop_and_check(THINK_S) for _ in range(STOP_TRIES)]
    warm = page.evaluate(CLICK_AND_TIME, n)  # the right answer again, on the Python that judged it
    context.close()
    return {"cold": cold, "at_once": at_once, "after_reading": after_reading, "warm": warm}


def print_exercise(path: str, piece: str, figures: dict) -> None:
    cold = figures["cold"]["ms"]
    print(f"stop: {piece} on {path}: cold start {cold / 1000:.1f} s (first Run after the page loads to its output)")
    at_once = figures["at_once"]
    print(
        f"      Edit at once, Stop as soon as offered, then a right answer: {at_once['ms'] / 1000:.2f} s from Stop to"
        f" the verdict, {at_once['ms'] / cold:.2f}x the cold start (goal <= 0.25x); the run itself"
        f" {at_once['python_ms'] / 1000:.2f} s"
    )
    tries = figures["after_reading"]
    median = statistics.median(t["ms"] for t in tries)
    each = ", ".join(f"{t['ms'] / 1000:.2f}" for t in tries)
    runs = ", ".join(f"{t['python_ms'] / 1000:.2f}" for t in tries)
    print(
        f"      after {THINK_S} s of editing: {median / 1000:.2f} s (median of {each}), {median / cold:.2f}x the cold"
        f" start (goal <= 0.25x); the runs themselves {runs} s"
    )
    print(f"      the right answer again, warm: {figures['warm']['ms'] / 1000:.2f} s")


def busy(n: int) -> list[subprocess.Popen]:
    """n processes that each keep a core busy: load of the kind other users put on a shared machine."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", nargs="?", type=Path, help="the built site (default: $MICROGPT_BUILT_SITE)")
    parser.add_argument("--busy", type=int, default=0, metavar="N", help="N busy loops beside the browser")
    args = parser.parse_args()
    site = args.site or site_dir()
    server, base = serve(site)
    loops = busy(args.busy)
    print(f"{load()}; {args.busy} busy loops added; site {site}")
    try:
        measure(site, base)
    finally:
        for loop in loops:
            loop.kill()
        server.shutdown()
    print(f"at the end: {load()}")


def measure(site: Path, base: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = browser.new_context()  # a fresh profile: empty cache, nothing compiled
        page = context.new_page()
        page.set_default_timeout(300_000)
        page.goto(base + COLD_PAGE, wait_until="networkidle")
        page.locator("[data-mg-run]").first.scroll_into_view_if_needed()  # Run comes as a reader comes near
        page.wait_for_selector(".mg-run__run")
        page.evaluate(LONG_TASKS)
        fetched: list[str] = []
        page.on("request", lambda r: fetched.append(r.url))
        cold = page.evaluate(CLICK_AND_TIME, 0)
        long_tasks = page.evaluate("window.mgLongTasks")
        first_run = list(fetched)
        again = page.evaluate(CLICK_AND_TIME, 0)

        fetched.clear()
        edit_ms = page.evaluate(FIRST_EDIT, 0)
        editor_files = list(fetched)

        page.goto(base + WARM_PAGE, wait_until="networkidle")  # a full load: Python starts again
        page.locator("[data-mg-run]").first.scroll_into_view_if_needed()  # Run comes as a reader comes near
        page.wait_for_selector(".mg-run__run")
        page.evaluate(CLICK_AND_TIME, 0)
        warm = []
        for el in page.locator("[data-mg-run]:has(.mg-run__run)").all():
            warm.append(page.evaluate(CLICK_AND_TIME, int(el.get_attribute("data-mg-run"))))
        context.close()
        exercises = {(path, piece): exercise(browser, base, path, piece) for path, piece in EXERCISES}
        browser.close()

    files = [file_of(site, u) for u in dict.fromkeys(first_run)]
    raw = sum(f.stat().st_size for f in files)
    packed = sum(len(gzip.compress(f.read_bytes(), 6)) for f in files)
    assert cold["state"] == "done" and all(w["state"] == "done" for w in warm), (cold, warm)
    print(f"cold: first output {cold['ms'] / 1000:.1f} s after the first click (goal <= 5 s)")
    print(f"      the main thread was blocked at most {max(long_tasks, default=0) / 1000:.1f} s at a time")
    for (path, piece), figures in exercises.items():
        print_exercise(path, piece, figures)
    print(f"warm: the same block again {again['ms'] / 1000:.2f} s")
    ms = [w["ms"] / 1000 for w in warm]
    print(
        f"warm: {len(ms)} blocks of {WARM_PAGE}: median {statistics.median(ms):.2f} s, max {max(ms):.2f} s "
        f"(goal <= 0.3 s per block); {sum(m <= 0.3 for m in ms)} of {len(ms)} within the goal"
    )
    # the editor's files, not the worker of the spare Python an Edit starts
    for f in [file_of(site, u) for u in dict.fromkeys(editor_files) if f"/{SCRIPTS}/" in u and "worker" not in u]:
        size, packed_size = f.stat().st_size, len(gzip.compress(f.read_bytes(), 6))
        print(
            f"editor: {f.relative_to(site)} {size / 1e3:.0f} KB as served, {packed_size / 1e3:.0f} KB gzipped;"
            f" in place {edit_ms:.0f} ms after the first Edit"
        )
    print(f"first run transferred {len(files)} files, {raw / 1e6:.1f} MB as served, {packed / 1e6:.1f} MB gzipped:")
    for f in sorted(files, key=lambda f: -f.stat().st_size)[:6]:
        print(f"  {f.stat().st_size / 1e6:6.2f} MB  {f.relative_to(site)}")


if __name__ == "__main__":
    main()
