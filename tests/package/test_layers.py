"""The package's layers: dependencies run one way, one module handles signals, the taught files carry no scaffolding;
and in the whole repository, no import circle, and no import inside a function without its reason on its line.

From the bottom: the taught modules (microgpt/*.py), then microgpt/runtime/ (what every runner of the model
shares), then microgpt/course/, microgpt/cli/ and the site's build (tools/mgsite/), which import nothing from
each other's folder but the course tools the build serves.
"""

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "microgpt"
TAUGHT = sorted(p for p in PACKAGE.glob("*.py") if not p.name.startswith("__"))


def imports(file: Path) -> set[str]:
    """Every module file imports, at its top or inside a function, by its full name."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def files_of(folder: str) -> list[Path]:
    return sorted((ROOT / folder).glob("*.py"))


def test_the_taught_modules_import_only_each_other_and_the_standard_library():
    taught = {f"microgpt.{p.stem}" for p in TAUGHT}
    for file in TAUGHT:
        for name in imports(file):
            ours = name == "microgpt" or any(name == m or name.startswith(m + ".") for m in taught)
            assert name.split(".")[0] in sys.stdlib_module_names or ours, f"{file.name}: {name}"


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        ("microgpt/runtime", ("microgpt.cli", "microgpt.course")),
        ("microgpt/course", ("microgpt.cli",)),
        ("tools/mgsite/mgsite", ("microgpt.cli",)),
        ("microgpt/cli", ("microgpt.course",)),
    ],
)
def test_dependencies_run_one_way(folder, forbidden):
    assert files_of(folder)
    for file in files_of(folder):
        wrong = {name for name in imports(file) if name.startswith(forbidden)}
        assert not wrong, f"{folder}/{file.name} imports {sorted(wrong)}"


def test_one_module_handles_signals():
    handlers = [
        file.relative_to(ROOT).as_posix()
        for file in sorted(PACKAGE.rglob("*.py"))
        if "signal" in imports(file) or any(name.startswith("signal.") for name in imports(file))
    ]
    assert handlers == ["microgpt/runtime/signals.py"]


def test_the_command_lines_first_module_leaves_signals_to_that_module():
    source = (PACKAGE / "__main__.py").read_text(encoding="utf-8")
    assert "signal" not in imports(PACKAGE / "__main__.py")
    assert "microgpt.runtime.signals" in imports(PACKAGE / "__main__.py")
    assert "SIGTERM" not in source and "SIGHUP" not in source


def test_the_taught_modules_hold_no_typing_scaffolding():
    for file in TAUGHT:
        source = file.read_text(encoding="utf-8")
        for scaffolding in ("TYPE_CHECKING", "overload", "# type:", "cast("):
            assert scaffolding not in source, f"{file.name} holds {scaffolding!r}"


def test_the_type_checker_sees_a_sum_of_values_as_a_value_and_nothing_else_changed(tmp_path):
    """scripts/mypy_sum_of_values.py, the plugin pyproject.toml gives mypy, instead of overloads in engine.py."""
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "sums.py"
    snippet.write_text(
        "from microgpt.engine import Value\n"
        "reveal_type(sum([Value(1.0), Value(2.0)]))\n"
        "reveal_type(sum(v * v for v in [Value(1.0)]))\n"
        "reveal_type(sum([1, 2]))\n"
        "reveal_type(sum([1.5, 2.5]))\n"
        "reveal_type(sum([Value(1.0)], Value(0.0)))\n"
    )
    out, _, _ = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", str(snippet)])
    revealed = [line.split('Revealed type is "')[1].rstrip('"') for line in out.splitlines() if "Revealed" in line]
    value = "microgpt.engine.Value"
    assert revealed == [value, value, "int", "float | Literal[0]", value], out


# ---------------------------------------------------------------------------- import circles
# Every Python file of the repository, by the name it is imported as: microgpt's and mgsite's by their dotted
# names; the others (scripts, benchmarks, the tests and their helpers) by their file's name, as their folder on
# sys.path gives it (the root conftest.py puts tests/ there, pytest a test file's own folder).
PACKAGES = {"microgpt": PACKAGE, "mgsite": ROOT / "tools" / "mgsite" / "mgsite"}


def repository_modules() -> dict[str, list[Path]]:
    """Each import name, and the files it names (conftest.py: one in several folders, imported by none). The
    files are git's: those it tracks and those it would track, never what an install left here."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, list[Path]] = {}
    for file in sorted(ROOT / name for name in listed.stdout.split()):
        package, folder = next(((p, f) for p, f in PACKAGES.items() if file.is_relative_to(f)), (None, None))
        if package and folder:
            parts = [package, *file.relative_to(folder).with_suffix("").parts]
            found.setdefault(".".join(parts[:-1] if parts[-1] == "__init__" else parts), []).append(file)
        else:
            found.setdefault(file.stem, []).append(file)
    return found


