"""Make pytest-codeblocks run the pages as the site shows them, and refuse what it would skip silently.

pytest-codeblocks 0.18.0 reads fences from the .md source. Three things in it would let a
page lie without a failing test (../shared/TOOLCHAIN.md has the measurements):

* a fence whose body is `--8<-- "microgpt/engine.py:backward"` would be run literally;
* a fence whose info string is not exactly `python` (`python title=...`, `py`, `pycon`,
  `python3`, a `~~~` fence) is not collected at all, without a word;
* a misplaced marker silently turns a Python block into "expected output", or a mark written
  before a `cont` block silently lands on the next block instead.

So `extract_from_file` is wrapped: it rejects such fences with a clear error (the .md file then
fails to collect, and the run fails), expands snippets with pymdownx's own SnippetPreprocessor
configured from mkdocs.yml, reduces each info string to its language, and maps line numbers
back to the .md file. The site tests share one strict build of the site (`built_site`).
"""

from __future__ import annotations

import html
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PINNED_CODEBLOCKS = "0.18.0"
MKDOCS = [sys.executable, "-m", "mkdocs"]

# ---------------------------------------------------------------------------- the hook point

import pytest_codeblocks.main as _cb_main  # noqa: E402
import pytest_codeblocks.plugin as _cb_plugin  # noqa: E402

if version("pytest-codeblocks") != PINNED_CODEBLOCKS:
    raise RuntimeError(
        f"tests/sitecheck.py wraps pytest-codeblocks {PINNED_CODEBLOCKS} internals, but "
        f"{version('pytest-codeblocks')} is installed: check the wrapper against its source, then update the pin"
    )
for _name in ("extract_from_file", "extract_from_buffer", "CodeBlock"):
    if not hasattr(_cb_main, _name):
        raise RuntimeError(f"pytest_codeblocks.main.{_name} is gone: the wrapper in tests/sitecheck.py needs updating")
if not hasattr(_cb_plugin, "extract_from_file"):
    raise RuntimeError("pytest_codeblocks.plugin no longer calls extract_from_file: tests/sitecheck.py needs updating")

_original_extract = _cb_main.extract_from_file

# ---------------------------------------------------------------------------- fences

FENCE_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MARK_LINE = re.compile(r"^<!--[-\s]*(?P<body>pytest-codeblocks:.*|pytest\.mark\..*)-->$")
BLOCK_SNIPPET = re.compile(r"^[ \t]*-+8<-+[ \t]*$")
RUNNABLE = {"python", "sh", "bash"}
MISSPELLED_PYTHON = {"py", "py3", "pycon", "python3", "ipython", "ipython3", "pyi"}


@dataclass
class Fence:
    lineno: int  # of the opening line, 1-based, in the .md file
    info: str
    language: str
    body: list[str]
    marks: list[str] = field(default_factory=list)  # the marker comments before it (since the last fence)
    marks_far: bool = False  # text stands between a marker and the fence


def scan_fences(text: str) -> list[Fence]:
    """Every fence of a Markdown text, found the way pytest-codeblocks finds them (plus ~~~ fences)."""
    lines = text.split("\n")
    fences, marks, far, i = [], [], False, 0
    while i < len(lines):
        stripped = lines[i].strip()
        m = FENCE_LINE.match(lines[i])
        if m:
            char, width = m.group("fence")[0], len(m.group("fence"))
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(char * width):
                j += 1
            info = m.group("info").strip()
            language = info.split()[0].strip("{}.") if info else ""
            body = lines[i + 1 : j]
            fences.append(Fence(i + 1, info if char == "`" else "~~~" + info, language, body, marks, far))
            marks, far, i = [], False, j + 1
            continue
        mark = MARK_LINE.match(stripped)
        if mark:
            marks.append(mark.group("body"))
        elif stripped and marks:
            far = True  # pytest-codeblocks still applies the marker to the next fence, wherever it is
        i += 1
    return fences


