"""How fast this machine builds Values: measured where microgpt runs, once, and kept in the user's cache.

Every time microgpt states (the estimate a run prints before its first step, a refusal, --help's
examples) is a count of Values (limits.py) times a CPU time per Value. How those times compare with
each other (a Value of attention over earlier positions costs more, a sample's less, having no
backward pass) was measured once, at the bound, on a reference machine: REFERENCE below. How fast
*this* machine is, is measured here: a few training steps and samples of a small model, about half a
second of CPU time on the reference machine, timed by the CPU time they take (time.process_time,
so that a busy machine's neighbours do not count). Each kind of work gets its own factor, this
machine's time over the reference machine's for the same work (REFERENCE_PROBE), and every rate is
scaled by it.

A Value of a small graph, which the processor's caches hold, and one of a graph of gigabytes do not
keep the same proportion from machine to machine, or from one moment to the next on a shared one
(measured here: a step of the shipped names cost from 1.0 to 1.3 times what the bound's rates
said). So the probe, which is small, speaks for small passes directly (Speed.rates), and for the
bound through REFERENCE_PROBE; a pass between the two gets a factor between the two, by the
logarithm of its size.

A machine's speed is not one number: on a shared machine the CPU time of the same work varies by
a third with what the neighbours do (they share the caches, and a core's other half), and a small
probe, whose work the caches hold, suffers more from them than a long run does (measured here: a
probe 1.4 times slower under a load of 12, a run at the bound 1.15 times). So the first MEASUREMENTS
runs on a machine each measure it once, and every run uses the fastest measurement kept so far:
other work can only slow a measurement down. They are kept in `speed.json` in
the user's cache directory (cache_dir()), one entry per machine, Python and microgpt version.
Deleting the file measures again. Where the file cannot be read or written (a read-only home, a
full disk), the measurement is made for the run and the estimate says it was not kept.
"""

import dataclasses
import json
import math
import os
import platform
import random
import sys
import time
from datetime import date
from functools import cache
from pathlib import Path

from microgpt import __version__
from microgpt.data import Tokenizer
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import files
from microgpt.runtime.errors import InputError
from microgpt.sample import sample
from microgpt.train import cyclic_gc_paused, train_step


@dataclasses.dataclass(frozen=True)
class Rates:
    """CPU seconds a Value takes, in a training step (backward pass included) and in a sample; the Values of
    attention over earlier positions (limits.attention_values) apart, since they cost more."""

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
# Its CPU time per Value it builds, on the reference machine as REFERENCE holds there at the bound:
# probe()'s time per Value over the measured factor at the bound of the default shape and a wide one
# (measured / estimate), in one session, four times (training 1.64, 1.69, 1.64 and 1.71, sampling
# 0.45, 0.48, 0.49 and 0.52, in microseconds: the machine was more or less busy).
PROBE_CONFIG = GPTConfig(vocab_size=27, block_size=8)
PROBE_TOKENS = 8
PROBE_REPEATS = 4  # after one run to warm up; the fastest of these (a burst of the neighbours' work slows one)
REFERENCE_PROBE = {"train": 1.67e-6, "sample": 0.48e-6}

FILE_NAME = "speed.json"
FORMAT = "microgpt-speed"
MAX_FILE_BYTES = 1 << 16
MAX_ENTRIES = 20  # machines, Pythons and versions kept in one file (a home directory shared by many machines)
MEASUREMENTS = 5  # the runs that measure the speed, one each: the fastest stands from then on


@dataclasses.dataclass(frozen=True)
class Speed:
    """This machine's factors (its probe's time over REFERENCE_PROBE), and where they come from: said beside
    every estimate made with them."""

    factors: dict[str, float]  # {"train": ..., "sample": ...}
    measured: str  # when: "3 times since 2026-11-28", "just now", or "on the reference machine"
    kept: str = ""  # where the measurements are kept, or why they are not

    @property
    def source(self) -> str:
        if self.measured == AT_REFERENCE:
            return "at the reference machine's speed"
        return f"at this machine's speed, measured {self.measured}"

    def rates(self, values: int) -> Rates:
        """The rates of a pass that builds `values` Values, on this machine (see the module's docstring)."""
        train, sample = (self.factors[kind] * _small_over_bound(kind) ** _smallness(kind, values) for kind in KINDS)
        return REFERENCE.scaled(train, sample)


KINDS = ("train", "sample")
AT_REFERENCE = "on the reference machine"
REFERENCE_SPEED = Speed(dict.fromkeys(KINDS, 1.0), AT_REFERENCE, "written in microgpt/runtime/speed.py")


