"""The site tests: the built site (`built_site`, tests/conftest.py) and the toolchain that builds it.

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
