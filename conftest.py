"""pytest setup for the whole repository.

The package's tests need only the `test` extra. With --codeblocks,
tests/page_blocks.py runs the Python blocks of Markdown pages. The tests' fixtures are in
tests/conftest.py (the built site) and in the conftest.py of each layer: tests/package/,
tests/site/ and tests/browser/.

Two guards for every test, here: each runs with a home and a cache directory of its own (fresh_home),
and under CI=true a run fails on a skip it does not expect (EXPECTED_SKIPS).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
CI = os.environ.get("CI", "").lower() == "true"

# Nothing the test run starts reads or writes the home directory of whoever runs it: what is set up for
# the whole run (the site's build, the reader's virtualenv, the browser) gets a home of the run's own,
# set before xdist starts its workers, which inherit it; each test then gets a fresh one (fresh_home).
if "MICROGPT_TESTS_HOME" not in os.environ:
    os.environ["MICROGPT_TESTS_HOME"] = os.environ["HOME"] = tempfile.mkdtemp(prefix="microgpt-tests-home-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(os.environ["HOME"], ".cache")
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(autouse=True)
def fresh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home and cache directory (HOME, XDG_CACHE_HOME) for each test and the programs it starts:
    what microgpt keeps in the user's cache (the speed it measured, microgpt/runtime/speed.py) is never
    the user's, nor what an earlier test left, so a test passes alone and in any order. Each command line
    a test runs is then a first run, which measures this machine's speed (about half a second of CPU)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return home


# The skips a CI run expects, by the start of their reason, and why each is no check left out. Any other
# skip under CI=true fails the run: a test that cannot run there is a fault of the set-up, not a pass.
EXPECTED_SKIPS = {
    "root may write into a read-only directory": "CI runs as root, who can: the check needs another user",
    # the comparisons with PyTorch run on the Python that has torch (MICROGPT_REQUIRE_TORCH=1 there fails
    # instead of skipping); the other Pythons of `make test` (scripts/test-pythons) have no torch
    "torch is not installed": "on a Python without torch (scripts/test-pythons)",
    "could not import 'torch'": "a page's block that needs torch, on a Python without it (scripts/test-pythons)",
    # mypy is a lint tool (the lint extra, in .venv): its plugin's test runs there, once, as the type check does
    "could not import 'mypy.api'": "on a Python with the docs and test extras only (scripts/test-pythons)",
}


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_configure(config):
    if config.getoption("codeblocks", default=False):
        import page_blocks  # only with --codeblocks: it loads pytest-codeblocks and reads every page

        config.pluginmanager.register(page_blocks, "page_blocks")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under CI=true, a skip whose reason EXPECTED_SKIPS does not name fails the run (xdist's controller
    sees every worker's reports)."""
    if not CI or hasattr(session.config, "workerinput"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    unexpected = [r for r in skipped if not _reason(r).startswith(tuple(EXPECTED_SKIPS))]
    if unexpected:
        reporter.write_line(f"CI=true: {len(unexpected)} unexpected skip(s), each a check that did not run:", red=True)
        for r in unexpected:
            reporter.write_line(f"  {r.nodeid}: {_reason(r)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
