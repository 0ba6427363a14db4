"""Gradients from microgpt's engine against PyTorch's autograd: random graphs and one whole gpt() step."""

import pytest
from hypothesis import given, settings
from random_graphs import inputs, programs, run_program
from torch_or_skip import require_torch

from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, gpt, softmax

torch = require_torch()
torch.set_default_dtype(torch.float64)
from torch_gpt import torch_gpt_loss  # noqa: E402  (a helper that needs torch, so after the guard)


@settings(max_examples=100, deadline=None)
@given(xs=inputs, program=programs)
def test_random_graphs_match_pytorch(xs, program):
    values = [Value(x) for x in xs]
    out = run_program(program, values)
    out.backward()
    tensors = [torch.tensor(x, requires_grad=True) for x in xs]
    run_program(program, tensors).backward()
    assert out.data == pytest.approx(float(run_program(program, [torch.tensor(x) for x in xs])), rel=1e-9, abs=1e-12)
    for v, t in zip(values, tensors):
        assert v.grad == pytest.approx(float(t.grad) if t.grad is not None else 0.0, rel=1e-9, abs=1e-12)


def test_one_gpt_step_matches_pytorch_for_every_parameter():
    config = GPTConfig(vocab_size=7, n_layer=2, n_embd=8, n_head=2, block_size=6)
    model = Model.init(config, seed=3)
    tokens = [6, 0, 3, 5, 1, 6]
    keys, values, losses = [[], []], [[], []], []
    for pos in range(len(tokens) - 1):
        probs = softmax(gpt(model, tokens[pos], pos, keys, values))
        losses.append(-probs[tokens[pos + 1]].log())
    loss = (1 / len(losses)) * sum(losses)
    loss.backward()

    weights = {
        name: torch.tensor([[p.data for p in row] for row in mat], requires_grad=True)
        for name, mat in model.state_dict.items()
    }
    torch_loss = torch_gpt_loss(config, weights, tokens)
    torch_loss.backward()

    assert loss.data == pytest.approx(torch_loss.item(), rel=1e-12)
    for name, mat in model.state_dict.items():
        ours = torch.tensor([[p.grad for p in row] for row in mat])
        theirs = weights[name].grad if weights[name].grad is not None else torch.zeros_like(ours)
        assert torch.allclose(ours, theirs, rtol=1e-9, atol=1e-12), name
