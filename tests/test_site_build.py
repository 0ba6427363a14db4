"""The strict build shows exactly the blocks the tests run, with the run metadata and the file's true lines.

The first tests read the real site (built once, `built_site`); the others build a throwaway copy of
the project with one deliberate mistake and check that the build fails, naming the page and line.
"""

import html
import json
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace

import mdblocks
import prose_numbers
import pytest
from sitecheck import ROOT, build, copy_project, require_docs_toolchain, site_page, site_url, wheel_hook

# with --dist loadgroup, this file's module-wide fixtures (a copy of the project, its builds; the
# notebook's run; the reader's virtualenv) are made once, on one worker
pytestmark = pytest.mark.xdist_group("test_site_build")

require_docs_toolchain()


DOCS = sorted(p for p in (ROOT / "docs").glob("*.md"))
# a code block, with the attributes the build gives it (a python block's data-mg-* are the runner's)
BLOCK = re.compile(r'<div class="language-(?P<lang>\w+) highlight"(?P<attrs>[^>]*)>')
GUTTER = re.compile(r'<a href="#__codelineno-\d+-(?P<n>\d+)">\s*(?P<shown>\d+)</a>')
LINE = re.compile(r'<span id="__span-\d+-(?P<n>\d+)">(?P<code>.*?)(?=<span id="__span-|</code>)', re.S)


def parsed(page):
    return mdblocks.parse(page.read_text(encoding="utf-8"), str(page), ROOT)


def test_every_python_block_carries_the_run_metadata(built_site):
    checked_outputs = 0
    for page in DOCS:
        md, shown = parsed(page), BLOCK.findall(site_page(built_site, page))
        want = []
        for fence in md.fences:
            if fence.run is not None:
                cont = ' data-mg-cont="cont"' if fence.cont else ""
                needs = f' data-mg-needs="{fence.needs}"' if fence.needs else ""
                want.append(("python", f' data-mg-run="{fence.run}"{cont}{needs}'))
            elif fence.expected_for is not None:
                want.append(("text", f' data-mg-expected="{fence.expected_for}"'))
            else:
                want.append((fence.info, ""))
        assert shown == want, page.name
        checked_outputs += sum(lang == "text" and "data-mg-expected" in attrs for lang, attrs in shown)
    assert checked_outputs > 0  # the pages show checked outputs, and each carries its block's number


def test_every_embed_shows_the_files_lines_with_their_numbers(built_site):
    checked = 0
    for page in DOCS:
        text = site_page(built_site, page)
        for fence in (f for f in parsed(page).blocks if f.embed):
            start = text.index(f'<span class="filename">{html.escape(fence.embed.title, quote=False)}</span>')
            block = text[start : text.index("</table>", start)]
            gutter = [(int(m["n"]), int(m["shown"])) for m in GUTTER.finditer(block)]
            assert gutter == [(n, n) for n in fence.embed.numbers], fence.embed.title
            file = (ROOT / fence.embed.file).read_text(encoding="utf-8").split("\n")
            code = [html.unescape(re.sub(r"<[^>]+>", "", m["code"])).rstrip("\n") for m in LINE.finditer(block)]
            assert code == fence.embed.lines, fence.embed.title
            assert textwrap.dedent("\n".join(file[n - 1] for n in fence.embed.numbers)) == "\n".join(code)
            checked += 1
    assert checked >= 10


def test_highlighted_steps_show_the_engines_own_lines(built_site):
    text = site_page(built_site, ROOT / "docs" / "backward-pass.md")
    highlighted = re.findall(r'<span id="__span-\d+-(\d+)"><a [^>]*></a><span class="hll">', text)
    engine = (ROOT / "microgpt" / "engine.py").read_text(encoding="utf-8").split("\n")
    assert [engine[int(n) - 1].strip() for n in highlighted][:2] == ["self.grad = 1", "for v in reversed(topo):"]


def test_every_exempt_number_is_listed_with_its_reason_on_its_page(built_site):
    listed = 0
    for page in DOCS:
        meta, problems = prose_numbers.front_matter(page.read_text(encoding="utf-8"), str(page))
        assert problems == []
        exempt = meta.get("unchecked_numbers") or {}
        if not exempt:
            continue
        text = html.unescape(site_page(built_site, page))  # a reason may hold quotes: compare as text
        assert "Numbers on this page that no block computes" in text, page.name
        for number, reason in exempt.items():
            assert f"<strong>{number}</strong>: {reason}" in text, (page.name, number)
            listed += 1
    assert listed > 0  # the check has something to look at


