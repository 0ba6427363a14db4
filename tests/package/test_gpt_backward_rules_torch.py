"""The backward rules "Backprop inside the GPT" writes by hand, taken from the page, against PyTorch's autograd."""

import random

import pytest
from backward_rules import shown_rules, vector
from torch_or_skip import require_torch

torch = require_torch()
torch.set_default_dtype(torch.float64)

SEEDS = range(5)


@pytest.fixture(scope="module")
def rules():
    return shown_rules()


def vjp(f, g, *inputs):
    """PyTorch's gradient of L = sum(g * f(inputs)) at each input: the vector-Jacobian product with g."""
    tensors = [torch.tensor(x, requires_grad=True) for x in inputs]
    (f(*tensors) * torch.tensor(g)).sum().backward()
    return [t.grad.tolist() for t in tensors]


def assert_close(mine, theirs):
    assert torch.allclose(torch.tensor(mine), torch.tensor(theirs), rtol=1e-10, atol=1e-13), (mine, theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_rule_matches_pytorch(rules, seed):
    rng = random.Random(seed)
    z, target, n = vector(rng, 6), rng.randrange(6), 4
    p = torch.softmax(torch.tensor(z), 0).tolist()
    (dz,) = vjp(lambda t: -torch.log_softmax(t, 0)[target] / n, [1.0], z)
    assert_close(rules["cross_entropy_backward"](p, target, n), dz)


@pytest.mark.parametrize("seed", SEEDS)
def test_linear_rule_matches_pytorch(rules, seed):
    rng = random.Random(seed)
    w, x, g = [vector(rng, 5) for _ in range(3)], vector(rng, 5), vector(rng, 3)
    dw_torch, dx_torch = vjp(lambda w_, x_: w_ @ x_, g, w, x)
    dw, dx = rules["linear_backward"](x, w, g)
    assert_close(dw, dw_torch)
    assert_close(dx, dx_torch)


@pytest.mark.parametrize("seed", SEEDS)
def test_relu_rule_matches_pytorch(rules, seed):
    rng = random.Random(seed)
    h, g = vector(rng, 8), vector(rng, 8)
    (dh,) = vjp(torch.relu, g, h)
    assert_close(rules["relu_backward"](h, g), dh)


@pytest.mark.parametrize(("seed", "std"), [(s, std) for s in SEEDS for std in (0.01, 1.0)])
def test_rmsnorm_rule_matches_pytorch(rules, seed, std):
    rng = random.Random(seed)
    x, g = vector(rng, 16, std), vector(rng, 16)
    (dx,) = vjp(lambda t: t * ((t * t).mean() + 1e-5) ** -0.5, g, x)
    assert_close(rules["rmsnorm_backward"](x, g), dx)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_rule_matches_pytorch(rules, seed):
    rng = random.Random(seed)
    s, gamma = vector(rng, 5, 2.0), vector(rng, 5)
    w = torch.softmax(torch.tensor(s), 0).tolist()
    (ds,) = vjp(lambda t: torch.softmax(t, 0), gamma, s)
    assert_close(rules["softmax_backward"](w, gamma), ds)


@pytest.mark.parametrize(("seed", "n_head"), [(s, h) for s in SEEDS for h in (1, 2)])
def test_attention_rule_over_a_document_matches_pytorch(rules, seed, n_head):
    # causal attention over T positions: every x through the q, k and v paths, and the keys and values
    # of earlier positions through every later query (the KV cache), against PyTorch's autograd
    rng = random.Random(seed)
    T, n = 4, 4
    xs, gs = [vector(rng, n) for _ in range(T)], [vector(rng, n) for _ in range(T)]
    wq, wk, wv, wo = ([vector(rng, n, 0.5) for _ in range(n)] for _ in range(4))
    d_h = n // n_head

    def attention(x, wq_, wk_, wv_, wo_):
        q, k, v = x @ wq_.T, x @ wk_.T, x @ wv_.T
        heads = []
        for h in range(n_head):
            hs = slice(h * d_h, (h + 1) * d_h)
            scores = q[:, hs] @ k[:, hs].T / d_h**0.5
            causal = torch.ones(T, T, dtype=torch.bool).tril()
            heads.append(torch.softmax(scores.masked_fill(~causal, float("-inf")), 1) @ v[:, hs])
        return torch.cat(heads, 1) @ wo_.T

    want = vjp(attention, gs, xs, wq, wk, wv, wo)
    got = rules["attention_backward"](xs, wq, wk, wv, wo, n_head, gs)
    for mine, theirs in zip(got, want):
        assert_close(mine, theirs)


@pytest.mark.parametrize(("seed", "T", "d_h"), [(0, 1, 2), (1, 4, 3), (2, 5, 4)])
def test_one_heads_rule_over_a_document_matches_pytorch(rules, seed, T, d_h):
    rng = random.Random(seed)
    qs, ks, vs, gs = ([vector(rng, d_h) for _ in range(T)] for _ in range(4))

    def head(q, k, v):
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return torch.softmax((q @ k.T / d_h**0.5).masked_fill(~causal, float("-inf")), 1) @ v

    want = vjp(head, gs, qs, ks, vs)
    for mine, theirs in zip(rules["attention_head_backward"](qs, ks, vs, gs), want):
        assert_close(mine, theirs)


def test_embedding_rule_matches_pytorch(rules):
    rng = random.Random(0)
    table, used = [vector(rng, 3) for _ in range(5)], [4, 1, 4, 0]
    grads = [vector(rng, 3) for _ in used]
    (dtable,) = vjp(lambda t: t[torch.tensor(used)], grads, table)
    assert_close(rules["embedding_backward"](len(table), used, grads), dtable)
