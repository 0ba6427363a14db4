"""The GPT: parameters, and the forward pass from one token to the logits of the next."""

import math
import random
import struct
import sys
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from microgpt.engine import Value
from microgpt.errors import InputError

if TYPE_CHECKING:
    from microgpt.engine import sum  # sum() of Values is a Value (see engine.py); the builtin runs

Vector = list[Value]
Matrix = list[list[Value]]
Shapes = dict[str, tuple[int, int]]

# Pure Python builds about two Values per parameter per token, so a step at this size takes
# minutes; the default model has 4,192. A bound, so that a mistyped size or a crafted
# checkpoint fails at once instead of filling the memory.
MAX_PARAMETERS = 1_000_000


@dataclass(frozen=True)
class GPTConfig:
    """The model's shape."""

    vocab_size: int  # number of distinct tokens, BOS included
    n_layer: int = 1  # depth: how many transformer blocks
    n_embd: int = 16  # width: the size of every vector inside the model
    n_head: int = 4  # attention heads; each looks at n_embd // n_head of the width
    block_size: int = 16  # the longest sequence the model can read, in tokens

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(f"{field.name} must be a positive whole number, got {value!r}")
        if self.n_embd % self.n_head:
            raise InputError(f"n_embd ({self.n_embd}) must be divisible by n_head ({self.n_head})")
        check_size(self)

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    def embedding_shapes(self) -> Shapes:
        """The matrices outside the transformer blocks, by name, as (rows, columns)."""
        return {
            "wte": (self.vocab_size, self.n_embd),  # token embeddings
            "wpe": (self.block_size, self.n_embd),  # position embeddings
            "lm_head": (self.vocab_size, self.n_embd),
        }

    def layer_shapes(self, i: int) -> Shapes:
        """The matrices of transformer block i, by name, as (rows, columns)."""
        n = self.n_embd
        return {
            f"layer{i}.attn_wq": (n, n),
            f"layer{i}.attn_wk": (n, n),
            f"layer{i}.attn_wv": (n, n),
            f"layer{i}.attn_wo": (n, n),
            f"layer{i}.mlp_fc1": (4 * n, n),
            f"layer{i}.mlp_fc2": (n, 4 * n),
        }

    def matrix_shapes(self) -> Shapes:
        """Every weight matrix of the model, by name, as (rows, columns), in a fixed order."""
        shapes = self.embedding_shapes()
        for i in range(self.n_layer):
            shapes.update(self.layer_shapes(i))
        return shapes

    @property
    def n_params(self) -> int:
        """How many numbers the model holds, counted without building it: every block has the same shapes."""

        def count(shapes: Shapes) -> int:
            return sum(rows * cols for rows, cols in shapes.values())

        return count(self.embedding_shapes()) + self.n_layer * count(self.layer_shapes(0))


def bytes_per_parameter() -> int:
    """Memory one parameter takes: its Value, the float inside it, and its slot in a row's list."""
    return sys.getsizeof(Value(0.5)) + sys.getsizeof(0.5) + struct.calcsize("P")


def check_size(config: GPTConfig) -> None:
    """Refuse a model larger than MAX_PARAMETERS, saying how much memory it would need."""
    n = config.n_params
    if n <= MAX_PARAMETERS:
        return
    shape = ", ".join(f"{field.name} {_number(getattr(config, field.name))}" for field in fields(config))
    each = bytes_per_parameter()
    raise InputError(
        f"a model with {shape} has {_number(n, ',')} parameters, which need {_bytes(n * each)} of memory "
        f"at {each} bytes each; microgpt builds at most {MAX_PARAMETERS:,} ({_bytes(MAX_PARAMETERS * each)})"
    )


def _number(n: int, separator: str = "") -> str:
    """n in digits, or its order of magnitude when the digits would be a wall (a crafted checkpoint's)."""
    return f"{n:{separator}}" if n < 10**24 else f"about 10^{math.floor(math.log10(n))}"


