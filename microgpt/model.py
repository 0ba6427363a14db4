"""The GPT: parameters, and the forward pass from one token to the logits of the next."""

import random
from dataclasses import dataclass

from microgpt.engine import Value

Vector = list[Value]
Matrix = list[list[Value]]
Shapes = dict[str, tuple[int, int]]


@dataclass(frozen=True)
class GPTConfig:
    """The model's shape."""

    vocab_size: int  # number of distinct tokens, BOS included
    n_layer: int = 1  # depth: how many transformer blocks
    n_embd: int = 16  # width: the size of every vector inside the model
    n_head: int = 4  # attention heads; each looks at n_embd // n_head of the width
    block_size: int = 16  # the longest sequence the model can read, in tokens

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    def matrix_shapes(self) -> Shapes:
        """Every weight matrix of the model, by name, as (rows, columns), in a fixed order."""
        n = self.n_embd
        shapes = {
            "wte": (self.vocab_size, n),  # token embeddings
            "wpe": (self.block_size, n),  # position embeddings
            "lm_head": (self.vocab_size, n),
        }
        for i in range(self.n_layer):
            shapes |= {
                f"layer{i}.attn_wq": (n, n),
                f"layer{i}.attn_wk": (n, n),
                f"layer{i}.attn_wv": (n, n),
                f"layer{i}.attn_wo": (n, n),
                f"layer{i}.mlp_fc1": (4 * n, n),
                f"layer{i}.mlp_fc2": (n, 4 * n),
            }
        return shapes


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
