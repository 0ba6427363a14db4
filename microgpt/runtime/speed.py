"""How fast this machine builds Values: measured where microgpt runs, and kept in the user's cache.

Every time microgpt states (the estimate a run prints before its first step, a refusal, --help's
examples) is a count of Values (counts.py) times a CPU time per Value. How those times compare with
each other (a Value of attention over earlier positions costs more, a sample's less, having no
backward pass) was measured once, at the bound, on a reference machine: REFERENCE below. How fast
*this* machine is, is measured here: a few training steps and samples of a small model, about half a
second of CPU time on the reference machine, timed by the CPU time they take (time.process_time,
so that a busy machine's neighbours do not count). Each kind of work gets its own factor, this
machine's time over the reference machine's for the same work (REFERENCE_PROBE), and every rate is
scaled by it.

A Value of a small graph, which the processor's caches hold, and one of a graph of gigabytes do not
keep the same proportion from machine to machine, or from one moment to the next on a shared one.
So the probe, which is small, speaks for small passes directly (Speed.rates), and for the bound
through REFERENCE_PROBE; a pass between the two gets a factor between the two, by the logarithm of
its size.

A machine's speed is not one number: on a shared machine the same work takes more CPU time when
the neighbours are busy, since they share the caches and a core's other half, and a small pass,
whose work the caches hold, suffers more than a large one (measured on the reference machine: a
small pass 1.4 times slower with every core busy, a pass at the bound 1.15 times; BUSY_SMALL and
BUSY_BOUND). So a measurement is kept as this machine's speed when idle (what the probe took, less
what the machine's load at that moment added), and every estimate adds what the load of the moment
adds (busy()). Each measurement is the median of the probe's repeats, and an estimate uses the
median of the measurements kept: the first MEASUREMENTS runs on a machine each measure it once, and
a measurement is kept for MAX_AGE_DAYS, after which a run measures again, so that a machine that
changed, or a cache copied from another, is measured anew. They are kept in `speed.json` in the
user's cache directory (cache_dir()), one entry per machine, Python and microgpt version. Where
there is no cache directory, or the file cannot be written, the measurement is made for the run and
the estimate says that it was not kept.
"""

import dataclasses
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from datetime import date, timedelta
from functools import cache
from pathlib import Path

from microgpt import __version__
from microgpt.data import Tokenizer
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import files
from microgpt.runtime.counts import MAX_VALUES_PER_PASS, attention_values, values_per_step
from microgpt.runtime.errors import InputError
from microgpt.sample import sample
from microgpt.train import cyclic_gc_paused, train_step


@dataclasses.dataclass(frozen=True)
class Rates:
    """CPU seconds a Value takes, in a training step (backward pass included) and in a sample; the Values of
    attention over earlier positions (counts.attention_values) apart, since they cost more."""

    train: float
    train_attention: float
    sample: float
    sample_attention: float

    def scaled(self, train: float, sample: float) -> "Rates":
        return Rates(
            self.train * train, self.train_attention * train, self.sample * sample, self.sample_attention * sample
        )


# Measured on the reference machine (2 cores, CPython 3.11) at the bound, where estimates matter most:
# benchmarks/bench_estimates.py prints estimate beside measurement for eight shapes there.
REFERENCE = Rates(train=1.35e-6, train_attention=2.1e-6, sample=0.5e-6, sample_attention=0.86e-6)

# The probe: a training step and a sample of the default shape over PROBE_TOKENS positions, repeated.
# Its CPU time per Value it builds, on the reference machine as REFERENCE holds there at the bound
# (`benchmarks/bench_estimates.py --probe` prints it).
PROBE_CONFIG = GPTConfig(vocab_size=27, block_size=8)
PROBE_TOKENS = 8
PROBE_REPEATS = 4  # after one run to warm up; the median of these
REFERENCE_PROBE = {"train": 1.67e-6, "sample": 0.48e-6}

