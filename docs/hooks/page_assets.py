"""Give each page only the stylesheets and scripts it uses (the table is `extra.page_assets` in mkdocs.yml).

An entry applies to a page when its `when` text occurs in the page's rendered article (no `when`:
every page). Its `css` files are inlined into <head>, so no stylesheet but the theme's blocks the
first paint, and its `js` (classic) and `module` (ES module) scripts are added at the end of <body>.
Every script runs deferred, the theme's own bundle included: a classic script at the end of <body>
still stops the parser, so the browser could not paint the page until the script had been fetched
and run (about a second on a phone on slow 4G, as Lighthouse measures it). Deferred scripts still
run in document order (the theme's first) once the page is parsed, which is when they ran before.
Paths are site paths, as in extra_css: files of docs/ or the vendored ones (docs/hooks/vendor.py).
Relative `url(...)`s in an inlined stylesheet are rewritten to point from the page to the file,
and font fallbacks older than woff2 are dropped (only woff2 files are published).

Run it after every hook that changes a page's HTML (in mkdocs.yml it is listed last).
"""

from __future__ import annotations

import posixpath
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.utils import get_relative_url

THEME_BUNDLE = re.compile(r'<script src="(?P<src>[^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*)</article>', re.S)
CSS_URL = re.compile(r"""url\((?P<q>["']?)(?P<url>[^)"']+)(?P=q)\)""")
OLD_FONT = re.compile(r""",\s*url\([^)]*\.(?:woff|ttf|otf|eot)\)\s*format\(["'][\w-]+["']\)""")

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


def on_post_page(output: str, page, config) -> str:
    m = ARTICLE.search(output)
    css, scripts = assets_for(m[1] if m else "", config.extra.get("page_assets", []))
    styles = "".join(inline_css(p, page.url) for p in css)
    how = {"module": 'type="module"', "text/javascript": "defer"}  # a module is deferred by nature
    tags = "".join(f'<script src="{get_relative_url(p, page.url)}" {how[kind]}></script>' for p, kind in scripts)
    head, sep, rest = output.partition("</head>")
    output = head + styles + sep + rest
    output, bundles = THEME_BUNDLE.subn(r'<script src="\g<src>" defer></script>', output)
    if bundles != 1:
        raise PluginError(f"{page.file.src_uri}: expected the theme's script bundle once, found it {bundles} times")
    before, sep, end = output.rpartition("</body>")
    return before + tags + sep + end
