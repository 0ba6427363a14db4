"""Long tasks at load, and which of them are ours: two builds side by side in one run.

    python benchmarks/bench_longtasks.py SITE_DIR [BASELINE_DIR] [--runs N] [--slowdown N] [--page PATH ...]

Serves each built site on 127.0.0.1 under the path of mkdocs.yml's site_url (as the browser tests
do), loads each page in headless Chromium (Debian's, through Playwright) with the CPU slowed down
--slowdown times (CDP Emulation.setCPUThrottlingRate; Lighthouse's 4 by default), and records a
performance trace from before the navigation until the page has been quiet for a while after its load
event (idle work included: requestIdleCallback's 2 s timeout, slowed down).

A long task is a task of the page's main thread over 50 ms (the trace's RunTask events; the page's
own PerformanceObserver for 'longtask' counts the same tasks and is printed beside them as a check).
A long task is *ours* when a script of ours ran in it (an event inside it names a URL of ours: under
mgsite.vendor.SCRIPTS, where the build puts the site's bundled scripts, or javascripts/, where builds
from before they were bundled served their sources; a script evaluated, a function called, a callback
fired), which is how Lighthouse attributes a task to a script. A long task of ours lasts longer than
the scripts of ours in it (the browser's own layout, the theme's callbacks): the `script` column gives
the time our scripts ran in them. A forced reflow of ours is a layout (or style recalculation) a script
of ours asked for before the browser was ready to do it (its stack names a script of ours), as
Lighthouse's forced-reflow insight finds them. Issue 51 asks for neither in the first FIRST_MS of a
page: the `first 5 s` columns count only those that started that soon after the navigation.

Runs of the two builds are interleaved, so a busy moment of a shared machine falls on both; the table
gives, per page and build, the long tasks (count and ms, summed over the loads) that are ours and in
total, and the scripts of ours they named. On a loaded machine every task is longer (the 1-minute load
average is printed): compare the builds side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browsing import CHROMIUM, FLAGS  # noqa: E402
from mgsite.vendor import SCRIPTS  # noqa: E402
from sitecheck import QuietHandler, serving, site_url  # noqa: E402

PAGES = ["/accumulation/", "/backward-pass/", "/gpt-attention/", "/glossary/"]
LONG_MS = 50
# the site's bundled scripts, and where builds before them served their sources (not Material's assets/javascripts/)
OURS = (f"{urlsplit(site_url()).path}{SCRIPTS}/", f"{urlsplit(site_url()).path}javascripts/")
CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "toplevel",
    "v8.execute",
    "blink.user_timing",  # navigationStart
]
FIRST_MS = 5000  # issue 51: no long task or forced reflow of ours this soon after the navigation
LAYOUTS = {"Layout", "UpdateLayoutTree"}
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


def urls_in(event: dict, stacks_only: bool = False) -> list[str]:
    """The URLs of the scripts an event of the trace ran: its script's, and its stack's (only its stack's:
    who caused a layout)."""
    out = []
    for key in ("data", "beginData"):
        data = event.get("args", {}).get(key) or {}
        if not stacks_only and event.get("name") in RAN and isinstance(data.get("url"), str):
            out.append(data["url"])
        for frame in data.get("stackTrace") or []:
            if isinstance(frame, dict) and isinstance(frame.get("url"), str):
                out.append(frame["url"])
    return out


def ours_in(url: str) -> str | None:
    """The file of ours a URL names (None: not ours)."""
    path = urlsplit(url).path
    return next((path.split(folder, 1)[1] for folder in OURS if folder in path), None)


@dataclass
class Load:
    """What one load of a page showed: its long tasks, the forced reflows of ours, the page's own count."""

    tasks: list[tuple[float, float, list[str], float]]  # (start ms after navigation, ms, our scripts, our script ms)
    forced: list[tuple[float, float]]  # (start ms after navigation, ms) of each layout a script of ours forced
    observed: list[float]


def covered_ms(spans: list[tuple[float, float]]) -> float:
    """How long the union of these (start, end) spans lasts, in ms (nested events counted once)."""
    total, end_of_last = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > end_of_last:
            total += end - max(start, end_of_last)
            end_of_last = end
    return total / 1000


