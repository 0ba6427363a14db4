"""Fixtures the site and browser tests share: the site built once per session."""

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
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return site
