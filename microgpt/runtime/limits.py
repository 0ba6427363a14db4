"""What microgpt accepts, and what a run will cost, known before any work is done.

The command line, the checkpoint reader and the site's Train widget check every setting, file and
shape against these bounds, and a refusal says what the request would have needed and how far each
setting can go with the others as they are. Counts of Values are exact (tests/package/test_limits.py counts
them); times are those counts at this machine's speed (speed.py); the memory and disk a run may take
are the machine's own (machine.py). The modules the site teaches (model, data, train) carry none of
this: they trust their input, as the reference does.
"""

import dataclasses
import functools
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
from microgpt.runtime.counts import (
    MAX_VALUES_PER_PASS,
    attention_values,
    matrix_count,
    parameter_count,
    values_alive_in_sample,
    values_per_pass,
    values_per_step,
)
from microgpt.runtime.errors import InputError
from microgpt.runtime.units import counted, duration, number, repeated, size

# A bound, so that /dev/zero or a mistaken multi-gigabyte file fails at once: 16 MiB holds about
# two million names, days of training at one document per step.
MAX_DATA_BYTES = 16 * 2**20

# The model itself: a mistyped size or a crafted checkpoint fails at once instead of filling the
# memory. The default model has 4,192 parameters.
MAX_PARAMETERS = 1_000_000

# What a training step takes in memory, measured at the bound (benchmarks/bench_estimates.py prints estimate
# beside measurement): it keeps every Value it builds until its backward pass is done. With tracemalloc
# (tests/package/test_limits.py checks it): 218 to 251 bytes a Value at its peak, backward pass included.
BYTES_PER_VALUE = 256
# A sample has no backward pass, and only part of its graph stays alive (see values_alive_in_sample):
# bytes per Value alive at the peak (tracemalloc: 155 to 171).
SAMPLE_BYTES_PER_LIVE_VALUE = 176

# Memory the lists and names that hold a model's parameters take, measured as the process's resident size
# grows (tests/package/test_limits.py checks model_bytes): a row's list, and a matrix's list and its name
# in the state dict. Reading a checkpoint builds as many again in the JSON, and when they go, part of
# what they took stays with the process (LEFT_BEHIND for each row and matrix).
BYTES_PER_ROW = 96
BYTES_PER_MATRIX = 272
LEFT_BEHIND = 64
# CPU time to read a checkpoint on the reference machine (benchmarks/bench_estimates.py prints estimate beside
# measurement): per parameter (its number parsed, checked and made a Value), per row or matrix, per byte.
LOAD_SECONDS_PER_PARAMETER = 0.65e-6
LOAD_SECONDS_PER_ROW = 3e-6
LOAD_SECONDS_PER_BYTE = 7e-9

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
# The share of the memory room a setting a refusal offers may fill. What a process holds when it checks varies
# from run to run by some MB (a test process measured 8 MB more on its second try), so an offer at the very
# edge of the room would be refused when taken; each offer leaves the rest free.
OFFER_SHARE = 0.95

Namer = Callable[[str], str]  # how a message names a GPTConfig field: n_embd, or the flag --n-embd
SHAPE_FIELDS = ("n_layer", "n_embd", "block_size")  # the shape's settings; vocab_size comes from the data


def bytes_per_parameter() -> int:
    """Memory one parameter takes: its Value, the float inside it, and its slot in a row's list."""
    return sys.getsizeof(Value(0.5)) + sys.getsizeof(0.5) + struct.calcsize("P")


def training_bytes_per_parameter() -> int:
    """Memory one parameter takes while the model trains: also its gradient, and Adam's two running means."""
    return bytes_per_parameter() + sys.getsizeof(0.5) + 2 * (sys.getsizeof(0.5) + struct.calcsize("P"))


def model_bytes(config: GPTConfig, training: bool = False) -> int:
    """Memory the model takes: its parameters (see bytes_per_parameter), and the lists and names that hold them,
    which a deep, narrow model has many of (BYTES_PER_ROW, BYTES_PER_MATRIX)."""
    matrices, rows = matrix_count(config)
    each = training_bytes_per_parameter() if training else bytes_per_parameter()
    return parameter_count(config) * each + rows * BYTES_PER_ROW + matrices * BYTES_PER_MATRIX


