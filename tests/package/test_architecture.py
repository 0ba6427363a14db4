"""The maps are true: every file and name ARCHITECTURE.md cites exists, and every path the guides name (README.md,
CONTRIBUTING.md, the Makefile, pyproject.toml, the stylesheet).

ARCHITECTURE.md cites, in backticks in its text and anywhere in its diagrams (its ```text blocks):
- a file or folder by its path, whole or its end (`microgpt/course/trace.py`, `course/trace.py`, `blocks.js`): some
  file or folder of the repository has that path or ends with it;
- a module by its dotted name (`mgsite.extension`, `microgpt.course.live`), or a name in one (`graphs.CheckForms`,
  `runner.run_chain`, `python.runChain`): the module's file exists (as .py or .js), and holds the name;
- any other name of the code (`PAGE_READY`, `mountWidgets()`, `data-mg-run`, `document$`): a file of the repository
  holds it as a word;
- a command (`make build`, `python -m mgsite.prepare`): the Makefile has the target, the module exists.
A placeholder is written in capitals (`docs/PAGE.md:LINE`, `NAME`, `SITE`) and is not looked up. A path the
repository ignores (.gitignore: site/, docs/dist/, node_modules/) is one a build or an install makes, and need not
exist. README.md, CONTRIBUTING.md, the Makefile, pyproject.toml and the stylesheet's comments name paths with a
slash in them (`tests/site/test_install.py`, `docs/javascripts/`): each that starts at the repository's top or names a
file must be such a path too, and each `make TARGET` they show must be a target. The repository's files are git's:
those it tracks and those it would track (git ls-files), never what a build or an install left on this machine.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
MAP = ROOT / "ARCHITECTURE.md"

FENCE = re.compile(r"^(`{3,})(\w*).*?\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")  # inline code may run over a line break
EXTENSIONS = "py|js|mjs|ts|md|css|html|yml|yaml|toml|json|txt|console|ipynb|cfg|in|sh"
# a path: a word with a slash in it, or a file name with one of the repository's extensions
PATH = re.compile(rf"(?:\.\./|\./)*(?:[\w.*-]+/)+(?:[\w.*-]+)?|[\w-]+(?:\.[\w-]+)*\.(?:{EXTENSIONS})\b")
DOTTED = re.compile(r"(?<![\w$-])[A-Za-z_]\w*(?:\.[A-Za-z_$][\w$]*)+(?![\w$-])")  # not a CSS selector
# a name of the code rather than a word of English: with an underscore, a capital inside it, a $, a call, or an
# attribute written as HTML writes one
CODE_NAME = re.compile(
    r"(?<![\w$-])(?:[A-Za-z_$][\w$]*\(|[A-Z][a-z]+[A-Z]\w*|[A-Za-z]*_\w*|[a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*|[A-Za-z]\w*\$|data-[\w-]*\w|mg:\w+"
    r"|--[a-z][\w-]*)"
)
ARROW = re.compile(r"<?-+>|<-+|-{2,}")  # a diagram's arrows (--runChain-->, <--JSON---), which name no code
PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b|\bN\b")  # NAME, LINE, SITE, PAGE; N


@functools.cache
def repository_files() -> tuple[str, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return tuple(name for name in listed.stdout.splitlines() if (ROOT / name).is_file())


@functools.cache
def folders() -> frozenset[str]:
    return frozenset(folder.as_posix() + "/" for name in repository_files() for folder in Path(name).parents[:-1])


@functools.cache
def text_of(name: str) -> str:
    try:
        return (ROOT / name).read_text(encoding="utf-8")
    except UnicodeDecodeError:  # a binary file: no names in it
        return ""


@functools.cache
def words_of_the_repository() -> frozenset[str]:
    """Every word of every file but the map itself (a name it cites is found elsewhere or nowhere), whole
    (`mg:leaves`, `data-mg-run`, `--dist`) and in its parts."""
    texts = [text_of(name) for name in repository_files() if ROOT / name != MAP]
    return frozenset(
        word for text in texts for pattern in (r"[\w$:-]+", r"[\w$]+") for word in re.findall(pattern, text)
    )


def ignored(path: str) -> bool:
    """A path .gitignore names: what a build or an install makes."""
    return bool(path) and subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT).returncode == 0


def files_ending(path: str) -> list[str]:
    """The repository's files and folders whose path is `path` or ends with it (a glob's * matches a name)."""
    path = re.sub(r"^(?:\.\./|\./)+", "", path).rstrip("/")
    pattern = re.compile(r"(?:^|.*/)" + re.escape(path).replace(r"\*", r"[^/]*") + "/?$")
    return [name for name in (*repository_files(), *folders()) if pattern.match(name)]


def path_problem(path: str) -> str | None:
    path = path.rstrip(".,;:")
    if files_ending(path) or ignored(re.sub(r"^(?:\./)+", "", path).replace("*", "")):
        return None
    return f"no file or folder is {path}"


def module_files(dotted: str) -> list[str]:
    """The files of a module named with dots (`mgsite.pages`, `microgpt.course`, `python`), if any."""
    stem = dotted.replace(".", "/")
    return [f for ending in (f"{stem}.py", f"{stem}.js", f"{stem}/__init__.py") for f in files_ending(ending)]


def name_problem(name: str) -> str | None:
    """A dotted name: its module, and the rest of it in the module's file; any other name: a word of the repository."""
    name = name.rstrip("(").rstrip(".")
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        files = module_files(".".join(parts[:k]))
        if files:
            rest = parts[k:]
            if not rest or any(re.search(rf"(?<![\w$]){re.escape(rest[0])}(?![\w$])", text_of(f)) for f in files):
                return None
            return f"{'.'.join(parts[:k])} ({', '.join(files)}) has no {rest[0]}"
    if all(part in words_of_the_repository() for part in parts):
        return None
    return f"no file of the repository holds {name}"