FILE_NAME = "speed.json"
FORMAT = "microgpt-speed-2"  # measurements dated one by one; the first format's entries are measured again
MAX_FILE_BYTES = 1 << 16  # what the reader reads, and so the most the writer writes
MAX_ENTRIES = 20  # machines, Pythons and versions kept in one file (a home directory shared by many machines)
MEASUREMENTS = 5  # the runs that measure the speed, one each; from then on, one whenever one ages out
MAX_AGE_DAYS = 7
# What the same work takes, over what it takes on an idle machine, with every core busy with other work:
# a pass the probe's size, and one at the bound (see the module's docstring); between the two, by smallness.
BUSY_SMALL, BUSY_BOUND = 0.4, 0.15
# What the probe can measure: CPython on the fastest processor made is a few times faster than the
# reference machine, and a machine a hundred times slower would take minutes over the probe alone. A factor
# outside these was not measured by this program (a file edited, or copied from elsewhere): it is not used.
FASTEST, SLOWEST = 0.1, 100.0


@dataclasses.dataclass(frozen=True)
class Speed:
    """This machine's factors when idle (its probe's time over REFERENCE_PROBE, less what the load added), how busy
    the machine is now, and where the factors come from: said beside every estimate made with them."""

    factors: dict[str, float]  # {"train": ..., "sample": ...}
    measured: str  # when: "3 times since 2026-11-28", or "just now"
    kept: str = ""  # where the measurements are kept ("kept in ...")
    not_kept: str = ""  # or why they are not: every run then measures again, which the estimate says
    busy: float = 0.0  # how much of the machine other work keeps busy now (see busy())

    @property
    def source(self) -> str:
        said = f"at this machine's speed, measured {self.measured}"
        return f"{said}; not kept, so each run measures it: {self.not_kept}" if self.not_kept else said

    def rates(self, values: int) -> Rates:
        """The rates of a pass that builds `values` Values, on this machine as busy as it is now (see the module's
        docstring)."""
        train, sample = (
            self.factors[kind] * _small_over_bound(kind) ** (small := _smallness(kind, values)) * self.slowed(small)
            for kind in KINDS
        )
        return REFERENCE.scaled(train, sample)

    def general(self) -> float:
        """How much slower than the reference machine this one runs small work now, such as reading a checkpoint."""
        return self.factors["train"] * self.slowed(1.0)

    def slowed(self, smallness: float) -> float:
        """How much more CPU time a pass of this smallness takes on the machine now than when it is idle."""
        return _slowed(self.busy, smallness)


def _slowed(busy: float, smallness: float) -> float:
    return 1 + busy * (BUSY_BOUND + (BUSY_SMALL - BUSY_BOUND) * smallness)


KINDS = ("train", "sample")


def busy() -> float:
    """How much of this machine other work keeps busy: the load average of the last minute over the cores this
    process may run on, at most 1; 0 where the system does not say (Windows)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(1.0, load / cores)


@cache
def _probe_pass(kind: str) -> tuple[int, float]:
    """The Values of the probe's pass of `kind`, and what REFERENCE says each costs (seconds per Value)."""
    sampling = kind == "sample"
    values = values_per_step(PROBE_CONFIG, PROBE_TOKENS, sampling=sampling)
    attention = attention_values(PROBE_CONFIG, PROBE_TOKENS)
    plain, in_attention = (
        (REFERENCE.sample, REFERENCE.sample_attention) if sampling else (REFERENCE.train, REFERENCE.train_attention)
    )
    return values, ((values - attention) * plain + attention * in_attention) / values


def _small_over_bound(kind: str) -> float:
    """How much more a Value of a small pass costs than REFERENCE says, when REFERENCE holds at the bound."""
    return REFERENCE_PROBE[kind] / _probe_pass(kind)[1]


def _smallness(kind: str, values: int) -> float:
    """1 for a pass the probe's size or smaller, 0 at the bound, and between by the logarithm of the size."""
    small = _probe_pass(kind)[0]
    if values <= small:
        return 1.0
    return max(0.0, math.log(MAX_VALUES_PER_PASS / values) / math.log(MAX_VALUES_PER_PASS / small))


