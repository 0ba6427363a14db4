"""The hands-on notebook runs top to bottom, is stored clean, hides its solutions, prints the gradients its text
promises, and a raising cell fails."""

import copy
import re
from pathlib import Path

import nbclient
import nbformat
import prose_numbers
import pytest
from nbclient.exceptions import CellExecutionError

# with --dist loadgroup, this file's module-wide fixtures (a copy of the project, its builds; the
# notebook's run; the reader's virtualenv) are made once, on one worker
pytestmark = pytest.mark.xdist_group("test_notebook")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "backprop-by-hand.ipynb"
# a printed gradient, as "dL/da = 7" or "dW = [[3.0, 6.0], [0.0, 0.0]]": its name and value
GRADIENT = re.compile(r"\b(d\w+(?:/d\w+)?) = (\[\[.*?\]\]|\[.*?\]|-?[\d.]+)")
# ids of the solution cells
EXERCISES = ("manual-backward", "challenge-by-hand", "sigmoid-check", "mlp-by-hand", "zero-grad-fix")


def read_notebook():
    return nbformat.read(NOTEBOOK, as_version=4)


def execute(nb):
    """Run every cell as mkdocs-jupyter does on the site: python3 kernel, errors not allowed."""
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=60,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    return nb


def stdout_of(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


@pytest.fixture(scope="module")
def executed():
    return execute(read_notebook())


def test_notebook_is_valid_and_stored_clean():
    nb = read_notebook()
    nbformat.validate(nb)
    assert nb.metadata == {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {cell.id} has stored outputs"
            assert cell.execution_count is None, f"cell {cell.id} has an execution count"
        assert "widgets" not in cell.metadata, f"cell {cell.id} stores widget state"


def test_notebook_prints_every_gradient_it_promises(executed):
    """By hand and by the engine, each graph's gradients; the solutions' checks; the fixed loop near w = 3."""
    cells = {cell.id: cell for cell in executed.cells}
    assert stdout_of(cells["manual-backward"]) == "a.grad = -3, b.grad = 2, d.grad = 1\n"
    assert stdout_of(cells["manual-nudge"]) == "measured de/da = -3.0000\n"
    assert stdout_of(cells["manual-engine"]) == "a.grad = -3, b.grad = 2, d.grad = 1\n"
    assert "dL/da = 7, dL/db = 2, dL/dd = -1" in stdout_of(cells["challenge-by-hand"])
    assert "microgpt: dL/da = 7, dL/db = 2, dL/dd = -1" in stdout_of(cells["challenge-by-hand"])
    assert "at every point: True\n" in stdout_of(cells["sigmoid-check"])
    engine = "engine:  dw_out = [7.5, 0.0]  dW = [[3.0, 6.0], [0.0, 0.0]]  dx = [1.5, 3.0]\n"
    assert engine in stdout_of(cells["mlp-by-hand"])
    last = stdout_of(cells["zero-grad-fix"]).splitlines()[-1]
    assert abs(float(last.rsplit("-> ", 1)[1]) - 3) < 0.25, last


def test_every_number_in_the_text_is_printed_or_in_the_code(executed):
    assert prose_numbers.check_notebook(executed, "backprop-by-hand.ipynb") == []


def test_a_number_changed_in_the_text_alone_fails(executed):
    changed = copy.deepcopy(executed)
    cell = next(c for c in changed.cells if c.get("id") == "zero-grad-explain")
    assert "= -38.4$" in cell.source
    cell.source = cell.source.replace("= -38.4$", "= -38.5$")
    problems = prose_numbers.check_notebook(changed, "backprop-by-hand.ipynb")
    assert len(problems) == 1 and "cell zero-grad-explain, line 4: -38.5 " in problems[0], problems


def test_exercises_show_what_they_teach(executed):
    cells = {cell.id: cell for cell in executed.cells}
    assert stdout_of(cells["sigmoid-check"]).endswith("sigmoid agrees with central differences: True\n")
    assert stdout_of(cells["mlp-by-hand"]).endswith("by hand and engine agree: True\n")
    # without zeroing, step 2 uses -24 + -14.4; with the fix, only its own -14.4
    assert "step 2: loss  12.9600   w.grad -38.4000" in stdout_of(cells["zero-grad-bug"])
    assert "step 2: loss  12.9600   w.grad -14.4000" in stdout_of(cells["zero-grad-fix"])
    # without zeroing, w swings past 3 and back: above it at one step, below it at a later one
    after = [float(line.rsplit("-> ", 1)[1]) for line in stdout_of(cells["zero-grad-bug"]).splitlines()]
    assert max(after) > 3 + 2 and min(after[after.index(max(after)) :]) < 3 - 2


def test_every_exercise_has_a_collapsed_solution():
    cells = read_notebook().cells
    solutions = [i for i, cell in enumerate(cells) if "solution" in cell.metadata.get("tags", [])]
    assert [cells[i].id for i in solutions] == list(EXERCISES)
    for i in solutions:
        cell, before = cells[i], cells[i - 1]
        assert cell.cell_type == "code"
        assert cell.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}, cell.id
        assert before.cell_type == "markdown", f"{cell.id} is not preceded by its explanation"
        assert before.source.startswith('<details markdown="1"><summary>Solution'), before.id
        assert before.source.rstrip().endswith("</details>"), before.id


def test_every_code_cell_runs_alone():
    """A reader may copy one cell, shown or solution, into a fresh Python: it runs (execute raises if not)."""
    nb = read_notebook()
    for cell in [cell for cell in nb.cells if cell.cell_type == "code"]:
        nb.cells = [cell]
        execute(nb)


def test_no_shown_cell_prints_an_exercise_answer(executed):
    """The cells shown in an exercise's section (§2–§4), before or after its collapsed solution, print none of the
    lines its solution prints: the reader meets the answers only by opening the solution."""
    cells = read_notebook().cells
    ran = {cell.id: cell for cell in executed.cells}
    for exercise in EXERCISES[1:4]:  # the exercises the reader works before the solution (§2–§4)
        answers = set(GRADIENT.findall(stdout_of(ran[exercise])))
        section = next(i for i, cell in enumerate(cells) if cell.id == exercise)
        end = next((i for i in range(section + 1, len(cells)) if cells[i].source.startswith("## ")), len(cells))
        start = max(i for i in range(section) if cells[i].source.startswith("## "))
        for cell in cells[start:end]:
            if cell.cell_type == "code" and cell.id != exercise:
                shown = answers & set(GRADIENT.findall(stdout_of(ran[cell.id])))
                assert not shown, f"{cell.id} shows {exercise}'s answer: {shown}"


def test_no_cell_is_excused_from_running():
    for cell in read_notebook().cells:
        tags = set(cell.metadata.get("tags", []))
        assert not tags & {"raises-exception", "skip-execution"}, f"{cell.id} has {tags}"


def test_a_raising_cell_fails_execution():
    nb = read_notebook()
    nb.cells = [nb.cells[0]]  # the notebook's settings and a first cell, not its whole run again
    nb.cells.append(nbformat.v4.new_code_cell("raise RuntimeError('this cell must fail the run')", id="raises"))
    with pytest.raises(CellExecutionError, match="this cell must fail the run"):
        execute(nb)


def test_every_output_is_text_which_the_site_shows(executed):
    """overrides/notebook.html shows a cell's stdout, stderr and text/plain results, and nothing else."""
    for cell in executed.cells:
        for output in cell.get("outputs", []):
            kinds = {"stream"} if output.output_type == "stream" else set(output.get("data", {}))
            assert kinds in ({"stream"}, {"text/plain"}), f"{cell.id}: an output the site would not show: {kinds}"
