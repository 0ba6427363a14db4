"""Random expression graphs for property-based tests: one program runs on Values and on torch tensors alike."""

from hypothesis import strategies as st

# Smooth everywhere, so a finite difference is a fair yardstick at any point; written with the
# operators and methods that Value and torch.Tensor share.
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (1 + y * y),
}
UNARY = {
    "tanh": lambda x: x.tanh(),
    "exp": lambda x: x.tanh().exp(),
    "log": lambda x: (1 + x * x).log(),
    "pow": lambda x: (1 + x * x) ** -0.5,
}

inputs = st.lists(st.floats(-2, 2, allow_nan=False), min_size=1, max_size=4)
programs = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(sorted(BINARY)), st.integers(0, 100), st.integers(0, 100)),
        st.tuples(st.sampled_from(sorted(UNARY)), st.integers(0, 100)),
    ),
    min_size=1,
    max_size=12,
)


def run_program(program, xs):
    """Apply each step to earlier nodes (any of them, so nodes get reused); return the sum of all computed nodes."""
    nodes = list(xs)
    for op, *args in program:
        operands = [nodes[i % len(nodes)] for i in args]
        nodes.append(BINARY[op](*operands) if op in BINARY else UNARY[op](*operands))
    total = nodes[-1] * 0
    for node in nodes[len(xs) :]:
        total = total + node
    return total
