"""The built site requests nothing from outside itself, checked statically (no browser needed).

Every HTML page is parsed: an attribute that makes the browser load something (src, srcset and
imagesrcset candidates, <link href>, SVG href and xlink:href, <object data>, <form action>, poster,
background, ping, <base href>, <meta refresh>) must not point outside; inline <style>, style="…"
and every .css file must not url() or @import from outside; inline <script> and every .js file must
not fetch, import, importScripts, open a Worker, WebSocket, EventSource or beacon, or assign a
src/href, with an outside address. Outbound <a href> links are fine: following one is the reader's
choice.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

OUTSIDE = r"(?:(?:https?|wss?|ftp):)?//"  # an absolute or protocol-relative address
IS_OUTSIDE = re.compile(r"^\s*" + OUTSIDE, re.I)
LOADING_ATTRIBUTES = {"src", "data", "poster", "action", "formaction", "background", "ping", "manifest", "codebase"}
NOT_LOADING_RELS = {"canonical", "alternate", "author", "license", "help", "next", "prev", "me", "bookmark", "external"}
HREF_LOADS = {"link", "image", "use", "feimage", "script", "base", "tref", "mpath", "textpath", "cursor"}
CSS_LOADS = re.compile(
    r"""url\(\s*["']?(?P<url>""" + OUTSIDE + r""")|@import\s+["'](?P<url2>""" + OUTSIDE + ")",
    re.I,
)
JS_LOADS = re.compile(
    r"""\b(?:fetch|import|importScripts|Worker|SharedWorker|WebSocket|EventSource|sendBeacon|register|open|"""
    r"""Request|setAttribute\s*\(\s*["'`](?:src|href|srcset|data|action|poster|xlink:href)["'`]\s*,)\s*\(?\s*(?:[^()]*?,\s*)?["'`]"""
    + OUTSIDE
    + r"""|\bimport\b[^;()]*?\bfrom\s*["'`]"""
    + OUTSIDE
    + r"""|\bimport\s*["'`]"""
    + OUTSIDE
    + r"""|\.(?:src|href|srcset|data|action|backgroundImage)\s*=\s*["'`](?:url\()?"""
    + OUTSIDE
    + r"""|url\(\s*["']?"""
    + OUTSIDE,
    re.I,
)


class Loads(HTMLParser):
    """Collects, for one HTML page, what would be requested from outside."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.inline: str | None = None  # "script" or "style" while inside one without src

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): v or "" for k, v in attrs}
        urls = [a[k] for k in LOADING_ATTRIBUTES & a.keys()]
        urls += [c.strip().split(" ")[0] for k in ("srcset", "imagesrcset") for c in a.get(k, "").split(",")]
        if tag in HREF_LOADS and not (tag == "link" and set(a.get("rel", "").lower().split()) <= NOT_LOADING_RELS):
            urls += [a.get("href", ""), a.get("xlink:href", "")]
        if tag == "meta" and a.get("http-equiv", "").lower() == "refresh":
            urls.append(a.get("content", "").partition("url=")[2])
        self.found += [f"<{tag}> loads {u}" for u in urls if IS_OUTSIDE.match(u)]
        self.found += [f"<{tag} style> {m.group()}" for m in CSS_LOADS.finditer(a.get("style", ""))]
        if tag in ("script", "style") and "src" not in a:
            self.inline = tag

    def handle_endtag(self, tag):
        self.inline = None

    def handle_data(self, data):
        pattern = JS_LOADS if self.inline == "script" else CSS_LOADS if self.inline == "style" else None
        if pattern:
            self.found += [f"inline <{self.inline}>: {m.group()}" for m in pattern.finditer(data)]


def outside_loads(site: Path) -> list[str]:
    found = []
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site)
        if path.suffix == ".html":
            parser = Loads()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            found += [f"{rel}: {f}" for f in parser.found]
            if re.search(r"""<script\b[^>]*\bsrc\s*=\s*(""|'')""", path.read_text(errors="replace")):
                found.append(f"{rel}: an empty <script src> (loads the page itself)")
        elif path.suffix in (".css", ".js", ".mjs"):
            pattern = CSS_LOADS if path.suffix == ".css" else JS_LOADS
            found += [f"{rel}: {m.group()}" for m in pattern.finditer(path.read_text(errors="replace"))]
    return found


def test_site_loads_nothing_from_outside(built_site):
    assert (built_site / "index.html").exists()
    found = outside_loads(built_site)
    assert not found, "\n".join(found)


HTML_VECTORS = [
    '<script src="https://cdn.example/x.js"></script>',
    "<script>fetch('https://api.example/data')</script>",
    '<script>import("https://cdn.example/m.js")</script>',
    '<script type="module">import x from "https://cdn.example/m.js"</script>',
    '<script type="module">import "//cdn.example/side-effect.js"</script>',
    "<script>importScripts('https://cdn.example/w.js')</script>",
    "<script>new Worker('https://cdn.example/w.js')</script>",
    "<script>new WebSocket('wss://live.example/socket')</script>",
    "<script>new EventSource('https://live.example/events')</script>",
    "<script>navigator.sendBeacon('https://stats.example/b', data)</script>",
    "<script>xhr.open('GET', 'https://api.example/x')</script>",
    "<script>img.src = 'https://img.example/a.png'</script>",
    "<script>el.setAttribute('src', 'https://img.example/a.png')</script>",
    '<link rel="stylesheet" href="//fonts.example/css">',
    '<link rel="preload" as="font" href="https://fonts.example/f.woff2">',
    '<link rel="modulepreload" href="https://cdn.example/m.js">',
    '<link rel="icon" href="https://img.example/favicon.ico">',
    '<link rel="preload" as="image" href="a.png" imagesrcset="a.png 1x, https://img.example/b.png 2x">',
    '<img src="a.png" srcset="a.png 1x, https://img.example/b.png 2x">',
    '<picture><source srcset="https://img.example/b.webp"></picture>',
    '<svg><image href="https://img.example/a.png"/></svg>',
    '<svg><image xlink:href="https://img.example/a.png"/></svg>',
    '<svg><use href="https://img.example/sprite.svg#i"/></svg>',
    '<object data="https://img.example/a.svg"></object>',
    '<iframe src="https://video.example/embed"></iframe>',
    '<form action="https://forms.example/post"></form>',
    '<video poster="https://img.example/p.png"></video>',
    '<div style="background: url(https://img.example/a.png)"></div>',
    "<style>@import url('https://fonts.example/f.css');</style>",
    '<style>@import "https://fonts.example/f.css";</style>',
    "<style>.x { background-image: url(//img.example/a.png) }</style>",
    '<base href="https://elsewhere.example/">',
    '<meta http-equiv="refresh" content="0; url=https://elsewhere.example/">',
    '<a href="/" ping="https://stats.example/ping">home</a>',
    '<script src=""></script>',
]


def test_the_scan_catches_every_way_html_can_load_from_outside(tmp_path):
    for k, vector in enumerate(HTML_VECTORS):
        (tmp_path / f"{k}.html").write_text(f"<html><body>{vector}</body></html>", encoding="utf-8")
    found = outside_loads(tmp_path)
    missed = [v for k, v in enumerate(HTML_VECTORS) if not any(f.startswith(f"{k}.html:") for f in found)]
    assert not missed, "missed:\n" + "\n".join(missed)


def test_the_scan_catches_loads_in_our_css_and_js(tmp_path):
    (tmp_path / "a.css").write_text('@import "https://fonts.example/f.css";\n.x{background:url(//img.example/i.png)}')
    (tmp_path / "a.js").write_text(
        'const r = await fetch("https://api.example/x");\n'
        "const m = await import(`https://cdn.example/m.js`);\n"
        'import { y } from "https://cdn.example/y.js";\n'
        "new Worker('https://cdn.example/w.js');\n"
    )
    found = outside_loads(tmp_path)
    assert sum(f.startswith("a.css:") for f in found) == 2 and sum(f.startswith("a.js:") for f in found) == 4, found


def test_links_and_local_loads_are_fine(tmp_path):
    (tmp_path / "ok.html").write_text(
        '<a href="https://example.org">a link</a><img src="img/a.png" srcset="img/a.png 1x, img/b.png 2x">'
        '<svg xmlns="http://www.w3.org/2000/svg"><use href="#icon"/></svg>'
        "<script>fetch('dist/latest.json'); import('./m.js')</script><p>See https://example.org</p>"
    )
    assert outside_loads(tmp_path) == []
