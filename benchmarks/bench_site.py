"""Lighthouse scores for every page of the built site, as a phone on a slow network sees it.

    python benchmarks/bench_site.py [SITE_DIR] [--cpu-slowdown N] [--runs N] [--paint-holding]   (make bench-site)

Serves SITE_DIR (default: site/, which `make build` writes) on 127.0.0.1 behind a small HTTP server
that gzips text as a real host does (Python's http.server sends no compression, and Lighthouse
would then charge every page for bytes no reader downloads), runs benchmarks/node_modules/lighthouse with its
mobile settings (a phone on simulated slow 4G) on every page, one at a time, and prints
Performance / Accessibility / Best Practices / SEO per page, the metrics behind the performance
score, the bytes transferred, and every audit that kept a category below its goal.

CPU. Lighthouse slows the CPU down 4x to emulate its reference phone, assuming a desktop whose
BenchmarkIndex (its own CPU benchmark) is about 1500; below 1000 it warns that the scores are too
low. A shared build machine measures anything from 300 to 1600, and can move between the two from
one minute to the next. So the slowdown is set for each run from the BenchmarkIndex that run
measured: Lighthouse first loads the page and saves what it recorded (-G, gather mode), then the
run is scored (-A, audit mode) with the slowdown of Lighthouse's published calibration
(github.com/patrickhulce/lighthouse-cpu-throttling-calculator): 1x at 150, 2x at 800, 3x at 1300,
one more per 233 above. Scoring applies the slowdown to the recorded work (Lighthouse's default,
simulated throttling, runs the page at full speed), so setting it after the load changes nothing
else. The table shows each median run's index and slowdown. --cpu-slowdown N uses N for every run.
Network throttling is Lighthouse's default either way.

The same recorded loads are also scored with Lighthouse's own default, 4x whatever the machine (the
`4x` column: the median of the runs' scores). Both scores come from one load, so they differ only
by the slowdown: on a machine whose index jumps between runs, the calibrated score moves with the
index as much as with the page, while the 4x one moves only with the work the load recorded.

Held first frames. Headless Chromium, as Lighthouse launches it, sometimes draws a page's first
frame one or two whole seconds after the page was ready to paint: the display compositor stops
offering the page frames for up to a second at a time while its first commit waits (viz's
ThrottleUnresponsiveClient, as github.com/GoogleChrome/lighthouse/issues/17148 traces it; open).
Lighthouse then reports that late frame as the first paint and scores the layout of the whole page,
which ran before it, as blocking time. Turning off Chromium's paint holding made it go away here:
on /chain-rule/ 4 of 8 runs were held with Chromium's defaults, none of 8 with paint holding off.
The page's part: viz also stops offering frames (ThrottleUndrawnFrames) to a page that has sent a
few frames it could not draw while its first commit was held back, so the longer a page holds its
first commit, the likelier the stall. A preloaded font held it until the font had arrived (traced on
/backward-pass/ with paint holding on: the hold ended as the font arrived, 185 ms, not as the last
stylesheet did, 160 ms); without the preload, held runs there went from 3 of 4 to 0 of 4
(tools/mgsite/mgsite/font.py). What is left is the headless display's, so the bench turns paint holding
off (--disable-features=PaintHolding); --paint-holding keeps Chromium's default. Either way, the `held`
column counts the runs whose first paint came more than half a second after their load event.

Runs. One Lighthouse run is one sample of a noisy measurement: on a shared machine the same page can
score 86 and 98 a minute apart (a busy moment lengthens the page's tasks, which Lighthouse then
multiplies by the slowdown). So each page is measured --runs times (default 3, what
Lighthouse CI does) and the table shows the run with the median performance score, with every
run's score beside it.

Stock. The lead is measured as a ratio: the same pages are also built as a stock Material site would
build them (`build_stock`: the same Markdown, the extension that makes the Markdown (embeds, the wheel, the
widgets), the notebook's template, extra_css and extra_javascript; no theme overrides and no build-time math:
KaTeX's auto-render from benchmarks/node_modules typesets the formulas in the browser, through document$, as
Material's documentation shows). Each page is measured in both builds, runs interleaved, and the
table gives this site's median TBT and LCP as a fraction of the stock build's (goal: TBT at most 0.6x
and LCP at most 1.0x on every page, and median Performance over the pages >= 95). --pages N measures
the first N pages of a spread over the site (default: all); --no-stock measures this site alone.

Needs Lighthouse (benchmarks/package.json; `make bench-site` fetches it) and Chromium at
/usr/bin/chromium (or CHROME_PATH). A figure, not a test: scores move with the machine's load, so
compare runs made next to each other.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "benchmarks" / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-sync --no-first-run"
NO_PAINT_HOLDING = "--disable-features=PaintHolding"  # see "Held first frames" above
HELD_MS = 500  # a held frame comes 0.7 s to 2 s late; a page's own slowness shows before its load event
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
LIGHTHOUSE_SLOWDOWN = 4.0  # Lighthouse's mobile default, uncalibrated
GOAL = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
COMPRESSIBLE = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".py", ".map", ".wasm"}
# what GitHub Pages sends; a host's cache policy is not what this measures, but leaving it out
# would make Lighthouse's cache audit describe a server no reader uses
CACHE_CONTROL = "max-age=600"


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped when the client accepts it (level 6, what nginx and most CDNs use)."""

    def log_message(self, *args) -> None:  # quiet: the table is the output
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", CACHE_CONTROL)
        super().end_headers()

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        gzip_ok = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (gzip_ok and path.is_file() and path.suffix in COMPRESSIBLE):
            return super().send_head()  # directory redirects, 404s, binary files, clients without gzip
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return _Body(body)


