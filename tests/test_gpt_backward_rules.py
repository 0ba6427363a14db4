"""The backward rules "Backprop inside the GPT" writes by hand, taken from the page itself, against
central differences and the engine; the recorded step against gpt(); and the RMSNorm exercise's checker."""

import contextlib
import io
import math
import random
import subprocess
import sys
from pathlib import Path

import mdblocks
import pytest
from gradcheck import central_difference

from microgpt import GPTConfig, Model, Value, gpt
from microgpt.course.exercises import check_rmsnorm_backward, data, record, rmsnorm_grad_by_engine
from microgpt.model import rmsnorm, softmax

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "gpt-backprop.md"
RULES = (
    "cross_entropy_backward",
    "linear_backward",
    "relu_backward",
    "rmsnorm_backward",
    "softmax_backward",
    "head_forward",
    "head_backward",
    "embedding_backward",
)


@pytest.fixture(scope="module")
def rules():
    """Each rule as the page defines it last (the exercise's first attempt is replaced by a correct one)."""
    page = mdblocks.parse(PAGE.read_text(encoding="utf-8"), "gpt-backprop.md", ROOT)
    assert not page.problems
    found = {}
    for chain in page.chains():
        namespace: dict = {"__name__": "page_block"}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile("".join(block.code for block in chain), str(PAGE), "exec"), namespace)
        found.update({name: namespace[name] for name in RULES if name in namespace})
    assert set(found) == set(RULES)
    return found


def vector(rng, n, std=1.0):
    return [rng.gauss(0, std) for _ in range(n)]


def vjp_by_central_differences(f, x, g):
    """sum_i g_i d f_i / d x_j, measured: the slope of L(x) = g . f(x) in each x_j."""

    def loss(*xs):
        return math.fsum(gi * oi for gi, oi in zip(g, f(list(xs))))

    return [central_difference(loss, x, j) for j in range(len(x))]


def by_values(f):
    """A forward pass of microgpt's Value functions, as a function of plain floats."""
    return lambda xs: data(f([Value(v) for v in xs]))


def assert_close(mine, measured, tol=1e-6):
    assert len(mine) == len(measured)
    for a, b in zip(mine, measured):
        assert a == pytest.approx(b, rel=tol, abs=tol)


SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_rule_matches_central_differences(rules, seed):
    rng = random.Random(seed)
    z, target, n = vector(rng, 6), rng.randrange(6), 3

    def loss(zs):  # one position's share of a mean over n positions
        return [-softmax(zs)[target].log() * (1 / n)]

    p = data(softmax([Value(v) for v in z]))
    assert_close(rules["cross_entropy_backward"](p, target, n), vjp_by_central_differences(by_values(loss), z, [1.0]))


@pytest.mark.parametrize("seed", SEEDS)
def test_linear_rule_matches_central_differences_for_input_and_weights(rules, seed):
    rng = random.Random(seed)
    w, x, g = [vector(rng, 4) for _ in range(3)], vector(rng, 4), vector(rng, 3)
    dw, dx = rules["linear_backward"](w, x, g)
    assert_close(dx, vjp_by_central_differences(lambda xs: [sum(a * b for a, b in zip(row, xs)) for row in w], x, g))
    flat = [v for row in w for v in row]

    def by_weights(ws):
        return [sum(ws[4 * i + j] * x[j] for j in range(4)) for i in range(3)]

    assert_close([v for row in dw for v in row], vjp_by_central_differences(by_weights, flat, g))


@pytest.mark.parametrize("seed", SEEDS)
def test_relu_rule_matches_central_differences(rules, seed):
    rng = random.Random(seed)
    h = [v for v in vector(rng, 8) if abs(v) > 1e-3]  # not at the kink, where there is no derivative
    g = vector(rng, len(h))
    measured = vjp_by_central_differences(by_values(lambda hs: [v.relu() for v in hs]), h, g)
    assert_close(rules["relu_backward"](h, g), measured)
    assert any(v < 0 for v in h) and any(v > 0 for v in h)


