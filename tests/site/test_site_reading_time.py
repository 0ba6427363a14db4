"""Home says about how long each part of the course takes to read, and the built site agrees.

The parts are the sections of mkdocs.yml's nav whose title starts with "Part " ("Part 1: backprop on
scalars"); the nav is the one list of a part's pages, so a page moved between parts takes its words
with it. Home (docs/index.md) names each part by its nav title, in a paragraph or list item that says
"about N minutes". A part's words are its pages' words as read on the built site
(prose_density.reading_length: headings, text, notes and tables' text; code blocks and display formulas
left out), read at READING_SPEED words a minute. Home rounds (to 5 minutes), so its N may be off by up
to TOLERANCE of the part's minutes; a page cut or grown by more than that fails here, with the minutes
to write. Home's minutes are exempt numbers (its front matter says how they are derived).
"""

from __future__ import annotations

import re
from pathlib import Path

import prose_density
import yaml
from sitecheck import ROOT, site_page

READING_SPEED = 200  # words a minute: an adult's pace through prose meant to be learnt from
TOLERANCE = 0.2  # Home's N may differ from the part's words / READING_SPEED by a fifth of the latter
MINUTES = re.compile(r"\babout (\d+) minutes\b")


class _NavLoader(yaml.SafeLoader):
    """mkdocs.yml as plain data: its !!python/name tags (Material's emoji functions) read as None."""


_NavLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def parts(mkdocs_yml: str) -> dict[str, list[str]]:
    """Each part of the nav, by title, with its pages as the built site names them (forward-graph,
    notebooks/backprop-by-hand), in nav order."""

    def pages(entries: list) -> list[str]:
        found: list[str] = []
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found += pages(value) if isinstance(value, list) else [Path(value).with_suffix("").as_posix()]
        return found

    nav = yaml.load(mkdocs_yml, Loader=_NavLoader)["nav"]
    sections = [next(iter(entry.items())) for entry in nav if isinstance(entry, dict)]
    return {title: pages(value) for title, value in sections if isinstance(value, list) and title.startswith("Part ")}


def suggested(minutes: float) -> int:
    """What Home would write: the part's minutes, rounded to 5."""
    return max(5, 5 * round(minutes / 5))


def reading_time_problems(home_html: str, course: dict[str, list[str]], lengths: dict[str, int]) -> list[str]:
    """Each part Home does not name, or names with a reading time more than TOLERANCE off its words'."""
    blocks = prose_density.running_text(home_html, whole=True)
    problems = []
    for title, pages in course.items():
        words = sum(lengths[page] for page in pages)
        minutes = words / READING_SPEED
        said = [b for b in blocks if title in b]
        stated = [int(n) for b in said for n in MINUTES.findall(b)]
        write = (
            f"write about {suggested(minutes)} minutes (its pages read {words:,} words at "
            f"{READING_SPEED} a minute, {minutes:.1f} minutes), and the same number in index.md's unchecked_numbers"
        )
        if len(stated) != 1:
            problems.append(f"Home should name {title!r} once, with 'about N minutes': {write}")
        elif abs(stated[0] - minutes) > TOLERANCE * minutes:
            problems.append(f"Home says {title!r} takes about {stated[0]} minutes: {write}")
    return problems


def test_home_gives_each_parts_reading_time_within_a_fifth_of_its_words_at_200_a_minute(built_site):
    course = parts((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert len(course) >= 2, f"the nav has no parts titled 'Part …': {list(course)}"
    built = prose_density.pages(built_site)
    missing = [page for pages in course.values() for page in pages if page not in built]
    assert not missing, f"pages of the nav's parts the built site lacks: {missing}"
    lengths = {name: prose_density.reading_length(built[name].read_text(encoding="utf-8")) for name in built}
    home = site_page(built_site, ROOT / "docs" / "index.md")
    problems = reading_time_problems(home, course, lengths)
    assert not problems, "\n".join(problems)


def test_the_reading_time_check_catches_a_stale_or_missing_time():
    def home(text: str) -> str:
        return f'<article class="md-content__inner">{text}</article>'

    course = {"Part 1: small": ["a", "b"], "Part 2: big": ["c"]}
    lengths = {"a": 1_000, "b": 2_000, "c": 6_000}  # 15 and 30 minutes
    fresh = home("<p><strong>Part 1: small</strong>, about 15 minutes.</p><p>Part 2: big, about 25 minutes.</p>")
    assert reading_time_problems(fresh, course, lengths) == []  # 25 is within a fifth of 30
    stale = home("<p>Part 1: small, about 20 minutes.</p><ul><li>Part 2: big, about 30 minutes.</li></ul>")
    (problem,) = reading_time_problems(stale, course, lengths)
    assert problem.startswith("Home says 'Part 1: small' takes about 20 minutes: write about 15 minutes"), problem
    assert "3,000 words" in problem
    unnamed = home("<p>Part 1: small, about 15 minutes.</p><p>Part 2, about 30 minutes.</p>")
    assert reading_time_problems(unnamed, course, lengths) == [
        "Home should name 'Part 2: big' once, with 'about N minutes': write about 30 minutes (its pages read "
        "6,000 words at 200 a minute, 30.0 minutes), and the same number in index.md's unchecked_numbers"
    ]


def test_the_parts_are_read_from_the_nav_in_order_with_nested_sections_flattened():
    nav = (
        "theme:\n  icon: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Home: index.md\n  - 'Part 1: one':\n      - A: a.md\n"
        "      - More:\n          - B: notebooks/b.ipynb\n"
        "  - 'Part 2: two':\n      - C: c.md\n  - Reference:\n      - G: glossary.md\n"
    )
    assert parts(nav) == {"Part 1: one": ["a", "notebooks/b"], "Part 2: two": ["c"]}
