"""What microgpt accepts, and what a run will cost, known before any work is done.

The command line and the checkpoint reader check every setting, file and shape against these
bounds; a refusal says what the request would have needed. The modules the site teaches
(model, data, train) carry none of this: they trust their input, as the reference does.
"""

import dataclasses
import math
import struct
import sys
from collections.abc import Callable
from pathlib import Path

from microgpt.cli import files
from microgpt.cli.errors import InputError
from microgpt.data import split_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig

# A bound, so that /dev/zero or a mistaken multi-gigabyte file fails at once: 16 MiB holds about
# two million names, days of training at one document per step.
MAX_DATA_BYTES = 16 * 2**20

# The model itself: a mistyped size or a crafted checkpoint fails at once instead of filling the
# memory. The default model has 4,192 parameters.
MAX_PARAMETERS = 1_000_000

# A step, or one sample, builds a graph of Values that lives until the step ends: its size (see
# values_per_pass) is what makes a run slow or large, so it is bounded too.
MAX_VALUES_PER_PASS = 8_000_000
# Measured with tracemalloc (tests/test_limits.py checks it): the peak memory of a training step,
# backward pass included, per Value it builds; 218 to 251 bytes on CPython 3.11.
BYTES_PER_VALUE = 256
# Measured: 1.5 microseconds a Value in a small step on a 2-core machine, up to 5 in a large one.
SECONDS_PER_VALUE = 2e-6

Namer = Callable[[str], str]  # how a message names a GPTConfig field: n_embd, or the flag --n-embd


def bytes_per_parameter() -> int:
    """Memory one parameter takes: its Value, the float inside it, and its slot in a row's list."""
    return sys.getsizeof(Value(0.5)) + sys.getsizeof(0.5) + struct.calcsize("P")


def parameter_count(config: GPTConfig) -> int:
    """How many numbers the model holds, counted without building it: every block has the same shapes."""

    def count(n_layer: int) -> int:
        shapes = dataclasses.replace(config, n_layer=n_layer).matrix_shapes()
        return sum(rows * cols for rows, cols in shapes.values())

    return count(0) + config.n_layer * (count(1) - count(0))


def values_per_step(config: GPTConfig, positions: int, sampling: bool = False) -> int:
    """How many Values a training step over `positions` tokens builds, or a sample of that many tokens.

    Counted from the code, op by op (tests/test_limits.py checks it exactly): a dot product of
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


def values_per_pass(config: GPTConfig, positions: int) -> int:
    """The Values a step or a sample over `positions` tokens builds, whichever is more."""
    return max(values_per_step(config, positions), values_per_step(config, positions, sampling=True))


def longest_block(config: GPTConfig) -> int:
    """The largest block_size at which a pass of this shape stays within MAX_VALUES_PER_PASS (0 if none)."""
    low, high = 0, MAX_VALUES_PER_PASS  # a pass costs more than one Value per position
    while low < high:
        mid = (low + high + 1) // 2
        if values_per_pass(config, mid) <= MAX_VALUES_PER_PASS:
            low = mid
        else:
            high = mid - 1
    return low


def check_config(config: GPTConfig, name: Namer = str) -> None:
    """Refuse a shape that is not one, or a model or a pass over block_size tokens larger than the bounds."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"{name(field.name)} must be a positive whole number, got {value!r}")
    if config.n_embd % config.n_head:
        raise InputError(f"{name('n_embd')} ({config.n_embd}) must be divisible by {name('n_head')} ({config.n_head})")
    shape = ", ".join(f"{field.name} {number(getattr(config, field.name))}" for field in dataclasses.fields(config))
    n = parameter_count(config)
    each = bytes_per_parameter()
    if n > MAX_PARAMETERS:
        raise InputError(
            f"a model with {shape} has {number(n, ',')} parameters, which need {size(n * each)} of memory "
            f"at {each} bytes each; microgpt builds at most {MAX_PARAMETERS:,} ({size(MAX_PARAMETERS * each)})"
        )
    values = values_per_pass(config, config.block_size)
    if values > MAX_VALUES_PER_PASS:  # never at block_size 1 within MAX_PARAMETERS: there is always a way
        raise InputError(
            f"a model with {shape} reads up to {config.block_size:,} tokens in a step or a sample, which "
            f"builds {cost(values)}; microgpt allows {cost(MAX_VALUES_PER_PASS)} at most: at this width "
            f"{name('block_size')} can be at most {longest_block(config)}"
        )


def cost(values: int) -> str:
    """What a pass that builds `values` Values needs, in words: '2,000,000 Values (about 512 MB and 4 s)'."""
    return (
        f"{number(values, ',')} Values (about {size(values * BYTES_PER_VALUE)} "
        f"and {duration(values * SECONDS_PER_VALUE)})"
    )


def check_fits(docs: list[str], block_size: int) -> None:
    """Every document plus its BOS must fit in the context window; say which one does not."""
    longest = max(docs, key=len)
    if len(longest) + 1 > block_size:
        raise InputError(
            f"a document is {len(longest)} characters long, but block_size {block_size} fits at most "
            f"{block_size - 1}: {longest[:40]!r} (raise --block-size or shorten the document)"
        )


def read_docs(path: str | Path, seed: int = 42) -> list[str]:
    """The documents of a data file (see data.split_docs), read with MAX_DATA_BYTES as its bound."""
    raw = files.read_bytes(path, MAX_DATA_BYTES, "data file")
    try:
        text = raw.decode("utf-8-sig")  # -sig: a byte order mark is not part of the first document
    except UnicodeDecodeError as e:
        raise InputError(f"data file is not valid UTF-8: {path} (byte {e.start})") from None
    docs = split_docs(text, seed)
    if not docs:
        raise InputError(f"data file has no documents (every line is empty): {path}")
    return docs


def number(n: int, separator: str = "") -> str:
    """n in digits, or its order of magnitude when the digits would be a wall (a crafted checkpoint's)."""
    return f"{n:{separator}}" if n < 10**24 else f"about 10^{math.floor(math.log10(n))}"


def size(n: float) -> str:
    """n bytes in decimal units, to three significant digits: 1,600,000 -> '1.6 MB'."""
    for power, unit in enumerate(("bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")):
        if n < 1000 ** (power + 1):
            return f"{n / 1000**power:.3g} {unit}"
    return f"{number(int(n))} bytes"


def duration(seconds: float) -> str:
    """A time in the largest unit that keeps it at 1 or more: '0.09 s', '45 s', '3.2 h', '12 days'."""
    units = (("years", 365 * 86400), ("days", 86400), ("h", 3600), ("min", 60))
    unit, length = next(((unit, length) for unit, length in units if seconds >= length), ("s", 1))
    n = seconds / length
    if n >= 10**6:
        return f"about 10^{math.floor(math.log10(n))} {unit}"
    return f"{n:.2g} {unit}" if n < 10 else f"{n:,.0f} {unit}"
