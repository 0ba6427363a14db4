"""The backward rules "Backprop inside the GPT" writes by hand, taken from the page, against PyTorch's autograd."""

import random

import pytest
from test_gpt_backward_rules import rules, vector  # noqa: F401 (rules is a fixture)
from torch_or_skip import require_torch

torch = require_torch()
torch.set_default_dtype(torch.float64)

SEEDS = range(5)


def vjp(f, g, *inputs):
    """PyTorch's gradient of L = sum(g * f(inputs)) at each input: the vector-Jacobian product with g."""
    tensors = [torch.tensor(x, requires_grad=True) for x in inputs]
    (f(*tensors) * torch.tensor(g)).sum().backward()
    return [t.grad.tolist() for t in tensors]


def assert_close(mine, theirs):
    assert torch.allclose(torch.tensor(mine), torch.tensor(theirs), rtol=1e-10, atol=1e-13), (mine, theirs)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_rule_matches_pytorch(rules, seed):  # noqa: F811
    rng = random.Random(seed)
    z, target, n = vector(rng, 6), rng.randrange(6), 4
    p = torch.softmax(torch.tensor(z), 0).tolist()
    (dz,) = vjp(lambda t: -torch.log_softmax(t, 0)[target] / n, [1.0], z)
    assert_close(rules["cross_entropy_backward"](p, target, n), dz)


@pytest.mark.parametrize("seed", SEEDS)
def test_linear_rule_matches_pytorch(rules, seed):  # noqa: F811
    rng = random.Random(seed)
    w, x, g = [vector(rng, 5) for _ in range(3)], vector(rng, 5), vector(rng, 3)
    dw_torch, dx_torch = vjp(lambda w_, x_: w_ @ x_, g, w, x)
    dw, dx = rules["linear_backward"](w, x, g)
    assert_close(dw, dw_torch)
    assert_close(dx, dx_torch)


@pytest.mark.parametrize("seed", SEEDS)
def test_relu_rule_matches_pytorch(rules, seed):  # noqa: F811
    rng = random.Random(seed)
    h, g = vector(rng, 8), vector(rng, 8)
    (dh,) = vjp(torch.relu, g, h)
    assert_close(rules["relu_backward"](h, g), dh)


@pytest.mark.parametrize(("seed", "std"), [(s, std) for s in SEEDS for std in (0.01, 1.0)])
def test_rmsnorm_rule_matches_pytorch(rules, seed, std):  # noqa: F811
    rng = random.Random(seed)
    x, g = vector(rng, 16, std), vector(rng, 16)
    (dx,) = vjp(lambda t: t * ((t * t).mean() + 1e-5) ** -0.5, g, x)
    assert_close(rules["rmsnorm_backward"](x, g), dx)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_rule_matches_pytorch(rules, seed):  # noqa: F811
    rng = random.Random(seed)
    s, gamma = vector(rng, 5, 2.0), vector(rng, 5)
    w = torch.softmax(torch.tensor(s), 0).tolist()
    (ds,) = vjp(lambda t: torch.softmax(t, 0), gamma, s)
    assert_close(rules["softmax_backward"](w, gamma), ds)


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_head_rule_matches_pytorch(rules, seed):  # noqa: F811
    rng = random.Random(seed)
    d, n = 4, 3
    q, g = vector(rng, d), vector(rng, d)
    ks, vs = [vector(rng, d) for _ in range(n)], [vector(rng, d) for _ in range(n)]

    def head(q_, k_, v_):
        return torch.softmax(k_ @ q_ / d**0.5, 0) @ v_

    dq_torch, dks_torch, dvs_torch = vjp(head, g, q, ks, vs)
    _, w, a = rules["head_forward"](q, ks, vs)
    assert_close(a, head(torch.tensor(q), torch.tensor(ks), torch.tensor(vs)).tolist())
    dq, dks, dvs, _, _ = rules["head_backward"](q, ks, vs, w, g)
    assert_close(dq, dq_torch)
    assert_close(dks, dks_torch)
    assert_close(dvs, dvs_torch)


def test_embedding_rule_matches_pytorch(rules):  # noqa: F811
    rng = random.Random(0)
    table, used = [vector(rng, 3) for _ in range(5)], [4, 1, 4, 0]
    grads = [vector(rng, 3) for _ in used]
    (dtable,) = vjp(lambda t: t[torch.tensor(used)], grads, table)
    assert_close(rules["embedding_backward"](len(table), used, grads), dtable)