def only_for_the_type_checker(node: ast.AST) -> bool:
    """`if TYPE_CHECKING:` (never run: what a type checker reads)."""
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def import_statements(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import a module runs: at its top, inside a function or a class, under a condition; not those under
    `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif not only_for_the_type_checker(node):
            found += import_statements(node)
    return found


def imported_modules(file: Path, package: str | None, modules: dict[str, list[Path]]) -> dict[Path, int]:
    """The repository's files this file imports, each with the line of its first import."""
    found: dict[Path, int] = {}

    def named(name: str, line: int) -> None:
        while name and name not in modules:  # `import a.b.c` runs a.b.c; a name imported from a module, that module
            name = name.rpartition(".")[0]
        if name:
            files = modules[name]
            # a loose module is found in the importer's folder first, then where sys.path has it
            mine = [f for f in files if f.parent == file.parent] or files
            for target in mine[:1] if len(mine) > 1 else mine:
                found.setdefault(target, line)

    for node in import_statements(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                named(alias.name, node.lineno)
            continue
        base = node.module or ""
        if node.level:  # relative: from the importer's package
            anchor = (package or "").split(".")
            anchor = anchor[: len(anchor) - node.level + 1] if file.name == "__init__.py" else anchor[: -node.level]
            base = ".".join([*anchor, base] if base else anchor)
        for alias in node.names:
            named(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base, node.lineno)
    return found


def import_graph(modules: dict[str, list[Path]]) -> dict[Path, dict[Path, int]]:
    names = {file: name for name, files in modules.items() for file in files}
    return {file: imported_modules(file, names[file], modules) for file in names}


@functools.cache
def the_repositorys_import_graph() -> dict[Path, dict[Path, int]]:
    return import_graph(repository_modules())


def circles(graph: dict[Path, dict[Path, int]]) -> list[list[Path]]:
    """The groups of files that import each other, directly or through others (Tarjan's strongly connected
    components of more than one file, or one that imports itself), each in the order it was found."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    found: list[list[Path]] = []

    def visit(file: Path) -> None:
        index[file] = low[file] = len(index)
        stack.append(file)
        for target in graph.get(file, {}):
            if target not in index:
                visit(target)
                low[file] = min(low[file], low[target])
            elif target in stack:
                low[file] = min(low[file], index[target])
        if low[file] == index[file]:
            group = []
            while (top := stack.pop()) != file:
                group.append(top)
            group.append(file)
            if len(group) > 1 or file in graph.get(file, {}):
                found.append(group[::-1])

    for file in graph:
        if file not in index:
            visit(file)
    return found


def said(group: list[Path], graph: dict[Path, dict[Path, int]]) -> str:
    def name(f: Path) -> str:
        return f.relative_to(ROOT).as_posix()

    ties = [f"{name(a)}:{graph[a][b]} imports {name(b)}" for a in group for b in group if b in graph.get(a, {})]
    return " <-> ".join(map(name, group)) + " (" + "; ".join(ties) + ")"


def test_the_import_graph_is_read_whole():
    """What the test below walks: every folder's files, and imports at the top, inside functions and relative."""
    graph = the_repositorys_import_graph()
    edges = {(a.relative_to(ROOT).as_posix(), b.relative_to(ROOT).as_posix()) for a in graph for b in graph[a]}
    assert ("microgpt/cli/main.py", "microgpt/runtime/limits.py") in edges  # at the top
    assert ("microgpt/course/runner.py", "microgpt/course/checkers.py") in edges  # inside a function
    assert ("tools/mgsite/mgsite/graphs.py", "microgpt/course/diagrams.py") in edges  # from the build
    assert ("conftest.py", "tests/page_blocks.py") in edges  # a loose module, from the folder sys.path has
    assert ("benchmarks/bench_longtasks.py", "tests/browser/browsing.py") in edges


def test_circles_are_found_through_imports_inside_functions(tmp_path):
    (tmp_path / "a.py").write_text("import b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    from c import x\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import d\nimport a\n")
    (tmp_path / "d.py").write_text("import c\n", encoding="utf-8")
    modules = {p.stem: [p] for p in sorted(tmp_path.glob("*.py"))}
    found = circles(import_graph(modules))
    assert [[p.stem for p in group] for group in found] == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    """No import circle among the repository's modules (`farm-studio look` draws the same arrows): each import,
    at a module's top or inside a function, counts; only `if TYPE_CHECKING:` imports, which never run, do not."""
    graph = the_repositorys_import_graph()
    found = [said(group, graph) for group in circles(graph)]
    assert not found, "import circles:\n" + "\n".join(found)


# ---------------------------------------------------------------------------- imports inside functions
# a tool's directive in a comment, which says no reason: noqa (with its codes), type: ignore[...], pragma: no cover
DIRECTIVE = re.compile(
    r"noqa(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore(?:\[[^\]]*\])?|pragma:\s*no\s+\w+"
)


def reason(lines: list[str], n: int) -> str:
    """The words of the comment on line n (1-based), less the tools' directives; or of the comment line right above
    it, for code whose trailing comments mean something else (references.py's: what each line of a rule computes)."""
    line, above = lines[n - 1], lines[n - 2].strip() if n > 1 else ""
    comment = line.partition("#")[2] or (above[1:] if above.startswith("#") else "")
    return DIRECTIVE.sub(" ", comment.replace("#", " ")).strip("() \t")


def imports_inside_functions(file: Path) -> list[tuple[int, str, str]]:
    """Each import inside a function: its line number, its text and the reason its comment gives."""
    lines = file.read_text(encoding="utf-8").split("\n")
    tree = ast.parse("\n".join(lines))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    found = {node.lineno for f in functions for node in import_statements(f)}
    return [(n, lines[n - 1].strip(), reason(lines, n)) for n in sorted(found)]


def test_an_import_inside_a_function_says_why_on_its_line():
    """A module imports at its top; inside a function only where a comment on the import's line (or the comment
    line right above it) says why, in three words or more besides noqa and type: ignore. The reasons: an optional
    dependency (Zensical, playwright, mkdocs) that the module's other callers need not have; a module that must
    load later than its importer (the command line loads nothing before its signal handling); one loaded on first
    use, so that what most callers import stays quick (the in-browser runner's checkers); a name the module's own
    top would shadow. An import hidden in a function for no such reason is how an import circle hides
    (test_no_module_imports_one_that_imports_it_back). A test file (tests/**/test_*.py) is exempt: no module
    imports it, so it is in no circle, and a test imports what it tests inside itself so that a missing
    toolchain skips or fails that test alone."""
    files = [f for files in repository_modules().values() for f in files if not f.name.startswith("test_")]
    unexplained = [
        f"{file.relative_to(ROOT).as_posix()}:{n}: {line}"
        for file in files
        for n, line, why in imports_inside_functions(file)
        if len(why.split()) < 3
    ]
    assert not unexplained, "imports inside functions without their reason on their line:\n" + "\n".join(unexplained)