class _Body:
    """What send_head returns: something copyfile() can read and the handler can close."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, n: int = -1) -> bytes:
        out, self.data = (self.data, b"") if n < 0 else (self.data[:n], self.data[n:])
        return out

    def close(self) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def pages(site: Path) -> list[str]:
    """URL path of every page: each index.html of the built site."""
    out = []
    for html in sorted(site.rglob("index.html")):
        rel = html.parent.relative_to(site).as_posix()
        out.append("/" if rel == "." else f"/{rel}/")
    return out


# Material's documented KaTeX set-up (reference/math.md), with KaTeX from benchmarks/node_modules
KATEX_INIT = """document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\\\(", right: "\\\\)", display: false },
      { left: "\\\\[", right: "\\\\]", display: true },
    ],
  });
});
"""
# what a stock build leaves out: the theme overrides and the math typeset at build time (mgsite's
# typeset_math, turned off); the parts of docs/stylesheets/extra.css begin with this mark, and the one for
# build-time math is left out
PART_MARK = "/* ========================================================================"
MATH_PART = f"{PART_MARK} math */"


def build_stock(out: Path) -> Path:
    """Build the stock variant of the site into out/site (see "Stock" above); its directory."""
    import yaml  # type: ignore[import-untyped]  # mkdocs' own dependency

    work = out / "project"
    work.mkdir(parents=True)
    for name in ("microgpt", "pyproject.toml", "README.md", "LICENSE", "node_modules"):
        (work / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "docs", work / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    katex = ROOT / "benchmarks" / "node_modules" / "katex" / "dist"  # benchmarks/package.json
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js"):
        (work / "docs" / "katex" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(katex / name, work / "docs" / "katex" / name)
    woff2_only = shutil.ignore_patterns("*.woff", "*.ttf")
    shutil.copytree(katex / "fonts", work / "docs" / "katex" / "fonts", ignore=woff2_only)
    (work / "docs" / "katex" / "init.js").write_text(KATEX_INIT, encoding="utf-8")
    (work / "overrides").mkdir()
    # mkdocs-jupyter's custom_template (mkdocs.yml), as the notebook hook was kept before it
    (work / "overrides" / "notebook.html").symlink_to(ROOT / "overrides" / "notebook.html")

    class Plain(yaml.SafeLoader):  # reads the lists taken here; the tags (!relative, !!python/name) are left
        pass

    Plain.add_multi_constructor("!", lambda loader, suffix, node: None)
    Plain.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    ours = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Plain)  # noqa: S506
    # the site's one stylesheet without its part for build-time math (Temml's MathML and the math font):
    # the stock build's formulas are KaTeX's, and that part would style KaTeX's hidden MathML in the font
    sheet = work / "docs" / "stylesheets" / "extra.css"
    css = sheet.read_text(encoding="utf-8")
    start, end = css.index(MATH_PART), css.index(PART_MARK, css.index(MATH_PART) + len(MATH_PART))
    sheet.write_text(css[:start] + css[end:], encoding="utf-8")
    own_css = [f"stylesheets/{p.name}" for p in (ROOT / "docs" / "stylesheets").glob("*.css")]
    stock = {
        "INHERIT": str(ROOT / "mkdocs.yml"),
        "theme": {"name": "material", "custom_dir": "overrides"},
        # merged by name into ours (MkDocs' INHERIT): the site's extension, without its math
        "markdown_extensions": [{"mgsite.extension": {"typeset_math": False}}],
        # the site's own stylesheet on every page, but for its math part (above)
        "extra_css": [
            "katex/katex.min.css",
            *ours.get("extra_css", []),
            *sorted(set(own_css) - set(ours["extra_css"])),
        ],
        "extra_javascript": [
            "katex/katex.min.js",
            "katex/contrib/auto-render.min.js",
            "katex/init.js",
            *ours.get("extra_javascript", []),
        ],
    }
    (work / "mkdocs.yml").write_text(yaml.safe_dump(stock), encoding="utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(out / "site")]
    done = subprocess.run(mkdocs, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the stock build failed: {done.stderr.strip()[-800:]}")
    return out / "site"


def slowdown_for(benchmark_index: float) -> float:
    """Lighthouse's CPU slowdown for a machine of this BenchmarkIndex (its calibration table)."""
    if benchmark_index >= 1300:
        return 3 + (benchmark_index - 1300) / 233
    if benchmark_index >= 800:
        return 2 + (benchmark_index - 800) / 500
    return 1 + max(benchmark_index - 150, 0) / 650


