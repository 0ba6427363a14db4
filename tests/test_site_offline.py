"""The built site requests nothing from outside itself (outbound <a href> links are fine)."""

import re

EXTERNAL = r"""(?:https?:)?//"""
HTML_LOADS = [
    re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']?(?P<url>" + EXTERNAL + r"[^\"'\s>]+)", re.I),
    re.compile(
        r"<(?:img|iframe|frame|embed|source|video|audio|track|input)\b[^>]*\b(?:src|srcset|poster)\s*=\s*"
        r"[\"']?(?P<url>" + EXTERNAL + r"[^\"'\s>]+)",
        re.I,
    ),
    re.compile(r"<object\b[^>]*\bdata\s*=\s*[\"']?(?P<url>" + EXTERNAL + r"[^\"'\s>]+)", re.I),
]
LINK_TAG = re.compile(r"<link\b[^>]*>", re.I)
LINK_LOADS = re.compile(
    r"\brel\s*=\s*[\"']?[^\"'>]*\b(stylesheet|icon|preload|prefetch|modulepreload|manifest|"
    r"preconnect|dns-prefetch|apple-touch-icon)\b",
    re.I,
)
CSS_LOADS = [
    re.compile(r"@import\s+(?:url\()?\s*[\"']?(?P<url>" + EXTERNAL + r"[^\"')\s;]+)", re.I),
    re.compile(r"url\(\s*[\"']?(?P<url>" + EXTERNAL + r"[^\"')\s]+)", re.I),
]
JS_LOADS = [
    re.compile(r"""\b(?:importScripts|import)\(\s*["'`](?P<url>""" + EXTERNAL + r"""[^"'`]+)"""),
    re.compile(r"""\.src\s*=\s*["'`](?P<url>""" + EXTERNAL + r"""[^"'`]+)"""),
    re.compile(r"""url\(\s*["']?(?P<url>""" + EXTERNAL + r"""[^"')\s]+)"""),
]
EMPTY_SCRIPT = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*(""|'')""", re.I)


def external_loads(site):
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in {".html", ".css", ".js"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(site)
        patterns = (
            list(CSS_LOADS)
            + (HTML_LOADS if path.suffix == ".html" else [])
            + (JS_LOADS if path.suffix == ".js" else [])
        )
        for pattern in patterns:
            urls = [f"{rel}: {m.group('url')}" for m in pattern.finditer(text)]
            found += [url for url in urls if url not in found]
        if path.suffix == ".html":
            for tag in LINK_TAG.findall(text):
                href = re.search(r"\bhref\s*=\s*[\"']?([^\"'\s>]+)", tag, re.I)
                if href and LINK_LOADS.search(tag) and re.match(EXTERNAL, href.group(1)):
                    found.append(f"{rel}: {tag}")
            found += [f"{rel}: an empty <script src> (loads the page itself)" for _ in EMPTY_SCRIPT.finditer(text)]
    return found


def test_site_loads_nothing_from_outside(built_site):
    assert (built_site / "vendor" / "katex" / "katex.min.js").exists()
    found = external_loads(built_site)
    assert not found, "\n".join(found)


def test_katex_fonts_are_served_by_the_site(built_site):
    css = (built_site / "vendor" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    fonts = set(re.findall(r"url\(([^)]+)\)", css))
    assert fonts and all((built_site / "vendor" / "katex" / f).exists() for f in fonts)


def test_the_scan_sees_external_loads(tmp_path):
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.example/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.example/css">'
        '<a href="https://example.org">fine</a><script src=""></script>'
    )
    css = '@import url("https://fonts.example/f.css"); .x{background:url(//img.example/i.png)}'
    (tmp_path / "b.css").write_text(css)
    found = external_loads(tmp_path)
    assert len(found) == 5, found
