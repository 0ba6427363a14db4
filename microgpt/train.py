"""Training: one document per step, mean cross-entropy over its positions, backward, Adam update."""

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from microgpt.data import Tokenizer
from microgpt.model import Model, Vector, gpt, softmax
from microgpt.optim import Adam


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the duration of one step.

    Why: a step builds ~60,000 Values, and the collector would walk that live graph over and
    over while it grows (most of a step's time). The graph holds no reference cycles, so
    reference counting alone frees it the moment the step's loss goes away.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def train_step(model: Model, optimizer: Adam, tokens: list[int]) -> float:
    """One update from one document; returns the loss before the update."""
    n = len(tokens) - 1  # positions that have a next token to predict
    n_layer = model.config.n_layer
    keys: list[list[Vector]] = [[] for _ in range(n_layer)]  # per layer, one vector per position so far
    values: list[list[Vector]] = [[] for _ in range(n_layer)]
    losses = []
    for pos_id in range(n):
        logits = gpt(model, tokens[pos_id], pos_id, keys, values)
        probs = softmax(logits)
        # cross-entropy: minus the log of the true next token's probability
        losses.append(-probs[tokens[pos_id + 1]].log())
    loss = (1 / n) * sum(losses)
    loss.backward()
    optimizer.step()  # reads each p.grad, moves p.data, sets p.grad to 0
    return loss.data


@dataclass
class Progress:
    step: int  # steps done, counting from 1
    steps: int  # steps planned in all
    loss: float


def train(model: Model, optimizer: Adam, tokenizer: Tokenizer, docs: list[str], steps: int) -> Iterator[Progress]:
    """Train for `steps` steps, cycling through docs in order; yield after every step."""
    for step in range(steps):
        tokens = tokenizer.encode(docs[step % len(docs)])
        with cyclic_gc_paused():
            loss = train_step(model, optimizer, tokens)
        yield Progress(step + 1, steps, loss)
