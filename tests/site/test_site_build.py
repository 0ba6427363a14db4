"""The strict build shows exactly the blocks the tests run, with the run metadata and the file's true lines.

The first tests read the real site (built once, `built_site`); the others build a throwaway copy of
the project with one deliberate mistake and check that the build fails, naming the page and line.
"""

import html
import io
import json
import re
import textwrap
from urllib.parse import urlparse

import prose_numbers
import pytest
from mgsite import blocks as mdblocks
from sitecheck import ROOT, build, copy_project, require_docs_toolchain, site_page, site_url

# with --dist loadgroup, this file's module-wide fixtures (a copy of the project, its builds; the
# notebook's run; the reader's virtualenv) are made once, on one worker
pytestmark = pytest.mark.xdist_group("test_site_build")

require_docs_toolchain()

from fontTools.ttLib import TTFont  # noqa: E402
from mgsite import font as math_font  # noqa: E402  (without the docs toolchain this module has been skipped above)
from mgsite import formulas as typeset_math  # noqa: E402
from mgsite.wheel import install_command  # noqa: E402

DOCS = sorted(p for p in (ROOT / "docs").glob("*.md"))
# a code block (with pymdownx.highlight, an indented one too), and its language if it has one
CODE_BLOCK = re.compile(r'<div class="(?:language-([\w-]+) )?(?:no-copy )?highlight"')
# a code block, with the attributes the build gives it (a python block's data-mg-* are the runner's)
BLOCK = re.compile(r'<div class="language-(?P<lang>\w+) (?P<copy>no-copy )?highlight"(?P<attrs>[^>]*)>')
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
                # a block that continues others: the theme's copy button off, the Run bar's copies the chain
                copy, cont = ("no-copy ", ' data-mg-cont="cont"') if fence.cont else ("", "")
                needs = f' data-mg-needs="{fence.needs}"' if fence.needs else ""
                # an excerpt whose run only defines names says which
                defines = f' data-mg-defines="{fence.defines}"' if fence.defines else ""
                want.append(("python", copy, f' data-mg-run="{fence.run}"{cont}{needs}{defines}'))
            elif fence.expected_for is not None:
                want.append(("text", "", f' data-mg-expected="{fence.expected_for}"'))
            else:
                want.append((fence.info, "", ""))
        assert shown == want, page.name
        checked_outputs += sum(lang == "text" and "data-mg-expected" in attrs for lang, _, attrs in shown)
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


def test_highlighted_steps_show_the_engines_own_lines(tmp_path, monkeypatch):
    """A highlight is drawn on the file's own lines, counted in the file: a page rendered with the site's
    Markdown extensions (no page of the site highlights a line now)."""
    import markdown
    from mkdocs.config import load_config

    project = copy_project(tmp_path / "project")
    monkeypatch.chdir(project)
    config = load_config(str(project / "mkdocs.yml"))
    fences = [
        f'```python {{mg-highlight="{line}"}}\n--8<-- "microgpt/engine.py:Value.backward"\n```\n'
        for line in ("self.grad = 1", "for v in reversed(topo):")
    ]
    text = "# M\n\n" + "\n".join(fences)
    (project / "docs" / "highlight.md").write_text(text, encoding="utf-8")  # the page the extension is told it converts
    configs = {
        **config.mdx_configs,
        "mgsite.extension": {**config.mdx_configs["mgsite.extension"], "page": "highlight.md"},
    }
    md = markdown.Markdown(extensions=config.markdown_extensions, extension_configs=configs)
    html_text = md.convert(text)
    highlighted = re.findall(r'<span id="__span-\d+-(\d+)"><a [^>]*></a><span class="hll">', html_text)
    engine = (ROOT / "microgpt" / "engine.py").read_text(encoding="utf-8").split("\n")
    shown = [engine[int(n) - 1].strip() for n in highlighted]
    assert shown[0] == "self.grad = 1" and shown[1] == "for v in reversed(topo):", shown


