"""The backward rules of the "Backprop inside the GPT" chapter (the solutions its pages show, from
microgpt.course.pieces) against central differences and the engine; and the recorded step against gpt()."""

import math
import random
import subprocess
import sys

import pytest
from backward_rules import shown_rules, vector
from gradcheck import central_difference

from microgpt import GPTConfig, Model, Value, gpt
from microgpt.course.exercises import data, record
from microgpt.model import attention, rmsnorm, softmax


@pytest.fixture(scope="module")
def rules():
    return shown_rules()


def rmsnorm_grad_by_engine(x, g):
    xs = [Value(v) for v in x]
    sum(gi * yi for gi, yi in zip(g, rmsnorm(xs))).backward()
    return [v.grad for v in xs]


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
    dw, dx = rules["linear_backward"](x, w, g)
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


@pytest.mark.parametrize(("seed", "T", "d_h"), [(0, 1, 2), (1, 3, 2), (2, 4, 3)])
def test_one_heads_rule_matches_central_differences_for_queries_keys_and_values(rules, seed, T, d_h):
    rng = random.Random(seed)
    qs, ks, vs, gs = ([vector(rng, d_h) for _ in range(T)] for _ in range(4))
    mine = rules["attention_head_backward"](qs, ks, vs, gs)

    def forward(flat):  # the head's output at every position, as attention() computes one head's
        q, k, v = ([flat[(m * T + t) * d_h : (m * T + t + 1) * d_h] for t in range(T)] for m in range(3))
        out = []
        for i in range(T):
            w = data(softmax([Value(sum(a * b for a, b in zip(q[i], k[t])) / d_h**0.5) for t in range(i + 1)]))
            out += [sum(w[t] * v[t][j] for t in range(i + 1)) for j in range(d_h)]
        return out

    flat = [x for m in (qs, ks, vs) for row in m for x in row]
    measured = vjp_by_central_differences(forward, flat, [v for g in gs for v in g])
    assert_close([x for part in mine for row in part for x in row], measured)


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_rule_matches_central_differences_for_inputs_and_all_four_matrices(rules, seed):
    rng = random.Random(seed)
    T, n, n_head = 3, 4, 2
    xs = [vector(rng, n) for _ in range(T)]
    mats = [[vector(rng, n) for _ in range(n)] for _ in range(4)]
    gs = [vector(rng, n) for _ in range(T)]
    dxs, *dws = rules["attention_backward"](xs, *mats, n_head, gs)

    def forward(flat):  # every position's output, as a function of the inputs then the four matrices
        xs_ = [flat[t * n : (t + 1) * n] for t in range(T)]
        rest = flat[T * n :]
        ms = [[rest[(k * n + i) * n : (k * n + i + 1) * n] for i in range(n)] for k in range(4)]
        sd = {f"layer0.attn_w{c}": [[Value(v) for v in row] for row in m] for c, m in zip("qkvo", ms)}
        model = Model(GPTConfig(vocab_size=1, n_embd=n, n_head=n_head, block_size=T), sd)
        keys, values = [[]], [[]]
        return [o.data for x in xs_ for o in attention([Value(v) for v in x], 0, model, keys, values)]

    flat = [v for x in xs for v in x] + [v for m in mats for row in m for v in row]
    measured = vjp_by_central_differences(forward, flat, [v for g in gs for v in g])
    mine = [v for x in dxs for v in x] + [v for m in dws for row in m for v in row]
    assert_close(mine, measured)


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


def test_the_checkers_import_in_a_fresh_interpreter_without_running_anything():
    code = "import microgpt.course.checkers as c; print(callable(c.check_rmsnorm_backward))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout == "True\n" and out.stderr == ""
