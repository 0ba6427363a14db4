"""The hands-on notebook runs top to bottom, is stored clean, and a cell that raises cannot pass."""

import copy
import os
from pathlib import Path

import nbclient
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "notebooks" / "backprop-by-hand.ipynb"
TORCH_CELLS = ("torch-check", "torch-check-challenge")  # cell ids of the PyTorch comparisons
SKIPPED = "PyTorch is not installed: skipped this check"
MATCHED = "check ran: all gradients match"


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


def test_notebook_runs_and_asserts_every_gradient(executed):
    cells = {cell.id: cell for cell in executed.cells}
    assert stdout_of(cells["manual-backward"]) == "a.grad = -3, b.grad = 2, c.grad = 1\n"
    assert stdout_of(cells["manual-engine"]) == "a.grad = -3, b.grad = 2, c.grad = 1\n"
    assert stdout_of(cells["trap-wrong"]) == "with  = : a.grad = 1\n"
    assert stdout_of(cells["trap-right"]) == "with += : a.grad = 2\n"
    assert "dL/da = 7, dL/db = 2, dL/dc = -1" in stdout_of(cells["challenge-by-hand"])
    assert "dL/da = 7, dL/db = 2, dL/dc = -1" in stdout_of(cells["challenge-engine"])
    # the notebook's last code cell asserts every gradient; reaching its print means all passed
    assert stdout_of(cells["final-asserts"]) == "all 7 gradients check out\n"


def test_torch_check_ran_when_required(executed):
    cells = {cell.id: cell for cell in executed.cells}
    for cell_id in TORCH_CELLS:
        out = stdout_of(cells[cell_id])
        assert SKIPPED in out or MATCHED in out, f"{cell_id} printed neither result: {out!r}"
        if os.environ.get("MICROGPT_REQUIRE_TORCH") == "1":
            assert SKIPPED not in out, f"MICROGPT_REQUIRE_TORCH=1 but {cell_id} skipped the PyTorch check"
            assert MATCHED in out, f"{cell_id} did not report a match: {out!r}"


def test_notebook_runs_without_torch():
    nb = read_notebook()
    # a None entry in sys.modules makes `import torch` raise ImportError, as if it were not installed
    nb.cells.insert(0, nbformat.v4.new_code_cell("import sys\nsys.modules['torch'] = None", id="hide-torch"))
    cells = {cell.id: cell for cell in execute(nb).cells}
    for cell_id in TORCH_CELLS:
        assert stdout_of(cells[cell_id]) == SKIPPED + "\n"
    assert stdout_of(cells["final-asserts"]) == "all 7 gradients check out\n"


def test_a_raising_cell_fails_execution():
    nb = copy.deepcopy(read_notebook())
    nb.cells.append(nbformat.v4.new_code_cell("raise RuntimeError('this cell must fail the run')", id="raises"))
    with pytest.raises(CellExecutionError, match="this cell must fail the run"):
        execute(nb)
