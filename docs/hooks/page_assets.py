"""Give each page only the stylesheets and scripts it uses (the table is `extra.page_assets` in mkdocs.yml).

An entry applies to a page when its `when` text occurs in the page's rendered article (no `when`:
every page). Its `css` files are inlined into <head>, so no stylesheet but the theme's blocks the
first paint. Its `js` (classic) and `module` (ES module) scripts, and the theme's own bundle before
them, get no tags of their own: a small inline loader at the end of <body> (after_paint.js, beside
this file) adds them once the browser has painted the page's first text (why: that file).
The loader is the last element of <body>, and a <link rel="expect" blocking="render"> in <head> names
it: the browser paints the page first once it has parsed all of it (Chromium; other browsers ignore
the link). Why: a page here is long (up to 50 blocks and thousands of elements, most of them typeset math
and highlighted code). Painted as soon as its first screen was parsed, the browser then laid out the
rest in one long task just after the first paint, while a reader's first tap or scroll waited for it.
Now the page is laid out once, whole, before it is first shown, and the first paint comes that much
later. Measured on /backward-pass/ and /chain-rule/ (with the link naming the article's end, a few
elements before the loader): Lighthouse's median Total Blocking Time went from 430 and 440 ms to 230
and 240 ms (3 runs each, paint holding off, each run scored at the slowdown for its own
BenchmarkIndex, 2.0x to 4.4x); without throttling, the first paint came 300 to 710 ms after the
request instead of 120 to 400 ms.
Paths are site paths, as in extra_css: files of docs/ or the vendored ones (docs/hooks/vendor.py).
Relative `url(...)`s in an inlined stylesheet are rewritten to point from the page to the file,
and font fallbacks older than woff2 are dropped (only woff2 files are published).

Run it after every hook that changes a page's HTML (in mkdocs.yml it is listed last).
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.utils import get_relative_url

THEME_BUNDLE = re.compile(r'<script src="(?P<src>[^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*)</article>', re.S)
CSS_URL = re.compile(r"""url\((?P<q>["']?)(?P<url>[^)"']+)(?P=q)\)""")
OLD_FONT = re.compile(r""",\s*url\([^)]*\.(?:woff|ttf|otf|eot)\)\s*format\(["'][\w-]+["']\)""")
LOADER = Path(__file__).with_name("after_paint.js")
LOADER_ID = "mg-after-paint"
# render-blocking until the element is parsed: https://html.spec.whatwg.org/multipage/links.html#link-type-expect
FIRST_PAINT_WAITS = f'<link rel="expect" href="#{LOADER_ID}" blocking="render">'

_files: Files | None = None


def on_files(files: Files, config) -> Files:
    global _files
    _files = files
    return files


def _read(path: str) -> str:
    file = _files.get_file_from_path(path) if _files is not None else None
    if file is None:
        raise PluginError(f"extra.page_assets: no file {path!r} in the site (a path under docs/ or vendor/)")
    return file.content_string


def inline_css(path: str, page_url: str) -> str:
    """The stylesheet at site path `path`, with its relative urls made relative to the page at `page_url`."""

    def rebase(m: re.Match) -> str:
        url = m["url"]
        if re.match(r"^(?:[a-z]+:|/|#)", url):
            return m[0]
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), url))
        return f"url({get_relative_url(target, page_url)})"

    css = OLD_FONT.sub("", _read(path))
    css = CSS_URL.sub(rebase, css).replace("</style", "<\\/style")
    return f'<style data-asset="{path}">{css.strip()}</style>'


def assets_for(article: str, table: list[dict]) -> tuple[list[str], list[tuple[str, str]]]:
    """(stylesheets, [(script, type)]) of the entries that apply to a page, in table order, once each."""
    css: list[str] = []
    scripts: list[tuple[str, str]] = []
    for entry in table:
        unknown = set(entry) - {"when", "css", "js", "module"}
        if unknown:
            raise PluginError(f"extra.page_assets: unknown key(s) {sorted(unknown)} in {entry}")
        if entry.get("when") and entry["when"] not in article:
            continue
        css += [p for p in entry.get("css", []) if p not in css]
        for kind, key in (("text/javascript", "js"), ("module", "module")):
            scripts += [(p, kind) for p in entry.get(key, []) if (p, kind) not in scripts]
    return css, scripts


def loader_tag(theme_bundle: str, scripts: list[tuple[str, str]], page_url: str) -> str:
    """The inline <script> that loads the theme's bundle, then `scripts`, after the first paint."""
    lines = LOADER.read_text(encoding="utf-8").splitlines(keepends=True)
    # the file's opening comment (the why) stays in the repository; the page gets a pointer to it
    body = "".join(lines[next(k for k, line in enumerate(lines) if not line.startswith("//")) :])
    code = f"// loads this page's scripts after its first paint: docs/hooks/{LOADER.name}\n{body}"
    if "</script" in code.lower():
        raise PluginError(f"{LOADER.name} cannot be inlined: it contains '</script'")
    listed = [{"src": get_relative_url(p, page_url), "module": kind == "module"} for p, kind in scripts]
    data = html.escape(json.dumps(listed, separators=(",", ":")))
    theme = html.escape(theme_bundle)
    return f'<script id="{LOADER_ID}" data-theme="{theme}" data-scripts="{data}">\n{code}</script>'


def on_post_page(output: str, page, config) -> str:
    m = ARTICLE.search(output)
    css, scripts = assets_for(m[1] if m else "", config.extra.get("page_assets", []))
    styles = "".join(inline_css(p, page.url) for p in css)
    head, sep, rest = output.partition("</head>")
    output = head + styles + FIRST_PAINT_WAITS + sep + rest
    bundles = THEME_BUNDLE.findall(output)
    if len(bundles) != 1:
        found = f"found it {len(bundles)} times"
        raise PluginError(f"{page.file.src_uri}: expected the theme's script bundle once, {found}")
    output = THEME_BUNDLE.sub("", output)
    before, sep, end = output.rpartition("</body>")
    return before + loader_tag(bundles[0], scripts, page.url) + sep + end
