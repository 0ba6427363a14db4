"""The command line's cost estimates beside what the work really costs, on this machine; not a test.

Every estimate microgpt makes (the line a run prints before its first step, a refusal, --help's
examples) is a count of Values at this machine's speed, which microgpt measures once and keeps
(microgpt/runtime/speed.py). This prints, side by side, estimate and measurement:

1. At the bound, for eight shapes: block_size is the longest the bound allows (limits.longest_block),
   and two runs are measured, each in a fresh Python: a training step over a document that fills the
   block (as train() runs it, the cyclic garbage collector paused), and a sample that runs all
   block_size tokens (BOS never drawn, through the command line's own one_sample). The memory is the
   pass's: the process's peak resident size (VmHWM) less its size just before it.
2. Whole runs of the command line, each in a fresh Python: `train` on the shipped names; `sample` from
   the checkpoint it wrote, as it runs (its estimate says "at most": a sample stops at BOS) and run to
   block_size every time; and `sample` from checkpoints near the bounds, the widest (also re-indented,
   as large as a checkpoint may be) and the deepest, which reading the file dominates. The estimate is
   the run's own, its exact figures beside the line it prints. CPU time is counted from just before
   main(), so that Python's start-up and microgpt's imports, which no estimate counts, are left out;
   memory is the whole process's peak resident size, the interpreter included, as the estimate's is.

CPU time is time.process_time(): these machines are shared, and wall time would measure the neighbours.
Each figure is printed with the load average of the minute before it (the machine is shared: a busy
machine's CPU time is longer, and the estimates count that from the load, see speed.py).

Usage: .venv/bin/python benchmarks/bench_estimates.py [--fresh] [--whole-only]   (`make bench-estimates`: about ten
minutes on an idle machine, more on a busy one)
  --fresh   measure this machine's speed anew, as its first runs would (speed.MEASUREMENTS times, in a
            cache directory of this run's own), instead of using the one kept in the user's cache: a
            second calibration, to compare with the first
  --whole-only  only the whole runs
  --probe   print the probe's CPU time per Value, the median of 20 runs: speed.REFERENCE_PROBE on the
            reference machine
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

from microgpt.cli import main as cli
from microgpt.cli.main import one_sample
from microgpt.data import Tokenizer
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import checkpoint, limits, machine, speed
from microgpt.train import cyclic_gc_paused, train_step

# (vocab_size, n_layer, n_embd, n_head): the default model, wide ones, deep ones, a narrow one whose
# block is long, and a large vocabulary.
SHAPES = [
    (27, 1, 16, 4),
    (27, 1, 64, 4),
    (27, 1, 140, 4),
    (27, 2, 32, 4),
    (27, 4, 16, 4),
    (3, 1, 1, 1),
    (3, 1000, 1, 1),
    (2000, 1, 16, 4),
]
CHARS = "".join(chr(0x100 + i) for i in range(max(v for v, *_ in SHAPES)))
RUN_STEPS = 300  # a whole training run: the demo's length, about half a minute
RUN_SAMPLES = 300


class FirstToken(random.Random):
    """Always draws the first token, never BOS: the sample runs to block_size, the longest it can."""

    def choices(self, population, weights=None, **kwargs):  # type: ignore[no-untyped-def, override]
        return [population[0]]


def at_the_bound(shape: tuple[int, int, int, int]) -> GPTConfig:
    vocab_size, n_layer, n_embd, n_head = shape
    config = GPTConfig(vocab_size, n_layer=n_layer, n_embd=n_embd, n_head=n_head)
    return GPTConfig(vocab_size, n_layer, n_embd, n_head, block_size=limits.longest_block(config))


def measure(kind: str, shape: tuple[int, int, int, int]) -> dict[str, float]:
    """One run of `kind` (train or sample) at the bound, in this process: CPU seconds and peak bytes."""
    config = at_the_bound(shape)
    model = Model.init(config)
    tokenizer = Tokenizer(CHARS[: config.vocab_size - 1])
    if kind == "train":
        optimizer = Adam(model.params)
        tokens = tokenizer.encode(tokenizer.chars[0] * (config.block_size - 1))  # block_size positions

        def run() -> None:
            with cyclic_gc_paused():
                train_step(model, optimizer, tokens)
    else:

        def run() -> None:
            one_sample(model, tokenizer, FirstToken(), 0.5)

    gc.collect()
    before = machine.resident()[0]
    start = time.process_time()
    run()
    seconds = time.process_time() - start
    return {"seconds": seconds, "bytes": machine.resident()[1] - before}


def whole(args: list[str]) -> dict[str, object]:
    """A whole run of the command line, main(args), in this process (a fresh one): what it estimated (the exact
    figures behind its estimate line) and what it took: CPU seconds from just before main(), so that Python's
    start-up and microgpt's imports, which no estimate counts, are left out, and the process's peak resident
    size, the interpreter included, as the estimate's memory is. With "--to-the-end" first, every sample runs
    to block_size (BOS never drawn)."""
    if args[0] == "--to-the-end":
        random.Random.choices = FirstToken.choices  # type: ignore[method-assign]
        args = args[1:]
    estimated: dict[str, float] = {}
    real_memory, real_training, real_sampling = cli.memory_in_all, limits.training_run, limits.sampling_run

    def memory_in_all(growth: int, read: int = 0) -> int:
        estimated["bytes"] = real_memory(growth, read)
        return int(estimated["bytes"])

    def counted(run):  # type: ignore[no-untyped-def]
        def wrapped(*a, **k):  # type: ignore[no-untyped-def]
            cost = run(*a, **k)
            estimated["seconds"] = estimated.get("seconds", 0.0) + cost.count * cost.seconds_each + cost.seconds_before
            return cost

        return wrapped

    cli.memory_in_all = memory_in_all  # type: ignore[assignment]
    limits.training_run, limits.sampling_run = counted(real_training), counted(real_sampling)  # type: ignore[method-assign]
    speed.current()  # read from the cache, as the run itself will
    gc.collect()
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        status = cli.main(args)
    seconds = time.process_time() - start
    assert status == 0, err.getvalue()
    peak = machine.resident()[1]  # the process's own peak (getrusage's would count its parent's at the fork)
    said = next(line for line in err.getvalue().splitlines() if " of CPU time and " in line)
    return {"seconds": seconds, "bytes": peak, "said": said, **{f"estimated_{k}": v for k, v in estimated.items()}}


def big_checkpoints(directory: str) -> dict[str, str]:
    """Checkpoints near the bounds, to read: the widest model that fits MAX_PARAMETERS, as save() writes it and
    re-indented by a tool (as large as a checkpoint may be); and the deepest, of hundreds of thousands of rows."""
    made = {}
    for name, config in [
        ("wide", GPTConfig(27, n_layer=1, n_embd=284, n_head=4, block_size=2)),
        ("deep", GPTConfig(3, n_layer=50_000, n_embd=1, n_head=1, block_size=2)),
    ]:
        path = os.path.join(directory, f"{name}.json")
        checkpoint.save(path, Model.init(config), Tokenizer(CHARS[: config.vocab_size - 1]), {})
        made[name] = path
    with open(made["wide"]) as f:
        doc = json.load(f)
    made["wide, indented"] = os.path.join(directory, "wide-indented.json")
    with open(made["wide, indented"], "w") as f:
        json.dump(doc, f, indent=8)
    return made


def whole_runs(env: dict[str, str]) -> Iterator[tuple[str, float, float, float, float, float]]:
    """(run, estimated CPU s, measured CPU s, estimated bytes, measured bytes, load) for whole runs: training,
    sampling (as it runs, and to block_size), and sampling from the largest checkpoints, which their reading
    dominates."""
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "m.json")
        runs = [
            (f"train --steps {RUN_STEPS}", ["train", "--steps", str(RUN_STEPS), "--out", ckpt]),
            (f"sample -n {RUN_SAMPLES} (at most)", ["sample", "--ckpt", ckpt, "-n", str(RUN_SAMPLES)]),
            (
                f"sample -n {RUN_SAMPLES}, to block_size",
                ["--to-the-end", "sample", "--ckpt", ckpt, "-n", str(RUN_SAMPLES)],
            ),
        ]
        for name, path in big_checkpoints(tmp).items():
            megabytes = os.path.getsize(path) / 1e6
            runs.append((f"sample -n 20 from {name} ({megabytes:.0f} MB)", ["--to-the-end", "sample", "--ckpt", path]))
        for label, args in runs:
            out = subprocess.run(
                [sys.executable, __file__, "--whole", *args], capture_output=True, text=True, check=True, env=env
            ).stdout
            m = json.loads(out)
            said = re.search(r": ((?:about|at most) .+?) of CPU time", m["said"])
            label = f"{label}: {said[1] if said else '?'}"
            yield label, m["estimated_seconds"], m["seconds"], m["estimated_bytes"], m["bytes"], load()


def load() -> float:
    """The load average of the last minute: how busy the machine was as a figure was measured."""
    return os.getloadavg()[0]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--whole":
        print(json.dumps(whole(sys.argv[2:])))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(measure(sys.argv[2], tuple(map(int, sys.argv[3:])))))  # type: ignore[arg-type]
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        runs = [speed.probe() for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20)]
        print({kind: f"{statistics.median(run[kind] for run in runs):.3g}" for kind in speed.REFERENCE_PROBE})
        return
    env = dict(os.environ)
    fresh = tempfile.TemporaryDirectory() if "--fresh" in sys.argv else None
    if fresh is not None:  # this process and every run it starts measure the speed anew, in the same place
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"] = fresh.name
        for _ in range(speed.MEASUREMENTS - 1):  # as the first runs on a machine do, one each
            speed.current()
            speed._current.cache_clear()
    here = speed.current()
    factors = here.factors
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores; CPU time by time.process_time(); load: the load average of the last minute, as measured")
    print(
        f"Python {sys.version.split()[0]}; {here.source} ({here.kept}): when idle, train x{factors['train']:.2f}, "
        f"sample x{factors['sample']:.2f} the reference machine's time"
    )
    if "--whole-only" not in sys.argv:
        at_the_bound_rows(env, here)
    header = f"{'est. s':>7} {'meas. s':>7} {'ratio':>5}  {'est. MB':>8} {'meas. MB':>8} {'ratio':>5}  {'load':>4}"
    print(f"\n{'whole run: its own estimate; memory the whole process':66} {header}")
    for label, est_s, meas_s, est_b, meas_b, busy in whole_runs(env):
        memory = f"{est_b / meas_b:5.2f}" if meas_b > 0 else "    -"
        seconds = f"{est_s:7.2f} {meas_s:7.2f} {est_s / meas_s:5.2f}"
        print(f"{label:66} {seconds}  {est_b / 1e6:8.1f} {meas_b / 1e6:8.1f} {memory}  {busy:4.1f}", flush=True)
    if fresh is not None:
        fresh.cleanup()


def at_the_bound_rows(env: dict[str, str], here: speed.Speed) -> None:
    """Estimate beside measurement for a step and a sample at the bound, for each of SHAPES, each estimated as
    busy as the machine is as it starts."""
    print(
        f"{'shape (vocab, layers, width, heads)':36} {'block':>6} {'run':6} {'Values':>10}  "
        f"{'est. s':>7} {'meas. s':>7} {'ratio':>5}  {'est. MB':>8} {'meas. MB':>8} {'ratio':>5}  {'load':>4}"
    )
    ratios: dict[str, dict[str, list[float]]] = {k: {"seconds": [], "bytes": []} for k in ("train", "sample")}
    for shape in SHAPES:
        config = at_the_bound(shape)
        for kind, estimate in (("train", limits.step_cost), ("sample", limits.sample_cost)):
            busy = load()
            cost = estimate(config, config.block_size, dataclasses.replace(here, busy=speed.busy()))
            out = subprocess.run(
                [sys.executable, __file__, "--one", kind, *map(str, shape)],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            ).stdout
            measured = json.loads(out)
            t, m = cost.seconds / measured["seconds"], cost.bytes / measured["bytes"]
            ratios[kind]["seconds"].append(t)
            ratios[kind]["bytes"].append(m)
            print(
                f"{str(shape):36} {config.block_size:>6} {kind:6} {cost.values:>10,}  "
                f"{cost.seconds:7.2f} {measured['seconds']:7.2f} {t:5.2f}  "
                f"{cost.bytes / 1e6:8.0f} {measured['bytes'] / 1e6:8.0f} {m:5.2f}  {busy:4.1f}",
                flush=True,
            )
    for kind, r in ratios.items():
        print(
            f"{kind} at the bound, estimate / measured: CPU time {min(r['seconds']):.2f} to {max(r['seconds']):.2f}, "
            f"memory {min(r['bytes']):.2f} to {max(r['bytes']):.2f}"
        )


if __name__ == "__main__":
    main()
