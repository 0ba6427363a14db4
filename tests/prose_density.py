"""How dense a page's running text is: words per sentence, read from the built site.

    python -m tests.prose_density site/            # every page: sentences, words a sentence, over 40, words read
    python -m tests.prose_density site/ old-site/  # the same, with an older build's figures beside them

README.md is not part of the site: it is measured from its Markdown, rendered by Python-Markdown
(`readme_density`), and listed last.

Running text is what a reader reads as sentences: the paragraphs and list items of the page's
article, admonitions, tabs, footnotes and self-check questions and hints included. Left out are code
blocks, tables, display formulas, figures and diagrams (SVG, the widgets), headings, admonition and
note titles, the labels the build puts over blocks and a self-check's answer (its "Why"). An inline code
span and an inline formula each count as one word.

A page's length (`reading_length`) is every word a reader meets in its article: the running text, and
also headings, note titles, tables' cells and self-checks' titles and answers.

A sentence ends at the end of its paragraph or list item, or at a word that ends in ".", "!" or "?"
(closing quotes and brackets may follow), whatever the next word is: "microgpt" starts sentences in
lower case. So "0.25", "x.grad" and "`a.grad`" hold no end (a code span is one word); "e.g.", "i.e.",
"cf.", "vs." and "et al." never end a sentence, and "etc." only before a capital letter, a digit, a
code span or a formula; a colon or a semicolon never does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

WORD = "\ue000"  # stands for an inline code span or formula: one word, never a sentence's end
# what a sentence may end with; a period after these is part of the word, never the end of a sentence
ABBREVIATIONS = {"e.g.", "i.e.", "cf.", "vs.", "al.", "approx.", "eq.", "fig.", "resp."}
OPENING = "\"'“‘([{«"
CLOSING = "\"'”’)]}»"
ENDS = re.compile(r"[.!?][" + re.escape(CLOSING) + r"]*$")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# elements whose text is not running text, by tag or by one of their classes
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SKIPPED_TAGS = {"pre", "table", "figure", "svg", "summary", "script", "style"} | HEADINGS
SKIPPED_CLASSES = {
    "highlight",  # a code block (pymdownx.highlight)
    "admonition-title",
    "mg-marks",  # "Continues the block above", "Checked output", "Needs …"
    "autograd-widget",
    "autograd-playground",
    "autograd-diagram",
    "autograd-check__title",
    "autograd-check__status",
    "autograd-check__explain",  # a self-check's answer
    "footnote-ref",
    "footnote-backref",
    "headerlink",
    "jp-CodeCell",  # a notebook's code cell and its outputs
    "tabbed-labels",
}


@dataclass(frozen=True)
class Density:
    sentences: int
    words: int
    long: tuple[str, ...]  # the sentences over LONG words, in page order
    length: int = 0  # every word a reader meets in the article (reading_length)

    @property
    def average(self) -> float:
        return self.words / self.sentences if self.sentences else 0.0


AVERAGE = 20  # at most this many words per sentence, on average over a page
LONG = 40  # a sentence over this many words is long; a page may have at most MAX_LONG
MAX_LONG = 1
# how long the course reads, in reading_length's words: the whole site, any one page, the glossary
SITE_WORDS = 22_000
PAGE_WORDS = 2_000
GLOSSARY_WORDS = 2_500


def words(sentence: str) -> int:
    return sum(1 for token in sentence.split() if any(c.isalnum() or c == WORD for c in token))


def _starts_sentence(token: str) -> bool:
    first = token.lstrip(OPENING)[:1]
    return bool(first) and (first.isupper() or first.isdigit() or first == WORD)


def _ends_sentence(token: str, following: str) -> bool:
    """Whether `token` ends a sentence, `following` being the next word."""
    if not ENDS.search(token):
        return False
    bare = token.lstrip(OPENING).rstrip(CLOSING).lower()
    if bare in ABBREVIATIONS:
        return False
    # "etc." ends a sentence only before what starts one; any other word before a lower-case one
    # does ("… a one-line rule. microgpt's engine …": names such as microgpt start sentences in lower case)
    return _starts_sentence(following) or bare != "etc."


def sentences(text: str) -> list[str]:
    """The sentences of one paragraph or list item (inline code and formulas already one WORD each)."""
    tokens = text.split()
    out, current = [], []
    for i, token in enumerate(tokens):
        current.append(token)
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not following or _ends_sentence(token, following):
            if words(" ".join(current)):
                out.append(" ".join(current))
            current = []
    return out


class _Article(HTMLParser):
    """The running text of a built page's article, as a list of paragraphs and list items.

    With `whole`, also the text a reader reads that is not sentences: headings, note titles, table cells
    (each one a block) and a self-check's answer; what reading_length counts."""

    def __init__(self, whole: bool = False):
        super().__init__(convert_charrefs=True)
        self.skipped_tags = SKIPPED_TAGS - ({"table", "summary"} | HEADINGS) if whole else SKIPPED_TAGS
        read_too = {"admonition-title", "autograd-check__title", "autograd-check__explain"}
        self.skipped_classes = SKIPPED_CLASSES - read_too if whole else SKIPPED_CLASSES
        self.blocks_at = {"p", "li", "td", "th", "summary"} | HEADINGS if whole else {"p", "li"}
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped: the element or one around it is not prose)
        self.in_article = False
        self.blocks: list[str] = []
        self.open: list[list[str]] = []  # the paragraphs and list items being read, innermost last
        self.word_depth = 0  # inside an inline code span or formula, counted as one word

    @property
    def skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if not self.in_article:
            if tag == "article" and "md-content__inner" in classes:
                self.in_article = True
                self.stack = [(tag, False)]
            return
        if tag in VOID:
            self.handle_data(" ")
            return
        skip = (
            self.skipped
            or tag in self.skipped_tags
            or bool(classes & self.skipped_classes)
            or a.get("display") == "block"
        )
        self.stack.append((tag, skip))
        if skip:
            return
        if self.word_depth or tag in ("math", "code"):
            if not self.word_depth:
                self.handle_data(WORD)
            self.word_depth += 1
        elif tag in self.blocks_at:
            self.open.append([])
        elif tag in ("div", "br", "blockquote", "ul", "ol", "dl", "dd", "dt"):
            self.handle_data(" ")

    def handle_startendtag(self, tag, attrs):  # <mspace /> and other self-closed elements: nothing to read
        if self.in_article and tag not in VOID:
            self.handle_starttag(tag, attrs)
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if not self.in_article or tag in VOID:
            return
        while self.stack:
            open_tag, skip = self.stack.pop()
            if not skip:
                if self.word_depth:
                    self.word_depth -= 1
                elif open_tag in self.blocks_at and self.open:
                    text = " ".join("".join(self.open.pop()).split())
                    if text:
                        self.blocks.append(text)
            if open_tag == tag:
                break
        if not self.stack:
            self.in_article = False

    def handle_data(self, data):
        if not self.in_article or self.skipped or self.word_depth or not self.open:
            return
        self.open[-1].append(data)


