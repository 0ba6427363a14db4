"""The glossary holds every term the pages use, and its links hold up.

- Each entry ends with "See …" links, and each page it points to (the section, when the link names
  an anchor) uses the term outside a link to the glossary: a page that only links the word back
  here does not explain it.
- Each term is used on at least one page besides the glossary.
- Every link into the glossary, from any page or from the glossary itself, lands on an entry.

The pages are read from their source (docs/*.md and the notebooks' cells), so nothing needs a
build. A term matches case-insensitively as a whole word, plural allowed, with any kind of dash
read as a hyphen. The words of a heading in parentheses are alternative names ("Parent (user)");
ALIASES lists the few other names a page may use for a term.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify  # the toc extension's own: the anchors the site gives headings
from sitecheck import ROOT

DOCS = ROOT / "docs"
GLOSSARY = DOCS / "glossary.md"

# Other names under which a page may use a term (the heading's own words always count).
ALIASES: dict[str, list[str]] = {
    "BOS token": ["BOS"],  # the pages say "a BOS on each side"
    "Gradient checking": ["gradient check"],
    "Held-out set": ["held-out"],  # "held-out names", "held-out loss"
    "Logits": ["logit"],
    "Query, key, value": ["query", "queries"],  # one of the three named is enough
    "Residual stream": ["residual"],  # "the residual add"
    "Taylor expansion": ["Taylor"],  # "Taylor's theorem"
}

# Sections of the glossary that are not terms: the notation table (tests/package/test_notation.py checks it).
NOT_TERMS = {"Notation"}

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]*)(?:#([^)\s]*))?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)\s*\})?\s*$")


@dataclass
class Entry:
    term: str
    anchors: list[str]  # the heading's, then any <a id> inside the entry
    body: str


def glossary_entries(text: str) -> list[Entry]:
    entries: list[Entry] = []
    for chunk in re.split(r"^(?=## )", text, flags=re.M)[1:]:
        heading, _, body = chunk.partition("\n")
        m = HEADING.match(heading)
        assert m, heading
        term = m.group(2)
        if term in NOT_TERMS:
            continue
        anchors = [m.group(3) or slugify(term, "-")] + re.findall(r'<a id="([\w-]+)"', body)
        entries.append(Entry(term, anchors, body))
    return entries


def names(term: str) -> list[str]:
    """The ways a page may write the term: the heading, the words in and outside its parentheses, ALIASES."""
    found = [term, *ALIASES.get(term, [])]
    outside, inside = re.sub(r"\s*\(.*?\)", "", term), re.findall(r"\((.*?)\)", term)
    return [n for n in dict.fromkeys([*found, outside, *inside]) if n]


def normal(text: str) -> str:
    """Lower case, one space for any run of white space (a term may wrap), a hyphen for any dash."""
    return re.sub(r"\s+", " ", re.sub(r"[\u2010-\u2015\u2212]", "-", text)).lower()


def uses(text: str, term: str) -> bool:
    """Whether text uses the term as a word (plural allowed), in any of its names."""
    text = normal(text)
    return any(re.search(rf"(?<![\w-]){re.escape(normal(n))}(?:s|es)?(?![\w-])", text) for n in names(term))


def without_glossary_links(text: str) -> str:
    """The text with every link into the glossary removed, words and all."""
    return LINK.sub(lambda m: "" if m.group(2) == "glossary.md" else m.group(0), text)


def page_text(path: Path) -> str:
    """A page's source: the Markdown, or a notebook's cells."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells)
    return path.read_text(encoding="utf-8")


def section(text: str, anchor: str | None) -> str:
    """The part of a page under the heading with this anchor (to the next heading as high), or all of it."""
    if not anchor:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        if m and (m.group(3) or slugify(m.group(2), "-")) == anchor:
            level = len(m.group(1))
            end = next(
                (j for j in range(i + 1, len(lines)) if (h := HEADING.match(lines[j])) and len(h.group(1)) <= level),
                len(lines),
            )
            return "\n".join(lines[i:end])
    raise AssertionError(f"no heading with the anchor #{anchor}")


def see_links(entry: Entry) -> list[tuple[str, str | None]]:
    """The (page, anchor) pairs of the entry's closing "See …" sentence."""
    see = list(re.finditer(r"\bSee\s", entry.body))
    assert see, f"{entry.term}: the entry has no 'See …' sentence"
    tail = entry.body[see[-1].end() :]
    return [(m.group(2), m.group(3)) for m in LINK.finditer(tail) if m.group(2)]


def see_problems(entries: list[Entry], read) -> list[str]:
    """Every "See" link whose page (or section) does not use the entry's term outside glossary links."""
    found = []
    for entry in entries:
        links = see_links(entry)
        if not links:
            found.append(f"{entry.term}: 'See' names no page")
        for page, anchor in links:
            text = read(page)
            if text is None:
                found.append(f"{entry.term}: 'See' points at {page}, which does not exist")
            elif not uses(without_glossary_links(section(text, anchor)), entry.term):
                where = f"{page}#{anchor}" if anchor else page
                found.append(f"{entry.term}: 'See' points at {where}, which never uses the term {names(entry.term)}")
    return found


