"""What microgpt accepts, and what a run will cost, known before any work is done.

The command line, the checkpoint reader and the site's Train widget check every setting, file and
shape against these bounds, and a refusal says what the request would have needed and how far each
setting can go with the others as they are. Counts of Values are exact (tests/package/test_limits.py counts
them); times are those counts at this machine's speed (speed.py); the memory and disk a run may take
are the machine's own (machine.py). The modules the site teaches (model, data, train) carry none of
this: they trust their input, as the reference does.
"""

import dataclasses
import re
import struct
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from microgpt.data import split_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig
from microgpt.runtime import files, machine, speed
from microgpt.runtime.errors import InputError
from microgpt.runtime.units import duration, number, repeated, size

# A bound, so that /dev/zero or a mistaken multi-gigabyte file fails at once: 16 MiB holds about
# two million names, days of training at one document per step.
MAX_DATA_BYTES = 16 * 2**20

# The model itself: a mistyped size or a crafted checkpoint fails at once instead of filling the
# memory. The default model has 4,192 parameters.
MAX_PARAMETERS = 1_000_000

# A step, or one sample, builds a graph of Values: its size (see values_per_pass) is what makes a run
# slow or large, so it is bounded too, whatever memory the machine has.
MAX_VALUES_PER_PASS = 8_000_000
# What a training step takes in memory, measured at the bound (benchmarks/bench_estimates.py prints estimate
# beside measurement): it keeps every Value it builds until its backward pass is done. With tracemalloc
# (tests/package/test_limits.py checks it): 218 to 251 bytes a Value at its peak, backward pass included.
BYTES_PER_VALUE = 256
# A sample has no backward pass, and only part of its graph stays alive (see values_alive_in_sample):
# bytes per Value alive at the peak (tracemalloc: 155 to 171).
SAMPLE_BYTES_PER_LIVE_VALUE = 176

# The most steps a run takes, and samples a command prints: more than any run could finish (a billion
# steps of the smallest model take days, of the default one years), and a number a checkpoint records.
MAX_STEPS = 10**9
MAX_SAMPLES = 10**9
MAX_SEED = 2**64 - 1  # a seed is a whole number from 0: Python's random takes any, a checkpoint records it

# Memory a run is given beyond its estimate before it is refused: the estimates are within a tenth of the
# process's measured growth (benchmarks/bench_estimates.py), and the process grows a little besides (the
# modules that save a checkpoint, the buffers of what it prints).
MEMORY_MARGIN = 1.1
MEMORY_SLACK = 32 * 10**6

Namer = Callable[[str], str]  # how a message names a GPTConfig field: n_embd, or the flag --n-embd
SHAPE_FIELDS = ("n_layer", "n_embd", "block_size")  # the shape's settings; vocab_size comes from the data


def bytes_per_parameter() -> int:
    """Memory one parameter takes: its Value, the float inside it, and its slot in a row's list."""
    return sys.getsizeof(Value(0.5)) + sys.getsizeof(0.5) + struct.calcsize("P")


def training_bytes_per_parameter() -> int:
    """Memory one parameter takes while the model trains: also its gradient, and Adam's two running means."""
    return bytes_per_parameter() + sys.getsizeof(0.5) + 2 * (sys.getsizeof(0.5) + struct.calcsize("P"))


def parameter_count(config: GPTConfig) -> int:
    """How many numbers the model holds, counted without building it: every block has the same shapes."""

    def count(n_layer: int) -> int:
        shapes = dataclasses.replace(config, n_layer=n_layer).matrix_shapes()
        return sum(rows * cols for rows, cols in shapes.values())

    return count(0) + config.n_layer * (count(1) - count(0))


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


@dataclasses.dataclass(frozen=True)
class Cost:
    """What one training step or one sample costs: the Values it builds, its peak memory and CPU time."""

    values: int
    bytes: int
    seconds: float

    def __str__(self) -> str:
        return f"{number(self.values, ',')} Values (about {size(self.bytes)} and {duration(self.seconds)})"


def step_bytes(config: GPTConfig, positions: int) -> int:
    """The memory a training step over `positions` tokens takes at its peak: all the Values it builds."""
    return values_per_step(config, positions) * BYTES_PER_VALUE


def sample_bytes(config: GPTConfig, positions: int) -> int:
    """The memory a sample of `positions` tokens takes at its peak: the Values alive at once."""
    return values_alive_in_sample(config, positions) * SAMPLE_BYTES_PER_LIVE_VALUE


def step_cost(config: GPTConfig, positions: int, at: speed.Speed | None = None) -> Cost:
    """A training step over a document of `positions` tokens plus the one each position predicts."""
    values, attention = values_per_step(config, positions), attention_values(config, positions)
    rates = (at or speed.current()).rates(values)
    seconds = (values - attention) * rates.train + attention * rates.train_attention
    return Cost(values, step_bytes(config, positions), seconds)