def running_text(page_html: str, whole: bool = False) -> list[str]:
    """The paragraphs and list items of a built page's article, inline code and formulas one WORD each
    (with `whole`, table cells and self-check answers too)."""
    reader = _Article(whole)
    reader.feed(page_html)
    reader.close()
    return reader.blocks


def reading_length(page_html: str) -> int:
    """The words a reader meets in a page's article: its headings, paragraphs, list items, notes open or
    collapsed (titles too), tables' text and self-checks, with code blocks, display formulas, figures and
    the labels over blocks left out, and an inline code span or formula one word."""
    return sum(words(block) for block in running_text(page_html, whole=True))


def density(page_html: str) -> Density:
    found = [s for block in running_text(page_html) for s in sentences(block)]
    long = tuple(s for s in found if words(s) > LONG)
    return Density(len(found), sum(map(words, found)), long, reading_length(page_html))


def pages(site: Path) -> dict[str, Path]:
    """Each page of a built site by its name (index, model, notebooks/backprop-by-hand, …): its article."""
    found = {}
    for page in sorted(site.rglob("index.html")):
        if 'class="md-content__inner' in page.read_text(encoding="utf-8"):
            name = page.parent.relative_to(site).as_posix()
            found["index" if name == "." else name] = page
    return found


def measure(site: Path) -> dict[str, Density]:
    return {name: density(path.read_text(encoding="utf-8")) for name, path in pages(site).items()}


def readme_density(markdown_text: str) -> Density:
    """A Markdown page outside the site (README.md), rendered as GitHub would show its text."""
    import markdown  # Python-Markdown, which the docs toolchain brings

    body = markdown.markdown(markdown_text, extensions=["tables", "fenced_code"])
    return density(f'<article class="md-content__inner">{body}</article>')


def table(after: dict[str, Density], before: dict[str, Density] | None = None) -> str:
    def cells(d: Density | None) -> str:
        if d is None:
            return f"{'—':>9} {'—':>6} {'—':>4} {'—':>6}"
        return f"{d.sentences:>9} {d.average:>6.1f} {len(d.long):>4} {d.length:>6}"

    head = f"{'page':<32} {'sentences':>9} {'w/sent':>6} {'>40':>4} {'words':>6}"
    width = len(head) - 33
    lines = [head]
    if before:
        lines = [f"{'':<32} {'before':^{width}}   {'after':^{width}}", f"{'page':<32}{head[32:]}  {head[32:]}"]
    for name in sorted(set(after) | set(before or {})):
        row = f"{name:<32} "
        row += (cells(before.get(name)) + "   " if before is not None else "") + cells(after.get(name))
        d = after.get(name)
        if d is not None and (d.average > AVERAGE or len(d.long) > MAX_LONG or d.length > budget(name)):
            row += "   over"
        lines.append(row)

    def total(measured: dict[str, Density]) -> int:
        return sum(d.length for name, d in measured.items() if name != "README.md")

    sums = (f"{total(before):>{width}}   " if before is not None else "") + f"{total(after):>{width}}"
    lines.append(f"{'the site, words read':<32} {sums}   (at most {SITE_WORDS:,})")
    return "\n".join(lines)


def budget(name: str) -> int:
    """The most words a page may have as a reader reads it."""
    if name == "README.md":
        return sys.maxsize  # not part of the course
    return GLOSSARY_WORDS if name == "glossary" else PAGE_WORDS


def main(args: list[str]) -> int:
    if not 1 <= len(args) <= 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    after = measure(Path(args[0]))
    before = measure(Path(args[1])) if len(args) == 2 else None
    readme = Path(__file__).resolve().parent.parent / "README.md"
    after["README.md"] = readme_density(readme.read_text(encoding="utf-8"))
    print(table(after, before))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