def test_no_page_shows_its_exempt_numbers_or_their_reasons(built_site):
    exempt_pages = 0
    for page in DOCS:
        meta, problems = prose_numbers.front_matter(page.read_text(encoding="utf-8"), str(page))
        assert problems == []
        exempt = meta.get("unchecked_numbers") or {}
        if not exempt:
            continue
        exempt_pages += 1
        text = html.unescape(site_page(built_site, page))  # a reason may hold quotes: compare as text
        for number, reason in exempt.items():
            assert str(reason) not in text, (page.name, number)
    assert exempt_pages > 0  # the check has something to look at


def test_no_build_code_is_published(built_site):
    assert not list(built_site.rglob("*.py")) and not (built_site / "mgsite").exists()


# overrides/main.html's one inline script, and the entry it imports once the page is painted
ENTRY = re.compile(r'import\(new URL\("([^"]+)", document\.baseURI\)')
SCRIPT_SRC = re.compile(r'<script\b[^>]*\bsrc="([^"]+)"')
# what a bundled file imports from its folder: `from"./x.js"`, `import("./x.js")`, `new URL("./x.js", ...)`
IMPORTED = re.compile(r'(?:from|import\(|new URL\()\s*"\./([\w.-]+\.js)"')


def test_no_page_names_a_script_of_ours_and_each_starts_the_bundled_entry(built_site):
    """A page's HTML names only the theme's scripts: its one inline script (overrides/main.html) imports the
    entry once the page is painted, from the bundles the build wrote (mgsite/vendor.py's SCRIPTS), whose
    every import is there too; the sources of docs/javascripts/ are not published."""
    from mgsite.vendor import SCRIPTS  # noqa: PLC0415  (the docs toolchain: checked above)

    entry = (built_site / SCRIPTS / "site.js").resolve()
    root_path = urlparse(site_url()).path  # the 404 page's links are absolute: any address may show it
    for page in sorted(built_site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if "</head>" not in text:
            continue  # a notebook's download, not a page
        srcs = SCRIPT_SRC.findall(text)
        assert srcs and all("assets/javascripts/" in s for s in srcs), (page, srcs)
        starts = ENTRY.findall(text)
        assert len(starts) == 1, (page, starts)
        url = starts[0]
        target = built_site / url.removeprefix(root_path) if url.startswith("/") else page.parent / url
        assert target.resolve() == entry, (page, url)
    bundled = {p.name for p in (built_site / SCRIPTS).glob("*.js")}
    for name in bundled:
        assert set(IMPORTED.findall((built_site / SCRIPTS / name).read_text(encoding="utf-8"))) <= bundled, name
    assert {"site.js", "worker.js", "editor.js"} <= bundled
    assert not (built_site / "javascripts").exists()


@pytest.mark.parametrize(
    ("tex", "problem"),
    [
        ("\\underbrace{x}_a", "⏟"),  # a stretched brace: in Chromium a dashed line shorter than its term
        ("\\overbrace{x}^a", "⏞"),
        ("\\frac{1}{", "cannot typeset"),
        ("\\mathbf{W} + \\hat y + f' + \\frac12 + \\begin{aligned} a &= b \\end{aligned}", None),
    ],
)
def test_a_formula_browsers_would_draw_otherwise_than_written_is_refused(tex, problem):
    ((mathml, found),) = typeset_math.temml(ROOT).typeset([(tex, False)])
    assert (found is None) == (problem is None) and (mathml is None) == (problem is not None)
    assert problem is None or problem in found


def test_a_headings_formula_reads_as_plain_text_with_its_digit_powers_raised():
    # the table of contents holds text: y = x^2 must not read "y=x2", which Temml's <mn class="..."> once caused
    ((mathml, _), (power_of_power, _), (log, _)) = typeset_math.temml(ROOT).typeset(
        [("y = x^2 + z_1", False), ("e^{x^2}", False), (r"\ln 27", False)]
    )
    assert 'class="' in mathml and typeset_math.as_text(mathml) == "y=x²+z1"
    assert typeset_math.as_text(power_of_power) == "ex²"  # only a power of digits is raised
    assert "\u2061" in log and typeset_math.as_text(log) == "ln 27"  # invisible function application: a space


def test_what_browsers_would_draw_otherwise_is_refused():
    def refused(mathml: str) -> str | None:
        return typeset_math.refused(typeset_math.parse(f"<math>{mathml}</math>"))

    assert refused('<mo class="tml-prime">′</mo><mo class="chr-sml wbk-sml-acc">ˆ</mo>') is None
    assert refused('<mrow class="tml-cancel">x</mrow>') == "class 'tml-cancel'"
    assert refused("<menclose><mi>x</mi></menclose>") == "<menclose>"
    assert refused('<mi mathvariant="bold">x</mi>') == 'mathvariant="bold"'
    assert refused('<mi mathvariant="normal">x</mi>') is None
    assert refused("<munder><mi>W</mi><mo>⏟</mo></munder>") == "⏟"


@pytest.mark.parametrize(
    ("tex", "needs"), [(r"\cancel{x}", "<menclose>"), (r"\underbrace{W}_a", "⏟"), (r"\tag{1} x", "class 'tml-tageqn'")]
)
def test_temmls_own_output_for_such_a_formula_is_refused_naming_what_it_needs(tex, needs):
    from mgsite.errors import PageError

    with pytest.raises(PageError, match=re.escape(f"page.md:3: `{tex}` needs {needs}, which browsers do not draw")):
        typeset_math.typeset([("x^2", False), (tex, True)], ROOT, lambda tex: "page.md:3")


def test_no_token_element_of_the_built_site_holds_markup(built_site):
    # a token (<mi>, <mo>, <mn>, <mtext>) holding elements is drawn as a line of letters
    tokens_with_markup = re.compile(r"<(mi|mo|mn|mtext|ms)\b[^>]*>[^<]*<(?!/)")
    pages = sorted(built_site.rglob("index.html"))
    assert [p for p in pages if tokens_with_markup.search(p.read_text(encoding="utf-8"))] == []
    assert sum("<munder>" in p.read_text(encoding="utf-8") for p in pages) >= 2  # the \underset labels


def test_no_formula_of_the_built_site_carries_its_tex(built_site):
    pages = [p.read_text(encoding="utf-8") for p in sorted(built_site.rglob("index.html"))]
    assert sum(text.count("<math") for text in pages) > 500
    assert [t for t in pages if "<annotation" in t or "<semantics" in t] == []


def test_the_math_font_keeps_what_the_formulas_draw_and_its_math_table():
    used = math_font.characters('<math><mrow><mi>x</mi><mo>∑</mo><mi mathvariant="normal">β</mi></mrow></math>')
    assert used == {"x", "∑", "β"}  # what its elements hold, not their names or attributes
    # a root's radical is drawn from the font, with no character for it in the page
    assert math_font.characters("<math><msqrt><mi>v</mi></msqrt></math>") == {"v", "√"}
    font = TTFont(io.BytesIO(math_font.subset((ROOT / math_font.SOURCE).read_bytes(), used)))
    cmap = font.getBestCmap()
    assert {ord("x"), ord("∑"), ord("β"), 0x1D465, 0x1D6FD} <= set(cmap)  # x, ∑, β, italic x and italic β
    assert ord("Q") not in cmap
    assert "MATH" in font  # the layout of fractions, scripts and stretched brackets comes from it
    assert font["MATH"].table.MathConstants.SubscriptBaselineDropMin.Value == 0  # p_y no lower than x_y
    whole = TTFont(ROOT / math_font.SOURCE)
    assert len(font.getGlyphOrder()) < len(whole.getGlyphOrder()) / 10
    assert font["head"].modified == whole["head"].modified  # dated as its source, not as the build: reproducible


def test_every_math_page_gets_the_math_font_from_its_stylesheet_and_none_preloads_it(built_site):
    """Every page links the site's stylesheet, whose @font-face names the math font (fetched only where a
    formula uses it) with font-display optional (no text waits for it, nothing moves when it comes), which
    has every character the page's formulas draw; no page preloads a font (tools/mgsite/mgsite/font.py: a
    preloaded font holds the first frame).
    """
    font = built_site / math_font.SITE_PATH
    cmap = set(TTFont(font).getBestCmap())
    sheet = (built_site / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    faces = re.findall(r"@font-face\s*\{([^}]*)\}", sheet)
    assert len(faces) == 1 and re.search(r"font-display:\s*optional;", faces[0]), faces
    urls = re.findall(r"url\(([^)]+\.woff2)\)", faces[0])
    assert [(built_site / "stylesheets" / f).resolve() for f in urls] == [font.resolve()]
    with_math = 0
    for page in sorted(built_site.rglob("index.html")):
        text = page.read_text(encoding="utf-8")
        head = text[: text.index("</head>")]
        assert 'rel="preload"' not in head, page
        sheets = [(page.parent / h).resolve() for h in re.findall(r'<link rel="stylesheet" href="([^"]+)"', head)]
        assert (built_site / "stylesheets" / "extra.css").resolve() in sheets, page
        if "<math" in text:
            with_math += 1
            for formula in re.findall(r"<math\b.*?</math>", text, re.S):
                assert {ord(c) for c in math_font.characters(formula)} <= cmap, (page, formula)
    assert with_math >= 10


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


# One broken build for each kind of failure mgsite proves (the extension's error fails the strict build, with
# the page and line); the other mistakes of each kind are given to the same hook function, on a page
# in memory, without a whole build.
def test_a_formula_the_site_cannot_show_fails_the_build(project, tmp_path):
    """A formula Temml cannot typeset, and one browsers would draw wrong without an error (not MathML
    Core): both named, with the page and the TeX, by one build."""
    result = build_page(project, tmp_path, "# M\n\nHalf of it: $\\frac{1}{$. Brace: $\\underbrace{W}_a$.\n")
    words = ["docs/mistake.md:3: cannot typeset `\\frac{1}{`", "docs/mistake.md:3: `\\underbrace{W}_a` needs"]
    assert result.returncode != 0 and all(w in result.stderr for w in words), result.stderr[-2000:]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('# M\n\n```python\n--8<-- "microgpt/engine.py:nope"\n```\n', "docs/mistake.md:3: embed of"),
        ("# M\n\n```python\nprint(1)\n", "docs/mistake.md:3: a fence that is never closed"),
        (  # the former placeholder: the install line is an embed now
            "# M\n\n```console\n$ {{ install_command }}\n```\n",
            f"docs/mistake.md:4: '{{{{ install_command }}}}': embed the install line: {mdblocks.INSTALL_EMBED}",
        ),
    ],
)
def test_the_site_extension_refuses_a_page_it_cannot_read_naming_page_and_line(tmp_path, text, words):
    """The mgsite extension fails the conversion (and so the build), as it does for the formula above."""
    import markdown
    from mgsite.errors import PageError
    from mgsite.extension import SiteExtension

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mistake.md").write_text(text, encoding="utf-8")
    (tmp_path / "microgpt").symlink_to(ROOT / "microgpt", target_is_directory=True)
    with pytest.raises(PageError, match=re.escape(words)):
        markdown.markdown(text, extensions=[SiteExtension(root=str(tmp_path), page="mistake.md")])


