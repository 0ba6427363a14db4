"""Every page reads in short sentences (at most 20 words a sentence on average, at most one over 40), and the
course is short: the site, each page and the glossary within their budgets of words as read
(prose_density.SITE_WORDS, PAGE_WORDS, GLOSSARY_WORDS).

The measure (tests/prose_density.py, its own tests in tests/package/test_prose_density.py) reads the built site:
for density, the running text of each page's article, with code, tables, display math, figures and the
self-checks' answers left out, and an inline code span or formula one word; for length, tables' text and
the answers too.
`python -m tests.prose_density site/` prints every page's figures; with a second built site, both side by side.
"""

from pathlib import Path

import prose_density
import pytest
from prose_density import WORD, Density, density, words
from sitecheck import ROOT, site_page

DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.glob("*.md"))
NOTEBOOKS = sorted(p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.glob("notebooks/*.ipynb"))


def built(site: Path, name: str) -> str:
    if name in NOTEBOOKS:
        return (site / name / "index.html").read_text(encoding="utf-8")
    return site_page(site, DOCS / f"{name}.md")


@pytest.mark.parametrize("name", PAGES + NOTEBOOKS)
def test_a_page_averages_at_most_20_words_a_sentence_and_has_at_most_one_over_40(built_site, name):
    measured: Density = density(built(built_site, name))
    assert measured.sentences >= 10, (
        f"{name}: the measure read only {measured.sentences} sentences; is it reading the article?"
    )
    long = "\n".join(f"  ({words(s)} words) {s.replace(WORD, '`…`')}" for s in measured.long)
    assert measured.average <= prose_density.AVERAGE, f"{name}: {measured.average:.1f} words a sentence on average"
    assert len(measured.long) <= prose_density.MAX_LONG, (
        f"{name}: {len(measured.long)} sentences over 40 words:\n{long}"
    )


def test_the_readme_averages_at_most_20_words_a_sentence_and_has_at_most_one_over_40():
    measured = prose_density.readme_density((ROOT / "README.md").read_text(encoding="utf-8"))
    long = "\n".join(f"  ({words(s)} words) {s.replace(WORD, '`…`')}" for s in measured.long)
    assert measured.average <= prose_density.AVERAGE, f"README.md: {measured.average:.1f} words a sentence on average"
    assert len(measured.long) <= prose_density.MAX_LONG, (
        f"README.md: {len(measured.long)} sentences over 40 words:\n{long}"
    )


def test_the_measure_reads_every_page_the_site_builds(built_site):
    assert set(prose_density.pages(built_site)) == set(PAGES + NOTEBOOKS)


@pytest.mark.parametrize("name", PAGES + NOTEBOOKS)
def test_a_page_reads_in_at_most_its_budget_of_words(built_site, name):
    length = prose_density.reading_length(built(built_site, name))
    budget = prose_density.budget(name)
    assert length >= 100, f"{name}: the measure read only {length} words; is it reading the article?"
    assert length <= budget, f"{name}: {length:,} words as read, over its {budget:,}"


def test_the_whole_course_reads_in_at_most_its_budget_of_words(built_site):
    lengths = {name: prose_density.reading_length(built(built_site, name)) for name in PAGES + NOTEBOOKS}
    longest = ", ".join(f"{name} {n:,}" for name, n in sorted(lengths.items(), key=lambda kv: -kv[1])[:5])
    total = sum(lengths.values())
    budget = prose_density.SITE_WORDS
    assert total <= budget, f"{total:,} words as read, over {budget:,}; longest: {longest}"