def read_page(page: str) -> str | None:
    path = DOCS / page
    return page_text(path) if path.is_file() else None


def site_pages() -> list[Path]:
    return sorted([*DOCS.glob("*.md"), *DOCS.glob("notebooks/*.ipynb")])


ENTRIES = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))


def test_every_see_link_points_at_a_page_that_uses_the_term():
    found = see_problems(ENTRIES, read_page)
    assert not found, "\n".join(found)


def test_every_glossary_term_is_used_on_some_page():
    pages = {p.relative_to(DOCS).as_posix(): page_text(p) for p in site_pages() if p != GLOSSARY}
    unused = [e.term for e in ENTRIES if not any(uses(text, e.term) for text in pages.values())]
    assert not unused, f"glossary terms no page uses: {unused}"


@pytest.mark.parametrize("page", site_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_link_into_the_glossary_lands_on_an_entry(page):
    anchors = {a for e in ENTRIES for a in e.anchors} | {slugify(t, "-") for t in NOT_TERMS}
    text = page_text(page)
    into = "" if page == GLOSSARY else "glossary.md"
    links = [m for m in LINK.finditer(text) if m.group(2) == into and m.group(3) is not None]
    bad = [f"[{m.group(1)}]({m.group(2)}#{m.group(3)})" for m in links if m.group(3) not in anchors]
    assert not bad, f"{page.relative_to(DOCS)}: links to no glossary entry: {bad}"


def test_the_checks_catch_a_see_link_to_a_page_that_only_links_the_term_back():
    entries = glossary_entries(
        "## Widget\n\nA thing. See [Page](page.md).\n\n## Gadget\n\nOther. See [Page](page.md#part-two).\n"
    )
    page = "# Page\n\nOnly a [widget](glossary.md#widget) here.\n\n## Part one\n\nGadgets.\n\n## Part two\n\nNone.\n"
    pages = {"page.md": page}
    found = see_problems(entries, pages.get)
    assert len(found) == 2 and found[0].startswith("Widget:") and "page.md#part-two" in found[1], found
    assert see_problems(entries[:1], {"page.md": "Widgets, plural."}.get) == []
    assert see_problems(entries[:1], {}.get) == ["Widget: 'See' points at page.md, which does not exist"]


def test_a_term_matches_as_a_whole_word_in_any_of_its_names():
    assert uses("the users of v", "Parent (user)") and uses("a Vector-Jacobian product", "Vector–Jacobian product")
    assert not uses("lm_head", "Head") and not uses("ahead of time", "Head")
    assert names("Parent (user)") == ["Parent (user)", "Parent", "user"]


# Terms a review found used before they were defined. On each page their entry's "See" points to, the
# term's first use is its link into the glossary (or a bold definition there): a reader meets the
# word and its meaning together. Add a term here when a review finds another.
LINKED_AT_FIRST_USE = ["Root", "Edge", "Jacobian", "Bias correction", "Interior node"]


def first_use_problems(entry: Entry, read) -> list[str]:
    found = []
    for page, _anchor in see_links(entry):
        text = read(page)
        text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # code is not prose
        text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)  # nor front matter
        first = min(filter(None, (_first(text, n) for n in names(entry.term))), key=lambda m: m.start(), default=None)
        if first is None:
            found.append(f"{entry.term}: {page} never uses it")
            continue
        links = [m.span() for m in LINK.finditer(text) if m.group(2) == "glossary.md"]
        if not any(start <= first.start() < end for start, end in links):
            line = text[: first.start()].count("\n") + 1
            found.append(f"{entry.term}: its first use on {page} (line {line} of the prose) is not a glossary link")
    return found


def _first(text: str, name: str):
    return re.search(rf"(?<![\w-]){re.escape(name)}(?:s|es)?(?![\w-])", text, flags=re.I)


@pytest.mark.parametrize("term", LINKED_AT_FIRST_USE)
def test_a_term_once_used_before_its_definition_is_linked_where_each_page_first_uses_it(term):
    entry = next((e for e in ENTRIES if e.term == term), None)
    assert entry, f"the glossary has no entry {term!r}"
    found = first_use_problems(entry, read_page)
    assert not found, "\n".join(found)


def test_the_first_use_check_catches_a_term_used_before_its_link():
    entry = glossary_entries("## Root\n\nThe start. See [Page](page.md).\n")[0]
    late = "The root is here.\n\nLater the [root](glossary.md#root) is linked.\n"
    assert first_use_problems(entry, {"page.md": late}.get) == [
        "Root: its first use on page.md (line 1 of the prose) is not a glossary link"
    ]
    early = "```python\nroot = 1\n```\n\nThe [root](glossary.md#root), then the root again.\n"
    assert first_use_problems(entry, {"page.md": early}.get) == []
