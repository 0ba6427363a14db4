"""One reading of a Markdown page, shared by the site build and the tests.

The build (runnable.py) and the checks in tests/ call `parse()`; `pytest --codeblocks` runs
pytest-codeblocks' own collection, once it agrees with `parse()` (tests/page_blocks.py), so what the
site shows and what the tests run cannot drift apart. Standard library only: the package's own tests
never import the docs toolchain. It reads pytest-codeblocks' markers as pytest-codeblocks does, and is
kept, rather than pytest-codeblocks' reader (0.18's `extract_from_buffer`), for what that one cannot
give the site: every block on its own line (it merges a cont block into the one before, and the
build labels and numbers each), the code of an embed (it has the --8<-- line) and its highlights
(fence attributes), an indented block's blank lines (it drops them, in tabs, admonitions and
lists), ~~~ fences (it reads none, so a page must not have them), and problems with their page and
line instead of an exception at the first one.

A page's python blocks run; on lines of their own right above a block, any of pytest-codeblocks' markers
    <!--pytest-codeblocks:cont-->                 runs in the namespace of the python block before
    <!--pytest-codeblocks:importorskip(torch)-->  needs torch (or numpy), which the browser lacks
What the site does with a block is an attribute on its fence, in superfences' attribute form
(```python {name="value"}): only `mg-highlight="TEXT"`, on an embed, which highlights the statement
whose first line has TEXT. pytest-codeblocks reads such a fence's language as `python {...}`: our
reader takes the language from before the braces.
After the last block of a chain, <!--pytest-codeblocks:expected-output--> and a ```text fence: the
chain's stdout, compared exactly. An embed is a python fence whose only line is
--8<-- "microgpt/file.py:NAME", NAME a function, class, method or assigned name (`Value.backward`),
or a run of them (`Value.__pow__..Value.tanh`), found with `ast`; the build hands pymdownx.snippets
the same lines by number.

parse() reports what stops it reading a page ("page:line: message": a fence or comment never closed,
a marker with no fence under it, an embed of something missing); tests/page_rules.py holds the rules
a page must also follow (fence languages, where each marker may stand, snippet notation in prose, ...).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

# packages a block may need that the in-browser Python cannot have -> their names on the block's label;
# CI installs each of them
NEEDS = {"torch": "PyTorch", "numpy": "NumPy"}

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MARKER = re.compile(r"^<!--pytest-codeblocks:(?P<cb>cont|expected-output|importorskip\((?P<needs>\w+)\))-->$")
# a fence's info string: its language, then superfences' attributes in braces (`python {mg-highlight="x = 1"}`)
INFO = re.compile(r"^(?P<lang>[^\s{]*)\s*(?:\{(?P<attrs>.*)\})?$")
ATTRIBUTE = re.compile(r'\s*(?P<key>[A-Za-z_][\w-]*)="(?P<value>[^"]*)"')
ATTRIBUTES = {"mg-highlight"}  # the attributes the site knows; blocks of other extensions take none
LOOKS_LIKE_MARKER = re.compile(r"<!--.*(pytest|mg:)", re.IGNORECASE)
# a line of pymdownx.blocks' syntax (`/// widget | relu`, `//// check | answer=6`, a closing `///`):
# markup, not prose, as an HTML tag is (mgsite/shortcodes.py reads them)
BLOCK_LINE = re.compile(r"^ {0,3}/{3,}(?:[ ]*[\w-]+[ ]*(?:\|.*)?)?$")
# a definition by its qualified name, or a run of them ("microgpt/engine.py:Value.__pow__..Value.tanh"),
# or one statement of a definition, named by text of its first line ("...:Value.backward:for v in")
# the install line `python -m mgsite.prepare` writes (wheel.py), embedded first in a console block
INSTALL_LINE = ".mgsite/install.console"
INSTALL_EMBED = f'--8<-- "{INSTALL_LINE}"'
EMBED = re.compile(
    r'^--8<-- "(?P<path>[^":]+\.py):(?P<section>[A-Za-z_][\w.]*?(?:\.\.[A-Za-z_][\w.]*)?)(?::(?P<statement>[^"]+))?"$'
)

# ---------------------------------------------------------------------------- sections of a .py file


@dataclass
class Section:
    file: str  # as the page names it, e.g. "microgpt/engine.py"
    name: str  # as the page names it, e.g. "Value.backward" or "Value.__pow__..Value.tanh"
    numbers: list[int]  # the file's line number of every line the site shows, in order
    lines: list[str]  # those lines, dedented as snippets dedents them
    statements: list[ast.stmt] = field(default_factory=list)  # the statements shown, for highlight()

    @property
    def title(self) -> str:
        first, last = self.numbers[0], self.numbers[-1]
        return f"{self.file} — " + (f"line {first}" if first == last else f"lines {first}–{last}")

    @property
    def code(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    @property
    def defined_names(self) -> list[str]:
        """The names running the excerpt defines, when defining them is all it does (a def, a class, an
        assignment), else none: such a block prints nothing, and its Run bar says what it did instead."""
        names: list[str] = []
        for statement in self.statements:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.append(statement.name)
            elif isinstance(statement, ast.Assign | ast.AnnAssign) and not any(
                isinstance(node, ast.Call) for node in ast.walk(statement)
            ):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                if not all(isinstance(target, ast.Name) for target in targets):
                    return []
                names += [target.id for target in targets if isinstance(target, ast.Name)]
            else:
                return []
        return names

    @property
    def snippet(self) -> str:
        """The same lines as pymdownx.snippets names them: by their numbers in the file."""
        return f'--8<-- "{self.file}:{self.numbers[0]}:{self.numbers[-1]}"'

    def highlight(self, text: str) -> list[int] | str:
        """The block's lines (1-based) of the one statement whose first line contains text, or a problem."""
        span = self.statement_span(text)
        if isinstance(span, str):
            return f"mg-highlight={text!r}: {span}"
        return list(range(span[0] - self.numbers[0] + 1, span[1] - self.numbers[0] + 2))

    def statement_span(self, text: str) -> tuple[int, int] | str:
        """The file's first and last line of the one statement whose first line contains text, or a problem."""
        found = {
            (node.lineno, node.end_lineno or node.lineno)
            for statement in self.statements
            for node in ast.walk(statement)
            if isinstance(node, ast.stmt) and text in self.lines[node.lineno - self.numbers[0]]
        }
        starts = {first for first, _ in found}
        if len(starts) != 1:
            where = "no statement" if not starts else f"statements on lines {sorted(starts)}"
            return f"{where} of {self.name} start with a line containing {text!r}; name exactly one"
        return max(found, key=lambda span: span[1])  # `if x: return`: the outer statement

    def only(self, text: str) -> Section | str:
        """The one statement of this section whose first line contains text, as a section of its own."""
        span = self.statement_span(text)
        if isinstance(span, str):
            return span
        first, last = span
        nodes = [n for s in self.statements for n in ast.walk(s) if isinstance(n, ast.stmt) and n.lineno == first]
        shown = textwrap.dedent("\n".join(self.lines[first - self.numbers[0] : last - self.numbers[0] + 1]))
        return Section(self.file, f"{self.name}:{text}", list(range(first, last + 1)), shown.split("\n"), nodes[:1])


