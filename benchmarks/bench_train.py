"""Figures for the Train widget (issue 32), printed as plain numbers; not a test.

The same training, microgpt.course.live's LiveRun (the steps of `python -m microgpt train`, with the widget's
held-out losses and samples), timed two ways on this machine:

1. in the page: Pyodide in headless Chromium, the widget started by a click, its own elapsed time
   (running time, Python's start-up not included) divided by the steps, and the whole run from the
   click (start-up included);
2. in CPython: the same LiveRun ticked to its end in this process.

It prints both ms per step and their ratio, and the main thread's Total Blocking Time (long tasks'
time over 50 ms) per second of the run in the page, beside the same figure for the page left idle
before Start: the work is in a worker, so the two should be alike (on a loaded machine neither is 0).
Last, the Total Blocking Time of loading the page (the median of seven), with the widget's scripts
and with them refused: nothing but the form is built before Start.

Usage: .venv/bin/python benchmarks/bench_train.py [SITE_DIR] [STEPS]   (defaults: $MICROGPT_BUILT_SITE
or site/, and the widget's default steps). Needs Chromium, playwright, and the site built after
`npm ci`. These machines are shared: read the figures next to the load average printed with them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from mgsite.vendor import SCRIPTS  # noqa: E402  (where the build writes the site's scripts)
from sitecheck import serving  # noqa: E402

from microgpt.course.live import SETTINGS, LiveRun  # noqa: E402

CHROMIUM = os.environ.get("MICROGPT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

LONG_TASKS = """() => {
  window.mgLongTasks = [];
  new PerformanceObserver((list) => window.mgLongTasks.push(...list.getEntries().map((e) => e.duration)))
    .observe({ type: "longtask" });
}"""
IDLE_MS = 10_000
ELAPSED = """() => [...document.querySelectorAll(".mg-train__table tr")]
  .find((tr) => tr.querySelector("th").textContent.trim() === "Elapsed").querySelector("td").textContent"""


def blocking(page) -> float:
    """Total Blocking Time since the last call, in ms: the long tasks' time over 50 ms each."""
    tbt = sum(max(0.0, d - 50) for d in page.evaluate("() => window.mgLongTasks"))
    page.evaluate("() => (window.mgLongTasks = [])")
    return tbt


def in_page(site: Path, steps: int) -> tuple[float, float, float, float]:
    """(ms per step of running time, seconds from the click to the end, Total Blocking Time per second of the
    run, and per second of the same page left idle before it, in ms)."""
    with serving(site) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(f"{url}/training/", wait_until="networkidle")
        page.locator(".mg-train").scroll_into_view_if_needed()  # the widget is built near sight
        page.wait_for_selector(".mg-train[data-state=idle]")
        page.fill(".mg-train input[name=steps]", str(steps))
        page.evaluate(LONG_TASKS)
        page.wait_for_timeout(IDLE_MS)  # the page doing nothing: what this machine's load alone costs
        idle = blocking(page) / (IDLE_MS / 1000)
        clicked = time.perf_counter()
        page.click(".mg-train .mg-train__primary")
        page.wait_for_selector(".mg-train[data-state=running]", timeout=300_000)
        blocking(page)  # from here on: the run itself
        page.wait_for_selector(".mg-train[data-state=done]", timeout=1_800_000)
        total = time.perf_counter() - clicked
        seconds = float(page.evaluate(ELAPSED).split()[0])
        tbt = blocking(page) / seconds
        browser.close()
    return 1000 * seconds / steps, total, tbt, idle


LOAD_TASKS = """() => new Promise((resolve) => {
  const tasks = [];
  new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)))
    .observe({ type: "longtask", buffered: true });
  setTimeout(() => resolve(tasks), 3000);  // the page's load and what its scripts do right after
})"""


def load_blocking(site: Path, runs: int = 7) -> tuple[float, float]:
    """Median Total Blocking Time (ms) of loading the training page, with the widget's scripts, and with
    them refused (the page as it would be without the widget); the loads alternate."""
    with_widget, without = [], []
    with serving(site) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for _ in range(runs):
            for refuse, into in ((False, with_widget), (True, without)):
                context = browser.new_context()
                page = context.new_page()
                if refuse:
                    # the page as before: the Train widget's modules refused (mount-*.js, widget-*.js)
                    page.route(f"**/{SCRIPTS}/mount-*", lambda route: route.abort())
                page.goto(f"{url}/training/", wait_until="load")
                into.append(sum(max(0.0, d - 50) for d in page.evaluate(LOAD_TASKS)))
                context.close()
        browser.close()
    return statistics.median(with_widget), statistics.median(without)


def in_cpython(steps: int) -> float:
    run = LiveRun(steps=steps)
    started = time.perf_counter()
    while not run.tick()["finished"]:
        pass
    return 1000 * (time.perf_counter() - started) / steps


def main() -> None:
    site = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MICROGPT_BUILT_SITE", ROOT / "site"))
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else int(SETTINGS["steps"].default)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {steps} steps of the widget's default run")
    page_ms, total, tbt, idle = in_page(site, steps)
    cpython_ms = in_cpython(steps)
    print(f"in the page (Pyodide, headless Chromium): {page_ms:.1f} ms per step")
    print(f"CPython {sys.version.split()[0]}:                    {cpython_ms:.1f} ms per step")
    print(f"ratio page / CPython:                      {page_ms / cpython_ms:.2f}")
    print(f"the run in the page, Start to done:        {total:.1f} s (Python's start-up included)")
    with_widget, without = load_blocking(site)
    print(f"Total Blocking Time loading the page:     {with_widget:.0f} ms; without the widget's scripts {without:.0f}")
    print(f"Total Blocking Time per second of the run: {tbt:.0f} ms (the idle page: {idle:.0f} ms per second)")


if __name__ == "__main__":
    main()
