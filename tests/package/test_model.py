"""The model's building blocks, and gradients of one gpt() step against central differences."""

import math
import random

import pytest
from gradcheck import central_difference

from microgpt import model as model_module
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, gpt, init_params, linear, parameters, rmsnorm, softmax


def values(xs):
    return [Value(x) for x in xs]


def test_linear_is_a_matrix_vector_product():
    w = [values([1.0, 2.0]), values([-1.0, 0.5]), values([0.0, 3.0])]
    assert [y.data for y in linear(values([3.0, -2.0]), w)] == [-1.0, -4.0, -6.0]


def test_softmax_sums_to_one_and_survives_huge_logits():
    probs = softmax(values([1000.0, 1001.0, 999.0]))
    assert sum(p.data for p in probs) == pytest.approx(1.0)
    expected = [math.exp(-1) / (1 + math.exp(-1) + math.exp(-2)), 1 / (1 + math.exp(-1) + math.exp(-2))]
    assert [p.data for p in probs[:2]] == pytest.approx(expected)


def test_rmsnorm_gives_unit_root_mean_square():
    out = rmsnorm(values([3.0, -4.0, 12.0]))
    assert math.sqrt(sum(y.data**2 for y in out) / 3) == pytest.approx(1.0, rel=1e-5)


def test_init_params_shapes_and_scale():
    config = GPTConfig(vocab_size=27)
    sd = init_params(config, seed=42)
    assert (len(sd["wte"]), len(sd["wte"][0])) == (27, 16)
    assert (len(sd["layer0.mlp_fc1"]), len(sd["layer0.mlp_fc1"][0])) == (64, 16)
    ps = parameters(sd)
    assert len(ps) == 4192
    std = math.sqrt(sum(p.data**2 for p in ps) / len(ps))
    assert 0.07 < std < 0.09


def test_same_seed_same_params_other_seed_other_params():
    config = GPTConfig(vocab_size=5, n_embd=4, n_head=2, block_size=4)
    a, b, c = (Model.init(config, seed) for seed in (1, 1, 2))
    assert [p.data for p in a.params] == [p.data for p in b.params] != [p.data for p in c.params]


def run_positions(model, tokens):
    """Feed tokens one position at a time through gpt(), as training does; return each position's logits."""
    keys, vals = [[] for _ in range(model.config.n_layer)], [[] for _ in range(model.config.n_layer)]
    return [[x.data for x in gpt(model, t, pos, keys, vals)] for pos, t in enumerate(tokens)]


def test_attention_at_position_t_weighs_exactly_positions_0_to_t(monkeypatch):
    # attention() is the only caller of softmax inside gpt(): record how many scores each call weighs
    config = GPTConfig(vocab_size=6, n_layer=2, n_embd=8, n_head=2, block_size=5)
    model = Model.init(config, seed=0)
    weighed = []
    real_softmax = model_module.softmax
    monkeypatch.setattr(model_module, "softmax", lambda scores: weighed.append(len(scores)) or real_softmax(scores))
    run_positions(model, [5, 1, 2, 3, 4])
    per_call = config.n_layer * config.n_head  # softmax calls per position
    assert weighed == [pos + 1 for pos in range(5) for _ in range(per_call)]


def test_logits_at_a_position_depend_on_every_earlier_token_and_the_current_one():
    config = GPTConfig(vocab_size=6, n_embd=8, n_head=2, block_size=5)
    model = Model.init(config, seed=0)
    base = [5, 1, 2, 3]
    base_logits = run_positions(model, base)
    for pos in range(len(base)):
        for j in range(pos + 1):
            changed = list(base)
            changed[j] = (base[j] + 1) % config.vocab_size
            assert run_positions(model, changed)[pos] != base_logits[pos], f"token {j} did not reach position {pos}"


def test_a_later_token_never_changes_earlier_logits():
    config = GPTConfig(vocab_size=6, n_embd=8, n_head=2, block_size=5)
    model = Model.init(config, seed=0)
    a, b = run_positions(model, [5, 1, 2, 3]), run_positions(model, [5, 1, 2, 0])
    assert a[:3] == b[:3] and a[3] != b[3]


def step_loss(model, tokens):
    keys, vals = [[] for _ in range(model.config.n_layer)], [[] for _ in range(model.config.n_layer)]
    losses = [-softmax(gpt(model, tokens[i], i, keys, vals))[tokens[i + 1]].log() for i in range(len(tokens) - 1)]
    return (1 / len(losses)) * sum(losses)


def test_gpt_step_gradients_match_central_differences():
    config = GPTConfig(vocab_size=5, n_embd=4, n_head=2, block_size=4)
    model = Model.init(config, seed=7)
    tokens = [4, 1, 3, 4]
    step_loss(model, tokens).backward()
    params = model.params
    for p in random.Random(0).sample(params, 40):

        def loss_at(x, p=p):
            saved, p.data = p.data, x
            try:
                return step_loss(model, tokens).data
            finally:
                p.data = saved

        assert p.grad == pytest.approx(central_difference(loss_at, [p.data], 0, h=1e-6), rel=1e-4, abs=1e-7)
