"""This site against a stock Material build of the same pages, page by page, in Lighthouse (mobile).

    python benchmarks/bench_site.py [SITE_DIR] [--rounds N] [--pages N] [--page PATH ...]
                                    [--no-paint-holding] [--no-stock]            (make bench-site)

What is compared. The stock build (`build_stock`) is what the same pages would be on Material as it
comes: the same Markdown, made by the site's own extension (embeds, the widgets' HTML), with the math
left as TeX for KaTeX's auto-render (from benchmarks/node_modules, through document$, as Material's
documentation shows), and no stylesheet, script or template override of ours. This site is measured
against it: what a reader gains or loses by the site's own typesetting, styles and scripts.

How. Both builds are served on 127.0.0.1 behind a small HTTP server that gzips text as a real host
does (Python's http.server sends no compression, and Lighthouse would then charge every page for bytes
no reader downloads), and every page is loaded by Lighthouse (benchmarks/node_modules) at its default
mobile settings: a phone on simulated slow 4G, the CPU slowed down 4x, Chromium as it comes (paint
holding on, as PageSpeed Insights runs it; --no-paint-holding turns it off).

Rounds and pairs. One Lighthouse run is one sample of a noisy measurement: on a shared 2-core machine
the same page can score 86 and 98 a minute apart. So the bench goes over every page --rounds times
(default 5), and in each round loads each page in both builds one right after the other (which goes
first alternates from round to round). The two runs of a page in one round are a pair: a busy moment
falls on both, and their ratio (this site's figure over the stock build's) is what is reported, per
page: the median of the rounds' ratios and their range, for LCP, FCP, TBT and the Performance score.
Beside them: each page's median figures in both builds, the machine's load (1-minute load average,
os.getloadavg, at the start of each run) and Lighthouse's BenchmarkIndex (its own CPU benchmark, about
1500 on the desktop its 4x assumes), median and range over the page's runs. Where the ranges are wide
enough to hide an answer, run more rounds (`make bench-site BENCH_SITE_ARGS="--rounds 9"`).

Held first frames. Headless Chromium sometimes draws a page's first frame a whole second or two after
the page was ready to paint (github.com/GoogleChrome/lighthouse/issues/17148, open), and Lighthouse
then reports that late frame as the first paint. The `held` column counts the runs whose first paint
came more than half a second after their load event, in each build.

Targets (issue 51): on every page LCP and FCP at most 1.0x the stock build's and Performance at least
the stock's (median of the page's pairs), and TBT at most 0.6x at the median over all pairs.

Needs Lighthouse and KaTeX (benchmarks/package.json; `make bench-site` fetches them) and Chromium at
/usr/bin/chromium (or CHROME_PATH). A figure, not a test.
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "benchmarks" / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-sync --no-first-run"
NO_PAINT_HOLDING = "--disable-features=PaintHolding"  # see "Held first frames" above
HELD_MS = 500  # a held frame comes 0.7 s to 2 s late; a page's own slowness shows before its load event
CATEGORIES = ("performance", "accessibility")
COMPRESSIBLE = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".py", ".map", ".wasm"}
# what GitHub Pages sends; a host's cache policy is not what this measures, but leaving it out
# would make Lighthouse's cache audit describe a server no reader uses
CACHE_CONTROL = "max-age=600"
# (name, Lighthouse audit, how it is printed) of each figure compared
FIGURES = (
    ("LCP", "largest-contentful-paint", "{:.2f}s", 1000),
    ("FCP", "first-contentful-paint", "{:.2f}s", 1000),
    ("TBT", "total-blocking-time", "{:.0f}ms", 1),
)
TARGETS = {"LCP": 1.0, "FCP": 1.0, "TBT": 0.6, "Perf": 1.0}  # Perf: at least; the others: at most


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


def build_stock(out: Path) -> Path:
    """Build the stock variant of the site into out/site (see "What is compared" above); its directory."""
    work = out / "project"
    work.mkdir(parents=True)
    for name in ("microgpt", "pyproject.toml", "README.md", "LICENSE", "node_modules", ".mgsite"):
        (work / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "docs", work / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    katex = ROOT / "benchmarks" / "node_modules" / "katex" / "dist"  # benchmarks/package.json
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js"):
        (work / "docs" / "katex" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(katex / name, work / "docs" / "katex" / name)
    woff2_only = shutil.ignore_patterns("*.woff", "*.ttf")
    shutil.copytree(katex / "fonts", work / "docs" / "katex" / "fonts", ignore=woff2_only)
    (work / "docs" / "katex" / "init.js").write_text(KATEX_INIT, encoding="utf-8")
    # the notebook's template only (mkdocs-jupyter's custom_template must exist), none of the theme's
    (work / "overrides").mkdir()
    (work / "overrides" / "notebook.html").symlink_to(ROOT / "overrides" / "notebook.html")
    stock = {
        "INHERIT": str(ROOT / "mkdocs.yml"),
        "theme": {"name": "material", "custom_dir": "overrides"},
        # merged by name into ours (MkDocs' INHERIT): the site's extension, without its math
        "markdown_extensions": [{"mgsite.extension": {"typeset_math": False}}],
        # lists replace ours: KaTeX's stylesheet and scripts, nothing of the site's
        "extra_css": ["katex/katex.min.css"],
        "extra_javascript": ["katex/katex.min.js", "katex/contrib/auto-render.min.js", "katex/init.js"],
    }
    (work / "mkdocs.yml").write_text(json.dumps(stock), encoding="utf-8")  # JSON is YAML
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(out / "site")]
    done = subprocess.run(mkdocs, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"the stock build failed: {done.stderr.strip()[-800:]}")
    return out / "site"


@dataclass
class Run:
    """One Lighthouse run of one page in one build."""

    figures: dict[str, float]  # LCP, FCP (s), TBT (ms), Perf and A11y (0-100), CLS
    benchmark_index: float
    load: float  # the 1-minute load average as the run started
    held: bool  # its first frame came more than HELD_MS after its load event


def lighthouse(url: str, paint_holding: bool) -> Run:
    """One Lighthouse run of `url` at its default mobile settings."""
    env = {**os.environ, "CHROME_PATH": CHROME}
    flags = CHROME_FLAGS if paint_holding else f"{CHROME_FLAGS} {NO_PAINT_HOLDING}"
    # the URL first: an array option such as --only-categories would take it
    cmd = ["node", str(LIGHTHOUSE), url, "--quiet", f"--chrome-flags={flags}", "--output=json", "--output-path=stdout"]
    cmd.append(f"--only-categories={','.join(CATEGORIES)}")
    load = os.getloadavg()[0]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not done.stdout.startswith("{"):
        raise RuntimeError(f"lighthouse failed on {url}: {done.stderr.strip()[-500:]}")
    report = json.loads(done.stdout)
    audits = report["audits"]
    figures = {name: audits[audit]["numericValue"] / scale for name, audit, _, scale in FIGURES}
    figures["Perf"] = round(report["categories"]["performance"]["score"] * 100)
    figures["A11y"] = round(report["categories"]["accessibility"]["score"] * 100)
    figures["CLS"] = audits["cumulative-layout-shift"]["numericValue"]
    observed = audits["metrics"]["details"]["items"][0]
    held = observed["observedFirstContentfulPaint"] - observed["observedLoad"] > HELD_MS
    return Run(figures, report["environment"]["benchmarkIndex"], load, held)


def spread(paths: list[str], n: int | None) -> list[str]:
    """n of the paths, spread evenly from the first to the last (all of them without n)."""
    if not n or n >= len(paths):
        return paths
    return [paths[round(k * (len(paths) - 1) / max(n - 1, 1))] for k in range(n)]


def take_option(args: list[str], name: str) -> list[str]:
    """Remove every `name VALUE` from args; the values."""
    values = []
    while name in args:
        k = args.index(name)
        if k + 1 >= len(args):
            print(f"bench_site: error: {name} needs a value", file=sys.stderr)
            raise SystemExit(2)
        values.append(args[k + 1])
        del args[k : k + 2]
    return values


def positive(values: list[str], name: str) -> int | None:
    if not values:
        return None
    try:
        value = int(values[-1])
        if value <= 0:
            raise ValueError
    except ValueError:
        print(f"bench_site: error: {name} needs a positive whole number, e.g. {name} 5", file=sys.stderr)
        raise SystemExit(2) from None
    return value


def main(argv: list[str]) -> int:
    args = argv[1:]
    rounds = positive(take_option(args, "--rounds"), "--rounds") or 5
    n_pages = positive(take_option(args, "--pages"), "--pages")
    chosen = take_option(args, "--page")
    paint_holding = "--no-paint-holding" not in args
    with_stock = "--no-stock" not in args
    args = [a for a in args if a not in ("--no-paint-holding", "--no-stock")]
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
    paths = spread(pages(site), n_pages)
    if chosen:
        missing = [p for p in chosen if p not in pages(site)]
        if missing:
            print(f"bench_site: error: no page {missing[0]} in {site}", file=sys.stderr)
            return 2
        paths = chosen
    with tempfile.TemporaryDirectory(prefix="bench-stock-") as tmp:
        builds = {"site": site}
        if with_stock:
            print("building the stock variant of the same pages ...", flush=True)
            builds["stock"] = build_stock(Path(tmp))
        runs = measure(builds, paths, rounds, paint_holding)
    report(runs, paths, rounds, paint_holding)
    return 0


def measure(builds: dict[str, Path], paths: list[str], rounds: int, paint_holding: bool) -> dict:
    """Every page in every build, `rounds` times; {(build, page): [Run, one a round]}."""
    servers = {name: serve(path) for name, path in builds.items()}
    runs: dict[tuple[str, str], list[Run]] = {(name, path): [] for name in builds for path in paths}
    try:
        for k in range(rounds):
            order = list(builds) if k % 2 == 0 else list(reversed(builds))  # who goes first alternates
            for path in paths:
                for name in order:
                    run = lighthouse(servers[name][1] + path, paint_holding)
                    runs[(name, path)].append(run)
                    f = run.figures
                    print(
                        f"round {k + 1}/{rounds} {path:<34} {name:<5} LCP {f['LCP']:.2f}s FCP {f['FCP']:.2f}s "
                        f"TBT {f['TBT']:>4.0f}ms Perf {f['Perf']:>3.0f} load {run.load:4.1f} "
                        f"BI {run.benchmark_index:>5.0f}{' held' if run.held else ''}",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        for server, _ in servers.values():
            server.shutdown()
            server.server_close()
    return runs


def span(values: list[float], fmt: str) -> str:
    """median (min-max)"""
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def report(runs: dict, paths: list[str], rounds: int, paint_holding: bool) -> None:
    holding = "on (Chromium's default)" if paint_holding else f"off ({NO_PAINT_HOLDING})"
    print(f"\nLighthouse mobile defaults (simulated slow 4G, CPU 4x), paint holding {holding}; {rounds} rounds")
    builds = sorted({name for name, _ in runs}, key=["site", "stock"].index)
    every = [r for rs in runs.values() for r in rs]
    print(
        f"machine: load {span([r.load for r in every], '{:.1f}')}, "
        f"BenchmarkIndex {span([r.benchmark_index for r in every], '{:.0f}')} (median, min-max over every run)"
    )
    print("\nmedian figures per page and build (held: runs whose first frame was held)")
    print(f"{'page':<34} {'build':<6} {'LCP':>6} {'FCP':>6} {'TBT':>7} {'CLS':>6} {'Perf':>4} {'A11y':>4} held")
    for path in paths:
        for name in builds:
            rs = runs[(name, path)]
            med = {key: statistics.median(r.figures[key] for r in rs) for key in rs[0].figures}
            print(
                f"{path:<34} {name:<6} {med['LCP']:>5.2f}s {med['FCP']:>5.2f}s {med['TBT']:>5.0f}ms "
                f"{med['CLS']:>6.3f} {med['Perf']:>4.0f} {med['A11y']:>4.0f} {sum(r.held for r in rs):>4}"
            )
    if "stock" not in builds:
        return
    print(f"\npaired ratios, this site / stock, per page: median (min-max) of the {rounds} rounds' pairs")
    print(f"{'page':<34} {'LCP':>17} {'FCP':>17} {'TBT':>17} {'Perf':>17}   {'load':>15} {'BI':>16}")
    ratios: dict[str, dict[str, list[float]]] = {key: {} for key in TARGETS}
    for path in paths:
        pairs = list(zip(runs[("site", path)], runs[("stock", path)], strict=True))
        cells = []
        for key in TARGETS:
            # a TBT of 0 is a ratio of 0 (or 1, when both are 0); 1 ms keeps the division defined
            rs = [a.figures[key] / max(b.figures[key], 1e-3 if key != "TBT" else 1) for a, b in pairs]
            if key == "TBT":
                rs = [1.0 if a.figures[key] == b.figures[key] == 0 else r for r, (a, b) in zip(rs, pairs, strict=True)]
            ratios[key][path] = rs
            cells.append(f"{span(rs, '{:.2f}'):>17}")
        both = [r for pair in pairs for r in pair]
        load = span([r.load for r in both], "{:.1f}")
        bi = span([r.benchmark_index for r in both], "{:.0f}")
        print(f"{path:<34} {' '.join(cells)}   {load:>15} {bi:>16}")
    print("\ntargets (issue 51):")
    for key, goal in TARGETS.items():
        medians = {path: statistics.median(rs) for path, rs in ratios[key].items()}
        pooled = statistics.median(r for rs in ratios[key].values() for r in rs)
        if key == "Perf":
            missed = [p for p, m in medians.items() if m < goal]
            rule = f"at least the stock's ({goal:.1f}x) on every page"
        else:
            missed = [p for p, m in medians.items() if m > goal]
            rule = f"at most {goal:.1f}x on every page" if key != "TBT" else f"at most {goal:.1f}x at the median"
        met = pooled <= goal if key == "TBT" else not missed
        print(
            f"  {key:<4} {rule}: median over every pair {pooled:.2f}x; per page medians missed on "
            f"{len(missed)} of {len(medians)} {('(' + ', '.join(missed) + ')') if missed else ''}"
            f" -> {'met' if met else 'NOT met'}"
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv))
