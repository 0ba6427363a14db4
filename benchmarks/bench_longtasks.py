"""Long tasks at load, and which of them are ours: two builds side by side in one run.

    python benchmarks/bench_longtasks.py SITE_DIR [BASELINE_DIR] [--runs N] [--slowdown N] [--page PATH ...]

Serves each built site on 127.0.0.1 under the path of mkdocs.yml's site_url (as the browser tests
do), loads each page in headless Chromium (Debian's, through Playwright) with the CPU slowed down
--slowdown times (CDP Emulation.setCPUThrottlingRate; Lighthouse's 4 by default), and records a
performance trace from before the navigation until the page has been quiet for a while after its load
event (idle work included: requestIdleCallback's 2 s timeout, slowed down).

A long task is a task of the page's main thread over 50 ms (the trace's RunTask events; the page's
own PerformanceObserver for 'longtask' counts the same tasks and is printed beside them as a check).
A long task is *ours* when a script of ours ran in it (an event inside it names a URL under
/javascripts/: a script evaluated, a function called, a callback fired), which is how Lighthouse
attributes a task to a script. Runs of the two builds are interleaved, so a busy moment of a shared
machine falls on both; the table gives, per page and build, the long tasks (count and ms, summed
over the runs) that are ours and in total, and the scripts of ours they named.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browsing import CHROMIUM, FLAGS  # noqa: E402
from sitecheck import QuietHandler, serving, site_url  # noqa: E402

PAGES = ["/accumulation/", "/backward-pass/", "/gpt-attention/", "/glossary/"]
LONG_MS = 50
OURS = urlsplit(site_url()).path + "javascripts/"  # not Material's assets/javascripts/
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "v8.execute"]
QUIET_MS = 6000  # after the load event: the idle work's 2 s timeout, at 4x, and then some

OBSERVE = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longtasks.push(e.duration);
}).observe({ type: "longtask", buffered: true });
"""


def prefixed(directory: Path, prefix: str) -> type[QuietHandler]:
    """A handler serving `directory` under `prefix` only (as tests/browser/test_browser_run.py's run_url)."""

    class Handler(QuietHandler):
        def translate_path(self, path: str) -> str:
            if not path.startswith(prefix):
                return str(directory / "no such file")
            return super().translate_path(path[len(prefix) - 1 :])

    return Handler


# events that mean a script ran (a request's URL names a script too, but nothing of it ran)
RAN = {"EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule", "FunctionCall", "v8.callFunction"}


def urls_in(event: dict) -> list[str]:
    """The URLs of the scripts an event of the trace ran: its script's, and its stack's."""
    out = []
    for key in ("data", "beginData"):
        data = event.get("args", {}).get(key) or {}
        if event.get("name") in RAN and isinstance(data.get("url"), str):
            out.append(data["url"])
        for frame in data.get("stackTrace") or []:
            if isinstance(frame, dict) and isinstance(frame.get("url"), str):
                out.append(frame["url"])
    return out


def long_tasks(trace: dict) -> list[tuple[float, list[str]]]:
    """(ms, our scripts that ran in it) of each long task of the page's main threads."""
    events = trace["traceEvents"]
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    by_thread: dict[tuple[int, int], list[dict]] = {}
    for e in events:
        if (e.get("pid"), e.get("tid")) in mains and "ts" in e:
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    out = []
    for evs in by_thread.values():
        evs.sort(key=lambda e: e["ts"])
        end_of_last = 0.0
        for task in (e for e in evs if e.get("name") == "RunTask" and e.get("ph") == "X"):
            if task["ts"] < end_of_last:
                continue  # a task run inside another (a nested loop): part of the outer one
            start, end = task["ts"], task["ts"] + task.get("dur", 0)
            end_of_last = end
            if task.get("dur", 0) <= LONG_MS * 1000:
                continue
            ours = {
                urlsplit(url).path.split(OURS, 1)[1]
                for e in evs
                if start <= e["ts"] <= end
                for url in urls_in(e)
                if OURS in url
            }
            out.append((task["dur"] / 1000, sorted(ours)))
    return out


def load(browser, url: str, slowdown: float) -> tuple[list[tuple[float, list[str]]], list[float]]:
    context = browser.new_context(viewport={"width": 412, "height": 823})
    page = context.new_page()
    page.add_init_script(OBSERVE)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
    browser.start_tracing(page=page, categories=CATEGORIES)
    page.goto(url, wait_until="load")
    page.wait_for_timeout(QUIET_MS)
    observed = page.evaluate("window.__longtasks")
    trace = json.loads(browser.stop_tracing())
    context.close()
    return long_tasks(trace), observed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("baseline", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slowdown", type=float, default=4)
    parser.add_argument("--page", action="append", dest="pages")
    args = parser.parse_args()
    builds: dict[str, Path] = {"baseline": args.baseline, "this": args.site} if args.baseline else {"this": args.site}
    pages = args.pages or PAGES
    prefix = urlsplit(site_url()).path

    results: dict[tuple[str, str], list] = {}
    with sync_playwright() as pw, contextlib.ExitStack() as stack:
        bases = {name: stack.enter_context(serving(d, prefixed(d.resolve(), prefix))) for name, d in builds.items()}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        stack.callback(browser.close)
        for run in range(args.runs):
            for path in pages:
                for name in builds:
                    tasks, observed = load(browser, f"{bases[name]}{prefix}{path.lstrip('/')}", args.slowdown)
                    results.setdefault((path, name), []).append((tasks, observed))
                    ours = sum(1 for _, o in tasks if o)
                    print(
                        f"    {[(round(ms), o) for ms, o in tasks]} observed {[round(ms) for ms in observed]}",
                        file=sys.stderr,
                    )
                    print(f"  run {run + 1} {name:8} {path:18} long tasks {len(tasks)}, ours {ours}", file=sys.stderr)

    print(
        f"\nLong tasks (> {LONG_MS} ms) at load, CPU {args.slowdown:g}x, {args.runs} loads per page and build "
        "(count / ms summed over the loads; `observed`: the page's own PerformanceObserver)\n"
    )
    print(f"{'page':18} {'build':9} {'ours':>12} {'total':>13} {'observed':>13}  scripts of ours (tasks)")
    for path in pages:
        for name in builds:
            runs = results[(path, name)]
            tasks = [t for r in runs for t in r[0]]
            ours = [(ms, o) for ms, o in tasks if o]
            observed = [ms for r in runs for ms in r[1]]
            named = Counter(script for _, o in ours for script in o)
            print(
                f"{path:18} {name:9} {len(ours):3} / {sum(ms for ms, _ in ours):6.0f} "
                f"{len(tasks):3} / {sum(ms for ms, _ in tasks):7.0f} {len(observed):3} / {sum(observed):7.0f}  "
                + ", ".join(f"{s} ({n})" for s, n in named.most_common())
            )


if __name__ == "__main__":
    main()
