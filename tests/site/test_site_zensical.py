"""Zensical builds the same pages as MkDocs: the same code blocks (language, run attributes, title,
gutter, code), formulas (MathML), graphs and self-checks, page by page (tests/site_features.py).

The Zensical build is `make build-zensical`'s site-zensical/ (or MICROGPT_ZENSICAL_SITE). The notebook
page is MkDocs-only: mkdocs-jupyter is an MkDocs plugin, which Zensical does not run, so Zensical
publishes no page for it.
"""

import os
from pathlib import Path

import pytest
from site_features import features
from sitecheck import ROOT

ZENSICAL_SITE = Path(os.environ.get("MICROGPT_ZENSICAL_SITE") or ROOT / "site-zensical")
NOTEBOOK_PAGES = {"notebooks/backprop-by-hand/index.html"}


@pytest.fixture(scope="module")
def zensical_site() -> Path:
    if not (ZENSICAL_SITE / "index.html").is_file():
        why = f"no Zensical build in {ZENSICAL_SITE}: run `make build-zensical` (`make test` builds it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why, pytrace=False)  # CI runs `make test`, which builds it: a missing build is a fault
        pytest.skip(why)
    return ZENSICAL_SITE


def pages(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("index.html") if "assets" not in p.parts}


# The pages compared, from their sources (docs/x.md is published as x/index.html), not from a built site: with
# no build the comparison fails (zensical_site, built_site), never collects nothing and passes
MARKDOWN_PAGES = sorted(
    "index.html" if md.stem == "index" else md.relative_to(ROOT / "docs").with_suffix("").as_posix() + "/index.html"
    for md in (ROOT / "docs").rglob("*.md")
)


def test_zensical_publishes_every_page_but_the_notebook(built_site, zensical_site):
    assert pages(zensical_site) == pages(built_site) - NOTEBOOK_PAGES
    assert pages(zensical_site) == set(MARKDOWN_PAGES), "the comparison below is not of every page"


@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_zensical_shows_the_same_blocks_formulas_graphs_and_checks(built_site, zensical_site, page):
    ours, theirs = (features((site / page).read_text(encoding="utf-8")) for site in (built_site, zensical_site))
    assert theirs == ours
    assert ours, f"{page}: no block, formula, graph or check to compare"