def read_trace(trace: dict) -> tuple[list[tuple[float, float, list[str], float]], list[tuple[float, float]]]:
    """The long tasks of the page's main threads (see Load), and the forced reflows of ours."""
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
    # the navigation to the page (the one that names its URL; later ones name none), else the trace's first event
    navigations = sorted(
        e["ts"]
        for evs in by_thread.values()
        for e in evs
        if e.get("name") == "navigationStart"
        and str((e.get("args", {}).get("data") or {}).get("documentLoaderURL", "")).startswith("http")
    )
    origin = navigations[0] if navigations else min(e["ts"] for evs in by_thread.values() for e in evs)
    tasks, forced = [], []
    for evs in by_thread.values():
        evs.sort(key=lambda e: e["ts"])
        forced += [
            ((e["ts"] - origin) / 1000, e.get("dur", 0) / 1000)
            for e in evs
            if e.get("name") in LAYOUTS and any(ours_in(url) for url in urls_in(e, stacks_only=True))
        ]
        end_of_last = 0.0
        for task in (e for e in evs if e.get("name") == "RunTask" and e.get("ph") == "X"):
            if task["ts"] < end_of_last:
                continue  # a task run inside another (a nested loop): part of the outer one
            start, end = task["ts"], task["ts"] + task.get("dur", 0)
            end_of_last = end
            if task.get("dur", 0) <= LONG_MS * 1000:
                continue
            ran = [(e, name) for e in evs if start <= e["ts"] <= end for url in urls_in(e) if (name := ours_in(url))]
            script = covered_ms([(e["ts"], e["ts"] + e.get("dur", 0)) for e, _ in ran if e.get("name") in RAN])
            tasks.append(((start - origin) / 1000, task["dur"] / 1000, sorted({name for _, name in ran}), script))
    return tasks, forced


def load(browser, url: str, slowdown: float) -> Load:
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
    return Load(*read_trace(trace), observed)


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
                    done = load(browser, f"{bases[name]}{prefix}{path.lstrip('/')}", args.slowdown)
                    results.setdefault((path, name), []).append(done)
                    ours = [t for t in done.tasks if t[2]]
                    print(f"    {[(round(at), round(ms), o) for at, ms, o, _ in ours]}", file=sys.stderr)
                    print(
                        f"  run {run + 1} {name:8} {path:18} long tasks {len(done.tasks)}, ours {len(ours)}, "
                        f"forced reflows of ours {len(done.forced)}, load {os.getloadavg()[0]:.1f}",
                        file=sys.stderr,
                    )

    print(
        f"\nLong tasks (> {LONG_MS} ms) at load, CPU {args.slowdown:g}x, {args.runs} loads per page and build "
        "(count / ms summed over the loads; `script`: the time scripts of ours ran in them; `observed`: the "
        "page's own PerformanceObserver); forced reflows of ours (count / ms); load average now "
        f"{os.getloadavg()[0]:.1f}\n"
    )
    first = f"first {FIRST_MS / 1000:g} s"
    print(
        f"{'page':18} {'build':9} {'ours':>12} {'script':>7} {'total':>13} {'observed':>13} {'forced':>10}"
        f"  {first + ': ours':>17} {'forced':>6}  scripts of ours (tasks)"
    )
    for path in pages:
        for name in builds:
            runs = results[(path, name)]
            tasks = [t for r in runs for t in r.tasks]
            ours = [t for t in tasks if t[2]]
            early = [t for t in ours if t[0] < FIRST_MS]
            forced = [f for r in runs for f in r.forced]
            observed = [ms for r in runs for ms in r.observed]
            named = Counter(script for t in ours for script in t[2])
            print(
                f"{path:18} {name:9} {len(ours):3} / {sum(t[1] for t in ours):6.0f} {sum(t[3] for t in ours):7.0f} "
                f"{len(tasks):3} / {sum(t[1] for t in tasks):7.0f} {len(observed):3} / {sum(observed):7.0f} "
                f"{len(forced):3} / {sum(ms for _, ms in forced):4.0f}  "
                f"{len(early):6} / {sum(t[1] for t in early):6.0f} "
                f"{sum(1 for at, _ in forced if at < FIRST_MS):6}  "
                + ", ".join(f"{s} ({n})" for s, n in named.most_common())
            )


if __name__ == "__main__":
    main()