def test_the_hooks_are_not_pages_of_the_site(built_site):
    assert not list(built_site.glob("hooks/**/*.py")) and not (built_site / "hooks").exists()


KATEX = re.compile(r'<span class="katex">(?P<mathml><span class="katex-mathml">)?')
LINKS = re.compile(r'<link rel="(?:preload|stylesheet)" href="(?P<href>[^"]*(?:katex|math)[^"]*)"')


def test_every_formula_is_typeset_with_mathml_beside_it_for_screen_readers(built_site):
    pages = [p.read_text(encoding="utf-8") for p in sorted(built_site.rglob("index.html"))]
    formulas = [m for text in pages for m in KATEX.finditer(text)]
    assert len(formulas) > 500 and all(m["mathml"] for m in formulas)  # KaTeX's MathML first in each
    shown = sum(text.count('<span class="katex-html" aria-hidden="true">') for text in pages)
    assert shown == len(formulas)  # what the eye sees is hidden from screen readers, which read the MathML
    # no formula is left for a script to typeset: arithmatex's delimiters are all replaced
    assert [t for t in pages if re.search(r'class="arithmatex">\\[(\[]', t)] == []


def test_every_math_page_gets_katex_styles_and_fonts_from_the_site_and_no_other_page_does(built_site):
    with_math = 0
    for page in sorted(built_site.rglob("index.html")):
        text = page.read_text(encoding="utf-8")
        links = LINKS.findall(text[: text.index("</head>")])
        if 'class="katex"' in text:
            with_math += 1
            assert [Path(h).name for h in links][-2:] == ["katex.min.css", "math.css"], page
            assert all((page.parent / h).resolve().is_file() for h in links), page
        else:
            assert links == [], page
    assert with_math >= 10
    # every font the stylesheet names in woff2, the format every current browser takes first, is served
    css = built_site / "vendor" / "katex" / "katex.min.css"
    fonts = re.findall(r"url\((fonts/[^)]+\.woff2)\)", css.read_text(encoding="utf-8"))
    assert len(fonts) >= 20 and all((css.parent / f).is_file() for f in fonts)


def test_a_headings_formula_is_text_in_the_table_of_contents_and_the_id(built_site):
    text = site_page(built_site, ROOT / "docs" / "chain-rule.md")
    assert re.search(
        r'<a href="#by-hand-x2-yx2-z3y" class="md-nav__link">\s*<span class="md-ellipsis">\s*'
        r"By hand: x=2, y=x², z=3y",
        text,
    )


# ---------------------------------------------------------------------------- broken copies


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("project"))


def build_page(project, tmp_path, text: str):
    (project / "docs" / "mistake.md").write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    (project / "mkdocs.yml").write_text(config + "  - Mistake: mistake.md\n", encoding="utf-8")  # nav comes last
    try:
        return build(project, tmp_path / "site")
    finally:
        (project / "docs" / "mistake.md").unlink()
        (project / "mkdocs.yml").write_text(config, encoding="utf-8")


