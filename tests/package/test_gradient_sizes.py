"""The numbers of the gradient-flow picture (microgpt/course/gradient_sizes.py): the engine's .grad, place by place."""

import math
from dataclasses import fields

import pytest

from microgpt.course.exercises import Position, first_step
from microgpt.course.gradient_sizes import PLACES, gradient_sizes, norm


def test_norm_is_the_root_of_the_sum_of_squares():
    assert norm([[3.0, 0.0], [0.0, -4.0]]) == 5.0
    assert norm([]) == 0.0


def test_every_weight_matrix_and_every_vector_of_the_block_has_a_place():
    step = first_step()
    names = [name for name, *_ in PLACES]
    assert len(names) == len(set(names))
    assert set(step.model.state_dict) <= set(names)
    vectors = {f.name for f in fields(Position)} - {"token", "target", "probs", "loss"}
    assert vectors <= set(names)


def test_sizes_are_the_engines_grad_at_each_place():
    step = first_step()
    sizes = {p.name: p.norm for p in gradient_sizes(step)}
    for name, mat in step.model.state_dict.items():
        assert sizes[name] == pytest.approx(math.sqrt(sum(p.grad**2 for row in mat for p in row)), rel=1e-12)
    assert sizes["x1"] == pytest.approx(math.sqrt(sum(v.grad**2 for pos in step.positions for v in pos.x1)))
    assert sizes["keys"] == pytest.approx(math.sqrt(sum(v.grad**2 for k in step.keys for v in k)))
    assert sizes["loss"] == 1.0  # backward() seeds the loss with 1
    # the residual add copies the gradient: the branch's output gets what the sum gets
    assert sizes["attn_out"] == sizes["x1"] and sizes["mlp_out"] == sizes["x2"]


def test_sizes_agree_with_the_numpy_form():
    np = pytest.importorskip("numpy")
    from microgpt.course import matrix_form

    step = first_step()
    w = matrix_form.weights(step.model)
    d = matrix_form.backward(w, matrix_form.forward(w, step.tokens, step.model.config.n_head))
    other = {"keys": "k", "values": "v"}
    for place in gradient_sizes(step):
        if place.name != "loss":
            assert place.norm == pytest.approx(float(np.linalg.norm(d[other.get(place.name, place.name)])), rel=1e-9)


def test_branches_are_the_attention_and_mlp_pieces_in_forward_order():
    places = gradient_sizes()
    branch = [p.name for p in places if p.branch == "attention"]
    assert branch[0] == "attn_in" and branch[-1] == "attn_out"
    mlp = [p.name for p in places if p.branch == "mlp"]
    assert mlp[0] == "mlp_in" and mlp[-1] == "mlp_out"
    names = [p.name for p in places]
    assert names.index("x0") < names.index("attn_in") < names.index("x1") < names.index("mlp_in") < names.index("x2")
