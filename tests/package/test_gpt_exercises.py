"""The GPT chapter's exercises: each checker accepts the solution, names each known slip, and its verdict
agrees with its one tolerance (relative to each part's largest entry: a re-ordered sum passes, a numerical
estimate does not); the capstone's manual backward matches the engine over a whole step."""

import copy
import inspect
import math
from pathlib import Path

import pytest

from microgpt.course import capstone, checkers, kept, pieces, references
from microgpt.course.checking import RTOL, RTOL_SHOWN, as_parts, check
from microgpt.course.diagnosis import agrees, entries, shape
from microgpt.course.exercises import first_step, grad
from microgpt.model import GPTConfig, Model

SLIPS = [(name, slip) for name, piece in checkers.PIECES.items() for slip in piece.slips]


def test_the_tolerance_the_success_line_states_is_the_one_the_checker_uses():
    assert float(RTOL_SHOWN) == RTOL


@pytest.mark.parametrize("name", checkers.PIECES)
def test_each_checker_accepts_the_solution(name):
    verdict = str(check(checkers.PIECES[name], getattr(pieces, name)))
    assert verdict.startswith(f"✓ {name} agrees with the engine on all")
    assert f"every entry to within {RTOL_SHOWN} × the largest entry" in verdict


def relative_gap(piece, case, answer):
    """How far an answer is from the engine's on a case: the largest |difference| over its part's scale."""
    parts = as_parts(answer, piece.parts)
    gaps = []
    for mine, engine, scale in zip(parts, case.engine, case.scales):
        d = max((abs(a - b) for (_, a), (_, b) in zip(entries(mine), entries(engine))), default=0.0)
        gaps.append(d / scale if scale else d)
    return max(gaps)


def first_case_it_misses(piece, wrong):
    """The index of the first case where a wrong answer is more than the tolerance from the engine's."""
    for k, case in enumerate(piece.cases()):
        parts = as_parts(wrong(*copy.deepcopy(case.args)), piece.parts)
        if not all(agrees(a, b, s) for a, b, s in zip(parts, case.engine, case.scales)):
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
    assert verdict.endswith(piece.slips[slip].hint) and verdict.endswith((".", "?")), verdict
    at_zero = (name, slip) == ("relu_backward", "on at 0")  # only the case with hairs has a unit at exactly 0
    assert k == 0 or slip in checkers.WRITTEN_SIZES or at_zero


@pytest.mark.parametrize(("name", "slip"), SLIPS)
def test_each_slip_is_farther_from_the_engine_than_the_tolerance(name, slip):
    """The verdict never contradicts the tolerance: a slip the checker names is a real miss, not rounding."""
    piece = checkers.PIECES[name]
    case = piece.cases()[first_case_it_misses(piece, piece.slips[slip].wrong)]
    wrong = piece.slips[slip].wrong(*copy.deepcopy(case.args))
    parts = as_parts(wrong, piece.parts)
    if all(shape(a) == shape(b) for a, b in zip(parts, case.engine)):
        assert relative_gap(piece, case, wrong) > 1000 * RTOL


def test_an_answer_off_by_just_under_the_tolerance_passes_and_just_over_fails():
    def nudged(by):
        def relu_backward(h, g):
            return [v + by * case.scales[0] for v in pieces.relu_backward(h, g)]

        return relu_backward

    case = checkers.RELU.cases()[0]
    assert check(checkers.RELU, nudged(0.5 * RTOL)).ok
    verdict = str(check(checkers.RELU, nudged(2 * RTOL)))
    assert verdict.startswith("✗ case 1 of 6 (the MLP's 64 hidden units, mignon position 0):\n dh: ")
    assert f"the tolerance is 6.0e-16, which is {RTOL_SHOWN} × 0.006, the size of the largest entry" in verdict


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

    assert "rmsnorm_backward changed its argument x (x[0] was 0.09338, and is now 0).\n Compute new lists" in str(
        check(checkers.RMSNORM, rmsnorm_backward)
    )


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
    monkeypatch.setattr(kept, "_yours", {})
    assert capstone.whose().startswith("yours: none yet")

    assert checkers.check_relu_backward(pieces.relu_backward).ok
    assert capstone.whose().startswith("yours: none yet"), "the page's solution, run as it is, is not the reader's"

    def relu_backward(h, g):
        return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]

    assert checkers.check_relu_backward(relu_backward).ok
    assert inspect.unwrap(capstone.pieces()["relu_backward"]).__code__ is relu_backward.__code__
    assert capstone.whose().startswith("yours: relu_backward\n")
    checkers.check_relu_backward(lambda h, g: list(g))  # a wrong one is not kept
    assert inspect.unwrap(capstone.pieces()["relu_backward"]).__code__ is relu_backward.__code__


