"""The browser tests' fixtures: the built site served on 127.0.0.1, opened in Debian's Chromium.

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
    from browsing import CHROMIUM, FLAGS  # here: without Chromium or playwright it skips the file importing it

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
    from browsing import Watched  # here: without Chromium or playwright it skips the file importing it

    w = Watched(browser, base_url)
    yield w
    try:
        assert w.problems() == []
    finally:
        w.close()