def sample_cost(config: GPTConfig, positions: int, at: speed.Speed | None = None) -> Cost:
    """A sample that runs for `positions` tokens (block_size at the longest)."""
    values, attention = values_per_step(config, positions, sampling=True), attention_values(config, positions)
    rates = (at or speed.current()).rates(values)
    seconds = (values - attention) * rates.sample + attention * rates.sample_attention
    return Cost(values, sample_bytes(config, positions), seconds)


@dataclasses.dataclass(frozen=True)
class RunCost:
    """What a whole run costs: its steps (or samples), their Values, the CPU time of each on average, and
    the peak memory (the model, with its gradients and optimizer while training, and the largest pass)."""

    count: int
    values: int
    seconds_each: float
    bytes: int

    @property
    def time(self) -> str:
        return repeated(self.count, self.seconds_each)


def training_run(config: GPTConfig, docs: list[str], steps: int, at: speed.Speed | None = None) -> RunCost:
    """`steps` training steps, one document each, cycling through docs in order (as train() does)."""
    here = at or speed.current()

    def tally(lengths: Iterable[int]) -> tuple[int, float]:
        counts = Counter(length + 1 for length in lengths)  # a document and its BOS: its step's positions
        values = sum(n * values_per_step(config, p) for p, n in counts.items())
        return values, sum(n * step_cost(config, p, here).seconds for p, n in counts.items())

    full, rest = divmod(steps, len(docs))
    cycle_values, cycle_seconds = tally(map(len, docs))
    head_values, head_seconds = tally(map(len, docs[:rest]))
    # the mean step, without a float of the whole run's time: --steps may be a number of hundreds of digits
    seconds_each = cycle_seconds / len(docs) * (full * len(docs) / steps) + head_seconds * (1 / steps)
    longest = max(map(len, docs[:steps])) + 1
    peak = parameter_count(config) * training_bytes_per_parameter() + step_bytes(config, longest)
    return RunCost(steps, full * cycle_values + head_values, seconds_each, peak)


def sampling_run(config: GPTConfig, samples: int, at: speed.Speed | None = None) -> RunCost:
    """`samples` samples of at most block_size tokens each: what they cost at the most."""
    each = sample_cost(config, config.block_size, at)
    peak = parameter_count(config) * bytes_per_parameter() + each.bytes
    return RunCost(samples, samples * each.values, each.seconds, peak)


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