def definitions(tree: ast.Module) -> dict[str, tuple[ast.stmt, list[ast.stmt]]]:
    """Every function, class and assigned name of a module by qualified name (`Value.backward`),
    with the body it stands in."""
    found: dict[str, tuple[ast.stmt, list[ast.stmt]]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            for name in names:
                found[prefix + name] = (node, body)

    visit(tree.body, "")
    return found


def find_section(path: Path, file: str, name: str) -> Section | str:
    """The lines of `name` in a .py file (a definition, or a run FIRST..LAST of them), or a problem.

    A definition starts at its first decorator, or at the comment lines right above it (its
    introduction), and ends at its last line; the gutter shows the file's own numbers.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    try:
        defined = definitions(ast.parse(text))
    except SyntaxError as error:
        return f"{file} does not parse: {error.msg} (line {error.lineno})"
    first_name, _, last_name = name.partition("..")
    missing = [n for n in (first_name, last_name or first_name) if n not in defined]
    if missing:
        return f"no function, class or name {missing[0]!r} in {file}"
    (first, body), (last, last_body) = defined[first_name], defined[last_name or first_name]
    if body is not last_body or last.lineno < first.lineno:
        return f"{name}: FIRST..LAST must name two definitions of one body, the first one first"
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
    while start > 1 and lines[start - 2].startswith(indent + "#"):
        start -= 1
    end = last.end_lineno or last.lineno
    numbers = list(range(start, end + 1))
    shown = textwrap.dedent("\n".join(lines[n - 1] for n in numbers)).split("\n")
    statements = [node for node in body if first.lineno <= node.lineno <= end]
    return Section(file, name, numbers, shown, statements)


# ---------------------------------------------------------------------------- pages


@dataclass
class Marker:
    line: int
    kind: str  # cont | expected-output | needs
    arg: str = ""


@dataclass
class Fence:
    line: int  # of the opening fence, 1-based in the page file
    end: int  # of the closing fence
    indent: str
    ticks: str
    info: str  # the language
    body: list[str]
    markers: list[Marker]
    attrs: dict[str, str] = field(default_factory=dict)  # from the fence's braces
    run: int | None = None  # python blocks: index among the page's runnable blocks
    cont: bool = False
    needs: str | None = None
    embed: Section | None = None
    highlight: list[int] = field(default_factory=list)  # 1-based lines of the block to highlight
    expected_for: int | None = None  # an expected-output fence: the run index of its block
    expected: Fence | None = None  # a python block: its checked output

    @property
    def defines(self) -> str:
        """The names the block defines, in a reader's words ("log, exp and relu"), if it is an embed whose run
        only defines names and has no checked output; else "". Its Run bar says so (runnable.py)."""
        names = self.embed.defined_names if self.embed and self.expected is None else []
        return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)

    @property
    def code(self) -> str:
        return self.embed.code if self.embed else "".join(line + "\n" for line in self.body)


@dataclass
class Page:
    path: str
    lines: list[str]
    front_matter: int  # number of lines the front matter takes (0 if none)
    fences: list[Fence]
    prose: list[tuple[int, str]]  # (line, text) of lines outside fences, comments, block lines and front matter
    problems: list[str]

    @property
    def blocks(self) -> list[Fence]:
        return [f for f in self.fences if f.run is not None]

    def chains(self) -> list[list[Fence]]:
        """Runnable blocks grouped as they run: a block and the cont blocks after it."""
        out: list[list[Fence]] = []
        for block in self.blocks:
            if block.cont:
                out[-1].append(block)
            else:
                out.append([block])
        return out


def parse(text: str, path: str = "page.md", root: Path | None = None) -> Page:
    """Read a page; `root` is where embedded files are found (the repository)."""
    lines = text.split("\n")
    problems: list[str] = []

    def say(n: int, msg: str) -> None:
        if not (msg.startswith("embed of") and any(p.endswith(f": {msg}") for p in problems)):  # once per file
            problems.append(f"{path}:{n}: {msg}")

    front = 0
    if lines and lines[0].rstrip() == "---":
        front = next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0)
        if not front:
            say(1, "front matter is not closed by ---")
    fences: list[Fence] = []
    prose: list[tuple[int, str]] = []
    pending: list[Marker] = []
    comment_from = 0  # line where an open multi-line HTML comment began
    i = front
    while i < len(lines):
        n, line = i + 1, lines[i]
        stripped = line.strip()
        if comment_from:
            if FENCE.match(line):
                say(n, f"a fence inside the HTML comment opened on line {comment_from}: the site does not show it")
            if "-->" in line:
                comment_from = 0
            i += 1
            continue
        fence = FENCE.match(line)
        if fence:
            i = _read_fence(lines, i, fence, pending, fences, say, root)
            pending = []
            continue
        marker = MARKER.match(stripped)
        if marker:
            kind = "needs" if marker["needs"] else marker["cb"]
            pending.append(Marker(n, kind, marker["needs"] or ""))
        elif LOOKS_LIKE_MARKER.search(line):
            hint = ' (a highlight is the fence\'s attribute: ```python {mg-highlight="TEXT"})' if "mg:" in line else ""
            say(n, f"not a marker this site knows, or not alone on its line: {stripped!r}{hint}")
        elif stripped.startswith("<!--") and "-->" not in stripped:
            comment_from = n
        elif stripped:
            if pending:
                say(pending[0].line, "a marker must stand right above its fence (only blank lines between)")
                pending = []
            if not stripped.startswith("<!--") and not BLOCK_LINE.match(line.rstrip()):
                prose.append((n, line))
        i += 1
    if comment_from:
        say(comment_from, "an HTML comment that is never closed")
    if pending:
        say(pending[0].line, "a marker with no fence after it")
    page = Page(path, lines, front, fences, prose, problems)
    _link_blocks(page, say)
    return page


def _read_fence(lines, i, m, markers, fences, say, root) -> int:
    """Read the fence opening at index i into `fences`; return the index after it."""
    n, indent, ticks, info = i + 1, m.group("indent"), m.group("fence"), m.group("info").rstrip()
    close = re.compile(rf"^[ \t]*{re.escape(ticks[0])}{{{len(ticks)},}}[ \t]*$")
    j = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
    if j is None:
        say(n, "a fence that is never closed")
        j = len(lines)
    body = [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in lines[i + 1 : j]]
    parts, attrs = INFO.match(info), {}
    if parts and parts["attrs"] is not None:
        found = list(ATTRIBUTE.finditer(parts["attrs"]))
        attrs = {a["key"]: a["value"] for a in found}
        if "".join(a[0] for a in found).strip() != parts["attrs"].strip() or len(attrs) != len(found):
            say(n, f'fence attributes are written {{name="value" ...}}, each once: {info!r}')
        for key in sorted(set(attrs) - ATTRIBUTES):
            say(n, f"fence attribute {key!r} is not one this site knows: {sorted(ATTRIBUTES)}")
    fence = Fence(n, j + 1, indent, ticks, parts["lang"] if parts else info, body, markers, attrs)
    fences.append(fence)
    if fence.info == "python" and ticks[0] == "`":
        embed = EMBED.match(body[0].strip()) if len(body) == 1 else None
        if embed and root is not None:
            file = root / embed.group("path")
            if not file.is_file():
                say(n, f"embed of {embed.group('path')}: no such file")
            else:
                section = find_section(file, embed.group("path"), embed.group("section"))
                if embed.group("statement") and not isinstance(section, str):
                    section = section.only(embed.group("statement"))
                if isinstance(section, str):
                    say(n, f"embed of {embed.group('path')}: {section}")
                else:
                    fence.embed = section
    return j + 1


def _link_blocks(page: Page, say) -> None:
    """Number the runnable blocks, and follow chains, what they need and their checked outputs."""
    previous: Fence | None = None  # the fence before this one
    last_block: Fence | None = None
    runs = 0
    for fence in page.fences:
        kinds = [m.kind for m in fence.markers]
        if fence.info == "python":
            fence.run, runs = runs, runs + 1
            fence.cont = "cont" in kinds and last_block is not None
            needs = [m.arg for m in fence.markers if m.kind == "needs"]
            fence.needs = last_block.needs if fence.cont and last_block else (needs[0] if needs else None)
            text = fence.attrs.get("mg-highlight")
            if text is not None:
                lines = fence.embed.highlight(text) if fence.embed is not None else "only an embed"
                if isinstance(lines, str):
                    say(fence.line, lines if fence.embed else f"mg-highlight={text!r}: {lines} has highlights")
                else:
                    fence.highlight = lines
            last_block = fence
        elif "expected-output" in kinds and previous is not None and previous.run is not None:
            if previous.expected is None:
                previous.expected, fence.expected_for = fence, previous.run
        previous = fence
