"""The GPT chapter's exercises: each checker accepts the solution, names each known slip, and its verdict
agrees with its one tolerance; the capstone's manual backward matches the engine over a whole step."""

import math
from pathlib import Path

import pytest

from microgpt.course import capstone, checkers, pieces
from microgpt.course.checking import TOL, TOL_SHOWN, check, largest_gap
from microgpt.course.exercises import first_step, grad
from microgpt.model import GPTConfig, Model

SLIPS = [(name, slip) for name, piece in checkers.PIECES.items() for slip in piece.slips]


def test_the_tolerance_the_success_line_states_is_the_one_the_checker_uses():
    assert float(TOL_SHOWN) == TOL


@pytest.mark.parametrize("name", checkers.PIECES)
def test_each_checker_accepts_the_solution(name):
    verdict = str(check(checkers.PIECES[name], getattr(pieces, name)))
    assert verdict.startswith(f"✓ {name} agrees with the engine on all") and f"within {TOL_SHOWN}" in verdict


def first_case_it_misses(piece, wrong):
    """The index of the first case where a wrong answer is more than the tolerance from the engine's."""
    for k, case in enumerate(piece.cases()):
        answer = wrong(*case.args)
        parts = answer if len(case.engine) > 1 else (answer,)
        if max(largest_gap(a, b) for a, b in zip(parts, case.engine)) > TOL:
            return k
    return None


@pytest.mark.parametrize(("name", "slip"), SLIPS)
def test_each_checker_names_each_slip_on_the_first_case_it_shows_in(name, slip):
    """Most slips show on the page's own step (case 1); a size written as a number shows where the size differs."""
    piece = checkers.PIECES[name]
    wrong = piece.slips[slip].wrong
    k = first_case_it_misses(piece, wrong)
    verdict = str(check(piece, wrong))
    assert k is not None and verdict.startswith(f"✗ case {k + 1} of"), verdict
    assert verdict.endswith(piece.slips[slip].hint), verdict
    assert k == 0 or slip in checkers.WRITTEN_SIZES


@pytest.mark.parametrize(("name", "slip"), SLIPS)
def test_each_slip_is_farther_from_the_engine_than_the_tolerance(name, slip):
    """The verdict never contradicts the tolerance: a slip the checker names is a real miss, not rounding."""
    piece = checkers.PIECES[name]
    case = piece.cases()[first_case_it_misses(piece, piece.slips[slip].wrong)]
    wrong = piece.slips[slip].wrong(*case.args)
    parts = wrong if len(case.engine) > 1 else (wrong,)
    assert max(largest_gap(a, b) for a, b in zip(parts, case.engine)) > 1000 * TOL


def test_an_answer_off_by_just_under_the_tolerance_passes_and_just_over_fails():
    def nudged(by):
        def relu_backward(h, g):
            return [v + by for v in pieces.relu_backward(h, g)]

        return relu_backward

    assert check(checkers.RELU, nudged(0.5 * TOL)).ok
    verdict = str(check(checkers.RELU, nudged(2 * TOL)))
    assert verdict.startswith("✗ case 1 of 4 (the MLP's 64 hidden units, mignon position 0):\n dh: ")
    assert verdict.endswith(f"(off by 2.0e-09, more than {TOL_SHOWN})")


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda h, g: 0.0, "shape: dh should be a list of 64, not a float"),
        (lambda h, g: g[:-1], "shape: dh has 63 entries where the engine's has 64"),
        (lambda h, g: [1 / 0], "raised ZeroDivisionError"),
        (lambda h, g: [math.nan] * len(h), "shape: dh[0] is nan"),
    ],
)
def test_the_checker_reports_shapes_and_errors_in_one_line(answer, words):
    assert words in str(check(checkers.RELU, answer))


def test_the_checker_refuses_a_function_that_changes_its_arguments():
    def rmsnorm_backward(x, g):
        x[0] = 0.0
        return pieces.rmsnorm_backward(x, g)

    assert "changed its arguments" in str(check(checkers.RMSNORM, rmsnorm_backward))


def test_a_transposed_weight_gradient_is_named_though_its_shape_differs():
    def linear_backward(x, w, g):
        dw, dx = pieces.linear_backward(x, w, g)
        return [list(c) for c in zip(*dw)], dx

    assert "dw: a transpose" in str(check(checkers.LINEAR, linear_backward))


def test_the_manual_backward_matches_the_engine_on_every_parameter_of_a_real_step():
    step = first_step()
    loss, grads = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert loss == pytest.approx(step.loss.data, abs=1e-12)
    worst = max(
        abs(a - b)
        for name, m in step.model.state_dict.items()
        for row, mine in zip(m, grads[name])
        for a, b in zip(grad(row), mine)
    )
    assert worst < 1e-13


