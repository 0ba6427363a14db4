"""Move the flat tests/ into one folder per layer, with a conftest.py each (issue 45, goal 6).

    python scripts/move_tests.py          # from the repository's root, on a clean work tree
    git add -A tests && git commit        # the script stages its moves; review `git diff --cached -M` first

Written to be replayed after other branches merge (they add and change tests): nothing is listed by
hand that a rule can decide, and the script stops with a message where a file does not look as it
expects, instead of guessing.

- tests/package/  the package: no built site, no mkdocs build, no browser (`make test-package`, CI's matrix)
- tests/site/     the built site and the toolchain that builds it (mkdocs, the wheel it serves, the install)
- tests/browser/  the built site in Chromium (pytest-playwright's fixtures, Debian's chromium)

A test file goes to browser/ when it imports tests/browser.py (the helpers of the browser tests), to
site/ when its name starts with test_site_ or is test_install.py, else to package/. Helpers that are
not tests stay in tests/ (on sys.path from the root conftest.py), except tests/browser.py, which
becomes tests/browser/browsing.py without its fixtures; the fixtures become tests/browser/conftest.py
(pytest-playwright's `browser`, launched with Debian's chromium), and the shared `built_site` moves
from tests/sitecheck.py to tests/conftest.py. Path references in the repository follow the files.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# the names tests/browser.py defined as fixtures: a test file imported them by hand; pytest now finds them
FIXTURES = {"base_url", "browser", "site_dir", "watched"}


def fail(message: str) -> None:
    sys.exit(f"move_tests: {message}")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def layer(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if re.search(r"^from browser import|^import browser\b", text, re.MULTILINE):
        return "browser"
    if path.name.startswith("test_site_") or path.name == "test_install.py":
        return "site"
    return "package"


def without_fixture_imports(text: str, name: str) -> str:
    """`from browser import ...` becomes `from browsing import ...` without the fixtures (pytest finds
    them in tests/browser/conftest.py now), and the noqa comments that only excused them go."""
    tree = ast.parse(text)
    lines = text.split("\n")
    for node in sorted(
        (n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "browser"), key=lambda n: -n.lineno
    ):
        kept = [a for a in node.names if a.name not in FIXTURES]
        new = []
        if kept:
            names = ", ".join(a.name if a.asname is None else f"{a.name} as {a.asname}" for a in kept)
            new = [f"from browsing import {names}"]
        lines[node.lineno - 1 : node.end_lineno] = new
    text = "\n".join(lines)
    text = re.sub(r"^# ruff: noqa: F811.*\n\n?", "", text, flags=re.MULTILINE)
    text = re.sub(r"  # noqa: F811$", "", text, flags=re.MULTILINE)
    text = text.replace("Path(__file__).resolve().parent.parent", "Path(__file__).resolve().parents[2]")
    text = text.replace("Path(__file__).parents[1]", "Path(__file__).parents[2]")
    text = text.replace('Path(__file__).parent / "golden"', 'Path(__file__).parents[1] / "golden"')
    if re.search(r"^(from|import) test_", text, re.MULTILINE):
        fail(f"{name} imports another test module: move what it imports into a helper module first")
    return text


def replace_or_warn(text: str, old: str, new: str) -> str:
    if old not in text:
        print(f"move_tests: not found, edit by hand: {old!r}")
    return text.replace(old, new)


def fixture_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    def is_fixture(d: ast.expr) -> bool:
        d = d.func if isinstance(d, ast.Call) else d
        return isinstance(d, ast.Attribute) and d.attr == "fixture"

    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and any(is_fixture(d) for d in n.decorator_list)]


def cut(text: str, nodes: list[ast.stmt]) -> str:
    """`text` without the lines of `nodes` (and the comment lines just above each)."""
    lines = text.split("\n")
    for node in sorted(nodes, key=lambda n: -n.lineno):
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
        while start > 0 and lines[start - 1].startswith("#") and not lines[start - 1].startswith("# ----"):
            start -= 1
        lines[start : node.end_lineno] = []
    return re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines))


BROWSING_DOC = '''"""What the browser tests share that is not a fixture: the pages, a watched page, waiting for a page
to be ready, axe-core, the colour arithmetic. The fixtures are in tests/browser/conftest.py.

