"""Figures for the Train widget (issue 32), printed as plain numbers; not a test.

The same training, microgpt.live's LiveRun (the steps of `python -m microgpt train`, with the widget's
held-out losses and samples), timed two ways on this machine:

1. in the page: Pyodide in headless Chromium, the widget started by a click, its own elapsed time
   (running time, Python's start-up not included) divided by the steps, and the whole run from the
   click (start-up included);
2. in CPython: the same LiveRun ticked to its end in this process.

It prints both ms per step and their ratio, and the main thread's Total Blocking Time during the run
in the page (long tasks over 50 ms), which should be about 0: the work is in a worker.

Usage: .venv/bin/python benchmarks/bench_train.py [SITE_DIR] [STEPS]   (defaults: $MICROGPT_BUILT_SITE
or site/, and the widget's default steps). Needs Chromium, playwright, and the site built after
`npm ci`. These machines are shared: read the figures next to the load average printed with them.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from sitecheck import serving  # noqa: E402

from microgpt.live import SETTINGS, LiveRun  # noqa: E402

CHROMIUM = os.environ.get("MICROGPT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

LONG_TASKS = """() => {
  window.mgLongTasks = [];
  new PerformanceObserver((list) => window.mgLongTasks.push(...list.getEntries().map((e) => e.duration)))
    .observe({ type: "longtask" });
}"""
ELAPSED = """() => [...document.querySelectorAll(".mg-train__table tr")]
  .find((tr) => tr.querySelector("th").textContent.trim() === "Elapsed").querySelector("td").textContent"""


def in_page(site: Path, steps: int) -> tuple[float, float, float]:
    """(ms per step of running time, seconds from the click to the end, Total Blocking Time in ms)."""
    with serving(site) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(f"{url}/training/", wait_until="networkidle")
        page.wait_for_selector(".mg-train[data-state=idle]")
        page.fill(".mg-train input[name=steps]", str(steps))
        page.evaluate(LONG_TASKS)
        clicked = time.perf_counter()
        page.click(".mg-train .mg-train__primary")
        page.wait_for_selector(".mg-train[data-state=running]", timeout=300_000)
        page.evaluate("() => (window.mgLongTasks = [])")  # from here on: the run itself
        page.wait_for_selector(".mg-train[data-state=done]", timeout=1_800_000)
        total = time.perf_counter() - clicked
        seconds = float(page.evaluate(ELAPSED).split()[0])
        tbt = sum(max(0.0, d - 50) for d in page.evaluate("() => window.mgLongTasks"))
        browser.close()
    return 1000 * seconds / steps, total, tbt


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
    page_ms, total, tbt = in_page(site, steps)
    cpython_ms = in_cpython(steps)
    print(f"in the page (Pyodide, headless Chromium): {page_ms:.1f} ms per step")
    print(f"CPython {sys.version.split()[0]}:                    {cpython_ms:.1f} ms per step")
    print(f"ratio page / CPython:                      {page_ms / cpython_ms:.2f}")
    print(f"the run in the page, from Start to done:   {total:.1f} s (Python's start-up included)")
    print(f"Total Blocking Time during the run:        {tbt:.0f} ms")


if __name__ == "__main__":
    main()