def current() -> Speed:
    """This machine's speed: from the cache if it was measured here lately, else measured now (and kept)."""
    return _current()


@cache
def _current() -> Speed:
    key, today = machine_key(), date.today()
    try:
        path = cache_dir() / FILE_NAME
    except NoCache as e:
        return _speed([_measurement(today)], "", str(e))
    entries = _read(path, today)
    kept = entries.get(key, [])
    if len(kept) == MEASUREMENTS:
        return _speed(kept, f"kept in {path}")
    measurement = _measurement(today)
    if not _measurable(measurement):  # used for this run, as measured, but not kept: no reader would take it
        shown = ", ".join(f"{kind} x{measurement[kind]:.3g}" for kind in KINDS)
        return _speed([measurement], "", f"it is beyond what the probe can measure ({shown})")
    kept = [*kept, measurement]
    why_not = _write(path, entries, key, kept)
    return _speed(kept, f"kept in {path}") if why_not is None else _speed(kept, "", why_not)


def _measurement(today: date) -> dict:
    return {"on": today.isoformat(), "busy": busy(), **measure()}


def _speed(measurements: list[dict], kept: str, not_kept: str = "") -> Speed:
    """The speed the measurements give: the median of each kind's factors, each as if the machine had been idle."""
    idle = [{kind: m[kind] / _slowed(m["busy"], 1.0) for kind in KINDS} for m in measurements]  # the probe is small
    factors = {kind: statistics.median(m[kind] for m in idle) for kind in KINDS}
    since = min(m["on"] for m in measurements)
    measured = "just now" if len(measurements) == 1 else f"{len(measurements)} times since {since}"
    return Speed(factors, measured, kept, not_kept, busy())


def machine_key() -> str:
    """What a measurement holds for: this machine (by name: a home directory may be shared), Python and microgpt."""
    python = f"{sys.implementation.name} {platform.python_version()}"
    return f"{platform.node()} {platform.machine()} {python} microgpt {__version__}"


class NoCache(Exception):
    """There is no cache directory to keep measurements in; the message says why."""


def cache_dir() -> Path:
    """Where microgpt keeps what it measured: the platform's cache directory for the user.

    The directory it is in (the home directory, XDG_CACHE_HOME, LOCALAPPDATA) must be an absolute path
    to a directory that exists and is not the file system's root: microgpt never creates a home, nor
    writes under the current directory or at the root. Raises NoCache saying which is not so.
    """
    if sys.platform == "win32":
        return _usable("LOCALAPPDATA", os.environ.get("LOCALAPPDATA", "")) / "microgpt" / "Cache"
    if sys.platform != "darwin":
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        if os.path.isabs(xdg):  # the XDG spec: a relative path is to be ignored, as if it were not set
            return _usable("XDG_CACHE_HOME", xdg) / "microgpt"
    # HOME as it is set (Python would read an empty one as the root), else where the user database says
    home = os.environ["HOME"] if "HOME" in os.environ else os.path.expanduser("~")
    home = "" if home == "~" else home  # expanduser found none
    base = _usable("HOME", home)
    return base / "Library" / "Caches" / "microgpt" if sys.platform == "darwin" else base / ".cache" / "microgpt"


def _usable(variable: str, value: str) -> Path:
    if not value:
        raise NoCache(f"{variable} is {'empty' if variable in os.environ else 'not set'}")
    if not os.path.isabs(value):
        raise NoCache(f"{variable} ({value}) is not an absolute path")
    real = os.path.realpath(value)
    if os.path.dirname(real) == real:
        raise NoCache(f"{variable} ({value}) is the file system's root")
    if not os.path.isdir(value):
        raise NoCache(f"{variable} ({value}) is not a directory that exists")
    return Path(value)


def measure() -> dict[str, float]:
    """This machine's factors: the probe's CPU time per Value for each kind of work, over the reference machine's."""
    per_value = probe()
    return {kind: per_value[kind] / REFERENCE_PROBE[kind] for kind in KINDS}


