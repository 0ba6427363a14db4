"""For the site's exercises: one training step of gpt() with every Value kept, and a checker for a backward rule."""

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, Vector, attention, linear, rmsnorm, softmax

if TYPE_CHECKING:
    from microgpt.engine import sum  # sum() of Values is a Value (see engine.py); the builtin runs


@dataclass
class Position:
    """The Values gpt() makes at one position, in the order it makes them (one transformer block)."""

    token: int
    target: int  # the true next token
    embedded: Vector  # wte[token] + wpe[pos]
    x0: Vector  # rmsnorm(embedded): the residual stream starts here
    attn_in: Vector  # rmsnorm(x0)
    attn_out: Vector
    x1: Vector  # attn_out + x0: the first residual add
    mlp_in: Vector  # rmsnorm(x1)
    hidden: Vector  # mlp_fc1 @ mlp_in, before ReLU
    relu: Vector
    mlp_out: Vector  # mlp_fc2 @ relu
    x2: Vector  # mlp_out + x1: the second residual add
    logits: Vector
    probs: Vector
    loss: Value  # -log probs[target]


@dataclass
class Step:
    """A document's forward pass, position by position, and its mean loss."""

    model: Model
    tokens: list[int]
    positions: list[Position]
    keys: list[Vector]  # the KV cache of the one layer: a key and a value per position
    values: list[Vector]
    loss: Value


def record(model: Model, tokens: list[int]) -> Step:
    """The loss of one document, computed as gpt() and the training loop compute it, keeping every Value."""
    if model.config.n_layer != 1:
        raise ValueError(f"record() follows a one-block model, not n_layer={model.config.n_layer}")
    sd = model.state_dict
    keys: list[list[Vector]] = [[]]  # gpt()'s KV cache: one list per layer
    values: list[list[Vector]] = [[]]
    positions: list[Position] = []
    for pos_id, (token, target) in enumerate(zip(tokens, tokens[1:])):
        embedded = [t + p for t, p in zip(sd["wte"][token], sd["wpe"][pos_id])]
        x0 = rmsnorm(embedded)
        attn_in = rmsnorm(x0)
        attn_out = attention(attn_in, 0, model, keys, values)
        x1 = [a + b for a, b in zip(attn_out, x0)]
        mlp_in = rmsnorm(x1)
        hidden = linear(mlp_in, sd["layer0.mlp_fc1"])  # mlp(), one line at a time
        relu = [h.relu() for h in hidden]
        mlp_out = linear(relu, sd["layer0.mlp_fc2"])
        x2 = [a + b for a, b in zip(mlp_out, x1)]
        logits = linear(x2, sd["lm_head"])
        probs = softmax(logits)
        loss = -probs[target].log()
        kept = (embedded, x0, attn_in, attn_out, x1, mlp_in, hidden, relu, mlp_out, x2, logits, probs, loss)
        positions.append(Position(token, target, *kept))
    loss = (1 / len(positions)) * sum(p.loss for p in positions)
    return Step(model, tokens, positions, keys[0], values[0], loss)


@functools.cache
def first_step() -> Step:
    """The default model's first training step, on the first name of the shipped data, with backward() done.

    Made once per interpreter and shared by every call, so that a page's blocks, run one after another
    in the reader's browser, build the step only once: read it, don't change it.
    """
    docs = load_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size))
    step = record(model, tokenizer.encode(docs[0]))
    step.loss.backward()
    return step


def data(values: Sequence[Value]) -> list[float]:
    """The numbers of a list of Values."""
    return [v.data for v in values]


def grad(values: Sequence[Value]) -> list[float]:
    """The gradients of a list of Values."""
    return [float(v.grad) for v in values]


def largest_difference(mine: Sequence, engine: Sequence) -> float:
    """The largest |a - b| over two equally shaped lists (of numbers, or of lists of numbers)."""
    if len(mine) != len(engine):
        raise ValueError(f"{len(mine)} entries against {len(engine)}")
    if mine and isinstance(mine[0], (list, tuple)):
        return max(largest_difference(a, b) for a, b in zip(mine, engine))
    return max(abs(a - b) for a, b in zip(mine, engine))


# ---------------------------------------------------------------- the RMSNorm exercise

EPS = 1e-5  # rmsnorm()'s epsilon


def rmsnorm_grad_by_engine(x: list[float], g: list[float]) -> list[float]:
    """dL/dx for y = rmsnorm(x) and L = sum(g * y): the engine's answer, from model.rmsnorm itself."""
    xs = [Value(v) for v in x]
    loss = sum(gi * yi for gi, yi in zip(g, rmsnorm(xs)))
    loss.backward()
    return grad(xs)


