"""The model's building blocks, and gradients of one gpt() step against central differences."""

import math
import random

import pytest
from gradcheck import central_difference

from microgpt.engine import Value
from microgpt.errors import InputError
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


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("n_embd", 10, "divisible by n_head"),
        ("n_layer", 0, "positive whole number"),
        ("block_size", -3, "positive whole number"),
        ("n_head", 2.5, "positive whole number"),
    ],
)
def test_bad_config_raises_input_error(field, value, message):
    with pytest.raises(InputError, match=message):
        GPTConfig(vocab_size=27, **{field: value})


def test_attention_is_causal_earlier_logits_ignore_later_tokens():
    config = GPTConfig(vocab_size=6, n_embd=8, n_head=2, block_size=5)
    model = Model.init(config, seed=0)

    def logits_at_pos1(tokens):
        keys, vals = [[]], [[]]
        return [[x.data for x in gpt(model, t, pos, keys, vals)] for pos, t in enumerate(tokens)][1]

    assert logits_at_pos1([5, 1, 2]) == logits_at_pos1([5, 1, 4])
    assert logits_at_pos1([5, 1]) != logits_at_pos1([5, 3])


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
