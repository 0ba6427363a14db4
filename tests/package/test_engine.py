"""The autograd engine: each op's local rule, the worked examples the site teaches, and the edge cases."""

import gc
import math

import pytest
from gradcheck import central_difference
from hypothesis import given, settings
from random_graphs import inputs, programs, run_program

from microgpt.engine import Value, topological_order


def grads_of(f, *xs):
    """Run f on fresh Values, backpropagate, and return (output, [grad of each input])."""
    leaves = [Value(x) for x in xs]
    out = f(*leaves)
    out.backward()
    return out, [leaf.grad for leaf in leaves]


# Each op on a point where it is smooth: (name, function of Values or floats, point).
OPS = [
    ("add", lambda a, b: a + b, (1.5, -0.7)),
    ("mul", lambda a, b: a * b, (1.5, -0.7)),
    ("sub", lambda a, b: a - b, (1.5, -0.7)),
    ("truediv", lambda a, b: a / b, (1.5, -0.7)),
    ("neg", lambda a: -a, (1.5,)),
    ("pow", lambda a: a**3, (1.5,)),
    ("pow_negative", lambda a: a**-0.5, (1.5,)),
    ("radd", lambda a: 2.0 + a, (1.5,)),
    ("rsub", lambda a: 2.0 - a, (1.5,)),
    ("rmul", lambda a: 2.0 * a, (1.5,)),
    ("rtruediv", lambda a: 2.0 / a, (1.5,)),
    ("log", lambda a: a.log() if isinstance(a, Value) else math.log(a), (1.5,)),
    ("exp", lambda a: a.exp() if isinstance(a, Value) else math.exp(a), (0.3,)),
    ("tanh", lambda a: a.tanh() if isinstance(a, Value) else math.tanh(a), (0.3,)),
    ("relu_positive", lambda a: a.relu() if isinstance(a, Value) else max(0.0, a), (0.3,)),
    ("relu_negative", lambda a: a.relu() if isinstance(a, Value) else max(0.0, a), (-0.3,)),
]


@pytest.mark.parametrize(("name", "f", "point"), OPS, ids=[op[0] for op in OPS])
def test_local_gradient_of_each_op_matches_central_difference(name, f, point):
    out, grads = grads_of(f, *point)
    assert out.data == pytest.approx(f(*point))
    for i, g in enumerate(grads):
        assert g == pytest.approx(central_difference(f, point, i), rel=1e-6, abs=1e-8)


def test_each_op_records_children_and_local_grads():
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    assert c._children == (a, b) and c._local_grads == (-3.0, 2.0)
    d = a + b
    assert d._children == (a, b) and d._local_grads == (1, 1)
    assert a._children == () and a._local_grads == ()


def test_relu_of_a_times_b_plus_d():
    a, b, d = Value(2.0), Value(-3.0), Value(10.0)
    c = a * b
    e = c + d
    f = e.relu()
    f.backward()
    assert f.data == 4.0
    assert (a.grad, b.grad, c.grad, d.grad, e.grad, f.grad) == (-3.0, 2.0, 1.0, 1.0, 1.0, 1)


def test_a_plus_a_accumulates_both_paths():
    a = Value(3.0)
    b = a + a
    b.backward()
    assert a.grad == 2


def test_a_times_a_at_three_gives_six_not_three():
    a = Value(3.0)
    (a * a).backward()
    assert a.grad == 6.0


def test_diamond_sums_both_paths_to_fifteen():
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    d.backward()
    assert (b.grad, c.grad) == (6.0, 3.0)
    assert a.grad == 15.0  # 6 * 1 through b, plus 3 * 3 through c


def test_challenge_expression_gives_seven_two_minus_one():
    _, grads = grads_of(lambda a, b, c: (a * b + c) * (a + b), 2.0, -3.0, 10.0)
    assert grads == [7.0, 2.0, -1.0]


def test_node_reused_three_times_gets_the_sum_of_its_uses():
    x = Value(2.0)
    y = x * x * x + x  # dy/dx = 3x² + 1 = 13
    y.backward()
    assert x.grad == 13.0


