"""The command line's cost estimates beside what the work really costs, on this machine; not a test.

Every estimate microgpt makes (the line a run prints before its first step, a refusal, --help's
examples) is a count of Values at this machine's speed, which microgpt measures once and keeps
(microgpt/runtime/speed.py). This prints, side by side, estimate and measurement:

1. At the bound, for eight shapes: block_size is the longest the bound allows (limits.longest_block),
   and two runs are measured, each in a fresh Python: a training step over a document that fills the
   block (as train() runs it, the cyclic garbage collector paused), and a sample that runs all
   block_size tokens (BOS never drawn, through the command line's own one_sample).
2. Whole runs of the command line, each in a fresh Python: `train` on the shipped names, and `sample`
   from the checkpoint it wrote, run to block_size tokens every time (the estimate of a sample is of
   the longest it can be: a real one stops at BOS, sooner). Measured from just before main(), so that
   Python's start-up and microgpt's imports, which no estimate counts, are left out; the estimate is
   the one the run prints, shown beside it.

CPU time is time.process_time() (or the child's user + system time): these machines are shared, and
wall time would measure the neighbours. Peak memory is the process's peak resident size (ru_maxrss)
less its size just before the run: what the machine really gives up, allocator included.

Usage: .venv/bin/python benchmarks/bench_estimates.py [--fresh]   (about six minutes; `make bench-estimates`)
  --fresh   measure this machine's speed anew, as its first runs would (speed.MEASUREMENTS times, in a
            cache directory of this run's own), instead of using the one kept in the user's cache: a
            second calibration, to compare with the first
  --probe   print the probe's CPU time per Value, the median of 20 runs: speed.REFERENCE_PROBE on the
            reference machine
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from microgpt.cli import main as cli
from microgpt.cli.main import one_sample
from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import limits, speed
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


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


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
    before = resident_bytes()
    start = time.process_time()
    run()
    seconds = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    return {"seconds": seconds, "bytes": peak - before}


def whole(args: list[str]) -> dict[str, float]:
    """A whole run of the command line, main(args), in this process (a fresh one): CPU seconds and peak bytes,
    counted from just before main(), so that Python's start-up and microgpt's imports, which no estimate
    counts, are left out. With "--to-the-end" first, every sample runs to block_size (BOS never drawn)."""
    if args[0] == "--to-the-end":
        random.Random.choices = FirstToken.choices  # type: ignore[method-assign]
        args = args[1:]
    speed.current()  # read from the cache, as the run itself will
    gc.collect()
    before = resident_bytes()
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        status = cli.main(args)
    seconds = time.process_time() - start
    assert status == 0, err.getvalue()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    return {"seconds": seconds, "bytes": peak - before, "said": err.getvalue().splitlines()[0]}


def whole_runs(env: dict[str, str], here: speed.Speed) -> list[tuple[str, float, float, float, float]]:
    """(run, estimated CPU s, measured CPU s, estimated bytes, measured bytes) for a training run and sampling."""
    docs = load_docs(default_data_path())
    config = GPTConfig(Tokenizer.from_docs(docs).vocab_size)
    train = limits.training_run(config, docs, RUN_STEPS, here)
    sampling = limits.sampling_run(config, RUN_SAMPLES, here)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "m.json")
        rows = []
        for label, args, cost in [
            (f"train --steps {RUN_STEPS}", ["train", "--steps", str(RUN_STEPS), "--out", ckpt], train),
            (
                f"sample -n {RUN_SAMPLES}, to block_size",
                ["--to-the-end", "sample", "--ckpt", ckpt, "-n", str(RUN_SAMPLES)],
                sampling,
            ),
        ]:
            out = subprocess.run(
                [sys.executable, __file__, "--whole", *args], capture_output=True, text=True, check=True, env=env
            ).stdout
            measured = json.loads(out)
            said = re.search(r": (about|at most) (.+?) of CPU time", measured["said"])
            rows.append(
                (
                    f"{label} ({said[2] if said else '?'})",
                    cost.count * cost.seconds_each,
                    measured["seconds"],
                    cost.bytes,
                    measured["bytes"],
                )
            )
    return rows


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
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU time by time.process_time()")
    print(
        f"Python {sys.version.split()[0]}; {here.source} ({here.kept}): train x{factors['train']:.2f}, "
        f"sample x{factors['sample']:.2f} the reference machine's time"
    )
    print(
        f"{'shape (vocab, layers, width, heads)':36} {'block':>6} {'run':6} {'Values':>10}  "
        f"{'est. s':>7} {'meas. s':>7} {'ratio':>5}  {'est. MB':>8} {'meas. MB':>8} {'ratio':>5}"
    )
    ratios: dict[str, dict[str, list[float]]] = {k: {"seconds": [], "bytes": []} for k in ("train", "sample")}
    for shape in SHAPES:
        config = at_the_bound(shape)
        for kind, estimate in (("train", limits.step_cost), ("sample", limits.sample_cost)):
            cost = estimate(config, config.block_size, here)
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
                f"{cost.bytes / 1e6:8.0f} {measured['bytes'] / 1e6:8.0f} {m:5.2f}",
                flush=True,
            )
    for kind, r in ratios.items():
        print(
            f"{kind} at the bound, estimate / measured: CPU time {min(r['seconds']):.2f} to {max(r['seconds']):.2f}, "
            f"memory {min(r['bytes']):.2f} to {max(r['bytes']):.2f}"
        )
    header = f"{'est. s':>7} {'meas. s':>7} {'ratio':>5}  {'est. MB':>8} {'meas. MB':>8} {'ratio':>5}"
    print(f"\n{'whole run (its own estimate line)':56} {header}")
    for label, est_s, meas_s, est_b, meas_b in whole_runs(env, here):
        memory = f"{est_b / meas_b:5.2f}" if meas_b > 0 else "    -"
        seconds = f"{est_s:7.2f} {meas_s:7.2f} {est_s / meas_s:5.2f}"
        print(f"{label:56} {seconds}  {est_b / 1e6:8.1f} {meas_b / 1e6:8.1f} {memory}")
    if fresh is not None:
        fresh.cleanup()


if __name__ == "__main__":
    main()