@cache
def _probe_pass(kind: str) -> tuple[int, float]:
    """The Values of the probe's pass of `kind`, and what REFERENCE says each costs (seconds per Value)."""
    from microgpt.runtime.limits import attention_values, values_per_step  # limits reads this module

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
    from microgpt.runtime.limits import MAX_VALUES_PER_PASS as bound  # limits reads this module

    small = _probe_pass(kind)[0]
    if values <= small:
        return 1.0
    return max(0.0, math.log(bound / values) / math.log(bound / small))


def current() -> Speed:
    """This machine's speed: from the cache if it was measured here before, else measured now (and kept)."""
    return _current()


@cache
def _current() -> Speed:
    key, directory = machine_key(), cache_dir()
    path = None if directory is None else directory / FILE_NAME
    entries = _read(path) if path is not None else {}
    entry = entries.get(key) or {"since": date.today().isoformat(), "train": [], "sample": []}
    why_not = None
    if len(entry["train"]) < MEASUREMENTS:  # one more measurement: this run's
        factors = measure()
        entry = {**entry, **{kind: [*entry[kind], factors[kind]] for kind in factors}}
        why_not = _write(path, entries, key, entry)
    factors = {kind: min(entry[kind]) for kind in KINDS}
    count = len(entry["train"])
    if why_not is not None:
        return Speed(factors, "just now", f"not kept: {why_not}")
    measured = "just now" if count == 1 else f"{count} times since {entry['since']}"  # one: by this run
    return Speed(factors, measured, f"kept in {path}")


def machine_key() -> str:
    """What a measurement holds for: this machine (by name: a home directory may be shared), Python and microgpt."""
    python = f"{sys.implementation.name} {platform.python_version()}"
    return f"{platform.node()} {platform.machine()} {python} microgpt {__version__}"


def cache_dir() -> Path | None:
    """Where microgpt keeps what it measured: the platform's cache directory for the user, or None if there is none."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base) / "microgpt" / "Cache" if base else None
    if sys.platform == "darwin":
        home = Path.home()
        return home / "Library" / "Caches" / "microgpt"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):  # the XDG spec: a relative path is to be ignored
        return Path(xdg) / "microgpt"
    try:
        return Path.home() / ".cache" / "microgpt"
    except RuntimeError:  # no home directory at all
        return None


def measure() -> dict[str, float]:
    """This machine's factors: the probe's CPU time per Value for each kind of work, over the reference machine's."""
    per_value = probe()
    return {kind: per_value[kind] / REFERENCE_PROBE[kind] for kind in REFERENCE_PROBE}


def probe(repeats: int = PROBE_REPEATS) -> dict[str, float]:
    """CPU seconds per Value of a training step and of a sample of PROBE_CONFIG, the fastest of `repeats` runs each.

    The fastest, not the median: what slows one of them is other work on the machine, not its speed."""
    from microgpt.runtime.limits import values_per_step  # limits reads this module's rates

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
    return {kind: min(t[1:]) / values[kind] or REFERENCE_PROBE[kind] for kind, t in times.items()}


class _FirstToken(random.Random):
    """Always draws the first token, never BOS: the probe's sample runs to block_size."""

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        return [population[0]] * k


def _read(path: Path) -> dict[str, dict]:
    """The entries of the cache file; nothing if it is missing, unreadable, or not what this module writes."""
    try:
        doc = json.loads(files.read_bytes(path, MAX_FILE_BYTES, "speed file"))
    except (InputError, ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("machines"), dict):
        return {}
    return {key: entry for key, entry in doc["machines"].items() if _valid(entry)}


def _valid(entry: object) -> bool:
    """An entry as _current() writes it: when measuring began, and one to MEASUREMENTS factors of each kind."""
    if not isinstance(entry, dict) or not isinstance(entry.get("since"), str):
        return False
    kinds = [entry.get(kind) for kind in REFERENCE_PROBE]
    lists = [factors for factors in kinds if isinstance(factors, list) and 1 <= len(factors) <= MEASUREMENTS]
    if len(lists) != len(kinds) or len({len(factors) for factors in lists}) != 1:  # as many of each kind
        return False
    # a factor is this machine's time over the reference's: anything outside 1/1000 to 1000 was not measured here
    return all(type(f) is float and math.isfinite(f) and 1e-3 < f < 1e3 for factors in lists for f in factors)


def _write(path: Path | None, entries: dict[str, dict], key: str, entry: dict) -> str | None:
    """Keep the entry in the cache file (the newest MAX_ENTRIES); None if kept, else why not."""
    if path is None:
        return "no cache directory"
    kept = dict(sorted({**entries, key: entry}.items(), key=lambda item: item[1]["since"])[-MAX_ENTRIES:])
    text = json.dumps({"format": FORMAT, "machines": kept}, indent=1, sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomically(path, text.encode("ascii"))
    except InputError as e:
        return str(e)
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    return None