@pytest.mark.parametrize(("seed", "std"), [(s, std) for s in SEEDS for std in (0.01, 0.1, 1.0)])
def test_rmsnorm_rule_matches_central_differences_and_the_engine(rules, seed, std):
    rng = random.Random(seed)
    x, g = vector(rng, 16, std), vector(rng, 16)
    mine = rules["rmsnorm_backward"](x, g)
    assert_close(mine, vjp_by_central_differences(by_values(rmsnorm), x, g), tol=1e-5)
    assert_close(mine, rmsnorm_grad_by_engine(x, g), tol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_rmsnorm_gradient_is_orthogonal_to_x_up_to_epsilon(rules, seed):
    rng = random.Random(seed)
    x, g = vector(rng, 16), vector(rng, 16)
    dx = rules["rmsnorm_backward"](x, g)
    m = math.fsum(v * v for v in x) / len(x)
    gx = math.fsum(a * b for a, b in zip(g, x))
    predicted = (m + 1e-5) ** -0.5 * gx * 1e-5 / (m + 1e-5)
    assert math.fsum(a * b for a, b in zip(dx, x)) == pytest.approx(predicted, rel=1e-6, abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_rule_matches_central_differences(rules, seed):
    rng = random.Random(seed)
    s, gamma = vector(rng, 5, 2.0), vector(rng, 5)
    w = data(softmax([Value(v) for v in s]))
    assert_close(rules["softmax_backward"](w, gamma), vjp_by_central_differences(by_values(softmax), s, gamma))


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_head_rule_matches_central_differences_for_query_keys_and_values(rules, seed):
    rng = random.Random(seed)
    d, n = 4, 3
    q, g = vector(rng, d), vector(rng, d)
    ks, vs = [vector(rng, d) for _ in range(n)], [vector(rng, d) for _ in range(n)]
    _, w, a = rules["head_forward"](q, ks, vs)
    dq, dks, dvs, _, _ = rules["head_backward"](q, ks, vs, w, g)

    def head(flat):  # the head's output as a function of q, then every key, then every value
        q_, rest = flat[:d], flat[d:]
        ks_ = [rest[t * d : (t + 1) * d] for t in range(n)]
        vs_ = [rest[(n + t) * d : (n + t + 1) * d] for t in range(n)]
        return rules["head_forward"](q_, ks_, vs_)[2]

    flat = q + [v for k in ks for v in k] + [u for v in vs for u in v]
    measured = vjp_by_central_differences(head, flat, g)
    assert_close(dq + [v for k in dks for v in k] + [u for v in dvs for u in v], measured)


def test_embedding_rule_adds_into_rows_used_twice_and_leaves_others_zero(rules):
    d = rules["embedding_backward"](4, [2, 0, 2], [[1.0, 2.0], [3.0, 4.0], [0.5, 0.25]])
    assert d == [[3.0, 4.0], [0.0, 0.0], [1.5, 2.25], [0.0, 0.0]]


def test_record_keeps_what_gpt_computes_bit_for_bit():
    config = GPTConfig(vocab_size=7, n_embd=8, n_head=2, block_size=6)
    tokens = [6, 0, 3, 5, 1, 6]
    step = record(Model.init(config, seed=3), tokens)
    model, keys, values = Model.init(config, seed=3), [[]], [[]]
    for i, pos in enumerate(step.positions):
        assert data(gpt(model, tokens[i], i, keys, values)) == data(pos.logits)
        assert (pos.token, pos.target) == (tokens[i], tokens[i + 1])
    assert len(step.keys) == len(step.values) == len(tokens) - 1


def test_record_refuses_a_model_with_more_than_one_block():
    with pytest.raises(ValueError, match="n_layer=2"):
        record(Model.init(GPTConfig(vocab_size=5, n_layer=2, n_embd=4, n_head=1)), [0, 1])


def correct(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def test_the_checker_accepts_a_correct_backward():
    assert check_rmsnorm_backward(correct).startswith("✓ correct agrees with the engine on all 3 cases")


def direct_only(x, g):
    r = (sum(v * v for v in x) / len(x) + 1e-5) ** -0.5
    return [r * gi for gi in g]


def raises(x, g):
    return [1 / 0]


def mutates(x, g):
    x[0] = 0.0
    return correct(x, g)


WRONG = {
    "wrong sign": lambda x, g: [-v for v in correct(x, g)],
    "a missing term: you have only the direct path": direct_only,
    "a missing term: you have the path through the mean square, but not the direct one": (
        lambda x, g: [a - b for a, b in zip(correct(x, g), direct_only(x, g))]
    ),
    "n times too large": lambda x, g: [c + (len(x) - 1) * (c - d) for c, d in zip(correct(x, g), direct_only(x, g))],
    "without eps": lambda x, g: [
        (sum(v * v for v in x) / len(x)) ** -0.5 * gi
        - (sum(v * v for v in x) / len(x)) ** -1.5 * sum(a * b for a, b in zip(g, x)) / len(x) * xi
        for gi, xi in zip(g, x)
    ],
    "the term has r**3, not r": lambda x, g: [
        d - (sum(v * v for v in x) / len(x) + 1e-5) ** -0.5 * sum(a * b for a, b in zip(g, x)) / len(x) * xi
        for d, xi in zip(direct_only(x, g), x)
    ],
    "shape: return one number per entry of x (16), not 15": lambda x, g: correct(x, g)[:-1],
    "shape: return a list of 16 numbers, one per entry of x, not a float": lambda x, g: 0.0,
    "entry 0 is a Value: return plain numbers": lambda x, g: [Value(v) for v in correct(x, g)],
    "raised ZeroDivisionError": raises,
    "changed its arguments": mutates,
    "entry 3 is": lambda x, g: [v + (i == 3) for i, v in enumerate(correct(x, g))],
}


@pytest.mark.parametrize("words", WRONG)
def test_the_checker_says_what_is_wrong(words):
    verdict = check_rmsnorm_backward(WRONG[words])
    where, what = verdict.split("\n", 1)
    assert where == "✗ case 1 of 3 (x has 16 entries):" and words in what, verdict


def test_the_checker_catches_code_that_hard_codes_a_length():
    def only_sixteen(x, g):
        return correct(x, g) if len(x) == 16 else [0.0] * 16

    assert check_rmsnorm_backward(only_sixteen).startswith("✗ case 3 of 3 (x has 3 entries):\n shape:")


def test_the_checker_imports_in_a_fresh_interpreter_without_running_anything():
    code = "import microgpt.course.exercises as e; print(callable(e.check_rmsnorm_backward))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout == "True\n" and out.stderr == ""
