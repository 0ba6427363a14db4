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


def test_past_total_steps_the_learning_rate_stays_at_zero():
    p = Value(2.0)
    optimizer = Adam([p], lr=0.1, total_steps=3)
    for _ in range(3):
        p.grad = 2 * p.data  # L = p**2
        optimizer.step()
    settled = p.data
    for _ in range(10):  # a negative rate would climb the loss from here
        p.grad = 2 * p.data
        optimizer.step()
    assert p.data == settled


@pytest.mark.parametrize("total_steps", [0, -5])
def test_total_steps_below_one_is_refused(total_steps):
    with pytest.raises(ValueError, match="total_steps must be at least 1"):
        Adam([Value(0.0)], total_steps=total_steps)