def _rmsnorm_variants(x: list[float], g: list[float]) -> dict[str, list[float]]:
    """Common wrong answers, each named by what it gets wrong."""
    n = len(x)
    ms = math.fsum(v * v for v in x) / n
    r = (ms + EPS) ** -0.5
    gx = math.fsum(a * b for a, b in zip(g, x))
    direct = [r * gi for gi in g]

    def through_mean(c: float) -> list[float]:
        return [c * xi for xi in x]

    both = [d + m for d, m in zip(direct, through_mean(-(r**3) * gx / n))]
    r0 = ms**-0.5
    return {
        "sign": [-v for v in both],
        "direct only": direct,
        "mean term only": through_mean(-(r**3) * gx / n),
        "no 1/n": [d + m for d, m in zip(direct, through_mean(-(r**3) * gx))],
        "r not cubed": [d + m for d, m in zip(direct, through_mean(-r * gx / n))],
        "no epsilon": [r0 * gi - r0**3 * gx / n * xi for gi, xi in zip(g, x)],
    }


HINTS = {
    "sign": "wrong sign: every entry is the engine's times -1",
    "direct only": (
        "a missing term: you have only the direct path, r * g_i.\n"
        " Each x_i also changes the mean square m, and through m the scale r of every output"
    ),
    "mean term only": "a missing term: you have the path through the mean square, but not the direct one, r * g_i",
    "no 1/n": "the mean term is n times too large: the mean square divides by n, so its derivative does too",
    "r not cubed": "the mean term's power: d/dm (m + eps)**-0.5 is -0.5 * (m + eps)**-1.5, so the term has r**3, not r",
    "no epsilon": "close, but without eps: rmsnorm() adds 1e-5 to the mean square before the square root",
}


def _cases() -> list[tuple[list[float], list[float]]]:
    """A few vectors x with upstream gradients g: small entries (as in the embeddings), unit-sized, and short."""
    rng = random.Random(0)
    cases = []
    for n, std in ((16, 0.1), (16, 1.0), (3, 0.5)):
        x = [rng.gauss(0, std) for _ in range(n)]
        g = [rng.gauss(0, 1.0) for _ in range(n)]
        cases.append((x, g))
    return cases


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(math.isclose(u, v, rel_tol=1e-9, abs_tol=1e-12) for u, v in zip(a, b))


def check_rmsnorm_backward(backward: Callable[[list[float], list[float]], list[float]]) -> str:
    """Run backward(x, g) on a few cases, compare with the engine, and say what is wrong (or that all is right)."""
    name = getattr(backward, "__name__", "your function")
    worst = 0.0
    cases = _cases()
    for k, (x, g) in enumerate(cases, 1):
        where = f"case {k} of {len(cases)} (x has {len(x)} entries):\n "
        given = (list(x), list(g))
        try:
            mine = backward(given[0], given[1])
        except Exception as error:  # the reader's code: report any error in one line
            return f"✗ {where}{name} raised {type(error).__name__}: {error}"
        if (given[0], given[1]) != (x, g):
            return f"✗ {where}{name} changed its arguments; compute a new list instead"
        if not isinstance(mine, (list, tuple)):
            kind = type(mine).__name__
            return f"✗ {where}shape: return a list of {len(x)} numbers, one per entry of x, not a {kind}"
        if len(mine) != len(x):
            return f"✗ {where}shape: return one number per entry of x ({len(x)}), not {len(mine)}"
        for i, v in enumerate(mine):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                return f"✗ {where}entry {i} is a {type(v).__name__}: return plain numbers (floats)"
            if not math.isfinite(v):
                return f"✗ {where}entry {i} is {v}"
        engine = rmsnorm_grad_by_engine(x, g)
        if not _close(mine, engine):
            for variant, wrong in _rmsnorm_variants(x, g).items():
                if _close(mine, wrong):
                    return f"✗ {where}{HINTS[variant]}"
            i = max(range(len(x)), key=lambda j: abs(mine[j] - engine[j]))
            return f"✗ {where}entry {i} is {mine[i]:.6g}, the engine says {engine[i]:.6g}"
        worst = max(worst, largest_difference(mine, engine))
    return f"✓ {name} agrees with the engine on all {len(cases)} cases (largest difference < 1e-12: {worst < 1e-12})"
