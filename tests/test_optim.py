"""Adam with linear learning-rate decay."""

import pytest

from microgpt.engine import Value
from microgpt.optim import Adam


@pytest.mark.parametrize("grad", [2.5, -0.003])
def test_first_step_moves_a_parameter_against_its_gradient_by_about_lr(grad):
    p = Value(1.0)
    p.grad = grad
    Adam([p], lr=0.01).step()
    # on the first step m_hat = g and v_hat = g*g, so the move is lr * g / |g|, whatever the size of g
    expected = 1.0 - 0.01 if grad > 0 else 1.0 + 0.01
    assert p.data == pytest.approx(expected, abs=1e-6)  # eps 1e-8 in the denominator shaves a little off


def test_step_zeroes_every_gradient():
    params = [Value(0.5), Value(-1.0)]
    params[0].grad, params[1].grad = 3.0, -2.0
    Adam(params).step()
    assert [p.grad for p in params] == [0, 0]


def test_parameter_with_zero_gradient_does_not_move():
    p = Value(0.25)
    Adam([p]).step()
    assert p.data == 0.25


def test_learning_rate_decays_linearly_to_zero_over_total_steps():
    p = Value(0.0)
    optimizer = Adam([p], lr=0.01, total_steps=4)
    moves = []
    for _ in range(4):
        before = p.data
        p.grad = 1.0  # a constant gradient keeps m_hat / sqrt(v_hat) at 1, so each move is lr_t
        optimizer.step()
        moves.append(before - p.data)
    assert moves == pytest.approx([0.01, 0.0075, 0.005, 0.0025], rel=1e-6)