def command_problem(command: str) -> str | None:
    words = command.split()
    if words[0] == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
        missing = [w for w in words[1:] if "=" not in w and w not in targets]
        return f"the Makefile has no target {missing[0]}" if missing else None
    if words[:2] == ["python", "-m"]:
        return None if module_files(words[2]) else f"no module {words[2]}"
    return None


def cited(text: str) -> list[str]:
    """What a piece of the map cites: its paths, its dotted names and its other names of the code."""
    text = PLACEHOLDER.sub(" ", text)
    found = []
    for m in PATH.finditer(text):
        if not re.match(r"https?:|//", text[max(0, m.start() - 6) : m.end()].split()[-1]):
            found.append(("path", m[0]))
    rest = PATH.sub(" ", text)
    found += [("name", m[0]) for m in DOTTED.finditer(rest)]
    rest = DOTTED.sub(" ", rest)
    found += [("name", m[0]) for m in CODE_NAME.finditer(rest) if m[0].strip("_$(-")]
    return found


def the_maps_citations() -> list[tuple[str, str]]:
    text = MAP.read_text(encoding="utf-8")
    found: list[tuple[str, str]] = []
    for fence in FENCE.finditer(text):
        if fence[2] in ("text", ""):
            found += cited(ARROW.sub(" ", fence[3]))
    prose = FENCE.sub(" ", text)
    for span in SPAN.finditer(prose):
        command = span[1].strip()
        if re.match(r"(?:make|python -m) ", command):
            found.append(("command", command))
        elif PATH.fullmatch(command) or DOTTED.fullmatch(command.rstrip("()")):
            found += cited(command)
        elif re.fullmatch(r"[\w$-]+(?:\(\))?", command) and not PLACEHOLDER.fullmatch(command):
            found.append(("name", command.removesuffix("()")))
        else:
            found += cited(command)
    return found


def problem(kind: str, what: str) -> str | None:
    return {"path": path_problem, "name": name_problem, "command": command_problem}[kind](what)


def test_the_map_cites_files_and_names_in_its_text_and_its_diagrams():
    """What the test below reads is what the map is made of (a reading that finds nothing would pass)."""
    kinds = {kind for kind, _ in the_maps_citations()}
    assert kinds == {"path", "name", "command"}
    assert len(the_maps_citations()) > 100


def test_every_file_and_name_the_map_cites_exists():
    stale = sorted({f"{what}: {why}" for kind, what in the_maps_citations() if (why := problem(kind, what))})
    assert not stale, "ARCHITECTURE.md cites what is not there:\n" + "\n".join(stale)


# the paths a file names: words with a slash, not a URL, not a user's or the system's (~/.cache, /usr/bin, $HOME/x)
NAMED_PATH = re.compile(r"(?<![\w/~$%.:@-])(?:\.{0,2}/)?(?:[\w.*-]+/)+[\w.*-]*")


def a_repository_path(path: str) -> bool:
    """A path of the repository, not a unit (nodes/s) or an example (x/..): it starts with one of the repository's
    top-level files or folders (.gitignore's too), or ends with a file name of the repository's kinds."""
    top = path.split("/")[0]
    return bool(files_ending(top) and top in {name.split("/")[0] for name in repository_files()}) or bool(
        ignored(top + "/") or re.search(rf"\.(?:{EXTENSIONS})$", path)
    )


@pytest.mark.parametrize(
    "name", ["README.md", "CONTRIBUTING.md", "Makefile", "pyproject.toml", "docs/stylesheets/extra.css"]
)
def test_every_path_a_guide_names_exists(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    named = {m[0] for m in NAMED_PATH.finditer(text) if "$(" not in m[0] and a_repository_path(m[0].rstrip(".,;:"))}
    assert named, f"{name} names no path: has the pattern stopped reading it?"
    stale = sorted(f"{path}: {why}" for path in named if (why := path_problem(path)))
    commands = {m[1] for m in re.finditer(r"(?:`|^)(make [\w -]+?)(?:`|\s+#|$)", text, re.MULTILINE)}
    stale += sorted(f"{command}: {why}" for command in commands if (why := command_problem(command)))
    assert not stale, f"{name} names what is not there:\n" + "\n".join(stale)