def loading_seconds(config: GPTConfig, file_bytes: int, at: speed.Speed | None = None) -> float:
    """CPU seconds that reading a checkpoint of this shape, from a file of file_bytes, takes on this machine."""
    matrices, rows = matrix_count(config)
    seconds = (
        parameter_count(config) * LOAD_SECONDS_PER_PARAMETER
        + (rows + matrices) * LOAD_SECONDS_PER_ROW
        + file_bytes * LOAD_SECONDS_PER_BYTE
    )
    return seconds * (at or speed.current()).general()


def loading_bytes(config: GPTConfig, file_bytes: int) -> int:
    """The most memory that reading a checkpoint of this shape, from a file of file_bytes, holds beyond what the
    process held before: its bytes and text, then the text and the JSON's numbers and lists, then the model and
    what the JSON's lists leave behind."""
    matrices, rows = matrix_count(config)
    numbers = parameter_count(config) * (sys.getsizeof(0.5) + struct.calcsize("P"))
    json = numbers + rows * BYTES_PER_ROW + matrices * BYTES_PER_MATRIX
    return max(2 * file_bytes, file_bytes + json, model_bytes(config) + (rows + matrices) * LEFT_BEHIND)


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
    """What a whole run costs: its steps (or samples), their Values, the CPU time of each on average and of
    what comes before them (reading a checkpoint), and the most memory it holds beyond what the process holds
    before it (the model, with its gradients and optimizer while training, and the largest pass)."""

    count: int
    values: int
    seconds_each: float
    bytes: int
    seconds_before: float = 0.0

    @property
    def time(self) -> str:
        return repeated(self.count, self.seconds_each, self.seconds_before)


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
    peak = model_bytes(config, training=True) + step_bytes(config, longest)
    return RunCost(steps, full * cycle_values + head_values, seconds_each, peak)


def sampling_run(config: GPTConfig, samples: int, at: speed.Speed | None = None, file_bytes: int = 0) -> RunCost:
    """`samples` samples of at most block_size tokens each: what they cost at the most; and, from a checkpoint of
    file_bytes, reading it first (see loading)."""
    each = sample_cost(config, config.block_size, at)
    peak = max(loading_bytes(config, file_bytes) if file_bytes else 0, model_bytes(config) + each.bytes)
    seconds = loading_seconds(config, file_bytes, at) if file_bytes else 0.0
    return RunCost(samples, samples * each.values, each.seconds, peak, seconds)


def fits(config: GPTConfig) -> bool:
    return values_per_pass(config, config.block_size) <= MAX_VALUES_PER_PASS


def within_bounds(config: GPTConfig) -> bool:
    """Within microgpt's own bounds: the parameters, and the Values of a pass over block_size tokens."""
    return parameter_count(config) <= MAX_PARAMETERS and fits(config)


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


