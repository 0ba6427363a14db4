"""The package's layers: dependencies run one way, one module handles signals, the taught files carry no scaffolding.

From the bottom: the taught modules (microgpt/*.py), then microgpt/runtime/ (what every runner of the model
shares), then microgpt/course/, microgpt/cli/ and the site's build (tools/mgsite/), which import nothing from
each other's folder but the course tools the build serves.
"""

import ast
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
