"""How many numbers a model holds and a pass through it builds, counted from the code without building anything.

A training step, or one sample, builds a graph of Values: its size is what makes a run slow or
large. limits.py bounds it and prices it; speed.py measures this machine against it.
"""

import dataclasses
from collections.abc import Callable

from microgpt.model import GPTConfig, Shapes

# A step, or one sample, builds a graph of Values: its size (see values_per_pass) is what makes a run
# slow or large, so it is bounded too, whatever memory the machine has.
MAX_VALUES_PER_PASS = 8_000_000


def parameter_count(config: GPTConfig) -> int:
    """How many numbers the model holds, counted without building it: every block has the same shapes."""
    return _per_block(config, lambda shapes: sum(rows * cols for rows, cols in shapes.values()))


def matrix_count(config: GPTConfig) -> tuple[int, int]:
    """How many matrices the model holds, and how many rows they have in all, counted without building it."""
    return _per_block(config, len), _per_block(config, lambda shapes: sum(rows for rows, _ in shapes.values()))


def _per_block(config: GPTConfig, count: Callable[[Shapes], int]) -> int:
    """count() of the model's matrix shapes, taken for no block and for one: every block has the same shapes."""
    none, one = (count(dataclasses.replace(config, n_layer=n).matrix_shapes()) for n in (0, 1))
    return none + config.n_layer * (one - none)


def values_per_step(config: GPTConfig, positions: int, sampling: bool = False) -> int:
    """How many Values a training step over `positions` tokens builds, or a sample of that many tokens.

    Counted from the code, op by op (tests/package/test_limits.py checks it exactly): a dot product of
    length k is k products and k + 1 sums, so a matrix of r rows and c columns costs r(2c + 1);
    attention at position t does work in proportion to t, so a pass grows with the square of its
    length.
    """
    v, e, h, layers = config.vocab_size, config.n_embd, config.n_head, config.n_layer
    model = layers * (24 * e * e + 22 * e + 12 + h) + 2 * v * e + v + 4 * e + 6  # gpt() at one position
    growing = layers * (4 * e + 9 * h)  # times the position's number: attention over the positions so far
    head = 8 * v + 1 if sampling else 6 * v + 5  # logits / temperature and softmax, or softmax, -log p and a sum
    loss = 0 if sampling else 3  # (1 / n) * sum(losses)
    return positions * (model + head) + growing * positions * (positions + 1) // 2 + loss


def attention_values(config: GPTConfig, positions: int) -> int:
    """The Values a step or a sample over `positions` tokens builds for attention over the positions so far."""
    return config.n_layer * (4 * config.n_embd + 9 * config.n_head) * positions * (positions + 1) // 2


def values_alive_in_sample(config: GPTConfig, positions: int) -> int:
    """The most Values a sample of `positions` tokens holds at once (tests/package/test_limits.py checks the memory).

    A sample keeps every layer's keys and values, and with them the graph they were computed from:
    all of every block but the last, and the last one's input up to its keys and values. The rest
    of a position (the last block's attention and MLP, the logits, the softmax) lives only until the
    next position's logits replace it, so at the last position two of them are alive.
    """
    v, e, h, layers = config.vocab_size, config.n_embd, config.n_head, config.n_layer
    block = 24 * e * e + 22 * e + 12 + h  # one block at one position, attention's growing part aside
    growing = 4 * e + 9 * h  # times the position's number
    up_to_kv = 4 * e * e + 5 * e + 6  # the last block's rmsnorm, keys and values
    kept = (
        positions * (4 * e + 6 + (layers - 1) * block + up_to_kv)
        + (layers - 1) * growing * positions * (positions + 1) // 2
    )

    def passing(position: int) -> int:  # what position `position` builds that the next one lets go
        return block - up_to_kv + growing * (position + 1) + 2 * v * e + v + 8 * v + 1

    return kept + sum(passing(position) for position in range(max(0, positions - 2), positions))


def values_per_pass(config: GPTConfig, positions: int) -> int:
    """The Values a step or a sample over `positions` tokens builds, whichever is more."""
    return max(values_per_step(config, positions), values_per_step(config, positions, sampling=True))