def test_each_step_of_the_site_extension_has_a_priority_of_its_own(monkeypatch):
    """Python-Markdown runs processors of equal priority in the order they were registered, which no extension
    states: each of ours has a priority that no other processor of the site's Markdown (mkdocs.yml's extensions)
    has, so it runs where extension.py says, whatever the order of the list."""
    import markdown
    from markdown.util import Registry
    from mkdocs.config import load_config

    registered: dict[int, dict[str, float]] = {}  # each registry (by id) -> its processors' priorities, by name
    register = Registry.register

    def recorded(registry: Registry, item: object, name: str, priority: float) -> None:
        registered.setdefault(id(registry), {})[name] = priority
        register(registry, item, name, priority)

    monkeypatch.setattr(Registry, "register", recorded)
    config = load_config(str(ROOT / "mkdocs.yml"), plugins=[])  # its Markdown alone (mkdocs-jupyter needs 3.12+)
    md = markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"])
    ours = 0
    for registry in (md.preprocessors, md.treeprocessors, md.postprocessors):
        priorities = registered[id(registry)]
        for name, priority in priorities.items():
            if name.startswith("mgsite-"):
                ours += 1
                shared = [other for other, p in priorities.items() if p == priority and other != name]
                assert not shared, f"{name} shares priority {priority} with {', '.join(shared)}"
    assert ours >= 5, "the site's Markdown has lost the extension's steps"