def test_a_piece_the_checker_accepted_is_used_by_the_capstone_and_named_as_yours(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    assert capstone.whose().startswith("yours: none yet")

    assert checkers.check_relu_backward(pieces.relu_backward).ok
    assert capstone.whose().startswith("yours: none yet"), "the page's solution, run as it is, is not the reader's"

    def relu_backward(h, g):
        return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]

    assert checkers.check_relu_backward(relu_backward).ok
    assert capstone.pieces()["relu_backward"].__code__ is relu_backward.__code__
    assert capstone.whose().startswith("yours: relu_backward\n")
    checkers.check_relu_backward(lambda h, g: list(g))  # a wrong one is not kept
    assert capstone.pieces()["relu_backward"].__code__ is relu_backward.__code__


def test_attention_backward_calls_the_readers_softmax_backward_and_linear_backward(monkeypatch):
    """The solutions' attention_backward imports the solutions' helpers; the capstone hands it the reader's."""
    monkeypatch.setattr(capstone, "_yours", {})
    step = first_step()
    _, before = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)

    def softmax_backward(w, gamma):  # a slip: no gradient reaches the scores
        return [0.0 for _ in w]

    capstone.keep("softmax_backward", softmax_backward)
    _, after = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert any(any(row) for row in before["layer0.attn_wq"]), "the solution's backward gives attn_wq a gradient"
    assert not any(any(row) for row in after["layer0.attn_wq"]), "the reader's softmax_backward was not used"
    assert after["layer0.attn_wv"] == before["layer0.attn_wv"], "the values' gradient does not pass the softmax"


def test_a_kept_piece_still_runs_after_its_blocks_namespace_is_cleared(monkeypatch):
    """The page's Python clears a block's namespace after the block; the capstone keeps a copy that works."""
    monkeypatch.setattr(capstone, "_yours", {})
    namespace: dict = {}
    source = (
        "import math\n"
        "def rmsnorm_backward(x, g):\n"
        "    r = 1 / math.sqrt(sum(v * v for v in x) / len(x) + 1e-5)\n"
        "    gx = sum(a * b for a, b in zip(g, x))\n"
        "    return [r * gi - r**3 * gx / len(x) * xi for gi, xi in zip(g, x)]\n"
    )
    exec(source, namespace)
    assert checkers.check_rmsnorm_backward(namespace["rmsnorm_backward"]).ok
    namespace.clear()
    step = first_step()
    loss, _ = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert capstone.yours() == ["rmsnorm_backward"] and loss == pytest.approx(step.loss.data, abs=1e-12)


def test_the_pages_solutions_run_from_their_own_source_are_not_counted_as_the_readers(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    namespace: dict = {}
    exec(compile(Path(pieces.__file__).read_text(encoding="utf-8"), "<page>", "exec"), namespace)
    for name in capstone.NAMES:
        assert checkers.PIECES[name] and checkers._checked(checkers.PIECES[name], namespace[name]).ok
    assert capstone.yours() == []


def test_a_solution_whose_lines_python_can_find_is_told_by_its_source(monkeypatch):
    """As in the page's Python, which records each block's lines for its tracebacks."""
    import linecache

    monkeypatch.setattr(capstone, "_yours", {})
    source = Path(pieces.__file__).read_text(encoding="utf-8")
    linecache.cache["<block>"] = (len(source), None, source.splitlines(True), "<block>")
    namespace: dict = {}
    exec(compile(source, "<block>", "exec"), namespace)
    assert checkers.check_softmax_backward(namespace["softmax_backward"]).ok
    assert capstone.yours() == []


def test_a_solution_run_after_the_readers_own_piece_is_not_the_one_remembered(monkeypatch):
    """pieces.js stores only what a verdict says was kept: a solution's run never replaces the reader's."""
    monkeypatch.setattr(capstone, "_yours", {})

    def relu_backward(h, g):
        return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]

    mine = checkers.check_relu_backward(relu_backward)
    assert mine.ok and mine.kept
    solution = checkers.check_relu_backward(pieces.relu_backward)
    assert solution.ok and not solution.kept
    assert capstone.pieces()["relu_backward"].__code__ is relu_backward.__code__


def test_a_second_backward_on_the_shared_step_does_not_change_the_checkers_answers():
    step = first_step()
    before = checkers.check_relu_backward(pieces.relu_backward)
    saved = {id(v): v.grad for p in step.positions for v in p.hidden}
    try:
        for p in step.positions:
            for v in p.hidden:
                v.grad *= 2  # what a reader's second backward() does to the shared step
        assert checkers.check_relu_backward(pieces.relu_backward) == before
    finally:
        for p in step.positions:
            for v in p.hidden:
                v.grad = saved[id(v)]


def test_a_cross_entropy_miss_at_the_true_token_says_so():
    def cross_entropy_backward(p, target, T):
        dz = pieces.cross_entropy_backward(p, target, T)
        dz[target] += 1e-6
        return dz

    assert "dz: wrong only at logit 12 (the true token); right at the other logits" in str(
        check(checkers.CROSS_ENTROPY, cross_entropy_backward)
    )


def test_a_slip_on_the_key_path_is_named_in_its_matrix_before_dxs():
    def attention_backward(*args):
        return checkers.attention_with_slip(*args, slip="no cache")

    assert str(check(checkers.ATTENTION, attention_backward)).startswith(
        "✗ case 1 of 4 (mignon: T = 7, n_embd = 16, 4 heads of 4, the gradient at position 3 only):\n"
        " dwk: a sum over positions left out"
    )


