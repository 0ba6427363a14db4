"""For the site's exercises: one training step of gpt() with the vectors of each position kept."""

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from microgpt.course.diagnosis import RTOL
from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, Vector, attention, linear, rmsnorm, softmax


@dataclass
class Position:
    """The vectors gpt() makes at one position, in the order it makes them (one transformer block).

    Attention's own queries, scores and weights are made inside attention() and not kept here.
    """

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
    """The loss of one document, computed as gpt() and the training loop compute it, keeping each position's vectors."""
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


def agrees(mine: Sequence, engine: Sequence) -> bool:
    """Equal up to float rounding, as the checkers judge: each |a - b| at most RTOL times engine's largest |entry|."""

    def largest(entries: Sequence) -> float:
        return max(largest(e) if isinstance(e, (list, tuple)) else abs(e) for e in entries)

    return largest_difference(mine, engine) <= RTOL * largest(engine)