def test_attention_backward_calls_the_readers_softmax_backward_and_linear_backward(monkeypatch):
    """The solutions' attention_backward imports the solutions' helpers; the capstone hands it the reader's."""
    monkeypatch.setattr(kept, "_yours", {})
    step = first_step()
    _, before = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)

    def softmax_backward(w, gamma):  # a slip: no gradient reaches the scores
        return [0.0 for _ in w]

    kept.keep("softmax_backward", softmax_backward)
    _, after = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert any(any(row) for row in before["layer0.attn_wq"]), "the solution's backward gives attn_wq a gradient"
    assert not any(any(row) for row in after["layer0.attn_wq"]), "the reader's softmax_backward was not used"
    assert after["layer0.attn_wv"] == before["layer0.attn_wv"], "the values' gradient does not pass the softmax"


def test_a_kept_piece_still_runs_after_its_blocks_namespace_is_cleared(monkeypatch):
    """The page's Python clears a block's namespace after the block; the capstone keeps a copy that works."""
    monkeypatch.setattr(kept, "_yours", {})
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
    monkeypatch.setattr(kept, "_yours", {})
    namespace: dict = {}
    exec(compile(Path(pieces.__file__).read_text(encoding="utf-8"), "<page>", "exec"), namespace)
    for name in capstone.NAMES:
        assert checkers.PIECES[name] and checkers._checked(checkers.PIECES[name], namespace[name]).ok
    assert capstone.yours() == []


def test_a_solution_whose_lines_python_can_find_is_told_by_its_source(monkeypatch):
    """As in the page's Python, which records each block's lines for its tracebacks."""
    import linecache

    monkeypatch.setattr(kept, "_yours", {})
    source = Path(pieces.__file__).read_text(encoding="utf-8")
    linecache.cache["<block>"] = (len(source), None, source.splitlines(True), "<block>")
    namespace: dict = {}
    exec(compile(source, "<block>", "exec"), namespace)
    assert checkers.check_softmax_backward(namespace["softmax_backward"]).ok
    assert capstone.yours() == []


def test_a_solution_run_after_the_readers_own_piece_is_not_the_one_remembered(monkeypatch):
    """pieces.js stores only what a verdict says was kept: a solution's run never replaces the reader's."""
    monkeypatch.setattr(kept, "_yours", {})

    def relu_backward(h, g):
        return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]

    mine = checkers.check_relu_backward(relu_backward)
    assert mine.ok and mine.kept
    solution = checkers.check_relu_backward(pieces.relu_backward)
    assert solution.ok and not solution.kept
    assert inspect.unwrap(capstone.pieces()["relu_backward"]).__code__ is relu_backward.__code__


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


def test_a_known_slip_is_named_with_the_results_it_changes():
    def attention_backward(*args):
        return checkers.attention_with_slip(*args, slip="no cache")

    assert str(check(checkers.ATTENTION, attention_backward)).startswith(
        f"✗ case 1 of {len(checkers.ATTENTION.cases())}"
        " (mignon: T = 7, n_embd = 16, 4 heads of 4, the gradient at position 3 only):\n"
        " dxs, dwk and dwv: a sum over positions left out"
    )


def test_a_known_slip_is_named_only_if_the_answer_is_that_slips_on_every_case_it_misses():
    """Right on the page's step, the slip "no mean" of softmax, which the one-score case cannot tell from
    another (its gradient is 0 either way): that case alone names nothing."""

    def softmax_backward(w, gamma):  # the average's own term left out, the others kept: not "no mean"
        out = []
        for t in range(len(w)):
            others = sum(w[u] * gamma[u] for u in range(len(w)) if u != t)
            out.append(w[t] * gamma[t] - w[t] * others)
        return out

    text = str(check(checkers.SOFTMAX, softmax_backward))
    assert checkers.SOFTMAX.slips["no mean"].hint not in text
    assert text.startswith("✗ case 1 of 7") and "the average's own term -w_t w_t gamma_t is missing" in text