def test_second_backward_accumulates_until_grads_are_zeroed():
    a, b = Value(2.0), Value(-3.0)
    loss = a * b
    loss.backward()
    assert a.grad == -3.0
    loss.backward()  # grads are not reset by backward: they add up
    assert a.grad == -6.0
    for v in (a, b, loss):
        v.grad = 0  # what the optimizer does after each update
    loss.backward()
    assert a.grad == -3.0


def test_backward_through_a_chain_of_a_million_ops():
    # a recursive topological sort dies near depth 1,000; ours walks an explicit stack
    x0 = Value(1.0)
    x = x0
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building 1.5M objects with the collector on only costs time here
    try:
        for _ in range(500_000):  # two ops each
            x = x * 1.000001 + 0.1
        x.backward()
    finally:
        if gc_was_enabled:
            gc.enable()
    assert x0.grad == pytest.approx(1.000001**500_000, rel=1e-9)


def test_backward_applies_each_nodes_rule_once_after_all_its_users():
    # a is an interior node with two users (b and c): its rule must run once, after both
    x = Value(1.0)
    a = x * 2
    b = a + 1
    c = a * 3
    d = b * c
    order = []
    for v in (a, b, c, d):  # wrap each local gradient to see which node's rule used it, and when
        v._local_grads = tuple(_Spy(g, v, order) for g in v._local_grads)
    d.backward()
    owners = [v for v, _ in order]
    assert [owners.count(v) for v in (d, b, c, a)] == [2, 2, 2, 2]  # each has two children: one use per edge
    assert owners.index(a) > max(owners.index(b), owners.index(c))
    assert x.grad == 30.0  # d = (2x + 1)·6x, so dd/dx = 24x + 6 at x = 1


def test_topological_order_lists_each_node_once_children_first():
    x = Value(1.0)
    a = x * 2
    b, c = a + 1, a * 3
    d = b * c
    topo = topological_order(d)
    assert len(topo) == len({id(v) for v in topo}) == 8  # x, a, b, c, d and the constants 2, 1, 3
    position = {id(v): i for i, v in enumerate(topo)}
    for v in topo:
        assert all(position[id(child)] < position[id(v)] for child in v._children)
    assert topo[-1] is d


class _Spy(float):
    """A local gradient that records which node's rule used it."""

    def __new__(cls, value, owner, log):
        self = super().__new__(cls, value)
        self.owner, self.log = owner, log
        return self

    def __mul__(self, other):
        self.log.append((self.owner, other))
        return float(self) * other


@pytest.mark.parametrize("bad", ["2.0", None, [1.0], complex(1, 1)])
def test_value_rejects_non_numbers_with_a_clear_type_error(bad):
    with pytest.raises(TypeError, match="int or a float"):
        Value(bad)


def test_relu_passes_no_gradient_at_zero_or_below_and_all_of_it_above():
    # the convention PyTorch uses: relu'(0) = 0
    for x, expected in ((-1.0, 0.0), (0.0, 0.0), (1e-12, 1.0), (3.0, 1.0)):
        v = Value(x)
        v.relu().backward()
        assert v.grad == expected, x


def test_ops_with_non_numbers_raise_type_error():
    with pytest.raises(TypeError, match="int or a float"):
        Value(1.0) + "x"
    with pytest.raises(TypeError, match="must be a number"):
        Value(2.0) ** Value(3.0)


# -- property-based: random expression graphs against central differences ---------------------


@settings(max_examples=150, deadline=None)
@given(xs=inputs, program=programs)
def test_random_graphs_match_central_differences(xs, program):
    out, grads = grads_of(lambda *vs: run_program(program, vs), *xs)
    for i, g in enumerate(grads):
        expected = central_difference(lambda *fs: run_program(program, [Value(f) for f in fs]).data, xs, i, h=1e-5)
        assert g == pytest.approx(expected, rel=1e-4, abs=1e-5)