# One broken build for each kind of failure the hooks prove (a hook's error fails the strict build, with
# the page and line); the other mistakes of each kind are given to the same hook function, on a page
# in memory, without a whole build.
@pytest.mark.parametrize(
    ("text", "words"),
    [
        # the page reader (docs/hooks/mdblocks.py, through embed.py's on_page_markdown) refuses the page
        ("# M\n\n```Python\nraise SystemExit\n```\n", ["docs/mistake.md:3: fence language 'Python'"]),
        # code the reader sees that no fence declares: an indented block, and a block inside raw HTML
        # (counted by its <pre>: test_code_in_raw_html_is_refused_by_the_same_hook has it alone)
        (
            "# M\n\nText.\n\n    print('an indented code block')\n\n<div>\n<pre><code>print(1)</code></pre>\n</div>\n\n"
            "```python\nprint(1)\n```\n",
            ["the page shows 2 code blocks (1 python), the tests read 1 (1 python)"],
        ),
        # formulas KaTeX cannot typeset: each named, with the page and the TeX, by one build
        (
            "# M\n\nHalf of it: $\\frac{1}{$. Twice: $x^2^3$.\n",
            ["mistake.md: cannot typeset `\\frac{1}{`", "cannot typeset `x^2^3`"],
        ),
    ],
    ids=["page reader", "undeclared code", "math"],
)
def test_a_page_the_tests_would_read_otherwise_fails_the_build(project, tmp_path, text, words):
    result = build_page(project, tmp_path, text)
    assert result.returncode != 0 and all(w in result.stderr for w in words), result.stderr[-2000:]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('# M\n\n```python\n--8<-- "microgpt/engine.py:nope"\n```\n', "docs/mistake.md:3: embed of"),
        ('# M\n\n```text\n--8<-- "microgpt/engine.py:nope"\n```\n', "docs/mistake.md:4: snippet notation"),
    ],
)
def test_the_page_reader_hook_refuses_every_problem_of_the_page(tmp_path, text, words):
    import embed  # docs/hooks/embed.py: its on_page_markdown is what fails the build above
    from mkdocs.exceptions import PluginError

    (tmp_path / "mistake.md").write_text(text, encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="mistake.md", abs_src_path=str(tmp_path / "mistake.md")))
    with pytest.raises(PluginError, match=re.escape(words)):
        embed.on_page_markdown(text, page=page, config={"config_file_path": str(ROOT / "mkdocs.yml")}, files=None)


def test_code_in_raw_html_is_refused_by_the_same_hook(tmp_path):
    import embed
    import markdown
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError

    text = "# M\n\n<div>\n<pre><code>print(1)</code></pre>\n</div>\n\n```python\nprint(1)\n```\n"
    (tmp_path / "mistake.md").write_text(text, encoding="utf-8")
    file = SimpleNamespace(src_uri="mistake.md", abs_src_path=str(tmp_path / "mistake.md"))
    page = SimpleNamespace(file=file, meta={})
    config = load_config(str(ROOT / "mkdocs.yml"))
    converted = embed.on_page_markdown(text, page=page, config=config, files=None)
    html_text = markdown.Markdown(extensions=config.markdown_extensions, extension_configs=config.mdx_configs).convert(
        converted
    )
    with pytest.raises(PluginError, match="code in raw HTML"):
        embed.on_page_content(html_text, page=page, config=config, files=None)


# A changed copy that builds: three lines added at the top of engine.py, a page that mentions an escaped
# snippet marker, and the install command's placeholder on the home page; built once for the three tests.
ESCAPED = "# M\n\nA section starts with `# ;--8<-- [start:seed]`, and this line stays.\n"
PLACEHOLDER = "\n```console\n{{ install_command }}\n```\n\nInline: `{{install_command}}`.\n"


@pytest.fixture(scope="module")
def changed_site(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("changed") / "project")
    engine = project / "microgpt" / "engine.py"
    engine.write_text("# added\n" * 3 + engine.read_text(encoding="utf-8"), encoding="utf-8")
    index = project / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + PLACEHOLDER, encoding="utf-8")
    site = project.parent / "site"
    result = build_page(project, project.parent, ESCAPED)
    assert result.returncode == 0, result.stderr[-2000:]
    assert not (project / "build").exists() and not list(project.glob("*.egg-info"))  # the tree stays clean
    return site


def test_prose_that_mentions_an_escaped_snippet_marker_keeps_its_line(changed_site):
    text = (changed_site / "mistake" / "index.html").read_text(encoding="utf-8")
    assert "A section starts with <code># --8&lt;-- [start:seed]</code>, and this line stays." in text


def test_numbers_follow_lines_added_to_the_file(changed_site, built_site):
    """Three lines added at the top of engine.py: every embed of it moves down by three."""
    page = ROOT / "docs" / "backward-pass.md"
    before = [int(n) for n, _ in GUTTER.findall(site_page(built_site, page))]
    after = [int(n) for n, _ in GUTTER.findall(site_page(changed_site, page, root=ROOT))]
    assert after == [n + 3 for n in before] and len(before) > 20