def lighthouse(
    url: str, cpu_slowdown: float | None = None, categories: tuple[str, ...] = CATEGORIES, paint_holding: bool = False
) -> tuple[dict, dict]:
    """One Lighthouse load of `url`, scored twice: with `cpu_slowdown`, or without it the slowdown for
    the BenchmarkIndex this run measured; and with Lighthouse's default 4x. Chromium's paint holding is
    off unless `paint_holding` (see the module's docstring)."""
    env = {**os.environ, "CHROME_PATH": CHROME}
    only = f"--only-categories={','.join(categories)}"
    flags = CHROME_FLAGS if paint_holding else f"{CHROME_FLAGS} {NO_PAINT_HOLDING}"
    common = ["--quiet", f"--chrome-flags={flags}", only]

    def run(args: list[str]) -> str:
        # the URL, when there is one, comes first: an array option such as --only-categories would take it
        cmd = ["node", str(LIGHTHOUSE), *args, *common]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"lighthouse failed on {url}: {done.stderr.strip()[-500:]}")
        return done.stdout

    with tempfile.TemporaryDirectory(prefix="bench-site-") as saved:
        run([url, f"-G={saved}"])
        artifacts_file = Path(saved) / "artifacts.json"
        artifacts = json.loads(artifacts_file.read_text(encoding="utf-8"))

        def scored(cpu: float) -> dict:
            # scoring refuses settings that differ from the saved ones; the slowdown played no part in
            # the load (simulated throttling loads at full speed), so the saved settings get the new one
            artifacts["settings"]["throttling"]["cpuSlowdownMultiplier"] = cpu
            artifacts_file.write_text(json.dumps(artifacts), encoding="utf-8")
            args = [f"-A={saved}", f"--throttling.cpuSlowdownMultiplier={cpu}", "--output=json", "--output-path=stdout"]
            out = run(args)
            if not out.startswith("{"):
                raise RuntimeError(f"lighthouse gave no report for {url}")
            return json.loads(out)

        cpu = round(cpu_slowdown or slowdown_for(artifacts["BenchmarkIndex"]), 2)
        report = scored(cpu)
        return report, report if cpu == LIGHTHOUSE_SLOWDOWN else scored(LIGHTHOUSE_SLOWDOWN)


def score(report: dict, category: str = "performance") -> int:
    """A category's score out of 100, as Lighthouse shows it."""
    return round(report["categories"][category]["score"] * 100)


def shortfalls(report: dict) -> list[str]:
    """The audits that cost a category points, for every category below its goal."""
    out = []
    for cat in CATEGORIES:
        if score(report, cat) >= GOAL[cat]:
            continue
        for ref in report["categories"][cat]["auditRefs"]:
            a = report["audits"][ref["id"]]
            if ref["weight"] > 0 and a["score"] is not None and a["score"] < 1:
                value = a.get("displayValue", "")
                out.append(f"{cat}: {ref['id']} score {a['score']:.2f} {value}".rstrip())
    return out


def held_first_frame(report: dict) -> bool:
    """Did this run's first paint come more than HELD_MS after its load event? A page that has loaded
    and then shows nothing for that long was ready and not drawn."""
    observed = report["audits"]["metrics"]["details"]["items"][0]
    return observed["observedFirstContentfulPaint"] - observed["observedLoad"] > HELD_MS


