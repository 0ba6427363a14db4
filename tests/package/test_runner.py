"""microgpt.course.runner, the Python behind a page's Run button: what a run gives the page, read as data.

The page shows a checker's verdict, marks the line an error went through and remembers the pieces a
checker kept, all from these fields: nothing in the page reads printed text.
"""

import inspect
import json
import pickle
import subprocess
import sys
import textwrap

import pytest

from microgpt.course import capstone, kept, runner

CHECKED = textwrap.dedent(
    """\
    from microgpt.course.checkers import check_relu_backward


    def relu_backward(h, g):
        return [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)]


    print(check_relu_backward(relu_backward))
    """
)


def run(*sources: str, offered: dict[str, list[str]] | None = None) -> dict:
    return json.loads(runner.run_chain(list(sources), offered))


@pytest.fixture(autouse=True)
def no_pieces(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
    monkeypatch.setattr(kept, "_offered", {})


def test_a_chain_runs_in_one_namespace_and_its_printing_comes_back():
    result = run("x = 2\n", "print(x * 3)\n")
    assert result == {"stdout": "6\n", "stderr": "", "ok": True, "error": None, "verdicts": [], "yours": []}


def test_an_error_says_which_block_and_which_line_of_it_it_stopped_at():
    result = run("x = 1\n", "y = 2\n\nz = x / 0\n")
    assert not result["ok"]
    assert result["error"] == {
        "type": "ZeroDivisionError",
        "message": "division by zero",
        "part": 1,
        "line": 3,
        "column": None,
    }
    assert 'File "<example, part 2 of 2>", line 3' in result["stderr"] and "z = x / 0" in result["stderr"]


def test_an_error_inside_a_function_points_at_the_line_of_the_block_that_raised_not_the_call():
    result = run("def f():\n    return 1 / 0\n\n\nf()\n")
    assert result["error"]["part"] == 0 and result["error"]["line"] == 2


def test_a_syntax_error_points_at_its_line_and_column_with_the_parsers_message_alone():
    result = run("x = 1\nif x\n    pass\n")
    assert result["error"] == {"type": "SyntaxError", "message": "expected ':'", "part": 0, "line": 2, "column": 5}


def test_a_syntax_error_in_a_later_block_of_a_chain_names_that_block():
    result = run("x = 1\n", "y = 2\n\ndef f(:\n    pass\n")
    assert (result["error"]["type"], result["error"]["part"], result["error"]["line"]) == ("SyntaxError", 1, 3)
    assert not result["ok"] and 'File "<example, part 2 of 2>", line 3' in result["stderr"]


def test_an_indentation_error_points_at_its_line():
    result = run("def f():\n    x = 1\n      y = 2\n")
    assert (result["error"]["type"], result["error"]["line"]) == ("IndentationError", 3)


def test_a_blank_body_called_outside_a_checker_says_which_function_is_not_written_yet():
    result = run('def f(x):\n    """Twice x."""\n    raise NotImplementedError\n\n\nf(1)\n')
    assert result["error"] == {
        "type": "NotImplementedError",
        "message": "f is not written yet: its body still raises NotImplementedError",
        "part": 0,
        "line": 3,
        "column": None,
    }


def test_a_blank_body_checked_is_one_line_that_says_not_written_yet_with_its_frame():
    source = CHECKED.replace("return [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)]", "raise NotImplementedError")
    result = run(source)
    (verdict,) = result["verdicts"]
    assert result["ok"] and not verdict["ok"] and not verdict["kept"]
    assert verdict["text"] == ("✗ relu_backward is not written yet: line 5 raises NotImplementedError")
    assert [(f["part"], f["line"], f["source"]) for f in verdict["frames"]] == [(0, 5, "raise NotImplementedError")]
    assert verdict["error"] is None, "the text says it: the page need not name the error again"


def test_an_error_in_the_package_points_at_the_readers_line_that_called_it():
    result = run("from microgpt import Value\n\nValue(-1.0).log()\n")
    assert result["error"]["type"] == "ValueError" and (result["error"]["part"], result["error"]["line"]) == (0, 3)


def test_an_exit_does_not_end_the_page_and_counts_as_stopping():
    result = run("print('before')\nraise SystemExit(3)\nprint('after')\n")
    assert result["stdout"] == "before\n" and result["error"]["type"] == "SystemExit"


def test_a_checkers_verdict_comes_back_as_data_with_whether_it_was_kept():
    result = run(CHECKED)
    (verdict,) = result["verdicts"]
    assert verdict["piece"] == "relu_backward" and verdict["ok"] and verdict["kept"] and verdict["frames"] == []
    assert result["stdout"] == verdict["text"] + "\n"


def test_an_error_inside_the_readers_function_comes_back_with_their_line():
    source = CHECKED.replace("return [gi if", "raise ValueError('no idea')\n    return [gi if")
    result = run(source)
    assert result["ok"], "the checker caught it: the block itself ran to its end"
    (verdict,) = result["verdicts"]
    assert not verdict["ok"] and not verdict["kept"]
    assert [(f["part"], f["line"], f["function"]) for f in verdict["frames"]] == [(0, 5, "relu_backward")]
    assert (
        "relu_backward raised ValueError: no idea\n at line 5, in relu_backward: raise ValueError('no idea')"
        in (verdict["text"])
    )
    assert verdict["error"] == {"type": "ValueError", "message": "no idea"}  # what the page's status line names


def test_a_piece_offered_from_an_earlier_visit_is_run_again_when_the_capstone_is_asked():
    first = run("from microgpt.course import capstone\nprint(capstone.yours())\n", offered={"relu_backward": [CHECKED]})
    assert first["stdout"] == "['relu_backward']\n" and first["yours"] == ["relu_backward"]
    assert first["verdicts"] == [], "the offered piece's verdict is not this run's"


def test_a_run_that_does_not_ask_the_capstone_runs_no_offered_piece():
    result = run("print(1)\n", offered={"relu_backward": [CHECKED]})
    assert result["yours"] == [] and kept._yours == {}


def test_an_offered_piece_its_checker_now_refuses_is_not_used():
    wrong = CHECKED.replace("if hi > 0", "if hi < 0")
    result = run("from microgpt.course import capstone\nprint(capstone.yours())\n", offered={"relu_backward": [wrong]})
    assert result["stdout"] == "[]\n"


def test_the_readers_newer_piece_wins_over_an_offered_one():
    run(CHECKED)
    older = CHECKED.replace("gi if hi > 0 else 0.0", "(gi if hi > 0 else 0.0) + 0.0")
    run("pass\n", offered={"relu_backward": [older]})
    assert inspect.unwrap(capstone.pieces()["relu_backward"]).__code__.co_firstlineno == 4
    assert "0.0) + 0.0" not in str(kept._offered)


# a fresh Python given the cases another made: it judges without making any (making them raises here)
FRESH = """
import json, pickle, sys
from microgpt.course import runner
from microgpt.course.checkers import PIECES

runner.take_cases(pickle.load(open(sys.argv[1], "rb")))
def made_again():
    raise AssertionError("the cases were made again")
PIECES["relu_backward"].cases.make = made_again
print(json.dumps([json.loads(runner.run_chain([source]))["verdicts"] for source in json.loads(sys.argv[2])]))
"""


def test_the_cases_one_python_made_judge_alike_in_a_fresh_one_given_them(tmp_path):
    """The page hands a checker's cases to each fresh Python (after a Stop): it makes none, and says the same."""
    right, slip = CHECKED, CHECKED.replace("gi if hi > 0", "-gi if hi > 0")
    here = [run(source)["verdicts"] for source in (right, slip)]
    made = runner.cases_made([])
    assert "relu_backward" in made and "relu_backward" not in runner.cases_made(["relu_backward"])
    blob = tmp_path / "cases.pickle"
    blob.write_bytes(pickle.dumps({"relu_backward": made["relu_backward"]}))
    fresh = subprocess.run(
        [sys.executable, "-c", FRESH, str(blob), json.dumps([right, slip])], capture_output=True, text=True, check=True
    )
    assert json.loads(fresh.stdout) == here
    assert here[0][0]["ok"] and not here[1][0]["ok"]


def test_values_a_run_leaves_behind_are_unlinked_from_their_children():
    from microgpt import Value

    kept: list = []
    namespace = {"kept": kept}
    a = Value(1.0)
    b = a * 2.0
    kept.append(b)
    runner.unlink_graphs(namespace)
    assert b._children == () and a.data == 1.0


def test_the_widgets_trace_comes_back_as_json():
    trace = json.loads(runner.trace_json("relu", "{}"))
    assert trace and isinstance(trace, dict)


# ---------------------------------------------------------------------------- the Train widget's run
def test_the_train_widgets_run_is_driven_through_the_runner_as_json_and_ends_on_request():
    values = {"lr": 0.01, "steps": 3, "n_embd": 4, "n_layer": 1, "seed": 1}
    info = json.loads(runner.live_start(json.dumps(values)))
    assert info["names"] and info["vocab_size"] > 1
    steps = []
    for _ in range(200):  # a tick is about 50 ms of work: a few of them finish 3 steps
        tick = json.loads(runner.live_tick())
        steps += [s["step"] for s in tick["steps"]]
        if tick["finished"]:
            break
    assert steps == [1, 2, 3]
    assert json.loads(runner.live_checkpoint())  # a checkpoint file's text, which is JSON
    runner.live_end()
    with pytest.raises(RuntimeError, match="no training run"):
        runner.live_tick()
