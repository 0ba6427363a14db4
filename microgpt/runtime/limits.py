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

from microgpt.data import split_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig
from microgpt.runtime import files
from microgpt.runtime.errors import InputError

# A bound, so that /dev/zero or a mistaken multi-gigabyte file fails at once: 16 MiB holds about
# two million names, days of training at one document per step.
MAX_DATA_BYTES = 16 * 2**20

# The model itself: a mistyped size or a crafted checkpoint fails at once instead of filling the
# memory. The default model has 4,192 parameters.
MAX_PARAMETERS = 1_000_000

# A step, or one sample, builds a graph of Values: its size (see values_per_pass) is what makes a run
# slow or large, so it is bounded too.
MAX_VALUES_PER_PASS = 8_000_000
# What a training step costs, measured at the bound (benchmarks/bench_estimates.py prints estimate beside
# measurement): it keeps every Value it builds until its backward pass is done. Memory with tracemalloc
# (tests/test_limits.py checks it): 218 to 251 bytes a Value at its peak, backward pass included.
BYTES_PER_VALUE = 256
# CPU time a Value, forward and backward, with the cyclic garbage collector paused as train() pauses it:
# the Values of attention over earlier positions (attention_values) cost more than the rest, measured.
SECONDS_PER_VALUE = 1.35e-6
SECONDS_PER_ATTENTION_VALUE = 2.1e-6
# What a sample costs: no backward pass, and only part of its graph stays alive (see values_alive_in_sample);
# the command line samples with the collector paused too. Bytes per Value alive at the peak (tracemalloc:
# 155 to 171), and CPU time per Value built, as for a step.
SAMPLE_BYTES_PER_LIVE_VALUE = 176
SAMPLE_SECONDS_PER_VALUE = 0.5e-6
SAMPLE_SECONDS_PER_ATTENTION_VALUE = 0.86e-6

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


def attention_values(config: GPTConfig, positions: int) -> int:
    """The Values a step or a sample over `positions` tokens builds for attention over the positions so far."""
    return config.n_layer * (4 * config.n_embd + 9 * config.n_head) * positions * (positions + 1) // 2


def values_alive_in_sample(config: GPTConfig, positions: int) -> int:
    """The most Values a sample of `positions` tokens holds at once (tests/test_limits.py checks the memory).

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


@dataclasses.dataclass(frozen=True)
class Cost:
    """What one training step or one sample costs: the Values it builds, its peak memory and CPU time."""

    values: int
    bytes: int
    seconds: float

    def __str__(self) -> str:
        return f"{number(self.values, ',')} Values (about {size(self.bytes)} and {duration(self.seconds)})"


def step_cost(config: GPTConfig, positions: int) -> Cost:
    """A training step over a document of `positions` tokens plus the one each position predicts."""
    values, attention = values_per_step(config, positions), attention_values(config, positions)
    seconds = (values - attention) * SECONDS_PER_VALUE + attention * SECONDS_PER_ATTENTION_VALUE
    return Cost(values, values * BYTES_PER_VALUE, seconds)


def sample_cost(config: GPTConfig, positions: int) -> Cost:
    """A sample that runs for `positions` tokens (block_size at the longest)."""
    values, attention = values_per_step(config, positions, sampling=True), attention_values(config, positions)
    seconds = (values - attention) * SAMPLE_SECONDS_PER_VALUE + attention * SAMPLE_SECONDS_PER_ATTENTION_VALUE
    return Cost(values, values_alive_in_sample(config, positions) * SAMPLE_BYTES_PER_LIVE_VALUE, seconds)


def values_per_pass(config: GPTConfig, positions: int) -> int:
    """The Values a step or a sample over `positions` tokens builds, whichever is more."""
    return max(values_per_step(config, positions), values_per_step(config, positions, sampling=True))


def fits(config: GPTConfig) -> bool:
    return values_per_pass(config, config.block_size) <= MAX_VALUES_PER_PASS


def largest(within: Callable[[int], bool], high: int) -> int:
    """The largest n in 0..high for which within(n) holds, where it holds up to some n and never after (0 if none)."""
    low = 0
    while low < high:
        mid = (low + high + 1) // 2
        if within(mid):
            low = mid
        else:
            high = mid - 1
    return low


def longest_block(config: GPTConfig) -> int:
    """The largest block_size at which a pass of this shape stays within MAX_VALUES_PER_PASS (0 if none)."""
    # a pass costs more than one Value per position
    return largest(lambda n: values_per_pass(config, n) <= MAX_VALUES_PER_PASS, MAX_VALUES_PER_PASS)


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
    if not fits(config):
        positions = config.block_size
        raise InputError(
            f"a model with {shape} reads up to {positions:,} tokens in a step or a sample: a step builds "
            f"{step_cost(config, positions)}, a sample {sample_cost(config, positions)}; microgpt allows "
            f"{MAX_VALUES_PER_PASS:,} Values at most; {what_to_change(config, name)}"
        )


def what_to_change(config: GPTConfig, name: Namer = str) -> str:
    """Which of the shape's parts makes a pass too large, and how far that setting can go with the others as they are.

    A pass's Values fall in three parts (see values_per_step): attention over the positions so far,
    which grows with the square of the length; the blocks, depth times a cost that grows with the
    square of the width; and the vocabulary, read and scored at every position. The largest part is
    the cause; a block_size of 1 fits no document at all, so it is never offered as the remedy.
    """
    v, e, h, layers, positions = config.vocab_size, config.n_embd, config.n_head, config.n_layer, config.block_size
    parts = {
        "length": attention_values(config, positions),
        "blocks": positions * layers * (24 * e * e + 22 * e + 12 + h),
        "vocabulary": positions * (2 * v * e + 9 * v + 1),
    }

    def with_(**change: int) -> GPTConfig:
        return dataclasses.replace(config, **change)

    remedies = []
    for part in sorted(parts, key=parts.__getitem__, reverse=True):
        if part == "length" and (most := longest_block(config)) >= 2:
            remedies.append(
                f"most of it is attention over up to {positions:,} positions, which grows with the square of "
                f"the length: at this depth and width {name('block_size')} can be at most {most}"
            )
        elif part == "blocks" and layers > 1 and (most := largest(lambda n: fits(with_(n_layer=n)), layers)) >= 1:
            remedies.append(
                f"most of it is depth, {layers:,} blocks: at this width and length {name('n_layer')} can be "
                f"at most {most:,}"
            )
        elif part == "blocks" and (most := h * largest(lambda k: fits(with_(n_embd=k * h)), e // h)) >= 1:
            remedies.append(
                f"most of it is width, which each block costs with its square: at this depth and length "
                f"{name('n_embd')} can be at most {most:,} (a multiple of {name('n_head')} {h})"
            )
        elif part == "vocabulary" and (most := largest(lambda n: fits(with_(vocab_size=n)), v)) >= 2:
            remedies.append(
                f"most of it is the vocabulary, scored at every position: at this shape it can have at most "
                f"{most:,} tokens ({most - 1:,} distinct characters and BOS), not {v:,}"
            )
        if remedies:
            return remedies[0]
    # nothing fits by changing one setting alone (a pass over one token always fits, but fits no document)
    most = longest_block(config)
    return f"make the model smaller or {name('block_size')} shorter (at this shape it can be at most {most})"


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