def how_far(
    config: GPTConfig,
    within: Callable[[GPTConfig], bool],
    name: Namer = str,
    fields: Iterable[str] = SHAPE_FIELDS,
    least: dict[str, int] | None = None,
) -> list[tuple[str, str]]:
    """For each of fields whose change alone brings config within, the furthest it can go, as (setting, how
    far): ('--n-embd', 'at most 288 (a multiple of --n-head 4)'). Every cost grows with every setting, so
    the furthest is found by bisection. least: the smallest value of any use (a block must fit a document)."""
    least = {"n_layer": 1, "n_embd": config.n_head, "block_size": 2, "vocab_size": 2, **(least or {})}
    found = []
    for field in fields:
        unit = config.n_head if field == "n_embd" else 1  # the width stays a multiple of the heads

        def changed(k: int, field: str = field, unit: int = unit) -> bool:
            return within(dataclasses.replace(config, **{field: k * unit}))

        most = unit * largest(changed, getattr(config, field) // unit)
        if most < least[field]:
            continue
        if field == "vocab_size":
            found.append(("the vocabulary", f"at most {most:,} tokens ({most - 1:,} distinct characters and BOS)"))
        elif field == "n_embd":
            found.append((name(field), f"at most {most:,} (a multiple of {name('n_head')} {config.n_head})"))
        else:
            found.append((name(field), f"at most {most:,}"))
    return found


def with_the_others(remedies: list[tuple[str, str]], otherwise: str = "no one setting alone brings it within") -> str:
    """'with the other settings as they are, --n-embd can be at most 288, or --n-layer at most 2'."""
    if not remedies:
        return otherwise
    (setting, far), *rest = remedies
    return f"with the other settings as they are, {setting} can be {far}" + "".join(f", or {s} {f}" for s, f in rest)


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
        remedies = how_far(config, lambda c: parameter_count(c) <= MAX_PARAMETERS, name, (*SHAPE_FIELDS, "vocab_size"))
        raise InputError(
            f"a model with {shape} has {number(n, ',')} parameters, which need {size(n * each)} of memory "
            f"at {each} bytes each; microgpt builds at most {MAX_PARAMETERS:,} ({size(MAX_PARAMETERS * each)}); "
            + with_the_others(remedies)
        )
    if not fits(config):
        positions = config.block_size
        raise InputError(
            f"a model with {shape} reads up to {positions:,} tokens in a step or a sample: a step builds "
            f"{step_cost(config, positions)}, a sample {sample_cost(config, positions)}; microgpt allows "
            f"{MAX_VALUES_PER_PASS:,} Values at most; {what_to_change(config, name)}"
        )


def what_to_change(config: GPTConfig, name: Namer = str) -> str:
    """Which of the shape's parts makes a pass too large, and how far each setting can go with the others as they are.

    A pass's Values fall in three parts (see values_per_step): attention over the positions so far,
    which grows with the square of the length; the blocks, depth times a cost that grows with the
    square of the width; and the vocabulary, read and scored at every position. The largest part is
    the cause, and its setting comes first; a block_size of 1 fits no document at all, so it is never
    offered as a remedy.
    """
    v, e, h, layers, positions = config.vocab_size, config.n_embd, config.n_head, config.n_layer, config.block_size
    parts = {
        "length": attention_values(config, positions),
        "blocks": positions * layers * (24 * e * e + 22 * e + 12 + h),
        "vocabulary": positions * (2 * v * e + 9 * v + 1),
    }
    cause = max(parts, key=parts.__getitem__)
    if cause == "length":
        said = f"most of it is attention over up to {positions:,} positions, which grows with the square of the length"
        order = ["block_size", "n_embd", "n_layer"]
    elif cause == "blocks" and layers > 1:
        said = f"most of it is depth, {layers:,} blocks"
        order = ["n_layer", "n_embd", "block_size"]
    elif cause == "blocks":
        said = "most of it is width, which each block costs with its square"
        order = ["n_embd", "block_size", "n_layer"]
    else:
        said = "most of it is the vocabulary, scored at every position"
        order = ["vocab_size", "n_embd", "block_size", "n_layer"]
    remedies = how_far(config, fits, name, order)
    most = longest_block(config)
    otherwise = f"make the model smaller or {name('block_size')} shorter (at this shape it can be at most {most})"
    return f"{said}: {with_the_others(remedies, otherwise)}"


def check_memory(
    config: GPTConfig, positions: int, doing: str, training: bool, name: Namer = str, fixed: bool = False
) -> None:
    """Refuse, before it is built, a run that needs more memory than this process has room for (machine.memory_room).

    The run holds the model (while training, with its gradients and Adam's state) and one pass over
    `positions` tokens at a time. fixed: the shape cannot change (a checkpoint's, the demo's), so the
    refusal says only how far the limit would have to go; else also how far the shape and the
    documents can go under it.
    """
    room = machine.memory_room()
    if room is None:
        return

    def need(c: GPTConfig, p: int) -> float:
        model = parameter_count(c) * (training_bytes_per_parameter() if training else bytes_per_parameter())
        one_pass = step_bytes(c, p) if training else sample_bytes(c, p)
        return (model + one_pass) * MEMORY_MARGIN + MEMORY_SLACK

    if need(config, positions) <= room.bytes:
        return
    remedies = [] if fixed else how_far(config, lambda c: need(c, positions) <= room.bytes, name, ("n_embd", "n_layer"))
    if training and not fixed and (longest := largest(lambda p: need(config, p) <= room.bytes, positions)) >= 2:
        remedies.append(("documents", f"at most {longest - 1:,} characters long (the longest has {positions - 1:,})"))
    needed = need(config, positions)
    raise InputError(
        f"{doing} needs about {size(needed)} of memory, but {room.cause} leaves this process {size(room.bytes)}; "
        + (with_the_others(remedies) + ", or " if remedies else "")
        + room.remedy(needed)
    )


def check_fits(docs: list[str], block_size: int) -> None:
    """Every document plus its BOS must fit in the context window; say which one does not."""
    longest = max(docs, key=len)
    if len(longest) + 1 > block_size:
        raise InputError(
            f"a document is {len(longest)} characters long, but block_size {block_size} fits at most "
            f"{block_size - 1}: {longest[:40]!r} (raise --block-size or shorten the document)"
        )


BOM = "\ufeff"  # a byte order mark: marks a file's encoding, and is no character of a document
# The marks and whitespace (what str.strip() removes) a line begins with; only whitespace and marks go,
# and a line's own "\n" before them stays, so no two documents become one
LINE_START_MARKS = re.compile(rf"^[\s{BOM}]+", re.MULTILINE)


def read_docs(path: str | Path, seed: int = 42) -> list[str]:
    """The documents of a data file (see data.split_docs), read with MAX_DATA_BYTES as its bound.

    A byte order mark is dropped where a file begins, and at the start of any line, so that a line of
    nothing else (or of marks and whitespace) is no document: one ends every file a tool wrote with
    one, and `cat` puts it at the start of a line.
    """
    raw = files.read_bytes(path, MAX_DATA_BYTES, "data file")
    try:
        text = raw.decode("utf-8-sig")  # -sig: a byte order mark is not part of the first document
    except UnicodeDecodeError as e:
        raise InputError(f"data file is not valid UTF-8: {path} (byte {e.start})") from None
    if BOM in text:  # files joined end to end (cat a.txt b.txt) keep each one's mark at the start of a line
        text = LINE_START_MARKS.sub("", text)
    docs = split_docs(text, seed)
    if not docs:
        raise InputError(f"data file has no documents (every line is empty): {path}")
    return docs