def fence_problems(path: Path) -> list[str]:
    """Fences that pytest-codeblocks would skip silently, or markers it would misapply."""
    problems = []
    where = lambda f: f"{path}:{f.lineno}"  # noqa: E731
    for f in scan_fences(path.read_text(encoding="utf-8")):
        keywords = [m.split(":", 1)[1].strip("- ") for m in f.marks if m.startswith("pytest-codeblocks:")]
        if f.info.startswith("~~~"):
            problems.append(f"{where(f)}: a ~~~ fence is invisible to pytest-codeblocks; use ``` and a language")
        elif f.info and f.info != f.language:
            problems.append(
                f"{where(f)}: info string {f.info!r} has attributes; pytest-codeblocks collects only a bare "
                f"language, so write just {f.language!r} (embedded code gets its title from docs/hooks/embed.py)"
            )
        elif not f.info:
            problems.append(f"{where(f)}: a fence without a language; write python, bash, text, console, ...")
        if f.language in MISSPELLED_PYTHON:
            problems.append(f"{where(f)}: language {f.language!r} is not collected; write 'python' (or 'text')")
        if any(k.startswith("expected-output") for k in keywords) and f.language in RUNNABLE:
            problems.append(
                f"{where(f)}: an expected-output marker is followed by a {f.language} block, which pytest-codeblocks "
                "would take as the output and never run; the output belongs in a text fence"
            )
        if "cont" in keywords and len(f.marks) > 1:
            problems.append(
                f"{where(f)}: markers before a cont block apply to the next new block, not to this chain; "
                "put them on the first block of the chain"
            )
        if f.marks_far:
            problems.append(f"{where(f)}: a marker is separated from this fence by text; put it right above the fence")
    return problems


# ---------------------------------------------------------------------------- snippets


@cache
def snippet_preprocessor(config_file: Path = ROOT / "mkdocs.yml"):
    """pymdownx's own SnippetPreprocessor, configured exactly as in mkdocs.yml."""
    import markdown
    from mkdocs.config import load_config

    with open(os.devnull, "w") as quiet, _redirect_stderr(quiet):
        config = load_config(config_file=str(config_file))
    snippet_config = config["mdx_configs"].get("pymdownx.snippets")
    if snippet_config is None:
        raise RuntimeError(f"{config_file}: pymdownx.snippets is not configured")
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": snippet_config})
    return md.preprocessors["snippet"]


class _redirect_stderr:
    def __init__(self, target):
        self.target = target

    def __enter__(self):
        self.saved, sys.stderr = sys.stderr, self.target

    def __exit__(self, *exc):
        sys.stderr = self.saved


def expand_snippets(text: str, preprocessor=None) -> tuple[str, list[int]]:
    """The text with every `--8<--` line expanded as the site does, and each new line's source line number."""
    preprocessor = preprocessor or snippet_preprocessor()
    out, origin = [], []
    for n, line in enumerate(text.split("\n"), 1):
        if "8<-" in line:
            if BLOCK_SNIPPET.match(line):
                raise RuntimeError(
                    f"line {n}: block-form snippets (a bare --8<-- line) are not supported in pages; "
                    'write one --8<-- "file:section" line per snippet'
                )
            new = preprocessor.run([line])
        else:
            new = [line]
        out += new
        origin += [n] * len(new)
    return "\n".join(out), origin


def reduce_info_strings(text: str) -> str:
    """`python title="x"` -> `python`, so nothing is skipped for the way it was written."""

    def reduce(m):
        info = m.group("info").strip()
        language = info.split()[0].strip("{}.") if info else ""
        return f"{m.group('indent')}{m.group('fence')}{language}"

    lines = text.split("\n")
    return "\n".join(FENCE_LINE.sub(reduce, line) if line.lstrip().startswith("```") else line for line in lines)