@dataclasses.dataclass(frozen=True)
class Fit:
    """What a run must fit besides microgpt's bounds: its documents, this process's memory, and the room where its
    checkpoint goes. Each refusal's suggestions are checked against all of it, so that every setting a refusal
    offers is accepted when used as offered, with the other settings as they are.

    Every cost grows with every setting, so each condition holds up to some value of a setting and never
    after; the documents alone set a least block_size (each needs one position more than its length).
    """

    documents: int = 0  # positions of the longest document and its BOS; 0 where there are none (sampling)
    training: bool = True
    memory: machine.Room | None = None  # machine.memory_room(), or None: unknown, bounds nothing
    disk: machine.Room | None = None  # machine.disk_room() where the checkpoint goes, or None
    file_bytes: Callable[[GPTConfig], int] | None = None  # the most a checkpoint of a shape takes
    reading: int = 0  # bytes of the checkpoint the model is read from, whose reading takes memory too (loading)

    def positions(self, config: GPTConfig) -> int:
        """The longest pass of the run: the longest document's step, or a sample of block_size tokens."""
        return self.documents or config.block_size

    def memory_need(self, config: GPTConfig, positions: int | None = None) -> float:
        """What the run takes beyond what the process holds now, with MEMORY_MARGIN and MEMORY_SLACK: the model
        (while training, with its gradients and Adam's state) and its largest pass."""
        p = self.positions(config) if positions is None else positions
        one_pass = step_bytes(config, p) if self.training else sample_bytes(config, p)
        reading = loading_bytes(config, self.reading) if self.reading else 0
        used = max(model_bytes(config, self.training) + one_pass, reading)
        return used * MEMORY_MARGIN + MEMORY_SLACK

    def has_memory(self, config: GPTConfig, positions: int | None = None) -> bool:
        return self.memory is None or self.memory_need(config, positions) <= self.memory.bytes

    def has_disk(self, config: GPTConfig) -> bool:
        return self.disk is None or self.file_bytes is None or self.file_bytes(config) <= self.disk.bytes

    def holds_documents(self, config: GPTConfig) -> bool:
        return self.documents <= config.block_size

    def accepts(self, config: GPTConfig, positions: int | None = None) -> bool:
        """Every check of the run passes; positions: the longest document's step, if it were that long."""
        return (
            within_bounds(config)
            and self.has_memory(config, positions)
            and self.has_disk(config)
            and (positions is not None or self.holds_documents(config))
        )

    def offering(self) -> "Fit":
        """The fit a setting to offer must meet: this one, with OFFER_SHARE of its memory room."""
        if self.memory is None:
            return self
        return dataclasses.replace(
            self, memory=dataclasses.replace(self.memory, bytes=int(self.memory.bytes * OFFER_SHARE))
        )

    def how_far(
        self, config: GPTConfig, name: Namer = str, fields: Iterable[str] = SHAPE_FIELDS
    ) -> list[tuple[str, str]]:
        """How far each of fields can go, alone, for the whole run to be accepted (see how_far). Only block_size
        changes what the documents need; it can go as far down as the longest of them allows."""
        found = []
        for field in fields:
            if field == "block_size" and self.documents:
                within = functools.partial(self.accepts, positions=self.documents)
                found += how_far(config, within, name, [field], {"block_size": self.documents})
            else:
                found += how_far(config, self.accepts, name, [field])
        return found


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
            found.append((name(field), f"at most {most} (a multiple of {name('n_head')} {config.n_head})"))
        else:  # a setting's value as it is typed: no separators
            found.append((name(field), f"at most {most}"))
    return found


def with_the_others(remedies: list[tuple[str, str]], otherwise: str = "no one setting alone brings it within") -> str:
    """'with the other settings as they are, --n-embd can be at most 288, or --n-layer at most 2'."""
    if not remedies:
        return otherwise
    (setting, far), *rest = remedies
    return f"with the other settings as they are, {setting} can be {far}" + "".join(f", or {s} {f}" for s, f in rest)


def check_config(config: GPTConfig, name: Namer = str, fit: Fit | None = None) -> None:
    """Refuse a shape that is not one, or a model or a pass over block_size tokens larger than the bounds.

    fit: what else the run must fit, which every setting the refusal offers then fits too."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"{name(field.name)} must be a positive whole number, got {value!r}")
    if config.n_embd % config.n_head:
        raise InputError(f"{name('n_embd')} ({config.n_embd}) must be divisible by {name('n_head')} ({config.n_head})")
    shape = ", ".join(f"{field.name} {number(getattr(config, field.name))}" for field in dataclasses.fields(config))
    n = parameter_count(config)
    each = bytes_per_parameter()
    fit = (fit or Fit(training=False)).offering()
    if n > MAX_PARAMETERS:
        remedies = fit.how_far(config, name, (*SHAPE_FIELDS, "vocab_size"))
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
            f"{MAX_VALUES_PER_PASS:,} Values at most; {what_to_change(config, name, fit)}"
        )


def what_to_change(config: GPTConfig, name: Namer = str, fit: Fit | None = None) -> str:
    """Which of the shape's parts makes a pass too large, and how far each setting can go with the others as they are.

    A pass's Values fall in three parts (see values_per_step): attention over the positions so far,
    which grows with the square of the length; the blocks, depth times a cost that grows with the
    square of the width; and the vocabulary, read and scored at every position. The largest part is
    the cause, and its setting comes first; a block_size that fits no document is never offered.
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
    fit = (fit or Fit(training=False)).offering()
    remedies = fit.how_far(config, name, order)
    return f"{said}: {with_the_others(remedies, shorter_documents(config, fit, name))}"