def test_the_solutions_attention_backward_calls_the_readers_one_head_piece(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
    step = first_step()

    def attention_head_backward(qs, ks, vs, gs):  # a slip: no gradient reaches the queries
        dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
        return [[0.0] * len(q) for q in qs], dk, dv

    kept.keep("attention_head_backward", attention_head_backward)
    _, grads = capstone.loss_and_grads(step.model.config, capstone.floats(step.model), step.tokens)
    assert not any(any(row) for row in grads["layer0.attn_wq"]) and any(any(row) for row in grads["layer0.attn_wk"])


def rmsnorm_with_the_mean_term_flipped(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi + r**3 * gx / n * xi for gi, xi in zip(g, x)]


def test_the_capstone_says_whose_pieces_differ_from_the_solution_and_where(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
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
    assert inspect.unwrap(capstone.pieces()["rmsnorm_backward"]).__code__ is TestedRmsnorm.rmsnorm_backward.__code__, (
        "only tried"
    )


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
    monkeypatch.setattr(kept, "_yours", {})
    step = first_step()
    said = capstone.first_difference(step.model.config, capstone.floats(step.model), step.tokens, yours={name: wrong})
    assert said.startswith(f"{name} is the first of your pieces to differ from the solution,\n in its call for {call}:")


def test_the_capstone_names_a_piece_that_raises(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
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
    assert said == (
        "relu_backward, a piece of yours, raised IndexError (list index out of range) at line"
        f" {relu_backward.__code__.co_firstlineno + 1}, in its call for position 0."
    )


def test_training_that_parts_from_the_engine_names_the_step_and_the_piece(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {"rmsnorm_backward": rmsnorm_with_the_mean_term_flipped})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=6)
    training = capstone.side_by_side(config, [[4, 0, 1, 2, 4], [4, 3, 3, 4]], steps=3)
    assert training.rows[0][0] == pytest.approx(training.rows[0][1], abs=1e-12), "the first forward pass is shared"
    assert abs(training.rows[1][0] - training.rows[1][1]) > 1e-9
    assert training.first_difference.startswith(
        "at step 1, rmsnorm_backward is the first of your pieces to differ from the solution,\n in its call for"
    )


def test_training_with_the_solutions_says_nothing_differs(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=6)
    training = capstone.side_by_side(config, [[4, 0, 1, 2, 4]], steps=2)
    assert training.first_difference == "" and all(abs(e - m) < 1e-12 for e, m, _, _ in training.rows)


def head_for_seven_positions(qs, ks, vs, gs):
    """A head's backward that keeps only the first 7 positions: the page's T, written as a number."""
    return pieces.attention_head_backward(qs[:7], ks[:7], vs[:7], gs[:7])


def test_a_piece_that_returns_the_wrong_shape_in_the_capstone_is_named_with_its_call_not_an_index_error(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {"attention_head_backward": head_for_seven_positions})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=12)
    document = [4, 0, 1, 2, 3, 0, 1, 2, 3, 0, 4]  # T = 10
    with pytest.raises(capstone.PieceError) as raised:
        capstone.loss_and_grads(config, capstone.floats(Model.init(config)), document)
    assert str(raised.value) == (
        "attention_head_backward, a piece of yours, returned an answer of the wrong shape:"
        " dqs has 7 entries where the solution's has 10 (its shape: 10 x 4), in its call number 1 (T = 10, d_h = 4)."
    )
    said = capstone.first_difference(config, capstone.floats(Model.init(config)), document)
    assert said.startswith("attention_head_backward, a piece of yours, returned an answer of the wrong shape:")
    assert said.endswith("in its call for head 0.")


def test_training_with_a_piece_that_raises_stops_at_that_step_and_names_it(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {"attention_head_backward": head_for_seven_positions})
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=12)
    short, long = [4, 0, 1, 2, 4], [4, 0, 1, 2, 3, 0, 1, 2, 3, 0, 4]
    training = capstone.side_by_side(config, [short, long, short], steps=3)
    assert len(training.rows) == 2 and math.isnan(training.rows[1][1]), "the second step has no manual loss"
    assert training.first_difference.startswith("at step 2, attention_head_backward, a piece of yours, returned")


# ---------------------------------------------------------------- the tolerance, both ways


def _softmax(z):
    e = [math.exp(v - max(z)) for v in z]
    return [v / sum(e) for v in e]


def _central(f, x, h):
    out = []
    for i in range(len(x)):
        up, down = list(x), list(x)
        up[i] += h
        down[i] -= h
        out.append((f(up) - f(down)) / (2 * h))
    return out


def _richardson(f, x):
    """Central differences at h and h/2, extrapolated: the last digits a numerical estimate can reach."""
    a, b = _central(f, x, 1e-3), _central(f, x, 5e-4)
    return [(4 * v - u) / 3 for u, v in zip(a, b)]


def _rms_loss(g):
    return lambda x: sum(gi * xi * (sum(v * v for v in x) / len(x) + 1e-5) ** -0.5 for gi, xi in zip(g, x))


ESTIMATES = {
    "cross_entropy_backward": lambda estimate: (
        lambda p, t, T: estimate(lambda z: -math.log(_softmax(z)[t]) / T, [math.log(v) for v in p])
    ),
    "softmax_backward": lambda estimate: (
        lambda w, gm: estimate(lambda s: sum(a * b for a, b in zip(gm, _softmax(s))), [math.log(v) for v in w])
    ),
    "rmsnorm_backward": lambda estimate: lambda x, g: estimate(_rms_loss(g), x),
}