def extract_from_file(f, encoding: str | None = "utf-8", *args, **kwargs):
    """pytest-codeblocks' extractor, on the page as the site renders it (see the module docstring)."""
    path = Path(f)
    problems = fence_problems(path)
    if problems:
        raise RuntimeError("fences that pytest-codeblocks would skip or misread:\n  " + "\n  ".join(problems))
    expanded, origin = expand_snippets(path.read_text(encoding=encoding or "utf-8"))
    blocks = _cb_main.extract_from_buffer(io.StringIO(reduce_info_strings(expanded)), *args, **kwargs)
    require_torch = os.environ.get("MICROGPT_REQUIRE_TORCH") == "1"
    for block in blocks:
        block.lineno = origin[block.lineno - 1]
        if require_torch and block.importorskip:
            # CI installs torch: a block that needs it must run, never skip
            block.code = f"import {block.importorskip}  # MICROGPT_REQUIRE_TORCH=1\n" + block.code
            block.importorskip = None
    return blocks


_cb_main.extract_from_file = extract_from_file
_cb_plugin.extract_from_file = extract_from_file


def collected_blocks(path: Path) -> list:
    """The blocks pytest-codeblocks collects from a page (after the wrapper)."""
    return [b for b in extract_from_file(path) if b.syntax in RUNNABLE]


# ---------------------------------------------------------------------------- building the site


def copy_project(dest: Path, notebooks: bool = False) -> Path:
    """mkdocs.yml, docs/, overrides/ and microgpt/ in `dest`. Without `notebooks`, the mkdocs-jupyter plugin and
    the notebook's nav entry are left out, so the .ipynb is copied as a plain file (links to it still
    resolve) and nothing is executed: a build takes about a second instead of ten."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    shutil.copytree(ROOT / "docs", dest / "docs", ignore=ignore)
    shutil.copytree(ROOT / "microgpt", dest / "microgpt", ignore=ignore)
    shutil.copytree(ROOT / "overrides", dest / "overrides", ignore=ignore)  # theme.custom_dir
    for name in ("pyproject.toml", "README.md", "LICENSE"):  # docs/hooks/wheel.py builds the wheel from them
        shutil.copy2(ROOT / name, dest / name)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if not notebooks:
        config = strip_notebooks(config)
    (dest / "mkdocs.yml").write_text(config, encoding="utf-8")
    return dest


def strip_notebooks(config: str) -> str:
    out, skipping = [], False
    for line in config.split("\n"):
        if line.strip() == "- mkdocs-jupyter:":
            skipping = True
            continue
        if skipping and (line.startswith("      ") or line.strip().startswith("#")):
            continue
        skipping = False
        if ".ipynb" in line and line.lstrip().startswith("- "):
            continue
        out.append(line)
    return "\n".join(out)


def build(project: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [*MKDOCS, "build", "--strict", "-f", str(project / "mkdocs.yml"), "-d", str(site)]
    return subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once with `mkdocs build --strict` (notebook executed).

    `make test` builds it into site/ before pytest and passes that directory in MICROGPT_BUILT_SITE.
    """
    if os.environ.get("MICROGPT_BUILT_SITE"):
        site = Path(os.environ["MICROGPT_BUILT_SITE"]).resolve()
        assert (site / "index.html").is_file(), f"MICROGPT_BUILT_SITE={site} holds no built site"
        return site
    site = tmp_path_factory.mktemp("site")
    result = build(ROOT, site)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return site


def site_pages(site: Path) -> dict[str, str]:
    """Built HTML of every Markdown page in mkdocs.yml's docs, keyed by its .md path under docs/."""
    pages = {}
    for md in sorted((ROOT / "docs").rglob("*.md")):
        rel = md.relative_to(ROOT / "docs")
        if rel.parts[0] in ("hooks", "vendor"):
            continue
        out = site / ("index.html" if rel.name == "index.md" else rel.with_suffix("") / "index.html")
        if rel.name == "404.md":
            out = site / "404.html"
        if out.exists():
            pages[rel.as_posix()] = out.read_text(encoding="utf-8")
    return pages


# ---------------------------------------------------------------------------- reading built code blocks