def test_the_placeholder_becomes_the_install_command(changed_site):
    wheel = json.loads((changed_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    html = (changed_site / "index.html").read_text(encoding="utf-8")
    command = wheel_hook().install_command(site_url(), wheel)
    assert f"Inline: <code>{command}</code>." in html
    added_block = re.findall(r"<pre\b.*?</pre>", html, re.S)[-1]  # the page's last code block
    assert re.sub(r"<[^>]+>", "", added_block).strip() == command
    assert "install_command" not in html


LINK_WITH_FRAGMENT = re.compile(r'<a\b[^>]*\bhref="(?P<path>[^"#:?]*)#(?P<fragment>[^"]+)"')
ELEMENT_ID = re.compile(r'\bid="([^"]+)"')


def test_every_link_to_a_place_on_a_page_finds_it(built_site):
    """A link to #x, on its own page or on another of the site, leads to an element with that id."""
    ids: dict[object, set[str]] = {}

    def ids_of(page):
        if page not in ids:
            ids[page] = set(ELEMENT_ID.findall(page.read_text(encoding="utf-8")))
        return ids[page]

    broken, checked = [], 0
    for page in sorted(built_site.rglob("*.html")):
        for m in LINK_WITH_FRAGMENT.finditer(page.read_text(encoding="utf-8")):
            target = (page.parent / html.unescape(m["path"])).resolve() if m["path"] else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or html.unescape(m["fragment"]) not in ids_of(target):
                broken.append(f"{page.relative_to(built_site)}: {m['path']}#{m['fragment']}")
            checked += 1
    assert checked > 100  # the pages link to their headings, the glossary and each other
    assert broken == [], "\n".join(broken)


# What docs/stylesheets/extra.css copies from the theme's CSS, to hide the closed menu and search box
# (and the header buttons that replace the theme's labels) exactly where and when the theme does:
# (a rule of the theme, the @media it sits in, the text extra.css writes to match). A theme upgrade
# that changes one of them fails here instead of silently breaking the phone header.
MIRRORED_FROM_THE_THEME = [
    (
        ".md-sidebar--primary{position:fixed;",
        "@media screen and (max-width:76.234375em)",
        "transition: transform 0.25s cubic-bezier(0.4, 0, 0.2, 1), box-shadow 0.25s, visibility 0s 0.25s;",
    ),
    (
        ".md-search__inner{position:fixed;",
        "@media screen and (max-width:59.984375em)",
        "transition: width 0s 0.3s, height 0s 0.3s, "
        "transform 0.15s cubic-bezier(0.4, 0, 0.2, 1) 0.15s, opacity 0.15s 0.15s,",
    ),
    (
        ".md-header__button[for=__search]{display:none}",
        "@media screen and (min-width:60em)",
        '@media screen and (min-width: 60em) { .md-header__button[data-for="__search"] { display: none; } }',
    ),
    (
        ".md-header__button[for=__drawer]{display:none}",
        "@media screen and (min-width:76.25em)",
        '@media screen and (min-width: 76.25em) { .md-header__button[data-for="__drawer"] { display: none; } }',
    ),
]


def _compact(css: str) -> str:
    """CSS as the theme's minifier writes it: no spaces around punctuation, no leading zeros."""
    css = re.sub(r"\s*([{}:;,()])\s*", r"\1", css)
    return re.sub(r"(?<![\d.])0(\.\d)", r"\1", css)


@pytest.mark.parametrize(("rule", "media", "ours"), MIRRORED_FROM_THE_THEME, ids=lambda x: x[:30])
def test_what_extra_css_copies_from_the_theme_is_still_the_themes(built_site, rule, media, ours):
    theme = next((built_site / "assets" / "stylesheets").glob("main.*.min.css")).read_text(encoding="utf-8")
    extra = (ROOT / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert ours in extra
    at = theme.index(rule)
    assert theme.rfind("@media", 0, at) == theme.rfind(media, 0, at), f"{rule} is no longer in {media}"
    if "transition" in ours:  # the theme's own transitions, then visibility's
        theirs = re.search(r"transition:([^;}]*)", theme[at:]).group(1)
        assert _compact(ours).startswith(_compact(f"transition: {theirs},")), theirs
    else:
        assert _compact(media) in _compact(ours)
