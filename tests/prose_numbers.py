"""Every number a page states is computed on that page, or its exemption is written down.

    python -m tests.prose_numbers docs/backward-pass.md README.md    # lists the violations, exits 1 if any

A number in prose or math (anything outside code fences, inline code included) is checked, however
small: the 15 of "a holds 15" is a claim like any other. Not read as claims: the number of an
ordered list's item ("3. Why a backward pass") and a tab's leading step number (=== "4–5: visit c"),
which are labels; a number that is part of a name (UTF-8, SHA-256); and an exponent in a formula
(the 2 of x^2), which is part of what the formula says rather than a result. A checked number must
be printed by one of the page's expected outputs or appear in one of its runnable blocks (embedded
code included), with the same value and sign: -3 matches -3.0, not 3. Otherwise the page lists it in
its front matter, with a reason, for the tests and the authors (the site never shows front matter):

    ---
    unchecked_numbers:
      "1990": the year of the census name lists
    ---

README.md, which GitHub and PyPI would show front matter of, gives the same YAML in an HTML
comment on its first lines: <!-- unchecked_numbers: ... -->. A notebook has no exemptions: every
number its Markdown cells state is printed by, or written in, one of its code cells
(`check_notebook`, on the executed notebook).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from mgsite import blocks as mdblocks  # noqa: E402  (the one reader of pages)

# not the 8 of UTF-8 or the 256 of SHA-256: part of a name (a capital letter and a hyphen before it;
# the 3 of b-3 in a formula is still a number)
# 23,104 in prose and 23{,}104 in math (TeX's comma without a punctuation space) are one number
NUMBER = re.compile(r"(?<![\w.])(?<![A-Z]-)(?:\d{1,3}(?:(?:,|\{,\})\d{3})+|\d+(?:_\d+)*)(?:\.\d+)*(?:[eE][-+]?\d+)?")
SIGNS = "-+\u2212"
NOT_PROSE = re.compile(
    r"https?://\S+"  # addresses
    r"|\]\([^)]*\)"  # link targets
    r"|<[^>]*>"  # HTML tags and their attributes
    r"|\{[:#.][^}]*\}"  # attribute lists
    r"|^\s*\[[^\]]+\]:.*"  # link reference definitions
    r"|^\s*\d+[.)](?=\s)"  # an ordered list item's number
    r'|^\s*[=?!]{3}\+?\s*"\d+(?:\s*[-\u2013]\s*\d+)?(?=[.:])'  # a tab's leading step number: === "4–5: visit c"
)
# reserved_symbols: the glossary's, which tests/package/test_notation.py reads
FRONT_MATTER_KEYS = {"title", "description", "unchecked_numbers", "reserved_symbols"}


LATEX_POWER_OF_TEN = re.compile(r"(?:(?P<m>\d+(?:\.\d+)?)\s*\\(?:times|cdot)\s*)?(?<![\d.])10\^\{?(?P<e>[-−]?\d+)\}?")
EXPONENT = re.compile(r"\^\{?[-+−]?\d+\}?")  # the 2 of x^2 or b^{-2} is part of a formula, not a result


def numbers(text: str) -> list[str]:
    """Every number in a piece of text, as written, with its sign when one is written right before it."""
    text = LATEX_POWER_OF_TEN.sub(lambda m: f"{m['m'] or 1}e{m['e'].replace(chr(0x2212), '-')}", text)
    text = EXPONENT.sub(" ", text)
    out = []
    for m in NUMBER.finditer(text):
        start, written = m.start(), m.group()
        before = text[start - 2 : start - 1] if start >= 2 else ""
        if start and text[start - 1] in SIGNS and not (before and (before.isalnum() or before in ")]}._" + SIGNS)):
            written = text[start - 1] + written
        out.append(written)
    return out


def value(written: str) -> Decimal | str:
    """The key a number is matched by: -3, −3 and -3.0 are the same number; a version stays text."""
    text = written.replace("\u2212", "-").replace("{,}", "").replace(",", "").replace("_", "").lstrip("+")
    try:
        return Decimal(text)
    except InvalidOperation:
        return text


def front_matter(text: str, path: str) -> tuple[dict, list[str]]:
    """The page's front matter (README.md: its leading HTML comment), and what is wrong with it."""
    import yaml  # PyYAML comes with mkdocs

    lines = text.split("\n")
    opener, closer = ("<!--", "-->") if Path(path).name == "README.md" else ("---", "---")
    if not lines or lines[0].strip() != opener:
        return {}, []
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == closer), None)
    if end is None:
        return {}, [f"{path}:1: front matter is not closed by {closer}"]
    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as error:
        return {}, [f"{path}:1: front matter is not YAML: {error}"]
    if not isinstance(meta, dict):
        return {}, [f"{path}:1: front matter is not a mapping"]
    problems = [f"{path}:1: unknown front matter key {key!r}" for key in meta if key not in FRONT_MATTER_KEYS]
    exempt = meta.get("unchecked_numbers") or {}
    if not isinstance(exempt, dict) or not all(isinstance(r, str) and r.strip() for r in exempt.values()):
        problems.append(f'{path}:1: unchecked_numbers maps each number to its reason: "1990": the census year')
        exempt = {}
    return {**meta, "unchecked_numbers": exempt}, problems


def not_computed(prose: Iterable[tuple[int, str]], computed: set) -> Iterator[tuple[int, str]]:
    """(line, number as written) for every number in the prose lines whose value is not in computed."""
    for line, text in prose:
        for written in numbers(NOT_PROSE.sub(" ", text)):
            if value(written) not in computed:
                yield line, written


def check(text: str, path: str, root: Path = ROOT) -> list[str]:
    """Every violation of the rule on one page, as "page:line: message"."""
    page = mdblocks.parse(text, path, root)
    meta, problems = front_matter(text, path)
    computed = {
        value(n)
        for chain in page.chains()
        for block in chain
        for source in (block.code, *([] if block.expected is None else block.expected.body))
        for n in numbers(source)
    }
    exempt = {value(str(n)): str(n) for n in meta.get("unchecked_numbers", {})}
    used = set()
    for line, written in not_computed(page.prose, computed):
        key = value(written)
        if key in exempt:
            used.add(key)
        else:
            problems.append(
                f"{path}:{line}: {written} is not printed or used by any block on this page; print it in a "
                "checked output, or list it under unchecked_numbers: in the front matter with a reason"
            )
    for key, written in exempt.items():
        if key not in used:
            problems.append(f"{path}:1: unchecked_numbers lists {written}, which the prose does not need to exempt")
    return problems


def check_notebook(notebook, path: str) -> list[str]:
    """Every number a Markdown cell of an executed notebook (an nbformat node) states that no code
    cell prints or contains, as "notebook, cell id, line: message"."""
    computed = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        outputs = [o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs]
        computed |= {value(n) for source in (cell.source, *outputs) for n in numbers(source)}
    return [
        f"{path}: cell {cell.get('id')}, line {line}: {written} is not printed or used by any code cell"
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for line, written in not_computed(enumerate(cell.source.split("\n"), start=1), computed)
    ]


def main(paths: list[str]) -> int:
    problems = [p for path in paths for p in check(Path(path).read_text(encoding="utf-8"), path)]
    print("\n".join(problems) or f"{len(paths)} page(s): every number in the prose is computed or exempted")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