def shown_code(html_text: str) -> tuple[list[str], int]:
    """The languages of the code blocks a built page shows, and its <pre> elements (a gutter is one more)."""
    return CODE_BLOCK.findall(html_text), html_text.count("<pre")


def read_code(page: mdblocks.Page) -> tuple[list[str], int]:
    """What shown_code() must find for a page as the tests read it."""
    return [fence.info for fence in page.fences], sum(2 if fence.embed else 1 for fence in page.fences)


def test_every_page_shows_exactly_the_code_blocks_the_tests_read(built_site):
    for page in DOCS:
        assert shown_code(site_page(built_site, page)) == read_code(parsed(page)), page.name


def site_markdown(text: str, tmp_path) -> str:
    """text as the site's Markdown extensions convert it, read without the notebook plugin (it needs Python 3.12+)."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(copy_project(tmp_path / "project") / "mkdocs.yml"))
    return markdown.Markdown(extensions=config.markdown_extensions, extension_configs=config.mdx_configs).convert(text)


def test_code_in_raw_html_that_the_tests_would_not_read_is_found(tmp_path):
    """Code in raw HTML: the site would show code that no test runs."""
    text = "# M\n\nText.\n\n<div>\n<pre><code>print(1)</code></pre>\n</div>\n\n```python\nprint(1)\n```\n"
    assert shown_code(site_markdown(text, tmp_path)) != read_code(mdblocks.parse(text, "docs/mistake.md", ROOT))


def test_an_indented_block_is_never_shown_as_code(tmp_path):
    """Every block is a fence (superfences' disable_indented_code_blocks), so indented text is no code block
    that no test runs: the notebook's indented <style> stays an element."""
    text = "# M\n\nText.\n\n    print('an indented code block')\n\n```python\nprint(1)\n```\n"
    html_text = site_markdown(text, tmp_path)
    assert shown_code(html_text) == read_code(mdblocks.parse(text, "docs/mistake.md", ROOT)) == (["python"], 1)
    assert "<p>print('an indented code block')</p>" in html_text.replace("&#39;", "'")


# A changed copy that builds: three lines added at the top of engine.py, and a page that mentions an
# escaped snippet marker; built once for the two tests.
ESCAPED = "# M\n\nA section starts with `# ;--8<-- [start:seed]`, and this line stays.\n"


@pytest.fixture(scope="module")
def changed_site(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("changed") / "project")
    engine = project / "microgpt" / "engine.py"
    engine.write_text("# added\n" * 3 + engine.read_text(encoding="utf-8"), encoding="utf-8")
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
    page = ROOT / "docs" / "forward-graph.md"  # five embeds of engine.py
    before = [int(n) for n, _ in GUTTER.findall(site_page(built_site, page))]
    after = [int(n) for n, _ in GUTTER.findall(site_page(changed_site, page, root=ROOT))]
    assert after == [n + 3 for n in before] and len(before) > 20


def test_the_home_page_shows_the_install_line_for_the_served_wheel(built_site):
    """The console block that embeds the line mgsite.prepare wrote shows it, then the command it introduces."""
    wheel = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    page = (built_site / "index.html").read_text(encoding="utf-8")
    (block,) = re.findall(r'<div class="language-console highlight">.*?</pre>', page, re.S)
    shown = html.unescape(re.sub(r"<[^>]+>", "", block)).strip()
    assert shown == f"$ {install_command(site_url(), wheel)}\n$ python -m microgpt --help"


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
# (and the header buttons that replace the theme's labels) exactly where and when the theme does, and to
# unstick the sidebar's title where the theme makes it sticky:
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
    (  # the sidebar's title, sticky in the theme, scrolls with the links in ours
        ".md-nav--primary .md-nav__title{position:sticky;",
        "@media screen and (min-width:76.25em)",
        "@media screen and (min-width: 76.25em) {\n  .md-nav--primary > .md-nav__title { position: static;",
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