BLOCK_START = re.compile(r'<div class="language-(?P<lang>[\w+-]+) highlight">')
MARK_SPAN = re.compile(r'<span class="mg-mark mg-mark--(?P<kind>[\w-]+)" data-mark="[\w-]+">(?P<text>.*?)</span>')
TITLE = re.compile(r'<span class="filename">(?P<title>.*?)</span>')
GUTTER = re.compile(r'<a href="#__codelineno-\d+-(?P<n>\d+)">\s*(?P<shown>\d+)</a>')
LINE_SPAN = re.compile(r'<span id="__span-\d+-(?P<n>\d+)">')
EMBED_TITLE = re.compile(r"^(?P<path>\S+) — lines? (?P<first>\d+)(?:–(?P<last>\d+))?$")


@dataclass
class HtmlBlock:
    lang: str
    html: str
    marks: list[tuple[str, str]]  # (kind, text) of the labels right before it
    title: str | None = None


def strip_tags(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def html_blocks(page_html: str) -> list[HtmlBlock]:
    """Every highlighted code block of a page, in order, with the marker labels shown above it."""
    events = sorted(
        [(m.start(), "block", m) for m in BLOCK_START.finditer(page_html)]
        + [(m.start(), "mark", m) for m in MARK_SPAN.finditer(page_html)]
    )
    blocks, pending = [], []
    for pos, kind, m in events:
        if kind == "mark":
            pending.append((m.group("kind"), strip_tags(m.group("text"))))
            continue
        end = page_html.find("</code></pre>", pos)
        end = page_html.find("</div>", end) if end >= 0 else len(page_html)
        fragment = page_html[pos:end]
        title = TITLE.search(fragment[:500])
        title_text = strip_tags(title.group("title")) if title else None
        blocks.append(HtmlBlock(m.group("lang"), fragment, pending, title_text))
        pending = []
    return blocks


def block_code_lines(block: HtmlBlock) -> list[tuple[int, str]]:
    """(number of the line's anchor, text of the line) for every line of a block."""
    code = block.html[block.html.index("<code>") + len("<code>") :]
    code = code[: code.rindex("</code>")] if "</code>" in code else code
    starts = list(LINE_SPAN.finditer(code))
    lines = []
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(code)
        lines.append((int(m.group("n")), strip_tags(code[m.end() : end]).rstrip("\n")))
    return lines


def embed_problems(block: HtmlBlock, root: Path = ROOT) -> list[str]:
    """Why an embedded block's title, gutter or code disagrees with the file, if it does."""
    m = EMBED_TITLE.match(block.title or "")
    if not m:
        return [f"not an embed title: {block.title!r}"]
    file = root / m.group("path")
    if not file.is_file():
        return [f"{block.title}: no file {file}"]
    first, last = int(m.group("first")), int(m.group("last") or m.group("first"))
    gutter = [(int(g.group("n")), int(g.group("shown"))) for g in GUTTER.finditer(block.html)]
    lines = block_code_lines(block)
    problems = []
    if any(n != shown for n, shown in gutter):
        problems.append(f"{block.title}: gutter text and gutter links disagree: {gutter}")
    numbers = [shown for _, shown in gutter]
    if numbers != [n for n, _ in lines]:
        problems.append(f"{block.title}: gutter {numbers} and line anchors {[n for n, _ in lines]} disagree")
    if not numbers or (numbers[0], numbers[-1]) != (first, last):
        problems.append(f"{block.title}: the title says {first}–{last}, the gutter {numbers[:1]}…{numbers[-1:]}")
    file_lines = file.read_text(encoding="utf-8").split("\n")
    if any(not 1 <= n <= len(file_lines) for n in numbers):
        return problems + [f"{block.title}: gutter numbers beyond the end of {file}"]
    expected = textwrap.dedent("\n".join(file_lines[n - 1] for n in numbers)).split("\n")
    shown = [text for _, text in lines]
    for n, want, got in zip(numbers, expected, shown, strict=False):
        if want.rstrip() != got.rstrip():
            problems.append(
                f"{block.title}: line {n} of {m.group('path')} is {want.strip()!r}, the page shows {got.strip()!r}"
            )
            break
    if len(expected) != len(shown):
        problems.append(f"{block.title}: {len(shown)} lines shown, {len(expected)} numbered")
    # a number skipped inside the range must be a section marker (snippets drops those), nothing else
    for n in sorted(set(range(first, last + 1)) - set(numbers)):
        if "--8<-- [" not in file_lines[n - 1]:
            problems.append(f"{block.title}: line {n} ({file_lines[n - 1].strip()!r}) is in the range but not shown")
    return problems


# ---------------------------------------------------------------------------- reporting


def pytest_configure(config):
    config.stash[SITE_TOTALS] = {}


SITE_TOTALS = pytest.StashKey[dict]()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    totals = config.stash.get(SITE_TOTALS, {})
    if totals:
        terminalreporter.section("site code blocks")
        for line in totals.get("lines", []):
            terminalreporter.write_line(line)


# ---------------------------------------------------------------------------- block accounting


@cache
def load_embed_hook():
    """docs/hooks/embed.py as a module (for its marker labels)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("embed_hook", ROOT / "docs" / "hooks" / "embed.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def marker_keywords(fence: Fence) -> list[str]:
    return [m.split(":", 1)[1].strip("- ") for m in fence.marks if m.startswith("pytest-codeblocks:")]


def block_accounting(md: Path, page_html: str, collect=None) -> tuple[list[str], dict[str, int]]:
    """Match a page's Python blocks in the built HTML with what pytest-codeblocks collects from its .md.

    Returns the problems and the counts: python blocks shown, run, marked (skipped with a visible
    reason). A block is counted as run if pytest-codeblocks runs it, alone or as part of a
    `cont` chain.
    """
    collect = collect or collected_blocks
    label = load_embed_hook().mark_label
    problems: list[str] = []
    fences = [f for f in scan_fences(md.read_text(encoding="utf-8")) if f.language == "python"]
    shown = [b for b in html_blocks(page_html) if b.lang == "python"]
    if len(shown) != len(fences):
        problems.append(f"{md.name}: {len(shown)} Python blocks on the site, {len(fences)} in the .md file")
    try:
        collected = [b for b in collect(md) if b.syntax == "python"]
    except RuntimeError as error:
        return problems + [f"{md.name}: pytest-codeblocks cannot collect it: {error}"], {}
    heads = [f for f in fences if "cont" not in marker_keywords(f)]
    if len(collected) != len(heads):
        problems.append(
            f"{md.name}: pytest-codeblocks collects {len(collected)} Python blocks, but the page has "
            f"{len(heads)} (plus {len(fences) - len(heads)} continuations): some are not run and not marked"
        )
        return problems, {}
    for head, block in zip(heads, collected, strict=True):
        if head.lineno != block.lineno:
            problems.append(f"{md.name}:{head.lineno}: pytest-codeblocks sees a block at line {block.lineno} instead")
    counts = {"shown": len(shown), "run": 0, "marked": 0, "torch": 0}
    chain_skipped = False
    k = -1
    for i, fence in enumerate(fences):
        keywords = marker_keywords(fence)
        if "cont" not in keywords:
            k += 1
            block = collected[k]
            skips = [m for m in block.marks if m.startswith(("pytest.mark.skip", "pytest.mark.xfail"))]
            chain_skipped = bool(skips)
            for mark in skips:
                reason = re.search(r"""reason\s*=\s*(["'])(.+?)\1""", mark)
                if not reason or not reason.group(2).strip():
                    problems.append(f'{md.name}:{fence.lineno}: {mark} has no reason; write reason="..."')
        counts["marked" if chain_skipped else "run"] += 1
        if any(k_.startswith("importorskip") for k_ in keywords):
            counts["torch"] += 1
        # every marker on this fence must be visible on the site, right above the block
        if i < len(shown):
            visible = shown[i].marks
            for mark in fence.marks:
                want = label(mark)
                if want and want not in visible:
                    problems.append(f"{md.name}:{fence.lineno}: marker <!--{mark}--> is not shown as {want[1]!r}")
    return problems, counts