def median_run(reports: list[dict]) -> dict:
    """The run with the median performance score (the lower middle one of an even number)."""
    ranked = sorted(reports, key=lambda r: r["categories"]["performance"]["score"])
    return ranked[(len(ranked) - 1) // 2]


def take_option(args: list[str], name: str, kind: type, example: str) -> float | int | None:
    """Remove `name VALUE` from args and return VALUE as `kind` (None if absent); exit 2 on a bad value."""
    if name not in args:
        return None
    k = args.index(name)
    try:
        value = kind(args[k + 1])
        if value <= 0:
            raise ValueError
    except (IndexError, ValueError):
        print(f"bench_site: error: {name} needs a positive number, e.g. {name} {example}", file=sys.stderr)
        raise SystemExit(2) from None
    del args[k : k + 2]
    return value


def spread(paths: list[str], n: int | None) -> list[str]:
    """n of the paths, spread evenly from the first to the last (all of them without n)."""
    if not n or n >= len(paths):
        return paths
    return [paths[round(k * (len(paths) - 1) / max(n - 1, 1))] for k in range(n)]


def metrics(r: dict) -> tuple[float, float, float]:
    """(Performance, TBT in ms, LCP in s) of one report."""
    a = r["audits"]
    return score(r), a["total-blocking-time"]["numericValue"], a["largest-contentful-paint"]["numericValue"] / 1000


def row(label: str, reports: list[dict], at_4x: list[dict]) -> tuple[str, list[str]]:
    """The table row of one page in one build (its median run), and what kept it below the goals."""
    r = median_run(reports)
    s = [score(r, c) for c in CATEGORIES]
    a = r["audits"]
    fcp, lcp = (a[k]["numericValue"] / 1000 for k in ("first-contentful-paint", "largest-contentful-paint"))
    tbt, cls = a["total-blocking-time"]["numericValue"], a["cumulative-layout-shift"]["numericValue"]
    kb = a["total-byte-weight"]["numericValue"] / 1024
    bi = r["environment"]["benchmarkIndex"]
    slowdown = r["configSettings"]["throttling"]["cpuSlowdownMultiplier"]
    scores = " ".join(f"{x:>4}" for x in s)
    each = ",".join(str(score(x)) for x in reports)
    timing = f"{fcp:>4.1f}s {lcp:>4.1f}s {tbt:>3.0f}ms {cls:>5.3f}"
    held = sum(held_first_frame(x) for x in reports)
    perf_4x = score(median_run(at_4x))
    each_4x = ",".join(str(score(x)) for x in at_4x)
    at = f"{kb:>6.0f} {bi:>5.0f} {slowdown:>4.2f}x {held:>4}"
    return f"{label:<40} {scores}  {timing} {at}  {each:<11} {perf_4x:>3}  {each_4x}", shortfalls(r)


def main(argv: list[str]) -> int:
    args = argv[1:]
    cpu = take_option(args, "--cpu-slowdown", float, "4")
    runs = int(take_option(args, "--runs", int, "3") or 3)
    n_pages = int(take_option(args, "--pages", int, "7") or 0)
    paint_holding = "--paint-holding" in args
    with_stock = "--no-stock" not in args
    args = [a for a in args if a not in ("--paint-holding", "--no-stock")]
    unknown = [a for a in args if a.startswith("-")]
    if unknown:
        print(f"bench_site: error: unknown option {unknown[0]} (see the top of {Path(__file__).name})", file=sys.stderr)
        return 2
    site = Path(args[0] if args else ROOT / "site").resolve()
    if not (site / "index.html").is_file():
        print(f"bench_site: error: no built site at {site}; run `make build` first", file=sys.stderr)
        return 2
    if not LIGHTHOUSE.is_file():
        print("bench_site: error: no benchmarks/node_modules/lighthouse; run `make bench-site`", file=sys.stderr)
        return 2
    if not Path(CHROME).exists():
        print(f"bench_site: error: no Chromium at {CHROME}; install it or set CHROME_PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-stock-") as tmp:
        builds = {"site": site}
        if with_stock:
            print("building the stock variant of the same pages ...", flush=True)
            builds["stock"] = build_stock(Path(tmp))
        return measure(builds, spread(pages(site), n_pages), runs, cpu, paint_holding)


def measure(builds: dict[str, Path], paths: list[str], runs: int, cpu: float | None, paint_holding: bool) -> int:
    servers = {name: serve(path) for name, path in builds.items()}
    if cpu is None:
        print("CPU slowdown: for each run, from the BenchmarkIndex it measured (Lighthouse's 4x assumes about 1500)")
    else:
        print(f"CPU slowdown {cpu:.2f}x, as given")
    print("Chromium's paint holding: " + ("on (its default)" if paint_holding else f"off ({NO_PAINT_HOLDING})"))
    cols = ("Perf", "A11y", "BP", "SEO")
    metric_cols = f"  {'FCP':>5} {'LCP':>5} {'TBT':>5} {'CLS':>5} {'KB':>6} {'BI':>5} {'CPU':>5} held  runs"
    head = f"{'page (build)':<40} " + " ".join(f"{c:>4}" for c in cols) + metric_cols + f"  {'4x':>3}  runs at 4x"
    print(head + "\n" + "-" * len(head), flush=True)
    notes: list[str] = []
    # (Performance, TBT, LCP) medians, per setting ("4x": Lighthouse's default; "calibrated"), build and page
    medians: dict[str, dict[str, dict[str, tuple[float, ...]]]] = {
        setting: {name: {} for name in builds} for setting in ("4x", "calibrated")
    }
    try:
        for path in paths:
            scored: dict[str, list[tuple[dict, dict]]] = {name: [] for name in builds}
            for _ in range(runs):  # interleaved: a busy minute weighs on both builds alike
                for name, (_, base) in servers.items():
                    scored[name].append(lighthouse(base + path, cpu, paint_holding=paint_holding))
            for name in builds:
                reports = [own for own, _ in scored[name]]
                line, page_notes = row(f"{path} ({name})", reports, [four for _, four in scored[name]])
                print(line, flush=True)
                for setting, k in (("calibrated", 0), ("4x", 1)):
                    med = [metrics(pair[k]) for pair in scored[name]]
                    medians[setting][name][path] = tuple(statistics.median(m[i] for m in med) for i in range(3))
                notes += [f"{path} ({name}): {n}" for n in page_notes] if name == "site" else []
    finally:
        for server, _ in servers.values():
            server.shutdown()
            server.server_close()
    print(
        f"\n(mobile: simulated slow 4G; each page run {runs} times, the row is the run with the median Performance,"
        " `runs` is every run's Performance; KB = bytes transferred, gzipped; BI = the run's BenchmarkIndex,"
        " CPU = the slowdown it was scored with; held = runs whose first frame was held, see the script's docstring;"
        " 4x = the median Performance of the same runs scored at Lighthouse's default 4x, `runs at 4x` every one)"
    )
    settings = (("4x", "Lighthouse's default mobile settings (4x)"), ("calibrated", "the calibrated slowdown"))
    for setting, what in settings:
        ratios(medians[setting], paths, what)
    print("\n".join(["below the goal (this site, median run):", *notes]) if notes else "every page meets the goal")
    return 0


def ratios(medians: dict[str, dict[str, tuple[float, ...]]], paths: list[str], what: str) -> None:
    """This site's medians beside the stock build's, at one setting: Performance, and TBT and LCP as ratios."""
    site = medians["site"]
    perf = f"site {statistics.median(m[0] for m in site.values()):.0f}"
    if "stock" not in medians:
        print(f"\nat {what}: median Performance over the pages: {perf}")
        return
    stock = medians["stock"]
    perf += f", stock {statistics.median(m[0] for m in stock.values()):.0f} (goal: site >= {GOAL['performance']})"
    print(f"\nat {what}: median Performance over the pages: {perf}")
    print(f"{'page':<34} {'Perf':>9} {'TBT ms (site/stock)':>26} {'LCP s (site/stock)':>24}")
    over = 0
    for path in paths:
        (p1, t1, l1), (p2, t2, l2) = site[path], stock[path]
        rt, rl = t1 / max(t2, 1), l1 / l2
        over += rt > 0.6 or rl > 1.0
        tbt, lcp = f"{t1:>6.0f}/{t2:<6.0f} {rt:>5.2f}x", f"{l1:>5.2f}/{l2:<5.2f} {rl:>5.2f}x"
        print(f"{path:<34} {p1:>4.0f}/{p2:<4.0f} {tbt} {'':>4} {lcp}")
    goal = "TBT at most 0.6x the stock's, LCP at most 1.0x"
    print(f"(medians of the runs; goal: {goal}; missed on {over} of {len(paths)} pages)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