Needs Debian's Chromium (`apt-get install chromium`) and the Python package playwright
(`pip install -e '.[test]'`; never `playwright install`). Without them the importing test file
is skipped, except with CI=true, where it fails. Assertions wait for their condition
(Playwright's `expect`, `wait_for_function`), never for a fixed time.
"""'''

BROWSER_CONFTEST = '''"""The browser tests' fixtures: the built site served on 127.0.0.1, opened in Debian's Chromium.

pytest-playwright gives `playwright`, `browser` (one for the session), `context` and `page`; here it is
told to launch the Chromium the machine has (/usr/bin/chromium, or MICROGPT_CHROMIUM), headless, with
browsing.FLAGS. What the tests share besides fixtures is in browsing.py beside this file.

* `site_dir`: the site built once with --strict (`built_site`, tests/conftest.py);
* `base_url`: that site served on 127.0.0.1 (no trailing slash);
* `watched`: a `Watched` page at 1280 px in the light scheme that fails the test, when it ends, on any
  console error, uncaught exception or request leaving the site (such requests are blocked, so a test
  never waits on the network).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitecheck import serving

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright's launch options (--headed, --slowmo) with Debian's Chromium and the flags of
    browsing.py (imported here, not above: without Chromium or playwright it skips the test file)."""
    from browsing import CHROMIUM, FLAGS

    return {"headless": True, **browser_type_launch_args, "executable_path": CHROMIUM, "args": FLAGS}


@pytest.fixture(scope="session")
def site_dir(built_site: Path) -> Path:
    """The site built once with --strict (or MICROGPT_BUILT_SITE, built before the tests)."""
    return built_site


@pytest.fixture(scope="session")
def base_url(site_dir: Path):
    """The built site served on 127.0.0.1 for the session (no trailing slash); pytest-playwright gives
    it to every context it makes, so `page.goto("/accumulation/")` works too."""
    with serving(site_dir) as url:
        yield url


@pytest.fixture
def watched(browser, base_url):
    from browsing import Watched

    w = Watched(browser, base_url)
    yield w
    try:
        assert w.problems() == []
    finally:
        w.close()
'''

SHARED_CONFTEST = '''"""Fixtures the site and browser tests share: the site built once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitecheck import ROOT, build


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
    assert result.returncode == 0, f"mkdocs build --strict failed:\\n{result.stdout}\\n{result.stderr}"
    return site
'''

SITE_CONFTEST = '''"""The site tests: the built site (`built_site`, tests/conftest.py) and the toolchain that builds it.

Without the docs toolchain (mkdocs, pymdown-extensions) a site test file skips, and fails under CI=true
(sitecheck.require_docs_toolchain). No browser here: a test that needs one belongs in tests/browser/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitecheck import reader

HERE = Path(__file__).parent

def fixtures(item: pytest.Item) -> set[str]:
    """The fixtures a test asks for, less the arguments it is parametrized with (a `page` of docs/)."""
    callspec = getattr(item, "callspec", None)
    return set(getattr(item, "fixturenames", ())) - set(callspec.params if callspec else ())


@pytest.fixture(scope="session")
def reader_python(built_site: Path) -> Path:
    """The python of a fresh virtualenv holding the wheel the built site serves, installed with the
    pages' own command (sitecheck.reader: made once per process)."""
    return reader(built_site)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A site test that asks for a browser is in the wrong folder: it would run where Chromium is not required."""
    here = [i for i in items if i.path.is_relative_to(HERE)]
    wrong = [i.nodeid for i in here if {"browser", "page"} & fixtures(i)]
    if wrong:
        raise pytest.UsageError(f"tests/site/ is the site without a browser; move these to tests/browser/: {wrong}")
'''

PACKAGE_CONFTEST = '''"""The package's tests: the standard library, the test extra, torch if there; no site, no browser.

They run on every Python of CI's matrix (`make test-package`: this folder, every page's blocks and
README.md's), where neither the built site nor Chromium is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
# fixtures of the other layers (tests/conftest.py, tests/site/, tests/browser/ and pytest-playwright)
ELSEWHERE = {"built_site", "site_dir", "base_url", "reader_python", "browser", "context", "page", "watched"}


def fixtures(item: pytest.Item) -> set[str]:
    """The fixtures a test asks for, less the arguments it is parametrized with (a `page` of docs/)."""
    callspec = getattr(item, "callspec", None)
    return set(getattr(item, "fixturenames", ())) - set(callspec.params if callspec else ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A package test that asks for the built site or a browser is in the wrong folder: CI's Python matrix
    would skip or fail it for want of what only the site job has."""
    here = [i for i in items if i.path.is_relative_to(HERE)]
    wrong = [i.nodeid for i in here if ELSEWHERE & fixtures(i)]
    if wrong:
        raise pytest.UsageError(f"tests/package/ needs no site and no browser; move these: {wrong}")
'''


def main() -> None:
    if git("status", "--porcelain", "--untracked-files=no").strip():
        fail("the work tree has changes; commit or stash them first")
    tests = sorted(TESTS.glob("test_*.py"))
    if not tests:
        fail("no tests/test_*.py: already moved?")
    where = {t: layer(t) for t in tests}
    for name in ("package", "site", "browser"):
        (TESTS / name).mkdir(exist_ok=True)
    moves: dict[str, str] = {}
    for test, folder in where.items():
        new = TESTS / folder / test.name
        git("mv", str(test.relative_to(ROOT)), str(new.relative_to(ROOT)))
        new.write_text(without_fixture_imports(new.read_text(encoding="utf-8"), new.name), encoding="utf-8")
        moves[f"tests/{test.name}"] = f"tests/{folder}/{test.name}"
        print(f"{folder:8} {test.name}")

    # helpers only the browser tests use (they import tests/browser.py) go with them
    for module in sorted(TESTS.glob("*.py")):
        if module.name != "browser.py" and not module.name.startswith("test_") and layer(module) == "browser":
            new = TESTS / "browser" / module.name
            git("mv", str(module.relative_to(ROOT)), str(new.relative_to(ROOT)))
            new.write_text(without_fixture_imports(new.read_text(encoding="utf-8"), new.name), encoding="utf-8")
            moves[f"tests/{module.name}"] = f"tests/browser/{module.name}"
            print(f"browser  {module.name} (helper)")

    # tests/browser.py: helpers -> tests/browser/browsing.py, fixtures -> tests/browser/conftest.py
    helper = TESTS / "browser" / "browsing.py"
    git("mv", "tests/browser.py", str(helper.relative_to(ROOT)))
    text = helper.read_text(encoding="utf-8")
    tree = ast.parse(text)
    fixtures = fixture_functions(tree)
    if {f.name for f in fixtures} != FIXTURES:
        fail(f"tests/browser.py's fixtures are {sorted(f.name for f in fixtures)}, not {sorted(FIXTURES)}")
    shared = [
        n
        for n in tree.body
        if isinstance(n, ast.AnnAssign | ast.Assign)
        and any(
            isinstance(t, ast.Name) and t.id == "_shared" for t in getattr(n, "targets", [getattr(n, "target", None)])
        )
    ]
    text = cut(text, fixtures + shared)
    text = re.sub(r'\A""".*?"""', BROWSING_DOC.replace("\\", "\\\\"), text, count=1, flags=re.S)
    text = text.replace("Path(__file__).resolve().parent.parent", "Path(__file__).resolve().parents[2]")
    text = re.sub(r"\n# -+ fixtures\n", "\n", text)
    helper.write_text(text, encoding="utf-8")
    (TESTS / "browser" / "conftest.py").write_text(BROWSER_CONFTEST, encoding="utf-8")
    moves["tests/browser.py"] = "tests/browser/browsing.py"

    # built_site: from tests/sitecheck.py (loaded into every run) to tests/conftest.py (site and browser)
    sitecheck = TESTS / "sitecheck.py"
    text = sitecheck.read_text(encoding="utf-8")
    built = [f for f in fixture_functions(ast.parse(text)) if f.name == "built_site"]
    if not built:
        fail("tests/sitecheck.py has no built_site fixture")
    sitecheck.write_text(cut(text, built), encoding="utf-8")
    (TESTS / "conftest.py").write_text(SHARED_CONFTEST, encoding="utf-8")
    (TESTS / "site" / "conftest.py").write_text(SITE_CONFTEST, encoding="utf-8")
    install = TESTS / "site" / "test_install.py"
    if install.exists():
        text = install.read_text(encoding="utf-8")
        own = [f for f in fixture_functions(ast.parse(text)) if f.name == "reader_python"]
        install.write_text(cut(text, own), encoding="utf-8")
    (TESTS / "package" / "conftest.py").write_text(PACKAGE_CONFTEST, encoding="utf-8")

    # the root conftest.py no longer loads sitecheck as a plugin: its one fixture is in tests/conftest.py
    root_conftest = ROOT / "conftest.py"
    text = root_conftest.read_text(encoding="utf-8")
    text = re.sub(r'\npytest_plugins = \["sitecheck"\]\n', "\n", text)
    text = replace_or_warn(
        text,
        "The docs checks add two plugins:\n"
        "tests/sitecheck.py (the built_site fixture; standard library and pytest only) always, and\n"
        "tests/page_blocks.py (runs the Python blocks of Markdown pages) only with --codeblocks.\n",
        "With --codeblocks,\n"
        "tests/page_blocks.py runs the Python blocks of Markdown pages. The tests' fixtures are in\n"
        "tests/conftest.py (the built site) and in the conftest.py of each layer: tests/package/,\n"
        "tests/site/ and tests/browser/.\n",
    )
    root_conftest.write_text(text, encoding="utf-8")
    text = sitecheck.read_text(encoding="utf-8")
    text = replace_or_warn(
        text,
        "the shared strict build (`built_site`) and throwaway copies.\n\n"
        "Loaded into every pytest run by the root conftest.py,",
        "building it, serving it, throwaway copies, the reader's install.\n\n"
        "Imported by the tests and by page_blocks.py,",
    )
    sitecheck.write_text(text, encoding="utf-8")

    # path references everywhere in the repository follow the files
    pattern = re.compile("|".join(re.escape(k) + r"\b" for k in sorted(moves, key=len, reverse=True)))
    for name in git("ls-files").split("\n"):
        path = ROOT / name
        if not name or not path.is_file() or name.startswith(("tests/golden/", "scripts/move_tests.py")):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = pattern.sub(lambda m: moves[m.group(0)], text)
        # ROOT / "tests" / "test_x.py" in Python
        new = re.sub(
            r'"tests" / "(test_\w+\.py)"',
            lambda m: (
                f'"tests" / "{where[TESTS / m.group(1)]}" / "{m.group(1)}"'
                if TESTS / m.group(1) in where
                else m.group(0)
            ),
            new,
        )
        new = new.replace('(ROOT / "tests").glob("test_*.py")', '(ROOT / "tests").rglob("test_*.py")')
        new = new.replace(
            "Fixtures and the Chromium/playwright requirement come from tests/browser/browsing.py "
            "(skipped without them,\nfailing under CI=true). "
            "Screenshots of every page go to artifacts/screenshots/ (not committed).",
            "Fixtures come from tests/browser/conftest.py, the Chromium/playwright requirement from\n"
            "browsing.py (skipped without them, failing under CI=true). Screenshots of every page go to\n"
            "artifacts/screenshots/ (not committed).",
        )
        new = new.replace("tests/test_*.py", "tests/*/test_*.py")
        if new != text:
            path.write_text(new, encoding="utf-8")

    # the Makefile: the layers by folder
    makefile = ROOT / "Makefile"
    text = makefile.read_text(encoding="utf-8")
    text = re.sub(r"# Tests of the site rather than of the package:.*\nSITE_TESTS = .*\n", "", text)
    text = text.replace(
        '$(BIN)/pytest tests docs README.md --codeblocks -m "not browser" $(addprefix --ignore=,$(SITE_TESTS))',
        "$(BIN)/pytest tests/package docs README.md --codeblocks",
    )
    text = text.replace("(tests/sitecheck.py's built_site fixture)", "(the built_site fixture, tests/conftest.py)")
    if "SITE_TESTS" in text:
        fail("the Makefile still names SITE_TESTS: its test-package line changed; edit it by hand")
    makefile.write_text(text, encoding="utf-8")

    # pytest-playwright's fixtures (browser, context, page) instead of our own, pinned beside playwright
    pyproject = ROOT / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    if "pytest-playwright" not in text:
        text, n = re.subn(r'^(    "playwright==[^"]+",\n)', r'\1    "pytest-playwright==0.10.0",\n', text, flags=re.M)
        if n != 1:
            fail("pyproject.toml's test extra pins no playwright==...; add pytest-playwright by hand")
        pyproject.write_text(text, encoding="utf-8")

    # the built site is ignored as site/, which would hide tests/site/ from git: only the root's
    gitignore = ROOT / ".gitignore"
    text = gitignore.read_text(encoding="utf-8")
    if re.search(r"^site/$", text, flags=re.M):
        gitignore.write_text(re.sub(r"^site/$", "/site/", text, flags=re.M), encoding="utf-8")
    if subprocess.run(["git", "check-ignore", "-q", "tests/site/conftest.py"], cwd=ROOT).returncode == 0:
        fail(".gitignore ignores tests/site/: anchor the pattern that matches it (git check-ignore -v)")

    git("add", "-A", "tests", "Makefile", "conftest.py", ".gitignore")
    git("add", "-u")
    subprocess.run(
        [str(Path(sys.executable).with_name("ruff")), "check", "--fix", "--quiet", "tests"], cwd=ROOT, check=False
    )
    subprocess.run(
        [str(Path(sys.executable).with_name("ruff")), "format", "--quiet", "tests", "scripts", "conftest.py"],
        cwd=ROOT,
        check=False,
    )
    git("add", "-u")
    # a path reference that grew may now be too long for its line: those are left to be wrapped by hand
    subprocess.run([str(Path(sys.executable).with_name("ruff")), "check", "."], cwd=ROOT, check=False)
    print("staged; check with: git diff --cached -M --stat && make lint && pytest tests --collect-only -q")


if __name__ == "__main__":
    main()