def test_the_solutions_attention_backward_calls_the_readers_one_head_piece(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    step = first_step()

    def attention_head_backward(qs, ks, vs, gs):  # a slip: no gradient reaches the queries
        dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
        return [[0.0] * len(q) for q in qs], dk, dv

    capstone.keep("attention_head_backward", attention_head_backward)
    _, grads = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert not any(any(row) for row in grads["layer0.attn_wq"]) and any(any(row) for row in grads["layer0.attn_wk"])


def rmsnorm_with_the_mean_term_flipped(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi + r**3 * gx / n * xi for gi, xi in zip(g, x)]


def test_the_capstone_says_whose_pieces_differ_from_the_solution_and_where(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    step = first_step()
    config, sd = step.model.config, capstone.floats(step.model)
    assert capstone.first_difference(config, sd, step.tokens).startswith("no piece of yours is in use yet")
    assert checkers.check_rmsnorm_backward(TestedRmsnorm.rmsnorm_backward).ok
    assert capstone.first_difference(config, sd, step.tokens).startswith("every piece of yours gives what the solution")
    said = capstone.first_difference(
        config, sd, step.tokens, yours={"rmsnorm_backward": rmsnorm_with_the_mean_term_flipped}
    )
    assert said.startswith(
        "rmsnorm_backward is the first of your pieces to differ from the solution,\n"
        " in its call for the RMSNorm before the MLP at position 0:\n dx is the sum of"
    )
    assert "has its sign flipped" in said and "the engine's" not in said
    assert capstone.pieces()["rmsnorm_backward"].__code__ is TestedRmsnorm.rmsnorm_backward.__code__, "only tried"


class TestedRmsnorm:
    @staticmethod
    def rmsnorm_backward(x, g):
        n = len(x)
        r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
        gx = sum(a * b for a, b in zip(g, x))
        return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


@pytest.mark.parametrize(
    ("name", "wrong", "call"),
    [
        (
            "linear_backward",
            lambda x, w, g: (pieces.linear_backward(x, w, g)[0], [0.0] * len(x)),
            "lm_head at position 0",
        ),
        (
            "softmax_backward",
            lambda w, gamma: [2 * v for v in pieces.softmax_backward(w, gamma)],
            "head 0 at position 1",  # at position 0 a head has one score, whose gradient is 0 either way
        ),
        ("attention_head_backward", lambda *a: tuple(reversed(pieces.attention_head_backward(*a))), "head 0"),
        ("embedding_backward", lambda r, u, g: [[0.0] * len(g[0]) for _ in range(r)], "wte"),
        (
            "cross_entropy_backward",
            lambda p, t, T: [v / 2 for v in pieces.cross_entropy_backward(p, t, T)],
            "position 0",
        ),
    ],
)
def test_the_capstone_names_the_call_where_a_piece_first_differs(monkeypatch, name, wrong, call):
    monkeypatch.setattr(capstone, "_yours", {})
    step = first_step()
    said = capstone.first_difference(step.model.config, capstone.floats(step.model), step.tokens, yours={name: wrong})
    assert said.startswith(f"{name} is the first of your pieces to differ from the solution,\n in its call for {call}:")


def test_the_capstone_names_a_piece_that_raises(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    step = first_step()

    def relu_backward(h, g):
        return [g[i] if h[i] > 0 else 0.0 for i in range(64 if len(h) == 64 else 99)]

    said = capstone.first_difference(
        step.model.config, capstone.floats(step.model), step.tokens, yours={"relu_backward": relu_backward}
    )
    assert said == "every piece of yours gives what the solution gives, on the inputs it was given here"
    small = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=4)
    model = Model.init(small)
    said = capstone.first_difference(
        small, capstone.floats(model), [4, 0, 1, 4], yours={"relu_backward": relu_backward}
    )
    assert said == "relu_backward raised IndexError in its call for position 0: list index out of range"


def test_training_that_parts_from_the_engine_names_the_step_and_the_piece(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {"rmsnorm_backward": rmsnorm_with_the_mean_term_flipped})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=6)
    training = capstone.side_by_side(config, [[4, 0, 1, 2, 4], [4, 3, 3, 4]], steps=3)
    assert training.rows[0][0] == pytest.approx(training.rows[0][1], abs=1e-12), "the first forward pass is shared"
    assert abs(training.rows[1][0] - training.rows[1][1]) > 1e-9
    assert training.first_difference.startswith(
        "at step 1, rmsnorm_backward is the first of your pieces to differ from the solution,\n in its call for"
    )


def test_training_with_the_solutions_says_nothing_differs(monkeypatch):
    monkeypatch.setattr(capstone, "_yours", {})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=6)
    training = capstone.side_by_side(config, [[4, 0, 1, 2, 4]], steps=2)
    assert training.first_difference == "" and all(abs(e - m) < 1e-12 for e, m, _, _ in training.rows)
