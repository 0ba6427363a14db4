"""How large the gradient is at each place of the transformer block in a recorded step: the gradient-flow picture."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from microgpt.course.exercises import Step, first_step, grad


@dataclass(frozen=True)
class Place:
    """One place the gradient reaches: a vector the forward pass makes (over all positions), a matrix, or the loss."""

    name: str  # as the code names it: a field of Position, "keys", or a state_dict key
    label: str  # how the picture names it
    kind: str  # "vector", "matrix", or "scalar" (the loss)
    branch: str  # "" on the residual stream, "attention" or "mlp" inside a branch
    norm: float  # sqrt of the sum of squares of every gradient entry there


def norm(rows: Sequence[Sequence[float]]) -> float:
    """The Frobenius norm: the root of the sum of squares of every entry."""
    return math.sqrt(math.fsum(v * v for row in rows for v in row))


# The block in forward order, top to bottom as the model page draws it: (name, label, kind, branch).
PLACES = [
    ("wte", "wte", "matrix", ""),
    ("wpe", "wpe", "matrix", ""),
    ("embedded", "embedded", "vector", ""),
    ("x0", "x0 = rmsnorm", "vector", ""),
    ("attn_in", "attn_in = rmsnorm", "vector", "attention"),
    ("layer0.attn_wq", "attn_wq", "matrix", "attention"),
    ("layer0.attn_wk", "attn_wk", "matrix", "attention"),
    ("keys", "k (cache)", "vector", "attention"),
    ("layer0.attn_wv", "attn_wv", "matrix", "attention"),
    ("values", "v (cache)", "vector", "attention"),
    ("layer0.attn_wo", "attn_wo", "matrix", "attention"),
    ("attn_out", "attn_out", "vector", "attention"),
    ("x1", "x1 = x0 + attn", "vector", ""),
    ("mlp_in", "mlp_in = rmsnorm", "vector", "mlp"),
    ("layer0.mlp_fc1", "mlp_fc1", "matrix", "mlp"),
    ("hidden", "hidden", "vector", "mlp"),
    ("relu", "relu", "vector", "mlp"),
    ("layer0.mlp_fc2", "mlp_fc2", "matrix", "mlp"),
    ("mlp_out", "mlp_out", "vector", "mlp"),
    ("x2", "x2 = x1 + mlp", "vector", ""),
    ("lm_head", "lm_head", "matrix", ""),
    ("logits", "logits", "vector", ""),
    ("loss", "loss (the seed)", "scalar", ""),
]


def gradient_sizes(step: Step | None = None) -> list[Place]:
    """The size of the engine's gradient at each place of the block, in forward order (default: first_step())."""
    step = step or first_step()
    places = []
    for name, label, kind, branch in PLACES:
        if kind == "matrix":
            rows = [grad(row) for row in step.model.state_dict[name]]
        elif name == "loss":
            rows = [[float(step.loss.grad)]]  # backward() seeds it with 1
        elif name in ("keys", "values"):
            rows = [grad(v) for v in getattr(step, name)]
        else:
            rows = [grad(getattr(pos, name)) for pos in step.positions]
        places.append(Place(name, label, kind, branch, norm(rows)))
    return places
