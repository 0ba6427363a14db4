"""The package's tests: the standard library, the test extra, torch if there; no site, no browser.

They run on every Python the package claims (scripts/test-pythons; `make test-package` adds every page's blocks
and README.md's on .venv's Python), where neither the built site nor Chromium is.
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