@pytest.mark.parametrize("name", ESTIMATES)
@pytest.mark.parametrize(
    "estimate",
    [lambda f, x: _central(f, x, 1e-5), lambda f, x: _central(f, x, 1e-6), _richardson],
    ids=["h=1e-5", "h=1e-6", "richardson"],
)
def test_a_numerical_estimate_is_refused_and_said_to_be_close_but_not_exact(name, estimate):
    answer = ESTIMATES[name](estimate)
    piece = checkers.PIECES[name]
    assert max(relative_gap(piece, case, answer(*case.args)) for case in piece.cases()) > 5 * RTOL
    verdict = check(piece, answer)
    assert not verdict.ok and "close, but not exact" in verdict.text and "A numerical estimate" in verdict.text


def _reordered(name):
    """The solution written another way: sums in another order (fsum, reversed), factors moved."""

    def ce(p, t, T):
        return [pj / T - (1 / T if j == t else 0.0) for j, pj in enumerate(p)]

    def lin(x, w, g):
        return [[xj * gi for xj in x] for gi in g], [
            math.fsum(g[i] * w[i][j] for i in reversed(range(len(g)))) for j in range(len(x))
        ]

    def rms(x, g):
        n = len(x)
        r = 1 / math.sqrt(math.fsum(v * v for v in reversed(x)) / n + 1e-5)
        gx = math.fsum(a * b for a, b in zip(g, x))
        return [r * (gi - r * r * gx / n * xi) for gi, xi in zip(g, x)]

    def sm(w, gm):
        n = len(w)
        return [sum(gm[u] * (w[t] * (1 - w[t]) if u == t else -w[t] * w[u]) for u in range(n)) for t in range(n)]

    def head(qs, ks, vs, gs):
        T, d = len(qs), len(qs[0])
        c = d**-0.5
        dq, dk, dv = ([[0.0] * d for _ in qs] for _ in range(3))
        for i in reversed(range(T)):
            q = [a * c for a in qs[i]]
            w = _softmax([sum(a * b for a, b in zip(q, ks[t])) for t in range(i + 1)])
            ds = sm(w, [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)])
            for t in reversed(range(i + 1)):
                for j in range(d):
                    dq[i][j] += ds[t] * c * ks[t][j]
                    dk[t][j] += c * (ds[t] * qs[i][j])
                    dv[t][j] += gs[i][j] * w[t]
        return dq, dk, dv

    def emb(rows, used, grads):
        d = [[0.0] * len(grads[0]) for _ in range(rows)]
        for i, g in reversed(list(zip(used, grads))):
            for j in range(len(g)):
                d[i][j] += g[j]
        return d

    return {
        "cross_entropy_backward": ce,
        "linear_backward": lin,
        "relu_backward": lambda h, g: [gi * (hi > 0) for hi, gi in zip(h, g)],
        "rmsnorm_backward": rms,
        "softmax_backward": sm,
        "attention_head_backward": head,
        "attention_backward": references.attention_backward,
        "embedding_backward": emb,
    }[name]


@pytest.mark.parametrize("name", checkers.PIECES)
def test_a_right_answer_written_another_way_passes_far_inside_the_tolerance(name):
    piece, answer = checkers.PIECES[name], _reordered(name)
    assert check(piece, answer).ok
    assert max(relative_gap(piece, case, answer(*copy.deepcopy(case.args))) for case in piece.cases()) < RTOL / 100


def test_a_fault_in_the_diagnosis_still_refuses_the_answer_and_says_so(monkeypatch):
    from microgpt.course import checking

    def broken(*args):
        raise ZeroDivisionError

    monkeypatch.setattr(checking, "describe", broken)
    verdict = check(checkers.RELU, lambda h, g: [2 * v for v in pieces.relu_backward(h, g)])
    assert not verdict.ok and verdict.text.endswith(
        "dh differs from the engine's (the checker could not say how or where: ZeroDivisionError)."
    )


def test_nothing_is_concluded_from_the_one_score_case_alone():
    """With one score the gradient at the scores is 0 whatever the rule: an answer wrong only there is told where,
    and nothing is said of how (a factor, a floor division, a known slip)."""

    def softmax_backward(w, gamma):
        return pieces.softmax_backward(w, gamma) if len(w) > 1 else [0.5]

    text = str(check(checkers.SOFTMAX, softmax_backward))
    assert text.startswith("✗ case 7 of 7 (head 2 of hassie at position 0: 1 score):")
    assert "times the engine's" not in text and "floor division" not in text and "the rule gives" not in text