def shorter_documents(config: GPTConfig, fit: Fit, name: Namer = str) -> str:
    """Where no one setting makes a training run fit, but documents too long for any block that fits do: how long
    they can be, with the longest block that fits them."""
    if fit.documents:

        def fits_block(b: int) -> bool:  # documents of b - 1 characters, in a block of b
            return dataclasses.replace(fit, documents=b).accepts(dataclasses.replace(config, block_size=b))

        most = largest(fits_block, fit.documents)
        if most >= 2:
            return f"shorten the documents to at most {most - 1:,} characters and use {name('block_size')} {most}"
    return "make the model smaller"


def check_memory(config: GPTConfig, doing: str, fit: Fit, name: Namer = str, fixed: bool = False) -> None:
    """Refuse, before it is built, a run that needs more memory than this process has room for (fit.memory).

    fixed: the shape cannot change (a checkpoint's, the demo's), so the refusal says only how far the
    limit would have to go; else also how far the shape and the documents can go under it. Each is
    offered only where it makes the whole run fit.
    """
    room = fit.memory
    if room is None or fit.has_memory(config):
        return
    offer = fit.offering()
    remedies = [] if fixed else offer.how_far(config, name, ("n_embd", "n_layer"))
    if fit.documents and not fixed:
        longest = largest(lambda p: offer.accepts(config, p), fit.documents)
        if longest >= 2:
            has = f"the longest has {fit.documents - 1:,}"
            remedies.append(("documents", f"at most {longest - 1:,} characters long ({has})"))
    needed = fit.memory_need(config)
    enough = dataclasses.replace(room, bytes=int(needed) + 1)
    limit = room.remedy(needed) if dataclasses.replace(fit, memory=enough).accepts(config) else ""
    raise InputError(
        f"{doing} needs about {size(needed)} of memory, but {room.cause} leaves this process {size(room.bytes)}; "
        + ", or ".join(filter(None, [with_the_others(remedies) if remedies else "", limit]))
    )


def check_disk(config: GPTConfig, fit: Fit, name: Namer = str) -> None:
    """Refuse, before training, a checkpoint larger than the room where it goes (fit.disk): the free space
    of the file system, and the file-size limit. The temporary file is written before the old one goes,
    so all of it must fit."""
    room = fit.disk
    if room is None or fit.file_bytes is None or fit.has_disk(config):
        return
    need = fit.file_bytes(config)
    remedies = fit.offering().how_far(config, name)
    limit = room.remedy(need) if dataclasses.replace(fit, disk=None).accepts(config) else ""
    raise InputError(
        f"the checkpoint of this model takes up to {size(need)}, but {room.cause} leaves it {size(room.bytes)}; "
        + ", or ".join(filter(None, [with_the_others(remedies) if remedies else "", limit]))
    )


def check_fits(
    docs: list[str], block_size: int, name: Namer = str, config: GPTConfig | None = None, fit: Fit | None = None
) -> None:
    """Every document plus its BOS must fit in the context window; say which one does not, and what would
    make it fit that the rest of the run (fit) takes too: a longer block, or shorter documents."""
    longest = max(docs, key=len)
    if len(longest) + 1 <= block_size:
        return
    advice = [f"raise {name('block_size')} or shorten the document"]
    if config is not None and fit is not None:
        fit = fit.offering()
        longer = dataclasses.replace(config, block_size=len(longest) + 1)
        advice = []
        if fit.accepts(longer):
            advice.append(f"use {name('block_size')} {len(longest) + 1} or more")
        elif remedies := fit.how_far(longer, name, ("n_embd", "n_layer")):
            (setting, far), *rest = remedies
            others = "".join(f", or {s} {f}" for s, f in rest)
            advice.append(f"with {name('block_size')} {len(longest) + 1}, {setting} can be {far}{others}")
        if block_size >= 2 and fit.accepts(config, block_size):
            advice.append(f"shorten the documents to at most {block_size - 1:,} characters")
    raise InputError(
        f"a document is {counted(len(longest), 'character')} long, but {name('block_size')} {block_size} fits at most "
        f"{block_size - 1:,}: {longest[:40]!r}" + (f" ({'; or '.join(advice)})" if advice else "")
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