def _bytes(n: int) -> str:
    """n bytes in decimal units, to three significant digits: 1,600,000 -> '1.6 MB'."""
    for power, unit in enumerate(("bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")):
        if n < 1000 ** (power + 1):
            return f"{n / 1000**power:.3g} {unit}"
    return f"{_number(n)} bytes"


def init_params(config: GPTConfig, seed: int = 42) -> dict[str, Matrix]:
    """Every weight matrix of the model, by name, drawn from a Gaussian with std 0.08."""
    rng = random.Random(seed)

    def matrix(nout: int, nin: int, std: float = 0.08) -> Matrix:
        return [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]

    return {name: matrix(nout, nin) for name, (nout, nin) in config.matrix_shapes().items()}


def parameters(state_dict: dict[str, Matrix]) -> list[Value]:
    """All parameters in one flat list, in a fixed order."""
    return [p for mat in state_dict.values() for row in mat for p in row]


@dataclass
class Model:
    """A configuration and the parameters that go with it."""

    config: GPTConfig
    state_dict: dict[str, Matrix]

    @classmethod
    def init(cls, config: GPTConfig, seed: int = 42) -> "Model":
        return cls(config, init_params(config, seed))

    @property
    def params(self) -> list[Value]:
        return parameters(self.state_dict)


def linear(x: Vector, w: Matrix) -> Vector:
    """w @ x: one dot product per row of w."""
    return [sum(wi * xi for wi, xi in zip(row, x)) for row in w]


def softmax(logits: Vector) -> Vector:
    """Turn scores into probabilities; subtracting the max keeps exp() from overflowing."""
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x: Vector) -> Vector:
    """Rescale x to a root-mean-square of 1."""
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def attention(x: Vector, layer: int, model: Model, keys: list, values: list) -> Vector:
    """Causal self-attention: the cache holds only positions up to this one."""
    sd, head_dim = model.state_dict, model.config.head_dim
    q = linear(x, sd[f"layer{layer}.attn_wq"])
    keys[layer].append(linear(x, sd[f"layer{layer}.attn_wk"]))
    values[layer].append(linear(x, sd[f"layer{layer}.attn_wv"]))
    x_attn = []
    for h in range(model.config.n_head):
        hs = slice(h * head_dim, (h + 1) * head_dim)
        q_h = q[hs]
        k_h = [k[hs] for k in keys[layer]]
        v_h = [v[hs] for v in values[layer]]
        scores = [sum(qj * kj for qj, kj in zip(q_h, k_t)) for k_t in k_h]
        weights = softmax([s / head_dim**0.5 for s in scores])
        for j in range(head_dim):  # the head's output: values mixed by weight
            x_attn.append(sum(w * v[j] for w, v in zip(weights, v_h)))
    return linear(x_attn, sd[f"layer{layer}.attn_wo"])


def mlp(x: Vector, layer: int, model: Model) -> Vector:
    """Widen to 4 * n_embd, apply ReLU, project back."""
    x = linear(x, model.state_dict[f"layer{layer}.mlp_fc1"])
    x = [xi.relu() for xi in x]
    return linear(x, model.state_dict[f"layer{layer}.mlp_fc2"])


def gpt(model: Model, token_id: int, pos_id: int, keys: list, values: list) -> Vector:
    """The logits for the token after token_id at position pos_id; keys/values cache earlier positions."""
    sd = model.state_dict
    x = [t + p for t, p in zip(sd["wte"][token_id], sd["wpe"][pos_id])]
    x = rmsnorm(x)
    for layer in range(model.config.n_layer):
        x = [a + b for a, b in zip(attention(rmsnorm(x), layer, model, keys, values), x)]  # residual
        x = [a + b for a, b in zip(mlp(rmsnorm(x), layer, model), x)]  # residual
    return linear(x, sd["lm_head"])