def probe(repeats: int = PROBE_REPEATS) -> dict[str, float]:
    """CPU seconds per Value of a training step and of a sample of PROBE_CONFIG, the median of `repeats` runs each."""
    tokenizer = Tokenizer("abcdefghijklmnopqrstuvwxyz"[: PROBE_CONFIG.vocab_size - 1])
    model = Model.init(PROBE_CONFIG, seed=0)
    optimizer = Adam(model.params)
    tokens = tokenizer.encode(tokenizer.chars[: PROBE_TOKENS - 1])
    times: dict[str, list[float]] = {"train": [], "sample": []}
    with cyclic_gc_paused():
        for _ in range(1 + repeats):
            start = time.process_time()
            train_step(model, optimizer, tokens)
            middle = time.process_time()
            sample(model, tokenizer, _FirstToken(), 0.5)
            end = time.process_time()
            times["train"].append(middle - start)
            times["sample"].append(end - middle)
    values = {
        "train": values_per_step(PROBE_CONFIG, PROBE_TOKENS),
        "sample": values_per_step(PROBE_CONFIG, PROBE_CONFIG.block_size, sampling=True),
    }
    # the first run warms up (Adam's state, the allocator's first arenas); a clock too coarse to see a run
    # (some systems count CPU time in 1/64 s) gives 0, and then the reference's rate stands
    return {kind: statistics.median(t[1:]) / values[kind] or REFERENCE_PROBE[kind] for kind, t in times.items()}


class _FirstToken(random.Random):
    """Always draws the first token, never BOS: the probe's sample runs to block_size."""

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        return [population[0]] * k


def _read(path: Path, today: date) -> dict[str, list[dict]]:
    """Each entry's measurements that this module would write today; nothing if the file is missing,
    unreadable, larger than MAX_FILE_BYTES or not what this module writes."""
    try:
        doc = json.loads(files.read_bytes(path, MAX_FILE_BYTES, "speed file"))
    except (InputError, ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("machines"), dict):
        return {}
    entries = {}
    for key, measurements in doc["machines"].items():
        if isinstance(measurements, list):
            valid = [m for m in measurements if _current_measurement(m, today)]
            if valid:
                entries[key] = valid[-MEASUREMENTS:]
    return entries


def _current_measurement(m: object, today: date) -> bool:
    """A measurement as _current() makes one, dated within the last MAX_AGE_DAYS (never later than today)."""
    if not isinstance(m, dict) or set(m) != {"on", "busy", *KINDS} or not isinstance(m["on"], str):
        return False
    if type(m["busy"]) is not float or not 0 <= m["busy"] <= 1:
        return False
    try:
        on = date.fromisoformat(m["on"])
    except ValueError:
        return False
    return today - timedelta(days=MAX_AGE_DAYS) < on <= today and _measurable(m)


def _measurable(m: dict) -> bool:
    return all(type(m[kind]) is float and FASTEST <= m[kind] <= SLOWEST for kind in KINDS)


def _write(path: Path, entries: dict[str, list[dict]], key: str, kept: list[dict]) -> str | None:
    """Keep this machine's measurements in the cache file, with as many of the other entries as fit (the most
    lately measured first) in MAX_ENTRIES and MAX_FILE_BYTES; None if kept, else why not."""
    others = sorted(
        ((k, v) for k, v in entries.items() if k != key), key=lambda item: max(m["on"] for m in item[1]), reverse=True
    )[: MAX_ENTRIES - 1]
    while True:
        machines = {key: kept[-MEASUREMENTS:], **dict(others)}
        text = json.dumps({"format": FORMAT, "machines": machines}, indent=1, sort_keys=True) + "\n"
        if len(text) <= MAX_FILE_BYTES or not others:
            break
        others.pop()  # the least lately measured goes first
    if len(text) > MAX_FILE_BYTES:
        return f"its entry alone would be larger than {MAX_FILE_BYTES:,} bytes"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # below a directory cache_dir() found to exist
        files.write_atomically(path, text.encode("ascii"))
    except InputError as e:
        return str(e)
    except OSError as e:
        return f"{e.filename or path}: {e.strerror or e}"
    return None
